"""Matching a named quantity to the labels of a vocabulary, by key, by synonym and by meaning
(:mod:`osrag.search.meaning`), pure: a vocabulary built here, its vectors chosen so each
cosine is what the test says it is."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given as given_examples
from hypothesis import settings
from hypothesis import strategies as st

from osrag.ingestion.label_vocabulary import Vocabulary, scope_of
from osrag.lexicon.keys import label_keys
from osrag.schema.filters import AmountFilter, Nested, Terms
from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import constraint_keys, fact_filter, label_filter
from osrag.search.meaning import Matched, match_name, with_label_matches
from osrag.search.query import plan_query

NAME = np.array([1.0, 0.0, 0.0], dtype=np.float32)
"""The asked name's vector; a label's cosine with it is its first coordinate."""
EVERYONE = scope_of(None, None)


def at(cosine: float) -> list[float]:
    """A unit vector whose cosine with :data:`NAME` is ``cosine``."""
    return [cosine, float(np.sqrt(1 - cosine**2)), 0.0]


def vocabulary(rows: list[tuple[str, float, str]]) -> Vocabulary:
    """Labels with their cosine to the asked name and their documents' scope."""
    return Vocabulary(
        generation="g",
        revision=1,
        embedder={"id": "test@1", "dimension": 3},
        labels=[label for label, _, _ in rows],
        keys=[label_keys(label) for label, _, _ in rows],
        scopes=[(scope,) for _, _, scope in rows],
        vectors=np.array([at(c) for _, c, _ in rows], dtype=np.float32),
    )


def given(vector: npt.NDArray[np.float32] = NAME) -> tuple[list[int], object]:
    """A ``vector`` callable that counts its calls."""
    calls: list[int] = []

    def vector_of() -> tuple[npt.NDArray[np.float32] | None, str | None]:
        calls.append(1)
        return vector, None

    return calls, vector_of


