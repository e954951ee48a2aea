"""Preparing an engine and waiting for the nodes it starts: shared by single nodes and clusters."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import urllib.error
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from osrag.errors import NodeError

from . import elasticsearch, opensearch
from .fetch import Progress
from .java import Java, JavaRange, find_java
from .process import NodeLayout, get_json, last_logs, terminate


@dataclass(frozen=True)
class Prepared:
    """A distribution ready to run and the Java to run it with."""

    engine: str
    dist: Path
    java: Java
    version: str

    @property
    def label(self) -> str:
        name = "OpenSearch" if self.engine == "opensearch" else "Elasticsearch"
        return f"{name} {self.version}"

    @property
    def launcher(self) -> Path:
        return self.dist / "bin" / self.engine

    def environment(self, layout: NodeLayout, config_dir: Path, heap: str) -> dict[str, str]:
        module = opensearch if self.engine == "opensearch" else elasticsearch
        return module.environment(self.java.home, layout.node_dir, config_dir, heap)


def java_range(engine: str, version: str | None) -> JavaRange:
    """``version`` is what the user asked for (``3.x`` too) or a distribution's own."""
    if engine == "opensearch":
        if version is not None and version.count(".") == 2 and version[0].isdigit():
            return opensearch.java_range(version)
        return opensearch.resolve_version(version).java
    return elasticsearch.java_range(version or elasticsearch.VERSION)


def check_java_early(engine: str, version: str | None) -> None:
    """Refuse a missing or unsuitable Java before any download (unless a bundled JDK may come)."""
    custom = "OSRAG_OPENSEARCH_DIST" if engine == "opensearch" else "OSRAG_ELASTICSEARCH_DIST"
    if engine == "opensearch":
        opensearch.resolve_version(version)  # an unknown version is refused before anything
    if not os.environ.get(custom):
        find_java(java_range(engine, version))


def prepare(engine: str, home: Path, progress: Progress, version: str | None) -> Prepared:
    if engine == "opensearch":
        release = opensearch.resolve_version(version)
        dist = opensearch.ensure_distribution(home, progress, release.version)
        actual = opensearch.dist_version(dist)
    else:
        dist = elasticsearch.ensure_distribution(home, progress, version or elasticsearch.VERSION)
        actual = elasticsearch.dist_version(dist)
    java = find_java(java_range(engine, actual), dist)
    return Prepared(engine=engine, dist=dist, java=java, version=actual)


def wait_until_ready(
    started: list[tuple[str, NodeLayout, subprocess.Popen[bytes]]],
    probe_url: str,
    ready: Callable[[dict[str, object]], bool],
    timeout: float,
    target: str,
) -> None:
    """Poll ``probe_url`` until ``ready``; if a node exits or time runs out, stop all and raise.

    ``started`` holds (name, layout, process) for each node this call launched.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, layout, proc in started:
            if proc.poll() is not None:
                _stop_all(started)
                others = " (the other nodes were stopped)" if len(started) > 1 else ""
                raise NodeError(
                    f"{name} exited with code {proc.returncode} "
                    f"before the {target} was healthy{others}; "
                    f"last lines of its log in {layout.node_dir}:\n{last_logs(layout)}"
                )
        with contextlib.suppress(OSError, ValueError, urllib.error.URLError):
            health = get_json(probe_url, timeout=5)
            if isinstance(health, dict) and ready(health):
                return
        time.sleep(0.5)
    _stop_all(started)
    logs = "\n".join(
        f"--- {name} ({layout.node_dir}):\n{last_logs(layout)}" for name, layout, _ in started
    )
    raise NodeError(
        f"the {target} was not healthy within {timeout:.0f} s; its logs end with:\n{logs}"
    )


def _stop_all(started: list[tuple[str, NodeLayout, subprocess.Popen[bytes]]]) -> None:
    for _name, _layout, proc in started:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
    for _name, layout, proc in started:
        if proc.poll() is None:
            terminate(proc.pid, grace=20)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        layout.pid_file.unlink(missing_ok=True)
