"""``osrag chunks``: preview how a corpus is cut (build the config, load, chunk, print)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from osrag.cli.common import FollowSymlinksOpt, err, out, printable

_STRATEGIES = ("structural", "fixed", "sentences")


def chunks_command(
    path: Annotated[Path, typer.Argument(help="A corpus folder or one file.")],
    strategy: Annotated[
        str | None,
        typer.Option(help="fixed, structural or sentences (default: all three, ids for each)."),
    ] = None,
    size: Annotated[int, typer.Option(help="fixed: window w in tokens.")] = 200,
    overlap: Annotated[int, typer.Option(help="fixed: overlap o in tokens.")] = 0,
    max_tokens: Annotated[
        int, typer.Option(help="structural/sentences: largest chunk in tokens.")
    ] = 400,
    min_tokens: Annotated[
        int, typer.Option(help="structural: merge smaller sections into the next (0: never).")
    ] = 0,
    overlap_sentences: Annotated[
        int, typer.Option(help="sentences: whole sentences shared by neighbours.")
    ] = 0,
    tokenizer: Annotated[
        str, typer.Option(help="whitespace or minilm-wordpiece (needs the subword extra).")
    ] = "whitespace",
    embedder: Annotated[
        str | None,
        typer.Option(
            help="Cut the chunks an ingest with this embedder writes (default, onnx:PATH, …): "
            "bounded by its window in its tokenizer, each with its embedder_tokens.",
            show_default=False,
        ),
    ] = None,
    fit_window: Annotated[
        bool,
        typer.Option(
            "--fit-window/--truncate",
            help="With --embedder: fit chunks to its window (default), or keep the bound "
            "above and count the tokens the embedder would cut off.",
        ),
    ] = True,
    json_output: Annotated[
        bool,
        typer.Option(
            "--json",
            help="One chunk record per line (JSON Lines) on stdout; with --embedder also "
            "embedder_tokens and, when it differs from text, embed_text.",
        ),
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every chunk, not the first 3 per document.")
    ] = False,
    follow_symlinks: FollowSymlinksOpt = None,
) -> None:
    """Preview how PATH is cut: counts, step and storage multiplier, ids, breadcrumbs and
    the pages (PDF) or elements (DOCX, HTML) each chunk came from.

    Exit codes: 0 every file was read; 3 some files could not be read or were refused
    (each is listed as a load error)."""
    from pydantic import ValidationError

    from osrag.chunking import embed_window, fit_config, get_tokenizer, is_empty
    from osrag.config import load_settings
    from osrag.errors import ConfigError

    # document → chunks with their amounts, money, dates and identifiers: the same
    # call ingest makes, so the preview is what gets indexed
    from osrag.ingestion.pipeline import prepare_chunks as document_chunks
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ChunkingConfig, Document, LoadIssue

    if strategy is not None and strategy not in _STRATEGIES:
        raise ConfigError(f"--strategy must be one of {', '.join(_STRATEGIES)}, not {strategy!r}")
    strategies = [strategy] if strategy else (["structural"] if json_output else list(_STRATEGIES))
    try:
        configs = {
            name: ChunkingConfig(
                strategy=name,  # type: ignore[arg-type]
                tokenizer=tokenizer,
                size=size,
                overlap=overlap,
                max_tokens=max_tokens,
                min_tokens=min_tokens,
                overlap_sentences=overlap_sentences,
            )
            for name in strategies
        }
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(x) for x in first["loc"]).replace("_", "-")
        raise ConfigError(f"--{field}: {first['msg']}") from None
    window = None
    if embedder is not None:
        from osrag.embedding import get_embedder

        window = embed_window(get_embedder(embedder), fit=fit_window)
        if window is None:
            err.print(f"note: embedder {embedder} does not state its window; chunks as without it")
        configs = {name: fit_config(c, window) for name, c in configs.items()}
    tokenizer_id = get_tokenizer(configs[strategies[0]].tokenizer).id

    docs: list[Document] = []
    issues: list[LoadIssue] = []
    read = load_settings().read_options(follow_symlinks=follow_symlinks)
    for item in load_corpus(path, read):
        (docs if isinstance(item, Document) else issues).append(item)  # type: ignore[arg-type]
    empty = [doc for doc in docs if is_empty(doc)]

    if json_output:
        _write_json(docs, configs[strategies[0]], window)
        for issue in issues:
            err.print(f"load error: {printable(issue)}", highlight=False)
        if issues:
            raise typer.Exit(3)
        return

    out.print(
        f"{printable(path)}: {len(docs)} documents, {len(empty)} empty, {len(issues)} load errors; "
        f"tokenizer {tokenizer_id}"
        + (f"; embedder window {window.tokens} tokens" if window is not None else ""),
        highlight=False,
        soft_wrap=True,
    )
    fixed = configs.get("fixed")
    if fixed is not None:
        out.print(
            f"fixed: size w = {fixed.size}, overlap o = {fixed.clamped_overlap}, "
            f"step = w - o = {fixed.step}, storage multiplier = w/(w-o) = "
            f"{fixed.storage_multiplier:.2f}x",
            highlight=False,
            soft_wrap=True,
        )
    if "structural" in configs or "sentences" in configs:
        out.print(
            f"structural/sentences: max_tokens = {max_tokens}, min_tokens = {min_tokens}, "
            f"overlap_sentences = {overlap_sentences}",
            highlight=False,
        )
    for name in strategies:
        per_doc = [(doc, document_chunks(doc, configs[name])) for doc in docs]
        total = sum(len(chunks) for _, chunks in per_doc)
        out.print(f"\n[bold]{name}[/bold]: {total} chunks", highlight=False)
        for _, chunks in per_doc:
            shown = chunks if show_all else chunks[:3]
            for chunk in shown:
                span = f"[{chunk.span.start}, {chunk.span.end})"
                if chunk.pages:
                    span += f"  {_units('page', chunk.pages)}"
                elif chunk.elements:
                    span += f"  {_units('element', chunk.elements)}"
                out.print(f"  {chunk.chunk_id}  {span}", highlight=False, soft_wrap=True)
                out.print(f"    [dim]{chunk.breadcrumb}[/dim]", highlight=False, soft_wrap=True)
            if len(chunks) > len(shown):
                out.print(f"    [dim]… {len(chunks) - len(shown)} more[/dim]", highlight=False)
    if issues:
        out.print("\n[bold]load errors[/bold]", highlight=False)
        for issue in issues:
            out.print(f"  {printable(issue)}", highlight=False)
    if empty:
        out.print("\n[bold]empty documents[/bold] (no chunks)", highlight=False)
        for doc in empty:
            out.print(f"  {printable(doc.source_path)}", highlight=False)
    if issues:
        raise typer.Exit(3)


def _write_json(docs: list[Any], config: Any, window: Any) -> None:
    """One chunk record per line; with an embedder window, what the embedder receives."""
    import orjson

    from osrag.chunking import embed_text
    from osrag.chunking.records import chunk_source
    from osrag.ingestion.pipeline import prepare_chunks

    write = sys.stdout.write
    for doc in docs:
        for chunk in prepare_chunks(doc, config):
            record = chunk_source(chunk)
            if window is not None:
                embedded = embed_text(chunk, window)
                if embedded != chunk.text:
                    record["embed_text"] = embedded
                record["embedder_tokens"] = chunk.embedder_tokens
            write(orjson.dumps(record).decode())
            write("\n")


def _units(name: str, numbers: list[int]) -> str:
    """``page 3``, ``pages 3–4``, ``elements 12–15`` (first–last of the chunk's units)."""
    if len(numbers) == 1:
        return f"{name} {numbers[0]}"
    return f"{name}s {numbers[0]}–{numbers[-1]}"
