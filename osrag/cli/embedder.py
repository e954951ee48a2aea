"""``osrag embedder warm``: prepare a local embedder once, so no search pays for it."""

from __future__ import annotations

from typing import Annotated

import typer

from osrag.cli.common import ConfigFileOpt, out, printable

embedder_app = typer.Typer(
    help="The embedder: prepare a local model ahead of the first search.",
    no_args_is_help=True,
)

SpecArg = Annotated[
    str | None,
    typer.Argument(
        help="The embedder (default, default-int8, bert:DIR, onnx:FILE, …; default: the "
        "embedder setting, else default).",
        show_default=False,
    ),
]


@embedder_app.command("warm")
def warm_command(spec: SpecArg = None, config: ConfigFileOpt = None) -> None:
    """Build and store what a local embedder needs to start: the default embedder's ONNX
    graph, written from its weights once (about 2 s) and loaded by every later process
    (about 0.2 s). An ingest or the first vector search does the same; this does it now."""
    from osrag.config import load_settings
    from osrag.embedding import get_embedder

    chosen = spec or load_settings(config=config).embedder or "default"
    embedder = get_embedder(chosen)
    load = getattr(embedder, "load", None)
    if not callable(load):
        out.print(
            f"{printable(embedder.id)}: nothing to prepare (the model does not run in "
            "this process)",
            highlight=False,
        )
        return
    report = load()
    if report.note:
        out.print(f"{printable(embedder.id)}: {printable(report.note)}", highlight=False)
    else:
        out.print(
            f"{printable(embedder.id)}: ready (loaded in {report.seconds:.2f} s from what is "
            "already stored)",
            highlight=False,
        )
