"""Ranges of amounts (osrag.extract.facts.ranges): two amounts a dash, "to" or "between … and"
join are one range, each end given the other's magnitude; pure checks, then the search on
OpenSearch, Elasticsearch and the embedded index, where a range meets a constraint only
where both its ends do. What each question must return is written beside it."""

from __future__ import annotations

import pytest
from backend_cases import BackendCase, ingested_fixture, step_and_documents
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract.enrich import extract_values
from osrag.models import ExtractionConfig


def ends(text: str) -> list[tuple[int, int | None]]:
    """(value, range_end) of each fact of ``text``."""
    return [(f.value, f.range_end) for f in extract_values(text, ExtractionConfig()).facts]


@pytest.mark.parametrize(
    "text",
    [
        "Laptop keyboard replacement: $149–$289, depending on model",
        "Laptop keyboard replacement: $149 - $289",
        "Laptop keyboard replacement: $149 to $289",
        "Laptop keyboard replacement costs from $149 to $289.",
        "Laptop keyboard replacement costs between $149 and $289.",
        "Laptop keyboard replacement: $149 per laptop to $289",
        "Laptop keyboard replacement: $149 to\n$289, wrapped",
    ],
)
def test_the_forms_of_a_range(text: str) -> None:
    assert ends(text) == [(14900, 28900), (28900, 14900)]


@pytest.mark.parametrize(
    "text",
    [
        # a change and the balance it came to
        "Working capital decreased $0.4 million to $12.3 million at year end.",
        "Revenue rose from $10 million to $12 million.",
        # the larger first: a subtraction or a restatement, no range
        "Fee: $5,000 - $1,000 credit",
        # a table's neighbouring cells, a list's next item
        "| Resident | $32 | $52 |",
        "- 250 cards: £19.00\n- 1,000 cards: £38.00",
        # two currencies
        "Price: $100 – €150",
        # two amounts of one list
        "Deductibles of $250, $500 or $1,000",
    ],
)
def test_what_is_no_range(text: str) -> None:
    assert all(end is None for _, end in ends(text))


@given(
    st.integers(1, 99_999),
    st.integers(1, 99_999),
    st.sampled_from(["–", "-", " - ", " – ", " to ", " through "]),
)
def test_two_amounts_joined_are_a_range_exactly_when_the_first_is_smaller(
    low: int, high: int, join: str
) -> None:
    found = ends(f"Repair: ${low:,}{join}${high:,}")
    assert [v for v, _ in found] == [low * 100, high * 100]
    if low < high:
        assert found == [(low * 100, high * 100), (high * 100, low * 100)]
    else:
        assert all(end is None for _, end in found)


DOCUMENTS = {
    "fixpoint": "# FixPoint repair prices\n\n- Laptop keyboard replacement: $149–$289, "
    "depending on model\n- Battery replacement: $99\n",
    "byte-doctor": "# Byte Doctor repair ticket\n\n- Laptop keyboard replacement: $260.00\n"
    "- Diagnostic: $49.00\n",
    "keyworks": "# Keyworks price list\n\n- Laptop keyboard replacement: between $350 and "
    "$800\n- Screen protector: $25\n",
}
documents = ingested_fixture(DOCUMENTS, "ranges")


@pytest.mark.parametrize(
    ("question", "holders"),
    [
        # $149–$289 is not wholly between $200 and $300; $260 is
        ("laptop keyboard replacement between $200 and $300", {"byte-doctor"}),
        # all of $149–$289 is under $300, and $260
        ("laptop keyboard replacement under $300", {"fixpoint", "byte-doctor"}),
        # all of $350–$800 is at least $300
        ("laptop keyboard replacement at least $300", {"keyworks"}),
        # no range is exactly one of its ends
        ("laptop keyboard replacement of $149", set()),
    ],
)
def test_a_range_meets_a_constraint_only_where_all_of_it_does(
    documents: BackendCase, question: str, holders: set[str]
) -> None:
    step, hit = step_and_documents(documents, question)
    if holders:
        assert step == "bound"
        assert hit == holders
    else:
        assert step != "bound"
