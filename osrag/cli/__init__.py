"""The ``osrag`` command line. Thin: parse, call the library, print.

One module per command group (``ingest``, ``search``, ``index``, ``eval``,
``chunks``, ``config``, ``node``, ``check-collisions``); :mod:`.common` holds
the options every command shares. Every expected failure is an
:class:`~osrag.errors.OsragError`; :func:`main` prints it as one line on stderr
and exits with its code — no traceback. ``--json`` prints the library's own
pydantic model.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from osrag import __version__
from osrag.cli.chunks import chunks_command
from osrag.cli.collisions import check_collisions_command
from osrag.cli.common import err, out, printable
from osrag.cli.config import config_app
from osrag.cli.eval import eval_command, span_qrels_command
from osrag.cli.generations import index_app
from osrag.cli.ingest import ingest_command
from osrag.cli.node import node_app
from osrag.cli.search import search_command
from osrag.errors import OsragError

__all__ = ["app", "main"]

app = typer.Typer(
    name="osrag",
    help="Chunk, extract, index and query documents in OpenSearch or Elasticsearch — "
    "amounts are filters.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        out.print(f"osrag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Log at INFO: candidate counts, amounts not stored, …"
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """osrag: retrieval on OpenSearch that does not lie to you."""
    import logging

    from osrag.cli.render import log_handler

    handler = log_handler(err)
    if verbose:
        logging.basicConfig(level=logging.WARNING, handlers=[handler], format="%(message)s")
        logging.getLogger("osrag").setLevel(logging.INFO)
    else:  # osrag's own warnings (a broken lock, …) only; not every library's
        ours = logging.getLogger("osrag")
        if not ours.handlers:
            ours.addHandler(handler)
        ours.setLevel(logging.WARNING)


app.command("chunks")(chunks_command)
app.command("ingest")(ingest_command)
app.command("search")(search_command)
app.command("eval")(eval_command)
app.command("span-qrels")(span_qrels_command)
app.command("check-collisions")(check_collisions_command)
app.add_typer(index_app, name="index")
app.add_typer(config_app, name="config")
app.add_typer(node_app, name="node")


def _warning_line(
    message: Warning | str, category: type[Warning], *_args: object, **_kwargs: object
) -> None:
    err.print(f"[yellow]warning:[/yellow] {printable(message)}", highlight=False, soft_wrap=True)


def main() -> None:
    import warnings

    warnings.showwarning = _warning_line
    try:
        app()
    except OsragError as exc:  # one line of text, whatever the message holds
        err.print(f"[bold red]error:[/bold red] {printable(exc)}", highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
