"""Hybrid retrieval keeps osrag's promise: every filter is inside both legs.

Pure checks of the request bodies (the same filter list in the lexical and the
vector leg; never a post_filter, never a bool around knn; the fallback drops
the amount from both legs together; every vector field names the lucene
engine), then the real engines: a stated amount is a constraint in hybrid mode
exactly as in BM25 mode, a restrictive filter returns min(k, candidates)
neighbours, fusion on the engine and in the client give the same order, a
re-ingest embeds nothing, and a failing or mismatched embedder is reported
without losing what is stored.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from backend_cases import (
    BACKEND_PARAMS,
    LAYOUT_UNDER_TEST,
    BackendCase,
    Delegating,
    generation_body,
    open_case,
    stored_chunk,
)

from osrag.embedding import CallableEmbedder
from osrag.engines.base import Put
from osrag.engines.mapping import VECTOR_FIELD, chunk_index_body
from osrag.errors import DimensionMismatchError, EmbeddingError, QueryError
from osrag.evaluation.filtering import passing_filter
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document, ExtractionConfig, QuerySpec
from osrag.search.analysis import analyze_query
from osrag.search.query import plan_query, search_bodies, search_plan
from osrag.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "insurance"
THREE_HUNDRED_K = 30_000_000


@pytest.fixture(autouse=True)
def _private_vector_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with an empty vector cache: what it embeds, it embeds itself."""
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "vector-cache"))


def hashed(dimension: int = 8, *, fail_on: str | None = None, version: str = "1") -> Any:
    """A deterministic stand-in for a team's embedding service (a plain callable)."""

    def embed(texts: list[str]) -> np.ndarray:
        if fail_on is not None and any(fail_on in t for t in texts):
            raise RuntimeError(f"the service refused a text mentioning {fail_on!r}")
        rows = []
        for text in texts:
            digest = hashlib.sha256(text.encode()).digest()
            rows.append([b / 255.0 + 0.01 for b in digest[:dimension]])
        return np.array(rows, dtype=np.float32)

    return CallableEmbedder(embed, name="hashed", version=version, dimension=dimension)


# --------------------------------------------------------------------------- pure


def _engine_fuses(backend: Any) -> bool:
    """Whether this OpenSearch node runs neural-search (2.19 as osrag runs it; not 3.x,
    for which Maven Central serves no build): only then the engine fuses a hybrid query."""
    plugins = backend.client.cat.plugins(format="json")
    return "opensearch-neural-search" in {p["component"] for p in plugins}


NO_ACL = {"bool": {"must_not": [{"exists": {"field": "acl"}}]}}
AMOUNT = {"term": {"amounts": 30_000_000}}
TENANT = {"term": {"tenant": "acme"}}
ACL_AGENTS = {
    "bool": {"should": [{"terms": {"acl": ["agents"]}}, NO_ACL], "minimum_should_match": 1}
}
ACL_NONE = {"bool": {"should": [{"match_none": {}}, NO_ACL], "minimum_should_match": 1}}
"""The filter clauses of the queries below, written out."""


def _filters_of(leg: dict[str, Any]) -> list[dict[str, Any]]:
    query = leg["query"]
    if "knn" in query:
        return query["knn"][VECTOR_FIELD]["filter"]["bool"]["filter"]
    return query["bool"]["filter"]


def test_every_leg_carries_the_same_filters_and_none_filters_after_the_fact() -> None:
    plan = plan_query(
        QuerySpec(text="umbrella $300K", mode="hybrid", tenant="acme", acl=["agents"], k=7)
    )
    client = search_bodies(plan, vector=[0.1] * 4)
    lexical, vector, count = client
    expected = [AMOUNT, TENANT, ACL_AGENTS]
    assert [f.name for f in plan.filters] == ["amount", "tenant", "acl"]
    assert _filters_of(lexical) == _filters_of(vector) == expected
    assert count["query"] == {"bool": {"filter": expected}} and count["size"] == 0
    assert vector["query"]["knn"][VECTOR_FIELD]["k"] == 7
    (server, _count) = search_bodies(plan, vector=[0.1] * 4, pipeline="osrag-rrf-60-v1")
    legs = server["query"]["hybrid"]["queries"]
    assert server["search_pipeline"] == "osrag-rrf-60-v1"
    assert legs[0]["bool"]["filter"] == legs[1]["knn"][VECTOR_FIELD]["filter"]["bool"]["filter"]
    for body in [*client, server]:
        text = json.dumps(body)
        assert "post_filter" not in text
        assert '"bool": {"must": [{"knn"' not in text and '"filter": [{"knn"' not in text


