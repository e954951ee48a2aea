"""``ingest``: a corpus into the alias's generation — lock, plan, apply, verify, swap.

A generation is one index built with one configuration; its name is
``<alias>-<digest>-<n>``, where the digest covers the chunking strategy and
parameters, tokenizer@version, parser@version, extractor versions, the text
analyzer, the mapping version and the engine's storage layout.

* **Same configuration → incremental sync in place.** Unchanged documents (same
  source version) cost zero writes; a changed document gets its new chunk ids
  written and its vanished ids deleted by id (every chunk rewritten when its
  metadata — tenant, ACL, … — changed); a source that disappeared has its
  chunks deleted (``prune``).
* **New configuration → a new generation**, built completely (bulk-loading
  settings), checked, then the alias moves in one atomic step. The previous
  generation stays for rollback (the newest ``keep`` are kept). A crash
  mid-build leaves the alias where it was; a rerun resumes and completes it.
* **The index and the manifest agree after every ingest**: chunks an
  interrupted ingest left behind are found and deleted as documents are
  written (:mod:`osrag.ingestion.apply`); the counts are compared at the end, a
  mismatch is reconciled (:func:`osrag.ingestion.generations.reconcile`), and a
  mismatch that remains fails the ingest.
* **Nothing already stored is lost to bad input**: a file that fails to load is
  reported, and its previous chunks are kept.
* **One writer per alias** (:mod:`osrag.ingestion.lock`).

The work is split: :mod:`osrag.ingestion.plan` decides (pure), :mod:`osrag.ingestion.apply` writes,
:mod:`osrag.ingestion.generations` lists, rolls back and repairs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osrag.chunking.window import embed_window, fit_config
from osrag.config import DEFAULT_ALIAS, EMBED_DEADLINE
from osrag.engines.base import ChunkIndex
from osrag.engines.mapping import chunk_index_body, mapping_version
from osrag.errors import IndexStateError
from osrag.ingestion.apply import BATCH_BYTES, BATCH_CHUNKS, Progress, Tally, Vectors, apply
from osrag.ingestion.collector import spared
from osrag.ingestion.generations import (
    GenerationView,
    current_generation,
    list_generations,
    reconcile,
    retire,
    rollback,
    verify_counts,
)
from osrag.ingestion.interrupted import record_counts
from osrag.ingestion.label_vocabulary import LabelBook, label_embedder
from osrag.ingestion.layout import SINGLE_NODE, Layout, choose_layout
from osrag.ingestion.lock import IngestLock
from osrag.ingestion.manifest import Manifest
from osrag.ingestion.pipeline import default_workers, load_stream, pipeline_versions, prepare_stream
from osrag.ingestion.plan import (
    Change,
    GenerationChoice,
    Known,
    choose_generation,
    plan_ingest,
    same_model_same_dimension,
)
from osrag.ingestion.reuse import VectorSource, usable
from osrag.ingestion.workers import Workers
from osrag.loaders.limits import DEFAULT_READ, ReadOptions
from osrag.models import (
    Chunk,
    ChunkingConfig,
    Document,
    ExtractionConfig,
    GenerationRecord,
    IngestReport,
    LabelVocabularyReport,
    LoadIssue,
)

__all__ = [
    "GenerationView",
    "IngestOptions",
    "config_digest",
    "current_generation",
    "generation_config",
    "generation_layout",
    "generation_versions",
    "ingest",
    "list_generations",
    "plan",
    "rollback",
    "target_generation",
    "with_window",
]


@dataclass(frozen=True)
class IngestOptions:
    alias: str = DEFAULT_ALIAS
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    analyzer: str = "english"
    canonical_tokens: bool = False
    """Evaluation baseline only: ``money:<cents>`` tokens in the searched text."""
    prune: bool = True
    keep: int = 2
    """Generations kept per alias, the current one included (≥ 1)."""
    lock_ttl: dt.timedelta = dt.timedelta(minutes=10)
    lock_wait: float = 0.0
    """Seconds to wait for another ingest's lock before failing."""
    batch_chunks: int = BATCH_CHUNKS
    """Chunks per bulk request at most."""
    batch_bytes: int = BATCH_BYTES
    """Estimated bytes per bulk request at most (whole documents; see
    :mod:`osrag.ingestion.apply`)."""
    workers: int = field(default_factory=default_workers)
    """Processes that load, chunk and extract (1: all in this process)."""
    writers: int | None = None
    """Bulk-writer threads (None: the engine's ``write_concurrency``)."""
    shards: int | None = None
    """Primary shards of a new generation (None: see
    :func:`osrag.ingestion.layout.choose_layout`)."""
    replicas: int | None = None
    """Replicas of a new generation (None: likewise)."""
    move_alias: bool = True
    """False builds a generation without pointing the alias at it (evaluation)."""
    embedder: Any = None
    """Vectors for every chunk: an :class:`~osrag.embedding.Embedder` or a spec string
    (``"default"``, ``"onnx:…"``, ``"http://…"``; see :func:`osrag.embedding.get_embedder`).
    Its id and dimension are part of the generation's configuration."""
    embed_workers: int = field(default_factory=default_workers)
    """Processes that embed (1: in this process). An embedder that calls a service embeds
    in this process whatever this says."""
    embed_deadline: float | None = EMBED_DEADLINE
    """Seconds all the embedding of one ingest may take, from its first batch (None: no
    limit); past it the ingest stops, what it wrote kept and its vectors cached."""
    read: ReadOptions = DEFAULT_READ
    """How the corpus is read: per-file limits, symlinks, ``require_tenant``
    (:mod:`osrag.loaders.limits`). Not part of the generation: a file over a limit is
    reported and its previous version kept."""
    new_generation: bool = False
    """Build a new generation even when the configuration is the current one's, and move
    the alias to it once it is complete: a corpus-atomic swap (searches see the old corpus
    until the alias moves, then the new one; the old generation is kept for rollback).
    Without it, an unchanged configuration is synced in place, one document at a time."""
    fit_window: bool = True
    """With an embedder that states its window (a local model): cut chunks so that the
    embedded text fits it, counting in the embedder's tokenizer. False keeps the
    configured bound and tokenizer; longer chunks are then truncated by the embedder,
    and counted (``chunks_truncated``, ``tokens_truncated``)."""


