"""One fact per money mention: the mention's value signed by the policy, its label, period
and evidence (:mod:`osrag.extract.facts`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from osrag.extract.facts.context import allocated_quantity, heading_context, table_context
from osrag.extract.facts.items import counted_before
from osrag.extract.facts.ranges import range_ends
from osrag.extract.facts.sections import SectionHeadings
from osrag.extract.facts.table import TableReading, read_table, row_label
from osrag.extract.facts.text import TextPlace, line_key, read_text_place
from osrag.extract.facts.units import declared_units, period_unit
from osrag.extract.marks import sentence_before
from osrag.extract.money import MoneyMention
from osrag.extract.tables import CellAmount
from osrag.lexicon.bounds import LABEL_CHARS, shorten
from osrag.lexicon.label_roles import AGGREGATE_AFTER, UNIT_PRICED
from osrag.lexicon.periods import RATE_WORDS, PeriodUnit
from osrag.lexicon.scopes import names_forecast, period_part_of, scope_of
from osrag.lexicon.signs import signed_value
from osrag.lexicon.words import phrase_words
from osrag.schema.facts import AmountFact, FactScope, FactSource, PeriodPart

__all__ = ["amount_facts", "fact"]


def fact(
    mention: MoneyMention,
    label: str | None,
    period: str | None,
    year: int | None,
    source: FactSource,
    unit: PeriodUnit | None = None,
    *,
    scope: FactScope = "own",
    scope_name: str | None = None,
    period_part: PeriodPart = "full",
) -> AmountFact:
    """The fact of one mention, its value signed by the policy (:mod:`osrag.lexicon.signs`),
    its period unit read from the text after it or from its label
    (:mod:`osrag.extract.facts.units`); its label within ``LABEL_CHARS`` (a table's row
    joined with its columns may be longer than each part: cut and marked,
    :mod:`osrag.lexicon.bounds`)."""
    if label is not None and len(label) > LABEL_CHARS:
        label = shorten(label, LABEL_CHARS)
    return AmountFact(
        currency=mention.currency,
        value=signed_value(mention.minor_units, mention.negative, label, scope),
        label=label,
        period=period,
        year=year,
        source=source,
        raw=mention.raw,
        start=mention.start,
        end=mention.end,
        scale=mention.scale,
        caption=mention.caption,
        scope=scope,
        scope_name=scope_name,
        period_part=period_part,
        period_unit=unit,
    )


def amount_facts(
    text: str,
    mentions: Sequence[MoneyMention],
    cells: Sequence[CellAmount],
    *,
    headings: Sequence[tuple[int, str]] | None = None,
) -> list[AmountFact]:
    """The facts of ``mentions`` (sorted, as :func:`~osrag.extract.extract_values` gives
    them), in the same order; ``cells``: the table cells among them, with their tables;
    ``headings``: the sections of a plain text, where each heading starts and its title
    (None: the text's Markdown headings)."""
    by_start = {c.mention.start: c for c in cells}
    readings: dict[int, TableReading] = {}
    facts: list[AmountFact] = []
    sentence_facts: list[AmountFact] = []  # the facts earlier in the current sentence
    sections: SectionHeadings | None = None  # found when an amount first needs them
    for mention in mentions:
        cell = by_start.get(mention.start)
        if cell is not None and cell.mention is mention:
            reading = readings.get(id(cell.table))
            if reading is None:
                allocated = allocated_quantity(text, cell.table.start)
                context = table_context(text, cell.table.start)
                reading = read_table(cell.table, allocated, context, cell.model)
                readings[id(cell.table)] = reading
            place = reading.place(cell.row, cell.cell)
            unit = _cell_unit(text, mention, place.label)
            facts.append(
                fact(
                    mention,
                    place.label,
                    place.period,
                    place.year,
                    "table",
                    unit,
                    scope=place.scope,
                    scope_name=place.scope_name,
                    period_part=place.period_part,
                )
            )
            sentence_facts = []
            continue
        if sentence_facts and _sentence_ended(text, sentence_facts[-1].end, mention.start):
            sentence_facts = []
        where = read_text_place(text, mention.start, mention.end, len(sentence_facts))
        found = _text_fact(text, mention, where, sentence_facts)
        if found.label is None and found.source in ("prose", "table"):
            # in a row's worded cell, or a rate in its label cell ("Room block, 40 rooms at
            # $189.00 per night")
            row = row_label(text, mention.start)
            if row is not None:
                unit = _cell_unit(text, mention, row)
                found = fact(mention, row, found.period, found.year, "table", unit)
        if found.label is None and found.source == "prose":
            if sections is None:
                sections = SectionHeadings(text, [m.start for m in mentions], headings)
            per = _PER_BEFORE.search(text, max(0, mention.start - 8), mention.start)
            heading = None if per else sections.caption_at(mention.start)
            if heading is None and not per:
                heading = sections.label_at(mention.start)
            if heading is None and not per:
                heading = sections.priced_at(mention.start, mention.end)
            if heading is not None:
                unit = period_unit(text, mention.end, heading)
                found = fact(mention, heading, found.period, found.year, "heading", unit)
        earlier = sentence_facts[-1] if sentence_facts else None
        inherited = earlier if earlier is not None and found.label == earlier.label else None
        since = facts[-1].end if facts else 0
        found = _whose_and_when(text, mention, found, inherited, since)
        if found.label is not None and found.source == "prose":
            _share_back(text, found, facts, sentence_facts)
        facts.append(found)
        sentence_facts.append(facts[-1])
    return range_ends(text, declared_units(text, facts))


def _whose_and_when(
    text: str,
    mention: MoneyMention,
    found: AmountFact,
    inherited: AmountFact | None,
    since: int = 0,
) -> AmountFact:
    """An amount outside a table with its label split into what, whose and when
    (:func:`~osrag.lexicon.scopes.read_scope`: "Adjusted EBITDA", "Retail segment net
    sales", "Fourth-quarter net sales"); the part of the year its clause's words before it
    name ("for the full year", "in the quarter", "Q1 - Q2 2012"), else its stated period
    ("the fourth quarter of 2022"; a year is the year's); and, when its own words name
    neither, the part of the company or of the
    year its section's heading names (:func:`~osrag.extract.facts.context.heading_context`).
    ``since``: where the amount before it ends (its clause starts after it). An amount that
    takes the label of the one before it in its sentence (a comparison, a
    list) takes its scope too."""
    label = found.label
    what, scope, name, part = scope_of(label) if label else ("", "own", None, None)
    if inherited is not None and scope == "own" and inherited.scope != "forecast":
        scope, name = inherited.scope, inherited.scope_name
    if scope in ("own", "adjusted") and names_forecast(_sentence_before(text, mention.start)):
        # "we expect revenue of", "guidance … of": an expected figure, whoever's; the
        # kind of figure stays in what ("expects adjusted EBITDA of")
        what = (label or "") if scope == "adjusted" else what
        scope, name = "forecast", None
    if label and what and (scope != "own" or part is not None):
        label = what
    if part is None:
        part = _clause_part(text, max(since, mention.start - 200), mention.start)
    if part is None and found.period is not None:
        part = period_part_of(found.period.split()) or "full"  # a year: the year's
    if part is None and inherited is not None:
        part = inherited.period_part
    if part is None or (scope == "own" and inherited is None):
        around = heading_context(text, mention.start)
        part = part or around.period_part
        if scope == "own":
            scope, name = around.scope, around.scope_name
    if (label, scope, name, part) == (found.label, "own", None, None):
        return found
    return fact(
        mention,
        label,
        found.period,
        found.year,
        found.source,
        found.period_unit,
        scope=scope,
        scope_name=name,
        period_part=part or "full",
    )


def _sentence_before(text: str, start: int) -> list[str]:
    """The words of the amount's sentence before it, from its last stop or a key's colon (a
    line break inside a paragraph does not end it: a forecast verb governs the list it
    opens)."""
    return sentence_before(text, start, 300).split()


_CLAUSE_START = re.compile(r".*(?:[.;:!?](?=\s)|\n)", re.S)


def _clause_part(text: str, since: int, start: int) -> PeriodPart | None:
    """The part of the year the words of an amount's clause before it name, on its line
    and after the amount before it ("For the full year, revenue was", "Revenue in the
    quarter was", "Q1 - Q2 2012")."""
    window = text[since:start]
    cut = _CLAUSE_START.match(window)
    words = window[cut.end() if cut else 0 :].split()
    part = period_part_of(words)
    if part == "part":  # a bare "quarter" in a clause ("the end of each quarter") names none
        part = period_part_of([w for w in words if w.lower().strip(",.") != "quarter"])
    return part


def _share_back(
    text: str, found: AmountFact, facts: list[AmountFact], earlier: list[AmountFact]
) -> None:
    """The unlabelled amounts of a list that ``found`` closes take its label: "$2.3
    million, $2.1 million and $1.9 million **of stock-based compensation expense**"."""
    end = found.start
    for back in range(len(earlier) - 1, -1, -1):
        previous = earlier[back]
        if previous.label is not None or not _LISTED.fullmatch(text, previous.end, end):
            return
        value = signed_value(previous.magnitude, previous.value < 0, found.label, found.scope)
        unit = previous.period_unit or period_unit(text, previous.end, found.label)
        shared = dataclasses.replace(
            previous,
            label=found.label,
            source="prose",
            value=value,
            period_unit=unit,
            scope=found.scope,
            scope_name=found.scope_name,
            period_part=found.period_part,
        )
        earlier[back] = facts[len(facts) - len(earlier) + back] = shared
        end = previous.start


def _text_fact(
    text: str, mention: MoneyMention, where: TextPlace, earlier: list[AmountFact]
) -> AmountFact:
    label, source = where.label, where.source
    listed = (
        source == "prose"
        and (label is None or where.read_after)
        and earlier
        and earlier[-1].label is not None
        and _LISTED.fullmatch(text, earlier[-1].end, mention.start)
    )
    if (where.inherits or listed) and earlier and _aggregate_of(text, mention, earlier[-1]):
        # "$1,000,000 per occurrence and $2,000,000 in the aggregate (annual aggregate)"
        label = where.label if where.read_after and where.label else AGGREGATE
    elif (where.inherits or listed) and earlier:
        label = _without_ratio(text, earlier[-1])
        source = earlier[-1].source if earlier[-1].source != "heading" else "prose"
    elif label is None and source == "prose" and earlier and earlier[-1].source == "key":
        key = line_key(text, mention.start)
        if key is not None:
            label, source = key, "key"  # a later amount on a key's line
    label = _ratio_label(text, mention.end, label)
    if source == "table":  # a worded cell's amount ("7 days × $250.00")
        unit = _cell_unit(text, mention, label)
    else:
        unit = period_unit(text, mention.end, label)
    if where.item is not None and where.item.counted is not None:
        # "Toll pass, 3 days @ $5.95 … $17.85": the rate is a day's, the total sums the days;
        # a unit written after the rate is its own ("3 days @ $40 per week"), the label's
        # ("Weekly lessons") gives way to the count's
        written = period_unit(text, mention.end, None)
        unit = (written or where.item.counted) if where.item.rate else None
    return fact(mention, label, where.period, where.year, source, unit)  # type: ignore[arg-type]


AGGREGATE = "aggregate"
"""The label of a pair's later amount qualified as the aggregate
(:data:`~osrag.lexicon.label_roles.AGGREGATE_AFTER`): its predecessor's quantity in the
aggregate — the aggregate limit beside a limit per occurrence —, which is no longer the
predecessor's label (a question for the limit per occurrence does not meet it)."""


def _aggregate_of(text: str, mention: MoneyMention, previous: AmountFact) -> bool:
    """``mention`` is the aggregate of the named quantity ``previous`` measures: the later
    amount of a pair, qualified as the aggregate right after it (:data:`AGGREGATE`)."""
    return previous.label is not None and AGGREGATE_AFTER.match(text, mention.end) is not None


_RATIO = r"(?:(?:basic|diluted|common|ordinary)\s+){0,2}share"
_RATIO_AFTER = re.compile(rf"(?i)\s*(?:per|a)\s+(?P<ratio>{_RATIO})\b")
"""A ratio to a share written right after an amount: "$0.71 **per diluted share**",
"$2.07 **a share**"."""
_RATIO_ADDED = re.compile(rf"(?i) per (?:{_RATIO})$")
"""The ratio :func:`_ratio_label` adds to a label."""


def _without_ratio(text: str, earlier: AmountFact) -> str | None:
    """An earlier amount's label without the ratio read after it (:func:`_ratio_label`): "net
    income of $58.0 million, or $0.71 per diluted share, compared with **$49.0 million**"
    is net income; a label that names its ratio itself ("Diluted earnings per share") is
    kept whole."""
    label = earlier.label
    if label is None or _RATIO_AFTER.match(text, earlier.end) is None:
        return label
    return _RATIO_ADDED.sub("", label)


def _ratio_label(text: str, end: int, label: str | None) -> str | None:
    """``label`` with the ratio to a share the amount ending at ``text[end]`` is written
    in, when the label does not say it: "net income of $58.0 million, or $0.71 per diluted
    share" — the second amount is net income per diluted share, not net income. A price
    (:data:`~osrag.lexicon.label_roles.UNIT_PRICED`) is one per unit already: "a purchase
    price of $0.15 per share" is the purchase price."""
    ratio = _RATIO_AFTER.match(text, end)
    if label is None or ratio is None or re.search(r"(?i)\bper\b|\bshare", label):
        return label
    if phrase_words(label)[-1:] and phrase_words(label)[-1] in UNIT_PRICED:
        return label
    return f"{label} per {' '.join(ratio['ratio'].split())}"


_LISTED = re.compile(
    r"(?i)(?:\s+(?:per|each|a|an)\s+[a-z]+(?:\s+[a-z]+){0,2}){0,2}\s*"
    r"(?:,\s*(?:and|or)?|and|or|/|to|[-–]|\()\s*"
)
"""What stands between two amounts of one list, range or restatement ("$250, $500 or
$1,000", "$250,000 each person and $500,000 each accident", "$1,000-$2,000", "$45.00 per
rentable square foot ($159,750.00)"): the second is the same quantity."""


_PER_BEFORE = re.compile(rf"(?i)\b(?:{'|'.join(sorted(RATE_WORDS))})\s*$")
"""An amount after *per* is the unit of a rate ("rated per $100 of insured value")."""


def _cell_unit(text: str, mention: MoneyMention, label: str | None) -> PeriodUnit | None:
    """The period unit of an amount in a table cell: :func:`period_unit`, or the unit a
    count before it in its cell is of ("7 days × $250.00": a day's rate), unless a unit
    follows the amount ("3 days @ $40 per week")."""
    counted = counted_before(_cell_before(text, mention.start))
    if counted is None:
        return period_unit(text, mention.end, label)
    return period_unit(text, mention.end, None) or counted


_CELL_TEXT_BEFORE = 64
"""How far back in its cell (characters) a count before a rate is read."""


def _cell_before(text: str, start: int) -> str:
    """A table cell's text before the amount at ``start``: back to the cell's border (a
    pipe, a tab or the line's start), at most :data:`_CELL_TEXT_BEFORE` characters."""
    low = max(0, start - _CELL_TEXT_BEFORE)
    border = max(
        text.rfind("|", low, start), text.rfind("\t", low, start), text.rfind("\n", low, start)
    )
    return text[border + 1 if border >= 0 else low : start]


def _sentence_ended(text: str, previous_end: int, start: int) -> bool:
    """A sentence boundary between two amounts: a full stop or a semicolon, or a line
    break that opens a block (a blank line, a heading, a list item …); a line break
    inside a wrapped sentence is not one."""
    between = text[previous_end:start]
    if ". " in between or "; " in between:
        return True
    return "\n" in between and _BLOCK_BREAK.search(text, previous_end, start + 2) is not None


_BLOCK_BREAK = re.compile(r"\n[ \t]*(?:\n|#|\||>|[-*+•◦▪][ \t]|\d{1,2}[.)][ \t])")
"""A line break that opens a block."""
