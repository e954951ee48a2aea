"""Run a :class:`~osrag.models.QuerySpec` on a backend and say why it returned what it did.

* One round trip normally (``_msearch``): the ranked hits and the size of the
  filtered **candidate set** (the filters alone), logged at INFO.
* **Fallback**: if the amount filter leaves zero candidates (an amount nobody
  wrote, a typo) the query runs again without it and the result says
  ``fallback: true``. Tenant, ACL and date filters are never dropped.
* **Fail closed**: the tenant and ACL guards come from the caller's arguments
  on every request (:func:`osrag.query.access_filters`), never from what the
  index is believed to hold: without a tenant only untenanted documents match,
  without groups only documents without an ACL. An alias known to be
  multi-tenant (its access policy, read fresh on every request without a
  tenant) refuses a search without a tenant.
* **Overlapping chunks are one piece of evidence**: ``raw_hits`` counts hits,
  ``unique_spans`` counts the merged source intervals per document, and each
  hit lists the higher-ranked hits of its document it overlaps.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import Any

from osrag.backends.base import ChunkIndex, SearchType
from osrag.config import DEFAULT_ALIAS
from osrag.errors import QueryError
from osrag.manifest import Manifest
from osrag.models import (
    AccessPolicy,
    ExtractionConfig,
    GenerationRecord,
    QuerySpec,
    SearchHit,
    SearchResult,
    Span,
)
from osrag.query import QueryPlan, plan_query, search_bodies

log = logging.getLogger("osrag.search")

GENERATION_CACHE_SECONDS = 30.0
"""How long the generation's extraction settings are reused (never access decisions)."""


def as_index(client_or_index: Any) -> ChunkIndex:
    """A :class:`ChunkIndex` as it is, or an OpenSearch client wrapped in one."""
    if isinstance(client_or_index, ChunkIndex):
        return client_or_index
    from osrag.backends.opensearch import OpenSearchIndex

    return OpenSearchIndex(client_or_index)


def count_unique_spans(hits: list[SearchHit]) -> int:
    """Merged, non-overlapping source intervals among the hits (per document).

    Intervals are half-open: ``[0, 10)`` and ``[10, 20)`` touch but do not overlap,
    so they are two spans; ``[0, 10)`` and ``[5, 20)`` are one."""
    by_doc: dict[str, list[Span]] = defaultdict(list)
    for hit in hits:
        by_doc[hit.doc_id].append(hit.span)
    total = 0
    for spans in by_doc.values():
        spans.sort(key=lambda s: (s.start, s.end))
        end = -1
        for span in spans:
            if span.start >= end:
                total += 1
                end = span.end
            else:
                end = max(end, span.end)
    return total


def _flag_overlaps(hits: list[SearchHit]) -> None:
    """Give each hit the higher-ranked hits of its own document whose spans overlap it."""
    by_doc: dict[str, list[SearchHit]] = defaultdict(list)
    for hit in hits:
        earlier = by_doc[hit.doc_id]
        hit.overlaps = [other.chunk_id for other in earlier if other.span.overlaps(hit.span)]
        earlier.append(hit)


def _hit(raw: dict[str, Any]) -> SearchHit:
    source = raw.get("_source") or {}
    span = source.get("span") or {"start": 0, "end": 0}
    return SearchHit(
        chunk_id=source.get("chunk_id", raw.get("_id", "")),
        doc_id=source["doc_id"],
        score=raw.get("_score"),
        title=source.get("title", ""),
        breadcrumb=source.get("breadcrumb", ""),
        body=source.get("body", ""),
        highlight=list((raw.get("highlight") or {}).get("body", [])),
        amounts=list(source.get("amounts") or []),
        money=list(source.get("money") or []),
        span=Span(span["start"], span["end"]),
        pages=list(source.get("pages") or []),
        chunk_index=int(source.get("chunk_index", 0)),
    )


def _total(response: dict[str, Any]) -> int:
    total = response["hits"]["total"]
    return int(total["value"] if isinstance(total, dict) else total)