def cache_key(embedder: Any) -> str:
    """The embedder's fingerprint (:func:`osrag.embedding.batching.cache_key`)."""
    from osrag.embedding.batching import cache_key as key

    return key(embedder)


def resolve_embedder(options: IngestOptions) -> Any:
    """The options' embedder as an object (None without one)."""
    if options.embedder is None or not isinstance(options.embedder, str):
        return options.embedder
    from osrag.embedding import get_embedder

    return get_embedder(options.embedder)


def with_window(options: IngestOptions, embedder: Any) -> IngestOptions:
    """``options`` whose chunking knows the embedder's window (:mod:`osrag.chunking.window`):
    the chunks an ingest with ``embedder`` writes, and the configuration it records."""
    if embedder is None or options.chunking.window is not None:
        return options
    window = embed_window(embedder, fit=options.fit_window)
    return dataclasses.replace(options, chunking=fit_config(options.chunking, window))


def generation_config(
    options: IngestOptions,
    index: ChunkIndex | None = None,
    embedder: Any = None,
    *,
    layout: Layout = SINGLE_NODE,
) -> dict[str, Any]:
    """The configuration a generation is built with. ``analyzer`` is the one the engine
    really uses (:meth:`ChunkIndex.text_analyzer`); when it had to substitute one,
    ``analyzer_requested`` names what was asked for. An embedder counts by its id and
    dimension (``spec``, the string that named it, is kept to rebuild it at search time);
    a layout other than one node's by its shards and replicas."""
    analyzer = options.analyzer
    if index is not None:
        analyzer = index.text_analyzer(options.analyzer, options.alias)
    chunking = options.chunking.model_dump(mode="json", round_trip=True)
    if chunking.get("window") is None:
        chunking.pop("window", None)  # configurations without a window keep their digest
    if chunking.get("anchor") == "none":
        chunking.pop("anchor")  # nor do configurations without anchors change theirs
    config: dict[str, Any] = {
        "chunking": chunking,
        "extraction": options.extraction.model_dump(mode="json", round_trip=True),
        "analyzer": analyzer,
        "canonical_tokens": options.canonical_tokens,
    }
    if analyzer != options.analyzer:
        config["analyzer_requested"] = options.analyzer
    if embedder is not None:
        spec = options.embedder if isinstance(options.embedder, str) else None
        config["embedder"] = {
            "id": embedder.id,
            "dimension": embedder.dimension,
            "spec": spec,
            "fingerprint": cache_key(embedder),
        }
        window = options.chunking.window
        if window is not None:
            config["embedder"]["window"] = window.tokens
    recorded = layout.config()
    if recorded is not None:
        config["layout"] = recorded
    return config


