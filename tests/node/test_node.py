"""The local node manager: lifecycle, idempotence and its clear failures."""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import socket
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from osrag import node
from osrag.cli import app
from osrag.errors import NodeError
from osrag.node import cluster, elasticsearch, java, opensearch
from osrag.node.process import localise_jvm_options

runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _world_traversable(path: Path) -> Path:
    """The node may run as an unprivileged user: let it reach a test folder."""
    path.mkdir(parents=True, exist_ok=True)
    for folder in [path, *path.parents]:
        if str(folder) in ("/", "/tmp"):
            break
        folder.chmod(folder.stat().st_mode | 0o755)
    return path


@pytest.fixture
def shared_home(opensearch_url: str) -> Path:
    """The home the session's node uses, so downloads are reused, not fetched again."""
    return node.default_home()


@pytest.mark.opensearch
def test_lifecycle_start_status_stop_is_idempotent(shared_home: Path) -> None:
    port, transport = _free_port(), _free_port()
    try:
        first = node.start(port=port, home=shared_home, transport_port=transport)
        assert first.running and not first.already_running
        assert first.health in ("yellow", "green")
        assert first.version == node.OPENSEARCH_VERSION
        assert first.engine == "opensearch" and first.transport_port == transport
        assert {"opensearch-knn", "opensearch-neural-search"} <= set(first.plugins)
        assert first.rss_mb is not None and first.rss_mb > 100

        again = node.start(port=port, home=shared_home)
        assert again.already_running and again.pid == first.pid

        shown = runner.invoke(
            app, ["node", "status", "--port", str(port)], env={"OSRAG_HOME": str(shared_home)}
        )
        assert shown.exit_code == 0, shown.output
        assert node.OPENSEARCH_VERSION in shown.output and f"127.0.0.1:{port}" in shown.output
    finally:
        assert node.stop(port=port, home=shared_home) is True
    assert node.stop(port=port, home=shared_home) is False
    assert not node.status(port=port, home=shared_home).running
    stopped = runner.invoke(
        app, ["node", "status", "--port", str(port)], env={"OSRAG_HOME": str(shared_home)}
    )
    assert stopped.exit_code == 3
    assert "not running" in stopped.output


def test_port_taken_by_another_process_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(NodeError, match=f"port {port} is taken"):
            node.start(port=port, home=tmp_path)


def test_stop_leaves_a_foreign_pid_alone(tmp_path: Path) -> None:
    port = _free_port()
    layout = node.NodeLayout(tmp_path, port)
    layout.node_dir.mkdir(parents=True)
    layout.pid_file.write_text(f"{os.getpid()}\n")  # alive, but not an OpenSearch we started
    assert node.stop(port=port, home=tmp_path) is False
    assert os.getpid()  # still here


def test_no_java_names_java_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("OSRAG_JAVA_HOME", raising=False)  # it would win
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on this PATH
    monkeypatch.setattr(java, "JVM_ROOTS", (tmp_path / "no-jvms",))
    with pytest.raises(NodeError, match=r"no Java found(.|\n)*JAVA_HOME"):
        node.find_java(opensearch.JAVA)


def _fake_jdk(home: Path, version: str) -> Path:
    """A folder whose bin/java prints ``version`` the way ``java -version`` does."""
    (home / "bin").mkdir(parents=True)
    java_bin = home / "bin" / "java"
    java_bin.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-10-21' >&2\n")
    java_bin.chmod(0o755)
    return home


def test_java_without_security_manager_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("JAVA_HOME", str(_fake_jdk(tmp_path / "jdk-25", "25.0.1")))
    monkeypatch.delenv("OSRAG_JAVA_HOME", raising=False)  # it would win
    with pytest.raises(NodeError, match=r"Java 25(.|\n)*Security Manager(.|\n)*JAVA_HOME"):
        node.find_java(opensearch.JAVA)


