"""The one noun-phrase reader: both sides read the name before a figure with it, each
with its own stops."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.lexicon.function_words import (
    ASKED_NAME_STOPS,
    BOUNDARY_WORDS,
    DETERMINERS,
    NAME_EDGES,
    NP_PREPOSITIONS,
)
from osrag.lexicon.phrases import phrase_at_end
from osrag.models import ExtractionConfig
from osrag.search.analysis import analyze_query

WORDS = st.lists(
    st.sampled_from(
        ["revenue", "net", "income", "of", "the", "from", "sale", "was", "by", "and", "in",
         "limits", "with", "policies", "each", ",", "operating", "activities", "a", "per"]
    ),
    max_size=14,
)  # fmt: skip


@given(WORDS, st.integers(1, 8))
def test_a_phrase_is_a_run_at_the_end_with_no_stop_and_no_edge(
    words: list[str], limit: int
) -> None:
    for stops, openers in ((ASKED_NAME_STOPS, frozenset()), (BOUNDARY_WORDS, DETERMINERS)):
        phrase, at = phrase_at_end(
            words, stops, openers=openers, inside=NP_PREPOSITIONS, edges=NAME_EDGES, limit=limit
        )
        assert len(phrase) <= limit
        assert -1 <= at < len(words)
        assert at == -1 or words[at] in stops | openers or len(words) - 1 - at == limit
        taken = words[at + 1 :]
        assert " ".join(phrase) in " ".join(taken)
        assert not any(w in stops for w in phrase)
        assert not phrase or (phrase[0] not in NAME_EDGES and phrase[-1] not in NAME_EDGES)


def test_a_determiner_after_a_preposition_is_inside_the_phrase() -> None:
    words = ["the", "proceeds", "from", "the", "sale"]
    phrase, at = phrase_at_end(words, BOUNDARY_WORDS, openers=DETERMINERS, inside=NP_PREPOSITIONS)
    assert (phrase, at) == (["proceeds", "from", "the", "sale"], 0)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "The proceeds from the sale of the building were $5.2 million.",
            "proceeds from the sale of the building",
        ),
        (
            "The cost of excess group-term life insurance is $4,000.",
            "cost of excess group-term life insurance",
        ),
    ],
)
def test_the_document_side_reads_the_name_before_its_link(text: str, label: str) -> None:
    (fact,) = extract_values(text, ExtractionConfig()).facts
    assert fact.label == label


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("companies whose revenue exceeded $500 million", "revenue"),
        ("umbrella policies with limits over $1 million", "limits"),
        ("the policy's deductible under $1,000", "deductible"),
    ],
)
def test_the_question_side_reads_the_name_before_its_constraint(question: str, label: str) -> None:
    (c,) = analyze_query(question).constraints
    assert c.label == label


def test_a_run_of_openers_never_takes_a_phrase_past_its_limit() -> None:
    """Found by the property above: "of a a revenue revenue" within three words."""
    phrase, at = phrase_at_end(
        ["of", "a", "a", "revenue", "revenue"], BOUNDARY_WORDS, openers=DETERMINERS,
        inside=NP_PREPOSITIONS, edges=NAME_EDGES, limit=3,
    )  # fmt: skip
    assert (phrase, at) == (["revenue", "revenue"], 2)
