"""The OpenSearch client, built from :class:`~osrag.config.Settings`, and plain-language failures.

Rule: :func:`connect` turns one ``Settings`` into one opensearch-py client.

* ``https://`` URLs get the TLS context of :mod:`osrag.engines.tls` (CA file or system
  trust store, host names checked, the client certificate loaded up front).
* Authentication is basic auth, a client certificate, an API key
  (``Authorization: ApiKey …``), or AWS SigV4
  (``opensearchpy.Urllib3AWSV4SignerAuth`` with boto3's default credential
  chain; ``pip install 'osrag[aws]'``) — never two that each send an
  ``Authorization`` header.
* Timeouts and retries come from the settings; opensearch-py does the retrying.

:func:`detect_engine` tells OpenSearch from Elasticsearch by asking the cluster
(``backend = "auto"`` with a URL); :mod:`osrag.engines.elasticsearch_client` builds the
Elasticsearch client from the same settings.

:func:`cluster_errors` wraps calls and turns what opensearch-py, urllib3 and
``ssl`` raise into :class:`~osrag.errors.ClusterError` / ``AuthError`` /
``TLSError`` with one sentence a user can act on (refused, unresolvable host,
timeout, 401, 403, unknown CA, host-name mismatch, expired certificate, plain
HTTP to a TLS port, TLS to a plain port, client certificate missing or refused).

The messages themselves are in :mod:`osrag.engines.failures`, shared with
:mod:`osrag.engines.elasticsearch_client`, which this module delegates Elasticsearch's
exceptions to.
"""

from __future__ import annotations

import contextlib
import logging
import re
import ssl
from collections.abc import Iterator
from typing import Any, Literal

from opensearchpy import OpenSearch
from opensearchpy import exceptions as os_exc
from pydantic import BaseModel

from osrag.config import Settings, env_name, load_settings
from osrag.engines.elasticsearch_client import (
    cluster_identity,
    connect_elasticsearch,
    translate_elastic_error,
)
from osrag.engines.failures import (
    connection_failure,
    describe_auth,
    http_failure,
    timeout_failure,
    tls_failure,
)
from osrag.engines.tls import (
    InsecureTLSWarning as InsecureTLSWarning,  # re-exported: the public name
)
from osrag.engines.tls import tls_context
from osrag.errors import ClusterError, ConfigError, OsragError


class ClusterInfo(BaseModel):
    """What ``osrag config check`` prints: who answered, and how we reached it."""

    url: str
    cluster_name: str | None
    version: str | None
    distribution: str | None
    auth: str
    tls: str


# --------------------------------------------------------------------- connect


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


# --------------------------------------------------------------------- errors


@contextlib.contextmanager
def cluster_errors(target: Settings | str) -> Iterator[None]:
    """Re-raise failures talking to the cluster as one clear :class:`ClusterError`.

    ``target`` is the settings used (best: the message can name the user, CA
    file and timeout) or just the URL. ``OsragError`` passes through unchanged;
    exceptions that are not about the cluster (bugs) are not touched.
    """
    settings = target if isinstance(target, Settings) else None
    url = target.effective_url if isinstance(target, Settings) else target.rstrip("/")
    try:
        yield
    except OsragError:
        raise
    except Exception as exc:
        translated = translate_error(exc, url, settings)
        if translated is None:
            raise
        raise translated from exc


def translate_error(
    exc: BaseException, url: str, settings: Settings | None = None
) -> ClusterError | ConfigError | None:
    """The osrag error for an exception raised while talking to ``url``, or ``None``."""
    if type(exc).__module__.split(".")[0] in ("elasticsearch", "elastic_transport"):
        return translate_elastic_error(exc, url, settings)
    if isinstance(exc, os_exc.ImproperlyConfigured):
        return ConfigError(f"cannot configure the connection to {url}: {exc}")
    if isinstance(exc, os_exc.ConnectionTimeout):
        return timeout_failure(url, settings)
    if isinstance(exc, os_exc.SSLError):
        return tls_failure(_reason(exc), url, settings)
    if isinstance(exc, os_exc.ConnectionError):
        return connection_failure(_reason(exc), url, settings)
    if isinstance(exc, os_exc.TransportError) and isinstance(exc.status_code, int):
        return http_failure(exc.status_code, exc.info, exc.error, url, settings)
    if isinstance(exc, os_exc.SerializationError):
        return ClusterError(f"{url} answered something that is not JSON: is it OpenSearch?")
    if isinstance(exc, ssl.SSLError):
        return tls_failure(str(exc), url, settings)
    if isinstance(exc, TimeoutError):
        return timeout_failure(url, settings)
    return None


def _reason(exc: os_exc.TransportError) -> str:
    """The low-level message inside an opensearch-py connection error."""
    inner = exc.info if isinstance(exc.info, BaseException) else None
    return str(inner) if inner is not None else str(exc.error)
