"""What a question names, bound where the document states it: a line of an itemised
document named by its label; a unit adjective written inside the name ("HOA quarterly
dues"); a first word naming the family the quantity is of ("insurance deductible"); a
kind of care that holds a fee ("daycare deposits"). Pure: the plan's filter at a step of
the amount ladder, evaluated on stored facts in Python (:mod:`fact_eval`).

Built for the forms, not for any file: each fact here is made up."""

from __future__ import annotations

import pytest
from fact_eval import passes

from osrag.schema.filters import AmountFilter, Filter
from osrag.search.query import plan_query


def _fact(label_keys: list[str], value: int, **fields: object) -> dict[str, object]:
    return {
        "label_keys": label_keys, "value": value, "magnitude": abs(value), "currency": "USD",
        "scope": "own", "period_part": "full", "period_unit": None, "year": None, **fields,
    }  # fmt: skip


def _filter(text: str, step: str = "bound") -> Filter:
    (found,) = (f for f in plan_query(text).kept(step=step) if isinstance(f, AmountFilter))  # type: ignore[arg-type]
    return found.filter


@pytest.mark.parametrize(
    ("text", "keys", "value"),
    [
        ("mechanics charging a diagnostic fee between $100 and $150", ["diagnostic fee"], 12900),
        ("labor charges over $300", ["labor", "labor charge"], 39600),
        ("invoices with a setup fee under $500", ["setup fee", "fee"], 45000),
    ],
)
def test_a_line_of_an_itemised_document_is_its_figure_of_what_its_label_names(
    text: str, keys: list[str], value: int
) -> None:
    node = _filter(text)
    assert passes(node, _fact(keys, value, scope="line_item"))
    assert passes(node, _fact(keys, value))
    assert not passes(node, _fact(keys, value, scope="segment", scope_name="retail"))


@pytest.mark.parametrize(
    "text", ["invoices over $1,000", "total over $1,000", "order total over $1,000"]
)
def test_a_documents_total_is_never_one_of_its_lines(text: str) -> None:
    node = _filter(text)
    assert passes(node, _fact(["order total", "total"], 183594))
    # a line's figure under a "Total" column ("IV start kit — Total") is the line's
    line = _fact(["iv start kit total", "total"], 183594, scope="line_item")
    assert not passes(node, line)


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("HOA quarterly dues under $1,200", ["quarterly assessment"]),
        ("quarterly HOA dues under $1,200", ["quarterly assessment"]),
        ("HOA dues under $1,200 a quarter", ["quarterly assessment"]),
        ("condo monthly fees under $1,200", ["monthly condo fee"]),
    ],
)
def test_a_unit_adjective_inside_the_name_leads_each_of_its_alternatives(
    text: str, keys: list[str]
) -> None:
    node = _filter(text)
    assert passes(
        node, _fact(keys, 114000, period_unit="quarter" if "quarter" in text else "month")
    )
    assert not passes(node, _fact(["special assessment"], 114000, period_unit="quarter"))


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("HOA dues over $400 a month", ["regular monthly assessment", "assessment"]),
        ("association dues over $400 a month", ["monthly assessment", "assessment"]),
        ("condo fees over $400 a month", ["monthly common charge", "common charge"]),
    ],
)
def test_an_associations_dues_are_its_regular_assessment_and_common_charges(
    text: str, keys: list[str]
) -> None:
    node = _filter(text)
    assert passes(node, _fact(keys, 42500, period_unit="month"))
    assert not passes(node, _fact(["special assessment"], 42500, period_unit="month"))


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("repair estimates where the insurance deductible is $500 or less", ["deductible"]),
        ("loan principal under $50,000 on the notes", ["principal", "loan amount"]),
    ],
)
def test_a_first_word_naming_the_quantitys_family_only_ranks_at_the_narrowed_step(
    text: str, keys: list[str]
) -> None:
    value = 50000 if "deductible" in text else 4500000
    assert passes(_filter(text, "narrowed"), _fact(keys, value))


def test_a_first_word_naming_another_thing_still_asks_where_the_document_says_it() -> None:
    node = _filter("umbrella premium under $500", "narrowed")
    assert not passes(node, _fact(["premium"], 45000))
    assert passes(node, _fact(["premium"], 45000), breadcrumb="Acme Umbrella Plus › Premium")


@pytest.mark.parametrize(
    ("text", "keys", "value"),
    [
        ("childcare registration fees of at most $100", ["registration fee", "fee"], 7500),
        ("daycare deposits under $500", ["deposit"], 29500),
        ("preschool enrollment fees under $200", ["enrollment fee", "fee"], 15000),
    ],
)
def test_a_kind_of_care_qualifies_what_holds_the_fee_and_only_ranks_once_narrowed(
    text: str, keys: list[str], value: int
) -> None:
    plan = plan_query(text)
    assert plan.amount_steps[:2] == ("bound", "narrowed")
    bound = _filter(text)
    assert not passes(bound, _fact(keys, value))  # the document says no care
    said = f"Sunny Days {text.split()[0].title()} › Fees"  # the breadcrumb names the care
    assert passes(bound, _fact(keys, value), breadcrumb=said)
    assert passes(_filter(text, "narrowed"), _fact(keys, value))
