"""One configuration's queries, run through the Searcher and judged.

Each query asks for ``depth`` documents (:func:`_documents`: one hit per document), or
ranked chunks until ``depth`` documents are covered (:func:`_chunks`); a query the search
refuses returns nothing and says why. Then every metric of it: trec_eval's, quantity
precision against its holder gold, span metrics, and what the amount filter did
(:mod:`osrag.evaluation.filtering`: filter agreement, selectivity), gathered per
configuration into a :class:`~osrag.evaluation.report.ConfigReport`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from osrag.errors import QueryError
from osrag.evaluation.configs import EvalConfig
from osrag.evaluation.filtering import MAX_HITS, IndexSize, filter_agreement, selectivity
from osrag.evaluation.inputs import LabelledQuery
from osrag.evaluation.metrics import mean_metrics, query_metrics
from osrag.evaluation.quantity import (
    HolderGold,
    Selectivity,
    count_steps,
    fallback_step,
    quantity_metrics,
    summarise,
    unjudged_in_top,
)
from osrag.evaluation.report import ConfigReport
from osrag.evaluation.runs import Run, RunHit, ranking
from osrag.evaluation.spans import SpanJudgment, span_metrics
from osrag.models import SearchResult


def _run_hits(result: SearchResult) -> list[RunHit]:
    return [
        RunHit(h.chunk_id, h.doc_id, float(h.score or 0.0), h.span.start, h.span.end)
        for h in result.hits
    ]


def _documents(
    searcher: Any, text: str, depth: int, params: dict[str, Any]
) -> tuple[list[RunHit], bool, SearchResult]:
    """The best hit of each of the first ``depth`` documents; (hits, filled, the result)."""
    result = searcher.search(
        text, k=depth, collapse=True, highlight=False, source_fields=[], **params
    )
    return _run_hits(result), True, result


def _chunks(
    searcher: Any, text: str, depth: int, params: dict[str, Any]
) -> tuple[list[RunHit], bool, SearchResult]:
    """Ranked chunks until ``depth`` documents are covered; (hits, filled, last result) —
    not filled when 10,000 hits did not cover them and more matched."""
    size = min(MAX_HITS, 2 * depth + 10)
    while True:
        result = searcher.search(text, k=size, highlight=False, source_fields=[], **params)
        hits = _run_hits(result)
        seen: set[str] = set()
        for i, hit in enumerate(hits):
            seen.add(hit.doc_id)
            if len(seen) > depth:
                return hits[:i], True, result
        if len(hits) < size or result.total_hits <= size:
            return hits, True, result
        if size >= MAX_HITS:
            return hits, False, result
        size = min(MAX_HITS, size * 4)


@dataclass
class _Tally:
    """What one configuration's queries gave, gathered query by query."""

    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    run: Run = field(default_factory=dict)
    skipped: int = 0
    fallbacks: int = 0
    text_fallbacks: int = 0
    empty: int = 0
    amount_queries: int = 0
    span_queries: int = 0
    unheld: int = 0
    without_gold: int = 0
    unjudged_skipped: int = 0
    comparative: set[str] = field(default_factory=set)
    with_gold: set[str] = field(default_factory=set)
    steps: list[str | None] = field(default_factory=list)
    selectivity: dict[str, Selectivity] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    refused_analysis: set[str] = field(default_factory=set)
    """Queries stating what the query analysis refuses (in no amount subset)."""

    def subsets(self) -> dict[str, dict[str, float]]:
        def agrees(m: dict[str, float]) -> bool:
            return any(n.startswith("filter_agreement") for n in m)

        items = self.per_query.items()
        return {
            "holder gold": mean_metrics([m for q, m in items if q in self.with_gold]),
            "amount constraints": mean_metrics([m for m in self.per_query.values() if agrees(m)]),
            "no amount constraint": mean_metrics(
                [m for q, m in items if q not in self.refused_analysis and not agrees(m)]
            ),
            "comparative constraints": mean_metrics([m for q, m in items if q in self.comparative]),
        }

    def report(self, config: EvalConfig, size: IndexSize) -> ConfigReport:
        shares = self.selectivity.values()
        capped = sum(1 for s in shares if s.documents * size.documents >= MAX_HITS)
        return ConfigReport(
            name=config.name,
            params=config.params,
            metrics=mean_metrics(list(self.per_query.values())),
            subsets=self.subsets(),
            queries=len(self.per_query),
            skipped_queries=self.skipped,
            quantity_queries=len(self.with_gold),
            quantity_queries_without_gold=self.without_gold,
            unjudged_skipped=self.unjudged_skipped,
            amount_queries=self.amount_queries,
            amount_queries_unheld=self.unheld,
            span_queries=self.span_queries,
            fallbacks=self.fallbacks,
            fallback_steps=count_steps(self.steps),
            text_fallbacks=self.text_fallbacks,
            empty_results=self.empty,
            refused=self.refused,
            selectivity=self.selectivity,
            selectivity_summary=summarise(self.selectivity, capped=capped),
            per_query=self.per_query,
            run=self.run,
        )


