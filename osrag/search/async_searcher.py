"""Search from asyncio code (a FastAPI or aiohttp service): :class:`AsyncSearcher`.

It is a :class:`~osrag.search.searcher.Searcher` with another transport, not a second searcher:
planning, the alias's access policy, the fail-closed tenant and ACL guards, the amount
ladder (:mod:`osrag.search.ladder`) and fusion are the Searcher's own, called in the same
order. What
differs is who waits:

* every round trip is the engine's :meth:`~osrag.engines.base.ChunkIndex.asearch`: on
  OpenSearch and Elasticsearch the ``_msearch`` (and the alias lookup of a search without
  hits) is awaited on the library's asyncio client (``AsyncOpenSearch``,
  ``AsyncElasticsearch``; both need ``aiohttp``); the embedded index, with no network to
  wait on, searches in a worker thread;
* the reads that are cached — the generation record (every
  :data:`~osrag.search.searcher.GENERATION_CACHE_SECONDS`), the engine's fusion capability
  (once), the label vocabulary (:mod:`osrag.search.meaning`) — and the query's and the
  named quantities' embeddings (CPU work) run in a worker thread
  (:func:`asyncio.to_thread`) on the sync engine, so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any

from osrag.config import DEFAULT_ALIAS, Settings, load_settings
from osrag.engines import open_index
from osrag.engines.base import ChunkIndex
from osrag.models import AmountStep, QuerySpec, SearchResult
from osrag.search.ladder import Ladder
from osrag.search.query import AnalyzedQuery
from osrag.search.searcher import (
    Ran,
    Round,
    Searcher,
    answering_index,
    needs_text_fallback,
    shape_result,
    with_passages,
    without_words,
)


class AsyncSearcher:
    """``await AsyncSearcher.from_settings(settings, "osrag-chunks").search("$300K umbrella")``.

    ``index`` is the sync engine (:func:`osrag.engines.open_index`, or an opensearch-py /
    elasticsearch-py client); ``client`` an asyncio client of the same cluster (attached to
    the engine: :meth:`~osrag.engines.base.ChunkIndex.attach_async`), or None: the engine
    awaits as it is (a worker thread for each search where it has no asyncio client, as
    the embedded index). The other keywords are the
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
        if client is not None:
            self.searcher.index.attach_async(client)

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
        settings = settings if settings is not None else load_settings()
        return cls(open_index(settings, backend=backend, asynchronous=True), alias, **options)

    @property
    def index(self) -> ChunkIndex:
        return self.searcher.index

    @property
    def alias(self) -> str:
        return self.searcher.alias

    async def plan(self, text_or_spec: str | QuerySpec, **overrides: Any) -> AnalyzedQuery:
        """The Searcher's plan (the generation record read in a thread when not cached; the
        named quantities matched to the alias's labels in a thread: it may read the label
        vocabulary and embed the names)."""
        if self.searcher.generation_stale():
            await asyncio.to_thread(self.searcher.generation)
        plan = self.searcher.plan_by_keys(text_or_spec, **overrides)
        if self.searcher.meaning.needed(plan):
            plan = await asyncio.to_thread(self.searcher.with_labels, plan)
        return plan

    async def search(self, text_or_spec: str | QuerySpec, **overrides: Any) -> SearchResult:
        """:meth:`Searcher.search <osrag.search.searcher.Searcher.search>`, awaited: the same
        keywords (``tenant=``, ``acl=``, ``k=``, ``mode=``, …), the same result."""
        started = time.perf_counter()
        plan = await self.plan(text_or_spec, **overrides)
        ladder: Ladder[Ran] = Ladder(plan)
        vector, sent = await self._requests(plan, ladder.step)
        ran = await self._run(plan, sent)
        while (step := ladder.after(ran)) is not None:
            ran = await self._run(plan, await self._request(plan, vector, step=step))
        ran = ladder.settled(ran)
        text_fallback = needs_text_fallback(plan, ran, ladder.fallback)
        if text_fallback:
            wordless = without_words(plan)
            ran = await self._run(wordless, await self._request(wordless, vector, step=ladder.step))
        answered = answering_index(ran) or await self.index.aalias_target(self.alias)
        load = self.searcher.take_embedder_load()
        result = shape_result(
            plan,
            ran,
            ladder,
            answered or self.alias,
            started,
            text_fallback=text_fallback,
            load=load,
        )
        if plan.spec.context is not None:
            expansion = self.searcher.expansion(plan, vector, ran, step=ladder.step)
            answer = None
            if expansion.plan is not None:
                (answer,) = await self.index.asearch(result.index, [expansion.plan])
            with_passages(result, expansion, answer, started, load)
        return result

    async def _requests(
        self, plan: AnalyzedQuery, step: AmountStep | None
    ) -> tuple[list[float] | None, Round]:
        """The query's vector and the first round trip's bodies (in a thread where a
        vector is computed, or the engine's fusion pipeline may be looked up)."""
        if plan.spec.mode in ("bm25", "auto"):
            return None, self.searcher.requests(plan, None, step=step)

        def prepare() -> tuple[list[float] | None, Round]:
            vector = self.searcher.query_vector(plan)
            return vector, self.searcher.requests(plan, vector, step=step)

        return await asyncio.to_thread(prepare)

    async def _request(
        self, plan: AnalyzedQuery, vector: list[float] | None, *, step: AmountStep | None
    ) -> Round:
        if plan.spec.mode in ("bm25", "auto"):
            return self.searcher.requests(plan, vector, step=step)
        return await asyncio.to_thread(self.searcher.requests, plan, vector, step=step)

    async def _run(self, plan: AnalyzedQuery, sent: Round) -> Ran:
        answers = await self.index.asearch(
            self.alias, sent.plans, search_type=self.searcher.search_type
        )
        return self.searcher.answered(plan, sent, answers)

    async def close(self) -> None:
        """Close the engine (and its asyncio client)."""
        await self.index.aclose()

    async def __aenter__(self) -> AsyncSearcher:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
