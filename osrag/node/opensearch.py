"""The OpenSearch distribution osrag runs: the integ-test zip, two modules and two plugins.

Maven Central's ``org.opensearch.distribution.integ-test-zip`` holds only the
transport modules. osrag adds ``analysis-common`` (the ``english`` analyzer
and friends) and ``lang-painless`` from their own artifacts, each with the
plugin descriptor the full distribution ships, so analysis behaves as on the
clusters users run; and it installs the ``opensearch-knn`` and
``neural-search`` plugins (vectors, the ``hybrid`` query, the RRF
``score-ranker-processor``) with OpenSearch's own ``opensearch-plugin
install --batch``, which checks that each was built for exactly this core
version and that its jars do not clash.

Those plugin zips carry no native libraries: only the ``lucene`` k-NN engine
works. Indexing into a ``faiss`` or ``nmslib`` field — or a ``knn_vector``
without ``method``, since faiss is the default — kills the node. osrag's
mappings always name ``"engine": "lucene"``.

A distribution prepared by an older osrag (no plugins) is completed in place
the next time a node starts from it; a node already running keeps what it
loaded at start until it is restarted.

Two releases are tested (``RELEASES``): 2.19.6, the default, on Java 11–23,
and 3.5.0 on Java 21 or newer. Maven Central serves no ``neural-search``
plugin for any 3.x release, so a 3.5.0 node runs k-NN only and osrag fuses
hybrid searches in the client there (the backend finds the plugin missing).
The 3.x integ-test zip already holds ``analysis-common`` and ``lang-painless``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from osrag.errors import NodeError
from osrag.writes import write_file

from .dist import READY, custom_archive, custom_tag, dist_lock, ensure_unpacked, jar_version
from .fetch import Artifact, Progress, fetch
from .java import JavaRange, find_java
from .process import base_environment, local_settings

VERSION = "2.19.6"
"""The default OpenSearch version (the newest 2.19.x Maven Central serves that runs on Java 17)."""

LAUNCHER = "opensearch"
PLUGIN_GROUP = "org.opensearch.plugin"


@dataclass(frozen=True)
class Module:
    """A module the integ-test zip lacks, rebuilt as the full distribution lays it out."""

    name: str
    classname: str
    description: str
    jars: tuple[Artifact, ...]
    extended_plugins: tuple[str, ...] = ()
    security_policy: str | None = None

    def descriptor(self, version: str) -> str:
        return "\n".join(
            [
                f"description={self.description}",
                f"version={version}",
                f"name={self.name}",
                f"classname={self.classname}",
                "java.version=11",
                f"opensearch.version={version}",
                "custom.foldername=",
                f"extended.plugins={','.join(self.extended_plugins)}",
                "has.native.controller=false",
                "",
            ]
        )


@dataclass(frozen=True)
class Plugin:
    """A plugin zip on Maven Central and the folder name it installs under."""

    name: str
    artifact_id: str
    sha1: dict[str, str]
    """SHA-1 per core version: Maven Central publishes no checksum for these zips."""

    def artifact(self, core_version: str) -> Artifact:
        # A plugin's version is the core version plus a fourth number; it must match exactly.
        return Artifact(
            PLUGIN_GROUP,
            self.artifact_id,
            f"{core_version}.0",
            "zip",
            sha1=self.sha1.get(core_version),
        )


# The digests were taken from two independent fetches (plain HTTPS, Maven) that agreed.
PLUGINS = (
    Plugin(
        "opensearch-knn",
        "opensearch-knn",
        {
            "2.19.6": "3f9fcc3784f9a731912e651d4926626695132eaf",
            "3.5.0": "20608161a60d995d58f83afef375ab34f5d019ae",
        },
    ),
    # Extends opensearch-knn: installed after it. Maven Central serves no 3.x build.
    Plugin(
        "opensearch-neural-search",
        "neural-search",
        {"2.19.6": "49882bec3918169127e224ade10f4f5d965fdc53"},
    ),
)


@dataclass(frozen=True)
class Release:
    """A tested OpenSearch version: the Java it runs on and its integ-test zip's pinned SHA-1."""

    version: str
    dist_sha1: str | None = None
    """For a zip Maven Central publishes no checksum for (3.5.0's)."""

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def java(self) -> JavaRange:
        return java_range(self.version)


