"""Local development engines: OpenSearch (one node or a loopback cluster) and Elasticsearch.

No Docker needed. OpenSearch is Maven Central's integ-test zip plus the
``analysis-common`` and ``lang-painless`` modules and the ``opensearch-knn``
and ``neural-search`` plugins (see :mod:`osrag.node.opensearch`);
Elasticsearch is its integ-test zip (see :mod:`osrag.node.elasticsearch`).
Both run with the machine's Java (or another JDK under /usr/lib/jvm when
the default cannot run the version), bound to 127.0.0.1, heap 512m, disk
thresholds off; as root, as the unprivileged user ``osrag`` (both engines
refuse root).

Where files go (``OSRAG_HOME``; default ``~/.cache/osrag``, or
``/var/cache/osrag`` when run as root, because ``/root`` is private)::

    downloads/                 the artifacts as fetched (checksums verified)
    opensearch-<version>/      the unpacked OpenSearch with the added modules and plugins
    elasticsearch-<version>/   the unpacked Elasticsearch
    node-<port>/               an OpenSearch node: data/, logs/, config/, node.pid, console.log
    es-node-<port>/            an Elasticsearch node, laid out the same way
    cluster-<port>/            an OpenSearch cluster: cluster.json and node-<i>/ per node

Modules: :mod:`.fetch` (Maven, else HTTPS + SHA-1), :mod:`.java` (a Java the
engine accepts), :mod:`.dist` (unpack once, under a lock), :mod:`.process`
(folders, user, pid files, shutdown), :mod:`.launch` (prepare and wait),
:mod:`.single` and :mod:`.cluster`.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum
from pathlib import Path

from osrag.errors import NodeError

from . import cluster, single
from .elasticsearch import VERSION as ELASTICSEARCH_VERSION
from .fetch import Artifact, Progress, fetch
from .java import Java, JavaRange, find_java
from .opensearch import PLUGINS, distribution_artifact, extra_modules, plugins_for
from .opensearch import RELEASES as OPENSEARCH_RELEASES
from .opensearch import VERSION as OPENSEARCH_VERSION
from .opensearch import resolve_version as resolve_opensearch
from .process import SERVICE_USER, NodeLayout
from .status import MemberStatus, NodeStatus

__all__ = [
    "DEFAULT_HEAP",
    "DEFAULT_PORT",
    "ELASTICSEARCH_VERSION",
    "OPENSEARCH_RELEASES",
    "OPENSEARCH_VERSION",
    "PLUGINS",
    "SERVICE_USER",
    "Artifact",
    "Engine",
    "Java",
    "JavaRange",
    "MemberStatus",
    "NodeLayout",
    "NodeStatus",
    "default_home",
    "default_port",
    "distribution_artifact",
    "extra_modules",
    "fetch",
    "find_java",
    "plugins_for",
    "start",
    "status",
    "stop",
]


class Engine(StrEnum):
    OPENSEARCH = "opensearch"
    ELASTICSEARCH = "elasticsearch"


DEFAULT_PORT = 9200
DEFAULT_ES_PORT = 9400
DEFAULT_CLUSTER_PORT = 9500
DEFAULT_HEAP = "512m"
DEFAULT_TIMEOUT = 180.0
DEFAULT_CLUSTER_TIMEOUT = 300.0
MAX_NODES = 9


def default_home() -> Path:
    env = os.environ.get("OSRAG_HOME")
    if env:
        return Path(env).expanduser().resolve()
    if os.geteuid() == 0:
        return Path("/var/cache/osrag")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "osrag"


def default_port(engine: str = Engine.OPENSEARCH, nodes: int = 1) -> int:
    """9200 for OpenSearch, 9400 for Elasticsearch, 9500 for a cluster."""
    if nodes > 1:
        return DEFAULT_CLUSTER_PORT
    return DEFAULT_ES_PORT if engine == Engine.ELASTICSEARCH else DEFAULT_PORT


def start(
    port: int | None = None,
    heap: str = DEFAULT_HEAP,
    timeout: float | None = None,
    home: Path | None = None,
    progress: Progress = lambda _msg: None,
    *,
    engine: str = Engine.OPENSEARCH,
    nodes: int = 1,
    transport_port: int | None = None,
    engine_version: str | None = None,
) -> NodeStatus:
    """Start a node (or a cluster when ``nodes > 1``), or find it running; wait until healthy.

    A single node is ready at yellow; a cluster at green with all ``nodes``
    joined. ``transport_port`` is the first node's (default: the engine picks a
    free one in 9300–9399 for a single node; ``port + 100`` for a cluster).
    """
    engine = Engine(engine)
    if not re.fullmatch(r"\d+[kmgKMG]", heap):
        raise NodeError(f"heap {heap!r} is not a JVM size such as 512m or 1g")
    if not 1 <= nodes <= MAX_NODES:
        raise NodeError(f"--nodes {nodes}: osrag starts 1 to {MAX_NODES} nodes")
    port = port or default_port(engine, nodes)
    home = home or default_home()
    if nodes > 1:
        if engine != Engine.OPENSEARCH:
            raise NodeError("a multi-node cluster is available for OpenSearch only")
        if engine_version is not None and (
            resolve_opensearch(engine_version).version != OPENSEARCH_VERSION
        ):
            raise NodeError(
                f"--version {engine_version}: a multi-node cluster runs OpenSearch "
                f"{OPENSEARCH_VERSION} only; start other versions as single nodes"
            )
        return cluster.start(
            home,
            port,
            nodes,
            heap=heap,
            timeout=timeout or DEFAULT_CLUSTER_TIMEOUT,
            transport_port=transport_port,
            progress=progress,
        )
    return single.start(
        NodeLayout(home, port, engine),
        heap=heap,
        timeout=timeout or DEFAULT_TIMEOUT,
        transport_port=transport_port,
        version=engine_version,
        progress=progress,
    )


def _single_layouts(home: Path, port: int, engine: str | None) -> list[NodeLayout]:
    engines = [Engine(engine)] if engine else list(Engine)
    return [NodeLayout(home, port, e) for e in engines]


def status(
    port: int = DEFAULT_PORT, home: Path | None = None, engine: str | None = None
) -> NodeStatus:
    """The node or cluster osrag started on ``port`` (its first node's HTTP port)."""
    home = home or default_home()
    record = cluster.read_record(home, port)
    if record is not None and engine in (None, record.engine):
        result = cluster.status(home, record)
        if result.running or engine is not None:
            return result
    candidates = _single_layouts(home, port, engine)
    found = [single.status(layout) for layout in candidates]
    running = [s for s in found if s.running]
    if running:
        return running[0]
    if record is not None:
        return cluster.status(home, record)
    existing = [s for s, lay in zip(found, candidates, strict=True) if single.exists(lay)]
    return (existing or found)[0]


def stop(port: int = DEFAULT_PORT, home: Path | None = None, engine: str | None = None) -> bool:
    """Stop what osrag started on ``port`` (and nothing else). False when nothing was running."""
    home = home or default_home()
    stopped = False
    record = cluster.read_record(home, port)
    if record is not None and engine in (None, record.engine):
        stopped = cluster.stop(home, record)
    for layout in _single_layouts(home, port, engine):
        stopped = single.stop(layout) or stopped
    return stopped
