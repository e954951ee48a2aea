"""What a change costs, before it is made: :func:`price_changes` (pure).

An ingest plan (:func:`osrag.ingestion.plan.plan_ingest`) says what each document needs
in the generation it writes. Pricing it says what that means against the generation
the alias points to **now** — which is what a team loses or pays for when it changes
``chunk_size``, the strategy, the extraction version, a profile or the embedder:

* **documents** unchanged / changed / new / removed (a document the alias holds and the
  new generation will not — whether pruned in place or left out of a new generation);
* **chunks** matched by document and text (the chunk id's digest): unchanged, changed
  (new text in a known document), new, removed; and the records to write and delete;
* **vectors**, with an embedder: read back from a generation built by the same
  embedder fingerprint (:mod:`osrag.ingestion.reuse`, the same match the apply makes),
  found in the local vector cache, or to embed — and the tokens to embed.

Every count is over the documents the caller may see (``visible``); the rest are left
out, not summarised. Time, money and bytes are added at the edge
(:func:`osrag.ingestion.change_plan.plan_change`), from a measured embedding rate, the
price setting and the engine's store size.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from osrag.ingestion.plan import Change, Known
from osrag.ingestion.reuse import ChunksByText
from osrag.models import Chunk
from osrag.schema.change_plan import (
    ChunkCounts,
    DocumentCounts,
    DocumentKind,
    DocumentPlan,
    VectorCounts,
)

__all__ = ["Priced", "Pricing", "price_changes"]

SAMPLE_TEXTS = 32
"""Texts to embed kept for a calibration of the embedder (about 3 s on one core)."""


def _digest(text: str) -> str:
    """The vector cache's key of a text (:func:`osrag.embedding.cache.content_digest`)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Pricing:
    """What :func:`price_changes` needs besides the changes."""

    before: Mapping[str, Known]
    """The documents of the alias's current generation ({} without one)."""
    new_generation: bool
    """The changes build a new generation (documents not in them are not carried over)."""
    sources: Sequence[Mapping[str, Known]] = ()
    """The documents of each generation whose vectors an apply reads back, in its order."""
    embedding: bool = False
    """An embedder is configured (vectors are counted)."""
    in_cache: Callable[[Sequence[str]], Collection[str]] | None = None
    """Of the given text digests, those the local vector cache holds."""
    tokens: Callable[[Chunk], int] = lambda chunk: chunk.embedder_tokens or chunk.tokens
    """The tokens the embedder receives for a chunk."""
    tokens_counted_with: str = ""
    visible: Callable[[Change], bool] = lambda change: True
    """Whether the caller may see the document of a change (its new or its old version)."""
    visible_before: Callable[[str], bool] = lambda doc_id: True
    """Whether the caller may see a document of the current generation, by id."""


