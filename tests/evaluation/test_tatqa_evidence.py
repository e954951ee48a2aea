"""The TAT-QA evidence conversion: every judged span is the answer as the indexed document
writes it, inside the paragraph or the table the annotations name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from paths import CORPORA, ROOT

from osrag.evaluation.spans import read_span_qrels
from osrag.loaders.corpus import load_corpus
from osrag.models import Document

sys.path.insert(0, str(ROOT / "benchmarks"))

import tatqa_corpus
import tatqa_evidence

pytestmark = pytest.mark.corpus
DATASET = CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json"


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("tatqa")
    contexts = json.loads(DATASET.read_text(encoding="utf-8"))
    tatqa_corpus.convert(DATASET, out)
    return out, contexts


def test_every_judged_span_is_the_answer_in_the_indexed_text(converted: tuple) -> None:
    out, contexts = converted
    documents = {d.doc_id: d for d in load_corpus(out / "corpus") if isinstance(d, Document)}
    spans = read_span_qrels(out / "evidence_spans.jsonl")
    lines = [json.loads(line) for line in (out / "evidence_spans.jsonl").open(encoding="utf-8")]
    assert len(lines) == sum(len(v) for v in spans.values()) > 100
    for line in lines:
        text = documents[line["doc_id"]].text
        assert text[line["start"] : line["end"]] == line["text"]
    questions = {q["uid"]: q for c in contexts for q in c["questions"]}
    for line in lines:
        answers = questions[line["query_id"]]["answer"]
        parts = answers if isinstance(answers, list) else [answers]
        squeezed = " ".join(line["text"].split()).lower()
        assert any(
            " ".join(str(p).split()).lower() in (squeezed, squeezed.replace("\\|", "|"))
            for p in parts
        ) or any(squeezed in " ".join(str(p).split()).lower() for p in parts)


def test_text_answers_lie_in_their_paragraphs_and_arithmetic_is_left_out(converted: tuple) -> None:
    out, contexts = converted
    queries = [json.loads(line) for line in (out / "evidence_queries.jsonl").open(encoding="utf-8")]
    spans = read_span_qrels(out / "evidence_spans.jsonl")
    by_id = {q["uid"]: (c, q) for c in contexts for q in c["questions"]}
    assert {q["note"] for q in queries} == {"text", "table"}
    for query in queries:
        context, question = by_id[query["id"]]
        assert question["answer_type"] in ("span", "multi-span")
        assert query["query"] == question["question"]
        rendered = tatqa_corpus.render(context)
        assert query["relevant"] == {rendered.doc_id: 1}
        if query["note"] != "text":
            continue
        paragraphs = [rendered.paragraphs[int(o)] for o in question["rel_paragraphs"]]
        for span in spans[query["id"]]:
            assert any(a <= span.start and span.end <= b for a, b in paragraphs)


def test_the_summary_counts_what_could_not_be_placed() -> None:
    context = {
        "table": {"uid": "0123456789", "table": [["Item", "2019"], ["Revenue", "10"]]},
        "paragraphs": [{"uid": "p", "order": 1, "text": "Revenue rose sharply."}],
        "questions": [
            {
                "uid": "a",
                "question": "What rose?",
                "answer": ["Revenue rose"],
                "answer_type": "span",
                "answer_from": "text",
                "rel_paragraphs": ["1"],
                "scale": "",
            },
            {
                "uid": "b",
                "question": "Revenue 2019?",
                "answer": ["10"],
                "answer_type": "span",
                "answer_from": "table",
                "rel_paragraphs": [],
                "scale": "",
            },
            {
                "uid": "c",
                "question": "Missing?",
                "answer": ["not there"],
                "answer_type": "span",
                "answer_from": "text",
                "rel_paragraphs": ["1"],
                "scale": "",
            },
            {
                "uid": "d",
                "question": "Sum?",
                "answer": 20,
                "answer_type": "arithmetic",
                "answer_from": "table",
                "rel_paragraphs": [],
                "scale": "",
            },
        ],
    }
    summary = tatqa_evidence.Summary()
    found = tatqa_evidence.evidence(context, summary)
    assert [(e.query_id, e.source) for e in found] == [("a", "text"), ("b", "table")]
    assert (summary.questions, summary.placed, summary.unplaced) == (3, 2, 1)