RELEASES = (Release("2.19.6"), Release("3.5.0", "c7e501f75a9b9b08e82e7fdd500ed3998080a599"))
"""The versions osrag tests, oldest first; ``--version`` picks among them."""


def java_range(version: str) -> JavaRange:
    """The Java versions OpenSearch ``version`` (tested or a custom archive's) runs on."""
    if int(version.split(".")[0]) >= 3:
        return JavaRange(
            engine=f"OpenSearch {version}",
            low=21,
            high=None,
            reason="OpenSearch 3 is built for Java 21",
        )
    return JavaRange(
        engine=f"OpenSearch {version}",
        low=11,
        high=23,
        reason="it relies on the Security Manager, removed in Java 24",
    )


JAVA = java_range(VERSION)
"""The Java range of the default version."""


def resolve_version(requested: str | None) -> Release:
    """The tested release ``requested`` names: exact (``3.5.0``) or a major (``3.x``, ``3``).

    A major picks its newest tested release; None is the default version.
    """
    tested = ", ".join(r.version for r in RELEASES)
    if requested is None:
        requested = VERSION
    text = requested.strip().lower()
    major = text.removesuffix(".x")
    matching = [r for r in RELEASES if str(r.major) == major]
    if matching:
        return matching[-1]
    for release in RELEASES:
        if release.version == text:
            return release
    raise NodeError(
        f"OpenSearch {requested}: osrag runs the tested versions {tested} (or 2.x, 3.x for "
        "the newest of a major), or the archive named by OSRAG_OPENSEARCH_DIST"
    )


def plugins_for(version: str) -> tuple[Plugin, ...]:
    """The plugins osrag installs into ``version``: those it has a pinned zip for."""
    return tuple(p for p in PLUGINS if version in p.sha1)


def distribution_artifact(version: str = VERSION) -> Artifact:
    pinned = next((r.dist_sha1 for r in RELEASES if r.version == version), None)
    return Artifact(
        "org.opensearch.distribution.integ-test-zip", "opensearch", version, "zip", sha1=pinned
    )


def extra_modules(version: str = VERSION) -> tuple[Module, ...]:
    """``lang-painless`` (which ``analysis-common`` and k-NN extend) and ``analysis-common``."""
    painless = Module(
        name="lang-painless",
        classname="org.opensearch.painless.PainlessPlugin",
        description="An easy, safe and fast scripting language for OpenSearch",
        jars=(
            Artifact(PLUGIN_GROUP, "lang-painless", version),
            Artifact(PLUGIN_GROUP, "opensearch-scripting-painless-spi", version),
            Artifact("org.antlr", "antlr4-runtime", "4.13.1"),
            *(
                Artifact("org.ow2.asm", name, "9.7")
                for name in ("asm", "asm-util", "asm-tree", "asm-commons", "asm-analysis")
            ),
        ),
        security_policy=(
            "grant {\n"
            '  permission java.lang.RuntimePermission "createClassLoader";\n'
            '  permission java.lang.RuntimePermission "getClassLoader";\n'
            "};\n"
        ),
    )
    common = Module(
        name="analysis-common",
        classname="org.opensearch.analysis.common.CommonAnalysisPlugin",
        description='Adds "built in" analyzers to OpenSearch.',
        jars=(Artifact(PLUGIN_GROUP, "analysis-common", version),),
        extended_plugins=("lang-painless",),
    )
    return (painless, common)


def dist_version(dist: Path) -> str:
    return jar_version(dist, "opensearch")


def add_modules(dist: Path, downloads: Path, progress: Progress) -> None:
    version = dist_version(dist)
    wanted = [m for m in extra_modules(version) if not (dist / "modules" / m.name).exists()]
    if not wanted:
        return
    fetch([jar for m in wanted for jar in m.jars], downloads, progress)
    for module in wanted:
        folder = dist / "modules" / module.name
        folder.mkdir(parents=True)
        for jar in module.jars:
            shutil.copy2(downloads / jar.filename, folder / jar.filename)
        write_file(folder / "plugin-descriptor.properties", module.descriptor(version))
        if module.security_policy:
            write_file(folder / "plugin-security.policy", module.security_policy)
        progress(f"added module {module.name} {version}")


