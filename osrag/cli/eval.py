"""``osrag eval`` (labelled queries, metrics side by side, p-values, run files) and
``osrag span-qrels`` (passages → span judgments); see :mod:`osrag.evaluation`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from osrag.cli.common import (
    JsonOpt,
    cluster_guard,
    err,
    out,
    printable,
    session,
    session_flags,
)
from osrag.cli.ingest import chunking_from_flags
from osrag.errors import ConfigError

if TYPE_CHECKING:
    from osrag.evaluation.report import EvalReport


def _run_paths(run_out: Path, names: list[str]) -> list[Path]:
    """One run file per configuration: ``FILE`` alone, else ``FILE``'s stem + the name."""
    import re

    if len(names) == 1:
        return [run_out]
    return [
        run_out.with_name(f"{run_out.stem}.{re.sub(r'[^A-Za-z0-9._=-]+', '-', n)}{run_out.suffix}")
        for n in names
    ]


QueriesArg = Annotated[
    Path,
    typer.Argument(
        help="Labelled queries: JSON Lines, BEIR queries.jsonl (with --qrels) or TREC "
        "topics (with --qrels)."
    ),
]
QrelsOpt = Annotated[
    Path | None, typer.Option(help="TREC qrels (qid iter docno rel) or BEIR qrels.tsv.")
]
QrelsFormatOpt = Annotated[str, typer.Option(help="auto (from the content), trec or beir.")]
HoldersOpt = Annotated[
    Path | None,
    typer.Option(
        help="Holder gold of quantity precision, as qrels (TREC or BEIR): grade > 0 holds the "
        "asked quantity meeting the constraint, 0 does not, < 0 cannot be judged. Default: "
        "the queries' own `holders` and `unjudged`."
    ),
]
TopicFieldOpt = Annotated[
    str, typer.Option(help="TREC topics: title, description or title+description.")
]
CorpusOpt = Annotated[
    Path | None, typer.Option(help="Build temporary generations from this corpus.")
]
CutoffsOpt = Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")]
CompareOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--compare",
        help="KEY=V1,V2 (repeatable; cartesian product); each is tested against the first.",
    ),
]
BaselinesOpt = Annotated[
    bool,
    typer.Option("--baselines", help="Plain BM25 vs canonical tokens vs the amount filter."),
]
DepthOpt = Annotated[
    int,
    typer.Option(help="DOCUMENTS retrieved per query (1–10000; MAP is computed over them)."),
]
StrategyOpt = Annotated[
    str | None, typer.Option(help="Chunking strategy of the temporary generations.")
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        help="Embedder of the temporary generations (needed to compare mode=vector,hybrid).",
        show_default=False,
    ),
]
RunOutOpt = Annotated[
    Path | None,
    typer.Option("--run-out", help="Write a TREC run (one file per configuration when comparing)."),
]
RunLevelOpt = Annotated[
    str, typer.Option(help="document (one line per document) or chunk (per ranked chunk).")
]
SpanQrelsOpt = Annotated[
    Path | None,
    typer.Option(
        "--span-qrels", help="Span judgments (query_id doc_id start end grade): span metrics."
    ),
]
ContextsOpt = Annotated[
    str | None,
    typer.Option(
        "--context",
        help="With --span-qrels: evidence recall at each --budget, plain hits against these "
        "expansions (comma-separated: neighbours,section,table).",
        show_default=False,
    ),
]
BudgetsOpt = Annotated[
    str, typer.Option("--budget", help="--context: token budgets, comma-separated.")
]
ContextKOpt = Annotated[
    int, typer.Option("--context-k", help="--context: hits each expansion starts from.")
]
PermutationsOpt = Annotated[int, typer.Option(help="Randomisation test: sign patterns drawn.")]
SeedOpt = Annotated[int, typer.Option(help="Randomisation test: seed.")]
ReportOpt = Annotated[
    Path | None,
    typer.Option("--report", help="Write an HTML report with a bar chart per metric."),
]

SUBSET_TABLES = (
    ("all judged queries", None),
    ("queries with holder gold", "holder gold"),
    ("amount constraints", "amount constraints"),
    ("no amount constraint", "no amount constraint"),
    ("comparative constraints", "comparative constraints"),
)
"""The metric tables printed: title and subset (None: every judged query)."""
HALVES = ("amount constraints", "no amount constraint")
DIAGNOSTIC = "filter_agreement@"
"""Shown only in the amount subsets: it measures the filter by the filter."""
GOLD_ONLY = "quantity_precision@"
"""Shown only over the queries with holder gold (their mean is over those queries)."""


