"""A search's answer as the caller sees it: engine hits become :class:`SearchHit` s
(validated from the fields a hit has, each listing the higher-ranked hits of its
document it overlaps), the unique source spans among them are counted, and the
:class:`SearchResult` says which filters applied, what fell back and how many
candidates there were — logged at INFO on ``osrag.search.searcher``."""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, NamedTuple

from pydantic import TypeAdapter

from osrag.engines.rest.compiler import compile_filter
from osrag.models import AmountStep, AppliedFilter, LabelMatches, SearchHit, SearchResult
from osrag.schema.filters import AmountFilter, NamedFilter
from osrag.schema.plan import EngineHit
from osrag.search.ladder import Ladder
from osrag.search.query import AnalyzedQuery

log = logging.getLogger("osrag.search.searcher")


class Ran(NamedTuple):
    """What one round trip found: hits (fused where the client fuses), total hits,
    candidates, how it fused, the subject it was cut by."""

    hits: list[EngineHit]
    total: int
    candidates: int
    fused: str | None
    subject: tuple[str, ...] = ()
    """The question's subject words the hits were cut by (:mod:`osrag.search.subject`)."""
    unsaid: bool = False
    """No hit says a word of the subject (:func:`~osrag.search.subject.subject_cut`; no hit at
    all, where the words matched none of the candidates, says none either;
    :data:`~osrag.search.ladder.UNSAID_STEPS`)."""


class EmbedderLoad(NamedTuple):
    """Making and loading the query embedder's model, done once per searcher."""

    started: float
    """When it began (``time.perf_counter()``)."""
    ms: float
    note: str | None
    """The embedder's own line about it (a graph built and stored), if any."""


def count_unique_spans(hits: list[SearchHit]) -> int:
    """Merged, non-overlapping source intervals among the hits (per document).

    Intervals are half-open: ``[0, 10)`` and ``[10, 20)`` touch but do not overlap,
    so they are two spans; ``[0, 10)`` and ``[5, 20)`` are one."""
    by_doc: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    for hit in hits:
        by_doc[hit.doc_id].append((hit.chunk_id, hit.span.start, hit.span.end))
    return _unique_spans(by_doc.values())


def _unique_spans(per_document: Iterable[list[tuple[str, int, int]]]) -> int:
    total = 0
    for spans in per_document:
        if len(spans) == 1:
            total += 1
            continue
        end = -1
        for _chunk_id, start, stop in sorted(spans, key=lambda s: (s[1], s[2])):
            if start >= end:
                total += 1
                end = stop
            else:
                end = max(end, stop)
    return total


_HITS: TypeAdapter[list[SearchHit]] = TypeAdapter(list[SearchHit])
_NO_SPAN = {"start": 0, "end": 0}
_HIT_FIELDS = tuple(SearchHit.model_fields)
"""The stored fields a hit shows (the rest of ``_source`` is left out unvalidated)."""


def _hits(raw_hits: Iterable[EngineHit]) -> tuple[list[SearchHit], int]:
    """Engine hits → :class:`SearchHit` s, validated in one call (a page at depth 1,000 is
    1,000 hits: one validation of a list costs about half of 1,000 model constructions).
    Each hit lists the higher-ranked hits of its own document whose spans overlap it; the
    number of unique spans (:func:`count_unique_spans`) comes with them."""
    rows: list[dict[str, Any]] = []
    seen: dict[str, list[tuple[str, int, int]]] = {}
    for raw in raw_hits:
        source = raw.source
        row = {name: source[name] for name in _HIT_FIELDS if name in source}
        row["chunk_id"], row["doc_id"] = raw.chunk_id, raw.doc_id
        span = row.setdefault("span", _NO_SPAN)
        start, end = span["start"], span["end"]
        chunk_id, doc_id = raw.chunk_id, raw.doc_id
        row["score"] = raw.score
        if raw.highlight:
            row["highlight"] = list(raw.highlight)
        for name in ("amounts", "money", "pages"):
            if name in row and row[name] is None:
                del row[name]
        earlier = seen.get(doc_id)
        if earlier is None:
            seen[doc_id] = [(chunk_id, start, end)]
        else:
            row["overlaps"] = [c for c, s, e in earlier if s < end and start < e]
            earlier.append((chunk_id, start, end))
        rows.append(row)
    return _HITS.validate_python(rows), _unique_spans(seen.values())