class _Context(NamedTuple):
    """What every query of one configuration is run and judged with."""

    searcher: Any
    params: dict[str, Any]
    canonical: bool
    ks: Sequence[int]
    depth: int
    span_qrels: dict[str, list[SpanJudgment]]
    chunk_run: bool
    extraction: Any
    amount_cache: dict[str, set[str]]
    size: IndexSize
    short: list[str]


def _fetch(q: LabelledQuery, c: _Context, tally: _Tally) -> tuple[list[RunHit], Any]:
    """The query's hits and last result (None when the search refused it)."""
    from osrag.extract import canonicalize_money

    text = canonicalize_money(q.query) if c.canonical else q.query
    overrides = {**c.params, "tenant": q.tenant, "acl": q.acl}
    # collapse is a bm25-mode request: vector and hybrid rank chunks, deduplicated here
    mode = c.params.get("mode") or c.searcher.default_mode()
    by_chunks = c.chunk_run or q.id in c.span_qrels or mode != "bm25"
    fetch = _chunks if by_chunks else _documents
    try:
        hits, filled, last = fetch(c.searcher, text, c.depth, overrides)
    except QueryError as exc:  # e.g. a range in a currency the index cannot compare
        tally.refused[q.id] = str(exc)
        return [], None
    if not filled:
        c.short.append(q.id)
    tally.fallbacks += int(last.fallback)
    tally.steps.append(fallback_step(last))
    tally.text_fallbacks += int(last.text_fallback)
    return hits, last


def _judge(q: LabelledQuery, hits: list[RunHit], last: Any, c: _Context, tally: _Tally) -> None:
    """Every metric of one query into ``tally``."""
    tally.empty += int(not hits)
    tally.run[q.id] = hits
    ranked = ranking(hits)
    metrics = query_metrics(ranked, q.relevant, c.ks)
    gold = HolderGold.of(q.holders or (), q.unjudged)
    if gold.holders:
        tally.with_gold.add(q.id)
        metrics |= quantity_metrics(ranked, gold, c.ks)
        tally.unjudged_skipped += unjudged_in_top(ranked, gold, max(c.ks))
    else:
        tally.without_gold += 1
    spans = c.span_qrels.get(q.id)
    if spans:
        tally.span_queries += 1
        metrics |= span_metrics([(h.doc_id, h.start, h.end) for h in hits], spans, c.ks)
    kind, agreement = "refused", dict[str, float]()
    if last is not None:
        share = selectivity(last, c.searcher, c.size, c.amount_cache)
        if share is not None:
            tally.selectivity[q.id] = share
        with contextlib.suppress(QueryError):  # the analysis refuses what the search did
            kind, agreement = filter_agreement(
                q.query, hits, c.searcher, c.extraction, c.amount_cache, c.ks
            )
    if kind == "refused":
        tally.refused_analysis.add(q.id)
    tally.unheld += int(kind == "unheld")
    tally.amount_queries += int(kind in ("exact", "comparative"))
    if kind == "comparative":
        tally.comparative.add(q.id)
    tally.per_query[q.id] = metrics | agreement


def config_report(
    config: EvalConfig,
    queries: Sequence[LabelledQuery],
    searcher: Any,
    *,
    ks: Sequence[int],
    depth: int,
    span_qrels: dict[str, list[SpanJudgment]],
    chunk_run: bool,
    extraction: Any,
    amount_cache: dict[str, set[str]],
    index_size: IndexSize,
    short: list[str],
) -> ConfigReport:
    context = _Context(
        searcher,
        dict(config.query_params),
        bool(config.index_params.get("canonical_tokens", False)),
        ks,
        depth,
        span_qrels,
        chunk_run,
        extraction,
        amount_cache,
        index_size,
        short,
    )
    tally = _Tally()
    for q in queries:
        if not q.judged:
            tally.skipped += 1
            continue
        hits, last = _fetch(q, context, tally)
        _judge(q, hits, last, context, tally)
    return tally.report(config, index_size)
