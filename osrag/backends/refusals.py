"""What an engine's refusals mean, in one line for the user (OpenSearch and Elasticsearch
answer with the same error shapes).

* A write refused by an index block → :class:`~osrag.errors.ClusterError` (exit 4):
  the cluster refuses, the input is fine.
* A search the engine rejects as a query (too many clauses, a malformed clause, a
  query that cannot be parsed) → :class:`~osrag.errors.QueryError` (exit 8).
* Any other failed search → :class:`~osrag.errors.ClusterError`.
"""

from __future__ import annotations

from typing import Any

from osrag.errors import ClusterError, QueryError

_QUERY_FAULTS = frozenset(
    {
        "too_many_clauses",
        "query_shard_exception",
        "parsing_exception",
        "x_content_parse_exception",
        "illegal_argument_exception",
        "search_phase_execution_exception",
        "too_complex_to_determinize_exception",
    }
)


def block_error(index: str, error: dict[str, Any]) -> ClusterError:
    reason = str(error.get("reason", "blocked"))
    hint = (
        " (disk flood stage? free disk space; the engine lifts the block itself once "
        "usage falls below the high watermark)"
        if "read-only-allow-delete" in reason or "flood" in reason
        else " (remove the block with PUT <index>/_settings)"
    )
    return ClusterError(
        f"index {index} is read-only: the engine refuses writes ({reason}){hint}; "
        "nothing stored was lost — rerun the ingest once the block is gone"
    )


def describe(error: Any, status: int) -> str:
    """An item's error as one line: ``type: reason (cause)``."""
    if isinstance(error, dict):
        reason = f"{error.get('type')}: {error.get('reason')}"
        caused = error.get("caused_by")
        if isinstance(caused, dict) and caused.get("reason"):
            reason += f" ({caused.get('reason')})"
        return reason
    return str(error or f"HTTP {status}")


def _root(error: Any) -> dict[str, Any]:
    """The innermost cause an error names (``caused_by`` chains, failed shards)."""
    if not isinstance(error, dict):
        return {"type": "error", "reason": str(error)}
    for shard in error.get("failed_shards") or []:
        reason = shard.get("reason") if isinstance(shard, dict) else None
        if isinstance(reason, dict):
            error = reason
            break
    while isinstance(error.get("caused_by"), dict):
        error = error["caused_by"]
    return error


def search_error(status: int, error: Any, target: str) -> ClusterError | QueryError:
    """The osrag error for a search the engine answered with ``status`` and ``error``."""
    root = _root(error)
    kind, reason = str(root.get("type", "error")), str(root.get("reason", ""))
    if kind == "too_many_clauses" or "maxClauseCount" in reason:
        return QueryError(
            f"the query has more terms than {target} accepts in one query ({reason}): shorten it"
        )
    top = str(error.get("type", "")) if isinstance(error, dict) else ""
    if status == 400 or kind in _QUERY_FAULTS or top in _QUERY_FAULTS:
        return QueryError(f"{target} rejected the query: {kind}: {reason}")
    return ClusterError(f"search on {target} failed (HTTP {status}): {kind}: {reason}")
