"""A question's named quantity matched to the labels of the index by meaning, where no label
holds its keys.

A bound constraint matches a fact when one of its asked keys is one of the fact's
``label_keys`` (:mod:`osrag.search.fact_filters`): exact terms, so "setup fee" never finds
"Installation charge" unless a synonym list says so. Families no profile covers are the
normal case. So the named quantity is also compared with the generation's **label
vocabulary** (:mod:`osrag.ingestion.label_vocabulary`: every distinct label its facts
hold, with its keys, its documents' access scopes and one vector):

1. **by key** — the labels holding the key of the asked name itself; **by synonym** —
   those holding a key of one of its alternatives (:func:`~osrag.lexicon.keys.asked_keys`).
   The filter asks for their keys already: nothing is added. **By form**, when none
   does: the labels holding a key of the same words' stems as an asked key of two words
   or more (:func:`~osrag.lexicon.words.key_stem`: "Bridging loan" for "bridge loans"),
   found among those holding its last word; that key is added, and meaning is not asked.
   **By modifier**, when none matches by key, synonym or form and the asked name is a thing and a
   last word that only says it is paid for (:data:`~osrag.lexicon.label_roles.PAID_HEADS`:
   "outgoing wire fees", "implementation fee", "stop payment charge"): the labels holding a key that
   is the thing (its **modifier**) or begins with its words, as a price list or a fee schedule
   writes them ("Outgoing wire transfer", "Implementation", "Stop payment") — never for a modifier
   of words that name nothing paid for on their own (a period, a total, a generic or a function
   word: "annual fee", "total cost", "monthly charge") or of one word naming a quantity or a
   document ("tax rate", "policy fee"), never a label whose key beginning with the modifier names
   another figure of the thing (a "setup deposit", an "outgoing wire amount";
   :func:`paid_modifier`). Their keys are added as meaning's are (step 3),
   and meaning is not asked — unless they add none.
2. **by meaning**, when no label the caller may see matched by key, synonym, form or
   modifier: the asked
   name is embedded by the vocabulary's embedder (once per search: the searcher's query
   vector cache keeps it) and compared with the label vectors; a label whose cosine
   reaches the **threshold** (the ``label_meaning_threshold`` setting,
   :data:`DEFAULT_THRESHOLD`, chosen on the development sets: ``docs/amounts.md``) names
   the quantity in other words — unless the words already decide it, so meaning never
   overrules the keys' reading of heads and modifiers: a label holding the asked name's
   head (its last word, or the one before a word that only says it is an amount: "loan
   amount" is a loan's) — as its own head ("Late fee" for "setup fee") or beside another
   ("Cost of revenue", "Revenue — First Quarter" for "revenue") —, unless it names the
   asked thing's own fee, price or amount ("Front-of-shirt sponsorship fee" for "shirt
   sponsorship", where the asked head names no quantity of its own), and a label naming a
   quantity the vocabulary knows apart from the asked one (:data:`~osrag.lexicon.
   quantities.SYNONYMS`: "Net revenue" for "net income"). At most :data:`MOST_BY_MEANING`
   labels, the nearest first. Meaning is not asked where keys answer: on TAT-QA, whose
   every asked name is a label the index holds, matching by meaning beside the keys turned
   precision down (``docs/amounts.md``); ``LabelMeaning.beside_keys`` runs it so.
3. **the keys added**: a label matched by modifier or by meaning adds those of its keys
   that are no tail of another of its keys and that only matched labels hold ("Installation
   charge" adds "installation charge", never "charge", which "Monthly charge" holds too) —
   into the same nested label filter, in every leg of every mode (:func:`~osrag.search.
   fact_filters.fact_filter`). A label whose every such key a non-matching label also holds
   adds nothing.
4. **by words**, for a later step of the amount ladder (``worded``, :mod:`osrag.search.
   ladder`), never beside the keys: the labels no other way matched that hold more than
   half of the name's **naming words** (:func:`naming_words`: its key's words without
   heads that only say it is an amount or paid for, function words and period words —
   "termite inspections" → termite, inspection: "Termite / wood-destroying insect
   inspection"; "gutter cleaning" → "Cleaning of gutters and downpipes"), a word held by
   its stem among the words of the label and of its keys ("bleeding hydraulic brakes" →
   "Hydraulic brake bleed, per brake"; "speed chains" → "Chain, 12-speed", keyed "chain"
   alone), the most words
   held first, at most :data:`MOST_BY_MEANING`; never a label the modifier's reading says
   names another figure of the thing ("Outgoing wire amount"); for a name whose head is a
   quantity the vocabulary knows, only a label holding every naming word of two or more
   and ending in that head ("Refundable security deposit" for "refundable deposit"; never
   "Deferred revenue" for "revenue"). A label's keys are the tails of its phrase: exact
   where the quantity ends the label, blind to it in a longer phrase or another order,
   which is what this finds once the keys found nothing. Their exclusive keys are the
   ``worded`` step's filter (``Matched.worded``, the report's ``worded_keys``), the kind
   of document the question names only ranking there (its words rank). Before those, the
   **tail** the labels hold: a name that is no quantity the vocabulary knows, over-specified
   by words before its head (a compound's head comes last), is asked as its longest tail of
   two words or more that a visible label holds as a key (:func:`_by_tail`: "appliance
   repair weekend service calls" → the labels keyed "weekend service call"); only when no
   tail is held, the labels holding most of its words.

What was matched, and how, is the result's ``label_matches`` (:class:`~osrag.models.
LabelMatches`): ``--explain``, ``--json`` and the log show it. A named quantity that no
label matches by key or by meaning is said there (with the nearest label the caller may
see), never turned silently into "any amount": the amount ladder still steps down, and
says so.

**Access.** Only labels of documents the caller may see take part: the vocabulary keeps
each label's scopes and the caller's tenant and groups choose them
(:meth:`~osrag.ingestion.label_vocabulary.Vocabulary.visible`), worked out on every
search from the caller's arguments; whether keys matched, the nearest label and the
exclusive-key rule of step 3 look at those labels only. A label of a document the caller
cannot see is never named, never its nearest, never a reason to add or withhold a key.

**Cost.** The vocabulary is read once per generation (and revision: an in-place ingest
changes it) per engine object of a process; every :data:`STATE_SECONDS` the search checks
its revision. The read is its snapshot, bounded however many labels the generation holds;
past the snapshot's bound the labels outside it are counted from the key counts
(:mod:`osrag.ingestion.label_snapshot`: a fetch by id of the asked keys' buckets, kept
for the vocabulary's lifetime), and by form, by modifier and by meaning only the
snapshot's labels are compared (:mod:`osrag.ingestion.label_vocabulary` says what
differs). Its vectors were embedded at ingest; the read decodes those of the
:data:`~osrag.ingestion.label_vocabulary.MEANING_LABELS` most widely held labels only, and
only those are compared by meaning, so the product with the asked name's vector is bounded
however many distinct labels a corpus holds (a label beyond them still matches by its
keys). A search whose named quantity no label holds adds one embedding of the name (cached)
and that product; a search whose named quantities labels hold adds a lookup of their keys:
boolean arrays over the labels, never a Python loop over the labels holding a key
(``benchmarks/label_meaning_latency.py`` measures both, and the read, at up to 300,000
labels). By modifier is a bisection of the vocabulary's keys and at most
:data:`FORM_CANDIDATES` keys beginning with the modifier; the keys are sorted once per
read, by the first search that asks (0.5 s for the 740,000 keys of 300,000 synthetic
labels, beside a read of 12–17 s; microseconds after).
"""

