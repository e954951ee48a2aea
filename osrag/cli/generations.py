"""``osrag index status | list | rollback | repair | unlock`` (see
:mod:`osrag.ingestion.generations`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from osrag.cli.common import (
    JsonOpt,
    cluster_guard,
    err,
    out,
    print_model,
    printable,
    session,
    session_flags,
)
from osrag.cli.render import plural

index_app = typer.Typer(
    help="Generations behind the alias: status, list, rollback, repair, unlock.",
    no_args_is_help=True,
)


@index_app.command("status")
@session_flags
def index_status(
    *,
    where: dict[str, Any],
    json_output: JsonOpt = False,
) -> None:
    """The alias, its generation (counts, tenants, configuration, versions), the lock and
    problems, as a table (--json: the model). Exit 5 when something is wrong."""
    from osrag.ingestion.generations import status

    settings, index, alias_name = session(**where)
    with cluster_guard(settings):
        found = status(index, alias_name)
    if json_output:
        print_model(found)
    else:
        from osrag.cli.index_status import status_table

        out.print(status_table(found, alias_name))
        for note in found.notes:
            err.print(f"note: {printable(note)}", highlight=False, soft_wrap=True)
        for problem in found.problems:
            err.print(
                f"[yellow]problem[/yellow] {printable(problem)}", highlight=False, soft_wrap=True
            )
    if found.problems:
        raise typer.Exit(5)


@index_app.command("list")
@session_flags
def index_list(
    *,
    where: dict[str, Any],
    json_output: JsonOpt = False,
) -> None:
    """Every generation kept for the alias; the current one is marked."""
    from osrag.cli.render import data_table
    from osrag.ingestion.generations import list_generations

    settings, index, alias_name = session(**where)
    with cluster_guard(settings):
        views = list_generations(index, alias_name)
    if json_output:
        print_model(views)
        return
    table = data_table(
        "", "generation", "state", "strategy", "documents", "chunks", "created (UTC)", box=None
    )
    for v in views:
        table.add_row(
            "→" if v.current else "",
            v.record.name,
            v.record.state,
            str(v.record.config.get("chunking", {}).get("strategy")),
            str(v.record.documents),
            str(v.chunks_in_index if v.chunks_in_index is not None else "(dropped)"),
            f"{v.record.created_at:%Y-%m-%d %H:%M:%S}",
        )
    out.print(table)


@index_app.command("rollback")
@session_flags
def index_rollback(
    *,
    to: Annotated[
        str | None, typer.Option("--to", help="A kept generation (default: the previous one).")
    ] = None,
    where: dict[str, Any],
) -> None:
    """Point the alias back at the previous ready generation (one atomic alias move)."""
    from osrag.ingestion.generations import rollback

    settings, index, alias_name = session(**where)
    with cluster_guard(settings):
        before, after = rollback(index, alias_name, to)
    out.print(f"alias {printable(alias_name)} → {after} (was {before})")


@index_app.command("repair")
@session_flags
def index_repair(
    *,
    where: dict[str, Any],
    wait: Annotated[float, typer.Option(help="Seconds to wait for the ingest lock.")] = 0.0,
    json_output: JsonOpt = False,
) -> None:
    """Make the index hold exactly the chunks the manifest lists (under the ingest lock):
    discard generations an interrupted ingest left half-built; delete chunks it left
    behind; forget documents whose chunks are missing, so the next ingest writes them
    again."""
    from osrag.ingestion.generations import repair

    settings, index, alias_name = session(**where)
    with cluster_guard(settings):
        report = repair(index, alias_name, wait=wait)
    if json_output:
        print_model(report)
        return
    for name in report.generations_discarded:
        out.print(f"discarded the half-built generation {name}", highlight=False)
    if report.generation is None:
        out.print(f"alias {printable(alias_name)} does not point to a generation yet")
        return
    out.print(
        f"{report.generation}: deleted {plural(report.orphans_deleted, 'stale chunk')}; "
        f"index {report.chunks_in_index} = manifest {report.chunks_in_manifest}",
        highlight=False,
    )
    if report.documents_forgotten:
        err.print(
            f"{plural(len(report.documents_forgotten), 'document')} had chunks missing and "
            "will be written again by the next ingest: "
            f"{printable(', '.join(report.documents_forgotten[:10]))}",
            highlight=False,
        )


@index_app.command("unlock")
@session_flags
def index_unlock(
    *,
    force: Annotated[
        bool,
        typer.Option("--force", help="Break the lock even if its owner may still be running."),
    ] = False,
    where: dict[str, Any],
) -> None:
    """Break the ingest lock of an ingest that is gone (dead process, or past its TTL)."""
    from osrag.ingestion.lock import break_lock

    settings, index, alias_name = session(**where)
    with cluster_guard(settings):
        removed = break_lock(index.records(alias_name), force=force)
    if removed is None:
        out.print(f"alias {printable(repr(alias_name))} is not locked")
    else:
        out.print(
            f"broke the ingest lock of {printable(repr(alias_name))}: "
            f"{printable(removed.describe())}"
        )
