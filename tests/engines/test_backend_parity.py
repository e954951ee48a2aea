"""The embedded backend answers osrag's queries as OpenSearch does: same hits, same order,
same scores, same candidate counts — for generated queries over the sample corpus."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opensearchpy import OpenSearch

from osrag.engines.base import ChunkIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.errors import QueryError
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import QuerySpec
from osrag.schema.filters import (
    AnyOf,
    Exists,
    Filter,
    MatchNone,
    NamedFilter,
    Not,
    NotExists,
    Range,
    Term,
    Terms,
)
from osrag.schema.plan import EngineResult
from osrag.search.query import AnalyzedQuery, plan_query, search_plan
from osrag.search.results import count_unique_spans
from osrag.search.searcher import Searcher

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "insurance"
pytestmark = pytest.mark.opensearch

WORDS = [
    "umbrella", "umbrellas", "coverage", "covers", "limit", "limits", "liability", "the", "of",
    "policy", "policies", "renters", "home", "flood", "deductible", "claims", "defense", "costs",
    "occurrence", "aggregate", "$300,000", "$300K", "€300,000", "$1,000,000", "300,000",
    "landlord", "cross-border", "excess", "travel", "cyber", "UMB-300000", "2024", "what",
]  # fmt: skip
FILTERS: list[Filter] = [
    Term("tenant", "acme"),
    Term("tenant", "globex"),
    Terms("category", ("umbrella", "home")),
    Term("amounts", 30_000_000),
    Term("money", "EUR:30000000"),
    Range("amounts", gte=100_000_000),
    Range("amounts", gt=1_000_000, lt=50_000_000),
    Range("effective_from", lte="2024-06-30"),
    Exists("superseded_on"),
    AnyOf((Terms("acl", ("underwriters",)), NotExists("acl"))),
    Not(Term("category", "umbrella")),
    MatchNone(),
]


@pytest.fixture(scope="module")
def both(
    os_client: OpenSearch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ChunkIndex, ChunkIndex, str]]:
    alias = f"osrag-test-parity-{uuid.uuid4().hex[:8]}"
    cluster = OpenSearchIndex(os_client)
    embedded = EmbeddedIndex(tmp_path_factory.mktemp("parity") / "index")
    for backend in (cluster, embedded):
        ingest(EXAMPLES, backend, IngestOptions(alias=alias))
    yield cluster, embedded, alias
    purge(cluster, alias)


def _groups(hits: list[tuple[str, float]]) -> list[tuple[float, set[str]]]:
    """Consecutive hits with the same score (within float32 noise) form one group."""
    groups: list[tuple[float, set[str]]] = []
    for key, score in hits:
        if groups and score == pytest.approx(groups[-1][0], rel=1e-5):
            groups[-1][1].add(key)
        else:
            groups.append((score, {key}))
    return groups


def _alike(
    ours: list[tuple[str, float]], theirs: list[tuple[str, float]], *, offset: int, full: bool
) -> None:
    """Same scores rank by rank; the same hits, except that tied hits may swap — also across
    the page's edges (a tie at the first or last place continues off the page)."""
    assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-4)
    mine, other = _groups(ours), _groups(theirs)
    assert len(mine) == len(other)
    for n, ((score, keys), (_, their_keys)) in enumerate(zip(mine, other, strict=True)):
        at_edge = (n == 0 and offset > 0) or (n == len(mine) - 1 and full)
        assert at_edge or keys == their_keys, (score, keys, their_keys)


