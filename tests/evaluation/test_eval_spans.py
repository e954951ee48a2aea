"""Span judgments: interval arithmetic against sets of points, metrics by hand, passages."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.errors import InputError
from osrag.evaluation.spans import (
    SpanJudgment,
    find_passage,
    intersection_length,
    length,
    merge,
    passages_to_spans,
    read_span_qrels,
    span_metrics,
    write_span_qrels,
)
from osrag.loaders.corpus import load_corpus
from osrag.models import Document

interval = st.tuples(st.integers(0, 60), st.integers(0, 60)).map(lambda t: (min(t), max(t)))
intervals = st.lists(interval, max_size=8)


def points(spans: list[tuple[int, int]]) -> set[int]:
    return {p for start, end in spans for p in range(start, end)}


@settings(max_examples=300, deadline=None)
@given(intervals, intervals)
def test_interval_arithmetic_counts_points_as_sets_do(
    a: list[tuple[int, int]], b: list[tuple[int, int]]
) -> None:
    merged = merge(a)
    assert points(merged) == points(a)
    assert all(end > start for start, end in merged)
    assert all(x[1] < y[0] for x, y in itertools.pairwise(merged))  # disjoint
    assert length(a) == len(points(a))
    assert intersection_length(a, b) == len(points(a) & points(b))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("xy"), interval), max_size=8),
    st.lists(st.tuples(st.sampled_from("xyz"), interval, st.integers(-1, 2)), max_size=5),
    st.integers(1, 8),
)
def test_span_metrics_are_shares_of_characters(
    hits: list[tuple[str, tuple[int, int]]],
    judged: list[tuple[str, tuple[int, int], int]],
    k: int,
) -> None:
    ranked = [(doc, start, end) for doc, (start, end) in hits]
    spans = [SpanJudgment("q", doc, s, e, grade) for doc, (s, e), grade in judged if e > s]
    metrics = span_metrics(ranked, spans, [k])
    shown = {(d, p) for d, s, e in ranked[:k] for p in range(s, e)}
    relevant = {(j.doc_id, p) for j in spans if j.grade > 0 for p in range(j.start, j.end)}
    both = len(shown & relevant)
    assert metrics[f"span_recall@{k}"] == (both / len(relevant) if relevant else 0.0)
    assert metrics[f"span_precision@{k}"] == (both / len(shown) if shown else 0.0)


def test_span_metrics_by_hand() -> None:
    hits = [("d1", 0, 100), ("d1", 50, 150), ("d2", 0, 40)]
    judged = [SpanJudgment("q", "d1", 90, 190), SpanJudgment("q", "d2", 0, 10, 0)]
    metrics = span_metrics(hits, judged, [1, 2])
    assert metrics["span_recall@1"] == 10 / 100  # [90, 100) of [90, 190)
    assert metrics["span_precision@1"] == 10 / 100
    assert metrics["span_recall@2"] == 60 / 100  # [90, 150)
    assert metrics["span_precision@2"] == 60 / 150  # overlap of the two chunks counted once


def test_span_qrels_files_round_trip_and_errors_name_the_line(tmp_path: Path) -> None:
    spans = [SpanJudgment("1", "doc a", 3, 9, 2), SpanJudgment("1", "b", 0, 4)]
    path = tmp_path / "spans.jsonl"
    assert write_span_qrels(path, spans) == 2
    assert read_span_qrels(path) == {"1": spans}
    tsv = tmp_path / "spans.tsv"
    tsv.write_text("query_id doc_id start end grade\n1 b 0 4 1\n")
    assert read_span_qrels(tsv) == {"1": [spans[1]]}
    bad = tmp_path / "bad.tsv"
    bad.write_text("1 b 5 4 1\n")
    with pytest.raises(InputError, match=r"bad\.tsv:1: the span \[5, 4\) is empty"):
        read_span_qrels(bad)


def test_passages_are_found_in_the_source_text_white_space_aside(tmp_path: Path) -> None:
    text = "# Title\n\nThe  umbrella\ncovers $300,000.\n\nThe umbrella covers more."
    doc = Document(doc_id="p", source_path="p.md", source_version="v", title="", text=text)
    span, times = find_passage(text, "umbrella covers $300,000.")
    assert span is not None and text[span[0] : span[1]] == "umbrella\ncovers $300,000."
    assert times == 1
    assert find_passage(text, "The umbrella") == ((41, 53), 1)  # exactly, first
    span, times = find_passage(text, "The umbrella covers $300,000.")  # white space aside
    assert span is not None and text[span[0] : span[1]] == "The  umbrella\ncovers $300,000."
    assert times == 1
    assert find_passage(text, "not there") == (None, 0)
    passages = tmp_path / "passages.jsonl"
    passages.write_text(
        json.dumps({"query_id": "1", "doc_id": "p", "passage": "covers $300,000."})
        + "\n"
        + json.dumps({"query_id": "1", "doc_id": "zz", "passage": "x"})
        + "\n"
    )
    found = passages_to_spans(passages, {"p": doc}, {"1": {"p": 3}})
    assert [(s.start, s.end, s.grade) for s in found.spans] == [(23, 39, 3)]
    assert text[23:39] == "covers $300,000."
    assert found.missing == [f"{passages}:2: no document 'zz' in the corpus"]
    passages.write_text(json.dumps({"query_id": "1", "doc_id": "p"}) + "\n[1, 2]\n")
    with pytest.raises(InputError, match=r"passages\.jsonl:1: needs `query_id`"):
        passages_to_spans(passages, {"p": doc})
    passages.write_text("\n" + json.dumps(["a list"]) + "\n")
    with pytest.raises(InputError, match=r"passages\.jsonl:2: each line must be a JSON object"):
        passages_to_spans(passages, {"p": doc})


@pytest.mark.corpus
def test_a_passage_of_a_real_abstract_lands_on_its_characters(corpora: Path) -> None:
    corpus = corpora / "cranfield" / "derived" / "corpus.jsonl"
    docs = {}
    for item in load_corpus(corpus):
        if isinstance(item, Document) and item.doc_id in {"184", "29"}:
            docs[item.doc_id] = item
    text = docs["184"].text
    passage = " ".join(text.split()[5:25])  # twenty words, white space normalised
    span, times = find_passage(text, passage)
    assert span is not None and times == 1
    assert " ".join(text[span[0] : span[1]].split()) == passage
