"""A local single-node OpenSearch for development and CI.

No Docker needed: the node is the Maven Central artifact
``org.opensearch.distribution.integ-test-zip:opensearch:<version>:zip``, run with
the machine's Java. That zip holds only the transport modules, so osrag adds
``analysis-common`` (the ``english`` analyzer and friends) and ``lang-painless``
from their own Maven Central artifacts, each with the plugin descriptor the
full distribution ships, so analysis behaves as on the clusters users run.

Where files go (``OSRAG_HOME``; default ``~/.cache/osrag``, or
``/var/cache/osrag`` when run as root, because the node then runs as the
unprivileged user ``osrag`` — OpenSearch refuses root — and ``/root`` is
private)::

    downloads/                    the artifacts as fetched (checksums verified)
    opensearch-<version>/         the unpacked distribution with the added modules
    node-<port>/                  data/, logs/, config/, node.pid, console.log

Fetching: Maven when ``mvn`` is on the PATH, else HTTPS from the Maven
repository (``OSRAG_MAVEN_REPO``) with the published SHA-1 checked. An archive
named by ``OSRAG_OPENSEARCH_DIST`` (for example the full distribution with its
bundled JDK) is used instead of the integ-test zip.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from osrag.errors import NodeError

OPENSEARCH_VERSION = "2.19.6"
"""The pinned OpenSearch version (the newest 2.19.x Maven Central serves that runs on Java 17)."""

DEFAULT_PORT = 9200
DEFAULT_HEAP = "512m"
DEFAULT_TIMEOUT = 180.0
SERVICE_USER = "osrag"
MAVEN_REPO = "https://repo.maven.apache.org/maven2"
MAVEN_DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
MIN_JAVA, MAX_JAVA = 11, 23  # OpenSearch 2.x needs the Security Manager, removed in Java 24

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Artifact:
    """A Maven coordinate ``group:artifact:version[:ext]``."""

    group: str
    artifact: str
    version: str
    ext: str = "jar"

    @property
    def filename(self) -> str:
        return f"{self.artifact}-{self.version}.{self.ext}"

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}:{self.ext}"

    def url(self, repo: str) -> str:
        group_path = self.group.replace(".", "/")
        return f"{repo.rstrip('/')}/{group_path}/{self.artifact}/{self.version}/{self.filename}"


@dataclass(frozen=True)
class Module:
    """A module the integ-test zip lacks, rebuilt as the full distribution lays it out."""

    name: str
    classname: str
    description: str
    jars: tuple[Artifact, ...]
    extended_plugins: tuple[str, ...] = ()
    security_policy: str | None = None

    def descriptor(self, version: str) -> str:
        return "\n".join(
            [
                f"description={self.description}",
                f"version={version}",
                f"name={self.name}",
                f"classname={self.classname}",
                "java.version=11",
                f"opensearch.version={version}",
                "custom.foldername=",
                f"extended.plugins={','.join(self.extended_plugins)}",
                "has.native.controller=false",
                "",
            ]
        )


def distribution_artifact(version: str = OPENSEARCH_VERSION) -> Artifact:
    return Artifact("org.opensearch.distribution.integ-test-zip", "opensearch", version, "zip")


def extra_modules(version: str = OPENSEARCH_VERSION) -> tuple[Module, ...]:
    """``lang-painless`` (which ``analysis-common`` extends) and ``analysis-common``."""
    plugin = "org.opensearch.plugin"
    painless = Module(
        name="lang-painless",
        classname="org.opensearch.painless.PainlessPlugin",
        description="An easy, safe and fast scripting language for OpenSearch",
        jars=(
            Artifact(plugin, "lang-painless", version),
            Artifact(plugin, "opensearch-scripting-painless-spi", version),
            Artifact("org.antlr", "antlr4-runtime", "4.13.1"),
            *(
                Artifact("org.ow2.asm", name, "9.7")
                for name in ("asm", "asm-util", "asm-tree", "asm-commons", "asm-analysis")
            ),
        ),
        security_policy=(
            "grant {\n"
            '  permission java.lang.RuntimePermission "createClassLoader";\n'
            '  permission java.lang.RuntimePermission "getClassLoader";\n'
            "};\n"
        ),
    )
    common = Module(
        name="analysis-common",
        classname="org.opensearch.analysis.common.CommonAnalysisPlugin",
        description='Adds "built in" analyzers to OpenSearch.',
        jars=(Artifact(plugin, "analysis-common", version),),
        extended_plugins=("lang-painless",),
    )
    return (painless, common)


class NodeStatus(BaseModel):
    """What ``osrag node status`` reports."""

    running: bool
    url: str
    pid: int | None = None
    version: str | None = None
    health: str | None = None
    home: str
    already_running: bool = False


# --------------------------------------------------------------------------- paths


def default_home() -> Path:
    env = os.environ.get("OSRAG_HOME")
    if env:
        return Path(env).expanduser().resolve()
    if os.geteuid() == 0:
        return Path("/var/cache/osrag")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "osrag"


@dataclass
class NodeLayout:
    home: Path
    port: int

    @property
    def downloads(self) -> Path:
        return self.home / "downloads"

    @property
    def node_dir(self) -> Path:
        return self.home / f"node-{self.port}"

    @property
    def pid_file(self) -> Path:
        return self.node_dir / "node.pid"

    @property
    def console_log(self) -> Path:
        return self.node_dir / "console.log"

    @property
    def server_log(self) -> Path:
        return self.node_dir / "logs" / "osrag-dev.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


# --------------------------------------------------------------------------- java


@dataclass(frozen=True)
class Java:
    home: Path
    major: int


def _java_major(java_bin: Path) -> int:
    try:
        out = subprocess.run(
            [str(java_bin), "-version"], capture_output=True, text=True, timeout=30
        ).stderr
    except OSError as exc:
        raise NodeError(f"cannot run {java_bin}: {exc}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not match:
        raise NodeError(f"cannot read the Java version from {java_bin}: {out.strip()[:200]}")
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java(dist: Path | None = None) -> Java:
    """The bundled JDK of a full distribution, else ``JAVA_HOME``, else ``java`` on the PATH."""
    candidates: list[tuple[str, Path]] = []
    if dist is not None and (dist / "jdk" / "bin" / "java").exists():
        candidates.append(("the distribution's bundled JDK", dist / "jdk"))
    elif os.environ.get("JAVA_HOME"):
        candidates.append(("JAVA_HOME", Path(os.environ["JAVA_HOME"])))
    else:
        on_path = shutil.which("java")
        if on_path:
            candidates.append(("java on the PATH", Path(on_path).resolve().parent.parent))
    if not candidates:
        raise NodeError(
            "no Java found: set JAVA_HOME to a Java 17 or 21 installation "
            "(OpenSearch 2.x runs on Java 11–23)"
        )
    source, home = candidates[0]
    java_bin = home / "bin" / "java"
    if not java_bin.exists():
        raise NodeError(
            f"{source} points to {home}, which has no bin/java: set JAVA_HOME correctly"
        )
    major = _java_major(java_bin)
    if not MIN_JAVA <= major <= MAX_JAVA:
        raise NodeError(
            f"{source} ({home}) is Java {major}; OpenSearch {OPENSEARCH_VERSION} needs Java "
            f"{MIN_JAVA}–{MAX_JAVA} (it relies on the Security Manager, removed in Java 24): "
            "set JAVA_HOME to a Java 17 or 21 installation"
        )
    return Java(home=home, major=major)


# --------------------------------------------------------------------------- fetching


def _sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fetch_https(artifact: Artifact, target: Path, repo: str) -> None:
    url = artifact.url(repo)
    try:
        with urllib.request.urlopen(url + ".sha1", timeout=60) as response:
            expected = response.read().decode().split()[0].strip().lower()
        part = target.with_suffix(target.suffix + ".part")
        with urllib.request.urlopen(url, timeout=300) as response, part.open("wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
    except (urllib.error.URLError, OSError, IndexError) as exc:
        raise NodeError(f"download failed: {url}: {exc}") from exc
    actual = _sha1(part)
    if actual != expected:
        part.unlink(missing_ok=True)
        raise NodeError(f"download failed: {url}: SHA-1 {actual} does not match {expected}")
    part.replace(target)


def _fetch_maven(artifacts: list[Artifact], downloads: Path) -> None:
    deps = "\n".join(
        f"    <dependency><groupId>{a.group}</groupId><artifactId>{a.artifact}</artifactId>"
        f"<version>{a.version}</version><type>{a.ext}</type></dependency>"
        for a in artifacts
    )
    pom = f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.osrag</groupId><artifactId>osrag-node-fetch</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
{deps}
  </dependencies>
</project>
"""
    with tempfile.TemporaryDirectory(prefix="osrag-mvn-") as tmp:
        (Path(tmp) / "pom.xml").write_text(pom)
        cmd = [
            "mvn",
            "-B",
            "-q",
            "-f",
            str(Path(tmp) / "pom.xml"),
            f"{MAVEN_DEPENDENCY_PLUGIN}:copy-dependencies",
            f"-DoutputDirectory={downloads}",
            "-DexcludeTransitive=true",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        raise NodeError(f"Maven could not fetch the artifacts:\n{tail}")


def fetch(artifacts: Iterable[Artifact], downloads: Path, progress: Progress) -> None:
    """Fetch what is missing into ``downloads``: Maven if present, else HTTPS."""
    downloads.mkdir(parents=True, exist_ok=True)
    missing = [a for a in artifacts if not (downloads / a.filename).exists()]
    if not missing:
        return
    repo = os.environ.get("OSRAG_MAVEN_REPO", MAVEN_REPO)
    maven_error: NodeError | None = None
    if shutil.which("mvn"):
        progress(f"fetching {len(missing)} artifact(s) with Maven")
        try:
            _fetch_maven(missing, downloads)
        except NodeError as exc:
            maven_error = exc
            progress(f"{exc}; trying HTTPS from {repo}")
    for artifact in missing:
        if not (downloads / artifact.filename).exists():
            progress(f"downloading {artifact.coordinates} from {repo}")
            try:
                _fetch_https(artifact, downloads / artifact.filename, repo)
            except NodeError as exc:
                if maven_error is not None:
                    raise NodeError(f"{maven_error}\nand over HTTPS: {exc}") from exc
                raise


# --------------------------------------------------------------------------- unpacking


def _unpack(archive: Path, into: Path) -> Path:
    """Unpack ``archive`` into ``into`` and return its single top-level folder."""
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                target = into / info.filename
                if not target.resolve().is_relative_to(into.resolve()):
                    raise NodeError(f"{archive} has an entry outside its folder: {info.filename}")
                zf.extract(info, into)
                mode = (info.external_attr >> 16) & 0o777
                if mode and not info.is_dir():
                    target.chmod(mode)
    elif archive.name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(archive) as tf:
            tf.extractall(into, filter="data")
    else:
        raise NodeError(f"{archive}: not a .zip or .tar.gz OpenSearch distribution")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1 or not (tops[0] / "bin" / "opensearch").exists():
        raise NodeError(
            f"{archive} does not look like an OpenSearch distribution (no bin/opensearch)"
        )
    return tops[0]


def _dist_version(dist: Path) -> str:
    for jar in (dist / "lib").glob("opensearch-[0-9]*.jar"):
        match = re.fullmatch(r"opensearch-(\d+\.\d+\.\d+)\.jar", jar.name)
        if match:
            return match.group(1)
    raise NodeError(f"{dist}: cannot find lib/opensearch-<version>.jar")


def _add_modules(dist: Path, version: str, downloads: Path, progress: Progress) -> None:
    wanted = [m for m in extra_modules(version) if not (dist / "modules" / m.name).exists()]
    if not wanted:
        return
    fetch([jar for m in wanted for jar in m.jars], downloads, progress)
    for module in wanted:
        folder = dist / "modules" / module.name
        folder.mkdir(parents=True)
        for jar in module.jars:
            shutil.copy2(downloads / jar.filename, folder / jar.filename)
        (folder / "plugin-descriptor.properties").write_text(module.descriptor(version))
        if module.security_policy:
            (folder / "plugin-security.policy").write_text(module.security_policy)
        progress(f"added module {module.name} {version}")


def ensure_distribution(home: Path, progress: Progress) -> Path:
    """The unpacked distribution with ``analysis-common``, fetched and unpacked once."""
    custom = os.environ.get("OSRAG_OPENSEARCH_DIST")
    downloads = home / "downloads"
    if custom:
        archive = Path(custom).expanduser().resolve()
        if not archive.is_file():
            raise NodeError(f"OSRAG_OPENSEARCH_DIST={custom}: no such file")
        tag = hashlib.sha256(str(archive).encode()).hexdigest()[:8]
        dist = home / f"opensearch-custom-{tag}"
    else:
        artifact = distribution_artifact()
        dist = home / f"opensearch-{artifact.version}"
        archive = downloads / artifact.filename
    marker = dist / ".osrag-ready"
    if marker.exists():
        return dist
    if not custom:
        fetch([distribution_artifact()], downloads, progress)
    progress(f"unpacking {archive.name}")
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home, prefix=".unpack-") as tmp:
        top = _unpack(archive, Path(tmp))
        _add_modules(top, _dist_version(top), downloads, progress)
        if dist.exists():
            shutil.rmtree(dist)
        top.rename(dist)
    marker.write_text(_dist_version(dist) + "\n")
    return dist


