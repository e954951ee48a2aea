"""The ``osrag`` command line. Thin: parse, call the library, print.

One module per command group (``ingest``, ``plan``, ``search``, ``index``, ``eval``,
``chunks``, ``config``, ``embedder``, ``node``, ``check-collisions``);
:mod:`.common` holds the options every command shares. Every expected failure is
an :class:`~osrag.errors.OsragError`; :func:`main` prints it as one line on
stderr and exits with its code — no traceback. ``--json`` prints the library's
own pydantic model.

A command imports what it needs and nothing else: the root group knows each
command by the module and name that define it (:data:`COMMANDS`) and imports that
module when the command is used, so ``osrag search`` never imports the
local-engine manager behind ``osrag node`` or the evaluation behind ``osrag
eval``, and each command module imports the library inside its function. Only
``osrag --help``, which lists every command, imports them all.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from osrag import __version__
from osrag.cli.common import err, out, printable
from osrag.errors import OsragError

__all__ = ["COMMANDS", "app", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "chunks": ("osrag.cli.chunks", "chunks_command"),
    "ingest": ("osrag.cli.ingest", "ingest_command"),
    "plan": ("osrag.cli.plan", "plan_command"),
    "search": ("osrag.cli.search", "search_command"),
    "eval": ("osrag.cli.eval", "eval_command"),
    "span-qrels": ("osrag.cli.eval", "span_qrels_command"),
    "check-collisions": ("osrag.cli.collisions", "check_collisions_command"),
    "index": ("osrag.cli.generations", "index_app"),
    "config": ("osrag.cli.config", "config_app"),
    "embedder": ("osrag.cli.embedder", "embedder_app"),
    "node": ("osrag.cli.node", "node_app"),
}
"""Every command, in ``--help`` order: the module that defines it and the name of its
function (a command) or of its ``typer.Typer`` (a group of subcommands)."""

SHORT_LIVED = frozenset({"search", "index", "config", "embedder"})
"""Commands that usually end in about a second: Python's cyclic garbage collector looks
at the young generation every 50,000 new objects instead of every 700. Their imports
alone create some 100,000 objects that live to the end, and the default pace scans them
again and again (about a hundred passes in a search): 3–8 % of a search's CPU time
(docs/benchmarks.md). The collector keeps running, so a long ``index repair`` still
frees its cyclic garbage, a little later. ingest, eval, chunks and node keep the
default pace."""

YOUNG_THRESHOLD = 50_000
"""The young generation's threshold for :data:`SHORT_LIVED` commands (the default: 700)."""

QUICK_EXIT = frozenset({"search"})
"""Read-only commands whose process ends without the interpreter's teardown: once the
answer is printed and flushed, freeing ~70,000 objects one by one, the final collection
and onnxruntime's own teardown cost a search 3–10 % of its CPU time (docs/benchmarks.md);
the operating system reclaims the memory and closes the files and sockets at once. Only
a command that writes nothing belongs here (a file it left unflushed would be lost; what
a search may write — the embedder's stored graph — is written and renamed into place
before it answers); an unexpected exception still ends the ordinary way, with its
traceback."""


def _load_command(name: str) -> Any:
    """The click command typer builds for ``COMMANDS[name]``, its module imported now."""
    module, attribute = COMMANDS[name]
    target = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    holder.callback()(lambda: None)  # a group even around one command, so it keeps its name
    group = typer.main.get_command(holder)
    assert isinstance(group, TyperGroup)
    return group.commands[name]


class _Commands(MutableMapping[str, Any]):
    """The root group's commands: every name of :data:`COMMANDS` is listed, and a command
    is built (its module imported) the first time it is looked up."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = _load_command(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (name for name in self._built if name not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(name not in COMMANDS for name in self._built)

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built


class _LazyGroup(TyperGroup):
    """The root ``osrag`` group: commands from :class:`_Commands` (typo suggestions see
    every name; only the command used is imported)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        commands = _Commands()
        commands.update(self.commands)
        self.commands = commands

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names alone: nothing imported


app = typer.Typer(
    name="osrag",
    cls=_LazyGroup,
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


def _warning_line(
    message: Warning | str, category: type[Warning], *_args: object, **_kwargs: object
) -> None:
    err.print(f"[yellow]warning:[/yellow] {printable(message)}", highlight=False, soft_wrap=True)


def _command_of(args: list[str]) -> str | None:
    """The command named on the command line: the first argument that is not an option
    (the root's options take no value)."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def main() -> None:
    command = _command_of(sys.argv[1:])
    if command in SHORT_LIVED:
        import gc

        _, older, oldest = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    if command not in QUICK_EXIT:
        _run()
        return
    try:
        _run()
    except SystemExit as exc:
        _quick_exit(exc.code)
    _quick_exit(0)


def _run() -> None:
    """The command line's command; an expected failure is one line and its exit code."""
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


def _quick_exit(code: object) -> NoReturn:
    """End the process as ``sys.exit(code)`` would, without the interpreter's teardown:
    the logging handlers and both streams are flushed first (see :data:`QUICK_EXIT`)."""
    import logging
    import os

    if code is not None and not isinstance(code, int):  # a message, as sys.exit prints it
        print(code, file=sys.stderr)
        code = 1
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to save
            stream.flush()
    os._exit(code or 0)
