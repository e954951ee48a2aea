"""Amounts in table cells, scaled by the caption that governs them.

A table is found in the text in either of the two shapes osrag meets:

* a Markdown pipe table (``| Revenue | $ 831.7 |``, the separator row skipped);
* a table as the PDF/DOCX/HTML loaders write it (:func:`osrag.loaders.text.table_lines`):
  a header line of cells joined by `` | ``, then one line per row,
  ``Revenue — 2019: 831.7; 2018: 790.2`` (the text before `` — `` is the row's label,
  each ``Header: value`` one cell of that header's column).

Which caption governs a cell (nearest first): its row's own caption, stated in the row
label ("Optus (in A$ million)"); the cell's column header when it is a unit
(``2019 €m``, ``$'000``, ``(S$ million)``) or ends with a unit that names a currency
(``52 weeks ended 30 Mar 2019 £m``, ``USD denominated RMB’Million``); a caption cell or
line of the table itself above the cell (``(in millions, except per share amounts)``);
the block right before the table (the lead-in, "…as follows (in thousands):"); the
section's caption — a heading or
a short title-like block stating one ("NOTES TO FINANCIAL STATEMENTS (in thousands,
except per share data)"), which governs every later table until the next heading. A
lead-in ending with ``:`` governs only the table after it. No caption → nothing is
scaled.

Which cells are amounts: a cell that is one number — ``831.7``, ``$ 1,234``, ``(3.1)``,
``$(3.1)``, ``-5`` — and not a year (``2019`` written without grouping), not in a
percentage column or row, not in a per-share row ("per share", "EPS"), not in a count
row ("shares", "employees", "number of", …), not a row the caption excepts. Under a
caption, a bare cell (no currency sign) is money only when the caption names a
currency or a currency sign appears in the cell's row or column. The signs are those of
the currency table (:mod:`osrag.currencies`), also alone in a cell before the number
(``$ | 1,234``) and with a space before a lettered sign's ``$`` (``U.S. $ 5``); a sign
alone in a cell that no number follows (a ``$`` row under the years) or before a dash
(``$—``, nil) signs its own column. A cell
with a sign and no caption is its face value (``$(3.1)`` → −$3.10). Parentheses around a cell's
number are the accountant's minus: the amount is negative (``negative=True``; the
stored value stays the magnitude, as for every amount).

A cell, a row label and a column header are read to ``CELL_CHARS`` characters
(:mod:`osrag.lexicon.bounds`): a longer one is cut and ends with ``…`` — it holds no
value then, and the label read from it is cut. The chunk's text keeps every cell whole.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from osrag.currencies import (
    CODES,
    DOLLAR,
    LETTER_SIGNS,
    LONG_MAX,
    SIGN_CHARACTERS,
    SIGNS,
    dollar_currency,
)
from osrag.errors import ExtractionError
from osrag.extract.facts.labels import is_dependent
from osrag.extract.money import (
    SIGN_CLASS,
    MoneyMention,
    alternation,
    ascii_digits,
    minor_unit_exponent,
    sign_pattern,
)
from osrag.extract.scale import Caption, find_caption, parse_caption
from osrag.lexicon.bounds import CELL_CHARS, shorten

__all__ = [
    "Cell",
    "CellAmount",
    "Table",
    "find_tables",
    "is_value_cell",
    "table_amounts",
    "table_cells",
]

_SIGN_RE = sign_pattern(spaced=True)
"""Every sign of the currency table (``$``, ``US$``, ``U.S. $``, ``€``, ``Rs.``, ``₩``…)."""
_NUMBER_CELL = re.compile(
    rf"(?P<s1>{_SIGN_RE})?\s*(?P<open>\()?\s*(?P<s2>{_SIGN_RE})?\s*(?P<minus>[-−–])?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<close>\))?"
    r"(?:\s*\(\d\)|\s*\*{1,3})?"  # a footnote marker: "(1)", "*"
)
_number_cell = functools.lru_cache(maxsize=1 << 13)(_NUMBER_CELL.fullmatch)
"""``_NUMBER_CELL.fullmatch``, memoised: a table's cells are read by several rules (its
header rows, its signed columns, each cell's amount) and the same figures recur."""
_PER_SHARE = re.compile(r"(?i)per[\s-]+(?:\w+\s+){0,2}share|\beps\b|per\s+(?:unit|ads)\b")
_COUNT = re.compile(
    r"(?i)\bshares\b|\bshare count\b|\bemployees\b|\bnumber of\b|\bheadcount\b|"
    r"\bcustomers\b|\bstores\b|\bdays\b|\bmonths\b|\(in years\)|\bratio\b|\bpercent|%|"
    r"\brate\b|\bbasis points\b|\bsubscribers\b|\bpeople\b"
)
"""Row labels of counts and ratios: their bare cells are not money."""
_COUNT_HEADER = re.compile(
    r"(?i)\bshares\b|\bnumber of\b|\bemployees\b|\bheadcount\b|\bratio\b|\bpercent|%|"
    r"\((?:in\s+)?(?:years?|months?|days?|weeks?|hours?|#|no\.)\)|"
    r"\b(?:useful|remaining|estimated|average|weighted[- ]average|contractual)\s+"
    r"(?:useful\s+|contractual\s+)?(?:lives?|life|terms?)\b|\blife\s*\(|"
    r"\byears?\s+(?:remaining|to\s+maturity|outstanding)\b|\bduration\b|^\s*(?:years?|months?|days?)\s*$"
)
"""Column headers of counts, durations and ratios ("Total number of shares purchased",
"Term (years)", "Remaining useful life", "Shares (#)")."""
_HEADER_CURRENCY = re.compile(
    rf"\((?:in\s+)?(?P<sign>{sign_pattern(spaced=True)}|\b(?:{alternation(list(CODES))})\b)\)\s*$"
)
"""A column header that states its currency and no scale: ``Target ($)``, ``Fee (USD)``,
``Amount (in €)``."""
_PERCENT_HEADER = re.compile(r"(?i)%|percent")
_YEAR = re.compile(r"(?:19|20)\d\d(?:\s*\((?:\d{1,2}|[a-z])\)|\s*[*†‡]+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)?")
"""A year, with a footnote marker if one follows it (``2019 (1)``, ``2019*``, ``2019¹``):
never money."""
_VALUE_LIKE = re.compile(
    r"(?i)[-–—]+|nil|n/?a|n\.m\.|\(?[-−–]?\d[\d,]*(?:\.\d+)?\)?\s*%|"
    rf"{SIGN_CLASS}\s*[-–—]+"
)
"""Cells that stand where values stand without being one (a dash, ``nil``, ``12.5%``)."""
_SIGNED_NIL = re.compile(rf"\s*(?P<sign>{_SIGN_RE})\s*[-–—]+\s*")
"""A currency sign before a dash (``$—``: nil, in dollars): it signs its column."""
_DASHES = frozenset("-–—")
_HEADING = re.compile(r"#{1,6}\s")
_LOADER_ROW = re.compile(r"(?P<label>.*?) — (?P<rest>.+)")
_SIGN_CHARS = re.compile(
    rf"{SIGN_CLASS}(?:[ \t]*\(?[ \t]*\d|[ \t]*(?:\||;|$)|\)[ \t]*(?:\||:|$))", re.MULTILINE
)
"""A currency sign before figures, alone in its cell, or alone in a header's parentheses
(``Target ($)``): without a caption, a table without one states no amount."""
_HEADER_CODE = re.compile(rf"\((?:in\s+)?(?:{alternation(list(CODES))})\)[ \t]*(?:\||:|$)", re.M)
"""A currency code alone in a header's parentheses (``Fee (USD)``)."""
_LETTER_STEMS = [s for s in LETTER_SIGNS if not any(o != s and o in s for o in LETTER_SIGNS)]
_LETTER_SIGNED = re.compile(
    rf"(?<![A-Za-z])(?:{alternation(list(LETTER_SIGNS))})(?:[ \t]*\(?[ \t]*\d|[ \t]*(?:\||;|$))",
    re.MULTILINE,
)
"""The same for a lettered sign (``Rs. 5``), looked for only where its letters are."""
_PIPE_ROW = re.compile(r"(?m)^[ \t]*\|")
_UNIT_HINT = re.compile(
    rf"[{re.escape(SIGN_CHARACTERS)}'’(][ \t]?(?:000|m\b|M\b|bn\b|mn\b)|000['’]?s\b"
)
"""A unit: a sign, quote or parenthesis before ``000``, ``m``, ``bn``, ``mn``."""
_LETTERED_UNIT = re.compile(r"[A-Z](?P<rest>[A-Za-z]{2}|s\.?)[ \t]?(?:000|m\b|M\b|bn\b|mn\b)")
"""A unit after letters that may be a code or a lettered sign, capitalised (``EUR m``,
``Eur m``, ``Rs. mn``; :data:`_LETTERED` says which are): a table whose only unit is a
lower-case code ("eur m") states no scale to :func:`_states_a_scale`."""
_LETTERED = frozenset(
    [*(code.title() for code in CODES), *CODES, *(s.rstrip(".") for s in LETTER_SIGNS)]
)


