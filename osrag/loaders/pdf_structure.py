"""The structure of a PDF's lines: running heads, headings (outline or font size), tables.

The rules are stated in :mod:`osrag.loaders.pdf`; these functions apply them to the
pages :func:`osrag.loaders.pdf_lines.page_lines` read.
"""

from __future__ import annotations

import re
from collections import Counter
from statistics import median
from typing import Any

from osrag.loaders.pdf_lines import Line, Page
from osrag.loaders.text import clean_inline

_BAND = 0.15
_RUNNING_MIN_PAGES = 3
_RUNNING_SHARE = 0.4
_HEADING_RATIO = 1.15
_MAX_HEADING_CHARS = 150
_DIGITS = re.compile(r"\d+")
_ALNUM = re.compile(r"[^0-9a-z]+")


# --------------------------------------------------------------------------- structure


def _running_key(line: Line) -> str:
    """The line's text with digits as ``#`` (page numbers differ) and its font size."""
    return f"{round(line.size)}:" + _DIGITS.sub("#", " ".join(line.text.split()))


def _running_lines(pages: list[Page]) -> set[str]:
    """Texts (digits as ``#``) of lines repeated in the top or bottom band of many pages."""
    if len(pages) < _RUNNING_MIN_PAGES:
        return set()
    seen: Counter[str] = Counter()
    for page in pages:
        keys = {
            _running_key(line)
            for line in page.lines
            if line.bottom <= page.height * _BAND or line.top >= page.height * (1 - _BAND)
        }
        seen.update(keys)
    need = max(_RUNNING_MIN_PAGES, _RUNNING_SHARE * len(pages))
    return {key for key, n in seen.items() if n >= need}


def drop_running(pages: list[Page]) -> None:
    running = _running_lines(pages)
    if not running:
        return
    for page in pages:
        page.lines = [
            line
            for line in page.lines
            if not (
                (line.bottom <= page.height * _BAND or line.top >= page.height * (1 - _BAND))
                and _running_key(line) in running
            )
        ]


def _norm(text: str) -> str:
    return _ALNUM.sub("", text.casefold())


def outline(pdf: Any) -> list[tuple[int, str, int, float | None]]:
    """``(level, title, page index, target y or None)`` of every bookmark, in order."""
    found: list[tuple[int, str, int, float | None]] = []
    try:
        for bookmark in pdf.get_toc(max_depth=6):
            title = clean_inline(bookmark.get_title() or "")
            dest = bookmark.get_dest()
            if not title or dest is None:
                continue
            index = dest.get_index()
            if index is None or index < 0:
                continue
            y: float | None = None
            mode, view = dest.get_view()
            if view and len(view) >= 2 and mode == 1:  # /XYZ left top zoom
                y = float(view[1]) if view[1] else None
            found.append((bookmark.level + 1, title, index, y))
    except Exception:  # a damaged outline is not worth losing the document over
        return []
    return found


def place_bookmarks(pages: list[Page], marks: list[tuple[int, str, int, float | None]]) -> None:
    """Mark the lines each bookmark names as headings (see the module rule)."""
    by_page: dict[int, list[tuple[int, str, float | None]]] = {}
    for level, title, index, y in marks:
        by_page.setdefault(index, []).append((level, title, y))
    for page in pages:
        cursor = 0
        for level, title, y in by_page.get(page.number - 1, []):
            cursor = _place(page, level, title, y, cursor)


def _place(page: Page, level: int, title: str, y: float | None, cursor: int) -> int:
    want = _norm(title)
    lines = page.lines
    if not want:
        return cursor
    # display y of the target (user space y up; the page's height flips it)
    target = None if y is None else page.height - y
    candidates = range(cursor, len(lines))
    if target is not None:
        near = [j for j in candidates if abs(lines[j].top - target) <= 48]
        rest = [j for j in candidates if j not in set(near)]
        order = near + rest
    else:
        order = list(candidates)
    for j in order:
        line = lines[j]
        if line.heading:
            continue
        got = _norm(line.text)
        if not got:
            continue
        if got == want or (len(got) >= 4 and want.startswith(got)):
            k, joined = j, got
            while (
                joined != want
                and k + 1 < len(lines)
                and want.startswith(joined + _norm(lines[k + 1].text))
            ):
                k += 1
                joined += _norm(lines[k].text)
            if joined == want:
                line.heading, line.heading_text = level, title
                for extra in lines[j + 1 : k + 1]:
                    extra.heading, extra.heading_text = -1, ""  # folded into the heading
                return k + 1
        if got.startswith(want) and len(want) >= 4:
            line.before.append((level, title))  # a run-in heading
            return j
    # nowhere on the page: before the first line below the target (or at the top)
    for j in range(cursor, len(lines)):
        if target is None or lines[j].top >= target - 2:
            lines[j].before.append((level, title))
            return j
    if lines:
        lines[-1].before.append((level, title))
    else:
        page.before.append((level, title))
    return cursor


