"""One open generation of the embedded index: its tantivy index, analyzer, vectors and
nested sub-indexes, and the table that names hits by chunk id without opening stored
documents."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import tantivy
from tantivy import FieldType, Query

from osrag.engines.embedded.analyzers import Analyzer, get_analyzer
from osrag.engines.embedded.nested import NestedIndex
from osrag.engines.embedded.schema import (
    ID_FIELD,
    KEY_FIELD,
    SOURCE_FIELD,
    TERMS_TOKENIZER,
    ChunkSchema,
    chunk_key,
)
from osrag.engines.embedded.store import GENERATION_META
from osrag.engines.embedded.vectors import VectorStore
from osrag.errors import ConfigError, IndexStateError


@dataclass
class Generation:
    """One open tantivy index."""

    name: str
    path: Path
    index: tantivy.Index
    analyzer: Analyzer
    schema: tantivy.Schema
    vectors: VectorStore | None = None
    """The generation's vectors (a generation built with an embedder)."""
    chunk_ids: ChunkIds = field(default_factory=lambda: ChunkIds())
    nested: dict[str, NestedIndex] = field(default_factory=dict)
    """The sub-index of each nested field (``facts``)."""

    def searcher(self) -> tantivy.Searcher:
        self.index.reload()  # ~40 µs: every search sees every commit, from any process
        return self.index.searcher()


class ChunkIds:
    """``_key`` → chunk id, for ranking a page of hits without opening stored documents.

    The hits of a search come as (score, address); their ``_key`` column is read in one
    call and looked up here. Keys are derived from the ids (not assigned), so an entry
    never goes stale when the generation is written to: an unknown key is read once from
    the stored document and remembered. The first search that meets many unknown keys
    reads every id of the generation at once (a terms aggregation per slice of the key
    space: ~80 ms for 11k chunks) — the cost of a depth-1000 query paid once, not per
    query; again when the generation has changed size since. The table holds every id
    (~100 bytes an entry). Two ids sharing a key (odds about n²/2⁶⁵) are found when the
    table is filled and are then always read from the stored document.
    """

    FILL_AFTER = 64
    """Unknown keys in one search that make reading the whole table worth it."""
    SLICE = 40_000
    """Ids per aggregation (tantivy refuses more than 65,000 buckets)."""

    def __init__(self) -> None:
        self.ids: dict[int, str] = {}
        self.shared: set[int] = set()
        self.filled_at = -1
        """``num_docs`` of the searcher the table was last filled from."""

    def resolve(
        self,
        searcher: tantivy.Searcher,
        schema: tantivy.Schema,
        addresses: list[tantivy.DocAddress],
    ) -> list[str]:
        keys = cast(list[int | None], searcher.fast_field_values(KEY_FIELD, addresses))
        known = self.ids
        unknown = sum(1 for key in keys if key not in known)
        if unknown > self.FILL_AFTER and searcher.num_docs != self.filled_at:
            self.fill(searcher, schema)
            unknown = sum(1 for key in keys if key not in known)
        if not unknown and not self.shared:
            return [known[key] for key in keys]  # type: ignore[index]
        found: list[str] = []
        for key, address in zip(keys, addresses, strict=True):
            chunk_id = known.get(key) if key is not None and key not in self.shared else None
            if chunk_id is None:
                chunk_id = str(stored_source(searcher, address)["chunk_id"])
                if key is not None and key not in self.shared:
                    known[key] = chunk_id
            found.append(chunk_id)
        return found

    def fill(self, searcher: tantivy.Searcher, schema: tantivy.Schema) -> None:
        """Read every chunk id of the searcher's segments (see the class docstring)."""
        slices = max(1, -(-searcher.num_docs // self.SLICE))
        width = 2**64 // slices
        for i in range(slices):
            low = -(2**63) + i * width
            high = 2**63 - 1 if i == slices - 1 else low + width - 1
            query = Query.range_query(
                schema, KEY_FIELD, FieldType.Integer, low, high, include_lower=True
            )
            buckets = searcher.aggregate(
                query, {"ids": {"terms": {"field": ID_FIELD, "size": 65_000}}}
            )["ids"]["buckets"]
            for bucket in buckets:
                chunk_id = str(bucket["key"])
                key = chunk_key(chunk_id)
                if self.ids.setdefault(key, chunk_id) != chunk_id:
                    self.shared.add(key)
        self.filled_at = searcher.num_docs


def stored_source(searcher: tantivy.Searcher, address: tantivy.DocAddress) -> dict[str, Any]:
    raw = searcher.doc(address).get_first(SOURCE_FIELD)
    source: dict[str, Any] = json.loads(raw) if raw else {}
    return source


def open_generation(name: str, path: Path, schema: ChunkSchema) -> Generation:
    """Open the tantivy index in ``path`` after checking its metadata names this osrag's
    storage layout; a missing or corrupt one raises :class:`IndexStateError`."""
    if not (path / "meta.json").is_file():
        raise IndexStateError(f"no embedded generation {name!r} (no index in {path})")
    try:
        meta = json.loads((path / GENERATION_META).read_text(encoding="utf-8"))
        analyzer = get_analyzer(str(meta["analyzer"]))
        fields = list(meta["fields"])
        dimension = meta.get("vector_dimension")
    except (OSError, ValueError, KeyError, TypeError, ConfigError) as exc:
        raise IndexStateError(
            f"{path / GENERATION_META} is missing or corrupt ({exc}): this generation "
            "cannot be read; roll back (`osrag index rollback`) or ingest again"
        ) from None
    if fields != schema.field_names():
        raise IndexStateError(
            f"{path} was built by another osrag with another storage layout: "
            "ingest again (a new generation is built) or roll back"
        )
    try:
        index = tantivy.Index.open(str(path))
    except ValueError as exc:
        raise IndexStateError(
            f"{path} is not a readable tantivy index ({exc}); roll back "
            "(`osrag index rollback`) or delete the folder and ingest again"
        ) from None
    index.register_tokenizer(
        TERMS_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    )
    vectors = VectorStore(path, int(dimension)) if dimension else None
    nested = {p: NestedIndex.open(path, n) for p, n in schema.nested.items()}
    return Generation(name, path, index, analyzer, index.schema, vectors, nested=nested)