def test_a_label_holding_the_key_is_matched_by_key_and_meaning_is_not_asked() -> None:
    words = vocabulary([("Setup fee", 0.2, EVERYONE), ("Installation charge", 0.9, EVERYONE)])
    calls, vector = given()
    found = match_name(words, "setup fee", vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert calls == [] and found.added == ()
    assert [(m.label, m.by) for m in found.report.matches] == [("Setup fee", "key")]
    assert found.report.by_key == 1 and found.report.matched and found.report.note is None


def test_a_synonym_is_said_apart_from_the_name_s_own_key() -> None:
    words = vocabulary([("Net sales", 0.3, EVERYONE), ("Total revenue", 0.3, EVERYONE)])
    found = match_name(words, "revenue", threshold=0.7)
    assert {(m.label, m.by) for m in found.report.matches} == {
        ("Total revenue", "key"),
        ("Net sales", "synonym"),
    }
    assert (found.report.by_key, found.report.by_synonym) == (1, 1)


def test_a_label_in_other_words_adds_its_own_keys_not_the_words_it_shares() -> None:
    words = vocabulary(
        [
            ("Installation charge", 0.75, EVERYONE),
            ("Monthly charge", 0.4, EVERYONE),
            ("Late fee", 0.3, EVERYONE),
        ]
    )
    calls, vector = given()
    found = match_name(words, "setup fee", vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert calls == [1]
    assert found.added == ("installation charge",)  # not "charge": "Monthly charge" holds it
    (meant,) = found.report.matches
    assert (meant.label, meant.by, meant.cosine) == ("Installation charge", "meaning", 0.75)
    assert found.report.by_meaning == 1 and found.report.threshold == 0.7


def test_a_threshold_that_admits_nothing_adds_nothing_and_says_so() -> None:
    words = vocabulary([("Installation charge", 0.62, EVERYONE), ("Late fee", 0.3, EVERYONE)])
    _, vector = given()
    found = match_name(words, "setup fee", vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert found.added == () and found.report.matches == [] and not found.report.matched
    assert found.report.note is not None
    assert "no label the search may see names 'setup fee'" in found.report.note
    assert "'Installation charge' (0.62)" in found.report.note


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("setup fee", "Late fee"),  # the same head: another fee
        ("revenue", "Cost of revenue"),  # the head beside another: a cost
        ("revenue", "Revenue — First Quarter"),  # a quarter's column: its keys decide
        ("net income", "Net revenue"),  # two quantities the vocabulary knows apart
        ("annual revenue", "Gross profit"),
        ("bridge loan", "Bridge loan fee"),  # a loan names a figure of its own: a fee is not it
        ("setup fee", "Setup fee refund"),
        ("exhibit booth", "Exhibit booth deposit"),  # a deposit on the booth, not its price
    ],
)
def test_meaning_never_overrules_what_the_words_decide(name: str, label: str) -> None:
    words = vocabulary([(label, 0.95, EVERYONE)])
    _, vector = given()
    found = match_name(words, name, vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert found.added == () and found.report.by_meaning == 0


@pytest.mark.parametrize(
    ("name", "label", "key", "other"),
    [
        (
            "stall sponsorship",
            "Corner-stall sponsorship fee",
            "corner stall sponsorship fee",
            "Sponsorship cancellation fee",
        ),
        ("exhibit booth", "Premium exhibit booth price", "premium exhibit booth price", "Booth"),
        (
            "banner placement",
            "Stage banner placement charge",
            "stage banner placement charge",
            "Placement",
        ),
    ],
)
def test_a_label_naming_the_asked_thing_s_fee_or_price_is_left_to_meaning(
    name: str, label: str, key: str, other: str
) -> None:
    words = vocabulary([(label, 0.8, EVERYONE), (other, 0.75, EVERYONE)])
    _, vector = given()
    found = match_name(words, name, vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert [m.label for m in found.report.matches] == [label]
    assert found.added == (key,)  # the other holds the head, not the asked thing's figure
    below = match_name(vocabulary([(label, 0.6, EVERYONE)]), name, vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert below.added == ()  # the threshold still decides


def test_a_result_asked_on_its_positive_side_matches_no_loss_by_meaning() -> None:
    words = vocabulary([("Operating loss", 0.9, EVERYONE), ("Operating profit", 0.8, EVERYONE)])
    _, vector = given()
    found = match_name(words, "core results", gains_only=True, vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert [m.label for m in found.report.matches] == ["Operating profit"]


def test_labels_a_caller_cannot_see_are_never_matched_named_or_counted() -> None:
    acme, beta = scope_of("acme", None), scope_of("beta", ["board"])
    words = vocabulary(
        [
            ("Installation charge", 0.99, beta),  # the nearest, another tenant's
            ("Connection charge", 0.5, acme),
            ("Activation charge", 0.98, scope_of("acme", ["board"])),  # acme's board only
        ]
    )
    _, vector = given()
    seen = words.visible("acme", ["staff"])
    found = match_name(words, "setup fee", visible=seen, vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert found.added == () and found.report.labels == 1
    assert found.report.note is not None
    assert "Installation" not in found.report.note and "Activation" not in found.report.note
    assert "'Connection charge' (0.50)" in found.report.note
    board = match_name(
        words, "setup fee", visible=words.visible("acme", ["board"]), vector=vector, threshold=0.7
    )  # type: ignore[arg-type]
    assert board.added == ("activation charge",)
    assert "Installation" not in board.report.model_dump_json()


def test_a_key_held_by_a_label_the_caller_cannot_see_is_still_added() -> None:
    """The exclusive-key rule looks at the caller's labels only: another tenant's label
    holding the same key neither withholds it nor shows through."""
    acme, beta = scope_of("acme", None), scope_of("beta", None)
    words = vocabulary(
        [("Installation charge", 0.8, acme), ("Installation charge (waived)", 0.1, beta)]
    )
    _, vector = given()
    found = match_name(
        words, "setup fee", visible=words.visible("acme", None), vector=vector, threshold=0.7
    )  # type: ignore[arg-type]
    assert found.added == ("installation charge",)


def test_without_a_vocabulary_or_a_vector_the_keys_alone_match_and_it_is_said() -> None:
    none = match_name(None, "setup fee", threshold=0.7, note="no vocabulary")
    assert none.report.vocabulary == "none" and none.report.matched
    words = vocabulary([("Installation charge", 0.9, EVERYONE)])

    def unavailable() -> tuple[None, str]:
        return None, "the embedder is not installed"

    keys = match_name(words, "setup fee", vector=unavailable, threshold=0.7)
    assert keys.added == () and keys.report.vocabulary == "keys"
    assert keys.report.note is not None and "the embedder is not installed" in keys.report.note


def test_the_label_filter_asks_for_the_added_keys_beside_its_own() -> None:
    (constraint,) = analyze_query("setup fee under $500").constraints
    keys = constraint_keys(constraint)
    assert label_filter([*keys, "installation charge", "setup fee"]) == Terms(
        "facts.label_keys", tuple(sorted({*keys, "installation charge"}))
    )
    (quarter,) = analyze_query("revenue in Q4 2019 over $1 million").constraints
    one = fact_filter(quarter, extra_keys=["sale"])
    assert "'sale'" in str(one) and "period_part" in str(one) and "'q4'" in str(one)
    assert "sale q4" not in str(one)  # a quarter is the fact's part of the year, no key


def test_matches_that_add_no_key_leave_the_plan_s_filters_as_they_are() -> None:
    plan = plan_query("setup fee under $500", tenant="acme")
    nothing = Matched(match_name(None, "setup fee").report)
    same = with_label_matches(plan, {("setup fee", False): nothing})
    assert same.filters == plan.filters and len(same.label_matches) == 1
    words = vocabulary([("Installation charge", 0.9, EVERYONE)])
    _, vector = given()
    found = match_name(words, "setup fee", vector=vector, threshold=0.7)  # type: ignore[arg-type]
    wider = with_label_matches(plan, {("setup fee", False): found})
    (amount,) = [f for f in wider.filters if isinstance(f, AmountFilter)]
    assert isinstance(amount.filter, Nested)
    assert dataclasses.replace(amount, filter=plan.filters[0].filter) == plan.filters[0]  # type: ignore[union-attr]
    assert "installation charge" in str(amount.filter)
    assert wider.filters[1:] == plan.filters[1:]


def test_only_the_labels_read_for_meaning_are_compared_by_meaning() -> None:
    words = vocabulary(
        [("Installation charge", 0.9, EVERYONE), ("Activation charge", 0.8, EVERYONE)]
    )
    assert words.vectors is not None
    capped = dataclasses.replace(
        words, vectors=words.vectors[[1]], meaning_rows=np.array([1], dtype=np.intp)
    )
    found = match_name(capped, "setup fee", vector=given()[1], threshold=0.7)  # type: ignore[arg-type]
    assert [(m.label, m.by) for m in found.report.matches] == [("Activation charge", "meaning")]
    nothing = match_name(capped, "setup fee", vector=given()[1], threshold=0.85)  # type: ignore[arg-type]
    assert "the nearest is 'Activation charge' (0.80)" in str(nothing.report.note)


def test_a_key_many_labels_hold_is_matched_by_key_at_once() -> None:
    many = [(f"Plan {i} premium", 0.1, EVERYONE) for i in range(20_000)]
    words = vocabulary([*many, ("Annual premium", 0.1, EVERYONE)])
    found = match_name(words, "premium", threshold=0.7)
    assert found.report.by_key == 20_001 and found.report.by_synonym == 0
    assert len(found.report.matches) == 8 and found.added == ()


def test_the_bound_step_says_which_keys_meaning_added_and_from_which_labels() -> None:
    plan = plan_query("setup fee under $500", tenant="acme")
    words = vocabulary([("Installation charge", 0.81, EVERYONE), ("Late fee", 0.2, EVERYONE)])
    found = match_name(words, "setup fee", vector=given()[1], threshold=0.7)  # type: ignore[arg-type]
    matched = with_label_matches(plan, {("setup fee", False): found})
    (line,) = matched.asked["bound"]
    assert line.startswith(plan.asked["bound"][0])
    assert line.endswith(
        "; and by meaning label keys {installation charge} ('Installation charge' 0.81)"
    )
    assert matched.asked["narrowed"] == plan.asked["narrowed"]  # the narrowed filter is its own
    unmatched = with_label_matches(plan, {("setup fee", False): match_name(words, "setup fee")})
    assert unmatched.asked == plan.asked


def test_a_label_of_another_form_of_the_asked_words_is_matched_by_form() -> None:
    words = vocabulary(
        [
            ("Heating oil", 0.1, EVERYONE),
            ("Heated pool", 0.1, EVERYONE),
            ("Fuel oil", 0.1, EVERYONE),
            ("Pool heater", 0.1, EVERYONE),
        ]
    )
    calls, vector = given()
    found = match_name(words, "heat oils", vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert [(m.label, m.by, m.keys) for m in found.report.matches] == [
        ("Heating oil", "form", ["heating oil"])
    ]
    assert found.added == ("heating oil",) and found.report.by_form == 1
    assert calls == []  # a match by form is a match by the words: meaning is not asked
    plan = plan_query("heat oil under $500", tenant="acme")
    line = with_label_matches(plan, {("heat oil", False): found}).asked["bound"][0]
    assert line.endswith("; and by form label keys {heating oil} ('Heating oil' by form)")


def test_a_label_the_caller_cannot_see_is_never_matched_by_form() -> None:
    words = vocabulary([("Heating oil", 0.1, scope_of("beta", None))])
    found = match_name(words, "heat oil", visible=np.array([False]), threshold=0.7)
    assert found.report.matches == [] and found.added == ()


PRICE_LIST = [
    ("Outgoing wire transfer", 0.1, EVERYONE),
    ("Outgoing wire transfer, international", 0.1, EVERYONE),
    ("Incoming wire transfer", 0.1, EVERYONE),
    ("Implementation", 0.1, EVERYONE),
    ("Stop payment", 0.1, EVERYONE),
    ("Setup deposit", 0.1, EVERYONE),
    ("Setup charge", 0.1, EVERYONE),
    ("Setup fee refund", 0.1, EVERYONE),
    ("Outgoing wire amount", 0.1, EVERYONE),
    ("Annual subscription", 0.1, EVERYONE),
    ("Total", 0.1, EVERYONE),
    ("Monthly maintenance", 0.1, EVERYONE),
    ("Tax", 0.1, EVERYONE),
    ("Property tax", 0.1, EVERYONE),
    ("Room", 0.1, EVERYONE),
]
"""A made-up price list: each label names a service or a thing, never its fee."""
OUTGOING = ["Outgoing wire transfer", "Outgoing wire transfer, international"]
KEYS = ["outgoing wire transfer"]


@pytest.mark.parametrize(
    ("name", "labels", "added"),
    [
        ("outgoing wire fees", OUTGOING, KEYS),
        ("outgoing wire charge", OUTGOING, KEYS),
        ("Outgoing Wire Fee", OUTGOING, KEYS),
        ("wire fees", [*OUTGOING, "Incoming wire transfer"], [*KEYS, "incoming wire transfer"]),
        ("transfer fee", [*OUTGOING, "Incoming wire transfer"], [*KEYS, "incoming wire transfer"]),
        ("implementation fee", ["Implementation"], ["implementation"]),
        ("implementation charges", ["Implementation"], ["implementation"]),
        ("stop payment charges", ["Stop payment"], ["stop payment"]),
        ("stop payment fee", ["Stop payment"], ["stop payment"]),
        ("room rates", ["Room"], ["room"]),
        ("setup fee", ["Setup charge"], ["setup charge"]),  # never its deposit or its refund
    ],
)
def test_a_fee_charge_cost_price_or_rate_matches_the_label_naming_its_thing(
    name: str, labels: list[str], added: list[str]
) -> None:
    calls, vector = given()
    found = match_name(vocabulary(PRICE_LIST), name, vector=vector, threshold=0.7)  # type: ignore[arg-type]
    assert [(m.label, m.by) for m in found.report.matches] == [(x, "modifier") for x in labels]
    assert list(found.added) == added and found.report.by_modifier == len(labels)
    assert found.report.matched and calls == []  # matched by the words: meaning is not asked


@pytest.mark.parametrize(
    "name",
    [
        "annual fee",  # a period word alone
        "monthly charges",
        "hourly rate",
        "total cost",  # a total word alone
        "other charges",  # a generic word alone
        "tax rate",  # a quantity noun alone: the tax's rate, not its price
        "property tax rate",  # a rate of a quantity is its ratio
        "international wire fee",  # the modifier's words must begin a label's key
        "going wire fee",  # whole words
        "setup deposit",  # no head naming what is paid
        "outgoing wire",
    ],
)
def test_a_modifier_naming_nothing_paid_for_on_its_own_matches_nothing(name: str) -> None:
    found = match_name(vocabulary(PRICE_LIST), name)
    assert [m for m in found.report.matches if m.by == "modifier"] == [] and found.added == ()


def test_a_label_holding_the_asked_key_leaves_the_modifier_unasked() -> None:
    words = vocabulary([("Outgoing wire — Fee", 0.1, EVERYONE), *PRICE_LIST])
    found = match_name(words, "outgoing wire fee")
    # the words' labels are asked at a later step of the ladder, never beside the key's
    assert [m.by for m in found.report.matches if m.by != "words"] == ["key"]
    assert found.added == ()


def test_a_key_another_label_holds_is_not_added_by_modifier() -> None:
    words = vocabulary(
        [("Implementation", 0.1, EVERYONE), ("Implementation amount", 0.1, EVERYONE)]
    )  # an amount of the implementation is no price of it, and holds "implementation" too
    found = match_name(words, "implementation fee", threshold=0.7, vector=given()[1])  # type: ignore[arg-type]
    (match,) = [m for m in found.report.matches if m.by == "modifier"]
    assert match.label == "Implementation" and match.keys == [] and found.added == ()
    assert found.report.note is not None and "matched by modifier hold no key" in found.report.note


def test_a_label_the_caller_cannot_see_is_never_matched_by_modifier() -> None:
    words = vocabulary(
        [("Outgoing wire transfer", 0.1, scope_of("beta", None)), ("Stop payment", 0.1, EVERYONE)]
    )
    visible = np.array([False, True])
    found = match_name(words, "outgoing wire fee", visible=visible, threshold=0.7)
    assert found.report.matches == [] and found.added == () and found.report.labels == 1
    assert "Outgoing wire transfer" not in found.report.model_dump_json()
    seen = match_name(words, "outgoing wire fee", threshold=0.7)  # a caller who may see it
    assert found.added == () and seen.added == ("outgoing wire transfer",)


def test_the_bound_step_says_which_keys_the_modifier_added() -> None:
    plan = plan_query("outgoing wire fees under $25", tenant="acme")
    found = match_name(vocabulary(PRICE_LIST), "outgoing wire fees")
    matched = with_label_matches(plan, {("outgoing wire fees", False): found})
    assert matched.asked["bound"][0].endswith(
        "; and by modifier label keys {outgoing wire transfer} ('Outgoing wire transfer' by "
        "modifier, 'Outgoing wire transfer, international' by modifier)"
    )


@settings(max_examples=60, deadline=None)
@given_examples(
    seen=st.lists(st.booleans(), min_size=len(PRICE_LIST), max_size=len(PRICE_LIST)),
    name=st.sampled_from(
        ["outgoing wire fees", "wire charges", "implementation fee", "setup fee", "room rate"]
    ),
)
def test_what_a_modifier_matches_is_what_the_caller_s_labels_alone_match(
    seen: list[bool], name: str
) -> None:
    found = match_name(vocabulary(PRICE_LIST), name, visible=np.array(seen))
    theirs = [row for row, s in zip(PRICE_LIST, seen, strict=True) if s]
    alone = match_name(vocabulary(theirs), name)
    assert found.report.matches == alone.report.matches and found.added == alone.added
