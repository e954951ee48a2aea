"""Periods: which text names the period an amount refers to, and the year it names.

The one reader of periods, for the document side (a table's headers, a label's words)
and the question side ("revenue in Q4 2019").

A **period** is a text that names one year, with at most the words filings put around
it — a column header or a label-only row of a table, or a phrase in a sentence:

* a year: ``2019``, ``2 0 1 9`` (letter-spaced by a PDF), ``FY2019``, ``FY19``, ``FY 19``,
  ``F19`` (a capital F: how some filers write a fiscal year), ``Fiscal 2019``, ``Fiscal
  Year 2019``, ``Financial year 2019``, ``2019/20``, ``2019-20`` (a fiscal year written by
  its two calendar years: the first names it);
* a quarter or half of one: ``Q3 2019``, ``3Q19``, ``Q3 FY19``, ``Third quarter 2019``,
  ``H1 2019``, ``First half of 2019``;
* a day or month: ``December 31, 2019``, ``Dec. 31, 2019``, ``31 December 2019``,
  ``31-Dec-2019``, ``December 2019``;
* and before it at most ``Year(s) ended``, ``Three months ended``, ``Fiscal year ended``,
  ``As of``, ``As at``, ``At``, ``Balance at``, ``Period ended`` …; after it at most a
  footnote marker (``2019 (1)``, ``2019¹``, ``2019*``, ``2019(a)``), ``Restated``,
  ``Actual``, ``Unaudited`` or a unit (``2019 €m``, ``2019 $'000``).

:func:`period_of` returns the period as written (white space collapsed; the footnote
marker and unit dropped: they are not part of it) and its year — the first year it
names, so ``2019/20`` is 2019 (the year the fiscal year is named after varies by filer;
osrag takes the one written first) and ``FY19`` 2019 (a two-digit year is 20xx below 70,
else 19xx: :func:`two_digit_year`). Two years (``2019 vs 2018``, ``2019 and 2018``), a
year among other words (``Fiscal 2018 Plan``, ``2019 Notes``) or a date without a year
(``September 30,``) is not a period. :func:`is_period_words` says whether a header is
made only of period words without a year (``Years Ended December 31,``, ``Fiscal``, ``As
of``): such a header neither names the quantity nor a period.

**The part of a year**: :func:`part_of_year` finds the words that name a quarter or a
half (``First Quarter``, ``Q3``, ``Three months``, ``26 weeks``) — a figure for a part
of a year is not the year's; which part they name (:data:`PeriodPart`: ``q4`` …) is read
by the scope reader (:func:`osrag.lexicon.scopes.read_scope`), from the one table of
quarter ordinals (:data:`QUARTER_ORDINALS`: "fourth quarter", ``4th``).

**Periods in running text** — a sentence of a document or a question: a year as
:data:`YEAR_WRITTEN` writes it (``fiscal 2019``, ``FY19``, ``F19``) with what may stand
before it (a quarter, a month, a date, a preposition: :data:`STATED_PERIOD`), read by
:func:`stated_year` — one rule for two digits on both sides (``FY99`` is 1999 in a
filing's header, its prose and a question alike); a question's years and quarters
(:func:`stated_years`, :func:`stated_quarters`); a time phrase at the end of a name
(:data:`TIME_TAIL`: "revenue **for fiscal 2019**", "net income **for the year**"), which
neither side keeps in a label.

**Period units**: how often a recurring amount falls due — hour, day, week, month,
quarter, year — or the unit a rate is priced by — a night, a person, a credit hour, a mile
(:data:`PeriodUnit`, :data:`RATE_UNITS`) — read from "per week", "weekly", "a week", "per
annum", "p.a.", "/mo", "per room per night", "per guest" … by :func:`period_unit_of` (a phrase) and
:func:`period_units_in` (every such phrase in a span of text), for either side.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Literal

from osrag.lexicon.function_words import UNIT_NUMBERS
from osrag.lexicon.words import word_set

__all__ = [
    "AT_A_DATE",
    "DATE_TAIL",
    "DAY",
    "FISCAL",
    "MAY_NAME_A_YEAR",
    "MONTH",
    "MONTHS",
    "MONTH_NAME",
    "ORDINAL",
    "ORDINAL_SUFFIX",
    "PAYMENT_OCCASIONS",
    "PERIOD_UNITS",
    "QUARTER_ORDINALS",
    "RATE_INTRO",
    "RATE_WORDS",
    "SALE_INTRO",
    "SALE_UNIT_BEFORE_PERIOD",
    "STATED_HALF",
    "STATED_PERIOD",
    "STATED_QUARTER",
    "TERM_YEARS",
    "TERM_YEAR_CARDINALS",
    "TERM_YEAR_NUMBERS",
    "TIME_TAIL",
    "UNIT_ADVERBS",
    "UNIT_WORDS",
    "YEAR4",
    "YEAR_IN_TEXT",
    "YEAR_SUMMED",
    "YEAR_WRITTEN",
    "PeriodPart",
    "PeriodUnit",
    "impossible_periods",
    "is_period_words",
    "part_of_year",
    "period_of",
    "period_unit_of",
    "period_units_in",
    "period_written",
    "rate_phrase_end",
    "stated_halves",
    "stated_quarters",
    "stated_year",
    "stated_years",
    "two_digit_year",
    "unit_phrase_end",
    "year_of",
]

MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
    "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
    "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
    "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
"""The months' English names and abbreviations (lower-cased), and the month each names:
the one list every reader of a month builds on (periods, dates, label words)."""
MONTH_NAME = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
"""A month's name or its abbreviation, as one alternation — a pattern fragment."""
MONTH = rf"{MONTH_NAME}\.?"
"""A month's name or its abbreviation, a full stop allowed (``Dec.``) — a pattern fragment."""
YEAR4 = r"(?:19|20)\d\d"
"""A year of four digits — a pattern fragment."""
_SPACED = r"(?:1\s9|2\s0)\s\d\s\d"
_YEAR2 = r"'?\d\d"
QUARTER_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
}  # fmt: skip
"""The ordinal words that name a quarter ("fourth quarter", "4th quarter"), both sides."""
ORDINAL = "(?:" + "|".join(QUARTER_ORDINALS) + ")"
"""An ordinal that may name a quarter or a half ("fourth", "4th") — a pattern fragment."""
_PERIOD_COUNT = r"(?:three|six|nine|twelve|fifty[- ]two|fifty[- ]three|52|53|3|6|9|12|13)"
AT_A_DATE = r"(?:as\s+(?:of|at)|at|on|for|in|ended|ending)"
"""The words that state a figure at a date or for a period ("as of", "at", "for", "ended")
— a pattern fragment: a header's lead, a row label's date, a header split's joint."""
_LEAD = (
    r"(?:(?:the\s+)?(?:fiscal\s+|financial\s+)?(?:years?|periods?|quarters?|half[- ]years?|"
    rf"{_PERIOD_COUNT}\s+(?:months|weeks))[\s-]+(?:ended|ending)\s*:?\s*"
    rf"|(?:balances?\s+)?{AT_A_DATE}\s+"
    r"|balances?,?\s+(?:at\s+)?|(?:for\s+)?the\s+)"
)
FISCAL = r"(?:fiscal|financial)(?:\s+years?)?|fy"
"""The words that make a year a fiscal one (``Fiscal``, ``Financial year``, ``FY``) — a
pattern fragment."""
ORDINAL_SUFFIX = r"(?:st|nd|rd|th)?"
"""The suffix a day's number may take (``31st``) — a pattern fragment."""
DAY = rf"\d{{1,2}}{ORDINAL_SUFFIX}"
"""A day of a month, an ordinal suffix allowed (``31st``) — a pattern fragment."""
_CORE = rf"""
    (?P<fy>(?:{FISCAL})\s*(?P<fy4>{YEAR4})|fy\s*(?P<fy2>{_YEAR2})|(?-i:F)(?P<f2>\d\d))
  | (?:q(?P<q>[1-4])|h[12]|{ORDINAL}\s+(?:quarter|half)(?:\s+of)?)\s*(?:(?:{FISCAL})\s*)?
        (?:(?P<qy4>{YEAR4})|(?P<qy2>{_YEAR2}))
  | [1-4]q\s*(?:(?P<q4>{YEAR4})|(?P<q2>\d\d))
  | {MONTH}\s*{DAY},?\s*(?P<mdy>{YEAR4})
  | {DAY}(?:\s+|-){MONTH}(?:,?\s+|-)(?P<dmy>{YEAR4})
  | {MONTH},?\s+(?P<my>{YEAR4})
  | (?P<y>{YEAR4})(?:\s*[/-]\s*(?:\d\d|{YEAR4}))?
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
    \b(?:{ORDINAL}\s+)?(?:quarters?|half[- ]years?|half)\b
  | \b(?:(?:fiscal\s+)?year[\s-]+to[\s-]+date|f?ytd)\b
  | \b(?:q[1-4]|h[12]|[1-4]q)(?=\b|\d)
  | \b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|[1-9]|1[01])[\s-]+months?\b
  | \b(?:thirteen|twenty[\s-]six|thirty[\s-]nine|13|26|39)[\s-]+weeks?\b
    """
)
YEAR_IN_TEXT = re.compile(r"(?<![\d.,$€£¥])(?:19|20)\d\d(?![\d,.]\d|\s*%)")
"""A year standing in running text (not a digit group of a bigger number, not a
percentage)."""
_PERIOD_WORDS = re.compile(
    rf"(?ix)(?:\s*(?:(?:{_LEAD})|(?:{FISCAL})|{MONTH}|{DAY}|years?|months?|weeks?|quarters?"
    r"|periods?|ended|ending|end|year-end|as\s+of|as\s+at|of|at|the|for|and|to|date|"
    r"three|six|nine|twelve|[,:\-–—/()]))+\s*"
)


