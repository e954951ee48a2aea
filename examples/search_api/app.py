"""A search API on osrag: one endpoint, the caller's scope from the request's headers.

    OSRAG_URL=http://localhost:9200 uvicorn app:app      # in examples/search_api/
    curl -H 'X-Tenant: acme' -H 'X-Groups: agents' 'localhost:8000/search?q=$300K+umbrella&k=5'

The tenant and groups come from headers your gateway sets after it has authenticated the
caller (never from the caller's own query string). Without ``X-Tenant`` the caller sees
only documents that carry no tenant, and on an alias that holds tenants' documents the
search is refused (400); without ``X-Groups`` it sees only documents without an ACL.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import FastAPI, Header, HTTPException, Query, Request

from osrag import AsyncSearcher, OsragError, QueryError, load_settings


def _from_environment() -> AsyncSearcher:
    alias = os.environ.get("OSRAG_ALIAS", "osrag-chunks")
    return AsyncSearcher.from_settings(load_settings(), alias)


def create_app(searcher: Callable[[], AsyncSearcher] = _from_environment) -> FastAPI:
    """The API over the searcher ``searcher()`` makes at start-up (closed at shut-down)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.searcher = searcher()
        try:
            yield
        finally:
            await app.state.searcher.close()

    app = FastAPI(title="osrag search", lifespan=lifespan)

    @app.get("/search")
    async def search(
        request: Request,
        q: Annotated[str, Query(min_length=1, max_length=2000)],
        k: Annotated[int, Query(ge=1, le=100)] = 10,
        x_tenant: Annotated[str | None, Header()] = None,
        x_groups: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        groups = [g.strip() for g in (x_groups or "").split(",") if g.strip()]
        try:
            result = await request.app.state.searcher.search(
                q, k=k, tenant=x_tenant or None, acl=groups or None
            )
        except QueryError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from None
        except OsragError as exc:  # the cluster is unreachable or refused: not the caller's fault
            raise HTTPException(status_code=503, detail=str(exc)) from None
        return {
            "query": result.query,
            "amount": result.amount.model_dump(mode="json") if result.amount else None,
            "filters": [f.name for f in result.filters_applied],
            "fallback": result.fallback,
            "candidates": result.candidate_count,
            "hits": [
                {
                    "chunk_id": hit.chunk_id,
                    "doc_id": hit.doc_id,
                    "score": hit.score,
                    "breadcrumb": hit.breadcrumb,
                    "body": hit.body,
                    "amounts": hit.amounts,
                    "pages": hit.pages,
                }
                for hit in result.hits
            ],
        }

    return app


app = create_app()
