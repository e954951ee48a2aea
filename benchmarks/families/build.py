"""Write the Word and PDF documents of the families set from their committed sources.

    .venv/bin/python benchmarks/families/build.py           # (re)write every .docx and .pdf
    .venv/bin/python benchmarks/families/build.py --check   # exit 1 if a committed file differs
    .venv/bin/python benchmarks/families/build.py --set probe [--check]   # the probe set's

The same for the probe sets of ``benchmarks/data/probe/`` (``--set probe``),
``benchmarks/data/probe2/`` (``--set probe2``) and so on to ``benchmarks/data/probe19/``
(``--set probe19``): their sources are
``<set>/sources/<family>/``, their documents ``<set>/documents/``.

The documents of ``benchmarks/data/families/documents/`` that are Markdown, plain text or
HTML are committed as they are. The Word and PDF ones are generated here, so the set stays
reviewable: each comes from one source under ``benchmarks/families/sources/<family>/``
whose name says the format it becomes —

* ``<stem>.docx.md`` / ``<stem>.pdf.md`` — a document written for the set, as Markdown
  (headings, paragraphs, bullet and numbered lists, pipe tables, bold and italic; a single
  line break inside a paragraph stays a line break, as on a typed page);
* ``<stem>.docx.txt`` — a real contract's text (CUAD), copied unedited: every non-blank line
  becomes one Word paragraph, its words and spacing as they are.

Word files are written with python-docx (``Heading N`` styles, ``List Bullet`` /
``List Number`` paragraphs, ``Table Grid`` tables whose first row is the header), PDF files
with reportlab (headings set larger than the body, tables drawn as ruled grids). Both are
written byte-for-byte reproducibly — fixed document dates, fixed zip timestamps, reportlab's
invariant mode — so ``--check`` can tell whether a committed file still matches its source
with the same library versions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import io
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _paths import PROBE_SETS, ROOT

SOURCES = Path(__file__).resolve().parent / "sources"
DOCUMENTS = ROOT / "benchmarks" / "data" / "families" / "documents"
SETS = {
    "families": (SOURCES, DOCUMENTS),
    **{
        name: (
            ROOT / "benchmarks" / "data" / name / "sources",
            ROOT / "benchmarks" / "data" / name / "documents",
        )
        for name in PROBE_SETS
    },
}
"""Each set's (sources folder, documents folder)."""
FORMATS = ("docx", "pdf")
CONTRACT_TITLES = {
    "cuad-hyperion-exclusive-distributor": "Exclusive Distributor Agreement",
    "cuad-legacy-technology-distributor": "Exclusive Distributor Agreement",
    "cuad-slinger-bag-consulting": "Consulting Agreement",
}
"""The Word title property of each contract: the agreement's own name (its first lines)."""
FIXED_DATE = dt.datetime(2024, 9, 1, 12, 0, 0)
"""Every generated file carries this date (creation, modification), so a rebuild is
byte-identical."""

# --------------------------------------------------------------------------- the source


@dataclass(frozen=True)
class Run:
    """A piece of inline text and how it is set."""

    text: str
    bold: bool = False
    italic: bool = False
    line_break: bool = False
    """A line break before this run's text (a soft break in the source)."""


Inline = list[Run]
Block = tuple[str, Any]
"""``("heading", (level, runs))``, ``("para", runs)``, ``("list", (ordered, [runs]))``,
``("table", [[runs, …], …])`` (first row the header), ``("line", text)`` for a contract's
plain line."""


def inline_runs(token: Token) -> Inline:
    """The runs of one inline token: bold, italic and soft breaks kept."""
    runs: Inline = []
    bold = italic = pending_break = False
    for child in token.children or []:
        if child.type == "strong_open":
            bold = True
        elif child.type == "strong_close":
            bold = False
        elif child.type == "em_open":
            italic = True
        elif child.type == "em_close":
            italic = False
        elif child.type in ("softbreak", "hardbreak"):
            pending_break = True
        elif child.type in ("text", "code_inline"):
            runs.append(Run(child.content, bold, italic, pending_break))
            pending_break = False
    return runs


def plain(runs: Inline) -> str:
    """The text of some runs, a line break read as a space."""
    return "".join((" " if r.line_break else "") + r.text for r in runs)


