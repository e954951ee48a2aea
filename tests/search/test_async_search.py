"""AsyncSearcher and Searcher answer alike on every engine: the same hits in the same order
with the same scores, the same filters, the same amount fallback, the same refusals.

One corpus (the insurance set: two tenants, ACLs) is indexed twice per engine, words
only and with vectors; every query of ``QUERIES`` runs through both searchers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from async_cases import assert_same, async_searcher, hashed
from backend_cases import BACKEND_PARAMS, BackendCase, open_case

from osrag.config import Settings
from osrag.errors import QueryError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import SearchResult
from osrag.search.async_searcher import AsyncSearcher
from osrag.search.searcher import Searcher

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"
ACME = {"tenant": "acme", "acl": ["agents"]}

QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("What coverage does the $300,000 umbrella policy provide?", ACME),
    ("What does the $300K umbrella cover?", ACME | {"k": 3}),
    ("umbrella over $1 million", ACME),
    ("umbrella policy limits", ACME | {"collapse": True}),
    ("umbrella policy limits", ACME | {"k": 2, "offset": 2}),
    ("umbrella with a $123,456 limit", ACME),  # nobody wrote it: the fallback
    ("umbrella with a $300,000 limit", {"tenant": "acme"}),  # no groups: every document has an ACL
    ("umbrella $300,000", {"tenant": "globex", "acl": ["agents", "underwriters"]}),
    ("umbrella $300,000", ACME | {"amount_filter": False}),
]
VECTOR_QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("What does the $300K umbrella cover?", ACME | {"mode": "hybrid"}),
    ("umbrella with a $123,456 limit", ACME | {"mode": "hybrid"}),
    ("umbrella policy limits", ACME | {"mode": "vector", "k": 4}),
    ("umbrella policy limits", ACME | {"mode": "hybrid", "fusion": "normalization"}),
    ("umbrella policy limits", ACME | {"mode": "hybrid", "collapse": True}),
]


class Indexed(NamedTuple):
    case: BackendCase
    alias: str
    vectors: str


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    folder = tmp_path_factory.mktemp("async")
    case = open_case(request, request.param, folder)
    vectors = f"{case.alias}-vectors"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(folder / "vector-cache"))
        ingest(DATA, case.backend, IngestOptions(alias=case.alias))
        ingest(DATA, case.backend, IngestOptions(alias=vectors, embedder=hashed()))
    yield Indexed(case, case.alias, vectors)
    case.purge(case.alias)
    case.purge(vectors)


def _both(
    indexed: Indexed, alias: str, queries: list[tuple[str, dict[str, Any]]], **options: Any
) -> list[tuple[SearchResult, SearchResult]]:
    sync = Searcher(indexed.case.build(), alias, **options)
    expected = [sync.search(text, **overrides) for text, overrides in queries]

    async def run() -> list[SearchResult]:
        async with async_searcher(indexed.case, alias, **options) as searcher:
            return [await searcher.search(text, **overrides) for text, overrides in queries]

    return list(zip(expected, asyncio.run(run()), strict=True))


def test_async_and_sync_searchers_give_the_same_results(indexed: Indexed) -> None:
    pairs = _both(indexed, indexed.alias, QUERIES)
    for sync, awaited in pairs:
        assert_same(sync, awaited)
    # the cases say what they claim to: hits, an amount filter, the fallback, the guards
    assert [bool(s.hits) for s, _ in pairs] == [i != 6 for i in range(len(QUERIES))]
    first = pairs[0][0]
    assert {h.doc_id for h in first.hits} <= {
        "umb-300k-classic",
        "umb-300k-plus",
        "umb-300k-landlord",
        "umb-300k-cross-border",
    }
    assert not first.fallback and "amount" in [f.name for f in first.filters_applied]
    fallback = pairs[5][0]
    assert fallback.fallback and "amount" not in [f.name for f in fallback.filters_applied]
    assert {h.doc_id for h in pairs[7][0].hits} <= {"umb-commercial-300m", "umb-eur-300k"}
    assert pairs[2][0].amount_status == pairs[2][1].amount_status != "none"


def test_async_and_sync_searchers_fuse_vectors_alike(indexed: Indexed) -> None:
    pairs = _both(indexed, indexed.vectors, VECTOR_QUERIES, embedder=hashed())
    for sync, awaited in pairs:
        assert_same(sync, awaited)
        assert sync.hits
    assert pairs[1][0].fallback


def test_concurrent_searches_answer_as_one_at_a_time(indexed: Indexed) -> None:
    sync = Searcher(indexed.case.build(), indexed.alias)
    expected = [sync.search(text, **overrides) for text, overrides in QUERIES]

    async def run() -> list[SearchResult]:
        async with async_searcher(indexed.case, indexed.alias) as searcher:
            calls = [searcher.search(text, **overrides) for text, overrides in QUERIES * 3]
            return list(await asyncio.gather(*calls))

    for one, awaited in zip(expected * 3, asyncio.run(run()), strict=True):
        assert_same(one, awaited)


def test_a_caller_without_a_tenant_is_refused_by_both(indexed: Indexed) -> None:
    with pytest.raises(QueryError, match="several tenants"):
        Searcher(indexed.case.build(), indexed.alias).search("umbrella $300,000")

    async def run() -> None:
        async with async_searcher(indexed.case, indexed.alias) as searcher:
            with pytest.raises(QueryError, match="several tenants"):
                await searcher.search("umbrella $300,000")
            with pytest.raises(QueryError, match="several tenants"):  # and again: remembered
                await searcher.search("umbrella $300,000", acl=["agents"])
            other = await searcher.search("umbrella $300,000", tenant="initech", acl=["agents"])
            assert other.hits == [] and other.candidate_count == 0

    asyncio.run(run())


def test_from_settings_reaches_the_engine_the_settings_name(indexed: Indexed) -> None:
    case = indexed.case
    settings = Settings(home=case.home) if case.kind == "embedded" else Settings(url=case.url)
    expected = Searcher(case.build(), indexed.alias).search(QUERIES[0][0], **QUERIES[0][1])

    async def run() -> SearchResult:
        searcher = AsyncSearcher.from_settings(settings, indexed.alias, backend=case.kind)
        assert searcher.index.native_async == (case.kind != "embedded")
        try:
            return await searcher.search(QUERIES[0][0], **QUERIES[0][1])
        finally:
            await searcher.close()

    assert_same(expected, asyncio.run(run()))


def test_the_async_client_is_refused_where_it_cannot_serve(tmp_path: Path) -> None:
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.engines.rest.async_search import connect_async
    from osrag.errors import ConfigError

    signed = Settings(url="https://search.example.com", aws_region="eu-west-1")
    with pytest.raises(ConfigError, match="SigV4"):
        connect_async(signed, "opensearch")
    with pytest.raises(ConfigError, match="SigV4"):
        connect_async(signed, "elasticsearch")
    with pytest.raises(TypeError, match="EmbeddedIndex"):
        AsyncSearcher(EmbeddedIndex(tmp_path / "embedded"), "osrag-chunks", client=object())


def test_import_osrag_loads_no_framework_and_the_async_searcher_on_first_use() -> None:
    import subprocess
    import sys

    code = (
        "import sys, osrag\n"
        "loaded = [m for m in ('osrag.search.async_searcher', 'osrag.integrations.langchain', "
        "'langchain_core', 'llama_index', 'haystack', 'fastapi') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        "assert osrag.AsyncSearcher.__module__ == 'osrag.search.async_searcher'\n"
        "assert 'AsyncSearcher' in osrag.__all__\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
