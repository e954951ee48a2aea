"""PDF, Word and HTML loaders: real files from the real-docs slice, files generated from
examples/insurance, and every kind of bad input (each one a LoadIssue naming the file)."""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import pytest
from formats_corpus import read_policy, write_corpus, write_docx, write_html, write_pdf
from hypothesis import given
from hypothesis import strategies as st

from osrag.chunking import chunk_document, normalize
from osrag.extract import extract_values
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders import pdf as pdf_loader
from osrag.loaders import sniff
from osrag.loaders.corpus import load_corpus, load_file
from osrag.loaders.docx import MAX_UNZIPPED
from osrag.loaders.pdf_grid import grid_at
from osrag.loaders.pdf_lines import Line, Run
from osrag.loaders.pdf_structure import table_at, table_rows
from osrag.loaders.text import TextWriter, escape_line, table_lines
from osrag.models import ChunkingConfig, Document, ExtractionConfig, LoadIssue

INSURANCE = Path(__file__).resolve().parents[2] / "examples" / "insurance"


def _one(path: Path) -> Document | LoadIssue:
    items = list(load_file(path, path.name))
    assert len(items) == 1
    return items[0]


def _doc(path: Path) -> Document:
    item = _one(path)
    assert isinstance(item, Document), item
    return item


def _issue(path: Path) -> LoadIssue:
    item = _one(path)
    assert isinstance(item, LoadIssue), f"{path.name} loaded as a document"
    return item


