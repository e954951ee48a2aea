"""What a table cell's amount measures, whose figure it is and when: its label, scope and
period, read from the table around it.

The table is read once by the table model (:mod:`osrag.extract.table_model`: its header
rows, spans, titles, repeated header blocks, group rows and value cells, and each
column's key — its period, part of the year, part of the company and the qualifiers of the
measure). For the amount in row *r*, column *c*:

* **What** (the label) is the row label (the row's first cell, or the cell after it when
  the first only numbers the row: ``1 | Emergency medical expenses | £10,000,000``),
  joined with the column's qualifiers by `` — ``
  (``Long-term debt — Fair value``, ``Revenue — Variance in Dollars``). A label-only row
  that is not a period is a **group** (``Weighted-average shares:``); it joins the label —
  ``Group: Row`` — only when the row label names no quantity without it
  (:func:`~osrag.extract.facts.labels.is_dependent`: ``Total``, ``Basic``, ``Federal``,
  ``Granted``…), when the row names only a part of the company (``United States`` under
  ``Net sales:`` is the United States' net sales), or when the group names a balance the
  row is a component of (:func:`~osrag.extract.facts.labels.is_component`: ``Deferred tax
  assets: Stock-based compensation``; with no group row, a total below that names the
  balance — ``Total deferred tax assets`` — names the rows above it the same way); a row
  label that names its own quantity (``Cost of sales`` under ``Operating expenses:``)
  stands alone. Rows that name only a part (``Americas``, ``EMEA`` …) above a total that
  names the quantity (``Total revenue``) are that part's figure of it; with nothing to
  name the quantity, the part's name is the label. A row whose label is a period, or
  empty, is labelled by the qualifiers alone — none: no label.
* **Whose** (the scope): the words of the row, its group, the column and the text around
  the table are read by the scope reader (:func:`~osrag.lexicon.scopes.read_scope`), and
  what they say of whose figure it is leaves the label: a region, a segment or a product
  line in a column (``Americas``), a row or a group (``United States`` under ``Net
  sales:``, ``Americas:`` over the countries), a heading naming one part (``Consumer
  Cyber Safety segment``, ``North America``: :func:`table_scope`), an adjusted or non-GAAP
  row (``Adjusted EBITDA`` is EBITDA, ``adjusted``), the sentence describing the table
  (discontinued operations, an acquired business's purchase price allocation, pro forma
  figures, the parent company alone), a table headed ``Parent``. A balance's components
  are the tax effects of their items (``tax_effect``: a deferred tax balance) or an
  allocated charge's shares (``allocated``: a table of stock-based compensation,
  depreciation or amortization by line, rows "included" in the lines above). When several
  name one, the first of :data:`~osrag.lexicon.scopes.PRECEDENCE` is the fact's.
* **When**: the period is the column's (its lowest period, else its block's title), else
  the nearest **period row** above (a label-only row naming a period: ``2019`` over the
  quarters of that year), else a date the row label ends with (``Balance payable as at
  June 30, 2017``), else the row label itself when it is a period, else none. The part of
  the year is the column's (``First Quarter``, ``Q3 2019``, ``Three months ended …``,
  ``Full Year``), else the row's (a table whose rows are the quarters), else the text
  around the table's — else the whole year (``full``).

An amount inside a worded cell ("Arrangement fee | 2.00% of the facility (£95,000),
deducted on drawdown") is read by the money scan, not as a cell; when the sentence around
it names nothing, its row's label does (:func:`row_label`, in a pipe table's row or a row
under a loader's header line).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from osrag.extract.facts.context import NONE, Context, parts_named
from osrag.extract.facts.labels import clean_label, is_component, is_dependent, total_of
from osrag.extract.facts.periods import split_period
from osrag.extract.money import scan_money
from osrag.extract.scale import parse_caption
from osrag.extract.table_model import (
    Cell,
    ColumnKey,
    Table,
    TableModel,
    header_kind,
    holds_a_figure,
    is_value_cell,
    model_of,
    number_cell,
)
from osrag.lexicon.keys import COLUMN_JOIN, GROUP_JOIN
from osrag.lexicon.label_roles import (
    ALLOCATED,
    CHANGES,
    INCLUDES,
    MODIFIERS,
    OTHER_MEASURES,
    OWN_NAME,
    SALE_UNITS,
    UNIT_COLUMNS,
    UNIT_PRICED,
)
from osrag.lexicon.periods import (
    AT_A_DATE,
    DAY,
    MONTH,
    YEAR4,
    PeriodPart,
    is_period_words,
    period_of,
    period_units_in,
)
from osrag.lexicon.quantities import is_quantity_noun
from osrag.lexicon.scopes import (
    LINE_QUANTITIES,
    NOT_A_PART_ROW,
    PART_KIND_WORDS,
    PARTS,
    PRECEDENCE,
    Scope,
    scope_of,
)
from osrag.lexicon.words import name_words, phrase_words

__all__ = ["CellPlace", "TableReading", "read_table", "row_label"]


@dataclass(frozen=True, slots=True)
class CellPlace:
    """What a cell's amount measures (its label), whose figure it is and when."""

    label: str | None
    period: str | None
    year: int | None
    scope: Scope = "own"
    scope_name: str | None = None
    period_part: PeriodPart = "full"


