"""The part of a table a hit inside it needs: the header row and the caption above it.

A table is found in a run's text in either shape osrag meets
(:func:`osrag.extract.tables.find_tables`): a Markdown pipe table, or the loaders' table
lines (a header line of cells joined by `` | ``, then a line per row). For the first table
that meets a hit, the wanted parts are

* its **header**: the table's first line; in a pipe table also the separator row under
  it (``|---|---|``) and the rows after that state no figure — a second header row of
  years or dates, as annual reports write them (at most four lines in all);
* its **caption**: the block right before the table (the lead-in "…as follows (in
  thousands):", a "Table 3" line), when it is text of the document (not a heading
  restored between two chunks, which the breadcrumb names, and not another table);

each only when the hit's own text does not hold it already. A hit that starts inside a
table (a long table cut into several chunks) gets both; a hit that starts with its table
gets the caption; a hit outside any table gets nothing (its passage is itself).
"""

from __future__ import annotations

import re

from osrag.chunking.normalize import PARAGRAPH_BREAK
from osrag.extract.marks import YEAR_FIGURE
from osrag.extract.tables import find_tables
from osrag.search.passages.runs import Interval, Run

_SEPARATOR_ROW = re.compile(r"\s*\|?(?:\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*\|?\s*")
_FIGURE_CELL = re.compile(r"[$€£¥(\s-]*[-−–]?\s*\d[\d,.]*\s*\)?\s*%?")
HEADER_ROWS = 4
"""A pipe table's header holds at most this many lines (the separator row included)."""


def table_parts(run: Run, position: int) -> list[Interval]:
    """Header first, then caption: intervals of ``run.text`` the chunk at ``position``
    needs and does not hold (empty when it is not inside a table)."""
    p, q = run.places[position]
    text = run.text
    if run.tables is None:
        run.tables = _tables(text, len(text))
    for start, end in run.tables:
        if end <= p:
            continue
        if start >= q:
            break
        wanted: list[Interval] = []
        header = _header(text, start, end)
        if not _inside(header, p, q):
            wanted.append(header)
        caption = _caption(run, start)
        if caption is not None and not _inside(caption, p, q):
            wanted.append(caption)
        return wanted
    return []


def _tables(text: str, before: int) -> list[Interval]:
    """``[start, end)`` of each table that starts before ``before``, in order. A block of
    pipe rows is found here, without reading a cell; a block that may be in the loaders'
    shape is left to :func:`~osrag.extract.tables.find_tables`."""
    found: list[Interval] = []
    start = 0
    for gap in [*PARAGRAPH_BREAK.finditer(text), None]:
        end = gap.start() if gap is not None else len(text)
        block = text[start:end]
        first = start + len(block) - len(block.lstrip())
        if first >= before:
            break
        lines = block.strip().split("\n")
        if len(lines) >= 2 and all(line.lstrip().startswith("|") for line in lines):
            found.append((first, start + len(block.rstrip())))
        elif " — " in block:
            found += [
                (start + t.start, start + t.end) for t, _ in find_tables(block, 0, captions=False)
            ]
        if gap is None:
            break
        start = gap.end()
    return found


def _inside(part: Interval, p: int, q: int) -> bool:
    return p <= part[0] and part[1] <= q


def _line_end(text: str, at: int, limit: int) -> int:
    end = text.find("\n", at, limit)
    return limit if end < 0 else end


def _header(text: str, start: int, end: int) -> Interval:
    """The table's header (module rule): its first line; in a pipe table also the separator
    row under it and the rows after that state no figure (a second header row of years or
    dates, as annual reports write them), at most :data:`HEADER_ROWS` lines in all."""
    stop = _line_end(text, start, end)
    if not text[start:stop].lstrip().startswith("|"):
        return start, stop  # the loaders' header line
    for _ in range(HEADER_ROWS - 1):
        if stop >= end:
            break
        following = _line_end(text, stop + 1, end)
        line = text[stop + 1 : following]
        if not (_SEPARATOR_ROW.fullmatch(line) or _names_only(line)):
            break
        stop = following
    return start, stop


def _names_only(row: str) -> bool:
    """A pipe row none of whose cells is a figure (a year or a date is a name here)."""
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    return row.lstrip().startswith("|") and not any(
        _FIGURE_CELL.fullmatch(c) and not YEAR_FIGURE.fullmatch(c) for c in cells
    )


def _caption(run: Run, table_start: int) -> Interval | None:
    """The block right before the table, when it is the document's text and not a table."""
    text = run.text
    end = table_start
    while end > 0 and text[end - 1].isspace():
        end -= 1
    if end == 0:
        return None
    start = max((m.end() for m in PARAGRAPH_BREAK.finditer(text, 0, end)), default=0)
    while start < end and text[start].isspace():
        start += 1
    for a, b in run.joints:
        if a < end and start < b and text[a:b].strip():
            return None  # a heading restored between two chunks: the breadcrumb names it
    if next(find_tables(text[start:end], 0, captions=False), None) is not None:
        return None
    return start, end
