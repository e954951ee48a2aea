"""Run a :class:`~osrag.models.QuerySpec` on a backend and say why it returned what it did.

* One request normally: the ranked hits and (a ``global`` aggregation on
  OpenSearch) the size of the filtered **candidate set**, logged at INFO.
* **Fallback**: if the amount filter leaves zero candidates (an amount nobody
  wrote, a typo) the query runs again without it and the result says
  ``fallback: true``. Tenant, ACL and date filters are never dropped.
* **Fail closed**: an alias whose documents carry tenants refuses a search
  without a tenant; on an alias with ACLs, a caller who states no groups sees
  only documents without an ACL.
* **Overlapping chunks are one piece of evidence**: ``raw_hits`` counts hits,
  ``unique_spans`` counts the merged source intervals per document, and each
  hit lists the higher-ranked hits of its document it overlaps.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from opensearchpy import OpenSearch
from pydantic import TypeAdapter

from osrag.backends.base import Backend, RawHit, RawSearch
from osrag.config import DEFAULT_ALIAS
from osrag.errors import QueryError
from osrag.models import (
    ExtractionConfig,
    GenerationRecord,
    QuerySpec,
    SearchHit,
    SearchResult,
)
from osrag.query import QueryPlan, plan_query

log = logging.getLogger("osrag.search")

GENERATION_CACHE_SECONDS = 30.0


def _as_backend(client_or_backend: OpenSearch | Backend) -> Backend:
    if isinstance(client_or_backend, Backend):
        return client_or_backend
    from osrag.backends.opensearch import OpenSearchBackend

    return OpenSearchBackend(client_or_backend)


def count_unique_spans(hits: list[SearchHit]) -> int:
    """Merged, non-overlapping source intervals among the hits (per document)."""
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


def _hits(raw_hits: list[RawHit]) -> tuple[list[SearchHit], int]:
    """Raw hits → :class:`SearchHit` s, validated in one call (a page at depth 1,000 is
    1,000 hits: one validation of a list costs about half of 1,000 model constructions).
    Each hit lists the higher-ranked hits of its own document whose spans overlap it; the
    number of unique spans (:func:`count_unique_spans`) comes with them."""
    rows: list[dict[str, Any]] = []
    seen: dict[str, list[tuple[str, int, int]]] = {}
    for raw in raw_hits:
        row = dict(raw.source)  # fields a SearchHit does not have are ignored
        span = row.setdefault("span", _NO_SPAN)
        start, end = span["start"], span["end"]
        chunk_id, doc_id = row["chunk_id"], row["doc_id"]
        row["score"] = raw.score
        if raw.highlight:
            row["highlight"] = raw.highlight
        for name in ("amounts", "money"):
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


class Searcher:
    """Search one alias: ``Searcher(client, "osrag-chunks").search("$300K umbrella")``."""

    def __init__(
        self,
        client_or_backend: OpenSearch | Backend,
        alias: str = DEFAULT_ALIAS,
        *,
        extraction: ExtractionConfig | None = None,
        enforce_access: bool = True,
    ) -> None:
        self.backend = _as_backend(client_or_backend)
        self.alias = alias
        self.extraction = extraction
        self.enforce_access = enforce_access
        """False is the operator's view (evaluation): no tenant required, no ACL default."""
        self._generation: GenerationRecord | None = None
        self._generation_read = -1e9

    def generation(self) -> GenerationRecord | None:
        """The alias's current generation record (cached for a few seconds)."""
        now = time.monotonic()
        if now - self._generation_read > GENERATION_CACHE_SECONDS:
            target = self.backend.alias_target(self.alias)
            self._generation = self.backend.get_generation(self.alias, target) if target else None
            self._generation_read = now
        return self._generation

    def _extraction(self, generation: GenerationRecord | None) -> ExtractionConfig:
        if self.extraction is not None:
            return self.extraction
        if generation is not None and "extraction" in generation.config:
            return ExtractionConfig.model_validate(generation.config["extraction"])
        return ExtractionConfig()

    def plan(self, text_or_spec: str | QuerySpec, **overrides: Any) -> QueryPlan:
        generation = self.generation()
        spec = text_or_spec if isinstance(text_or_spec, QuerySpec) else QuerySpec(text=text_or_spec)
        if overrides:
            spec = spec.model_copy(update=overrides)
        if generation is not None and self.enforce_access:
            if generation.multi_tenant and spec.tenant is None:
                names = ", ".join(generation.tenants[:5]) + (
                    "…" if len(generation.tenants) > 5 else ""
                )
                raise QueryError(f"alias {self.alias!r} is multi-tenant ({names}): pass a tenant")
            if generation.has_acl and spec.acl is None:
                spec = spec.model_copy(update={"acl": []})  # fail closed: public documents only
        return plan_query(spec, extraction=self._extraction(generation))

    def search(self, text_or_spec: str | QuerySpec, **overrides: Any) -> SearchResult:
        """Plan, run, fall back if the amount filter empties the candidate set, shape."""
        started = time.perf_counter()
        plan = self.plan(text_or_spec, **overrides)
        raw: RawSearch = self.backend.search(self.alias, plan)
        fallback = False
        if plan.has_amount_filter and raw.candidate_count == 0:
            fallback = True
            raw = self.backend.search(self.alias, plan, drop_amount=True)
        hits, unique_spans = _hits(raw.hits)
        applied = plan.applied(drop_amount=fallback)
        result = SearchResult(
            query=plan.spec.text,
            index=raw.index or (self.backend.alias_target(self.alias) or self.alias),
            hits=hits,
            filters_applied=applied,
            amount=plan.amount,
            amount_status=plan.amount_status,
            candidate_count=raw.candidate_count,
            fallback=fallback,
            total_hits=raw.total,
            raw_hits=len(hits),
            unique_spans=unique_spans,
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