from __future__ import annotations

import dataclasses
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from osrag.config import LABEL_MEANING_THRESHOLD
from osrag.engines.base import ChunkIndex
from osrag.errors import OsragError
from osrag.ingestion.label_snapshot import EVERY_LABEL
from osrag.ingestion.label_vocabulary import Vocabulary, read_state, read_vocabulary
from osrag.lexicon.function_words import ALL_PREPOSITIONS, COORDINATORS, DETERMINERS, PRONOUNS
from osrag.lexicon.keys import asked_key, asked_key_forms, asked_keys, name_clause
from osrag.lexicon.label_roles import (
    ASKED_GENERIC_HEADS,
    EMPTY_HEADS,
    FIGURE_WORDS,
    GENERIC_HEADS,
    LINE_ITEM_MODIFIERS,
    MODIFIERS,
    NON_HEAD_STARTS,
    OPTIONAL_LEADS,
    PAID_HEADS,
    PRICE_HEADS,
    STATED_TOTAL_WORDS,
)
from osrag.lexicon.periods import PERIOD_UNITS, is_period_words
from osrag.lexicon.quantities import is_document_noun, is_quantity_noun, synonyms_of
from osrag.lexicon.signs import names_loss
from osrag.lexicon.words import key_stem, phrase_words, word_stems
from osrag.models import LabelMatch, LabelMatches
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import AmountFilter, FilterItem
from osrag.schema.labels import MatchedBy, VocabularyUse
from osrag.search.asked import keys_shown as _keys
from osrag.search.fact_filters import fact_filter, narrowed_filter
from osrag.search.query import AnalyzedQuery

__all__ = [
    "DEFAULT_THRESHOLD",
    "MOST_BY_MEANING",
    "LabelMeaning",
    "Matched",
    "match_name",
    "with_label_matches",
]

DEFAULT_THRESHOLD = LABEL_MEANING_THRESHOLD
"""The cosine a label must reach to be matched by meaning (the ``label_meaning_threshold``
setting's default; ``docs/amounts.md`` has the sweep it was chosen on)."""
MOST_BY_MEANING = 16
"""The most labels one named quantity matches by meaning (the nearest first), or by form."""
MOST_BY_TAIL = 3
"""The most labels an asked name's tail may pick out and still be read as the thing asked
(:func:`_by_tail`); a tail more labels hold is a kind of thing ("service fee", "call out")."""
FORM_CANDIDATES = 5_000
"""The most labels holding an asked key's last word whose keys are compared by form."""
SHOWN = 8
"""Labels matched by key or by synonym a report names (their counts are whole)."""
STATE_SECONDS = 30.0
"""How long a vocabulary's revision is trusted before the state record is read again."""
NAMING_NOTHING_ALONE = (
    OPTIONAL_LEADS
    | EMPTY_HEADS
    | STATED_TOTAL_WORDS
    | GENERIC_HEADS
    | ASKED_GENERIC_HEADS
    | PAID_HEADS
    | LINE_ITEM_MODIFIERS
    | MODIFIERS
    | NON_HEAD_STARTS
)
"""Words that name no thing paid for when a modifier is made of them alone — a total, net or
reported lead, an empty or generic head, a part of a line item, a function word ("total
cost", "other charges", "the fee"); period words are told by :func:`~osrag.lexicon.periods.
is_period_words` and :data:`~osrag.lexicon.periods.PERIOD_UNITS` ("annual fee", "monthly
charge", "hourly rate")."""

NOT_NAMING_WORDS = NAMING_NOTHING_ALONE | DETERMINERS | ALL_PREPOSITIONS | COORDINATORS | PRONOUNS
"""Words of an asked name that say nothing of what it names on their own (a head that only
says it is an amount or paid for, a function word); period words are told by
:func:`~osrag.lexicon.periods.is_period_words`."""


# --------------------------------------------------------------------------- pure matching


VectorOf = Callable[[], tuple[npt.NDArray[np.float32] | None, str | None]]
"""The asked name's vector when it is needed, or None and why it cannot be had."""
Beyond = Callable[[Sequence[str]], dict[str, int]]
"""For each of some keys, the labels outside the vocabulary's rows a caller may see that
hold it (:meth:`~osrag.ingestion.label_vocabulary.Vocabulary.beyond`): zero, or absent,
when none does."""


