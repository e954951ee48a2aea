"""cluster_errors: answers we cannot provoke locally still become one clear sentence.

The live proxy tests cover refused, timeout, 401, unknown CA, host-name
mismatch, plain HTTP ↔ TLS and client certificates; here the exceptions
opensearch-py raises for other answers (403 bodies from the security plugin
and from AWS, 502 from a proxy, an expired certificate) are built directly.
"""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from opensearchpy import exceptions as os_exc

from osrag.config import load_settings
from osrag.engines.rest.errors import cluster_errors, translate_error
from osrag.errors import AuthError, ClusterError, ConfigError, TLSError

URL = "https://search.example:9200"


def test_403_from_the_security_plugin_names_the_missing_permission(clean_env: Path) -> None:
    body = {
        "error": {
            "type": "security_exception",
            "reason": "no permissions for [indices:data/read/search] and User [name=reader]",
        },
        "status": 403,
    }
    exc = os_exc.AuthorizationException(403, "security_exception", body)
    settings = load_settings(url=URL, username="reader", password="pw")
    error = translate_error(exc, URL, settings)
    assert isinstance(error, AuthError)
    assert "HTTP 403" in str(error)
    assert "basic auth as 'reader'" in str(error)
    assert "indices:data/read/search" in str(error)


def test_403_from_aws_quotes_its_message(clean_env: Path) -> None:
    body = {"message": "Credential should be scoped to correct service: 'aoss'."}
    exc = os_exc.AuthorizationException(403, str(body), body)
    settings = load_settings(url=URL, aws_region="eu-west-1", aws_service="es")
    error = translate_error(exc, URL, settings)
    assert isinstance(error, AuthError)
    assert "Credential should be scoped to correct service" in str(error)
    assert "AWS SigV4 (service es, region eu-west-1)" in str(error)


def test_502_from_a_proxy_says_the_cluster_behind_it_is_unreachable() -> None:
    html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    error = translate_error(os_exc.TransportError(502, html, html), URL)
    assert type(error) is ClusterError
    assert "HTTP 502" in str(error) and "could not reach it" in str(error)
    assert "<html>" not in str(error)


def test_other_statuses_keep_the_servers_reason_without_html() -> None:
    body = {"error": {"type": "index_not_found_exception", "reason": "no such index [x]"}}
    error = translate_error(os_exc.NotFoundError(404, "index_not_found_exception", body), URL)
    assert str(error) == f"{URL} answered HTTP 404: index_not_found_exception: no such index [x]"


def test_an_expired_certificate_is_named() -> None:
    reason = "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired"
    error = translate_error(os_exc.SSLError("N/A", reason, ssl.SSLError(1, reason)), URL)
    assert isinstance(error, TLSError)
    assert str(error) == f"the TLS certificate of {URL} has expired"


def test_a_host_name_that_does_not_resolve_is_named() -> None:
    reason = "Failed to resolve 'search.example' ([Errno -2] Name or service not known)"
    error = translate_error(os_exc.ConnectionError("N/A", reason, OSError(reason)), URL)
    assert str(error) == f"cannot connect to {URL}: the host name 'search.example' does not resolve"


def test_a_handshake_level_client_certificate_demand_is_named() -> None:
    reason = "[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required"
    error = translate_error(os_exc.SSLError("N/A", reason, ssl.SSLError(1, reason)), URL)
    assert isinstance(error, TLSError)
    assert "requires a client certificate" in str(error)


def test_improperly_configured_is_a_config_error() -> None:
    error = translate_error(os_exc.ImproperlyConfigured("Root certificates are missing"), URL)
    assert isinstance(error, ConfigError)


def test_bugs_are_not_disguised_as_cluster_errors() -> None:
    with pytest.raises(KeyError), cluster_errors(URL):
        raise KeyError("hits")


def test_osrag_errors_pass_through_unchanged() -> None:
    original = ConfigError("already clear")
    with pytest.raises(ConfigError) as err, cluster_errors(URL):
        raise original
    assert err.value is original


def test_the_translated_error_keeps_the_original_as_its_cause() -> None:
    original = os_exc.ConnectionError("N/A", "Connection refused", OSError("refused"))
    with pytest.raises(ClusterError) as err, cluster_errors(URL):
        raise original
    assert err.value.__cause__ is original
    assert "connection refused" in str(err.value)
