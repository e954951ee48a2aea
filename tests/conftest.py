"""Test harness: one real engine of each kind for the whole session.

The OpenSearch cluster is resolved in this order:

1. ``OSRAG_TEST_URL`` if set (any reachable cluster);
2. a testcontainers OpenSearch container if a Docker engine answers;
3. the local node, via ``osrag.node.start`` (fetched from Maven Central once).

The Elasticsearch node (``elasticsearch_url``) is ``OSRAG_TEST_ES_URL``, else a
local node (``OSRAG_TEST_ES_PORT``, default 9400); the three-node OpenSearch
cluster (``cluster_url``) is ``OSRAG_TEST_CLUSTER_URL``, else a local one
(``OSRAG_TEST_CLUSTER_PORT``, default 9500).

Under ``CI=true`` a test that needs an engine fails when none of these gives
one; elsewhere it is skipped with the reason. A node the session started is
stopped at its end (``OSRAG_TEST_KEEP_NODE=1`` keeps it). Each test gets its
own index/alias prefix and everything under it is deleted afterwards.

``OSRAG_TEST_SHARDS`` / ``OSRAG_TEST_REPLICAS`` (the three-node pass of
``.ci/run``: 3 and 1) name the layout every generation of the OpenSearch tests
must have. osrag lays a new generation out from the cluster's data nodes, so on
three nodes the ingests build 3 shards and 1 replica without being told; the
harness checks that the cluster gives that default, creates its own test
generations with it, and after each test checks every generation it built
(a test that asks for its own layout is marked ``own_layout``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import LAYOUT_UNDER_TEST
from opensearchpy import OpenSearch
from paths import CORPORA, IN_CI


def _docker_url() -> tuple[str, object] | None:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env().ping()
    except Exception:
        return None
    from testcontainers.opensearch import OpenSearchContainer  # type: ignore[import-untyped]

    container = OpenSearchContainer("opensearchproject/opensearch:2.19.1", security_enabled=False)
    container.start()
    host = container.get_container_host_ip()
    port = container.get_exposed_port(9200)
    return f"http://{host}:{port}", container


@pytest.fixture(scope="session")
def opensearch_url() -> Iterator[str]:
    """The URL of a real OpenSearch cluster (fails, never skips, under CI=true)."""
    url = os.environ.get("OSRAG_TEST_URL")
    container = None
    started_node = False
    problem = ""
    if not url:
        found = _docker_url()
        if found:
            url, container = found
    if not url:
        from osrag import node
        from osrag.errors import NodeError

        port = int(os.environ.get("OSRAG_TEST_PORT", node.DEFAULT_PORT))
        try:
            status = node.start(port=port)
            url, started_node = status.url, not status.already_running
        except NodeError as exc:
            problem = str(exc)
    if not url:
        message = f"no OpenSearch cluster for the tests: {problem}"
        if IN_CI:
            pytest.fail(message + " (CI=true: integration tests fail instead of skipping)")
        pytest.skip(message)  # outside CI only; under CI the line above fails
    yield url
    if container is not None:
        container.stop()  # type: ignore[attr-defined]
    if started_node and os.environ.get("OSRAG_TEST_KEEP_NODE") != "1":
        from osrag import node

        node.stop(port=int(os.environ.get("OSRAG_TEST_PORT", node.DEFAULT_PORT)))


def _local_engine(variable: str, what: str, **start: object) -> Iterator[str]:
    """``variable``'s URL, else a local engine started with ``node.start(**start)``."""
    from osrag import node
    from osrag.errors import NodeError

    url = os.environ.get(variable)
    started = False
    problem = ""
    if not url:
        try:
            status = node.start(**start)  # type: ignore[arg-type]
            url, started = status.url, not status.already_running
        except NodeError as exc:
            problem = str(exc)
    if not url:
        message = f"no {what} for the tests ({variable} unset): {problem}"
        if IN_CI:
            pytest.fail(message + " (CI=true: integration tests fail instead of skipping)")
        pytest.skip(message)  # outside CI only; under CI the line above fails
    yield url
    if started and os.environ.get("OSRAG_TEST_KEEP_NODE") != "1":
        node.stop(port=int(str(start["port"])), engine=str(start["engine"]))


@pytest.fixture(scope="session")
def elasticsearch_url() -> Iterator[str]:
    """The URL of a real Elasticsearch node (fails, never skips, under CI=true)."""
    from osrag import node

    port = int(os.environ.get("OSRAG_TEST_ES_PORT", node.DEFAULT_ES_PORT))
    yield from _local_engine(
        "OSRAG_TEST_ES_URL", "Elasticsearch node", engine="elasticsearch", port=port
    )


@pytest.fixture(scope="session")
def cluster_url() -> Iterator[str]:
    """The URL of a real three-node OpenSearch cluster (fails, never skips, under CI=true)."""
    from osrag import node

    port = int(os.environ.get("OSRAG_TEST_CLUSTER_PORT", node.DEFAULT_CLUSTER_PORT))
    yield from _local_engine(
        "OSRAG_TEST_CLUSTER_URL",
        "three-node OpenSearch cluster",
        engine="opensearch",
        port=port,
        nodes=3,
    )


