"""Periods: which text names the period an amount refers to, and the year it names.

A **period** is a text that names one year, with at most the words filings put around
it — a column header or a label-only row of a table, or a phrase in a sentence:

* a year: ``2019``, ``2 0 1 9`` (letter-spaced by a PDF), ``FY2019``, ``FY19``, ``FY 19``,
  ``Fiscal 2019``, ``Fiscal Year 2019``, ``Financial year 2019``, ``2019/20``,
  ``2019-20`` (a fiscal year written by its two calendar years: the first names it);
* a quarter or half of one: ``Q3 2019``, ``3Q19``, ``Q3 FY19``, ``Third quarter 2019``,
  ``H1 2019``, ``First half of 2019``;
* a day or month: ``December 31, 2019``, ``Dec. 31, 2019``, ``31 December 2019``,
  ``31-Dec-2019``, ``December 2019``;
* and before it at most ``Year(s) ended``, ``Three months ended``, ``Fiscal year ended``,
  ``As of``, ``As at``, ``At``, ``Balance at``, ``Period ended`` …; after it at most a
  footnote marker (``2019 (1)``, ``2019¹``, ``2019*``, ``2019(a)``), ``Restated``,
  ``Actual``, ``Unaudited`` or a unit (``2019 €m``, ``2019 $'000``).

``period_of`` returns the period as written (white space collapsed; the footnote marker
and unit dropped: they are not part of it) and its year — the first year it names, so
``2019/20`` is 2019 (the year the fiscal year is named after varies by filer; osrag takes
the one written first) and ``FY19`` 2019 (a two-digit year is 20xx below 70, else 19xx).
Two years (``2019 vs 2018``, ``2019 and 2018``), a year among other words (``Fiscal
2018 Plan``, ``2019 Notes``) or a date without a year (``September 30,``) is not a
period. ``is_period_words`` says whether a header is made only of period words without a
year (``Years Ended December 31,``, ``Fiscal``, ``As of``): such a header neither names
the quantity nor a period.
"""

from __future__ import annotations

import functools
import re

from osrag.extract.scale import parse_caption

__all__ = [
    "YEAR_IN_TEXT",
    "is_period_words",
    "part_of_year",
    "period_of",
    "split_period",
    "year_of",
]

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_YEAR4 = r"(?:19|20)\d\d"
_SPACED = r"(?:1\s9|2\s0)\s\d\s\d"
_YEAR2 = r"'?\d\d"
_ORDINAL = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_NUMBER_WORD = r"(?:three|six|nine|twelve|fifty[- ]two|fifty[- ]three|52|53|3|6|9|12|13)"
_LEAD = (
    r"(?:(?:the\s+)?(?:fiscal\s+|financial\s+)?(?:years?|periods?|quarters?|half[- ]years?|"
    rf"{_NUMBER_WORD}\s+(?:months|weeks))[\s-]+(?:ended|ending)\s*:?\s*"
    r"|(?:balances?\s+)?(?:as\s+(?:of|at)|at|on|for|ended|ending)\s+"
    r"|balances?,?\s+(?:at\s+)?|(?:for\s+)?the\s+)"
)
_FISCAL = r"(?:fiscal|financial)(?:\s+years?)?|fy"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_CORE = rf"""
    (?P<fy>(?:{_FISCAL})\s*(?P<fy4>{_YEAR4})|fy\s*(?P<fy2>{_YEAR2}))
  | (?:q(?P<q>[1-4])|h[12]|{_ORDINAL}\s+(?:quarter|half)(?:\s+of)?)\s*(?:(?:{_FISCAL})\s*)?
        (?:(?P<qy4>{_YEAR4})|(?P<qy2>{_YEAR2}))
  | [1-4]q\s*(?:(?P<q4>{_YEAR4})|(?P<q2>\d\d))
  | {_MONTH}\s*{_DAY},?\s*(?P<mdy>{_YEAR4})
  | {_DAY}(?:\s+|-){_MONTH}(?:,?\s+|-)(?P<dmy>{_YEAR4})
  | {_MONTH},?\s+(?P<my>{_YEAR4})
  | (?P<y>{_YEAR4})(?:\s*[/-]\s*(?:\d\d|{_YEAR4}))?
  | (?P<sp>{_SPACED})
"""
_TAIL = (
    r"(?:\s*(?:\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)|[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+|\[\d{1,2}\])"
    r"|\s+(?:restated|actual|unaudited|audited|reported|as\s+reported|pro\s+forma)\d?"
    r"|\s+(?:[$€£¥₹]|us\$|a\$|c\$|s\$|usd|eur|gbp)\s?(?:['’]?000|m|bn|mn|million|billion)?"
    r"|\s*,)*"
)
_PERIOD = re.compile(rf"(?ix)\s*(?:{_LEAD})*(?P<core>{_CORE})(?P<tail>{_TAIL})\s*")
_PART_OF_YEAR = re.compile(
    rf"""(?ix)
    \b(?:{_ORDINAL}\s+)?(?:quarters?|half[- ]years?|half)\b
  | \b(?:q[1-4]|h[12]|[1-4]q)(?=\b|\d)
  | \b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|[1-9]|1[01])[\s-]+months?\b
  | \b(?:thirteen|twenty[\s-]six|thirty[\s-]nine|13|26|39)[\s-]+weeks?\b
    """
)
YEAR_IN_TEXT = re.compile(r"(?<![\d.,$€£¥])(?:19|20)\d\d(?![\d,.]\d|\s*%)")
"""A year standing in running text (not a digit group of a bigger number, not a
percentage)."""
_PERIOD_WORDS = re.compile(
    rf"(?ix)(?:\s*(?:(?:{_LEAD})|(?:{_FISCAL})|{_MONTH}|{_DAY}|years?|months?|weeks?|quarters?"
    r"|periods?|ended|ending|end|year-end|as\s+of|as\s+at|of|at|the|for|and|to|date|"
    r"three|six|nine|twelve|[,:\-–—/()]))+\s*"
)


