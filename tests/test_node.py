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
    port = _free_port()
    try:
        first = node.start(port=port, home=shared_home)
        assert first.running and not first.already_running
        assert first.health in ("yellow", "green")
        assert first.version == node.OPENSEARCH_VERSION

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
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on this PATH
    with pytest.raises(NodeError, match="JAVA_HOME"):
        node.find_java()


def test_java_without_security_manager_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_home = tmp_path / "jdk-25"
    (fake_home / "bin").mkdir(parents=True)
    java = fake_home / "bin" / "java"
    java.write_text("#!/bin/sh\necho 'openjdk version \"25.0.1\" 2025-10-21' >&2\n")
    java.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(fake_home))
    with pytest.raises(NodeError, match=r"Java 25(.|\n)*Security Manager(.|\n)*JAVA_HOME"):
        node.find_java()


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


def test_node_that_dies_at_start_reports_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distribution whose launcher fails: the error carries the tail of its log."""
    fake = tmp_path / "build" / "opensearch-9.9.9"
    (fake / "bin").mkdir(parents=True)
    (fake / "lib").mkdir()
    (fake / "config").mkdir()
    (fake / "lib" / "opensearch-2.19.6.jar").write_bytes(b"")
    for module in ("lang-painless", "analysis-common"):
        (fake / "modules" / module).mkdir(parents=True)
    launcher = fake / "bin" / "opensearch"
    launcher.write_text("#!/bin/sh\necho 'fatal error: this launcher always fails'\nexit 3\n")
    launcher.chmod(0o755)
    archive = tmp_path / "fake-opensearch.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(fake, arcname="opensearch-9.9.9")

    home = _world_traversable(Path("/tmp") / f"osrag-fake-home-{os.getpid()}")
    try:
        monkeypatch.setenv("OSRAG_OPENSEARCH_DIST", str(archive))
        with pytest.raises(NodeError, match=r"exited with code 3(.|\n)*always fails"):
            node.start(port=_free_port(), home=home, timeout=30)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_heap_must_be_a_jvm_size(tmp_path: Path) -> None:
    with pytest.raises(NodeError, match="heap"):
        node.start(port=_free_port(), heap="half", home=tmp_path)
