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
   "Rent — **Monthly**" (a table's column), "**annual** learning stipend", a year's sum
   ("Total donations **in the year**": :data:`~osrag.lexicon.periods.YEAR_SUMMED`) — but not a
   unit that makes an average ("average **daily** net assets" is a daily average, not an
   amount that falls due daily), nor one that a figure of the label owns ("15 credit hours
   at $390.00 **per credit hour**", "Meal plan – 14 meals **per week**": the rate and the
   count are per unit; the row's amount, their product, is not). A rate's label whose
   name says in brackets the unit its count is of ("Copy editing **(hours)** — Unit
   price", "Site supervision **(days)** — Rate") prices that unit; the row's extended
   total, labelled without the rate's column, states none.

3. **Else the statement's declared frequency**: a header line "Pay frequency: Weekly",
   "Pay period: Monthly", "Billing cycle: Quarterly", "Billed monthly" gives its unit to
   the statement's current-period amounts below it that state none
   (:func:`declared_units`) — not to a year-to-date column, a dated figure, a figure of
   another part or a rate ("Regular — Rate"); a frequency that is no unit ("Biweekly",
   "Semi-monthly") gives none.

The same reader gives a rate's unit ("$189 per room **per night**", "$350 **per person**",
"$390 **per credit hour**", "$0.35 **per mile**": :data:`osrag.lexicon.periods.RATE_UNITS`);
a period the label names wins over a rate's unit after the amount ("**Annual** maximum:
$2,000.00 per person" recurs yearly).

4. **Else the price list's declared unit**: a sentence saying what the list's prices are
   per ("All prices are **per horse per week**", "Prices are per month unless stated",
   "Rates are per visit", "Our fees are hourly", a line opening "Prices per month.") gives
   its first unit to each labelled price of the list's own below it, before the next
   heading, that states none — never a sum, a tax, a deposit or a balance, nor a price of a
   unit of its own ("£2.50 per dose") (:func:`_price_list_units`).

Nothing else: a period that dates a figure ("for fiscal 2019", "in 2020") is its period,
not its unit; a multiple or a fraction of a unit ("every two weeks", "semi-annually",
"per semester") is none of the six (:data:`osrag.lexicon.periods.PeriodUnit`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence

from osrag.extract.facts.sections import HEADING_LINE
from osrag.extract.marks import line_matches
from osrag.lexicon.function_words import INDEFINITE
from osrag.lexicon.keys import COLUMN_JOIN
from osrag.lexicon.label_roles import NOT_A_LIST_PRICE
from osrag.lexicon.periods import (
    COLUMN_UNITS,
    PERIOD_UNITS,
    RATE_UNITS,
    RATE_WORDS,
    UNIT_ADVERBS,
    YEAR_SUMMED,
    PeriodUnit,
    period_unit_of,
    period_units_in,
    rate_phrase_end,
)
from osrag.schema.facts import AmountFact

__all__ = ["REACH", "declared_units", "period_unit"]

REACH = 80
"""How far after an amount (characters) its unit phrase may stand."""

_RATE_WORD_STARTS = rf"(?![ \t]*(?:{'|'.join(sorted(RATE_WORDS))})\s)"
_CLAUSE_END = re.compile(
    rf"[,;|]|[ \t]*\n{_RATE_WORD_STARTS}|\.(?:\s|$)|[$€£¥₹]\s?\d|(?<![\w/-])\d"
)
"""Where the amount's clause ends, or another figure starts: a line's end too, unless the
unit phrase is wrapped across it after its rate word ("$45.00⏎per hour")."""
_WRAPPED_RATE = re.compile(
    rf"[ \t]+(?:{'|'.join(sorted((RATE_WORDS - {'each'}) | INDEFINITE))})[ \t]*\n"
)
"""A rate word alone between the amount and a line's end: the unit is wrapped to the next
line ("billed at $75 per⏎hour"); not "each", which ends a price of its own ("Soap $2
each⏎Day spa passes …")."""
_RATES = frozenset(RATE_UNITS.values())
_AVERAGE = re.compile(r"(?i)\b(?:average|avg\.?)\s*$")
_COUNT_BEFORE_UNIT = re.compile(
    r"(?<![\d,.])(?!(?:19|20)\d\d\b)\d[\d,.]*\s+(?:[^\W\d]+[\s-]+){0,3}(?:at\s+[$€£¥₹]?\s?\d[\d,.]*\s+)?$"
)
"""A figure before a unit in the label, only words between ("14 meals ", "15 credit hours at
$390.00 "): the unit is the figure's."""
_COUNTED_GLOSS = re.compile(r"\(\s*(?P<unit>[^\W\d_]+)\s*\)")
"""A bracket holding one word after an item's name: the unit its count is of when the word
names one ("Labour **(hours)**", "Room hire **(nights)**")."""
_RATE_COLUMN = re.compile(r"(?i)\b(?:rate|unit\s+(?:price|cost)|price\s+each|each)\b")
"""A label's words that make its amount a rate of one unit ("— Rate", "— Unit price")."""


def period_unit(text: str, end: int, label: str | None) -> PeriodUnit | None:
    """The period unit of the amount ending at ``text[end]`` (module docstring)."""
    wrapped = _WRAPPED_RATE.match(text, end)
    stop = _CLAUSE_END.search(text, wrapped.end() if wrapped else end, end + REACH)
    units = period_units_in(text, end, stop.start() if stop else min(len(text), end + REACH))
    labelled = _label_unit(label) if label else None
    if units:
        unit = units[0][0]
        if unit in _RATES and labelled is not None and labelled not in _RATES:
            return labelled  # "Annual maximum: $2,000.00 per person" recurs yearly
        return unit
    return labelled


@functools.lru_cache(maxsize=1 << 12)
def _label_unit(label: str) -> PeriodUnit | None:
    for unit, start, _ in period_units_in(label):
        if not _AVERAGE.search(label, 0, start) and not _COUNT_BEFORE_UNIT.search(label, 0, start):
            return unit
    if YEAR_SUMMED.search(label):
        return "year"
    _, joined, column = label.rpartition(COLUMN_JOIN)
    column = column.strip().lower()
    if joined and column in COLUMN_UNITS:
        return PERIOD_UNITS[column]  # a "Day" column of a rate table
    return _counted_gloss(label) if _RATE_COLUMN.search(label) else None


def _counted_gloss(label: str) -> PeriodUnit | None:
    """The unit a rate's label says in brackets its count is of ("Design (hours) — Unit
    price" → hour); never an adverb ("(monthly)" says how often, read above)."""
    for found in _COUNTED_GLOSS.finditer(label):
        word = found["unit"].lower()
        if word in PERIOD_UNITS and word not in UNIT_ADVERBS:
            return PERIOD_UNITS[word]
    return None


_DECLARED_FREQUENCY = re.compile(
    r"""(?imx)
    ^[ \t>*_#-]*
    (?:
        (?:pay|billing|invoice|invoicing)[ \t]+
        (?:frequency|period|cycle|schedule|interval)[ \t*_]*[:=–—-][ \t*_]*(?P<unit>[a-z-]+)
      | (?:billed|paid|invoiced|charged)[ \t]+(?P<adverb>[a-z-]+)
    )
    [ \t*_.]*$
    """
)
"""A header line that declares how often the statement's amounts fall due: "Pay frequency:
Weekly", "Billing cycle: Monthly", "Billed quarterly" — the line holds nothing else. A
pay or a bill's cycle only: a loan's "Payment schedule: Monthly" is the schedule of its
instalments, not of its principal or its fees."""
_RATE_LABEL = re.compile(r"(?i)\b(?:rate|price|per)\b")
_DECLARED_PRICES = re.compile(
    r"""(?ix)
    \b(?:all[ \t]+)?(?:our[ \t]+|the[ \t]+)?(?:prices|rates|fees|charges)
    (?:[ \t]+(?:shown|quoted|listed|below|above|here))?
    [ \t]+(?:are|is)(?:[ \t]+(?:shown|quoted|given|stated|charged|listed))?
    [ \t*_]+(?P<phrase>(?:per|a|an|each)[ \t][^.;:\n]{0,60}|[a-z]+ly\b)
    """
)
"""A sentence of a price list that says what its prices are per: "All prices are **per
horse per week**", "Prices are per month unless stated", "Rates are per visit", "Our fees
are hourly"."""
_TITLED_PRICES = re.compile(
    r"""(?imx)
    ^[ \t>*_#-]*(?:all[ \t]+)?(?:our[ \t]+|the[ \t]+)?(?:prices|rates|fees|charges)
    [ \t]+(?P<phrase>per[ \t][^.;:\n]{0,60})
    """
)
"""A line that opens by saying, without a verb, what a price list's prices are per: "Prices
per month. Choose month-to-month, or save…", "Rates per night, breakfast included"."""
_NOT_A_PRICE = re.compile(rf"(?i)\b(?:{'|'.join(sorted(NOT_A_LIST_PRICE))})\b")
"""A word of :data:`~osrag.lexicon.label_roles.NOT_A_LIST_PRICE` in a label."""


def declared_units(text: str, facts: Sequence[AmountFact]) -> list[AmountFact]:
    """``facts`` with the unit a header line declares (rule 3 of the module docstring) given
    to each current-period amount below it that states none, and the unit a price list
    says its prices are per (rule 4) to each price below it, in its section, that states
    none."""
    facts = _price_list_units(text, facts)
    if "ill" not in text and "ay" not in text and "aid" not in text and "harg" not in text:
        return list(facts)
    declared = [
        (m.end(), unit)
        for m in line_matches(_DECLARED_FREQUENCY, text)
        if (unit := period_unit_of(m["unit"] or m["adverb"])) is not None
        and unit not in RATE_UNITS.values()
    ]
    if not declared:
        return list(facts)
    out: list[AmountFact] = []
    for f in facts:
        unit = next((u for end, u in reversed(declared) if end <= f.start), None)
        if (
            unit is not None
            and f.period_unit is None
            and f.period_part == "full"
            and f.period is None
            and f.scope in ("own", "line_item")
            and f.label is not None
            and not _RATE_LABEL.search(f.label)
        ):
            f = dataclasses.replace(f, period_unit=unit)
        out.append(f)
    return out


def _price_list_units(text: str, facts: Sequence[AmountFact]) -> Sequence[AmountFact]:
    """Rule 4 of the module docstring: after a sentence saying what a price list's prices
    are per ("All prices are per horse per week"), each labelled price of the list's own
    below it and before the next heading that states no unit takes the sentence's first
    unit; never a sum, a tax, a deposit or a balance, nor a price of its own unit ("£2.50 per
    dose")."""
    if not _may_declare_prices(text):
        return facts
    declared: list[tuple[int, int, PeriodUnit]] = []
    for m in sorted(
        [*_DECLARED_PRICES.finditer(text), *_TITLED_PRICES.finditer(text)], key=lambda m: m.start()
    ):
        units = period_units_in(m["phrase"]) or (
            [(unit, 0, 0)] if (unit := period_unit_of(m["phrase"])) is not None else []
        )
        if units:
            heading = next(line_matches(HEADING_LINE, text, _line_after(text, m.end())), None)
            declared.append((m.end(), heading.start() if heading else len(text), units[0][0]))
    if not declared:
        return facts
    out: list[AmountFact] = []
    for f in facts:
        unit = next((u for start, end, u in reversed(declared) if start <= f.start < end), None)
        if (
            unit is not None
            and f.period_unit is None
            and f.scope in ("own", "line_item")
            and f.label is not None
            and not _NOT_A_PRICE.search(f.label)
            and rate_phrase_end(text, f.end) is None  # "£2.50 per dose": a rate of its own
        ):
            f = dataclasses.replace(f, period_unit=unit)
        out.append(f)
    return out


_PRICE_NOUNS = ("prices", "rates", "fees", "charges")
"""The nouns one of which every :data:`_DECLARED_PRICES` match holds."""
_CASED_LIKE_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")
"""The only characters a case-blind pattern reads as an ASCII letter that ``str.lower``
does not turn into that letter alone (İ, dotless ı, long ſ, the Kelvin sign)."""


def _may_declare_prices(text: str) -> bool:
    """False only when :data:`_DECLARED_PRICES` cannot match: the text holds none of
    :data:`_PRICE_NOUNS` in any case. One ``str.lower`` and four ``in`` instead of the
    case-blind pattern tried at every word of a long report (most hold "rate" or "fee" but
    no price list); a text holding a character of :data:`_CASED_LIKE_ASCII` goes to the
    pattern."""
    if any(ch in text for ch in _CASED_LIKE_ASCII):
        return True
    lowered = text.lower()
    return any(noun in lowered for noun in _PRICE_NOUNS)


def _line_after(text: str, at: int) -> int:
    """Where the line after the one holding ``text[at]`` starts (the text's end if none)."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end + 1