def _two_digit(text: str) -> int:
    value = int(text.lstrip("'"))
    return 2000 + value if value < 70 else 1900 + value


@functools.lru_cache(maxsize=1 << 12)
def period_of(text: str) -> tuple[str, int] | None:
    """``(period as written, year)`` when ``text`` is a period (module docstring), else
    None."""
    if not text or len(text) > 80 or not any(ch.isdigit() for ch in text):
        return None
    match = _PERIOD.fullmatch(text)
    if match is None:
        return None
    groups = match.groupdict()
    year: int | None = None
    for name in ("fy4", "qy4", "q4", "mdy", "dmy", "my", "y"):
        if groups.get(name):
            year = int(groups[name])
            break
    if year is None:
        for name in ("fy2", "qy2", "q2"):
            if groups.get(name):
                year = _two_digit(groups[name])
                break
    if year is None and groups.get("sp"):
        year = int(groups["sp"].replace(" ", ""))
    if year is None:
        return None
    written = text[: match.start("tail")].strip().rstrip(",").strip()
    return " ".join(written.split()), year


_INNER = re.compile(
    rf"""(?ix)
    (?P<date>
        {_MONTH}\s*{_DAY},?\s*{_YEAR4}
      | {_DAY}(?:\s+|-){_MONTH}(?:,?\s+|-){_YEAR4}
      | (?:(?:{_FISCAL})\s*|q[1-4]\s+)?{_YEAR4}
    )"""
)
_JOINER = re.compile(r"(?i)\s*(?:\b(?:as\s+of|as\s+at|at|for|ended|ending|in|on)\s*)?[,:–—-]?\s*$")


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


def year_of(text: str) -> int | None:
    """The year a period names (:func:`period_of`), or None."""
    found = period_of(text)
    return found[1] if found else None


@functools.lru_cache(maxsize=1 << 12)
def part_of_year(text: str) -> str | None:
    """The words of ``text`` that name a part of a year, as written — ``First Quarter``,
    ``Q3``, ``Three months``, ``26 weeks``, ``Half-year`` — or None: a figure for a quarter
    or a half is not the year's (``Twelve months ended``, ``52 weeks`` and ``Fiscal 2019``
    name a whole year)."""
    found = _PART_OF_YEAR.search(text)
    return " ".join(found.group(0).split()) if found else None


@functools.lru_cache(maxsize=1 << 12)
def is_period_words(text: str) -> bool:
    """``text`` is made only of the words around periods and names no year: ``Years Ended
    December 31,``, ``Fiscal``, ``As of``, ``Fiscal Year Ended``."""
    stripped = text.strip()
    return bool(stripped) and _PERIOD_WORDS.fullmatch(stripped) is not None
