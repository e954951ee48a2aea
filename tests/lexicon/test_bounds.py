"""The length bounds (:mod:`osrag.lexicon.bounds`): one rule of a cut, marked; the keys of
one label bounded whatever its length, on both sides; the mapping's ``ignore_above`` the
code's bounds."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from osrag.lexicon.bounds import (
    ELLIPSIS,
    HEADING_CHARS,
    KEY_CHARS,
    KEY_WORDS,
    KEYS_PER_LABEL,
    LABEL_CHARS,
    TERM_CHARS,
    shorten,
)
from osrag.lexicon.function_words import ALL_PREPOSITIONS
from osrag.lexicon.keys import COLUMN_JOIN, GROUP_JOIN, asked_keys, label_keys

MAPPING = Path(__file__).resolve().parents[2] / "mappings" / "chunks.json"

_letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14)
_words = st.lists(
    st.one_of(_letters, st.sampled_from(["total", "net", "of", "and", "deferred", "revenue"])),
    min_size=1,
    max_size=30,
)


@given(text=st.text(max_size=3000), limit=st.integers(min_value=2, max_value=1200))
def test_a_cut_is_never_longer_than_its_bound_and_always_marked(text: str, limit: int) -> None:
    got = shorten(text, limit)
    assert len(got) <= max(limit, len(text) if len(text) <= limit else 0)
    if len(text) <= limit:
        assert got == text
    else:
        assert got.endswith(ELLIPSIS) and len(got) <= limit
        assert text.startswith(got[:-1].rstrip())


def test_a_cut_ends_at_a_space_in_its_second_half_when_there_is_one() -> None:
    assert shorten("alpha beta gamma delta", 15) == "alpha beta…"
    assert shorten("a" * 30, 10) == "a" * 9 + ELLIPSIS  # no space: cut inside the word
    assert shorten("short", 10, cut=True) == "short…"  # cut upstream: marked though it fits
    assert shorten("short…", 10, cut=True) == "short…"  # never marked twice


@settings(max_examples=40, deadline=None)
@given(vocabulary=_words, length=st.integers(min_value=1_000, max_value=200_000))
def test_the_keys_of_one_label_are_bounded_whatever_its_length(
    vocabulary: list[str], length: int
) -> None:
    text = " ".join(vocabulary * (length // (len(" ".join(vocabulary)) + 1) + 1))[:length]
    for label in (text, f"Revenue{COLUMN_JOIN}{text}", f"{text}{GROUP_JOIN}Total"):
        keys = label_keys(label)
        assert len(keys) <= KEYS_PER_LABEL
        assert all(len(k) <= KEY_CHARS and len(k.split()) <= KEY_WORDS for k in keys)
        asked = asked_keys(label)
        assert all(len(k.split()) <= KEY_WORDS for k in asked)


@given(words=st.lists(_letters, min_size=KEY_WORDS + 1, max_size=3 * KEY_WORDS))
def test_a_name_longer_than_a_key_is_asked_as_its_label_keys_it(words: list[str]) -> None:
    """Both sides read a phrase of more than ``KEY_WORDS`` words as its last ones: the
    question naming the label asks for a key the fact holds."""
    label = " ".join(words)[:LABEL_CHARS].rsplit(" ", 1)[0]
    # a name that ends in a preposition ("… as") is never asked, whatever its length
    last = label.split()[-1]
    assume(last not in ALL_PREPOSITIONS and last.removesuffix("s") not in ALL_PREPOSITIONS)
    assert set(asked_keys(label)) & set(label_keys(label))


def test_the_mapping_holds_the_bounds_of_the_code() -> None:
    facts = json.loads(MAPPING.read_text())["mappings"]["properties"]
    nested = facts["facts"]["properties"]
    assert nested["label_keys"]["ignore_above"] == KEY_CHARS
    assert nested["period"]["ignore_above"] == TERM_CHARS
    assert nested["scope_name"]["ignore_above"] == TERM_CHARS
    assert nested["label"]["fields"]["raw"]["ignore_above"] >= LABEL_CHARS
    assert facts["heading_path"]["ignore_above"] == HEADING_CHARS
    lucene_term_bytes = 32_766
    assert 4 * max(KEY_CHARS, TERM_CHARS, HEADING_CHARS, LABEL_CHARS) <= lucene_term_bytes
