"""What a table cell's amount measures: its label and period, read from the table around it.

The rule, for the amount in row *r*, column *c* (:class:`~osrag.extract.tables.Table`):

* **Header rows** are the rows above the first row that holds a value (a number that is
  not a year, a percentage, a dash): the header line of a loader's table, the rows of a
  Markdown table above its first figures. Each header cell of column *c* is one of:
  a **period** (:func:`~osrag.lexicon.periods.period_of`: ``2019``, ``Fiscal
  2019``, ``December 31, 2019``, ``2019 (1)``, ``2019 €m``); **period words** without a
  year (``Years Ended December 31,``, ``Fiscal``, ``As of``) — neither period nor
  label; a **unit** (``£m``, ``$'000``, ``(in millions)``, ``%``, ``$``) — it scales the
  figures, it names nothing; or a **qualifier** — any other words (``Americas``, ``Net
  Sales``, ``Acquisitions``, ``Carrying amount``, ``2019 vs 2018``), cleaned
  (:func:`~osrag.extract.facts.labels.clean_label`); ``Amount``/``Amounts``/``Value``
  alone qualify nothing.
* A merged header cell is written once and its neighbours left empty: in a header row
  that holds two or more different qualifiers or periods, an empty cell takes the
  nearest one to its left (``Domestic | | International |`` over four columns). A row
  that holds a single header over several value columns is a title
  (``| | Combined Pension Plan | |``): it qualifies no column, and when it is a period
  (``December 31, 2019`` over ``Carrying amount | Fair value``) it is the period of every
  column that has none of its own. A table with one value column has no title: its one
  header is that column's.
* The **period** is the lowest period above the cell in its column, else the title's,
  else the nearest **period row** above (a label-only row naming a period: ``2019`` over
  the quarters of that year), else the row label itself when it is a period (a table
  whose rows are years), else none. A header that names a part of a year (``First
  Quarter``, ``Q3 2019``, ``Three months ended …``, ``26 weeks``:
  :func:`~osrag.lexicon.periods.part_of_year`) also qualifies its column: a
  quarter's revenue is not the year's.
* The **label** is the row label, joined with the column's qualifiers by `` — ``
  (``Operating income — Americas``). A label-only row that is not a period is a **group**
  (``Weighted-average shares:``); it joins the label — ``Group: Row`` — only when the row
  label names no quantity without it (:func:`~osrag.extract.facts.labels.is_dependent`:
  ``Total``, ``Basic``, ``Federal``, ``Granted``…) or when the group names a deferred
  tax balance the row is a tax effect in (:func:`~osrag.extract.facts.labels.is_component`:
  ``Deferred tax assets: Stock-based compensation``; with no group row, a total below
  that names the balance — ``Total deferred tax assets`` — names the rows above it the
  same way); a row label that names its own quantity (``Cost of
  sales`` under ``Operating expenses:``, ``Valuation allowance`` under ``Deferred tax
  assets:``) stands alone. A row whose
  label is a period, or empty, is labelled by the qualifiers alone — none: no label.
* The **scope**: when the text around the table says whose figures it holds — the
  sentence describing it names discontinued operations, an acquired business, pro forma
  figures or the parent company, or the section's heading names one segment or region
  (:func:`table_scope`) — that is the last qualifier of every cell (``Total revenue —
  Discontinued operations``, ``Net revenues — Consumer Cyber Safety segment``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from osrag.extract.facts.labels import clean_label, is_component, is_dependent, total_of
from osrag.extract.facts.periods import split_period
from osrag.extract.scale import parse_caption
from osrag.extract.tables import Cell, Table, is_value_cell
from osrag.lexicon.bounds import LABEL_CHARS
from osrag.lexicon.keys import COLUMN_JOIN, GROUP_JOIN, qualifies_nothing
from osrag.lexicon.label_roles import ALLOCATED_CHARGE, REGION_HEADING_WORDS, REGION_WORDS
from osrag.lexicon.periods import (
    AT_A_DATE,
    QUARTER_ORDINALS,
    YEAR4,
    is_period_words,
    part_of_year,
    period_of,
)
from osrag.lexicon.words import phrase_words

__all__ = ["CellPlace", "TableReading", "allocated_quantity", "read_table", "table_scope"]

_NAMING = frozenset(["qualifier", "period", "period and qualifier"])
"""Header cells that tell one column from another."""


@dataclass(frozen=True, slots=True)
class CellPlace:
    """What a cell's amount measures: its label and period (with the year it names)."""

    label: str | None
    period: str | None
    year: int | None


