"""``osrag config show | check``: the effective connection settings, and a connection test."""

from __future__ import annotations

from typing import Any

import typer

from osrag.cli.common import JsonOpt, connection_flags, err, out, printable

config_app = typer.Typer(
    help="Connection settings: where each value comes from, and a connection check.",
    no_args_is_help=True,
)


@config_app.command("show")
@connection_flags
def config_show(*, connection: dict[str, Any], json_output: JsonOpt = False) -> None:
    """Print the effective configuration (secrets masked), where each value came from, and
    which engine the commands will use."""
    from osrag.cli.render import data_table
    from osrag.config import load_settings
    from osrag.engines import config_report

    report = config_report(load_settings(**connection))
    if json_output:
        out.print_json(report.model_dump_json())
        return
    table = data_table("setting", "value", "source", box=None, pad_edge=False)
    for name, row in report.values.items():
        table.add_row(name, "" if row.value is None else str(row.value), row.source)
    out.print(table)
    out.print(f"engine: {printable(report.engine)}", highlight=False, soft_wrap=True)
    err.print(
        f"configuration file: {printable(report.config_file or 'none found')}", soft_wrap=True
    )


@config_app.command("check")
@connection_flags
def config_check(*, connection: dict[str, Any], json_output: JsonOpt = False) -> None:
    """Connect with the effective configuration and print who answered."""
    import warnings

    from osrag.config import load_settings
    from osrag.engines.rest.cluster import check_connection

    settings = load_settings(**connection)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            info = check_connection(settings)
        finally:
            for warning in caught:
                err.print(f"[yellow]warning:[/yellow] {printable(warning.message)}", soft_wrap=True)
    if json_output:
        out.print_json(info.model_dump_json())
        return
    err.print(
        printable(f"{info.url}: {info.distribution or 'OpenSearch'} {info.version or ''}"),
        soft_wrap=True,
    )
    err.print(
        printable(f"  cluster {info.cluster_name}, auth: {info.auth}, TLS: {info.tls}"),
        soft_wrap=True,
    )
    out.print("ok")
