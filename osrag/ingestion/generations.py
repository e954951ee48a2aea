"""Generations behind an alias: status, listing, rollback, repair, removal.

A generation is one index built with one configuration, named
``<alias>-<digest>-<n>``; the alias points to exactly one. These operations
work on any :class:`~osrag.engines.base.ChunkIndex` through the alias's
:class:`~osrag.ingestion.manifest.Manifest`:

* :func:`status` — the alias, its generation, the counts in the index and in
  the manifest (and whether they agree), a held lock, half-built generations;
* :func:`rollback` — one atomic alias move back to a kept ready generation;
* :func:`verify_counts` / :func:`repair` — the index holds exactly the chunk
  ids the manifest lists: chunks it does not list (left by an interrupted
  ingest) are deleted; documents whose chunks are missing lose their manifest
  record, so the next ingest writes them again;
* :func:`purge` — every generation, the alias and the manifest (temporary
  aliases of an evaluation).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable

from pydantic import BaseModel, Field

from osrag.engines.base import ChunkIndex, Delete
from osrag.errors import IndexStateError
from osrag.ingestion import lock as ingest_lock
from osrag.ingestion.lock import LockRecord
from osrag.ingestion.manifest import Manifest
from osrag.models import AccessPolicy, GenerationRecord


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def current_generation(index: ChunkIndex, alias: str) -> GenerationRecord:
    """The record of the generation the alias points to."""
    current = index.alias_target(alias)
    if current is None:
        raise IndexStateError(f"alias {alias!r} does not exist yet: run `osrag ingest PATH` first")
    record = Manifest(index.records(alias), alias).generation(current)
    if record is None:
        raise IndexStateError(
            f"alias {alias!r} points to {current!r}, which the manifest does not know"
        )
    return record


class GenerationView(BaseModel):
    """One generation as ``osrag index list`` shows it."""

    record: GenerationRecord
    current: bool
    chunks_in_index: int | None = Field(description="None: the index is gone (dropped)")


def list_generations(index: ChunkIndex, alias: str) -> list[GenerationView]:
    current = index.alias_target(alias)
    existing = index.generations(alias)
    return [
        GenerationView(
            record=record,
            current=record.name == current,
            chunks_in_index=index.count(record.name) if record.name in existing else None,
        )
        for record in Manifest(index.records(alias), alias).generations()
    ]


class IndexStatus(BaseModel):
    """What ``osrag index status`` prints (``--json``: this model)."""

    alias: str
    generation: GenerationRecord | None
    chunks_in_index: int | None
    consistent: bool = Field(description="the index holds as many chunks as the manifest lists")
    policy: AccessPolicy
    lock: LockRecord | None = None
    lock_owner_alive: bool | None = Field(
        default=None, description="for a lock held on this host: is its process running"
    )
    building: list[str] = Field(
        default_factory=list, description="generations being built (or left half-built)"
    )
    problems: list[str] = Field(
        default_factory=list, description="what needs an operator (exit code 5)"
    )
    notes: list[str] = Field(default_factory=list, description="what is going on, no action needed")


def status(index: ChunkIndex, alias: str) -> IndexStatus:
    """Everything an operator needs to see about an alias, problems named."""
    manifest = Manifest(index.records(alias), alias)
    current = index.alias_target(alias)
    record = manifest.generation(current) if current else None
    held = ingest_lock.holder(manifest.store)
    building = [r.name for r in manifest.generations() if r.state == "building"]
    problems: list[str] = []
    in_index: int | None = None
    if current is None:
        problems.append(f"alias {alias!r} does not point to a generation yet")
    elif record is None:
        problems.append(f"alias {alias!r} points to {current!r}, which the manifest does not know")
    notes: list[str] = []
    if record is not None and current is not None:
        index.refresh(current)
        in_index = index.count(current)
        if in_index != record.chunks:
            # an ingest that stopped part-way may not have written the generation's counts;
            # the document records are what the manifest really lists
            documents = list(manifest.documents(current))
            listed = sum(len(d.chunk_ids) for d in documents)
            if listed == in_index:
                record = record.model_copy(update={"chunks": listed, "documents": len(documents)})
                notes.append(
                    f"{current}: its record's counts are those before an ingest that stopped "
                    "part-way; its documents' records agree with the index (the next ingest "
                    "writes the counts)"
                )
            else:
                problems.append(
                    f"{current} holds {in_index} chunks but the manifest lists {listed}: "
                    "run `osrag index repair` (or ingest again)"
                )
        else:
            documents = []
        pending = [d.doc_id for d in documents if not d.source_version]
        if pending:
            notes.append(
                f"{len(pending)} document(s) were being written when an ingest stopped "
                f"(e.g. {pending[0]!r}): the next ingest rewrites them"
            )
    if record is not None and record.config.get("analyzer_requested"):
        notes.append(
            f"{record.name} analyses text with {record.config.get('analyzer')!r}: the engine "
            f"has no {record.config['analyzer_requested']!r} analyzer (a full distribution has)"
        )
    alive = ingest_lock.owner_alive(held) if held else None
    busy = held is not None and alive is not False and (alive or held.expires_at > _utcnow())
    if held is not None:
        if busy:
            where = "running" if alive else "on another host, fresh"
            notes.append(f"an ingest holds the lock: {held.describe()} ({where})")
        else:
            problems.append(
                f"the ingest lock is held by {held.describe()}, which is "
                f"{'no longer running' if alive is False else 'past its TTL'}: the next ingest "
                "breaks it, or `osrag index unlock`"
            )
    digests = {r.name: r.digest for r in manifest.generations()}
    for name in building:
        if busy:
            notes.append(f"generation {name} is being built")
        elif record is not None and digests.get(name) == record.digest:
            problems.append(
                f"generation {name} is half-built (an `ingest --new-generation` stopped): "
                "`osrag index repair` discards it, or `osrag ingest --new-generation` "
                "builds it again"
            )
        else:
            problems.append(
                f"generation {name} is half-built (an ingest of another configuration "
                "stopped): `osrag index repair` discards it, or an ingest with that "
                "configuration completes it"
            )
    return IndexStatus(
        alias=alias,
        generation=record,
        chunks_in_index=in_index,
        consistent=record is not None and in_index == record.chunks,
        policy=manifest.policy(),
        lock=held,
        lock_owner_alive=alive,
        building=building,
        problems=problems,
        notes=notes,
    )


def verify_counts(index: ChunkIndex, generation: str, expected: int) -> int:
    """The generation's chunk count after a refresh (waiting for engines without one)."""
    index.refresh(generation)
    actual = index.count(generation)
    deadline = time.monotonic() + (120 if index.eventual_refresh else 0)
    while actual != expected and time.monotonic() < deadline:
        time.sleep(2)  # Serverless: no _refresh; wait for the service's own
        actual = index.count(generation)
    return actual


