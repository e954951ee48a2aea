"""Item lines: a line that states what it charges for, a count, a rate and the extended
total.

A bill, an estimate or a quote extends a line's count by its rate on the line itself:
"Storage in transit, 30 days at $45.00 per day: $1,350.00", "Labour — 3 hours at
$95/hour = $285.00", "Accommodation, 2 nights @ €120 per night: €240", "Boarding (5 nights
x $48.00) ... $240.00". The line reads, in this order:

* the **item's name** — the words that open the line (after a list's bullet, the line's
  indent, or a date or an item's number a bill writes in a column of its own: "06 Oct
  Regular clean, …", " 4     Hanging service, …"; after
  the kind of charge a bill sets before a colon, "Labour: boiler service, …" → ``Labour —
  boiler service``), at most :data:`_NAME_WORDS` words of letters outside a gloss, no
  figure but in a qualifier after a comma ("Weekly lessons, 45 minutes, 11 lessons @ £32.00
  … £352.00"), a gloss in brackets allowed ("Beglaubigung (certification), 2 documents @
  €25.00"), no word of a sentence (:data:`~osrag.lexicon.function_words.NOT_IN_A_NAME`),
  not opening with a determiner — then a comma, a colon, a dash or an opening parenthesis
  (or nothing);
* the **count** — a figure or a number word, and up to three words of what it counts
  ("30 days", "15 credit hours", "two nights");
* the **rate** — after *at*, ``@``, ``x`` or ``×``, the line's first amount, its unit
  after it ("per day", "/hour") or none;
* the **extended total** — the line's second and last amount, after a separator (a colon,
  ``=``, dot leaders, a dash), the parenthesis closing the count or the gap between two
  columns, and nothing after it but a parenthesis or the line's end.

Both amounts are the item's: the total is what it is charged, the rate its price a unit
(its period unit read after it, as for any amount, :mod:`~osrag.extract.facts.units`);
both take the item's name as their label. When the count is of a unit ("3 nights", "1.5
hrs", "112 extra miles", "6 lessons"), the rate is priced by that unit and the total sums
it: the rate's unit is the count's and the total has none (a label's "Weekly" says how
often the item recurs, not what the line's total covers). A spaced dash inside the name
joins a qualifier ("Tuition – undergraduate, 15 credit hours at …" → ``Tuition —
undergraduate``), as in a table's label cell; between figures it is a range's ("Nov 1 -
Apr 30"). A line that opens with its count ("2 nights @ €120 per night: €240") names no
item: its amounts stay as the other readers read them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from osrag.extract.facts.labels import clean_label
from osrag.extract.marks import LIST_BULLET
from osrag.extract.money import scan_money
from osrag.lexicon.function_words import CARDINALS, DETERMINERS, NOT_IN_A_NAME, PRONOUNS
from osrag.lexicon.keys import COLUMN_JOIN
from osrag.lexicon.label_roles import NOTE_LEADS
from osrag.lexicon.links import alternation
from osrag.lexicon.periods import DAY, MONTH, PERIOD_UNITS, RATE_INTRO, UNIT_ADVERBS, PeriodUnit

__all__ = ["ItemPlace", "counted_before", "item_of_line"]

_NAME_WORDS = 6
"""The most words of an item's name (a line's name, not a sentence)."""

_PRICED_BY = re.compile(r"(?i)\s(?:at|x|×)\s|@")
"""What every item line holds between its count and its rate (a quick test first)."""


def _count_at(least: int) -> str:
    """A count, what it counts (``least`` to three words) and the sign of multiplying before
    a rate: "3 nights @", "7 days ×", "two hours at" (``counted``: the words counted)."""
    return (
        rf"(?:\d[\d,]*(?:\.\d+)?|{alternation(CARDINALS)})"
        rf"(?P<counted>(?:\s+[^\W\d_][\w'’-]*){{{least},3}})\s*(?:at|@|x|×)\s*$"
    )


_BEFORE_RATE = re.compile(
    r"(?i)^(?:(?P<category>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)?):\s+(?=[^\W\d_]))?"
    r"(?P<name>[^\W\d_][^\d$€£¥₹:;()@=]*?(?:\s*\([^\d()]{1,40}\))?"
    r"(?:,\s*[^\W_][^$€£¥₹:;()@=,]*?)*?)"
    r"(?::[ \t]+\d[^$€£¥₹:;()@=,]*?(?=,))?"
    r"(?:\s*[,:(]\s*|\s+[-–—]{1,2}\s+|\s+)" + _count_at(0)
)
"""The line up to its rate: the kind of charge a bill sets before a colon ("Labour:
boiler service, …", group ``category``), the item's name (a gloss in brackets and
qualifiers after commas allowed, figures in a qualifier too: "Weekly lessons, 45
minutes"), the allowance a colon sets after the name, up to a comma ("Data: 5 GB
included, 3 extra GB @ …": no part of the name), a separator, the count and what it
counts, then *at*, ``@``, ``x`` or ``×``."""
_LEAD_DATE = re.compile(
    rf"(?i)\s*(?:{DAY}\s+{MONTH}|{MONTH}\s+{DAY}|\d{{1,2}}[/.-]\d{{1,2}}(?:[/.-]\d{{2,4}})?)"
    r"(?:,?\s+\d{4})?\s*(?:[-–—:|]\s*|\s{2,}|\t)"
)
"""A date that opens a bill's line, a column of its own ("06 Oct  Regular clean, …",
"03/11 – Boarding, …"): when the item was supplied, no part of its name."""
_LEAD_NUMBER = re.compile(r"(?:#[ \t]?)?\d{1,3}[.)]?(?:\t|[ ]{2,})(?=[^\W\d_])")
"""An item's number in a column of its own before its name (" 4     Hanging service, …",
"#2\tDelivery, …"): where the line stands on the bill, no part of the name or its count."""
_RATE_TO_TOTAL = re.compile(
    r"(?i)^\s*(?:" + RATE_INTRO + r"\s+[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?|/\s*[^\W\d_][\w-]*)?"
    r"(?:\s*(?:\)\s*(?:[:=]|\.{2,}|…+|[-–—]{1,2})?|(?:[:=]|\.{2,}|…+|[-–—]{1,2}))\s*|"
    r"\s*(?:\t|[ ]{2})\s*)\(?$"
)
"""Between the rate and the total: the rate's unit, then a separator, the parenthesis
that closes the count, or the gap between two columns (a tab, two spaces or more: "Gutter
clearing    2 @ $35.00    $70.00"); a total in brackets is a deduction a statement
makes ("Lot fees, 5 lots @ $20.00    ($100.00)")."""
_AFTER_TOTAL = re.compile(r"^\)?\s*(?:\([^()]{0,60}\))?\s*[.;]?\s*$")
_DASH_QUALIFIER = re.compile(r"(?<!\d)\s+[-–—]\s+(?!\d)")
"""A spaced dash joining a qualifier to the name; between figures ("Nov 1 - Apr 30") it
is a range's."""
_GLOSS = re.compile(r"\([^()]*\)")


@dataclass(frozen=True, slots=True)
class ItemPlace:
    """What an amount of an item line measures."""

    name: str | None
    """The item's name (module docstring)."""
    counted: PeriodUnit | None = None
    """The unit the line's count is of ("3 nights", "1.5 hrs", "112 extra miles"), None
    when it counts none: the rate is priced by it, the extended total sums it."""
    rate: bool = False
    """The amount is the line's rate (else its extended total)."""


def item_of_line(line: str, at: int) -> ItemPlace | None:
    """The item's place when the amount at ``line[at:]`` is the rate or the extended total
    of an item line (module docstring), else None."""
    if _PRICED_BY.search(line) is None:
        return None
    item = _item_line(line)
    if item is None or at not in item[0]:
        return None
    return ItemPlace(item[1], item[2], at == item[0][0])


_COUNT_TIMES = re.compile(r"(?i)^\s*" + _count_at(1))
"""A count of units and a sign of multiplying, alone before a rate in its cell ("**7 days
×** $250.00", "**3 nights @** $189"): the rate is priced by the unit counted."""


def counted_before(cell: str) -> PeriodUnit | None:
    """The unit a count before a rate in the same table cell is of (:data:`_COUNT_TIMES`:
    "7 days × $250.00" → day), None when the cell's text before the rate is no such count
    or counts no unit ("4 × $12.00")."""
    found = _COUNT_TIMES.match(cell)
    return _counted_unit(found.group("counted")) if found else None


def _counted_unit(counted: str) -> PeriodUnit | None:
    """The unit the words after a count name ("nights", "extra miles", "credit hours"):
    the last word or two when they name one, never an adverb ("3 weekly visits" counts
    visits)."""
    words = counted.lower().split()
    for tail in (" ".join(words[-2:]), words[-1] if words else ""):
        if tail in PERIOD_UNITS and tail not in UNIT_ADVERBS:
            return PERIOD_UNITS[tail]
    return None


@functools.lru_cache(maxsize=1 << 10)
def _item_line(
    line: str,
) -> tuple[tuple[int, int], str | None, PeriodUnit | None] | None:
    """Where the rate and the total of an item line start, the item's name and the unit
    its count is of; None when ``line`` is none. Read once a line: each amount of the line
    asks."""
    bullet = LIST_BULLET.match(line)
    start = bullet.end() if bullet else len(line) - len(line.lstrip())
    dated = _LEAD_DATE.match(line, start) or _LEAD_NUMBER.match(line, start)
    if dated is not None:
        start = dated.end()
    mentions = scan_money(line).mentions
    if len(mentions) != 2:
        return None
    rate, total = mentions
    between, after = _RATE_TO_TOTAL.match(line[rate.end : total.start]), line[total.end :]
    if (
        _AFTER_TOTAL.match(after) is None
        or between is None
        or between.group().endswith("(") != after.lstrip().startswith(")")
    ):
        return None
    found = _BEFORE_RATE.match(line[start : rate.start].replace("*", "").replace("`", ""))
    if found is None:
        return None
    name = found.group("name").strip(" -–—_")
    words = _GLOSS.sub(" ", name).lower().split()
    if (
        not words
        or sum(w[:1].isalpha() for w in words) > _NAME_WORDS
        or words[0] in DETERMINERS
        or words[0] in PRONOUNS
        or any(w in NOT_IN_A_NAME for w in words)
    ):
        return None
    if found.group("category"):
        if NOTE_LEADS & set(found.group("category").lower().split()):
            return None  # "Note: see terms, 2 copies @ …": a remark, no kind of charge
        name = f"{found.group('category')}{COLUMN_JOIN}{name}"
    label = clean_label(_DASH_QUALIFIER.sub(COLUMN_JOIN, name))
    return (rate.start, total.start), label, _counted_unit(found.group("counted"))
