"""The LangChain, LlamaIndex and Haystack retrievers, on every engine, under their
frameworks' own contracts: LangChain's standard retriever tests (langchain-tests),
a LlamaIndex query engine without an LLM, Haystack's component serialisation and a
Pipeline run. Through every retriever and each one's async path: a query that states
one amount returns only documents holding it, and a caller gets nothing outside its
tenant (none at all without one)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from async_cases import async_searcher
from backend_cases import BACKEND_PARAMS, BackendCase, open_case
from haystack import Pipeline
from langchain_core.retrievers import BaseRetriever as LangChainRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers.no_text import NoText

from osrag.errors import QueryError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.integrations import haystack, langchain, llama_index
from osrag.schema.passages import ContextRequest
from osrag.search.searcher import Searcher

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"
QUESTION = "What does the $300K umbrella cover?"
THREE_HUNDRED_K = 30_000_000
ACME_DOCS = {
    "umb-300k-classic",
    "umb-300k-plus",
    "umb-300k-landlord",
    "umb-300k-cross-border",
    "umb-3m-classic",
    "home-2023",
    "home-2024",
    "renters-30k",
}
GLOBEX_DOCS = {"umb-commercial-300m", "umb-eur-300k"}
Scope = dict[str, Any]
ACME: Scope = {"tenant": "acme", "acl": ["agents"]}


class Indexed(NamedTuple):
    case: BackendCase
    alias: str

    def searcher(self) -> Searcher:
        return Searcher(self.case.build(), self.alias)


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    case = open_case(request, request.param, tmp_path_factory.mktemp("integrations"))
    ingest(DATA, case.backend, IngestOptions(alias=case.alias))
    yield Indexed(case, case.alias)
    case.purge()


# --------------------------------------------------------------------------- each framework


def _langchain(indexed: Indexed, scope: Scope) -> list[tuple[str, dict[str, Any]]]:
    docs = langchain.OsragRetriever(searcher=indexed.searcher(), k=8, **scope).invoke(QUESTION)
    return [(d.page_content, d.metadata) for d in docs]


def _llama_index(indexed: Indexed, scope: Scope) -> list[tuple[str, dict[str, Any]]]:
    found = llama_index.OsragRetriever(indexed.searcher(), k=8, **scope).retrieve(QUESTION)
    return [(n.node.get_content(), n.node.metadata) for n in found]


def _haystack(indexed: Indexed, scope: Scope) -> list[tuple[str, dict[str, Any]]]:
    found = haystack.OsragRetriever(indexed.searcher(), k=8, **scope).run(QUESTION)
    return [(d.content or "", d.meta) for d in found["documents"]]


def _awaited(
    indexed: Indexed, scope: Scope, call: Callable[[Any], Awaitable[list[tuple[str, Any]]]]
) -> list[tuple[str, dict[str, Any]]]:
    async def run() -> list[tuple[str, dict[str, Any]]]:
        async with async_searcher(indexed.case, indexed.alias) as searcher:
            return await call(searcher)

    return asyncio.run(run())


def _langchain_async(indexed: Indexed, scope: Scope) -> list[tuple[str, dict[str, Any]]]:
    async def call(searcher: Any) -> list[tuple[str, Any]]:
        retriever = langchain.OsragRetriever(
            searcher=indexed.searcher(), async_searcher=searcher, k=8, **scope
        )
        return [(d.page_content, d.metadata) for d in await retriever.ainvoke(QUESTION)]

    return _awaited(indexed, scope, call)


def _llama_index_async(indexed: Indexed, scope: Scope) -> list[tuple[str, dict[str, Any]]]:
    async def call(searcher: Any) -> list[tuple[str, Any]]:
        retriever = llama_index.OsragRetriever(
            indexed.searcher(), async_searcher=searcher, k=8, **scope
        )
        return [
            (n.node.get_content(), n.node.metadata) for n in await retriever.aretrieve(QUESTION)
        ]

    return _awaited(indexed, scope, call)


def _haystack_async(indexed: Indexed, scope: Scope) -> list[tuple[str, dict[str, Any]]]:
    async def call(searcher: Any) -> list[tuple[str, Any]]:
        retriever = haystack.OsragRetriever(
            indexed.searcher(), async_searcher=searcher, k=8, **scope
        )
        found = await retriever.run_async(QUESTION)
        return [(d.content or "", d.meta) for d in found["documents"]]

    return _awaited(indexed, scope, call)


RETRIEVERS = {
    "langchain": _langchain,
    "langchain-async": _langchain_async,
    "llama-index": _llama_index,
    "llama-index-async": _llama_index_async,
    "haystack": _haystack,
    "haystack-async": _haystack_async,
}


@pytest.mark.parametrize("framework", sorted(RETRIEVERS))
def test_a_stated_amount_returns_only_documents_holding_it(
    indexed: Indexed, framework: str
) -> None:
    found = RETRIEVERS[framework](indexed, ACME)
    assert found
    for body, meta in found:
        assert THREE_HUNDRED_K in meta["amounts"], (meta["doc_id"], meta["amounts"])
        assert all(isinstance(a, int) for a in meta["amounts"])
        assert meta["amount"]["minor_units"] == THREE_HUNDRED_K
        assert meta["filters"] == ["amount", "tenant", "acl"] and meta["fallback"] is False
        assert meta["doc_id"] in ACME_DOCS and meta["chunk_id"].startswith(meta["doc_id"] + "#")
        assert meta["breadcrumb"] and body
        assert 0 <= meta["span"]["start"] < meta["span"]["end"]
        assert isinstance(meta["pages"], list)
    assert "umb-3m-classic" not in {meta["doc_id"] for _, meta in found}


@pytest.mark.parametrize("framework", sorted(RETRIEVERS))
def test_a_caller_gets_nothing_outside_its_tenant(indexed: Indexed, framework: str) -> None:
    globex = RETRIEVERS[framework](indexed, {"tenant": "globex", "acl": ["agents", "underwriters"]})
    assert {meta["doc_id"] for _, meta in globex} <= GLOBEX_DOCS
    assert RETRIEVERS[framework](indexed, {"tenant": "initech", "acl": ["agents"]}) == []
    with pytest.raises(QueryError, match="several tenants"):  # no tenant: refused outright
        RETRIEVERS[framework](indexed, {"acl": ["agents"]})


@pytest.mark.parametrize("framework", sorted(RETRIEVERS))
def test_with_a_context_every_retriever_returns_the_searchers_passages(
    indexed: Indexed, framework: str
) -> None:
    context = ContextRequest(kind="section", budget=300)
    found = RETRIEVERS[framework](indexed, ACME | {"context": context})
    direct = indexed.searcher().search(QUESTION, k=8, context=context, **ACME)
    assert found and [text for text, _ in found] == [p.text for p in direct.passages]
    assert sum(meta["tokens"] for _, meta in found) <= 300
    for text, meta in found:
        assert meta["doc_id"] in ACME_DOCS and meta["context"] == "section" and text
        assert meta["hits"] and all(h.startswith(meta["doc_id"] + "#") for h in meta["hits"])
        assert meta["span"]["start"] == meta["segments"][0]["start"]


def test_per_call_overrides_narrow_a_langchain_search(indexed: Indexed) -> None:
    retriever = langchain.OsragRetriever(searcher=indexed.searcher(), k=8, **ACME)
    assert len(retriever.invoke("umbrella policy", k=2)) == 2
    globex = retriever.invoke("umbrella", tenant="globex", acl=["underwriters"])
    assert globex and {d.metadata["doc_id"] for d in globex} <= GLOBEX_DOCS
    with pytest.raises(TypeError, match="unrestricted"):
        retriever.invoke("umbrella", unrestricted=True)


# --------------------------------------------------------------------------- LangChain's suite


class TestLangChainStandardRetriever(RetrieversIntegrationTests):
    """langchain-tests' own retriever contract, on each engine."""

    @pytest.fixture(autouse=True)
    def _on(self, indexed: Indexed) -> None:
        self.indexed = indexed

    @property
    def retriever_constructor(self) -> type[LangChainRetriever]:
        return langchain.OsragRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"searcher": self.indexed.searcher(), **ACME}

    @property
    def retriever_query_example(self) -> str:
        return "umbrella policy limits"


