"""The response side of an embedded search: ``_source`` filtering, the id fields a hit
is given from the index's columns, and the keyword sorts osrag pages with."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import Any

import tantivy

from osrag.errors import QueryError

REQUEST_KEYS = {
    "query",
    "size",
    "from",
    "sort",
    "_source",
    "highlight",
    "collapse",
    "track_total_hits",
    "search_after",
    "terminate_after",
}


def source_filter(spec: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """OpenSearch's ``_source`` filtering on top-level fields (``includes``/``excludes``),
    compiled once per request: exact names as sets, wildcards with ``fnmatch``."""
    if spec is None or spec is True:
        return lambda source: source
    if spec is False:
        return lambda source: {}
    if isinstance(spec, str | list):
        spec = {"includes": [spec] if isinstance(spec, str) else spec}
    if not isinstance(spec, dict) or set(spec) - {"includes", "excludes"}:
        raise QueryError(f"_source {spec!r}: expected includes and/or excludes")

    def matcher(patterns: list[str]) -> Callable[[str], bool]:
        names = {p.split(".")[0] for p in patterns if not any(c in p for c in "*?[")}
        wild = [p for p in patterns if any(c in p for c in "*?[")]
        return lambda key: key in names or any(fnmatch.fnmatchcase(key, p) for p in wild)

    includes, excludes = list(spec.get("includes") or []), list(spec.get("excludes") or [])
    included, excluded = matcher(includes), matcher(excludes)
    return lambda source: {
        key: value
        for key, value in source.items()
        if (not includes or included(key)) and not excluded(key)
    }


FAST_SOURCE = frozenset({"chunk_id", "doc_id", "span", "chunk_index"})
"""``_source`` fields a hit can be given from the index's columns alone."""


def fast_source(spec: Any) -> frozenset[str] | None:
    """The fields of an includes-only ``_source`` naming id fields only (what evaluation
    and ranking callers ask for), or None when the stored document is needed."""
    if isinstance(spec, dict) and set(spec) == {"includes"}:
        names = spec["includes"]
        if isinstance(names, list) and names and set(names) <= FAST_SOURCE:
            return frozenset(names)
    return None


Ranked = tuple[float, str, tantivy.DocAddress]
"""One hit in the request's order: ``(score, chunk_id, address)``. Plain tuples, so that
sorting them in reverse is exactly the request's sort (chunk ids are unique: the address
is never compared)."""


def sort_keys(spec: Any) -> list[tuple[str, bool]] | None:
    """``sort`` → [(field, descending)]; None for the default (``_score`` descending)."""
    if spec is None:
        return None
    items = spec if isinstance(spec, list) else [spec]
    keys: list[tuple[str, bool]] = []
    for item in items:
        if isinstance(item, str):
            field, direction = item, "desc" if item == "_score" else "asc"
        elif isinstance(item, dict) and len(item) == 1:
            field, how = next(iter(item.items()))
            direction = how.get("order", "asc") if isinstance(how, dict) else str(how)
        else:
            raise QueryError(f"sort {item!r}: expected a field name or {{field: order}}")
        if direction not in ("asc", "desc"):
            raise QueryError(f"sort on {field}: order must be asc or desc, not {direction!r}")
        if field != "_score" and field not in SORTABLE:
            raise QueryError(f"sort on {field}: the embedded index sorts on _score and {SORTABLE}")
        keys.append((field, direction == "desc"))
    if keys == [("_score", True)]:
        return None
    return keys


SORTABLE = ("chunk_id", "doc_id", "source_path")


class SortKey:
    """Orders rows by several keys, each ascending or descending; missing values last."""

    __slots__ = ("order", "values")

    def __init__(self, values: list[Any], order: list[tuple[str, bool]]) -> None:
        self.values, self.order = values, order

    def __lt__(self, other: SortKey) -> bool:
        for mine, theirs, (_, descending) in zip(
            self.values, other.values, self.order, strict=False
        ):
            if mine == theirs:
                continue
            if mine is None or theirs is None:
                return theirs is None
            return bool(mine > theirs) if descending else bool(mine < theirs)
        return False
