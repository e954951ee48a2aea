"""The label vocabulary of a generation: the distinct labels its facts hold, their keys, who
may see them, and one vector each — kept with the generation, in the alias's record store,
so a search service that did not ingest has it too.

A question's named quantity is matched against it by meaning
(:mod:`osrag.search.meaning`): "setup fee" finds the facts labelled "Installation charge"
although no key of one is a key of the other.

**Records** (kinds of the alias's :class:`~osrag.engines.base.RecordStore`, beside the
manifest's; the same store on OpenSearch, Elasticsearch and the embedded index):

==================  ================================  ====================================
kind                key                               record
==================  ================================  ====================================
``labels``          ``<generation>::<doc_id>``        one document's distinct labels with
                                                      their keys, and its access scope
``vocabulary``      ``<generation>::<label digest>``  one label: its text, its keys, the
                                                      scopes of the documents holding it
                                                      (with how many), its vector
``vocabulary_state`` ``<generation>``                 the labels' embedder, how many labels,
                                                      a revision, whether an update is
                                                      under way, and the snapshot
==================  ================================  ====================================

and, so that a search need not read every label, the **snapshot** of the most widely held
labels and the **key counts** (:mod:`osrag.ingestion.label_snapshot`).

**Kept in step with the generation.** An ingest records each document's labels when the
manifest records the document (:meth:`LabelBook.record`, from
:mod:`osrag.ingestion.apply`), and at its end adds the labels new to the generation and
removes those no document holds any more (:meth:`LabelBook.finish`): an in-place sync
changes only the labels of the documents it changed. Each per-document record says what
the document held before, so a changed or removed document takes back exactly its labels.
An update under way is marked in the state record; an ingest that finds the mark (an
earlier one stopped part-way) rebuilds the vocabulary from every document's record. A
generation gets a vocabulary when it is created; one built before vocabularies existed
keeps none until a new generation is built (``osrag ingest --new-generation``), and its
searches match labels by keys alone.

**Vectors**: the label, its joins and parenthesised words read as words (:func:`embedded_text`),
embedded by the generation's embedder, or by the offline default embedder where the
generation has none (and the default is installed). They go through the one vector cache
(:func:`~osrag.embedding.embed_missing`), and a new generation reads back the vectors of
the labels the generation it replaces already embedded with the same embedder (as it
reads back chunk vectors: :mod:`osrag.ingestion.reuse`). One ingest embeds at most
:data:`MEANING_LABELS` new labels, the most widely held (a search compares no more by
meaning); the others keep keys alone, and the ingest's report counts them
(``vectors_left_out``). Without either embedder the
vocabulary keeps labels and keys alone; a search then says so. Vectors are stored as
float16 (the cosine moves by less than 0.001), base64: about 1.2 KB a label with its
text, keys and scopes — 12 MB per 10,000 distinct labels (``docs/amounts.md`` has the
measured sizes).

**The first read is bounded.** A search reads the vocabulary's snapshot: at most
:data:`SNAPSHOT_LABELS` labels (the :data:`MEANING_LABELS` it compares by meaning), those
with vectors first, then the most widely held, packed about 800 to a record by a digest's
prefix; and, for the keys it asks, the key-count buckets that hold them, by id. A
vocabulary of no more labels than the bound is wholly in its snapshot: a search reads the
same labels, keys, scopes and vectors as from every record, and matches as it would. Past
the bound, three things differ: a match **by form** or **by modifier** is looked for among
the snapshot's labels only; the **by-key and by-synonym counts** of a search's report add,
for the labels outside the snapshot, counts from the buckets (a label of two scopes the
caller may see, or holding two asked keys, counts once for each) — whether any label the
caller may see holds a key, and so whether meaning is asked, stays exact; and a label
outside the snapshot is not compared **by meaning**, though a key it holds is never added
by a label that matched by modifier or by meaning (exact, from the buckets). The finish of
an ingest that changed labels rewrites the snapshot's parts and the buckets of the labels
it changed, a label new to the vocabulary entering the snapshot while it has room, one
already outside it staying outside; a rebuild, a generation's first ingest, or a snapshot
not of the state's revision (written by an osrag that keeps none) writes both whole. A
search reads the snapshot only when the state names one of its own revision; else (a
generation built before snapshots, or an update under way) it reads every record, as
before.

**Access**: a label is shown to, and matched for, only a caller who may see a document
holding it: each label keeps the scopes (tenant, ACL groups) of its documents, and a
search keeps the labels of the scopes its caller's guards let through
(:meth:`Vocabulary.visible`) — the same rule as the tenant and ACL guards. The key counts
are kept by scope for the same reason: a label only scopes the caller may not see hold
counts for nothing (:meth:`Vocabulary.beyond`).
"""

