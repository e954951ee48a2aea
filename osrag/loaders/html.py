"""HTML → Markdown-like text with an element map, parsed with selectolax (Lexbor).

Library: selectolax's Lexbor parser (MIT) builds the same tree a browser
does (HTML5 parsing: implied ``html``/``head``/``body``/``tbody``, mis-nested
tags repaired as browsers repair them). On the three HTML files of
``shared/corpora/real-docs`` it parsed and walked at ≈50 MB/s against ≈28 MB/s
for lxml, libxml2's HTML 4 parser, which does not repair HTML5 the way a
browser does (a one-off measurement: parse plus a walk over every node, 10
rounds). The walk below, in Python, costs more than either parse.

Rule:

- ``h1``–``h6`` are headings of levels 1–6 (the breadcrumb); ``p``, ``div``,
  ``li``, ``pre``, ``blockquote``, ``dd``/``dt``, ``figcaption`` and the other
  block elements end a paragraph; ``br`` ends a line; inline text is joined
  with whitespace collapsed as a browser collapses it.
- A ``table``'s ``caption`` is a paragraph right before it (its lead-in: a caption
  naming the unit scales the cells); the table is one block, rows with their header context
  (:func:`osrag.loaders.text.table_lines`); ``colspan``/``rowspan`` cells are
  repeated into every grid cell they cover; a table nested in a cell is that
  cell's text.
- List items keep their nesting (``ul``/``ol`` depth).
- Boilerplate is dropped: ``script``, ``style``, ``noscript``, ``template``,
  ``nav``, ``header``, ``footer``, ``aside``, ``form`` controls, ``svg``,
  ``iframe``; elements with ``hidden``, ``aria-hidden="true"``, a ``role`` of
  navigation, banner, contentinfo, search or complementary, or a class/id
  naming navigation (``nav``, ``navbar``, ``menu``, ``breadcrumb``, ``sidebar``,
  ``skip-link``, ``cookie``…). When the page marks its main content (``main``
  or ``role="main"``), only that is read. A general main-content extractor
  (trafilatura, jusText) was not added: these rules drop all the boilerplate
  of the real pages here (their only navigation is a ``regnavigation`` div of
  image links), and a statistical extractor can also drop short legal
  paragraphs, which retrieval needs.
- Element numbers: an element is numbered by its position in document order
  among all elements of the parsed page — ``document.querySelectorAll("*")[n]``
  in a browser — so a chunk's ``elements`` point back into the original.
- Encoding: a byte-order mark, else ``<meta charset>`` (or ``http-equiv``) in
  the first 2 KB, else UTF-8, else Windows-1252 (what browsers fall back to).
- Title: ``<meta name="title">`` (or ``dc.title``), else the first ``h1``,
  else ``<title>``. ``<meta name=…>`` with osrag's metadata keys (``tenant``,
  ``acl``, ``category``, ``effective_from``, …) become the document's metadata.
"""

from __future__ import annotations

import re
from typing import Any

from osrag.loaders.base import Extracted, MissingExtra, UnreadableFile
from osrag.loaders.limits import DEFAULT_READ, OverLimit, ReadOptions
from osrag.loaders.metadata import property_key
from osrag.loaders.text import TextWriter, clean_inline

__all__ = ["LOADER", "decode_html", "load_html"]

LOADER = "osrag-html@2"

