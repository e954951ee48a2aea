"""The insurance policies of ``examples/insurance`` written as PDF, Word and HTML files.

The same labelled queries can then run on four versions of the same corpus.
Each Markdown policy (front matter, headings, paragraphs, lists, pipe tables)
is parsed with markdown-it-py and written

- as PDF with reportlab (BSD): headings set larger than the body (18/14/12 pt
  over 10 pt), tables drawn as ruled grids, bookmarks for the headings when
  ``outline=True``, the front-matter keys in the Info dictionary;
- as DOCX with python-docx (MIT): ``Heading N`` styles, ``List Bullet``
  paragraphs, tables (the first row the header), front-matter keys as custom
  document properties (``docProps/custom.xml``);
- as HTML: the markdown-it rendering inside a page with a ``<nav>``, a
  ``<header>`` and a ``<footer>`` of boilerplate that must not be indexed, the
  keys as ``<meta name=…>``.

Document ids stay the file stems, so the labelled queries' relevance holds.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt

INSURANCE = Path(__file__).resolve().parents[2] / "examples" / "insurance"
FORMATS = ("pdf", "docx", "html")
BOILERPLATE = "Skip to content. Acme Insurance Group home page, careers, investor relations."


@dataclass
class Policy:
    stem: str
    meta: dict[str, Any]
    blocks: list[tuple[str, Any]] = field(default_factory=list)
    """``("heading", (level, text))``, ``("para", text)``, ``("list", [items])``,
    ``("table", [rows])``."""


def read_policy(path: Path) -> Policy:
    text = path.read_text(encoding="utf-8")
    meta: dict[str, Any] = {}
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4)
        meta = yaml.safe_load(text[4:end]) or {}
        text = text[end + 5 :]
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    policy = Policy(path.stem, meta)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            policy.blocks.append(("heading", (int(tok.tag[1]), tokens[i + 1].content)))
            i += 3
        elif tok.type == "paragraph_open":
            policy.blocks.append(("para", " ".join(tokens[i + 1].content.split())))
            i += 3
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            items: list[str] = []
            i += 1
            while tokens[i].type not in ("bullet_list_close", "ordered_list_close"):
                if tokens[i].type == "inline":
                    items.append(" ".join(tokens[i].content.split()))
                i += 1
            policy.blocks.append(("list", items))
            i += 1
        elif tok.type == "table_open":
            rows: list[list[str]] = []
            row: list[str] = []
            i += 1
            while tokens[i].type != "table_close":
                if tokens[i].type == "tr_open":
                    row = []
                elif tokens[i].type == "inline":
                    row.append(tokens[i].content)
                elif tokens[i].type == "tr_close":
                    rows.append(row)
                i += 1
            policy.blocks.append(("table", rows))
            i += 1
        else:
            i += 1
    return policy


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


# --------------------------------------------------------------------------- PDF


def write_pdf(policy: Policy, path: Path, *, outline: bool = True, repeat: int = 1) -> None:
    """The policy as a PDF (``repeat`` copies of its body, for long documents)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import LETTER
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase.pdfdoc import PDFDictionary, PDFInfo, PDFString
    from reportlab.platypus import (
        ListFlowable,
        ListItem,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    body = ParagraphStyle("body", fontName="Helvetica", fontSize=10, leading=13, spaceAfter=6)
    heads = {
        1: ParagraphStyle("h1", fontName="Helvetica-Bold", fontSize=18, leading=22, spaceAfter=10),
        2: ParagraphStyle("h2", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=8),
        3: ParagraphStyle("h3", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=6),
    }
    cell = ParagraphStyle("cell", fontName="Helvetica", fontSize=10, leading=12)
    extra = {k: _plain(v) for k, v in policy.meta.items() if k != "title"}

    def info_with_keys(self: Any, document: Any) -> Any:  # the Info dictionary + osrag's keys
        d = PDFDictionary({"Title": PDFString(self.title), "Producer": PDFString("tests")})
        for key, value in extra.items():
            d[key] = PDFString(value)
        return d.format(document)

    class Doc(SimpleDocTemplate):
        def afterFlowable(self, flowable: Any) -> None:
            level = getattr(flowable, "_osrag_level", 0)
            if outline and level:
                key = f"h{id(flowable)}"
                self.canv.bookmarkPage(key)
                self.canv.addOutlineEntry(flowable.getPlainText(), key, level=level - 1)

    story: list[Any] = []
    for copy in range(repeat):
        for kind, value in policy.blocks:
            if kind == "heading":
                level, text = value
                if copy and level == 1:
                    text = f"{text} (part {copy + 1})"
                p = Paragraph(html.escape(text), heads[min(level, 3)])
                p._osrag_level = min(level, 3)
                story.append(p)
            elif kind == "para":
                story.append(Paragraph(html.escape(value), body))
            elif kind == "list":
                items = [ListItem(Paragraph(html.escape(t), body)) for t in value]
                story.append(ListFlowable(items, bulletType="bullet", start="•"))
            elif kind == "table":
                rows = [[Paragraph(html.escape(c), cell) for c in row] for row in value]
                width = 468 / max(len(r) for r in value)
                table = Table(rows, colWidths=[width] * len(value[0]), repeatRows=1)
                table.setStyle(
                    TableStyle(
                        [
                            ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                            ("LEFTPADDING", (0, 0), (-1, -1), 8),
                            ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                        ]
                    )
                )
                story.append(table)
                story.append(Spacer(1, 8))
    buffer = io.BytesIO()
    doc = Doc(buffer, pagesize=LETTER, title=str(policy.meta.get("title", policy.stem)))

    def _footer(canvas: Any, _doc: Any) -> None:
        canvas.setFont("Helvetica", 8)
        canvas.drawString(
            72, 40, f"Acme Insurance Group · policy sheet · page {canvas.getPageNumber()}"
        )
        canvas.drawString(72, 800, "PROOF ONLY — printer's slug above the page")  # off the page

    original = PDFInfo.format
    PDFInfo.format = info_with_keys  # reportlab writes only the standard keys
    try:
        doc.build(story, onFirstPage=_footer, onLaterPages=_footer)
    finally:
        PDFInfo.format = original
    path.write_bytes(buffer.getvalue())


# --------------------------------------------------------------------------- DOCX


def write_docx(policy: Policy, path: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = str(policy.meta.get("title", policy.stem))
    if policy.meta.get("category"):
        document.core_properties.category = str(policy.meta["category"])
    for kind, value in policy.blocks:
        if kind == "heading":
            level, text = value
            document.add_heading(text, level=level)
        elif kind == "para":
            document.add_paragraph(value)
        elif kind == "list":
            for item in value:
                document.add_paragraph(item, style="List Bullet")
        elif kind == "table":
            table = document.add_table(rows=len(value), cols=len(value[0]))
            table.style = "Table Grid"
            for r, row in enumerate(value):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
    buffer = io.BytesIO()
    document.save(buffer)
    extra = {k: _plain(v) for k, v in policy.meta.items() if k not in ("title", "category")}
    path.write_bytes(_with_custom_properties(buffer.getvalue(), extra))


def _with_custom_properties(data: bytes, props: dict[str, str]) -> bytes:
    """The .docx with ``docProps/custom.xml`` holding ``props`` (python-docx has no API)."""
    ns = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
    vt = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
    fmtid = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"
    items = "".join(
        f'<property fmtid="{fmtid}" pid="{i + 2}" name="{html.escape(k)}">'
        f"<vt:lpwstr>{html.escape(v)}</vt:lpwstr></property>"
        for i, (k, v) in enumerate(props.items())
    )
    custom = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<Properties xmlns="{ns}" xmlns:vt="{vt}">{items}</Properties>'
    )
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            content = src.read(info.filename)
            if info.filename == "[Content_Types].xml":
                content = content.replace(
                    b"</Types>",
                    b'<Override PartName="/docProps/custom.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.custom-properties+xml"/></Types>',
                )
            elif info.filename == "_rels/.rels":
                content = content.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdCustom" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/custom-properties" '
                    b'Target="docProps/custom.xml"/></Relationships>',
                )
            dst.writestr(info, content)
        dst.writestr("docProps/custom.xml", custom)
    return out.getvalue()


