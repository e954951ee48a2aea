"""``osrag ingest``: a corpus into the alias's generation (see :mod:`osrag.ingestion.ingest`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from osrag.cli.common import (
    FollowSymlinksOpt,
    JsonOpt,
    cluster_guard,
    err,
    flag_group,
    out,
    printable,
    session,
    session_flags,
)
from osrag.cli.render import plural
from osrag.errors import CorpusError


def chunking_from_flags(**flags: Any) -> Any:
    from osrag.models import ChunkingConfig

    return ChunkingConfig(**{k: v for k, v in flags.items() if v is not None})


PathArg = Annotated[
    Path,
    typer.Argument(
        help="A folder (or one file) of .md, .markdown, .txt, .jsonl, and .pdf, .docx, "
        ".html/.htm/.xhtml (with the formats extra)."
    ),
]
StrategyOpt = Annotated[str | None, typer.Option(help="structural (default), fixed or sentences.")]
SizeOpt = Annotated[int | None, typer.Option(help="fixed: window in tokens.")]
OverlapOpt = Annotated[int | None, typer.Option(help="fixed: overlap in tokens.")]
MaxTokensOpt = Annotated[int | None, typer.Option(help="structural/sentences: largest chunk.")]
MinTokensOpt = Annotated[int | None, typer.Option(help="structural: merge smaller sections.")]
AnchorOpt = Annotated[
    str | None,
    typer.Option(
        help="structure: windows restart at section starts and anchor paragraphs, so an "
        "edit changes the chunks near it and later chunks keep their text; none (default).",
        show_default=False,
    ),
]
TokenizerOpt = Annotated[
    str | None, typer.Option(help="whitespace (default) or a subword tokenizer.")
]
AnalyzerOpt = Annotated[str, typer.Option(help="Text analyzer of the mapping.")]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        help="Vectors for every chunk (hybrid search): default (offline all-MiniLM-L6-v2), "
        "default-int8 (its int8 form), onnx:PATH, sentence-transformers:NAME, "
        "openai:MODEL@http(s)://host/v1 (TEI, vLLM, Ollama…), http(s)://… (your service), "
        "python:MOD:FN. "
        "(default: the embedder setting; none)",
        show_default=False,
    ),
]
NoEmbedderOpt = Annotated[
    bool,
    typer.Option(
        "--no-embedder",
        help="Build without vectors, on purpose (without --embedder, a re-ingest keeps "
        "the embedder the alias was built with).",
    ),
]
FitWindowOpt = Annotated[
    bool,
    typer.Option(
        "--fit-window/--truncate",
        help="With a local embedder: cut chunks so the embedded text (breadcrumb "
        "included) fits its window, counted in its tokenizer (default); --truncate keeps "
        "the configured bound and counts what the embedder cuts off.",
    ),
]
KeepOpt = Annotated[int, typer.Option(help="Generations kept per alias (current included).")]
WaitOpt = Annotated[float, typer.Option(help="Seconds to wait for another ingest's lock.")]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        help="Processes that load, chunk and extract (default: usable cores − 1, at most 8)."
    ),
]
WritersOpt = Annotated[
    int | None,
    typer.Option(help="Bulk-writer threads (default: 2 on OpenSearch, 1 embedded)."),
]
BatchMbOpt = Annotated[
    float | None,
    typer.Option("--batch-mb", help="Largest bulk request in MB (default 2)."),
]
BatchChunksOpt = Annotated[
    int | None, typer.Option(help="Most chunks per bulk request (default 1000).")
]
ShardsOpt = Annotated[
    int | None,
    typer.Option(
        help="Primary shards of a new generation (default: the current generation's, "
        "else 1 on one node, one per data node up to 6 on a cluster)."
    ),
]
ReplicasOpt = Annotated[
    int | None,
    typer.Option(
        help="Replicas of a new generation (default: the current generation's, else 0 on "
        "one node, 1 on a cluster)."
    ),
]
DryRunOpt = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Print the plan (what would change, and cost: osrag plan); write nothing.",
    ),
]
PruneOpt = Annotated[
    bool, typer.Option("--prune/--no-prune", help="Delete chunks of vanished sources.")
]
NewGenerationOpt = Annotated[
    bool,
    typer.Option(
        "--new-generation",
        help="Build a new generation even when the configuration is unchanged, and move the "
        "alias to it once complete: searches switch from the old corpus to the new in one "
        "step (an in-place ingest changes one document at a time).",
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


BUILD: dict[str, Any] = {
    "strategy": StrategyOpt,
    "size": SizeOpt,
    "overlap": OverlapOpt,
    "max_tokens": MaxTokensOpt,
    "min_tokens": MinTokensOpt,
    "tokenizer": TokenizerOpt,
    "anchor": AnchorOpt,
    "analyzer": AnalyzerOpt,
    "embedder": EmbedderOpt,
    "no_embedder": NoEmbedderOpt,
    "fit_window": FitWindowOpt,
}
"""How a generation is built (chunking, analyzer, embedder): the flags ``osrag ingest``
and ``osrag plan`` share, declared once; :data:`build_flags` adds them to a command."""
CHUNKING_FLAGS = ("strategy", "size", "overlap", "max_tokens", "min_tokens", "tokenizer", "anchor")
"""The flags of :data:`BUILD` that are fields of the chunking configuration."""
build_flags = flag_group(
    "build", BUILD, {"analyzer": "english", "no_embedder": False, "fit_window": True}
)


@build_flags
@session_flags
def ingest_command(
    path: PathArg,
    *,
    where: dict[str, Any],
    build: dict[str, Any],
    keep: KeepOpt = 2,
    wait: WaitOpt = 0.0,
    workers: WorkersOpt = None,
    writers: WritersOpt = None,
    batch_mb: BatchMbOpt = None,
    batch_chunks: BatchChunksOpt = None,
    shards: ShardsOpt = None,
    replicas: ReplicasOpt = None,
    dry_run: DryRunOpt = False,
    prune: PruneOpt = True,
    new_generation: NewGenerationOpt = False,
    follow_symlinks: FollowSymlinksOpt = None,
    json_output: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Chunk, extract and index PATH into the alias's generation (incremental, idempotent).

    Exit codes: 0 all went in; 3 some inputs could not be read or were refused (the rest
    went in, nothing already stored was lost); 4 cluster unreachable or refused (a write
    block); 5 the index could not be written (a full disk); 6 locked; 9 the embedder
    failed. A stopped ingest leaves each document whole, old or new, and says which.
    """

    with ingest_session(
        path,
        where,
        build,
        keep=keep,
        lock_wait=wait,
        prune=prune,
        new_generation=new_generation,
        workers=workers,
        writers=writers,
        shards=shards,
        replicas=replicas,
        batch_mb=batch_mb,
        batch_chunks=batch_chunks,
        follow_symlinks=follow_symlinks,
    ) as (settings, index, options):
        if dry_run:
            _dry_run(path, index, options, settings, json_output)
            return
        report = _run(path, index, options, show=not quiet and not json_output)
    if json_output:
        out.print_json(report.model_dump_json())
    else:
        _summary(report)
    if report.errors:
        raise typer.Exit(3)


