"""Word (.docx) → Markdown-like text with a paragraph map, read with python-docx.

Library: python-docx (MIT), the reference reader of WordprocessingML in
Python; it resolves merged cells (``gridSpan``, ``vMerge``) into the grid and
gives each paragraph its style. The zip container is checked first with the
standard library (see *Zip bombs*), because python-docx reads every part it
opens into memory.

Streaming: python-docx opens a *skeleton* of the file — every part but
``word/document.xml``, which is replaced by an empty body, and binary parts
(images, fonts, embedded objects) emptied — for its styles and properties.
The body is read from the zip member stream with lxml's ``iterparse`` (with
python-docx's element classes, so each paragraph and table is the object
python-docx would give), one top-level block at a time, each freed once
written: memory follows the largest block and the text, not the XML tree.

Rule:

- The body is read in order, paragraphs and tables alike; headers, footers,
  footnotes and comments are not part of the text.
- A paragraph is a heading when its style is ``Heading N`` (level N) or
  ``Title`` (level 1), or when it or its style sets an outline level (level =
  outline level + 1) — so breadcrumbs follow the document's heading styles.
  Empty headings are skipped.
- A paragraph with numbering (its own or its style's ``numPr``), or with a
  ``List…`` style, is a list item, nested by its numbering level; consecutive
  items stay one block.
- A table is one block, rows with their header context
  (:func:`osrag.loaders.text.table_lines`); a merged cell is repeated into the
  grid cells it covers (and written once per row). Empty layout tables vanish.
- Superscript runs of digits (footnote marks glued to words, "AFRL/CC²") are
  left out; so are footnote reference marks.
- Element numbers: position among the body's paragraphs and tables
  (``w:body`` children ``w:p``/``w:tbl``, from 0), so ``elements`` point back
  into the original.
- Title: the core property ``title``, else the first ``Title``-styled
  paragraph or level-1 heading. Core ``category`` and custom document
  properties named like front-matter keys (``tenant``, ``acl``,
  ``effective_from``, …) become the document's metadata.

Zip bombs and damage: the archive must list ``word/document.xml``; every
entry is decompressed (and discarded) once with a running total, so a file
whose parts inflate beyond ``max_docx_unzipped_bytes`` (:data:`MAX_UNZIPPED`
by default), whose ``word/document.xml`` is larger than ``max_docx_xml_bytes``,
or whose parts inflate to more than :data:`MAX_RATIO` times their compressed
size once past 10 MB, is refused before python-docx sees it (see
:mod:`osrag.loaders.limits`); a corrupt archive or malformed XML is an error
naming the file.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

from osrag.loaders.base import Extracted, MissingExtra, UnreadableFile, split_list
from osrag.loaders.limits import DEFAULT_READ, OverLimit, ReadOptions
from osrag.loaders.metadata import property_key
from osrag.loaders.text import TextWriter, clean_inline

__all__ = ["LOADER", "MAX_RATIO", "MAX_UNZIPPED", "check_zip", "load_docx"]

LOADER = "osrag-docx@1"
MAX_UNZIPPED = DEFAULT_READ.max_docx_unzipped_bytes
"""Bytes the parts of one .docx may inflate to."""
MAX_RATIO = 100
"""Largest overall compression ratio accepted once the parts pass 10 MB."""
MAX_ENTRIES = 10_000

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING_STYLE = re.compile(r"heading\s*([1-9])$", re.I)
_FOOTNOTE_MARK = re.compile(r"[\d*†‡§]+")
_RUN, _TEXT, _TAB = f"{_W}r", f"{_W}t", f"{_W}tab"
_BREAKS = (f"{_W}br", f"{_W}cr")
_NO_BREAK_HYPHEN, _RUN_PROPERTIES = f"{_W}noBreakHyphen", f"{_W}rPr"
_VERT_ALIGN, _VAL = f"{_W}vertAlign", f"{_W}val"
_CUSTOM_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/custom-properties}"


def _docx() -> Any:
    try:
        import docx
    except ImportError:  # pragma: no cover - the extra is installed in development
        raise MissingExtra("Word (.docx)", "docx") from None
    return docx


def library_version() -> str:
    from importlib.metadata import version

    return f"python-docx@{version('python-docx')}"


DOCUMENT_XML = "word/document.xml"
_SKELETON_BODY = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b"<w:body/></w:document>"
)
_BODY, _P, _TBL = f"{_W}body", f"{_W}p", f"{_W}tbl"


def check_zip(data: bytes, options: ReadOptions = DEFAULT_READ) -> zipfile.ZipFile:
    """The archive, once it is known to be a Word document that inflates to a sane size."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UnreadableFile(f"damaged zip archive ({exc})") from None
    if DOCUMENT_XML not in names:
        raise UnreadableFile("a zip archive without word/document.xml: not a Word document")
    if len(names) > MAX_ENTRIES:
        raise UnreadableFile(f"{len(names):,} entries in the archive (zip bomb?)")
    xml_limit = options.max_docx_xml_bytes
    declared = archive.getinfo(DOCUMENT_XML).file_size
    if declared > xml_limit:
        raise OverLimit(
            "max_docx_xml_bytes", xml_limit, f"word/document.xml of {declared:,} bytes:"
        )
    unzipped_limit = options.max_docx_unzipped_bytes
    total = 0
    for info in archive.infolist():
        size = 0
        try:
            with archive.open(info) as part:
                while block := part.read(1 << 20):
                    total += len(block)
                    size += len(block)
                    if total > unzipped_limit:
                        raise OverLimit(
                            "max_docx_unzipped_bytes", unzipped_limit, "zip bomb: its parts are"
                        )
                    if info.filename == DOCUMENT_XML and size > xml_limit:
                        raise OverLimit("max_docx_xml_bytes", xml_limit, "word/document.xml:")
        except UnreadableFile:
            raise
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            raise UnreadableFile(f"damaged zip entry {info.filename} ({exc})") from None
        if total > 10 * 1024 * 1024 and total > MAX_RATIO * len(data):
            raise UnreadableFile(
                f"zip bomb: {len(data):,} bytes inflate to over {total:,} (more than {MAX_RATIO}x)"
            )
    return archive


