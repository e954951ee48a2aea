"""Index generations, the alias swap, incremental sync and the manifest.

A generation is one index built with one configuration; its name is
``<alias>-<digest>-<n>``, where the digest covers the chunking strategy and
parameters, tokenizer@version, parser@version, extractor versions, the text
analyzer and the mapping version. The alias readers search points to exactly
one generation.

* **Same configuration → incremental sync in place.** Unchanged documents (same
  source version) cost zero writes; a changed document gets its new chunk ids
  written and its vanished ids deleted by id; unchanged chunk ids are not
  rewritten; a source that disappeared has its chunks deleted (``prune``).
* **New configuration → a new generation**, built completely (bulk-loading
  settings), checked (its chunk count equals the manifest's), then the alias
  moves in one ``_aliases`` call. The previous generation stays for rollback
  (the newest ``keep`` are kept). A crash mid-build leaves the alias where it
  was; a rerun resumes the half-built generation and completes it.
* **Nothing already stored is lost to bad input**: a file that fails to load is
  reported, and its previous chunks are kept (it is never mistaken for a
  deleted file).
* **One writer per alias**: a lock record created with ``op_type=create``
  (stale after ``lock_ttl``, renewed while the ingest runs).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osrag.backends.base import Backend, DeleteOp, IndexOp, WriteOp
from osrag.config import DEFAULT_ALIAS
from osrag.documents import load_corpus
from osrag.errors import IndexStateError, LockedError
from osrag.mapping import mapping_version
from osrag.models import (
    ChangeRecord,
    Chunk,
    ChunkingConfig,
    Document,
    DocumentRecord,
    ExtractionConfig,
    GenerationRecord,
    IngestReport,
    LoadIssue,
)
from osrag.pipeline import default_workers, pipeline_versions, prepare_stream

Progress = Callable[[int, int], None]
"""Called with (documents seen, chunks written) as an ingest advances."""


@dataclass(frozen=True)
class IngestOptions:
    alias: str = DEFAULT_ALIAS
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    analyzer: str = "english"
    canonical_tokens: bool = False
    """Evaluation baseline only: ``money:<cents>`` tokens in the searched text."""
    prune: bool = True
    dry_run: bool = False
    keep: int = 2
    """Generations kept per alias, the current one included (≥ 1)."""
    lock_ttl: dt.timedelta = dt.timedelta(minutes=10)
    lock_wait: float = 0.0
    """Seconds to wait for another ingest's lock before failing."""
    batch_chunks: int = 1000
    workers: int = field(default_factory=default_workers)
    """Processes that chunk and extract (1: all in this process)."""
    move_alias: bool = True
    """False builds a generation without pointing the alias at it (evaluation)."""


def generation_config(options: IngestOptions) -> dict[str, Any]:
    return {
        "chunking": options.chunking.model_dump(mode="json", round_trip=True),
        "extraction": options.extraction.model_dump(mode="json", round_trip=True),
        "analyzer": options.analyzer,
        "canonical_tokens": options.canonical_tokens,
    }


def generation_versions(options: IngestOptions, backend: Backend | None = None) -> dict[str, str]:
    """Every version a generation's contents depend on (they go into its digest)."""
    versions = {
        **pipeline_versions(options.chunking, options.extraction),
        "mapping": str(mapping_version()),
    }
    if backend is not None and backend.storage_version:
        versions["storage"] = backend.storage_version
    return versions


def config_digest(config: dict[str, Any], versions: dict[str, str]) -> str:
    """First 8 hex of SHA-256 over the configuration and every version."""
    payload = json.dumps({"config": config, "versions": versions}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:8]


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class _Known:
    """The slim part of a manifest record kept in memory for a whole ingest."""

    source_version: str
    source_path: str
    chunks: int
    tenant: str | None
    has_acl: bool


@dataclass
class _Pending:
    doc: Document
    chunks: list[Chunk]
    previous: _Known | None


