"""AWS SigV4: every request is signed for the right service, region and key.

No AWS here: a loopback server recomputes each signature from the AWS
specification with the fake secret key the client was given (sigv4server.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sigv4server import AWS_ACCESS_KEY_ID, AWS_SESSION_TOKEN, SigV4Server

from osrag.config import load_settings
from osrag.engines.rest.clients import connect
from osrag.engines.rest.cluster import check_connection
from osrag.engines.rest.errors import cluster_errors
from osrag.errors import ConfigError


@pytest.mark.parametrize("service", ["es", "aoss"])
def test_every_request_is_signed_for_the_configured_service(
    service: str, aws_env: Path, sigv4_server: SigV4Server
) -> None:
    settings = load_settings(
        url=sigv4_server.url, aws_region="eu-central-1", aws_service=service, max_retries=0
    )
    client = connect(settings)
    with cluster_errors(settings):
        client.info()
        client.index(
            index="chunks-g1",
            id="guide.md#0#a1b2/c3",  # reserved characters in the path are signed too
            body={"text": "Umbrella € 300,000"},
            params={"refresh": "true"},
        )
        client.search(index="chunks-g1", body={"query": {"match": {"text": "umbrella"}}})

    assert len(sigv4_server.requests) == 3
    for request in sigv4_server.requests:
        assert request.problems == [], (request.method, request.path)
        assert request.auth["service"] == service
        assert request.auth["region"] == "eu-central-1"
        assert request.auth["key"] == AWS_ACCESS_KEY_ID
        assert {"host", "x-amz-date", "x-amz-content-sha256"} <= set(
            request.auth["signed"].split(";")
        )


def test_the_verifier_rejects_a_signature_made_with_another_secret(
    aws_env: Path, sigv4_server: SigV4Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "a-different-secret-key-0000000000000000000")
    connect(load_settings(url=sigv4_server.url, aws_region="eu-central-1", max_retries=0)).info()
    assert sigv4_server.requests[0].problems == [
        "signature does not match the one computed with the secret key"
    ]


def test_a_session_token_is_sent_and_signed(
    aws_env: Path, sigv4_server: SigV4Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SESSION_TOKEN", AWS_SESSION_TOKEN)
    connect(load_settings(url=sigv4_server.url, aws_region="us-east-1", max_retries=0)).info()
    (request,) = sigv4_server.requests
    assert request.problems == []
    assert request.headers["x-amz-security-token"] == AWS_SESSION_TOKEN
    assert "x-amz-security-token" in request.auth["signed"].split(";")


def test_serverless_check_does_not_call_get_root(aws_env: Path, sigv4_server: SigV4Server) -> None:
    settings = load_settings(
        url=sigv4_server.url, aws_region="eu-west-1", aws_service="aoss", max_retries=0
    )
    info = check_connection(settings)
    assert info.distribution == "Amazon OpenSearch Serverless"
    assert [(r.method, r.path) for r in sigv4_server.requests] == [("HEAD", "/osrag-chunks")]
    assert sigv4_server.requests[0].auth["service"] == "aoss"


def test_no_aws_credentials_is_a_config_error_naming_the_chain(clean_env: Path) -> None:
    settings = load_settings(url="https://search.example:443", aws_region="eu-west-1")
    with pytest.raises(ConfigError, match="no AWS credentials found by boto3's default chain"):
        connect(settings)
