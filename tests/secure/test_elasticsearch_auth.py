"""Elasticsearch behind real TLS and real credentials: API keys, basic auth, client certificates.

The nginx proxy (``tlsproxy.py``) fronts the session's Elasticsearch node; its API-key
port admits only ``Authorization: ApiKey <encoded>``. Every failure is one sentence
that says what to change, and no secret reaches any output, log or traceback.
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from pathlib import Path

import pytest
from test_secret_hygiene import assert_absent, base_env, everything_about, run
from tlsproxy import TLSProxy

from osrag.config import Settings, load_settings
from osrag.engines import choose_backend, open_index
from osrag.engines.rest.cluster import check_connection, detect_engine
from osrag.engines.rest.errors import cluster_errors
from osrag.errors import AuthError, ConfigError, TLSError

pytestmark = pytest.mark.elasticsearch

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"
THREE_HUNDRED_K = {
    "umb-300k-classic",
    "umb-300k-plus",
    "umb-300k-landlord",
    "umb-300k-cross-border",
}

# The CLI with every logger at DEBUG, elasticsearch-py's and elastic-transport's included.
CLI_WITH_ES_DEBUG_LOGS = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
for name in ("elasticsearch", "elastic_transport", "elastic_transport.transport", "urllib3"):
    logging.getLogger(name).setLevel(logging.DEBUG)
from osrag.cli import main
sys.argv = ["osrag", *sys.argv[1:]]
main()
"""


def with_key(proxy: TLSProxy, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "url": proxy.api_key_url,
        "api_key": proxy.api_key,
        "ca_certs": proxy.ca_pem,
        "max_retries": 0,
        "timeout": 20,
    }
    values.update(overrides)
    return load_settings(**values)


def secrets(proxy: TLSProxy, *extra: str) -> list[str]:
    pair = f"{proxy.api_key_id}:{proxy.api_key_secret}"
    basic = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
    return [proxy.api_key, proxy.api_key_secret, pair, proxy.password, basic, *extra]