def _style_chain(style: Any) -> list[Any]:
    chain: list[Any] = []
    while style is not None and len(chain) < 20:
        chain.append(style)
        style = style.base_style
    return chain


def _heading_level(paragraph: Any, styles: dict[str | None, tuple[int, int | None]]) -> int:
    """The paragraph's heading level (0: not a heading)."""
    level = _outline_level(paragraph._p.pPr)
    if level:
        return level
    return _style_info(paragraph, styles)[0]


def _style_info(
    paragraph: Any, styles: dict[str | None, tuple[int, int | None]]
) -> tuple[int, int | None]:
    """``(heading level, list depth)`` the paragraph's style gives, cached per style id
    (python-docx looks a style up by XPath on every access: most of the load time)."""
    key = paragraph._p.style
    found = styles.get(key)
    if found is None:
        found = styles[key] = (_style_heading(paragraph.style), _style_list(paragraph.style))
    return found


def _style_heading(style: Any) -> int:
    for s in _style_chain(style):
        name = s.name or ""
        m = _HEADING_STYLE.match(name)
        if m:
            return int(m.group(1))
        if name.lower() == "title":
            return 1
        level = _outline_level(s.element.pPr)
        if level:
            return level
    return 0


def _style_list(style: Any) -> int | None:
    for s in _style_chain(style):
        spr = s.element.pPr
        if spr is not None and spr.find(f"{_W}numPr") is not None:
            return 0
        m = re.match(r"list(?: bullet| number| paragraph)?\s*(\d)?$", (s.name or "").lower())
        if m:
            return max(int(m.group(1) or 1) - 1, 0)
    return None


def _outline_level(ppr: Any) -> int:
    if ppr is None:
        return 0
    node = ppr.find(f"{_W}outlineLvl")
    if node is None:
        return 0
    try:
        value = int(node.get(f"{_W}val"))
    except (TypeError, ValueError):
        return 0
    return value + 1 if 0 <= value < 9 else 0  # 9 means body text


def _list_depth(paragraph: Any, styles: dict[str | None, tuple[int, int | None]]) -> int | None:
    """Nesting level of a list item (0 = top), ``None`` when the paragraph is not one."""
    ppr = paragraph._p.pPr
    numpr = ppr.find(f"{_W}numPr") if ppr is not None else None
    if numpr is not None:
        ilvl = numpr.find(f"{_W}ilvl")
        num = numpr.find(f"{_W}numId")
        if num is not None and num.get(f"{_W}val") == "0":
            return None  # numbering removed on purpose
        try:
            return int(ilvl.get(f"{_W}val")) if ilvl is not None else 0
        except (TypeError, ValueError):
            return 0
    return _style_info(paragraph, styles)[1]


def _paragraph_text(paragraph: Any) -> str:
    """The paragraph's text without superscript footnote marks, read from its XML.

    Runs are read wherever they sit (hyperlinks, fields, insertions, text boxes);
    deleted text (``w:delText``) is not text. Walking the XML directly is 3x faster
    than python-docx's run objects, which run an XPath query per access.
    """
    parts: list[str] = []
    for run in paragraph._p.iter(_RUN):
        pieces: list[str] = []
        superscript = False
        for child in run:
            tag = child.tag
            if tag == _TEXT:
                pieces.append(child.text or "")
            elif tag == _TAB:
                pieces.append(" ")
            elif tag in _BREAKS:
                pieces.append("\n")
            elif tag == _NO_BREAK_HYPHEN:
                pieces.append("-")
            elif tag == _RUN_PROPERTIES:
                align = child.find(_VERT_ALIGN)
                superscript = align is not None and align.get(_VAL) == "superscript"
        text = "".join(pieces)
        if superscript and _FOOTNOTE_MARK.fullmatch(text.strip() or "x"):
            continue
        parts.append(text)
    return "".join(parts)


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.rows:
        cells = []
        for cell in row.cells:
            text = " ".join(clean_inline(_paragraph_text(p)) for p in cell.paragraphs)
            for inner in cell.tables:  # a nested table: its cells' text
                text += " " + " ".join(" ".join(r) for r in _table_rows(inner))
            cells.append(text.strip())
        rows.append(cells)
    return rows


