"""Amount constraints end to end: every engine, every mode, only documents that meet them.

The comparative queries of examples/insurance (ids ``c…``, labelled by
scripts/comparative_labels.py from the policies' amounts) run in bm25, vector and
hybrid mode on OpenSearch, Elasticsearch and the embedded index: each top-5
document holds an amount meeting every constraint (the filter agrees with itself,
filter agreement@5 = 1.00 — whether it is the asked quantity is quantity precision's
question, tests/evaluation/test_eval_quantity.py), without the fallback. Then the fallback of
several amounts, and the labels themselves, recomputed.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case

from osrag.evaluation import baseline_configs, read_queries, run_evaluation
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import AmountConstraint, Money, SearchResult
from osrag.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "insurance"


def _comparative() -> list[dict[str, Any]]:
    lines = (EXAMPLES / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [r for r in rows if r["id"].startswith("c")]


COMPARATIVE = _comparative()


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def insurance(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    """The sample policies with vectors from the offline default model."""
    case = open_case(request, request.param, tmp_path_factory.mktemp("constraints"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(tmp_path_factory.mktemp("vector-cache")))
        ingest(EXAMPLES, case.backend, IngestOptions(alias=case.alias, embedder="default"))
    yield case
    case.purge()


def _holds(c: AmountConstraint, currency: str, units: int) -> bool:
    """Whether one amount meets the constraint, read from its operator here (not osrag's)."""
    b = c.bounds
    if currency != c.currency:
        return False
    return {
        "eq": lambda: units == b[0],
        "in": lambda: units in b,
        "between": lambda: b[0] <= units <= b[-1],
        "gt": lambda: units > b[0],
        "gte": lambda: units >= b[0],
        "lt": lambda: units < b[0],
        "lte": lambda: units <= b[0],
    }[c.op]()


def _meets_all(result: SearchResult, money: list[str]) -> bool:
    held = [Money.from_token(t) for t in money]
    return all(any(_holds(c, m.currency, m.minor_units) for m in held) for c in result.constraints)


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_comparative_queries_return_only_documents_meeting_the_constraint(
    insurance: BackendCase, mode: str
) -> None:
    searcher = Searcher(insurance.backend, insurance.alias, enforce_access=False)
    assert len(COMPARATIVE) >= 10
    for query in COMPARATIVE:
        result = searcher.search(query["query"], mode=mode, k=20, highlight=False)
        assert result.constraints and not result.fallback, query["id"]
        assert result.amount_step != "none" and result.candidate_count > 0
        assert result.hits, query["id"]
        first_hits = {h.doc_id: h for h in reversed(result.hits)}  # each document's best hit
        top = list(dict.fromkeys(h.doc_id for h in result.hits))[:5]
        precision = sum(_meets_all(result, first_hits[d].money) for d in top) / len(top)
        assert precision == 1.0, (query["id"], top)
        # every hit, not only the top 5 documents, meets every constraint
        assert all(_meets_all(result, h.money) for h in result.hits), query["id"]


def test_several_amounts_no_chunk_holds_together_fall_back_together(
    insurance: BackendCase,
) -> None:
    searcher = Searcher(insurance.backend, insurance.alias, enforce_access=False)
    result = searcher.search("travel cover of £2,000,000 and a $300,000,000 limit", k=10)
    assert result.amount_status == "several" and len(result.constraints) == 2
    assert result.fallback and result.amount_candidates == 0 and result.candidate_count > 0
    assert not any(f.droppable for f in result.filters_applied)
    # the dropped constraints boost: a document holding one of them ranks first
    assert result.hits[0].doc_id in {"globex-travel-uk", "property-300m-large-risk",
                                     "umbrella-commercial-300m"}  # fmt: skip


def test_guards_stay_when_the_amount_constraints_are_dropped(insurance: BackendCase) -> None:
    searcher = Searcher(insurance.backend, insurance.alias)
    result = searcher.search(
        "umbrella over $900,000,000,000", tenant="globex", acl=["agents"], k=10
    )
    assert result.fallback
    assert [f.name for f in result.filters_applied] == ["tenant", "acl"]
    assert result.hits and all(h.doc_id.startswith("globex-") for h in result.hits)


def test_a_range_in_another_currency_filters_that_currency_s_amounts(
    insurance: BackendCase,
) -> None:
    searcher = Searcher(insurance.backend, insurance.alias, enforce_access=False)
    over = searcher.search("the policies over €50,000", k=20, highlight=False)
    assert over.amount_step == "role-free" and not over.fallback
    assert over.hits and all(
        any(
            m.currency == "EUR" and m.minor_units > 5_000_000
            for m in map(Money.from_token, h.money)
        )
        for h in over.hits
    )
    # "policies" is in one of them: the words reach one document, the meaning both (hybrid
    # fuses legs of equal depth here, the role-free step, and returns the words' one)
    assert "umbrella-eur-300k-ireland" in {h.doc_id for h in over.hits}
    meaning = searcher.search("the policies over €50,000", k=20, highlight=False, mode="vector")
    assert {h.doc_id for h in meaning.hits} >= {"travel-schengen-eur", "umbrella-eur-300k-ireland"}
    exact = searcher.search("the policy with €300,000", k=5)
    assert exact.filters_applied[0].clause == {"term": {"money": "EUR:30000000"}}
    assert exact.hits and not exact.fallback
    off = searcher.search("travel medical cover over €50,000", amount_filter=False, k=5)
    assert off.amount_status == "off" and off.hits


def test_the_evaluation_counts_a_document_meeting_the_constraint(
    insurance: BackendCase,
) -> None:
    queries = [q for q in read_queries(EXAMPLES / "queries.jsonl") if q.id.startswith("c")]
    report = run_evaluation(
        queries,
        insurance.backend,
        alias=insurance.alias,
        configs=baseline_configs(),
        ks=[5],
        corpus=EXAMPLES,
    )
    by_name = {c.name: c for c in report.configs}
    filtered = by_name["amount-filter"]
    assert filtered.amount_queries == len(queries) and filtered.fallbacks == 0
    assert filtered.subsets["comparative constraints"]["filter_agreement@5"] == 1.0
    # plain BM25 reads "over $500,000" as words: it returns the $300K umbrellas too
    assert by_name["bm25"].subsets["comparative constraints"]["filter_agreement@5"] < 1.0


def test_the_labels_are_the_policies_meeting_each_constraint() -> None:
    spec = importlib.util.spec_from_file_location(
        "comparative_labels", ROOT / "scripts" / "comparative_labels.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    computed = {row["id"]: row["relevant"] for row in module.labelled()}
    assert computed == {row["id"]: row["relevant"] for row in COMPARATIVE}
    assert "umbrella-300k-standard" not in computed["c01"]  # states $500,000 exactly


def test_the_cli_shows_each_constraint_its_quantity_and_the_ladder(
    insurance: BackendCase,
) -> None:
    from clirun import osrag

    args, env = insurance.cli()
    query = "umbrella policies with limits over $500,000"
    common = [*args, "--alias", insurance.alias, "--tenant", "acme", "--acl", "agents"]
    explained = osrag("search", query, *common, "--mode", "bm25", "--explain", env=env)
    assert explained.returncode == 0, explained.stderr
    shown = " ".join(explained.stderr.split())  # the terminal may wrap a line
    assert (
        "'over $500,000' → limits > USD 500,000.00 (umbrella) · bound to label 'limits' · "
        "'umbrella' where a document says what holds the figure (its breadcrumb or the "
        "fact's label keys); when none does, it only ranks (the narrowed step)"
    ) in shown
    # the ladder's steps, the candidates of each step tried and the step that answered
    assert re.search(
        r"amount ladder \(.*?\): bound \d+ candidates? ← answered asked: limits > .*? "
        "role-free not needed none not needed",
        shown,
    ), shown
    assert "amount step: bound (candidates per step tried: bound " in shown
    assert (
        "facts[label_keys∈{" in shown
        and "magnitude>50000000 (all of a range), currency=USD, scope∈{line_item, own}, "
        "(period_part="
        in shown
        and "period_unit exists))]" in shown
    )
    bodies = osrag("search", query, *common, "--mode", "bm25", "--explain-json", env=env)
    assert '"nested"' in bodies.stderr and '"gt": 50000000' in bodies.stderr
    as_json = osrag("search", query, *common, "--mode", "bm25", "--json", env=env)
    result = json.loads(as_json.stdout)
    assert [(c["op"], c["bounds"], c["label"]) for c in result["constraints"]] == [
        ("gt", [50_000_000], "limits")
    ]
    assert result["filters_applied"][0]["constraint"]["text"] == "over $500,000"
    assert result["amount_steps"][0]["step"] == "bound" and result["amount_step"]
    off = osrag("search", query, *common, "--no-amount-filter", "--json", env=env)
    assert json.loads(off.stdout)["constraints"] == []
    euros = osrag("search", "the policies over €50,000", *common, "--json", env=env)
    assert euros.returncode == 0, euros.stderr
    assert json.loads(euros.stdout)["amount_step"] == "role-free"


def _meets_each(result: SearchResult) -> bool:
    return bool(result.hits) and all(_meets_all(result, h.money) for h in result.hits)


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_stop_words_alone_leave_the_constraints_to_decide(
    insurance: BackendCase, mode: str
) -> None:
    # once "over $1,000,000" is removed only stop words are left: the match has no
    # terms, and the constraint alone selects (zero_terms_query "all"), in one round trip
    # (Elasticsearch's generations analyse with the standard analyzer: no stop words
    # there, so "Is it" are terms; punctuation alone has no terms on every engine)
    searcher = Searcher(insurance.backend, insurance.alias, enforce_access=False)
    for text in ("Is it over $1,000,000?", "over $1,000,000?"):
        result = searcher.search(text, mode=mode, k=20, highlight=False)
        assert result.constraints and not result.fallback and not result.text_fallback
        assert result.candidate_count > 0
        assert _meets_each(result)
    if mode == "bm25":
        assert result.total_hits == result.candidate_count  # every candidate, nothing else


def test_words_no_candidate_holds_fall_back_to_the_constraints_alone(
    insurance: BackendCase,
) -> None:
    searcher = Searcher(insurance.backend, insurance.alias, enforce_access=False)
    result = searcher.search("zyxwvut over $1,000,000", mode="bm25", k=20, highlight=False)
    assert result.text_fallback and not result.fallback
    # no amount labelled "zyxwvut", none under a heading naming it (a thing priced: the
    # narrowed step): the role-free step answers, ranked by it alone
    assert [s.step for s in result.amount_steps] == ["bound", "narrowed", "role-free"]
    assert result.amount_steps[-1].candidates == result.candidate_count > 0
    assert _meets_each(result)
    # a word some candidate holds keeps the words' ranking: no text fallback
    worded = searcher.search("umbrella over $1,000,000", mode="bm25", k=20, highlight=False)
    assert worded.hits and not worded.text_fallback
    assert _meets_each(worded)


def test_a_text_without_terms_and_without_a_constraint_still_matches_nothing(
    insurance: BackendCase,
) -> None:
    searcher = Searcher(insurance.backend, insurance.alias, enforce_access=False)
    result = searcher.search("? !", mode="bm25", k=5, highlight=False)
    assert not result.hits and not result.text_fallback and result.total_hits == 0
