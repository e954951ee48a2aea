"""The response side of an embedded search: ``_source`` filtering, the id fields a hit
is given from the index's columns, and the order hits are ranked in."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import Any

import tantivy

from osrag.errors import QueryError


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
