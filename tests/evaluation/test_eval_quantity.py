"""Quantity precision@k, constraint selectivity and the fallback steps: the definitions in
osrag/evaluation/quantity.py, checked by hand on small cases, against trec_eval's P@k
(pytrec_eval) on random rankings, and end to end on every engine with holder gold written
by hand for tests/data/insurance."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from backend_cases import BackendCase
from hypothesis import given
from hypothesis import strategies as st

from osrag.errors import InputError
from osrag.evaluation import EvalConfig, load_query_set, run_evaluation
from osrag.evaluation.quantity import (
    FallbackStep,
    HolderGold,
    Selectivity,
    condensed,
    count_steps,
    fallback_step,
    percentile,
    quantity_metrics,
    quantity_precision_at,
    summarise,
    unjudged_in_top,
)
from osrag.models import SearchResult

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"


# --------------------------------------------------------------------------- by hand


def test_a_returned_document_counts_only_when_the_gold_says_it_holds() -> None:
    gold = HolderGold.of(["a", "c"])
    # a, b, c, d, e: two holders in the top 5, one in the top 2
    assert quantity_precision_at(["a", "b", "c", "d", "e", "f"], gold, 5) == 2 / 5
    assert quantity_precision_at(["a", "b", "c", "d", "e", "f"], gold, 2) == 1 / 2
    assert quantity_precision_at(["b", "d", "e"], gold, 1) == 0.0


def test_repeated_hits_of_a_document_are_one_document_at_its_first_rank() -> None:
    gold = HolderGold.of(["a"])
    # chunk hits a, a, b, a → documents a, b
    assert quantity_precision_at(["a", "a", "b", "a"], gold, 5) == 1 / 2
    assert condensed(["a", "a", "b", "a"], gold) == ["a", "b"]


def test_fewer_than_k_documents_are_judged_over_those_returned() -> None:
    gold = HolderGold.of(["a", "b", "x", "y", "z"])
    assert quantity_precision_at(["a", "b"], gold, 5) == 1.0  # only holders, however few
    assert quantity_precision_at(["a", "q"], gold, 10) == 0.5


def test_nothing_returned_scores_zero() -> None:
    assert quantity_precision_at([], HolderGold.of(["a"]), 5) == 0.0


def test_unjudged_documents_are_skipped_before_the_cut() -> None:
    gold = HolderGold.of(["a", "c"], unjudged=["u1", "u2"])
    ranking = ["u1", "a", "u2", "b", "c", "d"]
    # condensed: a, b, c, d → top 2 = a, b; top 3 = a, b, c
    assert quantity_precision_at(ranking, gold, 2) == 1 / 2
    assert quantity_precision_at(ranking, gold, 3) == 2 / 3
    assert unjudged_in_top(ranking, gold, 2) == 2
    assert unjudged_in_top(ranking, gold, 1) == 1
    # only unjudged documents: nothing judged came back
    assert quantity_precision_at(["u1", "u2"], gold, 5) == 0.0


def test_a_holder_listed_as_unjudged_too_stays_a_holder() -> None:
    gold = HolderGold.of(["a"], unjudged=["a", "u"])
    assert gold.unjudged == frozenset({"u"})
    assert quantity_precision_at(["a"], gold, 1) == 1.0


def test_a_query_without_holders_has_no_quantity_precision() -> None:
    assert quantity_metrics(["a", "b"], HolderGold.of([]), [5, 10]) == {}
    assert quantity_metrics(["a"], HolderGold.of(["a"]), [5, 10]) == {
        "quantity_precision@5": 1.0,
        "quantity_precision@10": 1.0,
    }


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        quantity_precision_at(["a"], HolderGold.of(["a"]), 0)


# --------------------------------------------------------------------------- trec_eval


DOCS = [f"d{i}" for i in range(12)]


@given(
    ranking=st.lists(st.sampled_from(DOCS), max_size=15),
    holders=st.sets(st.sampled_from(DOCS), min_size=1),
    unjudged=st.sets(st.sampled_from(DOCS)),
    k=st.integers(1, 12),
)
def test_quantity_precision_is_trec_precision_over_the_condensed_list(
    ranking: list[str], holders: set[str], unjudged: set[str], k: int
) -> None:
    """trec_eval's P@k on the condensed ranking (unjudged documents removed), taken over the
    documents returned when fewer than k come back."""
    gold = HolderGold.of(holders, unjudged)
    ours = quantity_precision_at(ranking, gold, k)
    kept = condensed(ranking, gold)
    if not kept:
        assert ours == 0.0
        return
    run = {"q": {doc: float(len(kept) - i) for i, doc in enumerate(kept)}}
    qrels = {"q": {doc: 1 for doc in holders} | {"never-returned": 0}}
    cut = min(k, len(kept))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {f"P.{cut}"}).evaluate(run)["q"][f"P_{cut}"]
    assert ours == pytest.approx(reference)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=40), st.integers(0, 100))
def test_percentiles_are_numpys_linear_interpolation(values: list[float], p: int) -> None:
    assert percentile(values, p) == pytest.approx(float(np.percentile(values, p)))


def test_the_selectivity_summary_is_the_median_and_p90_over_the_queries() -> None:
    shares = {f"q{i}": Selectivity(documents=i / 10, chunks=i / 100) for i in range(1, 11)}
    summary = summarise(shares)
    assert summary is not None and summary.queries == 10
    median = statistics.median(i / 10 for i in range(1, 11))
    assert summary.documents_median == pytest.approx(median)
    assert summary.documents_p90 == pytest.approx(0.91)  # position 8.1 between 0.9 and 1.0
    assert summary.chunks_p90 == pytest.approx(0.091)
    assert summarise({}) is None


# --------------------------------------------------------------------------- fallback steps


def _result(**fields: object) -> SearchResult:
    return SearchResult.model_validate(
        {"query": "q", "index": "g", "hits": [], "filters_applied": [], "candidate_count": 0}
        | fields
    )


def _stepped(*steps: str, fallback: bool = False) -> SearchResult:
    tried = [{"step": s, "candidates": 0} for s in steps[:-1]] + [
        {"step": steps[-1], "candidates": 0 if fallback else 3}
    ]
    return _result(amount_step=steps[-1], amount_steps=tried, fallback=fallback)


def test_every_fallback_step_is_counted_and_listed_with_zeros() -> None:
    results = [
        _stepped("bound"),  # answered as stated
        _stepped("bound", "role-free"),  # no fact with the quantity: any amount
        _stepped("role-free"),  # role-free as stated: no step taken
        _stepped("bound", "role-free", "none", fallback=True),
        _stepped("role-free", "none", fallback=True),
        _result(),  # no amount at all
        _stepped("bound", "per-unit"),  # no fact with the quantity: any of its unit
        _stepped("bound", "narrowed", "worded"),  # a label holding most of its words
    ]
    taken = [fallback_step(r) for r in results]
    assert taken == [
        None,
        "role-free",
        None,
        "no amount filter",
        "no amount filter",
        None,
        "per-unit",
        "worded",
    ]
    assert count_steps(taken) == {
        "narrowed": 0,
        "worded": 1,
        "per-unit": 1,
        "role-free": 1,
        "no amount filter": 2,
    }
    assert list(count_steps([])) == [
        "narrowed",
        "worded",
        "per-unit",
        "role-free",
        "no amount filter",
    ]
    assert set(count_steps([]).values()) == {0}
    narrowed = _stepped("bound", "narrowed")
    assert fallback_step(narrowed) == "narrowed"
    # a step down past per-unit is the step it answered at, per-unit not counted again
    assert fallback_step(_stepped("bound", "per-unit", "role-free")) == "role-free"


def test_a_new_step_is_one_more_entry_not_a_change_to_the_report() -> None:
    ladder = (
        FallbackStep("role-free", lambda r: r.amount_status == "several"),
        FallbackStep("no amount filter", lambda r: r.fallback),
    )
    results = [
        _result(amount_status="several"),
        _result(amount_status="several", fallback=True),
        _result(),
    ]
    taken = [fallback_step(r, ladder) for r in results]
    assert taken == ["role-free", "no amount filter", None]  # the last step taken
    assert count_steps(taken, ladder) == {"role-free": 1, "no amount filter": 1}
    assert list(count_steps([], ladder)) == ["role-free", "no amount filter"]


# --------------------------------------------------------------------------- inputs


def test_holders_and_unjudged_are_read_from_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = [
        {"id": "1", "query": "a", "relevant": ["x"], "holders": ["x"], "unjudged": ["u"]},
        {"id": "2", "query": "b", "relevant": ["y"]},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    one, two = load_query_set(path).queries
    assert (one.holders, one.unjudged) == (["x"], ["u"])
    assert (two.holders, two.unjudged) == (None, [])


def test_holders_that_are_not_a_list_of_ids_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        json.dumps({"id": "1", "query": "a", "relevant": ["x"]})
        + "\n"
        + json.dumps({"id": "2", "query": "b", "relevant": ["x"], "holders": "x"})
        + "\n"
    )
    with pytest.raises(InputError, match=r"q\.jsonl:2: `holders` must be a list"):
        load_query_set(path)


def test_a_holders_file_grades_hold_not_hold_and_cannot_judge(tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps({"id": i, "query": "q", "relevant": ["x"], "holders": ["stale"]})
            for i in ("1", "2")
        )
        + "\n"
    )
    holders = tmp_path / "holders.txt"
    holders.write_text("1 0 x 1\n1 0 y 0\n1 0 u -1\n9 0 x 1\n")
    query_set = load_query_set(queries, holders=holders)
    one, two = query_set.queries
    assert (one.holders, one.unjudged) == (["x"], ["u"])
    assert two.holders is None  # absent from the file: no gold
    assert any("replace them" in w for w in query_set.warnings)
    assert any("1 queries that are not in" in w for w in query_set.warnings)


# --------------------------------------------------------------------------- end to end

HOLDERS = {
    "q01": ["umb-300k-classic", "umb-300k-plus", "umb-300k-landlord", "umb-300k-cross-border"],
    "q06": ["renters-30k"],
    "q07": ["umb-3m-classic"],
}


def test_the_evaluation_reports_quantity_precision_selectivity_and_fallbacks(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    """Hand-written holder gold for three queries of the miniature corpus (read from its
    files: the $300,000, $30,000 and $3,000,000 limits), a range in euros (filtered by the
    euro amounts' facts: it used to be refused), one that falls back and one without gold."""
    path = tmp_path / "queries.jsonl"
    rows = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()]
    keep = {r["id"]: r for r in rows if r["id"] in {"q01", "q06", "q07", "q11", "q14"}}
    for qid, held in HOLDERS.items():
        keep[qid]["holders"] = held
    keep["q06"]["unjudged"] = ["home-2024"]
    euros = {"id": "eur", "query": "the umbrella policy over €250,000",
             "relevant": ["umb-eur-300k"], "holders": ["umb-eur-300k"]}  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in [*keep.values(), euros]) + "\n")
    report = run_evaluation(
        load_query_set(path),
        backend_case.backend,
        alias=backend_case.alias,
        configs=[EvalConfig("filter", {}), EvalConfig("no filter", {"amount_filter": False})],
        ks=[5],
        corpus=DATA,
        permutations=100,
    )
    filtered, plain = report.configs
    assert filtered.quantity_queries == 4 and filtered.quantity_queries_without_gold == 2
    per = filtered.per_query
    # the $300,000, $30,000 and $3,000,000 filters leave exactly the holders
    assert [per[q]["quantity_precision@5"] for q in HOLDERS] == [1.0, 1.0, 1.0]
    # a range in euros filters the euro amounts (it used to be refused)
    assert per["eur"]["quantity_precision@5"] == 1.0 and not filtered.refused
    assert "quantity_precision@5" not in per["q11"]  # no gold: left out, counted
    assert filtered.subsets["holder gold"]["quantity_precision@5"] == 1.0
    # $123,456 is stated nowhere: the one fallback, and a filter that left nothing
    assert filtered.fallback_steps["no amount filter"] == 1 and filtered.fallbacks == 1
    assert filtered.selectivity["q11"] == Selectivity(documents=0.0, chunks=0.0)
    # 4 of the 10 documents hold $300,000; 1 holds $30,000 (documents of one chunk each)
    assert filtered.selectivity["q01"].documents == pytest.approx(0.4)
    assert filtered.selectivity["q06"].documents == pytest.approx(0.1)
    summary = filtered.selectivity_summary
    assert summary is not None and summary.queries == 5  # q01, q06, q07, q11, eur
    assert summary.documents_median == pytest.approx(0.1)
    # without the filter, plain BM25 ranks other documents among the holders
    assert plain.selectivity == {} and plain.selectivity_summary is None
    assert plain.per_query["q01"]["quantity_precision@5"] < 1.0
    assert plain.fallback_steps == {
        "narrowed": 0,
        "worded": 0,
        "per-unit": 0,
        "role-free": 0,
        "no amount filter": 0,
    }
    # the diagnostic keeps its name for what it measures: the filter agrees with itself
    assert filtered.subsets["amount constraints"]["filter_agreement@5"] == 1.0
    assert not any(m.startswith("amount_precision") for m in filtered.metrics)