def test_the_fallback_drops_the_amount_from_both_legs_and_keeps_the_rest() -> None:
    plan = plan_query(QuerySpec(text="umbrella $123,456", mode="hybrid", tenant="acme"))
    lexical, vector, _ = search_bodies(plan, vector=[0.1] * 4, drop_amount=True)
    assert _filters_of(lexical) == _filters_of(vector) == [TENANT, ACL_NONE]
    assert all("amounts" not in json.dumps(f) for f in _filters_of(vector))
    assert {"term": {"tenant": "acme"}} in _filters_of(vector)


def test_every_vector_field_names_the_lucene_engine_never_the_default() -> None:
    """OpenSearch 2.x defaults a knn_vector to faiss; without its native library a write
    to such a field takes the node down. No body osrag builds may rely on the default."""
    bodies = [chunk_index_body(vector_dimension=d) for d in (4, 384, 1024)]
    bodies += [json.loads(p.read_text()) for p in sorted((ROOT / "mappings").glob("*.json"))]
    found = 0

    def walk(node: Any) -> None:
        nonlocal found
        if isinstance(node, dict):
            if node.get("type") == "knn_vector":
                found += 1
                assert node["method"]["engine"] == "lucene", node
                assert node["method"]["name"] == "hnsw"
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for body in bodies:
        walk(body)
    assert found == 4
    assert "knn_vector" not in json.dumps(chunk_index_body())  # no embedder, no vector field


def test_vector_and_hybrid_need_the_querys_embedding() -> None:
    with pytest.raises(QueryError, match="needs the query's embedding"):
        search_bodies(plan_query(QuerySpec(text="x", mode="vector")))