_DROPPED = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "button",
        "select",
        "option",
        "textarea",
        "input",
        "svg",
        "iframe",
        "object",
        "embed",
        "canvas",
        "map",
        "head",
        "title",
        "meta",
        "link",
    ]
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "section",
        "article",
        "main",
        "li",
        "ul",
        "ol",
        "dl",
        "dd",
        "dt",
        "pre",
        "blockquote",
        "figure",
        "figcaption",
        "address",
        "hr",
        "details",
        "summary",
        "center",
        "body",
        "html",
        "caption",
        "fieldset",
        "legend",
    ]
)
_LISTS = frozenset({"ul", "ol", "menu"})
_BOILERPLATE_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary"})
_BOILERPLATE_NAME = re.compile(
    r"(?:^|[\s_-])(?:nav|navbar|navigation|menu|breadcrumbs?|sidebar|skip-?link|cookies?)"
    r"(?:$|[\s_-])|navigation",
    re.I,
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_MAX_DEPTH = 300


def _parser() -> Any:
    try:
        from selectolax.lexbor import LexborHTMLParser
    except ImportError:  # pragma: no cover - the extra is installed in development
        raise MissingExtra("HTML", "html") from None
    return LexborHTMLParser


def library_version() -> str:
    from importlib.metadata import version

    return f"selectolax@{version('selectolax')}"


def decode_html(data: bytes) -> str:
    """The page's text by its BOM, its ``<meta charset>``, else UTF-8, else Windows-1252."""
    for bom, codec in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace")
    m = _META_CHARSET.search(data[:2048])
    if m is not None:
        try:
            return data.decode(m.group(1).decode("ascii").lower(), errors="replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _boilerplate(node: Any) -> bool:
    tag = node.tag
    if tag in _DROPPED:
        return True
    attrs = node.attributes
    if not attrs:
        return False
    if "hidden" in attrs or (attrs.get("aria-hidden") or "").lower() == "true":
        return True
    if (attrs.get("role") or "").lower() in _BOILERPLATE_ROLES:
        return True
    names = " ".join(v for v in (attrs.get("class"), attrs.get("id")) if v)
    return bool(names) and _BOILERPLATE_NAME.search(names) is not None


def _count(node: Any) -> int:
    """Elements in the subtree of ``node``, itself included (Lexbor's ``*`` matches it too)."""
    return len(node.css("*"))


def inline_text(node: Any) -> str:
    """The text of ``node`` as one line (``br`` and block boundaries become spaces)."""
    parts: list[str] = []
    for child in node.traverse(include_text=True):
        if child.tag == "-text":
            parts.append(child.text_content or "")
        elif child.tag == "br" or child.tag in _BLOCK_TAGS or child.tag in ("td", "th"):
            parts.append(" ")
    return clean_inline("".join(parts))


class _Walker:
    def __init__(self, writer: TextWriter) -> None:
        self.writer = writer
        self.number = 0  # document-order number of the next element
        self.lines: list[str] = []
        self.current: list[str] = []
        self.owner = 0
        self.list_depth = -1
        self.item = False
        self.term: tuple[str, int] | None = None  # a definition list's open term, its number
        self.term_used = False
        self.in_definition = False  # inside a dd: its inline markup keeps the term open

    # ---------------------------------------------------------------- inline buffer

    def flush(self) -> None:
        if self.current:
            self.lines.append("".join(self.current))
            self.current = []
        lines = [line for line in (clean_inline(s) for s in self.lines) if line]
        self.lines = []
        if not lines:
            return
        self.writer.open_unit(self.owner)
        if self.item:
            self.writer.list_item(" ".join(lines), min(max(self.list_depth, 0), 3))
            self.item = False  # further paragraphs of the item are plain blocks
        else:
            self.writer.block(lines)

    # ---------------------------------------------------------------- the walk

    def close_term(self) -> None:
        """A term no definition followed is a paragraph of its own."""
        if self.term is not None and not self.term_used:
            self.writer.open_unit(self.term[1])
            self.writer.block([self.term[0]])
        self.term = None

    def walk(self, node: Any, depth: int = 0) -> None:
        child = node.child
        while child is not None:
            self.visit(child, depth)
            child = child.next

    def visit(self, node: Any, depth: int) -> None:
        tag = node.tag
        if tag == "-text":
            self.current.append(node.text_content or "")
            return
        if not node.is_element_node:
            return
        number = self.number
        if self.term is not None and tag != "dd" and not self.in_definition:
            self.close_term()
        if _boilerplate(node):
            self.number += _count(node)
            return
        if tag == "br":
            self.number += 1
            self.lines.append("".join(self.current))
            self.current = []
            return
        if tag in _HEADINGS:
            self.flush()
            self.number += _count(node)
            self.writer.open_unit(number)
            self.writer.heading(_HEADINGS[tag], inline_text(node))
            return
        if tag == "table":
            self.flush()
            self.number += _count(node)
            self.writer.open_unit(number)
            caption = table_caption(node)
            if caption:
                self.writer.block([caption])
            self.writer.table(table_grid(node))
            return
        if depth > _MAX_DEPTH:  # hostile nesting: the rest is read as text
            self.number += _count(node)
            self.current.append(" " + inline_text(node) + " ")
            return
        if tag == "dt":  # the name of what its definitions give: "Minimum charge: $100"
            self.flush()
            self.number += _count(node)
            self.term, self.term_used = (inline_text(node), number), False
            return
        self.number += 1
        if tag in _BLOCK_TAGS:
            self.flush()
            inside = self.in_definition
            if tag == "dd":
                self.in_definition = True
                if self.term is not None and self.term[0]:
                    name = self.term[0]
                    self.current.append(name + (" " if name[-1] in ":;.-–—" else ": "))
                    self.term_used = True
            outer = (self.owner, self.list_depth, self.item)
            self.owner = number
            if tag in _LISTS:
                self.list_depth += 1
            elif tag == "li":
                self.item = True
            self.walk(node, depth + 1)
            if tag != "dd" and not inside:  # a definition list's last term closes with it
                self.close_term()
            self.flush()
            self.owner, self.list_depth, self.item = outer[0], outer[1], False
            self.in_definition = inside
            return
        if tag in ("td", "th"):  # a cell outside a table (broken markup): a separator
            self.current.append(" ")
        self.walk(node, depth + 1)


def table_caption(table: Any) -> str:
    """The text of the table's own ``caption`` ('' when it has none): written as the
    line right before the table, where a caption ("(in millions of U.S. dollars)") is
    read as the lead-in that scales its cells."""
    return " ".join(inline_text(c) for c in _children(table) if c.tag == "caption").strip()


def table_grid(table: Any) -> list[list[str]]:
    """The table's rows as text cells, ``colspan``/``rowspan`` repeated into the grid."""
    own = table.mem_id
    rows: list[list[str]] = []
    carried: dict[int, tuple[int, str]] = {}  # column → (rows left, text) from rowspan
    for tr in table.css("tr"):
        parent = tr.parent
        while parent is not None and parent.tag != "table":
            parent = parent.parent
        if parent is None or parent.mem_id != own:
            continue  # a row of a nested table: part of its cell's text
        row: list[str] = []
        cells = [c for c in _children(tr) if c.tag in ("td", "th")]
        col = 0
        for cell in cells:
            col = _fill_carried(row, carried, col)
            text = inline_text(cell)
            span = _span(cell.attributes.get("colspan"))
            down = _span(cell.attributes.get("rowspan"))
            for _ in range(span):
                row.append(text)
                if down > 1:
                    carried[col] = (down - 1, text)
                col += 1
        _fill_carried(row, carried, col)
        rows.append(row)
    return rows


def _children(node: Any) -> list[Any]:
    out = []
    child = node.child
    while child is not None:
        out.append(child)
        child = child.next
    return out


def _fill_carried(row: list[str], carried: dict[int, tuple[int, str]], col: int) -> int:
    """Append to ``row`` the texts that rowspans above carry into columns ``col``, ``col +
    1``, … (as long as one does); the next free column."""
    while col in carried:
        left, text = carried[col]
        row.append(text)
        if left <= 1:
            del carried[col]
        else:
            carried[col] = (left - 1, text)
        col += 1
    return col


def _span(value: str | None) -> int:
    try:
        return min(max(int(value or 1), 1), 100)
    except ValueError:
        return 1


def _properties(tree: Any) -> tuple[str | None, dict[str, Any]]:
    found: dict[str, Any] = {}
    for meta in tree.css("meta[name]"):
        name = (meta.attributes.get("name") or "").strip()
        content = clean_inline(meta.attributes.get("content") or "")
        if name.lower() == "dc.title":
            name = "title"
        key = property_key(name, content)
        if key is not None and key not in found:
            found[key] = content  # an access- or date-like name is refused as front matter is
    title = found.pop("title", None)
    return title, found


def load_html(data: bytes, options: ReadOptions = DEFAULT_READ) -> Extracted:
    """The text, element map, title and properties of an HTML page (see the module rule),
    refused past ``max_html_bytes`` bytes or ``max_text_chars`` characters of text."""
    if len(data) > options.max_html_bytes:
        raise OverLimit("max_html_bytes", options.max_html_bytes, f"{len(data):,} bytes:")
    parser = _parser()
    try:
        tree = parser(decode_html(data))
    except Exception as exc:  # the parser is lenient; only resource failures get here
        raise UnreadableFile(f"HTML could not be parsed ({exc})") from None
    title, properties = _properties(tree)
    root = tree.root
    if root is None:
        raise UnreadableFile("HTML without any element")
    writer = TextWriter("element", max_chars=options.max_text_chars)
    walker = _Walker(writer)
    main = tree.css_first("main") or tree.css_first('[role="main"]')
    if main is not None:
        # number the elements before <main> as the full walk would, then read main only
        walker.number = _position(tree, main)
        walker.visit(main, 0)
    else:
        walker.visit(root, 0)
    walker.flush()
    text, locations = writer.finish(f"{LOADER}+{library_version()}")
    if title is None:
        h1 = tree.css_first("h1")
        title = (inline_text(h1) if h1 is not None else "") or None
    if title is None:
        node = tree.css_first("title")
        title = (clean_inline(node.text()) if node is not None else "") or None
    return Extracted(
        text=text,
        format="markdown",
        locations=locations,
        title=title,
        properties=properties,
    )


def _position(tree: Any, target: Any) -> int:
    """Document-order index of ``target`` among all elements."""
    wanted = target.mem_id
    for i, node in enumerate(tree.css("*")):
        if node.mem_id == wanted:
            return i
    return 0