@dataclass(frozen=True)
class Matched:
    """One named quantity's match: the report, the keys it adds to the filter, and the keys
    of the labels holding the name's words, which the ladder's worded step asks for."""

    report: LabelMatches
    added: tuple[str, ...] = ()
    worded: tuple[str, ...] = ()


def _head(words: list[str]) -> str | None:
    """The head of a name's words: its last word, or the one before a last word that only
    says it is an amount (:data:`~osrag.lexicon.label_roles.FIGURE_WORDS`: "loan amount" is
    a loan's figure)."""
    if len(words) > 1 and words[-1] in FIGURE_WORDS:
        return words[-2]
    return words[-1] if words else None


def _keys_decide(name: str, words: list[str], label_keys: Sequence[str]) -> bool:
    """Whether the words already decide a label, which is then matched by its keys or not
    at all: it holds the asked name's head (as its own head — "Late fee" for "setup fee" —
    or beside another: "Cost of revenue", "Revenue — First Quarter" for "revenue"), or
    both name quantities the vocabulary knows, and not the same one ("Net revenue" for
    "net income": :data:`~osrag.lexicon.quantities.SYNONYMS`)."""
    head = _head(words)
    if head is None:
        return True
    if any(head in key.split(" ") for key in label_keys) and not _its_figure(words, label_keys):
        return True
    asked = _known(name)
    if not asked:
        return False
    known = next((found for key in label_keys if (found := _known(key))), ())
    return bool(known) and known != asked


def _its_figure(words: list[str], label_keys: Sequence[str]) -> bool:
    """Whether a label names the figure of the asked thing itself: one of its keys is the
    asked name whole followed by a last word naming what is paid for it or that it is an
    amount (:data:`~osrag.lexicon.label_roles.PRICE_HEADS`, :data:`~osrag.lexicon.
    label_roles.FIGURE_WORDS`: "shirt sponsorship fee", "booth price" for "shirt
    sponsorship", "booth"; not a "booth deposit") — when the asked head names no quantity
    of its own: a sponsorship or a booth is bought for its fee or its price, while a "loan
    fee" is no loan. The words do not decide such a label: meaning does."""
    head = _head(words)
    if not words or head is None or is_quantity_noun(head):
        return False
    n = len(words)
    for key in label_keys:
        split = key.split(" ")
        named = split[-1] in FIGURE_WORDS | PRICE_HEADS
        if named and len(split) > n and split[-n - 1 : -1] == words:
            return True
    return False


def _known(name: str) -> tuple[str, ...]:
    """The group of :data:`~osrag.lexicon.quantities.SYNONYMS` the longest tail of
    ``name`` that is a member belongs to ("annual revenue" is revenue, "underlying
    operating profit" operating income), or ()."""
    words = name.split(" ")
    for start in range(len(words)):
        found = synonyms_of(" ".join(words[start:]))
        if found:
            return found
    return ()


def _own_keys(label_keys: Sequence[str]) -> list[str]:
    """A label's keys that are no tail of another of its keys ("Startup booth — Price":
    "startup booth", "startup booth price"; not "booth", "booth price", "price"): what it
    adds when matched by meaning, so that a word it shares with other labels never does."""
    return [k for k in label_keys if not any(o.endswith(" " + k) for o in label_keys)]


def match_name(
    vocabulary: Vocabulary | None,
    name: str,
    *,
    gains_only: bool = False,
    visible: npt.NDArray[np.bool_] | None = None,
    vector: VectorOf | None = None,
    threshold: float | None = None,
    use: VocabularyUse = "meaning",
    note: str | None = None,
    beside_keys: bool = False,
    beyond: Beyond | None = None,
) -> Matched:
    """The labels of ``vocabulary`` the named quantity ``name`` matches (see the module
    docstring), among the ``visible`` ones (the caller's); by meaning only with a
    ``threshold``, and only when no label matches by key or synonym — unless
    ``beside_keys``: ``vector`` is then called for the asked name's vector (None, and why,
    when it cannot be had: keys alone). ``use`` and ``note`` say what could be done.
    ``beyond``: the visible labels outside the vocabulary's rows holding some keys, for a
    vocabulary read from its snapshot (counted in the report, deciding whether meaning is
    asked and which keys a label matched by modifier or by meaning adds)."""
    asked = asked_keys(name, gains_only=gains_only)
    report = LabelMatches(
        name=name,
        asked_keys=list(asked),
        vocabulary=use,
        threshold=threshold if use == "meaning" else None,
        note=note,
    )
    if vocabulary is None:
        return Matched(report.model_copy(update={"vocabulary": "none"}))
    shown = np.ones(len(vocabulary), dtype=bool) if visible is None else visible
    own = set(asked_key_forms(name_clause(name) or name))
    held = _held_by_keys(vocabulary, asked, own, shown, beyond, report)
    any_held = bool(report.by_key or report.by_synonym)
    by_form: list[tuple[int, str]] = [] if any_held else _by_form(vocabulary, own, shown)
    for r, key in by_form:
        held[r] = True
        report.matches.append(LabelMatch(label=vocabulary.labels[r], by="form", keys=[key]))
    report.by_form = len(by_form)
    any_held = any_held or bool(by_form)
    added: list[str] = list(dict.fromkeys(key for _, key in by_form))
    if not any_held:
        added += _by_modifier_into(report, vocabulary, name, asked, held, shown, gains_only, beyond)
        any_held = bool(added)  # labels matched by modifier that add no key: meaning is asked
    meant: list[tuple[int, float]] = []
    searched = use == "meaning" and threshold is not None and vector is not None
    searched = searched and (beside_keys or not any_held) and vocabulary.vectors is not None
    asked_vector = None
    if searched:
        assert vector is not None
        asked_vector, why = vector()
        if asked_vector is None:
            searched = False
            report.vocabulary, report.threshold, note = "keys", None, why
    if searched:
        assert vocabulary.vectors is not None and asked_vector is not None
        assert threshold is not None
        rows = vocabulary.meaning_rows  # the labels compared by meaning, bounded
        cosines = vocabulary.vectors @ asked_vector
        cosines[~shown[rows]] = -2.0  # never seen: never matched, never the nearest
        words = phrase_words(name_clause(name) or name)
        over = np.flatnonzero(cosines >= threshold)
        for i in over[np.argsort(-cosines[over], kind="stable")]:  # the nearest first
            r = int(rows[i])
            if len(meant) >= MOST_BY_MEANING:
                break
            if held[r] or _keys_decide(" ".join(words), words, vocabulary.keys[r]):
                continue
            if gains_only and names_loss(vocabulary.labels[r]):
                continue
            meant.append((r, float(cosines[i])))
        if not any_held and not meant:
            report.note = _nothing_matched(vocabulary, name, cosines, threshold, shown[rows])
    elif not any_held:
        report.note = _nothing_by_keys(name) + (f" ({note})" if note else "")
    matched = held.copy()
    matched[[r for r, _ in meant]] = True
    for r, cosine in meant:
        own_keys = _exclusive_keys(vocabulary, r, asked, matched, shown, beyond)
        added += [k for k in own_keys if k not in added]
        shown_match = LabelMatch(
            label=vocabulary.labels[r], by="meaning", cosine=round(cosine, 4), keys=own_keys
        )
        report.matches.append(shown_match)
    report.by_meaning = len(meant)
    report.added_keys = added
    worded = _by_words_into(report, vocabulary, name, asked, matched, shown, gains_only, beyond)
    if worded and report.note is not None:
        report.note += (
            f"; the worded step asks the {report.by_words} label"
            f"{'' if report.by_words == 1 else 's'} holding most of its words"
        )
    if (meant or report.by_modifier) and not added and not any_held:
        report.note = (
            f"the labels matched by {_ways(report)} hold no key of their own (every key they "
            f"hold is held by a label that did not match): {name!r} matches no fact by its label"
        )
    return Matched(report, tuple(added), tuple(worded))


