"""Labelled queries → recall@k, precision@k, MRR, nDCG@k, MAP and amount precision.

"The bug persisted for two weeks because nobody measured." This module makes
measuring one call, side by side across configurations, on the same corpus and
queries in the same run.

Definitions (document level; chunk hits are mapped to their ``doc_id`` and the
first occurrence keeps the rank — the trec_eval conventions, checked against
pytrec_eval in the tests):

* ``recall@k`` = relevant documents in the top k / relevant documents;
* ``precision@k`` = relevant documents in the top k / k (k, not hits returned);
* ``mrr`` = 1 / rank of the first relevant document (0 if none is returned);
* ``ndcg@k`` = DCG@k / ideal DCG@k with linear gains (the grade) and
  ``log2(rank + 1)`` discounts;
* ``map`` = mean over queries of average precision over the whole returned list;
* ``amount_precision@k`` = for queries stating one amount, the share of the
  top-k documents that contain that amount anywhere (judged from the index's
  integer ``amounts``/``money`` fields, not from relevance labels).

Queries without any relevant document are left out of the means (and counted).
"""

from __future__ import annotations

import csv
import html
import itertools
import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from osrag.errors import ConfigError

# --------------------------------------------------------------------------- query sets


class LabelledQuery(BaseModel):
    id: str
    query: str
    relevant: dict[str, int] = Field(default_factory=dict)
    """Document id → grade (> 0 is relevant)."""
    tenant: str | None = None
    acl: list[str] | None = None
    note: str | None = None


def _grades(raw: Any, where: str) -> dict[str, int]:
    if raw is None:
        return {}
    if isinstance(raw, list):
        return {str(doc): 1 for doc in raw}
    if isinstance(raw, dict):
        try:
            return {str(doc): int(grade) for doc, grade in raw.items()}
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where}: grades in `relevant` must be integers") from exc
    raise ConfigError(f"{where}: `relevant` must be a list of doc ids or an object of grades")


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR ``qrels.tsv`` (header ``query-id corpus-id score``) or TREC ``qid 0 doc grade``."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            parts = line.split()
            if not parts or (line_no == 1 and not parts[-1].lstrip("-").isdigit()):
                continue  # blank line or a header
            if len(parts) == 4 and not parts[2].lstrip("-").isdigit():
                qid, _iteration, doc, grade = parts  # TREC: qid iter docno rel
            elif len(parts) >= 3:
                qid, doc, grade = parts[0], parts[1], parts[2]
                if len(parts) == 4 and parts[1] == "0":
                    qid, doc, grade = parts[0], parts[2], parts[3]
            else:
                raise ConfigError(f"{path}:{line_no}: expected `query-id corpus-id score`")
            try:
                qrels.setdefault(qid, {})[doc] = int(grade)
            except ValueError as exc:
                raise ConfigError(f"{path}:{line_no}: score {grade!r} is not an integer") from exc
    return qrels


def read_queries(path: Path, qrels_path: Path | None = None) -> list[LabelledQuery]:
    """JSON Lines ``{"id", "query", "relevant"}`` or BEIR ``{"_id", "text"}`` + qrels."""
    qrels = read_qrels(qrels_path) if qrels_path else None
    queries: list[LabelledQuery] = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{line_no}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{where}: not JSON ({exc.msg})") from exc
            if not isinstance(record, dict):
                raise ConfigError(f"{where}: each line must be a JSON object")
            qid = record.get("id", record.get("_id"))
            text = record.get("query", record.get("text"))
            if qid is None or not isinstance(text, str):
                raise ConfigError(f"{where}: needs `id` (or `_id`) and `query` (or `text`)")
            relevant = (
                qrels.get(str(qid), {})
                if qrels is not None
                else _grades(record.get("relevant"), where)
            )
            queries.append(
                LabelledQuery(
                    id=str(qid),
                    query=text,
                    relevant=relevant,
                    tenant=record.get("tenant"),
                    acl=record.get("acl"),
                    note=record.get("note"),
                )
            )
    if not queries:
        raise ConfigError(f"{path}: no queries")
    return queries


