"""A loopback OpenSearch cluster of N nodes, for tests that need shards and replicas spread out.

Node ``i`` (1-based) answers HTTP on ``port + i - 1`` and transport on
``transport_port + i - 1`` (default ``port + 100``); every node lists all
transport ports as discovery seeds, and all nodes are cluster-manager
eligible and named in ``cluster.initial_cluster_manager_nodes`` (read only
when the cluster forms the first time). Files::

    cluster-<port>/cluster.json   the layout (ports, names), so stop and status need only --port
    cluster-<port>/node-<i>/      data/, logs/, config/, node.pid, console.log

All nodes start at once and ``start`` returns when the cluster is green with
every node joined; if one exits first, the others are stopped and the error
carries the tail of that node's log.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from pydantic import BaseModel

from osrag.errors import NodeError
from osrag.writes import write_file

from . import opensearch
from .fetch import Progress
from .launch import Prepared, check_java_early, prepare, wait_until_ready
from .process import (
    NodeLayout,
    ServiceUser,
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
from .status import MemberStatus, NodeStatus, read_engine

TRANSPORT_OFFSET = 100


class Member(BaseModel):
    name: str
    http_port: int
    transport_port: int
    folder: str


class ClusterRecord(BaseModel):
    engine: str = "opensearch"
    cluster_name: str
    members: list[Member]


def folder(port: int) -> str:
    return f"cluster-{port}"


def record_path(home: Path, port: int) -> Path:
    return home / folder(port) / "cluster.json"


def read_record(home: Path, port: int) -> ClusterRecord | None:
    path = record_path(home, port)
    try:
        return ClusterRecord.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return None


def plan(port: int, nodes: int, transport_port: int | None) -> ClusterRecord:
    """The names and ports of an N-node cluster whose first node answers on ``port``."""
    first_transport = transport_port if transport_port is not None else port + TRANSPORT_OFFSET
    http = [port + i for i in range(nodes)]
    transport = [first_transport + i for i in range(nodes)]
    if set(http) & set(transport):
        raise NodeError(
            f"HTTP ports {http[0]}–{http[-1]} overlap transport ports "
            f"{transport[0]}–{transport[-1]}: choose another --transport-port"
        )
    return ClusterRecord(
        cluster_name=f"osrag-cluster-{port}",
        members=[
            Member(
                name=f"osrag-{i + 1}",
                http_port=http[i],
                transport_port=transport[i],
                folder=f"{folder(port)}/node-{i + 1}",
            )
            for i in range(nodes)
        ],
    )


def layouts(home: Path, record: ClusterRecord) -> list[NodeLayout]:
    return [
        NodeLayout(
            home, m.http_port, "opensearch", folder=m.folder, cluster_name=record.cluster_name
        )
        for m in record.members
    ]


def status(home: Path, record: ClusterRecord) -> NodeStatus:
    members: list[MemberStatus] = []
    for member, layout in zip(record.members, layouts(home, record), strict=True):
        pid = running_pid(layout)
        members.append(
            MemberStatus(
                name=member.name,
                url=layout.url,
                transport_port=member.transport_port,
                pid=pid,
                running=pid is not None,
                rss_mb=rss_bytes(pid) >> 20 if pid is not None else None,
                folder=str(layout.node_dir),
            )
        )
    alive = [m for m in members if m.running]
    result = NodeStatus(
        running=bool(alive),
        url=(alive[0] if alive else members[0]).url,
        engine=record.engine,
        home=str(home),
        nodes=members,
        transport_port=record.members[0].transport_port,
        rss_mb=sum(m.rss_mb or 0 for m in alive) if alive else None,
    )
    if alive:
        read_engine(result)
    return result


def start(
    home: Path,
    port: int,
    nodes: int,
    *,
    heap: str,
    timeout: float,
    transport_port: int | None,
    progress: Progress,
) -> NodeStatus:
    record = _record_to_start(home, port, nodes, transport_port)
    all_layouts = layouts(home, record)
    to_start = [
        (m, lay)
        for m, lay in zip(record.members, all_layouts, strict=True)
        if running_pid(lay) is None
    ]
    if not to_start:
        current = status(home, record)
        current.already_running = True
        return current
    ports: dict[int, str] = {}
    for member, _ in to_start:
        ports[member.http_port] = f"{member.name} HTTP"
        ports[member.transport_port] = f"{member.name} transport"
    check_ports_free(ports)
    check_java_early("opensearch", None)
    home.mkdir(parents=True, exist_ok=True)
    prepared = prepare("opensearch", home, progress, None)
    user = service_user(prepared.label)
    (home / folder(port)).mkdir(parents=True, exist_ok=True)
    write_file(record_path(home, port), record.model_dump_json(indent=2) + "\n")
    configs = {m.name: prepare_node_dir(lay, prepared.dist / "config") for m, lay in to_start}
    chown_tree(prepared.dist, user)
    chown_tree(home / folder(port), user)
    check_reachable(prepared.launcher, user)

    seeds = [m.transport_port for m in record.members]
    progress(
        f"starting a {nodes}-node {prepared.label} cluster on {all_layouts[0].url} "
        f"(HTTP {record.members[0].http_port}–{record.members[-1].http_port}, "
        f"transport {seeds[0]}–{seeds[-1]}, Java {prepared.java.major}, heap {heap} each)"
    )
    started = [
        _launch_member(member, layout, record, prepared, configs[member.name], heap, user)
        for member, layout in to_start
    ]
    wait_until_ready(
        started,
        f"{all_layouts[0].url}/_cluster/health?wait_for_status=green"
        f"&wait_for_nodes={nodes}&timeout=1s",
        lambda health: health.get("status") == "green" and health.get("number_of_nodes") == nodes,
        timeout,
        f"{nodes}-node cluster",
    )
    return status(home, record)


def _record_to_start(
    home: Path, port: int, nodes: int, transport_port: int | None
) -> ClusterRecord:
    """The cluster's recorded members, or the planned ones for a first start; a record the
    flags contradict (another node count, other transport ports) is a NodeError."""
    wanted = plan(port, nodes, transport_port)
    record = read_record(home, port)
    if record is not None and len(record.members) != nodes:
        raise NodeError(
            f"a {len(record.members)}-node cluster already has its files in "
            f"{home / folder(port)}: start it with --nodes {len(record.members)}, "
            "or stop it and delete that folder first"
        )
    if record is not None and transport_port is not None and record != wanted:
        raise NodeError(
            f"the cluster in {home / folder(port)} uses transport ports from "
            f"{record.members[0].transport_port}: start it without --transport-port "
            "or with that one"
        )
    return record or wanted


def _launch_member(
    member: Member,
    layout: NodeLayout,
    record: ClusterRecord,
    prepared: Prepared,
    config: Path,
    heap: str,
    user: ServiceUser,
) -> tuple[str, NodeLayout, subprocess.Popen[bytes]]:
    """Start one member's process, told every member as a seed and a possible manager."""
    args = [
        str(prepared.launcher),
        *opensearch.node_settings(
            name=member.name,
            cluster_name=record.cluster_name,
            node_dir=layout.node_dir,
            http_port=member.http_port,
            transport_port=member.transport_port,
            seeds=[m.transport_port for m in record.members],
            managers=[m.name for m in record.members],
            dist=prepared.dist,
        ),
    ]
    env = prepared.environment(layout, config, heap)
    return (
        f"node {member.name} (port {member.http_port})",
        layout,
        launch(args, env, layout, user),
    )


def stop(home: Path, record: ClusterRecord) -> bool:
    """Stop every running member (SIGTERM to all first, so they shut down together)."""
    import os
    import signal

    running = [(lay, pid) for lay in layouts(home, record) if (pid := running_pid(lay)) is not None]
    for _layout, pid in running:
        os.kill(pid, signal.SIGTERM)
    for layout, pid in running:
        terminate(pid)
        layout.pid_file.unlink(missing_ok=True)
    for layout in layouts(home, record):
        layout.pid_file.unlink(missing_ok=True)
    return bool(running)
