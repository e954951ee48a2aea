"""The one table model: a table's rows, header rows, spans, column keys, group rows and value
cells, read once — for the scale and currency of its figures (:mod:`osrag.extract.tables`)
and for what each figure measures (:mod:`osrag.extract.facts.table`).

**Three shapes, one model.** A table is found in text in the three shapes osrag meets:

* a Markdown pipe table (``| Revenue | $ 831.7 |``, the separator row skipped): a cell's
  column is its number;
* a table as the PDF, Word and HTML loaders write it (:func:`osrag.loaders.text.table_lines`):
  a header line of cells joined by `` | ``, then one line per row, ``Revenue — 2019: 831.7;
  2018: 790.2`` (the text before `` — `` is the row's label, each ``Header: value`` one
  cell of that header's column; a row of label only is a group row). A cell's column is
  its header's name and how many cells of that name stand before it in the row (a merged
  header repeats its name: ``2019: 100; 2019: 5%``); a cell that names no header (a table
  whose first line names no column) is keyed by its place in the row.

* a plain-text table whose columns are aligned with spaces (a statement or pay slip
  printed as text: ``Total assets      9,874.2     9,502.8`` under ``2023     2022``): a
  row is a label and figures apart by two spaces or more, a figure's column the one whose
  right edge is nearest its own, a header word placed the same way; a block after a blank
  line that opens with a row and keeps the columns goes on with the table
  (:func:`aligned_continues`). Cells are keyed by column number, as a pipe table's.

The same table written in both shapes gives the same header texts over each value cell.

**Value cells** (:func:`is_value_cell`): a number that is not a year, a percentage, a dash,
``nil``, ``n/a``. **Header rows** are the rows above the first row that holds one, or an
amount written in words a value cell does not read (``$25K``, ``1,000 dollars``); a row
below the figures that holds no value and names a period repeats the header for the rows
under it (a block: ``As of December 31, 2018`` over a second block of the same columns).

**Spans.** A merged header cell is written once and the cells to its right left empty: in a
header row, a written cell spans the empty cells to its right up to the next written cell —
unless the lowest header row naming both columns names them differently in kind, a year
under one and words under the other (``Percent Change`` over ``Actual | Constant`` does not
reach ``2018`` beside them). A header row that holds a single written cell over two or more
value columns is a **title** (``| | Combined Pension Plan | |``, ``December 31, 2019`` over
``Carrying amount | Fair value``): it spans every column to its right for the words
above them, qualifies none, and when it names a period it is the period of every column
that has none of its own. A loader's header name spans every cell of that name. Three or
four header cells that are a quarter's ordinal alone (``First | Second | Third | Fourth``)
are read as quarters.

**Column keys** (:class:`ColumnKey`): each header text of a column is a **period**
(:func:`~osrag.lexicon.periods.period_of`: ``2019``, ``Fiscal 2019``, ``December 31,
2019``), **period words** without a year (``Years Ended December 31,``), a **unit**
(``£m``, ``$'000``, ``(in millions)``, ``%``), a text that says only that its figures are
amounts (``Amount``, ``Values``) or a **qualifier** — any other words, split by the scope
reader (:func:`~osrag.lexicon.scopes.read_scope`) into what they say of the measure (``Fair
value``, ``Variance in Dollars``: the measure's qualifiers), whose figures the column holds
(``Americas``, ``Non-GAAP``, ``Discontinued operations``: the column's scope and part's
name) and the part of the year (``First Quarter``, ``Three months ended …``, ``Full
Year``). A header naming a period among words is split (``Fiscal 2019 Net Sales``). The
column's period is its lowest period, else its block's title's.

**Rows.** A row with no written cell beside its label is a **group row** (``Deferred tax
assets:``) — or a **period row** when its label names a period (``2019`` over the quarters
of that year); a group's words written in the first column instead of the stub (``| |
Cloud and License Revenues: | | |``) are a group row too.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from osrag.extract.facts.labels import clean_label
from osrag.extract.facts.periods import split_period
from osrag.extract.marks import MARKDOWN_HEADING, SIGN
from osrag.extract.money import SIGN_CLASS, extract_money
from osrag.extract.scale import find_caption, parse_caption
from osrag.lexicon.bounds import CELL_CHARS, LABEL_CHARS, shorten
from osrag.lexicon.keys import COLUMN_JOIN, qualifies_nothing
from osrag.lexicon.periods import (
    COLUMN_UNITS,
    QUARTER_ORDINALS,
    TERM_YEARS,
    PeriodPart,
    is_period_words,
    part_of_year,
    period_of,
    period_units_in,
)
from osrag.lexicon.scopes import ACTUAL, BUDGET, PARTS, Scope, names_current, read_scope
from osrag.lexicon.words import name_words

__all__ = [
    "Cell",
    "ColumnKey",
    "Key",
    "Table",
    "TableModel",
    "aligned_continues",
    "holds_a_figure",
    "is_value_cell",
    "is_year",
    "model_of",
    "number_cell",
    "table_of_block",
]

Key = tuple[str, int]
"""A cell's column: a pipe table's column number (and 0), a loader row's header name and
how many cells of that name stand before it, or ``#i`` for a cell keyed by its place."""


