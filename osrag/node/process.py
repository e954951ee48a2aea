"""Running one engine process: its folder, user, pid file, health probe and shutdown.

Both engines refuse to run as root, so as root a node runs as the
unprivileged user ``osrag`` (created if missing). Every node has its own
folder holding ``data/``, ``logs/``, ``config/``, ``node.pid`` and
``console.log``; ``stop`` signals a pid only when ``/proc/<pid>/cmdline``
shows that engine's launcher with this node's folder in its arguments, so a
stale pid file never makes osrag kill someone else's process.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from osrag.errors import NodeError
from osrag.pids import pid_alive
from osrag.writes import open_in_place, write_file

SERVICE_USER = "osrag"

# What /proc/<pid>/cmdline holds for each engine's launched process: OpenSearch's
# script execs the server JVM; Elasticsearch's starts a launcher JVM that spawns it.
PROCESS_MARKERS = {
    "opensearch": ("org.opensearch.bootstrap.OpenSearch",),
    "elasticsearch": ("org.elasticsearch.launcher.CliToolLauncher", "org.elasticsearch.bootstrap"),
}


@dataclass(frozen=True)
class NodeLayout:
    """Where one node keeps its files, under ``home``.

    A single node lives in ``node-<port>`` (OpenSearch) or ``es-node-<port>``
    (Elasticsearch); a cluster member passes its own ``folder``.
    """

    home: Path
    port: int
    engine: str = "opensearch"
    folder: str | None = None
    cluster_name: str = "osrag-dev"

    @property
    def node_dir(self) -> Path:
        if self.folder:
            return self.home / self.folder
        prefix = "node" if self.engine == "opensearch" else "es-node"
        return self.home / f"{prefix}-{self.port}"

    @property
    def downloads(self) -> Path:
        return self.home / "downloads"

    @property
    def pid_file(self) -> Path:
        return self.node_dir / "node.pid"

    @property
    def console_log(self) -> Path:
        return self.node_dir / "console.log"

    @property
    def server_log(self) -> Path:
        return self.node_dir / "logs" / f"{self.cluster_name}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


# --------------------------------------------------------------------------- pids


def is_our_node(pid: int, layout: NodeLayout) -> bool:
    """True only for this engine's process whose files live in this node's folder."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    markers = PROCESS_MARKERS.get(layout.engine, ())
    return any(m in cmdline for m in markers) and f"{layout.node_dir}/" in cmdline


def read_pid(layout: NodeLayout) -> int | None:
    try:
        return int(layout.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def running_pid(layout: NodeLayout) -> int | None:
    pid = read_pid(layout)
    if pid is not None and pid_alive(pid) and is_our_node(pid, layout):
        return pid
    return None


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def check_ports_free(ports: dict[int, str]) -> None:
    """Raise naming the first taken port; ``ports`` maps a port to what it is for."""
    for port, role in ports.items():
        if port_in_use(port):
            raise NodeError(
                f"{role} port {port} is taken by another process (not a node osrag started): "
                "stop it or choose other ports"
            )


def get_json(url: str, timeout: float = 5.0) -> object:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


def tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


def last_logs(layout: NodeLayout) -> str:
    """The end of the server log, else of the console (where launch failures go)."""
    server = layout.server_log
    console = tail(layout.console_log, 12)
    if server.exists():
        return f"{tail(server)}\n(console)\n{console}" if console.strip() else tail(server)
    return tail(layout.console_log)


# --------------------------------------------------------------------------- the user


@dataclass
class ServiceUser:
    name: str | None = None
    uid: int | None = None
    gid: int | None = None
    notes: list[str] = field(default_factory=list)


def service_user(engine_label: str) -> ServiceUser:
    """When root, the unprivileged user the node runs as (created if missing)."""
    if os.geteuid() != 0:
        return ServiceUser()
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
                f"that {engine_label} needs: {proc.stderr.strip()}"
            ) from None
        entry = pwd.getpwnam(SERVICE_USER)
    return ServiceUser(name=SERVICE_USER, uid=entry.pw_uid, gid=entry.pw_gid)


def chown_tree(path: Path, user: ServiceUser) -> None:
    if user.uid is None or user.gid is None:
        return
    os.chown(path, user.uid, user.gid)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            with contextlib.suppress(FileNotFoundError):
                os.lchown(os.path.join(root, name), user.uid, user.gid)


