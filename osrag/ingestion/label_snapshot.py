"""What bounds a search's first read of a label vocabulary (:mod:`osrag.ingestion.
label_vocabulary`): the **snapshot** of its most widely held labels, and the **key
counts** that answer for the others.

A search reads every label of the snapshot (its text, keys, scopes and vector: what it
compares by meaning, by form and by key) and, for the keys it asks, counts the labels
outside the snapshot that hold them: "does a label the caller may see hold this key" and
"does a visible label outside the snapshot hold it" are then exact without the labels
themselves.

**Records** (kinds of the alias's :class:`~osrag.engines.base.RecordStore`, keyed
``<generation>::…`` beside the vocabulary's):

=========================  ===========================  ======================================
kind                       key                          record
=========================  ===========================  ======================================
``vocabulary_snapshot``    ``<generation>::<part>``     the snapshot's labels whose digest
                                                        falls in the part (:data:`PARTS` by a
                                                        digest's prefix), each as its
                                                        vocabulary record: text, keys, scopes
                                                        with their documents, vector
``vocabulary_keys``        ``<generation>::<bucket>``   every key whose digest's first three
                                                        hex digits are the bucket (4,096), with,
                                                        by scope, how many labels of that scope
                                                        hold it; the key ``""``
                                                        (:data:`EVERY_LABEL`): how many labels
                                                        each scope has
=========================  ===========================  ======================================

The vocabulary's state record names the snapshot: the revision it was written at, how
many labels it holds and its bound (:class:`SnapshotState`). A search trusts it only when
that revision is the state's; an ingest clears it before it changes the snapshot and names
it again when done, so a search never reads one half-written.

The buckets carry no revision of their own: a search that read the snapshot of one
revision and fetches a bucket for the first time after a sync finished may see that
sync's counts until it checks the revision again (``STATE_SECONDS``,
:mod:`osrag.search.meaning`). The counts are by scope, so what a caller may see is never
at stake; only whether a label the sync added or removed outside the snapshot is counted.

Pure parts (which part, which bucket, which labels, the counts' changes) and the reads and
writes of these records; when they are written is :meth:`~osrag.ingestion.
label_vocabulary.LabelBook.finish`'s decision.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from osrag.engines.base import RecordStore

__all__ = [
    "BUCKETS",
    "EVERY_LABEL",
    "KEY_COUNTS",
    "PARTS",
    "SNAPSHOT",
    "SNAPSHOT_KINDS",
    "KeyCounts",
    "LabelChange",
    "SnapshotState",
    "bucket_of",
    "held_by",
    "label_digest",
    "part_of",
    "read_snapshot",
    "snapshot_order",
    "update_key_counts",
    "update_snapshot",
    "write_key_counts",
    "write_snapshot",
]

SNAPSHOT, KEY_COUNTS = "vocabulary_snapshot", "vocabulary_keys"
SNAPSHOT_KINDS = (SNAPSHOT, KEY_COUNTS)
PARTS = 64
"""Parts of a snapshot, by a label digest's prefix: about 800 labels a part at 50,000, so
that a sync rewrites the parts of the labels it changed, not the whole."""
BUCKETS = 4096
"""Key-count buckets: a key's bucket is the first three hex digits of its digest."""
EVERY_LABEL = ""
"""The key every label is counted under (no label's key is empty): a scope's labels."""
BUCKET_CACHE = 512
"""Key-count buckets a search's vocabulary keeps once fetched (least recently used
dropped)."""
WRITE_PAGE = 8
"""Snapshot parts in one ``put_many`` (a part is about a megabyte)."""
BUCKET_PAGE = 200


def label_digest(label: str) -> str:
    """The key of a label's vocabulary record: 16 hex of SHA-256 of its text."""
    return hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]


def part_of(digest: str) -> str:
    """The snapshot part of a label, by its digest."""
    return f"{int(digest[:4], 16) % PARTS:02d}"


