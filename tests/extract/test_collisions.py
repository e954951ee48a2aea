"""The reference's collision assertion: string tokens collide, integers do not."""

from __future__ import annotations

import json
from itertools import permutations
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from osrag.cli import app
from osrag.extract.collisions import (
    canonical_token,
    collision_report,
    find_collisions,
    integer_collisions,
)
from osrag.extract.money import LONG_MAX, parse_money
from osrag.models import Document


def minor(text: str) -> int:
    money = parse_money(text)
    assert money is not None, text
    return money.minor_units


def test_the_reference_case_collides_as_strings_and_not_as_integers() -> None:
    values = [minor(t) for t in ("$30,000", "$300,000", "$3,000,000", "$300 million")]
    assert values == [3_000_000, 30_000_000, 300_000_000, 30_000_000_000]
    pairs = {(c.contained, c.container) for c in find_collisions(values)}
    # every smaller token is a prefix of every larger one: all six pairs collide
    assert pairs == {(a, b) for a, b in permutations(values, 2) if a < b}
    assert "money:30000000" in "money:300000000"
    assert integer_collisions(values) == []
    assert len(set(values)) == len(values)  # a term filter on the long field tells them apart


def test_only_a_digit_prefix_collides_because_tokens_start_with_money() -> None:
    assert find_collisions([300, 1300]) == []  # "money:300" is not inside "money:1300"
    assert [(c.contained, c.container) for c in find_collisions([300, 3001])] == [(300, 3001)]


@given(st.sets(st.integers(min_value=0, max_value=10**12), max_size=40))
def test_find_collisions_is_the_pairwise_substring_assertion(values: set[int]) -> None:
    expected = {
        (a, b)
        for a in values
        for b in values
        if a != b and canonical_token(a) in canonical_token(b)
    }
    assert {(c.contained, c.container) for c in find_collisions(values)} == expected


def test_integer_collisions_are_wrapped_values_only() -> None:
    assert integer_collisions([1, 2, LONG_MAX]) == []
    assert integer_collisions([5, 5 + 2**64]) == [(5, 5 + 2**64)]
    assert integer_collisions([-1, 2**64 - 1]) == [(-1, 2**64 - 1)]


def _doc(doc_id: str, text: str) -> Document:
    return Document(
        doc_id=doc_id, source_path=f"{doc_id}.md", source_version="0", title=doc_id, text=text
    )


def test_the_corpus_report_names_the_documents_of_each_side() -> None:
    report = collision_report(
        [_doc("small", "A $300,000 umbrella."), _doc("large", "A $3,000,000 umbrella.")]
    )
    [collision] = report.string_collisions
    assert (collision.contained_docs, collision.container_docs) == (["small"], ["large"])
    assert report.integers_are_safe
    assert (report.documents, report.mentions, report.distinct_amounts) == (2, 2, 2)


def test_check_collisions_command_lists_pairs_and_confirms_integers(tmp_path: Path) -> None:
    (tmp_path / "small.md").write_text("# Small\n\nUmbrella limit $300,000.\n")
    (tmp_path / "large.md").write_text("# Large\n\nUmbrella limit $3,000,000.\n")
    (tmp_path / "other.md").write_text("# Other\n\nDeductible $1,500.\n")
    runner = CliRunner()
    result = runner.invoke(app, ["check-collisions", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    pairs = [(c["contained_token"], c["container_token"]) for c in report["string_collisions"]]
    assert pairs == [("money:30000000", "money:300000000")]
    assert report["integer_collisions"] == []
    text = runner.invoke(app, ["check-collisions", str(tmp_path)])
    assert text.exit_code == 0
    assert "money:30000000" in text.stdout and "no collisions" in text.stdout