def naming_words(name: str) -> list[str]:
    """The words of an asked name that name something (:data:`NOT_NAMING_WORDS` and period
    words out), as its key writes them: "outgoing wire fees" → outgoing, wire; "dental
    cleanings at the vet" → dental, cleaning, vet; "annual fee" → none."""
    words = asked_key(name_clause(name) or name).split(" ")
    return [
        w
        for w in dict.fromkeys(words)
        if w and w not in NOT_NAMING_WORDS and w not in PERIOD_UNITS and not is_period_words(w)
    ]


def _by_words(
    vocabulary: Vocabulary,
    words: Sequence[str],
    allowed: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.bool_]],
    quantity: str | None = None,
) -> list[int]:
    """The labels ``allowed`` (a test of rows) holding more than half of the naming
    ``words`` (one of one, both of two, two of three), the most words held first, then the
    fewest other words: at most :data:`MOST_BY_MEANING`, chosen among the first
    :data:`FORM_CANDIDATES` holding the most. For a name whose head is a ``quantity`` the
    vocabulary knows, only a label of two naming words or more holding every one of them
    and ending in that head ("Refundable security deposit" for "refundable deposit"): a
    quantity's word beside others names another quantity ("Deferred revenue", "Stock-based
    compensation: Income tax benefit"), which the keys and synonyms decide."""
    # one word a stem: "cleaning" and "cleaner" are held together or not at all
    words = list({stem: w for w, stem in zip(words, word_stems(list(words)), strict=True)}.values())
    if not words or (quantity is not None and len(words) < 2):
        return []
    rows, held = vocabulary.words_held(words)
    need = len(words) if quantity is not None else len(words) // 2 + 1
    keep = held >= need
    rows, held = rows[keep], held[keep]
    keep = allowed(rows)
    rows, held = rows[keep], held[keep]
    first = np.argsort(-held, kind="stable")[:FORM_CANDIDATES]
    rows, held = rows[first], held[first]
    if quantity is not None:
        keep = np.fromiter(
            (_key_head(vocabulary.keys[r][0]) == quantity for r in rows),
            dtype=bool,
            count=len(rows),
        )
        rows, held = rows[keep], held[keep]
    if not len(rows):
        return []
    size = np.fromiter(
        (len({w for key in vocabulary.keys[r] for w in key.split(" ")}) for r in rows),
        dtype=np.intp,
        count=len(rows),
    )
    order = np.lexsort((size, -held))
    return [int(r) for r in rows[order][:MOST_BY_MEANING]]


def _by_tail(
    vocabulary: Vocabulary,
    name: str,
    allowed: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.bool_]],
) -> list[int]:
    """The labels ``allowed`` holding, as a key, the longest tail of the asked name's key
    that is two words or more and shorter than the key ("appliance repair weekend service
    call" → "weekend service call", the words before it only saying where the thing is
    bought), at most :data:`MOST_BY_MEANING`; [] when no such tail is held. A tail is what
    a compound keeps of its meaning when modifiers go (its head comes last), as a label's
    own keys are its tails (:func:`~osrag.lexicon.keys.label_keys`)."""
    words = asked_key(name_clause(name) or name).split(" ")
    for start in range(1, len(words) - 1):
        if words[start] in NOT_NAMING_WORDS:
            continue  # a tail opening with a word that names nothing is no name
        held = np.asarray(vocabulary.by_key.get(" ".join(words[start:]), ()), dtype=np.intp)
        if len(held):
            held = held[allowed(held)]
        if not len(held):
            continue
        # of the labels holding it, those saying the most of the words left out, where any
        # says one ("Sunday call-outs": the Sundays column's call-out, not every call-out)
        dropped = {w for w in words[:start] if w not in NOT_NAMING_WORDS}
        said = np.fromiter(
            (len(dropped & {w for k in vocabulary.keys[r] for w in k.split(" ")}) for r in held),
            dtype=np.intp,
            count=len(held),
        )
        held = held[said == said.max()]
        # a tail many labels hold names a kind of thing, not the thing asked: no tail
        return [int(r) for r in held] if len(held) <= MOST_BY_TAIL else []
    return []


