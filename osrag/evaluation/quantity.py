"""Did the search return documents that hold the asked quantity? Judged by independent gold.

A query that states an amount ("net loss under $20 million", "deductible under $1,000")
asks for documents that hold *that quantity* meeting *that constraint*. Which documents
do is the **holder gold**: a list written by hand or from a dataset's own annotations
(``holders`` in a JSON Lines query set, or a holders qrels file) — never osrag's
extraction, constraint parser or filter, which are what it judges.

**quantity_precision@k** of one query, with holders ``H`` and unjudged documents ``U``:

1. the ranking is the distinct documents of the hits in rank order (a document's first
   hit gives its rank; later hits of it are skipped);
2. the documents in ``U`` — those the gold cannot judge, e.g. a report whose table has
   the line item but no determinable scale — are removed from it (a *condensed* list:
   they neither count for nor against the search, and how many were skipped is reported);
3. ``top`` = its first ``k`` documents; quantity precision@k = ``|top ∩ H| / |top|``.
   When fewer than ``k`` documents come back, the share is over those returned: returning
   only holders is precise, however few (recall is what nDCG and recall@k measure). When
   none comes back, it is 0 — the gold says some document holds the quantity.

Queries without holder gold (no ``holders`` field, or absent from the holders file) and
queries whose gold lists no holder at all are left out of the mean, and counted.

**Constraint selectivity** of a query whose search applied an amount filter: the share of
the index's documents that have a chunk passing the filter (the constraints alone, as the
search applied them; 0 when they left nothing and the search fell back), and the same in
chunks (the search's own ``amount_candidates`` over the index's chunks). Reported as the
median and the 90th percentile (linear interpolation between closest ranks, numpy's
default) over the queries.

**Fallback steps**: :data:`FALLBACK_STEPS` names each step a search may take when a
filter leaves no candidates, and how to tell from a result that it took it; the report
counts the queries per step (every step listed, zeros included); a query is counted at
the last step it took.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from osrag.models import SearchResult
from osrag.search.query import AMOUNT_STEPS


@dataclass(frozen=True)
class HolderGold:
    """Which documents hold a query's asked quantity (``holders``), and which the gold
    cannot judge (``unjudged``); a document in neither does not hold it."""

    holders: frozenset[str]
    unjudged: frozenset[str] = frozenset()

    @classmethod
    def of(cls, holders: Iterable[str], unjudged: Iterable[str] = ()) -> HolderGold:
        held = frozenset(holders)
        return cls(held, frozenset(unjudged) - held)


def condensed(ranking: Sequence[str], gold: HolderGold) -> list[str]:
    """The distinct documents of ``ranking`` in order, without those the gold cannot judge."""
    seen: dict[str, None] = {}
    for doc in ranking:
        if doc not in gold.unjudged:
            seen.setdefault(doc, None)
    return list(seen)


def quantity_precision_at(ranking: Sequence[str], gold: HolderGold, k: int) -> float:
    """The share of the first ``k`` judged documents of ``ranking`` that hold the quantity
    (over those returned when fewer than ``k``; 0 when none is)."""
    if k < 1:
        raise ValueError(f"k must be positive, not {k}")
    top = condensed(ranking, gold)[:k]
    return sum(1 for doc in top if doc in gold.holders) / len(top) if top else 0.0


def unjudged_in_top(ranking: Sequence[str], gold: HolderGold, k: int) -> int:
    """How many unjudged documents were skipped to fill the first ``k`` judged ones."""
    skipped = judged = 0
    seen: set[str] = set()
    for doc in ranking:
        if doc in seen:
            continue
        seen.add(doc)
        if doc in gold.unjudged:
            skipped += 1
        else:
            judged += 1
            if judged == k:
                break
    return skipped


def quantity_metrics(
    ranking: Sequence[str], gold: HolderGold, ks: Sequence[int]
) -> dict[str, float]:
    """``quantity_precision@k`` for every ``k`` (empty when the gold lists no holder)."""
    if not gold.holders:
        return {}
    return {f"quantity_precision@{k}": quantity_precision_at(ranking, gold, k) for k in ks}


# --------------------------------------------------------------------------- fallbacks


@dataclass(frozen=True)
class FallbackStep:
    """One step of the amount fallback: its name, and whether a result took it."""

    name: str
    took: Callable[[SearchResult], bool]


LADDER = AMOUNT_STEPS
"""The amount ladder's steps, in order (:mod:`osrag.search.ladder`)."""


