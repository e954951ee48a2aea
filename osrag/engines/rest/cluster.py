"""Asking a cluster who it is: which engine answers (:func:`detect_engine`, for
``backend = "auto"`` with a URL) and what ``osrag config check`` prints
(:func:`check_connection`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from osrag.config import Settings, load_settings
from osrag.engines.rest.clients import cluster_identity, connect, connect_elasticsearch
from osrag.engines.rest.errors import cluster_errors
from osrag.engines.rest.failures import describe_auth


class ClusterInfo(BaseModel):
    """What ``osrag config check`` prints: who answered, and how we reached it."""

    url: str
    cluster_name: str | None
    version: str | None
    distribution: str | None
    auth: str
    tls: str


Engine = Literal["opensearch", "elasticsearch"]

ENGINE_PROBE = "/_cluster/health"
"""Answered by OpenSearch and by every Elasticsearch distribution (the integ-test zip has
no ``rest-root`` module: its ``GET /`` is a 405)."""


def detect_engine(settings: Settings) -> Engine:
    """Which engine answers at the settings' cluster.

    A Cloud ID is Elasticsearch and SigV4 is Amazon OpenSearch, without asking.
    Otherwise one ``GET /_cluster/health``: Elasticsearch marks every answer, an
    error included, with the header ``X-elastic-product: Elasticsearch``;
    OpenSearch never does. A 4xx still carries the header, so a user without
    the monitor privilege is told apart too; 5xx and connection failures are
    the usual :class:`ClusterError`.
    """
    if settings.cloud_id is not None:
        return "elasticsearch"
    if settings.uses_sigv4:
        return "opensearch"
    client = connect(settings)
    try:
        with cluster_errors(settings):
            _status, headers, _body = client.transport.get_connection().perform_request(
                "GET", ENGINE_PROBE, ignore=tuple(range(400, 500))
            )
    finally:
        client.close()
    product = headers.get("X-elastic-product") if headers is not None else None
    return "elasticsearch" if product == "Elasticsearch" else "opensearch"


def describe_tls(settings: Settings) -> str:
    if not settings.uses_tls:
        return "off (http://)"
    if not settings.verify_certs:
        return "on, certificate NOT verified"
    trusted = f"CA file {settings.ca_certs}" if settings.ca_certs else "system CAs"
    return f"on, certificate verified against {trusted}"


def check_connection(settings: Settings | None = None) -> ClusterInfo:
    """Connect and ask the cluster who it is; raise a clear error when that fails."""
    settings = settings if settings is not None else load_settings()
    engine = settings.backend if settings.backend in ("opensearch", "elasticsearch") else None
    if engine is None:
        engine = detect_engine(settings)
    client = connect_elasticsearch(settings) if engine == "elasticsearch" else connect(settings)
    try:
        with cluster_errors(settings):
            if engine == "elasticsearch":
                name, version = cluster_identity(client)
                distribution = "elasticsearch"
            elif settings.is_serverless:
                # Serverless has no `GET /`; HEAD on the alias needs only aoss:DescribeIndex.
                client.indices.exists(index=settings.alias)
                name = version = None
                distribution = "Amazon OpenSearch Serverless"
            else:
                info = client.info()
                name = info.get("cluster_name")
                version = info.get("version", {}).get("number")
                distribution = info.get("version", {}).get("distribution", "opensearch")
    finally:
        client.close()
    return ClusterInfo(
        url=settings.effective_url,
        cluster_name=name,
        version=version,
        distribution=distribution,
        auth=describe_auth(settings),
        tls=describe_tls(settings),
    )
