"""Calendar dates in text → ISO :class:`datetime.date` values.

Recognised (English month names and abbreviations, any case, ordinals allowed):

* ``January 15, 2024``, ``Jan. 15 2024``, ``January 15th, 2024``;
* ``15 January 2024``, ``15 Jan 2024``, ``15th of January, 2024``,
  ``1st day of January, 2020``;
* ISO ``2024-01-15`` (also as the date part of ``2024-01-15T10:00:00Z``) and
  ``2024/01/15``;
* numeric ``01/15/2024`` — **the locale rule**: a slash date with the year last
  is read month-first (``date_order="MDY"``, the default, US usage) or
  day-first (``"DMY"``); a date that is impossible in that order
  (``15/01/2024`` under MDY) is dropped, never re-read in the other order;
* dotted ``15.01.2024`` — always day-first (the convention that writes it).

Not dates: two-digit years (``1/15/24`` — the century is a guess), month and
year alone (``January 2024`` — no day to filter on), impossible days
(``February 30, 2024``), numbers glued to other digits or words.

Invariant: every :class:`DateMention` has ``text[start:end] == raw`` and a
valid ``date``. One compiled regular expression scans the whole text.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from osrag.lexicon.periods import MONTH_NAME, MONTHS, ORDINAL_SUFFIX

DateOrder = Literal["MDY", "DMY"]

_AFTER = r"(?![\w/]|[-.]\d)"  # not followed by more of a number or a word
# Speed: both patterns start with a character class, so the regex engine jumps to
# candidate positions; the "not inside a word or number" test comes after it.
_NUMERIC_FIRST = re.compile(
    rf"""
    \d(?<![\w/.\-]\d)
    (?:
        (?P<iso>)\d{{3}}(?P<sep>[-/])\d{{2}}(?P=sep)\d{{2}}(?=T\d|{_AFTER})
    |   (?P<dm>)\d?{ORDINAL_SUFFIX}(?:\s+(?i:day))?(?:\s+(?i:of))?\s+(?i:{MONTH_NAME})
        \.?,?\s+\d{{4}}{_AFTER}
    |   (?P<slash>)\d?/\d{{1,2}}/\d{{4}}{_AFTER}
    |   (?P<dot>)\d?\.\d{{1,2}}\.\d{{4}}{_AFTER}
    )
    """,
    re.VERBOSE,
)
_MONTH_FIRST = re.compile(
    rf"[JjFfMmAaSsOoNnDd](?<![\w/.\-][JjFfMmAaSsOoNnDd])(?i:[a-z]{{2,8}})\.?\s+\d{{1,2}}{ORDINAL_SUFFIX},?\s+\d{{4}}{_AFTER}"
)
_TOKENS = re.compile(r"\d+|[A-Za-z]+")
_YEAR_DIGITS = re.compile(r"\d{4}")
"""Every date form has four digits in a row (the year); most texts without one are skipped."""
_DAY_YEAR = re.compile(rf"\d(?<=\s\d)\d?{ORDINAL_SUFFIX},?\s+\d{{4}}{_AFTER}")
"""The day and year of a month-first date: starts with a digit, so the scan skips fast."""
_MONTH_INITIALS = frozenset("JjFfMmAaSsOoNnDd")


def _month_first(text: str, pos: int) -> list[re.Match[str]]:
    """The matches ``_MONTH_FIRST.finditer(text, pos)`` gives, found from the day and year.

    Scanning for a month word means trying every word that starts with one of
    sixteen letters; the day and year start with a digit. Each anchor is walked
    back over the spaces (and a ``.``) to the letters before it, and the real
    pattern is matched there, so the matches are the pattern's own.
    """
    found: list[re.Match[str]] = []
    for anchor in _DAY_YEAR.finditer(text, pos):
        end = anchor.start()
        while end > pos and text[end - 1].isspace():
            end -= 1
        if end < pos + 3:
            continue
        if text[end - 1] == ".":
            end -= 1
        start = end
        while start > pos and ("a" <= text[start - 1] <= "z" or "A" <= text[start - 1] <= "Z"):
            start -= 1
        if not 3 <= end - start <= 9 or text[start] not in _MONTH_INITIALS:
            continue
        match = _MONTH_FIRST.match(text, start)
        if (
            match is not None
            and match.end() == anchor.end()
            and (not found or match.start() >= found[-1].end())
        ):
            found.append(match)
    return found


class DateMention(BaseModel):
    """One date found in a text; ``text[start:end] == raw`` (code-point offsets)."""

    model_config = ConfigDict(frozen=True)

    start: int
    end: int
    raw: str
    date: dt.date


def _ymd(match: re.Match[str], order: DateOrder) -> tuple[int, int, int] | None:
    tokens = _TOKENS.findall(match[0])
    numbers = [int(t) for t in tokens if t.isdigit()]
    month_names = [MONTHS.get(t.lower()) for t in tokens if not t.isdigit()]
    if match.re is _MONTH_FIRST:
        month = month_names[0]
        return None if month is None else (numbers[1], month, numbers[0])
    if match.group("iso") is not None:
        return numbers[0], numbers[1], numbers[2]
    if match.group("dm") is not None:
        month = next((m for m in month_names if m is not None), None)
        return None if month is None else (numbers[1], month, numbers[0])
    if match.group("slash") is not None:
        a, b, year = numbers
        return (year, a, b) if order == "MDY" else (year, b, a)
    day, month, year = numbers  # dotted: always day first
    return year, month, day


def extract_dates(text: str, date_order: DateOrder = "MDY", *, pos: int = 0) -> list[DateMention]:
    """Every valid date in ``text[pos:]``, in order, with spans into ``text``."""
    found: list[DateMention] = []
    if not _YEAR_DIGITS.search(text, pos):
        return found
    matches = [*_NUMERIC_FIRST.finditer(text, pos), *_month_first(text, pos)]
    for match in sorted(matches, key=lambda m: m.start()):
        ymd = _ymd(match, date_order)
        if ymd is None or (found and match.start() < found[-1].end):
            continue  # not a month name, or inside a date already found
        try:
            value = dt.date(*ymd)
        except ValueError:
            continue  # February 30, or 15/01/2024 read month-first
        found.append(DateMention(start=match.start(), end=match.end(), raw=match[0], date=value))
    return found


def parse_date(text: str, date_order: DateOrder = "MDY") -> dt.date | None:
    """``text`` as exactly one date (surrounding whitespace ignored), or ``None``."""
    stripped = text.strip()
    found = extract_dates(stripped, date_order)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(stripped):
        return found[0].date
    return None