def _check_spans(doc: Document) -> None:
    for chunk in chunk_document(doc, ChunkingConfig()):
        assert normalize(doc.text[chunk.span.start : chunk.span.end]) == chunk.body


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four policies as PDF, DOCX and HTML (a limits table, lists, three heading levels)."""
    root = tmp_path_factory.mktemp("generated")
    stems = [
        "home-standard-2024",
        "umbrella-300k-cross-border",
        "globex-auto-select",
        "life-term-20",
    ]
    for fmt in ("pdf", "docx", "html"):
        write_corpus(root, fmt, stems=stems)
    return root


@pytest.fixture(scope="module")
def real(corpora: Path) -> Path:
    return corpora / "real-docs"


# --------------------------------------------------------------------------- the text writer


def test_a_table_row_keeps_its_header_context() -> None:
    rows = [["Coverage", "Limit", "Deductible"], ["Umbrella", "$300,000", "$1,000"]]
    assert table_lines(rows) == [
        "Coverage | Limit | Deductible",
        "Umbrella — Limit: $300,000; Deductible: $1,000",
    ]


def test_a_merged_cell_is_written_once_and_empty_cells_are_left_out() -> None:
    rows = [["Tier", "Threshold", "Threshold"], ["A", "> $100M", "> $100M"], ["B", "", "$5M"]]
    assert table_lines(rows) == ["Tier | Threshold", "A — Threshold: > $100M", "B — Threshold: $5M"]


def test_text_that_looks_like_markdown_structure_is_escaped() -> None:
    assert escape_line("# of claims") == "\\# of claims"
    assert escape_line("-----") == "\\-----"
    assert escape_line("<script>x") == "\\<script>x"
    assert escape_line("Limit is 5") == "Limit is 5"
    writer = TextWriter("element")
    writer.open_unit(0)
    writer.block(["# not a heading", "```"])
    writer.open_unit(1)
    writer.heading(2, "Real heading")
    text, _ = writer.finish("t")
    doc = Document(doc_id="d", source_path="d", source_version="v", title="T", text=text)
    assert [c.breadcrumb for c in chunk_document(doc, ChunkingConfig())] == ["T"]


def test_the_writer_maps_each_unit_to_its_text() -> None:
    writer = TextWriter("page")
    writer.open_unit(1)
    writer.heading(1, "Title")
    writer.block(["first page"])
    writer.open_unit(2)
    writer.block(["second page"])
    writer.open_unit(3)  # a page that wrote nothing has no interval
    text, locations = writer.finish("t", units_total=3)
    spans = dict(
        zip(locations.numbers, zip(locations.starts, locations.ends, strict=True), strict=True)
    )
    assert text[slice(*spans[1])] == "# Title\n\nfirst page"
    assert text[slice(*spans[2])] == "second page"
    assert 3 not in spans and locations.units_total == 3


# --------------------------------------------------------------------------- sniffing


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"%PDF-1.7\n", "pdf"),
        (b"junk before the header %PDF-1.4", "pdf"),
        (b"PK\x03\x04rest", "zip"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),
        (b"\xef\xbb\xbf  <!DOCTYPE html><html>", "html"),
        (b"<HTML>", "html"),
        (b"<?xml version='1.0'?>\n<html xmlns='x'>", "html"),
        (b"<p>hello</p>", "html"),
        (b"# Markdown", None),
        (b"<pre-formatted text", None),
        (b"", None),
    ],
)
def test_formats_are_sniffed_from_their_bytes(head: bytes, kind: str | None) -> None:
    assert sniff(head) == kind


def test_a_pdf_named_html_and_a_web_page_named_pdf_are_read_as_what_they_are(
    generated: Path, tmp_path: Path
) -> None:
    page = tmp_path / "policy.pdf"
    page.write_bytes((generated / "html" / "home-standard-2024.html").read_bytes())
    as_html = _doc(page)
    assert as_html.locations is not None and as_html.locations.unit == "element"
    pdf = tmp_path / "policy.html"
    pdf.write_bytes((generated / "pdf" / "home-standard-2024.pdf").read_bytes())
    as_pdf = _doc(pdf)
    assert as_pdf.locations is not None and as_pdf.locations.unit == "page"


def test_a_file_named_pdf_or_docx_that_is_neither_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "notes.pdf").write_text("just text")
    (tmp_path / "letter.docx").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "sheet.docx").write_bytes(_zip({"xl/workbook.xml": b"<workbook/>"}))
    (tmp_path / "old.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)
    issues = {i.path: i.reason for i in load_corpus(tmp_path) if isinstance(i, LoadIssue)}
    assert issues["notes.pdf"].startswith("not a PDF, Word or HTML file: it starts with b'just")
    assert issues["letter.docx"].startswith("not a PDF, Word or HTML file")
    assert "without word/document.xml" in issues["sheet.docx"]
    assert "legacy Word .doc or a password-protected" in issues["old.docx"]


def test_a_missing_extra_is_a_load_issue_that_names_it(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module, fmt, extra in (
        ("pypdfium2", "pdf", "pdf"),
        ("docx", "docx", "docx"),
        ("selectolax.lexbor", "html", "html"),
    ):
        with monkeypatch.context() as m:
            m.setitem(sys.modules, module, None)  # import fails as if not installed
            m.setitem(sys.modules, module.split(".")[0], None)
            issue = _issue(generated / fmt / f"life-term-20.{fmt}")
        assert issue.reason.endswith(f"needs the '{extra}' extra: pip install 'osrag[{extra}]'")


# --------------------------------------------------------------------------- PDF


def test_pdf_breadcrumbs_pages_tables_and_properties_from_a_generated_policy(
    generated: Path,
) -> None:
    doc = _doc(generated / "pdf" / "home-standard-2024.pdf")
    assert doc.doc_id == "home-standard-2024" and doc.tenant == "acme"
    assert doc.acl == ["agents"] and str(doc.effective_from) == "2024-01-15"
    assert doc.title == "Acme Homeowners HOM-12345 — 2024 Edition"
    assert "E — Personal liability — Essential: $300,000; Preferred: $500,000" in doc.text
    assert "printer's slug" not in doc.text  # drawn above the page
    chunks = prepare_chunks(doc, ChunkingConfig())
    by_crumb = {c.breadcrumb: c for c in chunks}
    limits = by_crumb["Acme Homeowners HOM-12345 — 2024 Edition › Limits"]
    assert 30000000 in limits.amounts and limits.pages
    coverage_a = by_crumb[
        "Acme Homeowners HOM-12345 — 2024 Edition › Coverage › Coverage A — Dwelling"
    ]
    assert coverage_a.pages == [1]
    assert chunks[-1].pages == [doc.locations.units_total] == [2]  # type: ignore[union-attr]
    _check_spans(doc)


def test_pdf_headings_come_from_font_sizes_when_there_is_no_outline(
    generated: Path, tmp_path: Path
) -> None:
    policy = read_policy(INSURANCE / "home-standard-2024.md")
    write_pdf(policy, tmp_path / "no-outline.pdf", outline=False)
    with_outline = prepare_chunks(
        _doc(generated / "pdf" / "home-standard-2024.pdf"), ChunkingConfig()
    )
    without = prepare_chunks(_doc(tmp_path / "no-outline.pdf"), ChunkingConfig())
    assert [c.breadcrumb for c in without] == [c.breadcrumb for c in with_outline]


def test_a_chunk_across_a_page_break_lists_both_pages(tmp_path: Path) -> None:
    policy = read_policy(INSURANCE / "umbrella-commercial-300m.md")
    policy.blocks = [b for b in policy.blocks if b[0] != "heading"]  # one long section
    write_pdf(policy, tmp_path / "long.pdf", repeat=3)
    doc = _doc(tmp_path / "long.pdf")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=100_000))
    assert len(chunks) == 1
    assert chunks[0].pages == list(range(1, doc.locations.units_total + 1))  # type: ignore[union-attr]
    assert doc.locations.units_total >= 2  # type: ignore[union-attr]


def test_real_pdf_outline_gives_nested_breadcrumbs_and_the_proof_slug_is_not_indexed(
    real: Path,
) -> None:
    doc = _doc(real / "pdf" / "irs-p525-2023-taxable-and-nontaxable-income.pdf")
    assert doc.locations is not None and doc.locations.units_total == 44
    for slug in ("Fileid", "MUST be removed", "The type and rule above prints on all proofs"):
        assert slug not in doc.text
    assert "Thrift Savings Plan" in doc.text and "Sav ings" not in doc.text  # de-hyphenated
    chunks = chunk_document(doc, ChunkingConfig())
    crumbs = {c.breadcrumb for c in chunks}
    assert (
        "2023 Publication 525 › Employee Compensation › Fringe Benefits › Accident or Health Plan"
        in crumbs
    )
    assert all(c.pages and c.pages == sorted(c.pages) for c in chunks)
    assert chunks[-1].pages[-1] >= 40
    _check_spans(doc)


def test_real_encrypted_pdf_with_an_empty_password_is_read_without_running_heads(
    real: Path,
) -> None:
    doc = _doc(real / "pdf" / "copyright-office-dmca-summary-1998-encrypted.pdf")
    assert doc.title == "The Digital Millennium Copyright Act of 1998"
    assert "$500,000" in doc.text and "$1,000,000" in doc.text
    assert "Copyright Office Summary December 1998 Page" not in doc.text
    assert doc.text.count("The Digital Millennium Copyright Act of 1998") <= 2
    _check_spans(doc)


def test_real_table_pdf_decodes_its_amounts_and_three_columns_read_in_order(real: Path) -> None:
    senate = _doc(real / "pdf" / "senate-expenditures-2019-table.pdf")
    assert "BAIN, J MATTHEW" in senate.text and "37,499.96" in senate.text
    register = _doc(real / "pdf" / "federal-register-2020-17221-three-column.pdf")
    assert "SUMMARY: The FAA proposes to\nsupersede Airworthiness Directive (AD)" in register.text
    assert "$766,865" in register.text.replace("\n", " ")


def test_a_scan_without_a_text_layer_is_reported_not_indexed_empty(real: Path) -> None:
    issue = _issue(real / "pdf" / "huckleberry-finn-p22-scan-no-text-layer.pdf")
    assert issue.reason == "no text layer (1 page); OCR is not supported"


def test_a_pdf_that_needs_a_password_is_reported(tmp_path: Path) -> None:
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, encrypt=pdfencrypt.StandardEncryption("secret"))
    c.drawString(72, 700, "Umbrella limit $300,000")
    c.showPage()
    c.save()
    (tmp_path / "locked.pdf").write_bytes(buffer.getvalue())
    assert "a password is needed" in _issue(tmp_path / "locked.pdf").reason


def test_truncated_and_corrupt_pdfs_are_reported(real: Path, tmp_path: Path) -> None:
    data = (real / "pdf" / "senate-expenditures-2019-table.pdf").read_bytes()
    (tmp_path / "truncated.pdf").write_bytes(data[: len(data) // 3])
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    for name in ("truncated.pdf", "corrupt.pdf"):
        assert _issue(tmp_path / name).reason.startswith("damaged or not a PDF")


def test_an_enormous_page_is_reported_with_its_page_number(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_loader, "MAX_PAGE_CHARS", 1500)  # page 2 of this policy is shorter
    issue = _issue(generated / "pdf" / "home-standard-2024.pdf")
    assert issue.reason.startswith("page 1: ") and "over the limit of 1,500" in issue.reason


# --------------------------------------------------------------------------- DOCX


def test_docx_heading_styles_tables_lists_and_properties(generated: Path) -> None:
    doc = _doc(generated / "docx" / "home-standard-2024.docx")
    assert (doc.doc_id, doc.tenant, doc.category) == ("home-standard-2024", "acme", "home")
    assert "A — Dwelling — Essential: $300,000; Preferred: $450,000" in doc.text
    assert "- Personal property is now covered on an open-perils" in doc.text
    assert "\n- Sewer and drain backup of $10,000" in doc.text  # one list, one block
    chunks = chunk_document(doc, ChunkingConfig())
    assert "Acme Homeowners HOM-12345 — 2024 Edition › Scope › Changes from the 2023 edition" in {
        c.breadcrumb for c in chunks
    }
    assert all(c.elements and not c.pages for c in chunks)
    _check_spans(doc)


def test_real_docx_merged_cells_and_heading_levels(real: Path) -> None:
    doc = _doc(real / "docx" / "affars-pgi-5307-acquisition-planning.docx")
    chunks = prepare_chunks(doc, ChunkingConfig())
    assert any(len(c.breadcrumb.split(" › ")) == 4 for c in chunks)  # title › H1 › H2 › H3
    assert "$100M" in doc.text and "≥ $50M" in doc.text.replace("≥$", "≥ $")
    assert any(10_000_000_000 in c.amounts for c in chunks)  # $100M, from a merged-cell table
    dars = _doc(real / "docx" / "disa-dars-part-01.docx")
    assert dars.title == "PART 1--FEDERAL ACQUISITION REGULATIONS SYSTEM"
    _check_spans(dars)


def test_docx_and_html_versions_of_one_real_document_agree(real: Path) -> None:
    docx = prepare_chunks(
        _doc(real / "docx" / "affars-pgi-5307-acquisition-planning.docx"), ChunkingConfig()
    )
    html = prepare_chunks(
        _doc(real / "html" / "affars-pgi-5307-acquisition-planning.html"), ChunkingConfig()
    )

    def sections(chunks: list) -> set[str]:  # type: ignore[type-arg]
        return {" › ".join(c.heading_path) for c in chunks}

    assert sections(docx) == sections(html)
    assert {a for c in docx for a in c.amounts} == {a for c in html for a in c.amounts}


def test_a_docx_zip_bomb_is_refused_before_it_is_inflated(generated: Path, tmp_path: Path) -> None:
    from osrag.loaders import ReadOptions
    from osrag.loaders.corpus import load_file

    original = (generated / "docx" / "life-term-20.docx").read_bytes()
    parts = _unzip(original)
    parts["word/media/bomb.bin"] = b"\x00" * (16 * 1024 * 1024)
    (tmp_path / "bomb.docx").write_bytes(_zip(parts))
    assert (tmp_path / "bomb.docx").stat().st_size < 100_000
    small = ReadOptions(max_docx_unzipped_bytes=8 * 1024 * 1024)
    (issue,) = load_file(tmp_path / "bomb.docx", options=small)
    assert isinstance(issue, LoadIssue)
    assert "zip bomb" in issue.reason and "max_docx_unzipped_bytes" in issue.reason
    assert MAX_UNZIPPED == 256 * 1024 * 1024  # the real limit


def test_damaged_docx_files_are_reported(generated: Path, tmp_path: Path) -> None:
    original = (generated / "docx" / "life-term-20.docx").read_bytes()
    (tmp_path / "truncated.docx").write_bytes(original[: len(original) // 2])
    parts = _unzip(original)
    parts["word/document.xml"] = b"<w:document><w:body><w:p>unclosed"
    (tmp_path / "badxml.docx").write_bytes(_zip(parts))
    assert "damaged zip" in _issue(tmp_path / "truncated.docx").reason
    assert "not a readable Word document" in _issue(tmp_path / "badxml.docx").reason


# --------------------------------------------------------------------------- HTML


def test_html_headings_tables_and_no_boilerplate(generated: Path) -> None:
    doc = _doc(generated / "html" / "umbrella-300k-cross-border.html")
    assert doc.title == "Acme Cross-Border Umbrella"  # the policy's title, without " | Acme"
    assert doc.tenant == "acme" and doc.acl == ["agents", "underwriters"]
    assert "Each occurrence limit — Amount: USD 300,000" in doc.text
    for boilerplate in ("Skip to content", "Umbrella $300,000 plans", "tracking", "Home"):
        assert boilerplate not in doc.text
    assert doc.locations is not None and doc.locations.unit == "element"
    _check_spans(doc)


def test_real_html_breadcrumbs_and_tables(real: Path) -> None:
    doc = _doc(real / "html" / "vaar-part-801.html")
    chunks = prepare_chunks(doc, ChunkingConfig())
    assert max(len(c.heading_path) for c in chunks) >= 2
    assert any(100_000_000 in c.amounts for c in chunks)  # "$1 million or more"
    fehbar = _doc(real / "html" / "fehbar-part-1652-fehb-contract-clauses.html")
    assert fehbar.title.startswith("PART 1652")
    _check_spans(fehbar)


def test_html_element_numbers_point_back_into_the_page() -> None:
    from selectolax.lexbor import LexborHTMLParser

    from osrag.loaders.html import load_html

    page = (
        "<html><body><nav><a>x</a></nav><h1>T</h1><p>One <b>two</b></p>"
        "<ul><li>three</li></ul></body></html>"
    )
    extracted = load_html(page.encode())
    elements = LexborHTMLParser(page).css("*")
    by_number = dict(
        zip(
            extracted.locations.numbers,
            zip(extracted.locations.starts, extracted.locations.ends, strict=True),
            strict=True,
        )
    )
    for number, (start, end) in by_number.items():
        assert elements[number].tag in ("h1", "p", "li")
        assert elements[number].text(deep=True).strip() in extracted.text[start:end]


def test_an_html_table_caption_is_the_lead_in_that_scales_its_cells() -> None:
    from osrag.extract.enrich import extract_values
    from osrag.loaders.html import load_html
    from osrag.models import ExtractionConfig

    page = (
        "<html><body><h2>Sales by region</h2><table><caption>(in thousands of euros)"
        "</caption><tr><th>Region</th><th>2024</th></tr><tr><td>North</td><td>3,250</td>"
        "</tr></table></body></html>"
    )
    extracted = load_html(page.encode())
    assert "(in thousands of euros)\n\nRegion | 2024" in extracted.text
    facts = extract_values(extracted.text, ExtractionConfig()).facts
    assert [(f.currency, f.value, f.year) for f in facts] == [("EUR", 325_000_000, 2024)]


def test_an_html_definition_list_gives_each_definition_its_term() -> None:
    from selectolax.lexbor import LexborHTMLParser

    from osrag.extract.enrich import extract_values
    from osrag.loaders.html import load_html
    from osrag.models import ExtractionConfig

    page = (
        "<html><body><h2>Rates</h2><dl><dt>Minimum charge</dt><dd><b>$100</b> (setup and"
        " supplies)</dd><dt>Call-out:</dt><dd>$45</dd><dd>$90 after 6pm</dd>"
        "<dt>Gift cards</dt><dt>Walk-ins</dt><dd>Thu–Sun</dd><dt>Ask us</dt></dl>"
        "<p>Cash or card.</p></body></html>"
    )
    extracted = load_html(page.encode())
    text = extracted.text
    for line in (
        "Minimum charge: $100 (setup and supplies)",
        "Call-out: $45",  # a term ending in its own colon keeps it, once
        "Call-out: $90 after 6pm",  # each definition of a term is given it
        "Gift cards",  # a term no definition follows is a paragraph of its own
        "Walk-ins: Thu–Sun",
        "Ask us",  # and so is the list's last
        "Cash or card.",
    ):
        assert f"\n{line}\n" in f"\n{text}\n", line
    facts = extract_values(text, ExtractionConfig()).facts
    assert [(f.label, f.value) for f in facts][:2] == [
        ("Minimum charge", 10_000),
        ("Call-out", 4_500),
    ]
    # each written unit still points back into the page: a definition's unit is its dd
    elements = LexborHTMLParser(page).css("*")
    for number, start, end in zip(
        extracted.locations.numbers,
        extracted.locations.starts,
        extracted.locations.ends,
        strict=True,
    ):
        assert elements[number].tag in ("h2", "dt", "dd", "p")
        assert elements[number].text(deep=True).strip() in text[start:end]


# --------------------------------------------------------------------------- a whole mixed folder


def test_a_folder_mixing_the_four_formats_loads_every_document(
    generated: Path, real: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "auto-30k.md").write_text((INSURANCE / "auto-30k-state-minimum.md").read_text())
    for fmt, stem in (
        ("pdf", "home-standard-2024"),
        ("docx", "life-term-20"),
        ("html", "globex-auto-select"),
    ):
        (folder / f"{stem}.{fmt}").write_bytes((generated / fmt / f"{stem}.{fmt}").read_bytes())
    (folder / "copy-of-home.html").write_bytes(
        (generated / "html" / "home-standard-2024.html").read_bytes()
    )
    (folder / "scan.pdf").write_bytes(
        (real / "pdf" / "huckleberry-finn-p22-scan-no-text-layer.pdf").read_bytes()
    )
    items = list(load_corpus(folder))
    docs = [i for i in items if isinstance(i, Document)]
    issues = sorted((i for i in items if isinstance(i, LoadIssue)), key=lambda i: i.path)
    assert {d.doc_id: d.source_path for d in docs} == {
        "auto-30k-state-minimum": "auto-30k.md",
        "home-standard-2024": "copy-of-home.html",  # first in sorted order
        "life-term-20": "life-term-20.docx",
        "globex-auto-select": "globex-auto-select.html",
    }
    # the same document id, from the page's own metadata, in two files
    assert issues[0].path == "home-standard-2024.pdf"
    assert "duplicate document id 'home-standard-2024'" in issues[0].reason
    assert issues[1].path == "scan.pdf"


def _unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _zip(parts: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in parts.items():
            archive.writestr(name, content)
    return out.getvalue()


def test_write_helpers_cover_every_format(tmp_path: Path) -> None:
    policy = read_policy(INSURANCE / "life-term-20.md")
    write_pdf(policy, tmp_path / "a.pdf")
    write_docx(policy, tmp_path / "a.docx")
    write_html(policy, tmp_path / "a.html")
    assert [sniff((tmp_path / f"a.{x}").read_bytes()) for x in ("pdf", "docx", "html")] == [
        "pdf",
        "zip",
        "html",
    ]


def test_docx_element_numbers_are_body_paragraphs_and_tables(real: Path) -> None:
    import docx

    from osrag.loaders.docx import load_docx

    data = (real / "docx" / "disa-dars-part-01.docx").read_bytes()
    extracted = load_docx(data)
    blocks = list(docx.Document(io.BytesIO(data)).iter_inner_content())
    checked = 0
    for number, start, end in zip(
        extracted.locations.numbers, extracted.locations.starts, extracted.locations.ends,
        strict=True,
    ):  # fmt: skip
        block = blocks[number]
        words = " ".join(getattr(block, "text", "").split()).split()
        if words:  # a paragraph: its first words are where the map says
            assert " ".join(words[:3]) in " ".join(extracted.text[start:end].split())
            checked += 1
    assert checked > 100


def test_html_is_decoded_by_its_bom_or_meta_charset_else_utf8_else_cp1252() -> None:
    from osrag.loaders.html import decode_html

    assert decode_html("<p>café</p>".encode()) == "<p>café</p>"
    assert decode_html(b"\xef\xbb\xbf<p>x</p>") == "<p>x</p>"
    latin = '<meta charset="iso-8859-1"><p>caf\xe9</p>'.encode("latin-1")
    assert decode_html(latin).endswith("café</p>")
    assert decode_html(b"<p>\x93quoted\x94</p>") == "<p>\u201cquoted\u201d</p>"


_CELL = st.text(alphabet="abc XYZ$0123456789,.", max_size=12)


@given(st.lists(st.lists(_CELL, min_size=1, max_size=5), min_size=1, max_size=6))
def test_every_cell_of_a_table_is_in_its_lines_with_its_header(rows: list[list[str]]) -> None:
    lines = table_lines(rows)
    kept = [[" ".join(c.split()) for c in row] for row in rows]
    kept = [row for row in kept if any(kept_cell for kept_cell in row)]
    assert len(lines) == len(kept)
    width = max((len(r) for r in kept), default=0)
    for line, row in zip(lines, kept, strict=True):
        for cell in row:
            assert not cell or cell in line
        if kept and row is not kept[0] and len(kept) >= 2 and width >= 2:
            header = kept[0] + [""] * (width - len(kept[0]))
            for i in range(1, len(row)):
                if row[i] and header[i] and header[i] != row[i] and row[i] != row[i - 1]:
                    assert f"{header[i]}: {row[i]}" in line


def test_the_generation_records_the_loaders_and_both_coordinate_systems() -> None:
    from osrag.ingestion.pipeline import pipeline_versions
    from osrag.models import ExtractionConfig

    versions = pipeline_versions(ChunkingConfig(), ExtractionConfig())
    assert versions["loaders"] == "osrag-pdf@4,osrag-docx@1,osrag-html@2"
    assert versions["coordinates"] == (
        "unicode-code-points-of-decoded-source,unicode-code-points-of-extracted-text"
    )


def _pdf_line(top: float, *cells: tuple[float, str]) -> Line:
    runs = [Run(x, x + 6.0 * len(text), text, 10.0) for x, text in cells]
    return Line(runs, top, top + 10.0, 10.0, "  ".join(text for _, text in cells))


def test_a_pdf_table_whose_header_names_a_year_is_a_table() -> None:
    lines = [
        _pdf_line(100, (72, "Bridge (in thousands)"), (400, "Fiscal 2024")),
        _pdf_line(116, (72, "Net earnings"), (400, "$88.1")),
        _pdf_line(132, (72, "Income taxes"), (400, "21.7")),
        _pdf_line(148, (72, "Adjusted EBITDA"), (400, "$140.2")),
    ]
    assert table_at(lines, 0) == 4
    assert table_rows(lines)[1] == ["Net earnings", "$88.1"]
    # a header line holding a figure other than a year is no header
    figures = [_pdf_line(100, (72, "Orders shipped"), (400, "1,250")), *lines[1:]]
    assert table_at(figures, 0) == 0


def _certificate_pdf(stacked: bool) -> bytes:
    """A made-up certificate of insurance: a grid whose cells wrap, each limits cell a
    stack of labelled amounts (on one line each, or run together with semicolons)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import LETTER
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    cell = ParagraphStyle("cell", fontName="Helvetica", fontSize=9, leading=11)
    sep = "<br/>" if stacked else "; "
    data = [
        ["Type of insurance", "Policy number", "Policy effective", "Policy expiration", "Limits"],
        [
            "Excess liability, claims made",
            "XS 55-2081",
            "07/01/2025",
            "07/01/2026",
            sep.join(["EACH OCCURRENCE $ 4,000,000", "AGGREGATE $ 4,000,000"]),
        ],
        [
            "Commercial general liability, occurrence",
            "CG 55-2080",
            "07/01/2025",
            "07/01/2026",
            sep.join(["EACH OCCURRENCE $ 1,000,000", "PERSONAL & ADV INJURY $ 1,000,000"]),
        ],
    ]
    rows = [[Paragraph(text, cell) for text in row] for row in data]
    table = Table(rows, colWidths=[120, 70, 65, 65, 150])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.grey)]))
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=LETTER).build(
        [Paragraph("Certificate of Liability Insurance", cell), table]
    )
    return buffer.getvalue()


