"""The zero-setup backend: tantivy indexes in a local folder, behaving like OpenSearch.

Layout (``root`` is ``.osrag`` in the working directory, or ``$OSRAG_HOME/embedded``)::

    <root>/<alias>/OSRAG_EMBEDDED              marker: this folder is osrag's (format 1)
    <root>/<alias>/ALIAS                       the current generation's name (the pointer)
    <root>/<alias>/records.sqlite              the record store: manifest and ingest lock
    <root>/<alias>/generations/<name>/         one tantivy index per generation

Rules:

* **Same semantics as OpenSearch** — the same mapping
  (:mod:`~osrag.engines.embedded_schema`), the same analyzer
  (:mod:`~osrag.engines.analyzers`), the same query-DSL bodies compiled clause
  by clause (:mod:`~osrag.engines.dsl`) and answered in OpenSearch's response
  shape; ``collapse``, ``from``/``size``, ``sort`` (``_score`` and keyword
  fields) with ``search_after``, ``_source`` includes/excludes and highlight
  fragments as OpenSearch shapes them. Anything else is refused with a
  :class:`~osrag.errors.QueryError` naming it.
* **Atomic steps** — a ``write`` is one tantivy commit (all of it visible, or
  none after a crash); a generation is created in a temporary folder and
  renamed into place; the alias is moved by writing a temporary file, fsync,
  ``os.replace``, fsync of the folder: readers see the old or the new
  generation, never neither. The alias moves only after a complete build, so a
  crash mid-build leaves the previous generation readable.
* **One writer** — the ingest lock is a record of the SQLite record store
  (:mod:`osrag.ingestion.lock`, the same for every engine); tantivy's own writer lock
  refuses a second writer that bypassed it (:class:`~osrag.errors.LockedError`).
  While this process holds an alias's ingest lock its tantivy writer stays
  open between batches (merges run in the background) and is closed when the
  lock is released.
* **Clear failures** — a folder that is not osrag's, a corrupt pointer,
  manifest or index raises :class:`~osrag.errors.IndexStateError` naming the
  path, never a traceback.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import re
import shutil
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import tantivy
from tantivy import FieldType, Query

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the pointer is swapped without a lock
    fcntl = None  # type: ignore[assignment]

from osrag.engines.analyzers import Analyzer, get_analyzer
from osrag.engines.base import (
    Action,
    ChunkIndex,
    Delete,
    EngineCapabilities,
    ItemFailure,
    Put,
    RecordStore,
    SearchType,
    WriteOutcome,
)
from osrag.engines.dsl import Compiler
from osrag.engines.embedded_records import SQLiteRecords
from osrag.engines.embedded_schema import (
    ID_FIELD,
    KEY_FIELD,
    SOURCE_FIELD,
    TERMS_TOKENIZER,
    ChunkSchema,
    Refused,
    chunk_key,
    chunk_schema,
    to_document,
)
from osrag.engines.embedded_vectors import VectorStore
from osrag.engines.highlight import highlight
from osrag.engines.mapping import VECTOR_FIELD, vector_dimension
from osrag.engines.rest_compile import run_plans
from osrag.errors import ConfigError, IndexStateError, LockedError, QueryError
from osrag.ingestion.plan import GENERATION_NAME, generation_pattern
from osrag.search.plan import EngineResult, SearchPlan
from osrag.search.query import TIE_BREAK_SORT

FORMAT = 1
MARKER = "OSRAG_EMBEDDED"
POINTER = "ALIAS"
POINTER_LOCK = ".ALIAS.lock"
GENERATIONS = "generations"
GENERATION_META = "osrag-generation.json"
_ALIAS_NAME = re.compile(r"[^./\\\x00][^/\\\x00]{0,254}")
_REQUEST_KEYS = {
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
WRITER_HEAP = 128_000_000
_HOST = socket.gethostname()
MAX_COLLAPSE_DOCS = 65_535


def _filters_rank(plan: SearchPlan) -> SearchPlan:
    """A text leg whose analysed text has no terms ranks by the filters alone: no text."""
    leg = plan.text
    if leg is None or leg.no_terms != "all":
        return plan
    return replace(plan, text=replace(leg, text="", no_terms="none"), highlight=None)


def _alias_of(generation: str) -> str | None:
    parsed = GENERATION_NAME.fullmatch(generation)
    return parsed["alias"] if parsed else None


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_atomically(path: Path, data: bytes) -> None:
    """Write, fsync, rename over ``path``, fsync the folder: the old or the new, never half."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    _fsync_dir(path.parent)


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """Hold an OS lock on ``path`` (created if missing): one holder across processes."""
    with open(path, "a+b") as handle:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _remove_tree(path: Path) -> None:
    """Rename aside (one atomic step), then delete: never a half-deleted folder in place."""
    if not path.exists():
        return
    trash = path.with_name(f".trash-{path.name}-{uuid.uuid4().hex[:8]}")
    os.replace(path, trash)
    shutil.rmtree(trash, ignore_errors=True)


