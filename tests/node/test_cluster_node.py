"""The three-node loopback OpenSearch cluster: all joined, shards spread, plugins everywhere."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from opensearchpy import OpenSearch
from paths import IN_CI

from osrag import node

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def cluster_client(cluster_url: str) -> OpenSearch:
    return OpenSearch(cluster_url, timeout=60)


@pytest.fixture
def cluster_index(cluster_client: OpenSearch) -> Iterator[str]:
    index = f"osrag-test-{uuid.uuid4().hex[:10]}"
    yield index
    with contextlib.suppress(Exception):
        cluster_client.indices.delete(index=index)


def test_three_nodes_joined_and_green(cluster_client: OpenSearch) -> None:
    health = cluster_client.cluster.health()
    assert (health["status"], health["number_of_nodes"]) == ("green", 3)
    nodes = cluster_client.nodes.info(metric="transport,http")["nodes"].values()
    transports = {n["transport"]["publish_address"] for n in nodes}
    https = {n["http"]["publish_address"] for n in nodes}
    assert len(transports) == 3 and len(https) == 3
    assert all(a.startswith("127.0.0.1:") for a in transports | https)


def test_every_node_has_both_plugins(cluster_client: OpenSearch) -> None:
    rows = cluster_client.cat.plugins(format="json")
    by_node: dict[str, set[str]] = {}
    for row in rows:
        by_node.setdefault(row["name"], set()).add(row["component"])
    assert len(by_node) == 3
    assert all({"opensearch-knn", "opensearch-neural-search"} <= c for c in by_node.values())


def test_three_shards_one_replica_spread_over_all_nodes(
    cluster_client: OpenSearch, cluster_index: str
) -> None:
    cluster_client.indices.create(
        index=cluster_index,
        body={
            "settings": {"index.knn": True, "number_of_shards": 3, "number_of_replicas": 1},
            "mappings": {
                "properties": {
                    "category": {"type": "keyword"},
                    "vector": {
                        "type": "knn_vector",
                        "dimension": 2,
                        "method": {"name": "hnsw", "engine": "lucene", "space_type": "l2"},
                    },
                }
            },
        },
    )
    health = cluster_client.cluster.health(
        index=cluster_index,
        params={"wait_for_status": "green"},  # the server waits up to 30 s
    )
    assert health["status"] == "green" and health["active_shards"] == 6
    shards = cluster_client.cat.shards(index=cluster_index, format="json")
    assert {s["node"] for s in shards} == set(_node_names(cluster_client))
    for i in range(30):
        body = {"category": "even" if i % 2 == 0 else "odd", "vector": [float(i), 0.0]}
        cluster_client.index(index=cluster_index, id=str(i), body=body)
    cluster_client.indices.refresh(index=cluster_index)

    query = {
        "size": 10,
        "query": {
            "knn": {
                "vector": {"vector": [0.0, 0.0], "k": 4, "filter": {"term": {"category": "odd"}}}
            }
        },
    }
    hits = cluster_client.search(index=cluster_index, body=query)["hits"]["hits"]
    # k per shard, merged: the nearest odd documents first, only odd ones
    assert [h["_id"] for h in hits][:4] == ["1", "3", "5", "7"]
    assert all(int(h["_id"]) % 2 == 1 for h in hits)


def _node_names(client: OpenSearch) -> list[str]:
    return [n["name"] for n in client.nodes.info()["nodes"].values()]


def test_status_reports_each_node(cluster_url: str) -> None:
    """``osrag node status --port`` covers the whole cluster osrag started."""
    port = urlparse(cluster_url).port
    assert port is not None
    status = node.status(port=port)
    if not status.nodes:
        message = f"{cluster_url} is not a cluster osrag started in {status.home}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)  # outside CI only: a cluster given by URL, not started by osrag
    assert status.running and status.health == "green" and status.number_of_nodes == 3
    assert [m.name for m in status.nodes] == ["osrag-1", "osrag-2", "osrag-3"]
    assert all(m.running and m.pid for m in status.nodes)
    assert len({m.transport_port for m in status.nodes}) == 3
    assert [urlparse(m.url).port for m in status.nodes] == [port, port + 1, port + 2]