def _signed(text: str, start: int, end: int | None = None) -> bool:
    """A currency sign before figures or alone in its cell in ``text[start:end]``."""
    stop = len(text) if end is None else end
    if _SIGN_CHARS.search(text, start, stop) is not None:
        return True
    if ")" in text and _HEADER_CODE.search(text, start, stop) is not None:
        return True
    return (
        any(s in text for s in _LETTER_STEMS)
        and _LETTER_SIGNED.search(text, start, stop) is not None
    )


def _states_a_scale(text: str, pos: int) -> bool:
    """False when ``text[pos:]`` holds no caption: no scale word, no ``$'000``/``€m``/
    ``EUR m`` unit. (``str.lower`` and ``in`` are many times faster here than a case-blind
    regex; the unit patterns run only where a piece of a unit is found.)"""
    lowered = text[pos:].lower()
    if "thousand" in lowered or "million" in lowered or "billion" in lowered:
        return True
    if "lakh" in lowered or "crore" in lowered or (" lac" in lowered and _LACS.search(lowered)):
        return True
    if ("000" in lowered or _SIGN_UNIT.search(lowered)) and _UNIT_HINT.search(text, pos):
        return True
    for unit in _LETTERED_UNIT.finditer(text, pos):
        start = unit.start()
        letters = text[start] + unit.group("rest").rstrip(".")
        if letters in _LETTERED and not (start and text[start - 1].isalpha()):
            return True
    return False


