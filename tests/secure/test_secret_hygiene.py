"""Secrets never appear in output: not in logs, errors, --json, warnings or tracebacks.

Each CLI run is a real process with every logger at DEBUG (opensearch-py's
request tracer included), so stdout + stderr hold everything osrag and its
libraries could print. Library calls are checked the same way in-process:
DEBUG log records, exception ``str``/``repr`` and formatted tracebacks with
their chained causes. The secrets: the basic-auth password (and the base64 of
``user:password`` that travels in the header), a wrong password typed by the
user, the client private key, the AWS secret key and session token.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from sigv4server import AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, SigV4Server
from tlsproxy import TLSProxy

from osrag.config import load_settings
from osrag.engines.rest.clients import connect
from osrag.engines.rest.cluster import check_connection
from osrag.engines.rest.errors import cluster_errors
from osrag.errors import OsragError

# Runs the CLI with every logger at DEBUG, the way a user debugging a failure would.
CLI_WITH_DEBUG_LOGS = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
trace = logging.getLogger("opensearchpy.trace")
trace.setLevel(logging.DEBUG)
trace.addHandler(logging.StreamHandler(sys.stderr))
from osrag.cli import main
sys.argv = ["osrag", *sys.argv[1:]]
main()
"""

# Calls the library and lets the error escape: Python prints the whole chained traceback.
UNCAUGHT_LIBRARY_FAILURE = """
import logging
logging.basicConfig(level=logging.DEBUG)
from osrag.engines.rest.clients import connect
from osrag.engines.rest.errors import cluster_errors
from osrag.config import load_settings
settings = load_settings()
with cluster_errors(settings):
    connect(settings).info()
"""


def key_material(pem: Path) -> list[str]:
    """The base64 lines of a PEM private key (any one of them leaking is a leak)."""
    return [line for line in pem.read_text().splitlines() if line and "-----" not in line]


def secrets_of(proxy: TLSProxy, *extra: str) -> list[str]:
    token = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
    return [proxy.password, token, *key_material(proxy.client_key), *extra]


def assert_absent(text: str, secrets: list[str]) -> None:
    leaked = [s for s in secrets if s and s in text]
    assert not leaked, f"{len(leaked)} secret(s) leaked into output"


def run(args: list[str], env: dict[str, str], code: str = CLI_WITH_DEBUG_LOGS) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"