def applied_filters(
    query: AnalyzedQuery, *, drop_amount: bool = False, step: AmountStep | None = None
) -> list[AppliedFilter]:
    """The filters a search applied (at ``step`` of the amount ladder), as its result
    names them, each with the clause the REST compiler writes for it (shown to the
    caller, not sent from here)."""
    out: list[AppliedFilter] = []
    for item in query.kept(drop_amount=drop_amount, step=step):
        if isinstance(item, AmountFilter):
            clause = compile_filter(item.filter)
            out.append(
                AppliedFilter(
                    name=item.name, clause=clause, droppable=True, constraint=item.constraint
                )
            )
        else:
            node = item.filter if isinstance(item, NamedFilter) else item.filter()
            out.append(AppliedFilter(name=item.name, clause=compile_filter(node)))
    return out


def answering_index(ran: Ran) -> str | None:
    """The generation that answered, when a hit names it."""
    return ran.hits[0].index if ran.hits else None


def shape_result(
    plan: AnalyzedQuery,
    ran: Ran,
    ladder: Ladder[Ran],
    index: str,
    started: float,
    *,
    text_fallback: bool = False,
    load: EmbedderLoad | None = None,
) -> SearchResult:
    """The :class:`SearchResult` of a search that started at ``started`` (perf_counter)
    and answered at the ``ladder`` 's current step; ``load``: the embedder's model load
    not yet reported, left out of ``took_ms`` where it fell inside this search."""
    hits, unique_spans = _hits(ran.hits)
    applied = applied_filters(plan, step=ladder.step)
    result = SearchResult(
        query=plan.spec.text,
        mode=plan.spec.mode if plan.spec.mode != "auto" else "bm25",
        fusion=ran.fused,
        index=index,
        hits=hits,
        filters_applied=applied,
        amount=plan.amount,
        amount_status=plan.amount_status,
        constraints=plan.constraints,
        amount_notes=plan.amount_notes,
        candidate_count=ran.candidates,
        amount_candidates=ladder.amount_candidates,
        fallback=ladder.fallback,
        amount_step=ladder.step,
        amount_steps=ladder.tried,
        text_fallback=text_fallback,
        subject=list(ran.subject),
        label_matches=list(plan.label_matches),
        total_hits=ran.total,
        raw_hits=len(hits),
        unique_spans=unique_spans,
        took_ms=round(took_ms(started, load), 3),
        embedder_load_ms=round(load.ms, 3) if load else None,
        embedder_note=load.note if load else None,
    )
    if log.isEnabledFor(logging.INFO):  # the lists below are built only to be logged
        _log_result(result, plan, applied)
    return result


def took_ms(started: float, load: EmbedderLoad | None) -> float:
    """Milliseconds since ``started``, less the model load that happened meanwhile."""
    elapsed = (time.perf_counter() - started) * 1000
    if load is not None and load.started >= started:
        elapsed -= load.ms
    return max(elapsed, 0.0)


def _log_result(result: SearchResult, plan: AnalyzedQuery, applied: list[AppliedFilter]) -> None:
    log.info(
        "query=%r filters=%s constraints=%s candidates=%d amount_candidates=%s "
        "amount_step=%s amount_steps=%s fallback=%s text_fallback=%s hits=%d unique_spans=%d "
        "labels=%s",
        result.query,
        [f.name for f in applied],
        [c.describe() for c in plan.constraints],
        result.candidate_count,
        result.amount_candidates,
        result.amount_step,
        [f"{s.step}:{s.candidates}" for s in result.amount_steps],
        result.fallback,
        result.text_fallback,
        result.raw_hits,
        result.unique_spans,
        [label_line(m) for m in result.label_matches],
    )


def label_line(matches: LabelMatches) -> str:
    """One named quantity's matched labels for the log: ``'setup fee': key 0, synonym 0,
    form 0, modifier 0, meaning 1 ['Installation charge' 0.66 +installation charge] (meaning
    ≥ 0.7)``; a label matched by modifier is listed so too (``'Implementation' by modifier
    +implementation``)."""
    meant = [
        f"{m.label!r} "
        + (f"{m.cosine:.2f}" if m.by == "meaning" else "by modifier")
        + "".join(f" +{k}" for k in m.keys)
        for m in matches.matches
        if (m.by == "meaning" and m.cosine is not None) or m.by == "modifier"
    ]
    said = (
        f"{matches.name!r}: key {matches.by_key}, synonym {matches.by_synonym}, "
        f"form {matches.by_form}, modifier {matches.by_modifier}, meaning {matches.by_meaning}"
    )
    if meant:
        said += f" [{', '.join(meant)}]"
    if matches.vocabulary == "meaning":
        said += f" (meaning ≥ {matches.threshold:g})" if matches.threshold is not None else ""
    else:
        said += f" ({matches.vocabulary})"
    return said + (f" — {matches.note}" if matches.note else "")
