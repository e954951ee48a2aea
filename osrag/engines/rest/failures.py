"""Plain-language failures for both engines' clients: one sentence a user can act on.

:func:`osrag.engines.rest.errors.translate_error` (opensearch-py) and
:func:`osrag.engines.rest.errors.translate_elastic_error` (elasticsearch-py) sort what
their
library raised into the cases below; the messages are written once, here.

Invariant: no message built here contains the password, the base64 of the
basic-auth header, the API key, the AWS secret key or key material — only the
URL (which never carries credentials, see :mod:`osrag.config`), the user name,
file paths, status codes and the server's own error reason.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlsplit

from osrag.config import Settings, env_name
from osrag.errors import AuthError, ClusterError, TLSError


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


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def timeout_failure(url: str, settings: Settings | None) -> ClusterError:
    within = f" within {settings.timeout:g} s" if settings else ""
    return ClusterError(
        f"{url} did not answer{within} (timed out): is the cluster overloaded, or is a "
        f"firewall dropping packets? Raise {env_name('timeout')} to wait longer"
    )


def tls_failure(reason: str, url: str, settings: Settings | None) -> ClusterError:
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
    return TLSError(f"the TLS handshake with {url} failed: {short(reason)}")


def connection_failure(reason: str, url: str, settings: Settings | None) -> ClusterError:
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
        return timeout_failure(url, settings)
    if any(m in low for m in ("reset by peer", "remote end closed", "aborted", "badstatusline")):
        hint = (
            "; if the cluster uses TLS, use https:// instead of http://"
            if url.startswith("http://")
            else ""
        )
        return ClusterError(f"{url} closed the connection without an HTTP answer{hint}")
    return ClusterError(f"cannot connect to {url}: {short(reason)}")


def http_failure(
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
            return short(f"{kind}: {why}" if kind and why else str(why or kind or ""))
        if isinstance(err, str):
            return short(err)
        for key in ("message", "Message"):
            if isinstance(info.get(key), str):
                return short(info[key])
    text = info if isinstance(info, str) else error if isinstance(error, str) else ""
    title = re.search(r"<title>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
    if title:
        return short(html.unescape(title.group(1)))
    if text.lstrip().startswith("<"):
        body = re.sub(r"<[^>]+>", " ", text)
        return short(html.unescape(body))
    return short(text)


def short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
