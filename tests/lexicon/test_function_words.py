"""The closed classes of English: each word in one class, each reader's set a union of
classes, and what that does to the phrases the readers take."""

from __future__ import annotations

import itertools

import pytest

from osrag.lexicon import function_words as fw
from osrag.search.analysis import analyze_query

CLASSES = {
    name: getattr(fw, name)
    for name in (
        "ARTICLES", "POSSESSIVES", "DEMONSTRATIVES", "QUANTIFIERS", "PERSONAL_PRONOUNS",
        "PRO_FORMS", "CLAUSE_WORDS", "COORDINATORS", "CONJUNCTIONS", "SUBORDINATORS",
        "NAME_PREPOSITIONS", "PREPOSITIONS", "COMPARATIVES", "OPERATORS", "BE", "HAVE", "DO",
        "MODALS", "NEGATIONS", "HEDGES", "PARTICLES", "VERBS_OF_GIVING", "VERBS_OF_ASKING",
        "VERBS_OF_REPORTING", "VERBS_OF_TERMS", "VERBS_OF_CONSISTING", "VERBS_OF_FORECASTING",
        "PREDICATIVES", "CARDINALS",
    )
}  # fmt: skip


def test_each_word_is_in_one_class() -> None:
    for (a, first), (b, second) in itertools.combinations(CLASSES.items(), 2):
        assert not first & second, f"{a} and {b} share {sorted(first & second)}"


@pytest.mark.parametrize(
    "reader",
    ["ASKED_NAME_STOPS", "BOUNDARY_WORDS", "DETERMINERS", "PRONOUNS", "FORWARD_STOPS",
     "SENTENCE_VERBS", "NOT_IN_A_NAME", "NP_PREPOSITIONS", "DEFINITE", "INDEFINITE"],
)  # fmt: skip
def test_every_readers_set_is_made_of_the_classes(reader: str) -> None:
    words = getattr(fw, reader) - {",", "&", "million", "billion", "thousand", "net"}
    everything = frozenset().union(*CLASSES.values())
    assert words <= everything, sorted(words - everything)


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("revenue may exceed $5 million", "revenue"),
        ("contracts whose fees will exceed $5,000", "fees"),
        ("companies that could report revenue over $5 million", "revenue"),
        (
            "cash provided by operating activities over $5 million",
            "cash provided by operating activities",
        ),
        ("reserves against losses over $1 million", "reserves against losses"),
    ],
)  # fmt: skip
def test_a_question_name_stops_at_a_function_word_and_runs_through_a_names_preposition(
    question: str, label: str
) -> None:
    (c,) = analyze_query(question).constraints
    assert c.label == label


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("revenue that was over $5 million", "revenue"),
        ("a deductible of $2,000 or more", "deductible"),
        ("interest income in the range $1 million to $5 million", "interest income"),
        ("revenue amounted to over $5 million", "revenue"),
    ],
)
def test_a_questions_link_is_taken_off_its_name(question: str, label: str) -> None:
    (c,) = analyze_query(question).constraints
    assert c.label == label


@pytest.mark.parametrize("hedge", sorted(fw.HEDGES))
def test_every_hedge_makes_a_question_amount_approximate(hedge: str) -> None:
    (c,) = analyze_query(f"revenue of {hedge} $5 million").constraints
    assert c.approximate and c.label == "revenue"
