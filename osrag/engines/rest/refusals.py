"""What an engine's refusals mean, in one line for the user (OpenSearch and Elasticsearch
answer with the same error shapes).

* A write refused by an index block → :class:`~osrag.errors.ClusterError` (exit 4):
  the cluster refuses, the input is fine.
* A search the engine rejects as a query (too many clauses, a malformed clause, a
  query that cannot be parsed) → :class:`~osrag.errors.QueryError` (exit 8).
* Any other failed search → :class:`~osrag.errors.ClusterError`.
* A search or count some shard did not answer (its node died a moment ago, or no
  node holds a copy) is a failure too, never a smaller answer: :func:`shard_gap`
  names it, and the engine retries the read before raising it.
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


def _query_fault(error: Any) -> bool:
    """Whether the query itself is to blame anywhere along ``error``'s ``caused_by`` chain."""
    while isinstance(error, dict):
        if str(error.get("type")) in _QUERY_FAULTS:
            return True
        error = error.get("caused_by")
    return False


def shard_gap(answer: dict[str, Any], target: str) -> ClusterError | QueryError | None:
    """The error for a search or count ``answer`` that some shard of ``target`` did not
    give (the engine then answers 200 with fewer hits, or a smaller count); None when every
    shard answered. Shards skipped as unable to match count among the successful ones.
    A shard that failed over the query itself is a :class:`QueryError` (retrying cannot
    help); one that is unavailable or failed otherwise is a :class:`ClusterError`."""
    shards = answer.get("_shards")
    if not isinstance(shards, dict):
        return None
    total, successful = int(shards.get("total", 0)), int(shards.get("successful", 0))
    failures = [f for f in shards.get("failures") or [] if isinstance(f, dict)]
    if successful >= total and not failures and not answer.get("timed_out"):
        return None
    causes = [_root(f.get("reason")) for f in failures]
    faults = [c for f, c in zip(failures, causes, strict=True) if _query_fault(f.get("reason"))]
    if faults:
        return QueryError(
            f"{target} rejected the query: {faults[0]['type']}: {faults[0].get('reason')}"
        )
    why = "; ".join(sorted({f"{c.get('type')}: {c.get('reason')}" for c in causes})[:2])
    if answer.get("timed_out") and successful >= total:
        why = "the search timed out"
    return ClusterError(
        f"only {successful} of {total} shards of {target} answered"
        f"{f' ({why})' if why else ' (the others have no copy on any node)'}; osrag returns "
        "no partial answers — check `GET _cluster/health` and retry once it is green or yellow"
    )


def search_error(status: int, error: Any, target: str) -> ClusterError | QueryError:
    """The osrag error for a search the engine answered with ``status`` and ``error``."""
    root = _root(error)
    kind, reason = str(root.get("type", "error")), str(root.get("reason", ""))
    if kind == "too_many_clauses" or "maxClauseCount" in reason:
        return QueryError(
            f"the query has more terms than {target} accepts in one query ({reason}): shorten it"
        )
    top = str(error.get("type", "")) if isinstance(error, dict) else ""
    # "all shards failed" (search_phase_execution_exception) is the query's fault when the
    # engine answers 4xx; a 5xx means the shards were unavailable
    every_shard = "search_phase_execution_exception" in (kind, top) and status < 500
    if status == 400 or kind in _QUERY_FAULTS or top in _QUERY_FAULTS or every_shard:
        return QueryError(f"{target} rejected the query: {kind}: {reason}")
    return ClusterError(f"search on {target} failed (HTTP {status}): {kind}: {reason}")


def msearch_gap(answers: list[dict[str, Any]], target: str) -> ClusterError | QueryError | None:
    """The first search of an ``_msearch`` answer that failed or that some shard did not
    answer, as an error (None: every search answered whole)."""
    for answer in answers:
        if "error" in answer:
            return search_error(int(answer.get("status", 500)), answer["error"], target)
        missing = shard_gap(answer, target)
        if missing is not None:
            return missing
    return None
