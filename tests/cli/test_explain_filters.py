"""``--explain`` writes each typed filter as compact text, every node type of the tree."""

from __future__ import annotations

import datetime as dt

from osrag.cli.explain import filter_text
from osrag.schema.filters import (
    AclGuard,
    AllOf,
    AnyOf,
    AsOfGuard,
    Exists,
    Match,
    MatchNone,
    Nested,
    Not,
    NotExists,
    Range,
    Term,
    Terms,
)


def test_a_fact_filter_reads_as_one_object_of_the_nested_field() -> None:
    fact = Nested(
        "facts",
        AllOf(
            (
                Terms("facts.label_keys", ("deductible", "excess")),
                Range("facts.magnitude", gte=50_000, lte=100_000),
                Term("facts.currency", "USD"),
            )
        ),
    )
    assert filter_text(fact) == (
        "facts[label_keys∈{deductible, excess}, magnitude≥50000, magnitude≤100000, currency=USD]"
    )


def test_the_other_end_of_a_range_reads_with_the_magnitude() -> None:
    from osrag.schema.constraints import AmountConstraint
    from osrag.search.fact_filters import fact_filter

    c = AmountConstraint(op="lt", currency="USD", bounds=(30_000,), label="keyboard replacement")
    shown = filter_text(fact_filter(c))
    assert "magnitude<30000 (all of a range), currency=USD" in shown
    assert "range_end" not in shown


def test_the_guards_read_as_their_conditions() -> None:
    assert filter_text(AclGuard(("agents", "staff")).filter()) == "acl∈{agents, staff} or no acl"
    assert filter_text(AclGuard(()).filter()) == "nothing or no acl"
    assert filter_text(AsOfGuard(dt.date(2024, 7, 1)).filter()) == (
        "(effective_from≤2024-07-01 or no effective_from), "
        "(superseded_on>2024-07-01 or no superseded_on)"
    )


def test_every_other_node_has_its_text() -> None:
    assert filter_text(Exists("dates")) == "dates exists"
    assert filter_text(Not(Term("category", "auto"))) == "not (category=auto)"
    assert filter_text(Term("signed", True)) == "signed=true"
    assert filter_text(MatchNone()) == "nothing"
    assert filter_text(Match("breadcrumb", "umbrella", "and")) == (
        'breadcrumb matches "umbrella" (and)'
    )
    either = AnyOf((AllOf((Term("a", 1), Term("b", 2))), NotExists("c")))
    assert filter_text(either) == "(a=1, b=2) or no c"


def test_a_bound_constraints_label_over_its_bound_is_shown_cut() -> None:
    from osrag.cli.explain import _constraint_row
    from osrag.lexicon.bounds import ELLIPSIS, LABEL_CHARS
    from osrag.models import AmountConstraint

    label = "deferred revenue " * 6_000  # about 100 kB
    c = AmountConstraint(
        op="lt", currency="USD", bounds=(100_000,), text="under $1,000", label=label
    )
    _, said = _constraint_row(c)
    assert len(said) < 3 * LABEL_CHARS
    assert "label 'deferred revenue" in said and f"{ELLIPSIS}'" in said
    assert said.count(ELLIPSIS) == 2  # in the description and in the label bound to
