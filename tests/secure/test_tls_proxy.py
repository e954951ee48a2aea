"""Real TLS, real auth: osrag through an nginx proxy in front of the test cluster.

Each failure a user meets on a secured cluster must come back as one
ClusterError / AuthError / TLSError sentence that says what to change.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    PrivateFormat,
    load_pem_private_key,
)
from tlsproxy import TLSProxy

from osrag.config import Settings, load_settings
from osrag.engines.rest.clients import InsecureTLSWarning, connect
from osrag.engines.rest.cluster import check_connection
from osrag.engines.rest.errors import cluster_errors
from osrag.errors import AuthError, ClusterError, ConfigError, TLSError

pytestmark = pytest.mark.opensearch


def basic(proxy: TLSProxy, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "url": proxy.basic_url,
        "username": proxy.username,
        "password_file": proxy.password_file,
        "ca_certs": proxy.ca_pem,
        "max_retries": 0,
        "timeout": 10,
    }
    values.update(overrides)
    return load_settings(**values)


def failure(settings: Settings) -> ClusterError:
    with pytest.raises(ClusterError) as err, cluster_errors(settings):
        connect(settings).info()
    return err.value


def test_right_ca_and_credentials_index_and_search_through_the_proxy(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    settings = basic(tls_proxy)
    client = connect(settings)
    index = f"osrag-test-{uuid.uuid4().hex[:10]}-tls"
    with cluster_errors(settings):
        assert client.info()["version"]["number"].split(".")[0] in ("2", "3")
        client.indices.create(
            index=index,
            body={"settings": {"number_of_shards": 1, "number_of_replicas": 0}},
        )
        try:
            client.index(
                index=index,
                id="c1",
                body={"text": "umbrella policy up to $300,000"},
                params={"refresh": "true"},
            )
            hits = client.search(index=index, body={"query": {"match": {"text": "umbrella"}}})
            assert [h["_id"] for h in hits["hits"]["hits"]] == ["c1"]
        finally:
            client.indices.delete(index=index)


def test_ingest_and_search_through_tls_proxy(tls_proxy: TLSProxy, clean_env: Path) -> None:
    """The whole product path — ingest, then an amount-filtered search — over TLS + basic auth."""
    from osrag.engines import open_index
    from osrag.ingestion.generations import purge
    from osrag.ingestion.ingest import IngestOptions, ingest
    from osrag.search.searcher import Searcher

    data = Path(__file__).resolve().parents[1] / "data" / "insurance"
    settings = basic(tls_proxy)
    alias = f"osrag-test-{uuid.uuid4().hex[:10]}-tls-ingest"
    backend = open_index(settings, backend="opensearch")
    try:
        with cluster_errors(settings):
            report = ingest(data, backend, IngestOptions(alias=alias))
            assert report.documents >= 10 and report.alias_moved
            result = Searcher(backend, alias).search(
                "umbrella $300K", tenant="acme", acl=["agents", "underwriters"], k=20
            )
        assert {h.doc_id for h in result.hits} == {
            "umb-300k-classic",
            "umb-300k-plus",
            "umb-300k-landlord",
            "umb-300k-cross-border",
        }
        assert [f.name for f in result.filters_applied] == ["amount", "tenant", "acl"]
    finally:
        with cluster_errors(settings):
            purge(backend, alias)


def test_check_connection_reports_auth_and_tls_without_secrets(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    info = check_connection(basic(tls_proxy))
    assert info.version and info.version.split(".")[0] in ("2", "3")
    assert info.auth == f"basic auth as {tls_proxy.username!r}"
    assert str(tls_proxy.ca_pem) in info.tls
    assert tls_proxy.password not in info.model_dump_json()


def test_wrong_password_is_a_clear_401(tls_proxy: TLSProxy, clean_env: Path) -> None:
    wrong = clean_env / "wrong-password"
    wrong.write_text("not-the-password\n")
    error = failure(basic(tls_proxy, password_file=wrong))
    assert isinstance(error, AuthError)
    assert "rejected the credentials (HTTP 401)" in str(error)
    assert repr(tls_proxy.username) in str(error)
    assert str(wrong) in str(error)  # where the wrong password was read from
    assert "not-the-password" not in str(error)


def test_no_credentials_says_the_cluster_requires_authentication(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    settings = load_settings(url=tls_proxy.basic_url, ca_certs=tls_proxy.ca_pem, max_retries=0)
    error = failure(settings)
    assert isinstance(error, AuthError)
    assert "requires authentication" in str(error)


def test_unknown_ca_is_a_clear_certificate_verification_error(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    error = failure(basic(tls_proxy, ca_certs=None))
    assert isinstance(error, TLSError)
    assert "cannot verify the TLS certificate" in str(error)
    assert "OSRAG_CA_CERTS" in str(error)


def test_a_ca_file_that_did_not_sign_the_server_is_named(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    other = clean_env / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    error = failure(basic(tls_proxy, ca_certs=other))
    assert isinstance(error, TLSError)
    assert f"the CA file {other}" in str(error)


def test_verify_certs_false_connects_with_one_warning_not_one_per_request(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    settings = basic(tls_proxy, ca_certs=None, verify_certs=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = connect(settings)
        with cluster_errors(settings):
            for _ in range(3):
                assert client.info()["version"]["number"].split(".")[0] in ("2", "3")
    categories = [w.category for w in caught]
    assert categories == [InsecureTLSWarning]
    assert "verification is off" in str(caught[0].message)


def test_a_host_name_the_certificate_does_not_list_is_a_mismatch(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    error = failure(basic(tls_proxy, url=tls_proxy.basic_url.replace("127.0.0.1", "localhost")))
    assert isinstance(error, TLSError)
    assert "is not valid for the name 'localhost'" in str(error)


def test_plain_http_to_the_tls_port_says_use_https(tls_proxy: TLSProxy, clean_env: Path) -> None:
    settings = load_settings(
        url=tls_proxy.basic_url.replace("https://", "http://"),
        username=tls_proxy.username,
        password_file=tls_proxy.password_file,
        max_retries=0,
    )
    error = failure(settings)
    assert isinstance(error, TLSError)
    assert "use https:// instead of http://" in str(error)


def test_tls_to_the_plain_port_says_use_http(tls_proxy: TLSProxy, clean_env: Path) -> None:
    plain = tls_proxy.upstream_url.replace("http://", "https://")
    error = failure(load_settings(url=plain, max_retries=0))
    assert isinstance(error, TLSError)
    assert "does not speak TLS" in str(error)
    assert "use http:// instead of https://" in str(error)


def test_plain_http_to_a_server_that_drops_it_hints_at_https(clean_env: Path) -> None:
    """A TLS server that resets plain HTTP (as OpenSearch's security plugin does)."""
    with _tls_only_server() as port:
        error = failure(load_settings(url=f"http://127.0.0.1:{port}", max_retries=0))
    assert "use https:// instead of http://" in str(error)


def test_a_closed_port_is_connection_refused(clean_env: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: refused
        error = failure(load_settings(url=f"https://127.0.0.1:{port}", max_retries=0))
    assert "connection refused" in str(error)


def test_a_silent_server_is_a_timeout_naming_the_limit(clean_env: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        error = failure(load_settings(url=f"http://127.0.0.1:{port}", timeout=0.5, max_retries=0))
    assert "did not answer within 0.5 s" in str(error)
    assert "OSRAG_TIMEOUT" in str(error)


def test_client_certificate_authenticates_without_a_password(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    settings = load_settings(
        url=tls_proxy.mtls_url,
        ca_certs=tls_proxy.ca_pem,
        client_cert=tls_proxy.client_cert,
        client_key=tls_proxy.client_key,
        max_retries=0,
    )
    assert check_connection(settings).auth == f"client certificate {tls_proxy.client_cert}"


def test_a_missing_client_certificate_is_named(tls_proxy: TLSProxy, clean_env: Path) -> None:
    error = failure(load_settings(url=tls_proxy.mtls_url, ca_certs=tls_proxy.ca_pem, max_retries=0))
    assert isinstance(error, TLSError)
    assert "requires a client certificate" in str(error)


def test_a_client_certificate_from_an_untrusted_ca_is_refused(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    stranger = trustme.CA().issue_cert("intruder@example.test")
    cert, key = clean_env / "stranger.pem", clean_env / "stranger.key"
    stranger.cert_chain_pems[0].write_to_path(str(cert))
    stranger.private_key_pem.write_to_path(str(key))
    error = failure(
        load_settings(
            url=tls_proxy.mtls_url,
            ca_certs=tls_proxy.ca_pem,
            client_cert=cert,
            client_key=key,
            max_retries=0,
        )
    )
    assert isinstance(error, TLSError)
    assert f"refused the client certificate {cert}" in str(error)


def test_an_encrypted_client_key_is_a_config_error_not_a_prompt(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    key = load_pem_private_key(tls_proxy.client_key.read_bytes(), password=None)
    encrypted = clean_env / "encrypted.key"
    encrypted.write_bytes(
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pass"))
    )
    settings = load_settings(
        url=tls_proxy.mtls_url,
        ca_certs=tls_proxy.ca_pem,
        client_cert=tls_proxy.client_cert,
        client_key=encrypted,
    )
    with pytest.raises(ConfigError, match=f"client key {encrypted} is encrypted"):
        connect(settings)


def test_a_key_that_does_not_match_the_certificate_is_a_config_error(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    other_key = clean_env / "other.key"
    trustme.CA().issue_cert("x.test").private_key_pem.write_to_path(str(other_key))
    settings = load_settings(
        url=tls_proxy.mtls_url,
        client_cert=tls_proxy.client_cert,
        client_key=other_key,
    )
    with pytest.raises(ConfigError, match="the key does not belong to the certificate"):
        connect(settings)


def test_a_missing_ca_file_is_a_config_error_naming_it(clean_env: Path) -> None:
    missing = clean_env / "missing-ca.pem"
    with pytest.raises(ConfigError, match=f"CA file {missing}.* does not exist"):
        connect(load_settings(url="https://127.0.0.1:9", ca_certs=missing))


@contextlib.contextmanager
def _tls_only_server() -> Iterator[int]:
    """A bare TLS listener: a plain HTTP request fails its handshake and is reset."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("127.0.0.1").configure_cert(context)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.05)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(5)
            try:
                context.wrap_socket(conn, server_side=True).close()
            except (ssl.SSLError, OSError):
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