def two_digit_year(text: str) -> int:
    """The year two digits name (``19``, ``'99``): 20xx below 70, else 19xx."""
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
        for name in ("fy2", "f2", "qy2", "q2"):
            if groups.get(name):
                year = two_digit_year(groups[name])
                break
    if year is None and groups.get("sp"):
        year = int(groups["sp"].replace(" ", ""))
    if year is None:
        return None
    written = text[: match.start("tail")].strip().rstrip(",").strip()
    return " ".join(written.split()), year


def year_of(text: str) -> int | None:
    """The year a period names (:func:`period_of`), or None."""
    found = period_of(text)
    return found[1] if found else None


@functools.lru_cache(maxsize=1 << 12)
def part_of_year(text: str) -> str | None:
    """The words of ``text`` that name a part of a year, as written — ``First Quarter``,
    ``Q3``, ``Three months``, ``26 weeks``, ``Half-year``, ``Year to date`` — or None: a
    figure for a quarter, a half or the year to date is not the year's (``Twelve months
    ended``, ``52 weeks`` and ``Fiscal 2019`` name a whole year)."""
    found = _PART_OF_YEAR.search(text)
    return " ".join(found.group(0).split()) if found else None


@functools.lru_cache(maxsize=1 << 12)
def is_period_words(text: str) -> bool:
    """``text`` is made only of the words around periods and names no year: ``Years Ended
    December 31,``, ``Fiscal``, ``As of``, ``Fiscal Year Ended``."""
    stripped = text.strip()
    return bool(stripped) and _PERIOD_WORDS.fullmatch(stripped) is not None