def generation_layout(
    options: IngestOptions, index: ChunkIndex, current: GenerationRecord | None
) -> Layout:
    """The shards and replicas of the generation this ingest writes
    (:mod:`osrag.ingestion.layout`)."""
    return choose_layout(
        options.shards,
        options.replicas,
        current=Layout.of_config(current.config) if current is not None else None,
        data_nodes=index.capabilities().data_nodes,
    )


def generation_versions(options: IngestOptions, index: ChunkIndex | None = None) -> dict[str, str]:
    """Every version a generation's contents depend on (they go into its digest)."""
    versions = {
        **pipeline_versions(options.chunking, options.extraction),
        "mapping": str(mapping_version()),
    }
    if index is not None and index.storage_version:
        versions["storage"] = index.storage_version
    return versions


NOT_DIGESTED = frozenset({"analyzer_requested"})
"""Config entries that explain a generation but do not change its contents."""
EMBEDDER_NOT_DIGESTED = frozenset({"spec", "fingerprint"})
"""Entries of the embedder's config likewise: the string that named it, and its cache
key (which of two servers of one model gave the vectors: what reuse checks, not what
the generation holds)."""


def config_digest(config: dict[str, Any], versions: dict[str, str]) -> str:
    """First 8 hex of SHA-256 over the configuration and every version."""
    digested = {k: v for k, v in config.items() if k not in NOT_DIGESTED}
    if "embedder" in digested:
        digested["embedder"] = {
            k: v for k, v in digested["embedder"].items() if k not in EMBEDDER_NOT_DIGESTED
        }
    payload = json.dumps({"config": digested, "versions": versions}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:8]


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True)
class Target:
    """The generation an ingest of some options writes, and what it was chosen from."""

    layout: Layout
    config: dict[str, Any]
    versions: dict[str, str]
    choice: GenerationChoice


def target_generation(
    options: IngestOptions,
    index: ChunkIndex,
    manifest: Manifest,
    embedder: Any,
    current_record: GenerationRecord | None,
    *,
    same_model: bool = False,
) -> Target:
    """The generation an ingest of ``options`` writes: the current one, a matching one, or
    a new one (chosen, not created). ``same_model``: refuse an embedder whose model or
    dimension differs from the current generation's (an ingest, and its change plan)."""
    layout = generation_layout(options, index, current_record)
    config = generation_config(options, index, embedder, layout=layout)
    if same_model:
        same_model_same_dimension(config, current_record)
    versions = generation_versions(options, index)
    choice = choose_generation(
        options.alias,
        config_digest(config, versions),
        current_record,
        manifest.generations(),
        index.generations(options.alias),
        config=config,
        versions=versions,
        now=_utcnow(),
        fresh=options.new_generation,
    )
    return Target(layout=layout, config=config, versions=versions, choice=choice)


def changes_of(path: Path, known: dict[str, Known], options: IngestOptions) -> Iterator[Change]:
    """The plan of an ingest, its files loaded and its documents prepared by one pool."""
    with Workers(options.workers) as workers:

        def prepare(
            docs: Iterable[Document],
        ) -> Iterator[tuple[Document, list[Chunk] | LoadIssue]]:
            return prepare_stream(
                docs,
                options.chunking,
                options.extraction,
                canonical_tokens=options.canonical_tokens,
                workers=workers,
            )

        yield from plan_ingest(
            load_stream(path, workers, options.read), known, prepare, prune=options.prune
        )


def plan(
    path: Path, index: ChunkIndex, options: IngestOptions | None = None
) -> tuple[IngestReport, Iterator[Change]]:
    """What an ingest of ``path`` would do, without writing (``osrag ingest --dry-run``)."""
    options = options or IngestOptions()
    embedder = resolve_embedder(options)
    options = with_window(options, embedder)
    manifest = Manifest(index.records(options.alias), options.alias)
    current = index.alias_target(options.alias)
    current_record = manifest.generation(current) if current else None
    choice = target_generation(options, index, manifest, embedder, current_record).choice
    known = {} if choice.create else known_of(manifest, choice.record.name)
    report = IngestReport(
        generation=choice.record.name,
        alias=options.alias,
        new_generation=choice.create,
        previous_generation=current if choice.switching else None,
        dry_run=True,
    )
    return report, changes_of(path, known, options)


