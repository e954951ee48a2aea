"""The OpenSearch versions osrag runs (2.19.6, the default, and 3.5.0): Java, pins, scoring."""

from __future__ import annotations

import copy
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from osrag import node
from osrag.cli import app
from osrag.engines.mapping import chunk_index_body
from osrag.engines.opensearch.index import scored_as_2x
from osrag.errors import NodeError
from osrag.node import java, launch, opensearch

runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _fake_jdk(home: Path, version: str) -> Path:
    """A folder whose bin/java prints ``version`` the way ``java -version`` does."""
    (home / "bin").mkdir(parents=True)
    java_bin = home / "bin" / "java"
    java_bin.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-10-21' >&2\n")
    java_bin.chmod(0o755)
    return home


@pytest.fixture
def two_jdks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    """Java 17 on the PATH (the machine's default), a Java 25 under the JVM folder."""
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("OSRAG_JAVA_HOME", raising=False)
    default = _fake_jdk(tmp_path / "default-17", "17.0.15")
    monkeypatch.setenv("PATH", str(default / "bin"))
    jvms = tmp_path / "jvm"
    newer = _fake_jdk(jvms / "temurin-25", "25.0.3")
    monkeypatch.setattr(java, "JVM_ROOTS", (jvms,))
    return default, newer


@pytest.mark.parametrize(
    ("asked", "resolved"),
    [
        (None, "2.19.6"),
        ("2.19.6", "2.19.6"),
        ("2.x", "2.19.6"),
        ("2", "2.19.6"),
        ("3.5.0", "3.5.0"),
        ("3.x", "3.5.0"),
        ("3.X", "3.5.0"),
        ("3", "3.5.0"),
    ],
)
def test_a_version_or_a_major_resolves_to_a_tested_release(
    asked: str | None, resolved: str
) -> None:
    assert opensearch.resolve_version(asked).version == resolved


def test_a_major_picks_its_newest_tested_release() -> None:
    for major in {r.major for r in opensearch.RELEASES}:
        same = [r for r in opensearch.RELEASES if r.major == major]
        assert opensearch.resolve_version(f"{major}.x") == same[-1]


@given(st.text(max_size=12))
def test_an_untested_version_is_refused_naming_the_tested_ones(text: str) -> None:
    tested = {r.version for r in opensearch.RELEASES}
    majors = {str(r.major) for r in opensearch.RELEASES}
    spelled = text.strip().lower()
    if spelled in tested or spelled.removesuffix(".x") in majors:
        assert opensearch.resolve_version(text).version in tested
        return
    with pytest.raises(NodeError, match=r"tested versions 2\.19\.6, 3\.5\.0"):
        opensearch.resolve_version(text)


def test_each_release_pins_what_maven_central_publishes_no_checksum_for() -> None:
    three = opensearch.distribution_artifact("3.5.0")
    assert three.sha1 == "c7e501f75a9b9b08e82e7fdd500ed3998080a599"
    assert opensearch.distribution_artifact("2.19.6").sha1 is None  # published beside the zip
    for release in opensearch.RELEASES:
        for plugin in opensearch.plugins_for(release.version):
            artifact = plugin.artifact(release.version)
            assert artifact.version == f"{release.version}.0" and artifact.sha1


def test_3x_runs_k_nn_only_2x_neural_search_too() -> None:
    """Maven Central serves neural-search for no 3.x release: 3.5.0 gets k-NN alone."""
    assert [p.name for p in opensearch.plugins_for("3.5.0")] == ["opensearch-knn"]
    assert [p.name for p in opensearch.plugins_for("2.19.6")] == [
        "opensearch-knn",
        "opensearch-neural-search",
    ]


def test_3x_finds_java_25_beside_a_java_17_default(two_jdks: tuple[Path, Path]) -> None:
    default, newer = two_jdks
    found = node.find_java(launch.java_range("opensearch", "3.x"))
    assert (found.home, found.major) == (newer, 25)
    found = node.find_java(launch.java_range("opensearch", None))
    assert (found.home, found.major) == (default, 17)