@dataclass(slots=True)
class Cell:
    text: str
    start: int
    column: str
    """A pipe table's column number; a loader cell's header name ("" for none)."""


@dataclass(slots=True)
class Table:
    start: int
    end: int
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)
    """Each row: its label (first cell) and its other cells."""
    pipe: bool = True
    """A Markdown pipe table (cells keyed by column number); else a loader's table (cells
    keyed by their header's text)."""
    aligned: bool = False
    """A plain-text table whose columns are aligned with spaces (cells keyed by column
    number, as a pipe table's)."""


# ------------------------------------------------------------------ the two shapes

_LOADER_ROW = re.compile(r"(?P<label>.*?) — (?P<rest>.+)")
_SEPARATOR = re.compile(r"\s*\|?(?:\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*\|?\s*")


def _read(cell: str) -> str:
    """A cell as the table reader reads it: within ``CELL_CHARS``, marked when cut
    (:mod:`osrag.lexicon.bounds`); the chunk's text keeps every cell whole."""
    return cell if len(cell) <= CELL_CHARS else shorten(cell, CELL_CHARS)


_CELL_BAR = re.compile(r"(?<!\\)\|")
"""A bar between pipe cells (an escaped ``\\|`` is a cell's text)."""


def _pipe_cells(offset: int, line: str) -> list[Cell]:
    """A pipe-table row's cells (empty inner cells kept: they hold a column's place)."""
    cells: list[Cell] = []
    start = 0
    parts = _CELL_BAR.split(line)
    for i, part in enumerate(parts):
        if not (i == 0 or i == len(parts) - 1) or part.strip():
            lead = len(part) - len(part.lstrip())
            text = part.strip()
            # only a cell opening with a mark can be emphasised (most are not looked at)
            emphasised = _EMPHASIS.fullmatch(text) if text[:1] in "*_" else None
            if emphasised is not None:  # "**$2,710.00**": the figure, where it stands
                lead, text = lead + emphasised.start("inner"), emphasised.group("inner")
            cells.append(Cell(_read(text), offset + start + lead, str(len(cells))))
        start += len(part) + 1
    return cells


_EMPHASIS = re.compile(r"(?P<mark>\*\*|__|\*|_)(?P<inner>[^\s*_](?:[^*_]*[^\s*_])?)(?P=mark)")
"""A pipe cell written wholly in bold or italics (``**$2,710.00**``, ``*Total estimate*``):
read as its words, so a bold total is a value cell and an italic label no label with a
star in it."""


def _pipe_table(block: list[tuple[int, str]]) -> Table:
    table = Table(block[0][0], block[-1][0] + len(block[-1][1]))
    for offset, line in block:
        if _SEPARATOR.fullmatch(line):
            continue
        cells = _pipe_cells(offset, line)
        if cells:
            table.rows.append((cells[0].text, cells[1:]))
    return table


def _loader_table(block: list[tuple[int, str]]) -> Table:
    table = Table(block[0][0], block[-1][0] + len(block[-1][1]), pipe=False)
    first_offset, first = block[0]
    header = [Cell(_read(c.strip()), first_offset + m, "") for m, c in _split_keep(first, " | ")]
    table.rows.append(("", header))
    for offset, line in block[1:]:
        row = _LOADER_ROW.fullmatch(line)
        lone = row is None and "; " not in line and ": " not in line
        if lone and not (number_cell(line.strip()) or parse_caption(line)):
            table.rows.append((_read(line), []))  # a row with only its label: a group header
            continue
        label, rest_at = ("", 0)
        if row is not None:  # a label may hold " — " itself: the last one before the cells
            cells_at = min(
                (i for i in (line.find(": "), line.find("; ")) if i >= 0), default=len(line)
            )
            cut = line.rfind(" — ", 0, cells_at)
            cut = cut if cut >= 0 else row.start("rest") - 3
            label, rest_at = _read(line[:cut]), cut + 3
        cells = []
        for at, part in _split_keep(line[rest_at:], "; "):
            name, colon, value = part.rpartition(": ")
            value_at = rest_at + at + (len(name) + 2 if colon else 0)
            column = _read(name) if colon else ""
            cells.append(Cell(_read(value.strip()), offset + value_at, column))
        table.rows.append((label, cells))
    return table


def _split_keep(line: str, sep: str) -> list[tuple[int, str]]:
    out, at = [], 0
    for part in line.split(sep):
        out.append((at, part))
        at += len(part) + len(sep)
    return out


def _is_pipe_table(block: list[tuple[int, str]]) -> bool:
    return len(block) >= 2 and all(line.lstrip().startswith("|") for _, line in block)


def _is_loader_table(block: list[tuple[int, str]]) -> bool:
    """A header line, then rows written ``label — Header: cell; …`` (most of them)."""
    if len(block) < 2 or MARKDOWN_HEADING.match(block[0][1]):
        return False
    rows = sum(1 for _, line in block[1:] if " — " in line or "; " in line)
    return rows * 2 >= len(block) - 1 and (" | " in block[0][1] or rows >= 2)