@dataclass(frozen=True, slots=True)
class _Row:
    """A row's label (what), the scope its words or its group name, its period."""

    label: str | None
    period: tuple[str, int] | None
    scope: Scope = "own"
    scope_name: str | None = None
    period_part: PeriodPart | None = None
    named: str | None = None
    """A row that names only a part (``Americas``): its words, the label when neither the
    total below it nor its column names the quantity."""


_NO_ROW = _Row(None, None)


class TableReading:
    """The labels, scopes and periods of one table's cells, read once for all its amounts."""

    def __init__(
        self,
        table: Table,
        allocated: str | None = None,
        context: Context = NONE,
        model: TableModel | None = None,
    ) -> None:
        self.table = table
        self.model = model if model is not None else model_of(table)
        self.allocated = allocated
        """What the sentence introducing the table says its figures allocate (``Stock-based
        compensation``): the group of rows that have none (:func:`allocated_quantity`)."""
        top_left = table.rows[0][0] if table.rows else ""
        stubs = [table.rows[r][0] for r in range(min(self.model.header_rows, len(table.rows)))]
        if context.scope == "own" and _PARENT.fullmatch(top_left):
            context = Context("parent")  # a "Parent" table beside the group's statements
        named = next(
            (p for t in (*stubs, *self.model.titles()) if (p := parts_named(t)) is not None),
            None,
        )
        if context.parts is None and named is not None:  # a "Segment" stub, "Segment Assets"
            context = Context(
                context.scope, context.scope_name, context.period_part, named.parts,
                context.quantity or named.quantity, context.quarterly,
            )  # fmt: skip
        self.context = context
        """What the text around the table says of its figures (:func:`table_context`)."""
        self.parts = context.parts
        """The kind of part the table's rows or columns are ("Revenue by segment", a
        "Segment" stub)."""
        self.part_rows = self.parts is not None and _periods_across(self.model)
        """The rows are the parts: the value columns are periods (or changes of them);
        else, in a table of parts, its named columns are."""
        self.rows = self._rows()
        self.lines = _line_items(self.model)
        """The rows that are lines of an itemised document, and the cell of each line's
        amount (its last figure)."""

    def place(self, row: int, cell: int) -> CellPlace:
        found = self.rows[row]
        column = self.model.column(row, cell)
        label = found.label
        if label is None and not all(map(_names_a_quantity, column.qualifiers)):
            label = found.named  # "Modules" under "2019 over 2018": the part's change
        if column.qualifiers:
            label = COLUMN_JOIN.join([p for p in (label, *column.qualifiers) if p])
        label = label or found.named
        period = column.period or found.period
        context = self.context
        if context.scope == "tax_effect" and found.scope == "own" and _balance_line(label):
            context = NONE  # "Total deferred tax assets", "Valuation allowance": the balance
        if self.parts is not None and not self.part_rows and column.scope == "own":
            named = column.qualifiers  # "Application Software" over goodwill by segment
            column = _part_column(column, self.parts)
            label = COLUMN_JOIN.join(p for p in (found.label, *column.qualifiers) if p)
            label = label or found.named or COLUMN_JOIN.join(named)  # a row that is a date
        scope, name = _first_scope(
            (found.scope, found.scope_name),
            (column.scope, column.scope_name),
            (context.scope, context.scope_name),
            ("line_item", None) if self.lines.get(row) == cell else ("own", None),
        )
        label = self._per_sale_unit(row, cell, label)
        part = column.period_part or found.period_part or context.period_part
        if part is None and context.quarterly and _dated_column(column):
            part = "part"  # "Quarterly results" over "March 31 | June 30 | …"
        written, year = period if period else (None, None)
        return CellPlace(label or None, written, year, scope, name, part or "full")

    def _per_sale_unit(self, row: int, cell: int, label: str | None) -> str | None:
        """A unit price with the unit its row's item is sold in (a unit column's ``CS``,
        ``box``: :data:`~osrag.lexicon.label_roles.SALE_UNITS`): "Unit price per case"; a
        rate beside the hours its row counts (a column headed ``Hours``, ``Hrs``, a number
        in it: "Regular | 38.00 | $17.25") is a rate per hour, "Rate per hour"."""
        words = phrase_words(label) if label else []
        if not words or words[-1] not in UNIT_PRICED:
            return label
        for i, other in enumerate(self.table.rows[row][1]):
            named = {" ".join(phrase_words(t)) for t in self.model.header_texts(row, i)}
            unit = SALE_UNITS.get(other.text.strip().casefold().rstrip("."))
            if i != cell and unit is not None and named & UNIT_COLUMNS:
                return f"{label} per {unit}"
            if i != cell and named & _HOURS and number_cell(other.text.strip()):
                return f"{label} per hour"
        return label

    def _rows(self) -> list[_Row]:
        """Each row's label (with its group where it needs one), its scope and the period it
        states or sits under."""
        out: list[_Row] = []
        rows = self.table.rows
        top_left = rows[0][0] if self.model.header_rows and rows else ""
        dated = _dated_rows_of(clean_label(top_left or _loader_stub(self.model)))
        names = (
            header_kind(top_left) == "qualifier"
            and not _PARENT.fullmatch(top_left)
            and parts_named(top_left) is None
        )
        group = clean_label(top_left) if names else self.allocated
        period_row = self.model.blocks[0].title
        parts_open = self.part_rows  # rows of parts, up to the first total or group
        part_group: _Row | None = None  # a group row that is a part: "Transportation Solutions:"
        for r, (raw, cells) in enumerate(rows):
            label_only = self.model.group_row(r)
            raw = raw or label_only or ""
            own_period = period_of(raw.strip().rstrip(":").rstrip()) if raw else None
            if label_only is not None and raw.strip():
                if own_period is not None:
                    period_row = own_period
                elif parse_caption(raw) is None and not is_period_words(raw):
                    group = clean_label(raw)  # "Year Ended May 31," names no group
                    part_group, parts_open = self._part_group(group, parts_open)
                out.append(_NO_ROW)
                continue
            if own_period is not None:
                # a row that is only a date, under a stub header naming a quantity, is that
                # quantity at the date ("Instalment | Amount" over "1 April 2026 | £161.08")
                out.append(_Row(dated, own_period))
                continue
            if not raw and len(cells) == 1 and period_of(cells[0].text.strip()) is not None:
                period_row = period_of(cells[0].text.strip())  # a loader's "2019" line
                out.append(_NO_ROW)
                continue
            if r >= self.model.header_rows:
                raw = _numbered_row(raw, cells)
            label = clean_label(raw) if raw else None
            if label and self.context.offers and r >= self.model.header_rows:
                label = _offer(label, self.context.offers)
            period = _dated(raw) or period_row
            part = self._part_row(label) if parts_open and r >= self.model.header_rows else None
            out.append(part if part is not None else _row(label, group, period))
            if part is not None:
                out[-1] = _Row(None, period, part.scope, part.scope_name, None, label)
            elif part_group is not None and label:
                out[-1], part_group = _in_part_group(out[-1], label, part_group)
            elif label and _TOTAL_WORDS.match(label) and r >= self.model.header_rows:
                parts_open = False  # below a total: reconciling lines, not parts
            if group is None and label and (named := total_of(label)) is not None:
                _name_the_run(out, named)  # "Total deferred tax assets" below its parts
            if label and (quantity := _total_of_parts(label)) is not None:
                _name_the_parts(out, quantity)  # "Americas … Total revenue"
        if self.context.quantity is not None:
            out = [
                _Row(self.context.quantity, r.period, r.scope, r.scope_name, r.period_part)
                if r.named is not None and r.label is None
                else r
                for r in out
            ]
        return out

    def _part_group(self, group: str | None, parts_open: bool) -> tuple[_Row | None, bool]:
        """A group row of a table of parts: one naming the parts ("Assets allocated to
        segments:") opens rows of parts; one that is a part ("Transportation Solutions:")
        is the part of the rows under it (their lines) and of the total closing it; any
        other ("Assets not allocated:") closes them."""
        if self.parts is None or not self.part_rows or not group:
            return None, False
        if self.parts in {PART_KIND_WORDS.get(w) for w in phrase_words(group)}:
            return None, True
        part = self._part_row(group)
        return (_Row(group, None, part.scope, part.scope_name), False) if part else (None, False)

    def _part_row(self, label: str | None) -> _Row | None:
        """A row of a table of parts that names one: a region when a geography, else a part
        of the table's kind — not a total, a catch-all, a reconciling line or a row naming
        a quantity (``Net sales`` at the foot of the parts)."""
        what, scope, name, _ = scope_of(label or "")
        if scope in PARTS and not what:
            return _Row(None, None, scope, name)
        return _part_of_kind(label, self.parts) if scope == "own" else None


