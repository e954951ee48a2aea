"""The words of a question, and the cut they make where the amount filter no longer holds
them.

A question names a quantity ("a total due", "a packing charge"), often a kind of document
("bills", "estimates") and a unit ("an hour"), and what it is about: "**phone** bills with
a **total due** over $150", "**car repair** invoices with a **balance due** under $1,500",
"**movers** charging over $150 an hour". Its **subject** here is every word of the
question's match text (the amounts already out) that says one of those things and no
other: no function word, no generic quantity, figure or document noun ("fee", "total",
"invoices"), no verb that puts a price on something ("charging") and no unit a price is
stated per ("hour" of "per hour") — the words a holder shares with the question and a
document of another family, holding a figure of the same kind, does not.

A bound constraint's filter holds the quantity as named, and the qualifier of its kind
where the question's reading made one; not the rest of what the question is about: "**roof
repair** invoices with less than $700 left to pay" binds to any balance due, and a physio
statement's $120 balance passes as the roofer's does. At the steps below it (narrowed,
per-unit, role-free) the filter keeps any document holding such a figure — another
family's balance due, another trade's hourly rate, any amount in range. At every one of
these steps (:data:`SUBJECT_STEPS`) the words only rank, and the cut (:func:`with_subject`)
keeps the hits that say as many of
the subject's words as the best hit — the highest **coordination level** of the hits,
counted in distinct words by Snowball stem over a hit's title, breadcrumb and body
("movers" meets "moving" only where both stem alike) —, or a given number fewer (the
spec's ``subject_slack``: one by default, so a holder that writes one asked word otherwise
stays), never a hit saying none; and every hit when none says one: a subject no hit says is
a question in words the corpus does not use, not a reason to answer nothing — though at the
narrowed and per-unit steps, whose filter keeps a figure of the asked kind in a document
about anything, hits saying no word of a subject of two words or more send the ladder a
step down first (:data:`~osrag.search.ladder.UNSAID_STEPS`, :func:`subject_cut`). The kind of
document is never part of the subject: it ranks and never excludes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

from osrag.engines.mapping import ENGLISH_STOP_WORDS
from osrag.lexicon.function_words import (
    ALL_PREPOSITIONS,
    BOUNDARY_WORDS,
    DETERMINERS,
    PRONOUNS,
    VERBS_OF_ASKING,
    VERBS_OF_TERMS,
)
from osrag.lexicon.links import ASKED_PRICE_VERBS
from osrag.lexicon.periods import period_unit_of
from osrag.lexicon.quantities import is_document_noun, is_figure_noun, is_quantity_noun
from osrag.lexicon.scopes import read_scope
from osrag.lexicon.words import key_stem, word_runs
from osrag.models import AmountStep

SUBJECT_STEPS: tuple[AmountStep, ...] = ("bound", "narrowed", "worded", "per-unit", "role-free")
"""The amount steps whose filter keeps a figure of the asked quantity (or kind) in a
document about anything, or any figure in range: where the subject cuts
(:func:`with_subject`). At the worded step by the words its labels do not hold: "septic
riser installation" worded to "Riser and lid to grade, installed" and to a flooring
quote's "Stair treads and risers, installed" is cut by "septic"."""

BESIDE_STEPS: tuple[AmountStep, ...] = tuple(
    step for step in SUBJECT_STEPS if step not in ("bound", "worded")
)
"""The steps below the bound one whose filter no longer holds the quantity's words: there,
of the hits the subject leaves, the ones whose amount in range has the most subject words
beside it are kept (:mod:`osrag.search.beside`). At the bound step the filter says which
figure it is, and at the worded step its labels hold the name's words."""

T = TypeVar("T")


def _words(text: str) -> list[str]:
    """The casefolded words of ``text`` written in letters alone ("change-order" → change,
    order; "FY99", "1040" and "W-2"'s "2" are no words here)."""
    return [w for w in word_runs(text.casefold()) if w.isalpha()]