def table_of_block(block: list[tuple[int, str]]) -> Table | None:
    """The table a block of lines (each with its offset) is, in any shape, or None."""
    if _is_pipe_table(block):
        return _pipe_table(block)
    if _is_loader_table(block):
        return _loader_table(block)
    columns = _aligned_columns(block)
    if columns:
        return _aligned_table(block, columns)
    return None


# A plain-text table: a label, then figures right-aligned under each other, cells apart by
# two spaces or more ("Total assets      9,874.2     9,502.8" under "2023     2022").

_PART = re.compile(r"\S+(?: \S+)*")
"""A cell of a space-aligned line: words joined by single spaces."""
_ALIGN_SLACK = 1
"""How far apart (characters) two right edges may be and still be one column."""


def _parts(line: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in _PART.finditer(line)]


def _figures(line: str) -> list[tuple[int, int, str]] | None:
    """The figures a space-aligned row holds after its label ("Gross pay   2,180.50
    26,166.00"; each may carry the unit it is priced by: :func:`rated_number_cell`), or None
    when the line is not such a row (one cell, words among the figures, a pipe, a year
    alone)."""
    if "|" in line or "  " not in line:
        return None
    parts = _parts(line)
    if len(parts) < 2:
        return None
    lead = 1 if _leads_with_a_count(parts) else 0
    tail = parts[lead + 1 :] if number_cell(parts[lead][2]) is None else parts
    if not tail or any(rated_number_cell(p[2]) is None for p in tail):
        return None
    if all(is_year(p[2]) for p in tail):
        return None
    if tail is parts:  # figures without a label: only below a labelled row
        return None
    return tail


_LEAD_COUNT = re.compile(r"\d{1,4}")
"""A whole number before a row's label: its quantity or line number ("2   Adult 1-day lift
ticket (Sat)   96.00   192.00" under "QTY  ITEM  EACH  AMOUNT")."""


def _leads_with_a_count(parts: list[tuple[int, int, str]]) -> bool:
    """Whether a space-aligned row opens with a count, then its label and figures."""
    return (
        len(parts) >= 3
        and _LEAD_COUNT.fullmatch(parts[0][2]) is not None
        and number_cell(parts[1][2]) is None
    )


def _column_of(edge: int, columns: list[int]) -> int | None:
    near = min(range(len(columns)), key=lambda i: abs(columns[i] - edge))
    return near if abs(columns[near] - edge) <= _ALIGN_SLACK else None


def _aligned_columns(block: list[tuple[int, str]], known: list[int] | None = None) -> list[int]:
    """The right edges of a space-aligned table's figure columns, or [] when the block is
    not one: two rows of figures or more (one is enough under a header line naming each
    column, or when ``known`` columns continue from the block before), every figure under
    a column, and no heading."""
    rows = [f for _, line in block if (f := _figures(line)) is not None]
    first = block[0][1]
    headed = len(rows) == 1 and _figures(first) is None and len(_parts(first)) == len(rows[0]) + 1
    if len(rows) < (1 if known or headed else 2) or any(
        MARKDOWN_HEADING.match(ln) for _, ln in block
    ):
        return []
    edges = sorted({end for row in rows for _, end, _ in row})
    columns: list[int] = list(known or [])
    for edge in edges:
        if known is not None:
            if _column_of(edge, columns) is None:
                return []
        elif not columns or edge - columns[-1] > _ALIGN_SLACK:
            columns.append(edge)
        else:
            columns[-1] = edge
    if known is None and any(
        len({_column_of(end, columns) for _, end, _ in row}) != len(row) for row in rows
    ):
        return []  # two figures of one row under one column: not aligned columns
    return columns


def _aligned_table(block: list[tuple[int, str]], columns: list[int]) -> Table:
    """Each line a row: its label (the text left of the figures), then one cell a column,
    a figure or header text placed under the column whose right edge is nearest its own."""
    table = Table(block[0][0], block[-1][0] + len(block[-1][1]), aligned=True)
    first = min(start for _, line in block if (f := _figures(line)) for start, _, _ in f[:1])
    rows = [(offset, line, _parts(line)) for offset, line in block]
    labels_at = min(
        (p[1][0] for _, _, p in rows if _leads_with_a_count(p) and p[1][0] < first), default=None
    )
    for offset, line, parts in rows:
        label, cells = "", [Cell("", offset + len(line), str(i + 1)) for i in range(len(columns))]
        if labels_at is not None:
            # a column of counts before the labels ("QTY  ITEM  EACH  AMOUNT"): its cells
            # first, the count or line number of each row, and its header
            lead = Cell("", offset, "0")
            if len(parts) >= 2 and parts[0][1] <= labels_at and parts[1][0] < first:
                lead = Cell(_read(parts[0][2]), offset + parts[0][0], "0")
                parts = parts[1:]
            cells.insert(0, lead)
        for start, end, text in parts:
            if start < first and not label and number_cell(text) is None:
                label = _read(text)
                continue
            near = min(range(len(columns)), key=lambda i: abs(columns[i] - end))
            rated = rated_number_cell(text)
            if rated is not None and rated.end() < len(text):  # "$14.99/month": the figure
                text = text[: rated.end()]  # is the cell, its unit read after it
            at = near + (labels_at is not None)
            cells[at] = Cell(_read(text), offset + start, str(near + 1))
        table.rows.append((label, cells))
    return table


