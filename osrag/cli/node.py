"""``osrag node``: a local OpenSearch for development and CI (see :mod:`osrag.node`)."""

from __future__ import annotations

from typing import Annotated

import typer

from osrag import node
from osrag.cli.common import err, out

node_app = typer.Typer(
    help="A local single-node OpenSearch for development and CI.", no_args_is_help=True
)
PortOption = Annotated[int, typer.Option("--port", help="HTTP port on 127.0.0.1.")]


@node_app.command("start")
def node_start(
    port: PortOption = node.DEFAULT_PORT,
    heap: Annotated[str, typer.Option(help="JVM heap, e.g. 512m or 1g.")] = node.DEFAULT_HEAP,
    timeout: Annotated[
        float, typer.Option(help="Seconds to wait for yellow health.")
    ] = node.DEFAULT_TIMEOUT,
) -> None:
    """Fetch (once), start and wait for a local OpenSearch node; print its URL."""
    result = node.start(
        port=port, heap=heap, timeout=timeout, progress=lambda m: err.print(f"[dim]{m}[/dim]")
    )
    if result.already_running:
        err.print(f"a node is already running at {result.url} (pid {result.pid})")
    else:
        err.print(
            f"OpenSearch {result.version} is {result.health} at {result.url} (pid {result.pid})"
        )
    out.print(result.url)


@node_app.command("stop")
def node_stop(port: PortOption = node.DEFAULT_PORT) -> None:
    """Stop the node osrag started on this port (and nothing else)."""
    if node.stop(port=port):
        err.print(f"stopped the node on port {port}")
    else:
        err.print(f"no node started by osrag is running on port {port}")


@node_app.command("status")
def node_status(
    port: PortOption = node.DEFAULT_PORT,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print version, health and URL; exit 3 when no node is running."""
    result = node.status(port=port)
    if json_output:
        out.print_json(result.model_dump_json())
    elif result.running:
        out.print(
            f"running  OpenSearch {result.version}  health {result.health}  "
            f"{result.url}  pid {result.pid}"
        )
    else:
        out.print(f"not running ({result.url}; files in {result.home})")
    if not result.running:
        raise typer.Exit(3)