# ------------------------------------------------------------------ periods in running text

YEAR_WRITTEN = (
    rf"(?:(?:fiscal|financial)\s+(?:year\s+)?|fy\s*'?)?(?P<year>{YEAR4})"
    r"|fy\s*'?(?P<short>\d\d)|(?-i:F)(?P<f>\d\d)"
)
"""A year as running text writes it: ``2019``, ``fiscal 2019``, ``fiscal year 2019``,
``FY2019``, ``FY 19``, ``FY'99``, ``F19`` (a capital F: how some filers write a fiscal
year) — a pattern fragment with the groups :func:`stated_year` reads."""

STATED_PERIOD = re.compile(
    rf"""(?ix)
    (?<![\w$€£¥.,])
    (?P<lead>(?:(?:in|for|during|of|at|as\s+of)\s+)?(?:the\s+)?)
    (?P<period>
        (?:q[1-4]\s+(?:of\s+)?|{ORDINAL}\s+quarter\s+(?:of\s+)?(?:fiscal\s+)?
          |{MONTH}\s+(?:\d{{1,2}},?\s+)?|\d{{1,2}}\s+{MONTH}\s+)?
        (?:{YEAR_WRITTEN})
    )
    (?![\w%]|[,.]\d|\s*%|\s*(?:million|billion|thousand)\b)
    """
)
"""A period stated in running text, on both sides — a year as :data:`YEAR_WRITTEN` writes
it, with the quarter, month or date before it (``Q3 2019``, ``the fourth quarter of
fiscal 2019``, ``December 31, 2019``, ``31 Dec. 2019``), and the preposition before it
(``in``, ``for``, ``during``, ``of``, ``at``, ``as of``, a ``the``: group ``lead``, which a
question's reader strips from a name; group ``period`` is the period as written). Not a
digit group of a bigger number, a percentage or a scale (``2019 million``)."""