@dataclass(frozen=True, slots=True)
class _Header:
    qualifiers: tuple[str, ...]
    period: tuple[str, int] | None


_NO_HEADER = _Header((), None)


class TableReading:
    """The labels and periods of one table's cells, read once for all its amounts."""

    def __init__(
        self, table: Table, allocated: str | None = None, scope: str | None = None
    ) -> None:
        self.table = table
        self.allocated = allocated
        """What the sentence introducing the table says its figures allocate (``Stock-based
        compensation``): the group of rows that have none (:func:`allocated_quantity`)."""
        self.scope = scope
        """Whose figures the sentence describing the table says they are when not the
        company's (``Discontinued operations``, :func:`table_scope`): every cell's
        qualifier."""
        self.header_rows = _header_rows(table)
        if scope is None and table.rows and _PARENT.fullmatch(table.rows[0][0]):
            self.scope = "Parent entity"  # a "Parent" table beside the group's statements
        self.loader = bool(table.rows) and not table.rows[0][0] and _is_loader(table)
        self.headers, self.title = self._headers(range(self.header_rows), top=True)
        self.rows = self._rows()
        self.blocks = [(0, self.headers), *self._repeated_headers()]
        """(first row, headers) of each block of rows under its own header rows."""

    def place(self, row: int, cell: int) -> CellPlace:
        label, row_period = self.rows[row]
        cells = self.table.rows[row][1]
        headers = next(h for start, h in reversed(self.blocks) if start <= row)
        header = headers.get(_key(cells, cell, self.loader), _NO_HEADER)
        if self.loader and not header.qualifiers and header.period is None:
            header = _classify([cells[cell].column])
        period = header.period or row_period
        full = label
        qualifiers = (*header.qualifiers, self.scope) if self.scope else header.qualifiers
        if qualifiers:
            full = COLUMN_JOIN.join([p for p in (label, *qualifiers) if p])
        return CellPlace(full or None, *(period if period else (None, None)))

    def _repeated_headers(self) -> list[tuple[int, dict[tuple[str, int], _Header]]]:
        """Header rows repeated below the first figures, naming another period ("Dec 30,
        2017 | Acquisitions | …", "As of December 31, 2018" over the same columns): the
        rows under them, to the next such block, read their columns from them."""
        blocks: list[tuple[int, dict[tuple[str, int], _Header]]] = []
        rows = self.table.rows
        r = self.header_rows + 1
        while r < len(rows):
            if not _names_a_period(rows[r][1]):
                r += 1
                continue
            end = r + 1
            while end < len(rows) and _is_header_like(rows[end][1]):
                end += 1
            headers, _ = self._headers(range(r, end), top=False)
            blocks.append((end, headers))
            r = end + 1
        return blocks

    def _headers(
        self, header_rows: range, *, top: bool
    ) -> tuple[dict[tuple[str, int], _Header], tuple[str, int] | None]:
        """The headers of each column read from ``header_rows``, and the title among them."""
        grid: dict[tuple[str, int], list[str]] = {}
        titles: list[tuple[str, int]] = []
        values = _value_columns(self.table, self.header_rows, self.loader)
        quarters = _bare_quarters([self.table.rows[r][1] for r in header_rows])
        for r in header_rows:
            cells = self.table.rows[r][1]
            keyed = [(_key(cells, i, self.loader), c.text) for i, c in enumerate(cells)]
            if quarters:  # "First | Second | Third | Fourth": the quarters of the year
                keyed = [(k, f"{t} Quarter" if _is_ordinal(t) else t) for k, t in keyed]
            if self.loader and r == 0:
                keyed = [((c.text, 0), c.text) for c in cells]
            texts = {t for _, t in keyed if t and (_kind(t) in _NAMING or part_of_year(t))}
            if len(texts) == 1 and values > 1 and not self.loader:
                (only,) = texts
                found = period_of(only) or split_period(only)[0]  # "Price Range 2018"
                if found is not None:
                    titles.append(found)
                continue  # a title over several columns
            left = ""
            for key, text in keyed:
                left = text or (left if len(texts) > 1 else "")
                if left:
                    grid.setdefault(key, []).append(left)
        stub = self.table.rows[header_rows.start][0].strip() if len(header_rows) else ""
        if not titles and stub and (found := period_of(stub)) is not None:
            titles.append(found)  # the stub header names the table's period: "30 June 2019"
        title = titles[-1] if titles else None
        headers: dict[tuple[str, int], _Header] = {}
        for key, parts in grid.items():
            header = _classify(parts)
            if header.period is None and title is not None:
                header = _Header(header.qualifiers, title)
            headers[key] = header
        if not top and title is not None:  # a repeated title alone: every column's period
            for key in {k for _, cells in self.table.rows for k in _keys(cells, self.loader)}:
                headers.setdefault(key, _Header((), title))
        return headers, title

    def _rows(self) -> list[tuple[str | None, tuple[str, int] | None]]:
        """Each row's label (with its group where it needs one) and the period it states
        or sits under."""
        out: list[tuple[str | None, tuple[str, int] | None]] = []
        top_left = self.table.rows[0][0] if self.header_rows and self.table.rows else ""
        names = _kind(top_left) == "qualifier" and not _PARENT.fullmatch(top_left)
        group = clean_label(top_left) if names else self.allocated
        period_row = self.title
        for raw, cells in self.table.rows:
            displaced = "" if raw else _displaced_label(cells)
            raw = raw or displaced
            own_period = period_of(raw.strip().rstrip(":").rstrip()) if raw else None
            if (displaced or not any(c.text for c in cells)) and raw.strip():
                if own_period is not None:
                    period_row = own_period
                elif parse_caption(raw) is None and not is_period_words(raw):
                    group = clean_label(raw)  # "Year Ended May 31," names no group
                out.append((None, None))
                continue
            if own_period is not None:
                out.append((None, own_period))
                continue
            if not raw and len(cells) == 1 and period_of(cells[0].text.strip()) is not None:
                period_row = period_of(cells[0].text.strip())  # a loader's "2019" line
                out.append((None, None))
                continue
            label = clean_label(raw) if raw else None
            if label and group and (is_dependent(label) or is_component(label, group)):
                label = f"{group}{GROUP_JOIN}{label}"
            out.append((label, _dated(raw) or period_row))
            if group is None and label and (named := total_of(label)) is not None:
                _name_the_run(out, named)  # "Total deferred tax assets" below its parts
        return out