def _dated_rows_of(stub: str | None) -> str | None:
    """The stub header ``stub`` when it names what each dated row's figure is: a phrase of
    a few words ending in a quantity noun ("Instalment", "Payment"), never a period or a
    date's name ("Date", "Due date"); else None."""
    words = stub.split() if stub else []
    if 0 < len(words) <= 3 and words[-1].isalpha() and is_quantity_noun(words[-1]):
        return stub
    return None


def _loader_stub(model: TableModel) -> str:
    """The stub header of a table a loader wrote as lines ("Instalment | Amount" over
    "1 April 2026 — Amount: £161.08"): the first cell of a header line that has one cell
    more than the row under it; "" when there is none."""
    rows = model.table.rows
    if not model.header_rows or len(rows) < 2 or rows[0][0]:
        return ""
    header = rows[0][1]
    return header[0].text if header and len(header) == len(rows[1][1]) + 1 else ""


def _offer(label: str, offers: str) -> str:
    """A row of a table of offers named as the offer it is: "Gold" under "Sponsorship
    packages" is the "Gold sponsorship package" (a total or a long line stays as written)."""
    words = label.split()
    if len(words) > 3 or _TOTAL_WORDS.match(label) or any(ch.isdigit() for ch in label):
        return label
    return f"{label} {offers.lower()}"


