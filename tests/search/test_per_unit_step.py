"""The amount ladder's per-unit step: a quantity asked at a period unit ("movers charging
over $150 an hour"), once no fact of its name meets it, is asked of any fact that states
that unit — the unit kept, the label freed —, before any amount at all. Pure: the plan,
its steps and what each asks, the filter evaluated on stored facts in Python
(:mod:`fact_eval`), and the request bodies of every leg.
"""

from __future__ import annotations

import json

import pytest
from fact_eval import passes

from osrag.schema.filters import AmountFilter, Nested
from osrag.search.fact_filters import per_unit_filter
from osrag.search.ladder import Ladder
from osrag.search.query import plan_query, search_bodies
from osrag.search.results import Ran


def _fact(label_keys: list[str], value: int, **fields: object) -> dict[str, object]:
    return {
        "label_keys": label_keys, "value": value, "magnitude": abs(value), "currency": "USD",
        "scope": "own", "period_part": "full", "period_unit": None, "year": None, **fields,
    }  # fmt: skip


def _per_unit(text: str) -> AmountFilter:
    (found,) = (f for f in plan_query(text).kept(step="per-unit") if isinstance(f, AmountFilter))
    return found


# --------------------------------------------------------------------------- the steps


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        # a unit stated after the amount, a unit said by the name, an adjective of the unit
        ("movers charging over $150 an hour", ("bound", "per-unit", "role-free", "none")),
        # a thing priced ("rooms") is asked where a document names it first (narrowed)
        ("rooms under $200 per night", ("bound", "narrowed", "per-unit", "role-free", "none")),
        ("hourly rate over $50", ("bound", "per-unit", "role-free", "none")),
        ("monthly rent under $2,000", ("bound", "per-unit", "role-free", "none")),
        # narrowed first (the name's first word as the kind of document), then the unit
        (
            "umbrella premium under $500 a year",
            ("bound", "narrowed", "per-unit", "role-free", "none"),
        ),
        # no unit: today's ladder, unchanged
        ("deductible under $1,000", ("bound", "role-free", "none")),
        ("umbrella premium under $500", ("bound", "narrowed", "role-free", "none")),
        # no named quantity: nothing to free (role-free from the start)
        ("over $150 an hour", ("role-free", "none")),
    ],
)
def test_the_per_unit_step_is_on_the_ladder_only_for_a_quantity_asked_at_a_unit(
    text: str, steps: tuple[str, ...]
) -> None:
    assert plan_query(text).amount_steps == steps


def left(candidates: int) -> Ran:
    """A step's answer that left ``candidates``."""
    return Ran([], candidates, candidates, None)


def test_the_ladder_climbs_down_through_the_per_unit_step_in_order() -> None:
    ladder = Ladder(plan_query("umbrella premium under $500 a year"))
    taken = [ladder.step]
    while (step := ladder.after(left(0))) is not None:
        taken.append(step)
    assert taken == ["bound", "narrowed", "per-unit", "role-free", "none"]
    assert [s.step for s in ladder.tried] == taken  # the last, none, recorded too
    assert ladder.fallback
    answered = Ladder(plan_query("movers charging over $150 an hour"))
    assert answered.after(left(0)) == "per-unit"
    assert answered.after(left(4)) is None  # the per-unit step left candidates: it answers
    assert [(s.step, s.candidates) for s in answered.tried] == [("bound", 0), ("per-unit", 4)]
    assert answered.tried[1].asked == [
        "amount > USD 150.00 per hour: any label · a fact stating per hour"
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "movers charging over $150 an hour",
            "amount > USD 150.00 per hour: any label · a fact stating per hour",
        ),
        (
            "weekly wage over $900 in 2023",
            "amount > USD 900.00 per week in 2023: any label · a fact stating per week",
        ),
        (
            "hourly rate over $50",
            "amount > USD 50.00 per hour: any label · a fact stating per hour",
        ),
    ],
)
def test_the_per_unit_step_says_what_it_asks(text: str, line: str) -> None:
    assert plan_query(text).asked["per-unit"] == [line]


def test_a_constraint_without_a_unit_is_role_free_at_the_per_unit_step() -> None:
    plan = plan_query("movers charging over $150 an hour and a deposit under $500")
    assert plan.amount_steps == ("bound", "per-unit", "role-free", "none")
    hourly, deposit = (f for f in plan.kept(step="per-unit") if isinstance(f, AmountFilter))
    assert isinstance(hourly.filter, Nested) and hourly.constraint.period_unit == "hour"
    assert deposit.filter == [f.role_free for f in plan.filters if isinstance(f, AmountFilter)][1]
    assert plan.asked["per-unit"][1] == "amount < USD 500.00: any amount of the chunk"