def test_elasticsearch_8_refuses_java_24_and_newer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Measured: Elasticsearch 8.15 on Java 25 dies enabling the Security Manager."""
    monkeypatch.setenv("JAVA_HOME", str(_fake_jdk(tmp_path / "jdk-25", "25.0.3")))
    monkeypatch.delenv("OSRAG_JAVA_HOME", raising=False)  # it would win
    with pytest.raises(
        NodeError, match=r"Java 25; Elasticsearch 8\.15\.0 needs Java 17–23(.|\n)*Security Manager"
    ):
        node.find_java(elasticsearch.java_range("8.15.0"))


def test_elasticsearch_9_finds_a_newer_jdk_beside_an_old_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """java on the PATH is 17; a Java 25 under the JVM folder is found for Elasticsearch 9."""
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("OSRAG_JAVA_HOME", raising=False)  # it would win
    default = _fake_jdk(tmp_path / "default-17", "17.0.15")
    monkeypatch.setenv("PATH", str(default / "bin"))
    jvms = tmp_path / "jvm"
    newer = _fake_jdk(jvms / "temurin-25", "25.0.3")
    monkeypatch.setattr(java, "JVM_ROOTS", (jvms,))

    found = node.find_java(elasticsearch.java_range("9.1.0"))
    assert (found.home, found.major) == (newer, 25)

    monkeypatch.setattr(java, "JVM_ROOTS", (tmp_path / "none",))
    with pytest.raises(NodeError, match=r"no Java 21 or newer(.|\n)*is Java 17"):
        node.find_java(elasticsearch.java_range("9.1.0"))


class _Repo(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep test output clean
        pass


@pytest.fixture
def local_repo(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback Maven-layout repository served over HTTP."""
    root = tmp_path / "repo"
    root.mkdir()
    handler = lambda *a, **k: _Repo(*a, directory=str(root), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", root
    server.shutdown()


def _publish(root: Path, artifact: node.Artifact, payload: bytes, sha1: str | None = None) -> None:
    rel = artifact.url("").lstrip("/")
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(payload)
    (root / (rel + ".sha1")).write_text((sha1 or hashlib.sha1(payload).hexdigest()) + "\n")


def test_https_fetch_checks_the_published_checksum(
    local_repo: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, root = local_repo
    good = node.Artifact("dev.osrag", "good", "1.0")
    bad = node.Artifact("dev.osrag", "bad", "1.0")
    _publish(root, good, b"real bytes")
    _publish(root, bad, b"tampered bytes", sha1="0" * 40)
    monkeypatch.setenv("OSRAG_MAVEN_REPO", url)
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")  # no mvn: the HTTPS path is taken
    downloads = tmp_path / "downloads"

    node.fetch([good], downloads, progress=lambda _m: None)
    assert (downloads / good.filename).read_bytes() == b"real bytes"

    with pytest.raises(NodeError, match="SHA-1"):
        node.fetch([bad], downloads, progress=lambda _m: None)
    assert not (downloads / bad.filename).exists()


def test_download_failure_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSRAG_MAVEN_REPO", f"http://127.0.0.1:{_free_port()}")
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")
    with pytest.raises(NodeError, match="download failed"):
        node.fetch(
            [node.Artifact("dev.osrag", "missing", "1.0")], tmp_path, progress=lambda _m: None
        )


def _fake_distribution(tmp_path: Path, launcher: str) -> Path:
    """An OpenSearch-shaped archive, modules and plugins present, running ``launcher``."""
    fake = tmp_path / "build" / "opensearch-9.9.9"
    for folder in ("bin", "lib", "config"):
        (fake / folder).mkdir(parents=True)
    (fake / "lib" / "opensearch-2.19.6.jar").write_bytes(b"")
    (fake / "config" / "jvm.options").write_text("-Xlog:gc*:file=logs/gc.log\n")
    for module in ("lang-painless", "analysis-common"):
        (fake / "modules" / module).mkdir(parents=True)
    for plugin in node.PLUGINS:
        (fake / "plugins" / plugin.name).mkdir(parents=True)
    script = fake / "bin" / "opensearch"
    script.write_text(launcher)
    script.chmod(0o755)
    archive = tmp_path / "fake-opensearch.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(fake, arcname=fake.name)
    return archive


@pytest.fixture
def fake_home() -> Iterator[Path]:
    """A home the unprivileged node user can reach (tmp_path may sit under /root)."""
    home = _world_traversable(Path("/tmp") / f"osrag-fake-home-{os.getpid()}-{_free_port()}")
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_node_that_dies_at_start_reports_its_log(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distribution whose launcher fails: the error carries the tail of its log."""
    launcher = "#!/bin/sh\necho 'fatal error: this launcher always fails'\nexit 3\n"
    monkeypatch.setenv("OSRAG_OPENSEARCH_DIST", str(_fake_distribution(tmp_path, launcher)))
    with pytest.raises(NodeError, match=r"exited with code 3(.|\n)*always fails"):
        node.start(port=_free_port(), home=fake_home, timeout=30, transport_port=_free_port())


def test_cluster_node_dying_at_start_stops_the_others_and_shows_its_log(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node 2 of 3 fails; the error names it with its log, and nodes 1 and 3 are stopped."""
    launcher = (
        "#!/bin/sh\n"
        'case "$*" in *-Enode.name=osrag-2*)\n'
        "  echo 'fatal error: node two cannot bind its data path'; exit 3;;\n"
        "esac\n"
        "exec sleep 120\n"
    )
    monkeypatch.setenv("OSRAG_OPENSEARCH_DIST", str(_fake_distribution(tmp_path, launcher)))
    port, transport = _free_port(), _free_port()
    with pytest.raises(
        NodeError,
        match=r"node osrag-2 \(port \d+\) exited with code 3(.|\n)*other nodes were stopped"
        r"(.|\n)*node two cannot bind",
    ):
        node.start(port=port, home=fake_home, nodes=3, timeout=60, transport_port=transport)
    record = cluster.read_record(fake_home, port)
    assert record is not None
    assert [m.transport_port for m in record.members] == [transport, transport + 1, transport + 2]
    for layout in cluster.layouts(fake_home, record):
        assert not layout.pid_file.exists()
    gone = node.status(port=port, home=fake_home)
    assert not gone.running and [m.running for m in gone.nodes] == [False, False, False]


def test_cluster_port_taken_names_the_node_and_port(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        taken = listener.getsockname()[1]
        # node 2's transport port is the taken one
        with pytest.raises(NodeError, match=f"osrag-2 transport port {taken} is taken"):
            node.start(port=_free_port(), home=tmp_path, nodes=3, transport_port=taken - 1)
    assert not (tmp_path / "downloads").exists()  # refused before fetching anything


def test_cluster_plan_ports_and_names() -> None:
    record = cluster.plan(9500, 3, None)
    assert [(m.name, m.http_port, m.transport_port) for m in record.members] == [
        ("osrag-1", 9500, 9600),
        ("osrag-2", 9501, 9601),
        ("osrag-3", 9502, 9602),
    ]
    assert record.cluster_name == "osrag-cluster-9500"
    with pytest.raises(NodeError, match="overlap"):
        cluster.plan(9500, 3, 9502)


def test_only_opensearch_runs_as_a_cluster(tmp_path: Path) -> None:
    with pytest.raises(NodeError, match="OpenSearch only"):
        node.start(port=_free_port(), home=tmp_path, engine="elasticsearch", nodes=3)
    with pytest.raises(NodeError, match="1 to 9 nodes"):
        node.start(port=_free_port(), home=tmp_path, nodes=12)


def test_jvm_options_point_at_the_node_folder(tmp_path: Path) -> None:
    """Elasticsearch runs in the shared distribution folder: logs must go to each node's own."""
    options = tmp_path / "jvm.options"
    options.write_text(
        "-XX:HeapDumpPath=data\n"
        "-XX:ErrorFile=logs/hs_err_pid%p.log\n"
        "9-:-Xlog:gc*,gc+age=trace,safepoint:file=logs/gc.log:utctime,pid,tags:filecount=32\n"
        "-XX:ErrorFile=hs_err_pid%p.log\n"
        "-Xlog:gc*,gc+age=trace,safepoint:file=gc.log:utctime,level,pid,tags:filecount=32\n"
    )
    node_dir = tmp_path / "es-node-9400"
    localise_jvm_options(options, node_dir)
    assert options.read_text().splitlines() == [
        f"-XX:HeapDumpPath={node_dir}/data",
        f"-XX:ErrorFile={node_dir}/logs/hs_err_pid%p.log",
        f"9-:-Xlog:gc*,gc+age=trace,safepoint:file={node_dir}/logs/gc.log:utctime,pid,tags:filecount=32",
        f"-XX:ErrorFile={node_dir}/logs/hs_err_pid%p.log",
        f"-Xlog:gc*,gc+age=trace,safepoint:file={node_dir}/logs/gc.log:utctime,level,pid,tags:filecount=32",
    ]
    before = options.read_text()
    localise_jvm_options(options, node_dir)  # idempotent: a restart changes nothing
    assert options.read_text() == before


def _plugin_less_dist(tmp_path: Path) -> Path:
    dist = tmp_path / "opensearch-2.19.6"
    (dist / "lib").mkdir(parents=True)
    (dist / "lib" / "opensearch-2.19.6.jar").write_bytes(b"")
    (dist / "plugins").mkdir()
    return dist


def test_plugin_zip_is_checked_against_the_pinned_checksum(
    local_repo: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Maven Central serves the plugin zips without checksum files: osrag's pin decides."""
    url, root = local_repo
    knn, _neural = (p.artifact("2.19.6") for p in node.PLUGINS)
    assert knn.coordinates == "org.opensearch.plugin:opensearch-knn:2.19.6.0:zip"
    assert knn.sha1 is not None
    target = root / knn.url("").lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_bytes(b"a tampered plugin zip")  # and no .sha1 beside it, as on Maven Central
    monkeypatch.setenv("OSRAG_MAVEN_REPO", url)
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")  # no mvn: the HTTPS path is taken
    dist = _plugin_less_dist(tmp_path)
    downloads = tmp_path / "downloads"
    with pytest.raises(
        NodeError,
        match=r"opensearch-knn:2\.19\.6\.0:zip(.|\n)*SHA-1 [0-9a-f]{40} "
        f"does not match the pinned {knn.sha1}",
    ):
        opensearch.install_plugins(dist, downloads, progress=lambda _m: None)
    assert not (downloads / knn.filename).exists()
    assert not list((dist / "plugins").iterdir())


def test_published_and_pinned_checksums_must_agree(
    local_repo: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, root = local_repo
    pinned = node.Artifact("dev.osrag", "pinned", "1.0", sha1=hashlib.sha1(b"real").hexdigest())
    _publish(root, pinned, b"other bytes")  # published .sha1 of other bytes
    monkeypatch.setenv("OSRAG_MAVEN_REPO", url)
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")
    with pytest.raises(NodeError, match=r"publishes SHA-1 [0-9a-f]{40}, osrag pins"):
        node.fetch([pinned], tmp_path / "d", progress=lambda _m: None)


def test_artifact_with_no_checksum_anywhere_is_refused(
    local_repo: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, root = local_repo
    bare = node.Artifact("dev.osrag", "bare", "1.0")
    target = root / bare.url("").lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_bytes(b"unverifiable")
    monkeypatch.setenv("OSRAG_MAVEN_REPO", url)
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")
    with pytest.raises(NodeError, match="no published checksum and osrag pins none"):
        node.fetch([bare], tmp_path / "d", progress=lambda _m: None)
    assert not (tmp_path / "d" / bare.filename).exists()


def test_pins_are_checked_after_maven_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Maven only warns about a missing checksum; a file that breaks the pin is removed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mvn = bin_dir / "mvn"  # writes a wrong file where copy-dependencies would put the real one
    mvn.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#-DoutputDirectory=}";; '
        "esac; done\n"
        'mkdir -p "$out" && printf wrong > "$out/pinned-1.0.jar"\n'
    )
    mvn.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("OSRAG_MAVEN_REPO", f"http://127.0.0.1:{_free_port()}")  # unreachable
    pinned = node.Artifact("dev.osrag", "pinned", "1.0", sha1=hashlib.sha1(b"real").hexdigest())
    with pytest.raises(NodeError, match=r"Maven fetched dev\.osrag:pinned(.|\n)*osrag pins"):
        node.fetch([pinned], tmp_path / "d", progress=lambda _m: None)
    assert not (tmp_path / "d" / pinned.filename).exists()


def test_plugin_missing_from_the_repository_is_a_clear_error(
    local_repo: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _root = local_repo  # publishes nothing: every plugin answers 404
    monkeypatch.setenv("OSRAG_MAVEN_REPO", url)
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")
    with pytest.raises(NodeError, match=r"download failed: org\.opensearch\.plugin:opensearch-knn"):
        opensearch.install_plugins(_plugin_less_dist(tmp_path), tmp_path / "d", lambda _m: None)


def test_installed_plugins_are_not_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSRAG_MAVEN_REPO", f"http://127.0.0.1:{_free_port()}")  # unreachable
    monkeypatch.setenv("PATH", "/usr/bin/nonexistent")
    dist = _plugin_less_dist(tmp_path)
    for plugin in node.PLUGINS:
        (dist / "plugins" / plugin.name).mkdir()
    opensearch.install_plugins(dist, tmp_path / "downloads", progress=lambda _m: None)
    assert not (tmp_path / "downloads").exists()


def test_heap_must_be_a_jvm_size(tmp_path: Path) -> None:
    with pytest.raises(NodeError, match="heap"):
        node.start(port=_free_port(), heap="half", home=tmp_path)


@pytest.mark.opensearch
def test_a_distribution_from_an_older_osrag_gets_the_plugins_in_place(
    shared_home: Path, tmp_path: Path
) -> None:
    """A ready distribution without plugins (as older osrag left it) is completed, not rebuilt."""
    current = opensearch.ensure_distribution(shared_home, progress=lambda _m: None)
    home = tmp_path / "home"
    old = home / current.name
    shutil.copytree(current, old, symlinks=True, ignore=shutil.ignore_patterns("plugins"))
    (old / "plugins").mkdir()
    (home / "downloads").mkdir()
    for plugin in node.PLUGINS:  # reuse the zips already fetched: no network in this test
        name = plugin.artifact(node.OPENSEARCH_VERSION).filename
        (home / "downloads" / name).symlink_to(shared_home / "downloads" / name)
    marker = (old / ".osrag-ready").read_text()
    messages: list[str] = []

    assert opensearch.ensure_distribution(home, progress=messages.append) == old
    assert sorted(p.name for p in (old / "plugins").iterdir()) == sorted(
        p.name for p in node.PLUGINS
    )
    assert (old / ".osrag-ready").read_text() == marker
    assert not any("unpacking" in m for m in messages)
    assert any("installing plugins" in m for m in messages)


def test_data_of_another_version_is_not_upgraded_silently(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Elasticsearch 9 would rewrite 8.x data for good: another version on the folder is refused."""
    launcher = "#!/bin/sh\necho 'must not be started'\nexit 3\n"
    monkeypatch.setenv("OSRAG_OPENSEARCH_DIST", str(_fake_distribution(tmp_path, launcher)))
    port = _free_port()
    layout = node.NodeLayout(fake_home, port)
    layout.node_dir.mkdir(parents=True)
    (layout.node_dir / "engine.version").write_text("OpenSearch 2.17.0\n")
    with pytest.raises(
        NodeError, match=r"holds the data of OpenSearch 2\.17\.0; OpenSearch 2\.19\.6"
    ):
        node.start(port=port, home=fake_home, transport_port=_free_port())
    assert not layout.console_log.exists()  # nothing was launched
