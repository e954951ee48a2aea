"""Evidence recall at a budget: the answer counts only when its interval and its text were
both shown, within the budget."""

from __future__ import annotations

import json
from pathlib import Path

from backend_cases import BackendCase
from typer.testing import CliRunner

from osrag.chunking import chunk_document
from osrag.chunking.records import chunk_source
from osrag.chunking.tokenizers import get_tokenizer
from osrag.cli import app
from osrag.evaluation.evidence import (
    Shown,
    evidence_found,
    evidence_recall,
    passages_shown,
    plain_shown,
)
from osrag.evaluation.spans import SpanJudgment
from osrag.ingestion.ingest import IngestOptions, ingest
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


# --------------------------------------------------------------------------- osrag eval --context


def _corpus(folder: Path) -> tuple[Path, Path, Path]:
    """A corpus of long sections and questions whose answers lie one chunk after a chunk
    that matches the question's words (judged spans with their text)."""
    corpus = folder / "corpus"
    corpus.mkdir()
    queries, spans = [], []
    for n, (topic, answer) in enumerate(
        [("flood", "seventeen days"), ("theft", "nine receipts"), ("fire", "two inspectors")]
    ):
        filler = " ".join(f"w{n}{i}" for i in range(8))
        text = (
            f"# The {topic} clause\n\nThe {topic} claim process is described here. {filler}\n\n"
            f"A claimant must wait {answer} before the adjuster visits. {filler}\n"
        )
        (corpus / f"{topic}.md").write_text(text, encoding="utf-8")
        start = text.index(answer)
        queries.append({"id": topic, "query": f"{topic} claim process", "relevant": [topic]})
        spans.append(
            {"query_id": topic, "doc_id": topic, "start": start, "end": start + len(answer),
             "text": answer}
        )  # fmt: skip
    query_file, span_file = folder / "queries.jsonl", folder / "spans.jsonl"
    query_file.write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    span_file.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    return corpus, query_file, span_file


def test_eval_measures_evidence_recall_of_each_expansion_at_each_budget(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    corpus, queries, spans = _corpus(tmp_path)
    chunking = ChunkingConfig(strategy="structural", max_tokens=20)
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias, chunking=chunking))
    extra, env = backend_case.cli()
    common = ["eval", str(queries), "--alias", backend_case.alias, "--span-qrels", str(spans)]
    shown = CliRunner().invoke(
        app,
        [*common, "--context", "neighbours,section", "--budget", "20,60", "--context-k", "1",
         "--json", *extra],
        env=env,
    )  # fmt: skip
    assert shown.exit_code == 0, shown.output
    evidence = json.loads(shown.output)["evidence"]
    assert evidence["kinds"] == ["plain", "plain-k", "neighbours", "section"]
    assert evidence["queries"] == 3 and evidence["k"] == 1
    recall = evidence["recall"]
    # the hit is the chunk with the question's words; the answer is in the next chunk
    assert recall["plain-k"] == {"20": 0.0, "60": 0.0}
    assert recall["neighbours"]["60"] == 1.0 and recall["section"]["60"] == 1.0
    assert recall["neighbours"]["20"] == 0.0  # no room beside the hit
    assert all(evidence["tokens"][k]["20"] <= 20 for k in evidence["kinds"])
    refused = CliRunner().invoke(app, [*common[:4], "--context", "section", *extra], env=env)
    assert refused.exit_code != 0 and "--span-qrels" in str(refused.exception)
    wrong = CliRunner().invoke(app, [*common, "--context", "chapter", *extra], env=env)
    assert wrong.exit_code != 0 and "--context" in str(wrong.exception)