def check_reachable(path: Path, user: ServiceUser) -> None:
    if user.name is None:
        return
    probe = subprocess.run(["test", "-x", str(path)], user=user.uid, group=user.gid)
    if probe.returncode != 0:
        raise NodeError(
            f"the node runs as {user.name!r} (the engine refuses root), who cannot reach "
            f"{path}: set OSRAG_HOME to a folder every user can traverse (e.g. /var/cache/osrag)"
        )


# --------------------------------------------------------------------------- config


def prepare_node_dir(layout: NodeLayout, dist_config: Path) -> Path:
    """Create the node's folders; copy the distribution's config once; return it."""
    node_dir = layout.node_dir
    for sub in ("data", "logs", "tmp"):
        (node_dir / sub).mkdir(parents=True, exist_ok=True)
    config_dir = node_dir / "config"
    if not config_dir.exists():
        import shutil

        shutil.copytree(dist_config, config_dir)
    localise_jvm_options(config_dir / "jvm.options", node_dir)
    layout.console_log.unlink(missing_ok=True)
    layout.pid_file.unlink(missing_ok=True)
    return config_dir


_RELATIVE_JVM_PATHS = (
    # (pattern, the node sub-folder the file goes to); group 1 is the option, group 2 the file
    (re.compile(r"(file=)(?:logs/)?(gc\.log)"), "logs"),
    (re.compile(r"(-XX:ErrorFile=)(?:logs/)?(hs_err_pid%p\.log)"), "logs"),
    (re.compile(r"^(-XX:HeapDumpPath=)data()$", re.MULTILINE), "data"),
)


def localise_jvm_options(path: Path, node_dir: Path) -> None:
    """Point the GC log, error file and heap dumps at this node's own folders.

    The stock ``jvm.options`` use paths relative to the working directory,
    which Elasticsearch sets to the shared distribution: nodes sharing it
    would write (and rotate) one ``gc.log``.
    """
    try:
        text = path.read_text()
    except OSError:
        return
    new = text
    for pattern, sub in _RELATIVE_JVM_PATHS:
        target = node_dir / sub
        new = pattern.sub(lambda m: f"{m.group(1)}{target / m.group(2)}", new)  # noqa: B023
    if new != text:
        write_file(path, new)


# --------------------------------------------------------------------------- processes


def launch(
    args: list[str], env: dict[str, str], layout: NodeLayout, user: ServiceUser
) -> subprocess.Popen[bytes]:
    """Start the engine in its own session, output to ``console.log``, pid to ``node.pid``."""
    appending = open_in_place(layout.console_log, os.O_WRONLY | os.O_APPEND, 0o644)
    with os.fdopen(appending, "ab") as console:
        proc = subprocess.Popen(
            args,
            env=env,
            cwd=layout.node_dir,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=user.uid,
            group=user.gid,
            extra_groups=[] if user.uid is not None else None,
        )
    write_file(layout.pid_file, f"{proc.pid}\n")
    return proc


def terminate(pid: int, grace: float = 30.0) -> None:
    """SIGTERM, then after ``grace`` seconds SIGKILL to the whole process group.

    The group matters for Elasticsearch, whose launcher JVM spawns the server.
    """
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if not pid_alive(pid):
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def rss_bytes(pid: int) -> int:
    """Resident memory of ``pid`` and its children (the Elasticsearch launcher's server)."""
    total = 0
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            pids += [int(c) for c in (task / "children").read_text().split()]
    for one in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{one}/statm").read_text().split()
            total += int(fields[1]) * os.sysconf("SC_PAGE_SIZE")
    return total


def base_environment(node_dir: Path) -> dict[str, str]:
    """What every engine's process is started with, before its own variables: the
    ``PATH``, the node's folder as ``HOME``, a UTF-8 locale."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(node_dir),
        "LANG": "C.UTF-8",
    }


def local_settings(http_port: int, node_dir: Path) -> list[str]:
    """The ``-E`` settings every development node starts with: on the loopback only, at
    ``http_port``, its data and logs in its folder, no disk watermarks, and an index
    pattern allowed in a delete."""
    return [
        "-Enetwork.host=127.0.0.1",
        f"-Ehttp.port={http_port}",
        f"-Epath.data={node_dir / 'data'}",
        f"-Epath.logs={node_dir / 'logs'}",
        "-Ecluster.routing.allocation.disk.threshold_enabled=false",
        "-Eaction.destructive_requires_name=false",
    ]
