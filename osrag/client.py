"""The OpenSearch client, built from :class:`~osrag.config.Settings`, and plain-language failures.

Rule: :func:`connect` turns one ``Settings`` into one opensearch-py client.

* ``https://`` URLs get a TLS context of our own: the CA file
  (``OSRAG_CA_CERTS``) or the system trust store (certifi if the system has
  none), host names checked, TLS ≥ 1.2, and the client certificate loaded up
  front so a missing file, a key that does not match, or an encrypted key is a
  :class:`~osrag.errors.ConfigError` naming the file — never a passphrase
  prompt or an error on the first request. ``OSRAG_VERIFY_CERTS=false`` turns
  verification off with one :class:`InsecureTLSWarning`.
* Authentication is basic auth, a client certificate, an API key
  (``Authorization: ApiKey …``), or AWS SigV4
  (``opensearchpy.Urllib3AWSV4SignerAuth`` with boto3's default credential
  chain; ``pip install 'osrag[aws]'``) — never two that each send an
  ``Authorization`` header.
* Timeouts and retries come from the settings; opensearch-py does the retrying.

:func:`detect_engine` tells OpenSearch from Elasticsearch by asking the cluster
(``backend = "auto"`` with a URL); :mod:`osrag.elastic` builds the
Elasticsearch client from the same settings.

:func:`cluster_errors` wraps calls and turns what opensearch-py, urllib3 and
``ssl`` raise into :class:`~osrag.errors.ClusterError` / ``AuthError`` /
``TLSError`` with one sentence a user can act on (refused, unresolvable host,
timeout, 401, 403, unknown CA, host-name mismatch, expired certificate, plain
HTTP to a TLS port, TLS to a plain port, client certificate missing or refused).

Invariant: no message built here contains the password, the base64 of the
basic-auth header, the API key, the AWS secret key or key material — only the URL (which
never carries credentials, see :mod:`osrag.config`), the user name, file paths,
status codes and the server's own error reason.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
import ssl
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from opensearchpy import OpenSearch
from opensearchpy import exceptions as os_exc
from pydantic import BaseModel

from osrag.config import Settings, env_name, load_settings
from osrag.errors import AuthError, ClusterError, ConfigError, OsragError, TLSError


class InsecureTLSWarning(UserWarning):
    """TLS certificate verification is off (``OSRAG_VERIFY_CERTS=false``)."""


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


def tls_context(settings: Settings) -> ssl.SSLContext:
    """The client-side TLS context for ``settings`` (see the module docstring)."""
    if settings.ca_certs is not None:
        context = _context_trusting(settings.ca_certs)
    else:
        context = ssl.create_default_context()
        if context.cert_store_stats()["x509_ca"] == 0:
            import certifi  # a dependency of opensearch-py (via requests)

            context.load_verify_locations(cafile=certifi.where())
    if settings.client_cert is not None:
        _load_client_certificate(context, settings.client_cert, settings.client_key)
    if not settings.verify_certs:
        from urllib3.exceptions import InsecureRequestWarning

        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        # One clear warning from us instead of one per request from urllib3.
        warnings.filterwarnings("ignore", category=InsecureRequestWarning)
        warnings.warn(
            f"TLS certificate verification is off for {settings.effective_url} "
            f"({env_name('verify_certs')}=false): anyone on the network path can "
            f"impersonate the cluster; prefer {env_name('ca_certs')}",
            InsecureTLSWarning,
            stacklevel=3,
        )
    return context


def _context_trusting(ca_certs: Path) -> ssl.SSLContext:
    if not ca_certs.is_file():
        raise ConfigError(f"the CA file {ca_certs} ({env_name('ca_certs')}) does not exist")
    try:
        return ssl.create_default_context(cafile=str(ca_certs))
    except ssl.SSLError:
        raise ConfigError(
            f"the CA file {ca_certs} ({env_name('ca_certs')}) holds no PEM certificate"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the CA file {ca_certs}: {exc.strerror}") from None


def _load_client_certificate(context: ssl.SSLContext, cert: Path, key: Path | None) -> None:
    for path, setting in ((cert, "client_cert"), (key, "client_key")):
        if path is not None and not path.is_file():
            raise ConfigError(f"the {setting} file {path} ({env_name(setting)}) does not exist")
    key_file = key or cert

    def refuse_passphrase() -> str:
        raise ConfigError(
            f"the client key {key_file} is encrypted; osrag needs an unencrypted key file "
            "readable only by you (e.g. `openssl pkey -in KEY -out KEY.plain`)"
        )

    try:
        context.load_cert_chain(str(cert), str(key) if key else None, password=refuse_passphrase)
    except ssl.SSLError as exc:
        why = (
            "the key does not belong to the certificate"
            if exc.reason == "KEY_VALUES_MISMATCH"
            else "they are not a PEM certificate and its private key"
        )
        raise ConfigError(
            f"cannot use the client certificate {cert} with key {key_file}: {why}"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the client certificate {cert}: {exc.strerror}") from None


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


def describe_auth(settings: Settings) -> str:
    """How requests authenticate, in words (no secrets)."""
    if settings.uses_sigv4:
        return f"AWS SigV4 (service {settings.aws_service}, region {settings.aws_region})"
    parts = []
    if settings.api_key is not None or settings.api_key_file is not None:
        where = f"file {settings.api_key_file}" if settings.api_key_file else "API key setting"
        parts.append(f"API key (from the {where})")
    if settings.username:
        parts.append(f"basic auth as {settings.username!r}")
    if settings.client_cert is not None:
        parts.append(f"client certificate {settings.client_cert}")
    return " + ".join(parts) or "none"


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
    if engine == "elasticsearch":
        from osrag.elastic import cluster_identity, connect_elasticsearch

        client = connect_elasticsearch(settings)
    else:
        client = connect(settings)
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
        from osrag.elastic import translate_elastic_error

        return translate_elastic_error(exc, url, settings)
    if isinstance(exc, os_exc.ImproperlyConfigured):
        return ConfigError(f"cannot configure the connection to {url}: {exc}")
    if isinstance(exc, os_exc.ConnectionTimeout):
        return _timeout(url, settings)
    if isinstance(exc, os_exc.SSLError):
        return _tls_failure(_reason(exc), url, settings)
    if isinstance(exc, os_exc.ConnectionError):
        return _connection_failure(_reason(exc), url, settings)
    if isinstance(exc, os_exc.TransportError) and isinstance(exc.status_code, int):
        return _http_failure(exc.status_code, exc.info, exc.error, url, settings)
    if isinstance(exc, os_exc.SerializationError):
        return ClusterError(f"{url} answered something that is not JSON: is it OpenSearch?")
    if isinstance(exc, ssl.SSLError):
        return _tls_failure(str(exc), url, settings)
    if isinstance(exc, TimeoutError):
        return _timeout(url, settings)
    return None


def _reason(exc: os_exc.TransportError) -> str:
    """The low-level message inside an opensearch-py connection error."""
    inner = exc.info if isinstance(exc.info, BaseException) else None
    return str(inner) if inner is not None else str(exc.error)


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _timeout(url: str, settings: Settings | None) -> ClusterError:
    within = f" within {settings.timeout:g} s" if settings else ""
    return ClusterError(
        f"{url} did not answer{within} (timed out): is the cluster overloaded, or is a "
        f"firewall dropping packets? Raise {env_name('timeout')} to wait longer"
    )


def _tls_failure(reason: str, url: str, settings: Settings | None) -> ClusterError:
    low = reason.lower()
    ca = settings.ca_certs if settings else None
    if "hostname mismatch" in low or "doesn't match" in low or "ip address mismatch" in low:
        return TLSError(
            f"the TLS certificate of {url} is not valid for the name {_host(url)!r}: "
            "connect with a host name the certificate lists"
        )
    if "certificate has expired" in low:
        return TLSError(f"the TLS certificate of {url} has expired")
    if "certificate verify failed" in low:
        trusted = f"the CA file {ca}" if ca else "the system CA store"
        return TLSError(
            f"cannot verify the TLS certificate of {url}: it is not signed by a CA in "
            f"{trusted}. Set {env_name('ca_certs')} to the cluster's CA file "
            f"(or {env_name('verify_certs')}=false to skip verification, insecure)"
        )
    if any(
        marker in low
        for marker in ("wrong version number", "record layer failure", "packet length too long")
    ) or ("unknown protocol" in low or "http request" in low):
        return TLSError(
            f"{url} does not speak TLS (it answered in plain text): "
            "use http:// instead of https://, or check the port"
        )
    no_client_cert = settings is None or settings.client_cert is None
    if no_client_cert and ("certificate required" in low or "alert handshake failure" in low):
        return TLSError(
            f"{url} requires a client certificate: set {env_name('client_cert')} "
            f"and {env_name('client_key')}"
        )
    if "bad certificate" in low or "unknown ca" in low or "certificate required" in low:
        cert = settings.client_cert if settings else None
        return TLSError(
            f"{url} refused the client certificate{f' {cert}' if cert else ''}: is it signed by "
            "a CA the cluster trusts, and still valid?"
        )
    return TLSError(f"the TLS handshake with {url} failed: {_short(reason)}")


def _connection_failure(reason: str, url: str, settings: Settings | None) -> ClusterError:
    low = reason.lower()
    if "refused" in low:
        return ClusterError(
            f"cannot connect to {url}: connection refused (is the cluster running, "
            "and is the port right?)"
        )
    if "failed to resolve" in low or "name or service not known" in low or "nodename" in low:
        return ClusterError(
            f"cannot connect to {url}: the host name {_host(url)!r} does not resolve"
        )
    if "timed out" in low:
        return _timeout(url, settings)
    if any(m in low for m in ("reset by peer", "remote end closed", "aborted", "badstatusline")):
        hint = (
            "; if the cluster uses TLS, use https:// instead of http://"
            if url.startswith("http://")
            else ""
        )
        return ClusterError(f"{url} closed the connection without an HTTP answer{hint}")
    return ClusterError(f"cannot connect to {url}: {_short(reason)}")


def _http_failure(
    status: int, info: Any, error: Any, url: str, settings: Settings | None
) -> ClusterError:
    detail = _server_reason(info, error)
    low = detail.lower()
    if status == 400 and "plain http request was sent to https port" in low:
        return TLSError(f"{url} is a TLS port: use https:// instead of http://")
    if status == 400 and "no required ssl certificate" in low:
        return TLSError(
            f"{url} requires a client certificate: set {env_name('client_cert')} "
            f"and {env_name('client_key')}"
        )
    if status == 400 and "ssl certificate error" in low:
        cert = settings.client_cert if settings else None
        return TLSError(
            f"{url} refused the client certificate{f' {cert}' if cert else ''}: is it signed by "
            "a CA the cluster trusts, and still valid?"
        )
    if status == 401:
        return AuthError(f"{url} rejected the credentials (HTTP 401): {_auth_hint(settings)}")
    if status == 403:
        who = f" for {describe_auth(settings)}" if settings else ""
        return AuthError(
            f"{url} refused the request (HTTP 403){who}: the credentials are valid but lack "
            f"a permission{f' ({detail})' if detail else ''}"
        )
    if status in (502, 503, 504):
        return ClusterError(
            f"{url} answered HTTP {status}: a proxy or load balancer in front of the cluster "
            "could not reach it, or the cluster is unavailable"
        )
    return ClusterError(f"{url} answered HTTP {status}{f': {detail}' if detail else ''}")


def _auth_hint(settings: Settings | None) -> str:
    if settings is None:
        return "check the user name and password"
    if settings.uses_sigv4:
        return "the AWS credentials boto3 found were not accepted (expired, or another account?)"
    if settings.api_key is not None or settings.api_key_file is not None:
        origin = settings.origin("api_key")
        source = (
            f"the API key file {settings.api_key_file}"
            if settings.api_key_file is not None
            else (origin if origin != "default" else "the api_key setting")
        )
        return (
            f"the API key (from {source}) was not accepted: expired, invalidated, or made "
            "for another cluster?"
        )
    if settings.username:
        if settings.password_file is not None:
            source = f" (read from the password file {settings.password_file})"
        elif settings.origin("password") != "default":
            source = f" (from {settings.origin('password')})"
        else:
            source = ""
        return f"wrong password for user {settings.username!r}?{source}"
    return (
        f"the cluster requires authentication: set {env_name('username')} and "
        f"{env_name('password_file')} (or {env_name('password')}), an API key "
        f"({env_name('api_key_file')}), or a client certificate"
    )


def _server_reason(info: Any, error: Any) -> str:
    """The server's own short reason: OpenSearch JSON, AWS JSON, or an HTML title."""
    if isinstance(info, dict):
        err = info.get("error")
        if isinstance(err, dict):
            kind, why = err.get("type"), err.get("reason")
            return _short(f"{kind}: {why}" if kind and why else str(why or kind or ""))
        if isinstance(err, str):
            return _short(err)
        for key in ("message", "Message"):
            if isinstance(info.get(key), str):
                return _short(info[key])
    text = info if isinstance(info, str) else error if isinstance(error, str) else ""
    title = re.search(r"<title>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
    if title:
        return _short(html.unescape(title.group(1)))
    if text.lstrip().startswith("<"):
        body = re.sub(r"<[^>]+>", " ", text)
        return _short(html.unescape(body))
    return _short(text)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
