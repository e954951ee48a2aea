"""How often an amount recurs: the period unit its text states.

One rule for every source of a fact — prose, a key–value line, a table cell — read with
the vocabulary's reader of period units (:func:`osrag.lexicon.periods.period_units_in`:
"per week", "a year", "per annum", "monthly", "/mo", "each contract year" …):

1. **Right after the amount**, in its own clause: "$900 **per week**", "a stipend of
   $48,000 **per annum**", "**$3,400/month**", "US$300,000 **annually**", "$6.75 per
   rentable square foot **per year**" — the first unit phrase before the clause ends (a
   comma, a semicolon, a full stop, a table cell's end, a line's end) or another figure
   starts, within :data:`REACH` characters.
2. **Else in the label**: "**Monthly** rent", "**Annual** premium", "Rate **per hour**",
   "Rent — **Monthly**" (a table's column), "**annual** learning stipend" — but not a
   unit that makes an average ("average **daily** net assets" is a daily average, not an
   amount that falls due daily).

Nothing else: a period that dates a figure ("for fiscal 2019", "in 2020") is its period,
not its unit; a multiple or a fraction of a unit ("every two weeks", "semi-annually",
"per semester") is none of the six (:data:`osrag.lexicon.periods.PeriodUnit`).
"""

from __future__ import annotations

import functools
import re

from osrag.lexicon.periods import PeriodUnit, period_units_in

__all__ = ["REACH", "period_unit"]

REACH = 80
"""How far after an amount (characters) its unit phrase may stand."""

_CLAUSE_END = re.compile(r"[,;|\n]|\.(?:\s|$)|[$€£¥₹]\s?\d|(?<![\w/-])\d")
"""Where the amount's clause ends, or another figure starts."""
_AVERAGE = re.compile(r"(?i)\b(?:average|avg\.?)\s*$")


def period_unit(text: str, end: int, label: str | None) -> PeriodUnit | None:
    """The period unit of the amount ending at ``text[end]`` (module docstring)."""
    stop = _CLAUSE_END.search(text, end, end + REACH)
    units = period_units_in(text, end, stop.start() if stop else min(len(text), end + REACH))
    if units:
        return units[0][0]
    return _label_unit(label) if label else None


@functools.lru_cache(maxsize=1 << 12)
def _label_unit(label: str) -> PeriodUnit | None:
    for unit, start, _ in period_units_in(label):
        if not _AVERAGE.search(label, 0, start):
            return unit
    return None
