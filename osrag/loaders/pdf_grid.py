"""A table drawn cell by cell, its cells wrapped over lines (a PDF's grid of boxes).

Forms such as a certificate of insurance draw each cell of a row in turn, its text
wrapped inside the cell's box: PDFium reads one cell's lines down, then jumps back up to
the row's top for the next cell. Read line by line, such a table is a list of fragments
("Umbrella liability," / "occurrence" / "UMB" / "44-1907734" / "03/15/2024 03/15/2025
Each occurrence" / "$5,000,000; Aggregate" …). The rule that puts it together:

- **The grid**: from a line, the lines that follow while each either continues down
  (no gap wider than the table rule's, unless a line soon after jumps back into the gap:
  a row whose cells are set at its bottom) or jumps back up to start beside the lines
  already read — overlapping none of them, and not above the line before the grid (nor
  more than three lines above its first: a cell set at the bottom of its row starts
  higher) — are one region. It is a grid only when a line jumped back within its first
  forty lines, and it ends with the last line that did and the lines that wrap its cell
  (set right under it, from the left of one of its cells).
- **Visual lines**: the region's lines set at the same height are one line, their runs
  in order from left to right.
- **Rows**: a gap between visual lines clearly wider than the narrowest one (the space
  between a cell's wrapped lines) starts a new row; no such gap, no grid (every line is a
  row: the line-by-line table rule reads it).
- **Columns**: the first row is the header; its runs set one above the other (a header
  wrapped: "Policy" over "number") are one column, each header cell naming its column
  (the table rule's test). A run below belongs to the column its extent overlaps most
  (a column reaching halfway to the next header).
- **Wrapped ends**: where rows are set no further apart than a cell's lines, a row that
  fills a single cell the row above filled with others, starting in lower case or after
  an open end ("… per hour =", "…, and"), is the end of that cell.
- **Cells**: a cell's lines are joined by a space, or by ``"; "`` where a line ends with
  a figure and the next starts with a capital (a cell stacking "EACH OCCURRENCE $
  1,000,000" over "AGGREGATE $ 2,000,000": two items, not one phrase).

A region whose cells are mostly long (prose set in columns), whose rows mostly name
nothing in their first cell (a grid of figures), or whose body holds no figure at all (a
form's blank boxes: each cell is a field's caption — "Last name", "City or town, state,
and ZIP code" — with nothing filled in) is no grid.
"""

from __future__ import annotations

import re
from statistics import median

from osrag.loaders.pdf_lines import Line, Run
from osrag.loaders.pdf_structure import names_a_column

__all__ = ["grid_at", "next_jumps"]

_WIDE_GAP = 2.5
"""Line heights: a vertical gap wider than this ends a table (the line-by-line rule's)."""
_ROW_GAP = 0.2
"""Line heights a gap must exceed the narrowest gap between visual lines by to part rows."""
_SAME_LINE = 0.3
"""Line heights two lines' tops may differ by and still be one visual line."""
_TALL = 2.0
"""Line heights a line's box may span: a taller one is text set sideways."""
_FIRST_JUMP_WITHIN = 40
"""Lines from the start a grid's first jump back up must come within."""
_LOOK_AHEAD = 8
"""Lines read past a wide gap for one that jumps back into it."""
_CELL_ABOVE = 3.0
"""Line heights a cell of the first row may start above the row's first line read."""
_MAX_MEDIAN_CELL = 30
"""Characters: a region whose median cell is longer is prose in columns."""
_WORDED = re.compile(r"[^\W\d_]{2}")
_ENDS_WITH_FIGURE = re.compile(r"\d[\d,.]*\)?[;,]?\s*$")
_STARTS_WITH_CAPITAL = re.compile(r"\s*[A-Z]")
_FIGURE = re.compile(r"\d")


