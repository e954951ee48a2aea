"""What the framework retrievers share: the search keywords of a call, and what each
retrieved document holds — a hit, or with a context a passage. Pure: no framework is
imported here."""

from __future__ import annotations

import asyncio
from typing import Any

from osrag.models import SearchHit, SearchResult
from osrag.schema.passages import Passage

MODES = ("auto", "bm25", "vector", "hybrid")


def search_keywords(
    k: int,
    tenant: str | None,
    acl: list[str] | None,
    mode: str,
    options: dict[str, Any] | None = None,
    context: Any = None,
) -> dict[str, Any]:
    """The Searcher keywords of one call: ``k`` hits in the caller's scope, ``mode``, with
    a ``context`` (a kind, or a :class:`~osrag.schema.passages.ContextRequest` or its dict)
    the passages around them, and any other :class:`~osrag.models.QuerySpec` field in
    ``options``. The operator's view (``unrestricted``) is refused: a retriever answers an
    end user."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: choose one of {', '.join(MODES)}")
    if k < 1:
        raise ValueError(f"k={k}: ask for at least one document")
    extra = dict(options or {})
    if extra.get("unrestricted"):
        raise ValueError("a retriever never searches unrestricted (it answers an end user)")
    if context is not None:
        extra["context"] = context
    return extra | {"k": k, "tenant": tenant, "acl": acl, "mode": mode}


def _search_metadata(result: SearchResult) -> dict[str, Any]:
    """What the search did, told beside each document it returns: its amount constraint
    and that constraint's status, every constraint, the filters applied, the fallback."""
    return {
        "amount": result.amount.model_dump(mode="json") if result.amount else None,
        "amount_status": result.amount_status,
        "constraints": [c.model_dump(mode="json") for c in result.constraints],
        "filters": [f.name for f in result.filters_applied],
        "fallback": result.fallback,
    }


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
        **_search_metadata(result),
        "amount_step": result.amount_step,
        "index": result.index,
    }


def passage_id(passage: Passage) -> str:
    """``doc_id@start-end``: a passage's id (its document and source interval)."""
    return f"{passage.doc_id}@{passage.span.start}-{passage.span.end}"


def passage_metadata(passage: Passage, result: SearchResult) -> dict[str, Any]:
    """Where a passage comes from: its document and version, breadcrumb, span and segments
    (code points of the source), pages, the hits it covers and the chunks it holds, its
    tokens; and the search's amount constraint, filters, fallback and budget."""
    report = result.context
    return {
        "doc_id": passage.doc_id,
        "source_version": passage.source_version,
        "breadcrumb": passage.breadcrumb,
        "span": {"start": passage.span.start, "end": passage.span.end},
        "segments": [{"start": s.start, "end": s.end} for s in passage.segments],
        "pages": list(passage.pages),
        "hits": list(passage.hits),
        "chunks": list(passage.chunks),
        "rank": passage.rank,
        "tokens": passage.tokens,
        "truncated": passage.truncated,
        "context": report.kind if report else None,
        "budget": report.budget if report else None,
        **_search_metadata(result),
        "index": result.index,
    }


def retrieved(result: SearchResult) -> list[tuple[str, str, float | None, dict[str, Any]]]:
    """``(id, text, score, metadata)`` of each document a retriever returns: the passages
    of a search with a context (scored by their best hit), else the hits."""
    if result.context is None:
        return [(h.chunk_id, h.body, h.score, hit_metadata(h, result)) for h in result.hits]
    scores = {h.chunk_id: h.score for h in result.hits}
    return [
        (
            passage_id(p),
            p.text,
            scores.get(p.hits[0]) if p.hits else None,
            passage_metadata(p, result),
        )
        for p in result.passages
    ]


async def search_async(
    searcher: Any, async_searcher: Any, query: str, keywords: dict[str, Any]
) -> SearchResult:
    """The search on the AsyncSearcher when there is one, else the Searcher in a thread."""
    if async_searcher is not None:
        result: SearchResult = await async_searcher.search(query, **keywords)
        return result
    return await asyncio.to_thread(searcher.search, query, **keywords)
