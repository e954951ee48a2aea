"""The evaluation report: one pydantic model for the library, ``--json`` and the HTML page.

``EvalReport.model_dump_json()`` is exactly what ``osrag eval --json`` prints: means,
per-query values, significance against the first configuration, warnings with counts.
The runs themselves (every retrieved hit) stay out of the JSON (``exclude``): they are
written as TREC run files (``--run-out``).
"""

from __future__ import annotations

import html
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from osrag.evaluation.evidence_runner import EvidenceReport
from osrag.evaluation.quantity import Selectivity, SelectivitySummary
from osrag.evaluation.runs import Run


class Comparison(BaseModel):
    """One metric of one configuration against the first, over the same queries."""

    baseline: str
    mean_difference: float = Field(description="mean over queries of (this − baseline)")
    p_randomization: float = Field(description="paired randomisation test, two-sided")
    p_t_test: float = Field(description="paired t-test, two-sided")
    queries: int


class ConfigReport(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    params: dict[str, Any]
    metrics: dict[str, float]
    subsets: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="the same means over the queries with holder gold, over queries that "
        "state amount constraints, over the others, and over those with a comparison or range",
    )
    queries: int = 0
    skipped_queries: int = 0
    quantity_queries: int = 0
    """Queries with holder gold: ``quantity_precision@k`` is their mean (a returned document
    counts only when the gold says it holds the asked quantity meeting the constraint)."""
    quantity_queries_without_gold: int = 0
    """Judged queries with no holder gold, or gold listing no holder: left out of quantity
    precision."""
    unjudged_skipped: int = 0
    """Documents the holder gold cannot judge, skipped in the top-k rankings (largest k)."""
    amount_queries: int = 0
    """Queries stating amount constraints some document's chunk meets, as the filter reads it
    (``filter_agreement@k`` is over these)."""
    amount_queries_unheld: int = 0
    """Queries stating amount constraints the filter finds in no chunk: they fall back, and are
    left out of filter agreement."""
    span_queries: int = 0
    fallbacks: int = 0
    """Queries whose amount constraints together matched nothing and were dropped."""
    fallback_steps: dict[str, int] = Field(
        default_factory=dict,
        description="queries per fallback step, every step listed, in ladder order",
    )
    text_fallbacks: int = 0
    """Queries whose words matched no chunk meeting the constraints: ranked by them alone."""
    empty_results: int = 0
    """Queries that returned no hit at all (each counts 0 in quantity precision)."""
    refused: dict[str, str] = Field(
        default_factory=dict,
        description="query id → why the search refused it (e.g. a range in a currency the "
        "index cannot compare); it counts as returning nothing",
    )
    selectivity: dict[str, Selectivity] = Field(
        default_factory=dict,
        description="query id → the share of the index its amount filter leaves "
        "(queries whose search applied one)",
    )
    selectivity_summary: SelectivitySummary | None = None
    generation: str | None = None
    per_query: dict[str, dict[str, float]] = Field(default_factory=dict)
    significance: dict[str, Comparison] = Field(
        default_factory=dict, description="metric → test against the first configuration"
    )
    run: Annotated[Run, SkipValidation] = Field(default_factory=dict, exclude=True, repr=False)
    """Query id → the retrieved hits in rank order (written by ``--run-out``)."""

    @property
    def rankings(self) -> dict[str, list[str]]:
        """Query id → document ids in rank order."""
        from osrag.evaluation.runs import ranking

        return {qid: ranking(hits) for qid, hits in self.run.items()}


class SignificanceMethod(BaseModel):
    test: str = "paired randomisation (sign flip), two-sided; paired t-test beside it"
    permutations: int
    seed: int
    baseline: str | None = Field(description="the configuration every other is tested against")