@pytest.mark.parametrize("stacked", [True, False])
def test_a_pdf_grid_whose_cells_wrap_is_read_row_by_row(stacked: bool) -> None:
    text = pdf_loader.load_pdf(_certificate_pdf(stacked)).text
    header = "Type of insurance | Policy number | Policy effective | Policy expiration | Limits"
    assert header in text
    assert (
        "Excess liability, claims made — Policy number: XS 55-2081; Policy effective: "
        "07/01/2025; Policy expiration: 07/01/2026; Limits: EACH OCCURRENCE $ 4,000,000; "
        "AGGREGATE $ 4,000,000"
    ) in text
    assert (
        "Commercial general liability, occurrence — Policy number: CG 55-2080; "
        "Policy effective: 07/01/2025; Policy expiration: 07/01/2026; "
        "Limits: EACH OCCURRENCE $ 1,000,000; PERSONAL & ADV INJURY $ 1,000,000"
    ) in text
    # each limit is named by its own key under its line of cover, not by the dates
    labels = [(f.raw, f.label) for f in extract_values(text, ExtractionConfig()).facts]
    assert labels[:2] == [
        ("$ 4,000,000", "Excess liability, claims made — Limits — EACH OCCURRENCE"),
        ("$ 4,000,000", "Excess liability, claims made — Limits — AGGREGATE"),
    ]