# --------------------------------------------------------------------------- LlamaIndex


def test_a_llama_index_query_engine_answers_from_the_retriever_without_an_llm(
    indexed: Indexed,
) -> None:
    retriever = llama_index.OsragRetriever(indexed.searcher(), k=4, **ACME)
    # NoText (response_mode="no_text"): the engine returns the retrieved nodes and writes
    # no answer; the stand-in LLM keeps LlamaIndex from looking for a model it never calls
    engine = RetrieverQueryEngine(retriever, response_synthesizer=NoText(llm=MockLLM()))
    response = engine.query(QUESTION)
    sources = response.source_nodes
    assert 0 < len(sources) <= 4
    assert all(THREE_HUNDRED_K in n.node.metadata["amounts"] for n in sources)
    assert [n.node.node_id for n in sources] == [n.node.metadata["chunk_id"] for n in sources]
    assert all(n.score is not None for n in sources)
    assert not response.response  # no text was generated


# --------------------------------------------------------------------------- Haystack


def test_a_haystack_retriever_survives_serialisation_and_runs_in_a_pipeline(
    indexed: Indexed,
) -> None:
    original = haystack.OsragRetriever(indexed.searcher(), k=3, **ACME)
    data = original.to_dict()
    with_context = haystack.OsragRetriever(
        indexed.searcher(), k=3, context=ContextRequest(kind="table", budget=99), **ACME
    )
    restored = haystack.OsragRetriever.from_dict(with_context.to_dict())
    assert restored.context == {**ContextRequest(kind="table", budget=99).model_dump()}
    assert data["init_parameters"]["where"]["backend"] == indexed.case.kind
    again = haystack.OsragRetriever.from_dict(data)
    assert again.to_dict() == data
    pipeline = Pipeline()
    pipeline.add_component("retriever", again)
    # Haystack deserialises components of trusted modules only: osrag's is named
    reloaded = Pipeline.loads(pipeline.dumps(), allowed_modules=[haystack.__name__])
    answer = reloaded.run({"retriever": {"query": QUESTION}})
    found = answer["retriever"]["documents"]
    direct = original.run(QUESTION)["documents"]
    assert [d.id for d in found] == [d.id for d in direct] and 0 < len(found) <= 3
    assert all(THREE_HUNDRED_K in d.meta["amounts"] for d in found)
    narrowed = reloaded.run({"retriever": {"query": QUESTION, "top_k": 1}})
    assert len(narrowed["retriever"]["documents"]) == 1


def test_a_haystack_pipeline_run_async_uses_the_async_searcher(indexed: Indexed) -> None:
    async def run() -> list[Any]:
        async with async_searcher(indexed.case, indexed.alias) as searcher:
            pipeline = Pipeline()
            pipeline.add_component(
                "retriever",
                haystack.OsragRetriever(indexed.searcher(), k=3, async_searcher=searcher, **ACME),
            )
            # Haystack awaits a component's run_async where it declares one
            assert pipeline.get_component("retriever").__haystack_supports_async__
            answer = await pipeline.run_async({"retriever": {"query": QUESTION}})
            return list(answer["retriever"]["documents"])

    found = asyncio.run(run())
    direct = haystack.OsragRetriever(indexed.searcher(), k=3, **ACME).run(QUESTION)["documents"]
    assert [d.id for d in found] == [d.id for d in direct] and found
    assert all(THREE_HUNDRED_K in d.meta["amounts"] for d in found)
