"""PDF → Markdown-like text with a page map, read with PDFium (``pypdfium2``).

Library: ``pypdfium2`` (Apache-2.0 / BSD-3-Clause; PDFium itself is BSD-3 —
the engine of Chrome's PDF viewer), chosen over pypdf and pdfplumber /
pdfminer.six on the seven PDFs of ``shared/corpora/real-docs``
(``benchmarks/formats.py --libraries`` prints the comparison): in one run on
the 2-core machine, PDFium extracted their text at 106 pages/s (this loader,
with the structure below, 49 pages/s) where pypdf managed 4.5 and pdfplumber
1.5; it decodes the Senate table cleanly where pypdf with fontTools garbles
rows; it marks the hyphens it
added at line ends (U+FFFE), so de-hyphenation is exact instead of guessed;
it opens PDFs encrypted with an empty user password as every viewer does; and
it gives each character's box, which the rules below need. PyMuPDF (AGPL)
was not considered: its licence would bind users' code.

Rule, per page (pages are read one at a time and closed, so memory follows the
text, not the file):

- **Visible text only**: a word counts when the centre of its first
  character's box lies inside the page's crop box (clipped to the media box). Printers' slugs placed
  above the page are not indexed.
- **Reading order** is PDFium's: content-stream order, grouped into lines.
  Well-made multi-column PDFs (the IRS publications, the Federal Register) draw
  each column in turn, so a column is read to its end before the next.
- **Lines → blocks**: a new block starts where the vertical gap to the previous
  line exceeds half the line height, or where the text jumps back up the page
  (a new column). A hyphen PDFium flagged as added at a line end is removed and
  the word joined; a hyphen that is in the text is kept.
- **Running headers and footers**: a line in the top or bottom 15% of the page
  whose text (digits ignored) recurs in that band on at least 3 pages and 40% of
  them is a running head and is not indexed (documents of 3 pages or more).
- **Headings** come from the outline (bookmarks) when there is one: each
  bookmark (level = depth + 1) is matched to the line(s) on its page that read
  the same, near the bookmark's target position; a run-in heading ("Comments and
  suggestions. We welcome …") gets a heading line before its paragraph; an
  unmatched bookmark is inserted where it points. Without an outline, lines
  set at least 15% taller than the body text (the height covering most
  characters; heights, not font sizes, because PDFs that scale text by its matrix
  report size 1 for everything) are headings, one level per distinct size, largest first. Without
  either, the text is handed to the plain-text outline (numbered and
  upper-case headings). Weight alone is not used: bold at body size is, in
  the real PDFs here, run-in headings inside paragraphs ("SUMMARY:", "Comments
  and suggestions."), and cutting there would split a sentence from its rule.
- **Tables**: two or more consecutive lines (a header and a row) that split into two or more
  cells at wide gaps (more than the line height), whose first line names the
  columns and whose cells are short, are a table: each row is written with its
  header context (:func:`osrag.loaders.text.table_lines`).

Errors (:class:`~osrag.loaders.base.UnreadableFile`, naming the page where
there is one): a PDF that needs a password; a damaged or truncated file
PDFium cannot open; a page with more than :data:`MAX_PAGE_CHARS` characters or
a page that fails to load; and a document whose pages hold no text at all —
``no text layer (N pages); OCR is not supported``.
"""

from __future__ import annotations

import ctypes
import re
from collections import Counter
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from osrag.loaders.base import PROPERTY_KEYS, Extracted, MissingExtra, UnreadableFile
from osrag.loaders.limits import DEFAULT_READ, OverLimit, ReadOptions
from osrag.loaders.text import TextWriter, clean_inline

__all__ = ["LOADER", "MAX_PAGE_CHARS", "load_pdf"]

LOADER = "osrag-pdf@1"
MAX_PAGE_CHARS = 500_000
"""A page with more characters than this is refused (a generated or hostile page)."""

_SOFT_HYPHENS = ("\ufffe", "\x02")
_BAND = 0.15
_RUNNING_MIN_PAGES = 3
_RUNNING_SHARE = 0.4
_HEADING_RATIO = 1.15
_MAX_HEADING_CHARS = 150
_DIGITS = re.compile(r"\d+")
_PDFIUM_LINE = re.compile(r"[^\r\n]+")
_WORD = re.compile(r"[^\s\x00]+")
_ALNUM = re.compile(r"[^0-9a-z]+")