def _overlaps(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


def _beside(line: Line, region: list[Line]) -> bool:
    """Whether ``line`` overlaps no line of ``region`` set at its height."""
    for other in region:
        if _overlaps(line.top, line.bottom, other.top, other.bottom) <= 0:
            continue
        for run in line.runs:
            for seen in other.runs:
                if _overlaps(run.x0, run.x1, seen.x0, seen.x1) > 0:
                    return False
    return True


def _region(lines: list[Line], start: int) -> int:
    """End (exclusive) of the grid region from ``lines[start]``, or ``start`` if none."""
    first = lines[start]
    region = [first]
    bottom = first.bottom
    # a cell aligned to the bottom of its row starts above the row's first line read, but
    # never above the line before the grid (a jump up there is a new column of the page)
    unit = max(first.size, 4.0)
    ceiling = first.top - _CELL_ABOVE * unit
    if start > 0:
        ceiling = max(ceiling, lines[start - 1].bottom)
    jumped = 0  # after the last line that jumped back up
    end = start + 1
    while end < len(lines):
        line = lines[end]
        unit = max(line.size, 4.0)
        if line.heading or line.before or line.bottom - line.top > _TALL * unit:
            break  # a heading, or text set sideways (a margin's note): no cell
        if not jumped and end - start >= _FIRST_JUMP_WITHIN:
            break  # lines read one after the other: a page's text, not a grid
        if line.top < bottom - 0.5 * unit:  # starts above the lowest line read: a new cell
            if line.top < ceiling - _SAME_LINE * unit or not _beside(line, region):
                break
            jumped = end + 1
        elif line.top - bottom > _WIDE_GAP * unit and not _filled_later(lines, end, bottom):
            break
        region.append(line)
        bottom = max(bottom, line.bottom)
        end += 1
    if not jumped:
        return start
    # the grid ends with the cell that jumped last, its wrapped lines included: lines
    # below it, set apart or elsewhere, are what follows the grid
    end = jumped
    while end < len(lines) and _wraps(lines[end - 1], lines[end]):
        end += 1
    return end


def _filled_later(lines: list[Line], at: int, bottom: float) -> bool:
    """Whether a line soon after ``lines[at]`` jumps back into the gap above it: the gap is
    the top of a row whose cells are set at its bottom, not the end of the grid."""
    line = lines[at]
    for later in lines[at + 1 : at + 1 + _LOOK_AHEAD]:
        if later.top < line.top - _SAME_LINE * max(later.size, 4.0):
            return later.top >= bottom and later.x0 > line.x1
    return False


def _wraps(line: Line, below: Line) -> bool:
    """Whether ``below`` continues a cell of ``line``: set right under it, from its left."""
    unit = max(line.size, 4.0)
    return (
        not (below.heading or below.before)
        and 0 <= below.top - line.bottom <= _SAME_LINE * unit
        and any(abs(below.x0 - run.x0) <= unit for run in line.runs)
    )


def _visual_lines(region: list[Line]) -> list[tuple[float, float, float, list[Run]]]:
    """``(top, bottom, size, runs)`` of each visual line, top to bottom."""
    out: list[tuple[float, float, float, list[Run]]] = []
    for line in sorted(region, key=lambda item: item.top):
        if out and abs(line.top - out[-1][0]) <= _SAME_LINE * max(line.size, 4.0):
            top, low, size, runs = out[-1]
            out[-1] = (top, max(low, line.bottom), max(size, line.size), [*runs, *line.runs])
        else:
            out.append((line.top, line.bottom, line.size, list(line.runs)))
    return [(t, b, s, sorted(runs, key=lambda r: r.x0)) for t, b, s, runs in out]


def _rows(
    visual: list[tuple[float, float, float, list[Run]]],
) -> list[list[tuple[float, float, float, list[Run]]]] | None:
    """The visual lines grouped into rows at the wider gaps; None without any."""
    gaps: list[float] = []
    low = visual[0][1]
    for top, bottom, _, _ in visual[1:]:
        gaps.append(top - low)
        low = max(low, bottom)
    narrowest = min(gaps)
    size = median(s for _, _, s, _ in visual)
    limit = narrowest + _ROW_GAP * size
    if not any(gap > limit for gap in gaps):
        return None
    rows = [[visual[0]]]
    for gap, line in zip(gaps, visual[1:], strict=True):
        if gap > limit:
            rows.append([])
        rows[-1].append(line)
    return rows


def _columns(header: list[tuple[float, float, float, list[Run]]]) -> list[tuple[float, float]]:
    """The header's columns, left to right: runs one above the other are one column."""
    spans: list[tuple[float, float]] = []
    for run in sorted((run for *_, runs in header for run in runs), key=lambda r: r.x0):
        if spans and _overlaps(run.x0, run.x1, *spans[-1]) > 0:
            spans[-1] = (spans[-1][0], max(spans[-1][1], run.x1))
        else:
            spans.append((run.x0, run.x1))
    return spans


def _column_of(run: Run, spans: list[tuple[float, float]]) -> int:
    """The column whose extent ``run`` overlaps most: a column reaches halfway to its
    neighbours' headers (a header centred over left-aligned cells still owns them)."""
    best, best_overlap = 0, float("-inf")
    for k in range(len(spans)):
        left = (spans[k - 1][1] + spans[k][0]) / 2 if k else float("-inf")
        right = (spans[k][1] + spans[k + 1][0]) / 2 if k + 1 < len(spans) else float("inf")
        overlap = _overlaps(run.x0, run.x1, left, right)
        if overlap > best_overlap:
            best, best_overlap = k, overlap
    return best


_OPEN_END = re.compile(r"(?:[,=&/(+–—-]|\b(?:of|and|or|to|for|the|per|with|in|on|at|by))\s*$")
"""The end of a cell's text that its next line continues (a dangling mark or word)."""


def _continues(row: list[str], previous: list[str]) -> bool:
    """Whether ``row`` is the wrapped end of one cell of ``previous`` (rows apart by no
    wider gap than a cell's lines): it fills one cell, which ``previous`` filled with
    others, and starts in lower case or follows an open end ("per hour =")."""
    filled = [k for k, cell in enumerate(row) if cell]
    if len(filled) != 1 or sum(1 for cell in previous if cell) < 2:
        return False
    k = filled[0]
    return bool(previous[k]) and (row[k][:1].islower() or bool(_OPEN_END.search(previous[k])))


def _cells(
    row: list[tuple[float, float, float, list[Run]]], spans: list[tuple[float, float]]
) -> list[str]:
    """The text of each column's cell in ``row`` (see the module rule for the joins)."""
    parts: list[list[str]] = [[] for _ in spans]
    for *_, runs in row:
        line: list[list[str]] = [[] for _ in spans]
        for run in runs:
            line[_column_of(run, spans)].append(run.text)
        for k, words in enumerate(line):
            if words:
                parts[k].append(" ".join(words))
    return [_join(lines) for lines in parts]


def _join(lines: list[str]) -> str:
    out = ""
    for line in lines:
        if not out:
            out = line
        elif _ENDS_WITH_FIGURE.search(out) and _STARTS_WITH_CAPITAL.match(line):
            out = f"{out.rstrip(' ;,')}; {line}"
        else:
            out = f"{out} {line}"
    return out


def next_jumps(lines: list[Line]) -> list[int]:
    """For each line, the index of the next line that starts above the one before it ends
    (``len(lines)`` when none does): where a grid's first jump back up can be. Read once
    a page, so that most lines are known to start no grid without reading ahead."""
    out = [len(lines)] * len(lines)
    following = len(lines)
    for j in range(len(lines) - 1, -1, -1):
        out[j] = following
        if j and lines[j].top < lines[j - 1].bottom - 0.5 * max(lines[j].size, 4.0):
            following = j
    return out


def grid_at(
    lines: list[Line], start: int, jumps: list[int] | None = None
) -> tuple[int, list[list[str]]] | None:
    """``(end, rows)`` of a grid table whose header starts at ``lines[start]`` (the module
    rule), or None; ``jumps``: :func:`next_jumps` of ``lines``, when already read."""
    if lines[start].heading or lines[start].before:
        return None
    if jumps is not None:
        # the first jump back decides: too far ahead, or above where a cell may start
        first, at = lines[start], jumps[start]
        if at - start > _FIRST_JUMP_WITHIN or at >= len(lines):
            return None
        if lines[at].top < first.top - (_CELL_ABOVE + _SAME_LINE) * max(
            first.size, lines[at].size, 4.0
        ):
            return None
    end = _region(lines, start)
    if end == start:
        return None
    visual = _visual_lines(lines[start:end])
    if len(visual) < 3:
        return None
    grouped = _rows(visual)
    if grouped is None or len(grouped) < 2:
        return None
    spans = _columns(grouped[0])
    if len(spans) < 2:
        return None
    rows: list[list[str]] = []
    for row in grouped:
        cells = _cells(row, spans)
        if len(rows) > 1 and _continues(cells, rows[-1]):
            rows[-1] = [_join([a, b]) if b else a for a, b in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    if not all(cell and names_a_column(cell) for cell in rows[0]):
        return None
    body = rows[1:]
    if not any(sum(1 for cell in row if cell) >= 2 for row in body):
        return None
    if not any(_FIGURE.search(cell) for row in body for cell in row):
        return None  # a form's blank boxes: captions, nothing filled in
    if 2 * sum(1 for row in body if _WORDED.search(row[0])) < len(body):
        return None  # rows that name nothing (a grid of figures): read line by line
    if median(len(cell) for row in rows for cell in row if cell) > _MAX_MEDIAN_CELL:
        return None
    return end, rows
