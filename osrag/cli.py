"""The ``osrag`` command line. Thin: parse, call the library, print.

Every expected failure is an :class:`~osrag.errors.OsragError`; :func:`main`
prints it as one line on stderr and exits with its code — no traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from osrag import __version__, node
from osrag.errors import OsragError

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
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """osrag: retrieval on OpenSearch that does not lie to you."""


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
        typer.Option(help="fixed, structural or sentences [default: all three, ids for each]."),
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

    # document → chunks: the one call made per document (issue 5 swaps in
    # osrag.pipeline.prepare_chunks to add extracted values)
    from osrag.chunking import chunk_document as document_chunks
    from osrag.chunking import get_tokenizer, is_empty
    from osrag.documents import load_corpus
    from osrag.errors import ConfigError
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
                out.print(f"  {chunk.chunk_id}  {span}", highlight=False)
                out.print(f"    [dim]{chunk.breadcrumb}[/dim]", highlight=False)
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
        "--config", help="Configuration file [default: nearest osrag.toml or pyproject.toml]."
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

    settings = load_settings(
        config=config,
        url=url,
        username=username,
        password_file=password_file,
        ca_certs=ca_certs,
        verify_certs=verify_certs,
        client_cert=client_cert,
        client_key=client_key,
        aws_region=aws_region,
        aws_service=aws_service,
        timeout=timeout,
        max_retries=max_retries,
    )
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

    settings = load_settings(
        config=config,
        url=url,
        username=username,
        password_file=password_file,
        ca_certs=ca_certs,
        verify_certs=verify_certs,
        client_cert=client_cert,
        client_key=client_key,
        aws_region=aws_region,
        aws_service=aws_service,
        timeout=timeout,
        max_retries=max_retries,
    )
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


def main() -> None:
    try:
        app()
    except OsragError as exc:
        err.print(f"[bold red]error:[/bold red] {exc}", highlight=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
