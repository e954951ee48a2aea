"""Amounts in table cells, scaled by the caption that governs them.

A table is found in the text in any of the three shapes osrag meets — a Markdown pipe
table, a table as the PDF/DOCX/HTML loaders write it, or a plain-text table aligned with
spaces — and read once into the table
model (:mod:`osrag.extract.table_model`: its rows, header rows, spans, column keys and
value cells); the caption, currency and count rules below read the words written over each
cell from it.

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
scaled. A space-aligned table with no caption and no sign of its own, in a document that
writes one currency's sign before its figures elsewhere ("Direct deposit … $1,689.75"), is
in that currency in its columns of figures written in cents.

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
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
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
from osrag.extract.marks import LAKH, MARKDOWN_HEADING, SIGN, YEAR_FIGURE
from osrag.extract.money import (
    SIGN_CLASS,
    MoneyMention,
    alternation,
    ascii_digits,
    minor_unit_exponent,
    sign_pattern,
)
from osrag.extract.money.patterns import LETTER_STEMS
from osrag.extract.scale import Caption, declared_currencies, find_caption, parse_caption
from osrag.extract.table_model import (
    Cell,
    Table,
    TableModel,
    aligned_continues,
    blocks,
    is_value_cell,
    is_year,
    model_of,
    number_cell,
    table_of_block,
)
from osrag.lexicon.places import place_currency

__all__ = [
    "Cell",
    "CellAmount",
    "Table",
    "find_tables",
    "is_value_cell",
    "names_a_count",
    "table_amounts",
    "table_cells",
]

_number_cell = number_cell
_is_year = is_year
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
    r"\byears?\s+(?:remaining|to\s+maturity|outstanding)\b|\bduration\b|"
    r"^\s*(?:years?|months?|days?|hours?|hrs|qty|quantity|units)\s*$"
)
"""Column headers of counts, durations and ratios ("Total number of shares purchased",
"Term (years)", "Remaining useful life", "Shares (#)")."""
_MEASURE_KEY = re.compile(
    r"(?i)\b(?:hours?|hrs|units?|qty|quantity|version|miles?|mileage|weight|count)\b"
)
"""A key–value line's key that names a measure, not money ("Hours worked", "Units",
"Version")."""


def names_a_count(key: str) -> bool:
    """Whether a label or a key–value line's key names a count, a ratio, a duration or a
    measure ("Employees", "Tax rate", "Hours worked", "Version"): its bare figure is no
    amount of money, whatever currency the document declares."""
    return bool(_COUNT.search(key) or _COUNT_HEADER.search(key) or _MEASURE_KEY.search(key))


_HEADER_CURRENCY = re.compile(
    rf"\((?:in\s+)?(?P<sign>{sign_pattern(spaced=True)}|\b(?:{alternation(list(CODES))})\b)\)\s*$"
)
"""A column header that states its currency and no scale: ``Target ($)``, ``Fee (USD)``,
``Amount (in €)``."""
_PERCENT_HEADER = re.compile(r"(?i)%|percent")
_RATE_IN_HEADER = re.compile(r"\d(?:[\d.,]*\d)?\s*%")
"""A rate written in a column header ("VAT 19%", "Deposit (30%)"): the column names a
quantity charged at that rate."""
"""A year inside a cell's text."""
_SIGNED_NIL = re.compile(rf"\s*(?P<sign>{SIGN})\s*[-–—]+\s*")
"""A currency sign before a dash (``$—``: nil, in dollars): it signs its column."""
_DASHES = frozenset("-–—")
_SIGN_CHARS = re.compile(
    rf"{SIGN_CLASS}(?:[ \t]*\(?[ \t]*\d|[ \t]*(?:\||;|$)|\)[ \t]*(?:\||:|$))", re.MULTILINE
)
"""A currency sign before figures, alone in its cell, or alone in a header's parentheses
(``Target ($)``): without a caption, a table without one states no amount."""
_HEADER_CODE = re.compile(rf"\((?:in\s+)?(?:{alternation(list(CODES))})\)[ \t]*(?:\||:|$)", re.M)
"""A currency code alone in a header's parentheses (``Fee (USD)``)."""
_LETTER_SIGN_CELL = re.compile(
    rf"(?<![A-Za-z])(?:{alternation(list(LETTER_SIGNS))})(?:[ \t]*\(?[ \t]*\d|[ \t]*(?:\||;|$))",
    re.MULTILINE,
)
"""The same for a lettered sign (``Rs. 5``), looked for only where its letters are."""
_PIPE_ROW = re.compile(r"(?m)^[ \t]*\|")
_ALIGNED_ROW = re.compile(
    r"(?m)\S[ \t]{2,}\S*\d[\d,.]*\)?(?:[ \t]?/[ \t]?[A-Za-z]+|[ \t]+per[ \t]+[A-Za-z]+)?[ \t]*$"
)
"""A line ending with a figure two spaces or more after its text, the unit it is priced by
after it allowed ("$14.99/month"): maybe a space-aligned table's row."""
_UNIT_HINT = re.compile(
    rf"[{re.escape(SIGN_CHARACTERS)}'’(][ \t]?(?:000|m\b|M\b|bn\b|mn\b)|000['’]?s\b"
)
"""A unit: a sign, quote or parenthesis before ``000``, ``m``, ``bn``, ``mn``."""
_CAPITAL_LETTERED_UNIT = re.compile(
    r"[A-Z](?P<rest>[A-Za-z]{2}|s\.?)[ \t]?(?:000|m\b|M\b|bn\b|mn\b)"
)
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
        any(s in text for s in LETTER_STEMS)
        and _LETTER_SIGN_CELL.search(text, start, stop) is not None
    )


