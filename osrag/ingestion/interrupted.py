"""What an ingest that stopped part-way leaves, and how it is told.

When a write fails (a full disk, a write block, a refused record), the batches in
flight may or may not be in the index. :func:`sort_out` compares each of their
documents' chunk ids in the index with its old and new versions — pure — so the
apply step can record what went in, put back what did not, and delete the new chunks
of a document that went in only in part. :func:`stopped` words the error: its cause,
then what went in and what kept its previous version. :func:`record_counts` writes
the generation's counts as the document records have them, so ``osrag index status``
agrees with the index.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from osrag.ingestion.plan import Change

__all__ = ["Sorted", "announced", "record_counts", "sort_out", "stopped"]

log = logging.getLogger("osrag.ingestion")


@dataclass
class Sorted:
    """The documents of an unsettled batch by what the index holds of them."""

    done: list[Change] = field(default_factory=list)
    """At their new version: to record."""
    undone: list[Change] = field(default_factory=list)
    """At their old version: their old records to put back."""
    stray: list[str] = field(default_factory=list)
    """Chunk ids to delete to make a document whole again."""
    unsure: int = 0
    """Documents that are neither (their announced record makes the next ingest redo them)."""


def announced(changes: Sequence[Change], generation: str, now: dt.datetime) -> list[Any]:
    """The records that announce a batch before it is written: each document with its new
    chunk ids and no source version or metadata digest (so the next ingest rewrites it
    whole, whatever happened to the batch)."""
    from osrag.models import DocumentRecord

    return [
        DocumentRecord(
            generation=generation,
            doc_id=c.doc_id,
            source_path=c.doc.source_path,
            source_version="",
            chunk_ids=[chunk.chunk_id for chunk in c.chunks],
            tenant=c.doc.tenant,
            has_acl=bool(c.doc.acl),
            metadata_digest="",
            ingested_at=now,
        )
        for c in changes
        if c.doc is not None
    ]


def sort_out(changes: Sequence[Change], held: Mapping[str, set[str]]) -> Sorted:
    """Each change by the chunk ids ``held`` for its document in the index (see
    :class:`Sorted`). A document whose new chunk ids are its old ones (only its metadata
    changed) cannot be told apart: it is left to its announced record."""
    found = Sorted()
    for change in changes:
        now = held.get(change.doc_id, set())
        old = set(change.previous.chunk_ids) if change.previous else set()
        new = {c.chunk_id for c in change.chunks} if change.kind != "remove" else set()
        if new == old and now == old:
            continue
        if now == old:
            found.undone.append(change)
        elif now == new:
            found.done.append(change)
        elif old <= now:
            found.stray += sorted(now - old)  # back to the old version, whole
            found.undone.append(change)
        elif new <= now:
            found.stray += sorted(now - new)
            found.done.append(change)
        else:
            found.unsure += 1
    return found


def stopped(exc: Exception, applied: int, note: str) -> Exception:
    """``exc`` of a write that stopped an ingest, its message saying what is left: a
    disk that refused a write becomes a :class:`~osrag.errors.StorageError`."""
    from osrag.errors import OsragError, StorageError, no_room

    left = (
        f"the ingest stopped: {applied} changed {'document' if applied == 1 else 'documents'} "
        f"went in, each whole; every other document keeps its previous version{note}. "
        "Ingest again once the cause is gone"
    )
    if isinstance(exc, OsragError):
        exc.args = (f"{exc}; {left}",)
        return exc
    if isinstance(exc, OSError) and no_room(exc):
        return StorageError(f"cannot write ({exc}): is the disk full?; {left}")
    return exc


def record_counts(manifest: Any, target: Any, tally: Any) -> None:
    """After an ingest stopped part-way: the generation's record counts what its document
    records list (the batches that went in). Best effort: the store may refuse this write
    too (the error already says why)."""
    record = target.model_copy(
        update={
            "documents": tally.documents,
            "chunks": tally.chunks,
            "tenants": sorted(set(target.tenants) | tally.tenants),
            "has_acl": target.has_acl or tally.has_acl,
            "chunks_truncated": tally.chunks_truncated,
            "tokens_truncated": tally.tokens_truncated,
            "updated_at": dt.datetime.now(dt.UTC),
        }
    )
    try:
        manifest.put_generation(record)
    except Exception as exc:
        log.warning("could not record the counts of %s (%s)", target.name, exc)
