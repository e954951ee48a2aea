"""Requests in flight through :class:`osrag.AsyncSearcher` (one asyncio client) and,
side by side, through one sync :class:`osrag.Searcher` shared by as many threads:
latency and throughput at each concurrency (for benchmarks/query.py)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from _cluster import client, summary
from opensearchpy import AsyncOpenSearch, OpenSearch

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.models import QuerySpec
from osrag.search.async_searcher import AsyncSearcher
from osrag.search.searcher import Searcher


async def _at(searcher: AsyncSearcher, specs: list[QuerySpec], in_flight: int) -> dict[str, Any]:
    pending = iter(specs)
    latencies: list[float] = []

    async def worker() -> None:
        for spec in pending:  # each worker takes the next spec: ``in_flight`` at a time
            started = time.perf_counter()
            await searcher.search(spec)
            latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    wall = time.perf_counter() - started
    return {"in_flight": in_flight, **summary(latencies), "per_second": round(len(specs) / wall, 1)}


async def _all(
    url: str, alias: str, specs: list[QuerySpec], levels: list[int]
) -> list[dict[str, Any]]:
    engine = OpenSearchIndex(client(url))  # the generation record is read through it
    asynchronous = AsyncOpenSearch(url, timeout=120, maxsize=max(levels))
    async with AsyncSearcher(engine, alias, client=asynchronous, enforce_access=False) as searcher:
        for spec in specs[:20]:  # warm-up: connections, the generation record
            await searcher.search(spec)
        return [await _at(searcher, specs, level) for level in levels]


def _threaded(searcher: Searcher, specs: list[QuerySpec], threads: int) -> dict[str, Any]:
    def one(spec: QuerySpec) -> float:
        started = time.perf_counter()
        searcher.search(spec)
        return (time.perf_counter() - started) * 1000

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        latencies = list(pool.map(one, specs))
    wall = time.perf_counter() - started
    return {"in_flight": threads, **summary(latencies), "per_second": round(len(specs) / wall, 1)}


def in_threads(url: str, alias: str, specs: list[QuerySpec], levels: list[int]) -> list[Any]:
    engine = OpenSearchIndex(OpenSearch(url, timeout=120, http_compress=False, maxsize=max(levels)))
    searcher = Searcher(engine, alias, enforce_access=False)
    for spec in specs[:20]:
        searcher.search(spec)
    return [_threaded(searcher, specs, level) for level in levels]


def in_flight(
    url: str, alias: str, texts: list[str], amount: int, levels: list[int], rounds: int
) -> list[dict[str, Any]]:
    """p50/p99 and searches per second at each level of ``levels`` in flight: the texts
    without and with the amount filter, ``rounds`` times; the sync Searcher in as many
    threads under ``threads``."""
    specs = [
        spec
        for _ in range(rounds)
        for text in texts
        for spec in (
            QuerySpec(text=text, amount_filter=False, unrestricted=True),
            QuerySpec(text=text, amount=amount, unrestricted=True),
        )
    ]
    awaited = asyncio.run(_all(url, alias, specs, levels))
    threaded = in_threads(url, alias, specs, levels)
    return [a | {"threads": t} for a, t in zip(awaited, threaded, strict=True)]