_LACS = re.compile(r"\blacs?\b")
_SIGN_UNIT = re.compile(rf"{SIGN_CLASS}[ \t]?(?:m|bn|mn)")
"""A sign before a unit (in lower case): ``$m``, ``€ bn``."""


@dataclass(slots=True)
class Cell:
    text: str
    start: int
    column: str


@dataclass(slots=True)
class Table:
    start: int
    end: int
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)
    """Each row: its label (first cell) and its other cells."""
    pipe: bool = True
    """A Markdown pipe table (cells keyed by column number); else a loader's table (cells
    keyed by their header's text)."""


def _blocks(text: str, pos: int) -> Iterator[list[tuple[int, str]]]:
    """Runs of non-blank lines, each line with its offset."""
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


def _read(cell: str) -> str:
    """A cell as the table reader reads it: within ``CELL_CHARS``, marked when cut."""
    return cell if len(cell) <= CELL_CHARS else shorten(cell, CELL_CHARS)


def _pipe_cells(offset: int, line: str) -> list[Cell]:
    """A pipe-table row's cells (empty inner cells kept: they hold a column's place)."""
    cells: list[Cell] = []
    start = 0
    parts = re.split(r"(?<!\\)\|", line)
    for i, part in enumerate(parts):
        if not (i == 0 or i == len(parts) - 1) or part.strip():
            lead = len(part) - len(part.lstrip())
            cells.append(Cell(_read(part.strip()), offset + start + lead, str(len(cells))))
        start += len(part) + 1
    return cells


def _pipe_table(block: list[tuple[int, str]]) -> Table:
    table = Table(block[0][0], block[-1][0] + len(block[-1][1]))
    for offset, line in block:
        if re.fullmatch(r"\s*\|?(?:\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*\|?\s*", line):
            continue  # the separator row
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
        if lone and not (_number_cell(line.strip()) or parse_caption(line)):
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
    if len(block) < 2 or _HEADING.match(block[0][1]):
        return False
    rows = sum(1 for _, line in block[1:] if " — " in line or "; " in line)
    return rows * 2 >= len(block) - 1 and (" | " in block[0][1] or rows >= 2)


