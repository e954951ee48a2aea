"""The pricing of an ingest plan against the current generation (pure): what the alias
keeps, loses and rebuilds, counted by document and by chunk text."""

from __future__ import annotations

import hashlib

from osrag.chunking import chunk_document
from osrag.ingestion.cost import Pricing, price_changes
from osrag.ingestion.plan import Change, Known
from osrag.models import ChunkingConfig, Document, LoadIssue


def doc(doc_id: str, text: str) -> Document:
    version = hashlib.sha256(text.encode()).hexdigest()
    return Document(
        doc_id=doc_id, source_path=f"{doc_id}.md", source_version=version, title="", text=text
    )


def known(document: Document, config: ChunkingConfig) -> Known:
    ids = tuple(c.chunk_id for c in chunk_document(document, config))
    return Known(document.source_version, document.source_path, ids)


CONFIG = ChunkingConfig(strategy="sentences", max_tokens=8)
A = doc("a", "One two three four. Five six seven eight. Nine ten eleven twelve.")
B = doc("b", "Alpha beta gamma delta. Epsilon zeta eta theta.")
C = doc("c", "Only in the old generation. It goes away.")


def added(document: Document) -> Change:
    chunks = chunk_document(document, CONFIG)
    return Change("add", document.doc_id, document, chunks, list(chunks))


def test_a_new_generation_loses_what_the_corpus_no_longer_holds_even_without_prune() -> None:
    before = {d.doc_id: known(d, CONFIG) for d in (A, B, C)}
    edited = doc("b", "Alpha beta gamma delta. Something else entirely here.")
    pricing = Pricing(before=before, new_generation=True, sources=[before], embedding=True)
    priced = price_changes([added(A), added(edited)], pricing, prune=False)
    assert (priced.documents.unchanged, priced.documents.changed) == (1, 1)
    assert priced.documents.removed == 1  # c: not carried into the new generation
    assert priced.chunks.removed == len(before["c"].chunk_ids) + 1
    assert priced.vectors is not None
    assert priced.vectors.from_generation == len(before["a"].chunk_ids)
    assert priced.vectors.to_embed == 1
    assert any("--no-prune" in w for w in priced.warnings)


def test_in_place_without_prune_keeps_the_documents_not_in_the_corpus() -> None:
    before = {d.doc_id: known(d, CONFIG) for d in (A, C)}
    unchanged = Change("unchanged", "a", previous=before["a"])
    priced = price_changes([unchanged], Pricing(before=before, new_generation=False), prune=False)
    assert priced.documents.unchanged == 2 and priced.documents.removed == 0
    assert (
        priced.chunks.after
        == priced.chunks.before
        == sum(len(k.chunk_ids) for k in before.values())
    )
    assert priced.vectors is None  # no embedder


def test_a_file_that_fails_to_load_is_kept_in_place_and_lost_to_a_new_generation() -> None:
    before = {"a": known(A, CONFIG)}
    failed = Change("failed", "a.md", issue=LoadIssue(path="a.md", reason="unreadable"))
    in_place = price_changes([failed], Pricing(before=before, new_generation=False))
    assert in_place.documents.failed == 1 and in_place.documents.removed == 0
    assert in_place.chunks.after == len(before["a"].chunk_ids)
    rebuilt = price_changes([failed], Pricing(before=before, new_generation=True))
    assert rebuilt.documents.removed == 1 and rebuilt.chunks.after == 0
    assert any("could not be read" in w for w in rebuilt.warnings)


def test_a_hidden_document_is_neither_counted_nor_listed() -> None:
    before = {d.doc_id: known(d, CONFIG) for d in (A, C)}
    pricing = Pricing(
        before=before,
        new_generation=True,
        visible=lambda change: change.doc_id != "b",
        visible_before=lambda doc_id: doc_id != "c",
    )
    priced = price_changes([added(A), added(B)], pricing)
    assert priced.documents.new == 0 and priced.documents.removed == 0
    assert {row.doc_id for row in priced.changed_documents} <= {"a"}