MAY_NAME_A_YEAR = re.compile(r"(?:19|20)\d\d|[Ff][Yy]\s*'?\d\d|F\d\d")
"""What every :data:`STATED_PERIOD` holds: a text without it is spared the full pattern."""


def stated_year(match: re.Match[str]) -> int:
    """The year a match of :data:`YEAR_WRITTEN` (or a pattern holding it) names: four
    digits as written, two by :func:`two_digit_year` (``FY99`` is 1999, ``F19`` 2019)."""
    if match["year"]:
        return int(match["year"])
    return two_digit_year(match["short"] or match["f"])


def period_written(match: re.Match[str]) -> tuple[str, int]:
    """``(the period as written, its year)`` of a :data:`STATED_PERIOD` match."""
    return " ".join(match["period"].split()), stated_year(match)


def _outside(
    pattern: re.Pattern[str], text: str, taken: Sequence[tuple[int, int]]
) -> list[re.Match[str]]:
    """The matches of ``pattern`` in ``text`` that overlap none of the ``taken`` spans."""
    return [
        m
        for m in pattern.finditer(text)
        if not any(s < m.end() and m.start() < e for s, e in taken)
    ]


def stated_years(text: str, taken: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int, int]]:
    """``(year, start, end)`` of every period a question states (:data:`STATED_PERIOD`,
    its leading preposition included in the span) outside the ``taken`` spans (the
    amounts' phrases)."""
    return [(stated_year(m), m.start(), m.end()) for m in _outside(STATED_PERIOD, text, taken)]


STATED_QUARTER = re.compile(
    r"(?<![\w$€£¥.,])(?:(?:in|for|during)\s+)?(?:the\s+)?(?:"
    rf"(?P<ordinal>{ORDINAL})[\s-]+(?:fiscal\s+)?quarter"
    r"|q(?P<q>[1-4])|(?P<nq>[1-4])q(?:\d\d)?)(?![\w%])",
    re.IGNORECASE,
)
"""A stated quarter: "Q4", "in Q4", "4Q19", "the fourth quarter", "for the 4th quarter"."""


def stated_quarters(text: str, taken: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int, int]]:
    """``(quarter, start, end)`` of every quarter a question states outside the ``taken``
    spans."""
    return [
        (
            QUARTER_ORDINALS[m["ordinal"].lower()] if m["ordinal"] else int(m["q"] or m["nq"]),
            m.start(),
            m.end(),
        )
        for m in _outside(STATED_QUARTER, text, taken)
    ]


_IMPOSSIBLE = re.compile(
    r"""(?ix)
    (?<![\w$€£¥.,])(?:q(?P<q>[05-9])|(?P<nq>[05-9])q(?:\d\d)?)(?![\w%])
  | (?<![\w])(?P<ordinal>fifth|sixth|seventh|eighth|ninth|tenth|5th|6th|7th|8th|9th|10th)
        [\s-]+(?:fiscal\s+)?quarter
  | (?<![\w$€£¥.,])(?:h(?P<h>[03-9])|(?P<nh>[03-9])h(?:\d\d)?)(?![\w%])
  | (?<![\w])(?P<third_half>third|fourth|3rd|4th)[\s-]+half
  | (?<![\w])month\s+(?P<month>0|1[3-9]|[2-9]\d)(?![\w%])
  | (?<![\w])(?P<month_ordinal>1[3-9]th|[2-9]\dth|thirteenth)\s+month
  | (?<![\w/.,\d])(?P<mm>00|1[3-9]|[2-9]\d)\s*/\s*(?:19|20)\d\d(?![\w/])
    """
)


def impossible_periods(text: str, taken: Sequence[tuple[int, int]] = ()) -> list[tuple[str, str]]:
    """``(as written, why)`` of every period a question states that no year has — a quarter
    beyond the fourth ("Q5", "5Q19", "the fifth quarter"), a half beyond the second ("H3"),
    a month beyond the twelfth ("month 13", "13/2019") — outside the ``taken`` spans: a
    reader that bound an amount to it would bind it to nothing, so the question is
    refused, naming it."""
    found: list[tuple[str, str]] = []
    for m in _outside(_IMPOSSIBLE, text, taken):
        written = " ".join(m.group(0).split())
        if m["q"] or m["nq"] or m["ordinal"]:
            why = "a year has four quarters, Q1–Q4"
        elif m["h"] or m["nh"] or m["third_half"]:
            why = "a year has two halves, H1 and H2"
        else:
            why = "a year has twelve months"
        found.append((written, why))
    return found


