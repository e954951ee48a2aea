"""Anchored cuts: an edit near the top of a document changes the chunks of its own run,
and every later chunk keeps its text; without anchors the same edit cascades."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from osrag.chunking import chunk_document, get_tokenizer
from osrag.chunking.anchors import is_anchor
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document

SLICES = Path(__file__).resolve().parents[1] / "data" / "corpora"
ADDED = " This sentence was added near the top of the document by an edit."


def long_documents() -> list[Document]:
    found = []
    for folder in (SLICES / "cuad-contracts" / "contracts", SLICES / "opensearch-docs"):
        found += [d for d in load_corpus(folder) if isinstance(d, Document) and len(d.text) > 8000]
    return found


def edited(doc: Document) -> tuple[Document, int]:
    """``doc`` with a sentence added to its first paragraph of prose; where it was added."""
    start = doc.content_start
    while True:
        end = doc.text.find("\n\n", start)
        assert end > 0
        block = doc.text[start:end].strip()
        if len(block.split()) >= 12 and block[0].isalpha():
            break
        start = end + 2
    text = doc.text[:end] + ADDED + doc.text[end:]
    return doc.model_copy(update={"text": text, "source_version": "edited"}), end


def later_changed(doc: Document, config: ChunkingConfig) -> float:
    """Share of the edited document's chunks that start after the edit and whose text
    the original did not hold."""
    before = Counter(c.text for c in chunk_document(doc, config))
    after_doc, at = edited(doc)
    later = [c for c in chunk_document(after_doc, config) if c.span.start > at + len(ADDED)]
    assert len(later) >= 5
    return sum(before[c.text] == 0 for c in later) / len(later)


@pytest.mark.parametrize("strategy", ["fixed", "sentences"])
def test_an_edit_near_the_top_changes_no_later_chunk_when_anchored(strategy: str) -> None:
    docs = long_documents()
    assert len(docs) >= 5
    plain = ChunkingConfig(strategy=strategy, size=120, max_tokens=120)  # type: ignore[arg-type]
    anchored = plain.model_copy(update={"anchor": "structure"})
    cascading = [later_changed(d, plain) for d in docs]
    kept = [later_changed(d, anchored) for d in docs]
    if strategy == "fixed":
        assert sum(cascading) / len(docs) > 0.5  # the plain rule cascades
    assert sum(kept) / len(docs) < 0.05
    assert sum(kept) < sum(cascading)


def test_anchored_fixed_windows_cover_every_token_once_and_keep_the_window_rule() -> None:
    config = ChunkingConfig(strategy="fixed", size=50, overlap=10, anchor="structure")
    tokenizer = get_tokenizer(config.tokenizer)
    for doc in long_documents():
        chunks = chunk_document(doc, config)
        total = tokenizer.positions(doc.text, doc.content_start).position(len(doc.text))
        covered = set()
        for chunk in chunks:
            assert chunk.tokens <= 50
            covered.update(range(chunk.token_span.start, chunk.token_span.end))
        assert covered == set(range(total))
        assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_a_paragraph_ends_a_run_as_often_as_its_share_of_the_bound() -> None:
    rng = random.Random(7)
    words = [
        "amount",
        "deductible",
        "policy",
        "limit",
        "premium",
        "insurer",
        "clause",
        "term",
        "party",
        "notice",
    ]
    for tokens in (10, 50, 100):
        paragraphs = [" ".join(rng.choices(words, k=tokens)) for _ in range(3000)]
        share = sum(is_anchor(p, tokens, 200) for p in paragraphs) / len(paragraphs)
        assert abs(share - tokens / 200) < 0.04
    assert is_anchor("one two three", 250, 200)  # as long as the bound: always
    text = "the same paragraph, the same answer"
    assert len({is_anchor(text, 7, 40) for _ in range(5)}) == 1