def _stepped_to(step: str) -> Callable[[SearchResult], bool]:
    """Whether a search stepped down its amount ladder to ``step`` or past it: it started
    at an earlier step and answered at ``step`` or a later one."""
    at = LADDER.index(step)

    def took(result: SearchResult) -> bool:
        if not result.amount_steps or result.amount_step is None:
            return False
        started = LADDER.index(result.amount_steps[0].step)
        return started < at <= LADDER.index(result.amount_step)

    return took


FALLBACK_STEPS: tuple[FallbackStep, ...] = (
    FallbackStep("narrowed", _stepped_to("narrowed")),
    FallbackStep("worded", _stepped_to("worded")),
    FallbackStep("per-unit", _stepped_to("per-unit")),
    FallbackStep("role-free", _stepped_to("role-free")),
    FallbackStep("no amount filter", lambda result: result.fallback),
)
"""The steps in ladder order: a named quantity matched no fact and was read with its first
word as the kind of document it is in (``narrowed``); a quantity asked at a period unit
matched no fact and was asked of any fact of that unit (``per-unit``); the constraints
bound to named quantities left no candidate and were relaxed to any amount
(``role-free``); the amount
constraints together left no candidate and were dropped (``SearchResult.fallback``)."""


def fallback_step(
    result: SearchResult, steps: Sequence[FallbackStep] = FALLBACK_STEPS
) -> str | None:
    """The last step of the ladder ``result`` took (None: it took none)."""
    taken = [step.name for step in steps if step.took(result)]
    return taken[-1] if taken else None


def count_steps(
    taken: Iterable[str | None], steps: Sequence[FallbackStep] = FALLBACK_STEPS
) -> dict[str, int]:
    """Queries per step, every step listed (zeros included), in ladder order."""
    counts = {step.name: 0 for step in steps}
    for name in taken:
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return counts


# --------------------------------------------------------------------------- selectivity


class Selectivity(BaseModel):
    """The share of the index a query's amount filter leaves."""

    documents: float = Field(description="documents with a chunk passing the filter / documents")
    chunks: float = Field(description="chunks passing the filter / chunks")


class SelectivitySummary(BaseModel):
    """Median and 90th percentile of the selectivity over the queries with an amount filter."""

    queries: int
    documents_median: float
    documents_p90: float
    chunks_median: float
    chunks_p90: float
    capped: int = Field(
        default=0,
        description="queries whose filter left more documents than one request can count "
        "(10,000): their document share is a lower bound",
    )


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0–100) by linear interpolation between closest ranks:
    position ``(n − 1) · p / 100`` in the sorted values (numpy's default)."""
    if not values:
        raise ValueError("no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p}: expected 0 to 100")
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


def summarise(per_query: dict[str, Selectivity], capped: int = 0) -> SelectivitySummary | None:
    """The summary over ``per_query`` (None when no query applied an amount filter)."""
    if not per_query:
        return None
    docs = [s.documents for s in per_query.values()]
    chunks = [s.chunks for s in per_query.values()]
    return SelectivitySummary(
        queries=len(per_query),
        documents_median=round(statistics.median(docs), 4),
        documents_p90=round(percentile(docs, 90), 4),
        chunks_median=round(statistics.median(chunks), 4),
        chunks_p90=round(percentile(chunks, 90), 4),
        capped=capped,
    )