def missing_plugins(dist: Path) -> list[Plugin]:
    """The plugins osrag installs into ``dist``'s version that it lacks.

    A custom archive of a version osrag pins no plugins for gets the newest
    pinned set of its major (``opensearch-plugin`` refuses a mismatch clearly).
    """
    version = dist_version(dist)
    wanted = plugins_for(version) or plugins_for(_newest_of_major(version))
    return [p for p in wanted if not (dist / "plugins" / p.name).is_dir()]


def _newest_of_major(version: str) -> str:
    major = int(version.split(".")[0])
    same = [r.version for r in RELEASES if r.major == major]
    return same[-1] if same else VERSION


def install_plugins(dist: Path, downloads: Path, progress: Progress) -> None:
    """Fetch and install the plugins ``dist`` lacks; an installed one is left as it is."""
    wanted = missing_plugins(dist)
    if not wanted:
        return
    version = dist_version(dist)
    artifacts = [p.artifact(version) for p in wanted]
    fetch(artifacts, downloads, progress)
    java = find_java(java_range(version), dist)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "OPENSEARCH_JAVA_HOME": str(java.home),
        "JAVA_HOME": str(java.home),
        "OPENSEARCH_PATH_CONF": str(dist / "config"),
    }
    urls = [(downloads / a.filename).resolve().as_uri() for a in artifacts]
    progress(f"installing plugins {', '.join(p.name for p in wanted)} {version}")
    proc = subprocess.run(
        [str(dist / "bin" / "opensearch-plugin"), "install", "--batch", *urls],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-10:])
        raise NodeError(
            f"opensearch-plugin could not install {', '.join(p.name for p in wanted)} "
            f"into {dist}:\n{tail}"
        )


def ensure_distribution(home: Path, progress: Progress, version: str = VERSION) -> Path:
    """The unpacked distribution of ``version`` with its modules and plugins, prepared once.

    ``OSRAG_OPENSEARCH_DIST`` names an archive to use instead, whatever ``version``.
    """
    downloads = home / "downloads"
    custom = os.environ.get("OSRAG_OPENSEARCH_DIST")
    with dist_lock(home):
        if custom:
            archive = custom_archive("OSRAG_OPENSEARCH_DIST", custom)
            dist = home / f"opensearch-custom-{custom_tag(archive)}"
            artifact = None
        else:
            artifact = distribution_artifact(version)
            dist = home / f"opensearch-{artifact.version}"
            archive = downloads / artifact.filename
        if not (dist / READY).exists():
            ensure_unpacked(
                home,
                dist,
                archive,
                LAUNCHER,
                progress,
                artifact,
                finish=lambda top: add_modules(top, downloads, progress),
            )
        install_plugins(dist, downloads, progress)
    return dist


def node_settings(
    *,
    name: str,
    cluster_name: str,
    node_dir: Path,
    http_port: int,
    transport_port: int | None,
    seeds: list[int] | None,
    managers: list[str] | None,
    dist: Path,
) -> list[str]:
    """``-E`` settings for one node: single-node discovery, or a member of a loopback cluster."""
    settings = [
        f"-Ecluster.name={cluster_name}",
        f"-Enode.name={name}",
        *local_settings(http_port, node_dir),
    ]
    if transport_port is not None:
        settings.append(f"-Etransport.port={transport_port}")
    if seeds is None:
        settings.append("-Ediscovery.type=single-node")
    else:
        settings.append("-Ediscovery.seed_hosts=" + ",".join(f"127.0.0.1:{p}" for p in seeds))
        settings.append("-Ecluster.initial_cluster_manager_nodes=" + ",".join(managers or []))
    if (dist / "plugins" / "opensearch-security").is_dir():
        # A full distribution (OSRAG_OPENSEARCH_DIST) ships the security plugin,
        # which needs certificates this development node does not have.
        settings.append("-Eplugins.security.disabled=true")
    return settings


def environment(java_home: Path, node_dir: Path, config_dir: Path, heap: str) -> dict[str, str]:
    return base_environment(node_dir) | {
        "OPENSEARCH_JAVA_HOME": str(java_home),
        "JAVA_HOME": str(java_home),
        "OPENSEARCH_PATH_CONF": str(config_dir),
        "OPENSEARCH_TMPDIR": str(node_dir / "tmp"),
        "OPENSEARCH_JAVA_OPTS": f"-Xms{heap} -Xmx{heap}",
    }