def _row(label: str | None, group: str | None, period: tuple[str, int] | None) -> _Row:
    """A row's reading: its label split into what and whose, joined with its group when
    it needs one (a dependent row, a balance's component, a part of the group)."""
    if not label:
        return _Row(None, period)
    if group and is_component(label, group):  # "Deferred tax assets: Foreign losses"
        return _Row(f"{group}{GROUP_JOIN}{label}", period, _component_scope(group))
    what, scope, name, part = _split(label)
    if group and (is_dependent(label) or (not what and scope in PARTS)):
        group_what, group_scope, group_name, group_part = _split(group)
        if scope == "own":
            scope, name = group_scope, group_name
        joined = GROUP_JOIN.join([p for p in (group_what, what) if p]) or None
        named = None if joined else label  # "United States" under "Americas:"
        return _Row(joined, period, scope, name, part or group_part, named)
    named = label if not what and scope in PARTS else None  # "Americas": the part's name
    return _Row(what or None, period, scope, name, part, named)


_ROW_NUMBER = re.compile(r"(?i)\s*(?:no\.?\s*|#\s*)?\(?(?:\d{1,3}|[a-z]|[ivx]{1,5})[.):]?\s*")
"""A first cell that only numbers its row (``1``, ``2.``, ``(a)``, ``iv``, ``No. 3``)."""