def read_markdown(text: str) -> list[Block]:
    """The blocks of a Markdown source, in order."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            blocks.append(("heading", (int(token.tag[1]), inline_runs(tokens[i + 1]))))
            i += 3
        elif token.type == "paragraph_open":
            blocks.append(("para", inline_runs(tokens[i + 1])))
            i += 3
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            closing = token.type.replace("_open", "_close")
            items: list[Inline] = []
            i += 1
            while tokens[i].type != closing:
                if tokens[i].type == "inline":
                    items.append(inline_runs(tokens[i]))
                i += 1
            blocks.append(("list", (token.type == "ordered_list_open", items)))
            i += 1
        elif token.type == "table_open":
            rows: list[list[Inline]] = []
            row: list[Inline] = []
            i += 1
            while tokens[i].type != "table_close":
                if tokens[i].type == "tr_open":
                    row = []
                elif tokens[i].type == "inline":
                    row.append(inline_runs(tokens[i]))
                elif tokens[i].type == "tr_close":
                    rows.append(row)
                i += 1
            blocks.append(("table", rows))
            i += 1
        else:
            i += 1
    return blocks


def read_source(path: Path) -> tuple[str, list[Block]]:
    """(title, blocks) of a source: Markdown written for the set, or a contract's lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".txt":
        lines = [line.rstrip() for line in text.splitlines() if line.strip()]
        return CONTRACT_TITLES[path.name.split(".")[0]], [("line", line) for line in lines]
    blocks = read_markdown(text)
    title = next((plain(v[1]) for kind, v in blocks if kind == "heading"), path.stem)
    return title, blocks


def target(source: Path, documents: Path = DOCUMENTS) -> Path:
    """Where a source's document goes: ``sources/<family>/<stem>.<fmt>.<ext>`` →
    ``documents/<family>/<stem>.<fmt>``."""
    stem, fmt = source.name.rsplit(".", 2)[:2]
    if fmt not in FORMATS:
        raise SystemExit(f"{source}: the name must end in .docx.md, .pdf.md or .docx.txt")
    return documents / source.parent.name / f"{stem}.{fmt}"


def sources(folder: Path = SOURCES) -> list[Path]:
    return sorted(p for p in folder.glob("*/*") if p.suffix in (".md", ".txt"))


# --------------------------------------------------------------------------- Word


def _add_runs(paragraph: Any, runs: Inline) -> None:
    for run in runs:
        if run.line_break:
            paragraph.add_run().add_break()
        added = paragraph.add_run(run.text)
        added.bold = run.bold or None
        added.italic = run.italic or None


def write_docx(title: str, blocks: list[Block]) -> bytes:
    import docx

    document = docx.Document()
    props = document.core_properties
    props.title = title
    props.author = ""
    props.last_modified_by = ""
    props.created = props.modified = props.last_printed = FIXED_DATE
    props.revision = 1
    for kind, value in blocks:
        if kind == "heading":
            level, runs = value
            _add_runs(document.add_heading(level=min(level, 4)), runs)
        elif kind == "para":
            _add_runs(document.add_paragraph(), value)
        elif kind == "line":
            document.add_paragraph(value)
        elif kind == "list":
            ordered, items = value
            for item in items:
                _add_runs(
                    document.add_paragraph(style="List Number" if ordered else "List Bullet"), item
                )
        elif kind == "table":
            width = max(len(row) for row in value)
            table = document.add_table(rows=len(value), cols=width)
            table.style = "Table Grid"
            for r, row in enumerate(value):
                for c, runs in enumerate(row):
                    cell = table.cell(r, c).paragraphs[0]
                    _add_runs(
                        cell, [Run(x.text, x.bold or r == 0, x.italic, x.line_break) for x in runs]
                    )
    buffer = io.BytesIO()
    document.save(buffer)
    return _fixed_zip(buffer.getvalue())


def _fixed_zip(data: bytes) -> bytes:
    """The same zip with every member's timestamp fixed (python-docx writes the time of
    saving), members in their original order."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_DATE.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


# --------------------------------------------------------------------------- PDF


def _markup(runs: Inline) -> str:
    """reportlab's paragraph markup for some runs."""
    parts = []
    for run in runs:
        text = html.escape(run.text, quote=False)
        if run.bold:
            text = f"<b>{text}</b>"
        if run.italic:
            text = f"<i>{text}</i>"
        parts.append(("<br/>" if run.line_break else "") + text)
    return "".join(parts)