class RepairReport(BaseModel):
    generation: str | None = Field(description="the alias's generation (None: no alias yet)")
    chunks_in_index: int
    chunks_in_manifest: int
    orphans_deleted: int
    documents_forgotten: list[str] = Field(
        default_factory=list,
        description="documents with chunks missing from the index: the next ingest rewrites them",
    )
    generations_discarded: list[str] = Field(
        default_factory=list,
        description="half-built generations (an ingest stopped while building them) dropped "
        "with their records: the next ingest that needs one builds it again",
    )


def reconcile(index: ChunkIndex, manifest: Manifest, generation: str) -> RepairReport:
    """Make the index hold exactly the ids the manifest lists (call under the ingest lock)."""
    listed: dict[str, str] = {}
    for document in manifest.documents(generation):
        for chunk_id in document.chunk_ids:
            listed[chunk_id] = document.doc_id
    index.refresh(generation)
    present: set[str] = set()
    orphans: list[str] = []
    for chunk_id, _doc in index.chunk_ids(generation):
        if chunk_id in listed:
            present.add(chunk_id)
        else:
            orphans.append(chunk_id)
    for start in range(0, len(orphans), 1000):
        outcome = index.write(generation, [Delete(i) for i in orphans[start : start + 1000]])
        if outcome.failures:
            raise IndexStateError(
                f"{generation}: {len(outcome.failures)} stale chunk(s) could not be deleted: "
                f"{outcome.failures[0].reason}"
            )
    missing = {doc for chunk_id, doc in listed.items() if chunk_id not in present}
    manifest.delete_documents(generation, sorted(missing))
    record = manifest.generation(generation)
    if record is not None:
        record.chunks = sum(1 for doc in listed.values() if doc not in missing)
        record.documents -= len(missing)
        record.updated_at = _utcnow()
        manifest.put_generation(record)
    index.refresh(generation)
    return RepairReport(
        generation=generation,
        chunks_in_index=index.count(generation),
        chunks_in_manifest=record.chunks if record else len(listed),
        orphans_deleted=len(orphans),
        documents_forgotten=sorted(missing),
    )