from __future__ import annotations

import base64
import bisect
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from osrag.engines.base import RecordStore
from osrag.errors import OsragError
from osrag.ingestion.label_snapshot import (
    EVERY_LABEL,
    SNAPSHOT_KINDS,
    KeyCounts,
    LabelChange,
    SnapshotState,
    label_digest,
    read_snapshot,
    update_key_counts,
    update_snapshot,
    write_key_counts,
    write_snapshot,
)
from osrag.lexicon.keys import COLUMN_JOIN, GROUP_JOIN, label_keys
from osrag.lexicon.words import phrase_words, without_parentheses, word_stems
from osrag.models import Chunk, LabelVocabularyReport
from osrag.schema.documents import Document

__all__ = [
    "LABELS",
    "LABEL_KINDS",
    "LABEL_STATE",
    "MEANING_LABELS",
    "SNAPSHOT_LABELS",
    "STATE",
    "VOCABULARY",
    "LabelBook",
    "Vocabulary",
    "VocabularyState",
    "decode_rows",
    "decode_vector",
    "document_labels",
    "embedded_text",
    "encode_rows",
    "encode_vector",
    "label_digest",
    "read_state",
    "read_vocabulary",
    "scope_of",
]

log = logging.getLogger("osrag.ingestion.label_vocabulary")

LABELS, VOCABULARY, STATE = "labels", "vocabulary", "vocabulary_state"
LABEL_KINDS = (LABELS, VOCABULARY, *SNAPSHOT_KINDS)
"""The record kinds keyed ``<generation>::…`` (forgotten with the generation, as
:data:`LABEL_STATE`'s record)."""
LABEL_STATE = STATE
READ_PAGE = 1000
"""Records asked for in one ``get_many``."""


# --------------------------------------------------------------------------- pure parts


def scope_of(tenant: str | None, acl: Iterable[str] | None) -> str:
    """A document's access scope as one string: its tenant and its sorted ACL groups."""
    return json.dumps([tenant, sorted(set(acl or ()))], separators=(",", ":"))


def parse_scope(scope: str) -> tuple[str | None, frozenset[str]]:
    tenant, groups = json.loads(scope)
    return tenant, frozenset(groups)


def scope_visible(
    scope: str, tenant: str | None, groups: frozenset[str] | None, *, unrestricted: bool = False
) -> bool:
    """Whether a caller (its tenant and groups, as the guards take them:
    :func:`osrag.search.query.access_guards`) may see documents of ``scope``: the caller's
    tenant's documents (without a tenant: the documents without one), and among them those
    without an ACL or whose ACL names one of the caller's groups. ``unrestricted``: the
    operator's view."""
    if unrestricted:
        return True
    owner, acl = parse_scope(scope)
    if owner != tenant:
        return False
    return not acl or bool(acl & (groups or frozenset()))


def document_labels(chunks: Iterable[Chunk]) -> dict[str, tuple[str, ...]]:
    """The distinct labels of a document's facts that have keys, each with its keys (the
    keys the facts are stored with: :func:`~osrag.lexicon.keys.label_keys`)."""
    found: dict[str, tuple[str, ...]] = {}
    for chunk in chunks:
        for fact in chunk.facts:
            label = fact.label
            if label and label not in found:
                keys = label_keys(label)
                if keys:
                    found[label] = keys
    return found


_MARKS = re.compile(r"[^\w&/'’%.,$€£¥-]+")
_LEADER_DOTS = re.compile(r"\.{2,}")


def embedded_text(label: str) -> str:
    """The text a label is embedded as: its joins (`` — ``, ``: ``) read as spaces,
    parenthesised words and marks that are no words (a checkbox's ``[ ]``, dots of a
    leader) left out — "Lead sponsor (one per series) — Price" → "Lead sponsor Price"."""
    text = without_parentheses(label.replace(COLUMN_JOIN, " ").replace(GROUP_JOIN, " "))
    text = _LEADER_DOTS.sub(" ", text)
    return " ".join(_MARKS.sub(" ", text).split()) or label