@pytest.fixture(scope="session")
def os_client(opensearch_url: str) -> OpenSearch:
    client = OpenSearch(opensearch_url, timeout=60)
    info = client.info()
    assert info["version"]["number"].split(".")[0] in ("2", "3")  # the tested majors
    if LAYOUT_UNDER_TEST is not None:
        from osrag.ingestion.layout import cluster_default

        nodes = int(client.cluster.health()["number_of_data_nodes"])
        if cluster_default(nodes) != LAYOUT_UNDER_TEST:
            pytest.fail(
                f"this run expects every generation to have {LAYOUT_UNDER_TEST.describe()} "
                f"(OSRAG_TEST_SHARDS/OSRAG_TEST_REPLICAS), but on {opensearch_url} "
                f"({nodes} data nodes) osrag builds {cluster_default(nodes).describe()}"
            )
    return client


def _prefix_deleted_afterwards(
    client: Any, check: Callable[[str], None] | None = None
) -> Iterator[str]:
    prefix = f"osrag-test-{uuid.uuid4().hex[:10]}"
    yield prefix
    try:
        if check is not None:
            check(prefix)
    finally:
        with contextlib.suppress(Exception):
            client.indices.delete(index=f"{prefix}*", expand_wildcards="all")


@pytest.fixture
def index_prefix(os_client: OpenSearch, request: pytest.FixtureRequest) -> Iterator[str]:
    """A unique prefix for this test's indices and aliases, deleted afterwards (on the
    cluster pass, after checking every generation it built has the layout under test)."""
    checked = LAYOUT_UNDER_TEST is not None and not request.node.get_closest_marker("own_layout")
    check = functools.partial(_check_layouts, os_client) if checked else None
    yield from _prefix_deleted_afterwards(os_client, check)


def _check_layouts(client: OpenSearch, prefix: str) -> None:
    """Every generation index the test built has the layout under test."""
    from osrag.schema.ingest import GENERATION_NAME

    assert LAYOUT_UNDER_TEST is not None
    found = client.indices.get_settings(
        index=f"{prefix}*", expand_wildcards="all", ignore_unavailable=True, allow_no_indices=True
    )
    wrong = {
        name: (
            int(s["settings"]["index"]["number_of_shards"]),
            int(s["settings"]["index"]["number_of_replicas"]),
        )
        for name, s in found.items()
        if GENERATION_NAME.fullmatch(name)
    }
    wanted = (LAYOUT_UNDER_TEST.shards, LAYOUT_UNDER_TEST.replicas)
    wrong = {name: got for name, got in wrong.items() if got != wanted}
    assert not wrong, f"generations not laid out as {wanted} (shards, replicas): {wrong}"


@pytest.fixture(scope="session")
def es_client(elasticsearch_url: str) -> Any:
    """An elasticsearch-py 8 client of the session's Elasticsearch node."""
    from elasticsearch import Elasticsearch

    client = Elasticsearch(elasticsearch_url, request_timeout=60)
    assert client.cluster.health()["status"] in ("green", "yellow")
    return client


@pytest.fixture
def es_index_prefix(es_client: Any) -> Iterator[str]:
    """A unique prefix for this test's Elasticsearch indices and aliases, deleted afterwards."""
    yield from _prefix_deleted_afterwards(es_client)


ENGINE_FIXTURES = {
    "opensearch_url": "opensearch",
    "os_client": "opensearch",
    "index_prefix": "opensearch",
    "elasticsearch_url": "elasticsearch",
    "cluster_url": "cluster",
}
"""A test that uses one of these fixtures needs that engine: it carries its marker, so
``-m "not opensearch"`` never starts a node."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, marker in ENGINE_FIXTURES.items():
            if fixture in names and item.get_closest_marker(marker) is None:
                item.add_marker(marker)
        if "corpora" in names and item.get_closest_marker("corpus") is None:
            item.add_marker("corpus")


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The corpus slices in ``tests/data/corpora``: part of the checkout, so never skipped."""
    assert CORPORA.is_dir(), f"the corpus slices are missing from the checkout: {CORPORA}"
    return CORPORA


# --------------------------------------------------------------------------- backends
# The ingest/search/access/eval and contract suites run on every engine. ``backend_case``
# is parametrized: "opensearch" (the session cluster; marked ``opensearch``),
# "elasticsearch" (the session's Elasticsearch node; marked ``elasticsearch``) and
# "embedded" (a fresh index under this test's tmp_path; needs no cluster).

from backend_cases import BACKEND_PARAMS, open_case  # noqa: E402 - this section's own import


@pytest.fixture(params=BACKEND_PARAMS)
def backend_case(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    prefixes = {"opensearch": "index_prefix", "elasticsearch": "es_index_prefix"}
    fixture = prefixes.get(request.param)
    alias = request.getfixturevalue(fixture) if fixture else None
    case = open_case(request, request.param, tmp_path, alias)  # the prefix fixture cleans up
    yield case
    if case.kind == "embedded":
        case.backend.close()


@pytest.fixture(scope="session", autouse=True)
def _one_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One folder of stored ONNX graphs for the whole session: a test that gives itself a
    private vector cache (``OSRAG_CACHE_DIR``) does not build and store the default
    embedder's 90 MB graph again; the user's own cache is never touched. Tests of the
    graph store point ``OSRAG_MODEL_CACHE_DIR`` at their own folder."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_MODEL_CACHE_DIR", str(tmp_path_factory.mktemp("models")))
        yield


@pytest.fixture(scope="session")
def workspaces(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Folders holding the example corpus — alone, ingested into an embedded index, or
    ingested with the offline embedder's vectors — each built once on first use and
    copied for every test that asks (:class:`example_corpus.Workspaces`)."""
    from example_corpus import Workspaces

    return Workspaces(tmp_path_factory.mktemp("example-corpus"))
