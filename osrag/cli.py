"""The ``osrag`` command line. Thin: parse, call the library, print.

Every expected failure is an :class:`~osrag.errors.OsragError`; :func:`main`
prints it as one line on stderr and exits with its code — no traceback.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from osrag import __version__, node
from osrag.errors import ConfigError, CorpusError, OsragError

app = typer.Typer(
    name="osrag",
    help="Chunk, extract, index and query documents in OpenSearch — amounts are filters.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
node_app = typer.Typer(
    help="A local single-node OpenSearch for development and CI.", no_args_is_help=True
)
app.add_typer(node_app, name="node")

out = Console()
err = Console(stderr=True)


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
    if verbose:
        import logging

        from rich.logging import RichHandler

        handler = RichHandler(console=err, show_time=False, show_path=False)
        logging.basicConfig(level=logging.WARNING, handlers=[handler], format="%(message)s")
        logging.getLogger("osrag").setLevel(logging.INFO)


# --------------------------------------------------------------------------- node

PortOption = Annotated[int, typer.Option("--port", help="HTTP port on 127.0.0.1.")]


@node_app.command("start")
def node_start(
    port: PortOption = node.DEFAULT_PORT,
    heap: Annotated[str, typer.Option(help="JVM heap, e.g. 512m or 1g.")] = node.DEFAULT_HEAP,
    timeout: Annotated[
        float, typer.Option(help="Seconds to wait for yellow health.")
    ] = node.DEFAULT_TIMEOUT,
) -> None:
    """Fetch (once), start and wait for a local OpenSearch node; print its URL."""
    result = node.start(
        port=port, heap=heap, timeout=timeout, progress=lambda m: err.print(f"[dim]{m}[/dim]")
    )
    if result.already_running:
        err.print(f"a node is already running at {result.url} (pid {result.pid})")
    else:
        err.print(
            f"OpenSearch {result.version} is {result.health} at {result.url} (pid {result.pid})"
        )
    out.print(result.url)


@node_app.command("stop")
def node_stop(port: PortOption = node.DEFAULT_PORT) -> None:
    """Stop the node osrag started on this port (and nothing else)."""
    if node.stop(port=port):
        err.print(f"stopped the node on port {port}")
    else:
        err.print(f"no node started by osrag is running on port {port}")


@node_app.command("status")
def node_status(
    port: PortOption = node.DEFAULT_PORT,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print version, health and URL; exit 3 when no node is running."""
    result = node.status(port=port)
    if json_output:
        out.print_json(result.model_dump_json())
    elif result.running:
        out.print(
            f"running  OpenSearch {result.version}  health {result.health}  "
            f"{result.url}  pid {result.pid}"
        )
    else:
        out.print(f"not running ({result.url}; files in {result.home})")
    if not result.running:
        raise typer.Exit(3)


# --------------------------------------------------------------------------- chunks
# Issue 3: preview how a corpus is cut. Thin: build the config, load, chunk, print.

_STRATEGIES = ("structural", "fixed", "sentences")