def _column_widths(columns: list[list[str]], usable: float) -> list[float]:
    """Column widths in points: each at least as wide as its longest word (so no word is
    broken across lines), the rest of the page shared by how much more text each holds."""
    char, padding = 5.2, 14.0  # 9 pt Helvetica averages about 5 pt a character
    needed = [
        max(len(w) for t in col for w in (t.split() or [""])) * char + padding for col in columns
    ]
    wanted = [min(max(map(len, col)), 45) * char + padding for col in columns]
    spare = usable - sum(needed)
    if spare <= 0:
        return [usable * n / sum(needed) for n in needed]
    more = [max(w - n, 0.0) for w, n in zip(wanted, needed, strict=True)]
    total = sum(more) or 1.0
    return [n + spare * m / total for n, m in zip(needed, more, strict=True)]


def write_pdf(title: str, blocks: list[Block]) -> bytes:
    from reportlab import rl_config
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import LETTER
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import (
        ListFlowable,
        ListItem,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    rl_config.invariant = 1  # no creation date or random document id: reproducible bytes
    body = ParagraphStyle("body", fontName="Helvetica", fontSize=10, leading=13, spaceAfter=6)
    heads = {
        1: ParagraphStyle("h1", fontName="Helvetica-Bold", fontSize=17, leading=21, spaceAfter=10),
        2: ParagraphStyle("h2", fontName="Helvetica-Bold", fontSize=13, leading=17, spaceBefore=8),
        3: ParagraphStyle("h3", fontName="Helvetica-Bold", fontSize=11, leading=14, spaceBefore=6),
    }
    cell = ParagraphStyle("cell", fontName="Helvetica", fontSize=9, leading=11)
    head_cell = ParagraphStyle("head", parent=cell, fontName="Helvetica-Bold")
    usable = LETTER[0] - 2 * 72
    story: list[Any] = []
    for kind, value in blocks:
        if kind == "heading":
            level, runs = value
            story.append(Paragraph(_markup(runs), heads[min(level, 3)]))
        elif kind == "para":
            story.append(Paragraph(_markup(value), body))
        elif kind == "line":
            story.append(Paragraph(html.escape(value, quote=False), body))
        elif kind == "list":
            ordered, items = value
            flow = [ListItem(Paragraph(_markup(item), body)) for item in items]
            story.append(
                ListFlowable(
                    flow, bulletType="1" if ordered else "bullet", start=None if ordered else "•"
                )
            )
        elif kind == "table":
            columns = max(len(row) for row in value)
            texts = [[plain(row[c]) for row in value if c < len(row)] for c in range(columns)]
            widths = _column_widths(texts, usable)
            rows = [
                [Paragraph(_markup(runs), head_cell if r == 0 else cell) for runs in row]
                + [Paragraph("", cell)] * (columns - len(row))
                for r, row in enumerate(value)
            ]
            table = Table(rows, colWidths=widths, repeatRows=1)
            table.setStyle(
                TableStyle(
                    [
                        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("BACKGROUND", (0, 0), (-1, 0), colors.whitesmoke),
                    ]
                )
            )
            story += [table, Spacer(1, 8)]
    buffer = io.BytesIO()
    SimpleDocTemplate(
        buffer, pagesize=LETTER, title=title, author="", creator="", producer="", invariant=1
    ).build(story)
    return buffer.getvalue()


# --------------------------------------------------------------------------- the build


def render(source: Path) -> bytes:
    title, blocks = read_source(source)
    return (
        write_docx(title, blocks) if target(source).suffix == ".docx" else write_pdf(title, blocks)
    )


def build(into: Path | None = None, set_name: str = "families") -> list[Path]:
    """Write every document of a set (into ``into`` instead of its documents folder, keeping
    ``<family>/<file>``); the paths written."""
    folder, documents = SETS[set_name]
    written = []
    for source in sources(folder):
        path = target(source, documents)
        if into is not None:
            path = into / path.parent.name / path.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(render(source))
        written.append(path)
    return written


def stale(set_name: str = "families") -> list[str]:
    """The generated documents of a set that are missing, differ from a fresh build, or have
    no source."""
    folder, documents = SETS[set_name]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = {p.relative_to(tmp).as_posix(): p for p in build(Path(tmp), set_name)}
        for name, path in sorted(fresh.items()):
            committed = documents / name
            if not committed.exists():
                problems.append(f"{name}: not written (run build.py)")
            elif committed.read_bytes() != path.read_bytes():
                problems.append(f"{name}: differs from its source's build")
    for fmt in FORMATS:
        for path in sorted(documents.glob(f"*/*.{fmt}")):
            name = path.relative_to(documents).as_posix()
            if name not in fresh:
                problems.append(f"{name}: no source under {folder.relative_to(ROOT)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--set", default="families", choices=sorted(SETS), help="which set")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale(args.set)
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    for path in build(set_name=args.set):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