def _source_filter(spec: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
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


_FAST_SOURCE = frozenset({"chunk_id", "doc_id", "span", "chunk_index"})
"""``_source`` fields a hit can be given from the index's columns alone."""


def _fast_source(spec: Any) -> frozenset[str] | None:
    """The fields of an includes-only ``_source`` naming id fields only (what evaluation
    and ranking callers ask for), or None when the stored document is needed."""
    if isinstance(spec, dict) and set(spec) == {"includes"}:
        names = spec["includes"]
        if isinstance(names, list) and names and set(names) <= _FAST_SOURCE:
            return frozenset(names)
    return None


_Ranked = tuple[float, str, tantivy.DocAddress]
"""One hit in the request's order: ``(score, chunk_id, address)``. Plain tuples, so that
sorting them in reverse is exactly the request's sort (chunk ids are unique: the address
is never compared)."""


@dataclass
class _Generation:
    """One open tantivy index."""

    name: str
    path: Path
    index: tantivy.Index
    analyzer: Analyzer
    schema: tantivy.Schema
    vectors: VectorStore | None = None
    """The generation's vectors (a generation built with an embedder)."""
    chunk_ids: _ChunkIds = field(default_factory=lambda: _ChunkIds())

    def searcher(self) -> tantivy.Searcher:
        self.index.reload()  # ~40 µs: every search sees every commit, from any process
        return self.index.searcher()


class _ChunkIds:
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
                chunk_id = str(_stored_source(searcher, address)["chunk_id"])
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


def _stored_source(searcher: tantivy.Searcher, address: tantivy.DocAddress) -> dict[str, Any]:
    raw = searcher.doc(address).get_first(SOURCE_FIELD)
    source: dict[str, Any] = json.loads(raw) if raw else {}
    return source


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
        self._open_indexes: dict[str, _Generation] = {}
        self._records: dict[str, SQLiteRecords] = {}
        self._writers: dict[str, tantivy.IndexWriter] = {}
        """Generation → its writer, kept open while this process holds the ingest lock."""
        self._guard = threading.RLock()
        self._writing = threading.Lock()
        """One batch at a time: tantivy has one writer per index (more writer threads of an
        ingest queue here; the outcome is the same)."""

    def __repr__(self) -> str:
        return f"EmbeddedIndex({str(self.root)!r})"

    # -------------------------------------------------------------------- folders

    def _alias_dir(self, alias: str, *, create: bool = False) -> Path | None:
        """The alias's folder (checked to be osrag's), or None when it does not exist yet."""
        if not isinstance(alias, str) or not _ALIAS_NAME.fullmatch(alias):
            raise ConfigError(
                f"alias {alias!r} cannot name a folder of the embedded index "
                "(no '/', '\\', leading '.', at most 255 characters)"
            )
        if self.root.exists() and not self.root.is_dir():
            raise IndexStateError(f"{self.root} is a file, not the embedded index's folder")
        folder = self.root / alias
        marker = folder / MARKER
        if folder.is_dir() and marker.is_file():
            self._check_marker(marker, alias)
            return folder
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            if marker.is_file():  # another creator's folder was renamed into place meanwhile
                self._check_marker(marker, alias)
                return folder
            raise IndexStateError(
                f"{folder} exists but is not an osrag embedded index (no {MARKER} file): "
                "choose another --alias, or set OSRAG_HOME to another folder"
            )
        if not create:
            return None
        # Built aside and renamed into place: a concurrent creator never sees it half-made.
        building = self.root / f".creating-{alias}-{uuid.uuid4().hex[:8]}"
        try:
            (building / GENERATIONS).mkdir(parents=True)
            payload = {"osrag": "embedded-index", "format": FORMAT, "alias": alias}
            _write_atomically(building / MARKER, json.dumps(payload).encode() + b"\n")
            try:
                os.rename(building, folder)  # replaces an empty folder; fails on a full one
            except OSError:
                if not marker.is_file():
                    raise
            _fsync_dir(self.root)
        except OSError as exc:
            raise IndexStateError(f"cannot create the embedded index {folder}: {exc}") from None
        finally:
            shutil.rmtree(building, ignore_errors=True)
        self._check_marker(marker, alias)
        return folder

    @staticmethod
    def _check_marker(marker: Path, alias: str) -> None:
        try:
            content = json.loads(marker.read_text(encoding="utf-8"))
            fmt = int(content["format"])
        except (OSError, ValueError, KeyError, TypeError):
            raise IndexStateError(
                f"{marker} is corrupt (expected osrag's JSON marker): the folder may not be "
                "osrag's; choose another --alias or OSRAG_HOME"
            ) from None
        if fmt > FORMAT:
            raise IndexStateError(
                f"{marker.parent} was written by a newer osrag (format {fmt}; this one reads "
                f"{FORMAT}): upgrade osrag"
            )

    def _generation_dir(self, name: str) -> Path | None:
        parsed = GENERATION_NAME.fullmatch(name)
        if parsed is None:
            return None
        return self.root / parsed["alias"] / GENERATIONS / name

    def _require_generation_dir(self, name: str) -> Path:
        path = self._generation_dir(name)
        if path is None:
            raise IndexStateError(f"{name!r} is not a generation name (<alias>-<8 hex digest>-<n>)")
        return path

    # -------------------------------------------------------------------- open indexes

    @property
    def storage_version(self) -> str:
        layout = hashlib.sha256(",".join(self.schema.field_names()).encode()).hexdigest()[:8]
        return f"embedded@{FORMAT}:{layout}"

    def _open(self, name: str) -> _Generation:
        with self._guard:
            cached = self._open_indexes.get(name)
            if cached is not None and cached.path.is_dir():
                return cached
            path = self._require_generation_dir(name)
            alias = GENERATION_NAME.fullmatch(name)["alias"]  # type: ignore[index]
            self._alias_dir(alias)
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
            if fields != self.schema.field_names():
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
            opened = _Generation(name, path, index, analyzer, index.schema, vectors)
            self._open_indexes[name] = opened
            return opened

    def _resolve(self, target: str) -> _Generation:
        """An alias (through its pointer) or a generation name → the open generation."""
        alias_dir = self._alias_dir(target) if _ALIAS_NAME.fullmatch(target) else None
        if alias_dir is not None:
            current = self.alias_target(target)
            if current is None:
                raise IndexStateError(
                    f"alias {target!r} points to no generation yet: run `osrag ingest PATH` first"
                )
            return self._open(current)
        if self._generation_dir(target) is not None:
            return self._open(target)
        raise IndexStateError(
            f"no embedded index for {target!r} in {self.root}: run `osrag ingest PATH` first "
            "(or set OSRAG_URL to search a cluster)"
        )

    def _forget(self, name: str) -> None:
        with self._guard:
            self._open_indexes.pop(name, None)

    # -------------------------------------------------------------------- generations and the alias

    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        path = self._require_generation_dir(name)
        alias = GENERATION_NAME.fullmatch(name)["alias"]  # type: ignore[index]
        folder = self._alias_dir(alias, create=True)
        assert folder is not None
        if path.exists():
            raise IndexStateError(f"generation {name!r} already exists ({path})")
        try:
            analyzer = body["settings"]["analysis"]["analyzer"]["osrag_text"]["type"]
        except (KeyError, TypeError):
            analyzer = "english"
        building = path.with_name(f".building-{name}-{uuid.uuid4().hex[:8]}")
        try:
            building.mkdir(parents=True)
            meta = {
                "format": FORMAT,
                "analyzer": get_analyzer(str(analyzer)).name,
                "mapping_version": self.schema.mapping_version,
                "fields": self.schema.field_names(),
                "vector_dimension": vector_dimension(body),
            }
            (building / GENERATION_META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
            tantivy.Index(self._tantivy_schema, path=str(building))
            os.replace(building, path)
            _fsync_dir(path.parent)
        except (OSError, ValueError) as exc:
            shutil.rmtree(building, ignore_errors=True)
            raise IndexStateError(f"cannot create the generation {path}: {exc}") from None

    def finish_generation(self, name: str) -> None:
        with self._guard:
            writer = self._writers.pop(name, None)
        if writer is not None:
            writer.wait_merging_threads()  # a finished generation is searched merged
        self.refresh(name)

    def drop_generation(self, name: str) -> None:
        path = self._generation_dir(name)
        if path is None:
            return
        with self._guard:
            writer = self._writers.pop(name, None)
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.rollback()
            del writer
        opened = self._open_indexes.get(name)
        if opened is not None and opened.vectors is not None:
            opened.vectors.close()
        self._forget(name)
        pointer = path.parent.parent / POINTER
        with contextlib.suppress(OSError):
            if pointer.read_text(encoding="utf-8").strip() == name:
                pointer.unlink()  # as OpenSearch: deleting an index removes it from its alias
        try:
            _remove_tree(path)
        except OSError as exc:
            raise IndexStateError(f"cannot remove the generation {path}: {exc}") from None

    def _generation_exists(self, name: str) -> bool:
        path = self._generation_dir(name)
        return path is not None and (path / "meta.json").is_file()

    def generations(self, alias: str) -> set[str]:
        folder = self._alias_dir(alias)
        if folder is None or not (folder / GENERATIONS).is_dir():
            return set()
        pattern = generation_pattern(alias)
        return {
            entry.name
            for entry in (folder / GENERATIONS).iterdir()
            if pattern.fullmatch(entry.name) and (entry / "meta.json").is_file()
        }

    def alias_target(self, alias: str) -> str | None:
        folder = self._alias_dir(alias)
        if folder is None:
            return None
        pointer = folder / POINTER
        try:
            name = pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise IndexStateError(f"cannot read the alias pointer {pointer}: {exc}") from None
        parsed = GENERATION_NAME.fullmatch(name)
        if parsed is None or parsed["alias"] != alias:
            raise IndexStateError(
                f"the alias pointer {pointer} is corrupt (holds {name[:80]!r}, not a generation "
                f"of {alias!r}): `osrag index rollback --to <generation>` rewrites it"
            )
        return name

    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        folder = self._alias_dir(alias, create=True)
        assert folder is not None
        if not self._generation_exists(to) or GENERATION_NAME.fullmatch(to)["alias"] != alias:  # type: ignore[index]
            raise IndexStateError(f"cannot point {alias!r} at {to!r}: no such generation of it")
        with _exclusive(folder / POINTER_LOCK):  # compare and swap, across processes
            now = self.alias_target(alias)
            if now != previous:
                raise IndexStateError(
                    f"alias {alias!r} no longer points to {previous!r} but to {now!r} (another "
                    "ingest or rollback moved it): it was left as it is"
                )
            try:
                _write_atomically(folder / POINTER, f"{to}\n".encode())
            except OSError as exc:
                raise IndexStateError(
                    f"cannot move the alias pointer {folder / POINTER}: {exc}"
                ) from None

    # -------------------------------------------------------------------- chunks

    def write(self, generation: str, actions: Sequence[Action]) -> WriteOutcome:
        outcome = WriteOutcome()
        if actions:
            with self._writing:
                self._write_batch(generation, list(actions), outcome)
        return outcome

    def _writer(self, generation: _Generation) -> tantivy.IndexWriter:
        try:
            return generation.index.writer(heap_size=WRITER_HEAP)
        except ValueError as exc:
            if "LockBusy" in str(exc) or "lock" in str(exc).lower():
                raise LockedError(
                    f"another process is writing to the embedded index {generation.path}: "
                    "wait for it to finish (one writer at a time)"
                ) from None
            raise IndexStateError(f"cannot write to {generation.path}: {exc}") from None

    def _existing_ids(self, generation: _Generation, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        found = generation.searcher().aggregate(
            Query.term_set_query(generation.schema, ID_FIELD, ids),
            {"ids": {"terms": {"field": ID_FIELD, "size": len(ids)}}},
        )
        return {str(bucket["key"]) for bucket in found["ids"]["buckets"]}

    def _holds_lock(self, alias: str | None) -> bool:
        """Whether this process holds the alias's ingest lock (its writer may stay open)."""
        if alias is None:
            return False
        from osrag.ingestion.lock import holder

        found = holder(self.records(alias))
        return found is not None and found.pid == os.getpid() and found.host == _HOST

    def _write_batch(self, name: str, actions: list[Action], outcome: WriteOutcome) -> None:
        """One commit. While this process holds the alias's ingest lock its writer stays
        open between batches (segment merges run in the background, waited for when the
        lock is released); otherwise a writer is opened, used, merged and closed here."""
        generation = self._open(name)
        existing = self._existing_ids(generation, [a.id for a in actions if isinstance(a, Delete)])
        keep = self._holds_lock(_alias_of(name))
        with self._guard:
            writer = self._writers.pop(name, None)
        if writer is None:
            writer = self._writer(generation)
        vectors: list[tuple[str, list[float]]] = []
        try:
            added: set[str] = set()
            for action in actions:
                if isinstance(action, Put):
                    chunk_id = action.id
                    try:
                        source, vector = self._split_vector(generation, action.source)
                        doc = to_document(self.schema, chunk_id, source, generation.analyzer)
                    except Refused as exc:
                        outcome.failures.append(ItemFailure(chunk_id, str(exc)))
                        continue
                    if vector is not None:
                        vectors.append((chunk_id, vector))
                    writer.delete_documents_by_term(ID_FIELD, chunk_id)  # "index" overwrites
                    writer.add_document(doc)
                    added.add(chunk_id)
                    outcome.written += 1
                elif action.id in existing or action.id in added:
                    writer.delete_documents_by_term(ID_FIELD, action.id)
                    existing.discard(action.id)
                    added.discard(action.id)
                    outcome.deleted += 1
            if generation.vectors is not None:
                generation.vectors.put(vectors)  # before the chunks become visible
            writer.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                writer.rollback()
            del writer  # releases tantivy's writer lock
            raise
        if generation.vectors is not None:
            generation.vectors.delete(a.id for a in actions if isinstance(a, Delete))
        if keep:
            with self._guard:
                self._writers[name] = writer
        else:
            writer.wait_merging_threads()  # keep the segment count logarithmic; closes it
        generation.index.reload()

    @staticmethod
    def _split_vector(
        generation: _Generation, source: dict[str, Any]
    ) -> tuple[dict[str, Any], list[float] | None]:
        """The chunk without its vector (tantivy holds the rest), and the checked vector."""
        if VECTOR_FIELD not in source:
            return source, None
        rest = {k: v for k, v in source.items() if k != VECTOR_FIELD}
        if generation.vectors is None:
            raise Refused(
                f"strict_dynamic_mapping_exception: mapping set to strict, dynamic "
                f"introduction of [{VECTOR_FIELD}] within [_doc] is not allowed"
            )
        try:
            return rest, generation.vectors.check(str(source.get("chunk_id")), source[VECTOR_FIELD])
        except ValueError as exc:
            raise Refused(f"mapper_parsing_exception: {exc}") from None

    def _close_writers(self, alias: str | None = None, *, merge: bool = True) -> None:
        """Close the writers kept open (of one alias), waiting for their merges."""
        with self._guard:
            names = [n for n in self._writers if alias is None or _alias_of(n) == alias]
            writers = [self._writers.pop(n) for n in names]
        for writer in writers:
            if merge:
                writer.wait_merging_threads()
            else:
                with contextlib.suppress(Exception):
                    writer.rollback()
        del writers

    def refresh(self, target: str) -> None:
        with contextlib.suppress(IndexStateError):
            self._resolve(target).index.reload()

    def _compiler(self, generation: _Generation, searcher: tantivy.Searcher) -> Compiler:
        return Compiler(self.schema, generation.schema, generation.analyzer, searcher)

    @staticmethod
    def _count(searcher: tantivy.Searcher, query: Query) -> int:
        found = searcher.search(query, limit=1, count=True)
        return int(found.count or 0)  # type: ignore[attr-defined]  # not in tantivy's stubs

    def count(self, target: str, query: dict[str, Any] | None = None) -> int:
        generation = self._resolve(target)
        searcher = generation.searcher()
        compiled = (
            self._compiler(generation, searcher).compile(query, scoring=False)
            if query
            else Query.all_query()
        )
        return self._count(searcher, compiled)

    def msearch(
        self,
        target: str,
        bodies: Sequence[dict[str, Any]],
        *,
        search_type: SearchType | None = None,
    ) -> list[dict[str, Any]]:
        """Every body on one searcher (one point in time), answered as OpenSearch does.
        One index, one set of term statistics: every ``search_type`` scores the same."""
        generation = self._resolve(target)
        searcher = generation.searcher()
        answers = []
        for body in bodies:
            started = time.perf_counter()
            hits, total = self._execute(generation, searcher, body)
            answers.append(
                {
                    "took": round((time.perf_counter() - started) * 1000),
                    "timed_out": False,
                    "hits": {
                        "total": {"value": total, "relation": "eq"},
                        "max_score": max((h["_score"] or 0.0 for h in hits), default=None),
                        "hits": hits,
                    },
                }
            )
        return answers

    def search(
        self,
        target: str,
        plans: Sequence[SearchPlan],
        *,
        search_type: SearchType | None = None,
    ) -> list[EngineResult]:
        """The plans through the REST compiler and :meth:`msearch`."""
        return run_plans(self, target, [_filters_rank(p) for p in plans])

    def read_capabilities(self) -> EngineCapabilities:
        return EngineCapabilities(engine=self.name, knn="embedded")

    def _execute(
        self, generation: _Generation, searcher: tantivy.Searcher, body: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], int]:
        unknown = sorted(set(body) - _REQUEST_KEYS)
        if unknown:
            raise QueryError(f"the embedded index does not implement {', '.join(unknown)}")
        compiler = self._compiler(generation, searcher)
        size, offset = int(body.get("size", 10)), int(body.get("from", 0))
        requested = body.get("query", {"match_all": {}})
        if isinstance(requested, dict) and set(requested) == {"knn"}:
            return self._knn(generation, searcher, compiler, body, requested["knn"], size, offset)
        query = compiler.compile(requested)
        collapse = body.get("collapse")
        if collapse is not None and collapse != {"field": "doc_id"}:
            raise QueryError(f"collapse {collapse!r}: the embedded index collapses on doc_id only")
        sort = body.get("sort")
        if sort is not None and sort != TIE_BREAK_SORT:
            return self._by_fields(generation, searcher, body, query, sort, size, offset)
        if body.get("search_after") is not None:
            raise QueryError("search_after: the embedded index pages by a sort on keyword fields")
        page: list[_Ranked] = []
        if size > 0 and collapse is None:
            ranked, total = self._ranked(generation, searcher, query, offset + size)
            page = ranked[offset:]
        elif size > 0:
            page, total = self._collapsed(generation, searcher, query, offset, size)
        else:
            total = self._count(searcher, query)
        if "terminate_after" in body:  # as OpenSearch: stop counting after that many
            total = min(total, int(body["terminate_after"]))
        spec = body.get("highlight")
        fast = None if spec else _fast_source(body.get("_source"))
        name = generation.name
        if fast is not None:
            sources = self._fast_sources(searcher, page, fast)
        else:
            stored = [self._stored(searcher, address) for _score, _id, address in page]
            shown = _source_filter(body.get("_source"))
            sources = [shown(source) for source in stored]
        hits = []
        for n, (score, chunk_id, _address) in enumerate(page):
            hit: dict[str, Any] = {
                "_index": name,
                "_id": chunk_id,
                "_score": float(score),
                "_source": sources[n],
            }
            if spec:
                fragments = self._highlight(spec, stored[n], compiler, generation.analyzer)
                if fragments:
                    hit["highlight"] = {"body": fragments}
            if sort is not None:
                hit["sort"] = [float(score), chunk_id]
            hits.append(hit)
        return hits, total

    def _by_fields(
        self,
        generation: _Generation,
        searcher: tantivy.Searcher,
        body: dict[str, Any],
        query: Query,
        sort: Any,
        size: int,
        offset: int,
    ) -> tuple[list[dict[str, Any]], int]:
        """A sort on keyword fields (with ``search_after``): how osrag pages through every
        chunk id of a generation."""
        order = _sort_keys(sort)
        assert order is not None
        if body.get("collapse") is not None:
            raise QueryError("the embedded index does not sort a collapsed search")
        total = self._count(searcher, query)
        found = []
        if size > 0 and total:
            found = self._sorted(
                searcher, query, order, body.get("search_after"), offset, size, total
            )
        shown = _source_filter(body.get("_source"))
        hits = [
            {
                "_index": generation.name,
                "_id": source.get("chunk_id"),
                "_score": float(score),
                "_source": shown(source),
                "sort": values,
            }
            for score, source, values in found
        ]
        return hits, total

    def _knn(
        self,
        generation: _Generation,
        searcher: tantivy.Searcher,
        compiler: Compiler,
        body: dict[str, Any],
        spec: Any,
        size: int,
        offset: int,
    ) -> tuple[list[dict[str, Any]], int]:
        """OpenSearch's ``knn`` query (lucene engine, efficient filtering): the ``k``
        nearest chunks among those passing ``filter``, then ``from``/``size``."""
        if set(body) - {"query", "size", "from", "_source", "track_total_hits"}:
            raise QueryError("a knn query on the embedded index takes size, from and _source")
        if not isinstance(spec, dict) or set(spec) != {VECTOR_FIELD}:
            raise QueryError(f"knn: the embedded index searches the {VECTOR_FIELD!r} field only")
        params = spec[VECTOR_FIELD]
        if not isinstance(params, dict) or set(params) - {"vector", "k", "filter"}:
            raise QueryError("knn: expected vector, k and an optional filter")
        if generation.vectors is None:
            raise QueryError(f"knn: generation {generation.name} holds no vectors")
        candidates: set[str] | None = None
        if "filter" in params:
            query = compiler.compile(params["filter"], scoring=False)
            matched = self._count(searcher, query)
            found = searcher.aggregate(
                query, {"ids": {"terms": {"field": ID_FIELD, "size": max(matched, 1)}}}
            )
            candidates = {str(bucket["key"]) for bucket in found["ids"]["buckets"]}
        nearest = generation.vectors.nearest(params["vector"], int(params["k"]), candidates)
        page = nearest[offset : offset + size]
        shown = _source_filter(body.get("_source"))
        sources = self._sources(generation, searcher, [chunk_id for chunk_id, _ in page])
        hits = [
            {
                "_index": generation.name,
                "_id": chunk_id,
                "_score": score,
                "_source": shown(sources[chunk_id]),
            }
            for chunk_id, score in page
            if chunk_id in sources
        ]
        return hits, len(nearest)

    def _sources(
        self, generation: _Generation, searcher: tantivy.Searcher, chunk_ids: list[str]
    ) -> dict[str, dict[str, Any]]:
        if not chunk_ids:
            return {}
        query = Query.term_set_query(generation.schema, ID_FIELD, chunk_ids)
        found = searcher.search(query, limit=len(chunk_ids))
        sources = [self._stored(searcher, address) for _, address in found.hits]
        return {str(source.get("chunk_id")): source for source in sources}

    def _sorted(
        self,
        searcher: tantivy.Searcher,
        query: Query,
        order: list[tuple[str, bool]],
        after: list[Any] | None,
        offset: int,
        size: int,
        total: int,
    ) -> list[tuple[float, dict[str, Any], list[Any] | None]]:
        """Every match, ordered by the sort keys, from after ``search_after``."""
        result = searcher.search(query, limit=total)
        rows = []
        for score, address in result.hits:
            source = self._stored(searcher, address)
            values = [score if field == "_score" else source.get(field) for field, _ in order]
            rows.append((_SortKey(values, order), score, source, values))
        rows.sort(key=lambda row: row[0])
        if after is not None:
            bound = _SortKey(list(after), order)
            rows = [row for row in rows if bound < row[0]]
        return [
            (score, source, values) for _, score, source, values in rows[offset : offset + size]
        ]

    def _ranked(
        self, generation: _Generation, searcher: tantivy.Searcher, query: Query, want: int
    ) -> tuple[list[_Ranked], int]:
        """The first ``want`` hits in the request's order (score, then chunk id, both
        descending), and how many documents match.

        tantivy's top-k returns tied scores in internal order, so the group tied at the
        cut-off may continue beyond it: the fetch widens until a lower score follows the
        last wanted hit (or nothing does), then the fetched hits are ordered exactly.
        """
        if want <= 0:
            found = searcher.search(query, limit=1, count=True)
            return [], int(found.count or 0)  # type: ignore[attr-defined]
        limit = want + 1
        while True:
            found = searcher.search(query, limit=limit, count=True)
            total = int(found.count or 0)  # type: ignore[attr-defined]
            scored: list[tuple[float, tantivy.DocAddress]] = found.hits
            if len(scored) < limit or scored[-1][0] < scored[want - 1][0]:
                break
            # a tie group is usually a few hits (duplicated passages): widen a little first,
            # then fourfold (a filter-only query ties every hit)
            grown = limit + max(64, want // 8) if limit == want + 1 else limit * 4
            limit = min(grown, max(total, limit + 1))
        addresses = [address for _score, address in scored]
        ids = generation.chunk_ids.resolve(searcher, self._tantivy_schema, addresses)
        ranked = sorted(
            zip([score for score, _address in scored], ids, addresses, strict=True), reverse=True
        )
        return ranked[:want], total

    @staticmethod
    def _fast_sources(
        searcher: tantivy.Searcher, page: list[_Ranked], fields: frozenset[str]
    ) -> list[dict[str, Any]]:
        """``_source`` of the id fields from the index's columns: no stored document is read."""
        addresses = [address for _score, _id, address in page]
        ids = [chunk_id for _score, chunk_id, _address in page]
        sources: list[dict[str, Any]] = [{} for _ in page]
        if "chunk_id" in fields:
            for source, chunk_id in zip(sources, ids, strict=True):
                source["chunk_id"] = chunk_id
        if "doc_id" in fields:
            for source, chunk_id in zip(sources, ids, strict=True):
                source["doc_id"] = chunk_id.rsplit("#", 2)[0]  # doc_id_of, inlined
        if "span" in fields:
            starts = searcher.fast_field_values("span.start", addresses)
            ends = searcher.fast_field_values("span.end", addresses)
            for source, start, end in zip(sources, starts, ends, strict=True):
                source["span"] = {"start": start, "end": end}
        if "chunk_index" in fields:
            numbers = searcher.fast_field_values("chunk_index", addresses)
            for source, number in zip(sources, numbers, strict=True):
                source["chunk_index"] = number
        return sources

    @staticmethod
    def _stored(searcher: tantivy.Searcher, address: tantivy.DocAddress) -> dict[str, Any]:
        return _stored_source(searcher, address)

    def _collapsed(
        self,
        generation: _Generation,
        searcher: tantivy.Searcher,
        query: Query,
        offset: int,
        size: int,
    ) -> tuple[list[_Ranked], int]:
        """The best hit of each document, documents ranked by it (OpenSearch's ``collapse``),
        and how many chunks match (``hits.total`` counts chunks under collapse too)."""
        want = offset + size
        limit = want + want // 4 + 16  # most documents have one chunk among the best hits
        while True:
            ranked, total = self._ranked(generation, searcher, query, limit)
            best: dict[str, _Ranked] = {}
            for hit in ranked:
                best.setdefault(hit[1].rsplit("#", 2)[0], hit)  # doc_id_of, inlined
            if len(best) >= want or limit >= total or limit >= MAX_COLLAPSE_DOCS * 16:
                return list(best.values())[offset:want], total
            # widen by the chunks per document seen so far, at least twofold
            per_document = len(ranked) / max(len(best), 1)
            limit = max(2 * limit, int(want * per_document * 1.25) + 16)

    @staticmethod
    def _highlight(
        spec: Any, source: dict[str, Any], compiler: Compiler, analyzer: Analyzer
    ) -> list[str]:
        if not spec:
            return []
        allowed = {"fields", "pre_tags", "post_tags", "require_field_match"}
        if not isinstance(spec, dict) or set(spec) - allowed:
            raise QueryError(
                f"highlight: the embedded index implements {', '.join(sorted(allowed))}"
            )
        fields = spec.get("fields") or {}
        if set(fields) - {"body"}:
            raise QueryError("highlight: the embedded index highlights the body field only")
        if "body" not in fields:
            return []
        options = fields["body"] or {}
        # OpenSearch's default: only terms of queries on the highlighted field itself
        if spec.get("require_field_match", True):
            terms = compiler.match_terms.get("body", [])
        else:
            terms = [t for field_terms in compiler.match_terms.values() for t in field_terms]
        return highlight(
            str(source.get("body") or ""),
            analyzer,
            terms,
            number_of_fragments=int(options.get("number_of_fragments", 5)),
            fragment_size=int(options.get("fragment_size", 100)),
            pre_tag=(spec.get("pre_tags") or ["<em>"])[0],
            post_tag=(spec.get("post_tags") or ["</em>"])[0],
        )

    # -------------------------------------------------------------------- records

    def records(self, alias: str) -> RecordStore:
        with self._guard:
            store = self._records.get(alias)
            if store is None:

                def folder(create: bool) -> Path | None:
                    return self._alias_dir(alias, create=create)

                def released(kind: str, _key: str) -> None:
                    if kind == "lock":
                        self._close_writers(alias)

                store = self._records[alias] = SQLiteRecords(folder, on_delete=released)
            return store

    def close(self) -> None:
        self._close_writers()
        with self._guard:
            for store in self._records.values():
                store.close()
            self._records.clear()
            for opened in self._open_indexes.values():
                if opened.vectors is not None:
                    opened.vectors.close()
            self._open_indexes.clear()


def _sort_keys(spec: Any) -> list[tuple[str, bool]] | None:
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
        if field != "_score" and field not in _SORTABLE:
            raise QueryError(f"sort on {field}: the embedded index sorts on _score and {_SORTABLE}")
        keys.append((field, direction == "desc"))
    if keys == [("_score", True)]:
        return None
    return keys


_SORTABLE = ("chunk_id", "doc_id", "source_path")


class _SortKey:
    """Orders rows by several keys, each ascending or descending; missing values last."""

    __slots__ = ("order", "values")

    def __init__(self, values: list[Any], order: list[tuple[str, bool]]) -> None:
        self.values, self.order = values, order

    def __lt__(self, other: _SortKey) -> bool:
        for mine, theirs, (_, descending) in zip(
            self.values, other.values, self.order, strict=False
        ):
            if mine == theirs:
                continue
            if mine is None or theirs is None:
                return theirs is None
            return bool(mine > theirs) if descending else bool(mine < theirs)
        return False
