"""Labels: the words that say what an amount measures, cleaned the one way every source uses.

:func:`clean_label` keeps the words as written and removes only what is not part of the
name of the quantity:

* Markdown emphasis and code marks (``**Deductible:**``), a list bullet or number
  (``- ``, ``* ``, ``• ``, ``1. ``, ``(a) ``), a form's checkbox (``[ ] ``, ``[x] ``,
  ``☐ ``), quotes around a defined term (``“Deductible”``);
* a unit or scale caption — it governs the figures, it does not name them: ``(in
  millions)``, ``(£m)``, ``($)``, ``(US$'000)``, ``(%)``, ``- (in thousands)``, a trailing
  ``£m`` / ``$'000`` / ``in millions``;
* footnote markers: ``(1)``, ``(a)``, ``(1)(2)``, ``*``, ``†``, ``¹``, ``[2]``, and one
  digit glued to the end of a lower-case word (``Order intake1``: a footnote reference
  that lost its superscript);
* dot leaders and the separator before the amount (``Annual premium ......``,
  ``Deductible:``, ``Limit —``), white space collapsed.

What is left is the label; nothing left (or only digits and signs) is no label (None).

**Bounded** (:mod:`osrag.lexicon.bounds`): a text is read to ``LABEL_READ_CHARS`` and a
label is at most ``LABEL_CHARS``; a longer one is cut at a space and ends with ``…``, the
mark of a cut — the text's own ``…`` is read as three dots (a leader when it ends the
name), so a ``…`` in a label always says osrag cut it.

:func:`is_dependent` says whether a row label names a quantity only with the group row
above it: ``Total``, ``Basic``, ``Diluted``, ``Federal``, ``United States`` … — every word
of it one of :data:`~osrag.lexicon.label_roles.DEPENDENT_WORDS` (a short, closed list:
totals, the per-share bases, the current/deferred and jurisdiction splits of taxes and
assets, geographies, the steps of a roll-forward).
"""

from __future__ import annotations

import functools
import re

from osrag.currencies import CODES, SIGNS
from osrag.extract.scale import parse_caption
from osrag.lexicon.bounds import ELLIPSIS, LABEL_CHARS, LABEL_READ_CHARS, shorten
from osrag.lexicon.keys import COLUMN_JOIN, component_of
from osrag.lexicon.label_roles import BALANCES, DEPENDENT_WORDS
from osrag.lexicon.words import phrase_words

__all__ = [
    "clean_label",
    "is_component",
    "is_dependent",
    "join_label",
    "total_of",
]

_INLINE_MARKUP = re.compile(r"\*\*|__|`|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)")
_LABEL_BULLET = re.compile(
    r"^\s*(?:[-*+•◦▪·–]|\d{1,2}[.)]|\(?[a-z]\)|\([ivx]{1,4}\)|\[[ xX✓✔]?\]|[☐☑☒□■])\s+"
)
_QUOTES = re.compile(r"[\"“”«»]|(?<!\w)[‘’]|[‘’](?!\w)")
"""Quotes around a term; an apostrophe inside a word stays (``RMB’Million``, ``Owner's``)."""
_SHORT_PAREN = re.compile(r"\s*\(([^()]{0,60})\)")
_FOOTNOTE = re.compile(
    r"(?:\s*\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)|\s*\[\d{1,2}\]|\s*[*†‡§]+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+|(?<=[a-z])[1-9])$"
)
_LEADER = re.compile(r"(?:\s*[.…·_]{2,}\s*|\s*[:=]\s*|\s+[-–—.]+\s*|\s*\|\s*)$")
_UNIT_WORDS = frozenset([*SIGNS, *CODES, "%", "percent", "per cent"])
"""A sign or code alone (``$``, ``US$``, ``€``, ``EUR``) or a percent sign: a unit."""
_TRAILING_UNIT = re.compile(r"\s+(\S{1,12}|in\s+\S+(?:\s+of\s+\S+){0,2})$")
_NO_WORDS = re.compile(r"^[\W\d_]*$")


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


def clean_label(text: str) -> str | None:
    """``text`` as a label (module docstring), or None when nothing is left."""
    return _clean_label(text[: LABEL_READ_CHARS + 1])


@functools.lru_cache(maxsize=1 << 14)
def _clean_label(text: str) -> str | None:
    cut = len(text) > LABEL_READ_CHARS
    label = text[:LABEL_READ_CHARS].replace(ELLIPSIS, "...")
    label = _INLINE_MARKUP.sub("", label)
    label = _LABEL_BULLET.sub("", label)
    label = _QUOTES.sub("", label)
    label = " ".join(label.split())
    for _ in range(4):  # pieces come off the end one at a time: "Revenue (£m) (1):"
        before = label
        label = _LEADER.sub("", label)
        label = _FOOTNOTE.sub("", label)
        label = _SHORT_PAREN.sub(lambda m: "" if _is_unit(m.group(1)) else m.group(0), label)
        tail = _TRAILING_UNIT.search(label)
        if tail is not None and _is_unit(tail.group(1)) and tail.start() > 0:
            label = label[: tail.start()]
        label = label.strip()
        if label == before:
            break
    if _NO_WORDS.match(label) or _is_unit(label):
        return None
    return shorten(label, LABEL_CHARS, cut=cut)


@functools.lru_cache(maxsize=1 << 12)
def is_dependent(label: str) -> bool:
    """The row label names no quantity without the group above it (module docstring)."""
    words = [w for w in re.findall(r"[\w.-]+", label.lower()) if not w.strip(".-").isdigit()]
    return bool(words) and all(
        w in DEPENDENT_WORDS or w.strip(".") in DEPENDENT_WORDS for w in words
    )


def is_component(label: str, group: str) -> bool:
    """The row is the tax effect of its item under a deferred tax balance
    (:func:`osrag.lexicon.keys.component_of`): its label is ``Group: Row``."""
    return component_of(phrase_words(label), phrase_words(group))


_TOTAL = re.compile(r"(?i)^(?:total|gross)\s+(?P<name>.+)$")


def total_of(label: str) -> str | None:
    """The balance a total row sums when it starts with a word of
    :data:`~osrag.lexicon.label_roles.BALANCES` (``Total deferred tax assets`` → ``Deferred
    tax assets``), else None."""
    found = _TOTAL.match(label)
    if found is None:
        return None
    name = found.group("name").split(",")[0].strip()
    words = phrase_words(name)
    return name[:1].upper() + name[1:] if words and words[0] in BALANCES else None


def join_label(*parts: str | None, sep: str = COLUMN_JOIN) -> str | None:
    """The non-empty parts joined by ``sep`` (None when there is none)."""
    present = [p for p in parts if p]
    return sep.join(present) if present else None