def find_tables(
    text: str, pos: int = 0, *, captions: bool = True
) -> Iterator[tuple[Table, Caption | None]]:
    """Each table in ``text[pos:]`` with the caption stated before it (lead-in or section);
    ``captions=False`` skips looking for them (a text that states none)."""
    section: Caption | None = None
    lead: Caption | None = None  # the caption of the block right before, read once
    for block in _blocks(text, pos):
        pipe = _is_pipe_table(block)
        if pipe or _is_loader_table(block):
            table = _pipe_table(block) if pipe else _loader_table(block)
            yield table, lead or section
            lead = None
            continue
        if not captions:
            continue
        for offset, line in block:
            if _HEADING.match(line):
                section = find_caption(line, offset)
        caption = _block_caption(block)
        if caption is not None and _titles_section(" ".join(line for _, line in block), caption):
            section = caption
        lead = caption


def _titles_section(block: str, caption: Caption) -> bool:
    """A caption that governs the section: a short title-like block, or one ending in it
    ("NOTES TO FINANCIAL STATEMENTS (in thousands, except per share data)"); a lead-in
    ending with ":" governs only the table after it."""
    stripped = block.rstrip()
    if stripped.endswith(":"):
        return False
    return len(stripped.split()) <= 30 or stripped.rstrip(".").endswith(caption.text)


def _block_caption(block: list[tuple[int, str]]) -> Caption | None:
    found = None
    for offset, line in block:
        if not _HEADING.match(line):
            found = find_caption(line, offset) or found
    return found


def _row_caption(cells: list[Cell], label: str) -> Caption | None:
    """A caption written as a row of the table: a caption cell (or label) beside nothing
    but years and words ("($ in millions) | 2019 | 2018")."""
    if any(_number_cell(c.text) and not _is_year(c.text) for c in cells):
        return None
    texts = [t for t in [label, *(c.text for c in cells)] if t]
    units = [parse_caption(t) for t in texts]
    if texts and all(units) and len({u.text for u in units if u}) == 1:
        return units[0]  # a row of units alone ("€m", "US$'000" in every column)
    if label and units[0] is not None:
        return units[0]  # the stub header states the unit ("| £m | 2019 | 2018 |")
    loader_header = not label and cells and not cells[0].column
    if loader_header and units[0] is not None and _YEAR.search(cells[0].text) is None:
        return units[0]  # a loader's header line starting with the unit: "£m | 2019 | 2018"
    for candidate in [label, *(c.text for c in cells)]:
        caption = find_caption(candidate) if candidate else None
        if caption is not None and _is_whole_table(caption):
            return caption
    return None


def _label_caption(label: str) -> Caption | None:
    """A data row's own caption: "Net income - (in thousands) | $54,229 | …", "Revenue
    (£m) | 1,234 | …"."""
    if "(" not in label:
        return None
    caption = find_caption(label)
    if caption is None and (sign := _header_sign(label)) is not None:
        at = label.rfind("(")
        return Caption(0, sign, label[at:].strip(), at, len(label.rstrip()))  # "Price ($)"
    return caption


def _column_captions(table: Table) -> dict[str, Caption]:
    """Units stated in a column's header cells (``2019 €m``, ``$'000``), by column key."""
    found: dict[str, Caption] = {}
    for _, cells in table.rows:
        for cell in cells:
            if cell.column and cell.column not in found:  # a loader row names its column
                caption = parse_caption(cell.column) or _trailing_unit(cell.column, 0)
                if caption is not None and "in" not in cell.column.lower().split():
                    found[cell.column] = caption
            if _number_cell(cell.text) is None and cell.text:
                caption = parse_caption(cell.text, cell.start) or _trailing_unit(
                    cell.text, cell.start
                )
                key = cell.column  # a pipe table's column number, or the loader's header
                if caption is not None and key and not _is_whole_table(caption):
                    found.setdefault(key, caption)
    return found


