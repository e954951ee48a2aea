"""Passages on every engine: the same passages for the same plan on OpenSearch,
Elasticsearch and the embedded index; one extra request per search, under the search's own
guards; a chunk the caller may not see never lends its text; the async searcher agrees."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from async_cases import async_searcher, hashed
from backend_cases import BACKEND_PARAMS, BackendCase, generation_body, open_case
from typer.testing import CliRunner

from osrag.chunking import chunk_document
from osrag.chunking.records import chunk_source
from osrag.cli import app
from osrag.engines.base import ChunkIndex, Put
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import ChunkingConfig, Document, SearchResult
from osrag.schema.passages import ContextRequest
from osrag.schema.plan import EngineResult, SearchPlan
from osrag.search.searcher import Searcher

DOCS = {
    "policy": """# Umbrella policy

The umbrella policy extends liability coverage above the underlying home and auto policies.

## Limits

The umbrella limit is $1,000,000 per occurrence. The aggregate limit is $2,000,000 per policy
year. Defense costs are paid in addition to the limit and do not reduce it. Claims made in
another country are covered when the suit is brought in the United States.

### Retained limit

The retained limit is $10,000 for a loss the underlying policies do not cover.

## Exclusions

Business pursuits are excluded. Intentional acts are excluded. Watercraft over 26 feet is
excluded unless scheduled.
""",
    "premiums": """# Premium schedule

The premiums of the umbrella policy are as follows (in dollars):

| Coverage | 2024 | 2023 |
|---|---|---|
| Umbrella $1,000,000 | 350 | 325 |
| Umbrella $2,000,000 | 480 | 455 |
| Umbrella $3,000,000 | 590 | 560 |
| Umbrella $5,000,000 | 780 | 740 |
| Watercraft rider | 60 | 55 |
| Rental property rider | 90 | 85 |

Premiums are due at the start of the policy year.
""",
    "claims": """# Claims

Report an umbrella claim within 30 days. The insurer appoints defense counsel for every
covered suit and pays defense costs in addition to the limit.

## Documents