def aligned_continues(table_block: list[tuple[int, str]], block: list[tuple[int, str]]) -> bool:
    """Whether ``block`` goes on with the space-aligned table of ``table_block`` after a
    blank line: it opens with a row (no header of its own) and its figures stand under
    the same columns."""
    if _figures(block[0][1]) is None and len(_parts(block[0][1])) != 1:
        return False
    columns = _aligned_columns(table_block)
    return bool(columns) and bool(_aligned_columns(block, columns))


def blocks(text: str, pos: int) -> Iterator[list[tuple[int, str]]]:
    """Runs of non-blank lines of ``text[pos:]``, each line with its offset."""
    block: list[tuple[int, str]] = []
    offset = pos
    for line in text[pos:].split("\n"):
        if line.strip():
            block.append((offset, line))
        elif block:
            yield block
            block = []
        offset += len(line) + 1
    if block:
        yield block


# ------------------------------------------------------------------ cells

NUMBER_CELL = re.compile(
    rf"(?P<s1>{SIGN})?\s*(?P<open>\()?\s*(?P<s2>{SIGN})?\s*(?P<minus>[-−–])?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<close>\))?"
    r"(?:\s*\(\d\)|\s*\*{1,3})?"  # a footnote marker: "(1)", "*"
)
"""A cell that is one number, a sign, parentheses, a minus and a footnote marker allowed."""
number_cell = functools.lru_cache(maxsize=1 << 13)(NUMBER_CELL.fullmatch)
"""``NUMBER_CELL.fullmatch``, memoised: a table's cells are read by several rules (its
header rows, its signed columns, each cell's amount) and the same figures recur."""


@functools.lru_cache(maxsize=1 << 13)
def rated_number_cell(text: str) -> re.Match[str] | None:
    """:data:`number_cell` of a cell, or of its figure when the unit it is priced by
    follows it and ends the cell ("$14.99/month", "$45 per hour", as rate cards write
    their columns): the match's spans index ``text``."""
    match = number_cell(text)
    if match is not None:
        return match
    units = period_units_in(text)
    if not units or units[-1][2] != len(text.rstrip()):
        return None
    figure = text[: units[-1][1]].rstrip()
    return number_cell(figure) if figure else None


_MARKED_YEAR = re.compile(r"(?:19|20)\d\d(?:\s*\((?:\d{1,2}|[a-z])\)|\s*[*†‡]+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)?")
"""A year, with a footnote marker if one follows it (``2019 (1)``, ``2019*``, ``2019¹``):
never money."""
_VALUE_LIKE = re.compile(
    r"(?i)[-–—]+|nil|n/?a|n\.m\.|\(?[-−–]?\d[\d,]*(?:\.\d+)?\)?\s*%|"
    rf"{SIGN_CLASS}\s*[-–—]+"
)
"""Cells that stand where values stand without being one (a dash, ``nil``, ``12.5%``)."""


@functools.lru_cache(maxsize=1 << 13)
def is_year(cell: str) -> bool:
    """A cell that is a year (a footnote marker after it allowed)."""
    return _MARKED_YEAR.fullmatch(cell.strip()) is not None


@functools.lru_cache(maxsize=1 << 13)
def is_value_cell(cell: str) -> bool:
    """A cell that holds a value: a number that is not a year, a percentage, a dash."""
    stripped = cell.strip()
    if not stripped:
        return False
    if number_cell(stripped):
        return not is_year(stripped)
    return _VALUE_LIKE.fullmatch(stripped) is not None


@functools.lru_cache(maxsize=1 << 13)
def holds_a_figure(cell: str) -> bool:
    """A value cell, or a cell that states an amount in words a value cell does not read
    (``$25K``, ``USD 10,000,000``, ``1,000 dollars``, ``Five Thousand Dollars ($5,000)``):
    either ends a table's header rows."""
    if is_value_cell(cell):
        return True
    return any(ch.isdigit() for ch in cell) and bool(extract_money(cell))


# ------------------------------------------------------------------ header texts

_NAMING = frozenset(["qualifier", "period", "period and qualifier"])
"""Header texts that tell one column from another."""


@functools.lru_cache(maxsize=1 << 12)
def header_kind(text: str) -> str:
    """``empty``, ``period``, ``period words``, ``period and qualifier``, ``unit``,
    ``generic`` (says only that its figures are amounts) or ``qualifier``."""
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


@dataclass(frozen=True, slots=True)
class ColumnKey:
    """What a column's header says of the figures under it."""

    qualifiers: tuple[str, ...] = ()
    """What its headers say of the measure ("Fair value", "Variance in Dollars"), cleaned,
    top to bottom: the row's label is read with them."""
    period: tuple[str, int] | None = None
    """The period (as written, its year): the lowest above, else the title's."""
    period_part: PeriodPart | None = None
    """The part of the year the headers name (``q4``, ``part``, ``full`` for "Full
    Year"), None when they name none."""
    scope: Scope = "own"
    """Whose figures the headers say they are (``region`` for "Americas")."""
    scope_name: str | None = None
    units: tuple[str, ...] = ()
    """Header texts that are units (``£m``, ``(in millions)``, ``%``), as written."""

    @property
    def names_nothing(self) -> bool:
        return (
            not self.qualifiers
            and self.period is None
            and self.period_part is None
            and self.scope == "own"
        )