def _trailing_unit(text: str, start: int) -> Caption | None:
    """A currency unit that ends a header among words: ``52 weeks ended 30 Mar 2019 £m``,
    ``USD denominated RMB'Million``, ``Financial assets 2019 RMB'000`` (a unit naming no
    currency, ``000s``, may be a count's: not read here)."""
    words = text.split()
    if len(words) < 2 or not _states_a_scale(words[-1], 0):
        return None
    caption = parse_caption(words[-1])
    if caption is None or caption.currency is None:
        return None
    at = text.rfind(words[-1])
    return Caption(caption.exponent, caption.currency, words[-1], start + at, start + len(text))


def _is_whole_table(caption: Caption) -> bool:
    return bool(re.search(r"(?i)\bin\b", caption.text))


def table_amounts(text: str, default_currency: str = "USD", *, pos: int = 0) -> list[MoneyMention]:
    """Every amount stated as a table cell in ``text[pos:]``, scaled by its caption.

    Digits in any script are read as ASCII (:func:`~osrag.extract.money.ascii_digits`);
    each amount's ``raw`` is the text as written."""
    return [found.mention for found in table_cells(text, default_currency, pos=pos)]


@dataclass(frozen=True, slots=True)
class CellAmount:
    """An amount read from a table cell, with where it stands: ``table.rows[row]``'s
    ``cell``-th cell (what its label and period are read from)."""

    mention: MoneyMention
    table: Table
    row: int
    cell: int


def table_cells(text: str, default_currency: str = "USD", *, pos: int = 0) -> list[CellAmount]:
    """:func:`table_amounts` with the table, row and cell of each amount."""
    if " — " not in text and ("|" not in text or _PIPE_ROW.search(text, pos) is None):
        return []  # neither a pipe-table row nor a row the loaders wrote
    read = ascii_digits(text)
    hinted = _states_a_scale(read, pos)
    if not hinted and not _signed(read, pos):
        return []  # no caption and no currency sign: no cell can be an amount
    found: list[CellAmount] = []
    for table, before in find_tables(read, pos, captions=hinted):
        if hinted or _signed(read, table.start, table.end):
            found.extend(_amounts(text, table, before if hinted else None, default_currency))
    return found


def _amounts(
    text: str, table: Table, before: Caption | None, default_currency: str
) -> Iterator[CellAmount]:
    columns = _column_captions(table)
    signs = _signed_columns(table)
    headers = _column_headers(table) if table.pipe else {}
    subheaders = {} if table.pipe else _loader_subheaders(table)
    caption = before
    group = ""  # "Weighted-average shares outstanding:" names the dependent rows under it
    for r, (label, cells) in enumerate(table.rows):
        row_caption = _row_caption(cells, label)
        if row_caption is not None:
            caption = row_caption
            continue
        if not any(c.text for c in cells):
            group = label
            continue
        if _is_year_row(cells):
            continue
        own = _label_caption(label)
        named = ""  # a loader row names a merged header's first column only: the rest inherit
        row_sign = next((s for c in cells if (s := _sign_of(c.text))), None)
        quantity = f"{label} {group}" if group and _governs(group, label) else label
        seen: dict[str, int] = {}  # a loader row's cells of each header name so far
        for i, cell in enumerate(cells):
            named = cell.column or named
            left, right = _neighbours(cells, i)
            if right.startswith("%"):
                continue  # "12.5 | %": the percent sign in a cell of its own
            if table.pipe:
                header = headers.get(cell.column, named)
            else:
                k = seen[named] = seen.get(named, -1) + 1
                header = f"{named} {subheaders.get((named, k), '')}".strip()
            mention = _cell_amount(
                text,
                cell,
                quantity,
                header,
                own or columns.get(cell.column) or caption,
                nearby_sign=row_sign or signs.get(cell.column),
                column_sign=signs.get(cell.column),
                default_currency=default_currency,
                split=(_lone_sign(left), right.startswith(")")),
            )
            if mention is not None:
                yield CellAmount(mention, table, r, i)


_HEAD_END = re.compile(
    r"(?i)\s(?:of|at|in|for|used|to|from|by|under|with|on|as|related|relating|attributable)\s"
)