@dataclass(slots=True)
class Run:
    """Characters of one line with no wide gap between them (a table cell, or a whole line)."""

    x0: float
    x1: float
    text: str
    size: float = 0.0
    """Height of the run's (loose) character boxes: proportional to the font size."""


@dataclass(slots=True)
class Line:
    """One visible line of a page, in display coordinates (origin top left, y down)."""

    runs: list[Run]
    top: float
    bottom: float
    size: float
    text: str = ""
    heading: int = 0
    """A heading's level (from the outline or the font size); 0 for body text."""
    heading_text: str = ""
    before: list[tuple[int, str]] = field(default_factory=list)
    """Headings to write before this line (outline entries that do not replace it)."""

    @property
    def x0(self) -> float:
        return self.runs[0].x0

    @property
    def x1(self) -> float:
        return self.runs[-1].x1


@dataclass(slots=True)
class Page:
    number: int
    height: float
    lines: list[Line]
    chars: int
    before: list[tuple[int, str]] = field(default_factory=list)
    """Headings to write at the top of the page (bookmarks that match no line)."""


def _pdfium() -> tuple[Any, Any]:
    try:
        import pypdfium2
        import pypdfium2.raw as raw
    except ImportError:  # pragma: no cover - the extra is installed in development
        raise MissingExtra("PDF", "pdf") from None
    return pypdfium2, raw


def library_version() -> str:
    _pdfium()
    from pypdfium2 import version

    return f"pypdfium2@{version.PYPDFIUM_INFO}"


# --------------------------------------------------------------------------- reading


def _open(data: bytes) -> Any:
    pdfium, raw = _pdfium()
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == raw.FPDF_ERR_PASSWORD:
            raise UnreadableFile(
                "encrypted: a password is needed to open it (not indexed; "
                "password-protected PDFs are not supported)"
            ) from None
        if code == raw.FPDF_ERR_SECURITY:
            raise UnreadableFile("encrypted with an unsupported security handler") from None
        raise UnreadableFile(f"damaged or not a PDF ({exc})") from None


def _display(rotation: int, width: float, height: float) -> Any:
    """A function from a user-space box ``(left, right, bottom, top)`` to display
    ``(x0, x1, top, bottom)``: origin at the top left of the page as shown, y down."""
    if rotation == 90:
        return lambda lf, rt, bm, tp: (bm, tp, lf, rt)
    if rotation == 180:
        return lambda lf, rt, bm, tp: (width - rt, width - lf, bm, tp)
    if rotation == 270:
        return lambda lf, rt, bm, tp: (height - tp, height - bm, width - rt, width - lf)
    return lambda lf, rt, bm, tp: (lf, rt, height - tp, height - bm)


def _read_page(pdf: Any, index: int) -> Page:
    """The visible lines of page ``index`` (0-based); the page is closed before returning."""
    _, raw = _pdfium()
    try:
        page = pdf[index]
    except Exception as exc:
        raise UnreadableFile(f"cannot be read ({exc})", index + 1) from None
    try:
        ml, mb, mr, mt = page.get_mediabox()
        cl, cb, cr, ct = page.get_cropbox()
        vl, vb, vr, vt = max(ml, cl), max(mb, cb), min(mr, cr), min(mt, ct)
        rotation = page.get_rotation() % 360
        height = page.get_height()  # as displayed (rotation applied)
        textpage = page.get_textpage()
        try:
            count = raw.FPDFText_CountChars(textpage)
            if count > MAX_PAGE_CHARS:
                raise UnreadableFile(
                    f"{count:,} characters on one page, over the limit of {MAX_PAGE_CHARS:,}",
                    index + 1,
                )
            lines = _lines(raw, textpage, count, (vl, vb, vr, vt), _display(rotation, mr, mt))
        finally:
            textpage.close()
    finally:
        page.close()
    return Page(index + 1, height, lines, sum(len(line.text) for line in lines))