def encode_vector(vector: npt.ArrayLike) -> str:
    """A vector as stored: float16, little-endian, base64."""
    return base64.b64encode(np.asarray(vector, dtype="<f2").tobytes()).decode("ascii")


def encode_rows(rows: npt.ArrayLike) -> list[str]:
    """Each row of a matrix as :func:`encode_vector` stores it, the matrix cast to float16
    once."""
    cast = np.asarray(rows, dtype="<f2")
    return [base64.b64encode(row.tobytes()).decode("ascii") for row in cast]


def decode_vector(text: str) -> npt.NDArray[np.float32]:
    return np.frombuffer(base64.b64decode(text), dtype="<f2").astype(np.float32)


def decode_rows(texts: Sequence[str], dimension: int) -> npt.NDArray[np.float32]:
    """Stored vectors as unit rows (a zero row for one not of ``dimension``). Vectors of
    one length are decoded together: base64 of whole three-byte groups (2 × ``dimension``
    bytes, a multiple of 3) carries no padding, so the texts joined are one text."""
    rows = np.zeros((len(texts), dimension), dtype=np.float32)
    width = 4 * (2 * dimension) // 3  # base64 of 2 × dimension bytes, no padding
    together = (2 * dimension) % 3 == 0
    whole = [i for i, text in enumerate(texts) if together and len(text) == width]
    if whole:
        joined = base64.b64decode("".join(texts[i] for i in whole))
        rows[whole] = np.frombuffer(joined, dtype="<f2").reshape(len(whole), dimension)
    alone = set(range(len(texts))).difference(whole)
    for i in sorted(alone):
        vector = decode_vector(texts[i])
        if vector.shape == (dimension,):
            rows[i] = vector
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    np.divide(rows, norms, out=rows, where=norms > 0)
    return rows


# --------------------------------------------------------------------------- records


class VocabularyState(BaseModel):
    """The state record of a generation's vocabulary."""

    embedder: dict[str, Any] | None = Field(
        default=None,
        description="the labels' embedder: id, dimension, spec (the string that makes it), "
        "fingerprint (its vector-cache key); None: no vectors",
    )
    labels: int = 0
    revision: int = 0
    pending: bool = Field(default=False, description="an update is under way (or stopped)")
    note: str | None = None
    snapshot: SnapshotState | None = Field(
        default=None,
        description="the snapshot of the most widely held labels and the key counts "
        "(:mod:`osrag.ingestion.label_snapshot`); None: none, or one being rewritten",
    )


def read_state(store: RecordStore, generation: str) -> VocabularyState | None:
    """The state of ``generation``'s vocabulary; None: it keeps none."""
    found = store.get(STATE, generation)
    return None if found is None else VocabularyState.model_validate(found.data)


def _key(generation: str, name: str) -> str:
    return f"{generation}::{name}"


def _get_many(store: RecordStore, kind: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(keys), READ_PAGE):
        found.update(store.get_many(kind, list(keys[start : start + READ_PAGE])))
    return found


def _scopes(entry: Mapping[str, Any]) -> dict[str, int]:
    return {scope: int(n) for scope, n in entry.get("scopes", {}).items() if int(n) > 0}


# --------------------------------------------------------------------------- the ingest side


@dataclass(frozen=True)
class LabelEmbedder:
    """The embedder of a vocabulary's vectors, and how the state names it."""

    embedder: Any
    spec: str | None
    fingerprint: str

    def described(self) -> dict[str, Any]:
        return {
            "id": self.embedder.id,
            "dimension": self.embedder.dimension,
            "spec": self.spec,
            "fingerprint": self.fingerprint,
        }


@cache
def _default_embedder() -> Any:
    from osrag.embedding import default_embedder

    return default_embedder()


def label_embedder(embedder: Any, spec: str | None) -> tuple[LabelEmbedder | None, str | None]:
    """The embedder of a generation's label vectors: the generation's own (``embedder``,
    made from ``spec``), else the offline default when it is installed; None and why
    when neither is there."""
    from osrag.embedding.batching import cache_key

    if embedder is not None:
        return LabelEmbedder(embedder, spec, cache_key(embedder)), None
    try:
        default = _default_embedder()
    except OsragError as exc:
        return None, f"no embedder for the labels' vectors ({exc}): labels match by keys alone"
    return LabelEmbedder(default, "default", cache_key(default)), None


