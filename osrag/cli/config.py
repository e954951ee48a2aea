"""``osrag config show | check``: the effective connection settings, and a connection test."""

from __future__ import annotations

from typing import Any

import typer

from osrag.cli.common import JsonOpt, connection_flags, err, out

config_app = typer.Typer(
    help="Connection settings: where each value comes from, and a connection check.",
    no_args_is_help=True,
)


@config_app.command("show")
@connection_flags
def config_show(*, connection: dict[str, Any], json_output: JsonOpt = False) -> None:
    """Print the effective configuration (secrets masked) and where each value came from."""
    from rich.markup import escape
    from rich.table import Table

    from osrag.config import load_settings

    report = load_settings(**connection).report()
    if json_output:
        out.print_json(report.model_dump_json())
        return
    table = Table("setting", "value", "source", box=None, pad_edge=False)
    for name, row in report.values.items():
        shown = "" if row.value is None else str(row.value)
        table.add_row(name, escape(shown), escape(row.source))
    out.print(table)
    err.print(escape(f"configuration file: {report.config_file or 'none found'}"), soft_wrap=True)


@config_app.command("check")
@connection_flags
def config_check(*, connection: dict[str, Any], json_output: JsonOpt = False) -> None:
    """Connect with the effective configuration and print who answered."""
    import warnings

    from rich.markup import escape

    from osrag.config import load_settings
    from osrag.engines.rest.cluster import check_connection

    settings = load_settings(**connection)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            info = check_connection(settings)
        finally:
            for warning in caught:
                err.print(
                    f"[yellow]warning:[/yellow] {escape(str(warning.message))}", soft_wrap=True
                )
    if json_output:
        out.print_json(info.model_dump_json())
        return
    err.print(
        escape(f"{info.url}: {info.distribution or 'OpenSearch'} {info.version or ''}"),
        soft_wrap=True,
    )
    err.print(
        escape(f"  cluster {info.cluster_name}, auth: {info.auth}, TLS: {info.tls}"),
        soft_wrap=True,
    )
    out.print("ok")