class _Lock:
    def __init__(self, backend: Backend, alias: str, ttl: dt.timedelta, wait: float) -> None:
        self.backend, self.alias, self.ttl, self.wait = backend, alias, ttl, wait
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.renewed = 0.0

    def __enter__(self) -> _Lock:
        deadline = time.monotonic() + self.wait
        while True:
            holder = self.backend.try_lock(self.alias, self.owner, self.ttl)
            if holder is None:
                self.renewed = time.monotonic()
                return self
            if time.monotonic() >= deadline:
                raise LockedError(
                    f"another ingest holds the lock on alias {self.alias!r} "
                    f"(owner {holder.owner}, since {holder.acquired_at:%Y-%m-%d %H:%M:%S} UTC, "
                    f"stale after {holder.expires_at:%H:%M:%S} UTC): wait for it, or rerun "
                    "with --wait SECONDS"
                )
            time.sleep(min(1.0, max(0.05, deadline - time.monotonic())))

    def renew_if_due(self) -> None:
        if time.monotonic() - self.renewed > self.ttl.total_seconds() / 3:
            self.backend.renew_lock(self.alias, self.owner, self.ttl)
            self.renewed = time.monotonic()

    def __exit__(self, *exc: object) -> None:
        self.backend.release_lock(self.alias, self.owner)


@dataclass
class _Batch:
    pending: list[_Pending]
    ops: list[WriteOp]
    old_ids: dict[str, list[str]]


class _Sync:
    """Writes pending documents in batches and keeps the report and manifest honest.

    Chunking and extraction (Python) overlap with the engine's indexing (another
    process): batches go through a queue of two to the backend's
    ``write_concurrency`` writer threads (OpenSearch: two, so one bulk request is
    indexed while the next is built and sent; embedded: one writer), and memory
    stays bounded by a few batches whatever the corpus size.
    """

    _DONE = None

    def __init__(
        self,
        backend: Backend,
        options: IngestOptions,
        generation: str,
        report: IngestReport,
        lock: _Lock | None,
        progress: Progress | None,
    ) -> None:
        self.backend, self.options, self.generation = backend, options, generation
        self.report, self.lock, self.progress = report, lock, progress
        self.pending: list[_Pending] = []
        self.pending_chunks = 0
        self._queue: queue.Queue[_Batch | None] = queue.Queue(maxsize=2)
        self._failure: BaseException | None = None
        self._counts = threading.Lock()
        self._writers: list[threading.Thread] = []
        if not options.dry_run:
            for n in range(max(1, backend.write_concurrency)):
                writer = threading.Thread(
                    target=self._write_loop, name=f"osrag-writer-{n}", daemon=True
                )
                writer.start()
                self._writers.append(writer)

    def add(self, doc: Document, chunks: list[Chunk], previous: _Known | None) -> None:
        self.pending.append(_Pending(doc, chunks, previous))
        self.pending_chunks += len(chunks)
        if self.pending_chunks >= self.options.batch_chunks:
            self._dispatch()

    def close(self) -> None:
        """Write what is pending, wait for the writers, re-raise what they met."""
        try:
            self._dispatch()
        finally:
            self._stop_writers()
        if self._failure is not None:
            raise self._failure

    def abort(self) -> None:
        """Stop the writers without writing what is pending (an error happened upstream)."""
        self.pending = []
        self._stop_writers()

    def _stop_writers(self) -> None:
        for _writer in self._writers:
            self._put(self._DONE)
        for writer in self._writers:
            writer.join()

    def _put(self, item: _Batch | None) -> None:
        while True:
            if not any(writer.is_alive() for writer in self._writers):
                return
            try:
                self._queue.put(item, timeout=0.5)
                return
            except queue.Full:
                continue

    def _dispatch(self) -> None:
        if self._failure is not None:
            raise self._failure
        if not self.pending:
            return
        batch, self.pending, self.pending_chunks = self.pending, [], 0
        changed = [p.doc.doc_id for p in batch if p.previous is not None]
        old_ids: dict[str, list[str]] = {
            doc_id: record.chunk_ids
            for doc_id, record in self.backend.get_documents(
                self.options.alias, self.generation, changed
            ).items()
        }
        ops: list[WriteOp] = []
        for p in batch:
            before = set(old_ids.get(p.doc.doc_id, []))
            now = {c.chunk_id for c in p.chunks}
            ops += [IndexOp(c, self.generation) for c in p.chunks if c.chunk_id not in before]
            ops += [DeleteOp(i, self.generation) for i in sorted(before - now)]
        if self.options.dry_run:
            self.report.chunks_written += sum(isinstance(op, IndexOp) for op in ops)
            self.report.chunks_deleted += sum(isinstance(op, DeleteOp) for op in ops)
            return
        self._put(_Batch(batch, ops, old_ids))
        if self._failure is not None:
            raise self._failure

    def _write_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is self._DONE:
                return
            if self._failure is not None:
                continue  # drain: the error is re-raised by the producer
            try:
                self._write(item)
            except BaseException as exc:  # re-raised in the producer thread
                self._failure = exc

    def _write(self, item: _Batch) -> None:
        alias = self.options.alias
        outcome = self.backend.write(item.ops)
        with self._counts:
            self.report.chunks_written += outcome.written
            self.report.chunks_deleted += outcome.deleted
            self.report.throttled += outcome.throttled
            self.report.bulk_retries += outcome.retries
        failed: dict[str, list[str]] = {}
        for failure in outcome.failures:
            failed.setdefault(failure.doc_id, []).append(f"{failure.chunk_id}: {failure.reason}")
        now_at = _utcnow()
        records, changes = [], []
        for p in item.pending:
            doc = p.doc
            if doc.doc_id in failed:
                reasons = failed[doc.doc_id]
                self.report.errors.append(
                    LoadIssue(
                        path=doc.source_path,
                        line=doc.source_line,
                        reason=f"document {doc.doc_id!r}: {len(reasons)} chunk(s) refused by the "
                        f"index (kept its previous version in the manifest): {reasons[0]}",
                    )
                )
                continue
            new_ids = [c.chunk_id for c in p.chunks]
            records.append(
                DocumentRecord(
                    generation=self.generation,
                    doc_id=doc.doc_id,
                    source_path=doc.source_path,
                    source_version=doc.source_version,
                    chunk_ids=new_ids,
                    tenant=doc.tenant,
                    has_acl=bool(doc.acl),
                    ingested_at=now_at,
                )
            )
            previous = item.old_ids.get(doc.doc_id)
            changes.append(
                ChangeRecord(
                    generation=self.generation,
                    doc_id=doc.doc_id,
                    action="replaced" if previous is not None else "added",
                    old_ids=previous or [],
                    new_ids=new_ids,
                    at=now_at,
                )
            )
        self.backend.put_documents(alias, records)
        self.backend.append_changes(alias, changes)
        if self.lock is not None:
            self.lock.renew_if_due()
        if self.progress:
            self.progress(self.report.documents, self.report.chunks_written)