STATED_HALF = re.compile(
    r"(?<![\w$€£¥.,])(?:(?:in|for|during)\s+)?(?:the\s+)?(?:"
    r"(?P<ordinal>first|second|1st|2nd)[\s-]+(?:fiscal\s+)?half(?:[\s-]+(?:of\s+the\s+)?year)?"
    r"|h(?P<h>[12])|(?P<nh>[12])h(?:\d\d)?)(?![\w%])",
    re.IGNORECASE,
)
"""A stated half of a year: "H1", "in H2", "1H19", "the first half", "second-half"."""


def stated_halves(text: str, taken: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int, int]]:
    """``(half, start, end)`` of every half of a year a question states outside the
    ``taken`` spans."""
    return [
        (
            QUARTER_ORDINALS[m["ordinal"].lower()] if m["ordinal"] else int(m["h"] or m["nh"]),
            m.start(),
            m.end(),
        )
        for m in _outside(STATED_HALF, text, taken)
    ]


PAYMENT_OCCASIONS = (
    "booking", "reservation", "signing", "signature", "acceptance", "confirmation",
    "collection", "pick-up", "pickup", "drop-off", "delivery", "completion", "arrival",
    "departure", "check-in", "check-out", "checkout", "enrollment", "enrolment",
    "registration", "installation", "commencement", "move-in",
)  # fmt: skip
"""The moments of a transaction at which money is paid or falls due ("a deposit paid **on
booking**", "the balance due **at pick-up**", "payable **on completion**"): when, not
what — a label's keys are read without them (:data:`DATE_TAIL`)."""
_OCCASION = "|".join(
    r"[\s-]".join(map(re.escape, re.split(r"[\s-]", word)))
    for word in sorted(PAYMENT_OCCASIONS, key=len, reverse=True)
)

_DAY = r"the\s+(?:[a-z-]+\s+)?day(?:\s+of\s+(?:the\s+)?[a-z-]+)?"
"""A day named by what happens on it ("the fitting day", "the day of the move")."""
DATE_TAIL = re.compile(
    rf"""(?ix)\s+
    (?:(?P<participle>paid|received|due|made|collected|refunded|issued
      |payable(?=\s+(?:(?:on|at|upon|before)\s+(?:the\s+)?(?:{_OCCASION})|on\s+{_DAY})))\s+)?
    (?:(?:(?:on|at|by|as\s+(?:of|at)|before|until)\s+)?
      (?:\d{{1,2}}[/.-]\d{{1,2}}[/.-](?:{YEAR4}|\d\d)|{DAY}\s+{MONTH},?\s+{YEAR4}
        |{MONTH}\s+{DAY},?\s+{YEAR4})
      |(?P<occasion>(?:on|at|upon|before)\s+(?:the\s+)?(?:{_OCCASION})
        |on\s+{_DAY}))
    \s*$
    |\s+(?:this|the\s+current|current)\s+(?:pay\s+|statement\s+|billing\s+|accounting\s+)?
    (?:period|month|quarter|year)\s*$
    |\s+(?:in|during|for)\s+(?:{YEAR4}|the\s+(?:(?:tax|calendar|fiscal|financial)\s+)?year)\s*$"""
)
"""When a figure moved or for which stretch it stands, at the end of a document's label:
a date with the participle and the preposition that state it ("Deposit **paid 2 October
2026**", "Deposit **received 09/02/2026**", "Balance due **by 23 April 2027**"), or the
moment of the transaction (:data:`PAYMENT_OCCASIONS`: "Deposit **paid on booking**",
"Balance **payable on collection**"; a day named by it: "Balance due **on the fitting
day**", "**on the day of the move**") or the
statement's own period ("Royalties earned **this period**") or the year it sums ("Total gifts
**in 2026**", "Donations **during the year**"). Neither names what the
figure measures: a label's keys are read without it (:func:`osrag.lexicon.keys.
label_keys`), as a question's name is read without its time phrase (:data:`TIME_TAIL`)."""

YEAR_SUMMED = re.compile(
    r"(?i)\s+(?:in|during|for)\s+the\s+(?:(?:tax|calendar|fiscal|financial)\s+)?year\s*$"
)
"""A label's tail that says the figure sums one year, no year named ("Total donations **in
the year**", "Fees paid **during the year**"): a year's figure, as "a year" says after an
amount."""

