"""What ``osrag node status`` reports, read from the running engine.

Both engines answer ``_nodes``, ``_cluster/health`` and ``_cat/plugins`` the
same way; ``GET /`` is not used because the Elasticsearch integ-test
distribution answers it with 405.
"""

from __future__ import annotations

import contextlib
import urllib.error

from pydantic import BaseModel

from .process import get_json


class MemberStatus(BaseModel):
    """One node of a cluster osrag started."""

    name: str
    url: str
    transport_port: int | None = None
    pid: int | None = None
    running: bool
    rss_mb: int | None = None
    folder: str


class NodeStatus(BaseModel):
    """What ``osrag node status`` reports for a single node or a cluster."""

    running: bool
    url: str
    engine: str = "opensearch"
    pid: int | None = None
    version: str | None = None
    health: str | None = None
    number_of_nodes: int | None = None
    plugins: list[str] = []
    transport_port: int | None = None
    rss_mb: int | None = None
    home: str
    already_running: bool = False
    nodes: list[MemberStatus] = []
    """A cluster's members, in order; empty for a single node."""


_PROBE_ERRORS = (OSError, ValueError, urllib.error.URLError)


def read_engine(result: NodeStatus) -> None:
    """Fill version, health, node count and plugins from the engine at ``result.url``."""
    url = result.url
    with contextlib.suppress(*_PROBE_ERRORS):
        nodes = get_json(url + "/_nodes?filter_path=nodes.*.version")
        if isinstance(nodes, dict):
            versions = {str(n.get("version")) for n in nodes.get("nodes", {}).values()}
            result.version = ",".join(sorted(versions)) or None
    with contextlib.suppress(*_PROBE_ERRORS):
        health = get_json(url + "/_cluster/health")
        if isinstance(health, dict):
            result.health = str(health.get("status"))
            result.number_of_nodes = int(health.get("number_of_nodes", 0))
    with contextlib.suppress(*_PROBE_ERRORS):
        rows = get_json(url + "/_cat/plugins?format=json&h=component")
        if isinstance(rows, list):
            result.plugins = sorted({str(r.get("component")) for r in rows})