@app.command("chunks")
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
    json_output: Annotated[
        bool, typer.Option("--json", help="One chunk record per line (JSON Lines) on stdout.")
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every chunk, not the first 3 per document.")
    ] = False,
) -> None:
    """Preview how PATH is cut: counts, step and storage multiplier, ids and breadcrumbs."""
    from pydantic import ValidationError

    from osrag.chunking import get_tokenizer, is_empty
    from osrag.documents import load_corpus
    from osrag.errors import ConfigError
    from osrag.models import ChunkingConfig, Document, LoadIssue

    # document → chunks with their amounts, money, dates and identifiers: the same
    # call ingest makes, so the preview is what gets indexed
    from osrag.pipeline import prepare_chunks as document_chunks

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
    tokenizer_id = get_tokenizer(tokenizer).id

    docs: list[Document] = []
    issues: list[LoadIssue] = []
    for item in load_corpus(path):
        (docs if isinstance(item, Document) else issues).append(item)  # type: ignore[arg-type]
    empty = [doc for doc in docs if is_empty(doc)]

    if json_output:
        write = sys.stdout.write
        for doc in docs:
            for chunk in document_chunks(doc, configs[strategies[0]]):
                write(chunk.model_dump_json())
                write("\n")
        for issue in issues:
            err.print(f"load error: {issue}", highlight=False)
        return

    out.print(
        f"{path}: {len(docs)} documents, {len(empty)} empty, {len(issues)} load errors; "
        f"tokenizer {tokenizer_id}",
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
                out.print(f"  {chunk.chunk_id}  {span}", highlight=False, soft_wrap=True)
                out.print(f"    [dim]{chunk.breadcrumb}[/dim]", highlight=False, soft_wrap=True)
            if len(chunks) > len(shown):
                out.print(f"    [dim]… {len(chunks) - len(shown)} more[/dim]", highlight=False)
    if issues:
        out.print("\n[bold]load errors[/bold]", highlight=False)
        for issue in issues:
            out.print(f"  {issue}", highlight=False)
    if empty:
        out.print("\n[bold]empty documents[/bold] (no chunks)", highlight=False)
        for doc in empty:
            out.print(f"  {doc.source_path}", highlight=False)


# --------------------------------------------------------------------------- config
# Connection settings (issue 9). Every command that talks to a cluster should
# build its settings with ``osrag.config.load_settings(**flags)`` (flags > env >
# file > defaults) and wrap its calls in ``osrag.client.cluster_errors``.

config_app = typer.Typer(
    help="Connection settings: where each value comes from, and a connection check.",
    no_args_is_help=True,
)
app.add_typer(config_app, name="config")

ConfigFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--config", help="Configuration file (default: nearest osrag.toml or pyproject.toml)."
    ),
]
UrlOpt = Annotated[str | None, typer.Option("--url", help="OpenSearch URL.")]
UsernameOpt = Annotated[str | None, typer.Option("--username", help="Basic auth user.")]
PasswordFileOpt = Annotated[
    Path | None,
    typer.Option("--password-file", help="File holding the password (no --password flag)."),
]
CaCertsOpt = Annotated[Path | None, typer.Option("--ca-certs", help="PEM file of CAs to trust.")]
VerifyCertsOpt = Annotated[
    bool | None,
    typer.Option("--verify-certs/--no-verify-certs", help="Verify the server certificate."),
]
ClientCertOpt = Annotated[
    Path | None, typer.Option("--client-cert", help="PEM client certificate.")
]
ClientKeyOpt = Annotated[Path | None, typer.Option("--client-key", help="Its private key.")]
AwsRegionOpt = Annotated[
    str | None, typer.Option("--aws-region", help="Sign requests with AWS SigV4.")
]
AwsServiceOpt = Annotated[
    str | None, typer.Option("--aws-service", help="es (managed domain) or aoss (Serverless).")
]
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", help="Seconds per request.")]
RetriesOpt = Annotated[int | None, typer.Option("--max-retries", help="Retries per request.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


CONNECTION_FLAGS = (
    "config",
    "url",
    "username",
    "password_file",
    "ca_certs",
    "verify_certs",
    "client_cert",
    "client_key",
    "aws_region",
    "aws_service",
    "timeout",
    "max_retries",
)


def _connection_flags(given: dict[str, Any]) -> dict[str, Any]:
    """The connection settings a command was given (``None``: flag not given)."""
    return {name: given[name] for name in CONNECTION_FLAGS}


@config_app.command("show")
def config_show(
    config: ConfigFileOpt = None,
    url: UrlOpt = None,
    username: UsernameOpt = None,
    password_file: PasswordFileOpt = None,
    ca_certs: CaCertsOpt = None,
    verify_certs: VerifyCertsOpt = None,
    client_cert: ClientCertOpt = None,
    client_key: ClientKeyOpt = None,
    aws_region: AwsRegionOpt = None,
    aws_service: AwsServiceOpt = None,
    timeout: TimeoutOpt = None,
    max_retries: RetriesOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Print the effective configuration (secrets masked) and where each value came from."""
    from rich.markup import escape
    from rich.table import Table

    from osrag.config import load_settings

    settings = load_settings(**_connection_flags(locals()))
    report = settings.report()
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
def config_check(
    config: ConfigFileOpt = None,
    url: UrlOpt = None,
    username: UsernameOpt = None,
    password_file: PasswordFileOpt = None,
    ca_certs: CaCertsOpt = None,
    verify_certs: VerifyCertsOpt = None,
    client_cert: ClientCertOpt = None,
    client_key: ClientKeyOpt = None,
    aws_region: AwsRegionOpt = None,
    aws_service: AwsServiceOpt = None,
    timeout: TimeoutOpt = None,
    max_retries: RetriesOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect with the effective configuration and print who answered."""
    import warnings

    from rich.markup import escape

    from osrag.client import check_connection
    from osrag.config import load_settings

    settings = load_settings(**_connection_flags(locals()))
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


# --------------------------------------------------------------------------- ingest, search, eval
# The lead's section: everything that reads or writes an index goes through a
# Backend opened from the effective settings, inside ``cluster_errors``.

AliasOpt = Annotated[
    str | None, typer.Option("--alias", help="The alias readers search (default: osrag-chunks).")
]
BackendOpt = Annotated[
    str, typer.Option("--backend", help="auto (OSRAG_URL → OpenSearch), opensearch or embedded.")
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def _session(
    url: str | None, config: Path | None, alias: str | None, backend: str
) -> tuple[Any, Any, str]:
    """Settings, backend and alias for a command (flags > env > file > defaults)."""
    from osrag.backends import choose_backend, open_backend
    from osrag.config import load_settings

    settings = load_settings(config=config, url=url, alias=alias)
    choice = choose_backend(settings, backend)  # issue 8: no URL → the embedded index
    if choice.notice:
        err.print(choice.notice, highlight=False, soft_wrap=True)
    return settings, open_backend(settings, backend=choice.name), settings.alias


def _chunking_from_flags(**flags: Any) -> Any:
    from osrag.models import ChunkingConfig

    return ChunkingConfig(**{k: v for k, v in flags.items() if v is not None})


@app.command("ingest")
def ingest_command(
    path: Annotated[
        Path, typer.Argument(help="A folder (or one file) of .md, .markdown, .txt, .jsonl.")
    ],
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = "auto",
    strategy: Annotated[
        str | None, typer.Option(help="structural (default), fixed or sentences.")
    ] = None,
    size: Annotated[int | None, typer.Option(help="fixed: window in tokens.")] = None,
    overlap: Annotated[int | None, typer.Option(help="fixed: overlap in tokens.")] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="structural/sentences: largest chunk.")
    ] = None,
    min_tokens: Annotated[
        int | None, typer.Option(help="structural: merge smaller sections.")
    ] = None,
    tokenizer: Annotated[
        str | None, typer.Option(help="whitespace (default) or a subword tokenizer.")
    ] = None,
    analyzer: Annotated[str, typer.Option(help="Text analyzer of the mapping.")] = "english",
    keep: Annotated[int, typer.Option(help="Generations kept per alias (current included).")] = 2,
    wait: Annotated[float, typer.Option(help="Seconds to wait for another ingest's lock.")] = 0.0,
    workers: Annotated[
        int | None,
        typer.Option(help="Processes that chunk and extract (default: cores − 1, at most 4)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would change; write nothing.")
    ] = False,
    prune: Annotated[
        bool, typer.Option("--prune/--no-prune", help="Delete chunks of vanished sources.")
    ] = True,
    json_output: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Chunk, extract and index PATH into the alias's generation (incremental, idempotent).

    Exit codes: 0 all went in; 3 some inputs could not be read or were refused (the rest
    went in, nothing already stored was lost); 4 cluster unreachable or refused; 6 locked.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from osrag.client import cluster_errors
    from osrag.index import IngestOptions, ingest
    from osrag.pipeline import default_workers

    if not path.exists():
        raise CorpusError(f"{path}: no such file or folder")
    chunking = _chunking_from_flags(
        strategy=strategy,
        size=size,
        overlap=overlap,
        max_tokens=max_tokens,
        min_tokens=min_tokens,
        tokenizer=tokenizer,
    )
    settings, store, alias_name = _session(url, config, alias, backend)
    options = IngestOptions(
        alias=alias_name,
        chunking=chunking,
        analyzer=analyzer,
        keep=keep,
        lock_wait=wait,
        dry_run=dry_run,
        prune=prune,
        workers=workers if workers is not None else default_workers(),
    )
    show = not quiet and not json_output and err.is_terminal
    with (
        cluster_errors(settings),
        Progress(
            TextColumn("[bold]ingest[/bold]"),
            BarColumn(),
            TextColumn("{task.fields[docs]} documents"),
            TextColumn("{task.fields[chunks]} chunks written"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not show,
        ) as bar,
    ):
        task = bar.add_task("ingest", total=None, docs=0, chunks=0, rate="")
        started = time.perf_counter()

        def progress(docs: int, chunks: int) -> None:
            rate = chunks / max(time.perf_counter() - started, 1e-6)
            bar.update(task, docs=docs, chunks=chunks, rate=f"{rate:,.0f} chunks/s")

        report = ingest(path, store, options, progress=progress)
    if json_output:
        out.print_json(report.model_dump_json())
    else:
        verb = "would write" if report.dry_run else "wrote"
        out.print(
            f"{report.generation}: {report.documents} documents "
            f"({report.documents_added} added, {report.documents_changed} changed, "
            f"{report.documents_unchanged} unchanged, {report.documents_removed} removed); "
            f"{verb} {report.chunks_written} chunks, deleted {report.chunks_deleted} "
            f"in {report.seconds:.1f} s",
            highlight=False,
        )
        if report.alias_moved:
            was = report.previous_generation or "unset"
            out.print(f"alias {report.alias} → {report.generation} (was {was})")
        if report.documents_empty:
            err.print(
                f"{len(report.documents_empty)} empty document(s): "
                f"{', '.join(report.documents_empty[:10])}"
            )
        for issue in report.errors:
            err.print(f"[red]error[/red] {issue}", highlight=False)
    if report.errors:
        raise typer.Exit(3)


index_app = typer.Typer(
    help="Generations behind the alias: status, list, rollback.", no_args_is_help=True
)
app.add_typer(index_app, name="index")


@index_app.command("status")
def index_status(
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = "auto",
    json_output: JsonOpt = False,
) -> None:
    """The alias, its generation, counts and configuration."""
    from osrag.client import cluster_errors
    from osrag.index import current_generation

    settings, store, alias_name = _session(url, config, alias, backend)
    with cluster_errors(settings):
        record = current_generation(store, alias_name)
        in_index = store.count(record.name)
    if json_output:
        payload = record.model_dump(mode="json") | {"chunks_in_index": in_index}
        out.print_json(data=payload)
        return
    out.print(f"alias       {alias_name} → {record.name} ({record.state})")
    out.print(f"documents   {record.documents}   chunks {record.chunks} (index: {in_index})")
    out.print(f"updated     {record.updated_at or record.created_at:%Y-%m-%d %H:%M:%S} UTC")
    out.print(
        f"tenants     {', '.join(record.tenants) or '-'}   acl: {'yes' if record.has_acl else 'no'}"
    )
    out.print(f"config      {record.config['chunking']}", highlight=False)
    out.print(f"versions    {record.versions}", highlight=False)


@index_app.command("list")
def index_list(
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = "auto",
    json_output: JsonOpt = False,
) -> None:
    """Every generation kept for the alias; the current one is marked."""
    from rich.table import Table

    from osrag.client import cluster_errors
    from osrag.index import list_generations

    settings, store, alias_name = _session(url, config, alias, backend)
    with cluster_errors(settings):
        views = list_generations(store, alias_name)
    if json_output:
        out.print_json(
            data=[
                v.record.model_dump(mode="json")
                | {"current": v.current, "chunks_in_index": v.chunks_in_index}
                for v in views
            ]
        )
        return
    table = Table(
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
def index_rollback(
    to: Annotated[
        str | None, typer.Option("--to", help="A kept generation (default: the previous one).")
    ] = None,
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = "auto",
) -> None:
    """Point the alias back at the previous ready generation (one atomic alias move)."""
    from osrag.client import cluster_errors
    from osrag.index import rollback

    settings, store, alias_name = _session(url, config, alias, backend)
    with cluster_errors(settings):
        before, after = rollback(store, alias_name, to)
    out.print(f"alias {alias_name} → {after} (was {before})")


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(help="The question; one stated amount becomes a filter.")],
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = "auto",
    k: Annotated[int, typer.Option("--k", help="Hits to return.")] = 10,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's documents.")] = None,
    acl: Annotated[
        list[str] | None, typer.Option("--acl", help="A group of the caller (repeatable).")
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Only documents in force on this day (YYYY-MM-DD)."),
    ] = None,
    category: Annotated[
        list[str] | None, typer.Option(help="Only these categories (repeatable).")
    ] = None,
    no_amount_filter: Annotated[
        bool, typer.Option("--no-amount-filter", help="Plain BM25 (the baseline).")
    ] = False,
    collapse: Annotated[bool, typer.Option(help="One hit per document.")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show the plan and the request body.")
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """Search the alias: a readable table under a line with the filters and the candidate count."""
    import json as jsonlib

    from rich.markup import escape
    from rich.table import Table

    from osrag.client import cluster_errors
    from osrag.extract import Money
    from osrag.models import QuerySpec
    from osrag.query import day, request_body
    from osrag.search import Searcher

    try:
        when = day(as_of) if as_of else None
    except ValueError as exc:
        raise ConfigError(f"--as-of {as_of!r}: expected YYYY-MM-DD") from exc
    spec = QuerySpec(
        text=query,
        size=k,
        tenant=tenant,
        acl=acl or None,
        as_of=when,
        category=category or None,
        amount_filter=not no_amount_filter,
        collapse=collapse,
    )
    settings, store, alias_name = _session(url, config, alias, backend)
    searcher = Searcher(store, alias_name)
    with cluster_errors(settings):
        if explain:
            plan = searcher.plan(spec)
            err.print(
                f"amount: {plan.amount_status} {plan.amount.model_dump() if plan.amount else ''}",
                highlight=False,
            )
            err.print(escape(jsonlib.dumps(request_body(plan), indent=2, ensure_ascii=False)))
        result = searcher.search(spec)
    if json_output:
        out.print_json(result.model_dump_json())
        return
    filters = ", ".join(f.name for f in result.filters_applied) or "none"
    stated = (
        Money(currency=result.amount.currency, minor_units=result.amount.minor_units).display()
        if result.amount
        else result.amount_status
    )
    line = (
        f"amount: {stated} · filters: {filters} · candidates: {result.candidate_count:,} · "
        f"hits: {result.raw_hits} ({result.unique_spans} unique spans) · "
        f"{result.took_ms:.1f} ms · {result.index}"
    )
    if result.fallback:
        line += " · [yellow]fallback: the amount filter matched nothing and was dropped[/yellow]"
    err.print(line, highlight=False)
    table = Table("#", "doc", "breadcrumb", "score", "amounts", box=None, pad_edge=False)
    for rank, hit in enumerate(result.hits, 1):
        amounts = ", ".join(Money.from_token(t).display() for t in hit.money[:4]) + (
            " …" if len(hit.money) > 4 else ""
        )
        table.add_row(
            str(rank), escape(hit.doc_id), escape(hit.breadcrumb), f"{hit.score or 0:.2f}", amounts
        )
    out.print(table)


def _run_paths(run_out: Path, names: list[str]) -> list[Path]:
    """One run file per configuration: ``FILE`` alone, else ``FILE``'s stem + the name."""
    import re

    if len(names) == 1:
        return [run_out]
    return [
        run_out.with_name(f"{run_out.stem}.{re.sub(r'[^A-Za-z0-9._=-]+', '-', n)}{run_out.suffix}")
        for n in names
    ]


@app.command("eval")
def eval_command(
    queries: Annotated[
        Path,
        typer.Argument(
            help="Labelled queries: JSON Lines, BEIR queries.jsonl (with --qrels) or TREC "
            "topics (with --qrels)."
        ),
    ],
    qrels: Annotated[
        Path | None, typer.Option(help="TREC qrels (qid iter docno rel) or BEIR qrels.tsv.")
    ] = None,
    qrels_format: Annotated[
        str, typer.Option(help="auto (from the content), trec or beir.")
    ] = "auto",
    topic_field: Annotated[
        str, typer.Option(help="TREC topics: title, description or title+description.")
    ] = "title",
    corpus: Annotated[
        Path | None, typer.Option(help="Build temporary generations from this corpus.")
    ] = None,
    k: Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")] = "5,10",
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            help="KEY=V1,V2 (repeatable; cartesian product); each is tested against the first.",
        ),
    ] = None,
    baselines: Annotated[
        bool,
        typer.Option("--baselines", help="Plain BM25 vs canonical tokens vs the amount filter."),
    ] = False,
    depth: Annotated[
        int,
        typer.Option(help="DOCUMENTS retrieved per query (1–10000; MAP is computed over them)."),
    ] = 100,
    strategy: Annotated[
        str | None, typer.Option(help="Chunking strategy of the temporary generations.")
    ] = None,
    run_out: Annotated[
        Path | None,
        typer.Option(
            "--run-out", help="Write a TREC run (one file per configuration when comparing)."
        ),
    ] = None,
    run_level: Annotated[
        str, typer.Option(help="document (one line per document) or chunk (per ranked chunk).")
    ] = "document",
    span_qrels: Annotated[
        Path | None,
        typer.Option(
            "--span-qrels", help="Span judgments (query_id doc_id start end grade): span metrics."
        ),
    ] = None,
    permutations: Annotated[
        int, typer.Option(help="Randomisation test: sign patterns drawn.")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Randomisation test: seed.")] = 0,
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = "auto",
    report: Annotated[
        Path | None,
        typer.Option("--report", help="Write an HTML report with a bar chart per metric."),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """Recall@k, precision@k, MRR, nDCG@k, MAP and amount precision, side by side, with p-values.

    Exit codes: 2 a flag is wrong or missing (e.g. BEIR queries without --qrels); 3 an
    input cannot be read, or its judgments match nothing in the index; 4 cluster; 5 index.
    """
    from rich.markup import escape
    from rich.table import Table

    from osrag.client import cluster_errors
    from osrag.evaluation import (
        BASELINE_LEGEND,
        baseline_configs,
        load_query_set,
        parse_compare,
        read_span_qrels,
        render_html,
        run_evaluation,
        write_trec_run,
    )
    from osrag.evaluation.inputs import TOPIC_FIELDS
    from osrag.evaluation.report import p_label
    from osrag.index import IngestOptions

    try:
        ks = sorted({int(part) for part in k.split(",") if part.strip()})
    except ValueError as exc:
        raise ConfigError(f"--k {k!r}: expected integers such as 5,10") from exc
    if qrels_format not in ("auto", "trec", "beir"):
        raise ConfigError(f"--qrels-format {qrels_format!r}: expected auto, trec or beir")
    if topic_field not in TOPIC_FIELDS:
        raise ConfigError(f"--topic-field {topic_field!r}: expected {', '.join(TOPIC_FIELDS)}")
    if run_level not in ("document", "chunk"):
        raise ConfigError(f"--run-level {run_level!r}: expected document or chunk")
    query_set = load_query_set(
        queries,
        qrels,
        qrels_format=qrels_format,  # type: ignore[arg-type]
        topic_field=topic_field,  # type: ignore[arg-type]
    )
    spans = read_span_qrels(span_qrels) if span_qrels is not None else None
    configs = baseline_configs() if baselines else []
    configs += parse_compare(compare or []) if (compare or not configs) else []
    settings, store, alias_name = _session(url, config, alias, backend)
    base = IngestOptions(alias=alias_name, chunking=_chunking_from_flags(strategy=strategy))
    with cluster_errors(settings):
        result = run_evaluation(
            query_set,
            store,
            alias=alias_name,
            configs=configs,
            ks=ks,
            corpus=corpus,
            base=base,
            depth=depth,
            span_qrels=spans,
            chunk_run=run_out is not None and run_level == "chunk",
            permutations=permutations,
            seed=seed,
            progress=None if json_output else (lambda m: err.print(f"[dim]{m}[/dim]")),
        )
    result.span_qrels_file = str(span_qrels) if span_qrels is not None else None
    if run_out is not None:
        paths = _run_paths(run_out, [c.name for c in result.configs])
        for path, c in zip(paths, result.configs, strict=True):
            write_trec_run(path, c.run, tag=c.name, level=run_level)  # type: ignore[arg-type]
            err.print(f"{run_level} run of {c.name} written to {path}", highlight=False)
    if report is not None:
        report.write_text(render_html(result), encoding="utf-8")
        err.print(f"report written to {report}")
    for warning in result.warnings:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True)
    if json_output:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    groups = [("all judged queries", None)] + [
        (name, name) for name in ("one amount", "no single amount")
    ]
    first = result.configs[0] if result.configs else None
    for title, subset in groups:
        if first is None:
            break
        metrics = first.subsets.get(subset, {}) if subset else first.metrics
        if not metrics or (subset and not all(first.subsets.values())):
            continue  # a subset that is all the queries repeats the first table
        table = Table(
            "metric", *(c.name for c in result.configs), title=title, title_justify="left"
        )
        for metric in metrics:
            row = [
                (c.subsets.get(subset, {}) if subset else c.metrics).get(metric, 0.0)
                for c in result.configs
            ]
            best = max(row)
            cells = []
            for c, v in zip(result.configs, row, strict=True):
                text = f"[bold]{v:.3f}[/bold]" if v == best and len(row) > 1 else f"{v:.3f}"
                test = c.significance.get(metric) if subset is None else None
                cells.append(f"{text} ({p_label(test.p_randomization)})" if test else text)
            table.add_row(metric, *cells)
        out.print(table)
    if first is not None:
        err.print(
            f"{first.queries} judged queries ({first.amount_queries} state one amount"
            + (f", {first.span_queries} with span judgments" if spans else "")
            + f"); {first.skipped_queries} without relevant documents left out; "
            f"depth {result.depth} documents",
            highlight=False,
        )
    if len(result.configs) > 1 and result.significance is not None:
        err.print(
            f"p: paired randomisation test (two-sided, {result.significance.permutations:,} "
            f"sign patterns, seed {result.significance.seed}) of each configuration against "
            f"{first.name if first else ''}; --json and --report add the paired t-test",
            highlight=False,
            soft_wrap=True,
        )
    for c in result.configs:
        if c.name in BASELINE_LEGEND:
            err.print(f"  {c.name}: {BASELINE_LEGEND[c.name]}", highlight=False, soft_wrap=True)


@app.command("span-qrels")
def span_qrels_command(
    passages: Annotated[
        Path,
        typer.Argument(help='JSON Lines {"query_id", "doc_id", "passage", "grade"?}.'),
    ],
    corpus: Annotated[Path, typer.Option(help="The corpus the documents come from.")],
    out_path: Annotated[Path, typer.Option("--out", help="Span qrels to write (JSON Lines).")],
    qrels: Annotated[
        Path | None, typer.Option(help="Document-level qrels: grades for lines without one.")
    ] = None,
) -> None:
    """Turn highlighted passages into span judgments by finding them in the source text.

    Exit 3 when some passages (or their documents) were not found: the rest is written.
    """
    from osrag.documents import load_corpus
    from osrag.evaluation import passages_to_spans, read_qrels, write_span_qrels
    from osrag.models import Document

    documents = {d.doc_id: d for d in load_corpus(corpus) if isinstance(d, Document)}
    grades = read_qrels(qrels) if qrels is not None else None
    found = passages_to_spans(passages, documents, grades)
    written = write_span_qrels(out_path, found.spans)
    err.print(
        f"{written} span judgments written to {out_path}; {len(found.missing)} passages not "
        f"found; {found.repeated} found more than once (first occurrence used)",
        highlight=False,
    )
    for line in found.missing:
        err.print(f"[red]not found[/red] {line}", highlight=False, soft_wrap=True)
    if found.missing:
        raise typer.Exit(3)


# --------------------------------------------------------------------------- check-collisions
# Issue 4: the reference's collision assertion over a corpus. Thin: load, report, print.


@app.command("check-collisions")
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
    from pathlib import Path

    from rich.table import Table

    from osrag.documents import load_corpus
    from osrag.extract.collisions import collision_report
    from osrag.models import ExtractionConfig

    report = collision_report(
        load_corpus(Path(path)), ExtractionConfig(default_currency=default_currency)
    )
    if json_output:
        sys.stdout.write(report.model_dump_json() + "\n")
    else:
        for issue in report.issues:
            err.print(f"load error: {issue}", highlight=False)
        out.print(
            f"{path}: {report.documents} documents, {report.mentions} amounts, "
            f"{report.distinct_amounts} distinct; {len(report.string_collisions)} pairs whose "
            "money:<n> tokens contain one another",
            highlight=False,
        )
        shown = report.string_collisions[: limit or None]
        if shown:
            table = Table("contained", "in", "e.g. stated in", "and in")
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


def _warning_line(
    message: Warning | str, category: type[Warning], *_args: object, **_kwargs: object
) -> None:
    from rich.markup import escape

    err.print(f"[yellow]warning:[/yellow] {escape(str(message))}", highlight=False, soft_wrap=True)


def main() -> None:
    import warnings

    from rich.markup import escape

    warnings.showwarning = _warning_line
    try:
        app()
    except OsragError as exc:
        err.print(
            f"[bold red]error:[/bold red] {escape(str(exc))}", highlight=False, soft_wrap=True
        )
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
