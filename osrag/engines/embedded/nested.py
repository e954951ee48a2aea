"""Nested fields of the embedded index: each a tantivy index of its own beside the chunks'.

Rule: OpenSearch's ``nested`` semantics — a condition on a nested field holds for a chunk
when ONE of its objects meets all of it (``facts``: one amount fact meets label, value,
currency and year at once). Each object of a chunk is a document of the field's sub-index
(``<generation>/<path>/``), carrying the chunk's ``_key`` and id; a
:class:`~osrag.schema.filters.Nested` filter runs on the sub-index, and the ``_key`` s of
the objects it matches select the chunks (a term-set query on the chunk index's ``_key``).

Why a sub-index, not the objects as documents of the chunk index: tantivy's BM25 counts
every document of an index in its idf and average length, so objects there would change
the chunks' scores (Lucene keeps nested objects apart from a field's statistics; tantivy
has no such notion). Keys are 64 bits of the chunk id's SHA-256: two chunks sharing one
(odds about n²/2⁶⁵, 3·10⁻⁸ for a million chunks) would pass each other's nested filters.

Writes: in each batch the sub-indexes are committed first — a written chunk's objects
replaced (deleted by its id, added), a deleted chunk's deleted — then the chunk index; so a
visible chunk always has its objects (a chunk being deleted stops matching nested filters
one commit early; objects whose chunk never became visible select nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tantivy
from tantivy import Query

from osrag.engines.embedded.schema import KEY_FIELD, TERMS_TOKENIZER, NestedSchema
from osrag.errors import IndexStateError


def nested_dir(generation_path: Path, path: str) -> Path:
    """Where the sub-index of the nested field ``path`` lives."""
    return generation_path / path


def create_nested(generation_path: Path, schema: NestedSchema) -> None:
    """Create the empty sub-index of ``schema`` inside a generation being built."""
    folder = nested_dir(generation_path, schema.path)
    folder.mkdir()
    tantivy.Index(schema.tantivy_schema(), path=str(folder))


@dataclass
class NestedIndex:
    """The open sub-index of one nested field."""

    schema: NestedSchema
    index: tantivy.Index

    @classmethod
    def open(cls, generation_path: Path, schema: NestedSchema) -> NestedIndex:
        folder = nested_dir(generation_path, schema.path)
        if not (folder / "meta.json").is_file():
            raise IndexStateError(
                f"{generation_path} has no index of its nested field {schema.path!r} "
                f"({folder}): ingest again (a new generation is built) or roll back"
            )
        try:
            index = tantivy.Index.open(str(folder))
        except ValueError as exc:
            raise IndexStateError(f"{folder} is not a readable tantivy index ({exc})") from None
        index.register_tokenizer(
            TERMS_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
        )
        return cls(schema, index)

    def searcher(self) -> tantivy.Searcher:
        self.index.reload()
        return self.index.searcher()


def chunk_keys(searcher: tantivy.Searcher, query: Query) -> list[int]:
    """The ``_key`` s of the chunks that have an object ``query`` matches (distinct)."""
    found = searcher.search(query, limit=1, count=True)
    matched = int(found.count or 0)  # type: ignore[attr-defined]  # not in tantivy's stubs
    if not matched:
        return []
    addresses = [address for _score, address in searcher.search(query, limit=matched).hits]
    keys = searcher.fast_field_values(KEY_FIELD, addresses)
    return sorted({int(k) for k in keys if k is not None})


@dataclass(frozen=True)
class NestedSearcher:
    """One nested field's sub-index at one point in time, for a plan's compiler."""

    schema: NestedSchema
    searcher: tantivy.Searcher

    @property
    def tantivy_schema(self) -> tantivy.Schema:
        return self.schema.tantivy_schema()


def nested_searchers(indexes: dict[str, NestedIndex]) -> dict[str, NestedSearcher]:
    """A searcher of each sub-index, opened now (beside the chunk index's searcher)."""
    return {path: NestedSearcher(ix.schema, ix.searcher()) for path, ix in indexes.items()}
