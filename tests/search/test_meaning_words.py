"""Matching a named quantity to the labels holding most of its words
(:func:`osrag.search.meaning.naming_words`, the worded step's labels), pure: a vocabulary
built here."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.ingestion.label_vocabulary import Vocabulary, scope_of
from osrag.lexicon.keys import asked_key, label_keys
from osrag.lexicon.words import phrase_words, word_stems
from osrag.schema.filters import AmountFilter
from osrag.search.meaning import match_name, naming_words, with_label_matches
from osrag.search.query import plan_query

EVERYONE = scope_of(None, None)


def vocabulary(labels: list[str], scopes: list[str] | None = None) -> Vocabulary:
    return Vocabulary(
        generation="g",
        revision=1,
        embedder=None,
        labels=labels,
        keys=[label_keys(label) for label in labels],
        scopes=[(s,) for s in (scopes or [EVERYONE] * len(labels))],
        vectors=None,
    )


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("outgoing wire fees", ["outgoing", "wire"]),
        ("dental cleanings at the vet", ["dental", "cleaning", "vet"]),
        ("the annual fee", []),
        ("total cost", []),
        ("monthly charge", []),
        ("gutter cleaning", ["gutter", "cleaning"]),
    ],
)
def test_the_naming_words_leave_out_heads_that_only_say_amount_function_and_period_words(
    name: str, words: list[str]
) -> None:
    assert naming_words(name) == words


def test_a_label_holding_both_words_of_two_matches_and_one_holding_one_does_not() -> None:
    labels = vocabulary(
        [
            "Termite / wood-destroying insect inspection",
            "Home inspection",
            "Termite treatment",
        ]
    )
    found = match_name(labels, "termite inspections")
    assert found.report.by_words == 1
    assert [(m.label, m.by) for m in found.report.matches] == [
        ("Termite / wood-destroying insect inspection", "words")
    ]
    assert found.worded == ("termite wood destroying insect inspection",)
    assert found.added == ()  # words never widen the bound step
    assert found.report.note is not None
    assert found.report.note.endswith("the worded step asks the 1 label holding most of its words")


def test_two_of_three_words_match_and_the_most_words_come_first() -> None:
    labels = vocabulary(
        ["Sewer line camera scope", "Scope of work add-on", "Sewer scope add-on visit"]
    )
    found = match_name(labels, "sewer scope add-on")
    assert [m.label for m in found.report.matches] == [
        "Sewer scope add-on visit",  # three of three
        "Sewer line camera scope",  # two of three, fewer words than the next
        "Scope of work add-on",
    ]


def test_a_label_matched_by_key_is_not_matched_again_by_words() -> None:
    labels = vocabulary(["Outgoing wire fee", "Outgoing wire transfer, international"])
    found = match_name(labels, "outgoing wire fees")
    assert found.report.by_key == 1
    assert [m.label for m in found.report.matches if m.by == "words"] == [
        "Outgoing wire transfer, international"
    ]


def test_a_label_the_caller_cannot_see_is_never_matched_by_words() -> None:
    hidden = scope_of("other-tenant", None)
    labels = vocabulary(["Cleaning of gutters", "Gutter cleaning and repair"], [hidden, hidden])
    shown = labels.visible(None, None)
    found = match_name(labels, "gutter cleaning", visible=shown)
    assert found.report.by_words == 0 and found.worded == ()


def test_a_quantity_s_name_is_matched_by_words_only_whole_and_at_its_head() -> None:
    labels = vocabulary(
        [
            "Refundable security deposit",
            "Deferred revenue",
            "Deposit refundable on request, less cleaning",
            "Revenue recognised from refundable deposits",
        ]
    )
    found = match_name(labels, "refundable deposit")
    assert [m.label for m in found.report.matches if m.by == "words"] == [
        "Refundable security deposit"
    ]
    # one word naming a quantity: its words beside others name other quantities
    assert match_name(labels, "revenue").report.by_words == 0


def test_the_worded_step_comes_after_narrowed_and_asks_the_worded_keys() -> None:
    labels = vocabulary(["Cleaning of gutters and downpipes"])
    plan = plan_query("gutter cleaning under $120")
    assert "worded" not in plan.amount_steps  # before a search matched any label
    found = match_name(labels, "gutter cleaning")
    matched = with_label_matches(plan, {("gutter cleaning", False): found})
    assert matched.amount_steps == ("bound", "narrowed", "worded", "role-free", "none")
    (kept,) = [f for f in matched.kept(step="worded") if isinstance(f, AmountFilter)]
    assert "cleaning of gutter and downpipe" in repr(kept.filter)
    (line,) = matched.asked["worded"]
    assert "holding most of the words of 'gutter cleaning'" in line


WORDS = st.sampled_from(
    ["gutter", "cleaning", "termite", "inspection", "window", "sewer", "scope", "visit"]
)
"""Words that name things, none a quantity the vocabulary knows (those are asked whole)."""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(WORDS, min_size=1, max_size=4), min_size=1, max_size=8),
    st.lists(WORDS, min_size=1, max_size=3, unique=True),
)
def test_every_label_matched_by_words_holds_more_than_half_of_them(
    labels: list[list[str]], asked: list[str]
) -> None:
    written = [" ".join(words).capitalize() for words in labels]
    table = vocabulary(written)
    name = " ".join(asked)
    found = match_name(table, name)
    wanted = naming_words(name)
    matched = {m.label for m in found.report.matches if m.by == "words"}
    others = {m.label for m in found.report.matches if m.by != "words"}
    stems = set(word_stems(wanted))
    # a tail of the name a label holds as a key answers first: only without one are the
    # labels holding most of its words asked
    key = asked_key(name).split(" ")
    by_tail = any(" ".join(key[start:]) in table.by_key for start in range(1, len(key) - 1))
    for r, label in enumerate(written):
        held = _stems_said(label, table.keys[r])
        majority = len(held & stems) > len(stems) / 2 and bool(stems)
        if label in matched:
            assert majority
        elif majority and label not in others and len(matched) < 16 and not by_tail:
            raise AssertionError(f"{label!r} holds most of {wanted} and was not matched")
    rows, counts = table.words_held(wanted)
    holding = dict(zip(rows.tolist(), counts.tolist(), strict=True))
    for r, label in enumerate(written):
        assert holding.get(r, 0) == len(_stems_said(label, table.keys[r]) & stems)


def _stems_said(label: str, keys: tuple[str, ...]) -> set[str]:
    """The stems of the words a label says: its keys' and its own."""
    return set(word_stems([*{w for key in keys for w in key.split(" ")}, *phrase_words(label)]))