def _governs(group: str, label: str) -> bool:
    """Whether a group row's words reach the row under it for the count, percentage and
    per-share rules: always for a row label that names nothing alone ("Basic" under
    "Weighted-average shares:"); for any row when the group names what its rows count
    ("Calendar-ship-days", "Shares used in computing …:", "Percentage of revenue:",
    "Per share data:") — not when shares are only its topic ("Repurchases of common
    shares:", "Share repurchases:": its rows may be money)."""
    if is_dependent(label) or _PER_SHARE.search(group):
        return True
    head = _HEAD_END.split(group, maxsplit=1)[0]
    return bool(_COUNT.search(head)) or group.lower().lstrip().startswith("number of")


def _neighbours(cells: list[Cell], i: int) -> tuple[str, str]:
    """The texts of the cells either side: filings' HTML often puts ``$``, ``)`` and ``%``
    in cells of their own (``$ | (1,234 | )``)."""
    before = cells[i - 1].text.strip() if i else ""
    after = cells[i + 1].text.strip() if i + 1 < len(cells) else ""
    return before, after


def _column_headers(table: Table) -> dict[str, str]:
    """A pipe table's column key → the words written above its numbers (its header)."""
    headers: dict[str, list[str]] = {}
    rows: list[list[Cell]] = []
    for _, cells in table.rows:
        if any(_number_cell(c.text) and not _is_year(c.text) for c in cells):
            break
        rows.append(cells)
    for r, cells in enumerate(rows):
        left, origin = "", ""  # a merged header cell leaves its right neighbours empty:
        for cell in cells:  # they inherit it, up to a column of another kind below
            words = re.search(r"[^\W\d]", cell.text) is not None or cell.text in ("%", "(%)")
            if not cell.column.isdigit() or (cell.text and not words):
                continue
            if cell.text and find_caption(cell.text) is not None:
                continue
            if cell.text:
                left, origin = cell.text, cell.column
            elif left and not _same_span(rows[r + 1 :], origin, cell.column):
                left = ""
            if cell.text or left:
                headers.setdefault(cell.column, []).append(cell.text or left)
    return {key: _read(" ".join(words)) for key, words in headers.items()}


def _same_span(below: list[list[Cell]], written: str, empty: str) -> bool:
    """Whether a header written over column ``written`` reaches the empty cell of column
    ``empty`` to its right: it does unless the lowest header row naming both columns
    names them differently in kind — a year under one, words under the other
    (``Percent Change`` over ``Actual | Constant`` does not reach ``2018``)."""
    for cells in reversed(below):
        texts = {c.column: c.text.strip() for c in cells}
        a, b = texts.get(written, ""), texts.get(empty, "")
        if a and b:
            return _is_year(a) == _is_year(b)
    return True


def _loader_subheaders(table: Table) -> dict[tuple[str, int], str]:
    """A loader table's second header rows (``2019: $m; 2019: %``), by header name and
    the cell's place among the cells of that name in its row."""
    found: dict[tuple[str, int], list[str]] = {}
    for _, cells in table.rows[1:]:
        if any(is_value_cell(c.text) for c in cells):
            break
        seen: dict[str, int] = {}
        for cell in cells:
            k = seen[cell.column] = seen.get(cell.column, -1) + 1
            if cell.text and (re.search(r"[^\W\d]", cell.text) or cell.text in ("%", "(%)")):
                found.setdefault((cell.column, k), []).append(cell.text)
    return {key: _read(" ".join(words)) for key, words in found.items()}


def _signed_columns(table: Table) -> dict[str, str]:
    """The first currency sign written in each column's cells."""
    signs: dict[str, str] = {}
    for _, cells in table.rows:
        for i, cell in enumerate(cells):
            stated = _header_sign(cell.column) if cell.column else None
            if stated is not None:
                signs.setdefault(cell.column, stated)  # a loader cell under "Target ($)"
            if _number_cell(cell.text) is None and (stated := _header_sign(cell.text)):
                signs.setdefault(cell.column, stated)  # a header cell "Target ($)"
            sign = _sign_of(cell.text)
            if sign is not None:
                lone = _lone_sign(cell.text) and i + 1 < len(cells)
                if lone and _number_cell(cells[i + 1].text):
                    signs.setdefault(cells[i + 1].column, sign)  # "$ | 1,234": the next column
                else:
                    signs.setdefault(cell.column, sign)
            elif cell.text[-1:] in _DASHES and (nil := _SIGNED_NIL.fullmatch(cell.text)):
                signs.setdefault(cell.column, "".join(nil.group("sign").split()))  # "$—"
    return signs