Send the police report, the underlying insurer's denial letter and the invoices of every
repair. Keep the damaged property until the adjuster has seen it.
""",
}
QUERIES = [
    "umbrella limit per occurrence",
    "defense costs in addition to the limit",
    "watercraft rider premium",
    "retained limit underlying policies",
]
REQUESTS = [
    ContextRequest(kind="neighbours", budget=80, neighbours=1),
    ContextRequest(kind="neighbours", budget=400, neighbours=2),
    ContextRequest(kind="section", budget=120),
    ContextRequest(kind="table", budget=150),
]
CONFIGS = {
    "structural": ChunkingConfig(strategy="structural", max_tokens=25),
    "overlapping": ChunkingConfig(strategy="fixed", size=24, overlap=8),
}
ENGINES = ("opensearch", "elasticsearch", "embedded")


@pytest.fixture(scope="module")
def engines(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, tuple[BackendCase, str]]]:
    """Each engine with the corpus ingested under one alias per chunking configuration
    (the ``standard`` analyzer, which every engine under test has: equal text analysis)."""
    folder = tmp_path_factory.mktemp("passages")
    corpus = folder / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / f"{name}.md").write_text(text, encoding="utf-8")
    cases: dict[str, tuple[BackendCase, str]] = {}
    try:
        for kind in ENGINES:
            case = open_case(request, kind, folder / kind)
            for config_name, chunking in CONFIGS.items():
                alias = f"{case.alias}-{config_name}"
                options = IngestOptions(alias=alias, chunking=chunking, analyzer="standard")
                ingest(corpus, case.backend, options)
                cases[f"{kind}/{config_name}"] = (case, alias)
        yield cases
    finally:
        for case, alias in cases.values():
            purge(case.backend, alias)


def _view(result: SearchResult) -> list[dict[str, Any]]:
    return [p.model_dump(exclude={"tokens"}) | {"tokens": p.tokens} for p in result.passages]


@pytest.mark.opensearch
@pytest.mark.elasticsearch
@pytest.mark.parametrize("config", list(CONFIGS))
def test_the_same_plan_gives_the_same_passages_on_every_engine(
    engines: dict[str, tuple[BackendCase, str]], config: str
) -> None:
    for query in QUERIES:
        for context in REQUESTS:
            seen: dict[str, list[dict[str, Any]]] = {}
            for kind in ENGINES:
                case, alias = engines[f"{kind}/{config}"]
                searcher = Searcher(case.backend, alias)
                result = searcher.search(query, k=3, mode="bm25", context=context)
                assert result.context is not None and result.context.tokens <= context.budget
                assert result.passages, f"{kind}: no passage for {query!r}"
                seen[kind] = _view(result)
            assert seen["elasticsearch"] == seen["opensearch"], (query, context)
            assert seen["embedded"] == seen["opensearch"], (query, context)


@pytest.mark.opensearch
@pytest.mark.elasticsearch
def test_passages_are_the_documents_text_over_their_span(
    engines: dict[str, tuple[BackendCase, str]],
) -> None:
    for key, (case, alias) in engines.items():
        searcher = Searcher(case.backend, alias)
        for query in QUERIES:
            result = searcher.search(query, k=3, mode="bm25", context="neighbours")
            for passage in result.passages:
                source = DOCS[passage.doc_id]
                shown = "".join(source[s.start : s.end] for s in passage.segments)
                squeezed = "".join(passage.text.replace("#", "").split())
                assert squeezed == "".join(shown.replace("#", "").split()), key
                assert set(passage.hits) <= {h.chunk_id for h in result.hits}


def _counting(engine: ChunkIndex) -> tuple[ChunkIndex, list[list[SearchPlan]], list[str]]:
    """The engine under test, on the same connection, noting the plans each search sends
    and where (nothing else changes)."""
    sent: list[list[SearchPlan]] = []
    targets: list[str] = []

    class Counting(type(engine)):  # type: ignore[misc]
        def search(
            self, target: str, plans: Sequence[SearchPlan], **options: Any
        ) -> list[EngineResult]:
            sent.append(list(plans))
            targets.append(target)
            return super().search(target, plans, **options)

    twin = copy.copy(engine)
    twin.__class__ = Counting
    return twin, sent, targets


@pytest.mark.opensearch
@pytest.mark.elasticsearch
def test_a_search_with_a_context_sends_one_extra_request_to_the_generation_that_answered(
    engines: dict[str, tuple[BackendCase, str]],
) -> None:
    for kind in ENGINES:
        case, alias = engines[f"{kind}/structural"]
        counting, sent, targets = _counting(case.backend)
        searcher = Searcher(counting, alias, enforce_access=False)
        plain = searcher.search(QUERIES[0], k=3, mode="bm25")
        assert len(sent) == 1 and not plain.passages and plain.context is None
        sent.clear()
        targets.clear()
        result = searcher.search(QUERIES[0], k=3, mode="bm25", context="section")
        assert len(sent) == 2, kind  # the search, then the one context request
        (context_plan,) = sent[1]
        assert context_plan.guards == sent[0][0].guards
        assert result.context is not None and result.context.requests == 1
        assert result.index == case.backend.alias_target(alias) != alias
        assert targets == [alias, result.index]  # the generation that answered, not the alias
        sent.clear()
        request = ContextRequest(kind="neighbours", neighbours=0)
        searcher.search(QUERIES[0], k=3, mode="bm25", context=request)
        assert len(sent) == 1  # nothing to read around the hits: no request


# --------------------------------------------------------------------------- access


def _write_document(
    backend: ChunkIndex, generation: str, doc_id: str, text: str, scopes: dict[int, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The document's chunks as ingest would store them, chunk ``i`` with ``scopes[i]``
    (tenant, ACL) replacing its own."""
    doc = Document(
        doc_id=doc_id, source_path=f"{doc_id}.md", source_version="v1", title="", text=text
    )
    chunks = chunk_document(doc, ChunkingConfig(strategy="structural", max_tokens=20))
    sources = [chunk_source(c, generation) | scopes.get(c.chunk_index, {}) for c in chunks]
    backend.write(generation, [Put(s["chunk_id"], s) for s in sources])
    backend.refresh(generation)
    return sources


SECRET = "The merger with Globex closes on the first of March at nine dollars a share."
SCOPED = (
    "The board met on Monday and approved the annual budget for the coming year.\n\n"
    f"{SECRET}\n\n"
    "The board also approved the umbrella renewal for the coming year at the same limit.\n"
)


@pytest.mark.parametrize("kind", BACKEND_PARAMS)
def test_a_neighbour_the_caller_may_not_see_never_appears(
    request: pytest.FixtureRequest, tmp_path: Path, kind: str
) -> None:
    case = open_case(request, kind, tmp_path)
    generation = f"{case.alias}-0123abcd-1"
    case.backend.create_generation(generation, generation_body(kind), bulk_loading=False)
    case.backend.move_alias(case.alias, generation, None)
    try:
        sources = _write_document(
            case.backend, generation, "minutes", SCOPED, {1: {"acl": ["board"]}, 2: {}}
        )
        assert sources[1]["body"] == SECRET
        searcher = Searcher(case.backend, case.alias)
        for context in ("neighbours", "section", ContextRequest(kind="neighbours", neighbours=3)):
            result = searcher.search("board approved coming year", context=context)
            assert {h.chunk_id for h in result.hits} <= {
                sources[0]["chunk_id"],
                sources[2]["chunk_id"],
            }
            assert result.passages
            for passage in result.passages:
                assert "Globex" not in passage.text and sources[1]["chunk_id"] not in passage.chunks
            # the chunks on either side of the hidden one are not joined across it
            assert len(result.passages) == len(result.hits)
        allowed = searcher.search("board approved coming year", acl=["board"], context="neighbours")
        assert any("Globex" in p.text for p in allowed.passages)
    finally:
        purge(case.backend, case.alias)