class _Tally:
    def __init__(self, pricing: Pricing) -> None:
        self.p = pricing
        self.documents = DocumentCounts()
        self.chunks = ChunkCounts()
        self.vectors = VectorCounts(tokens_counted_with=pricing.tokens_counted_with)
        self.listed: list[DocumentPlan] = []
        self.seen: set[str] = set()
        self.failed_paths: set[str] = set()
        self.embedding: set[str] = set()
        """Digests of the texts counted to embed (a repeat is then the cache's)."""
        self.tables = [ChunksByText(known) for known in pricing.sources]
        self.lost_failed = 0
        self.sample: list[str] = []

    def change(self, change: Change) -> None:
        if change.kind == "failed":
            assert change.issue is not None
            self.failed_paths.add(change.issue.path)
        elif change.kind != "remove":
            self.seen.add(change.doc_id)
        if not self.p.visible(change):
            return
        old = self.p.before.get(change.doc_id)
        if change.kind == "failed":
            self.documents.failed += 1
            return  # what the alias holds of it is counted with the removals, at the end
        if change.kind == "remove":
            self.chunks.to_delete += len(change.delete)
            return  # the document is counted with every removal, at the end
        if change.kind == "unchanged":
            self._unchanged(change, old)
            return
        self._written(change, old)

    def _unchanged(self, change: Change, old: Known | None) -> None:
        """A document the generation written already holds at this version: nothing to
        write. Against the current generation, when that is another one (the alias moves
        to a generation built before), its chunks are compared by text."""
        held = change.previous.chunk_ids if change.previous else ()
        self.documents.unchanged += 1
        self.chunks.after += len(held)
        if old is None:
            self.chunks.new += len(held)
            return
        self.chunks.before += len(old.chunk_ids)
        before = Counter(i.rsplit("#", 1)[-1] for i in old.chunk_ids)
        now = Counter(i.rsplit("#", 1)[-1] for i in held)
        same = sum((before & now).values())
        self.chunks.unchanged += same
        self.chunks.changed += len(held) - same
        self.chunks.removed += len(old.chunk_ids) - same

    def _written(self, change: Change, old: Known | None) -> None:
        if old is None:
            kind: DocumentKind = "new"
        elif change.doc is not None and change.doc.source_version == old.source_version:
            kind = "unchanged"
        else:
            kind = "changed"
        setattr(self.documents, kind, getattr(self.documents, kind) + 1)
        old_texts = {i.rsplit("#", 1)[-1] for i in old.chunk_ids} if old else set()
        new_texts = {c.chunk_id.rsplit("#", 1)[-1] for c in change.chunks}
        row = DocumentPlan(doc_id=change.doc_id, kind=kind)
        for chunk in change.chunks:
            if chunk.chunk_id.rsplit("#", 1)[-1] in old_texts:
                row.unchanged += 1
            elif old is not None:
                row.changed += 1
        row.removed = sum(t not in new_texts for t in old_texts) if old else 0
        self.chunks.before += len(old.chunk_ids) if old else 0
        self.chunks.after += len(change.chunks)
        self.chunks.unchanged += row.unchanged
        self.chunks.changed += row.changed
        self.chunks.new += 0 if old else len(change.chunks)
        self.chunks.removed += row.removed
        self.chunks.to_write += len(change.write)
        self.chunks.to_delete += len(change.delete)
        if self.p.embedding:
            row.to_embed = self._vectors(change.write)
        if kind != "unchanged" or row.changed or row.removed:
            self.listed.append(row)

    def _vectors(self, chunks: list[Chunk]) -> int:
        rest = []
        for chunk in chunks:
            if any(t.find(chunk.doc_id, chunk.chunk_id.rsplit("#", 1)[-1]) for t in self.tables):
                self.vectors.from_generation += 1
            else:
                rest.append(chunk)
        digests = [_digest(c.text) for c in rest]
        cached: Collection[str] = ()
        if self.p.in_cache is not None and digests:
            cached = set(self.p.in_cache([d for d in digests if d not in self.embedding]))
        embedded = 0
        for chunk, digest in zip(rest, digests, strict=True):
            if digest in cached or digest in self.embedding:
                self.vectors.from_cache += 1
                continue
            self.embedding.add(digest)
            if len(self.sample) < SAMPLE_TEXTS:
                self.sample.append(chunk.text)
            self.vectors.to_embed += 1
            self.vectors.tokens_to_embed += self.p.tokens(chunk)
            embedded += 1
        return embedded

    def removals(self, prune: bool) -> None:
        """Documents the alias holds now that the change leaves out: pruned in place, or
        not carried into a new generation. In place, a file that failed to load, and
        without ``prune`` every document not in the corpus, is kept as it is."""
        for doc_id, old in self.p.before.items():
            if doc_id in self.seen or not self.p.visible_before(doc_id):
                continue
            failed = old.source_path in self.failed_paths
            if (failed or not prune) and not self.p.new_generation:
                if not failed:  # a failed one is counted as failed
                    self.documents.unchanged += 1
                self.chunks.before += len(old.chunk_ids)
                self.chunks.after += len(old.chunk_ids)
                self.chunks.unchanged += len(old.chunk_ids)
                continue
            self.lost_failed += failed
            self.documents.removed += 1
            self.chunks.before += len(old.chunk_ids)
            self.chunks.removed += len(old.chunk_ids)
            self.listed.append(
                DocumentPlan(doc_id=doc_id, kind="removed", removed=len(old.chunk_ids))
            )


@dataclass
class Priced:
    """What :func:`price_changes` counted."""

    documents: DocumentCounts
    chunks: ChunkCounts
    vectors: VectorCounts | None
    """None without an embedder."""
    changed_documents: list[DocumentPlan]
    warnings: list[str]
    sample: list[str]
    """The first texts to embed (a calibration measures the embedder on them)."""


def price_changes(changes: Iterable[Change], pricing: Pricing, *, prune: bool = True) -> Priced:
    """Count ``changes`` against ``pricing.before`` (see the module docstring)."""
    tally = _Tally(pricing)
    for change in changes:
        tally.change(change)
    warnings: list[str] = []
    tally.removals(prune)
    if pricing.new_generation and not prune and tally.documents.removed:
        warnings.append(
            f"{tally.documents.removed} document(s) the alias holds are not in this corpus: "
            "a new generation holds only the corpus it is built from (--no-prune keeps "
            "documents only in place)"
        )
    if tally.lost_failed:
        warnings.append(
            f"{tally.lost_failed} document(s) the alias holds could not be read now: a new "
            "generation will not hold them"
        )
    vectors = tally.vectors if pricing.embedding else None
    return Priced(tally.documents, tally.chunks, vectors, tally.listed, warnings, tally.sample)