def _states_a_scale(text: str, pos: int) -> bool:
    """False when ``text[pos:]`` holds no caption: no scale word, no ``$'000``/``€m``/
    ``EUR m`` unit. (``str.lower`` and ``in`` are many times faster here than a case-blind
    regex; the unit patterns run only where a piece of a unit is found.)"""
    lowered = text[pos:].lower()
    if "thousand" in lowered or "million" in lowered or "billion" in lowered:
        return True
    if "lakh" in lowered or "crore" in lowered or (" lac" in lowered and LAKH.search(lowered)):
        return True
    if ("000" in lowered or _LOWER_SIGN_UNIT.search(lowered)) and _UNIT_HINT.search(text, pos):
        return True
    for unit in _CAPITAL_LETTERED_UNIT.finditer(text, pos):
        start = unit.start()
        letters = text[start] + unit.group("rest").rstrip(".")
        if letters in _LETTERED and not (start and text[start - 1].isalpha()):
            return True
    return False


_LOWER_SIGN_UNIT = re.compile(rf"{SIGN_CLASS}[ \t]?(?:m|bn|mn)")
"""A sign before a unit (in lower case): ``$m``, ``€ bn``."""


def find_tables(
    text: str, pos: int = 0, *, captions: bool = True
) -> Iterator[tuple[Table, Caption | None]]:
    """Each table in ``text[pos:]`` with the caption stated before it (lead-in or section);
    ``captions=False`` skips looking for them (a text that states none)."""
    section: Caption | None = None
    lead: Caption | None = None  # the caption of the block right before, read once
    for block in _joined(blocks(text, pos)):
        table = table_of_block(block)
        if table is not None:
            yield table, lead or section
            lead = None
            continue
        if not captions:
            continue
        for offset, line in block:
            if MARKDOWN_HEADING.match(line):
                section = find_caption(line, offset)
        caption = _block_caption(block)
        if caption is not None and _titles_section(" ".join(line for _, line in block), caption):
            section = caption
        lead = caption


def _joined(found: Iterator[list[tuple[int, str]]]) -> Iterator[list[tuple[int, str]]]:
    """The blocks, a space-aligned table's blocks after blank lines joined to it when they
    go on with its columns (a balance sheet's liabilities under its assets)."""
    held: list[tuple[int, str]] | None = None
    for block in found:
        if held is not None and aligned_continues(held, block):
            held = held + block
            continue
        if held is not None:
            yield held
        held = block
    if held is not None:
        yield held


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
        if not MARKDOWN_HEADING.match(line):
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
    if loader_header and units[0] is not None and YEAR_FIGURE.search(cells[0].text) is None:
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
    model: TableModel
    """The table's model, read once for its amounts and their facts."""


def table_cells(text: str, default_currency: str = "USD", *, pos: int = 0) -> list[CellAmount]:
    """:func:`table_amounts` with the table, row and cell of each amount."""
    if (
        " — " not in text
        and ("|" not in text or _PIPE_ROW.search(text, pos) is None)
        and ("  " not in text or _ALIGNED_ROW.search(text, pos) is None)
    ):
        return []  # no pipe-table row, row the loaders wrote or space-aligned row
    read = ascii_digits(text)
    hinted = _states_a_scale(read, pos)
    declared = declared_currencies(read, pos)
    signed_anywhere = _signed(read, pos)
    place = None
    if not hinted and not declared and not signed_anywhere:
        # no caption, no declared currency, no sign: a bill's bare columns are in the
        # currency of the one country its addresses are in, or no cell is an amount
        place = place_currency(read)
        if place is None:
            return []
    found: list[CellAmount] = []
    stated: str | None = ""  # the one currency sign the document writes ("": not looked for)
    for table, before in find_tables(read, pos, captions=hinted):
        currency = declared_at(declared, table.start)
        # a space-aligned bill is signed by its columns, not by a sign in a line's words
        # ("Sales tax 8.81% on materials ($1,737.40)   153.06", "(@ $0.05 per cubic
        # inch)"): with none in its columns, they take the document's one currency below
        signed = (
            bool(_signed_columns(table)) if table.aligned else _signed(read, table.start, table.end)
        )
        if hinted or currency is not None or signed:
            caption = before if hinted else None
            found.extend(_amounts(text, table, caption, default_currency, stated=currency))
        elif table.aligned:
            if stated == "":
                stated = _stated_sign(read, pos) if place is None else place
            if stated is not None:
                found.extend(_amounts(text, table, None, default_currency, stated=stated))
    return found


