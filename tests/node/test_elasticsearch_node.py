"""The local Elasticsearch node: it answers, filters kNN inside the filter, and its lifecycle.

Plain HTTP (urllib) speaks to it: these tests check the engine osrag starts,
not a client library.
"""

from __future__ import annotations

import contextlib
import json
import socket
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from osrag import node
from osrag.cli import app

pytestmark = pytest.mark.elasticsearch


def _call(url: str, method: str, path: str, body: object | None = None) -> dict[str, object]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        result: dict[str, object] = json.loads(response.read())
        return result


@pytest.fixture
def es_index(elasticsearch_url: str) -> Iterator[str]:
    index = f"osrag-test-{uuid.uuid4().hex[:10]}"
    yield index
    with contextlib.suppress(OSError):
        _call(elasticsearch_url, "DELETE", f"/{index}")


def test_node_answers_health_and_version(elasticsearch_url: str) -> None:
    health = _call(elasticsearch_url, "GET", "/_cluster/health")
    assert health["status"] in ("green", "yellow")
    nodes = _call(elasticsearch_url, "GET", "/_nodes?filter_path=nodes.*.version")
    versions = {n["version"] for n in nodes["nodes"].values()}  # type: ignore[attr-defined]
    assert all(str(v).split(".")[0] in ("8", "9") for v in versions), versions


def test_dense_vector_knn_keeps_the_filter_inside(elasticsearch_url: str, es_index: str) -> None:
    """Top-level ``knn`` with ``filter``: k hits from the filtered set, never another."""
    _call(
        elasticsearch_url,
        "PUT",
        f"/{es_index}",
        {
            "settings": {"number_of_shards": 1, "number_of_replicas": 0},
            "mappings": {
                "properties": {
                    "amounts": {"type": "long"},
                    "vector": {
                        "type": "dense_vector",
                        "dims": 3,
                        "index": True,
                        "similarity": "cosine",
                    },
                }
            },
        },
    )
    lines = []
    for i in range(12):
        amount = 30_000_000 if i % 4 == 3 else 300_000_000
        lines.append(json.dumps({"index": {"_id": f"d{i}"}}))
        lines.append(json.dumps({"amounts": [amount], "vector": [1.0, i / 10, 0.0]}))
    request = urllib.request.Request(
        f"{elasticsearch_url}/{es_index}/_bulk?refresh=true",
        data=("\n".join(lines) + "\n").encode(),
        method="POST",
        headers={"Content-Type": "application/x-ndjson"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert json.loads(response.read())["errors"] is False

    body = {
        "size": 10,
        "knn": {
            "field": "vector",
            "query_vector": [1.0, 0.0, 0.0],
            "k": 3,
            "num_candidates": 12,
            "filter": {"term": {"amounts": 30_000_000}},
        },
    }
    hits = _call(elasticsearch_url, "POST", f"/{es_index}/_search", body)["hits"]
    assert [h["_id"] for h in hits["hits"]] == ["d3", "d7", "d11"]  # type: ignore[index]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_lifecycle_start_status_stop(elasticsearch_url: str) -> None:
    """A second node on a free port: start, find it running, status via the CLI, stop."""
    home = node.default_home()
    port, transport = _free_port(), _free_port()
    try:
        first = node.start(port=port, home=home, engine="elasticsearch", transport_port=transport)
        assert first.running and not first.already_running
        assert (first.engine, first.version) == ("elasticsearch", node.ELASTICSEARCH_VERSION)
        assert first.transport_port == transport and first.health in ("green", "yellow")
        assert first.rss_mb is not None and first.rss_mb > 200  # launcher + server JVM

        again = node.start(port=port, home=home, engine="elasticsearch")
        assert again.already_running and again.pid == first.pid
        shown = CliRunner().invoke(
            app,
            ["node", "status", "--port", str(port), "--json"],
            env={"OSRAG_HOME": str(home)},
        )
        assert shown.exit_code == 0, shown.output
        reported = json.loads(shown.output)
        assert reported["engine"] == "elasticsearch" and reported["pid"] == first.pid
        assert (Path(home) / f"es-node-{port}" / "logs" / "gc.log").exists()
    finally:
        assert node.stop(port=port, home=home) is True
    assert node.stop(port=port, home=home, engine="elasticsearch") is False
    assert not node.status(port=port, home=home).running