def _not_subject(word: str) -> bool:
    """Whether ``word`` says something other than what a question is about: a function
    word, a verb of asking, giving or pricing, a quantity, figure or document noun, or a
    unit a price is stated per ("hour" of "per hour")."""
    return (
        len(word) < 2
        or word in ENGLISH_STOP_WORDS
        or word in ALL_PREPOSITIONS
        or word in DETERMINERS
        or word in PRONOUNS
        or word in BOUNDARY_WORDS  # clause words, verbs of being, doing, giving, reporting
        or word in VERBS_OF_ASKING
        or word in VERBS_OF_TERMS
        or word in ASKED_PRICE_VERBS
        or is_document_noun(word)
        or is_quantity_noun(word)
        or is_figure_noun(word)
        or period_unit_of(f"per {word}") is not None
        or period_unit_of(word) is not None
    )


def subject_words(match_text: str) -> tuple[str, ...]:
    """The subject of a question (see the module docstring): the words of ``match_text``
    (the question without its amounts) that say what it asks and about what, in order,
    once each — every word :func:`_not_subject` does not set apart. Empty when nothing
    is left."""
    return tuple(dict.fromkeys(w for w in _words(match_text) if not _not_subject(w)))


def scope_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` that say whose figure or which part of the year it asks
    (:func:`~osrag.lexicon.scopes.read_scope`: "**third-quarter** gross profit", "**Americas
    segment** revenue", "**adjusted** EBITDA") — what a bound constraint's scope and part
    hold as the fact's fields, not as words."""
    tokens = text.split()
    kept = set(read_scope(tokens).what)
    return tuple(w for t in tokens if t not in kept for w in _words(t))


def unheld_words(subject: Sequence[str], held: Sequence[str]) -> tuple[str, ...]:
    """The words of ``subject`` that none of the words ``held`` says (by Snowball stem): at
    the bound step, the words its filter does not hold. The filter holds the quantity's
    name (by every name a profile gives it: a holder need not say the question's own,
    "invoices with an **amount payable** over $4,000" against "Total due: $4,025.30") and a
    scope or part of the year as the fact's fields (:func:`scope_words`); what is left is
    what the question is about ("**roof repair** invoices with less than $700 left to
    pay")."""
    stems = {key_stem(w) for text in held for w in _words(text)}
    return tuple(w for w in subject if key_stem(w) not in stems)


@lru_cache(maxsize=1024)
def _stems(text: str) -> frozenset[str]:
    return frozenset(key_stem(w) for w in _words(text))


def said(text: str, subject: Sequence[str]) -> int:
    """How many of the ``subject``'s words ``text`` says (distinct Snowball stems): its
    coordination level."""
    return said_in((text,), subject)


def said_in(texts: Sequence[str], subject: Sequence[str]) -> int:
    """How many of the ``subject``'s words the ``texts`` say together (each text's stems
    read once and kept: a chunk's headings, read beside each of its amounts)."""
    stems = frozenset().union(*map(_stems, texts))
    return len({stem for w in subject if (stem := key_stem(w)) in stems})


def at_highest_level(hits: Sequence[T], levels: Sequence[int | None], slack: int) -> list[T]:
    """The ``hits`` whose level is the highest of their ``levels``, or up to ``slack``
    fewer, never zero, and those with no level (None: nothing read to count), in order;
    every hit when no level is one or more."""
    best = max((level for level in levels if level is not None), default=0)
    if best < 1:
        return list(hits)
    least = max(best - slack, 1)
    return [hit for hit, level in zip(hits, levels, strict=True) if level is None or level >= least]


def with_subject(
    hits: Sequence[T], subject: Sequence[str], text_of: Callable[[T], str], slack: int = 0
) -> list[T]:
    """The hits whose text (``text_of``) says the most of the ``subject``'s words — the
    highest coordination level among them, or up to ``slack`` words fewer, never none —,
    in order; every hit when the subject is empty or no hit says one of its words."""
    return subject_cut(hits, subject, text_of, slack)[0]


def subject_cut(
    hits: Sequence[T], subject: Sequence[str], text_of: Callable[[T], str], slack: int = 0
) -> tuple[list[T], bool]:
    """:func:`with_subject`'s hits, and whether one of ``hits`` says a word of the
    ``subject`` (True for an empty subject: nothing is asked; False for no hit), each hit's
    words read once for both."""
    if not subject:
        return list(hits), True
    levels = [said(text_of(hit), subject) for hit in hits]
    return at_highest_level(hits, levels, slack), any(levels)
