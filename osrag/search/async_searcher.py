"""Search from asyncio code (a FastAPI or aiohttp service): :class:`AsyncSearcher`.

It is a :class:`~osrag.search.searcher.Searcher` with another transport, not a second searcher:
planning, the alias's access policy, the fail-closed tenant and ACL guards, the amount
fallback and fusion are the Searcher's own methods, called in the same order. What
differs is who waits:

* on OpenSearch and Elasticsearch every search's ``_msearch`` (and the alias lookup of
  a search without hits) is awaited on the library's asyncio client
  (``AsyncOpenSearch``, ``AsyncElasticsearch``; both need ``aiohttp``);
* the reads that are cached — the generation record (every
  :data:`~osrag.search.searcher.GENERATION_CACHE_SECONDS`), the engine's fusion capability
  (once) — and the query's embedding (CPU work) run in a worker thread
  (:func:`asyncio.to_thread`) on the sync engine, so the event loop never blocks;
* the embedded index has no network to wait on: each search is the sync Searcher's,
  in a worker thread.
"""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any

from osrag.config import DEFAULT_ALIAS, Settings, load_settings
from osrag.engines import choose_backend, open_index
from osrag.engines.base import ChunkIndex
from osrag.engines.rest.compiler import compile_plans, read_plans
from osrag.models import QuerySpec, SearchResult
from osrag.search.query import QueryPlan
from osrag.search.searcher import (
    Ran,
    Round,
    Searcher,
    answering_index,
    needs_fallback,
    needs_text_fallback,
    shape_result,
    without_words,
)


class AsyncSearcher:
    """``await AsyncSearcher.from_settings(settings, "osrag-chunks").search("$300K umbrella")``.

    ``index`` is the sync engine (:func:`osrag.engines.open_index`, or an opensearch-py /
    elasticsearch-py client); ``client`` an asyncio client of the same cluster, or None to
    run every search in a worker thread (the embedded index). The other keywords are the
    :class:`~osrag.search.searcher.Searcher`'s.
    """

    def __init__(
        self,
        index: Any,
        alias: str = DEFAULT_ALIAS,
        *,
        client: Any = None,
        **options: Any,
    ) -> None:
        self.searcher = Searcher(index, alias, **options)
        """The sync searcher whose plan, guards and fusion every search runs."""
        self.transport: Any = None
        if client is not None:
            from osrag.engines.rest.async_search import AsyncRestSearch
            from osrag.engines.rest.index import RestIndex

            if not isinstance(self.searcher.index, RestIndex):
                raise TypeError(
                    f"an async client goes with an OpenSearch or Elasticsearch engine, not "
                    f"{type(self.searcher.index).__name__}"
                )
            self.transport = AsyncRestSearch(self.searcher.index, client)

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        alias: str = DEFAULT_ALIAS,
        *,
        backend: str | None = None,
        **options: Any,
    ) -> AsyncSearcher:
        """The engine ``settings`` name (as :func:`osrag.engines.open_index` chooses it) with
        an asyncio client beside it when it is a cluster."""
        from osrag.engines.rest.async_search import connect_async

        settings = settings if settings is not None else load_settings()
        choice = choose_backend(settings, backend)
        index = open_index(settings, choice=choice)
        client = connect_async(settings, choice.name) if choice.name != "embedded" else None
        return cls(index, alias, client=client, **options)

    @property
    def index(self) -> ChunkIndex:
        return self.searcher.index

    @property
    def alias(self) -> str:
        return self.searcher.alias

    async def plan(self, text_or_spec: str | QuerySpec, **overrides: Any) -> QueryPlan:
        """The Searcher's plan (the generation record read in a thread when not cached)."""
        if self.searcher.generation_stale():
            await asyncio.to_thread(self.searcher.generation)
        return self.searcher.plan(text_or_spec, **overrides)

    async def search(self, text_or_spec: str | QuerySpec, **overrides: Any) -> SearchResult:
        """:meth:`Searcher.search <osrag.search.searcher.Searcher.search>`, awaited: the same
        keywords (``tenant=``, ``acl=``, ``size=``, ``mode=``, …), the same result."""
        if self.transport is None:
            return await asyncio.to_thread(self.searcher.search, text_or_spec, **overrides)
        started = time.perf_counter()
        plan = await self.plan(text_or_spec, **overrides)
        vector, sent = await self._requests(plan)
        ran = await self._run(plan, sent)
        amount_candidates = ran.candidates if plan.has_amount_filter else None
        fallback = needs_fallback(plan, ran)
        if fallback:
            ran = await self._run(plan, await self._request(plan, vector, drop_amount=True))
        text_fallback = needs_text_fallback(plan, ran, fallback)
        if text_fallback:
            wordless = without_words(plan)
            ran = await self._run(
                wordless, await self._request(wordless, vector, drop_amount=False)
            )
        answered = answering_index(ran) or await self.transport.alias_target(self.alias)
        return shape_result(
            plan,
            ran,
            fallback,
            answered or self.alias,
            started,
            amount_candidates,
            text_fallback=text_fallback,
        )

    async def _requests(self, plan: QueryPlan) -> tuple[list[float] | None, Round]:
        """The query's vector and the first round trip's bodies (in a thread where a
        vector is computed, or the engine's fusion pipeline may be looked up)."""
        if plan.spec.mode in ("bm25", "auto"):
            return None, self.searcher.requests(plan, None)

        def prepare() -> tuple[list[float] | None, Round]:
            vector = self.searcher.query_vector(plan)
            return vector, self.searcher.requests(plan, vector)

        return await asyncio.to_thread(prepare)

    async def _request(
        self, plan: QueryPlan, vector: list[float] | None, *, drop_amount: bool
    ) -> Round:
        if plan.spec.mode in ("bm25", "auto"):
            return self.searcher.requests(plan, vector, drop_amount=drop_amount)
        return await asyncio.to_thread(
            self.searcher.requests, plan, vector, drop_amount=drop_amount
        )

    async def _run(self, plan: QueryPlan, sent: Round) -> Ran:
        engine = self.searcher.index
        if any(p.mode == "hybrid" for p in sent.plans):  # may look the fusion pipeline up
            bodies, compiled = await asyncio.to_thread(compile_plans, engine, sent.plans)
        else:
            bodies, compiled = compile_plans(engine, sent.plans)
        answers = await self.transport.msearch(
            self.alias, bodies, search_type=self.searcher.search_type
        )
        return self.searcher.answered(plan, sent, read_plans(compiled, answers))

    async def close(self) -> None:
        """Close the asyncio client and the sync engine."""
        if self.transport is not None:
            await self.transport.close()
        await asyncio.to_thread(self.searcher.index.close)

    async def __aenter__(self) -> AsyncSearcher:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
