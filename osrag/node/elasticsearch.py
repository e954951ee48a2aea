"""The Elasticsearch distribution osrag runs: Maven Central's integ-test zip.

``org.elasticsearch.distribution.integ-test-zip:elasticsearch:<version>:zip``
has only the ``apm``, ``transport-netty4``, ``x-pack-core`` and
``x-pack-security`` modules: security is switched off
(``xpack.security.enabled=false``), ``GET /`` answers 405 (there is no
``rest-root`` module, so health is probed with ``_cluster/health`` and the
version read from ``_nodes``), and there is no ``analysis-common`` (no
``english`` analyzer). ``dense_vector`` kNN with a filter works.

Measured here: 8.15.0 runs on Java 17 and dies on Java 25 (it enables the
Security Manager); Maven Central lists no 9.x in the artifact's metadata but
serves 9.0.0 and 9.1.0: both refuse Java 17 (they need 21+), 9.0.0 fails its
entitlement self-test on Java 25, 9.1.0 runs on Java 25. ``--engine-version``
picks another version; ``OSRAG_ELASTICSEARCH_DIST`` names a local archive
(for example the full distribution with its bundled JDK) to use instead.

The launcher (``bin/elasticsearch``) is a small JVM that starts the server
JVM as its child and stops it when it receives SIGTERM; osrag records and
signals the launcher.
"""

from __future__ import annotations

import os
from pathlib import Path

from osrag.errors import NodeError

from .dist import custom_archive, custom_tag, dist_lock, ensure_unpacked, jar_version
from .fetch import Artifact, Progress
from .java import JavaRange
from .process import base_environment, local_settings

VERSION = "8.15.0"
LAUNCHER = "elasticsearch"


def distribution_artifact(version: str = VERSION) -> Artifact:
    return Artifact(
        "org.elasticsearch.distribution.integ-test-zip", "elasticsearch", version, "zip"
    )


def java_range(version: str) -> JavaRange:
    """Elasticsearch 8.x needs the Security Manager (Java ≤ 23); 9.x needs Java 21+."""
    major = int(version.split(".")[0])
    engine = f"Elasticsearch {version}"
    if major >= 9:
        return JavaRange(engine, 21, None, "Elasticsearch 9 needs Java 21 or newer")
    if major == 8:
        return JavaRange(engine, 17, 23, "it relies on the Security Manager, removed in Java 24")
    raise NodeError(f"Elasticsearch {version}: osrag runs Elasticsearch 8.x and 9.x only")


def ensure_distribution(home: Path, progress: Progress, version: str = VERSION) -> Path:
    """The unpacked distribution, fetched and unpacked once."""
    custom = os.environ.get("OSRAG_ELASTICSEARCH_DIST")
    downloads = home / "downloads"
    with dist_lock(home):
        if custom:
            archive = custom_archive("OSRAG_ELASTICSEARCH_DIST", custom)
            dist = home / f"elasticsearch-custom-{custom_tag(archive)}"
            return ensure_unpacked(home, dist, archive, LAUNCHER, progress)
        artifact = distribution_artifact(version)
        dist = home / f"elasticsearch-{version}"
        return ensure_unpacked(
            home, dist, downloads / artifact.filename, LAUNCHER, progress, artifact
        )


def dist_version(dist: Path) -> str:
    return jar_version(dist, "elasticsearch")


def node_settings(
    *, name: str, node_dir: Path, http_port: int, transport_port: int | None
) -> list[str]:
    settings = [
        "-Ecluster.name=osrag-dev",
        f"-Enode.name={name}",
        "-Ediscovery.type=single-node",
        *local_settings(http_port, node_dir),
        "-Expack.security.enabled=false",
    ]
    if transport_port is not None:
        settings.append(f"-Etransport.port={transport_port}")
    return settings


def environment(java_home: Path, node_dir: Path, config_dir: Path, heap: str) -> dict[str, str]:
    return base_environment(node_dir) | {
        "ES_JAVA_HOME": str(java_home),
        "ES_PATH_CONF": str(config_dir),
        "ES_TMPDIR": str(node_dir / "tmp"),
        "ES_JAVA_OPTS": f"-Xms{heap} -Xmx{heap}",
    }
