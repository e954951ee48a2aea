"""The fields of a stored chunk that passages are built from, as one small record.

A search's hits and the chunks the one extra request returns are both read into
:class:`ChunkRecord` s from their stored ``_source``; a source without a field passages
need (an index written before the field existed, a search that did not ask for it) gives
None, and the chunk is left alone rather than guessed at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CONTEXT_FIELDS: tuple[str, ...] = (
    "chunk_id",
    "doc_id",
    "source_version",
    "chunk_index",
    "span",
    "body",
    "title",
    "breadcrumb",
    "heading_path",
    "pages",
)
"""The stored fields a passage is built from (a search with a context asks for them)."""


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """One chunk as passages see it: identity, place, and its displayed text."""

    chunk_id: str
    doc_id: str
    source_version: str
    chunk_index: int
    start: int
    end: int
    """``[start, end)`` in code points of the decoded source."""
    body: str
    """``normalize(source[start:end])``: line breaks as ``\\n``, outer whitespace stripped."""
    title: str = ""
    breadcrumb: str = ""
    heading_path: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()

    @property
    def version(self) -> tuple[str, str]:
        """The document version the chunk belongs to."""
        return self.doc_id, self.source_version

    @property
    def line_breaks_removed(self) -> int:
        """Code points the source span has beyond the body: one per ``\\r\\n`` it held."""
        return (self.end - self.start) - len(self.body)

    @classmethod
    def from_source(
        cls, source: Mapping[str, Any], chunk_id: str | None = None, doc_id: str | None = None
    ) -> ChunkRecord | None:
        """The record of a stored chunk, or None when a field passages need is missing."""
        span = source.get("span")
        body = source.get("body")
        version = source.get("source_version")
        index = source.get("chunk_index")
        chunk_id = chunk_id or source.get("chunk_id")
        doc_id = doc_id or source.get("doc_id")
        if (
            not isinstance(span, Mapping)
            or not isinstance(body, str)
            or not isinstance(version, str)
            or not isinstance(index, int)
            or not chunk_id
            or not doc_id
        ):
            return None
        start, end = span.get("start"), span.get("end")
        if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start <= end:
            return None
        path = source.get("heading_path") or ()
        pages = source.get("pages") or ()
        return cls(
            str(chunk_id),
            str(doc_id),
            version,
            index,
            start,
            end,
            body,
            str(source.get("title") or ""),
            str(source.get("breadcrumb") or ""),
            tuple(map(str, path)) if isinstance(path, list | tuple) else (),
            tuple(map(int, pages)) if isinstance(pages, list | tuple) else (),
        )