class Searcher:
    """Search one alias: ``Searcher(client, "osrag-chunks").search("$300K umbrella")``.

    ``client_or_index`` is an opensearch-py client or any
    :class:`~osrag.backends.base.ChunkIndex` (:func:`osrag.backends.open_index`).
    """

    def __init__(
        self,
        client_or_index: Any,
        alias: str = DEFAULT_ALIAS,
        *,
        extraction: ExtractionConfig | None = None,
        enforce_access: bool = True,
        search_type: SearchType | None = None,
    ) -> None:
        self.index = as_index(client_or_index)
        self.alias = alias
        self.search_type = search_type
        """How a sharded generation scores (None: the engine's default, see
        :meth:`~osrag.backends.base.ChunkIndex.msearch`)."""
        self.extraction = extraction
        self.enforce_access = enforce_access
        """False is the operator's view (evaluation): no tenant or ACL guard at all."""
        self.manifest = Manifest(self.index.records(alias), alias)
        self._generation: GenerationRecord | None = None
        self._generation_read = -1e9
        self._multi_tenant = False

    def generation(self) -> GenerationRecord | None:
        """The alias's current generation record (cached for a few seconds)."""
        now = time.monotonic()
        if now - self._generation_read > GENERATION_CACHE_SECONDS:
            target = self.index.alias_target(self.alias)
            self._generation = self.manifest.generation(target) if target else None
            self._generation_read = now
        return self._generation

    def policy(self) -> AccessPolicy:
        """The alias's access policy, read fresh (only "has held tenants" is remembered:
        it never becomes false again)."""
        if self._multi_tenant:
            return AccessPolicy(tenants=True)
        policy = self.manifest.policy()
        self._multi_tenant = policy.tenants
        return policy

    def _extraction(self, generation: GenerationRecord | None) -> ExtractionConfig:
        if self.extraction is not None:
            return self.extraction
        if generation is not None and "extraction" in generation.config:
            return ExtractionConfig.model_validate(generation.config["extraction"])
        return ExtractionConfig()

    def plan(self, text_or_spec: str | QuerySpec, **overrides: Any) -> QueryPlan:
        spec = text_or_spec if isinstance(text_or_spec, QuerySpec) else QuerySpec(text=text_or_spec)
        if overrides:
            spec = spec.model_copy(update=overrides)
        if not self.enforce_access:
            spec = spec.model_copy(update={"unrestricted": True})
        elif spec.tenant is None and self.policy().tenants:
            # The query's guards already keep every tenant's documents from a caller
            # without a tenant; on an alias that holds tenants the request is refused
            # outright, so the mistake is seen rather than answered emptily.
            raise QueryError(
                f"alias {self.alias!r} holds documents of several tenants: pass a tenant"
            )
        return plan_query(spec, extraction=self._extraction(self.generation()))

    def search(self, text_or_spec: str | QuerySpec, **overrides: Any) -> SearchResult:
        """Plan, run, fall back if the amount filter empties the candidate set, shape."""
        started = time.perf_counter()
        plan = self.plan(text_or_spec, **overrides)
        response, counted = self.index.msearch(
            self.alias, search_bodies(plan), search_type=self.search_type
        )
        fallback = False
        if plan.has_amount_filter and _total(counted) == 0:
            fallback = True
            response, counted = self.index.msearch(
                self.alias, search_bodies(plan, drop_amount=True), search_type=self.search_type
            )
        raw_hits = response["hits"]["hits"]
        hits = [_hit(raw) for raw in raw_hits]
        _flag_overlaps(hits)
        applied = plan.applied(drop_amount=fallback)
        answered = raw_hits[0].get("_index") if raw_hits else None
        result = SearchResult(
            query=plan.spec.text,
            index=answered or self.index.alias_target(self.alias) or self.alias,
            hits=hits,
            filters_applied=applied,
            amount=plan.amount,
            amount_status=plan.amount_status,
            candidate_count=_total(counted),
            fallback=fallback,
            total_hits=_total(response),
            raw_hits=len(hits),
            unique_spans=count_unique_spans(hits),
            took_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        log.info(
            "query=%r filters=%s candidates=%d fallback=%s hits=%d unique_spans=%d",
            result.query,
            [f.name for f in applied],
            result.candidate_count,
            fallback,
            result.raw_hits,
            result.unique_spans,
        )
        return result