def discard_half_built(index: ChunkIndex, manifest: Manifest, current: str | None) -> list[str]:
    """Drop every generation of the alias an ingest left half-built — recorded as
    ``building``, or an index the manifest never recorded — except the alias's own, and
    forget its record (call under the ingest lock: no ingest is building one). A
    half-built generation cannot be finished without its corpus, and one left in place
    is resumed only by an ingest of its exact configuration (``--new-generation`` for
    the current one), never by a plain ingest: dropping it is what makes ``index
    status`` true again. The ready generations kept for rollback are untouched."""
    records = {r.name: r for r in manifest.generations()}
    doomed = {name for name, r in records.items() if r.state == "building"}
    doomed |= {name for name in index.generations(manifest.alias) if name not in records}
    doomed.discard(current or "")
    for name in sorted(doomed):
        index.drop_generation(name)
        manifest.forget_generation(name)
    return sorted(doomed)


def repair(index: ChunkIndex, alias: str, *, wait: float = 0.0) -> RepairReport:
    """Holding the ingest lock: :func:`discard_half_built` generations, then
    :func:`reconcile` the alias's generation (when the alias exists)."""
    manifest = Manifest(index.records(alias), alias)
    with ingest_lock.IngestLock(manifest.store, alias, wait=wait):
        current = index.alias_target(alias)
        discarded = discard_half_built(index, manifest, current)
        if current is None:
            return RepairReport(
                generation=None,
                chunks_in_index=0,
                chunks_in_manifest=0,
                orphans_deleted=0,
                generations_discarded=discarded,
            )
        record = current_generation(index, alias)
        report = reconcile(index, manifest, record.name)
        report.generations_discarded = discarded
        return report


def rollback(index: ChunkIndex, alias: str, to: str | None = None) -> tuple[str, str]:
    """Point the alias back at the previous ready generation (or ``to``). Returns (from, to)."""
    current = index.alias_target(alias)
    if current is None:
        raise IndexStateError(f"alias {alias!r} does not exist: nothing to roll back")
    records = Manifest(index.records(alias), alias).generations()
    existing = index.generations(alias)
    ready = [r for r in records if r.state == "ready" and r.name in existing]
    if to is not None:
        chosen = next((r for r in ready if r.name == to), None)
        if chosen is None:
            names = ", ".join(r.name for r in ready) or "none"
            raise IndexStateError(
                f"no ready generation named {to!r} for {alias!r} (ready: {names})"
            )
    else:
        created = _created(records, current)
        older = [r for r in ready if r.name != current and r.created_at < created]
        if not older:
            raise IndexStateError(
                f"alias {alias!r} has no earlier ready generation to roll back to "
                f"(kept: {', '.join(r.name for r in ready) or 'none'})"
            )
        chosen = older[-1]
    index.move_alias(alias, chosen.name, current)
    return current, chosen.name


def _created(records: Iterable[GenerationRecord], name: str) -> dt.datetime:
    for record in records:
        if record.name == name:
            return record.created_at
    return _utcnow()


def retire(index: ChunkIndex, manifest: Manifest, keep: int) -> list[str]:
    """Drop the oldest generations beyond ``keep`` (the current one always stays)."""
    current = index.alias_target(manifest.alias)
    records = [r for r in manifest.generations() if r.name != current]
    doomed = records[: max(0, len(records) - (keep - 1))]
    for record in doomed:
        index.drop_generation(record.name)
        manifest.forget_generation(record.name)
    return [r.name for r in doomed]


def purge(index: ChunkIndex, alias: str) -> None:
    """Drop every generation of ``alias``, the alias and its records (temporary aliases)."""
    store = index.records(alias)
    names = {r.name for r in Manifest(store, alias).generations()} | index.generations(alias)
    try:
        target = index.alias_target(alias)
    except IndexStateError:
        target = None
    if target is not None:
        names.add(target)
    for name in sorted(names):
        index.drop_generation(name)
    store.drop()