def _numbered_row(raw: str, cells: list[Cell]) -> str:
    """A row's label: its first cell, unless that only numbers the row ("1 | Emergency
    medical expenses | £10,000,000", "2 | Consulting services | 10 | $1,500") or holds no
    word at all — empty, a date ("02/14/2024 | Office visit | $180.00", " | Total charges |
    $2,480.00") — then the words of the cell after it, the row's name (a cell holding a
    figure names nothing)."""
    if not cells or (_ROW_NUMBER.fullmatch(raw) is None and _ANY_LETTER.search(raw) is not None):
        return raw
    named = cells[0].text.strip()
    if holds_a_figure(named) or re.search(r"[a-z]{3}", named) is None:  # a code: no name
        return raw
    return named


_ANY_LETTER = re.compile(r"[^\W\d_]")
"""A letter: a first cell without one names nothing."""
_TOTAL_WORDS = re.compile(r"(?i)^\s*(?:total|consolidated)\s+(?P<name>\S.*)$")


def _total_of_parts(label: str) -> str | None:
    """The quantity a total row names (``Total revenue`` → ``revenue``), or None."""
    found = _TOTAL_WORDS.match(label)
    if found is None:
        return None
    name = found.group("name").strip()
    what = _split(name)[0]  # "Total Americas revenue": the Americas' revenue
    if not what or is_dependent(what) or parts_named(what) is not None:
        return None  # "Total segments" names the parts, not their quantity
    return what


def _name_the_parts(out: list[_Row], quantity: str) -> None:
    """The rows above a total that name only a part (``Americas``, ``EMEA`` … ``Total
    revenue``), back to the last label-only row: that part's figure of the total's
    quantity."""
    for i in range(len(out) - 2, -1, -1):
        row = out[i]
        if row.named is None:
            if row.label is None and row.period is None:
                break
            continue
        out[i] = _Row(quantity, row.period, row.scope, row.scope_name, row.period_part)


def _split(label: str) -> tuple[str, Scope, str | None, PeriodPart | None]:
    """A label's what, scope, part name and part of the year; the label as written when its
    words name no scope and no part (:func:`~osrag.lexicon.scopes.scope_of`)."""
    what, scope, name, part = scope_of(label)
    if scope == "own" and (part is None or what.count("(") != what.count(")")):
        # a part of the year read inside a bracket glosses the name, no part the figure
        # covers ("10-visit pass (valid 3 months)": the pass's validity)
        return label, scope, name, None
    return what, scope, name, part


def _component_scope(group: str) -> Scope:
    """The scope a balance's component takes: the share of an allocated charge (a group of
    stock-based compensation, depreciation, or rows included in the lines above) or the tax
    effect of an item (a deferred tax balance)."""
    words = phrase_words(group)
    if (words[:1] and words[0] in INCLUDES) or ALLOCATED & set(words):
        return "allocated"
    return "tax_effect"