def _custom_properties(archive: zipfile.ZipFile) -> dict[str, str]:
    try:
        raw = archive.read("docProps/custom.xml")
    except KeyError:
        return {}
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError:
        return {}
    found: dict[str, str] = {}
    for prop in root.findall(f"{_CUSTOM_NS}property"):
        value = "".join(prop.itertext()).strip()
        key = property_key(prop.get("name") or "", value)
        if key is not None:  # an access- or date-like name is refused as in front matter
            found[key] = value
    return found


def _skeleton(archive: zipfile.ZipFile) -> bytes:
    """The archive with an empty body and its binary parts emptied (see *Streaming*)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as skeleton:
        for info in archive.infolist():
            if info.filename == DOCUMENT_XML:
                skeleton.writestr(info.filename, _SKELETON_BODY)
            elif info.filename.lower().endswith((".xml", ".rels")):
                skeleton.writestr(info.filename, archive.read(info))
            else:
                skeleton.writestr(info.filename, b"")
    return out.getvalue()


class _BoundedStream:
    """A zip member read at most ``limit`` bytes (:class:`OverLimit` past it)."""

    def __init__(self, stream: Any, limit: int) -> None:
        self._stream = stream
        self._limit = limit
        self._read = 0

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._stream.read(size if size >= 0 else self._limit + 1)
        self._read += len(data)
        if self._read > self._limit:
            raise OverLimit("max_docx_xml_bytes", self._limit, "word/document.xml:")
        return data


def _body_blocks(archive: zipfile.ZipFile, container: Any, limit: int) -> Iterator[Any]:
    """The body's paragraphs and tables, in order, as python-docx objects of ``container``,
    each parsed from the member stream and freed once the caller has it written."""
    from docx.oxml.parser import element_class_lookup
    from docx.table import Table
    from docx.text.paragraph import Paragraph
    from lxml import etree

    with archive.open(DOCUMENT_XML) as member:
        events = etree.iterparse(
            _BoundedStream(member, limit),
            events=("start", "end"),
            remove_blank_text=True,
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
        )
        events.set_element_class_lookup(element_class_lookup)
        depth = 0
        for event, element in events:
            if event == "start":
                depth += 1
                continue
            depth -= 1
            parent = element.getparent()
            if depth != 2 or parent is None or parent.tag != _BODY:
                continue
            if element.tag == _P:
                yield Paragraph(element, container)
            elif element.tag == _TBL:
                yield Table(element, container)
            element.clear()
            parent.remove(element)


def load_docx(data: bytes, options: ReadOptions = DEFAULT_READ) -> Extracted:
    """The text, paragraph map, title and properties of a .docx file (see the module rule)."""
    docx = _docx()
    archive = check_zip(data, options)
    try:
        document = docx.Document(io.BytesIO(_skeleton(archive)))
    except Exception as exc:  # python-docx raises many kinds on malformed parts
        raise UnreadableFile(
            f"not a readable Word document ({type(exc).__name__}: {exc})"
        ) from None
    from docx.table import Table

    writer = TextWriter("element", max_chars=options.max_text_chars)
    styles: dict[str | None, tuple[int, int | None]] = {}
    first_heading: str | None = None
    styled_title: str | None = None
    blocks = _body_blocks(archive, document._body, options.max_docx_xml_bytes)
    try:
        for number, block in enumerate(blocks):
            writer.open_unit(number)
            if isinstance(block, Table):
                writer.table(_table_rows(block))
                continue
            text = _paragraph_text(block)
            level = _heading_level(block, styles)
            if level:
                if writer.heading(level, text):
                    clean = clean_inline(text)
                    if styled_title is None and (block._p.style or "").lower() == "title":
                        styled_title = clean
                    if first_heading is None and level == 1:
                        first_heading = clean
                continue
            depth = _list_depth(block, styles)
            if depth is not None:
                writer.list_item(text, min(depth, 3))
            else:
                writer.block(text.split("\n"))
    except UnreadableFile:
        raise
    except Exception as exc:  # malformed XML inside a part python-docx opened lazily
        raise UnreadableFile(
            f"not a readable Word document ({type(exc).__name__}: {exc})"
        ) from None
    text, locations = writer.finish(f"{LOADER}+{library_version()}")
    core = document.core_properties
    properties: dict[str, Any] = {}
    if core.category:
        properties["category"] = core.category
    properties.update(_custom_properties(archive))
    if isinstance(properties.get("acl"), str):
        properties["acl"] = split_list(properties["acl"])
    title = properties.pop("title", None) or clean_inline(core.title or "") or None
    return Extracted(
        text=text,
        format="markdown",
        locations=locations,
        title=title or styled_title or first_heading,
        properties=properties,
    )