@dataclass
class _Delta:
    """Changes to the vocabulary's scope counts, by label."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, labels: Iterable[tuple[str, Sequence[str]]], scope: str, sign: int) -> None:
        for label, keys in labels:
            self.keys.setdefault(label, tuple(keys))
            scopes = self.counts.setdefault(label, {})
            scopes[scope] = scopes.get(scope, 0) + sign


class LabelBook:
    """An ingest's updates to one generation's vocabulary (see the module docstring):
    :meth:`record` as the manifest records documents, :meth:`finish` at the end."""

    def __init__(
        self,
        store: RecordStore,
        generation: str,
        state: VocabularyState,
        *,
        fresh: bool = False,
        snapshot_labels: int | None = None,
    ) -> None:
        self.store = store
        self.generation = generation
        self.state = state
        self.snapshot_labels = snapshot_labels
        """The most labels the snapshot holds (None: :data:`SNAPSHOT_LABELS`)."""
        self._fresh = fresh
        """The generation was created by this ingest: no document has a labels record."""
        self._stopped_before = state.pending
        """An earlier update stopped part-way: :meth:`finish` rebuilds."""
        self._delta = _Delta()
        self._marked = False
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls,
        store: RecordStore,
        generation: str,
        *,
        created: bool,
        snapshot_labels: int | None = None,
    ) -> LabelBook | None:
        """The book of ``generation``'s vocabulary; a generation ``created`` by this ingest
        gets one; one that keeps none (built before vocabularies) gets none (None)."""
        state = read_state(store, generation)
        if state is None:
            if not created:
                return None
            state = VocabularyState()
            store.put(STATE, generation, state.model_dump(mode="json"))
            return cls(store, generation, state, fresh=True, snapshot_labels=snapshot_labels)
        return cls(store, generation, state, snapshot_labels=snapshot_labels)

    def _mark(self) -> None:
        """Record that an update is under way, before the first document's labels change."""
        if not self._marked:
            self.state.pending = True
            self.store.put(STATE, self.generation, self.state.model_dump(mode="json"))
            self._marked = True

    def record(self, changes: Sequence[Any]) -> None:
        """The labels of documents the manifest has just recorded as written or removed
        (:class:`~osrag.ingestion.plan.Change` values of kind add, replace or remove): each
        document's labels record replaced, and what it held before taken back."""
        if not changes:
            return
        with self._lock:
            self._mark()
            keys = [_key(self.generation, c.doc_id) for c in changes]
            before = {} if self._fresh else _get_many(self.store, LABELS, keys)
            puts: list[tuple[str, dict[str, Any]]] = []
            gone: list[str] = []
            for key, change in zip(keys, changes, strict=True):
                held = before.get(key)
                if held is not None:
                    self._delta.add(
                        ((label, keys) for label, keys in held["labels"]), held["scope"], -1
                    )
                doc: Document | None = change.doc
                if change.kind == "remove" or doc is None:
                    if held is not None:
                        gone.append(key)
                    continue
                labels = document_labels(change.chunks)
                scope = scope_of(doc.tenant, doc.acl)
                self._delta.add(labels.items(), scope, +1)
                record = {
                    "scope": scope,
                    "labels": [[label, list(keys)] for label, keys in labels.items()],
                }
                puts.append((key, record))
            self.store.put_many(LABELS, puts)
            self.store.delete_many(LABELS, gone)

    def _targets(
        self, rebuild: bool
    ) -> tuple[dict[str, dict[str, int]], dict[str, tuple[str, ...]], dict[str, dict[str, Any]]]:
        """The scopes (with their documents) each changed label has now, its keys, and the
        vocabulary records they replace: from this ingest's changes, or (``rebuild``) from
        every document's labels record against every vocabulary record."""
        if not rebuild:
            delta = self._delta
            if self._fresh:  # a generation this ingest created has no vocabulary record yet
                return {label: dict(n) for label, n in delta.counts.items()}, delta.keys, {}
            wanted = [_key(self.generation, label_digest(label)) for label in delta.counts]
            existing = _get_many(self.store, VOCABULARY, wanted)
            targets: dict[str, dict[str, int]] = {}
            for label, change in delta.counts.items():
                entry = existing.get(_key(self.generation, label_digest(label)))
                scopes = _scopes(entry) if entry is not None else {}
                for scope, n in change.items():
                    scopes[scope] = scopes.get(scope, 0) + n
                targets[label] = scopes
            return targets, delta.keys, existing
        self.store.refresh()
        everything = _Delta()
        for _, held in self.store.scan(LABELS, f"{self.generation}::"):
            everything.add(((label, keys) for label, keys in held["labels"]), held["scope"], +1)
        existing = dict(self.store.scan(VOCABULARY, f"{self.generation}::"))
        targets = dict(everything.counts)
        keys = dict(everything.keys)
        for entry in existing.values():
            targets.setdefault(entry["label"], {})
            keys.setdefault(entry["label"], tuple(entry["keys"]))
        return targets, keys, existing

    def finish(
        self,
        labeller: LabelEmbedder | None,
        *,
        previous: str | None = None,
        note: str | None = None,
    ) -> LabelVocabularyReport | None:
        """Bring the vocabulary records in line with what the documents now hold: labels new
        to the generation added with their vectors (read back from the ``previous``
        generation's vocabulary when the same embedder built it, else through the vector
        cache), labels no document holds removed. ``labeller``: the labels' embedder
        (None: no vectors, ``note`` says why). None when nothing changed."""
        fingerprint = labeller.fingerprint if labeller is not None else None
        known = (self.state.embedder or {}).get("fingerprint")
        revector = labeller is not None and self.state.labels > 0 and known != fingerprint
        rebuild = self._stopped_before or revector
        if not self._marked and not rebuild:
            return None
        snapshot = self.state.snapshot
        self._unnamed()
        targets, keys, existing = self._targets(rebuild)
        puts: dict[str, dict[str, Any]] = {}
        gone: list[str] = []
        added = removed = 0
        for label, counted in targets.items():
            key = _key(self.generation, label_digest(label))
            entry = existing.get(key)
            scopes = {scope: n for scope, n in counted.items() if n > 0}
            if not scopes:
                if entry is not None:
                    gone.append(key)
                    removed += 1
                continue
            if entry is None:
                added += 1
                entry = {"label": label, "keys": list(keys[label]), "vector": None}
            elif revector:
                entry = {**entry, "vector": None}
            if entry.get("scopes") != scopes or key not in existing or revector:
                puts[key] = {**entry, "scopes": scopes}
        if rebuild:  # a record no document's label is (a key it was not written under)
            kept = {_key(self.generation, label_digest(label)) for label in targets}
            stray = [key for key in existing if key not in kept]
            gone += stray
            removed += len(stray)
        report = LabelVocabularyReport(
            labels=0, added=added, removed=removed, rebuilt=rebuild, note=note
        )
        if labeller is not None:
            self._vectors(puts, labeller, previous, report)
        self.store.put_many(VOCABULARY, sorted(puts.items()))
        self.store.delete_many(VOCABULARY, gone)
        if rebuild:
            count = len(({k for k in existing} - set(gone)) | set(puts))
        else:
            count = self.state.labels + added - removed
        revision = self.state.revision + 1
        whole = rebuild or snapshot is None or snapshot.revision != self.state.revision
        named = self._snapshot(snapshot, existing, puts, gone, whole=whole, revision=revision)
        self.state = VocabularyState(
            embedder=labeller.described() if labeller is not None else self.state.embedder,
            labels=count,
            revision=revision,
            pending=False,
            note=report.note if labeller is None else None,
            snapshot=named,
        )
        self.store.put(STATE, self.generation, self.state.model_dump(mode="json"))
        report.labels = count
        report.embedder = (self.state.embedder or {}).get("id")
        return report

    def _unnamed(self) -> None:
        """Record that an update is under way and that the snapshot is not to be trusted,
        before any vocabulary record changes (a search then reads every record)."""
        self.state.pending = True
        self.state.snapshot = None
        self.store.put(STATE, self.generation, self.state.model_dump(mode="json"))
        self._marked = True

    def _snapshot(
        self,
        snapshot: SnapshotState | None,
        existing: Mapping[str, dict[str, Any]],
        puts: Mapping[str, dict[str, Any]],
        gone: Sequence[str],
        *,
        whole: bool,
        revision: int,
    ) -> SnapshotState:
        """The snapshot and the key counts (:mod:`osrag.ingestion.label_snapshot`) brought
        in line with the vocabulary records just written: only the parts and buckets of the
        changed labels, or (``whole``: a rebuild, or a snapshot missing, of another
        revision or of another bound) written whole from every record."""
        bound = self.snapshot_labels if self.snapshot_labels is not None else SNAPSHOT_LABELS
        start = len(self.generation) + 2  # a record's key is <generation>::<label digest>
        if whole or snapshot is None or snapshot.bound != bound:
            if self._fresh:  # every record of a generation this ingest created is in puts
                entries = {key[start:]: entry for key, entry in puts.items()}
            else:
                self.store.refresh()
                entries = {
                    key[start:]: entry
                    for key, entry in self.store.scan(VOCABULARY, f"{self.generation}::")
                    if _scopes(entry)
                }
            held = write_snapshot(self.store, self.generation, entries, bound)
            write_key_counts(self.store, self.generation, entries.values())
            return SnapshotState(revision=revision, labels=held, bound=bound)
        changes = [
            LabelChange(key[start:], existing.get(key), entry) for key, entry in puts.items()
        ]
        changes += [LabelChange(key[start:], existing.get(key), None) for key in gone]
        held = update_snapshot(self.store, self.generation, changes, snapshot.labels, bound)
        update_key_counts(self.store, self.generation, changes)
        return SnapshotState(revision=revision, labels=held, bound=bound)

    def _vectors(
        self,
        puts: dict[str, dict[str, Any]],
        labeller: LabelEmbedder,
        previous: str | None,
        report: LabelVocabularyReport,
    ) -> None:
        """A vector for every record of ``puts`` without one: from the previous generation's
        vocabulary (same embedder), else through the vector cache — at most
        :data:`MEANING_LABELS` of them, the most widely held, embedded in one finish."""
        wanting = {key: entry for key, entry in puts.items() if not entry.get("vector")}
        if not wanting:
            return
        if previous is not None:
            state = read_state(self.store, previous)
            same = state is not None and (state.embedder or {}).get("fingerprint") == (
                labeller.fingerprint
            )
            if same:
                theirs = {key: _key(previous, key.split("::", 1)[1]) for key in wanting}
                found = _get_many(self.store, VOCABULARY, list(theirs.values()))
                for key, their_key in theirs.items():
                    vector = found.get(their_key, {}).get("vector")
                    if vector:
                        puts[key]["vector"] = vector
                        del wanting[key]
                        report.vectors_from_generation += 1
        if not wanting:
            return
        if len(wanting) > MEANING_LABELS:
            # a search compares at most MEANING_LABELS labels by meaning, the most widely
            # held: the others' vectors would cost an embedding each and never be read
            held = sorted(wanting, key=lambda key: (-sum(wanting[key]["scopes"].values()), key))
            report.vectors_left_out = len(held) - MEANING_LABELS
            wanting = {key: wanting[key] for key in held[:MEANING_LABELS]}
        from osrag.embedding import SqliteVectorCache, default_cache_path, embed_missing
        from osrag.embedding.cache import content_digest

        texts = [embedded_text(entry["label"]) for entry in wanting.values()]
        try:
            with SqliteVectorCache(default_cache_path()) as vector_cache:
                outcome = embed_missing(
                    [(t, content_digest(t)) for t in texts], labeller.embedder, vector_cache
                )
        except OsragError as exc:
            log.warning("the label vocabulary of %s has no vectors: %s", self.generation, exc)
            report.note = f"the labels could not be embedded ({exc}): they match by keys alone"
            return
        for key, vector in zip(wanting, encode_rows(outcome.vectors), strict=True):
            puts[key]["vector"] = vector
        report.vectors_embedded += outcome.computed
        report.vectors_cached += outcome.cached