@contextlib.contextmanager
def ingest_session(
    path: Path, where: dict[str, Any], build: dict[str, Any], **given: Any
) -> Iterator[tuple[Any, Any, Any]]:
    """The settings, engine and options of an ingest (or its plan) of ``path``, inside the
    cluster guard: ``where`` the session flags, ``build`` the build flags, ``given`` the
    other options (see :func:`ingest_options`)."""
    if not path.exists():
        raise CorpusError(f"{path}: no such file or folder")
    settings, index, alias_name = session(**where)
    with cluster_guard(settings):
        yield settings, index, ingest_options(settings, index, alias_name, build, **given)


def ingest_options(
    settings: Any,
    index: Any,
    alias: str,
    build: dict[str, Any],
    **given: Any,
) -> Any:
    """The options of an ingest (or its plan) of ``alias``: the flags (``build``: those of
    :data:`BUILD`), over what the alias was built with (:mod:`osrag.ingestion.remembered`),
    over the settings."""
    from osrag.ingestion.remembered import current_record, reingest_settings

    chosen = reingest_settings(
        current_record(index, alias),
        alias=alias,
        chunking_flags={flag: build[flag] for flag in CHUNKING_FLAGS},
        embedder_flag=build["embedder"],
        no_embedder=build["no_embedder"],
        embedder_setting=settings.embedder,
    )
    if chosen.embedder_from == "alias":
        err.print(
            f"embedder {printable(chosen.embedder)}: the one alias {printable(alias)} was "
            "built with (--no-embedder drops its vectors)",
            highlight=False,
        )
    given.setdefault("workers", None)
    given.setdefault("batch_mb", None)
    given.setdefault("batch_chunks", None)
    given.setdefault("follow_symlinks", None)
    return _options(
        settings,
        alias=alias,
        chunking=chosen.chunking,
        embedder=chosen.embedder,
        analyzer=build["analyzer"],
        fit_window=build["fit_window"],
        **given,
    )


def _options(
    settings: Any,
    *,
    workers: int | None,
    batch_mb: float | None,
    batch_chunks: int | None,
    follow_symlinks: bool | None,
    **given: Any,
) -> Any:
    """The ingest's options: the flags, with the defaults that depend on the machine."""
    from osrag.ingestion.ingest import IngestOptions
    from osrag.ingestion.pipeline import default_workers

    sizing: dict[str, Any] = {}
    if batch_mb is not None:
        sizing["batch_bytes"] = max(1, int(batch_mb * 2**20))
    if batch_chunks is not None:
        sizing["batch_chunks"] = max(1, batch_chunks)
    return IngestOptions(
        **given,
        workers=workers if workers is not None else default_workers(),
        read=settings.read_options(follow_symlinks=follow_symlinks),
        embed_deadline=settings.embed_deadline,
        extraction=settings.extraction(),  # the configuration's family profiles
        **sizing,
    )


