"""What the amount filter did, counted by the filter itself — never the gold.

* :func:`passing_filter` — the documents with a chunk passing a query's constraints, found
  by running the constraints alone as a filter (up to :data:`MAX_HITS` documents);
* :func:`filter_agreement` — the share of the top k that pass them: a diagnostic that the
  filter was applied (a filtered search scores 1 by construction), not a measure of the
  answer (that is quantity precision, :mod:`osrag.evaluation.quantity`);
* :func:`selectivity` — the share of the index the filter leaves, in documents and chunks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from osrag.evaluation.quantity import Selectivity
from osrag.evaluation.runs import document_hits
from osrag.models import QuerySpec, SearchResult

MAX_HITS = 10_000
"""The most hits one request may ask for (OpenSearch's ``index.max_result_window``)."""


def passing_filter(searcher: Any, constraints: Any, cache: dict[str, set[str]]) -> set[str]:
    """Documents with a chunk passing every constraint (up to 10,000 documents): the
    documents a filtered search may return, as the filter itself decides (not the gold)."""
    key = json.dumps([c.key for c in constraints])
    if key not in cache:
        result = searcher.search(
            QuerySpec(
                text="",
                constraints=list(constraints),
                mode="bm25",  # the filter alone decides; no vector leg (k would exceed 10,000)
                collapse=True,
                k=MAX_HITS,
                highlight=False,
                source_fields=[],
            )
        )
        cache[key] = set() if result.fallback else {h.doc_id for h in result.hits}
    return cache[key]


def filter_agreement(
    query: str,
    hits: Sequence[Any],
    searcher: Any,
    extraction: Any,
    amount_cache: dict[str, set[str]],
    ks: Sequence[int],
) -> tuple[str, dict[str, float]]:
    """The query's kind ("none", "unheld", "exact", "comparative") and, when some document
    passes its constraints, the share of the top-k documents that pass them too — a
    diagnostic of the filter measured by the filter (a filtered search scores 1 by
    construction), not of the answer: that is quantity precision."""
    from osrag.search.analysis import analyze_query

    stated = analyze_query(query, extraction).constraints
    if not stated:
        return "none", {}
    passing = passing_filter(searcher, stated, amount_cache)
    if not passing:
        return "unheld", {}  # no document passes them: agreement measures nothing here
    top_docs = [h.doc_id for h in document_hits(hits)]
    agreement = {
        f"filter_agreement@{k}": (
            sum(1 for d in top_docs[:k] if d in passing) / len(top_docs[:k])
            if top_docs[:k]
            else 0.0
        )
        for k in ks
    }
    return ("comparative" if any(c.op != "eq" for c in stated) else "exact"), agreement


class IndexSize(NamedTuple):
    """What selectivity is a share of: the generation's documents and chunks."""

    documents: int
    chunks: int


def index_size(backend: Any, target: str) -> IndexSize:
    from osrag.ingestion.manifest import Manifest

    generation = backend.alias_target(target)
    if generation is None:
        return IndexSize(0, 0)
    records = [r for r in Manifest(backend.records(target), target).documents(generation)]
    return IndexSize(sum(1 for r in records if r.chunk_ids), sum(len(r.chunk_ids) for r in records))


def selectivity(
    result: SearchResult, searcher: Any, size: IndexSize, amount_cache: dict[str, set[str]]
) -> Selectivity | None:
    """The share of the index the amount filter of ``result`` left (None: it applied none)."""
    if result.amount_candidates is None or not size.documents or not size.chunks:
        return None
    if result.fallback:
        return Selectivity(documents=0.0, chunks=0.0)
    passing = passing_filter(searcher, result.constraints, amount_cache)
    return Selectivity(
        documents=round(len(passing) / size.documents, 6),
        chunks=round(result.amount_candidates / size.chunks, 6),
    )