def _same(
    left: EngineResult, right: EngineResult, *, offset: int, size: int, collapse: bool
) -> None:
    """Two engines' results of one plan (the ranked page, the candidate count) agree."""
    assert (left.total, left.candidates) == (right.total, right.candidates)
    key = "doc_id" if collapse else "chunk_id"  # collapse may keep either of two tied chunks
    ours = [(getattr(h, key), float(h.score or 0)) for h in left.hits]
    theirs = [(getattr(h, key), float(h.score or 0)) for h in right.hits]
    _alike(ours, theirs, offset=offset, full=len(ours) == size)

    def same_fields(source: dict[str, Any]) -> dict[str, Any]:
        # generation names differ: each engine's storage layout is part of the digest
        return {k: v for k, v in source.items() if k != "generation"}

    sources = {h.chunk_id: h.source for h in right.hits}
    for hit in left.hits:  # the same source, field for field
        if hit.chunk_id in sources:
            assert same_fields(hit.source) == same_fields(sources[hit.chunk_id])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    words=st.lists(st.sampled_from(WORDS), max_size=6),
    operator=st.sampled_from(["or", "and"]),
    msm=st.sampled_from([None, "1", "2", "-1", "75%", "-25%", "2<75%", "1<-1 3<50%", "5"]),
    boosts=st.sampled_from([(None, None), (2.0, None), (None, 1.5), (3.0, 2.0)]),
    filters=st.lists(st.sampled_from(range(len(FILTERS))), max_size=3, unique=True),
    collapse=st.booleans(),
    size=st.sampled_from([3, 10, 60]),
    offset=st.sampled_from([0, 0, 2]),
    source_fields=st.sampled_from([None, [], ["amounts", "title", "span"]]),
)
def test_generated_queries_answer_alike(
    both: tuple[ChunkIndex, ChunkIndex, str],
    words: list[str],
    operator: str,
    msm: str | None,
    boosts: tuple[float | None, float | None],
    filters: list[int],
    collapse: bool,
    size: int,
    offset: int,
    source_fields: list[str] | None,
) -> None:
    cluster, embedded, alias = both
    spec = QuerySpec(
        text=" ".join(words),
        k=size,
        offset=offset,
        operator=operator,  # type: ignore[arg-type]
        minimum_should_match=msm if operator == "or" else None,  # refused with "and"
        breadcrumb_boost=boosts[0],
        title_boost=boosts[1],
        collapse=collapse,
        highlight=False,
        source_fields=source_fields,
    )
    plan = plan_query(spec)  # amounts in the words: filtered (one) or boosted (several)
    plan = AnalyzedQuery(
        spec=plan.spec,
        match_text=plan.match_text,
        amount=plan.amount,
        amount_status=plan.amount_status,
        filters=plan.filters + tuple(NamedFilter(f"f{i}", FILTERS[i]) for i in filters),
        stated=plan.stated,
        default_currency=plan.default_currency,
    )
    for drop in (False, True):
        typed = search_plan(plan, drop_amount=drop)
        _same(
            embedded.search(alias, [typed])[0],
            cluster.search(alias, [typed])[0],
            offset=offset,
            size=size,
            collapse=collapse,
        )


def test_an_ambiguous_amount_query_scores_alike_to_the_fourth_decimal(
    both: tuple[ChunkIndex, ChunkIndex, str],
) -> None:
    """Several amounts dropped by the fallback: no filter, an integer boost per amount (a
    keyword term's BM25 without norms on the embedded engine). Any change to those scores
    shows here."""
    cluster, embedded, alias = both
    plan = plan_query(QuerySpec(text="umbrella €300,000 $300K", k=20, unrestricted=True))
    assert plan.amount_status == "several"
    typed = search_plan(plan, drop_amount=True)
    ours, theirs = (e.search(alias, [typed])[0] for e in (embedded, cluster))
    scores = {h.chunk_id: h.score for h in theirs.hits}
    assert len(scores) == 20
    for hit in ours.hits:
        assert hit.score == pytest.approx(scores[hit.chunk_id], rel=1e-4), hit.chunk_id


