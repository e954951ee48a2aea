"""``osrag chunks``: preview how a corpus is cut (build the config, load, chunk, print)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from osrag.cli.common import FollowSymlinksOpt, err, out, printable

if TYPE_CHECKING:
    from osrag.models import ChunkingConfig, Document, LoadIssue

_STRATEGIES = ("structural", "fixed", "sentences")


PathArg = Annotated[Path, typer.Argument(help="A corpus folder or one file.")]
AnchorOpt = Annotated[
    str,
    typer.Option(
        help="structure: windows restart at section starts and anchor paragraphs (an edit "
        "moves few boundaries); none: the strategies' plain rules."
    ),
]
StrategyOpt = Annotated[
    str | None,
    typer.Option(help="fixed, structural or sentences (default: all three, ids for each)."),
]
SizeOpt = Annotated[int, typer.Option(help="fixed: window w in tokens.")]
OverlapOpt = Annotated[int, typer.Option(help="fixed: overlap o in tokens.")]
MaxTokensOpt = Annotated[int, typer.Option(help="structural/sentences: largest chunk in tokens.")]
MinTokensOpt = Annotated[
    int, typer.Option(help="structural: merge smaller sections into the next (0: never).")
]
OverlapSentencesOpt = Annotated[
    int, typer.Option(help="sentences: whole sentences shared by neighbours.")
]
TokenizerOpt = Annotated[
    str, typer.Option(help="whitespace or minilm-wordpiece (needs the subword extra).")
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        help="Cut the chunks an ingest with this embedder writes (default, onnx:PATH, …): "
        "bounded by its window in its tokenizer, each with its embedder_tokens.",
        show_default=False,
    ),
]
FitWindowOpt = Annotated[
    bool,
    typer.Option(
        "--fit-window/--truncate",
        help="With --embedder: fit chunks to its window (default), or keep the bound "
        "above and count the tokens the embedder would cut off.",
    ),
]
ChunksJsonOpt = Annotated[
    bool,
    typer.Option(
        "--json",
        help="One chunk record per line (JSON Lines) on stdout; with --embedder also "
        "embedder_tokens and, when it differs from text, embed_text.",
    ),
]
ShowAllOpt = Annotated[
    bool, typer.Option("--all", help="List every chunk, not the first 3 per document.")
]
SHOWN_PER_DOCUMENT = 3
"""Chunks listed per document without --all."""


def chunks_command(
    path: PathArg,
    strategy: StrategyOpt = None,
    size: SizeOpt = 200,
    overlap: OverlapOpt = 0,
    max_tokens: MaxTokensOpt = 400,
    min_tokens: MinTokensOpt = 0,
    overlap_sentences: OverlapSentencesOpt = 0,
    tokenizer: TokenizerOpt = "whitespace",
    anchor: AnchorOpt = "none",
    embedder: EmbedderOpt = None,
    fit_window: FitWindowOpt = True,
    json_output: ChunksJsonOpt = False,
    show_all: ShowAllOpt = False,
    follow_symlinks: FollowSymlinksOpt = None,
) -> None:
    """Preview how PATH is cut: counts, step and storage multiplier, ids, breadcrumbs and
    the pages (PDF) or elements (DOCX, HTML) each chunk came from.

    Exit codes: 0 every file was read; 3 some files could not be read or were refused
    (each is listed as a load error)."""
    from osrag.chunking import get_tokenizer
    from osrag.errors import ConfigError

    if strategy is not None and strategy not in _STRATEGIES:
        raise ConfigError(f"--strategy must be one of {', '.join(_STRATEGIES)}, not {strategy!r}")
    strategies = [strategy] if strategy else (["structural"] if json_output else list(_STRATEGIES))
    configs = _configs(
        strategies,
        tokenizer=tokenizer,
        size=size,
        overlap=overlap,
        max_tokens=max_tokens,
        min_tokens=min_tokens,
        overlap_sentences=overlap_sentences,
        anchor=anchor,
    )
    window = None
    if embedder is not None:
        configs, window = _fit_to_embedder(configs, embedder, fit_window)
    docs, issues = _load(path, follow_symlinks)
    if json_output:
        _write_json(docs, configs[strategies[0]], window, issues)
        for issue in issues:
            err.print(f"load error: {printable(issue)}", highlight=False)
        if issues:
            raise typer.Exit(3)
        return
    tokenizer_id = get_tokenizer(configs[strategies[0]].tokenizer).id
    bounds = {
        "max_tokens": max_tokens,
        "min_tokens": min_tokens,
        "overlap_sentences": overlap_sentences,
    }
    cut = {name: _cut(docs, configs[name], issues) for name in strategies}
    empty = _print_header(path, docs, issues, tokenizer_id, window, configs, bounds)
    for name in strategies:
        _print_strategy(name, cut[name], show_all)
    _print_problems(issues, empty)
    if issues:
        raise typer.Exit(3)


def _configs(strategies: list[str], **flags: Any) -> dict[str, ChunkingConfig]:
    """One chunking configuration a strategy; a bad value is a ConfigError naming its flag."""
    from pydantic import ValidationError

    from osrag.errors import ConfigError
    from osrag.models import ChunkingConfig

    try:
        return {
            name: ChunkingConfig(strategy=name, **flags)  # type: ignore[arg-type]
            for name in strategies
        }
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(x) for x in first["loc"]).replace("_", "-")
        raise ConfigError(f"--{field}: {first['msg']}") from None


def _fit_to_embedder(
    configs: dict[str, ChunkingConfig], embedder: str, fit: bool
) -> tuple[dict[str, ChunkingConfig], Any]:
    """The configurations bounded by the embedder's window (when it states one), and the window."""
    from osrag.chunking import embed_window, fit_config
    from osrag.embedding import get_embedder

    window = embed_window(get_embedder(embedder), fit=fit)
    if window is None:
        err.print(
            f"note: embedder {printable(embedder)} does not state its window; chunks as without it"
        )
    return {name: fit_config(c, window) for name, c in configs.items()}, window


