"""Sentences: segmentation that survives abbreviations and decimals; whole-sentence packing."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.chunking import chunk_document, normalize
from osrag.chunking.sentences import pack_sentences, sentence_spans
from osrag.models import ChunkingConfig, Document


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The fee is $2.5 million. It is due in 30 days.",
            ["The fee is $2.5 million.", "It is due in 30 days."],
        ),
        (
            "Shipped within the U.S. Government's rules. Then billed.",
            ["Shipped within the U.S. Government's rules.", "Then billed."],
        ),
        (
            "Acme Inc. and Dr. Smith agree, e.g. on No. 5. J. R. Doe signs.",
            ["Acme Inc. and Dr. Smith agree, e.g. on No. 5.", "J. R. Doe signs."],
        ),
        (
            '1. DEFINITIONS\n1.1 Terms. "Agreement" means this. (a) First!',
            ["1. DEFINITIONS\n1.1 Terms.", '"Agreement" means this.', "(a) First!"],
        ),
        ("Is it? Yes! Done.", ["Is it?", "Yes!", "Done."]),
        ("Paragraph one\n\nparagraph two", ["Paragraph one", "paragraph two"]),
        ("version 2.19 is out. see the notes.", ["version 2.19 is out. see the notes."]),
    ],
)
def test_sentence_boundaries(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@given(st.lists(st.integers(1, 30), max_size=40), st.integers(1, 40), st.integers(0, 3))
def test_packing_takes_whole_sentences_up_to_the_budget(
    counts: list[int], budget: int, overlap: int
) -> None:
    runs = pack_sentences(counts, budget, overlap)
    if not counts:
        assert runs == []
        return
    assert runs[0][0] == 0 and runs[-1][1] == len(counts)
    for i, j in runs:
        assert i < j
        # within budget, unless it is one sentence that alone exceeds it
        assert sum(counts[i:j]) <= budget or j == i + 1
    for (i1, j1), (i2, j2) in itertools.pairwise(runs):
        shared = j1 - i2
        assert 0 <= shared <= overlap  # neighbours share at most `overlap` whole sentences
        assert j2 > j1  # and each chunk brings at least one new sentence
        if overlap == 0:
            assert shared == 0
            # greedy: the next sentence did not fit in the previous chunk
            assert sum(counts[i1:j1]) + counts[j1] > budget


words = st.text(alphabet=st.sampled_from(list("abcXY")), min_size=1, max_size=5)
sentence = st.builds(
    lambda first, rest, stop: " ".join([first.capitalize(), *rest]) + stop,
    words,
    st.lists(words, max_size=12),
    st.sampled_from([".", "!", "?"]),
)


@given(st.lists(sentence, max_size=20), st.integers(1, 15), st.integers(0, 2))
def test_sentence_chunks_are_runs_of_whole_sentences(
    parts: list[str], budget: int, overlap: int
) -> None:
    text = " ".join(parts)
    doc = Document(doc_id="d", source_path="d.txt", source_version="v", title="T", text=text)
    config = ChunkingConfig(strategy="sentences", max_tokens=budget, overlap_sentences=overlap)
    chunks = chunk_document(doc, config)
    spans = sentence_spans(text)
    starts = {a for a, _ in spans}
    ends = {b for _, b in spans}
    for chunk in chunks:
        assert chunk.body == normalize(text[chunk.span.start : chunk.span.end])
        size = chunk.token_span.end - chunk.token_span.start
        assert size == len(chunk.body.split())
        assert size <= budget
        if chunk.span.start in starts and chunk.span.end in ends:
            continue  # a run of whole sentences
        # otherwise a fixed piece of one sentence that alone exceeds the budget
        (host,) = [(a, b) for a, b in spans if a <= chunk.span.start and chunk.span.end <= b]
        assert len(text[host[0] : host[1]].split()) > budget
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.token_span.start, chunk.token_span.end))
    assert covered == set(range(len(text.split())))