def _lines(
    raw: Any, textpage: Any, count: int, visible: tuple[float, float, float, float], to_display: Any
) -> list[Line]:
    """Group the page's words into visible lines and runs (split at wide gaps).

    PDFium's text (one call) gives the characters and its line breaks; (loose) boxes are
    read for the first and last character of each word only (two calls a word, not
    one a character: the per-character loop was 4x slower on the IRS publication).
    """
    vl, vb, vr, vt = visible
    text = textpage.get_text_range(0, count)
    if len(text) != count:  # characters PDFium could not decode: read them one by one
        codes = (raw.FPDFText_GetUnicode(textpage, i) for i in range(count))
        text = "".join(chr(c) if 0 < c < 0x110000 else "\ufffd" for c in codes)
    rect = raw.FS_RECTF()
    get_box = raw.FPDFText_GetLooseCharBox
    pointer = ctypes.byref(rect)

    def box(i: int) -> tuple[float, float, float, float] | None:
        # the loose box spans the font's ascent to descent: lines of one font have
        # equal heights whatever their letters, so gaps between lines compare
        if not get_box(textpage, i, pointer):
            return None
        return rect.left, rect.right, rect.bottom, rect.top

    lines: list[Line] = []
    for line_match in _PDFIUM_LINE.finditer(text):
        runs: list[Run] = []
        words: list[str] = []
        run_x0 = run_x1 = 0.0
        size = 0.0
        line_top, line_bottom = 1e9, -1e9
        carry = ""
        for word in _WORD.finditer(text, line_match.start(), line_match.end()):
            a, b = word.start(), word.end() - 1
            first = box(a)
            if first is None:
                continue
            cx, cy = (first[0] + first[1]) / 2, (first[2] + first[3]) / 2
            if not (vl <= cx <= vr and vb <= cy <= vt):
                continue  # outside the visible page: printers' marks, off-page text
            last = box(b) if b > a else first
            if last is None:
                last = first
            x0, _, y0, y1 = to_display(*first)
            _, x1, z0, z1 = to_display(*last)
            chunk = word.group()
            if carry:  # the rest of a word PDFium hyphenated at a line end
                words[-1] = carry + chunk
                carry = ""
                run_x1 = max(run_x1, x1)
            else:
                if words and x0 - run_x1 <= max(size, 4.0) and x0 - run_x1 >= -2 * max(size, 4.0):
                    if len(words) == 1:  # a bullet or a symbol: the next word's height
                        size = min(size, abs(y1 - y0), abs(z1 - z0))
                    words.append(chunk)
                    run_x1 = max(run_x1, x1)
                else:
                    if words:
                        runs.append(Run(run_x0, run_x1, " ".join(words), size))
                    # the box height, not the font size (PDFs that scale text by its
                    # matrix report a font size of 1 for every line); of the word's first
                    # and last characters the smaller (a bullet's box is taller)
                    size = min(abs(y1 - y0), abs(z1 - z0))
                    words, run_x0, run_x1 = [chunk], x0, max(x0, x1)
            line_top = min(line_top, y0, z0)
            line_bottom = max(line_bottom, y1, z1)
            if words[-1].endswith(_SOFT_HYPHENS):
                carry = words[-1][:-1]  # the next word (on the next visual line) continues it
            else:
                words[-1] = words[-1].replace("\ufffe", "").replace("\x02", "")
        if carry:
            words[-1] = carry + "\x02"  # hyphenated across PDFium lines: joined when written
        if words:
            runs.append(Run(run_x0, run_x1, " ".join(words), size))
        if runs:
            longest = max(runs, key=lambda r: len(r.text))
            line = Line(runs, line_top, line_bottom, longest.size)
            line.text = " ".join(r.text for r in runs)
            lines.append(line)
    return lines


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


def _drop_running(pages: list[Page]) -> None:
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


def _outline(pdf: Any) -> list[tuple[int, str, int, float | None]]:
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


def _place_bookmarks(pages: list[Page], marks: list[tuple[int, str, int, float | None]]) -> None:
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


def _font_headings(pages: list[Page]) -> int:
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


def _table_at(lines: list[Line], start: int) -> int:
    """End (exclusive) of a table whose header is ``lines[start]``, or ``start`` if none."""
    header = lines[start]
    width = len(header.runs)
    if width < 2 or header.heading or header.before:
        return start
    if not all(_names_a_column(run.text) for run in header.runs):
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


def _names_a_column(cell: str) -> bool:
    letters = sum(ch.isalpha() for ch in cell)
    digits = sum(ch.isdigit() for ch in cell)
    return letters >= 2 and digits <= letters // 2 and len(cell) <= 40


