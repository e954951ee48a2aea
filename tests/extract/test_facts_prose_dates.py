"""Prose facts of sentences that open with their date, as filings write them: "As of
December 31, 2019, total assets were $5.2 million"; "As of December 31, 2019 and 2018,
total assets were $5.2 million and $4.1 million, respectively". The label is the noun
phrase after the opening date; ``respectively`` pairs the amounts with the years written
before them when none is written after them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_facts_tables import facts


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "As of December 31, 2019, total assets were $5.2 million.",
            [("total assets", 2019)],
        ),
        (
            "For the year ended December 31, 2019, net sales were $10 million.",
            [("net sales", 2019)],
        ),
        (
            "As of December 31, 2019 and 2018, total assets were $5.2 million and $4.1 "
            "million, respectively.",
            [("total assets", 2019), ("total assets", 2018)],
        ),
        (
            "Revenue was $5.2 million and $4.8 million in 2019 and 2018, respectively.",
            [("Revenue", 2019), ("Revenue", 2018)],
        ),
        ("In fiscal 2019, revenue was $5.2 million.", [("revenue", 2019)]),
        # a change is the change's; a pronoun names nothing
        (
            "In 2019, an increase in payroll of $4.1 million was recorded.",
            [("increase in payroll", 2019)],
        ),
        ("At December 31, 2019, it was $5 million.", [(None, 2019)]),
    ],
)
def test_a_sentence_opening_with_its_date(
    sentence: str, expected: list[tuple[str | None, int]]
) -> None:
    assert [(f.label, f.year) for f in facts(sentence)] == expected


_OPENINGS = st.sampled_from(
    ["As of December 31, {y}", "At June 30, {y}", "For the year ended March 31, {y}", "In {y}"]
)
_LABELS = st.sampled_from(["total assets", "net sales", "deferred revenue", "goodwill"])
_VERBS = st.sampled_from(["was", "were", "totaled", "amounted to", "stood at"])


@settings(max_examples=80, deadline=None)
@given(
    opening=_OPENINGS,
    label=_LABELS,
    verb=_VERBS,
    year=st.integers(min_value=1995, max_value=2030),
    millions=st.integers(min_value=1, max_value=999),
)
def test_the_label_after_an_opening_date_and_the_year_it_names(
    opening: str, label: str, verb: str, year: int, millions: int
) -> None:
    sentence = f"{opening.format(y=year)}, {label} {verb} ${millions}.5 million."
    found = facts(sentence)
    assert [(f.label, f.year, f.value) for f in found] == [
        (label, year, (millions * 10 + 5) * 10**7)
    ]