# --------------------------------------------------------------------------- the filter


def test_the_per_unit_filter_asks_value_currency_and_unit_of_any_label() -> None:
    node = _per_unit("movers charging over $150 an hour").filter
    crew = _fact(["crew and truck", "truck"], 16500, period_unit="hour")
    assert passes(node, crew)  # "Crew and truck (3 movers) … $165.00 per hour"
    assert not passes(node, _fact(["flat move fee", "fee"], 39500))  # a flat fee: no unit
    assert not passes(node, _fact(["total"], 98000))  # a total over it
    assert not passes(node, _fact(["crew"], 12000, period_unit="hour"))  # under the value
    assert not passes(node, _fact(["crew"], 16500, period_unit="day"))  # another unit
    assert not passes(node, {**crew, "currency": "EUR"})


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # a rate's unit: the bound step passes a figure of no unit beside the label; the
        # per-unit step, which frees the label, asks the unit stated
        ("rooms under $200 per night", _fact(["parking"], 4000)),
        # a year: the bound step passes a figure stated for a year; this step does not
        ("premium under $500 a year", _fact(["filing fee"], 30000, year=2023)),
    ],
)
def test_the_per_unit_step_asks_a_unit_the_fact_states(text: str, fact: dict[str, object]) -> None:
    node = _per_unit(text).filter
    assert not passes(node, fact)
    unit = _per_unit(text).constraint.period_unit
    assert passes(node, {**fact, "period_unit": unit})


def test_a_year_asked_is_kept_at_the_per_unit_step() -> None:
    node = _per_unit("weekly wage over $900 in 2023").filter
    assert passes(node, _fact(["gross"], 95000, period_unit="week", year=2023))
    assert not passes(node, _fact(["gross"], 95000, period_unit="week", year=2022))


def test_there_is_no_per_unit_filter_without_a_unit_or_a_name() -> None:
    (deductible,) = plan_query("deductible under $1,000").constraints
    (nameless,) = plan_query("over $150 an hour").constraints
    assert per_unit_filter(deductible) is None and per_unit_filter(nameless) is None


# --------------------------------------------------------------------------- every leg


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_every_leg_carries_the_per_unit_filter(mode: str) -> None:
    plan = plan_query("movers charging over $150 an hour", mode=mode)
    vector = None if mode == "bm25" else [0.1] * 8
    bodies = search_bodies(plan, vector=vector, step="per-unit")
    unit = '{"term": {"facts.period_unit": "hour"}}'
    assert len(bodies) >= 2  # the leg(s), then the candidate count
    for body in bodies:
        said = json.dumps(body)
        assert said.count(unit) >= 1, body
        assert "facts.label_keys" not in said, body  # the label is free
    role_free = json.dumps(search_bodies(plan, vector=vector, step="role-free"))
    assert unit not in role_free and "facts" not in role_free


def test_a_thing_asked_at_a_unit_is_asked_where_a_document_names_it_before_any_figure() -> None:
    plan = plan_query("gym memberships under $60 a month")
    assert plan.amount_steps == ("bound", "narrowed", "per-unit", "role-free", "none")
    (found,) = (f for f in plan.kept(step="narrowed") if isinstance(f, AmountFilter))
    monthly = _fact(["dues"], 4500, period_unit="month")
    assert passes(found.filter, monthly, "Riverside Fitness › Your membership")
    assert not passes(found.filter, monthly, "City Parking › Your permit")
    assert not passes(found.filter, _fact(["dues"], 4500), "Riverside Fitness › Your membership")
    assert passes(found.filter, _fact(["membership", "dues"], 4500, period_unit="month"))


def test_a_qualified_kind_asked_at_a_unit_is_asked_by_its_head() -> None:
    plan = plan_query("pet insurance plans costing more than $30 a month")
    (found,) = (f for f in plan.kept(step="narrowed") if isinstance(f, AmountFilter))
    assert "any label · a fact stating per month" in plan.asked["narrowed"][0]
    assert passes(found.filter, _fact(["total"], 3500, period_unit="month"), "Pet insurance quote")
    assert not passes(found.filter, _fact(["total"], 3500, period_unit="month"), "Vet invoice")


def test_a_quantity_named_at_a_unit_keeps_the_ladder_it_had() -> None:
    assert plan_query("monthly rent under $2,000").amount_steps == (
        "bound", "per-unit", "role-free", "none"
    )  # fmt: skip