def test_a_word_is_held_by_its_stem_and_by_a_label_word_its_keys_leave_out() -> None:
    labels = vocabulary(["Kettle descale, per unit", "Tyre, 26-inch", "Kettle repair", "Tube"])
    found = match_name(labels, "descaling kettles")
    assert [(m.label, m.by) for m in found.report.matches] == [
        ("Kettle descale, per unit", "words")
    ]
    # keyed "tyre" only; "inch" is a word of the label
    found = match_name(labels, "inch tyres")
    assert [(m.label, m.by) for m in found.report.matches] == [("Tyre, 26-inch", "words")]


# ------------------------------------------------------------------ the tail the labels hold


def test_an_over_specified_name_is_asked_as_the_longest_tail_a_label_holds() -> None:
    labels = vocabulary(
        [
            "Weekend service call (Saturday or Sunday) — Price",
            "Service call fee credited toward the repair",
            "Standard service call",
        ]
    )
    found = match_name(labels, "appliance repair weekend service calls")
    assert [(m.label, m.by) for m in found.report.matches] == [
        ("Weekend service call (Saturday or Sunday) — Price", "words")
    ]
    assert "weekend service call" in found.worded


def test_of_the_labels_holding_the_tail_those_saying_a_left_out_word_are_kept() -> None:
    labels = vocabulary(
        ["Call-out — Weekdays", "Call-out — Sundays and bank holidays", "Call-out — Evenings"]
    )
    found = match_name(labels, "Sunday appliance call-outs")
    assert [m.label for m in found.report.matches] == ["Call-out — Sundays and bank holidays"]


def test_a_tail_many_labels_hold_is_a_kind_of_thing_and_the_words_decide() -> None:
    names = ["Apostille", "Notarization", "Courier", "Translation", "Certified copy"]
    labels = vocabulary([f"{n} — service fee" for n in names] + ["Embassy legalization"])
    found = match_name(labels, "embassy legalization service fees")
    # "service fee" picks out five labels: no tail; the label holding most words is asked
    assert [m.label for m in found.report.matches][:1] == ["Embassy legalization"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["mobile", "premium", "weekend", "express", "garden"]), min_size=1,
             max_size=3, unique=True),
    st.sampled_from(["window cleaning", "gutter clearing", "lawn mowing", "key cutting"]),
)  # fmt: skip
def test_words_before_a_held_name_never_lose_it(modifiers: list[str], thing: str) -> None:
    labels = vocabulary([thing.capitalize(), "Call-out charge", "Parking"])
    found = match_name(labels, f"{' '.join(modifiers)} {thing}")
    assert thing.capitalize() in {m.label for m in found.report.matches}
