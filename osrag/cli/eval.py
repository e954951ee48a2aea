"""``osrag eval``: labelled queries, metrics side by side (see :mod:`osrag.evaluate`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from osrag.cli.common import (
    AliasOpt,
    BackendOpt,
    ConfigFileOpt,
    JsonOpt,
    UrlOpt,
    err,
    out,
    print_model,
    session,
)
from osrag.cli.ingest import chunking_from_flags
from osrag.errors import ConfigError


def eval_command(
    queries: Annotated[
        Path,
        typer.Argument(help="Labelled queries (JSON Lines, or BEIR queries.jsonl with --qrels)."),
    ],
    qrels: Annotated[Path | None, typer.Option(help="BEIR qrels.tsv or TREC qrels.")] = None,
    corpus: Annotated[
        Path | None, typer.Option(help="Build temporary generations from this corpus.")
    ] = None,
    k: Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")] = "5,10",
    compare: Annotated[
        list[str] | None,
        typer.Option("--compare", help="KEY=V1,V2 (repeatable; cartesian product)."),
    ] = None,
    baselines: Annotated[
        bool,
        typer.Option("--baselines", help="Plain BM25 vs canonical tokens vs the amount filter."),
    ] = False,
    depth: Annotated[
        int, typer.Option(help="Chunks retrieved per query (MAP is computed over them).")
    ] = 100,
    strategy: Annotated[
        str | None, typer.Option(help="Chunking strategy of the temporary generations.")
    ] = None,
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = None,
    report: Annotated[
        Path | None,
        typer.Option("--report", help="Write an HTML report with a bar chart per metric."),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """Recall@k, precision@k, MRR, nDCG@k, MAP and amount precision, side by side."""
    from rich.table import Table

    from osrag.client import cluster_errors
    from osrag.evaluate import (
        baseline_configs,
        parse_compare,
        read_queries,
        render_html,
        run_evaluation,
    )
    from osrag.index import IngestOptions

    try:
        ks = sorted({int(part) for part in k.split(",") if part.strip()})
    except ValueError as exc:
        raise ConfigError(f"--k {k!r}: expected integers such as 5,10") from exc
    labelled = read_queries(queries, qrels)
    configs = baseline_configs() if baselines else []
    configs += parse_compare(compare or []) if (compare or not configs) else []
    settings, index, alias_name = session(url, config, alias, backend)
    base = IngestOptions(alias=alias_name, chunking=chunking_from_flags(strategy=strategy))
    with cluster_errors(settings):
        result = run_evaluation(
            labelled,
            index,
            alias=alias_name,
            configs=configs,
            ks=ks,
            corpus=corpus,
            base=base,
            depth=depth,
            queries_file=str(queries),
            progress=None if json_output else (lambda m: err.print(f"[dim]{m}[/dim]")),
        )
    if report is not None:
        report.write_text(render_html(result), encoding="utf-8")
        err.print(f"report written to {report}")
    if json_output:
        print_model(result)
        return
    from osrag.evaluate import BASELINE_LEGEND

    groups = [("all judged queries", None)] + [
        (name, name) for name in ("one amount", "no single amount")
    ]
    for title, subset in groups:
        first = result.configs[0] if result.configs else None
        if first is None:
            break
        metrics = first.subsets.get(subset, {}) if subset else first.metrics
        if not metrics:
            continue
        table = Table(
            "metric", *(c.name for c in result.configs), title=title, title_justify="left"
        )
        for metric in metrics:
            row = [
                (c.subsets.get(subset, {}) if subset else c.metrics).get(metric, 0.0)
                for c in result.configs
            ]
            best = max(row)
            table.add_row(
                metric,
                *(
                    f"[bold]{v:.3f}[/bold]" if v == best and len(row) > 1 else f"{v:.3f}"
                    for v in row
                ),
            )
        out.print(table)
    first = result.configs[0] if result.configs else None
    if first is not None:
        err.print(
            f"{first.queries} judged queries ({first.amount_queries} state one amount); "
            f"{first.skipped_queries} without relevant documents left out"
        )
    for c in result.configs:
        if c.name in BASELINE_LEGEND:
            err.print(f"  {c.name}: {BASELINE_LEGEND[c.name]}", highlight=False, soft_wrap=True)