def _grid_line(top: float, *cells: tuple[float, str]) -> Line:
    runs = [Run(x, x + 5.0 * len(text), text, 10.0) for x, text in cells]
    return Line(runs, top, top + 10.0, 10.0, " ".join(text for _, text in cells))


def test_a_grid_drawn_cell_by_cell_is_put_together_and_prose_in_columns_is_not() -> None:
    # read as PDFium gives it: one cell's wrapped lines down, then back up for the next
    lines = [
        _grid_line(100, (50, "Coverage")),
        _grid_line(100, (200, "Insurer")),
        _grid_line(100, (300, "Limits")),
        _grid_line(118, (50, "Hired and non-owned")),
        _grid_line(129, (50, "auto")),
        _grid_line(118, (200, "Northwind Mutual")),
        _grid_line(118, (300, "Each accident")),
        _grid_line(129, (300, "$750,000")),
        _grid_line(147, (50, "Cargo")),
        _grid_line(147, (200, "Lakeshore")),
        _grid_line(147, (300, "Per load $100,000")),
        _grid_line(175, (50, "Signed for the insurer by the agent")),
    ]
    found = grid_at(lines, 0)
    assert found is not None
    end, rows = found
    assert end == 11  # the paragraph after the grid is not part of it
    assert rows == [
        ["Coverage", "Insurer", "Limits"],
        ["Hired and non-owned auto", "Northwind Mutual", "Each accident $750,000"],
        ["Cargo", "Lakeshore", "Per load $100,000"],
    ]
    # two columns of prose, the second read after the first: long cells, no grid
    prose = [
        _grid_line(100, (50, "The tenant shall keep the premises in good repair")),
        _grid_line(111, (50, "and shall return them at the end of the term")),
        _grid_line(129, (50, "in the condition they were received in, wear excepted")),
        _grid_line(100, (320, "The landlord shall insure the building against fire")),
        _grid_line(111, (320, "and shall rebuild it after a loss within a year")),
    ]
    assert grid_at(prose, 0) is None


