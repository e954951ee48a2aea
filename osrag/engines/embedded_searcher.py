"""Searches of the embedded index, on one searcher per call (one point in time).

* :meth:`EmbeddedSearcher.search`: typed plans, compiled straight to tantivy
  (:mod:`~osrag.engines.embedded_plan`) and answered as osrag's hit records
  (:mod:`~osrag.engines.embedded_plans`);
* :meth:`EmbeddedSearcher.count` and :meth:`EmbeddedSearcher.chunk_ids`: typed plan
  filters compiled the same way, counted or listed in chunk-id order;
* :meth:`EmbeddedSearcher.msearch`: the raw access the interface keeps (engine
  tests) — query-DSL bodies
  through :mod:`~osrag.engines.dsl`, answered in OpenSearch's response shape:
  ``collapse``, ``from``/``size``, ``sort`` (``_score`` and keyword fields) with
  ``search_after``, ``_source`` includes/excludes and highlight fragments. Anything
  else is refused with a :class:`~osrag.errors.QueryError` naming it.

The ranking primitives (the exact tie order, collapse, the id fields read from the
index's columns) serve both.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import tantivy
from tantivy import Query

from osrag.engines.analyzers import Analyzer
from osrag.engines.dsl import Compiler
from osrag.engines.embedded_generation import Generation, stored_source
from osrag.engines.embedded_plan import PlanCompiler
from osrag.engines.embedded_plans import PlanRunner
from osrag.engines.embedded_response import (
    REQUEST_KEYS,
    Ranked,
    SortKey,
    fast_source,
    sort_keys,
    source_filter,
)
from osrag.engines.embedded_schema import ID_FIELD, ChunkSchema
from osrag.engines.highlight import highlight
from osrag.engines.mapping import VECTOR_FIELD
from osrag.errors import QueryError
from osrag.search.plan import EngineResult, Filter, SearchPlan
from osrag.search.query import TIE_BREAK_SORT

MAX_COLLAPSE_DOCS = 65_535


class EmbeddedSearcher:
    """Answers search bodies on the generation ``resolve`` finds for a target."""

    def __init__(self, schema: ChunkSchema, resolve: Callable[[str], Generation]) -> None:
        self.schema = schema
        self._tantivy_schema = schema.tantivy_schema()
        self._resolve = resolve

    def search(self, target: str, plans: Sequence[SearchPlan]) -> list[EngineResult]:
        """Every plan on one searcher (one point in time), compiled straight to tantivy."""
        generation = self._resolve(target)
        runner = PlanRunner(self, generation, generation.searcher())
        return [runner.run(plan) for plan in plans]

    def _compiler(self, generation: Generation, searcher: tantivy.Searcher) -> Compiler:
        return Compiler(self.schema, generation.schema, generation.analyzer, searcher)

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

    def msearch(
        self,
        target: str,
        bodies: Sequence[dict[str, Any]],
    ) -> list[dict[str, Any]]:
        """Every body on one searcher (one point in time), answered as OpenSearch does."""
        generation = self._resolve(target)
        searcher = generation.searcher()
        answers = []
        for body in bodies:
            started = time.perf_counter()
            hits, total = self._execute(generation, searcher, body)
            answers.append(
                {
                    "took": round((time.perf_counter() - started) * 1000),
                    "timed_out": False,
                    "hits": {
                        "total": {"value": total, "relation": "eq"},
                        "max_score": max((h["_score"] or 0.0 for h in hits), default=None),
                        "hits": hits,
                    },
                }
            )
        return answers

    def _execute(
        self, generation: Generation, searcher: tantivy.Searcher, body: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], int]:
        unknown = sorted(set(body) - REQUEST_KEYS)
        if unknown:
            raise QueryError(f"the embedded index does not implement {', '.join(unknown)}")
        compiler = self._compiler(generation, searcher)
        size, offset = int(body.get("size", 10)), int(body.get("from", 0))
        requested = body.get("query", {"match_all": {}})
        if isinstance(requested, dict) and set(requested) == {"knn"}:
            return self._knn(generation, searcher, compiler, body, requested["knn"], size, offset)
        query = compiler.compile(requested)
        collapse = body.get("collapse")
        if collapse is not None and collapse != {"field": "doc_id"}:
            raise QueryError(f"collapse {collapse!r}: the embedded index collapses on doc_id only")
        sort = body.get("sort")
        if sort is not None and sort != TIE_BREAK_SORT:
            return self._by_fields(generation, searcher, body, query, sort, size, offset)
        if body.get("search_after") is not None:
            raise QueryError("search_after: the embedded index pages by a sort on keyword fields")
        page: list[Ranked] = []
        if size > 0 and collapse is None:
            ranked, total = self.ranked(generation, searcher, query, offset + size)
            page = ranked[offset:]
        elif size > 0:
            page, total = self.collapsed(generation, searcher, query, offset, size)
        else:
            total = self.count_matches(searcher, query)
        if "terminate_after" in body:  # as OpenSearch: stop counting after that many
            total = min(total, int(body["terminate_after"]))
        spec = body.get("highlight")
        fast = None if spec else fast_source(body.get("_source"))
        name = generation.name
        if fast is not None:
            sources = self.fast_sources(searcher, page, fast)
        else:
            stored = [self._stored(searcher, address) for _score, _id, address in page]
            shown = source_filter(body.get("_source"))
            sources = [shown(source) for source in stored]
        hits = []
        for n, (score, chunk_id, _address) in enumerate(page):
            hit: dict[str, Any] = {
                "_index": name,
                "_id": chunk_id,
                "_score": float(score),
                "_source": sources[n],
            }
            if spec:
                fragments = self._highlight(spec, stored[n], compiler, generation.analyzer)
                if fragments:
                    hit["highlight"] = {"body": fragments}
            if sort is not None:
                hit["sort"] = [float(score), chunk_id]
            hits.append(hit)
        return hits, total

    def _by_fields(
        self,
        generation: Generation,
        searcher: tantivy.Searcher,
        body: dict[str, Any],
        query: Query,
        sort: Any,
        size: int,
        offset: int,
    ) -> tuple[list[dict[str, Any]], int]:
        """A sort on keyword fields (with ``search_after``): how osrag pages through every
        chunk id of a generation."""
        order = sort_keys(sort)
        assert order is not None
        if body.get("collapse") is not None:
            raise QueryError("the embedded index does not sort a collapsed search")
        total = self.count_matches(searcher, query)
        found = []
        if size > 0 and total:
            found = self._sorted(
                searcher, query, order, body.get("search_after"), offset, size, total
            )
        shown = source_filter(body.get("_source"))
        hits = [
            {
                "_index": generation.name,
                "_id": source.get("chunk_id"),
                "_score": float(score),
                "_source": shown(source),
                "sort": values,
            }
            for score, source, values in found
        ]
        return hits, total

    def _knn(
        self,
        generation: Generation,
        searcher: tantivy.Searcher,
        compiler: Compiler,
        body: dict[str, Any],
        spec: Any,
        size: int,
        offset: int,
    ) -> tuple[list[dict[str, Any]], int]:
        """OpenSearch's ``knn`` query (lucene engine, efficient filtering): the ``k``
        nearest chunks among those passing ``filter``, then ``from``/``size``."""
        if set(body) - {"query", "size", "from", "_source", "track_total_hits"}:
            raise QueryError("a knn query on the embedded index takes size, from and _source")
        if not isinstance(spec, dict) or set(spec) != {VECTOR_FIELD}:
            raise QueryError(f"knn: the embedded index searches the {VECTOR_FIELD!r} field only")
        params = spec[VECTOR_FIELD]
        if not isinstance(params, dict) or set(params) - {"vector", "k", "filter"}:
            raise QueryError("knn: expected vector, k and an optional filter")
        if generation.vectors is None:
            raise QueryError(f"knn: generation {generation.name} holds no vectors")
        candidates: set[str] | None = None
        if "filter" in params:
            query = compiler.compile(params["filter"], scoring=False)
            matched = self.count_matches(searcher, query)
            found = searcher.aggregate(
                query, {"ids": {"terms": {"field": ID_FIELD, "size": max(matched, 1)}}}
            )
            candidates = {str(bucket["key"]) for bucket in found["ids"]["buckets"]}
        nearest = generation.vectors.nearest(params["vector"], int(params["k"]), candidates)
        page = nearest[offset : offset + size]
        shown = source_filter(body.get("_source"))
        sources = self.sources_by_id(generation, searcher, [chunk_id for chunk_id, _ in page])
        hits = [
            {
                "_index": generation.name,
                "_id": chunk_id,
                "_score": score,
                "_source": shown(sources[chunk_id]),
            }
            for chunk_id, score in page
            if chunk_id in sources
        ]
        return hits, len(nearest)

    def sources_by_id(
        self, generation: Generation, searcher: tantivy.Searcher, chunk_ids: list[str]
    ) -> dict[str, dict[str, Any]]:
        if not chunk_ids:
            return {}
        query = Query.term_set_query(generation.schema, ID_FIELD, chunk_ids)
        found = searcher.search(query, limit=len(chunk_ids))
        sources = [self._stored(searcher, address) for _, address in found.hits]
        return {str(source.get("chunk_id")): source for source in sources}

    def _sorted(
        self,
        searcher: tantivy.Searcher,
        query: Query,
        order: list[tuple[str, bool]],
        after: list[Any] | None,
        offset: int,
        size: int,
        total: int,
    ) -> list[tuple[float, dict[str, Any], list[Any] | None]]:
        """Every match, ordered by the sort keys, from after ``search_after``."""
        result = searcher.search(query, limit=total)
        rows = []
        for score, address in result.hits:
            source = self._stored(searcher, address)
            values = [score if field == "_score" else source.get(field) for field, _ in order]
            rows.append((SortKey(values, order), score, source, values))
        rows.sort(key=lambda row: row[0])
        if after is not None:
            bound = SortKey(list(after), order)
            rows = [row for row in rows if bound < row[0]]
        return [
            (score, source, values) for _, score, source, values in rows[offset : offset + size]
        ]

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

    @staticmethod
    def _highlight(
        spec: Any, source: dict[str, Any], compiler: Compiler, analyzer: Analyzer
    ) -> list[str]:
        if not spec:
            return []
        allowed = {"fields", "pre_tags", "post_tags", "require_field_match"}
        if not isinstance(spec, dict) or set(spec) - allowed:
            raise QueryError(
                f"highlight: the embedded index implements {', '.join(sorted(allowed))}"
            )
        fields = spec.get("fields") or {}
        if set(fields) - {"body"}:
            raise QueryError("highlight: the embedded index highlights the body field only")
        if "body" not in fields:
            return []
        options = fields["body"] or {}
        # OpenSearch's default: only terms of queries on the highlighted field itself
        if spec.get("require_field_match", True):
            terms = compiler.match_terms.get("body", [])
        else:
            terms = [t for field_terms in compiler.match_terms.values() for t in field_terms]
        return highlight(
            str(source.get("body") or ""),
            analyzer,
            terms,
            number_of_fragments=int(options.get("number_of_fragments", 5)),
            fragment_size=int(options.get("fragment_size", 100)),
            pre_tag=(spec.get("pre_tags") or ["<em>"])[0],
            post_tag=(spec.get("post_tags") or ["</em>"])[0],
        )
