"""Async searchers on the engines under test (:mod:`backend_cases`), and the result
comparison the async and framework tests share."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from backend_cases import BackendCase

from osrag.embedding import CallableEmbedder
from osrag.models import SearchResult
from osrag.search.async_searcher import AsyncSearcher


def async_client(case: BackendCase) -> Any:
    """An asyncio client of the case's cluster (None for the embedded index). Made inside
    the event loop that uses it: an aiohttp session belongs to one loop."""
    if case.kind == "opensearch":
        from opensearchpy import AsyncOpenSearch

        return AsyncOpenSearch(case.url, timeout=60)
    if case.kind == "elasticsearch":
        from elasticsearch import AsyncElasticsearch

        return AsyncElasticsearch(case.url, request_timeout=60)
    return None


def async_searcher(case: BackendCase, alias: str, **options: Any) -> AsyncSearcher:
    return AsyncSearcher(case.build(), alias, client=async_client(case), **options)


def hashed(dimension: int = 8) -> CallableEmbedder:
    """A deterministic stand-in for an embedding service (a plain callable)."""

    def embed(texts: list[str]) -> np.ndarray:
        rows = [
            [b / 255.0 + 0.01 for b in hashlib.sha256(t.encode()).digest()[:dimension]]
            for t in texts
        ]
        return np.array(rows, dtype=np.float32)

    return CallableEmbedder(embed, name="hashed", version="1", dimension=dimension)


def assert_same(one: SearchResult, other: SearchResult) -> None:
    """The same answer: hits in the same order with the same scores (float tolerance) and
    fields, the same filters, fallback, counts and generation (not the timings, nor
    whether this searcher loaded its embedder)."""
    assert [h.chunk_id for h in one.hits] == [h.chunk_id for h in other.hits]
    assert [h.score for h in one.hits] == pytest.approx(
        [h.score for h in other.hits], rel=1e-6, abs=1e-9
    )
    timings = {"took_ms", "embedder_load_ms", "embedder_note", "hits"}  # each searcher's own
    left = one.model_dump(exclude=timings)
    right = other.model_dump(exclude=timings)
    assert left == right
    for a, b in zip(one.hits, other.hits, strict=True):
        assert a.model_dump(exclude={"score"}) == b.model_dump(exclude={"score"})
