"""Evaluation end to end on every engine: the lesson holds in numbers, Cranfield lands on BM25
(with Porter stemming: on the engines whose node has the ``english`` analyzer; the
Elasticsearch integ-test node's ``standard`` fallback is compared with the embedded index's
``standard`` in tests/test_elasticsearch_engine.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_cases import ENGLISH_ANALYZER_PARAMS, BackendCase
from typer.testing import CliRunner

from osrag.cli import app
from osrag.evaluate import baseline_configs, read_queries, render_html, run_evaluation

DATA = Path(__file__).resolve().parent / "data" / "insurance"


def test_the_filter_beats_bm25_and_canonical_tokens_on_amount_queries(
    backend_case: BackendCase,
) -> None:
    backend = backend_case.backend
    queries = read_queries(DATA / "queries.jsonl")
    report = run_evaluation(
        queries,
        backend,
        alias=backend_case.alias,
        configs=baseline_configs(),
        ks=[5, 10],
        corpus=DATA,
    )
    by_name = {c.name: c for c in report.configs}
    bm25, canonical, filtered = (
        by_name[n].subsets["one amount"] for n in ("bm25", "canonical-tokens", "amount-filter")
    )
    assert filtered["amount_precision@5"] > canonical["amount_precision@5"] >= 0
    assert filtered["amount_precision@5"] > bm25["amount_precision@5"]
    assert filtered["precision@5"] >= canonical["precision@5"]
    assert filtered["ndcg@10"] >= max(canonical["ndcg@10"], bm25["ndcg@10"])
    assert by_name["amount-filter"].amount_queries >= 8
    page = render_html(report)
    assert page.count("<svg") == len(report.metric_names()) and "amount-filter" in page
    built = report.configs[0].generation
    assert built and backend.generations(built.rsplit("-", 2)[0]) == set()  # cleaned up


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("backend_case", ENGLISH_ANALYZER_PARAMS, indirect=True)
def test_cranfield_lands_on_the_reference_bm25(
    backend_case: BackendCase, corpora: Path, tmp_path: Path
) -> None:
    args, env = backend_case.cli()
    derived = corpora / "cranfield" / "derived"
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            str(derived / "queries.jsonl"),
            "--qrels",
            str(derived / "qrels.tsv"),
            "--corpus",
            str(derived / "corpus.jsonl"),
            "--k",
            "10",
            "--depth",
            "1000",
            "--json",
            "--report",
            str(html),
            "--alias",
            backend_case.alias,
            *args,
        ],
        env=env,
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)["configs"][0]["metrics"]
    # the reference: BM25 k1 1.2 b 0.75, Porter stemming → nDCG@10 0.3681, MAP 0.3066, P@10 0.2342
    assert metrics["ndcg@10"] == pytest.approx(0.3681, abs=0.01)
    assert metrics["map"] == pytest.approx(0.3066, abs=0.01)
    assert metrics["precision@10"] == pytest.approx(0.2342, abs=0.01)
    assert html.read_text().count("<svg") >= 4