TIME_TAIL = re.compile(
    r"(?i)\s+(?:(?:in|for|during|as\s+of|as\s+at|at|on|by|through|from|since|over|ended|"
    r"ending|of)\s+)+(?:the\s+)?(?:(?:fiscal|financial|calendar)\s+|fy\s*|\d{1,2}\s+)?"
    rf"(?:{YEAR4}|years?|quarters?|periods?|months?|q[1-4]|h[12]|{ORDINAL}|"
    rf"full|prior|previous|last|current|same|{MONTH_NAME})\b"
    r"(?:[^,;:]|,(?=\s*(?:and\s+)?(?:19|20)\d\d|\s*$))*$"
    r"|(?i:\s+(?:this|the\s+current|current)\s+(?:pay\s+|statement\s+|billing\s+)?period)$"
)
"""A time phrase at the end of a name, before its link or its figure ("Revenue **for
fiscal 2019** totaled", "net income **for the year** under $5 million"): it runs to the
end, never over a clause's comma ("born in 1989, applying for …, pays an annual premium
of": the phrase is after the comma); or a statement's own period named after it ("gross
pay **this period**", "net pay **current period**"). Both sides take it off a name."""


# ------------------------------------------------------------------ parts of the year

PeriodPart = Literal[
    "full", "q1", "q2", "q3", "q4", "h1", "h2", "ytd", "part",
    "y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10",
]  # fmt: skip
"""The part of the period a figure covers: ``full`` (the whole period — a year, or no part
named), a quarter, a half, ``ytd`` (the year to date: a statement's running total beside
its period's own figure), ``part`` (another part: "Three months", "26 weeks"), or one year
of a term of several (``y1``…``y10``: "first-year funding", "Year 2 budget", "budget year
1", :data:`TERM_YEAR_NUMBERS`)."""

TERM_YEARS: tuple[PeriodPart, ...] = ("y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10")
"""The years of a multi-year term, as a part of its period."""

TERM_YEAR_NUMBERS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
    "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10,
}  # fmt: skip
"""The ordinals before "year" that name one year of a term ("first-year", "2nd year")."""

TERM_YEAR_CARDINALS = {
    **{word: n for word, n in UNIT_NUMBERS.items() if 1 <= n <= 10},
    **{str(n): n for n in range(1, 11)},
}
"""The numbers after "year" that name one year of a term ("Year 1", "year one"); a
calendar year ("Year 2019") is none."""


# ------------------------------------------------------------------ period units

PeriodUnit = Literal[
    "hour", "day", "week", "month", "quarter", "year", "night", "person", "credit hour", "mile",
    "word", "page", "copy", "piece", "watt", "lesson", "session", "visit",
]  # fmt: skip
"""What an amount is per: how often a recurring amount falls due ("$450 a year" is yearly,
"$1,200 per month" monthly) or the unit a rate is priced by — a night of lodging, a
person, a credit hour of tuition, a mile driven ("$189 per room per night", "$350 per
person", "$390 per credit hour", "$0.35 per mile"): a rate, not a total."""

RATE_UNITS: dict[str, PeriodUnit] = {
    "night": "night", "nights": "night", "nightly": "night",
    "person": "person", "persons": "person", "guest": "person", "guests": "person",
    "head": "person", "attendee": "person", "participant": "person", "passenger": "person",
    "credit hour": "credit hour", "credit hours": "credit hour",
    "credit": "credit hour", "credits": "credit hour", "semester hour": "credit hour",
    "mile": "mile", "miles": "mile", "mi": "mile",
    "word": "word", "words": "word", "page": "page", "pages": "page",
    "copy": "copy", "copies": "copy", "piece": "piece", "pieces": "piece",
    "watt": "watt", "watts": "watt", "lesson": "lesson", "lessons": "lesson",
    "session": "session", "sessions": "session", "visit": "visit", "visits": "visit",
}  # fmt: skip
"""The units a rate is priced by that are no period, each word (or two) that names one
and the unit: "per guest" and "per head" are per person, "per credit" per credit hour. A
unit only after "per", "each", "a" or a slash ("$189 a night", "$0.35/mile"); "nightly"
alone ("nightly rate")."""

