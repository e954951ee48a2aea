"""``osrag check-collisions``: the reference's collision check over a corpus."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from osrag.cli.common import err, out, printable


def check_collisions_command(
    path: Annotated[str, typer.Argument(help="A corpus folder or one file.")],
    default_currency: Annotated[
        str, typer.Option(help="What a bare $ means when it is a dollar currency.")
    ] = "USD",
    limit: Annotated[int, typer.Option(help="Colliding pairs to list (0: all).")] = 20,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """List amounts whose `money:<n>` tokens contain one another; confirm integers have none.

    Exit 0 when the integer representation (what osrag stores) has no collision,
    1 otherwise; string collisions are the baseline's bug, reported, not fatal.
    """
    from osrag.cli.render import data_table
    from osrag.extract.collisions import collision_report
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ExtractionConfig

    report = collision_report(
        load_corpus(Path(path)), ExtractionConfig(default_currency=default_currency)
    )
    if json_output:
        sys.stdout.write(report.model_dump_json() + "\n")
    else:
        for issue in report.issues:
            err.print(f"load error: {printable(issue)}", highlight=False)
        out.print(
            f"{printable(path)}: {report.documents} documents, {report.mentions} amounts, "
            f"{report.distinct_amounts} distinct; {len(report.string_collisions)} pairs whose "
            "money:<n> tokens contain one another",
            highlight=False,
        )
        shown = report.string_collisions[: limit or None]
        if shown:
            table = data_table("contained", "in", "e.g. stated in", "and in")
            for c in shown:
                table.add_row(
                    c.contained_token, c.container_token, c.contained_docs[0], c.container_docs[0]
                )
            out.print(table)
            if len(shown) < len(report.string_collisions):
                out.print(f"… {len(report.string_collisions) - len(shown)} more (--limit 0)")
        if report.integers_are_safe:
            out.print("integers (long field, term filter): no collisions")
        else:
            out.print(f"integers: {len(report.integer_collisions)} collisions (wrapped values)")
    if not report.integers_are_safe:
        raise typer.Exit(1)