NO_COLUMN = ColumnKey()


@functools.lru_cache(maxsize=1 << 12)
def column_key(parts: tuple[str, ...], title: tuple[str, int] | None = None) -> ColumnKey:
    """A column's header texts, top to bottom, read into its key (module docstring). The
    qualifiers are read by the scope reader together, in order — a part of the year may be
    written over two header rows (``First`` over ``Quarter``) — and each keeps what is left
    of it."""
    words: list[str] = []
    units: list[str] = []
    period: tuple[str, int] | None = None
    for text in parts:
        kind = header_kind(text)
        rest = text.strip()
        if kind == "unit":
            units.append(rest)
            continue
        if kind in ("period", "period words", "period and qualifier"):
            named = part_of_year(rest)
            if named is not None:  # "Three months ended …", "Q1 2019": not the year's
                words += [*named.split(), _APART]
            elif kind == "period words" and read_scope(rest.split()).period_part in TERM_YEARS:
                words += [*rest.split(), _APART]  # "Year 1": a year of the term
            elif kind == "period words" and rest.lower() in COLUMN_UNITS:
                words += [rest, _APART]  # a rate table's "Day", "Week": the rates' unit
        if kind == "period":
            period = period_of(rest)
            continue
        if kind == "period and qualifier":
            period, rest = split_period(rest)
            kind = header_kind(rest)
        if kind == "qualifier":
            words += [*rest.split(), _APART]
    reading = read_scope(words)
    qualifiers: list[str] = []
    for piece in " ".join(reading.what).split(_APART):
        label = clean_label(piece) if piece.strip() else None
        if label and not qualifies_nothing(label) and label not in qualifiers:
            if sum(len(q) + len(COLUMN_JOIN) for q in qualifiers) > LABEL_CHARS:
                break  # the label joined from them is cut there (osrag.lexicon.bounds)
            qualifiers.append(label)
    scope = reading.scope
    return ColumnKey(
        tuple(qualifiers),
        period or title,
        reading.period_part,
        scope,
        reading.scope_name if scope in PARTS else None,
        tuple(units),
    )


_APART = "\u2063"
"""A token between two header texts read together: an invisible separator, no word."""


def _budget_alone(key: ColumnKey) -> bool:
    """A column headed "Budget" and nothing else that names a measure."""
    return len(key.qualifiers) == 1 and name_words(key.qualifiers[0]) in ([b] for b in BUDGET)


def _current_alone(key: ColumnKey) -> bool:
    """A column headed "Current" and nothing else that names a measure: beside the year to
    date, the statement's own period (beside "Deferred", a class of tax)."""
    return len(key.qualifiers) == 1 and names_current(key.qualifiers[0])


def _headed_actual(texts: tuple[str, ...]) -> bool:
    """A column's headers say "Actual": the figures a "Budget" column beside is compared with."""
    return any(w in ACTUAL for t in texts for w in name_words(t))


def _headed_to_date(texts: tuple[str, ...]) -> bool:
    """A column's headers say the year to date ("YTD")."""
    return column_key(texts).period_part == "ytd"


def _is_ordinal(text: str) -> bool:
    """A header cell that is a quarter's ordinal alone (``First``, ``4th``)."""
    return text.strip().casefold() in QUARTER_ORDINALS


def _bare_quarters(rows: list[list[Cell]]) -> bool:
    """Header rows that name three or four quarters by their ordinal alone (``First |
    Second | Third | Fourth``), with no other word saying what they are parts of."""
    texts = [c.text.strip() for cells in rows for c in cells if c.text.strip()]
    ordinals = {QUARTER_ORDINALS[t.casefold()] for t in texts if _is_ordinal(t)}
    return len(ordinals) >= 3 and not any(part_of_year(t) for t in texts)


def _same_span(below: list[list[tuple[Key, str]]], written: Key, empty: Key) -> bool:
    """Whether a header written over column ``written`` reaches the empty cell of column
    ``empty`` to its right: it does unless the lowest header row naming both columns
    names them differently in kind — a year under one, words under the other."""
    for cells in reversed(below):
        texts = dict(cells)
        a, b = texts.get(written, "").strip(), texts.get(empty, "").strip()
        if a and b:
            return is_year(a) == is_year(b)
    return True


# ------------------------------------------------------------------ the model


@dataclass(frozen=True, slots=True)
class _HeaderRow:
    """One header row: the text over each column (spans filled)."""

    texts: dict[Key, str]
    title: bool
    """A single naming text over several value columns: it qualifies none."""
    widths: dict[str, int]
    """A loader table's row: how many cells it holds under each header name."""
    placed: dict[Key, str] = field(default_factory=dict)
    """A loader table's row: each text by the name written on its cell ("" for none) and
    how many cells written so stand before it — the place it is read by when no header row
    lines up."""