@functools.lru_cache(maxsize=1 << 10)
def _header_sign(header: str) -> str | None:
    """The currency a column header states alone in parentheses (``Target ($)``)."""
    if ")" not in header:
        return None
    match = _HEADER_CURRENCY.search(header)
    return None if match is None else "".join(match.group("sign").split())


@functools.lru_cache(maxsize=1 << 10)
def _lone_sign(cell: str) -> str | None:
    """The sign a cell holds alone (``$``, ``U.S. $``, ``Rs.``): it signs the number in
    the next cell."""
    compact = "".join(cell.split())
    return compact if compact in SIGNS else None


@functools.lru_cache(maxsize=1 << 13)
def _sign_of(cell: str) -> str | None:
    lone = _lone_sign(cell)
    if lone is not None:
        return lone
    match = _number_cell(cell)
    if match is None:
        return None
    sign = match.group("s1") or match.group("s2")
    return re.sub(r"\s+", "", sign) if sign else None


def _is_year_row(cells: list[Cell]) -> bool:
    numbers = [c for c in cells if _number_cell(c.text)]
    return bool(numbers) and all(_is_year(c.text) for c in numbers)


def _is_year(cell: str) -> bool:
    return _YEAR.fullmatch(cell.strip()) is not None


def is_value_cell(cell: str) -> bool:
    """A cell that holds a value: a number that is not a year, a percentage, a dash."""
    stripped = cell.strip()
    if not stripped:
        return False
    if _number_cell(stripped):
        return not _is_year(stripped)
    return _VALUE_LIKE.fullmatch(stripped) is not None


def _cell_amount(
    text: str,
    cell: Cell,
    label: str,
    header: str,
    caption: Caption | None,
    *,
    nearby_sign: str | None,
    column_sign: str | None,
    default_currency: str,
    split: tuple[str | None, bool] = (None, False),
) -> MoneyMention | None:
    """The amount one cell states; ``split``: a sign in the cell before, a ``)`` after."""
    match = _number_cell(cell.text)
    sign_before, closed_after = split
    if match is None or _is_year(cell.text):
        return None
    if bool(match.group("open")) != bool(match.group("close") or closed_after):
        return None
    sign = _sign_of(cell.text) or sign_before
    if _PER_SHARE.search(label) or _PER_SHARE.search(header) or _PERCENT_HEADER.search(header):
        return None  # per-share figures are never scaled; a signed one is read as written
    if caption is not None and caption.except_shares and re.search(r"(?i)\bshares?\b", label):
        caption = None
    if sign is None:
        if _COUNT.search(label) or _COUNT_HEADER.search(header):
            return None
        if caption is None and column_sign is None:
            return None  # a bare number with no caption and no "$" in its column
        if caption is not None and caption.currency is None and nearby_sign is None:
            return None  # "(in thousands)" alone does not say the table is money
    currency = _currency(sign, caption, default_currency, nearby_sign)
    if currency is None:
        return None
    exponent = caption.exponent if caption is not None else 0
    try:
        value = Decimal(match.group("num").replace(",", "")).scaleb(
            exponent + minor_unit_exponent(currency)
        )
    except ExtractionError:  # an unknown currency code
        return None
    if value != value.to_integral_value() or value > LONG_MAX:
        return None  # a fraction of a minor unit, or beyond a long: never rounded or wrapped
    start = cell.start + match.start()
    end = cell.start + match.end("close" if match.group("close") else "num")
    return MoneyMention(
        start=start,
        end=end,
        raw=text[start:end],
        currency=currency,
        minor_units=int(value),
        negative=bool(match.group("open") or match.group("minus")),
        form="symbol" if sign else "code",
        scale=exponent,
        caption=caption.text if caption is not None and exponent else None,
    )


def _currency(
    sign: str | None, caption: Caption | None, default_currency: str, nearby_sign: str | None
) -> str | None:
    token = sign or (caption.currency if caption is not None else None) or nearby_sign
    if token is None:
        return None
    token = SIGNS.get(token, token)
    return dollar_currency(default_currency) if token == DOLLAR else token
