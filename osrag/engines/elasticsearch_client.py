"""The Elasticsearch client, built from the same :class:`~osrag.config.Settings`, and its failures.

Rule: :func:`connect_elasticsearch` turns one ``Settings`` into one
elasticsearch-py 8 client (``pip install 'osrag[elasticsearch]'``), exactly as
:func:`osrag.engines.opensearch_client.connect` does for OpenSearch:

* the URL, or an Elastic Cloud ID (``OSRAG_CLOUD_ID``) in its place;
* ``https://`` gets the same TLS context (CA file or system trust store, client
  certificate loaded up front, ``OSRAG_VERIFY_CERTS=false`` warned about once);
* authentication is an API key (``Authorization: ApiKey …``, from
  ``OSRAG_API_KEY`` or ``OSRAG_API_KEY_FILE``), basic auth, or a client
  certificate; SigV4 is Amazon OpenSearch Service's and is refused here.

The client major must match the server's: elasticsearch-py 9 sends
``compatible-with=9``, which Elasticsearch 8 refuses (HTTP 400,
``media_type_header_exception``), so the extra pins ``elasticsearch>=8.13,<9``
(an 8.x client also talks to Elasticsearch 9, which accepts ``compatible-with=8``).

:func:`translate_elastic_error` gives elasticsearch-py's and elastic-transport's
exceptions the same one-line messages as opensearch-py's (both come from
:mod:`osrag.engines.failures`; :func:`osrag.engines.opensearch_client.translate_error`
delegates here),
plus two of Elasticsearch's own: that header mismatch, and a server that is
not Elasticsearch (the client refuses answers without ``X-elastic-product``).
Invariant: no message contains the API key, the password or key material.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from osrag.config import Settings, env_name
from osrag.engines.failures import (
    connection_failure,
    http_failure,
    short,
    timeout_failure,
    tls_failure,
)
from osrag.engines.tls import tls_context
from osrag.errors import ClusterError, ConfigError

CLIENT_REQUIREMENT = "elasticsearch>=8.13,<9"
INSTALL = "pip install 'osrag[elasticsearch]'"


def client_library() -> ModuleType:
    """The elasticsearch package, or a :class:`ConfigError` saying how to install it."""
    try:
        import elasticsearch
    except ImportError:
        raise ConfigError(
            f"the Elasticsearch engine needs the official client ({CLIENT_REQUIREMENT}): {INSTALL}"
        ) from None
    return elasticsearch


def client_version() -> str:
    return str(client_library().__versionstr__)


def connect_elasticsearch(settings: Settings) -> Any:
    """An ``elasticsearch.Elasticsearch`` for ``settings``; nothing is sent yet."""
    return client_library().Elasticsearch(**elasticsearch_options(settings))


def elasticsearch_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of an elasticsearch-py client (sync or async) for ``settings``."""
    if settings.uses_sigv4:
        raise ConfigError(
            f"{env_name('aws_region')} signs requests with AWS SigV4, which is Amazon OpenSearch "
            "Service's; Elasticsearch takes an API key, basic auth or a client certificate"
        )
    options: dict[str, Any] = {
        "request_timeout": settings.timeout,
        "max_retries": settings.max_retries,
        "retry_on_timeout": True,
    }
    if settings.cloud_id is not None:
        options["cloud_id"] = settings.cloud_id
    else:
        options["hosts"] = [settings.effective_url]
    if settings.uses_tls:
        options["ssl_context"] = tls_context(settings)
        options["ssl_show_warn"] = False  # tls_context has warned once if verification is off
    api_key = settings.api_key_header()
    if api_key is not None:
        options["api_key"] = api_key.get_secret_value()
    else:
        pair = settings.basic_auth()
        if pair is not None:
            options["basic_auth"] = (pair[0], pair[1].get_secret_value())
    return options


def cluster_identity(client: Any) -> tuple[str | None, str | None]:
    """``(cluster name, version)`` — from ``_cluster/health`` and ``_nodes/_local``, which
    every distribution has (the integ-test zip answers ``GET /`` with 405)."""
    name = client.cluster.health().get("cluster_name")
    nodes = client.nodes.info(node_id="_local", filter_path="nodes.*.version")
    versions = [n.get("version") for n in dict(nodes).get("nodes", {}).values()]
    return name, (versions[0] if versions else None)


# --------------------------------------------------------------------- errors


def _elastic_module(exc: BaseException) -> bool:
    return type(exc).__module__.split(".")[0] in ("elasticsearch", "elastic_transport")


def _compatibility_refused(body: Any) -> str | None:
    """The server's reason when it refused the client's ``compatible-with`` header."""
    if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
        return None
    error = body["error"]
    if error.get("type") != "media_type_header_exception":
        return None
    cause = error.get("caused_by") or {}
    return str(cause.get("reason") or error.get("reason") or "")


def translate_elastic_error(
    exc: BaseException, url: str, settings: Settings | None
) -> ClusterError | ConfigError | None:
    """The osrag error for what elasticsearch-py raised while talking to ``url``."""
    if not _elastic_module(exc):
        return None
    import elastic_transport
    from elasticsearch import ApiError, UnsupportedProductError

    if isinstance(exc, UnsupportedProductError):
        return ClusterError(
            f"{url} is not Elasticsearch (its answer has no X-elastic-product header; "
            "OpenSearch?): use --backend opensearch, or auto to let osrag tell"
        )
    if isinstance(exc, ApiError):
        refused = _compatibility_refused(exc.body)
        if exc.meta.status == 400 and refused is not None:
            return ClusterError(
                f"{url} refused the requests of elasticsearch-py {client_version()} "
                f"({short(refused)}): the client's major version must match the server's; "
                f"{INSTALL} installs {CLIENT_REQUIREMENT} for Elasticsearch 8"
            )
        return http_failure(exc.meta.status, exc.body, str(exc.message), url, settings)
    if isinstance(exc, elastic_transport.ConnectionTimeout):
        return timeout_failure(url, settings)
    if isinstance(exc, elastic_transport.TlsError):
        return tls_failure(_reason(exc), url, settings)
    if isinstance(exc, elastic_transport.ConnectionError):
        return connection_failure(_reason(exc), url, settings)
    if isinstance(exc, elastic_transport.SerializationError):
        return ClusterError(f"{url} answered something that is not JSON: is it Elasticsearch?")
    return None


def _reason(exc: BaseException) -> str:
    """The low-level message of an elastic-transport error (its ``str`` is only "TLS error"
    or "Connection error"; ``message`` holds what urllib3 and ssl said)."""
    message = getattr(exc, "message", None)
    return str(message) if message else str(exc)