RATE_WORDS = frozenset({"per", "each", "every"})
"""The words that put a unit after a price ("$45 per day", "$12 each month", "$5 every
week")."""
RATE_INTRO = r"(?:per|each|every|an?)"
"""The words before a rate's unit, as a pattern to build on: :data:`RATE_WORDS` and the
article ("$189 a night")."""
SALE_INTRO = r"(?:per|each)"
"""The words before a unit of sale counted one by one ("$12 **per** user", "$5 **each**
copy"), as a pattern to build on."""
UNIT_WORD = r"[a-z][a-z-]*"
"""One word of a rate's unit, as a pattern to build on."""
UNIT_WORDS = rf"{UNIT_WORD}(?:\s+{UNIT_WORD})?"
"""A unit's one or two words after :data:`RATE_INTRO` or :data:`SALE_INTRO` ("user",
"square foot"), as a pattern to build on."""
SALE_UNIT_BEFORE_PERIOD = re.compile(rf"(?i)\s*{SALE_INTRO}\s+{UNIT_WORDS}\s+")
"""A unit of sale of one or two words that is no period, between a price and the period
it recurs by ("$12 **per user** per month", "$3.50 **per foot** per night", "$2 **per
square foot** a year"): the period after it is the rate's."""

PERIOD_UNITS: dict[str, PeriodUnit] = {
    "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour", "hourly": "hour",
    "day": "day", "days": "day", "daily": "day", "diem": "day",
    "week": "week", "weeks": "week", "wk": "week", "weekly": "week",
    "month": "month", "months": "month", "mo": "month", "mth": "month", "monthly": "month",
    "quarter": "quarter", "qtr": "quarter", "quarterly": "quarter",
    "year": "year", "years": "year", "yr": "year", "annum": "year", "annually": "year",
    "yearly": "year", "annual": "year",
    **RATE_UNITS,
}  # fmt: skip
"""Each word that names a period unit (a noun, its abbreviation, its adverb or adjective),
lower-cased, and the unit: the one table the unit reader builds on."""

UNIT_ADVERBS = frozenset(
    {"hourly", "daily", "weekly", "monthly", "quarterly", "annually", "yearly", "annual", "nightly"}
)
"""The words of :data:`PERIOD_UNITS` that say the unit alone ("paid weekly", "annual
premium"); the others are nouns, which need "per", "each", "every" or "a" before them."""
_NOUNS = "|".join(
    r"[\s-]+".join(map(re.escape, re.split(r"[\s-]+", noun)))
    for noun in sorted(set(PERIOD_UNITS) - UNIT_ADVERBS, key=len, reverse=True)
)
_ARTICLE_NOUNS = "|".join(
    sorted(
        {"hour", "day", "week", "month", "quarter", "year", "night", "person", "head", "mile"}
        | {"credit hour", "word", "page", "copy", "piece", "watt", "lesson", "session", "visit"},
        key=len,
        reverse=True,
    )
).replace(" ", r"[\s-]+")
"""The nouns a rate names after "a" or "an" ("$450 a year", "$189 a night", "$40 a head")."""
COLUMN_UNITS = word_set("hour day week month night")
"""Period nouns that, alone as a rate table's column header or before "rate" ("crane **day
rate**"), say its rates are per that period ("Mini excavator, 3.5 ton | $225 | $325 |
$1,150" under "4 Hours | Day | Week": the $325 is a day's). Not "year" or "quarter": a
financial table's "Year" column holds years, not rates."""

NAMED_EVENTS = word_set(
    "report reports meeting meetings accounts return returns leave conference gala dinner"
) | frozenset({"general meeting"})
"""Nouns an adjective of a period names a thing by, not a recurrence: the "**annual
report**" a printer prices, the "**annual general meeting**", "**monthly accounts**",
"**annual leave**", the "**annual gala dinner**" — no amount beside them falls due yearly."""
_NAMED_EVENTS = "|".join(
    r"[\s-]+".join(map(re.escape, noun.split()))
    for noun in sorted(NAMED_EVENTS, key=len, reverse=True)
)
_NOT_A_UNIT_QUALIFIER = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|other|second|third|"
    r"few|several|many|half|quarter|\d+)"
)
"""Words before a unit's noun that make a multiple of it ("every **two** weeks", "every
**other** month", "per **half**-hour"): any other single word qualifies it and keeps it
the unit ("per **calendar** month", "each **contract** year", "per **policy** year", "for
each **additional** day"), a hyphen joining it too: the worker an hour is counted by ("per
**man**-hour", "per **painter**-hour", "per **crew**-day")."""
_UNIT_PHRASE = re.compile(
    rf"""(?ix)
    (?<![\w/-])
    (?:
        (?:per|each|every)\s+(?:(?!{_NOT_A_UNIT_QUALIFIER}\b)(?:[a-z][a-z-]*\s+|[a-z]+-))??(?P<noun>{_NOUNS})\b(?!-[a-z])
      | (?:a|an)\s+(?P<rate>{_ARTICLE_NOUNS})\b
            (?!\s+(?:ago|earlier|later|before|after|of|from)\b)
      | (?P<adverb>{"|".join(sorted(UNIT_ADVERBS))})\b(?![\s-]+(?:{_NAMED_EVENTS})\b)
      | (?P<rated>{"|".join(sorted(COLUMN_UNITS))})[\s-]+rate\b
      | p\.\s?a\b\.?
      | per\s+diem\b
    )
    | (?<=[\w$€£¥₹])\s?/\s?(?P<slash>{_NOUNS})\b
    """
)
"""A phrase that names the period unit of a recurring amount: "per week", "each month",
"every year", "per calendar month", "each contract year", "a year" (not "a year ago", "a
quarter of"), a period's rate ("crane **day rate**", "the **night rate**"),
"weekly", "annually", "annual", "p.a.", "per annum", "per diem", "/mo", "/yr" right after
a figure. Never a multiple or a fraction of one: "semi-annually", "biweekly", "every two
weeks" name no unit of the six."""
_SLASH_ALONE = re.compile(rf"(?i)/\s?(?P<slash>{_NOUNS})")
"""A slash and a unit with no figure before it ("/mo" as a column header)."""


