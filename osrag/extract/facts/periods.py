"""A header split around the one period it names (:func:`split_period`).

The period reader is the vocabulary's (:mod:`osrag.lexicon.periods`: which text is a
period, and its year); a table header often names a period among other words
(``Estimated at June 30, 2019``, ``Fiscal 2019 Net Sales``), and what stands beside it
is either a name (a qualifier of the column) or words that name nothing — a
restatement, a note reference, or a unit caption (:func:`osrag.extract.scale.parse_caption`:
``2019 £m``).
"""

from __future__ import annotations

import functools
import re

from osrag.extract.scale import parse_caption
from osrag.lexicon.periods import (
    AT_A_DATE,
    DAY,
    FISCAL,
    MONTH,
    YEAR4,
    YEAR_IN_TEXT,
    period_of,
)

__all__ = ["split_period"]

_INNER = re.compile(
    rf"""(?ix)
    (?P<date>
        {MONTH}\s*{DAY},?\s*{YEAR4}
      | {DAY}(?:\s+|-){MONTH}(?:,?\s+|-){YEAR4}
      | (?:(?:{FISCAL})\s*|q[1-4]\s+)?{YEAR4}
    )"""
)
_JOINER = re.compile(rf"(?i)\s*(?:\b{AT_A_DATE}\s*)?[,:–—-]?\s*$")


@functools.lru_cache(maxsize=1 << 12)
def split_period(text: str) -> tuple[tuple[str, int] | None, str]:
    """A header that names one period among other words, split: ``Estimated at June 30,
    2019`` → (``June 30, 2019``, ``Estimated``), ``Fiscal 2019 Net Sales`` → (``Fiscal
    2019``, ``Net Sales``), ``Year-ended 31 March 2018 Restated See note 2`` →
    (``Year-ended 31 March 2018``, "": a restatement, a note reference or a unit after a
    period names nothing); a whole period → (it, ""); no period, or two years (``2019 vs 2018``) →
    (None, ``text``)."""
    whole = period_of(text.strip())
    if whole is not None:
        return whole, ""
    years = YEAR_IN_TEXT.findall(text)
    if len(years) != 1:
        return None, text
    matches = list(_INNER.finditer(text))
    match = matches[-1] if matches else None
    if match is None:
        return None, text
    found = period_of(match.group("date"))
    if found is None:
        return None, text
    before = _JOINER.sub("", text[: match.start()])
    after = text[match.end() :].strip(" ,;:")
    if _NOTED.fullmatch(after) or (after and parse_caption(after) is not None):
        after = ""  # "Restated, see note 2", "£m": said of the figures, not a name
    if before.strip():
        led = period_of(text[: match.end()].strip())  # "Year-ended 31 March 2018"
        if led is not None:
            found, before = led, ""
    if before.strip() and after:
        return None, text  # a period between words of a name ("Plan 2018 Series B")
    return found, (before or after).strip()


_NOTED = re.compile(
    r"(?i)(?:\s*(?:\(\s*)?(?:restated|unaudited|audited|actual|as\s+reported|pro\s+forma|"
    r"(?:see\s+)?notes?\s+\d{1,3}[a-z]?)(?:\s*\))?|\s*[,;*†‡]|\s*\(\d{1,2}\)|\s*\d{1,2})+"
)
"""What may follow a period in a header and names nothing: ``Restated``, ``See note 2``,
``(Unaudited)``, a footnote marker."""