@pytest.mark.parametrize("kind", BACKEND_PARAMS)
def test_a_neighbour_of_another_tenant_never_appears(
    request: pytest.FixtureRequest, tmp_path: Path, kind: str
) -> None:
    case = open_case(request, kind, tmp_path)
    generation = f"{case.alias}-0123abcd-1"
    case.backend.create_generation(generation, generation_body(kind), bulk_loading=False)
    case.backend.move_alias(case.alias, generation, None)
    try:
        acme = {"tenant": "acme"}
        sources = _write_document(
            case.backend, generation, "minutes", SCOPED, {0: acme, 1: {"tenant": "globex"}, 2: acme}
        )
        result = Searcher(case.backend, case.alias).search(
            "board approved coming year", tenant="acme", context="section"
        )
        assert result.passages
        assert all("Globex" not in p.text for p in result.passages)
        assert all(sources[1]["chunk_id"] not in p.chunks for p in result.passages)
    finally:
        purge(case.backend, case.alias)


# --------------------------------------------------------------------------- async


@pytest.mark.opensearch
@pytest.mark.elasticsearch
def test_the_async_searcher_gives_the_same_passages(
    engines: dict[str, tuple[BackendCase, str]],
) -> None:
    for kind in ENGINES:
        case, alias = engines[f"{kind}/structural"]
        sync = Searcher(case.backend, alias).search(QUERIES[1], k=3, mode="bm25", context="section")

        async def run(case: BackendCase = case, alias: str = alias) -> SearchResult:
            searcher = async_searcher(case, alias)
            try:
                return await searcher.search(QUERIES[1], k=3, mode="bm25", context="section")
            finally:
                await searcher.close()

        awaited = asyncio.run(run())
        assert _view(awaited) == _view(sync), kind
        assert awaited.context is not None and awaited.context.requests == 1


# --------------------------------------------------------------------------- the command


@pytest.mark.opensearch
@pytest.mark.elasticsearch
def test_the_search_command_prints_passages_beside_hits(
    engines: dict[str, tuple[BackendCase, str]],
) -> None:
    for kind in ENGINES:
        case, alias = engines[f"{kind}/structural"]
        args, env = case.cli()
        common = ["search", QUERIES[0], "--alias", alias, "--k", "3", *args]
        shown = CliRunner().invoke(
            app, [*common, "--context", "neighbours", "--budget", "40", "--json"], env=env
        )
        assert shown.exit_code == 0, shown.output
        payload = json.loads(shown.output)
        assert payload["hits"] and payload["passages"]
        for passage in payload["passages"]:
            assert {"doc_id", "text", "span", "breadcrumb", "pages", "hits"} <= set(passage)
        assert sum(p["tokens"] for p in payload["passages"]) <= 40
        assert payload["context"]["budget"] == 40
        table = CliRunner().invoke(
            app, [*common, "--context", "section", "--budget", "30"], env=env
        )
        assert table.exit_code == 0, table.output
        assert "passages:" in table.output and "of 30 tokens" in table.output
        refused = CliRunner().invoke(app, [*common, "--context", "chapter"], env=env)
        assert refused.exit_code != 0 and "--context" in str(refused.exception)


def test_hybrid_hits_are_expanded_as_lexical_ones(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / f"{name}.md").write_text(text, encoding="utf-8")
    engine = EmbeddedIndex(tmp_path / "index")
    embedder = hashed()
    options = IngestOptions(alias="hybrid", chunking=CONFIGS["structural"], embedder=embedder)
    ingest(corpus, engine, options)
    searcher = Searcher(engine, "hybrid", embedder=embedder)
    result = searcher.search(QUERIES[1], k=3, mode="hybrid", context="neighbours")
    assert result.mode == "hybrid" and result.passages and result.context is not None
    assert {h for p in result.passages for h in p.hits} == {h.chunk_id for h in result.hits}
    assert result.context.requests == 1 and result.context.chunks_read > 0
