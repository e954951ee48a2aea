"""Failures talking to a cluster, as osrag's errors: :func:`cluster_errors`.

:func:`cluster_errors` wraps calls and turns what opensearch-py, elasticsearch-py,
elastic-transport, urllib3 and ``ssl`` raise into :class:`~osrag.errors.ClusterError` /
``AuthError`` / ``TLSError`` with one sentence a user can act on (refused, unresolvable
host, timeout, 401, 403, unknown CA, host-name mismatch, expired certificate, plain HTTP
to a TLS port, TLS to a plain port, client certificate missing or refused), plus two of
Elasticsearch's own: a client whose major version the server refuses, and a server that
is not Elasticsearch (the client refuses answers without ``X-elastic-product``). The
messages themselves are in :mod:`osrag.engines.rest.failures`, shared by both libraries.
Invariant: no message contains the API key, the password or key material.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import ssl
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar

from opensearchpy import exceptions as os_exc

from osrag.config import Settings
from osrag.engines.rest.clients import CLIENT_REQUIREMENT, INSTALL, client_version
from osrag.engines.rest.failures import (
    connection_failure,
    http_failure,
    short,
    timeout_failure,
    tls_failure,
)
from osrag.errors import ClusterError, ConfigError, OsragError


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
        return tls_failure(_elastic_reason(exc), url, settings)
    if isinstance(exc, elastic_transport.ConnectionError):
        return connection_failure(_elastic_reason(exc), url, settings)
    if isinstance(exc, elastic_transport.SerializationError):
        return ClusterError(f"{url} answered something that is not JSON: is it Elasticsearch?")
    return None


def _elastic_reason(exc: BaseException) -> str:
    """The low-level message of an elastic-transport error (its ``str`` is only "TLS error"
    or "Connection error"; ``message`` holds what urllib3 and ssl said)."""
    message = getattr(exc, "message", None)
    return str(message) if message else str(exc)


def where(client: Any) -> str:
    """The URL of the first host a client talks to (for error messages)."""
    try:
        host = client.transport.hosts[0]
    except (AttributeError, IndexError, TypeError, KeyError):
        return "the cluster"
    if not isinstance(host, dict):
        return str(getattr(host, "base_url", host))  # elastic-transport's node config
    scheme = "https" if host.get("use_ssl") or host.get("scheme") == "https" else "http"
    return f"{scheme}://{host.get('host')}:{host.get('port')}"


T = TypeVar("T")


def translating(cls: type[T]) -> type[T]:
    """Every public method of ``cls`` raises osrag's errors
    (:func:`translate_error`), never the client library's:
    a refused connection, a timeout or an HTTP error is one
    :class:`~osrag.errors.ClusterError` naming the cluster, for library callers as for the
    CLI.

    The wrapper is a plain ``try``: free when nothing is raised (no context manager is
    entered per call, and methods calling each other nest at no cost), and an error is
    translated once, where it first crosses a wrapped method."""

    def reraise(self: Any, exc: Exception) -> NoReturn:
        if isinstance(exc, OsragError):
            raise exc
        target = self.settings or where(self.client)
        settings = target if isinstance(target, Settings) else None
        url = settings.effective_url if settings is not None else str(target).rstrip("/")
        error = translate_error(exc, url, settings)
        if error is None:
            raise exc
        raise error from exc

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.isgeneratorfunction(method):

            @functools.wraps(method)
            def generator(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    yield from method(self, *args, **kwargs)
                except Exception as exc:
                    reraise(self, exc)

            return generator

        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:
                reraise(self, exc)

        return call

    for name, member in list(vars(cls).items()):
        if callable(member) and not name.startswith("_") and not isinstance(member, type):
            setattr(cls, name, wrap(member))
    return cls
