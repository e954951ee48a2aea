"""What the framework retrievers share: the search keywords of a call, and the metadata
of a hit. Pure: no framework is imported here."""

from __future__ import annotations

import asyncio
from typing import Any

from osrag.models import SearchHit, SearchResult

MODES = ("auto", "bm25", "vector", "hybrid")


def search_keywords(
    k: int,
    tenant: str | None,
    acl: list[str] | None,
    mode: str,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The Searcher keywords of one call: ``k`` hits in the caller's scope, ``mode``, and
    any other :class:`~osrag.models.QuerySpec` field in ``options``. The operator's view
    (``unrestricted``) is refused: a retriever answers an end user."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: choose one of {', '.join(MODES)}")
    if k < 1:
        raise ValueError(f"k={k}: ask for at least one document")
    extra = dict(options or {})
    if extra.get("unrestricted"):
        raise ValueError("a retriever never searches unrestricted (it answers an end user)")
    return extra | {"k": k, "tenant": tenant, "acl": acl, "mode": mode}


def hit_metadata(hit: SearchHit, result: SearchResult) -> dict[str, Any]:
    """Where a hit comes from and why it matched: its chunk and document ids, breadcrumb,
    span (code points of the source), pages, the amounts it holds (integer minor units),
    and the search's amount constraint, filters, fallback and the amount-ladder step that
    answered."""
    return {
        "chunk_id": hit.chunk_id,
        "doc_id": hit.doc_id,
        "title": hit.title,
        "breadcrumb": hit.breadcrumb,
        "span": {"start": hit.span.start, "end": hit.span.end},
        "pages": list(hit.pages),
        "amounts": list(hit.amounts),
        "money": list(hit.money),
        "score": hit.score,
        "amount": result.amount.model_dump(mode="json") if result.amount else None,
        "amount_status": result.amount_status,
        "constraints": [c.model_dump(mode="json") for c in result.constraints],
        "filters": [f.name for f in result.filters_applied],
        "fallback": result.fallback,
        "amount_step": result.amount_step,
        "index": result.index,
    }


async def search_async(
    searcher: Any, async_searcher: Any, query: str, keywords: dict[str, Any]
) -> SearchResult:
    """The search on the AsyncSearcher when there is one, else the Searcher in a thread."""
    if async_searcher is not None:
        result: SearchResult = await async_searcher.search(query, **keywords)
        return result
    return await asyncio.to_thread(searcher.search, query, **keywords)
