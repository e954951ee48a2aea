"""Labels: the words that say what an amount measures, cleaned the one way every source uses.

:func:`clean_label` keeps the words as written and removes only what is not part of the
name of the quantity:

* Markdown emphasis and code marks (``**Deductible:**``), a list bullet or number
  (``- ``, ``* ``, ``• ``, ``1. ``, ``(a) ``), quotes around a defined term
  (``“Deductible”``);
* a unit or scale caption — it governs the figures, it does not name them: ``(in
  millions)``, ``(£m)``, ``($)``, ``(US$'000)``, ``(%)``, ``- (in thousands)``, a trailing
  ``£m`` / ``$'000`` / ``in millions``;
* footnote markers: ``(1)``, ``(a)``, ``(1)(2)``, ``*``, ``†``, ``¹``, ``[2]``, and one
  digit glued to the end of a lower-case word (``Order intake1``: a footnote reference
  that lost its superscript);
* dot leaders and the separator before the amount (``Annual premium ......``,
  ``Deductible:``, ``Limit —``), white space collapsed.

What is left is the label; nothing left (or only digits and signs) is no label (None).

:func:`is_dependent` says whether a row label names a quantity only with the group row
above it: ``Total``, ``Basic``, ``Diluted``, ``Federal``, ``United States`` … — every word
of it one of :data:`DEPENDENT_WORDS` (a short, closed list: totals, the per-share bases,
the current/deferred and jurisdiction splits of taxes and assets, geographies, the steps
of a roll-forward).
"""

from __future__ import annotations

import functools
import re

from osrag.currencies import CODES, SIGNS
from osrag.extract.scale import parse_caption

__all__ = ["DEPENDENT_WORDS", "clean_label", "is_dependent", "join_label", "word_set"]


def word_set(words: str) -> frozenset[str]:
    """A set of words written as one string (white space between them)."""
    return frozenset(words.split())


COLUMN_JOIN = " — "
"""Joins a row label and the column header that qualifies it: ``Operating income — Americas``."""
GROUP_JOIN = ": "
"""Joins a group row and a dependent row label under it: ``Weighted-average shares: Basic``."""

_MARKUP = re.compile(r"\*\*|__|`|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)")
_BULLET = re.compile(r"^\s*(?:[-*+•◦▪·–]|\d{1,2}[.)]|\(?[a-z]\)|\([ivx]{1,4}\))\s+")
_QUOTES = re.compile(r"[\"“”«»]|(?<!\w)[‘’]|[‘’](?!\w)")
"""Quotes around a term; an apostrophe inside a word stays (``RMB’Million``, ``Owner's``)."""
_PAREN = re.compile(r"\s*\(([^()]{0,60})\)")
_FOOTNOTE = re.compile(
    r"(?:\s*\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)|\s*\[\d{1,2}\]|\s*[*†‡§]+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+|(?<=[a-z])[1-9])$"
)
_LEADER = re.compile(r"(?:\s*[.…·_]{2,}\s*|\s*[:=]\s*|\s+[-–—.]+\s*|\s*\|\s*)$")
_UNIT_WORDS = frozenset([*SIGNS, *CODES, "%", "percent", "per cent"])
"""A sign or code alone (``$``, ``US$``, ``€``, ``EUR``) or a percent sign: a unit."""
_TRAILING_UNIT = re.compile(r"\s+(\S{1,12}|in\s+\S+(?:\s+of\s+\S+){0,2})$")
_NO_WORDS = re.compile(r"^[\W\d_]*$")

DEPENDENT_WORDS = word_set(
    """total totals subtotal sub-total sub basic diluted current non-current noncurrent
    deferred federal state states local foreign domestic international other others net
    gross u.s. us usa united kingdom uk non-u.s. americas america north south latin emea
    apac asia pacific europe rest world granted exercised forfeited vested unvested
    nonvested cancelled canceled expired exercisable issued repurchased outstanding
    balance balances beginning end opening closing of at as the and in for year years
    period amount amounts january february march april may june july august september
    october november december jan feb mar apr jun jul aug sep sept oct nov dec"""
)
"""The words a label may be made of (with numbers) and still need the group row above it:
totals, the per-share bases, the current/deferred and jurisdiction splits, geographies,
the steps of a roll-forward ("Granted", "Balance at beginning of year", "Outstanding at
December 31, 2019")."""


def _is_unit(text: str) -> bool:
    """A parenthetical or trailing piece that states only a unit, a scale or a sign."""
    stripped = text.strip()
    if not stripped:
        return False
    if parse_caption(stripped) is not None:
        return True
    if stripped.lower().startswith("in "):
        stripped = stripped[3:].strip()
    return stripped in _UNIT_WORDS


@functools.lru_cache(maxsize=1 << 14)
def clean_label(text: str) -> str | None:
    """``text`` as a label (module docstring), or None when nothing is left."""
    label = _MARKUP.sub("", text)
    label = _BULLET.sub("", label)
    label = _QUOTES.sub("", label)
    label = " ".join(label.split())
    for _ in range(4):  # pieces come off the end one at a time: "Revenue (£m) (1):"
        before = label
        label = _LEADER.sub("", label)
        label = _FOOTNOTE.sub("", label)
        label = _PAREN.sub(lambda m: "" if _is_unit(m.group(1)) else m.group(0), label)
        tail = _TRAILING_UNIT.search(label)
        if tail is not None and _is_unit(tail.group(1)) and tail.start() > 0:
            label = label[: tail.start()]
        label = label.strip()
        if label == before:
            break
    if _NO_WORDS.match(label) or _is_unit(label):
        return None
    return label


@functools.lru_cache(maxsize=1 << 12)
def is_dependent(label: str) -> bool:
    """The row label names no quantity without the group above it (module docstring)."""
    words = [w for w in re.findall(r"[\w.-]+", label.lower()) if not w.strip(".-").isdigit()]
    return bool(words) and all(
        w in DEPENDENT_WORDS or w.strip(".") in DEPENDENT_WORDS for w in words
    )


def join_label(*parts: str | None, sep: str = COLUMN_JOIN) -> str | None:
    """The non-empty parts joined by ``sep`` (None when there is none)."""
    present = [p for p in parts if p]
    return sep.join(present) if present else None
