"""Searches of the embedded index, on one searcher per call (one point in time).

* :meth:`EmbeddedSearcher.search`: typed plans, compiled straight to tantivy
  (:mod:`~osrag.engines.embedded.compiler`) and answered as osrag's hit records
  (:mod:`~osrag.engines.embedded.runner`);
* :meth:`EmbeddedSearcher.count` and :meth:`EmbeddedSearcher.chunk_ids`: typed plan
  filters compiled the same way, counted or listed in chunk-id order.

The ranking primitives the plan runner builds on (the exact tie order, collapse on
``doc_id``, sources fetched by chunk id or read from the index's columns) are
:mod:`~osrag.engines.embedded.ranking`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import tantivy
from tantivy import Query

from osrag.engines.embedded.compiler import PlanCompiler
from osrag.engines.embedded.generation import Generation
from osrag.engines.embedded.nested import nested_searchers
from osrag.engines.embedded.ranking import Ranking, count_matches
from osrag.engines.embedded.runner import PlanRunner
from osrag.engines.embedded.schema import ChunkSchema
from osrag.schema.filters import Filter
from osrag.schema.plan import EngineResult, SearchPlan


class EmbeddedSearcher:
    """Answers typed plans and filters on the generation ``resolve`` finds for a target."""

    def __init__(self, schema: ChunkSchema, resolve: Callable[[str], Generation]) -> None:
        self.schema = schema
        self.ranking = Ranking(schema)
        self._resolve = resolve

    def search(self, target: str, plans: Sequence[SearchPlan]) -> list[EngineResult]:
        """Every plan on one searcher (one point in time), compiled straight to tantivy."""
        generation = self._resolve(target)
        runner = PlanRunner(self.ranking, generation, generation.searcher())
        return [runner.run(plan) for plan in plans]

    def filtered(
        self, generation: Generation, searcher: tantivy.Searcher, node: Filter | None
    ) -> Query:
        """A typed filter as a tantivy query (every chunk without one)."""
        if node is None:
            return Query.all_query()
        nested = nested_searchers(generation.nested)
        compiler = PlanCompiler(
            self.schema, generation.schema, generation.analyzer, searcher, nested
        )
        return compiler.filter(node)

    def count(self, target: str, node: Filter | None = None) -> int:
        generation = self._resolve(target)
        searcher = generation.searcher()
        return count_matches(searcher, self.filtered(generation, searcher, node))

    def chunk_ids(self, target: str, node: Filter | None = None) -> Iterator[tuple[str, str]]:
        """Every matching ``(chunk_id, doc_id)`` in chunk-id order, on one searcher. The
        ids are read from the index's id column (no stored document is read) and sorted
        here: memory holds the matching ids, not their chunks."""
        generation = self._resolve(target)
        searcher = generation.searcher()
        query = self.filtered(generation, searcher, node)
        matched = count_matches(searcher, query)
        if not matched:
            return
        addresses = [address for _score, address in searcher.search(query, limit=matched).hits]
        ids = generation.chunk_ids.resolve(searcher, self.ranking.tantivy_schema, addresses)
        for chunk_id in sorted(ids):
            yield chunk_id, chunk_id.rsplit("#", 2)[0]  # doc_id_of, inlined