def test_3x_refuses_java_17_naming_the_range(
    two_jdks: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(java, "JVM_ROOTS", (tmp_path / "none",))
    with pytest.raises(
        NodeError, match=r"no Java 21 or newer found for OpenSearch 3\.5\.0(.|\n)*is Java 17"
    ):
        node.find_java(launch.java_range("opensearch", "3.5.0"))


def test_osrag_java_home_wins_over_java_home(
    two_jdks: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    default, newer = two_jdks
    monkeypatch.setenv("JAVA_HOME", str(default))
    monkeypatch.setenv("OSRAG_JAVA_HOME", str(newer))
    assert node.find_java(launch.java_range("opensearch", "3.x")).home == newer
    with pytest.raises(NodeError, match=r"OSRAG_JAVA_HOME \(.*\) is Java 25(.|\n)*Security"):
        node.find_java(launch.java_range("opensearch", "2.x"))


def test_java_home_of_the_wrong_major_is_refused_not_passed_over(
    two_jdks: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An explicit choice is used as it is: a Java 17 JAVA_HOME does not run 3.x."""
    default, _newer = two_jdks
    monkeypatch.setenv("JAVA_HOME", str(default))
    with pytest.raises(NodeError, match=r"JAVA_HOME \(.*\) is Java 17; OpenSearch 3\.5\.0 needs"):
        node.find_java(launch.java_range("opensearch", "3.x"))


def test_custom_archive_of_a_3x_version_gets_the_3x_java_range() -> None:
    """A distribution's own version (OSRAG_OPENSEARCH_DIST) chooses the range, tested or not."""
    assert launch.java_range("opensearch", "3.2.0").low == 21
    assert launch.java_range("opensearch", "2.17.1").high == 23


def test_cli_refuses_an_untested_version_before_any_download(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["node", "start", "--version", "3.4.0", "--port", str(_free_port())],
        env={"OSRAG_HOME": str(tmp_path)},
    )
    assert isinstance(result.exception, NodeError)
    assert "OpenSearch 3.4.0" in str(result.exception) and "3.5.0" in str(result.exception)
    assert not (tmp_path / "downloads").exists()


@pytest.mark.opensearch
def test_3x_lifecycle_start_status_stop(opensearch_url: str) -> None:
    """``--version 3.x`` starts 3.5.0 with k-NN on a Java 21+; status and stop find it."""
    home = node.default_home()  # the session's home: the distribution is reused
    port, transport = _free_port(), _free_port()
    try:
        first = node.start(port=port, home=home, transport_port=transport, engine_version="3.x")
        assert first.running and first.version == "3.5.0"
        assert first.health in ("yellow", "green")
        assert "opensearch-knn" in first.plugins
        again = node.start(port=port, home=home, engine_version="3.5.0")
        assert again.already_running and again.pid == first.pid
        shown = runner.invoke(
            app, ["node", "status", "--port", str(port)], env={"OSRAG_HOME": str(home)}
        )
        assert shown.exit_code == 0, shown.output
        assert "OpenSearch 3.5.0" in shown.output and "without" not in shown.output
    finally:
        assert node.stop(port=port, home=home) is True
    assert not node.status(port=port, home=home).running


_FIELD_TYPES = st.sampled_from(["keyword", "text", "long", "date", "knn_vector"])
_FIELDS = st.recursive(
    st.builds(lambda t: {"type": t}, _FIELD_TYPES),
    lambda inner: st.one_of(
        st.builds(lambda p: {"properties": p}, st.dictionaries(st.text(min_size=1), inner)),
        st.builds(
            lambda t, f: {"type": t, "fields": f},
            _FIELD_TYPES,
            st.dictionaries(st.text(min_size=1), inner, max_size=2),
        ),
    ),
    max_leaves=12,
)


def _walk(field: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield field
    for key in ("properties", "fields"):
        for child in field.get(key, {}).values():
            yield from _walk(child)


@given(st.dictionaries(st.text(min_size=1), _FIELDS, max_size=5))
def test_a_3x_generation_scores_keyword_terms_and_bm25_as_2x(properties: dict[str, Any]) -> None:
    """Every keyword field, however nested, gets ``use_similarity``; nothing else changes;
    the body given is left as it was (2.x would refuse the parameter)."""
    body = {"settings": {"index.knn": True}, "mappings": {"properties": properties}}
    before = copy.deepcopy(body)
    scored = scored_as_2x(body)
    assert body == before
    assert scored["settings"]["index"]["similarity"] == {"default": {"type": "LegacyBM25"}}
    assert scored["settings"]["index.knn"] is True
    fields = list(_walk(scored["mappings"]))
    assert all(f.get("use_similarity") is True for f in fields if f.get("type") == "keyword")
    assert not any("use_similarity" in f for f in fields if f.get("type") != "keyword")
    assert len(fields) == len(list(_walk(before["mappings"])))


def test_the_shipped_chunk_mapping_keeps_its_shape_for_3x() -> None:
    body = chunk_index_body(vector_dimension=8)
    scored = scored_as_2x(body)
    keyword = [f for f in _walk(scored["mappings"]) if f.get("type") == "keyword"]
    assert keyword and all(f["use_similarity"] for f in keyword)
    assert scored_as_2x(scored) == scored  # applied twice: the same body


def test_a_cluster_of_another_version_is_refused_not_started_as_the_default(
    tmp_path: Path,
) -> None:
    with pytest.raises(NodeError, match=r"--version 3\.x: a multi-node cluster runs OpenSearch"):
        node.start(port=_free_port(), home=tmp_path, nodes=3, engine_version="3.x")
    assert not list(tmp_path.iterdir())  # nothing fetched, nothing written