def _unit(match: re.Match[str]) -> PeriodUnit:
    groups = match.groupdict()
    word = (
        groups.get("noun")
        or groups.get("rate")
        or groups.get("adverb")
        or groups.get("rated")
        or groups["slash"]
    )
    if word is None:
        return "day" if "diem" in match.group(0).lower() else "year"  # per diem, p.a.
    return PERIOD_UNITS[" ".join(re.split(r"[\s-]+", word.lower()))]


def period_units_in(
    text: str, start: int = 0, end: int | None = None
) -> list[tuple[PeriodUnit, int, int]]:
    """``(unit, start, end)`` of every phrase in ``text[start:end]`` that names the period
    unit of a recurring amount (:data:`_UNIT_PHRASE`: "$450 a year", "rent of $1,200 per
    month", "paid weekly", "$40/hr"), in order."""
    stop = len(text) if end is None else end
    return [(_unit(m), m.start(), m.end()) for m in _UNIT_PHRASE.finditer(text, start, stop)]


def unit_phrase_end(text: str, start: int) -> int | None:
    """The end of the period-unit phrase that ``text`` continues with at ``start``, after
    spaces ("$50 **a day** or less", "$2,000 **per month** or more", "$40**/hr** or under"),
    else None: a comparison said after an amount may come after its unit."""
    at = start
    while at < len(text) and text[at] in " \t":
        at += 1
    match = _UNIT_PHRASE.match(text, at)
    return match.end() if match is not None else None


_ANY_RATE_PHRASE = re.compile(
    rf"(?i)[ \t]*(?:{RATE_INTRO}[ \t]+(?!or\b|and\b){UNIT_WORD}(?:[ \t]+(?!or\b|and\b){UNIT_WORD})?"
    rf"|/[ \t]?{UNIT_WORD})"
)
"""A rate's unit of one or two words of any kind after a price ("**a ticket**", "**per
signature**", "**per square foot**", "**/page**"), the words of a comparison after it left
out: what a question may say between an amount and the "or less" that governs it."""


def rate_phrase_end(text: str, start: int) -> int | None:
    """The end of the rate's unit phrase ``text`` continues with at ``start``, of a period
    or of anything priced by the unit (:data:`_ANY_RATE_PHRASE`: "$15 **per signature** or
    less", "£2.50 **a ticket** or less"), else None — only to find the comparison said after
    it; the unit a constraint asks for is read by :func:`unit_phrase_end` and the units'
    table."""
    match = _ANY_RATE_PHRASE.match(text, start)
    return match.end() if match is not None else None


@functools.lru_cache(maxsize=1 << 12)
def period_unit_of(text: str) -> PeriodUnit | None:
    """The period unit ``text`` names when it is one such phrase and nothing else ("per
    week", "Weekly", "a year", "per annum", "p.a.", "/mo") — on both sides: a document's
    "premium of $450 a year" and a question's "rent over $2,000 a month" — else None."""
    stripped = text.strip()
    match = _UNIT_PHRASE.fullmatch(stripped) or _SLASH_ALONE.fullmatch(stripped)
    return _unit(match) if match is not None else None
