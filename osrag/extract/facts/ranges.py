"""Ranges of amounts: two amounts a dash, "to" or "between … and" join into one range.

A price list writes what a job costs as a range ("Laptop keyboard replacement: $149–$289,
depending on model", "Crown thinning $400 to $950 per tree", "between $2,000 and $4,200").
Each end is a fact of its own, with the range's label; :func:`range_ends` gives each the
magnitude of the other end (:attr:`~osrag.schema.facts.AmountFact.range_end`), so a
constraint is met by a range only where both its ends meet it — "between $200 and $300" is
no "$149–$289", "at least $300" is "$350–$800".

Two amounts are one range when, in one currency and one scale, the first is the smaller and
only a dash, a word of :data:`~osrag.lexicon.links.RANGE_LINKS` or, after "between", "and"
stands between them (per-unit words of the first aside: "$400 per tree to $950 per tree").
A table's neighbouring cells are never one: a cell border stands between them. Nor are two
amounts after a verb of change in their sentence (:data:`~osrag.lexicon.label_roles.
CHANGE_VERBS`): "Working capital decreased $0.4 million to $12.3 million" states a change
and the balance it came to.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from osrag.extract.marks import sentence_before
from osrag.lexicon.label_roles import CHANGE_VERBS
from osrag.lexicon.links import RANGE_LINKS, RANGE_OPENING, alternation
from osrag.lexicon.periods import RATE_INTRO, UNIT_WORD
from osrag.schema.facts import AmountFact

__all__ = ["range_ends"]

_RATE = rf"(?:[ \t]+{RATE_INTRO}[ \t]+{UNIT_WORD})?"
"""The first end's unit, when the range writes it twice ("$400 per tree to $950 per tree")."""
_JOIN = re.compile(
    rf"(?i){_RATE}[ \t]*(?:[-–—]|(?:{alternation(RANGE_LINKS)})\b)[ \t]*(?:\n[ \t]*)?"
)
"""What stands between a range's two ends: a dash or a range's word, on the first end's line
(a line break may follow it, where a wrapped line goes on; never one before it: "£19.00" and
a list item "- 500 cards" below are no range)."""
_AND = re.compile(rf"(?i){_RATE}[ \t]+and\s+")
""""and" between the two ends of "between $X and $Y"."""
_CHANGE_VERB = re.compile(rf"(?i)\b(?:{alternation(frozenset(CHANGE_VERBS))})\b")
"""A verb of change: the amounts after it state a change, not a range."""
_REACH = 160
"""How far back (characters) a verb of change is looked for in the amount's sentence."""


def range_ends(text: str, facts: Sequence[AmountFact]) -> list[AmountFact]:
    """``facts`` (in text order) with each end of a range given the other's magnitude."""
    found = list(facts)
    for i in range(len(found) - 1):
        low, high = found[i], found[i + 1]
        if not _one_range(text, low, high):
            continue
        found[i] = dataclasses.replace(low, range_end=high.magnitude)
        found[i + 1] = dataclasses.replace(high, range_end=low.magnitude)
    return found


def _one_range(text: str, low: AmountFact, high: AmountFact) -> bool:
    if (low.currency, low.scale) != (high.currency, high.scale) or low.end > high.start:
        return False
    if not 0 < low.magnitude < high.magnitude or low.range_end is not None:
        return False
    # the words between the two first (most neighbours are no range), then the sentence
    # before them for a verb of change (a longer read)
    if not _JOIN.fullmatch(text, low.end, high.start):
        between = RANGE_OPENING.search(text, max(0, low.start - 12), low.start)
        if between is None or _AND.fullmatch(text, low.end, high.start) is None:
            return False
    return not _changed_before(text, low.start)


def _changed_before(text: str, start: int) -> bool:
    """A verb of change before ``start`` in its sentence (a key's colon ends it: "Increased
    fees: $5–$10" is a range)."""
    return _CHANGE_VERB.search(sentence_before(text, start, _REACH)) is not None