def font_headings(pages: list[Page]) -> int:
    """Mark lines set larger than the body text as headings; return how many."""
    weight: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            weight[round(line.size, 1)] += len(line.text)
    if not weight:
        return 0
    body = weight.most_common(1)[0][0]
    sizes: set[float] = set()
    for page in pages:
        for line in page.lines:
            if _heading_like(line, body):
                sizes.add(round(line.size))
    levels = {size: rank + 1 for rank, size in enumerate(sorted(sizes, reverse=True))}
    found = 0
    for page in pages:
        previous: Line | None = None
        for line in page.lines:
            if _heading_like(line, body):
                level = levels[round(line.size)]
                if (
                    previous is not None
                    and previous.heading == level
                    and line.top - previous.bottom < line.size
                    and len(previous.heading_text) + len(line.text) <= _MAX_HEADING_CHARS
                ):
                    previous.heading_text += " " + line.text  # a heading set on two lines
                    line.heading = -1
                    continue
                line.heading, line.heading_text = level, line.text
                found += 1
                previous = line
            else:
                previous = None
    return found


def _heading_like(line: Line, body: float) -> bool:
    return (
        line.size >= body * _HEADING_RATIO
        and len(line.text) <= _MAX_HEADING_CHARS
        and len(line.runs) <= 2
        and sum(ch.isalpha() for ch in line.text) >= 2
    )


# --------------------------------------------------------------------------- tables


def table_at(lines: list[Line], start: int) -> int:
    """End (exclusive) of a table whose header is ``lines[start]``, or ``start`` if none."""
    header = lines[start]
    width = len(header.runs)
    if width < 2 or header.heading or header.before:
        return start
    if not all(names_a_column(run.text) for run in header.runs):
        return start  # a header row names its columns: no numbers, no long sentences
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.heading or line.before or not (2 <= len(line.runs) <= width):
            break
        if line.top - lines[end - 1].bottom > 2.5 * max(line.size, 4.0):
            break
        end += 1
    rows = lines[start:end]
    if end - start < 2:
        return start
    cells = [run.text for line in rows for run in line.runs]
    if median(len(c) for c in cells) > 30:
        return start  # prose set in columns, not a table
    return end


def names_a_column(cell: str) -> bool:
    """A header cell: words, short, no figure — or a year's column ("2023", "Fiscal 2023",
    "FY 2023", "Q4 2023"), a period's name, not a figure."""
    if _YEAR_COLUMN.fullmatch(cell.strip()):
        return True
    letters = sum(ch.isalpha() for ch in cell)
    digits = sum(ch.isdigit() for ch in cell)
    return letters >= 2 and digits <= letters // 2 and len(cell) <= 40


_YEAR_COLUMN = re.compile(r"(?i)(?:(?:fiscal(?:\s+year)?|fy|year|q[1-4]|h[12])\s*)?(?:19|20)\d\d")


def table_rows(lines: list[Line]) -> list[list[str]]:
    """Cells of each row, placed under the header column nearest their centre."""
    header = lines[0].runs
    centres = [(run.x0 + run.x1) / 2 for run in header]
    rows = [[run.text for run in header]]
    for line in lines[1:]:
        row = [""] * len(header)
        for run in line.runs:
            c = (run.x0 + run.x1) / 2
            k = min(range(len(centres)), key=lambda i: abs(centres[i] - c))
            row[k] = f"{row[k]} {run.text}".strip()
        rows.append(row)
    return rows