# --------------------------------------------------------------------------- the search side


VISIBLE_CACHE = 64
"""Callers' scopes whose visible labels a vocabulary keeps (least recently used dropped)."""
MEANING_LABELS = 50_000
"""The most labels a search compares by meaning: the most widely held (by the documents
holding them), so that the product with an asked name's vector, and the vectors decoded
when the vocabulary is read, stay bounded however many distinct labels a corpus holds."""
SNAPSHOT_LABELS = MEANING_LABELS
"""The most labels an ingest writes in a vocabulary's snapshot
(:mod:`osrag.ingestion.label_snapshot`), what a search reads first: a vocabulary of no
more labels is read whole from it."""


@dataclass
class Vocabulary:
    """A generation's vocabulary as a search reads it: labels, keys, scopes and vectors as
    arrays (see the module docstring)."""

    generation: str
    revision: int
    embedder: dict[str, Any] | None
    labels: list[str]
    keys: list[tuple[str, ...]]
    scopes: list[tuple[str, ...]]
    vectors: npt.NDArray[np.float32] | None
    """``(len(meaning_rows), dimension)`` unit rows: the vectors of the labels compared by
    meaning, in the order of :attr:`meaning_rows`; a label without a vector has a zero
    row."""
    meaning_rows: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    """The labels compared by meaning (at most :data:`MEANING_LABELS`, the most widely
    held), by row; left empty beside a vector for every label: all of them."""
    counts: KeyCounts | None = None
    """The key counts of a vocabulary read from its snapshot that holds fewer labels than
    the vocabulary (:meth:`beyond`); None: these rows are every label."""
    by_key: dict[str, list[int]] = field(default_factory=dict)
    """The labels holding each key, by row."""
    _by_scope: dict[str, npt.NDArray[np.intp]] = field(default_factory=dict)
    _visible: OrderedDict[tuple[Any, ...], npt.NDArray[np.bool_]] = field(
        default_factory=OrderedDict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _sorted_keys: list[str] | None = field(default=None, init=False, repr=False, compare=False)
    _by_word: dict[str, npt.NDArray[np.intp]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not len(self.meaning_rows) and self.vectors is not None:
            self.meaning_rows = np.arange(len(self.vectors), dtype=np.intp)
        by_key: dict[str, list[int]] = {}
        by_scope: dict[str, list[int]] = {}
        for i, (keys, scopes) in enumerate(zip(self.keys, self.scopes, strict=True)):
            for key in keys:
                by_key.setdefault(key, []).append(i)
            for scope in scopes:
                by_scope.setdefault(scope, []).append(i)
        self.by_key = by_key
        self._by_scope = {s: np.asarray(ix, dtype=np.intp) for s, ix in by_scope.items()}

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def has_vectors(self) -> bool:
        return self.vectors is not None

    def holding(self, keys: Iterable[str]) -> npt.NDArray[np.bool_]:
        """Which labels hold one of ``keys``."""
        mask = np.zeros(len(self.labels), dtype=bool)
        for key in keys:
            found = self.by_key.get(key)
            if found is not None:
                mask[found] = True
        return mask

    def beyond(
        self,
        keys: Iterable[str],
        tenant: str | None,
        groups: Iterable[str] | None,
        *,
        unrestricted: bool = False,
    ) -> dict[str, int]:
        """For each of ``keys``, the labels outside these rows that a caller may see holding
        it, counted from the key counts by scope (a label of two visible scopes counts
        twice; :data:`~osrag.ingestion.label_snapshot.EVERY_LABEL`: every label); zero
        exactly when no such label holds it. Empty when these rows are every label."""
        if self.counts is None:
            return {}
        wanted = frozenset(groups or ())

        def inside(key: str) -> dict[str, int]:
            if key == EVERY_LABEL:
                return {scope: len(rows) for scope, rows in self._by_scope.items()}
            found: dict[str, int] = {}
            for r in self.by_key.get(key, ()):
                for scope in self.scopes[r]:
                    found[scope] = found.get(scope, 0) + 1
            return found

        def visible(scope: str) -> bool:
            return scope_visible(scope, tenant, wanted, unrestricted=unrestricted)

        return self.counts.beyond(keys, inside, visible)

    def keys_beginning(self, words: str, most: int) -> list[str]:
        """The keys that are ``words`` or begin with them as whole words ("outgoing wire" →
        "outgoing wire", "outgoing wire transfer"; never "outgoing wires"), at most ``most``:
        a bisection of the keys, sorted once, on the first call."""
        with self._lock:
            if self._sorted_keys is None:
                self._sorted_keys = sorted(self.by_key)
            ordered = self._sorted_keys
        found = [words] if words in self.by_key else []
        prefix = words + " "
        at = bisect.bisect_left(ordered, prefix)
        while at < len(ordered) and len(found) < most and ordered[at].startswith(prefix):
            found.append(ordered[at])
            at += 1
        return found[:most]

    def words_held(self, words: Sequence[str]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The labels holding some of ``words`` (distinct) by row, and how many each holds
        ("Termite / wood-destroying insect inspection" holds "termite" and "inspection").
        A word is held by its stem (:func:`~osrag.lexicon.words.key_stem`: "rekeying" is
        held by "Rekey", "bleeding" by "brake bleed") among the words of the label's keys
        and of the label itself, so a word a key leaves out is held too ("Chain, 12-speed",
        keyed "chain", holds "speed"). The work is in the labels holding them, whatever
        the vocabulary's size, from an index built on the first call."""
        with self._lock:
            if self._by_word is None:
                by_word: dict[str, list[int]] = {}
                for i, (label, keys) in enumerate(zip(self.labels, self.keys, strict=True)):
                    said = {w for key in keys for w in key.split(" ")}
                    said.update(phrase_words(label))
                    for stem in set(word_stems(sorted(said))):
                        by_word.setdefault(stem, []).append(i)
                self._by_word = {w: np.asarray(ix, dtype=np.intp) for w, ix in by_word.items()}
            index = self._by_word
        stems = word_stems(list(dict.fromkeys(words)))
        found = [index[w] for w in dict.fromkeys(stems) if w in index]
        if not found:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        if len(found) == 1:
            return found[0], np.ones(len(found[0]), dtype=np.intp)
        rows, counts = np.unique(np.concatenate(found), return_counts=True)
        return rows.astype(np.intp), counts.astype(np.intp)

    def visible(
        self, tenant: str | None, groups: Iterable[str] | None, *, unrestricted: bool = False
    ) -> npt.NDArray[np.bool_]:
        """Which labels a caller may see: those of a document of a scope its guards let
        through (:func:`scope_visible`). Worked out from the caller's arguments on every
        call; the answer for the same arguments is kept for the vocabulary's lifetime."""
        wanted = frozenset(groups or ())
        key = (tenant, wanted, unrestricted)
        with self._lock:
            found = self._visible.get(key)
            if found is not None:
                self._visible.move_to_end(key)
                return found
        mask = np.zeros(len(self.labels), dtype=bool)
        for scope, rows in self._by_scope.items():
            if scope_visible(scope, tenant, wanted, unrestricted=unrestricted):
                mask[rows] = True
        mask.flags.writeable = False
        with self._lock:
            self._visible[key] = mask
            while len(self._visible) > VISIBLE_CACHE:
                self._visible.popitem(last=False)
        return mask


def _entries(
    store: RecordStore, generation: str
) -> Iterator[tuple[dict[str, Any], dict[str, int]]]:
    """The generation's vocabulary records some document still holds, with their scopes."""
    for _, entry in store.scan(VOCABULARY, f"{generation}::"):
        scopes = _scopes(entry)
        if scopes:
            yield entry, scopes


def read_vocabulary(
    store: RecordStore,
    generation: str,
    *,
    most_by_meaning: int = MEANING_LABELS,
    every_record: bool = False,
) -> Vocabulary | None:
    """``generation``'s vocabulary from the record store; None: it keeps none. Read from
    its snapshot when the state names one of its revision (with the key counts beside it
    when it holds fewer labels than the vocabulary), else — or with ``every_record`` — from
    every label's record. The vectors of the ``most_by_meaning`` most widely held labels
    read (documents holding them; ties by label) are decoded, the others' left in their
    records."""
    state = read_state(store, generation)
    if state is None:
        return None
    snapshot = state.snapshot
    counts = None
    if not every_record and snapshot is not None and snapshot.revision == state.revision:
        found = [(entry, _scopes(entry)) for entry in read_snapshot(store, generation)]
        read = [(entry, scopes) for entry, scopes in found if scopes]
        if len(read) < state.labels or snapshot.labels < state.labels:
            counts = KeyCounts(store, generation)
    else:
        store.refresh()
        read = list(_entries(store, generation))
    read.sort(key=lambda found: found[0]["label"])
    rows = [entry for entry, _ in read]
    dimension = int((state.embedder or {}).get("dimension") or 0)
    vectors = None
    meaning_rows = np.zeros(0, dtype=np.intp)
    with_vector = np.asarray([bool(e.get("vector")) for e in rows], dtype=bool)
    if dimension and with_vector.any():
        held = np.asarray([sum(scopes.values()) for _, scopes in read], dtype=np.int64)
        candidates = np.flatnonzero(with_vector)
        order = np.argsort(-held[candidates], kind="stable")[:most_by_meaning]
        meaning_rows = np.sort(candidates[order]).astype(np.intp)
        vectors = decode_rows([rows[row]["vector"] for row in meaning_rows], dimension)
    return Vocabulary(
        generation=generation,
        revision=state.revision,
        embedder=state.embedder,
        labels=[e["label"] for e in rows],
        keys=[tuple(e["keys"]) for e in rows],
        scopes=[tuple(sorted(scopes)) for _, scopes in read],
        vectors=vectors,
        meaning_rows=meaning_rows,
        counts=counts,
    )
