"""PDF, Word and HTML through ingest and search, on OpenSearch and on the embedded index.

A policy whose only statement of its limit is a table cell answers the amount query;
hits carry the pages they are on; a folder mixing the four formats goes in; a PDF that
turns unreadable keeps its stored chunks and the command exits 3.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_cases import BackendCase
from formats_corpus import Policy, read_policy, write_corpus, write_pdf
from typer.testing import CliRunner

from osrag.cli import app
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.searcher import Searcher

INSURANCE = Path(__file__).resolve().parents[2] / "examples" / "insurance"
REAL_SCAN = "real-docs/pdf/huckleberry-finn-p22-scan-no-text-layer.pdf"


def _table_only_policy(stem: str, limit: str, title: str) -> Policy:
    """An umbrella policy that states its limit in one table cell and nowhere else."""
    words = (
        "This umbrella policy sits above the insured's home and auto policies and pays "
        "liability claims once their limits are used up. "
    )
    return Policy(
        stem,
        {"id": stem, "title": title, "tenant": "acme"},
        [
            ("heading", (1, title)),
            ("heading", (2, "Scope")),
            ("para", words * 3),
            ("heading", (2, "Coverage")),
            ("para", "Bodily injury, property damage and personal injury to others. " * 3),
            ("heading", (2, "Limits")),
            ("para", "The limit below applies to each occurrence."),
            ("table", [["Coverage", "Limit"], ["Umbrella liability", limit]]),
            ("heading", (2, "Claims")),
            ("para", "Report a claim to the Acme claims desk within thirty days. " * 4),
        ],
    )


@pytest.fixture
def table_policies(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    folder.mkdir()
    write_pdf(
        _table_only_policy("umbrella-table-300k", "$300,000", "Acme Umbrella Basic"),
        folder / "umbrella-table-300k.pdf",
    )
    write_pdf(  # the same words at ten times the amount: text alone cannot tell them apart
        _table_only_policy("umbrella-table-3m", "$3,000,000", "Acme Umbrella Basic Plus"),
        folder / "umbrella-table-3m.pdf",
    )
    return folder


def test_a_pdf_whose_only_limit_is_in_a_table_answers_the_amount_query(
    table_policies: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    report = ingest(table_policies, backend, IngestOptions(alias=alias))
    assert report.errors == [] and report.documents == 2
    result = Searcher(backend, alias).search("umbrella policy with a $300,000 limit", tenant="acme")
    assert not result.fallback and result.amount is not None
    assert result.amount.minor_units == 30_000_000
    assert [h.doc_id for h in result.hits] == ["umbrella-table-300k"]
    hit = result.hits[0]
    assert "Umbrella liability — Limit: $300,000" in hit.body
    assert hit.breadcrumb == "Acme Umbrella Basic › Limits"
    assert hit.pages == [1] and 30_000_000 in hit.amounts
    other = Searcher(backend, alias).search("umbrella limit $3M", tenant="acme")
    assert [h.doc_id for h in other.hits] == ["umbrella-table-3m"]


def test_a_folder_mixing_the_four_formats_is_ingested_and_pdf_hits_carry_pages(
    tmp_path: Path, corpora: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    folder = tmp_path / "mixed"
    generated = tmp_path / "generated"
    for fmt, stem in (
        ("pdf", "home-standard-2024"),
        ("docx", "umbrella-300k-plus"),
        ("html", "umbrella-300k-cross-border"),
    ):
        write_corpus(generated, fmt, stems=[stem])
        folder.mkdir(exist_ok=True)
        (folder / f"{stem}.{fmt}").write_bytes((generated / fmt / f"{stem}.{fmt}").read_bytes())
    (folder / "umbrella-300k-standard.md").write_text(
        (INSURANCE / "umbrella-300k-standard.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (folder / "scan.pdf").write_bytes((corpora / REAL_SCAN).read_bytes())

    report = ingest(folder, backend, IngestOptions(alias=alias))
    assert report.documents == 4
    assert [(e.path, e.reason) for e in report.errors] == [
        ("scan.pdf", "no text layer (1 page); OCR is not supported")
    ]
    searcher = Searcher(backend, alias, enforce_access=False)
    for query, expected in (
        ("dwelling limit $300,000", "home-standard-2024"),  # PDF
        ("$300K umbrella", "umbrella-300k-plus"),  # DOCX
        ("USD 300,000 each occurrence limit", "umbrella-300k-cross-border"),  # HTML
        ("umbrella $300,000", "umbrella-300k-standard"),  # Markdown
    ):
        result = searcher.search(query, k=20)
        assert not result.fallback
        assert expected in {h.doc_id for h in result.hits}, query
        for hit in result.hits:
            assert bool(hit.pages) == (hit.doc_id == "home-standard-2024")

    args, env = backend_case.cli()
    out = CliRunner().invoke(
        app,
        [
            *("search", "$300,000 dwelling limit", "--alias", alias, "--json"),
            *("--tenant", "acme", "--acl", "agents", *args),
        ],
        env=env,
    )
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)["hits"]
    assert hits[0]["doc_id"] == "home-standard-2024"
    assert hits[0]["pages"] == [1, 2]  # the Limits section runs over the page break


def test_an_unreadable_pdf_keeps_its_stored_chunks_and_the_command_exits_3(
    table_policies: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    first = ingest(table_policies, backend, IngestOptions(alias=alias))
    kept = backend_case.chunk_ids(first.generation, "umbrella-table-300k")
    assert kept
    path = table_policies / "umbrella-table-300k.pdf"
    path.write_bytes(path.read_bytes()[:400])  # truncated mid-file
    report = ingest(table_policies, backend, IngestOptions(alias=alias))
    assert [e.path for e in report.errors] == ["umbrella-table-300k.pdf"]
    assert report.errors[0].reason.startswith("damaged or not a PDF")
    assert report.documents_removed == 0
    assert backend_case.chunk_ids(first.generation, "umbrella-table-300k") == kept

    args, env = backend_case.cli()
    out = CliRunner().invoke(app, ["ingest", str(table_policies), "--alias", alias, *args], env=env)
    assert out.exit_code == 3
    assert "umbrella-table-300k.pdf" in out.output


def test_osrag_chunks_shows_breadcrumbs_and_pages_of_a_pdf(tmp_path: Path) -> None:
    policy = read_policy(INSURANCE / "home-standard-2024.md")
    write_pdf(policy, tmp_path / "home.pdf")
    out = CliRunner().invoke(
        app, ["chunks", str(tmp_path / "home.pdf"), "--strategy", "structural", "--all"]
    )
    assert out.exit_code == 0, out.output
    assert "page 1" in out.output and "page 2" in out.output
    assert "Acme Homeowners HOM-12345 — 2024 Edition › Limits" in out.output
    lines = CliRunner().invoke(app, ["chunks", str(tmp_path / "home.pdf"), "--json"]).output
    records = [json.loads(line) for line in lines.splitlines()]
    assert all(r["pages"] for r in records) and records[-1]["pages"] == [2]