def base_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OSRAG_", "AWS_"))}
    env.pop("PYDANTIC_SETTINGS_DEBUG", None)  # opt-in source dump, documented as unsafe
    env.update(
        OSRAG_MAX_RETRIES="0",
        AWS_CONFIG_FILE=str(work / "no-aws-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(work / "no-aws-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
        COLUMNS="200",
    )
    return env


@pytest.mark.opensearch
def test_cli_runs_never_print_the_password_or_key_material(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    wrong_password = "Wr0ng-but-still-a-secret"
    secrets = secrets_of(tls_proxy, wrong_password)
    env = base_env(clean_env) | {
        "OSRAG_URL": tls_proxy.basic_url,
        "OSRAG_CA_CERTS": str(tls_proxy.ca_pem),
        "OSRAG_USERNAME": tls_proxy.username,
        "OSRAG_PASSWORD": tls_proxy.password,
    }
    userinfo_url = tls_proxy.basic_url.replace(
        "https://", f"https://{tls_proxy.username}:{tls_proxy.password}@"
    )
    no_user = {k: v for k, v in env.items() if k not in ("OSRAG_USERNAME", "OSRAG_PASSWORD")}
    mtls = no_user | {
        "OSRAG_URL": tls_proxy.mtls_url,
        "OSRAG_CLIENT_CERT": str(tls_proxy.client_cert),
        "OSRAG_CLIENT_KEY": str(tls_proxy.client_key),
    }
    runs = {
        "show": run(["config", "show"], env),
        "show --json": run(["config", "show", "--json"], env),
        "check": run(["config", "check"], env),
        "check --json": run(["config", "check", "--json"], env),
        "wrong password": run(["config", "check"], env | {"OSRAG_PASSWORD": wrong_password}),
        "url userinfo": run(["config", "check"], no_user | {"OSRAG_URL": userinfo_url}),
        "url userinfo show": run(
            ["config", "show", "--json"], no_user | {"OSRAG_URL": userinfo_url}
        ),
        "insecure": run(["config", "check"], env | {"OSRAG_VERIFY_CERTS": "false"}),
        "unknown CA": run(
            ["config", "check"], {k: v for k, v in env.items() if k != "OSRAG_CA_CERTS"}
        ),
        "mtls": run(["config", "check"], mtls),
        "mtls show": run(["config", "show"], mtls),
        "traceback": run([], env | {"OSRAG_PASSWORD": wrong_password}, UNCAUGHT_LIBRARY_FAILURE),
    }

    # The runs did what they should, so the absence of secrets means something.
    assert runs["check"].startswith("exit 0") and "basic auth as" in runs["check"]
    assert runs["mtls"].startswith("exit 0") and "client certificate" in runs["mtls"]
    assert runs["url userinfo"].startswith("exit 0")
    assert runs["wrong password"].startswith("exit 4") and "HTTP 401" in runs["wrong password"]
    assert runs["unknown CA"].startswith("exit 4") and "cannot verify" in runs["unknown CA"]
    assert "warning: TLS certificate verification is off" in runs["insecure"]
    assert "Traceback (most recent call last)" in runs["traceback"]
    assert "AuthError" in runs["traceback"] and "GET / " in runs["traceback"]  # DEBUG was on
    shown = json.loads(runs["url userinfo show"].split("\n", 1)[1].split("\n\n")[0])
    assert shown["values"]["password"] == {"value": "****", "source": "env OSRAG_URL (userinfo)"}
    assert json.loads(runs["show --json"].split("\n", 1)[1].split("\n\n")[0])["values"][
        "password"
    ] == {"value": "****", "source": "env OSRAG_PASSWORD"}

    for name, output in runs.items():
        leaked = [s for s in secrets if s in output]
        assert not leaked, f"`{name}` printed {len(leaked)} secret(s)"


@pytest.fixture
def debug_log() -> Iterator[list[logging.LogRecord]]:
    """Every log record at DEBUG from every logger, opensearch-py's tracer included."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    loggers = [logging.getLogger(), logging.getLogger("opensearchpy.trace")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
    yield records
    for lg, level in zip(loggers, levels, strict=True):
        lg.removeHandler(handler)
        lg.setLevel(level)


def everything_about(error: BaseException, records: list[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(name)s %(message)s")
    return "\n".join(
        [
            str(error),
            repr(error),
            *traceback.format_exception(error),
            *(formatter.format(r) for r in records),
        ]
    )


@pytest.mark.opensearch
def test_library_errors_and_debug_logs_never_hold_the_password(
    tls_proxy: TLSProxy, clean_env: Path, debug_log: list[logging.LogRecord]
) -> None:
    wrong = "An0ther-wrong-secret"
    settings = load_settings(
        url=tls_proxy.basic_url,
        ca_certs=tls_proxy.ca_pem,
        username=tls_proxy.username,
        password=wrong,
        max_retries=1,
    )
    with pytest.raises(OsragError) as err, cluster_errors(settings):
        connect(settings).info()
    good = load_settings(
        url=tls_proxy.basic_url,
        ca_certs=tls_proxy.ca_pem,
        username=tls_proxy.username,
        password_file=tls_proxy.password_file,
    )
    info = check_connection(good)

    text = everything_about(err.value, debug_log) + info.model_dump_json() + repr(good)
    assert "HTTP 401" in text and any(r.levelno == logging.DEBUG for r in debug_log)
    assert_absent(text, [*secrets_of(tls_proxy), wrong])


def test_sigv4_never_shows_the_secret_key_or_session_token(
    aws_env: Path,
    sigv4_server: SigV4Server,
    monkeypatch: pytest.MonkeyPatch,
    debug_log: list[logging.LogRecord],
) -> None:
    monkeypatch.setenv("AWS_SESSION_TOKEN", AWS_SESSION_TOKEN)
    settings = load_settings(url=sigv4_server.url, aws_region="eu-west-1", max_retries=0)
    client = connect(settings)
    client.info()
    client.search(index="chunks", body={"query": {"match_all": {}}})
    # botocore logs its canonical request at DEBUG; osrag masks the token in it.
    assert any("CanonicalRequest" in r.getMessage() for r in debug_log)

    env = base_env(aws_env) | {
        "OSRAG_URL": sigv4_server.url,
        "OSRAG_AWS_REGION": "eu-west-1",
        "AWS_ACCESS_KEY_ID": os.environ["AWS_ACCESS_KEY_ID"],
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET_ACCESS_KEY,
        "AWS_SESSION_TOKEN": AWS_SESSION_TOKEN,
    }
    cli = run(["config", "check"], env) + run(["config", "show", "--json"], env)
    assert cli.startswith("exit 0") and "AWS SigV4" in cli

    text = "\n".join(logging.Formatter("%(name)s %(message)s").format(r) for r in debug_log) + cli
    assert_absent(text, [AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN])
