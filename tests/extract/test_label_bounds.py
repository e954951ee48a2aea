"""A label is bounded at extraction (:mod:`osrag.lexicon.bounds`): a 100 kB table row label,
column header, cell or key costs a constant and is stored cut and marked, never whole and
never silently; labels under the bound are untouched.

Every table is written in both shapes osrag reads: a Markdown pipe table and the loaders'
``label — Header: cell; …`` lines."""

from __future__ import annotations

import pytest

from osrag.extract import extract_values
from osrag.extract.facts.labels import clean_label
from osrag.lexicon.bounds import (
    ELLIPSIS,
    KEY_CHARS,
    KEYS_PER_LABEL,
    LABEL_CHARS,
    TERM_CHARS,
)
from osrag.loaders.text import table_lines
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact

CONFIG = ExtractionConfig()
LONG = " ".join(f"word{n % 97} deferred revenue" for n in range(5_000))  # about 100 kB


def pipe(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join([lines[0], "|" + "---|" * len(rows[0]), *lines[1:]]) + "\n"


def loader(rows: list[list[str]]) -> str:
    return "\n".join(table_lines(rows)) + "\n"


SHAPES = {"pipe": pipe, "loader": loader}


def facts(text: str) -> list[AmountFact]:
    return extract_values(text, CONFIG).facts


def _bounded(fact: AmountFact) -> None:
    stored = fact.source_dict()
    assert fact.label is None or len(fact.label) <= LABEL_CHARS
    assert len(stored["label_keys"]) <= KEYS_PER_LABEL
    assert all(len(key) <= KEY_CHARS for key in stored["label_keys"])


def test_a_label_over_the_bound_is_cut_at_a_space_and_marked() -> None:
    label = clean_label(LONG)
    assert label is not None and len(label) <= LABEL_CHARS
    assert label.endswith(ELLIPSIS) and LONG.startswith(label[:-1].rstrip())
    assert clean_label("Deferred revenue") == "Deferred revenue"  # under the bound: as it was


def test_a_texts_own_ellipsis_is_three_dots_so_an_ellipsis_is_always_a_cut() -> None:
    assert clean_label("Annual premium …") == "Annual premium"  # a leader
    assert clean_label("Costs … net") == "Costs ... net"
    assert clean_label("Revenue" + " x" * 300) is not None
    assert ELLIPSIS in (clean_label("Revenue" + " x" * 300) or "")


@pytest.mark.parametrize("shape", SHAPES)
def test_a_100_kb_row_label_gives_a_cut_label_and_bounded_keys(shape: str) -> None:
    text = SHAPES[shape]([["Item", "2019"], [LONG, "$1,000"], ["Revenue", "$2,000"]])
    found = facts(text)
    assert [f.value for f in found] == [100_000, 200_000]
    for fact in found:
        _bounded(fact)
    assert found[0].label is not None and found[0].label.endswith(ELLIPSIS)
    assert found[1].label == "Revenue"  # the row under it is read as before


@pytest.mark.parametrize("shape", SHAPES)
def test_a_100_kb_column_header_qualifies_every_row_cut(shape: str) -> None:
    text = SHAPES[shape]([["Item", LONG], ["Revenue", "$1,000"], ["Cost of sales", "$2,000"]])
    found = facts(text)
    assert [f.value for f in found] == [100_000, 200_000]
    for fact, row in zip(found, ["Revenue", "Cost of sales"], strict=True):
        _bounded(fact)
        assert fact.label is not None and fact.label.startswith(f"{row} — word0")
        assert fact.label.endswith(ELLIPSIS)


def test_a_100_kb_cell_holds_no_value_and_its_neighbours_are_read() -> None:
    text = pipe([["Item", "2019", "2018"], ["Revenue", "1" + " 2" * 50_000, "$2,000"]])
    found = facts(text)
    assert [f.raw for f in found if f.raw.startswith("$")] == ["$2,000"]
    for fact in found:
        _bounded(fact)


def test_a_100_kb_line_before_an_amount_gives_a_bounded_fact() -> None:
    (fact,) = facts(f"{LONG}: $500\n")
    _bounded(fact)


def test_the_stored_period_and_scope_name_are_bounded() -> None:
    fact = AmountFact(
        currency="USD", value=1, label="Fee", period="2019 " * 200, year=2019, source="key",
        raw="$1", start=0, end=2, scope="segment", scope_name="americas " * 100,
    )  # fmt: skip
    stored = fact.source_dict()
    assert len(stored["period"]) <= TERM_CHARS and stored["period"].endswith(ELLIPSIS)
    assert len(stored["scope_name"]) <= TERM_CHARS and stored["scope_name"].endswith(ELLIPSIS)
