"""Evidence recall at a budget: the answer counts only when its interval and its text were
both shown, within the budget."""

from __future__ import annotations

from osrag.chunking import chunk_document
from osrag.chunking.records import chunk_source
from osrag.chunking.tokenizers import get_tokenizer
from osrag.evaluation.evidence import (
    Shown,
    evidence_found,
    evidence_recall,
    passages_shown,
    plain_shown,
)
from osrag.evaluation.spans import SpanJudgment
from osrag.models import ChunkingConfig, Document
from osrag.schema.passages import ContextRequest
from osrag.search.passages import ChunkRecord, assemble_passages

WHITESPACE = get_tokenizer("whitespace")
SOURCE = "\r\n\r\n".join(
    " ".join(f"p{i}w{j}" for j in range(10)) + "." for i in range(6)
)  # six paragraphs of ten words, CRLF line breaks


def _records() -> list[ChunkRecord]:
    doc = Document(doc_id="d", source_path="d.md", source_version="v", title="", text=SOURCE)
    chunks = chunk_document(doc, ChunkingConfig(strategy="structural", max_tokens=10))
    return [r for c in chunks if (r := ChunkRecord.from_source(chunk_source(c))) is not None]


def _judged(word: str) -> SpanJudgment:
    start = SOURCE.index(word)
    return SpanJudgment("q", "d", start, start + len(word), text=word)


def test_plain_hits_are_cut_at_the_budgets_last_token() -> None:
    records = _records()
    shown = plain_shown([records[3], records[1]], 15, WHITESPACE)
    assert [s.text for s in shown] == [records[3].body, "p1w0 p1w1 p1w2 p1w3 p1w4"]
    assert SOURCE[shown[1].start : shown[1].end] == "p1w0 p1w1 p1w2 p1w3 p1w4"
    assert evidence_found([_judged("p1w4")], shown)
    assert not evidence_found([_judged("p1w5")], shown)  # cut off
    assert not evidence_found([_judged("p3w1"), _judged("p0w1")], shown)  # every part needed


def test_a_neighbour_brings_the_evidence_a_plain_hit_misses_at_the_same_budget() -> None:
    records = _records()
    judged = [_judged("p4w7")]
    plain = plain_shown([records[3], records[0]], 20, WHITESPACE)
    passages, report = assemble_passages(
        [records[3]], records, ContextRequest(kind="neighbours", budget=20), WHITESPACE
    )
    assert report.tokens <= 20
    assert not evidence_found(judged, plain)
    assert evidence_found(judged, passages_shown(passages))


def test_a_span_claim_without_the_text_does_not_count() -> None:
    judged = [_judged("p2w3")]
    lying = [Shown("d", 0, len(SOURCE), "some other text")]
    assert not evidence_found(judged, lying)
    assert not evidence_found(judged, [Shown("other", 0, len(SOURCE), SOURCE)])
    assert not evidence_found([], lying)
    assert evidence_recall({"a": True, "b": False, "c": True}) == 2 / 3
    assert evidence_recall({}) == 0.0
