"""`osrag config show` and `check`: the effective configuration and where it came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tlsproxy import TLSProxy


def osrag(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OSRAG_", "AWS_"))}
    return subprocess.run(
        [sys.executable, "-m", "osrag.cli", *args],
        cwd=cwd,
        env=clean | {"COLUMNS": "200"} | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_show_json_names_flag_env_file_and_default_sources(clean_env: Path) -> None:
    (clean_env / "osrag.toml").write_text(
        'url = "https://from-file:9200"\ntimeout = 9\nalias = "file-alias"\n'
    )
    result = osrag(
        "config",
        "show",
        "--json",
        "--url",
        "https://from-flag:9200",
        cwd=clean_env,
        env={"OSRAG_TIMEOUT": "12", "OSRAG_URL": "https://from-env:9200"},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    values = report["values"]
    config_file = str((clean_env / "osrag.toml").resolve())
    assert report["config_file"] == config_file
    assert values["url"] == {"value": "https://from-flag:9200", "source": "flag"}
    assert values["timeout"] == {"value": 12.0, "source": "env OSRAG_TIMEOUT"}
    assert values["alias"] == {"value": "file-alias", "source": f"file {config_file}"}
    assert values["max_retries"] == {"value": 3, "source": "default"}


def test_show_prints_a_table_with_masked_password(clean_env: Path) -> None:
    result = osrag(
        "config",
        "show",
        cwd=clean_env,
        env={"OSRAG_USERNAME": "admin", "OSRAG_PASSWORD": "pa55-word-x"},
    )
    assert result.returncode == 0, result.stderr
    password_row = next(line for line in result.stdout.splitlines() if line.startswith("password "))
    assert password_row.split() == ["password", "****", "env", "OSRAG_PASSWORD"]
    assert "pa55-word-x" not in result.stdout + result.stderr


def test_a_bad_setting_exits_2_with_one_line_naming_it(clean_env: Path) -> None:
    result = osrag("config", "show", cwd=clean_env, env={"OSRAG_MAX_RETRIES": "many"})
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "max_retries (env OSRAG_MAX_RETRIES)" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.opensearch
def test_check_exits_0_through_the_proxy_and_4_with_a_wrong_password(
    tls_proxy: TLSProxy, clean_env: Path
) -> None:
    env = {
        "OSRAG_URL": tls_proxy.basic_url,
        "OSRAG_CA_CERTS": str(tls_proxy.ca_pem),
        "OSRAG_USERNAME": tls_proxy.username,
        "OSRAG_PASSWORD_FILE": str(tls_proxy.password_file),
    }
    ok = osrag("config", "check", "--json", cwd=clean_env, env=env)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["version"].split(".")[0] in ("2", "3")

    wrong = clean_env / "wrong"
    wrong.write_text("nope\n")
    denied = osrag("config", "check", "--password-file", str(wrong), cwd=clean_env, env=env)
    assert denied.returncode == 4
    assert "rejected the credentials (HTTP 401)" in denied.stderr
    assert str(wrong) in denied.stderr