def _choose_generation(
    backend: Backend,
    options: IngestOptions,
    digest: str,
    config: dict[str, Any],
    versions: dict[str, str],
) -> tuple[GenerationRecord, bool, str | None]:
    """The generation to write into, whether it was created now, and the alias's current one."""
    alias = options.alias
    current = backend.alias_target(alias)
    current_record = backend.get_generation(alias, current) if current else None
    if current and current_record is None:
        raise IndexStateError(
            f"alias {alias!r} points to {current!r}, which osrag's manifest does not know: "
            "choose another --alias, or remove the alias if it is not in use"
        )
    if current_record is not None and current_record.digest == digest:
        return current_record, False, current
    records = backend.list_generations(alias)
    for record in reversed(records):
        if record.digest == digest and backend.generation_exists(record.name):
            # resume a build a crash left behind, or sync a kept generation (after a rollback)
            return record, False, current
    number = 1 + max((r.number for r in records if r.digest == digest), default=0)
    name = f"{alias}-{digest}-{number}"
    while backend.generation_exists(name):  # an index without a record: never reuse it
        number += 1
        name = f"{alias}-{digest}-{number}"
    record = GenerationRecord(
        name=name,
        alias=alias,
        digest=digest,
        number=number,
        config=config,
        versions=versions,
        state="building",
        created_at=_utcnow(),
    )
    if not options.dry_run:
        backend.create_generation(name, bulk_loading=True, analyzer=options.analyzer)
        backend.put_generation(record)
    return record, True, current