def test_a_forms_blank_boxes_are_no_grid_and_the_same_boxes_filled_in_are() -> None:
    # a form's boxes drawn cell by cell: each cell a field's caption, nothing filled in;
    # read as a grid its captions become "values" of one another's columns
    def boxes(filled: bool) -> list[Line]:
        return [
            _grid_line(100, (50, "Part 1")),
            _grid_line(100, (200, "Given name")),
            _grid_line(100, (330, "Family name")),
            _grid_line(118, (50, "Applicant")),
            _grid_line(129, (50, "details")),
            _grid_line(118, (200, "Street address" + (" 14 Elm Row" if filled else ""))),
            _grid_line(118, (330, "Date of birth" + (" 02/03/1990" if filled else ""))),
            _grid_line(147, (50, "Contact")),
            _grid_line(147, (200, "Town and postcode")),
        ]

    assert grid_at(boxes(filled=False), 0) is None
    found = grid_at(boxes(filled=True), 0)
    assert found is not None
    assert found[1][1] == [
        "Applicant details",
        "Street address 14 Elm Row",
        "Date of birth 02/03/1990",
    ]


def test_a_grid_cell_whose_last_line_stands_alone_is_joined_to_its_row() -> None:
    # rows set as close as a cell's lines: a lone lower-case line or a line after an
    # open end ("… per hour =") is the end of the cell above, not a row of its own
    lines = [
        _grid_line(100, (50, "Task"), (200, "Labor"), (360, "Parts")),
        _grid_line(106, (365, "cost")),
        _grid_line(120, (50, "Panel swap"), (200, "3 hours at $90 per hour =")),
        _grid_line(131, (205, "$270")),
        _grid_line(120, (360, "$45")),
        _grid_line(142, (50, "Fuse check and"), (200, "1 hour")),
        _grid_line(153, (55, "relabel")),
        _grid_line(142, (360, "$0")),
    ]
    found = grid_at(lines, 0)
    assert found is not None
    assert found[1] == [
        ["Task", "Labor", "Parts cost"],
        ["Panel swap", "3 hours at $90 per hour = $270", "$45"],
        ["Fuse check and relabel", "1 hour", "$0"],
    ]
