"""Evidence recall at a budget, measured: the queries with span judgments through the
Searcher, plain hits against each expansion, at each budget (:mod:`.evidence` has the rule).

For every query with judged spans, on the alias as it is (the operator's view, each query
in its own tenant and groups when it names them):

* ``plain`` — one search of ``plain_k`` hits; the reader is shown as many of them as each
  budget holds (the last one cut), the baseline a retrieval service without passages has;
* ``plain-k`` — the same, from the first ``k`` hits only: what the expansions start from;
* each context kind — one search of ``k`` hits with that context at that budget: the
  passages (the one extra request included).

Every shown text is counted by the same tokenizer (the request's, else the generation's
embedder's, else its chunks'). The means are over the queries with judged spans, and over
each query set ``note`` (the TAT-QA conversion writes ``text`` or ``table``: where the
answer is written).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from osrag.evaluation.evidence import (
    evidence_found,
    evidence_recall,
    hit_record,
    passages_shown,
    plain_shown,
)
from osrag.evaluation.inputs import LabelledQuery
from osrag.evaluation.spans import SpanJudgment
from osrag.schema.passages import ContextRequest
from osrag.search.passages.expand import budget_tokenizer
from osrag.search.passages.records import CONTEXT_FIELDS

PLAIN = ("plain", "plain-k")
Progress = Callable[[str], None]


class EvidenceReport(BaseModel):
    """Evidence recall by what was shown (plain, plain-k, each kind) and budget."""

    budgets: list[int]
    kinds: list[str] = Field(description="plain, plain-k, then the context kinds")
    k: int = Field(description="hits the expansions (and plain-k) start from")
    plain_k: int = Field(description="hits plain hits are drawn from")
    tokenizer: str = Field(description="name@version of the tokenizer every budget counts in")
    queries: int = 0
    recall: dict[str, dict[int, float]] = Field(
        default_factory=dict, description="kind → budget → evidence recall"
    )
    subsets: dict[str, dict[str, dict[int, float]]] = Field(
        default_factory=dict, description="query note (text, table) → kind → budget → recall"
    )
    tokens: dict[str, dict[int, float]] = Field(
        default_factory=dict, description="kind → budget → mean tokens shown"
    )
    per_query: dict[str, dict[str, bool]] = Field(
        default_factory=dict, description="query id → 'kind@budget' → evidence found"
    )


def run_evidence(
    queries: Sequence[LabelledQuery],
    searcher: Any,
    span_qrels: dict[str, list[SpanJudgment]],
    *,
    kinds: Sequence[str] = ("neighbours", "section", "table"),
    budgets: Sequence[int] = (512, 1024),
    k: int = 3,
    plain_k: int = 50,
    tokenizer: str | None = None,
    progress: Progress | None = None,
) -> EvidenceReport:
    """Evidence recall of every query with judged spans (module docstring)."""
    generation = searcher.generation()
    counter = budget_tokenizer(
        ContextRequest(tokenizer=tokenizer), generation.config if generation else None
    )
    judged = [q for q in queries if any(j.grade > 0 for j in span_qrels.get(q.id, []))]
    report = EvidenceReport(
        budgets=sorted(set(budgets)),
        kinds=[*PLAIN, *kinds],
        k=k,
        plain_k=plain_k,
        tokenizer=counter.id,
        queries=len(judged),
    )
    shown_tokens: dict[str, list[int]] = {}
    for number, query in enumerate(judged):
        if progress and number % 100 == 0:
            progress(f"evidence: query {number + 1} of {len(judged)}")
        scope = {"tenant": query.tenant, "acl": query.acl}
        found = _plain(searcher, query, span_qrels[query.id], report, counter, scope, shown_tokens)
        for kind in kinds:
            for budget in report.budgets:
                request = ContextRequest(kind=kind, budget=budget, tokenizer=counter.id)  # type: ignore[arg-type]
                result = searcher.search(
                    query.query, k=k, highlight=False, context=request, **scope
                )
                key = f"{kind}@{budget}"
                found[key] = evidence_found(span_qrels[query.id], passages_shown(result.passages))
                shown_tokens.setdefault(key, []).append(
                    result.context.tokens if result.context else 0
                )
        report.per_query[query.id] = found
    _means(report, judged, shown_tokens)
    return report


def _plain(
    searcher: Any,
    query: LabelledQuery,
    judged: list[SpanJudgment],
    report: EvidenceReport,
    counter: Any,
    scope: dict[str, Any],
    shown_tokens: dict[str, list[int]],
) -> dict[str, bool]:
    """``plain`` and ``plain-k`` at every budget, from one search."""
    result = searcher.search(
        query.query,
        k=report.plain_k,
        highlight=False,
        source_fields=list(CONTEXT_FIELDS),
        **scope,
    )
    records = [hit_record(h) for h in result.hits]
    found: dict[str, bool] = {}
    for kind, drawn in (("plain", records), ("plain-k", records[: report.k])):
        for budget in report.budgets:
            shown = plain_shown(drawn, budget, counter)
            found[f"{kind}@{budget}"] = evidence_found(judged, shown)
            used = sum(counter.count(s.text) for s in shown)
            shown_tokens.setdefault(f"{kind}@{budget}", []).append(used)
    return found


def _means(
    report: EvidenceReport, judged: list[LabelledQuery], shown_tokens: dict[str, list[int]]
) -> None:
    notes = sorted({q.note for q in judged if q.note})
    for kind in report.kinds:
        for budget in report.budgets:
            key = f"{kind}@{budget}"
            values = {qid: found[key] for qid, found in report.per_query.items()}
            report.recall.setdefault(kind, {})[budget] = round(evidence_recall(values), 4)
            spent = shown_tokens.get(key, [])
            report.tokens.setdefault(kind, {})[budget] = (
                round(sum(spent) / len(spent), 1) if spent else 0.0
            )
            for note in notes:
                ids = {q.id for q in judged if q.note == note}
                part = {qid: v for qid, v in values.items() if qid in ids}
                report.subsets.setdefault(note, {}).setdefault(kind, {})[budget] = round(
                    evidence_recall(part), 4
                )
