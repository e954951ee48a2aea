"""examples/search_api: the FastAPI app answers through httpx (its ASGI transport) from the
real OpenSearch node, scoped by the caller's headers."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import httpx
from opensearchpy import AsyncOpenSearch, OpenSearch

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.async_searcher import AsyncSearcher

ROOT = Path(__file__).resolve().parents[1].parent
DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location(
        "search_api_app", ROOT / "examples" / "search_api" / "app.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _get(app: Any, path: str, headers: dict[str, str]) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://api") as http:
                return [
                    await http.get(path, headers=headers),
                    await http.get(path),  # the same question without a scope
                ]

    return asyncio.run(run())


def test_the_example_answers_in_the_callers_scope_and_refuses_without_one(
    opensearch_url: str, index_prefix: str
) -> None:
    alias = f"{index_prefix}-api"
    ingest(DATA, OpenSearchIndex(OpenSearch(opensearch_url)), IngestOptions(alias=alias))

    def searcher() -> AsyncSearcher:
        index = OpenSearchIndex(OpenSearch(opensearch_url))
        return AsyncSearcher(index, alias, client=AsyncOpenSearch(opensearch_url))

    app = _example().create_app(searcher)
    scoped, unscoped = _get(
        app,
        "/search?q=What does the $300K umbrella cover?&k=5",
        {"X-Tenant": "acme", "X-Groups": "agents, underwriters"},
    )
    assert scoped.status_code == 200, scoped.text
    body = scoped.json()
    assert body["filters"] == ["amount", "tenant", "acl"] and not body["fallback"]
    assert body["amount"]["minor_units"] == 30_000_000
    assert 0 < len(body["hits"]) <= 5
    assert all(30_000_000 in hit["amounts"] for hit in body["hits"])
    assert {hit["doc_id"] for hit in body["hits"]} <= {
        "umb-300k-classic",
        "umb-300k-plus",
        "umb-300k-landlord",
        "umb-300k-cross-border",
    }
    assert unscoped.status_code == 400 and "tenant" in unscoped.json()["detail"]

    globex, _ = _get(
        app, "/search?q=umbrella $300,000", {"X-Tenant": "globex", "X-Groups": "agents"}
    )
    assert globex.status_code == 200
    assert {h["doc_id"] for h in globex.json()["hits"]} == {"umb-eur-300k"}


def test_the_example_builds_its_searcher_from_the_environment(
    opensearch_url: str, index_prefix: str, monkeypatch: Any
) -> None:
    alias = f"{index_prefix}-env"
    ingest(DATA, OpenSearchIndex(OpenSearch(opensearch_url)), IngestOptions(alias=alias))
    monkeypatch.setenv("OSRAG_URL", opensearch_url)
    monkeypatch.setenv("OSRAG_ALIAS", alias)
    app = _example().create_app()
    (answer, _) = _get(
        app,
        "/search?q=umbrella with a $3 million limit&k=3",
        {"X-Tenant": "acme", "X-Groups": "agents"},
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["hits"] and not body["fallback"]
    assert {h["doc_id"] for h in body["hits"]} == {"umb-3m-classic"}
    assert all(300_000_000 in h["amounts"] for h in body["hits"])
