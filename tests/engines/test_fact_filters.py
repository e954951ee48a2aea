"""Constraints bound to a named quantity, on every engine and in every mode: one amount fact
must meet label, value, currency and year at once.

The chunks are written straight to each engine (their facts given here, as the extraction
would give them); the queries go through the real parser, binding and planner. What each
query must return is written next to it, read from the facts by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from backend_cases import BackendCase, generation_body, stored_chunk

from osrag.engines.base import Put
from osrag.engines.mapping import VECTOR_FIELD
from osrag.models import AmountFact
from osrag.schema.filters import FACTS, AllOf, Match, NamedFilter, Nested, Not, Range, Term
from osrag.schema.plan import Fusion, SearchPlan, TextLeg, VectorLeg
from osrag.search.query import plan_query, search_plan
from osrag.search.searcher import Searcher


def fact(
    label: str | None,
    value: int,
    currency: str = "USD",
    year: int | None = None,
    source: str = "key",
) -> AmountFact:
    return AmountFact(
        currency=currency,
        value=value,
        label=label,
        period=None if year is None else str(year),
        year=year,
        source=source,  # type: ignore[arg-type]
        raw=str(value),
        start=0,
        end=1,
    )


CHUNKS: dict[str, dict[str, Any]] = {
    # the chunk: a $500 deductible and a $1,000,000 limit
    "policy-a": {"body": "umbrella policy deductible $500 limit $1,000,000",
                 "facts": [fact("Deductible", 50_000), fact("Limit", 100_000_000)],
                 "tenant": "acme", "vec": [1.0, 0.0, 0.0]},
    # the other way round: a $750,000 deductible, a $100 limit
    "policy-b": {"body": "umbrella policy deductible $750,000 limit $100",
                 "facts": [fact("Deductible", 75_000_000), fact("Each occurrence limit", 10_000)],
                 "tenant": "acme", "vec": [0.9, 0.1, 0.0]},
    # a loss in 2019 written in parentheses, income in 2018, under "Net income (loss)"
    "report-x": {"body": "consolidated statements net income (loss) (6,619) 5,000",
                 "facts": [fact("Net income (loss)", -661_900_000, year=2019, source="table"),
                           fact("Net income (loss)", 500_000_000, year=2018, source="table"),
                           fact("Total revenue", 9_000_000_000, year=2019, source="table")],
                 "tenant": "acme", "vec": [0.0, 1.0, 0.0]},
    # revenue of another company, and its net income (a gain) in 2019
    "report-y": {"body": "consolidated statements net income revenue",
                 "facts": [fact("Net income", 2_500_000_000, year=2019, source="table"),
                           fact("Net sales", 4_000_000_000_000, year=2019, source="table")],
                 "tenant": "acme", "vec": [0.0, 0.9, 0.1]},
    # a limit in euros
    "policy-eur": {"body": "umbrella policy limit €300,000",
                   "facts": [fact("Limit", 30_000_000, currency="EUR")],
                   "tenant": "acme", "vec": [0.5, 0.0, 0.5]},
    # another tenant's deductible over $500,000
    "policy-other": {"body": "umbrella policy deductible $900,000",
                     "facts": [fact("Deductible", 90_000_000)],
                     "tenant": "globex", "vec": [0.95, 0.05, 0.0]},
}  # fmt: skip


def _chunk_id(name: str) -> str:
    return f"{name}#0#{'0' * 16}"


def _source(name: str) -> dict[str, Any]:
    row = CHUNKS[name]
    facts: list[AmountFact] = row["facts"]
    return stored_chunk(
        name,
        row["body"],
        chunk_id=_chunk_id(name),
        tenant=row["tenant"],
        facts=[f.source_dict() for f in facts],
        amounts=[f.magnitude for f in facts if f.currency == "USD"],
        money=[f"{f.currency}:{f.magnitude}" for f in facts],
        **{VECTOR_FIELD: row["vec"]},
    )


@pytest.fixture
def engine(backend_case: BackendCase) -> Iterator[BackendCase]:
    case = backend_case
    name = f"{case.alias}-0123abcd-1"
    case.backend.create_generation(
        name, generation_body(case.kind, vector_dimension=3), bulk_loading=True
    )
    outcome = case.backend.write(name, [Put(_chunk_id(n), _source(n)) for n in CHUNKS])
    assert not outcome.failures, outcome.failures
    case.backend.finish_generation(name)
    case.backend.move_alias(case.alias, name, None)
    yield case
    case.purge()


NEAR = (1.0, 0.0, 0.0)


def _found(case: BackendCase, text: str, mode: str, step: str = "bound") -> set[str]:
    """The documents the query's plan at ``step`` returns in ``mode`` (every leg's)."""
    plan = plan_query(text, tenant="acme", mode=mode)
    typed = search_plan(
        plan,
        vector=NEAR if mode != "bm25" else None,
        step=step,  # type: ignore[arg-type]
        in_engine=False,
    )
    typed = _widened(typed)
    (result,) = case.backend.search(case.alias, [typed])
    legs = result.legs or (result.hits,)
    if mode == "hybrid":
        assert len(legs) == 2
    return {h.doc_id for leg in legs for h in leg}


def _widened(plan: SearchPlan) -> SearchPlan:
    """The plan fetching every candidate (20 deep; the vector leg's k too), the words
    left out: what passes is the filters' doing."""
    vector = None if plan.vector is None else VectorLeg(plan.vector.vector, 20)
    text = None if plan.text is None else TextLeg("")  # the filters alone choose
    return SearchPlan(
        mode=plan.mode,
        text=text,
        vector=vector,
        guards=plan.guards,
        amounts=plan.amounts,
        filters=plan.filters,
        size=20,
        depth=20,
        fusion=Fusion(in_engine=False),
    )


CASES: dict[str, set[str]] = {
    # the contract: one fact meets label AND value
    "limit over $500,000": {"policy-a"},
    "deductible over $500,000": {"policy-b"},  # not policy-a (its $1M is a limit)
    "policies with a deductible under $1,000": {"policy-a"},
    "$500 deductible": {"policy-a"},
    # a loss: the negative side of the net income family, in the year asked
    "net loss under $10 million in 2019": {"report-x"},
    "net loss under $10 million in 2018": set(),  # 2018 was income
    "net income above $1 million in 2018": {"report-x"},
    "net income above $1 million in 2019": {"report-y"},  # report-x lost money in 2019
    # synonyms: net sales ~ revenue
    "companies whose revenue exceeded $5 billion": {"report-y"},
    "revenue between $50 million and $100 million in 2019": {"report-x"},
    # another currency: the euro limit, by range
    "limit over €250,000": {"policy-eur"},
    "limit over €350,000": set(),
}


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_bound_constraint_passes_only_a_chunk_with_one_fact_meeting_it(
    engine: BackendCase, mode: str
) -> None:
    for text, expected in CASES.items():
        (constraint,) = plan_query(text).constraints
        assert constraint.label is not None, text
        assert _found(engine, text, mode) == expected, (text, mode)


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_the_role_free_step_filters_any_amount_in_any_currency(
    engine: BackendCase, mode: str
) -> None:
    # role-free: the $1,000,000 limit passes "deductible over $500,000" too
    assert _found(engine, "deductible over $500,000", mode, "role-free") == {
        "policy-a",
        "policy-b",
        "report-x",
        "report-y",
    }
    # a range in euros: one fact in euros meets it (no refusal)
    assert _found(engine, "limit over €250,000", mode, "role-free") == {"policy-eur"}
    assert _found(engine, "limit over €350,000", mode, "role-free") == set()


def test_the_ladder_steps_down_each_time_no_candidate_is_left(engine: BackendCase) -> None:
    searcher = Searcher(engine.backend, engine.alias)
    bound = searcher.search("deductible over $500,000", tenant="acme", k=10)
    assert bound.amount_step == "bound" and not bound.fallback
    assert [(s.step, s.candidates) for s in bound.amount_steps] == [("bound", 1)]
    assert {h.doc_id for h in bound.hits} == {"policy-b"}
    # no deductible over $5 million: any amount over it (the revenue figures) answers
    relaxed = searcher.search("deductible over $5,000,000", tenant="acme", k=10)
    assert relaxed.amount_step == "role-free" and not relaxed.fallback
    assert [(s.step, s.candidates) for s in relaxed.amount_steps] == [
        ("bound", 0),
        ("role-free", 2),
    ]
    assert relaxed.amount_candidates == 0 and relaxed.candidate_count == 2
    assert relaxed.filters_applied[0].constraint is not None
    assert relaxed.filters_applied[0].constraint.label is None  # as the step applied it
    assert relaxed.constraints[0].label == "deductible"  # as the question stated it
    # no amount anywhere over $900 billion: no amount filter; the guards stay
    dropped = searcher.search("deductible over $900,000,000,000", tenant="acme", k=10)
    assert dropped.amount_step == "none" and dropped.fallback
    assert [s.step for s in dropped.amount_steps] == ["bound", "role-free", "none"]
    assert [f.name for f in dropped.filters_applied] == ["tenant", "acl"]
    assert dropped.hits and "policy-other" not in {h.doc_id for h in dropped.hits}
    # a role-free constraint starts at the role-free step
    plain = searcher.search("the $500 umbrella policy", tenant="acme", k=10)
    assert plain.constraints[0].label is None
    assert [s.step for s in plain.amount_steps] == ["role-free"]


def test_the_tenant_guard_stays_at_every_step(engine: BackendCase) -> None:
    searcher = Searcher(engine.backend, engine.alias)
    for text in ("deductible over $500,000", "deductible over $5,000,000"):
        result = searcher.search(text, tenant="acme", k=10)
        assert "policy-other" not in {h.doc_id for h in result.hits}, text
        assert "tenant" in [f.name for f in result.filters_applied]


def _named(case: BackendCase, node: Any) -> set[str]:
    plan = SearchPlan(
        mode="bm25",
        text=TextLeg(""),
        vector=None,
        guards=(),
        filters=(NamedFilter("f", node),),
        size=20,
    )
    (result,) = case.backend.search(case.alias, [plan])
    return {h.doc_id for h in result.hits}


def test_nested_and_match_nodes_mean_the_same_on_every_engine(engine: BackendCase) -> None:
    label = Match(f"{FACTS}.label", "occurrence limit")
    assert _named(engine, Nested(FACTS, label)) == {"policy-b"}
    # every word of the text (and), or any (or)
    assert _named(engine, Match("body", "deductible limit")) == {"policy-a", "policy-b"}
    assert _named(engine, Match("body", "revenue umbrella", "or")) == {
        "policy-a", "policy-b", "policy-eur", "policy-other", "report-y"
    }  # fmt: skip
    # one fact meets both, or none: a label and a value from two facts are not a match
    two_facts = Nested(FACTS, AllOf((Match(f"{FACTS}.label", "deductible"),
                                     Range(f"{FACTS}.magnitude", gte=100_000_000))))  # fmt: skip
    assert _named(engine, two_facts) == set()
    # not: no fact in euros (every chunk but the euro policy)
    euro = Nested(FACTS, Term(f"{FACTS}.currency", "EUR"))
    assert _named(engine, Not(euro)) == set(CHUNKS) - {"policy-eur"}
    # some fact not in euros: every chunk but the euro policy (whose one fact is)
    not_euro = Nested(FACTS, Not(Term(f"{FACTS}.currency", "EUR")))
    assert _named(engine, not_euro) == set(CHUNKS) - {"policy-eur"}
    # a signed value below zero: the loss
    assert _named(engine, Nested(FACTS, Range(f"{FACTS}.value", lt=0))) == {"report-x"}
    # a label's text of stop words alone matches nothing (no term, or none held)
    assert _named(engine, Nested(FACTS, Match(f"{FACTS}.label", "the of"))) == set()
