"""The ranking primitives of the embedded engine, on one tantivy searcher: the exact tie
order (score, then chunk id, both descending, as OpenSearch sorts osrag's requests),
collapse on ``doc_id``, stored sources fetched by chunk id, and the id fields read from the
index's columns instead of stored documents."""

from __future__ import annotations

from typing import Any

import tantivy
from tantivy import Query

from osrag.engines.embedded.generation import Generation, stored_source
from osrag.engines.embedded.response import Ranked
from osrag.engines.embedded.schema import ID_FIELD, ChunkSchema

MAX_COLLAPSE_DOCS = 65_535


def count_matches(searcher: tantivy.Searcher, query: Query) -> int:
    """How many documents ``query`` matches."""
    found = searcher.search(query, limit=1, count=True)
    return int(found.count or 0)  # type: ignore[attr-defined]  # not in tantivy's stubs


class Ranking:
    """Ranked hits and their sources on the generations of one chunk schema."""

    def __init__(self, schema: ChunkSchema) -> None:
        self.schema = schema
        self.tantivy_schema = schema.tantivy_schema()

    count_matches = staticmethod(count_matches)

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
        ids = generation.chunk_ids.resolve(searcher, self.tantivy_schema, addresses)
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