@lru_cache(maxsize=1 << 16)
def bucket_of(key: str) -> str:
    """The key-count bucket of a key (kept: a vocabulary's labels share most of their keys,
    and every label counts under :data:`EVERY_LABEL`)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:3]


def _key(generation: str, name: str) -> str:
    return f"{generation}::{name}"


def held_by(entry: Mapping[str, Any]) -> int:
    """How many documents hold a label (its vocabulary record's scopes summed)."""
    return sum(int(n) for n in entry.get("scopes", {}).values() if int(n) > 0)


def _present(entry: Mapping[str, Any] | None) -> set[str]:
    """The scopes a label is held in (none for no record)."""
    if entry is None:
        return set()
    return {scope for scope, n in entry.get("scopes", {}).items() if int(n) > 0}


def snapshot_order(entry: Mapping[str, Any]) -> tuple[bool, int, str]:
    """The order labels enter a snapshot: those with a vector first, then the most widely
    held, then by text."""
    return (not entry.get("vector"), -held_by(entry), str(entry["label"]))


class SnapshotState(BaseModel):
    """The snapshot as the vocabulary's state names it."""

    revision: int
    """The vocabulary's revision it was written at; trusted only at that revision."""
    labels: int
    """The labels it holds: every label of the vocabulary when this is the state's."""
    bound: int
    """The most labels it may hold."""


@dataclass(frozen=True)
class LabelChange:
    """One label's vocabulary record before and after an ingest's finish (None: absent)."""

    digest: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


# --------------------------------------------------------------------------- writes


def _put_pages(
    store: RecordStore, kind: str, items: list[tuple[str, dict[str, Any]]], page: int
) -> None:
    for start in range(0, len(items), page):
        store.put_many(kind, items[start : start + page])


def write_snapshot(
    store: RecordStore, generation: str, entries: Mapping[str, dict[str, Any]], bound: int
) -> int:
    """The snapshot of ``entries`` (vocabulary records by label digest) written whole: the
    ``bound`` first by :func:`snapshot_order`; the parts left empty removed. How many labels
    it holds."""
    chosen = sorted(entries, key=lambda digest: snapshot_order(entries[digest]))[:bound]
    parts: dict[str, dict[str, Any]] = {}
    for digest in chosen:
        parts.setdefault(part_of(digest), {})[digest] = entries[digest]
    items = [(_key(generation, p), {"entries": found}) for p, found in sorted(parts.items())]
    _put_pages(store, SNAPSHOT, items, WRITE_PAGE)
    empty = [_key(generation, f"{p:02d}") for p in range(PARTS) if f"{p:02d}" not in parts]
    store.delete_many(SNAPSHOT, empty)
    return len(chosen)


def update_snapshot(
    store: RecordStore, generation: str, changes: Sequence[LabelChange], held: int, bound: int
) -> int:
    """The snapshot (of ``held`` labels) brought in line with ``changes``: a label in it
    takes its new record, or leaves it when no document holds it any more; a label new to
    the vocabulary enters while the snapshot has room (in :func:`snapshot_order`); a label
    already outside it stays outside. Only the parts of changed labels are read, and those
    of the snapshot's labels that changed rewritten. How many labels it holds now."""
    touched = sorted({part_of(c.digest) for c in changes})
    found = store.get_many(SNAPSHOT, [_key(generation, p) for p in touched])
    parts = {p: dict(found.get(_key(generation, p), {}).get("entries", {})) for p in touched}
    new: list[LabelChange] = []
    changed: set[str] = set()
    for change in changes:
        part = parts[part_of(change.digest)]
        if change.digest in part:
            if change.after is None:
                del part[change.digest]
                held -= 1
            else:
                part[change.digest] = change.after
            changed.add(part_of(change.digest))
        elif change.before is None and change.after is not None:
            new.append(change)
    new.sort(key=lambda c: snapshot_order(c.after or {}))
    for change in new[: max(0, bound - held)]:
        parts[part_of(change.digest)][change.digest] = change.after
        changed.add(part_of(change.digest))
        held += 1
    items = [(_key(generation, p), {"entries": parts[p]}) for p in sorted(changed) if parts[p]]
    _put_pages(store, SNAPSHOT, items, WRITE_PAGE)
    store.delete_many(SNAPSHOT, [_key(generation, p) for p in sorted(changed) if not parts[p]])
    return held


def _counted(
    deltas: dict[str, dict[str, dict[str, int]]], keys: Iterable[str], scopes: set[str], sign: int
) -> None:
    for key in (EVERY_LABEL, *keys):
        counts = deltas.setdefault(bucket_of(key), {}).setdefault(key, {})
        for scope in scopes:
            counts[scope] = counts.get(scope, 0) + sign


def write_key_counts(
    store: RecordStore, generation: str, entries: Iterable[Mapping[str, Any]]
) -> None:
    """The key counts of every label of ``entries`` (vocabulary records) written whole; the
    buckets left empty removed."""
    buckets: dict[str, dict[str, dict[str, int]]] = {}
    for entry in entries:
        _counted(buckets, entry["keys"], _present(entry), +1)
    items = [(_key(generation, b), {"keys": keys}) for b, keys in sorted(buckets.items())]
    _put_pages(store, KEY_COUNTS, items, BUCKET_PAGE)
    every = (f"{b:03x}" for b in range(BUCKETS))
    store.delete_many(KEY_COUNTS, [_key(generation, b) for b in every if b not in buckets])


def update_key_counts(store: RecordStore, generation: str, changes: Sequence[LabelChange]) -> int:
    """The key counts brought in line with ``changes``: each changed label's keys counted
    out of the scopes it was held in and into those it is held in now; only the buckets of
    those keys are read and rewritten. How many buckets were."""
    deltas: dict[str, dict[str, dict[str, int]]] = {}
    for change in changes:
        before, after = _present(change.before), _present(change.after)
        if before == after:
            continue
        entry = change.after or change.before
        assert entry is not None
        _counted(deltas, entry["keys"], before - after, -1)
        _counted(deltas, entry["keys"], after - before, +1)
    touched = sorted(deltas)
    found = store.get_many(KEY_COUNTS, [_key(generation, b) for b in touched])
    puts: list[tuple[str, dict[str, Any]]] = []
    gone: list[str] = []
    for bucket in touched:
        record_key = _key(generation, bucket)
        keys: dict[str, dict[str, int]] = found.get(record_key, {}).get("keys", {})
        for key, delta in deltas[bucket].items():
            counts = dict(keys.get(key, {}))
            for scope, n in delta.items():
                counts[scope] = counts.get(scope, 0) + n
            counts = {scope: n for scope, n in counts.items() if n > 0}
            if counts:
                keys[key] = counts
            else:
                keys.pop(key, None)
        if keys:
            puts.append((record_key, {"keys": keys}))
        else:
            gone.append(record_key)
    _put_pages(store, KEY_COUNTS, puts, BUCKET_PAGE)
    store.delete_many(KEY_COUNTS, gone)
    return len(touched)


# --------------------------------------------------------------------------- reads


def read_snapshot(store: RecordStore, generation: str) -> list[dict[str, Any]]:
    """The snapshot's labels (their vocabulary records), in no set order."""
    found = store.get_many(SNAPSHOT, [_key(generation, f"{p:02d}") for p in range(PARTS)])
    return [entry for part in found.values() for entry in part.get("entries", {}).values()]


class KeyCounts:
    """A generation's key counts as a search fetches them: by bucket, by id, when a key is
    asked; a fetched bucket is kept (the vocabulary's revision does not change under it)."""

    def __init__(self, store: RecordStore, generation: str) -> None:
        self.store = store
        self.generation = generation
        self._buckets: OrderedDict[str, dict[str, dict[str, int]]] = OrderedDict()
        self._lock = threading.Lock()

    def totals(self, keys: Iterable[str]) -> dict[str, dict[str, int]]:
        """For each of ``keys``, by scope, how many labels of the vocabulary hold it."""
        wanted = {key: bucket_of(key) for key in keys}
        with self._lock:
            held = {b: self._buckets[b] for b in set(wanted.values()) if b in self._buckets}
            for b in held:
                self._buckets.move_to_end(b)
        missing = sorted(set(wanted.values()) - set(held))
        if missing:
            found = self.store.get_many(KEY_COUNTS, [_key(self.generation, b) for b in missing])
            for b in missing:
                held[b] = found.get(_key(self.generation, b), {}).get("keys", {})
            with self._lock:
                for b in missing:
                    self._buckets[b] = held[b]
                while len(self._buckets) > BUCKET_CACHE:
                    self._buckets.popitem(last=False)
        return {key: dict(held[b].get(key, {})) for key, b in wanted.items()}

    def beyond(
        self,
        keys: Iterable[str],
        inside: Callable[[str], Mapping[str, int]],
        visible: Callable[[str], bool],
    ) -> dict[str, int]:
        """For each of ``keys``, the labels outside the snapshot that hold it, summed over
        the ``visible`` scopes (``inside``: a key's labels in the snapshot, by scope). A
        label held in two visible scopes counts twice; zero exactly when no visible label
        outside the snapshot holds the key."""
        out: dict[str, int] = {}
        for key, totals in self.totals(keys).items():
            own = inside(key)
            out[key] = sum(
                max(0, n - own.get(scope, 0)) for scope, n in totals.items() if visible(scope)
            )
        return out
