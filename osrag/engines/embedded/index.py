"""The zero-setup engine: tantivy indexes in a local folder, behaving like OpenSearch.

:class:`EmbeddedIndex` composes three parts, one job each:

* the store (:mod:`~osrag.engines.embedded.store`): the folder layout, the marker, the
  atomic alias pointer;
* the writer (:mod:`~osrag.engines.embedded.writer`): bulk writes and deletes, one
  tantivy commit a batch;
* the searcher (:mod:`~osrag.engines.embedded.searcher`): queries, with the same
  mapping (:mod:`~osrag.engines.embedded.schema`) and analyzer
  (:mod:`~osrag.engines.embedded.analyzers`) as OpenSearch.

The record store of an alias (manifest and ingest lock) is SQLite
(:mod:`~osrag.engines.embedded.records`). The engine does not know the ingest lock: an
ingest holding it opens :meth:`EmbeddedIndex.writing` for the alias, during which the
writers stay open between batches. A folder that is not osrag's, a corrupt pointer,
manifest or index raises :class:`~osrag.errors.IndexStateError` naming the path, never
a traceback.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from osrag.engines.base import (
    Action,
    ChunkIndex,
    EngineCapabilities,
    RecordStore,
    SearchType,
    WriteOutcome,
)
from osrag.engines.embedded.analyzers import get_analyzer
from osrag.engines.embedded.generation import Generation, open_generation
from osrag.engines.embedded.records import SQLiteRecords
from osrag.engines.embedded.schema import ChunkSchema, chunk_schema
from osrag.engines.embedded.searcher import EmbeddedSearcher
from osrag.engines.embedded.store import ALIAS_NAME, STORE_FORMAT, EmbeddedStore
from osrag.engines.embedded.writer import EmbeddedWriter
from osrag.engines.mapping import vector_dimension
from osrag.errors import ConfigError, IndexStateError
from osrag.schema.filters import Filter
from osrag.schema.ingest import GENERATION_NAME
from osrag.schema.plan import EngineResult, SearchPlan


class EmbeddedIndex(ChunkIndex):
    """osrag's index in a local folder (see the module docstring)."""

    name = "embedded"

    def __init__(self, root: Path | str) -> None:
        if not isinstance(root, str | os.PathLike) or str(root) in ("", "None"):
            # "None" is what str(None) makes of a missing value: an index written there
            # lands in whatever the working directory is
            raise ConfigError(f"the embedded index needs a folder, not {root!r}")
        self.root = Path(root)
        self.schema: ChunkSchema = chunk_schema()
        self._tantivy_schema = self.schema.tantivy_schema()
        self._store = EmbeddedStore(self.root)
        self._writer = EmbeddedWriter(self.schema, self._open)
        self._searcher = EmbeddedSearcher(self.schema, self._resolve)
        self._open_indexes: dict[str, Generation] = {}
        self._records: dict[str, SQLiteRecords] = {}
        self._guard = threading.RLock()

    def __repr__(self) -> str:
        return f"EmbeddedIndex({str(self.root)!r})"

    # -------------------------------------------------------------------- open indexes

    @property
    def storage_version(self) -> str:
        layout = hashlib.sha256(",".join(self.schema.field_names()).encode()).hexdigest()[:8]
        return f"embedded@{STORE_FORMAT}:{layout}"

    def _open(self, name: str) -> Generation:
        with self._guard:
            cached = self._open_indexes.get(name)
            if cached is not None and cached.path.is_dir():
                return cached
            path = self._store.require_generation_dir(name)
            self._store.alias_dir(GENERATION_NAME.fullmatch(name)["alias"])  # type: ignore[index]
            opened = self._open_indexes[name] = open_generation(name, path, self.schema)
            return opened

    def _resolve(self, target: str) -> Generation:
        """An alias (through its pointer) or a generation name → the open generation."""
        alias_dir = self._store.alias_dir(target) if ALIAS_NAME.fullmatch(target) else None
        if alias_dir is not None:
            current = self.alias_target(target)
            if current is None:
                raise IndexStateError(
                    f"alias {target!r} points to no generation yet: run `osrag ingest PATH` first"
                )
            return self._open(current)
        if self._store.generation_dir(target) is not None:
            return self._open(target)
        raise IndexStateError(
            f"no embedded index for {target!r} in {self.root}: run `osrag ingest PATH` first "
            "(or set OSRAG_URL to search a cluster)"
        )

    # -------------------------------------------------------------------- generations and the alias

    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        try:
            analyzer = body["settings"]["analysis"]["analyzer"]["osrag_text"]["type"]
        except (KeyError, TypeError):
            analyzer = "english"
        meta = {
            "format": STORE_FORMAT,
            "analyzer": get_analyzer(str(analyzer)).name,
            "mapping_version": self.schema.mapping_version,
            "fields": self.schema.field_names(),
            "vector_dimension": vector_dimension(body),
        }
        self._store.build_generation(
            name, meta, self._tantivy_schema, list(self.schema.nested.values())
        )

    def finish_generation(self, name: str) -> None:
        self._writer.finish(name)
        self.refresh(name)

    def drop_generation(self, name: str) -> None:
        if self._store.generation_dir(name) is None:
            return
        self._writer.abandon(name)
        with self._guard:
            opened = self._open_indexes.pop(name, None)
        if opened is not None and opened.vectors is not None:
            opened.vectors.close()
        self._store.remove_generation(name)

    def generations(self, alias: str) -> set[str]:
        return self._store.generations(alias)

    def alias_target(self, alias: str) -> str | None:
        return self._store.alias_target(alias)

    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        self._store.move_alias(alias, to, previous)

    # -------------------------------------------------------------------- chunks

    def writing(self, alias: str) -> contextlib.AbstractContextManager[None]:
        return self._writer.session(alias)

    def write(self, generation: str, actions: Sequence[Action]) -> WriteOutcome:
        return self._writer.write(generation, actions)

    def refresh(self, target: str) -> None:
        with contextlib.suppress(IndexStateError):
            self._resolve(target).index.reload()

    def count(self, target: str, filter: Filter | None = None) -> int:
        return self._searcher.count(target, filter)

    def chunk_ids(self, target: str, filter: Filter | None = None) -> Iterator[tuple[str, str]]:
        return self._searcher.chunk_ids(target, filter)

    def stored_vectors(self, target: str, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        vectors = self._resolve(target).vectors
        return {} if vectors is None or not chunk_ids else vectors.get(chunk_ids)

    def store_bytes(self, target: str) -> int | None:
        path = self._resolve(target).path
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())

    def search(
        self,
        target: str,
        plans: Sequence[SearchPlan],
        *,
        search_type: SearchType | None = None,
    ) -> list[EngineResult]:
        """Every plan on one searcher, compiled straight to tantivy queries. One index,
        one set of term statistics: every ``search_type`` scores the same."""
        return self._searcher.search(target, plans)

    def read_capabilities(self) -> EngineCapabilities:
        return EngineCapabilities(engine=self.name, knn="embedded")

    # -------------------------------------------------------------------- records

    def records(self, alias: str) -> RecordStore:
        with self._guard:
            store = self._records.get(alias)
            if store is None:

                def folder(create: bool) -> Path | None:
                    return self._store.alias_dir(alias, create=create)

                store = self._records[alias] = SQLiteRecords(folder)
            return store

    def close(self) -> None:
        self._writer.close_writers()
        with self._guard:
            for store in self._records.values():
                store.close()
            self._records.clear()
            for opened in self._open_indexes.values():
                if opened.vectors is not None:
                    opened.vectors.close()
            self._open_indexes.clear()
