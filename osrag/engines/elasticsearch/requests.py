"""osrag's search bodies (OpenSearch query DSL) as Elasticsearch 8 takes them. Pure.

The lexical parts are the same on both engines. The vector parts differ:

* **the vector leg** — OpenSearch's ``{"query": {"knn": {"vector": {"vector", "k",
  "filter"}}}}`` becomes Elasticsearch's top-level ``{"knn": {"field", "query_vector",
  "k", "num_candidates", "filter"}}``. The filter list is the same and stays a kNN
  ``filter`` (applied while the neighbours are searched, as lucene's efficient
  filtering does on OpenSearch) — never a ``post_filter``;
* **a hybrid query fused on the engine** — OpenSearch's ``hybrid`` query (the lexical
  ``bool`` and the ``knn`` leg) with a search pipeline becomes an ``rrf`` retriever
  over a ``standard`` retriever and a ``knn`` retriever, each carrying the same
  filters. Only sent where the cluster has the ``rrf`` retriever (a licence level the
  free distribution lacks: :meth:`ElasticsearchIndex.fusion_pipeline` asks once);
  elsewhere the Searcher sends the two legs and fuses them itself.
"""

from __future__ import annotations

from typing import Any

from osrag.engines.mapping import VECTOR_FIELD
from osrag.errors import QueryError

RRF_PIPELINE = "elasticsearch-rrf-retriever"
"""What :meth:`ElasticsearchIndex.fusion_pipeline` answers (with the rank constant): the
hybrid body is rewritten to an ``rrf`` retriever here, no pipeline is created."""

NUM_CANDIDATES_FACTOR = 10
"""Candidates each shard considers per neighbour wanted (Elasticsearch's HNSW accuracy knob;
capped at 10,000)."""


def knn_section(knn: dict[str, Any]) -> dict[str, Any]:
    """``{"vector": {"vector", "k", "filter"}}`` → Elasticsearch's kNN search section."""
    if set(knn) != {VECTOR_FIELD}:
        raise QueryError(f"knn: osrag searches the {VECTOR_FIELD!r} field only")
    params = knn[VECTOR_FIELD]
    k = int(params["k"])
    section: dict[str, Any] = {
        "field": VECTOR_FIELD,
        "query_vector": params["vector"],
        "k": k,
        "num_candidates": min(10_000, max(NUM_CANDIDATES_FACTOR * k, 100)),
    }
    if "filter" in params:
        section["filter"] = params["filter"]
    return section


def translate(body: dict[str, Any]) -> dict[str, Any]:
    """One search body for Elasticsearch (unchanged when it has no vector part)."""
    query = body.get("query")
    if not isinstance(query, dict):
        return body
    if set(query) == {"knn"}:
        rest = {k: v for k, v in body.items() if k != "query"}
        return {**rest, "knn": knn_section(query["knn"])}
    if "hybrid" in query:
        pipeline = str(body.get("search_pipeline", ""))
        if not pipeline.startswith(RRF_PIPELINE):
            raise QueryError("a hybrid query on Elasticsearch is fused by an rrf retriever only")
        rank_constant = int(pipeline.rsplit("-", 1)[1])
        lexical, vector = query["hybrid"]["queries"]
        window = max(int(body.get("size", 10)) + int(body.get("from", 0)), 1)
        rest = {k: v for k, v in body.items() if k not in ("query", "search_pipeline", "from")}
        return {
            **rest,
            "retriever": {
                "rrf": {
                    "retrievers": [
                        {"standard": {"query": lexical}},
                        {"knn": knn_section(vector["knn"])},
                    ],
                    "rank_constant": rank_constant,
                    "rank_window_size": window,
                }
            },
        }
    return body