def _key_head(key: str) -> str:
    """The head of a label's longest key: its last word before any preposition ("refundable
    security deposit" → deposit; "revenue recognised from refundable deposit" → recognised,
    never deposit)."""
    words = key.split(" ")
    before = next((i for i, w in enumerate(words) if w in ALL_PREPOSITIONS), len(words))
    return words[max(before, 1) - 1]


def _quantity_head(name: str) -> str | None:
    """The head of an asked name when it is a quantity the vocabulary knows
    (:func:`~osrag.lexicon.quantities.is_quantity_noun`: "refundable deposit" → deposit,
    "revenue" → revenue; "termite inspections" → None)."""
    head = _head(asked_key(name_clause(name) or name).split(" "))
    if head is None or head in NOT_NAMING_WORDS:  # a fee of a thing names the thing
        return None
    return head if is_quantity_noun(head) else None


def _by_words_into(
    report: LabelMatches,
    vocabulary: Vocabulary | None,
    name: str,
    asked: Sequence[str],
    matched: npt.NDArray[np.bool_],
    shown: npt.NDArray[np.bool_],
    gains_only: bool,
    beyond: Beyond | None = None,
) -> list[str]:
    """The keys of the labels ``name`` matches by its words (:func:`_by_words`, among the
    visible labels no other way matched, never one the modifier's reading says names
    another figure of the thing: :func:`_names_the_thing`): each label's keys that only
    such labels hold (:func:`_exclusive_keys`); the labels are said in ``report``."""
    if vocabulary is None:
        return []
    modifier = paid_modifier(name)
    # "Outgoing wire amount" names another figure of the wire
    other = _modifier_keys(vocabulary, modifier)[1] if modifier is not None else []
    figures = np.asarray([r for key in other for r in vocabulary.by_key.get(key, ())], np.intp)

    def allowed(rows: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        ok = shown[rows] & ~matched[rows]
        return ok & ~np.isin(rows, figures) if len(figures) else ok

    quantity = _quantity_head(name)
    rows = [] if quantity is not None else _by_tail(vocabulary, name, allowed)
    if not rows:
        rows = _by_words(vocabulary, naming_words(name), allowed, quantity)
    mine = matched.copy()
    worded = _keys_of_rows(
        report, vocabulary, rows, "words", asked, mine, shown, gains_only, beyond
    )
    report.by_words = len(worded.rows)
    report.worded_keys = worded.keys
    return worded.keys


@dataclass(frozen=True)
class _Added:
    rows: list[int]
    keys: list[str]


def _keys_of_rows(
    report: LabelMatches,
    vocabulary: Vocabulary,
    rows: list[int],
    by: MatchedBy,
    asked: Sequence[str],
    matched: npt.NDArray[np.bool_],
    shown: npt.NDArray[np.bool_],
    gains_only: bool,
    beyond: Beyond | None,
) -> _Added:
    """The labels ``rows`` matched ``by`` some way (never a loss for a result asked on its
    positive side), marked in ``matched``, said in ``report``, and the keys they add: each
    label's that only matched labels hold (:func:`_exclusive_keys`)."""
    if gains_only:
        rows = [r for r in rows if not names_loss(vocabulary.labels[r])]
    matched[rows] = True
    added: list[str] = []
    for r in rows:
        own_keys = _exclusive_keys(vocabulary, r, asked, matched, shown, beyond)
        added += [k for k in own_keys if k not in added]
        report.matches.append(LabelMatch(label=vocabulary.labels[r], by=by, keys=own_keys))
    return _Added(rows, added)


def _by_modifier_into(
    report: LabelMatches,
    vocabulary: Vocabulary,
    name: str,
    asked: Sequence[str],
    held: npt.NDArray[np.bool_],
    shown: npt.NDArray[np.bool_],
    gains_only: bool,
    beyond: Beyond | None = None,
) -> list[str]:
    """The keys the labels ``name`` matches by modifier add (:func:`paid_modifier`,
    :func:`_by_modifier`, :func:`_exclusive_keys`); the labels are marked in ``held`` and
    said in ``report``."""
    modifier = paid_modifier(name)
    rows = [] if modifier is None else _by_modifier(vocabulary, modifier, shown)
    added = _keys_of_rows(
        report, vocabulary, rows, "modifier", asked, held, shown, gains_only, beyond
    )
    report.by_modifier = len(added.rows)
    return added.keys


def _held_by_keys(
    vocabulary: Vocabulary,
    asked: Sequence[str],
    own: set[str],
    shown: npt.NDArray[np.bool_],
    beyond: Beyond | None,
    report: LabelMatches,
) -> npt.NDArray[np.bool_]:
    """The visible labels holding an asked key; the report's labels and its counts by key
    (a key of the asked name itself, ``own``) and by synonym — with (``beyond``) those
    outside the vocabulary's rows — and the first :data:`SHOWN` of each named."""
    outside = beyond([EVERY_LABEL, *asked, *sorted(own - set(asked))]) if beyond else {}
    report.labels = int(shown.sum()) + outside.get(EVERY_LABEL, 0)
    held = vocabulary.holding(asked) & shown  # every array over the labels: no Python loop
    own_held = held & vocabulary.holding(own)
    by_key = np.flatnonzero(own_held)
    by_synonym = np.flatnonzero(held & ~own_held)
    report.by_key = len(by_key) + sum(outside.get(k, 0) for k in asked if k in own)
    report.by_synonym = len(by_synonym) + sum(outside.get(k, 0) for k in asked if k not in own)
    for by, found in (("key", by_key), ("synonym", by_synonym)):
        for r in found[:SHOWN]:
            kept = [k for k in vocabulary.keys[r] if k in asked]
            report.matches.append(LabelMatch(label=vocabulary.labels[r], by=by, keys=kept))  # type: ignore[arg-type]
    return held


def _exclusive_keys(
    vocabulary: Vocabulary,
    row: int,
    asked: Sequence[str],
    matched: npt.NDArray[np.bool_],
    shown: npt.NDArray[np.bool_],
    beyond: Beyond | None = None,
) -> list[str]:
    """The keys a label matched by modifier or by meaning adds: its own (no tail of another
    of its keys) that are not asked already and that only ``matched`` labels, or labels the
    caller cannot see, hold — among the vocabulary's rows, and (``beyond``) outside them."""
    candidates = [k for k in _own_keys(vocabulary.keys[row]) if k not in asked]
    held_outside = beyond(candidates) if beyond is not None and candidates else {}
    own_keys = []
    for k in candidates:
        holders = vocabulary.by_key.get(k, [])
        alone = bool(np.all(matched[holders] | ~shown[holders]))
        if alone and not held_outside.get(k, 0):
            own_keys.append(k)
    return own_keys


def _names_nothing_alone(word: str) -> bool:
    return word in NAMING_NOTHING_ALONE or word in PERIOD_UNITS or is_period_words(word)


def paid_modifier(name: str) -> str | None:
    """The modifier of an asked name whose last word only says it is paid for
    (:data:`~osrag.lexicon.label_roles.PAID_HEADS`: "outgoing wire fees" → "outgoing wire",
    "implementation fee" → "implementation", "stop payment charge" → "stop payment"), or None: a
    name of one word, another head, a modifier made only of words that name nothing paid for on
    their own (:data:`NAMING_NOTHING_ALONE`, a period word: "annual fee", "total cost", "monthly
    charge"), a modifier of one word that names a quantity or a document itself ("tax rate", "policy
    fee": the figure is the tax's or the policy's, not a price of it), and a rate of what ends in a
    quantity ("property tax rate": the ratio of a tax, not its price)."""
    words = asked_key(name_clause(name) or name).split(" ")
    if len(words) < 2 or words[-1] not in PAID_HEADS:
        return None
    modifier = words[:-1]
    if all(_names_nothing_alone(word) for word in modifier):
        return None
    if len(modifier) == 1 and (is_quantity_noun(modifier[0]) or is_document_noun(modifier[0])):
        return None
    if words[-1] not in PRICE_HEADS and is_quantity_noun(modifier[-1]):
        return None
    return " ".join(modifier)


def _names_the_thing(key: str, modifier: str) -> bool:
    """Whether a label's ``key`` names the thing ``modifier`` names, as a price list writes
    it: the modifier itself ("stop payment"), or the modifier's words first and a head that
    names no other figure of it ("outgoing wire transfer", "implementation services", a
    "setup charge"; not a "setup deposit", an "outgoing wire amount", nor a "setup fee
    refund": what is paid, named before the head, makes the head another figure of it)."""
    if key == modifier:
        return True
    rest = key[len(modifier) + 1 :].split(" ")
    if any(word in PAID_HEADS for word in rest[:-1]):
        return False
    last = rest[-1]
    return last in PAID_HEADS or not (is_quantity_noun(last) or last in FIGURE_WORDS)


def _by_modifier(vocabulary: Vocabulary, modifier: str, shown: npt.NDArray[np.bool_]) -> list[int]:
    """The visible labels holding a key that names the thing ``modifier`` names and none
    that begins with its words and names another figure of it (:func:`_names_the_thing`:
    "Outgoing wire amount" holds "outgoing wire" too), by row, at most
    :data:`MOST_BY_MEANING`, looked for among the first :data:`FORM_CANDIDATES` keys that
    begin with the modifier's words."""
    naming, other = _modifier_keys(vocabulary, modifier)
    rows = np.flatnonzero(vocabulary.holding(naming) & ~vocabulary.holding(other) & shown)
    return [int(r) for r in rows[:MOST_BY_MEANING]]


def _modifier_keys(vocabulary: Vocabulary, modifier: str) -> tuple[list[str], list[str]]:
    """The keys beginning with ``modifier``'s words that name the thing, and those that name
    another figure of it (:func:`_names_the_thing`), among the first
    :data:`FORM_CANDIDATES`."""
    naming: list[str] = []
    other: list[str] = []
    for key in vocabulary.keys_beginning(modifier, FORM_CANDIDATES):
        (naming if _names_the_thing(key, modifier) else other).append(key)
    return naming, other


def _by_form(
    vocabulary: Vocabulary, own: set[str], shown: npt.NDArray[np.bool_]
) -> list[tuple[int, str]]:
    """The labels holding a key whose words' stems are an asked key's own
    (:func:`~osrag.lexicon.words.key_stem`: "Bridging loan" for "bridge loan"), with that
    key, looked for among the first :data:`FORM_CANDIDATES` visible labels holding the
    asked key's last word (a key of the same form differs in a modifier's form: the last
    word is the head, in the singular on both sides)."""
    found: dict[int, str] = {}
    for asked in sorted(own):
        words = asked.split(" ")
        if len(words) < 2:
            continue  # one word: its other forms are other words, which keys decide
        stem = key_stem(asked)
        held_by = [r for r in vocabulary.by_key.get(words[-1], ()) if shown[r]]
        for r in held_by[:FORM_CANDIDATES]:
            for key in vocabulary.keys[r]:
                same = key != asked and key.count(" ") == len(words) - 1
                if same and key_stem(key) == stem and r not in found:
                    found[r] = key
    return sorted(found.items())[:MOST_BY_MEANING]


def _nothing_by_keys(name: str) -> str:
    return f"no label the search may see holds a key of {name!r}: the bound step matches no fact"


def _nothing_matched(
    vocabulary: Vocabulary,
    name: str,
    cosines: npt.NDArray[np.float32],
    threshold: float,
    shown: npt.NDArray[np.bool_],
) -> str:
    """``cosines`` and ``shown``: of the labels compared by meaning."""
    said = (
        f"no label the search may see names {name!r}, by key or by meaning (cosine ≥ {threshold:g})"
    )
    if shown.any():
        nearest = int(np.argmax(cosines))
        label = vocabulary.labels[int(vocabulary.meaning_rows[nearest])]
        cosine = float(cosines[nearest])
        said += f"; the nearest is {label!r} ({cosine:.2f})"
        if cosine >= threshold:  # passed over: the words decide it (_keys_decide)
            said += ", which the words decide: it holds the name's head or names another quantity"
    return said + ": the bound step matches no fact"


def _gains_only(c: AmountConstraint) -> bool:
    """As :func:`~osrag.search.fact_filters.fact_filter` asks a signed result: on its
    positive side unless the label names a loss."""
    return c.signed and c.label is not None and not names_loss(c.label)


def with_label_matches(
    plan: AnalyzedQuery, matched: dict[tuple[str, bool], Matched]
) -> AnalyzedQuery:
    """``plan`` whose bound constraints ask for the keys their matches add (their named
    quantity and sign: ``(label, gains_only)``), and which carries the reports. A plan
    whose matches add no key keeps its filters as they are (the same request bodies)."""
    filters: list[FilterItem] = []
    bound_lines = list(plan.asked.get("bound", ()))
    worded_lines = list(plan.asked.get("role-free", ()))
    amounts = -1
    for item in plan.filters:
        if isinstance(item, AmountFilter):
            amounts += 1
        if isinstance(item, AmountFilter) and item.constraint.label is not None:
            found = matched.get((item.constraint.label, _gains_only(item.constraint)))
            if found is not None and found.added:
                bound = fact_filter(item.constraint, extra_keys=found.added)
                # the narrowed step asks the name as matched too, its kind only ranking
                narrowed = narrowed_filter(item.constraint, extra_keys=found.added)
                item = dataclasses.replace(item, filter=bound, narrowed=narrowed)
                if amounts < len(bound_lines):
                    bound_lines[amounts] += by_meaning_line(found)
            if found is not None and found.worded:
                # the labels' words name the quantity: the kind of document the question
                # names only ranks here, as at the narrowed step (the words rank)
                free = item.constraint.model_copy(update={"context": None})
                worded = fact_filter(free, extra_keys=found.worded)
                item = dataclasses.replace(
                    item, worded=(free, worded), worded_keys=tuple(found.worded)
                )
                worded_lines[amounts] = by_words_line(free, found)
        filters.append(item)
    asked = {**plan.asked, "bound": bound_lines} if "bound" in plan.asked else plan.asked
    if any(isinstance(f, AmountFilter) and f.worded is not None for f in filters):
        asked = {**asked, "worded": worded_lines}
    seen: dict[tuple[str, bool], None] = {}
    for c in plan.constraints:
        if c.label is not None and (c.label, _gains_only(c)) in matched:
            seen.setdefault((c.label, _gains_only(c)), None)
    reports = tuple(matched[key].report for key in seen)
    return dataclasses.replace(plan, filters=tuple(filters), label_matches=reports, asked=asked)


ADDING: tuple[MatchedBy, ...] = ("form", "modifier", "meaning")
"""The ways of matching a label that add keys to the filter, in the order they are tried."""


def _ways(report: LabelMatches) -> str:
    """How the labels that add keys were matched: "form", "modifier and by meaning" …"""
    counts = {"form": report.by_form, "modifier": report.by_modifier, "meaning": report.by_meaning}
    return " and by ".join(by for by in ADDING if counts[by])


def by_words_line(c: AmountConstraint, found: Matched) -> str:
    """What the worded step asks of a fact for ``c``: the keys of the labels holding most of
    its name's words, and how many such labels there are."""
    labels = found.report.by_words
    return (
        f"{c.describe()}: label keys {_keys(found.worded)} · {labels} label"
        f"{'' if labels == 1 else 's'} holding most of the words of {found.report.name!r}"
    )


def by_meaning_line(found: Matched) -> str:
    """What the bound step's line of a constraint says of the keys its name's match by form,
    by modifier or by meaning added: the keys, and the labels that matched (by meaning with
    their cosines)."""
    report = found.report
    labels = ", ".join(
        f"{m.label!r} {m.cosine:.2f}" if m.by == "meaning" else f"{m.label!r} by {m.by}"
        for m in report.matches
        if m.by in ADDING and (m.by != "meaning" or m.cosine is not None)
    )
    return f"; and by {_ways(report)} label keys {_keys(found.added)} ({labels})"


def named_quantities(plan: AnalyzedQuery) -> list[tuple[str, bool]]:
    """The distinct ``(label, gains_only)`` of the plan's bound constraints that name a
    quantity (the amount filters only: a plan with its amount filter off has none). A
    document's own total (``total_of``: "contractor bids") is none: the profiles' names of
    a total say what it is, and no label is matched to it by meaning (a "Subtotal" is
    near "total" and is no total)."""
    found: dict[tuple[str, bool], None] = {}
    for item in plan.filters:
        if (
            isinstance(item, AmountFilter)
            and item.constraint.label is not None
            and item.constraint.total_of is None
        ):
            found.setdefault((item.constraint.label, _gains_only(item.constraint)), None)
    return list(found)


# --------------------------------------------------------------------------- the searcher's part


_LOADED: weakref.WeakKeyDictionary[ChunkIndex, dict[tuple[str, str], Vocabulary | None]] = (
    weakref.WeakKeyDictionary()
)
"""The vocabularies read in this process, by engine object, then (alias, generation)."""
_LOADED_LOCK = threading.Lock()


def loaded_vocabulary(
    index: ChunkIndex, alias: str, generation: str, revision: int | None
) -> Vocabulary | None:
    """``generation``'s vocabulary, read once per engine object and revision."""
    with _LOADED_LOCK:
        held = _LOADED.setdefault(index, {})
        found = held.get((alias, generation))
    if found is not None and found.revision == revision:
        return found
    read = read_vocabulary(index.records(alias), generation)
    with _LOADED_LOCK:
        held = _LOADED.setdefault(index, {})
        held = {k: v for k, v in held.items() if k[0] != alias}  # one generation per alias
        held[(alias, generation)] = read
        _LOADED[index] = held
    return read


Embedding = Callable[[Any, str], Sequence[float]]
"""How a searcher embeds an asked name with an embedder (its query vector cache)."""


class LabelMeaning:
    """A searcher's matching of named quantities against its alias's vocabulary."""

    def __init__(
        self,
        index: ChunkIndex,
        alias: str,
        threshold: float | None,
        *,
        generation_embedder: Callable[[], Any],
        embed: Embedding,
        load: Callable[[Any], None] = lambda embedder: None,
    ) -> None:
        self.index = index
        self.alias = alias
        self.threshold = threshold
        self._generation_embedder = generation_embedder
        self._embed = embed
        self._load = load
        self.beside_keys = False
        """Match by meaning also when labels hold the name's keys (off: measured to add
        false matches where keys answer, ``docs/amounts.md``)."""
        self._checked: dict[str, tuple[float, int | None]] = {}
        self._made: dict[str, Any] = {}
        self._lock = threading.Lock()

    def needed(self, plan: AnalyzedQuery) -> bool:
        return bool(named_quantities(plan))

    def _revision(self, generation: str) -> int | None:
        now = time.monotonic()
        with self._lock:
            found = self._checked.get(generation)
        if found is not None and now - found[0] < STATE_SECONDS:
            return found[1]
        state = read_state(self.index.records(self.alias), generation)
        revision = None if state is None else state.revision
        with self._lock:
            self._checked = {generation: (now, revision)}
        return revision

    def vocabulary(self, generation: str) -> Vocabulary | None:
        """The generation's vocabulary (None: it keeps none)."""
        revision = self._revision(generation)
        if revision is None:
            return None
        return loaded_vocabulary(self.index, self.alias, generation, revision)

    def _embedder(self, vocabulary: Vocabulary, config: dict[str, Any]) -> tuple[Any, str | None]:
        """The embedder the vocabulary's vectors came from, as this search can make it, or
        None and why not."""
        wanted = vocabulary.embedder or {}
        declared = config.get("embedder") or {}
        if declared and declared.get("fingerprint", declared.get("id")) == wanted.get(
            "fingerprint"
        ):
            try:
                return self._generation_embedder(), None
            except OsragError as exc:
                return None, f"the generation's embedder is not available ({exc})"
        spec = wanted.get("spec")
        if not spec:
            return None, (
                f"the label vocabulary was embedded by {wanted.get('id')}, given as an object: "
                "labels match by keys alone"
            )
        with self._lock:
            made = self._made.get(spec)
        if made is None:
            from osrag.embedding import get_embedder

            try:
                made = get_embedder(spec)
                self._load(made)  # its model load is reported apart, as the query embedder's
            except OsragError as exc:
                return None, f"the label vocabulary's embedder is not available ({exc})"
            with self._lock:
                self._made[spec] = made
        if made.id != wanted.get("id"):
            return None, (
                f"the label vocabulary was embedded by {wanted.get('id')}, this search's "
                f"{spec!r} embedder is {made.id}: labels match by keys alone"
            )
        return made, None

    def apply(
        self, plan: AnalyzedQuery, generation: str | None, config: dict[str, Any]
    ) -> AnalyzedQuery:
        """``plan`` with its named quantities matched (see the module docstring)."""
        named = named_quantities(plan)
        if not named:
            return plan
        vocabulary = self.vocabulary(generation) if generation is not None else None
        use: VocabularyUse = "meaning"
        note = None
        if vocabulary is None:
            use = "none"
            note = (
                f"generation {generation} keeps no label vocabulary (built before vocabularies, "
                "or without the one it needs): labels match by keys alone"
            )
        elif self.threshold is None:
            use, note = "keys", "matching labels by meaning is off: labels match by keys alone"
        elif not vocabulary.has_vectors:
            use = "keys"
            note = "the label vocabulary has no vectors (no embedder at ingest): keys alone"
        spec = plan.spec
        visible = None
        beyond: Beyond | None = None
        if vocabulary is not None:
            visible = vocabulary.visible(spec.tenant, spec.acl, unrestricted=spec.unrestricted)
            if vocabulary.counts is not None:
                read = vocabulary

                def beyond(keys: Sequence[str]) -> dict[str, int]:
                    return read.beyond(keys, spec.tenant, spec.acl, unrestricted=spec.unrestricted)

        made: list[tuple[Any, str | None]] = []

        def vector_of(name: str) -> VectorOf:
            def vector() -> tuple[npt.NDArray[np.float32] | None, str | None]:
                assert vocabulary is not None
                if not made:  # the embedder is made (and loaded) only when a name needs it
                    made.append(self._embedder(vocabulary, config))
                embedder, why = made[0]
                if embedder is None:
                    return None, why
                return np.asarray(self._embed(embedder, name), dtype=np.float32), None

            return vector

        matched: dict[tuple[str, bool], Matched] = {}
        for name, gains_only in named:
            matched[(name, gains_only)] = match_name(
                vocabulary,
                name,
                gains_only=gains_only,
                visible=visible,
                vector=vector_of(name),
                threshold=self.threshold,
                use=use,
                note=note,
                beside_keys=self.beside_keys,
                beyond=beyond,
            )
        return with_label_matches(plan, matched)