def _name_the_run(out: list[tuple[str | None, tuple[str, int] | None]], balance: str) -> None:
    """The rows above a total of a balance that no group row named (``Stock-based
    compensation`` … ``Total deferred tax assets``), back to the last label-only row or
    total: the parts of that balance (:func:`~osrag.extract.facts.labels.is_component`)."""
    for i in range(len(out) - 2, -1, -1):
        label, period = out[i]
        if label is None or GROUP_JOIN in label or total_of(label) is not None:
            break
        if is_component(label, balance):
            out[i] = (f"{balance}{GROUP_JOIN}{label}", period)


def _is_ordinal(text: str) -> bool:
    """A header cell that is a quarter's ordinal alone (``First``, ``4th``)."""
    return text.strip().casefold() in QUARTER_ORDINALS


def _bare_quarters(rows: list[list[Cell]]) -> bool:
    """Header rows that name three or four quarters by their ordinal alone (``First |
    Second | Third | Fourth``), with no other word saying what they are parts of."""
    texts = [c.text.strip() for cells in rows for c in cells if c.text.strip()]
    ordinals = {QUARTER_ORDINALS[t.casefold()] for t in texts if _is_ordinal(t)}
    return len(ordinals) >= 3 and not any(part_of_year(t) for t in texts)


def _displaced_label(cells: list[Cell]) -> str:
    """A label-only row whose words stand in the first column instead of the stub
    (``| | Cloud and License Revenues: | | |``): those words; else nothing."""
    written = [c.text for c in cells if c.text]
    if len(written) != 1 or not cells or cells[0].text != written[0]:
        return ""
    text = written[0]
    if is_value_cell(text) or _kind(text) != "qualifier" or not text.rstrip().endswith(":"):
        return ""
    return text


@functools.lru_cache(maxsize=1 << 12)
def _kind(text: str) -> str:
    stripped = text.strip()
    if not stripped:
        return "empty"
    if period_of(stripped) is not None:
        return "period"
    if is_period_words(stripped):
        return "period words"
    if split_period(stripped)[0] is not None:
        return "period and qualifier"
    label = clean_label(stripped)
    if label is None or parse_caption(stripped) is not None:
        return "unit"
    if qualifies_nothing(label):
        return "generic"
    return "qualifier"