class EvalReport(BaseModel):
    queries_file: str
    qrels_file: str | None = None
    holders_file: str | None = None
    span_qrels_file: str | None = None
    ks: list[int]
    depth: int = Field(description="documents retrieved per query (MAP is computed over them)")
    depth_unit: Literal["documents"] = "documents"
    warnings: list[str] = Field(default_factory=list)
    significance: SignificanceMethod | None = None
    configs: list[ConfigReport]
    evidence: EvidenceReport | None = Field(
        default=None,
        description="with --context: evidence recall at each budget, plain hits against "
        "each expansion (on the alias as it is)",
    )

    def metric_names(self) -> list[str]:
        names: list[str] = []
        for config in self.configs:
            for name in config.metrics:
                if name not in names:
                    names.append(name)
        return names


def p_label(p: float) -> str:
    """``p=0.012``, ``p<0.001``."""
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


_PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1"]


def render_html(report: EvalReport) -> str:
    """A self-contained page: the table (with p-values) and a bar chart per metric."""
    sections = []
    for metric in report.metric_names():
        rows = []
        bar_h, gap, label_w, width = 22, 8, 300, 360
        for i, config in enumerate(report.configs):
            value = config.metrics.get(metric, 0.0)
            test = config.significance.get(metric)
            note = html.escape(f" ({p_label(test.p_randomization)})") if test else ""
            name = html.escape(config.name)
            y = i * (bar_h + gap)
            colour = _PALETTE[i % len(_PALETTE)]
            rows.append(
                f'<text x="{label_w - 8}" y="{y + bar_h * 0.7:.1f}" text-anchor="end">'
                f"{html.escape(config.name)}</text>"
                f'<rect x="{label_w}" y="{y}" width="{max(value, 0) * width:.1f}" height="{bar_h}" '
                f'fill="{colour}"><title>{name}: {value:.4f}{note}</title></rect>'
                f'<text x="{label_w + max(value, 0) * width + 6:.1f}" y="{y + bar_h * 0.7:.1f}">'
                f"{value:.3f}{note}</text>"
            )
        height = len(report.configs) * (bar_h + gap)
        sections.append(
            f"<section><h2>{html.escape(metric)}</h2>"
            f'<svg width="{label_w + width + 160}" height="{height}" font-family="sans-serif" '
            f'font-size="13">{"".join(rows)}</svg></section>'
        )
    head = "".join(f"<th>{html.escape(m)}</th>" for m in report.metric_names())
    body = ""
    for config in report.configs:
        cells = ""
        for metric in report.metric_names():
            test = config.significance.get(metric)
            p_cell = (
                f"<br><small>{p_label(test.p_randomization)} · t-test "
                f"{p_label(test.p_t_test)}</small>"
                if test
                else ""
            )
            cells += f"<td>{config.metrics.get(metric, 0.0):.4f}{p_cell}</td>"
        body += f"<tr><td>{html.escape(config.name)}</td>{cells}</tr>"
    method = report.significance
    legend = (
        f"<p>p-values: {html.escape(method.test)} against "
        f"<b>{html.escape(method.baseline or '')}</b> over the same queries "
        f"({method.permutations:,} permutations, seed {method.seed}). A small p says the "
        "difference is unlikely to be chance on these queries; it says nothing of its size.</p>"
        if method and len(report.configs) > 1
        else ""
    )
    warnings = "".join(f"<li>{html.escape(w)}</li>" for w in report.warnings)
    judged = report.configs[0].queries if report.configs else 0
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>osrag evaluation</title>"
        "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
        "table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:first-child{text-align:left}section{margin:1.5em 0}</style></head><body>"
        f"<h1>osrag evaluation</h1><p>{html.escape(report.queries_file)} — {judged} judged "
        f"queries, k = {', '.join(map(str, report.ks))}, depth {report.depth} documents</p>"
        + (f"<ul>{warnings}</ul>" if warnings else "")
        + f"<table><tr><th>configuration</th>{head}</tr>{body}</table>{legend}"
        f"{''.join(sections)}</body></html>"
    )