def _table_rows(lines: list[Line]) -> list[list[str]]:
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


# --------------------------------------------------------------------------- writing


def _write_page(writer: TextWriter, page: Page) -> None:
    writer.open_unit(page.number)
    for level, title in page.before:
        writer.heading(level, title)
    lines = page.lines
    block: list[str] = []
    previous: Line | None = None
    i = 0

    def flush() -> None:
        if block:
            writer.block(_dehyphenate(block))
            block.clear()

    while i < len(lines):
        line = lines[i]
        if line.heading == -1:
            i += 1
            continue
        if line.before:
            flush()
            for level, title in line.before:
                writer.heading(level, title)
        if line.heading > 0:
            flush()
            writer.heading(line.heading, line.heading_text)
            previous = None
            i += 1
            continue
        end = _table_at(lines, i)
        if end > i:
            flush()
            writer.table(_table_rows(lines[i:end]))
            previous = None
            i = end
            continue
        if previous is not None and (
            line.top - previous.bottom > 0.5 * max(line.size, 1.0)
            or line.bottom < previous.top - 1.0
        ):
            flush()
        block.append(line.text)
        previous = line
        i += 1
    flush()


def _dehyphenate(lines: list[str]) -> list[str]:
    """Join a line ending in a PDFium-added hyphen with the next one, without the hyphen."""
    out: list[str] = []
    carry = ""
    for line in lines:
        line = carry + line
        carry = ""
        if line.endswith("\x02"):
            carry = line[:-1]
            continue
        out.append(line.replace("\x02", ""))
    if carry:
        out.append(carry + "-")
    return out


def _properties(pdf: Any) -> tuple[str | None, dict[str, Any]]:
    """The Info dictionary's title and osrag's metadata keys (``tenant``, ``acl``, …)."""
    _, raw = _pdfium()
    found: dict[str, Any] = {}
    for key in ("Title", *PROPERTY_KEYS):
        size = raw.FPDF_GetMetaText(pdf, key.encode(), None, 0)
        if size <= 2:
            continue
        buffer = ctypes.create_string_buffer(size)
        raw.FPDF_GetMetaText(pdf, key.encode(), buffer, size)
        value = clean_inline(buffer.raw[: size - 2].decode("utf-16-le", errors="replace"))
        if value:
            found[key] = value
    title = found.pop("Title", None) or found.pop("title", None)
    found.pop("title", None)
    return title, found


def _read_pages(pdf: Any, total: int, max_chars: int) -> list[Page]:
    pages: list[Page] = []
    chars = 0
    for index in range(total):
        page = _read_page(pdf, index)
        chars += page.chars
        if chars > max_chars:
            raise OverLimit("max_text_chars", max_chars, f"the text of pages 1-{index + 1}:")
        pages.append(page)
    return pages


def load_pdf(data: bytes, options: ReadOptions = DEFAULT_READ) -> Extracted:
    """The text, page map, title and properties of a PDF (see the module rule), refused
    past ``max_pdf_pages`` pages or ``max_text_chars`` characters of text."""
    pdf = _open(data)
    try:
        total = len(pdf)
        if total > options.max_pdf_pages:
            raise OverLimit("max_pdf_pages", options.max_pdf_pages, f"{total:,} pages:")
        pages = _read_pages(pdf, total, options.max_text_chars)
        title, properties = _properties(pdf)
        marks = _outline(pdf)
    finally:
        pdf.close()
    if not any(page.lines for page in pages):
        raise UnreadableFile(
            f"no text layer ({total} page{'s' if total != 1 else ''}); OCR is not supported"
        )
    _drop_running(pages)
    if marks:
        _place_bookmarks(pages, marks)
        headings = len(marks)
    else:
        headings = _font_headings(pages)
    writer = TextWriter("page", max_chars=options.max_text_chars)
    for page in pages:
        _write_page(writer, page)
    text, locations = writer.finish(f"{LOADER}+{library_version()}", units_total=total)
    if title is None:
        first = next((line for page in pages for line in page.lines if line.heading > 0), None)
        title = first.heading_text if first is not None else None
    return Extracted(
        text=text,
        format="markdown" if headings else "text",
        locations=locations,
        title=title,
        properties=properties,
    )