def _part_of_kind(label: str | None, kind: Scope | None) -> _Row | None:
    """A part of ``kind`` named by ``label`` — not a total, a catch-all, a reconciling line
    (:data:`~osrag.lexicon.scopes.NOT_A_PART_ROW`) or a name of a quantity."""
    words = phrase_words(label or "")
    if kind is None or not words or set(words) & NOT_A_PART_ROW or is_dependent(label or ""):
        return None
    if any(map(is_quantity_noun, words)):
        return None  # "Net sales", "Assets not allocated": a quantity, not a part
    return _Row(None, None, kind, " ".join(name_words(label or "")))


def _part_column(column: ColumnKey, kind: Scope) -> ColumnKey:
    """A column of a table of parts named by one (``Application Software`` in goodwill by
    segment): the part is its scope, not a qualifier of the label."""
    if len(column.qualifiers) != 1 or not _may_name_a_part(column.qualifiers[0]):
        return column
    found = _part_of_kind(column.qualifiers[0], kind)
    if found is None:
        return column
    return ColumnKey((), column.period, column.period_part, kind, found.scope_name, column.units)


def _may_name_a_part(qualifier: str) -> bool:
    """A column header that may name a part: words, none of a change or another measure
    of the row, no quantity ("2019 over 2018", "$ Change", "Fair value", "Net Sales" name
    none)."""
    words = phrase_words(qualifier)
    return (
        not any(ch.isdigit() for ch in qualifier)
        and not set(words) & (CHANGES | MODIFIERS | OTHER_MEASURES)
        and bool(set(words) - NOT_A_PART_ROW)
        and not is_quantity_noun(words[-1])
    )


def _names_a_quantity(qualifier: str) -> bool:
    """A column header naming the quantity its figures are ("Net Sales", "Fiscal 2019
    Net Sales" read as "Net Sales"), no change of it."""
    words = phrase_words(qualifier)
    return (
        bool(words) and not set(words) & (CHANGES | OTHER_MEASURES) and is_quantity_noun(words[-1])
    )


def _periods_across(model: TableModel) -> bool:
    """A table whose value columns are periods (or changes of them, or name the quantity:
    no column is named by words that may name a part): its rows are what a table of parts
    lists."""
    rows = model.table.rows
    return not any(
        _may_name_a_part(q)
        for r, i in model.value_cells()
        if number_cell(rows[r][1][i].text.strip())  # a figure, not a percentage or a dash
        for q in model.column(r, i).qualifiers
    )


def _in_part_group(row: _Row, label: str, group: _Row) -> tuple[_Row, _Row | None]:
    """A row under a group that is a part: the total closing the group ("Total
    Transportation Solutions") is the part's figure; a line inside it ("Automotive") is a
    part of the part (a product line, an end market)."""
    words = phrase_words(label)
    if words[:1] == ["total"] and words[1:] == phrase_words(group.label or ""):
        quantity = row.label if row.label and phrase_words(row.label) != words else None
        return _Row(
            quantity, row.period, group.scope, group.scope_name, row.period_part, label
        ), None
    if row.scope != "own" or not row.label:
        return row, group
    line = " ".join(name_words(label))
    return _Row(row.label, row.period, "product", line, row.period_part), group


def _balance_line(label: str | None) -> bool:
    """A row of a deferred tax table that is the balance, not an item's tax effect: a
    total, a net, a valuation allowance, a line naming deferred tax itself."""
    words = set(phrase_words(label or ""))
    return bool(words & (OWN_NAME | {"net"})) or {"deferred", "tax"} <= words


_MONTH_DAY = re.compile(rf"(?i)\b{MONTH}\s*{DAY}\b|\b{DAY}\s+{MONTH}")


def _dated_column(column: ColumnKey) -> bool:
    """A column headed by a date (``March 31, 2019``, ``30 June 2019``), not a year."""
    return column.period is not None and _MONTH_DAY.search(column.period[0]) is not None


_HOURS = frozenset({"hour", "hr"})
"""A column header counting the hours of a row (its words, singular): ``Hours``, ``Hrs``."""