def _load(path: Path, follow_symlinks: bool | None) -> tuple[list[Document], list[LoadIssue]]:
    """The corpus's documents and the files that could not be read."""
    from osrag.config import load_settings
    from osrag.loaders.corpus import load_corpus
    from osrag.models import Document

    docs: list[Document] = []
    issues: list[LoadIssue] = []
    read = load_settings().read_options(follow_symlinks=follow_symlinks)
    for item in load_corpus(path, read):
        (docs if isinstance(item, Document) else issues).append(item)  # type: ignore[arg-type]
    return docs, issues


def _print_header(
    path: Path,
    docs: list[Document],
    issues: list[LoadIssue],
    tokenizer_id: str,
    window: Any,
    configs: dict[str, ChunkingConfig],
    bounds: dict[str, int],
) -> list[Document]:
    """The corpus's counts and the bounds of each strategy as given; the empty documents."""
    from osrag.chunking import is_empty

    empty = [doc for doc in docs if is_empty(doc)]
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
            "structural/sentences: "
            + ", ".join(f"{name} = {value}" for name, value in bounds.items()),
            highlight=False,
        )
    return empty


def _cut(docs: list[Document], config: ChunkingConfig, issues: list[LoadIssue]) -> list[Any]:
    """Each document's chunks by ``config``; a document that cannot be cut is added to
    ``issues`` (once) instead, as ingest reports it."""
    return list(_each_cut(docs, config, issues))


def _each_cut(
    docs: list[Document], config: ChunkingConfig, issues: list[LoadIssue]
) -> Iterator[list[Any]]:
    """:func:`_cut` one document at a time."""
    # document → chunks with their amounts, money, dates and identifiers: the same
    # call ingest makes (with the configuration's family profiles), so the preview is
    # what gets indexed
    from osrag.config import load_settings
    from osrag.ingestion.pipeline import prepare_chunks, prepared

    extraction = load_settings().extraction()
    for doc in docs:
        chunks = prepared(doc, lambda d: prepare_chunks(d, config, extraction))
        if isinstance(chunks, list):
            yield chunks
        elif chunks not in issues:
            issues.append(chunks)


def _print_strategy(name: str, per_doc: list[Any], show_all: bool) -> None:
    """One strategy's chunks: id, span, pages or elements, breadcrumb."""
    out.print(f"\n[bold]{name}[/bold]: {sum(map(len, per_doc))} chunks", highlight=False)
    for chunks in per_doc:
        shown = chunks if show_all else chunks[:SHOWN_PER_DOCUMENT]
        for chunk in shown:
            span = f"[{chunk.span.start}, {chunk.span.end})"
            if chunk.pages:
                span += f"  {_units('page', chunk.pages)}"
            elif chunk.elements:
                span += f"  {_units('element', chunk.elements)}"
            out.print(f"  {printable(chunk.chunk_id)}  {span}", highlight=False, soft_wrap=True)
            out.print(
                f"    [dim]{printable(chunk.breadcrumb)}[/dim]", highlight=False, soft_wrap=True
            )
        if len(chunks) > len(shown):
            out.print(f"    [dim]… {len(chunks) - len(shown)} more[/dim]", highlight=False)


def _print_problems(issues: list[LoadIssue], empty: list[Document]) -> None:
    """The files that could not be read, and the documents that gave no chunk."""
    if issues:
        out.print("\n[bold]load errors[/bold]", highlight=False)
        for issue in issues:
            out.print(f"  {printable(issue)}", highlight=False)
    if empty:
        out.print("\n[bold]empty documents[/bold] (no chunks)", highlight=False)
        for doc in empty:
            out.print(f"  {printable(doc.source_path)}", highlight=False)


def _write_json(docs: list[Any], config: Any, window: Any, issues: list[LoadIssue]) -> None:
    """One chunk record per line; with an embedder window, what the embedder receives. A
    document that cannot be cut is added to ``issues``."""
    import orjson

    from osrag.chunking import embed_text
    from osrag.chunking.records import chunk_source

    write = sys.stdout.write
    for chunks in _each_cut(docs, config, issues):
        for chunk in chunks:
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
