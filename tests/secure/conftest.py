"""Fixtures for secured-cluster tests: a real TLS + auth proxy, a SigV4 stand-in, a clean env.

``tls_proxy`` starts nginx (see ``tlsproxy.py``) in front of the session's
OpenSearch, ``es_tls_proxy`` in front of its Elasticsearch node. Under
``CI=true`` a missing nginx fails the tests that need it; elsewhere they are
skipped with the reason.

``clean_env`` removes every ``OSRAG_*`` and ``AWS_*`` variable and moves into
an empty folder, so no setting leaks in from the machine running the tests.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sigv4server import (
    AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY,
    SigV4Server,
    running_sigv4_server,
)
from tlsproxy import ProxyError, TLSProxy, nginx_binary, running_proxy

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _proxy_before(upstream: str, folder: Path) -> Iterator[TLSProxy]:
    if nginx_binary() is None:
        message = "nginx is not installed (Debian: apt-get install nginx-light)"
        if IN_CI:
            pytest.fail(message + " (CI=true: secured-cluster tests fail instead of skipping)")
        pytest.skip(message)  # outside CI only: under CI=true the line above fails
    try:
        with running_proxy(upstream, folder) as proxy:
            yield proxy
    except ProxyError as exc:
        pytest.fail(f"the TLS proxy did not start: {exc}")


@pytest.fixture(scope="session")
def tls_proxy(opensearch_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TLSProxy]:
    """nginx on 127.0.0.1: TLS + basic auth, TLS + client certificate, TLS + API key, before
    OpenSearch."""
    yield from _proxy_before(opensearch_url, tmp_path_factory.mktemp("tls-proxy"))


@pytest.fixture(scope="session")
def es_tls_proxy(
    elasticsearch_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TLSProxy]:
    """The same proxy in front of the session's Elasticsearch node."""
    yield from _proxy_before(elasticsearch_url, tmp_path_factory.mktemp("es-tls-proxy"))


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No OSRAG_* / AWS_* variables and an empty working folder; returns that folder."""
    for name in list(os.environ):
        if name.startswith(("OSRAG_", "AWS_")) or name == "PYDANTIC_SETTINGS_DEBUG":
            monkeypatch.delenv(name)
    # boto3 must not find the machine's own ~/.aws either.
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def aws_env(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fixed fake AWS credentials in the environment, for boto3's default chain."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", AWS_ACCESS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET_ACCESS_KEY)
    return clean_env


@pytest.fixture
def sigv4_server() -> Iterator[SigV4Server]:
    with running_sigv4_server(AWS_SECRET_ACCESS_KEY) as server:
        yield server
