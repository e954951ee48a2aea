"""The subject of a question, and the cut it makes where the amount filter no longer holds
the question's words.

A question names a quantity ("a total due", "a packing charge"), a kind of document
("bills", "estimates"), often a unit ("an hour") — and what it is about: "**phone** bills
with a total due over $150", "**car repair** invoices with a balance due under $1,500",
"**movers** charging over $150 an hour". Those last words are its **subject**: the words
of the question's match text (the amounts already out) that are no function word, no word
of a constrained quantity's name, no quantity, figure or document noun, no verb that puts
a price on something and no unit a price is stated per.

While a bound constraint holds, the filter itself says what the question is about: the
quantity as named, the qualifier of its kind where a document says it. At the steps below
it (narrowed, per-unit, role-free: :data:`SUBJECT_STEPS`) the filter keeps any document
holding such a figure — another family's balance due, another trade's hourly rate — and
the words only rank. There a hit that says none of the subject's words, beside a hit that
says one, is no answer: the cut (:func:`with_subject`) keeps the hits whose title,
breadcrumb or body says one of them (compared by Snowball stem: "movers" meets "moving"
only where both stem alike), and keeps every hit when none does — a subject no hit says
is a word the corpus does not use, not a reason to answer nothing. The kind of document
is never part of the subject: it ranks and never excludes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypeVar

from osrag.engines.mapping import ENGLISH_STOP_WORDS
from osrag.lexicon.function_words import (
    ALL_PREPOSITIONS,
    CLAUSE_WORDS,
    DETERMINERS,
    VERBS_OF_ASKING,
    VERBS_OF_GIVING,
)
from osrag.lexicon.links import ASKED_PRICE_VERBS
from osrag.lexicon.periods import period_unit_of
from osrag.lexicon.quantities import is_document_noun, is_figure_noun, is_quantity_noun
from osrag.lexicon.words import key_stem
from osrag.models import AmountConstraint, AmountStep

SUBJECT_STEPS: tuple[AmountStep, ...] = ("narrowed", "per-unit", "role-free")
"""The amount steps whose filter keeps a figure of the asked kind in any document, or any
figure in range: where the subject cuts (:func:`with_subject`)."""

_TOKEN = re.compile(r"[^\W_]+")
T = TypeVar("T")


def _words(text: str) -> list[str]:
    """The casefolded words of ``text`` written in letters alone ("change-order" → change,
    order; "FY99", "1040" and "W-2"'s "2" are no words here)."""
    return [w for w in _TOKEN.findall(text.casefold()) if w.isalpha()]


def _not_subject(word: str) -> bool:
    """Whether ``word`` says something other than what a question is about: a function
    word, a verb of asking, giving or pricing, a quantity, figure or document noun, or a
    unit a price is stated per ("hour" of "per hour")."""
    return (
        len(word) < 2
        or word in ENGLISH_STOP_WORDS
        or word in ALL_PREPOSITIONS
        or word in DETERMINERS
        or word in CLAUSE_WORDS
        or word in VERBS_OF_ASKING
        or word in VERBS_OF_GIVING
        or word in ASKED_PRICE_VERBS
        or is_document_noun(word)
        or is_quantity_noun(word)
        or is_figure_noun(word)
        or period_unit_of(f"per {word}") is not None
        or period_unit_of(word) is not None
    )


def subject_words(match_text: str, constraints: Iterable[AmountConstraint]) -> tuple[str, ...]:
    """The subject of a question (see the module docstring): the words of ``match_text``
    (the question without its amounts) that say what it is about, in order, once each —
    neither a word of a constrained quantity's name (its label) nor a word
    :func:`_not_subject` sets apart. Empty when nothing is left."""
    named = {key_stem(w) for c in constraints if c.label for w in _words(c.label)}
    found = [w for w in _words(match_text) if not _not_subject(w) and key_stem(w) not in named]
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    return frozenset(key_stem(w) for w in _words(text))


def says_subject(text: str, subject: Sequence[str]) -> bool:
    """Whether ``text`` says one of the ``subject``'s words, compared by Snowball stem."""
    stems = _stems(text)
    return any(key_stem(w) in stems for w in subject)


def with_subject(hits: Sequence[T], subject: Sequence[str], text_of: Callable[[T], str]) -> list[T]:
    """The hits whose text (``text_of``) says one of the ``subject``'s words, in order —
    every hit when the subject is empty or no hit says one."""
    if not subject:
        return list(hits)
    kept = [hit for hit in hits if says_subject(text_of(hit), subject)]
    return kept or list(hits)
