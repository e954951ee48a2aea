"""Elasticsearch's settings in the one settings model: backend, API key, Cloud ID.

No cluster: the values, their sources, what cannot go together, and masking.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from elastic_transport.client_utils import parse_cloud_id
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from osrag.cli import app
from osrag.config import cloud_url, load_settings
from osrag.engines.rest.clients import connect_elasticsearch
from osrag.errors import ConfigError

KEY = base64.b64encode(b"VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw").decode()


def _cloud_id(label: str, host: str, port: int | None, es: str, kibana: str) -> str:
    where = f"{host}:{port}" if port is not None else host
    return f"{label}:" + base64.b64encode(f"{where}${es}${kibana}".encode()).decode()


def test_backend_comes_from_flag_env_or_file_like_every_setting(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_settings().backend == "auto"
    (clean_env / "osrag.toml").write_text('backend = "elasticsearch"\n')
    assert load_settings().origin("backend").startswith("file ")
    monkeypatch.setenv("OSRAG_BACKEND", "opensearch")
    assert load_settings().backend == "opensearch"
    assert load_settings(backend="embedded").origin("backend") == "flag"
    with pytest.raises(ConfigError, match=r"backend \(flag\)"):
        load_settings(backend="solr")


def test_the_api_key_is_masked_everywhere_settings_are_shown(clean_env: Path) -> None:
    loaded = load_settings(url="https://h:9200", api_key=KEY)
    assert loaded.masked()["api_key"] == "****"
    report = loaded.report()
    assert (report.values["api_key"].value, report.values["api_key"].source) == ("****", "flag")
    rendered = [repr(loaded), str(loaded), loaded.model_dump_json(), report.model_dump_json()]
    assert not any(KEY in text for text in rendered)


def test_config_show_masks_an_api_key_from_the_environment(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSRAG_API_KEY", KEY)
    monkeypatch.setenv("OSRAG_URL", "https://es.internal:9200")
    result = CliRunner().invoke(app, ["config", "show", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)["values"]
    assert shown["api_key"] == {"value": "****", "source": "env OSRAG_API_KEY"}
    assert KEY not in result.output


def test_an_id_and_key_pair_is_sent_encoded_and_an_encoded_key_as_it_is(clean_env: Path) -> None:
    pair = load_settings(api_key="my-id:my-secret").api_key_header()
    assert (
        pair is not None
        and pair.get_secret_value() == base64.b64encode(b"my-id:my-secret").decode()
    )
    encoded = load_settings(api_key=KEY).api_key_header()
    assert encoded is not None and encoded.get_secret_value() == KEY


def test_an_api_key_file_is_read_relative_to_the_config_file(clean_env: Path) -> None:
    (clean_env / "conf").mkdir()
    (clean_env / "conf" / "es.key").write_text(KEY + "\n")
    (clean_env / "conf" / "osrag.toml").write_text('api_key_file = "es.key"\n')
    loaded = load_settings(config=clean_env / "conf" / "osrag.toml")
    assert loaded.api_key_file == clean_env / "conf" / "es.key"
    header = loaded.api_key_header()
    assert header is not None and header.get_secret_value() == KEY


def test_an_api_key_in_pyproject_is_refused(clean_env: Path) -> None:
    (clean_env / "pyproject.toml").write_text(f'[tool.osrag]\napi_key = "{KEY}"\n')
    with pytest.raises(ConfigError, match=r"api_key in pyproject\.toml") as err:
        load_settings()
    assert KEY not in str(err.value)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"api_key": KEY, "api_key_file": "/k"}, "both set"),
        ({"api_key": KEY, "username": "u", "password": "p"}, "choose one"),
        ({"api_key": KEY, "aws_region": "eu-west-1"}, "choose one"),
        ({"cloud_id": "x:" + base64.b64encode(b"h$e$k").decode(), "url": "https://h"}, "both set"),
        (
            {"cloud_id": "x:" + base64.b64encode(b"h$e$k").decode(), "backend": "opensearch"},
            "set backend",
        ),
        ({"cloud_id": "not-a-cloud-id"}, "is not an Elastic Cloud ID"),
        (
            {"cloud_id": "x:" + base64.b64encode(b"host-only").decode()},
            "is not an Elastic Cloud ID",
        ),
    ],
)
def test_elasticsearch_settings_that_cannot_work_together_are_refused(
    clean_env: Path, values: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        load_settings(**values)
    assert KEY not in str(err.value)


@given(
    label=st.text(
        st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=":"), max_size=12
    ),
    host=st.from_regex(r"[a-z][a-z0-9-]{0,10}(\.[a-z][a-z0-9-]{0,10}){0,3}", fullmatch=True),
    port=st.none() | st.integers(1, 65535),
    es=st.from_regex(r"[0-9a-f]{8,32}", fullmatch=True),
    kibana=st.from_regex(r"[0-9a-f]{0,32}", fullmatch=True),
)
def test_cloud_ids_name_the_url_elastic_transport_names(
    label: str, host: str, port: int | None, es: str, kibana: str
) -> None:
    """Differential: osrag's Cloud ID reader against elastic-transport's own parser."""
    cloud_id = _cloud_id(label, host, port, es, kibana)
    theirs = parse_cloud_id(cloud_id)
    assert theirs.es_address is not None
    assert cloud_url(cloud_id) == f"https://{theirs.es_address[0]}:{theirs.es_address[1]}"


def test_a_cloud_id_is_the_url_of_settings_and_client(clean_env: Path) -> None:
    cloud_id = _cloud_id(
        "prod", "eu-west-1.aws.found.io", None, "4fa8821e75634032bed1cf22110e2f97", ""
    )
    loaded = load_settings(cloud_id=cloud_id, api_key=KEY)
    url = "https://4fa8821e75634032bed1cf22110e2f97.eu-west-1.aws.found.io:443"
    assert loaded.effective_url == url and loaded.uses_tls and loaded.has_cluster
    assert loaded.report().values["url"].value == url
    client = connect_elasticsearch(loaded)  # nothing is sent yet
    (node,) = client.transport.node_pool.all()
    assert (node.config.scheme, node.config.host, node.config.port) == (
        "https",
        "4fa8821e75634032bed1cf22110e2f97.eu-west-1.aws.found.io",
        443,
    )
    client.close()


def test_sigv4_is_refused_for_elasticsearch(clean_env: Path) -> None:
    with pytest.raises(ConfigError, match="SigV4"):
        connect_elasticsearch(load_settings(url="https://h:9200", aws_region="eu-west-1"))
