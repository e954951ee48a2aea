"""The OpenSearch and Elasticsearch clients, built from one :class:`~osrag.config.Settings`.

Rule: :func:`connect` turns one ``Settings`` into one opensearch-py client, and
:func:`connect_elasticsearch` into one elasticsearch-py 8 client
(``pip install 'osrag[elasticsearch]'``), by the same rules:

* ``https://`` URLs get the TLS context of :mod:`osrag.engines.rest.tls` (CA file or
  system trust store, host names checked, the client certificate loaded up front,
  ``OSRAG_VERIFY_CERTS=false`` warned about once);
* authentication is basic auth, a client certificate, an API key
  (``Authorization: ApiKey …``, from ``OSRAG_API_KEY`` or ``OSRAG_API_KEY_FILE``), or
  — OpenSearch only, Amazon OpenSearch Service's — AWS SigV4
  (``opensearchpy.Urllib3AWSV4SignerAuth`` with boto3's default credential chain;
  ``pip install 'osrag[aws]'``); never two that each send an ``Authorization`` header;
* Elasticsearch takes an Elastic Cloud ID (``OSRAG_CLOUD_ID``) in place of the URL;
* timeouts and retries come from the settings; the client library does the retrying.

The Elasticsearch client's major must match the server's: elasticsearch-py 9 sends
``compatible-with=9``, which Elasticsearch 8 refuses (HTTP 400,
``media_type_header_exception``), so the extra pins ``elasticsearch>=8.13,<9`` (an 8.x
client also talks to Elasticsearch 9, which accepts ``compatible-with=8``).

Nothing here talks to the cluster: wrap calls in :func:`osrag.engines.rest.errors.cluster_errors`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from opensearchpy import OpenSearch

from osrag.config import Settings, env_name, load_settings
from osrag.engines.rest.bulk import StreamingBulk
from osrag.engines.rest.tls import (
    InsecureTLSWarning as InsecureTLSWarning,  # re-exported: the public name
)
from osrag.engines.rest.tls import tls_context
from osrag.errors import ConfigError

# --------------------------------------------------------------------- both


@dataclass(frozen=True)
class ClientKit:
    """The parts of one client library the shared code needs."""

    streaming_bulk: StreamingBulk
    scan: Callable[..., Iterable[dict[str, Any]]]
    not_found: type[Exception]
    """Raised for a 404 answer."""
    conflict: type[Exception]
    """Raised for a 409 answer (a conditional write lost)."""
    http_error: type[Exception]
    """Raised for any HTTP error answer; carries ``status_code`` and ``error``."""
    scan_error: type[Exception]
    """Raised by :attr:`scan` when a shard did not answer a page."""

    def status(self, exc: BaseException) -> int | None:
        """The HTTP status of an error answer, None for anything else."""
        if isinstance(exc, self.http_error):
            code = getattr(exc, "status_code", None)
            return code if isinstance(code, int) else None
        return None


# --------------------------------------------------------------------- OpenSearch


def connect(settings: Settings | None = None) -> OpenSearch:
    """An opensearch-py client for ``settings`` (default: :func:`load_settings`).

    Raises :class:`ConfigError` for files that cannot be used (CA, client
    certificate/key, password file) or missing AWS credentials; nothing here
    talks to the cluster yet — wrap calls in :func:`cluster_errors`.
    """
    return OpenSearch(**client_options(settings if settings is not None else load_settings()))


def client_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of an opensearch-py client (sync or async) for ``settings``."""
    options: dict[str, Any] = {
        "hosts": [settings.effective_url],
        "timeout": settings.timeout,
        "max_retries": settings.max_retries,
        "retry_on_timeout": True,
    }
    if settings.uses_tls:
        options["use_ssl"] = True
        options["ssl_context"] = tls_context(settings)
    api_key = settings.api_key_header()
    if settings.uses_sigv4:
        options["http_auth"] = sigv4_auth(settings)
    elif api_key is not None:
        options["headers"] = {"authorization": f"ApiKey {api_key.get_secret_value()}"}
    else:
        pair = settings.basic_auth()
        if pair is not None:
            options["http_auth"] = (pair[0], pair[1].get_secret_value())
    return options


def sigv4_auth(settings: Settings) -> Any:
    """A SigV4 signer for every request, with boto3's default credential chain."""
    try:
        import boto3
        from botocore.exceptions import BotoCoreError
    except ImportError:
        raise ConfigError(
            f"signing requests with SigV4 ({env_name('aws_region')}) needs boto3: "
            "pip install 'osrag[aws]'"
        ) from None
    from opensearchpy import Urllib3AWSV4SignerAuth

    try:
        credentials = boto3.Session().get_credentials()
    except BotoCoreError as exc:
        raise ConfigError(f"cannot load AWS credentials: {exc}") from None
    if credentials is None:
        raise ConfigError(
            "no AWS credentials found by boto3's default chain (AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, SSO, or a container/instance role)"
        )
    _redact_session_tokens_in_botocore_logs()
    return Urllib3AWSV4SignerAuth(credentials, settings.aws_region, settings.aws_service)


class _RedactSessionToken(logging.Filter):
    """botocore logs each canonical request at DEBUG, session token included: mask it."""

    header = re.compile(r"(x-amz-security-token:)[^\n]*", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "x-amz-security-token" in message.lower():
            record.msg, record.args = self.header.sub(r"\1****", message), None
        return True


def _redact_session_tokens_in_botocore_logs() -> None:
    signer_log = logging.getLogger("botocore.auth")
    if not any(isinstance(f, _RedactSessionToken) for f in signer_log.filters):
        signer_log.addFilter(_RedactSessionToken())


# --------------------------------------------------------------------- Elasticsearch


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