@dataclass(frozen=True, slots=True)
class _Block:
    """Rows from ``start`` on read their columns from these header rows."""

    start: int
    rows: tuple[_HeaderRow, ...]
    title: tuple[str, int] | None
    """The period a title row names (of every column without one of its own)."""
    repeated: bool = False
    quarters: bool = False
    """Its headers name the quarters by their ordinals alone: each is read "… Quarter"."""
    part: PeriodPart | None = None
    """The part of the year the stub header names for every column ("Quarters Ended",
    "Three Months Ended" over the dates: each column a part of a year, not the year)."""

    def texts(
        self,
        key: Key,
        counts: dict[str, int] | None,
        placed: Key | None = None,
        *,
        titles: bool,
    ) -> tuple[str, ...]:
        """The texts over column ``key``, top to bottom. In a loader table (``counts``: the
        row's cells under each header name; ``placed``: the cell's written name and place
        among the cells written so) the loaders leave empty cells out and write a merged
        cell once, so a header row lines up with a row holding as many cells under the
        name — or a multiple of them, each of its cells then over as many of the row's
        (``2019 | 2018`` over ``Amount | % | Amount | %``); else a header row holding fewer
        cells than the row is read by the place (the name written on the cell, and how many
        cells written so stand before it), and one holding more says nothing of a row that
        lost cells (which ones, nothing says)."""
        out: list[str] = []
        for row in self.rows:
            if row.title and not titles:
                continue
            if counts is None:
                found = row.texts.get(key)
            else:
                width, count = row.widths.get(key[0], 0), counts.get(key[0], 0)
                if not width:
                    continue  # the header row holds nothing under the cell's name
                if not count % width:
                    found = row.texts.get((key[0], key[1] // (count // width)))
                elif sum(counts.values()) > sum(row.widths.values()) and placed is not None:
                    found = row.placed.get(placed)  # a header row written merged
                else:
                    continue  # the row lost cells: which ones, nothing says
            if found:
                out.append(found)
        return tuple(out)


class TableModel:
    """One table read once: header rows, keys, spans, blocks, group rows, value cells."""

    def __init__(self, table: Table) -> None:
        self.table = table
        rows = table.rows
        self.keyed = bool(rows) and not rows[0][0] and _keyed_by_name(table)
        """A loader's table whose cells name their header (else keyed by place)."""
        self.names = frozenset(c.text for c in rows[0][1]) if self.keyed else frozenset()
        """A loader table's header names (its header line's cells)."""
        self.title_name = ""
        """A loader table's header line that names one column over several value columns:
        a title, as a pipe table's single written header over its columns."""
        self.header_rows = next(
            (r for r, (_, cells) in enumerate(rows) if any(holds_a_figure(c.text) for c in cells)),
            len(rows),
        )
        """How many rows stand above the first row holding a value or an amount."""
        self.keys = [[self._key(cells, i) for i in range(len(cells))] for _, cells in rows]
        self.placed = [
            [
                (c.column, sum(1 for d in cells[:i] if d.column == c.column))
                for i, c in enumerate(cells)
            ]
            for _, cells in rows
        ]
        """A loader cell's written name and its place among the cells written so."""
        self._headed: dict[tuple[int, Callable[[tuple[str, ...]], bool]], bool] = {}
        """Whether a header block (by identity) has a column so headed, by test."""
        self._header_texts: dict[tuple[int, int], tuple[str, ...]] = {}
        self._columns: dict[tuple[int, int], ColumnKey] = {}
        """A cell's header texts and column key, by ``(row, cell)``, once read (the
        readers ask for most cells more than once)."""
        self.value_columns = len(
            {
                self.keys[r][i]
                for r in range(self.header_rows, len(rows))
                for i, c in enumerate(rows[r][1])
                if is_value_cell(c.text)
            }
        )
        self._used = {c.column for _, cells in rows[1:] for c in cells if c.column}
        """A loader table's header names that name the cells of some row."""
        if self.keyed and self.value_columns > 1 and len(self._used) == 1:
            (self.title_name,) = self._used
        self.blocks = [self._block(range(self.header_rows), 0, repeated=False)]
        self.blocks += self._repeated_blocks()

    # -- keys and cells

    def _key(self, cells: list[Cell], i: int) -> Key:
        if self.keyed:
            name = self._name(cells, i)
            return name, sum(1 for j in range(i) if self._name(cells, j) == name)
        return (cells[i].column or f"#{i}"), 0

    def _name(self, cells: list[Cell], i: int) -> str:
        """A loader cell's header name. A cell written without one is its header's own
        text (the loaders write ``Acquisitions``, not ``Acquisitions: Acquisitions``), else
        the merged column of the nearest named cell to its left."""
        if cells[i].column:
            return cells[i].column
        if cells[i].text in self.names:
            return cells[i].text
        return next((c.column for c in reversed(cells[:i]) if c.column), "")

    def value_cells(self) -> list[tuple[int, int]]:
        """``(row, cell)`` of every value cell at or below the first row holding one."""
        return [
            (r, i)
            for r in range(self.header_rows, len(self.table.rows))
            for i, c in enumerate(self.table.rows[r][1])
            if is_value_cell(c.text)
        ]

    def block_of(self, row: int) -> _Block:
        return next(b for b in reversed(self.blocks) if b.start <= row)

    def header_name(self, row: int, cell: int) -> str:
        """A loader cell's header name — or, for a cell that names none, the name of the
        nearest cell to its left that does (a merged header names its first column only);
        "" in a pipe table."""
        if self.table.pipe:
            return ""
        name = self.keys[row][cell][0] if self.keyed else ""
        if name and self.blocks[0].quarters and _is_ordinal(name):
            return f"{name} Quarter"
        return name

    def _counts(self, row: int) -> dict[str, int] | None:
        """A loader row's cells under each header name (None in a pipe table)."""
        if self.table.pipe:
            return None
        counts: dict[str, int] = {}
        for name, _ in self.keys[row]:
            counts[name] = counts.get(name, 0) + 1
        return counts

    def header_texts(self, row: int, cell: int) -> tuple[str, ...]:
        """The header texts over a cell (its block's, spans filled, titles apart); a loader
        cell's header name first — the name written on it, or the one it takes from its
        left when a header row below the name lines up with its row (a merged header's
        span, confirmed; else the loaders wrote it under an empty header cell)."""
        found = self._header_texts.get((row, cell))
        if found is None:
            found = self._header_texts[row, cell] = self._read_header_texts(row, cell)
        return found

    def _read_header_texts(self, row: int, cell: int) -> tuple[str, ...]:
        block = self.block_of(row)
        placed = self.placed[row][cell] if self.keyed else None
        texts = block.texts(self.keys[row][cell], self._counts(row), placed, titles=False)
        name = self.header_name(row, cell)
        key_name = self.keys[row][cell][0]
        written = self.table.rows[row][1][cell].column or self.table.rows[row][1][cell].text
        if key_name == self.title_name or (key_name != written and not texts):
            name = ""  # a title qualifies no column; an unconfirmed span names none
        if name and not block.repeated and texts[:1] != (name,):
            return (name, *texts)
        return texts

    def header_words(self, row: int, cell: int) -> str:
        """The words written above a cell's figures (titles that span it included; units
        and figures left out): what says a column is a count, a percentage or per share."""
        placed = self.placed[row][cell] if self.keyed else None
        block = self.blocks[0]
        texts = list(block.texts(self.keys[row][cell], self._counts(row), placed, titles=True))
        name = self.header_name(row, cell)
        if name:
            texts.insert(0, name)
        return " ".join(t for t in texts if _worded(t))

    def column(self, row: int, cell: int) -> ColumnKey:
        """The key of the column a cell stands in (its block's headers); a column headed
        "Budget" alone beside one headed "Actual" holds the figures expected (a grant's
        budget table, with no actuals beside it, states the award's own figures)."""
        found = self._columns.get((row, cell))
        if found is None:
            found = self._columns[row, cell] = self._read_column(row, cell)
        return found

    def _read_column(self, row: int, cell: int) -> ColumnKey:
        block = self.block_of(row)
        found = column_key(self.header_texts(row, cell), block.title)
        if found.scope == "own" and _budget_alone(found) and self._beside(row, _headed_actual):
            found = dataclasses.replace(found, scope="forecast", qualifiers=())
        if _current_alone(found) and self._beside(row, _headed_to_date):
            found = dataclasses.replace(found, period_part="full", qualifiers=())
        if block.repeated and found.names_nothing and (name := self.header_name(row, cell)):
            return column_key((name,), block.title)  # a repeated header that names nothing
        if block.part is not None and found.period_part in (None, "full"):
            return dataclasses.replace(found, period_part=block.part)
        return found

    def _beside(self, row: int, headed: Callable[[tuple[str, ...]], bool]) -> bool:
        """Whether a column of ``row``'s header block has headers ``headed`` holds of (kept
        for the block's lifetime in the table)."""
        key = (id(self.block_of(row)), headed)
        found = self._headed.get(key)
        if found is None:
            cells = range(len(self.table.rows[row][1]))
            found = any(headed(self.header_texts(row, c)) for c in cells)
            self._headed[key] = found
        return found

    def titles(self) -> list[str]:
        """The texts of the table's titles (one written cell over several value columns,
        in a pipe table's header rows or a loader's header line)."""
        found = [next(iter(row.texts.values())) for row in self.blocks[0].rows if row.title]
        return [*found, self.title_name] if self.title_name else [t for t in found if t]

    # -- header blocks

    def _block(self, header_rows: range, start: int, *, repeated: bool) -> _Block:
        """The header texts of each column read from ``header_rows`` (module docstring)."""
        rows = self.table.rows
        grid: list[list[tuple[Key, str]]] = []
        rows_of: list[int] = []
        for r in header_rows:
            if not self.table.pipe and r == 0 and not repeated:
                continue  # a loader's header line: each cell's own header name
            grid.append([(self.keys[r][i], c.text) for i, c in enumerate(rows[r][1])])
            rows_of.append(r)
        quarters = _bare_quarters([rows[r][1] for r in header_rows])
        if quarters:  # "First | Second | Third | Fourth": the quarters of the year
            grid = [[(k, f"{t} Quarter" if _is_ordinal(t) else t) for k, t in row] for row in grid]
        found: list[_HeaderRow] = []
        titles: list[tuple[str, int]] = []
        for n, row in enumerate(grid):
            written = [t for _, t in row if t]
            title = len(written) == 1 and self.value_columns > 1 and self.table.pipe
            if title and (header_kind(written[0]) in _NAMING or part_of_year(written[0])):
                period = period_of(written[0]) or split_period(written[0])[0]  # "Range 2018"
                if period is not None:
                    titles.append(period)
            widths: dict[str, int] = {}
            if not self.table.pipe:
                for key, _ in row:
                    widths[key[0]] = widths.get(key[0], 0) + 1
            placed = (
                {}
                if self.table.pipe
                else dict(zip(self.placed[rows_of[n]], [t for _, t in row], strict=True))
            )
            found.append(_HeaderRow(dict(_spans(row, grid[n + 1 :])), title, widths, placed))
        if self.title_name and not repeated:  # a loader's header line naming one column
            period = period_of(self.title_name) or split_period(self.title_name)[0]
            if period is not None:
                titles.append(period)
        stub = rows[header_rows.start][0].strip() if len(header_rows) else ""
        if self.keyed and not repeated and rows[0][1] and rows[0][1][0].text not in self._used:
            stub = rows[0][1][0].text  # a loader's header line: its first cell names no column
        if not titles and stub and (period := period_of(stub)) is not None:
            titles.append(period)  # the stub header names the table's period: "30 June 2019"
        part = None
        if stub and period_of(stub) is None and part_of_year(stub) is not None:
            part = read_scope(stub.split()).period_part  # "Quarters Ended" over the dates
        named = titles[-1] if titles else None
        return _Block(start, tuple(found), named, repeated, quarters, part)

    def _repeated_blocks(self) -> list[_Block]:
        """Header rows repeated below the first figures, naming another period ("Dec 30,
        2017 | Acquisitions | …", "As of December 31, 2018" over the same columns): the
        rows under them, to the next such block, read their columns from them."""
        found: list[_Block] = []
        rows = self.table.rows
        r = self.header_rows + 1
        while r < len(rows):
            if not _names_a_period(rows[r][1]):
                r += 1
                continue
            end = r + 1
            while end < len(rows) and _is_header_like(rows[end][1]):
                end += 1
            found.append(self._block(range(r, end), end, repeated=True))
            r = end + 1
        return found

    # -- rows

    def group_row(self, row: int) -> str | None:
        """The words of a label-only row (written in the stub, or in the first column
        instead: ``| | Cloud and License Revenues: | | |``), else None."""
        label, cells = self.table.rows[row]
        if label and not any(c.text for c in cells):
            return label
        return _displaced_label(cells) or None if not label else None


def _spans(row: list[tuple[Key, str]], below: list[list[tuple[Key, str]]]) -> list[tuple[Key, str]]:
    """The header text over each column of one header row: a written cell's, or the one a
    merged cell to the left spans it with (module docstring)."""
    out: list[tuple[Key, str]] = []
    left, origin = "", None
    for key, text in row:
        if text:
            left, origin = text, key
        elif left and origin is not None and not _same_span(below, origin, key):
            left = ""
        if text or left:
            out.append((key, text or left))
    return out


@functools.lru_cache(maxsize=1 << 12)
def _worded(text: str) -> bool:
    """A header text that is words (or a percent sign), not a figure nor a caption (kept:
    every cell under a header reads it again)."""
    stripped = text.strip()
    if stripped in ("%", "(%)"):
        return True
    return re.search(r"[^\W\d]", stripped) is not None and find_caption(stripped) is None


def _displaced_label(cells: list[Cell]) -> str:
    """A label-only row whose words stand in the first column instead of the stub
    (``| | Cloud and License Revenues: | | |``): those words; else nothing."""
    written = [c.text for c in cells if c.text]
    if len(written) != 1 or not cells or cells[0].text != written[0]:
        return ""
    text = written[0]
    if is_value_cell(text) or header_kind(text) != "qualifier" or not text.rstrip().endswith(":"):
        return ""
    return text


def _names_a_period(cells: list[Cell]) -> bool:
    """A row below the figures that repeats the header: no value, a period among its cells."""
    return _is_header_like(cells) and any(
        header_kind(c.text) in ("period", "period and qualifier") for c in cells if c.text
    )


def _is_header_like(cells: list[Cell]) -> bool:
    """No value in any cell, and some cell after the first written."""
    return any(c.text for c in cells) and not any(is_value_cell(c.text) for c in cells)


def _keyed_by_name(table: Table) -> bool:
    return all(not c.column for c in table.rows[0][1]) and any(
        c.column for _, cells in table.rows[1:] for c in cells
    )


def model_of(table: Table) -> TableModel:
    """The model of ``table`` (read once: callers keep it per table)."""
    return TableModel(table)
