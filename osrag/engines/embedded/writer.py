"""Writes to the embedded index: bulk puts and deletes, each batch one tantivy commit.

A ``write`` is one tantivy commit of the chunks (after one of each nested field's
sub-index, :mod:`~osrag.engines.embedded.nested`): all of it visible, or none after a
crash. One batch at a time (tantivy has one writer per index; more writer threads of an
ingest queue here). tantivy's own writer lock refuses a second process writing to the same
generation (:class:`~osrag.errors.LockedError`). The writer knows nothing of the ingest
lock: an ingest, which holds that lock, opens a :meth:`EmbeddedWriter.session` of the
alias, and for its length the writers of the alias's generations stay open between
batches (segment merges run in the background, waited for when it ends).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import tantivy
from tantivy import Query

from osrag.engines.base import Action, Delete, ItemFailure, Put, WriteOutcome
from osrag.engines.embedded.generation import Generation
from osrag.engines.embedded.records import storage_failure
from osrag.engines.embedded.schema import (
    CHUNK_FIELD,
    ID_FIELD,
    ChunkSchema,
    Refused,
    nested_documents,
    to_document,
)
from osrag.engines.embedded.store import alias_of
from osrag.engines.mapping import VECTOR_FIELD
from osrag.errors import IndexStateError, LockedError, no_room

WRITER_HEAP = 128_000_000
NESTED_WRITER_HEAP = 32_000_000
log = logging.getLogger("osrag.engines.embedded")


class EmbeddedWriter:
    """Bulk writes to the generations ``open`` returns (see the module docstring)."""

    def __init__(self, schema: ChunkSchema, open_generation: Callable[[str], Generation]) -> None:
        self.schema = schema
        self._open = open_generation
        self._writers: dict[str, tantivy.IndexWriter] = {}
        """Generation → its writer, kept open during a session of its alias."""
        self._nested_writers: dict[str, dict[str, tantivy.IndexWriter]] = {}
        """Generation → the writer of each nested sub-index, kept with the generation's."""
        self._sessions: Counter[str] = Counter()
        self._guard = threading.RLock()
        self._writing = threading.Lock()

    @contextlib.contextmanager
    def session(self, alias: str) -> Iterator[None]:
        """Keep the alias's writers open until the outermost session of it ends."""
        with self._guard:
            self._sessions[alias] += 1
        failed = False
        try:
            yield
        except BaseException:
            failed = True
            raise
        finally:
            with self._guard:
                self._sessions[alias] -= 1
                last = self._sessions[alias] <= 0
                if last:
                    del self._sessions[alias]
            if last:
                try:
                    self.close_writers(alias)
                except Exception as exc:
                    # every batch was committed; only a background merge of segments
                    # failed (a full disk): searches are unaffected, the next write merges
                    if not failed and not no_room(exc):
                        raise
                    log.warning("alias %s: segments left unmerged (%s)", alias, exc)

    def finish(self, name: str) -> None:
        """Close the generation's writers, waiting for their merges (searched merged)."""
        with self._guard:
            writer = self._writers.pop(name, None)
            nested = self._nested_writers.pop(name, {})
        for each in [*nested.values(), *([writer] if writer is not None else [])]:
            each.wait_merging_threads()

    def abandon(self, name: str) -> None:
        """Roll back and close the generation's writers (it is about to be deleted)."""
        with self._guard:
            writer = self._writers.pop(name, None)
            nested = self._nested_writers.pop(name, {})
        for each in [*nested.values(), *([writer] if writer is not None else [])]:
            with contextlib.suppress(Exception):
                each.rollback()
        del writer, nested

    def write(self, generation: str, actions: Sequence[Action]) -> WriteOutcome:
        outcome = WriteOutcome()
        if actions:
            with self._writing:
                self._write_batch(generation, list(actions), outcome)
        return outcome

    def _writer(
        self, generation: Generation, index: tantivy.Index | None = None, heap: int = WRITER_HEAP
    ) -> tantivy.IndexWriter:
        try:
            return (index or generation.index).writer(heap_size=heap)
        except ValueError as exc:
            if "LockBusy" in str(exc) or "lock" in str(exc).lower():
                raise LockedError(
                    f"another process is writing to the embedded index {generation.path}: "
                    "wait for it to finish (one writer at a time)"
                ) from None
            raise IndexStateError(f"cannot write to {generation.path}: {exc}") from None

    def _existing_ids(self, generation: Generation, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        found = generation.searcher().aggregate(
            Query.term_set_query(generation.schema, ID_FIELD, ids),
            {"ids": {"terms": {"field": ID_FIELD, "size": len(ids)}}},
        )
        return {str(bucket["key"]) for bucket in found["ids"]["buckets"]}

    def _write_batch(self, name: str, actions: list[Action], outcome: WriteOutcome) -> None:
        """One commit of the chunks, after one of each nested sub-index. Inside a
        :meth:`session` of the alias the generation's writers stay open between batches
        (segment merges run in the background, waited for when the session ends);
        otherwise they are opened, used, merged and closed here."""
        generation = self._open(name)
        existing = self._existing_ids(generation, [a.id for a in actions if isinstance(a, Delete)])
        keep = self._sessions[alias_of(name) or ""] > 0
        with self._guard:
            writer = self._writers.pop(name, None)
            nested = self._nested_writers.pop(name, {})
        if writer is None:
            writer = self._writer(generation)
        for path, sub in generation.nested.items():
            if path not in nested:
                nested[path] = self._writer(generation, sub.index, NESTED_WRITER_HEAP)
        vectors: list[tuple[str, list[float]]] = []
        try:
            added: set[str] = set()
            refused: set[str] = set()
            for action in actions:
                if isinstance(action, Put):
                    self._put(generation, writer, nested, action, outcome, added, refused, vectors)
            for action in actions:  # after every put: see ChunkIndex.write
                if isinstance(action, Put) or action.id.rsplit("#", 2)[0] in refused:
                    continue
                if action.id in existing or action.id in added:
                    for sub_writer in nested.values():
                        sub_writer.delete_documents_by_term(CHUNK_FIELD, action.id)
                    writer.delete_documents_by_term(ID_FIELD, action.id)
                    existing.discard(action.id)
                    added.discard(action.id)
                    outcome.deleted += 1
            if generation.vectors is not None:
                generation.vectors.put(vectors)  # before the chunks become visible
            for sub_writer in nested.values():
                sub_writer.commit()  # before the chunks become visible
            writer.commit()
        except BaseException as exc:
            for each in [*nested.values(), writer]:
                with contextlib.suppress(Exception):
                    each.rollback()
            del writer, nested  # releases tantivy's writer locks
            # tantivy names the OS error of a commit; a write that failed in one of its
            # indexing threads only says the writer was killed by an io::Error
            if isinstance(exc, Exception) and (no_room(exc) or "io::error" in str(exc).lower()):
                raise storage_failure(exc, generation.path, "chunks") from None
            raise
        if generation.vectors is not None:
            try:  # the chunks are deleted: a vector left behind is never a hit
                generation.vectors.delete(a.id for a in actions if isinstance(a, Delete))
            except Exception as exc:
                log.warning("%s: vectors of deleted chunks left behind (%s)", generation.path, exc)
        if keep:
            with self._guard:
                self._writers[name] = writer
                self._nested_writers[name] = nested
        else:
            for each in [*nested.values(), writer]:
                each.wait_merging_threads()  # keep the segment count logarithmic; closes it
        generation.index.reload()
        for sub in generation.nested.values():
            sub.index.reload()

    def _put(
        self,
        generation: Generation,
        writer: tantivy.IndexWriter,
        nested: dict[str, tantivy.IndexWriter],
        action: Put,
        outcome: WriteOutcome,
        added: set[str],
        refused: set[str],
        vectors: list[tuple[str, list[float]]],
    ) -> None:
        """One chunk written (its nested objects replaced), or refused as the mapping would."""
        chunk_id = action.id
        try:
            source, vector = self._split_vector(generation, action.source)
            doc = to_document(self.schema, chunk_id, source, generation.analyzer)
            objects = nested_documents(self.schema, chunk_id, source, generation.analyzer)
        except Refused as exc:
            outcome.failures.append(ItemFailure(chunk_id, str(exc)))
            refused.add(chunk_id.rsplit("#", 2)[0])
            return
        if vector is not None:
            vectors.append((chunk_id, vector))
        for path, docs in objects.items():
            nested[path].delete_documents_by_term(CHUNK_FIELD, chunk_id)
            for sub_doc in docs:
                nested[path].add_document(sub_doc)
        writer.delete_documents_by_term(ID_FIELD, chunk_id)  # "index" overwrites
        writer.add_document(doc)
        added.add(chunk_id)
        outcome.written += 1

    @staticmethod
    def _split_vector(
        generation: Generation, source: dict[str, Any]
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

    def close_writers(self, alias: str | None = None, *, merge: bool = True) -> None:
        """Close the writers kept open (of one alias), waiting for their merges."""
        with self._guard:
            names = [n for n in self._writers if alias is None or alias_of(n) == alias]
            writers = [self._writers.pop(n) for n in names]
            for n in [n for n in self._nested_writers if alias is None or alias_of(n) == alias]:
                writers += self._nested_writers.pop(n).values()
        for writer in writers:
            if merge:
                writer.wait_merging_threads()
            else:
                with contextlib.suppress(Exception):
                    writer.rollback()
        del writers