# --------------------------------------------------------------------------- metrics


def dedupe_docs(doc_ids: Iterable[str]) -> list[str]:
    """Chunk hits → document ranking: the first occurrence keeps the rank."""
    seen: dict[str, None] = {}
    for doc in doc_ids:
        seen.setdefault(doc, None)
    return list(seen)


def recall_at(ranking: Sequence[str], grades: dict[str, int], k: int) -> float:
    relevant = {d for d, g in grades.items() if g > 0}
    return len(relevant.intersection(ranking[:k])) / len(relevant) if relevant else 0.0


def precision_at(ranking: Sequence[str], grades: dict[str, int], k: int) -> float:
    return sum(1 for d in ranking[:k] if grades.get(d, 0) > 0) / k


def reciprocal_rank(ranking: Sequence[str], grades: dict[str, int]) -> float:
    for rank, doc in enumerate(ranking, 1):
        if grades.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranking: Sequence[str], grades: dict[str, int], k: int) -> float:
    dcg = sum(max(grades.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def average_precision(ranking: Sequence[str], grades: dict[str, int]) -> float:
    relevant = sum(1 for g in grades.values() if g > 0)
    if not relevant:
        return 0.0
    found, total = 0, 0.0
    for rank, doc in enumerate(ranking, 1):
        if grades.get(doc, 0) > 0:
            found += 1
            total += found / rank
    return total / relevant


def query_metrics(
    ranking: Sequence[str], grades: dict[str, int], ks: Sequence[int]
) -> dict[str, float]:
    metrics: dict[str, float] = {}
    for k in ks:
        metrics[f"recall@{k}"] = recall_at(ranking, grades, k)
        metrics[f"precision@{k}"] = precision_at(ranking, grades, k)
        metrics[f"ndcg@{k}"] = ndcg_at(ranking, grades, k)
    metrics["mrr"] = reciprocal_rank(ranking, grades)
    metrics["map"] = average_precision(ranking, grades)
    return metrics


def mean_metrics(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    if not per_query:
        return {}
    keys = per_query[0].keys()
    return {key: round(statistics.fmean(m[key] for m in per_query if key in m), 4) for key in keys}


def span_recall_at(
    hits: Sequence[tuple[str, int, int]], relevant_spans: Sequence[tuple[str, int, int]], k: int
) -> float:
    """Share of judged spans ``(doc, start, end)`` overlapped by a top-k chunk span."""
    if not relevant_spans:
        return 0.0
    top = hits[:k]
    covered = sum(
        1
        for doc, start, end in relevant_spans
        if any(h_doc == doc and h_start < end and start < h_end for h_doc, h_start, h_end in top)
    )
    return covered / len(relevant_spans)


# --------------------------------------------------------------------------- configurations

INDEX_KEYS = {
    "strategy",
    "size",
    "overlap",
    "max_tokens",
    "min_tokens",
    "tokenizer",
    "overlap_sentences",
    "oversize",
    "analyzer",
    "canonical_tokens",
}
QUERY_KEYS = {
    "amount_filter",
    "keep_amount_text",
    "ambiguous_amount_boost",
    "operator",
    "minimum_should_match",
    "breadcrumb_boost",
    "title_boost",
}
BOOLEAN_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}


@dataclass
class EvalConfig:
    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def index_params(self) -> dict[str, Any]:
        return {k: v for k, v in self.params.items() if k in INDEX_KEYS}

    @property
    def query_params(self) -> dict[str, Any]:
        return {k: v for k, v in self.params.items() if k in QUERY_KEYS}


def _value(key: str, raw: str) -> Any:
    if key not in INDEX_KEYS | QUERY_KEYS:
        known = ", ".join(sorted(INDEX_KEYS | QUERY_KEYS))
        raise ConfigError(f"unknown comparison key {key!r} (known: {known})")
    if key in {"amount_filter", "keep_amount_text", "canonical_tokens"}:
        if raw.lower() not in BOOLEAN_WORDS:
            raise ConfigError(f"{key}={raw}: expected on or off")
        return BOOLEAN_WORDS[raw.lower()]
    if key in {"size", "overlap", "max_tokens", "min_tokens", "overlap_sentences"}:
        try:
            return int(raw)
        except ValueError as exc:
            raise ConfigError(f"{key}={raw}: expected an integer") from exc
    if key in {"breadcrumb_boost", "title_boost", "ambiguous_amount_boost"}:
        try:
            return float(raw)
        except ValueError as exc:
            raise ConfigError(f"{key}={raw}: expected a number") from exc
    return raw


def _label(params: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        return ("on" if v else "off") if isinstance(v, bool) else str(v)

    return " ".join(f"{k}={show(v)}" for k, v in params.items()) or "current"


def parse_compare(specs: Sequence[str]) -> list[EvalConfig]:
    """``["strategy=fixed,structural", "amount_filter=on,off"]`` → their cartesian product."""
    axes: list[tuple[str, list[Any]]] = []
    for spec in specs:
        key, sep, values = spec.partition("=")
        if not sep or not values:
            raise ConfigError(f"--compare {spec!r}: expected KEY=V1,V2")
        axes.append((key.strip(), [_value(key.strip(), v.strip()) for v in values.split(",")]))
    if not axes:
        return [EvalConfig("current")]
    configs = []
    for combo in itertools.product(*(values for _key, values in axes)):
        params = dict(zip((key for key, _v in axes), combo, strict=True))
        configs.append(EvalConfig(_label(params), params))
    return configs


def baseline_configs() -> list[EvalConfig]:
    """The lesson in three columns: plain BM25, string canonicalisation, the amount filter."""
    return [
        EvalConfig("bm25", {"amount_filter": False}),
        EvalConfig("canonical-tokens", {"canonical_tokens": True, "amount_filter": False}),
        EvalConfig("amount-filter", {"amount_filter": True}),
    ]


BASELINE_LEGEND = {
    "bm25": "plain BM25 on the text; amounts are just words",
    "canonical-tokens": "the reference's fix: money:<cents> tokens in the searched text "
    "(an evaluation baseline only)",
    "amount-filter": "osrag: one stated amount is a term filter on the integer amounts field",
}


# --------------------------------------------------------------------------- reports


class ConfigReport(BaseModel):
    name: str
    params: dict[str, Any]
    metrics: dict[str, float]
    subsets: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="the same means over queries that state one amount, and over the others",
    )
    queries: int = 0
    skipped_queries: int = 0
    amount_queries: int = 0
    fallbacks: int = 0
    generation: str | None = None
    per_query: dict[str, dict[str, float]] = Field(default_factory=dict)
    rankings: dict[str, list[str]] = Field(default_factory=dict)


class EvalReport(BaseModel):
    queries_file: str
    ks: list[int]
    configs: list[ConfigReport]

    def metric_names(self) -> list[str]:
        names: list[str] = []
        for config in self.configs:
            for name in config.metrics:
                if name not in names:
                    names.append(name)
        return names


def render_html(report: EvalReport) -> str:
    """A self-contained page: one horizontal bar chart (inline SVG) per metric."""
    palette = [
        "#4e79a7",
        "#f28e2b",
        "#e15759",
        "#76b7b2",
        "#59a14f",
        "#edc948",
        "#b07aa1",
        "#ff9da7",
    ]
    sections = []
    for metric in report.metric_names():
        rows = []
        bar_h, gap, label_w, width = 22, 8, 300, 360
        for i, config in enumerate(report.configs):
            value = config.metrics.get(metric, 0.0)
            y = i * (bar_h + gap)
            colour = palette[i % len(palette)]
            rows.append(
                f'<text x="{label_w - 8}" y="{y + bar_h * 0.7:.1f}" text-anchor="end">'
                f"{html.escape(config.name)}</text>"
                f'<rect x="{label_w}" y="{y}" width="{max(value, 0) * width:.1f}" height="{bar_h}" '
                f'fill="{colour}"><title>{html.escape(config.name)}: {value:.4f}</title></rect>'
                f'<text x="{label_w + max(value, 0) * width + 6:.1f}" y="{y + bar_h * 0.7:.1f}">'
                f"{value:.3f}</text>"
            )
        height = len(report.configs) * (bar_h + gap)
        sections.append(
            f"<section><h2>{html.escape(metric)}</h2>"
            f'<svg width="{label_w + width + 60}" height="{height}" font-family="sans-serif" '
            f'font-size="13">{"".join(rows)}</svg></section>'
        )
    table_head = "".join(f"<th>{html.escape(m)}</th>" for m in report.metric_names())
    table_rows = "".join(
        f"<tr><td>{html.escape(c.name)}</td>"
        + "".join(f"<td>{c.metrics.get(m, 0.0):.4f}</td>" for m in report.metric_names())
        + "</tr>"
        for c in report.configs
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>osrag evaluation</title>"
        "<style>body{font-family:sans-serif;margin:2em;max-width:1000px}"
        "table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:first-child{text-align:left}section{margin:1.5em 0}</style></head><body>"
        f"<h1>osrag evaluation</h1><p>{html.escape(report.queries_file)} — "
        f"{report.configs[0].queries if report.configs else 0} judged queries, k = "
        f"{', '.join(map(str, report.ks))}</p>"
        f"<table><tr><th>configuration</th>{table_head}</tr>{table_rows}</table>"
        f"{''.join(sections)}</body></html>"
    )


def write_trec_run(path: Path, report: ConfigReport) -> None:
    """The rankings in TREC run format, for checking with trec_eval itself."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter=" ")
        for qid, docs in report.rankings.items():
            for rank, doc in enumerate(docs, 1):
                writer.writerow(
                    [qid, "Q0", doc, rank, len(docs) - rank + 1, report.name.replace(" ", "_")]
                )


# --------------------------------------------------------------------------- running


def _means(per_query: Sequence[dict[str, float]], ks: Sequence[int]) -> dict[str, float]:
    """Means over queries; amount precision over the queries that state one amount."""
    plain = [
        {k: v for k, v in m.items() if not k.startswith("amount_precision")} for m in per_query
    ]
    means = mean_metrics(plain)
    for k in ks:
        values = [m[f"amount_precision@{k}"] for m in per_query if f"amount_precision@{k}" in m]
        if values:
            means[f"amount_precision@{k}"] = round(statistics.fmean(values), 4)
    return means


def documents_matching(index: Any, target: str, clauses: Sequence[dict[str, Any]]) -> set[str]:
    """Ids of the documents with at least one chunk passing every clause (one per document:
    ``collapse`` on ``doc_id``)."""
    body = {
        "size": 10_000,
        "query": {"bool": {"filter": list(clauses)}},
        "_source": ["doc_id"],
        "collapse": {"field": "doc_id"},
    }
    (answer,) = index.msearch(target, [body])
    return {hit["_source"]["doc_id"] for hit in answer["hits"]["hits"]}


def run_evaluation(
    queries: Sequence[LabelledQuery],
    backend: Any,
    *,
    alias: str,
    configs: Sequence[EvalConfig],
    ks: Sequence[int] = (5, 10),
    corpus: Path | None = None,
    base: Any = None,
    depth: int = 100,
    queries_file: str = "",
    progress: Any = None,
) -> EvalReport:
    """Run every query under every configuration and compute the metrics side by side.

    Configurations that change the index (strategy, sizes, tokenizer, analyzer,
    canonical tokens) are built as temporary generations under a temporary alias
    from ``corpus`` and dropped afterwards; the others run on ``alias``.
    """
    import uuid

    from osrag.extract import analyze_query, canonicalize_money
    from osrag.generations import purge
    from osrag.index import IngestOptions, ingest
    from osrag.query import amount_clause
    from osrag.search import Searcher

    base = base or IngestOptions(alias=alias)
    if any(c.index_params for c in configs) and corpus is None:
        raise ConfigError("these comparisons change the index: pass --corpus PATH to build them")
    groups: dict[str, list[EvalConfig]] = {}
    for config in configs:
        groups.setdefault(json.dumps(config.index_params, sort_keys=True), []).append(config)

    reports: list[ConfigReport] = []
    for key, members in groups.items():
        index_params = json.loads(key)
        temporary = corpus is not None
        target = f"{alias}-eval-{uuid.uuid4().hex[:8]}" if temporary else alias
        try:
            if corpus is not None:
                chunking = base.chunking.model_copy(
                    update={
                        k: v
                        for k, v in index_params.items()
                        if k in type(base.chunking).model_fields
                    }
                )
                options = IngestOptions(
                    alias=target,
                    chunking=chunking,
                    extraction=base.extraction,
                    analyzer=index_params.get("analyzer", base.analyzer),
                    canonical_tokens=bool(index_params.get("canonical_tokens", False)),
                    keep=1,
                )
                if progress:
                    progress(f"building {target} for {_label(index_params)}")
                ingest(corpus, backend, options)
            searcher = Searcher(backend, target, extraction=base.extraction, enforce_access=False)
            amount_docs: dict[str, set[str]] = {}
            for config in members:
                canonical = bool(config.index_params.get("canonical_tokens", False))
                per_query: dict[str, dict[str, float]] = {}
                rankings: dict[str, list[str]] = {}
                skipped = fallbacks = amount_queries = 0
                for q in queries:
                    if not any(g > 0 for g in q.relevant.values()):
                        skipped += 1
                        continue
                    text = canonicalize_money(q.query) if canonical else q.query
                    params = dict(config.query_params)
                    result = searcher.search(
                        text,
                        size=depth,
                        tenant=q.tenant,
                        acl=q.acl,
                        highlight=False,
                        source_fields=[],
                        **params,
                    )

                    fallbacks += int(result.fallback)
                    ranking = dedupe_docs(h.doc_id for h in result.hits)
                    rankings[q.id] = ranking
                    metrics = query_metrics(ranking, q.relevant, ks)
                    stated = analyze_query(q.query, base.extraction).amount
                    if stated is not None:
                        amount_queries += 1
                        clause = amount_clause(stated, base.extraction.default_currency)
                        cache_key = json.dumps(clause, sort_keys=True)
                        if cache_key not in amount_docs:
                            amount_docs[cache_key] = documents_matching(backend, target, [clause])
                        holders = amount_docs[cache_key]
                        for k in ks:
                            top = ranking[:k]
                            metrics[f"amount_precision@{k}"] = (
                                sum(1 for d in top if d in holders) / len(top) if top else 0.0
                            )
                    per_query[q.id] = metrics
                overall = _means(list(per_query.values()), ks)
                one = [m for m in per_query.values() if f"amount_precision@{ks[0]}" in m]
                rest = [m for m in per_query.values() if f"amount_precision@{ks[0]}" not in m]
                subsets = {"one amount": _means(one, ks), "no single amount": mean_metrics(rest)}
                reports.append(
                    ConfigReport(
                        name=config.name,
                        params=config.params,
                        metrics=overall,
                        subsets=subsets,
                        queries=len(per_query),
                        skipped_queries=skipped,
                        amount_queries=amount_queries,
                        fallbacks=fallbacks,
                        generation=backend.alias_target(target),
                        per_query=per_query,
                        rankings=rankings,
                    )
                )
        finally:
            if temporary:
                purge(backend, target)
    order = {c.name: i for i, c in enumerate(configs)}
    reports.sort(key=lambda r: order.get(r.name, 0))
    return EvalReport(queries_file=queries_file, ks=list(ks), configs=reports)