def vector_source_generations(
    manifest: Manifest,
    choice: GenerationChoice,
    known: dict[str, Known],
    embedder: Any,
) -> list[tuple[str, dict[str, Known]]]:
    """The generations whose vectors an ingest reads back (:mod:`osrag.ingestion.reuse`),
    in the order it reads them, each with its documents: the one it writes in place (a
    changed document's unchanged chunks), and the alias's current one when a new
    generation replaces it — each only if the same embedder fingerprint built it."""
    if embedder is None:
        return []
    fingerprint = (cache_key(embedder), embedder.dimension)
    sources: list[tuple[str, dict[str, Known]]] = []
    if not choice.create and usable(choice.record, fingerprint):
        sources.append((choice.record.name, known))
    current = choice.current
    if current is not None and current != choice.record.name:
        record = manifest.generation(current)
        if usable(record, fingerprint):
            sources.append((current, known_of(manifest, current)))
    return sources


@contextlib.contextmanager
def _vectors(
    embedder: Any, options: IngestOptions, sources: tuple[VectorSource, ...] = ()
) -> Iterator[Vectors | None]:
    """The embedder (in worker processes where asked, in this one for a service), the
    vector cache and the embedding deadline of an ingest."""
    if embedder is None:
        yield None
        return
    from osrag.embedding import EmbeddingPool, SqliteVectorCache, default_cache_path

    remote = bool(getattr(embedder, "remote", False))
    ends_at = None
    if options.embed_deadline is not None:
        ends_at = time.monotonic() + options.embed_deadline
    limit = getattr(embedder, "limit", None)
    if callable(limit):
        limit(ends_at)
    cache = SqliteVectorCache(default_cache_path())
    pool = EmbeddingPool(embedder, workers=1 if remote else options.embed_workers)
    try:
        yield Vectors(
            pool, cache, ends_at=ends_at, deadline=options.embed_deadline, sources=sources
        )
    finally:
        if callable(limit):
            limit(None)
        pool.close()
        cache.close()


def known_of(manifest: Manifest, generation: str) -> dict[str, Known]:
    """What the manifest remembers of each document of ``generation``."""
    return {r.doc_id: Known.of(r) for r in manifest.documents(generation)}


