"""Typed plans answered on one embedded generation, as osrag's own hit records.

Every plan of a call runs on one searcher (one point in time). A plan becomes, as on
the REST engines without a fusion pipeline (the embedded engine fuses nothing itself):

* ``bm25``: the lexical query (:class:`~osrag.engines.embedded.compiler.PlanCompiler`)
  ranked by score, then chunk id descending; ``size`` hits from ``offset``; one hit per
  document where ``collapse`` asks (its best chunk); highlighted where asked;
* ``vector``: the ``k`` nearest chunks among the candidate set (the filters choose the
  candidates first, never a post-filter); ``depth`` of them under ``collapse``;
* ``hybrid``: both legs apart, each ``depth`` deep, for the caller to fuse.

``candidates`` counts the chunks passing every filter (when asked); ``total`` the
chunks the ranked query matched (at most ``stop_after``, where given).
"""

from __future__ import annotations

from typing import Any

import tantivy

from osrag.engines.embedded.compiler import PlanCompiler
from osrag.engines.embedded.generation import Generation, stored_source
from osrag.engines.embedded.highlight import highlight
from osrag.engines.embedded.nested import nested_searchers
from osrag.engines.embedded.ranking import Ranking
from osrag.engines.embedded.response import Ranked, fast_source, source_filter
from osrag.engines.embedded.schema import ID_FIELD
from osrag.errors import QueryError
from osrag.schema.plan import EngineHit, EngineResult, SearchPlan


def _source_spec(plan: SearchPlan) -> dict[str, list[str]]:
    source = plan.source
    if source.includes is not None:
        return {"includes": list(source.includes)}
    return {"excludes": list(source.excludes)}


def _hit(chunk_id: str, score: float, source: dict[str, Any], name: str) -> EngineHit:
    return EngineHit(
        chunk_id=chunk_id,
        doc_id=str(source.get("doc_id") or chunk_id.rsplit("#", 2)[0]),
        score=float(score),
        source=source,
        index=name,
    )


class PlanRunner:
    """Answers plans on one generation's searcher (see the module docstring)."""

    def __init__(
        self, ranking: Ranking, generation: Generation, searcher: tantivy.Searcher
    ) -> None:
        self.ranking, self.generation, self.searcher = ranking, generation, searcher
        self.nested = nested_searchers(generation.nested)
        """The nested sub-indexes, at the same point in time as ``searcher``."""

    def run(self, plan: SearchPlan) -> EngineResult:
        compiler = PlanCompiler(
            self.ranking.schema,
            self.generation.schema,
            self.generation.analyzer,
            self.searcher,
            self.nested,
        )
        candidates = compiler.candidates(plan)
        counted = -1
        if plan.count_candidates:
            counted = self._count(candidates)
        if plan.mode == "bm25":
            hits, total = self._lexical(plan, compiler, plan.size, plan.offset, plan.collapse)
            return EngineResult(hits, total, counted)
        if plan.mode == "vector":
            size, offset = (plan.depth, 0) if plan.collapse else (plan.size, plan.offset)
            hits, total = self._vector(plan, candidates, size, offset)
            return EngineResult(hits, total, counted)
        lexical, lexical_total = self._lexical(plan, compiler, plan.depth, 0, False)
        vector, vector_total = self._vector(plan, candidates, plan.depth, 0)
        return EngineResult((), max(lexical_total, vector_total), counted, (lexical, vector))

    def _count(self, query: tantivy.Query | None) -> int:
        if query is None:
            return int(self.searcher.num_docs)
        return self.ranking.count_matches(self.searcher, query)

    def _lexical(
        self, plan: SearchPlan, compiler: PlanCompiler, size: int, offset: int, collapse: bool
    ) -> tuple[tuple[EngineHit, ...], int]:
        query = compiler.lexical(plan)
        page: list[Ranked] = []
        if size > 0 and not collapse:
            ranked, total = self.ranking.ranked(
                self.generation, self.searcher, query, offset + size
            )
            page = ranked[offset:]
        elif size > 0:
            page, total = self.ranking.collapsed(
                self.generation, self.searcher, query, offset, size
            )
        else:
            total = self.ranking.count_matches(self.searcher, query)
        if plan.stop_after is not None:
            total = min(total, plan.stop_after)
        marks = plan.highlight if plan.mode == "bm25" else None
        spec = _source_spec(plan)
        fast = None if marks else fast_source(spec)
        name = self.generation.name
        if fast is not None:
            sources = self.ranking.fast_sources(self.searcher, page, fast)
            return tuple(
                _hit(chunk_id, score, sources[n], name)
                for n, (score, chunk_id, _) in enumerate(page)
            ), total
        shown = source_filter(spec)
        hits = []
        for score, chunk_id, address in page:
            stored = stored_source(self.searcher, address)
            hit = _hit(chunk_id, score, shown(stored), name)
            if marks is not None:
                fragments = highlight(
                    str(stored.get(marks.field) or ""),
                    self.generation.analyzer,
                    compiler.text_terms,
                    number_of_fragments=marks.fragments,
                    fragment_size=marks.fragment_size,
                    pre_tag=marks.pre,
                    post_tag=marks.post,
                )
                hit = EngineHit(
                    hit.chunk_id, hit.doc_id, hit.score, hit.source, tuple(fragments), name
                )
            hits.append(hit)
        return tuple(hits), total

    def _vector(
        self, plan: SearchPlan, candidates: tantivy.Query | None, size: int, offset: int
    ) -> tuple[tuple[EngineHit, ...], int]:
        leg = plan.vector
        assert leg is not None  # a vector or hybrid plan has one (SearchPlan checks)
        vectors = self.generation.vectors
        if vectors is None:
            raise QueryError(
                f"a vector search needs vectors: generation {self.generation.name} holds none "
                "(ingest with an embedder)"
            )
        allowed = None if candidates is None else self._candidate_ids(candidates)
        nearest = vectors.nearest(list(leg.vector), leg.k, allowed)
        page = nearest[offset : offset + size]
        shown = source_filter(_source_spec(plan))
        found = self.ranking.sources_by_id(
            self.generation, self.searcher, [chunk_id for chunk_id, _ in page]
        )
        hits = tuple(
            _hit(chunk_id, score, shown(found[chunk_id]), self.generation.name)
            for chunk_id, score in page
            if chunk_id in found
        )
        return hits, len(nearest)

    def _candidate_ids(self, query: tantivy.Query) -> set[str]:
        """The chunk ids passing the filters (the vector leg ranks inside them)."""
        matched = self.ranking.count_matches(self.searcher, query)
        if not matched:
            return set()
        found = self.searcher.aggregate(
            query, {"ids": {"terms": {"field": ID_FIELD, "size": matched}}}
        )
        return {str(bucket["key"]) for bucket in found["ids"]["buckets"]}