# --------------------------------------------------------------------------- HTML


def write_html(policy: Policy, path: Path) -> None:
    md = (INSURANCE / f"{policy.stem}.md").read_text(encoding="utf-8")
    if md.startswith("---\n"):
        md = md[md.index("\n---\n", 4) + 5 :]
    body = MarkdownIt("commonmark").enable("table").render(md)
    metas = "".join(
        f'<meta name="{html.escape(k)}" content="{html.escape(_plain(v))}">'
        for k, v in policy.meta.items()
        if k != "title"
    )
    title = html.escape(str(policy.meta.get("title", policy.stem)))
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title} | Acme</title>{metas}"
        "<style>body{font-family:sans-serif}</style><script>var tracking = 1;</script></head>"
        f"<body><header><a href='/'>Acme Insurance</a></header>"
        f"<nav><ul><li><a href='/'>Home</a></li><li><a href='/umbrella'>Umbrella $300,000 "
        f"plans</a></li></ul></nav><main>{body}</main>"
        f"<footer><p>{BOILERPLATE}</p></footer></body></html>"
    )
    path.write_text(page, encoding="utf-8")


def write_corpus(dest: Path, fmt: str, *, stems: list[str] | None = None) -> Path:
    """``examples/insurance`` written in ``fmt`` into ``dest/fmt``; returns that folder."""
    folder = dest / fmt
    folder.mkdir(parents=True, exist_ok=True)
    for md in sorted(INSURANCE.glob("*.md")):
        if md.name == "README.md" or (stems is not None and md.stem not in stems):
            continue
        policy = read_policy(md)
        target = folder / f"{md.stem}.{fmt}"
        if fmt == "pdf":
            write_pdf(policy, target)
        elif fmt == "docx":
            write_docx(policy, target)
        else:
            write_html(policy, target)
    return folder