# --------------------------------------------------------------------------- real engines


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def embedded_insurance(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    """The sample policies with vectors from the offline default model."""
    case = open_case(request, request.param, tmp_path_factory.mktemp("hybrid"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(tmp_path_factory.mktemp("vector-cache")))
        report = ingest(
            EXAMPLES,
            case.backend,
            IngestOptions(alias=case.alias, embedder="default", embed_workers=1),
        )
    assert report.chunks_embedded == report.chunks_written > 0
    yield case
    case.purge()


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_a_stated_amount_is_a_constraint_in_every_mode(
    embedded_insurance: BackendCase, mode: str
) -> None:
    case = embedded_insurance
    searcher = Searcher(case.backend, case.alias)
    asked = {"mode": mode, "tenant": "acme", "acl": ["agents"], "k": 10}
    # "umbrella $300K" names no quantity: answered at the role-free step, where the vector
    # leg keeps only the hits near its best (so does the lexical leg: their floors) and the
    # hits saying "umbrella" where any does (the question's subject); all off, every
    # candidate comes back
    result = searcher.search(
        "umbrella $300K", vector_floor=0, lexical_floor=0, subject_cut=False, **asked
    )
    assert result.mode == mode and result.amount_status == "one" and not result.fallback
    assert [f.name for f in result.filters_applied] == ["amount", "tenant", "acl"]
    assert result.hits and all(THREE_HUNDRED_K in h.amounts for h in result.hits)
    assert len(result.hits) == min(10, result.candidate_count)
    floored = searcher.search("umbrella $300K", **asked)
    assert floored.amount_step == "role-free" and floored.filters_applied == result.filters_applied
    assert floored.hits and all(THREE_HUNDRED_K in h.amounts for h in floored.hits)
    assert {h.chunk_id for h in floored.hits} <= {h.chunk_id for h in result.hits}
    if mode == "hybrid":  # the floored leg is cut, then fused, in the client
        assert floored.fusion == "client:rrf"
    for hit in result.hits:
        source = case.source(case.alias, hit.chunk_id)
        assert source["tenant"] == "acme" and (not source["acl"] or "agents" in source["acl"])
    if mode == "hybrid":
        # OpenSearch fuses on the engine; on a sharded generation scored with
        # dfs_query_then_fetch (the default), which its hybrid query does not run under,
        # the client fuses legs scored as one shard
        sharded = LAYOUT_UNDER_TEST is not None and LAYOUT_UNDER_TEST.shards > 1
        server = case.kind == "opensearch" and not sharded and _engine_fuses(case.backend)
        assert (result.fusion or "").startswith("server:" if server else "client:")


def test_hybrid_falls_back_from_both_legs_only_when_the_amount_matches_nothing(
    embedded_insurance: BackendCase,
) -> None:
    case = embedded_insurance
    result = Searcher(case.backend, case.alias).search(
        "$123,456 umbrella", mode="hybrid", tenant="acme", acl=["agents"]
    )
    assert result.fallback and [f.name for f in result.filters_applied] == ["tenant", "acl"]
    assert result.hits
    for hit in result.hits:
        assert case.source(case.alias, hit.chunk_id)["tenant"] == "acme"


def test_the_documents_meeting_a_constraint_are_counted_on_an_alias_with_vectors(
    embedded_insurance: BackendCase,
) -> None:
    # the documents passing a filter (filter agreement, selectivity) are read with the filter
    # alone: on an alias with vectors the default mode is hybrid, whose vector leg cannot
    # take k = 10,000 on OpenSearch
    case = embedded_insurance
    stated = analyze_query("the policies over $500,000").constraints  # role-free: any amount
    searcher = Searcher(case.backend, case.alias, enforce_access=False)
    holders = passing_filter(searcher, stated, {})
    expected = {
        doc.doc_id
        for doc in load_corpus(EXAMPLES)
        if isinstance(doc, Document)
        and any(a > 50_000_000 for c in prepare_chunks(doc, ChunkingConfig()) for a in c.amounts)
    }
    assert expected and holders == expected


@pytest.mark.parametrize(
    "embedded_insurance", [pytest.param("opensearch", marks=pytest.mark.opensearch)], indirect=True
)
def test_fusion_on_the_engine_and_in_the_client_give_the_same_order(
    embedded_insurance: BackendCase,
) -> None:
    """OpenSearch fuses with osrag's search pipeline; forcing the client to fuse the very
    same legs must give the same scores rank by rank and the same documents in each group
    of tied scores (the engine orders ties by its internal document order). The vector
    leg's floor is off: a floored leg is always fused in the client."""
    case = embedded_insurance
    assert case.kind == "opensearch"  # the embedded engine always fuses in the client
    assert _engine_fuses(case.backend), "no neural-search on this node: a 2.19-only test"

    class ClientFusion(Delegating):
        def fusion_pipeline(self, spec: Any) -> str | None:
            return None

    # per-shard statistics in both (the engine's hybrid query does not run under dfs)
    same = {"enforce_access": False, "search_type": "query_then_fetch"}
    server = Searcher(case.backend, case.alias, **same)  # type: ignore[arg-type]
    client = Searcher(ClientFusion(case.backend), case.alias, **same)  # type: ignore[arg-type]
    queries = [json.loads(line)["query"] for line in (EXAMPLES / "queries.jsonl").open()]
    identical = 0
    for text in queries:
        try:
            ours = server.search(
                text, mode="hybrid", k=10, highlight=False, vector_floor=0, lexical_floor=0
            )
        except QueryError:  # a range in a non-default currency: refused before any fusion
            with pytest.raises(QueryError):
                client.search(
                    text, mode="hybrid", k=10, highlight=False, vector_floor=0, lexical_floor=0
                )
            continue
        theirs = client.search(
            text, mode="hybrid", k=10, highlight=False, vector_floor=0, lexical_floor=0
        )
        assert ours.fusion and ours.fusion.startswith("server:") and theirs.fusion == "client:rrf"
        assert [h.score for h in ours.hits] == pytest.approx([h.score for h in theirs.hits])
        groups = [_by_score(r.hits) for r in (ours, theirs)]
        last = round(ours.hits[-1].score or 0, 6) if ours.hits else None
        for score in groups[0]:  # tied hits may swap; a tie at the page's end runs off it
            assert score == last or groups[0][score] == groups[1][score]
        identical += [h.chunk_id for h in ours.hits] == [h.chunk_id for h in theirs.hits]
    # RRF ties often (rank r in one leg only = rank r in the other only); the engine breaks
    # them by its internal document order, the client by chunk id: equal up to ties
    print(f"\nfused orders identical chunk for chunk: {identical}/{len(queries)}")


@pytest.mark.parametrize(
    "embedded_insurance", [pytest.param("opensearch", marks=pytest.mark.opensearch)], indirect=True
)
def test_the_engine_fuses_exactly_where_it_runs_neural_search(
    embedded_insurance: BackendCase,
) -> None:
    """OpenSearch 2.19 as osrag runs it has neural-search: the engine fuses; 3.x has none
    (Maven Central serves no 3.x build): the same hybrid search is fused in the client."""
    case = embedded_insurance
    neural = _engine_fuses(case.backend)
    # per-shard statistics: on several shards dfs would make the client fuse on any version
    searcher = Searcher(
        case.backend,  # type: ignore[arg-type]
        case.alias,
        enforce_access=False,
        search_type="query_then_fetch",
    )
    result = searcher.search("umbrella liability coverage", mode="hybrid", k=5)
    assert result.hits and result.fusion is not None
    assert result.fusion.startswith("server:" if neural else "client:"), result.fusion


@pytest.mark.own_layout
def test_a_sharded_generation_ranks_as_one_shard_in_every_mode(
    os_client: Any, index_prefix: str
) -> None:
    """The same corpus in 1 and in 3 shards: with dfs_query_then_fetch (the default)
    every mode gives the one-shard scores; hybrid is fused in the client there, because
    the engine's hybrid query answers dfs with raw, duplicated hits. Asked for
    query_then_fetch, the engine fuses the 3-shard generation itself, with sane scores.
    The vector leg's floor is off (a floored leg is always fused in the client)."""
    from osrag.engines.opensearch.index import OpenSearchIndex

    engine = OpenSearchIndex(os_client)
    neural = _engine_fuses(engine)  # OpenSearch 3.x as osrag runs it: the client fuses
    embedder = hashed(8)
    aliases = {}
    for shards in (1, 3):
        aliases[shards] = alias = f"{index_prefix}-shards{shards}"
        options = IngestOptions(
            alias=alias, embedder=embedder, embed_workers=1, shards=shards, replicas=0
        )
        assert ingest(EXAMPLES, engine, options).chunks_written > 0
    one, three = (
        Searcher(engine, aliases[n], enforce_access=False, embedder=embedder) for n in (1, 3)
    )
    queries = [json.loads(line)["query"] for line in (EXAMPLES / "queries.jsonl").open()]
    for text in queries[:12]:
        for mode in ("bm25", "vector", "hybrid"):
            ours = three.search(
                text, mode=mode, k=10, highlight=False, vector_floor=0, lexical_floor=0
            )
            single = one.search(
                text, mode=mode, k=10, highlight=False, vector_floor=0, lexical_floor=0
            )
            if mode == "hybrid":
                assert ours.fusion == "client:rrf"
                assert (single.fusion or "").startswith("server:" if neural else "client:")
            assert [h.score for h in ours.hits] == pytest.approx(
                [h.score for h in single.hits], rel=1e-5
            ), (mode, text)
    per_shard = Searcher(
        engine, aliases[3], enforce_access=False, embedder=embedder, search_type="query_then_fetch"
    )
    for text in queries[:12]:
        fused = per_shard.search(
            text, mode="hybrid", k=10, highlight=False, vector_floor=0, lexical_floor=0
        )
        assert (fused.fusion or "").startswith("server:" if neural else "client:")
        ids = [h.chunk_id for h in fused.hits]
        assert len(ids) == len(set(ids)) and all(0 < (h.score or 0) <= 1 for h in fused.hits)


def _by_score(hits: list[Any]) -> dict[float, set[str]]:
    groups: dict[float, set[str]] = {}
    for hit in hits:
        groups.setdefault(round(hit.score or 0, 6), set()).add(hit.chunk_id)
    return groups


def test_a_restrictive_filter_returns_every_candidate_not_fewer(
    backend_case: BackendCase,
) -> None:
    """3 chunks of 5,000 hold the amount: the vector leg must return those 3 (the filter
    picks the candidates, then the neighbours are ranked inside them)."""
    case = backend_case
    name = f"{case.alias}-0123abcd-1"
    body = generation_body(case.kind, vector_dimension=8)
    case.backend.create_generation(name, body, bulk_loading=True)
    rng = np.random.default_rng(7)
    holders = {17, 2600, 4999}
    actions = []
    for n in range(5000):
        source = stored_chunk(f"doc{n}", "umbrella policy terms", chunk_id=f"doc{n}#0#{n:06x}")
        source["amounts"] = [THREE_HUNDRED_K] if n in holders else []
        source[VECTOR_FIELD] = [float(x) for x in rng.random(8)]
        actions.append(Put(source["chunk_id"], source))
    for start in range(0, len(actions), 1000):
        assert not case.backend.write(name, actions[start : start + 1000]).failures
    case.backend.finish_generation(name)
    case.backend.move_alias(case.alias, name, None)
    plan = plan_query(QuerySpec(text="umbrella $300K", mode="vector", k=10, unrestricted=True))
    typed = search_plan(plan, vector=[float(x) for x in rng.random(8)])
    (result,) = case.backend.search(case.alias, [typed])
    assert result.candidates == 3
    assert sorted(int(h.doc_id[3:]) for h in result.hits) == sorted(holders)


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    return corpus


def test_a_rerun_embeds_nothing_and_a_new_generation_reuses_cached_vectors(
    policies: Path, backend_case: BackendCase
) -> None:
    options = IngestOptions(alias=backend_case.alias, embedder=hashed(), embed_workers=1)
    first = ingest(policies, backend_case.backend, options)
    assert first.chunks_embedded == first.chunks_written > 0
    again = ingest(policies, backend_case.backend, options)
    assert (again.chunks_embedded, again.vectors_reused, again.chunks_written) == (0, 0, 0)
    # the same texts under another extraction setting: a new generation, every vector
    # read back from the generation it replaces (before the local cache is asked)
    other = ingest(
        policies,
        backend_case.backend,
        IngestOptions(
            alias=backend_case.alias,
            embedder=hashed(),
            embed_workers=1,
            extraction=ExtractionConfig(date_order="DMY"),
        ),
    )
    assert other.new_generation and other.chunks_embedded == 0
    assert other.vectors_from_generation == other.chunks_written and other.vectors_reused == 0


def test_an_embedder_that_fails_keeps_the_previous_version_and_the_next_run_retries(
    policies: Path, backend_case: BackendCase
) -> None:
    alias = backend_case.alias
    ingest(policies, backend_case.backend, IngestOptions(alias=alias, embedder=hashed()))
    before = backend_case.chunk_ids(alias, "umbrella-300k-landlord")
    path = policies / "umbrella-300k-landlord.md"
    path.write_text(path.read_text() + "\n\nA landlord endorsement clarifies the limit.\n")
    other = policies / "renters-30k-basic.md"
    other.write_text(other.read_text() + "\n\nA new renters sentence.\n")
    flaky = IngestOptions(alias=alias, embedder=hashed(fail_on="endorsement"), embed_workers=1)
    report = ingest(policies, backend_case.backend, flaky)
    assert [i.path for i in report.errors] == ["umbrella-300k-landlord.md"]
    assert "no vectors" in report.errors[0].reason and "hashed@1" in report.errors[0].reason
    assert backend_case.chunk_ids(alias, "umbrella-300k-landlord") == before  # kept
    assert report.documents_changed == 2  # the other one went in
    healthy = IngestOptions(alias=alias, embedder=hashed(), embed_workers=1)
    retry = ingest(policies, backend_case.backend, healthy)
    assert retry.documents_changed == 1 and retry.errors == []


def test_a_query_embedder_of_another_dimension_or_model_is_refused_by_name(
    policies: Path, backend_case: BackendCase
) -> None:
    alias = backend_case.alias
    ingest(policies, backend_case.backend, IngestOptions(alias=alias, embedder=hashed(8)))
    with pytest.raises(DimensionMismatchError, match="16") as caught:
        Searcher(backend_case.backend, alias, embedder=hashed(16)).search(
            "umbrella", mode="vector", tenant="acme", acl=["agents"]
        )
    assert "8" in str(caught.value)
    with pytest.raises(EmbeddingError, match="hashed@2"):
        Searcher(backend_case.backend, alias, embedder=hashed(8, version="2")).search(
            "umbrella", mode="vector", tenant="acme", acl=["agents"]
        )
    # the generation was built from an object, not a spec: the searcher must be given it
    with pytest.raises(QueryError, match="pass the same embedder"):
        Searcher(backend_case.backend, alias).search(
            "umbrella", mode="hybrid", tenant="acme", acl=["agents"]
        )
    found = Searcher(backend_case.backend, alias, embedder=hashed(8)).search(
        "umbrella", mode="hybrid", tenant="acme", acl=["agents"]
    )
    assert found.hits


def test_elasticsearch_gets_the_same_filters_in_its_own_knn_and_rrf_forms() -> None:
    from osrag.engines.elasticsearch.requests import RRF_PIPELINE, translate

    plan = plan_query(QuerySpec(text="umbrella $300K", mode="hybrid", tenant="acme", k=5))
    expected = [AMOUNT, TENANT, ACL_NONE]
    lexical, vector, count = (translate(b) for b in search_bodies(plan, vector=[0.5] * 4))
    assert "query" not in vector and vector["knn"]["field"] == VECTOR_FIELD
    assert vector["knn"]["filter"]["bool"]["filter"] == expected == _filters_of(lexical)
    assert vector["knn"]["k"] == 5 and vector["knn"]["num_candidates"] >= 100
    assert count == search_bodies(plan, vector=[0.5] * 4)[2]  # a count needs no translation
    (server, _count) = (
        translate(b) for b in search_bodies(plan, vector=[0.5] * 4, pipeline=f"{RRF_PIPELINE}-60")
    )
    rrf = server["retriever"]["rrf"]
    assert rrf["rank_constant"] == 60 and "query" not in server and "search_pipeline" not in server
    standard, knn = rrf["retrievers"]
    assert standard["standard"]["query"]["bool"]["filter"] == expected
    assert knn["knn"]["filter"]["bool"]["filter"] == expected
    assert "post_filter" not in json.dumps(server)


def test_the_search_command_in_hybrid_mode_returns_only_the_stated_amount(
    embedded_insurance: BackendCase,
) -> None:
    """The command of docs/vectors.md, as a user types it, on every engine."""
    from clirun import osrag

    case = embedded_insurance
    args, env = case.cli()
    found = osrag(
        "search", "umbrella $300K", "--mode", "hybrid", "--tenant", "acme", "--acl", "agents",
        "--alias", case.alias, "--json", *args,
        env={**env, "OSRAG_CACHE_DIR": str(Path(case.home or "/tmp") / "cli-cache")},
    )  # fmt: skip
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    assert result["mode"] == "hybrid" and result["hits"]
    assert all(THREE_HUNDRED_K in hit["amounts"] for hit in result["hits"])


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_collapse_keeps_each_documents_best_chunk_in_every_mode(
    embedded_insurance: BackendCase, mode: str
) -> None:
    case = embedded_insurance

    class ClientFusion(Delegating):  # collapse fuses in the client: compare like with like
        def fusion_pipeline(self, spec: Any) -> str | None:
            return None

    searcher = Searcher(ClientFusion(case.backend), case.alias)
    full = searcher.search("umbrella $300K", mode=mode, tenant="acme", acl=["agents"], k=50)
    one = searcher.search(
        "umbrella $300K", mode=mode, tenant="acme", acl=["agents"], k=3, collapse=True
    )
    docs = [h.doc_id for h in one.hits]
    assert len(docs) == len(set(docs)) == 3
    first_seen = list(dict.fromkeys(h.doc_id for h in full.hits))
    assert docs == first_seen[:3]  # the documents in the order of their best chunks
    assert all(THREE_HUNDRED_K in h.amounts for h in one.hits)
