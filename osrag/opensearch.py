"""osrag's queries in a caller's own OpenSearch code: DSL helpers and the client.

For a service that already talks to OpenSearch with opensearch-py and wants osrag's
match and filters inside its own requests:

* :func:`osrag.build_query` — the whole ``_search`` body (top-level API);
* :func:`add_osrag_clauses` — osrag's ``must``/``should``/``filter`` added to the
  caller's own ``bool``;
* :func:`to_search` — the request as an opensearch-py DSL ``Search`` object;
* :func:`connect` — an opensearch-py client from osrag's settings (TLS, auth, SigV4),
  and :func:`cluster_errors` — what the client raises, as osrag's one-line errors.

A :class:`~osrag.engines.base.ChunkIndex` (:func:`osrag.open_index`) is the engine
itself; these are for requests the caller sends.
"""

from __future__ import annotations

from typing import Any

from osrag.engines.rest.clients import connect
from osrag.engines.rest.errors import cluster_errors
from osrag.models import ExtractionConfig, QuerySpec
from osrag.search.query import bool_query, build_query, plan_query

__all__ = ["add_osrag_clauses", "cluster_errors", "connect", "to_search"]


def add_osrag_clauses(
    bool_body: dict[str, Any],
    text_or_spec: str | QuerySpec,
    *,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """Add osrag's match and filters to a caller's own ``{"bool": {...}}`` (a new dict).

    The caller's clauses are kept; osrag's ``must``/``should``/``filter`` are appended.
    """
    plan = plan_query(text_or_spec, extraction=extraction, **overrides)
    ours = bool_query(plan)["bool"]
    theirs = dict(bool_body.get("bool", bool_body))
    merged: dict[str, Any] = {k: v for k, v in theirs.items()}
    for key in ("must", "should", "filter"):
        if key in ours:
            existing = theirs.get(key, [])
            existing = existing if isinstance(existing, list) else [existing]
            merged[key] = [*existing, *ours[key]]
    return {"bool": merged}


def to_search(
    text_or_spec: str | QuerySpec,
    *,
    index: str | None = None,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> Any:
    """The same request as an opensearch-py DSL ``Search`` object (``Q`` inside)."""
    from opensearchpy import Search

    body = build_query(text_or_spec, extraction=extraction, **overrides)
    return Search(index=index).update_from_dict(body)