def test_an_api_key_ingests_and_searches_through_tls(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    """The product path on Elasticsearch over TLS with an API key; auto finds the engine."""
    from osrag.ingestion.generations import purge
    from osrag.ingestion.ingest import IngestOptions, ingest
    from osrag.search.searcher import Searcher

    settings = with_key(es_tls_proxy)
    assert detect_engine(settings) == "elasticsearch"
    assert choose_backend(settings).name == "elasticsearch"
    backend = open_index(settings)
    alias = f"osrag-test-{uuid.uuid4().hex[:10]}-es-apikey"
    try:
        with cluster_errors(settings):
            report = ingest(DATA, backend, IngestOptions(alias=alias))
            assert report.documents >= 10 and report.alias_moved
            result = Searcher(backend, alias).search(
                "umbrella $300K", tenant="acme", acl=["agents", "underwriters"], k=20
            )
        assert {h.doc_id for h in result.hits} == THREE_HUNDRED_K
        assert [f.name for f in result.filters_applied] == ["amount", "tenant", "acl"]
    finally:
        with cluster_errors(settings):
            purge(backend, alias)
        backend.close()


def test_check_names_elasticsearch_and_the_api_key_never_its_value(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    info = check_connection(with_key(es_tls_proxy))
    assert info.distribution == "elasticsearch" and info.version and info.version[0] in "89"
    assert info.auth.startswith("API key") and es_tls_proxy.api_key not in info.model_dump_json()


def test_an_id_and_key_pair_and_a_key_file_work_like_the_encoded_key(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    pair = f"{es_tls_proxy.api_key_id}:{es_tls_proxy.api_key_secret}"
    assert check_connection(with_key(es_tls_proxy, api_key=pair)).cluster_name
    key_file = clean_env / "api-key"
    key_file.write_text(es_tls_proxy.api_key + "\n")
    settings = with_key(es_tls_proxy, api_key=None, api_key_file=key_file)
    info = check_connection(settings)
    assert info.cluster_name and str(key_file) in info.auth


def test_a_wrong_or_missing_api_key_is_one_line_naming_the_setting(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    wrong = base64.b64encode(b"someid:not-the-key").decode()
    settings = with_key(es_tls_proxy, api_key=wrong, backend="elasticsearch")
    with pytest.raises(AuthError) as err:
        check_connection(settings)
    assert "HTTP 401" in str(err.value) and "API key" in str(err.value)
    assert "was not accepted" in str(err.value) and wrong not in str(err.value)
    none = with_key(es_tls_proxy, api_key=None, backend="elasticsearch")
    with pytest.raises(AuthError, match="requires authentication"):
        check_connection(none)


def test_an_empty_api_key_file_is_a_configuration_error(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    empty = clean_env / "empty-key"
    empty.write_text("\n")
    with pytest.raises(ConfigError, match=f"the API key file {empty} is empty"):
        check_connection(with_key(es_tls_proxy, api_key=None, api_key_file=empty))


def test_basic_auth_and_client_certificates_reach_elasticsearch_too(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    basic = load_settings(
        url=es_tls_proxy.basic_url,
        username=es_tls_proxy.username,
        password_file=es_tls_proxy.password_file,
        ca_certs=es_tls_proxy.ca_pem,
        backend="elasticsearch",
        max_retries=0,
    )
    assert check_connection(basic).distribution == "elasticsearch"
    mtls = load_settings(
        url=es_tls_proxy.mtls_url,
        client_cert=es_tls_proxy.client_cert,
        client_key=es_tls_proxy.client_key,
        ca_certs=es_tls_proxy.ca_pem,
        max_retries=0,
    )
    info = check_connection(mtls)
    assert info.distribution == "elasticsearch" and "client certificate" in info.auth


def test_an_unknown_ca_is_the_same_tls_sentence_as_on_opensearch(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    settings = with_key(es_tls_proxy, ca_certs=None, backend="elasticsearch")
    with pytest.raises(TLSError, match="cannot verify the TLS certificate"):
        check_connection(settings)


def test_cli_runs_and_library_failures_never_show_the_api_key(
    es_tls_proxy: TLSProxy, clean_env: Path
) -> None:
    wrong = base64.b64encode(b"otherid:a-wrong-but-secret-key").decode()
    env = base_env(clean_env) | {
        "OSRAG_URL": es_tls_proxy.api_key_url,
        "OSRAG_CA_CERTS": str(es_tls_proxy.ca_pem),
        "OSRAG_API_KEY": es_tls_proxy.api_key,
    }
    key_file = clean_env / "key"
    key_file.write_text(f"{es_tls_proxy.api_key_id}:{es_tls_proxy.api_key_secret}\n")
    from_file = {k: v for k, v in env.items() if k != "OSRAG_API_KEY"} | {
        "OSRAG_API_KEY_FILE": str(key_file)
    }
    code = CLI_WITH_ES_DEBUG_LOGS
    runs = {
        "show": run(["config", "show"], env, code),
        "show --json": run(["config", "show", "--json"], env, code),
        "check": run(["config", "check"], env, code),
        "check --json": run(["config", "check", "--json"], env, code),
        "check forced": run(["config", "check", "--backend", "elasticsearch"], env, code),
        "wrong key": run(
            ["config", "check", "--backend", "elasticsearch"], env | {"OSRAG_API_KEY": wrong}, code
        ),
        "key file": run(["config", "check"], from_file, code),
        "index status": run(["index", "status", "--alias", "osrag-test-none"], env, code),
    }
    assert runs["check"].startswith("exit 0") and "elasticsearch" in runs["check"]
    assert runs["check forced"].startswith("exit 0") and "API key" in runs["check forced"]
    assert runs["key file"].startswith("exit 0")
    assert runs["wrong key"].startswith("exit 4") and "HTTP 401" in runs["wrong key"]
    assert runs["index status"].startswith("exit 5")  # reached the engine: no such alias
    assert "DEBUG" in runs["check"]  # the libraries' debug logs were on
    shown = json.loads(runs["show --json"].split("\n", 1)[1].split("\n\n")[0])
    assert shown["values"]["api_key"] == {"value": "****", "source": "env OSRAG_API_KEY"}
    for name, output in runs.items():
        leaked = [s for s in secrets(es_tls_proxy, wrong) if s in output]
        assert not leaked, f"`{name}` printed {len(leaked)} secret(s)"


def test_library_errors_and_debug_logs_never_hold_the_api_key(
    es_tls_proxy: TLSProxy, clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = base64.b64encode(b"anotherid:yet-another-secret").decode()
    settings = with_key(es_tls_proxy, api_key=wrong, backend="elasticsearch")
    caplog.set_level(logging.DEBUG)
    for name in ("elasticsearch", "elastic_transport", "urllib3"):
        caplog.set_level(logging.DEBUG, logger=name)  # restored after the test
    with pytest.raises(AuthError) as err:
        check_connection(settings)
    check_connection(with_key(es_tls_proxy))
    text = everything_about(err.value, caplog.records) + repr(settings)
    assert any(r.levelno == logging.DEBUG for r in caplog.records)
    assert_absent(text, secrets(es_tls_proxy, wrong))
