"""What a table cell's amount measures, whose figure it is and when: its label, scope and
period, read from the table around it.

The table is read once by the table model (:mod:`osrag.extract.table_model`: its header
rows, spans, titles, repeated header blocks, group rows and value cells, and each
column's key — its period, part of the year, part of the company and the qualifiers of the
measure). For the amount in row *r*, column *c*:

* **What** (the label) is the row label, joined with the column's qualifiers by `` — ``
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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from osrag.extract.facts.labels import clean_label, is_component, is_dependent, total_of
from osrag.extract.facts.periods import split_period
from osrag.extract.scale import parse_caption
from osrag.extract.table_model import Table, TableModel, header_kind, model_of
from osrag.lexicon.keys import COLUMN_JOIN, GROUP_JOIN
from osrag.lexicon.label_roles import ALLOCATED, ALLOCATED_CHARGE, INCLUDES
from osrag.lexicon.periods import AT_A_DATE, YEAR4, PeriodPart, is_period_words, period_of
from osrag.lexicon.scopes import PARTS, PRECEDENCE, Scope, scope_of
from osrag.lexicon.words import phrase_words

__all__ = ["CellPlace", "TableReading", "allocated_quantity", "read_table", "table_scope"]


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
        scope: str | None = None,
        model: TableModel | None = None,
    ) -> None:
        self.table = table
        self.model = model if model is not None else model_of(table)
        self.allocated = allocated
        """What the sentence introducing the table says its figures allocate (``Stock-based
        compensation``): the group of rows that have none (:func:`allocated_quantity`)."""
        if scope is None and table.rows and _PARENT.fullmatch(table.rows[0][0]):
            scope = "Parent entity"  # a "Parent" table beside the group's statements
        self.context = _reading_of(scope)
        """Whose figures the text around the table says they are (:func:`table_scope`)."""
        self.rows = self._rows()

    def place(self, row: int, cell: int) -> CellPlace:
        found = self.rows[row]
        column = self.model.column(row, cell)
        label = found.label
        if column.qualifiers:
            label = COLUMN_JOIN.join([p for p in (label, *column.qualifiers) if p])
        label = label or found.named
        period = column.period or found.period
        scope, name = _first_scope(
            (found.scope, found.scope_name),
            (column.scope, column.scope_name),
            (self.context.scope, self.context.scope_name),
        )
        part = column.period_part or found.period_part or self.context.period_part or "full"
        written, year = period if period else (None, None)
        return CellPlace(label or None, written, year, scope, name, part)

    def _rows(self) -> list[_Row]:
        """Each row's label (with its group where it needs one), its scope and the period it
        states or sits under."""
        out: list[_Row] = []
        rows = self.table.rows
        top_left = rows[0][0] if self.model.header_rows and rows else ""
        names = header_kind(top_left) == "qualifier" and not _PARENT.fullmatch(top_left)
        group = clean_label(top_left) if names else self.allocated
        period_row = self.model.blocks[0].title
        for r, (raw, cells) in enumerate(rows):
            label_only = self.model.group_row(r)
            raw = raw or label_only or ""
            own_period = period_of(raw.strip().rstrip(":").rstrip()) if raw else None
            if label_only is not None and raw.strip():
                if own_period is not None:
                    period_row = own_period
                elif parse_caption(raw) is None and not is_period_words(raw):
                    group = clean_label(raw)  # "Year Ended May 31," names no group
                out.append(_NO_ROW)
                continue
            if own_period is not None:
                out.append(_Row(None, own_period))
                continue
            if not raw and len(cells) == 1 and period_of(cells[0].text.strip()) is not None:
                period_row = period_of(cells[0].text.strip())  # a loader's "2019" line
                out.append(_NO_ROW)
                continue
            label = clean_label(raw) if raw else None
            out.append(_row(label, group, _dated(raw) or period_row))
            if group is None and label and (named := total_of(label)) is not None:
                _name_the_run(out, named)  # "Total deferred tax assets" below its parts
            if label and (quantity := _total_of_parts(label)) is not None:
                _name_the_parts(out, quantity)  # "Americas … Total revenue"
        return out


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
    return _Row(what or None, period, scope, name, part, None if what else label)


_TOTAL_WORDS = re.compile(r"(?i)^\s*(?:total|consolidated)\s+(?P<name>\S.*)$")


def _total_of_parts(label: str) -> str | None:
    """The quantity a total row names (``Total revenue`` → ``revenue``), or None."""
    found = _TOTAL_WORDS.match(label)
    if found is None:
        return None
    name = found.group("name").strip()
    what = _split(name)[0]  # "Total Americas revenue": the Americas' revenue
    return None if not what or is_dependent(what) else what


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
    if scope == "own" and part is None:
        return label, scope, name, part
    return what, scope, name, part


def _component_scope(group: str) -> Scope:
    """The scope a balance's component takes: the share of an allocated charge (a group of
    stock-based compensation, depreciation, or rows included in the lines above) or the tax
    effect of an item (a deferred tax balance)."""
    words = phrase_words(group)
    if (words[:1] and words[0] in INCLUDES) or ALLOCATED & set(words):
        return "allocated"
    return "tax_effect"


def _reading_of(context: str | None) -> _Row:
    """The scope and part of the year the text around a table names."""
    if not context:
        return _NO_ROW
    _, scope, name, part = scope_of(context)
    return _Row(None, None, scope, name, part)


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


_INTRODUCES = re.compile(r"(?i)(?:as\s+follows|the\s+following|by\s+line\s+item|:)\s*[.:]?\s*$")
_LAST_SENTENCE = re.compile(r"(?s)(?:^|[.!?]\s)([^.!?]*)$")


def allocated_quantity(text: str, table_start: int) -> str | None:
    """The quantity the sentence right before a table says the table spreads over lines:
    ``The Company recognized … of stock-based compensation expense … as follows:`` →
    ``Stock-based compensation expense`` — stock-based compensation, depreciation and
    amortization are charged to cost of revenue, research and development … and a table
    of them is that charge, not those lines. Only a sentence that ends by introducing the
    table (``as follows``, ``the following``, a colon) and names one of them counts."""
    before = text[max(0, table_start - 600) : table_start].rstrip()
    paragraph = before.rsplit("\n\n", 1)[-1].strip()
    if not paragraph or "|" in paragraph or _INTRODUCES.search(paragraph) is None:
        return None
    sentence = _LAST_SENTENCE.search(paragraph)
    found = ALLOCATED_CHARGE.search(sentence.group(1) if sentence else paragraph)
    if found is None:
        return None
    name = " ".join(found.group(0).split())
    return name[:1].upper() + name[1:]


_DESCRIBES = re.compile(
    r"(?i)\b(?:the\s+following\s+(?:table|schedule|summary)|the\s+table\s+below|"
    r"(?:is|are)\s+(?:as\s+follows|set\s+out\s+below|presented\s+below))"
)
_SENTENCES = re.compile(r"[^.!?]+(?:[.!?](?=\s|$)|$)")
_SCOPES = (
    (
        "Discontinued operations",
        re.compile(r"(?i)\bdiscontinued\b|\bheld\s+for\s+sale\b|\bdisposal\s+group"),
    ),
    (
        "Acquired business",
        re.compile(
            r"(?i)\bpurchase\s+price\b|\b(?:assets|net\s+assets)\s+acquired\b|"
            r"\bliabilities\s+assumed\b|\bconsideration\s+transferred\b|"
            r"\bacquired\s+(?:business|compan|entit|subsidiar)"
        ),
    ),
    ("Pro forma", re.compile(r"(?i)\bpro\s+forma\b")),
    (
        "Parent entity",
        re.compile(r"(?i)\bparent\s+(?:entity|company)\b|\bregistrant\b(?=.*\bparent\b)"),
    ),
)
_PARENT = re.compile(r"(?i)\s*parent(?:\s+(?:entity|company))?(?:\s+only)?\s*")
"""A top-left header cell saying the table is the parent entity's alone (``Parent``)."""
_BESIDE = re.compile(
    r"(?i)\b(?:exclud\w*|includ\w*|except|other\s+than|without|net\s+of|less|before|"
    r"from\s+continuing)\W+(?:\w+\W+){0,2}$"
)


