"""Searches of the embedded index, on one searcher per call (one point in time).

* :meth:`EmbeddedSearcher.search`: typed plans, compiled straight to tantivy
  (:mod:`~osrag.engines.embedded_plan`) and answered as osrag's hit records
  (:mod:`~osrag.engines.embedded_plans`);
* :meth:`EmbeddedSearcher.count` and :meth:`EmbeddedSearcher.chunk_ids`: typed plan
  filters compiled the same way, counted or listed in chunk-id order.

The ranking primitives the plan runner builds on live here: the exact tie order,
collapse on ``doc_id``, stored sources fetched by chunk id, and the id fields read
from the index's columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import tantivy
from tantivy import Query

from osrag.engines.embedded_generation import Generation, stored_source
from osrag.engines.embedded_plan import PlanCompiler
from osrag.engines.embedded_plans import PlanRunner
from osrag.engines.embedded_response import Ranked
from osrag.engines.embedded_schema import ID_FIELD, ChunkSchema
from osrag.schema.filters import Filter
from osrag.schema.plan import EngineResult, SearchPlan

MAX_COLLAPSE_DOCS = 65_535


class EmbeddedSearcher:
    """Answers typed plans and filters on the generation ``resolve`` finds for a target."""

    def __init__(self, schema: ChunkSchema, resolve: Callable[[str], Generation]) -> None:
        self.schema = schema
        self._tantivy_schema = schema.tantivy_schema()
        self._resolve = resolve

    def search(self, target: str, plans: Sequence[SearchPlan]) -> list[EngineResult]:
        """Every plan on one searcher (one point in time), compiled straight to tantivy."""
        generation = self._resolve(target)
        runner = PlanRunner(self, generation, generation.searcher())
        return [runner.run(plan) for plan in plans]

    @staticmethod
    def count_matches(searcher: tantivy.Searcher, query: Query) -> int:
        found = searcher.search(query, limit=1, count=True)
        return int(found.count or 0)  # type: ignore[attr-defined]  # not in tantivy's stubs

    def filtered(
        self, generation: Generation, searcher: tantivy.Searcher, node: Filter | None
    ) -> Query:
        """A typed filter as a tantivy query (every chunk without one)."""
        if node is None:
            return Query.all_query()
        return PlanCompiler(self.schema, generation.schema, generation.analyzer, searcher).filter(
            node
        )

    def count(self, target: str, node: Filter | None = None) -> int:
        generation = self._resolve(target)
        searcher = generation.searcher()
        return self.count_matches(searcher, self.filtered(generation, searcher, node))

    def chunk_ids(self, target: str, node: Filter | None = None) -> Iterator[tuple[str, str]]:
        """Every matching ``(chunk_id, doc_id)`` in chunk-id order, on one searcher. The
        ids are read from the index's id column (no stored document is read) and sorted
        here: memory holds the matching ids, not their chunks."""
        generation = self._resolve(target)
        searcher = generation.searcher()
        query = self.filtered(generation, searcher, node)
        matched = self.count_matches(searcher, query)
        if not matched:
            return
        addresses = [address for _score, address in searcher.search(query, limit=matched).hits]
        ids = generation.chunk_ids.resolve(searcher, self._tantivy_schema, addresses)
        for chunk_id in sorted(ids):
            yield chunk_id, chunk_id.rsplit("#", 2)[0]  # doc_id_of, inlined

    def sources_by_id(
        self, generation: Generation, searcher: tantivy.Searcher, chunk_ids: list[str]
    ) -> dict[str, dict[str, Any]]:
        if not chunk_ids:
            return {}
        query = Query.term_set_query(generation.schema, ID_FIELD, chunk_ids)
        found = searcher.search(query, limit=len(chunk_ids))
        sources = [self._stored(searcher, address) for _, address in found.hits]
        return {str(source.get("chunk_id")): source for source in sources}

    def ranked(
        self, generation: Generation, searcher: tantivy.Searcher, query: Query, want: int
    ) -> tuple[list[Ranked], int]:
        """The first ``want`` hits in the request's order (score, then chunk id, both
        descending), and how many documents match.

        tantivy's top-k returns tied scores in internal order, so the group tied at the
        cut-off may continue beyond it: the fetch widens until a lower score follows the
        last wanted hit (or nothing does), then the fetched hits are ordered exactly.
        """
        if want <= 0:
            found = searcher.search(query, limit=1, count=True)
            return [], int(found.count or 0)  # type: ignore[attr-defined]
        limit = want + 1
        while True:
            found = searcher.search(query, limit=limit, count=True)
            total = int(found.count or 0)  # type: ignore[attr-defined]
            scored: list[tuple[float, tantivy.DocAddress]] = found.hits
            if len(scored) < limit or scored[-1][0] < scored[want - 1][0]:
                break
            # a tie group is usually a few hits (duplicated passages): widen a little first,
            # then fourfold (a filter-only query ties every hit)
            grown = limit + max(64, want // 8) if limit == want + 1 else limit * 4
            limit = min(grown, max(total, limit + 1))
        addresses = [address for _score, address in scored]
        ids = generation.chunk_ids.resolve(searcher, self._tantivy_schema, addresses)
        ranked = sorted(
            zip([score for score, _address in scored], ids, addresses, strict=True), reverse=True
        )
        return ranked[:want], total

    @staticmethod
    def fast_sources(
        searcher: tantivy.Searcher, page: list[Ranked], fields: frozenset[str]
    ) -> list[dict[str, Any]]:
        """``_source`` of the id fields from the index's columns: no stored document is read."""
        addresses = [address for _score, _id, address in page]
        ids = [chunk_id for _score, chunk_id, _address in page]
        sources: list[dict[str, Any]] = [{} for _ in page]
        if "chunk_id" in fields:
            for source, chunk_id in zip(sources, ids, strict=True):
                source["chunk_id"] = chunk_id
        if "doc_id" in fields:
            for source, chunk_id in zip(sources, ids, strict=True):
                source["doc_id"] = chunk_id.rsplit("#", 2)[0]  # doc_id_of, inlined
        if "span" in fields:
            starts = searcher.fast_field_values("span.start", addresses)
            ends = searcher.fast_field_values("span.end", addresses)
            for source, start, end in zip(sources, starts, ends, strict=True):
                source["span"] = {"start": start, "end": end}
        if "chunk_index" in fields:
            numbers = searcher.fast_field_values("chunk_index", addresses)
            for source, number in zip(sources, numbers, strict=True):
                source["chunk_index"] = number
        return sources

    @staticmethod
    def _stored(searcher: tantivy.Searcher, address: tantivy.DocAddress) -> dict[str, Any]:
        return stored_source(searcher, address)

    def collapsed(
        self,
        generation: Generation,
        searcher: tantivy.Searcher,
        query: Query,
        offset: int,
        size: int,
    ) -> tuple[list[Ranked], int]:
        """The best hit of each document, documents ranked by it (OpenSearch's ``collapse``),
        and how many chunks match (``hits.total`` counts chunks under collapse too)."""
        want = offset + size
        limit = want + want // 4 + 16  # most documents have one chunk among the best hits
        while True:
            ranked, total = self.ranked(generation, searcher, query, limit)
            best: dict[str, Ranked] = {}
            for hit in ranked:
                best.setdefault(hit[1].rsplit("#", 2)[0], hit)  # doc_id_of, inlined
            if len(best) >= want or limit >= total or limit >= MAX_COLLAPSE_DOCS * 16:
                return list(best.values())[offset:want], total
            # widen by the chunks per document seen so far, at least twofold
            per_document = len(ranked) / max(len(best), 1)
            limit = max(2 * limit, int(want * per_document * 1.25) + 16)
