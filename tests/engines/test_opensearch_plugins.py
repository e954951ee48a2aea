"""What the k-NN and neural-search plugins give the node, in raw DSL.

The node osrag starts carries no native k-NN libraries, so every vector field
here names the ``lucene`` engine (faiss, the default, would kill the node).
These are engine-capability tests: the hybrid query layer is built on them.
"""

from __future__ import annotations

import contextlib
import uuid

import pytest
from opensearchpy import OpenSearch
from opensearchpy.exceptions import RequestError

from osrag.node import plugins_for

pytestmark = pytest.mark.opensearch

LUCENE_HNSW = {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}

# (id, text, category, vector): the vectors fan out from [1, 0, 0] so cosine order is id order
DOCS = [
    (f"d{i}", f"umbrella policy clause {i} {'liability' if i % 2 else 'property'}", cat, vec)
    for i, (cat, vec) in enumerate(
        [
            ("a", [1.0, 0.00, 0.0]),
            ("b", [1.0, 0.05, 0.0]),
            ("a", [1.0, 0.10, 0.0]),
            ("b", [1.0, 0.20, 0.0]),
            ("a", [1.0, 0.40, 0.0]),
            ("b", [1.0, 0.80, 0.0]),
            ("a", [1.0, 1.60, 0.0]),
            ("b", [1.0, 3.20, 0.0]),
        ]
    )
]


def _expected_plugins(os_client: OpenSearch) -> set[str]:
    """What osrag installs into this node's version: k-NN, and neural-search where served."""
    version = os_client.info()["version"]["number"]
    return {p.name for p in plugins_for(version)}


def _has_neural_search(os_client: OpenSearch) -> bool:
    rows = os_client.cat.plugins(format="json")
    return "opensearch-neural-search" in {r["component"] for r in rows}


@pytest.fixture
def vector_index(os_client: OpenSearch, index_prefix: str) -> str:
    plugins = {row["component"] for row in os_client.cat.plugins(format="json")}
    assert "opensearch-knn" in _expected_plugins(os_client)
    assert _expected_plugins(os_client) <= plugins, (
        f"the node lacks k-NN/neural-search (plugins: {sorted(plugins)}); a node started by an "
        "older osrag loads them after `osrag node stop` and `osrag node start`"
    )
    index = f"{index_prefix}-vectors"
    os_client.indices.create(
        index=index,
        body={
            "settings": {"index.knn": True, "number_of_shards": 1, "number_of_replicas": 0},
            "mappings": {
                "properties": {
                    "text": {"type": "text", "analyzer": "english"},
                    "category": {"type": "keyword"},
                    "vector": {"type": "knn_vector", "dimension": 3, "method": LUCENE_HNSW},
                }
            },
        },
    )
    for doc_id, text, category, vector in DOCS:
        body = {"text": text, "category": category, "vector": vector}
        os_client.index(index=index, id=doc_id, body=body)
    os_client.indices.refresh(index=index)
    return index


def test_plugins_are_listed(os_client: OpenSearch) -> None:
    rows = os_client.cat.plugins(format="json")
    assert _expected_plugins(os_client) <= {r["component"] for r in rows}


def test_lucene_knn_field_accepts_documents(os_client: OpenSearch, vector_index: str) -> None:
    assert os_client.count(index=vector_index)["count"] == len(DOCS)
    mapping = os_client.indices.get_mapping(index=vector_index)[vector_index]["mappings"]
    assert mapping["properties"]["vector"]["method"]["engine"] == "lucene"


def test_knn_with_efficient_filter_returns_only_filtered_docs(
    os_client: OpenSearch, vector_index: str
) -> None:
    """k=3 inside category b: the three nearest b documents, never an a, never fewer."""
    body = {
        "size": 10,
        "query": {
            "knn": {
                "vector": {"vector": [1.0, 0.0, 0.0], "k": 3, "filter": {"term": {"category": "b"}}}
            }
        },
    }
    hits = os_client.search(index=vector_index, body=body)["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["d1", "d3", "d5"]

    unfiltered = {**body, "query": {"knn": {"vector": {"vector": [1.0, 0.0, 0.0], "k": 3}}}}
    top = os_client.search(index=vector_index, body=unfiltered)["hits"]["hits"]
    assert [h["_id"] for h in top] == ["d0", "d1", "d2"]


def test_without_neural_search_the_engine_has_no_hybrid_query(
    os_client: OpenSearch, vector_index: str
) -> None:
    """OpenSearch 3.x as osrag runs it (no neural-search on Maven Central): ``hybrid`` is an
    unknown query, which is why osrag fuses in the client there; on 2.19 the query exists."""
    body = {"size": 3, "query": {"hybrid": {"queries": [{"match": {"text": "liability"}}]}}}
    if _has_neural_search(os_client):
        assert os_client.search(index=vector_index, body=body)["hits"]["hits"]
        return
    with pytest.raises(RequestError, match="hybrid"):
        os_client.search(index=vector_index, body=body)


def test_hybrid_query_fuses_both_legs_by_rrf(os_client: OpenSearch, vector_index: str) -> None:
    """Each fused score is the RRF sum over the legs' own ranks (rank constant 60)."""
    if not _has_neural_search(os_client):
        pytest.fail("no neural-search on this node: run this test on 2.19 only")
    pipeline = f"osrag-test-rrf-{uuid.uuid4().hex[:8]}"
    os_client.transport.perform_request(
        "PUT",
        f"/_search/pipeline/{pipeline}",
        body={
            "phase_results_processors": [
                {"score-ranker-processor": {"combination": {"technique": "rrf"}}}
            ]
        },
    )
    same_filter = {"term": {"category": "b"}}
    lexical = {"bool": {"must": [{"match": {"text": "liability"}}], "filter": [same_filter]}}
    vector = {"knn": {"vector": {"vector": [1.0, 3.0, 0.0], "k": 4, "filter": same_filter}}}
    try:
        fused = os_client.search(
            index=vector_index,
            params={"search_pipeline": pipeline},
            body={"size": 10, "query": {"hybrid": {"queries": [lexical, vector]}}},
        )["hits"]["hits"]
    finally:
        with contextlib.suppress(Exception):
            os_client.transport.perform_request("DELETE", f"/_search/pipeline/{pipeline}")

    ranks = []
    for leg in (lexical, vector):
        hits = os_client.search(index=vector_index, body={"size": 10, "query": leg})["hits"]
        ranks.append({h["_id"]: rank for rank, h in enumerate(hits["hits"], start=1)})
    expected = {
        doc: sum(1.0 / (60 + leg[doc]) for leg in ranks if doc in leg)
        for doc in set().union(*ranks)
    }
    assert {h["_id"] for h in fused} == set(expected) <= {"d1", "d3", "d5", "d7"}
    for hit in fused:
        assert hit["_score"] == pytest.approx(expected[hit["_id"]], rel=1e-5)
    scores = [h["_score"] for h in fused]
    assert scores == sorted(scores, reverse=True)