def ingest(
    path: Path,
    index: ChunkIndex,
    options: IngestOptions | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Load → chunk → extract → write ``path`` into the alias's generation. See the module doc."""
    options = options or IngestOptions()
    if options.keep < 1:
        raise IndexStateError("keep must be at least 1 (the current generation)")
    manifest = Manifest(index.records(options.alias), options.alias)
    with (
        IngestLock(
            manifest.store, options.alias, ttl=options.lock_ttl, wait=options.lock_wait
        ) as held,
        index.writing(options.alias),
        spared(),
    ):
        started = time.perf_counter()
        report = _ingest_locked(path, index, manifest, options, held, progress)
        report.seconds = round(time.perf_counter() - started, 3)
        report.lock_wait_seconds = round(held.waited, 3)
    return report


def _ingest_locked(
    path: Path,
    index: ChunkIndex,
    manifest: Manifest,
    options: IngestOptions,
    held: IngestLock,
    progress: Progress | None,
) -> IngestReport:
    embedder = resolve_embedder(options)
    options = with_window(options, embedder)
    current = index.alias_target(options.alias)
    choice = _choose_generation(index, manifest, options, embedder, current)
    target = choice.record
    known = {} if choice.create else known_of(manifest, target.name)
    report = IngestReport(
        generation=target.name,
        alias=options.alias,
        new_generation=choice.create,
        previous_generation=current if choice.switching else None,
    )
    tally = Tally(chunks=sum(len(k.chunk_ids) for k in known.values()), documents=len(known))
    tally.tenants.update(target.tenants)
    tally.has_acl = target.has_acl
    tally.chunks_truncated = target.chunks_truncated
    tally.tokens_truncated = target.tokens_truncated
    sources = tuple(
        VectorSource(index, name, documents)
        for name, documents in vector_source_generations(manifest, choice, known, embedder)
    )
    labels = LabelBook.open(manifest.store, target.name, created=choice.create)
    with _vectors(embedder, options, sources) as vectors:
        try:
            apply(
                changes_of(path, known, options),
                index,
                manifest,
                target.name,
                report,
                tally,
                fresh=choice.create,
                batch_chunks=options.batch_chunks,
                batch_bytes=options.batch_bytes,
                writers=options.writers,
                heartbeat=held.renew_if_due,
                progress=progress,
                vectors=vectors,
                labels=labels,
            )
        except Exception:
            record_counts(manifest, target, tally)
            raise
    if labels is not None:
        report.label_vocabulary = _finish_labels(labels, embedder, options, choice)
    changed = report.documents_added + report.documents_changed + report.documents_removed
    if not choice.switching and not changed and not report.orphans_deleted:
        return report  # nothing was written: no refresh, no manifest update
    _complete(index, manifest, options, choice, tally, report, current)
    return report


def _finish_labels(
    labels: LabelBook, embedder: Any, options: IngestOptions, choice: GenerationChoice
) -> LabelVocabularyReport | None:
    """Bring the generation's label vocabulary in line with its documents, before the alias
    moves to it: vectors by the generation's embedder, else the offline default's; read
    back from the generation it replaces where the same embedder built that one."""
    spec = options.embedder if isinstance(options.embedder, str) else None
    labeller, note = label_embedder(embedder, spec)
    previous = choice.current if choice.current != choice.record.name else None
    return labels.finish(labeller, previous=previous, note=note)


def _choose_generation(
    index: ChunkIndex,
    manifest: Manifest,
    options: IngestOptions,
    embedder: Any,
    current: str | None,
) -> GenerationChoice:
    """The generation this ingest writes: the current one, a matching one, or a new one
    (created here, empty, ready for bulk loading)."""
    current_record = manifest.generation(current) if current else None
    if current is not None and current_record is None:
        raise IndexStateError(
            f"alias {options.alias!r} points to {current!r}, which osrag's manifest does not "
            "know: choose another --alias, or remove the alias if it is not in use"
        )
    target = target_generation(options, index, manifest, embedder, current_record, same_model=True)
    choice = target.choice
    if choice.create:
        body = chunk_index_body(
            target.config["analyzer"],
            replicas=target.layout.replicas,
            shards=target.layout.shards,
            vector_dimension=embedder.dimension if embedder is not None else None,
        )
        index.create_generation(choice.record.name, body, bulk_loading=True)
        manifest.put_generation(choice.record)
    return choice


def _complete(
    index: ChunkIndex,
    manifest: Manifest,
    options: IngestOptions,
    choice: GenerationChoice,
    tally: Tally,
    report: IngestReport,
    current: str | None,
) -> None:
    """Record what was written, check the index holds it (repairing when not), and on a
    switch mark the generation ready, move the alias and retire the oldest."""
    manifest.refresh()
    target = choice.record
    target.documents = tally.documents
    target.chunks = tally.chunks
    target.tenants = sorted(tally.tenants)
    target.has_acl = tally.has_acl
    target.chunks_truncated = tally.chunks_truncated
    target.tokens_truncated = tally.tokens_truncated
    target.updated_at = _utcnow()
    if choice.switching and target.state == "building":
        index.finish_generation(target.name)
    actual = verify_counts(index, target.name, tally.chunks)
    if actual != tally.chunks:
        repaired = reconcile(index, manifest, target.name)
        report.orphans_deleted += repaired.orphans_deleted
        target = manifest.generation(target.name) or target
        if repaired.chunks_in_index != repaired.chunks_in_manifest:
            manifest.put_generation(target)
            raise IndexStateError(
                f"generation {target.name} holds {repaired.chunks_in_index} chunks but its "
                f"manifest lists {repaired.chunks_in_manifest} after a repair; the alias still "
                f"points to {current!r}. Rerun the ingest."
            )
    if not choice.switching:
        manifest.put_generation(target)
        return
    target.state = "ready"
    target.completed_at = _utcnow()
    manifest.put_generation(target)
    if options.move_alias:
        index.move_alias(options.alias, target.name, current)
        report.alias_moved = True
        retire(index, manifest, options.keep)