def _line_items(model: TableModel) -> dict[int, int]:
    """The lines of an itemised document's table (a column headed ``Qty``, ``Hours``,
    ``Units`` …: :data:`~osrag.lexicon.scopes.LINE_QUANTITIES`): each row with a figure in
    that column, and the cell of its last figure outside a year-to-date column — the line's
    amount, which the document's total sums (its unit price or rate is no part of the total:
    the document's own; a pay statement's running total beside it is the year's, not the
    line's)."""
    lines: dict[int, int] = {}
    rows = model.table.rows
    quantity_stub = " ".join(phrase_words(rows[0][0])) in LINE_QUANTITIES if rows else False
    for r in range(model.header_rows, len(rows)):
        label, cells = rows[r]
        counted = quantity_stub and is_value_cell(label)
        for i, c in enumerate(cells):
            if counted:
                break
            named = any(map(_counts_a_line, model.header_texts(r, i)))
            counted = named and is_value_cell(c.text)
        if not counted:
            continue  # no line: its figures' columns are not read here
        figures = [
            i
            for i, c in enumerate(cells)
            if holds_a_figure(c.text) and model.column(r, i).period_part != "ytd"
        ]
        if figures:
            lines[r] = figures[-1]
    return lines


@functools.lru_cache(maxsize=1 << 12)
def _counts_a_line(header: str) -> bool:
    """A header text whose words are one of
    :data:`~osrag.lexicon.scopes.LINE_QUANTITIES` (kept: a header is read for every row
    under it)."""
    return " ".join(phrase_words(header)) in LINE_QUANTITIES


def _first_scope(*found: tuple[Scope, str | None]) -> tuple[Scope, str | None]:
    """Of the scopes a cell's row, column and context name, the first by
    :data:`~osrag.lexicon.scopes.PRECEDENCE`."""
    named = [f for f in found if f[0] != "own"]
    if not named:
        return "own", None
    return min(named, key=lambda f: PRECEDENCE.index(f[0]) if f[0] in PRECEDENCE else 99)


def _name_the_run(out: list[_Row], balance: str) -> None:
    """The rows above a total of a balance that no group row named (``Stock-based
    compensation`` … ``Total deferred tax assets``), back to the last label-only row or
    total: the parts of that balance (:func:`~osrag.extract.facts.labels.is_component`)."""
    for i in range(len(out) - 2, -1, -1):
        row = out[i]
        label = row.label
        if label is None or GROUP_JOIN in label or total_of(label) is not None:
            break
        if is_component(label, balance):
            out[i] = _Row(
                f"{balance}{GROUP_JOIN}{label}",
                row.period,
                _component_scope(balance),
                None,
                row.period_part,
            )


_ENDS_WITH_YEAR = re.compile(rf"{YEAR4}[\s:]*$")
_STATED_AT = re.compile(rf"(?i)\b{AT_A_DATE}\s*,?\s*$")


def _dated(label: str) -> tuple[str, int] | None:
    """The date a row label ends with when the row is stated at it ("Balance payable as
    at June 30, 2017", "Outstanding at December 31, 2019"): the row's period."""
    if not label or _ENDS_WITH_YEAR.search(label) is None:
        return None
    found, _ = split_period(label)
    if found is None:
        return None
    stripped = label.rstrip(" :")
    if not stripped.endswith(found[0]):
        return None
    return found if _STATED_AT.search(stripped[: -len(found[0])]) else None


_PARENT = re.compile(r"(?i)\s*parent(?:\s+(?:entity|company))?(?:\s+only)?\s*")
"""A top-left header cell saying the table is the parent entity's alone (``Parent``)."""


def read_table(
    table: Table,
    allocated: str | None = None,
    context: Context = NONE,
    model: TableModel | None = None,
) -> TableReading:
    """The reading of ``table`` (see the module docstring); ``allocated``: what the
    sentence introducing it says it allocates (:func:`~osrag.extract.facts.context.
    allocated_quantity`); ``context``: what the text around it says of its figures
    (:func:`~osrag.extract.facts.context.table_context`); ``model``: its model, when
    already read."""
    return TableReading(table, allocated, context, model)


