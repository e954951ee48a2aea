"""Chunks get the values stated in their source span, extracted once per document."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import itertools
import logging
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.errors import ExtractionError
from osrag.extract.enrich import enrich_chunks, extract_values
from osrag.models import Chunk, Document, ExtractionConfig, Span, TokenSpan

FRONT = "---\ntitle: Umbrella\nlimit: $9,999\n---\n"
BODY = (
    "# Umbrella\n\nThe UMB-300000 policy covers $300,000 per occurrence, "
    "a €50.000,00 excess abroad, and takes effect January 15, 2024.\n"
)


def make_doc(text: str = FRONT + BODY, content_start: int = len(FRONT)) -> Document:
    return Document(
        doc_id="umbrella",
        source_path="umbrella.md",
        source_version=hashlib.sha256(text.encode()).hexdigest(),
        title="Umbrella",
        text=text,
        content_start=content_start,
    )


def make_chunk(doc: Document, index: int, start: int, end: int, breadcrumb: str = "") -> Chunk:
    body = doc.text[start:end]
    text = f"{breadcrumb}\n{body}"
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Chunk(
        chunk_id=f"{doc.doc_id}#{index}#{digest[:16]}",
        doc_id=doc.doc_id,
        source_path=doc.source_path,
        source_version=doc.source_version,
        strategy="fixed",
        chunk_index=index,
        title=doc.title,
        text=text,
        body=body,
        breadcrumb=breadcrumb,
        heading_path=[breadcrumb] if breadcrumb else [],
        span=Span(start, end),
        token_span=TokenSpan(0, 1),
        tokenizer="whitespace@2",
        parser="test@1",
        content_digest=digest,
    )


def cut(doc: Document, cuts: list[int]) -> list[Chunk]:
    bounds = [doc.content_start, *cuts, len(doc.text)]
    return [make_chunk(doc, i, a, b) for i, (a, b) in enumerate(itertools.pairwise(bounds))]


def test_every_chunk_gets_sorted_distinct_values_of_its_span() -> None:
    doc = make_doc()
    [chunk] = enrich_chunks(doc, cut(doc, []), ExtractionConfig())
    assert chunk.amounts == [30_000_000]
    assert chunk.money == ["EUR:5000000", "USD:30000000"]
    assert chunk.dates == [dt.date(2024, 1, 15)]
    assert chunk.identifiers == ["UMB-300000"]


def test_front_matter_is_not_content() -> None:
    doc = make_doc()
    [chunk] = enrich_chunks(doc, cut(doc, []))
    assert 999_900 not in chunk.amounts


def test_a_euro_amount_never_lands_in_amounts_when_the_default_is_usd() -> None:
    doc = make_doc()
    [chunk] = enrich_chunks(doc, cut(doc, []))
    assert 5_000_000 not in chunk.amounts
    [in_euros] = enrich_chunks(doc, cut(doc, []), ExtractionConfig(default_currency="EUR"))
    assert in_euros.amounts == [5_000_000]
    assert in_euros.money == ["EUR:5000000", "USD:30000000"]


def test_an_amount_cut_by_a_window_is_read_whole_and_given_to_both_neighbours() -> None:
    doc = make_doc()
    cut_at = doc.text.index("$300,000") + len("$300,")  # "… $300," | "000 per …"
    left, right = enrich_chunks(doc, cut(doc, [cut_at]))
    assert left.amounts == [30_000_000]
    assert right.amounts == [30_000_000]
    assert 30_000 not in left.amounts and 0 not in right.amounts  # never "$300" or "000"


def test_a_chunk_without_values_gets_empty_lists() -> None:
    doc = make_doc()
    first, _ = enrich_chunks(doc, cut(doc, [doc.text.index("The UMB")]))
    assert (first.amounts, first.money, first.dates, first.identifiers) == ([], [], [], [])


def test_values_in_the_breadcrumb_scope_the_chunk() -> None:
    doc = make_doc()
    start = doc.text.index("a €50")
    chunk = make_chunk(doc, 0, start, start + 5, breadcrumb="Umbrella › $1M umbrella limit")
    [enriched] = enrich_chunks(doc, [chunk])
    assert enriched.amounts == [100_000_000]
    assert "EUR:5000000" in enriched.money


def test_enrichment_never_changes_ids_or_text() -> None:
    doc = make_doc()
    chunks = cut(doc, [60, 120])
    for before, after in zip(chunks, enrich_chunks(doc, chunks), strict=True):
        assert (after.chunk_id, after.text, after.body, after.span) == (
            before.chunk_id,
            before.text,
            before.body,
            before.span,
        )


def test_a_chunk_of_another_document_is_an_extraction_error() -> None:
    doc = make_doc()
    stranger = dataclasses.replace(cut(doc, [])[0], doc_id="other")
    with pytest.raises(ExtractionError, match="belongs to 'other'"):
        enrich_chunks(doc, [stranger])
    outside = dataclasses.replace(cut(doc, [])[0], span=Span(0, 10**6))
    with pytest.raises(ExtractionError, match="outside the document"):
        enrich_chunks(doc, [outside])


def test_unrepresentable_amounts_are_logged_with_file_and_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="osrag.extract")  # reported at INFO (`osrag -v`)
    doc = make_doc("intro\ncap $100,000,000,000,000,000\n", 0)
    [chunk] = enrich_chunks(doc, cut(doc, []))
    assert chunk.amounts == []
    assert "umbrella.md:2" in caplog.text and "long" in caplog.text


@given(st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=12))
def test_any_cutting_loses_no_amount(cuts: list[int]) -> None:
    doc = make_doc()
    positions = sorted({doc.content_start + c for c in cuts} - {doc.content_start, len(doc.text)})
    chunks = enrich_chunks(doc, cut(doc, positions))
    stated = extract_values(doc.text, ExtractionConfig(), start=doc.content_start)
    union = {token for chunk in chunks for token in chunk.money}
    assert union == {m.money.token for m in stated.money}
    for chunk in chunks:  # and each chunk gets only what overlaps it
        inside = {
            m.money.token
            for m in stated.money
            if m.start < chunk.span.end and chunk.span.start < m.end
        }
        assert set(chunk.money) == inside


# --------------------------------------------------------------------------- hand-computed gold

INSURANCE = Path(__file__).resolve().parents[1] / "data" / "insurance"
_ROW = re.compile(r"^\|(.+)\|\s*$")


def _table_after(markdown: str, heading: str) -> list[list[str]]:
    """The body rows of the first pipe table after ``heading``."""
    rows: list[list[str]] = []
    lines = markdown[markdown.index(heading) :].splitlines()[1:]
    for line in lines:
        row = _ROW.match(line)
        if row is None:
            if rows:
                break
            continue
        cells = [c.strip() for c in row.group(1).split("|")]
        if not set("".join(cells)) <= set("-: "):
            rows.append(cells)
    return rows[1:]  # without the header


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _insurance_doc(doc_id: str) -> Document:
    text = (INSURANCE / f"{doc_id}.md").read_text(encoding="utf-8")
    front = re.match(r"---\n.*?\n---\n", text, re.DOTALL)
    return make_doc(text, front.end() if front else 0)


def test_the_hand_computed_insurance_values_are_extracted_exactly() -> None:
    expected = (INSURANCE / "EXPECTED.md").read_text(encoding="utf-8")
    per_document = _table_after(expected, "Per document, as the sorted `amounts` list")
    dated = {
        doc: cells
        for cells in _table_after(expected, "## Dates and identifiers in the text")
        for doc in _ticked(cells[0])
    }
    assert len(per_document) == 10
    for doc_cell, amounts_cell, other_money_cell in per_document:
        [doc_id] = _ticked(doc_cell)
        doc = _insurance_doc(doc_id)
        [chunk] = enrich_chunks(doc, cut(doc, []))
        assert chunk.amounts == [int(n) for n in re.findall(r"\d+", amounts_cell)], doc_id
        assert [m for m in chunk.money if not m.startswith("USD:")] == _ticked(other_money_cell)
        dates_cell, identifiers_cell = dated.get(doc_id, ["", "", ""])[1:]
        assert [d.isoformat() for d in chunk.dates] == re.findall(r"→ (\S+)", dates_cell)
        assert chunk.identifiers == _ticked(identifiers_cell), doc_id