def _labelled() -> list[dict[str, Any]]:
    import json

    lines = (EXAMPLES / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("query", _labelled(), ids=lambda q: q["id"])
def test_every_labelled_query_ranks_alike(
    both: tuple[ChunkIndex, ChunkIndex, str], query: dict[str, Any]
) -> None:
    cluster, embedded, alias = both
    try:
        ours = Searcher(embedded, alias, enforce_access=False).search(query["query"], k=20)
    except QueryError as refused:  # a range in a non-default currency: refused alike by both
        with pytest.raises(QueryError) as also:
            Searcher(cluster, alias, enforce_access=False).search(query["query"], k=20)
        assert str(also.value) == str(refused)
        return
    theirs = Searcher(cluster, alias, enforce_access=False).search(query["query"], k=20)
    assert (ours.candidate_count, ours.fallback, ours.total_hits, ours.amount_status) == (
        theirs.candidate_count,
        theirs.fallback,
        theirs.total_hits,
        theirs.amount_status,
    )
    _alike(
        [(h.chunk_id, h.score or 0.0) for h in ours.hits],
        [(h.chunk_id, h.score or 0.0) for h in theirs.hits],
        offset=0,
        full=len(ours.hits) == 20,
    )
    # unique spans are counted from the hits; a full page may end in a tie group the engines
    # cut differently (_alike), so the counts are compared on the hits before that group
    for result in (ours, theirs):
        assert result.unique_spans == count_unique_spans(result.hits)
    kept = len(ours.hits)
    if kept == 20:
        last = ours.hits[-1].score
        kept = sum(1 for h in ours.hits if h.score != last)
    assert count_unique_spans(ours.hits[:kept]) == count_unique_spans(theirs.hits[:kept])
    if len(ours.hits) < 20:
        assert ours.unique_spans == theirs.unique_spans


@pytest.mark.corpus
@pytest.mark.slow
def test_cranfield_meets_the_parity_targets(
    os_client: OpenSearch, corpora: Path, tmp_path: Path
) -> None:
    """The parity targets: mean top-5 document overlap ≥ 0.8, nDCG@10 within 0.02."""
    from osrag.evaluation import EvalConfig, read_queries, run_evaluation

    derived = corpora / "cranfield" / "derived"
    queries = read_queries(derived / "queries.jsonl", derived / "qrels.tsv")
    reports = {}
    for name, backend in (
        ("opensearch", OpenSearchIndex(os_client)),
        ("embedded", EmbeddedIndex(tmp_path / "index")),
    ):
        alias = f"osrag-test-cranfield-{uuid.uuid4().hex[:8]}"
        reports[name] = run_evaluation(
            queries,
            backend,
            alias=alias,
            configs=[EvalConfig("osrag", {})],
            ks=[5, 10],
            corpus=derived / "corpus.jsonl",
        ).configs[0]
    ours, theirs = reports["embedded"], reports["opensearch"]

    def overlap(q: str, k: int) -> float:
        a, b = ours.rankings.get(q, [])[:k], theirs.rankings[q][:k]
        return len(set(a) & set(b)) / max(len(a), len(b)) if a or b else 1.0

    judged = sorted(theirs.rankings)
    assert len(judged) == 40  # every query of the slice
    assert sum(overlap(q, 5) for q in judged) / len(judged) >= 0.8
    assert abs(ours.metrics["ndcg@10"] - theirs.metrics["ndcg@10"]) <= 0.02


def test_tied_scores_come_in_one_order_on_both_engines(
    os_client: OpenSearch, corpora: Path, tmp_path: Path
) -> None:
    """Duplicated passages under other ids tie exactly; both engines order the ties by chunk
    id, descending — also across the cut-off, which the embedded index fetches past."""
    alias = f"osrag-test-ties-{uuid.uuid4().hex[:8]}"
    corpus = tmp_path / "corpus.jsonl"
    abstracts = (corpora / "cranfield" / "derived" / "corpus.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in abstracts[:40]]
    corpus.write_text(
        "".join(
            f'{{"_id": "{copy}-{i}", "text": {json.dumps(text)}}}\n'
            for i, text in enumerate(texts)
            for copy in ("a", "b", "c")
        )
    )
    cluster = OpenSearchIndex(os_client)
    embedded = EmbeddedIndex(tmp_path / "index")
    try:
        for backend in (cluster, embedded):
            ingest(corpus, backend, IngestOptions(alias=alias))
        for words in (["wing"], ["flow", "pressure"], ["boundary", "layer", "heat"]):
            for size in (4, 7, 20):
                plan = plan_query(" ".join(words), k=size, amount_filter=False)
                listed = []
                for backend in (cluster, embedded):
                    (result,) = backend.search(alias, [search_plan(plan)])
                    ranked = [(float(h.score or 0), h.chunk_id) for h in result.hits]
                    assert ranked == sorted(ranked, reverse=True)  # score, then id, descending
                    listed.append([chunk_id for _score, chunk_id in ranked])
                assert listed[0] == listed[1], (words, size)
    finally:
        purge(cluster, alias)
        embedded.close()
