"""One settings model for CLI and library: flags > environment > file > defaults, with origins."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from osrag.config import (
    DEFAULT_URL,
    Settings,
    find_config_file,
    load_settings,
)
from osrag.errors import ConfigError

LAYERS = ("flag", "env", "file")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(present=st.sets(st.sampled_from(LAYERS)))
def test_each_value_comes_from_the_highest_layer_that_sets_it(
    present: set[str], clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For any subset of layers setting ``timeout``, the highest one wins and is named."""
    config = clean_env / "osrag.toml"
    config.unlink(missing_ok=True)
    monkeypatch.delenv("OSRAG_TIMEOUT", raising=False)
    value = {"flag": 11.0, "env": 22.0, "file": 33.0}
    if "file" in present:
        _write(config, f"timeout = {value['file']}\n")
    if "env" in present:
        monkeypatch.setenv("OSRAG_TIMEOUT", str(value["env"]))
    flags = {"timeout": value["flag"]} if "flag" in present else {"timeout": None}

    loaded = load_settings(**flags)

    winner = next((layer for layer in LAYERS if layer in present), "default")
    expected = value.get(winner, Settings.model_fields["timeout"].default)
    assert loaded.timeout == expected
    assert (
        loaded.origin("timeout")
        == {
            "flag": "flag",
            "env": "env OSRAG_TIMEOUT",
            "file": f"file {config.resolve()}",
            "default": "default",
        }[winner]
    )


