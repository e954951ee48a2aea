"""Metric code agrees with trec_eval (pytrec_eval) on the same runs; query sets load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.errors import ConfigError, InputError
from osrag.evaluation import (
    average_precision,
    dedupe_docs,
    ndcg_at,
    parse_compare,
    precision_at,
    query_metrics,
    read_qrels,
    read_queries,
    recall_at,
    reciprocal_rank,
)

DOCS = [f"d{i}" for i in range(30)]


def _trec(ranking: list[str], grades: dict[str, int], ks: list[int]) -> dict[str, float]:
    """trec_eval's numbers for one query, the ranking given as strictly decreasing scores."""
    measures = {"recip_rank", "map"} | {f"P_{k}" for k in ks} | {f"recall_{k}" for k in ks}
    measures |= {f"ndcg_cut_{k}" for k in ks}
    evaluator = pytrec_eval.RelevanceEvaluator({"q": grades}, measures)
    run = {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}
    return evaluator.evaluate(run)["q"]


@settings(max_examples=300, deadline=None)
@given(
    ranking=st.lists(st.sampled_from(DOCS), min_size=1, max_size=25, unique=True),
    grades=st.dictionaries(
        st.sampled_from(DOCS), st.integers(-2, 3), min_size=1, max_size=12
    ).filter(lambda g: any(v > 0 for v in g.values())),
    ks=st.lists(st.sampled_from([1, 3, 5, 10, 20]), min_size=1, max_size=3, unique=True),
)
def test_metrics_agree_with_trec_eval(
    ranking: list[str], grades: dict[str, int], ks: list[int]
) -> None:
    ours = query_metrics(ranking, grades, ks)
    theirs = _trec(ranking, grades, ks)
    for k in ks:
        assert ours[f"precision@{k}"] == pytest.approx(theirs[f"P_{k}"], abs=1e-9)
        assert ours[f"recall@{k}"] == pytest.approx(theirs[f"recall_{k}"], abs=1e-9)
        assert ours[f"ndcg@{k}"] == pytest.approx(theirs[f"ndcg_cut_{k}"], abs=1e-9)
    assert ours["mrr"] == pytest.approx(theirs["recip_rank"], abs=1e-9)
    assert ours["map"] == pytest.approx(theirs["map"], abs=1e-9)


def test_hand_computed_example() -> None:
    ranking = ["a", "x", "b", "y", "c"]
    grades = {"a": 2, "b": 1, "c": 1, "z": 1}
    assert recall_at(ranking, grades, 3) == 0.5
    assert precision_at(ranking, grades, 5) == 0.6
    assert reciprocal_rank(ranking, grades) == 1.0
    assert average_precision(ranking, grades) == pytest.approx((1 + 2 / 3 + 3 / 5) / 4)
    assert ndcg_at(["x"], grades, 1) == 0.0


def test_chunk_hits_become_a_document_ranking_first_occurrence_wins() -> None:
    assert dedupe_docs(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_reads_jsonl_lists_and_grades(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        json.dumps({"id": "q1", "query": "a", "relevant": ["d1", "d2"]})
        + "\n\n"
        + json.dumps({"id": 2, "query": "b", "relevant": {"d3": 2}, "tenant": "acme"})
        + "\n"
    )
    first, second = read_queries(path)
    assert first.relevant == {"d1": 1, "d2": 1}
    assert (second.id, second.relevant, second.tenant) == ("2", {"d3": 2}, "acme")


def test_reads_beir_queries_with_qrels_and_trec_qrels(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"_id": "1", "text": "wings"}\n{"_id": "2", "text": "heat"}\n')
    beir = tmp_path / "qrels.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\n1\t184\t3\n1\t29\t2\n2\t12\t0\n")
    loaded = read_queries(queries, beir)
    assert loaded[0].relevant == {"184": 3, "29": 2} and loaded[1].relevant == {"12": 0}
    trec = tmp_path / "qrels.trec"
    trec.write_text("1 0 184 3\n1 0 29 2\n")
    assert read_qrels(trec) == {"1": {"184": 3, "29": 2}}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json\n", r"q\.jsonl:1: not JSON"),
        ('["a list"]\n', r"q\.jsonl:1: each line must be a JSON object"),
        ('{"id": "q1"}\n', r"q\.jsonl:1: needs `id`"),
        ('{"id": "q1", "query": "x", "relevant": 3}\n', r"q\.jsonl:1: `relevant` must be"),
        ("", r"no queries"),
    ],
)
def test_bad_query_files_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_queries(path)


def test_compare_is_a_cartesian_product_with_typed_values() -> None:
    configs = parse_compare(["strategy=fixed,structural", "amount_filter=on,off"])
    assert [c.params for c in configs] == [
        {"strategy": "fixed", "amount_filter": True},
        {"strategy": "fixed", "amount_filter": False},
        {"strategy": "structural", "amount_filter": True},
        {"strategy": "structural", "amount_filter": False},
    ]
    assert configs[0].index_params == {"strategy": "fixed"}
    assert configs[0].query_params == {"amount_filter": True}
    with pytest.raises(ConfigError, match="unknown comparison key"):
        parse_compare(["colour=red"])
    with pytest.raises(ConfigError, match="expected on or off"):
        parse_compare(["amount_filter=maybe"])
