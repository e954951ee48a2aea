"""One node of either engine on one HTTP port, with single-node discovery."""

from __future__ import annotations

from pathlib import Path

from osrag.errors import NodeError
from osrag.writes import write_file

from . import elasticsearch, opensearch
from .fetch import Progress
from .launch import Prepared, check_java_early, prepare, wait_until_ready
from .process import (
    NodeLayout,
    check_ports_free,
    check_reachable,
    chown_tree,
    launch,
    prepare_node_dir,
    rss_bytes,
    running_pid,
    service_user,
    terminate,
)
from .status import NodeStatus, read_engine


def status(layout: NodeLayout) -> NodeStatus:
    pid = running_pid(layout)
    result = NodeStatus(
        running=pid is not None,
        url=layout.url,
        engine=layout.engine,
        pid=pid,
        home=str(layout.home),
        transport_port=_recorded_transport_port(layout),
    )
    if pid is not None:
        result.rss_mb = rss_bytes(pid) >> 20
        read_engine(result)
    return result


def _recorded_transport_port(layout: NodeLayout) -> int | None:
    try:
        text = (layout.node_dir / "transport.port").read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def start(
    layout: NodeLayout,
    *,
    heap: str,
    timeout: float,
    transport_port: int | None,
    version: str | None,
    progress: Progress,
) -> NodeStatus:
    if running_pid(layout) is not None:
        current = status(layout)
        current.already_running = True
        return current
    ports = {layout.port: "HTTP"}
    if transport_port is not None:
        ports[transport_port] = "transport"
    check_ports_free(ports)
    check_java_early(layout.engine, version)
    layout.home.mkdir(parents=True, exist_ok=True)
    prepared = prepare(layout.engine, layout.home, progress, version)
    user = service_user(prepared.label)

    _check_data_version(layout, prepared)
    config_dir = prepare_node_dir(layout, prepared.dist / "config")
    write_file(layout.node_dir / "engine.version", f"{prepared.label}\n")
    recorded = layout.node_dir / "transport.port"
    if transport_port is None:
        recorded.unlink(missing_ok=True)
    else:
        write_file(recorded, f"{transport_port}\n")
    chown_tree(prepared.dist, user)
    chown_tree(layout.node_dir, user)
    check_reachable(prepared.launcher, user)

    args = [str(prepared.launcher), *_settings(prepared, layout, transport_port)]
    progress(f"starting {prepared.label} on {layout.url} (Java {prepared.java.major}, heap {heap})")
    proc = launch(args, prepared.environment(layout, config_dir, heap), layout, user)
    wait_until_ready(
        [("the node", layout, proc)],
        layout.url + "/_cluster/health?wait_for_status=yellow&timeout=1s",
        lambda health: health.get("status") in ("yellow", "green"),
        timeout,
        "node",
    )
    return status(layout)


def _check_data_version(layout: NodeLayout, prepared: Prepared) -> None:
    """A node's data is written by one version: a newer one upgrades it for good."""
    try:
        recorded = (layout.node_dir / "engine.version").read_text().strip()
    except OSError:
        return  # a new node, or one from an older osrag (which ran the pinned version)
    if recorded != prepared.label:
        raise NodeError(
            f"{layout.node_dir} holds the data of {recorded}; {prepared.label} would upgrade "
            "it beyond what that version can read: use another --port, or delete the folder"
        )


def _settings(prepared: Prepared, layout: NodeLayout, transport_port: int | None) -> list[str]:
    if prepared.engine == "opensearch":
        return opensearch.node_settings(
            name=layout.cluster_name,
            cluster_name=layout.cluster_name,
            node_dir=layout.node_dir,
            http_port=layout.port,
            transport_port=transport_port,
            seeds=None,
            managers=None,
            dist=prepared.dist,
        )
    return elasticsearch.node_settings(
        name=layout.cluster_name,
        node_dir=layout.node_dir,
        http_port=layout.port,
        transport_port=transport_port,
    )


def stop(layout: NodeLayout) -> bool:
    pid = running_pid(layout)
    if pid is None:
        layout.pid_file.unlink(missing_ok=True)
        return False
    terminate(pid)
    layout.pid_file.unlink(missing_ok=True)
    return True


def exists(layout: NodeLayout) -> bool:
    return Path(layout.node_dir).is_dir()