def declared_at(declared: list[tuple[int, str]], pos: int) -> str | None:
    """The currency the last declaration before ``pos`` names
    (:func:`~osrag.extract.scale.declared_currencies`), else None."""
    i = bisect.bisect_right(declared, (pos, "\uffff"))
    return declared[i - 1][1] if i else None


_SIGNED_FIGURE = re.compile(rf"(?P<sign>{SIGN})[ \t]?\(?\d")


def _stated_sign(text: str, pos: int) -> str | None:
    """The currency sign a document writes before its figures, when it writes only one
    currency's ("$1,689.75" in a pay stub's text): the currency of its space-aligned
    tables' figures written in cents."""
    currencies = {
        SIGNS.get(sign, sign): sign
        for m in _SIGNED_FIGURE.finditer(text, pos)
        if (sign := "".join(m.group("sign").split()))
    }
    return next(iter(currencies.values())) if len(currencies) == 1 else None


def _cents_columns(table: Table) -> set[str]:
    """The columns of a table whose figures are all written with two decimals (cents)."""
    written: dict[str, bool] = {}
    for _, cells in table.rows:
        for cell in cells:
            match = _number_cell(cell.text)
            if match is None or _is_year(cell.text):
                continue
            cents = re.fullmatch(r"[\d,]+\.\d\d", match.group("num")) is not None
            written[cell.column] = written.get(cell.column, True) and cents
    return {column for column, cents in written.items() if cents}


def _amounts(
    text: str,
    table: Table,
    before: Caption | None,
    default_currency: str,
    *,
    stated: str | None = None,
) -> Iterator[CellAmount]:
    """The amounts of one table's cells; ``stated``: the document's one currency sign,
    which signs a space-aligned table's columns of figures written in cents."""
    columns = _column_captions(table)
    signs = _signed_columns(table)
    if stated is not None:
        for column in _cents_columns(table):
            signs.setdefault(column, stated)
    model = model_of(table)
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
        row_sign = next((s for c in cells if (s := _sign_of(c.text))), None)
        quantity = f"{label} {group}" if group and _governs(group, label) else label
        for i, cell in enumerate(cells):
            if _number_cell(cell.text) is None or _is_year(cell.text):
                continue  # no figure, or a year: no amount (the header's words not read)
            left, right = _neighbours(cells, i)
            if right.startswith("%"):
                continue  # "12.5 | %": the percent sign in a cell of its own
            header = model.header_words(r, i)
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
                yield CellAmount(mention, table, r, i, model)


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


# A row's label is read for each of its cells and a column's header for each of its rows:
# what the patterns say of one text is kept (pure functions of the text).


@functools.lru_cache(maxsize=1 << 12)
def _per_share(text: str) -> bool:
    return _PER_SHARE.search(text) is not None


@functools.lru_cache(maxsize=1 << 12)
def _counted(label: str) -> bool:
    return _COUNT.search(label) is not None


@functools.lru_cache(maxsize=1 << 12)
def _charged_at_rate(label: str) -> bool:
    """Whether a row's label names a quantity charged at the rate it states ("NM gross
    receipts tax 7.625%", "Member discount 10% on clay"): under a column of money its
    figure is the amount charged, not a percentage; a label that, without its rate, still
    names a ratio or a count ("Effective tax rate 21%") stays one."""
    if _RATE_IN_HEADER.search(label) is None:
        return False
    named = _RATE_IN_HEADER.sub("", label).strip(" ()@,")
    return bool(named) and not _counted(named)


@functools.lru_cache(maxsize=1 << 12)
def _counted_header(header: str) -> bool:
    return _COUNT_HEADER.search(header) is not None


_SHARES_WORD = re.compile(r"(?i)\bshares?\b")


@functools.lru_cache(maxsize=1 << 12)
def _percent_column(header: str, sign: str | None) -> bool:
    """Whether a column's header says its figures are percentages: a percent sign or the
    word, unless the header names a quantity at a rate ("VAT 19%", "Tip (18%)") and the
    cell writes its currency ("€2.87"): that is the amount charged at the rate."""
    if not _PERCENT_HEADER.search(header):
        return False
    named_at_rate = _RATE_IN_HEADER.search(header) and _RATE_IN_HEADER.sub("", header).strip(" ()@")
    return not (sign and named_at_rate)


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
    if _per_share(label) or _per_share(header) or _percent_column(header, sign):
        return None  # per-share figures are never scaled; a signed one is read as written
    if caption is not None and caption.except_shares and _SHARES_WORD.search(label):
        caption = None
    if sign is None:
        counted = _counted(label) and not (column_sign and _charged_at_rate(label))
        if counted or _counted_header(header):
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