def _classify(parts: list[str]) -> _Header:
    """A column's header cells, top to bottom → its qualifiers and its lowest period. The
    qualifiers stop once they are longer than a label may be (``LABEL_CHARS``: the label
    joined from them is cut there, :mod:`osrag.lexicon.bounds`)."""
    qualifiers: list[str] = []
    period: tuple[str, int] | None = None
    width = 0
    for part in parts:
        kind = _kind(part)
        rest = part.strip()
        part_name = part_of_year(rest) if kind != "qualifier" else None
        if part_name and part_name not in qualifiers:
            qualifiers.append(part_name)  # "Three months ended …", "Q1 2019": not the year's
        if kind == "period":
            period = period_of(rest)
            continue
        if kind == "period and qualifier":
            period, rest = split_period(rest)
            kind = _kind(rest)
        if kind == "qualifier" and width <= LABEL_CHARS:
            label = clean_label(rest)
            if label and label not in qualifiers:
                qualifiers.append(label)
                width += len(label) + len(COLUMN_JOIN)
    return _Header(tuple(qualifiers), period)


def _key(cells: list[Cell], i: int, loader: bool) -> tuple[str, int]:
    """A cell's column: a Markdown table's column number; a loader row's header name and
    how many cells of that name come before it in the row; a loader row's cell with no
    header name (a table whose first line names no column): its place in the row."""
    column = cells[i].column
    if not loader:
        return (column or f"#{i}"), 0
    return column, sum(1 for c in cells[:i] if c.column == column)


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


def _keys(cells: list[Cell], loader: bool) -> list[tuple[str, int]]:
    return [_key(cells, i, loader) for i in range(len(cells))]


def _names_a_period(cells: list[Cell]) -> bool:
    """A row below the figures that repeats the header: no value, a period among its cells."""
    return _is_header_like(cells) and any(
        _kind(c.text) in ("period", "period and qualifier") for c in cells if c.text
    )


def _is_header_like(cells: list[Cell]) -> bool:
    """No value in any cell, and some cell after the first written."""
    return any(c.text for c in cells) and not any(is_value_cell(c.text) for c in cells)


def _is_loader(table: Table) -> bool:
    return all(not c.column for c in table.rows[0][1]) and any(
        c.column for _, cells in table.rows[1:] for c in cells
    )


def _header_rows(table: Table) -> int:
    """How many rows stand above the first row holding a value."""
    for r, (_, cells) in enumerate(table.rows):
        if any(is_value_cell(c.text) for c in cells):
            return r
    return len(table.rows)


def _value_columns(table: Table, header_rows: int, loader: bool) -> int:
    """How many columns hold a value in some row below the header."""
    columns: set[tuple[str, int]] = set()
    for _, cells in table.rows[header_rows:]:
        seen: dict[str, int] = {}  # a loader row's cells of each header name so far
        for i, c in enumerate(cells):
            k = seen[c.column] = seen.get(c.column, -1) + 1
            if is_value_cell(c.text):
                columns.add((c.column, k) if loader else (c.column or f"#{i}", 0))
    return len(columns)


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


_SEGMENT_HEADING = re.compile(
    r"(?i)^(?!.*\b(?:by|each|all|other|total)\b)[^\W\d][\w&'’ .-]{0,80}?\s+segment$"
)
_HEADING_REACH = 1500
"""How far above a table (characters) its section heading is looked for."""
_FIGURE = re.compile(r"\d|[$€£¥₹]")


def _names_a_part(line: str) -> bool:
    """A heading that names one segment (``Consumer Cyber Safety segment``) or one region
    (``North America``, ``Asia Pacific region``)."""
    if _SEGMENT_HEADING.match(line):
        return True
    words = set(phrase_words(line))
    return bool(words & REGION_WORDS) and words <= REGION_WORDS | REGION_HEADING_WORDS


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
    table: Table, allocated: str | None = None, scope: str | None = None
) -> TableReading:
    """The reading of ``table`` (see the module docstring); ``allocated``: what the
    sentence introducing it says it allocates (:func:`allocated_quantity`); ``scope``:
    whose figures it says they are (:func:`table_scope`)."""
    return TableReading(table, allocated, scope)
