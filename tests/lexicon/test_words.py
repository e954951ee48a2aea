"""Words as written: one singulariser both sides use, its other number built on it, and
the one normaliser of a name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.lexicon.keys import label_keys
from osrag.lexicon.words import (
    OWN_PLURALS,
    name_key,
    name_words,
    normalised,
    other_number,
    person_of,
    phrase_words,
    singular,
    word_set,
)

NOUNS = [
    ("revenues", "revenue"),
    ("liabilities", "liability"),
    ("taxes", "tax"),
    ("expenses", "expense"),
    ("losses", "loss"),
    ("branches", "branch"),
    ("limits", "limit"),
    ("premiums", "premium"),
    ("analyses", "analysis"),
    ("dialyses", "dialysis"),
]


@pytest.mark.parametrize(("plural", "one"), NOUNS)
def test_a_plural_is_read_in_the_singular(plural: str, one: str) -> None:
    assert singular(plural) == one
    assert other_number(plural) == one
    assert other_number(one) == plural


@pytest.mark.parametrize(
    "word", ["loss", "status", "basis", "gas", "its", "us", "analysis", "dialysis"]
)
def test_a_word_that_only_looks_plural_stays_as_it_is(word: str) -> None:
    assert singular(word) == word


@given(st.from_regex(r"[a-z]{2,12}", fullmatch=True))
def test_the_other_number_is_the_singular_whenever_there_is_one(word: str) -> None:
    """One rule of number: the other number of a plural is what :func:`singular` reads
    it as, never a second reading (``gas`` is a singular: its other number is ``gases``,
    not ``ga``)."""
    other = other_number(word)
    if word in OWN_PLURALS:
        assert other == word == singular(word)
        return
    assert other != word
    if singular(word) != word:
        assert other == singular(word)


@pytest.mark.parametrize("word", sorted(OWN_PLURALS))
def test_a_noun_used_only_in_the_plural_keeps_its_number_and_heads_a_label(word: str) -> None:
    # "dues" read as "due" would be the "due" of "amount due", a word a name keeps only
    # with its quantity: "Club dues" would lose its head
    assert singular(word) == other_number(word) == word
    assert word in label_keys(f"Club {word}")
    assert word in label_keys(f"Member {word.capitalize()}")


def test_a_list_is_written_as_one_string() -> None:
    assert word_set("a an\n the  a") == frozenset({"a", "an", "the"})


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Shareholders' equity (deficit)", ["shareholders", "equity"]),
        ("R&D", ["r", "and", "d"]),
        ("Research & development", ["research", "and", "development"]),
        ("Property, plant and equipment, net", ["property", "plant", "and", "equipment", "net"]),
        ("Non-current assets [2]", ["non", "current", "assets"]),
        ("Owner’s premium", ["owners", "premium"]),
        ("Umsatzerlöse", ["umsatzerlöse"]),
    ],
)
def test_a_name_is_normalised_one_way(name: str, words: list[str]) -> None:
    assert name_words(name) == words
    assert normalised(name) == " ".join(words)
    assert phrase_words(name) == [singular(w) for w in words]
    assert name_key(name) == tuple(phrase_words(name))


@given(st.text(max_size=40))
def test_the_normaliser_is_idempotent_and_the_keys_read_its_words(text: str) -> None:
    once = normalised(text)
    assert normalised(once) == once
    assert phrase_words(text) == [singular(w) for w in once.split()]


@pytest.mark.parametrize(
    ("word", "person"),
    [
        ("sponsorships", "sponsor"),
        ("membership", "member"),
        ("partnerships", "partner"),
        ("worship", None),  # no base of four letters
        ("airship", None),
        ("sponsor", None),
        ("shipping", None),
    ],
)
def test_a_standing_in_ship_is_held_by_its_person(word: str, person: str | None) -> None:
    assert person_of(word) == person