def _run(path: Path, index: Any, options: Any, *, show: bool) -> Any:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from osrag.ingestion.ingest import ingest

    with Progress(
        TextColumn("[bold]ingest[/bold]"),
        BarColumn(),
        TextColumn("{task.fields[docs]} documents"),
        TextColumn("{task.fields[chunks]} chunks written"),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not (show and err.is_terminal),
    ) as bar:
        task = bar.add_task("ingest", total=None, docs=0, chunks=0, rate="")
        started = time.perf_counter()

        def progress(docs: int, chunks: int) -> None:
            rate = chunks / max(time.perf_counter() - started, 1e-6)
            bar.update(task, docs=docs, chunks=chunks, rate=f"{rate:,.0f} chunks/s")

        return ingest(path, index, options, progress=progress)


def _dry_run(path: Path, index: Any, options: Any, settings: Any, json_output: bool) -> None:
    """The plan of this ingest (:mod:`osrag.ingestion.change_plan`), as ``osrag plan``
    prints it, in the operator's view (the ingest writes every document)."""
    from osrag.cli.plan_view import render_plan
    from osrag.ingestion.change_plan import Caller, plan_change

    plan = plan_change(
        path,
        index,
        options,
        caller=Caller(unrestricted=True),
        price_per_million_tokens=settings.embed_price,
    )
    if json_output:
        out.print_json(plan.model_dump_json())
    else:
        render_plan(plan, show=50)
        out.print("(dry run: nothing written)", highlight=False)
    if plan.documents.failed:
        raise typer.Exit(3)


def _summary(report: Any) -> None:
    verb, deleted = ("would write", "would delete") if report.dry_run else ("wrote", "deleted")
    when = "(dry run: nothing written)" if report.dry_run else f"in {report.seconds:.1f} s"
    out.print(
        f"{printable(report.generation)}: {report.documents} documents "
        f"({report.documents_added} added, {report.documents_changed} changed, "
        f"{report.documents_unchanged} unchanged, {report.documents_removed} removed); "
        f"{verb} {report.chunks_written} chunks, {deleted} {report.chunks_deleted} {when}",
        highlight=False,
    )
    if report.alias_moved:
        was = report.previous_generation or "unset"
        out.print(f"alias {printable(report.alias)} → {report.generation} (was {was})")
    if report.orphans_deleted:
        err.print(
            f"deleted {plural(report.orphans_deleted, 'chunk')} an interrupted ingest had left "
            "behind",
            highlight=False,
        )
    if report.chunks_embedded or report.vectors_reused or report.vectors_from_generation:
        err.print(
            f"embedded {plural(report.chunks_embedded, 'chunk')}; "
            f"{plural(report.vectors_from_generation, 'vector')} read back from the index, "
            f"{report.vectors_reused:,} from the cache",
            highlight=False,
        )
        err.print(
            f"{plural(report.chunks_truncated, 'written chunk')} longer than the embedder's "
            f"window ({plural(report.tokens_truncated, 'token')} not embedded)",
            highlight=False,
        )
    vocabulary = report.label_vocabulary
    if vocabulary is not None and vocabulary.vectors_left_out:
        err.print(
            f"{plural(vocabulary.vectors_left_out, 'label')} given no vector (the most "
            "widely held were embedded): they match questions by keys alone",
            highlight=False,
        )
    if report.labels_cut or report.headings_cut or report.breadcrumbs_shortened:
        err.print(
            f"cut to their length bounds (marked …): {report.labels_cut} fact label(s), "
            f"{report.headings_cut} chunk(s) with a heading cut in the breadcrumb, "
            f"{report.breadcrumbs_shortened} breadcrumb(s) shortened in the embedded text",
            highlight=False,
        )
    if report.throttled:
        err.print(
            f"the cluster pushed back: {plural(report.throttled, 'chunk write')} answered 429 were "
            f"resent ({report.bulk_retries} back-off rounds)",
            highlight=False,
        )
    if report.lock_wait_seconds >= 1:
        err.print(f"waited {report.lock_wait_seconds:.1f} s for the ingest lock", highlight=False)
    if report.documents_empty:
        err.print(
            f"{plural(len(report.documents_empty), 'empty document')}: "
            f"{printable(', '.join(report.documents_empty[:10]))}"
        )
    for lost in report.facts_dropped:  # the engine's nested-object limit (docs/reliability.md)
        err.print(
            f"[yellow]warning[/yellow] {printable(lost.doc_id)}: chunk {printable(lost.chunk_id)} "
            f"kept its first {lost.kept:,} facts; {lost.dropped:,} over the engine's nested "
            f"limit were left out, from {printable(lost.first_dropped_raw)} at "
            f"[{lost.first_dropped[0]}, {lost.first_dropped[1]})",
            highlight=False,
            soft_wrap=True,
        )
    for issue in report.errors:
        err.print(f"[red]error[/red] {printable(issue)}", highlight=False)