_WORDED_LABEL = re.compile(r"[^\W\d_]")
_PIPE_SPLIT = re.compile(r"(?<!\\)\|")


def row_label(text: str, start: int) -> str | None:
    """The row label of the table row an amount inside a worded cell stands in
    ("Arrangement fee | 2.00% of the facility (£95,000), deducted on drawdown", or the
    loaders' "Arrangement fee — Terms: 2.00% of the facility (£95,000)…"): what the
    amount is, when the sentence around it names nothing. None outside a table's row, in
    its first cell or header line, when the label holds figures itself, or when the cell
    states several amounts (a list of thresholds: the label names none of them). An amount
    in the row's label cell that a unit follows is the rate of the label's item ("Tuition –
    undergraduate, 15 credit hours at $390.00 per credit hour" → "Tuition – undergraduate":
    :func:`_rate_in_label`)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    at = start - line_start
    if line.lstrip().startswith("|"):
        cells = _PIPE_SPLIT.split(line)
        if len(cells) < 4 or len(cells[0].strip()):
            return None  # not a row of two cells or more
        if at <= len(cells[0]) + len(cells[1]) + 1:
            return _rate_in_label(cells[1], at - len(cells[0]) - 1)
        label = cells[1].strip()
        cell_end = line.find("|", at)
        cell = line[line.rfind("|", 0, at) + 1 : len(line) if cell_end < 0 else cell_end]
    else:
        cut = line.find(" — ")
        if cut <= 0 or loader_header(text, line_start) is None:
            return None
        if at <= cut:
            return _rate_in_label(line[:cut], at)
        label = line[:cut].strip()
        cell_start = max(line.rfind("; ", 0, at), line.rfind(": ", 0, at))
        cell_end = line.find("; ", at)
        cell = line[cell_start + 1 : len(line) if cell_end < 0 else cell_end]
    if len(scan_money(cell).mentions) != 1:
        return None  # a list of figures ("$1M, $5M, $10M"): the label names none of them
    if not _WORDED_LABEL.search(label) or any(ch.isdigit() for ch in label):
        return None
    return clean_label(label)


def loader_header(text: str, line_start: int) -> list[str] | None:
    """The header cells of the loader table whose row starts at ``line_start`` (the first
    line of its block holds ``" | "`` and no ``" — "``), or None when it is in none."""
    block_start = text.rfind("\n\n", 0, line_start)
    first_start = 0 if block_start < 0 else block_start + 2
    first_end = text.find("\n", first_start)
    first = text[first_start : line_start if first_end < 0 else first_end]
    if not (first_start < line_start and " | " in first and " — " not in first):
        return None
    return [cell.strip() for cell in first.split(" | ")]


_SPACED_DASH = re.compile(r"\s+[-–—]\s+")
_PRICED_ITEM_END = re.compile(r",|\(|\s(?:at|@|for)\s|\d|[$€£¥₹]")


def _rate_in_label(label: str, at: int) -> str | None:
    """The item a row's label cell prices at the one amount at ``label[at:]`` that a unit
    follows ("Tuition – undergraduate, 15 credit hours at $390.00 per credit hour"): the
    label's words before its first comma, parenthesis, figure or "at", a spaced dash read
    as the join of a qualifier ("Tuition — undergraduate"); None when no unit follows the
    amount or no words stand before."""
    mentions = scan_money(label).mentions
    if len(mentions) != 1 or not (mentions[0].start <= at < mentions[0].end + 1):
        return None
    after = label[mentions[0].end :]
    units = period_units_in(after, 0, min(len(after), 40))
    if not units or after[: units[0][1]].strip():
        return None
    end = _PRICED_ITEM_END.search(label)
    item = label[: end.start() if end else mentions[0].start].strip(" -–—:")
    item = _SPACED_DASH.sub(COLUMN_JOIN, item)  # "Tuition – undergraduate": a qualifier
    return clean_label(item) if _WORDED_LABEL.search(item) else None