_HEADING_REACH = 1500
"""How far above a table (characters) its section heading is looked for."""
_FIGURE = re.compile(r"\d|[$€£¥₹]")


def _names_a_part(line: str) -> bool:
    """A heading that names one part of the company and nothing else: one segment
    (``Consumer Cyber Safety segment``), one region (``North America``, ``Asia Pacific
    region``) or one product line (:func:`~osrag.lexicon.scopes.read_scope`)."""
    what, scope, name, _ = scope_of(line)
    return scope in PARTS and name is not None and not what


def _segment_heading(before: str) -> str | None:
    """The heading of the section a table stands in when it names one segment or region
    (:func:`_names_a_part`): the nearest short line above the table, within
    :data:`_HEADING_REACH` characters, that is not a sentence."""
    for paragraph in reversed(before[-_HEADING_REACH:].split("\n\n")):
        line = paragraph.strip().lstrip("#").strip()
        if not line or "\n" in line or "|" in line:
            continue
        if len(line.split()) > 8 or line.endswith((".", ";", ",")) or _FIGURE.search(line):
            continue
        return line if _names_a_part(line) else None
    return None


def table_scope(text: str, table_start: int) -> str | None:
    """Whose figures a table holds when the sentence describing it says they are not the
    company's own: ``The following table summarizes the major line items of these
    discontinued solutions …`` → ``Discontinued operations`` (also assets held for sale);
    ``… the allocation of the purchase price among the assets acquired and liabilities
    assumed`` → ``Acquired business``; ``… pro forma …`` → ``Pro forma``; ``… of the
    parent company …`` → ``Parent entity`` (a table headed ``Parent`` is too). The describing
    sentence is the one that introduces the table at the end of the paragraph right
    before it, else the paragraph's sentence saying "the following table" or "the table
    below". A mention that sets them aside ("excluding discontinued operations",
    "including …") names no scope. A table in a section headed by one segment's or one
    region's name (``Consumer Cyber Safety segment``, ``North America``) holds that
    part's figures: the heading is the scope."""
    before = text[max(0, table_start - _HEADING_REACH) : table_start].rstrip()
    paragraph = before.rsplit("\n\n", 1)[-1].strip()
    if not paragraph or "|" in paragraph:
        return None
    segment = _segment_heading(before)
    if segment is not None:
        return segment
    sentences = [m.group(0).strip() for m in _SENTENCES.finditer(paragraph)]
    if _INTRODUCES.search(paragraph) is not None and sentences:
        describing = sentences[-1]
    else:
        describing = next((s for s in sentences if _DESCRIBES.search(s)), "")
    for name, pattern in _SCOPES:
        for found in pattern.finditer(describing):
            if _BESIDE.search(describing[: found.start()]) is None:
                return name
    return None


def read_table(
    table: Table,
    allocated: str | None = None,
    scope: str | None = None,
    model: TableModel | None = None,
) -> TableReading:
    """The reading of ``table`` (see the module docstring); ``allocated``: what the
    sentence introducing it says it allocates (:func:`allocated_quantity`); ``scope``:
    whose figures it says they are (:func:`table_scope`); ``model``: its model, when
    already read."""
    return TableReading(table, allocated, scope, model)
