"""Fixed windows: the exact rule in DESIGN.md, as properties."""

from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from osrag.chunking import chunk_document, normalize
from osrag.chunking.fixed import fixed_windows
from osrag.chunking.tokenizers import WhitespaceTokenizer
from osrag.models import ChunkingConfig, Document

lengths = st.integers(0, 300)
sizes = st.integers(1, 40)
overlaps = st.integers(-5, 60)


def _clamped(size: int, overlap: int) -> int:
    return min(max(overlap, 0), size - 1)


@given(lengths, sizes, overlaps)
def test_window_count_is_one_or_ceil_of_remaining_over_step(L: int, w: int, o: int) -> None:
    windows = fixed_windows(L, w, o)
    oc = _clamped(w, o)
    if L == 0:
        assert windows == []
    elif L <= w:  # noqa: SIM300
        assert len(windows) == 1
    else:
        assert len(windows) == math.ceil((L - oc) / (w - oc))


@given(lengths, sizes, overlaps)
def test_windows_cover_every_token(L: int, w: int, o: int) -> None:
    covered = set()
    for i, j in fixed_windows(L, w, o):
        covered.update(range(i, j))
    assert covered == set(range(L))


@given(lengths, sizes, overlaps)
def test_fixed_windows_share_exactly_the_overlap(L: int, w: int, o: int) -> None:
    windows = fixed_windows(L, w, o)
    oc = _clamped(w, o)
    for (i1, j1), (i2, _) in itertools.pairwise(windows):
        assert i2 - i1 == w - oc  # the step
        assert j1 - i2 == oc  # neighbours share exactly o tokens
        assert j1 - i1 == w  # only the last window may be shorter


@given(lengths, sizes, overlaps)
def test_no_redundant_trailing_window(L: int, w: int, o: int) -> None:
    windows = fixed_windows(L, w, o)
    if windows:
        assert windows[-1][1] == L  # the last window reaches the end
        assert all(j < L for _, j in windows[:-1])  # and is the first one that does


words = st.lists(
    st.text(alphabet=st.sampled_from(list("abcé.$,😀")), min_size=1, max_size=6),
    max_size=80,
)
separators = st.sampled_from([" ", "\n", "  ", "\n\n", "\t", "\r\n", "\u00a0"])


@given(words, st.data(), sizes, st.integers(0, 60))
def test_fixed_chunks_follow_the_windows_and_keep_the_span_invariant(
    tokens: list[str], data, w: int, o: int
) -> None:  # type: ignore[no-untyped-def]
    text = "".join(tok + data.draw(separators) for tok in tokens)
    doc = Document(doc_id="d", source_path="d.txt", source_version="v", title="T", text=text)
    chunks = chunk_document(doc, ChunkingConfig(strategy="fixed", size=w, overlap=o))
    source_tokens = WhitespaceTokenizer().intervals(text)
    windows = fixed_windows(len(source_tokens), w, o)
    assert [(c.token_span.start, c.token_span.end) for c in chunks] == windows
    for chunk, (i, j) in zip(chunks, windows, strict=True):
        assert chunk.span.start == source_tokens[i][0]
        assert chunk.span.end == source_tokens[j - 1][1]
        assert chunk.body == normalize(text[chunk.span.start : chunk.span.end])
        assert chunk.body.split() == [text[a:b] for a, b in source_tokens[i:j]]
        assert chunk.breadcrumb == "T"  # structure-blind
        assert chunk.parser == "none@1"
        assert chunk.tokenizer == "whitespace@2"


def test_storage_multiplier_is_w_over_w_minus_o() -> None:
    config = ChunkingConfig(size=40, overlap=8)
    assert config.step == 32
    assert config.storage_multiplier == 1.25
    assert ChunkingConfig(size=4, overlap=10).clamped_overlap == 3


def test_fixed_windows_keep_the_sources_own_line_breaks() -> None:
    text = "# Title\n\n## Scope\nThis policy overrides.\n"
    doc = Document(doc_id="d", source_path="d.md", source_version="v", title="T", text=text)
    (chunk,) = chunk_document(doc, ChunkingConfig(strategy="fixed", size=50))
    assert chunk.body == "# Title\n\n## Scope\nThis policy overrides."