@session_flags
def eval_command(
    queries: QueriesArg,
    *,
    qrels: QrelsOpt = None,
    holders: HoldersOpt = None,
    qrels_format: QrelsFormatOpt = "auto",
    topic_field: TopicFieldOpt = "title",
    corpus: CorpusOpt = None,
    k: CutoffsOpt = "5,10",
    compare: CompareOpt = None,
    baselines: BaselinesOpt = False,
    depth: DepthOpt = 100,
    strategy: StrategyOpt = None,
    embedder: EmbedderOpt = None,
    run_out: RunOutOpt = None,
    run_level: RunLevelOpt = "document",
    span_qrels: SpanQrelsOpt = None,
    context: ContextsOpt = None,
    budget: BudgetsOpt = "512,1024",
    context_k: ContextKOpt = 3,
    permutations: PermutationsOpt = 10_000,
    seed: SeedOpt = 0,
    where: dict[str, Any],
    report: ReportOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Recall@k, precision@k, MRR, nDCG@k, MAP and quantity precision, side by side, with p-values.

    Quantity precision@k counts a returned document only when the holder gold (the queries'
    `holders`, or --holders) says it holds the asked quantity meeting the constraint; the
    constraint selectivity and the fallback steps are printed below the tables.

    Exit codes: 2 a flag is wrong or missing (e.g. BEIR queries without --qrels); 3 an
    input cannot be read, or its judgments match nothing in the index; 4 cluster; 5 index.
    """
    from osrag.evaluation import load_query_set, read_span_qrels, run_evaluation
    from osrag.ingestion.ingest import IngestOptions

    ks = _check_flags(k, qrels_format, topic_field, run_level)
    evidence = _evidence_flags(context, budget, context_k, span_qrels)
    query_set = load_query_set(
        queries,
        qrels,
        qrels_format=qrels_format,  # type: ignore[arg-type]
        topic_field=topic_field,  # type: ignore[arg-type]
        holders=holders,
    )
    spans = read_span_qrels(span_qrels) if span_qrels is not None else None
    settings, index, alias_name = session(**where)
    base = IngestOptions(
        alias=alias_name,
        chunking=chunking_from_flags(strategy=strategy),
        embedder=embedder or settings.embedder,
        extraction=settings.extraction(),  # the configuration's family profiles
    )
    with cluster_guard(settings):
        result = run_evaluation(
            query_set,
            index,
            alias=alias_name,
            configs=_configs(baselines, compare),
            ks=ks,
            corpus=corpus,
            base=base,
            depth=depth,
            span_qrels=spans,
            chunk_run=run_out is not None and run_level == "chunk",
            permutations=permutations,
            seed=seed,
            progress=None if json_output else (lambda m: err.print(f"[dim]{printable(m)}[/dim]")),
        )
        if evidence is not None and spans is not None:
            result.evidence = _run_evidence(
                query_set, index, alias_name, spans, evidence, json_output
            )
    result.span_qrels_file = str(span_qrels) if span_qrels is not None else None
    result.holders_file = str(holders) if holders is not None else None
    _write_files(result, run_out, run_level, report)
    if json_output:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    _print_tables(result)
    _print_notes(result, with_spans=spans is not None)
    if result.evidence is not None:
        _print_evidence(result.evidence)


def _evidence_flags(
    context: str | None, budget: str, context_k: int, span_qrels: Path | None
) -> dict[str, Any] | None:
    """The kinds, budgets and hits of ``--context`` (None without it); a wrong value is a
    ConfigError naming its flag."""
    from osrag.schema.passages import CONTEXT_KINDS

    if context is None:
        return None
    kinds = [part.strip() for part in context.split(",") if part.strip()]
    unknown = [kind for kind in kinds if kind not in CONTEXT_KINDS]
    if unknown or not kinds:
        raise ConfigError(f"--context {context!r}: choose from {', '.join(CONTEXT_KINDS)}")
    try:
        budgets = sorted({int(part) for part in budget.split(",") if part.strip()})
    except ValueError as exc:
        raise ConfigError(f"--budget {budget!r}: expected integers such as 512,1024") from exc
    if not budgets or budgets[0] < 1:
        raise ConfigError(f"--budget {budget!r}: expected positive integers")
    if context_k < 1:
        raise ConfigError(f"--context-k {context_k}: expected at least 1")
    if span_qrels is None:
        raise ConfigError("--context measures evidence recall: pass the answers' --span-qrels")
    return {"kinds": kinds, "budgets": budgets, "k": context_k}


def _run_evidence(
    query_set: Any, index: Any, alias: str, spans: Any, evidence: dict[str, Any], quiet: bool
) -> Any:
    """Evidence recall on the alias as it is (the operator's view)."""
    from osrag.evaluation.evidence_runner import run_evidence
    from osrag.search.searcher import Searcher

    searcher = Searcher(index, alias, enforce_access=False)
    progress = None if quiet else (lambda m: err.print(f"[dim]{m}[/dim]"))
    return run_evidence(query_set.queries, searcher, spans, progress=progress, **evidence)


def _print_evidence(evidence: Any) -> None:
    """Evidence recall: a row per kind, a column per budget; then each query note's."""
    from rich.table import Table

    title = (
        f"evidence recall ({evidence.queries} queries with judged spans; plain: up to "
        f"{evidence.plain_k} hits, the others from {evidence.k}; {evidence.tokenizer})"
    )
    groups = [("", evidence.recall), *((f" — {n}", v) for n, v in evidence.subsets.items())]
    for suffix, recall in groups:
        table = Table(
            "shown",
            *(f"@{b}" for b in evidence.budgets),
            title=title + suffix,
            title_justify="left",
        )
        for kind in evidence.kinds:
            values = recall.get(kind, {})
            table.add_row(kind, *(f"{values.get(b, 0.0):.3f}" for b in evidence.budgets))
        out.print(table)


def _check_flags(k: str, qrels_format: str, topic_field: str, run_level: str) -> list[int]:
    """The cut-offs; a flag with a value the command does not know is a ConfigError."""
    from osrag.evaluation.inputs import TOPIC_FIELDS

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
    return ks


def _configs(baselines: bool, compare: list[str] | None) -> list[Any]:
    """The configurations compared: the baselines, then the --compare product (or the default)."""
    from osrag.evaluation import baseline_configs, parse_compare

    configs = baseline_configs() if baselines else []
    return configs + (parse_compare(compare or []) if (compare or not configs) else [])


def _write_files(
    result: EvalReport, run_out: Path | None, run_level: str, report: Path | None
) -> None:
    """The TREC runs and the HTML report asked for, and the warnings of the run."""
    from osrag.errors import StorageError
    from osrag.evaluation import render_html, write_trec_run
    from osrag.writes import write_file

    if run_out is not None:
        paths = _run_paths(run_out, [c.name for c in result.configs])
        for path, c in zip(paths, result.configs, strict=True):
            write_trec_run(path, c.run, tag=c.name, level=run_level)  # type: ignore[arg-type]
            err.print(
                f"{run_level} run of {printable(c.name)} written to {printable(path)}",
                highlight=False,
            )
    if report is not None:
        try:
            write_file(report, render_html(result))
        except OSError as exc:
            raise StorageError(f"{report}: cannot write ({exc.strerror or exc})") from None
        err.print(f"report written to {printable(report)}")
    for warning in result.warnings:
        err.print(
            f"[yellow]warning:[/yellow] {printable(warning)}", highlight=False, soft_wrap=True
        )


def _print_tables(result: EvalReport) -> None:
    """One table a subset of the queries: a metric a row, a configuration a column."""
    from osrag.cli.render import data_table

    first = result.configs[0] if result.configs else None
    for title, subset in SUBSET_TABLES:
        if first is None:
            break
        metrics = first.subsets.get(subset, {}) if subset else first.metrics
        if not metrics or (subset in HALVES and not all(first.subsets.get(h) for h in HALVES)):
            continue  # a subset that is all the queries repeats the first table
        all_gold = first.quantity_queries == first.queries
        if subset == "holder gold":
            if all_gold:
                continue  # every judged query has holder gold: the first table shows it
            title = f"{title} ({first.quantity_queries})"
        table = data_table(
            "metric",
            *(printable(c.name) for c in result.configs),
            title=title,
            title_justify="left",
        )
        for metric in metrics:
            gold_table = subset == "holder gold" or (subset is None and all_gold)
            if metric.startswith(GOLD_ONLY) and not gold_table:
                continue
            if metric.startswith(DIAGNOSTIC):
                if subset not in ("amount constraints", "comparative constraints"):
                    continue
                table.add_row(f"{metric} (diagnostic)", *_cells(result, subset, metric))
                continue
            table.add_row(metric, *_cells(result, subset, metric))
        out.print(table)


def _cells(result: EvalReport, subset: str | None, metric: str) -> list[Any]:
    """One metric of every configuration: the best in bold, with its p-value on all queries."""
    from rich.text import Text

    from osrag.evaluation.report import p_label

    row = [
        (c.subsets.get(subset, {}) if subset else c.metrics).get(metric, 0.0)
        for c in result.configs
    ]
    best = max(row)
    cells = []
    for c, v in zip(result.configs, row, strict=True):
        text = Text(f"{v:.3f}", style="bold" if v == best and len(row) > 1 else "")
        # significance is over the queries that have the metric: quantity precision's are
        # exactly the holder-gold subset
        on_its_queries = subset is None or metric.startswith(GOLD_ONLY)
        test = c.significance.get(metric) if on_its_queries else None
        if test:
            text.append(f" ({p_label(test.p_randomization)})")
        cells.append(text)
    return cells


def _print_notes(result: EvalReport, *, with_spans: bool) -> None:
    """What the tables counted, the test behind the p-values, and the baselines' legend."""
    from osrag.evaluation import BASELINE_LEGEND

    first = result.configs[0] if result.configs else None
    if first is not None:
        err.print(
            f"{first.queries} judged queries ({first.quantity_queries} with holder gold, "
            f"{first.amount_queries} state amount constraints the filter finds, "
            f"{first.amount_queries_unheld} ones it finds nowhere"
            + (f", {first.span_queries} with span judgments" if with_spans else "")
            + f"); {first.skipped_queries} without relevant documents left out; "
            f"depth {result.depth} documents",
            highlight=False,
        )
        if first.quantity_queries:
            err.print(
                "quantity precision: a returned document counts when the holder gold says it "
                "holds the asked quantity; documents the gold cannot judge are skipped "
                f"({first.unjudged_skipped} in the top {max(result.ks)} of {first.name})",
                highlight=False,
                soft_wrap=True,
            )
    for c in result.configs:
        err.print(f"  {c.name}: {_selectivity_line(c)}", highlight=False, soft_wrap=True)
        if c.refused:
            ids = ", ".join(sorted(c.refused)[:5]) + (" …" if len(c.refused) > 5 else "")
            err.print(
                f"  {c.name}: {len(c.refused)} queries refused by the search, counted as "
                f"returning nothing ({ids}): {next(iter(c.refused.values()))}",
                highlight=False,
                soft_wrap=True,
            )
    if len(result.configs) > 1 and result.significance is not None:
        err.print(
            f"p: paired randomisation test (two-sided, {result.significance.permutations:,} "
            f"sign patterns, seed {result.significance.seed}) of each configuration against "
            f"{printable(first.name) if first else ''}; --json and --report add the paired t-test",
            highlight=False,
            soft_wrap=True,
        )
    for c in result.configs:
        if c.name in BASELINE_LEGEND:
            err.print(
                f"  {printable(c.name)}: {BASELINE_LEGEND[c.name]}", highlight=False, soft_wrap=True
            )


def _selectivity_line(config: Any) -> str:
    """Selectivity (median, p90) and the fallback steps of one configuration, in a line."""
    steps = ", ".join(f"{name} {n}" for name, n in config.fallback_steps.items()) or "none"
    summary = config.selectivity_summary
    if summary is None:
        return f"no amount filter applied; fallbacks: {steps}"
    capped = f" ({summary.capped} counted up to 10,000)" if summary.capped else ""
    return (
        f"amount filter leaves a median {summary.documents_median:.1%} of the documents "
        f"(p90 {summary.documents_p90:.1%}; chunks {summary.chunks_median:.1%} / "
        f"{summary.chunks_p90:.1%}) over {summary.queries} queries{capped}; fallbacks: {steps}"
    )


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
    from osrag.evaluation import passages_to_spans, read_qrels, write_span_qrels
    from osrag.loaders.corpus import load_corpus
    from osrag.models import Document

    documents = {d.doc_id: d for d in load_corpus(corpus) if isinstance(d, Document)}
    grades = read_qrels(qrels) if qrels is not None else None
    found = passages_to_spans(passages, documents, grades)
    written = write_span_qrels(out_path, found.spans)
    err.print(
        f"{written} span judgments written to {printable(out_path)}; {len(found.missing)} "
        f"passages not found; {found.repeated} found more than once (first occurrence used)",
        highlight=False,
    )
    for line in found.missing:
        err.print(f"[red]not found[/red] {printable(line)}", highlight=False, soft_wrap=True)
    if found.missing:
        raise typer.Exit(3)
