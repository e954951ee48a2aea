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
  columns (words, or a year's column: "Fiscal 2023", "2023") and whose cells are short,
  are a table: each row is written with its header context
  (:func:`osrag.loaders.text.table_lines`). A table drawn cell by cell, each cell's
  text wrapped in its box (a form's grid: PDFium reads a cell down, then jumps back up
  for the next), is put together into its rows and columns first
  (:mod:`osrag.loaders.pdf_grid`).

Errors (:class:`~osrag.loaders.base.UnreadableFile`, naming the page where
there is one): a PDF that needs a password; a damaged or truncated file
PDFium cannot open; a page with more than :data:`MAX_PAGE_CHARS` characters or
a page that fails to load; and a document whose pages hold no text at all —
``no text layer (N pages); OCR is not supported``.
"""

from __future__ import annotations

import ctypes
from typing import Any

from osrag.loaders.base import PROPERTY_KEYS, Extracted, MissingExtra, UnreadableFile
from osrag.loaders.limits import DEFAULT_READ, OverLimit, ReadOptions
from osrag.loaders.pdf_grid import grid_at, next_jumps
from osrag.loaders.pdf_lines import JOIN_MARK, Line, Page, page_lines
from osrag.loaders.pdf_structure import (
    drop_running,
    font_headings,
    outline,
    place_bookmarks,
    table_at,
    table_rows,
)
from osrag.loaders.text import TextWriter, clean_inline

__all__ = ["LOADER", "MAX_PAGE_CHARS", "load_pdf"]

LOADER = "osrag-pdf@4"
MAX_PAGE_CHARS = 500_000
"""A page with more characters than this is refused (a generated or hostile page)."""


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
            lines = page_lines(raw, textpage, count, (vl, vb, vr, vt), _display(rotation, mr, mt))
        finally:
            textpage.close()
    finally:
        page.close()
    return Page(index + 1, height, lines, sum(len(line.text) for line in lines))


# --------------------------------------------------------------------------- writing


def _write_page(writer: TextWriter, page: Page) -> None:
    writer.open_unit(page.number)
    for level, title in page.before:
        writer.heading(level, title)
    lines = page.lines
    jumps = next_jumps(lines)
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
        end = table_at(lines, i)
        if end > i:
            flush()
            writer.table(table_rows(lines[i:end]))
            previous = None
            i = end
            continue
        grid = grid_at(lines, i, jumps)
        if grid is not None:
            flush()
            writer.table(grid[1])
            previous = None
            i = grid[0]
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
        if line.endswith(JOIN_MARK):
            carry = line[:-1]
            continue
        out.append(line.replace(JOIN_MARK, ""))
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
        marks = outline(pdf)
    finally:
        pdf.close()
    if not any(page.lines for page in pages):
        raise UnreadableFile(
            f"no text layer ({total} page{'s' if total != 1 else ''}); OCR is not supported"
        )
    drop_running(pages)
    if marks:
        place_bookmarks(pages, marks)
        headings = len(marks)
    else:
        headings = font_headings(pages)
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
