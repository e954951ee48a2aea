"""``osrag node``: local engines for development and CI (see :mod:`osrag.node`)."""

from __future__ import annotations

from typing import Annotated

import typer

from osrag import node
from osrag.cli.common import err, out

node_app = typer.Typer(
    help="Local engines for development and CI: OpenSearch (one node or a cluster), Elasticsearch.",
    no_args_is_help=True,
)

PortOption = Annotated[
    int | None,
    typer.Option(
        "--port",
        help="HTTP port on 127.0.0.1 (of the first node of a cluster). "
        "(default 9200; 9400 for elasticsearch; 9500 for a cluster)",
        show_default=False,
    ),
]
KnownPortOption = Annotated[
    int | None,
    typer.Option(
        "--port",
        help="HTTP port it answers on (a cluster's first node's). "
        "(default 9200; 9400 with --engine elasticsearch)",
        show_default=False,
    ),
]
EngineOption = Annotated[
    node.Engine,
    typer.Option("--engine", help="opensearch or elasticsearch.", case_sensitive=False),
]
OptionalEngineOption = Annotated[
    node.Engine | None,
    typer.Option(
        "--engine",
        help="Only this engine's node on the port. (default: whichever osrag started there)",
        case_sensitive=False,
        show_default=False,
    ),
]


def _node_port(port: int | None, engine: node.Engine | None, nodes: int = 1) -> int:
    return port or node.default_port(engine or node.Engine.OPENSEARCH, nodes)


def _print_node(result: node.NodeStatus) -> None:
    name = "OpenSearch" if result.engine == node.Engine.OPENSEARCH else "Elasticsearch"
    memory = f"  rss {result.rss_mb} MB" if result.rss_mb is not None else ""
    if result.nodes:
        out.print(
            f"running  {name} {result.version}  {len(result.nodes)}-node cluster  "
            f"health {result.health} ({result.number_of_nodes} joined)  {result.url}{memory}",
            soft_wrap=True,
        )
        for member in result.nodes:
            state = f"pid {member.pid}" if member.running else "[red]not running[/red]"
            rss = f"  rss {member.rss_mb} MB" if member.rss_mb is not None else ""
            out.print(
                f"  {member.name}  {member.url}  transport {member.transport_port}  {state}{rss}",
                soft_wrap=True,
            )
    else:
        out.print(
            f"running  {name} {result.version}  health {result.health}  "
            f"{result.url}  pid {result.pid}{memory}",
            soft_wrap=True,
        )
    if result.plugins:
        out.print(f"  plugins: {', '.join(result.plugins)}")
    _warn_missing_plugins(result)


def _warn_missing_plugins(result: node.NodeStatus) -> None:
    """A node started by an older osrag lacks the plugins until it is restarted."""
    if result.engine != node.Engine.OPENSEARCH or not result.running or result.version is None:
        return
    number = result.version.split(",")[0]
    missing = [p.name for p in node.plugins_for(number) if p.name not in result.plugins]
    if missing:
        port = result.url.rsplit(":", 1)[1]
        err.print(
            f"[yellow]it runs without {', '.join(missing)} (started by an older osrag?): "
            f"restart it to load them: osrag node stop --port {port} && "
            f"osrag node start --port {port}[/yellow]"
        )


@node_app.command("start")
def node_start(
    port: PortOption = None,
    engine: EngineOption = node.Engine.OPENSEARCH,
    nodes: Annotated[
        int, typer.Option(help="Nodes: 1, or 3 for a loopback OpenSearch cluster.")
    ] = 1,
    heap: Annotated[
        str, typer.Option(help="JVM heap of each node, e.g. 512m or 1g.")
    ] = node.DEFAULT_HEAP,
    transport_port: Annotated[
        int | None,
        typer.Option(
            help="Transport port (of the first node of a cluster). "
            "(default: a free one in 9300-9399 for one node; --port + 100 for a cluster)",
            show_default=False,
        ),
    ] = None,
    engine_version: Annotated[
        str | None,
        typer.Option(
            "--engine-version",
            "--version",
            help="Engine version from Maven Central's integ-test zips: OpenSearch "
            f"{', '.join(r.version for r in node.OPENSEARCH_RELEASES)} or 2.x / 3.x (the "
            "newest tested of that major); any Elasticsearch version. (default OpenSearch "
            f"{node.OPENSEARCH_VERSION}, Elasticsearch {node.ELASTICSEARCH_VERSION})",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            help="Seconds to wait for health. (default 180; 300 for a cluster)",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Fetch (once), start and wait for a local engine; print its URL.

    OpenSearch comes with the k-NN and neural-search plugins (lucene engine only;
    3.x: k-NN only, Maven Central serves no neural-search 3.x, so hybrid search is
    fused in the client); a cluster is ready when green with every node joined.
    """
    result = node.start(
        port=_node_port(port, engine, nodes),
        heap=heap,
        timeout=timeout,
        progress=lambda m: err.print(f"[dim]{m}[/dim]"),
        engine=engine,
        nodes=nodes,
        transport_port=transport_port,
        engine_version=engine_version,
    )
    name = "OpenSearch" if result.engine == node.Engine.OPENSEARCH else "Elasticsearch"
    if result.already_running:
        err.print(f"{name} is already running at {result.url}")
        _warn_missing_plugins(result)
    elif result.nodes:
        err.print(
            f"{name} {result.version}: {len(result.nodes)} nodes, {result.health}, at {result.url}"
        )
    else:
        err.print(f"{name} {result.version} is {result.health} at {result.url} (pid {result.pid})")
    out.print(result.url)


@node_app.command("stop")
def node_stop(port: KnownPortOption = None, engine: OptionalEngineOption = None) -> None:
    """Stop the node or cluster osrag started on this port (and nothing else)."""
    chosen = _node_port(port, engine)
    if node.stop(port=chosen, engine=engine):
        err.print(f"stopped what osrag started on port {chosen}")
    else:
        err.print(f"nothing osrag started is running on port {chosen}")


@node_app.command("status")
def node_status(
    port: KnownPortOption = None,
    engine: OptionalEngineOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print engine, version, health, plugins and URL (each node of a cluster); exit 3 when down."""
    result = node.status(port=_node_port(port, engine), engine=engine)
    if json_output:
        out.print_json(result.model_dump_json())
    elif result.running:
        _print_node(result)
    else:
        out.print(f"not running ({result.url}; files in {result.home})")
    if not result.running:
        raise typer.Exit(3)