# --------------------------------------------------------------------------- processes


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_our_node(pid: int, layout: NodeLayout) -> bool:
    """True only for an OpenSearch process whose data lives in this node's folder."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    return "org.opensearch.bootstrap.OpenSearch" in cmdline and str(layout.node_dir) in cmdline


def _read_pid(layout: NodeLayout) -> int | None:
    try:
        return int(layout.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def _running_pid(layout: NodeLayout) -> int | None:
    pid = _read_pid(layout)
    if pid is not None and _pid_alive(pid) and _is_our_node(pid, layout):
        return pid
    return None


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _get_json(url: str, timeout: float = 5.0) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        data: dict[str, object] = json.loads(response.read())
        return data


def _tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


@dataclass
class _ServiceUser:
    name: str | None = None
    uid: int | None = None
    gid: int | None = None
    notes: list[str] = field(default_factory=list)


def _service_user() -> _ServiceUser:
    """When root, the unprivileged user the node runs as (created if missing)."""
    if os.geteuid() != 0:
        return _ServiceUser()
    import pwd

    try:
        entry = pwd.getpwnam(SERVICE_USER)
    except KeyError:
        proc = subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SERVICE_USER,
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise NodeError(
                f"running as root, and cannot create the unprivileged user {SERVICE_USER!r} "
                f"that OpenSearch needs: {proc.stderr.strip()}"
            ) from None
        entry = pwd.getpwnam(SERVICE_USER)
    return _ServiceUser(name=SERVICE_USER, uid=entry.pw_uid, gid=entry.pw_gid)


def _chown_tree(path: Path, user: _ServiceUser) -> None:
    if user.uid is None or user.gid is None:
        return
    os.chown(path, user.uid, user.gid)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            with contextlib.suppress(FileNotFoundError):
                os.lchown(os.path.join(root, name), user.uid, user.gid)


def _check_reachable(path: Path, user: _ServiceUser) -> None:
    if user.name is None:
        return
    probe = subprocess.run(["test", "-x", str(path)], user=user.uid, group=user.gid)
    if probe.returncode != 0:
        raise NodeError(
            f"the node runs as {user.name!r} (OpenSearch refuses root), who cannot reach "
            f"{path}: set OSRAG_HOME to a folder every user can traverse (e.g. /var/cache/osrag)"
        )


def status(port: int = DEFAULT_PORT, home: Path | None = None) -> NodeStatus:
    layout = NodeLayout(home or default_home(), port)
    pid = _running_pid(layout)
    result = NodeStatus(running=pid is not None, url=layout.url, pid=pid, home=str(layout.home))
    if pid is None:
        return result
    with contextlib.suppress(OSError, ValueError):
        root = _get_json(layout.url)
        version = root.get("version")
        result.version = str(version.get("number")) if isinstance(version, dict) else None
        result.health = str(_get_json(layout.url + "/_cluster/health").get("status"))
    return result


def start(
    port: int = DEFAULT_PORT,
    heap: str = DEFAULT_HEAP,
    timeout: float = DEFAULT_TIMEOUT,
    home: Path | None = None,
    progress: Progress = lambda _msg: None,
) -> NodeStatus:
    """Start the node (or find it running) and wait for yellow health."""
    if not re.fullmatch(r"\d+[kmgKMG]", heap):
        raise NodeError(f"heap {heap!r} is not a JVM size such as 512m or 1g")
    layout = NodeLayout(home or default_home(), port)
    if _running_pid(layout) is not None:
        current = status(port, layout.home)
        current.already_running = True
        return current
    if _port_in_use(port):
        raise NodeError(
            f"port {port} is taken by another process (not a node osrag started): "
            "stop it or choose another with --port"
        )
    if (
        shutil.which("java") is None
        and not os.environ.get("JAVA_HOME")
        and not os.environ.get("OSRAG_OPENSEARCH_DIST")
    ):
        find_java()  # raises the clear "no Java found" error before any download
    user = _service_user()
    layout.home.mkdir(parents=True, exist_ok=True)
    dist = ensure_distribution(layout.home, progress)
    java = find_java(dist)

    node_dir = layout.node_dir
    for sub in ("data", "logs"):
        (node_dir / sub).mkdir(parents=True, exist_ok=True)
    config_dir = node_dir / "config"
    if not config_dir.exists():
        shutil.copytree(dist / "config", config_dir)
    layout.console_log.unlink(missing_ok=True)
    layout.pid_file.unlink(missing_ok=True)
    _chown_tree(dist, user)
    _chown_tree(node_dir, user)
    _check_reachable(dist / "bin" / "opensearch", user)

    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(node_dir),
        "LANG": "C.UTF-8",
        "OPENSEARCH_JAVA_HOME": str(java.home),
        "JAVA_HOME": str(java.home),
        "OPENSEARCH_PATH_CONF": str(config_dir),
        "OPENSEARCH_JAVA_OPTS": f"-Xms{heap} -Xmx{heap}",
    }
    args = [
        str(dist / "bin" / "opensearch"),
        "-Ecluster.name=osrag-dev",
        "-Enode.name=osrag-dev",
        "-Ediscovery.type=single-node",
        "-Enetwork.host=127.0.0.1",
        f"-Ehttp.port={port}",
        f"-Epath.data={node_dir / 'data'}",
        f"-Epath.logs={node_dir / 'logs'}",
        "-Ecluster.routing.allocation.disk.threshold_enabled=false",
        "-Eaction.destructive_requires_name=false",
    ]
    progress(
        f"starting OpenSearch {_dist_version(dist)} on {layout.url} "
        f"(Java {java.major}, heap {heap})"
    )
    with layout.console_log.open("ab") as console:
        proc = subprocess.Popen(
            args,
            env=env,
            cwd=node_dir,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=user.uid,
            group=user.gid,
            extra_groups=[] if user.uid is not None else None,
        )
    layout.pid_file.write_text(f"{proc.pid}\n")

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            layout.pid_file.unlink(missing_ok=True)
            raise NodeError(
                f"the node exited with code {proc.returncode} before it became healthy; "
                f"last lines of its log:\n{_last_logs(layout)}"
            )
        with contextlib.suppress(OSError, ValueError):
            health = _get_json(
                layout.url + "/_cluster/health?wait_for_status=yellow&timeout=1s", timeout=3
            )
            if health.get("status") in ("yellow", "green"):
                return status(port, layout.home)
        time.sleep(0.5)
    _terminate(proc.pid)
    layout.pid_file.unlink(missing_ok=True)
    raise NodeError(
        f"the node did not become healthy within {timeout:.0f} s; last lines of its log:\n"
        f"{_last_logs(layout)}"
    )


def _last_logs(layout: NodeLayout) -> str:
    server = layout.server_log
    return _tail(server) if server.exists() else _tail(layout.console_log)


def _terminate(pid: int, grace: float = 30.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if not _pid_alive(pid):
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def stop(port: int = DEFAULT_PORT, home: Path | None = None) -> bool:
    """Stop the node osrag started on ``port``. False when none was running."""
    layout = NodeLayout(home or default_home(), port)
    pid = _running_pid(layout)
    if pid is None:
        layout.pid_file.unlink(missing_ok=True)
        return False
    _terminate(pid)
    layout.pid_file.unlink(missing_ok=True)
    return True