def test_settings_built_directly_read_the_same_sources_as_load_settings(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(clean_env / "osrag.toml", 'url = "https://file.example:9200"\nmax_retries = 7\n')
    monkeypatch.setenv("OSRAG_MAX_RETRIES", "5")
    monkeypatch.setenv("OSRAG_VERIFY_CERTS", "false")

    direct = Settings(timeout=4)
    loaded = load_settings(timeout=4)

    assert direct.model_dump() == loaded.model_dump()
    assert (loaded.url, loaded.max_retries, loaded.verify_certs) == (
        "https://file.example:9200",
        5,
        False,
    )


def test_osrag_toml_is_found_in_a_parent_folder_and_wins_over_pyproject(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = clean_env / "project"
    _write(project / "pyproject.toml", '[tool.osrag]\nalias = "from-pyproject"\n')
    nested = project / "src" / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    assert find_config_file() == (project / "pyproject.toml").resolve()
    assert load_settings().alias == "from-pyproject"
    assert "(tool.osrag)" in load_settings().origin("alias")

    _write(project / "osrag.toml", 'alias = "from-osrag-toml"\n')
    assert load_settings().alias == "from-osrag-toml"


def test_a_pyproject_without_tool_osrag_is_not_a_configuration_file(clean_env: Path) -> None:
    _write(clean_env / "pyproject.toml", '[project]\nname = "someone-else"\n')
    assert find_config_file() is None
    assert load_settings().config_file is None


def test_config_flag_and_osrag_config_env_name_the_file(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(clean_env / "osrag.toml", 'alias = "discovered"\n')
    elsewhere = _write(clean_env / "conf" / "prod.toml", 'alias = "named"\n')
    monkeypatch.setenv("OSRAG_CONFIG", str(elsewhere))
    assert load_settings().alias == "named"
    assert Settings().alias == "named"
    explicit = _write(clean_env / "conf" / "flag.toml", 'alias = "flagged"\n')
    assert load_settings(config=explicit).alias == "flagged"
    assert load_settings(config=explicit).config_file == str(explicit.resolve())


def test_relative_paths_in_a_file_are_relative_to_that_file(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = clean_env / "project"
    _write(
        project / "osrag.toml",
        'url = "https://h:9200"\nca_certs = "certs/ca.pem"\npassword_file = "/run/pw"\n'
        'username = "u"\n',
    )
    monkeypatch.chdir(clean_env)  # not the file's folder
    loaded = load_settings(config=project / "osrag.toml")
    assert loaded.ca_certs == project / "certs" / "ca.pem"
    assert loaded.password_file == Path("/run/pw")


def test_unknown_key_in_the_file_is_an_error_naming_file_and_key(clean_env: Path) -> None:
    path = _write(clean_env / "osrag.toml", 'pasword_file = "/x"\n')
    with pytest.raises(ConfigError, match=r"osrag\.toml: unknown setting 'pasword_file'") as err:
        load_settings()
    assert str(path.resolve()) in str(err.value) or str(path) in str(err.value)


def test_invalid_toml_is_an_error_naming_the_file_and_line(clean_env: Path) -> None:
    _write(clean_env / "osrag.toml", 'url = "https://h:9200"\ntimeout = = 3\n')
    with pytest.raises(ConfigError, match=r"osrag\.toml is not valid TOML: .*line 2"):
        load_settings()


def test_a_missing_named_file_is_an_error(clean_env: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(config=clean_env / "nope.toml")


def test_a_password_in_pyproject_is_refused(clean_env: Path) -> None:
    _write(clean_env / "pyproject.toml", '[tool.osrag]\nusername = "u"\npassword = "pw-in-git"\n')
    with pytest.raises(ConfigError, match=r"password in pyproject\.toml") as err:
        load_settings()
    assert "pw-in-git" not in str(err.value)


def test_a_bad_value_names_setting_and_source_but_not_the_value(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSRAG_TIMEOUT", "soon-ish")
    with pytest.raises(ConfigError, match=r"timeout \(env OSRAG_TIMEOUT\)") as err:
        load_settings()
    assert "soon-ish" not in str(err.value)
    with pytest.raises(ConfigError, match=r"aws_service \(flag\)"):
        load_settings(aws_service="lambda")


def test_credentials_in_the_url_move_to_username_and_password(clean_env: Path) -> None:
    loaded = load_settings(url="https://alice:p%40ss@search.example:9200/")
    assert loaded.url == "https://search.example:9200"
    assert loaded.username == "alice"
    assert loaded.password == SecretStr("p@ss")
    assert loaded.origin("password") == "flag (userinfo)"
    assert "p@ss" not in repr(loaded) and "p%40ss" not in repr(loaded)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"username": "u", "password": "p", "password_file": "/pw"}, "both set"),
        ({"password": "p"}, "no user"),
        ({"username": "u"}, "no password"),
        ({"url": "https://h:1", "client_key": "/k.pem"}, "without client_cert"),
        ({"username": "u", "password": "p", "aws_region": "eu-west-1"}, "choose one"),
        ({"aws_service": "aoss"}, "set aws_region"),
        ({"url": "http://h:9200", "ca_certs": "/ca.pem"}, "did you mean https"),
        ({"url": "ftp://h"}, "must look like"),
        ({"url": "https://h:99999"}, "port"),
    ],
)
def test_settings_that_cannot_work_together_are_refused(
    clean_env: Path, values: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(**values)


def test_the_password_file_is_read_and_its_trailing_newline_dropped(clean_env: Path) -> None:
    secret_file = _write(clean_env / "pw", "correct horse battery staple \n")
    loaded = load_settings(username="u", password_file=secret_file)
    auth = loaded.basic_auth()
    assert auth is not None
    assert auth[0] == "u"
    assert auth[1].get_secret_value() == "correct horse battery staple "


@pytest.mark.parametrize(("content", "message"), [(None, "cannot read"), ("\n", "is empty")])
def test_an_unusable_password_file_is_an_error_naming_it(
    clean_env: Path, content: str | None, message: str
) -> None:
    path = clean_env / "pw"
    if content is not None:
        path.write_text(content)
    loaded = load_settings(username="u", password_file=path)
    with pytest.raises(ConfigError, match=message) as err:
        loaded.basic_auth()
    assert str(path) in str(err.value)


def test_masked_and_report_never_show_the_password(clean_env: Path) -> None:
    loaded = load_settings(url="https://h:9200", username="u", password="s3cr3t-value")
    assert loaded.masked()["password"] == "****"
    report = loaded.report()
    assert report.values["password"].value == "****"
    assert report.values["password"].source == "flag"
    rendered = [repr(loaded), str(loaded), loaded.model_dump_json(), report.model_dump_json()]
    assert not any("s3cr3t-value" in text for text in rendered)


def test_defaults_report_their_source_as_default(clean_env: Path) -> None:
    report = load_settings().report()
    assert report.config_file is None
    assert report.values["url"].value is None  # no cluster named: the embedded index is used
    assert {row.source for row in report.values.values()} == {"default"}
    assert load_settings(backend="opensearch").report().values["url"].value == DEFAULT_URL


def test_serverless_is_sigv4_with_the_aoss_service(clean_env: Path) -> None:
    assert load_settings(aws_region="eu-west-1", aws_service="aoss").is_serverless
    assert not load_settings(aws_region="eu-west-1").is_serverless
    assert not load_settings().is_serverless


def test_unknown_flag_names_are_a_programming_error(clean_env: Path) -> None:
    with pytest.raises(TypeError, match="pasword"):
        load_settings(pasword="x")
