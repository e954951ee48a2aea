"""A bound constraint matches the asked name at the head of a fact's label, on every engine
and in every mode (the stored ``facts.label_keys`` and the asked keys meet as exact terms).

Each chunk holds line items whose labels hold the asked name somewhere else than at their
head, with amounts that would pass every constraint below; the one fact that names the
quantity is written next to what must return it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from backend_cases import BackendCase, generation_body, stored_chunk

from osrag.engines.base import Put
from osrag.engines.mapping import VECTOR_FIELD
from osrag.models import AmountFact
from osrag.schema.plan import Fusion, SearchPlan, TextLeg, VectorLeg
from osrag.search.query import plan_query, search_plan


def fact(label: str, value: int, source: str = "table") -> AmountFact:
    return AmountFact(
        currency="USD", value=value, label=label, period="2019", year=2019,
        source=source,  # type: ignore[arg-type]
        raw=str(value), start=0, end=1,
    )  # fmt: skip


M = 100_000_000  # $1 million in cents
CHUNKS: dict[str, list[AmountFact]] = {
    # the name after other words: none of these is revenue, an operating loss, assets
    "report-deferred": [fact("Deferred revenue", 900 * M), fact("Cost of revenues", 800 * M),
                        fact("Net operating loss carryforwards", 700 * M),
                        fact("Total deferred tax assets before valuation allowance", 600 * M)],
    # the name followed by other words: not interest income, not total assets
    "report-combined": [fact("Interest expense, interest income and other income, net", 900 * M),
                        fact("Total assets as reported", 800 * M)],
    # the quantities themselves, after total / net, in a group or with a column qualifier
    "report-head": [fact("Total revenue", 950 * M), fact("Net interest income", 650 * M),
                    fact("Assets: Total", 2_000 * M)],
    # insurance: the name last, a row with its column qualifier
    "policy-auto": [fact("Collision deductible", 50_000, "key"),
                    fact("Property damage, each accident — Limit", 5_000_000)],
    "policy-gl": [fact("Each occurrence limit", 100_000_000, "key"),
                  fact("Unearned premium", 90_000, "key")],
}  # fmt: skip

CASES: dict[str, set[str]] = {
    "revenue over $500 million in 2019": {"report-head"},
    "operating loss over $500 million in 2019": set(),
    "valuation allowance over $500 million in 2019": set(),
    "interest income over $500 million in 2019": {"report-head"},
    "total assets over $500 million in 2019": {"report-head"},
    "deferred revenue over $500 million in 2019": {"report-deferred"},
    "cost of revenue over $500 million in 2019": {"report-deferred"},
    "deductible under $1,000": {"policy-auto"},
    "collision deductible under $1,000": {"policy-auto"},
    "property damage liability limit under $100,000": {"policy-auto"},
    "each occurrence limit of at least $1 million": {"policy-gl"},
    "premium under $1,000": set(),  # an unearned premium is no premium
}


def _chunk_id(name: str) -> str:
    return f"{name}#0#{'0' * 16}"


def _source(name: str, at: int) -> dict[str, Any]:
    facts = CHUNKS[name]
    vec = [0.0, 0.0, 0.0]
    vec[at % 3] = 1.0
    return stored_chunk(
        name,
        " ".join(f.label or "" for f in facts),
        chunk_id=_chunk_id(name),
        tenant="acme",
        facts=[f.source_dict() for f in facts],
        amounts=[f.magnitude for f in facts],
        money=[f"USD:{f.magnitude}" for f in facts],
        **{VECTOR_FIELD: vec},
    )


@pytest.fixture
def engine(backend_case: BackendCase) -> Iterator[BackendCase]:
    case = backend_case
    name = f"{case.alias}-0123abcd-1"
    case.backend.create_generation(
        name, generation_body(case.kind, vector_dimension=3), bulk_loading=True
    )
    puts = [Put(_chunk_id(n), _source(n, i)) for i, n in enumerate(CHUNKS)]
    outcome = case.backend.write(name, puts)
    assert not outcome.failures, outcome.failures
    case.backend.finish_generation(name)
    case.backend.move_alias(case.alias, name, None)
    yield case
    case.purge()


def _found(case: BackendCase, text: str, mode: str) -> set[str]:
    """Every chunk the bound step's filters pass (the words left out, 20 deep)."""
    plan = plan_query(text, tenant="acme", mode=mode)
    vector = (1.0, 1.0, 1.0) if mode != "bm25" else None
    typed = search_plan(plan, vector=vector, step="bound", in_engine=False)
    widened = SearchPlan(
        mode=typed.mode,
        text=None if typed.text is None else TextLeg(""),
        vector=None if typed.vector is None else VectorLeg(typed.vector.vector, 20),
        guards=typed.guards,
        amounts=typed.amounts,
        filters=typed.filters,
        size=20,
        depth=20,
        fusion=Fusion(in_engine=False),
    )
    (result,) = case.backend.search(case.alias, [widened])
    return {h.doc_id for leg in (result.legs or (result.hits,)) for h in leg}


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_bound_constraint_matches_the_name_at_the_head_of_a_label(
    engine: BackendCase, mode: str
) -> None:
    for text, expected in CASES.items():
        (constraint,) = plan_query(text).constraints
        assert constraint.label is not None, text
        assert _found(engine, text, mode) == expected, (text, mode)