def ingest(
    path: Path,
    backend: Backend,
    options: IngestOptions | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Load → chunk → extract → write ``path`` into the alias's generation. See the module doc."""
    options = options or IngestOptions()
    if options.keep < 1:
        raise IndexStateError("keep must be at least 1 (the current generation)")
    started = time.perf_counter()
    config, versions = generation_config(options), generation_versions(options, backend)
    digest = config_digest(config, versions)
    lock = (
        None
        if options.dry_run
        else _Lock(backend, options.alias, options.lock_ttl, options.lock_wait)
    )
    if lock is not None:
        lock.__enter__()
    try:
        report = _ingest_locked(path, backend, options, digest, config, versions, lock, progress)
    finally:
        if lock is not None:
            lock.__exit__(None, None, None)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _ingest_locked(
    path: Path,
    backend: Backend,
    options: IngestOptions,
    digest: str,
    config: dict[str, Any],
    versions: dict[str, str],
    lock: _Lock | None,
    progress: Progress | None,
) -> IngestReport:
    alias = options.alias
    target, is_new, current = _choose_generation(backend, options, digest, config, versions)
    switching = target.name != current
    report = IngestReport(
        generation=target.name,
        alias=alias,
        new_generation=is_new,
        previous_generation=current if switching else None,
        dry_run=options.dry_run,
    )
    known: dict[str, _Known] = {}
    if not (options.dry_run and is_new):
        known = {
            r.doc_id: _Known(r.source_version, r.source_path, len(r.chunk_ids), r.tenant, r.has_acl)
            for r in backend.iter_documents(alias, target.name)
        }
    sync = _Sync(backend, options, target.name, report, lock, progress)
    seen: dict[str, str] = {}
    failed_paths: set[str] = set()

    def to_prepare() -> Iterator[Document]:
        """New and changed documents; issues and unchanged documents are counted here."""
        for item in load_corpus(path):
            if isinstance(item, LoadIssue):
                report.errors.append(item)
                failed_paths.add(item.path)
                continue
            seen[item.doc_id] = item.source_path  # load_corpus already refuses duplicate ids
            report.documents += 1
            previous = known.get(item.doc_id)
            if previous is not None and previous.source_version == item.source_version:
                report.documents_unchanged += 1
                report.chunks_unchanged += previous.chunks
                continue
            yield item

    prepared = prepare_stream(
        to_prepare(),
        options.chunking,
        options.extraction,
        canonical_tokens=options.canonical_tokens,
        workers=options.workers,
    )
    try:
        for doc, chunks in prepared:
            previous = known.get(doc.doc_id)
            if not chunks:
                report.documents_empty.append(doc.doc_id)
            if previous is None:
                report.documents_added += 1
            else:
                report.documents_changed += 1
            sync.add(doc, chunks, previous)
    except BaseException:
        prepared.close()  # stops the worker pool
        sync.abort()
        raise
    sync.close()

    if options.prune:
        removed = [
            doc_id
            for doc_id, k in known.items()
            if doc_id not in seen and k.source_path not in failed_paths
        ]
        _remove_documents(backend, options, target.name, removed, report)

    if options.dry_run:
        return report
    changed = report.documents_added + report.documents_changed + report.documents_removed
    if not switching and not changed:
        return report  # nothing was written: no refresh, no manifest update

    backend.refresh(target.name)
    backend.refresh_manifest(alias)
    records = list(backend.iter_documents(alias, target.name))
    expected = sum(len(r.chunk_ids) for r in records)
    target.documents = len(records)
    target.chunks = expected
    target.tenants = sorted({r.tenant for r in records if r.tenant})
    target.has_acl = any(r.has_acl for r in records)
    target.updated_at = _utcnow()
    if switching:
        if target.state == "building":
            backend.finish_generation(target.name)
        actual = backend.count(target.name)
        deadline = time.monotonic() + (120 if backend.eventual_refresh else 0)
        while actual != expected and time.monotonic() < deadline:
            time.sleep(2)  # Serverless: no _refresh; wait for the service's own
            actual = backend.count(target.name)
        if actual != expected:
            backend.put_generation(target)
            raise IndexStateError(
                f"generation {target.name} holds {actual} chunks but its manifest lists "
                f"{expected}; "
                f"the alias still points to {current!r}. Rerun the ingest to complete it."
            )
        target.state = "ready"
        target.completed_at = _utcnow()
        backend.put_generation(target)
        if options.move_alias:
            backend.move_alias(alias, target.name, current)
            report.alias_moved = True
            _retire_old_generations(backend, alias, options.keep)
    else:
        backend.put_generation(target)
    return report


def _remove_documents(
    backend: Backend,
    options: IngestOptions,
    generation: str,
    removed: list[str],
    report: IngestReport,
) -> None:
    alias = options.alias
    for start in range(0, len(removed), 500):
        batch = removed[start : start + 500]
        records = backend.get_documents(alias, generation, batch)
        ops: list[WriteOp] = [
            DeleteOp(chunk_id, generation) for r in records.values() for chunk_id in r.chunk_ids
        ]
        report.documents_removed += len(batch)
        if options.dry_run:
            report.chunks_deleted += len(ops)
            continue
        outcome = backend.write(ops)
        report.chunks_deleted += outcome.deleted
        for failure in outcome.failures:
            report.errors.append(
                LoadIssue(
                    path=failure.doc_id, reason=f"delete {failure.chunk_id}: {failure.reason}"
                )
            )
        now = _utcnow()
        backend.delete_documents(alias, generation, batch)
        backend.append_changes(
            alias,
            [
                ChangeRecord(
                    generation=generation,
                    doc_id=doc_id,
                    action="deleted",
                    old_ids=r.chunk_ids,
                    at=now,
                )
                for doc_id, r in records.items()
            ],
        )


def _retire_old_generations(backend: Backend, alias: str, keep: int) -> list[str]:
    current = backend.alias_target(alias)
    records = [r for r in backend.list_generations(alias) if r.name != current]
    records.sort(key=lambda r: r.created_at)
    doomed = records[: max(0, len(records) - (keep - 1))]
    for record in doomed:
        backend.drop_generation(record.name)
        backend.delete_generation_record(alias, record.name)
    return [r.name for r in doomed]


# --------------------------------------------------------------------------- status, list, rollback


@dataclass
class GenerationView:
    record: GenerationRecord
    current: bool
    chunks_in_index: int | None


def list_generations(backend: Backend, alias: str = DEFAULT_ALIAS) -> list[GenerationView]:
    current = backend.alias_target(alias)
    views = []
    for record in backend.list_generations(alias):
        exists = backend.generation_exists(record.name)
        views.append(
            GenerationView(
                record=record,
                current=record.name == current,
                chunks_in_index=backend.count(record.name) if exists else None,
            )
        )
    return views


def current_generation(backend: Backend, alias: str = DEFAULT_ALIAS) -> GenerationRecord:
    current = backend.alias_target(alias)
    if current is None:
        raise IndexStateError(f"alias {alias!r} does not exist yet: run `osrag ingest PATH` first")
    record = backend.get_generation(alias, current)
    if record is None:
        raise IndexStateError(
            f"alias {alias!r} points to {current!r}, which the manifest does not know"
        )
    return record


def rollback(
    backend: Backend, alias: str = DEFAULT_ALIAS, to: str | None = None
) -> tuple[str, str]:
    """Point the alias back at the previous ready generation (or ``to``). Returns (from, to)."""
    current = backend.alias_target(alias)
    if current is None:
        raise IndexStateError(f"alias {alias!r} does not exist: nothing to roll back")
    records = backend.list_generations(alias)
    ready = [r for r in records if r.state == "ready" and backend.generation_exists(r.name)]
    if to is not None:
        chosen = next((r for r in ready if r.name == to), None)
        if chosen is None:
            names = ", ".join(r.name for r in ready) or "none"
            raise IndexStateError(
                f"no ready generation named {to!r} for {alias!r} (ready: {names})"
            )
    else:
        ready.sort(key=lambda r: r.created_at)
        older = [
            r for r in ready if r.name != current and r.created_at < _created(records, current)
        ]
        if not older:
            raise IndexStateError(
                f"alias {alias!r} has no earlier ready generation to roll back to "
                f"(kept: {', '.join(r.name for r in ready) or 'none'})"
            )
        chosen = older[-1]
    backend.move_alias(alias, chosen.name, current)
    return current, chosen.name


def _created(records: Iterable[GenerationRecord], name: str) -> dt.datetime:
    for record in records:
        if record.name == name:
            return record.created_at
    return _utcnow()
