"""Every feature of a typed SearchPlan, run on every engine: each returns exactly the chunks
the plan's constraints describe (computed here from the written data), so all three
engines return the same hit ids. Every node type of a filter is one case (the amount
facts' nested field included; tests/engines/test_fact_filters.py has the bound constraints)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from backend_cases import BackendCase, generation_body, stored_chunk

from osrag.engines.base import Put
from osrag.engines.mapping import VECTOR_FIELD
from osrag.models import AmountFact
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import (
    AclGuard,
    AllOf,
    AmountFilter,
    AnyOf,
    AsOfGuard,
    Exists,
    Filter,
    Guard,
    Match,
    MatchNone,
    NamedFilter,
    Nested,
    Not,
    NotExists,
    Range,
    TenantGuard,
    Term,
    Terms,
    amount_filter,
)
from osrag.schema.plan import (
    EngineResult,
    Fusion,
    Highlight,
    SearchPlan,
    Source,
    TextLeg,
    VectorLeg,
)

Row = dict[str, Any]

ROWS: list[Row] = [
    {"doc": "a", "n": 0, "body": "umbrella liability coverage", "amounts": [30_000_000],
     "category": "umbrella", "vec": [1.0, 0.0, 0.0], "facts": [("Liability limit", 30_000_000)]},
    {"doc": "a", "n": 1, "body": "umbrella excess limits", "amounts": [100_000_000],
     "tenant": "acme", "acl": ["agents"], "vec": [0.9, 0.1, 0.0],
     "facts": [("Excess limit", 100_000_000)]},
    {"doc": "b", "n": 0, "body": "home flood deductible", "amounts": [50_000_000, 2_000_000],
     "acl": ["underwriters"], "category": "home", "vec": [0.0, 1.0, 0.0],
     "facts": [("Flood limit", 50_000_000), ("Deductible", 2_000_000)]},
    {"doc": "c", "n": 0, "body": "renters claims coverage", "money": ["EUR:30000000"],
     "effective_from": "2025-01-01", "vec": [0.0, 0.9, 0.1],
     "facts": [("Personal property", 30_000_000, "EUR")]},
    {"doc": "d", "n": 0, "body": "umbrella travel coverage", "amounts": [5_000_000],
     "superseded_on": "2024-01-01", "vec": [0.0, 0.0, 1.0]},
    {"doc": "e", "n": 0, "body": "cyber coverage limits", "tenant": "globex",
     "amounts": [30_000_000], "vec": [0.5, 0.5, 0.0]},
    {"doc": "f", "n": 0, "body": "umbrella home flood", "category": "umbrella",
     "effective_from": "2023-01-01", "superseded_on": "2026-01-01", "vec": [0.4, 0.4, 0.2]},
]  # fmt: skip


def _chunk_id(row: Row) -> str:
    return f"{row['doc']}#{row['n']}#{row['doc'] * 4}{row['n']:012x}"


def _fact(label: str, units: int, currency: str = "USD") -> AmountFact:
    return AmountFact(currency, units, label, None, None, "key", str(units), 0, 1)


def _facts(test: Callable[[str, int, str], bool]) -> Callable[[Row], bool]:
    """A row has one fact ``(label, minor units, currency)`` meeting ``test``."""
    return lambda r: any(test(*(*f, "USD")[:3]) for f in r.get("facts", []))


def _source(row: Row) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "chunk_id": _chunk_id(row),
        "amounts": row.get("amounts", []),
        "money": row.get("money", [f"USD:{a}" for a in row.get("amounts", [])]),
        "acl": row.get("acl", []),
        "facts": [_fact(*f).source_dict() for f in row.get("facts", [])],
        VECTOR_FIELD: row["vec"],
    }
    for name in ("tenant", "category", "effective_from", "superseded_on"):
        if name in row:
            fields[name] = row[name]
    return stored_chunk(row["doc"], row["body"], index=row["n"], **fields)


@pytest.fixture
def engine(backend_case: BackendCase) -> Iterator[BackendCase]:
    case = backend_case
    name = f"{case.alias}-0123abcd-1"
    case.backend.create_generation(
        name, generation_body(case.kind, vector_dimension=3), bulk_loading=True
    )
    outcome = case.backend.write(name, [Put(_chunk_id(r), _source(r)) for r in ROWS])
    assert not outcome.failures
    case.backend.finish_generation(name)
    case.backend.move_alias(case.alias, name, None)
    yield case
    case.purge()


def _plan(
    *filters: Filter,
    text: str = "",
    guards: tuple[Guard, ...] = (),
    amounts: tuple[AmountFilter, ...] = (),
    **options: Any,
) -> SearchPlan:
    named = tuple(NamedFilter(f"f{i}", f) for i, f in enumerate(filters))
    return SearchPlan(
        mode=options.pop("mode", "bm25"),
        text=options.pop("text_leg", TextLeg(text)),
        vector=options.pop("vector", None),
        guards=guards,
        amounts=amounts,
        filters=named,
        size=options.pop("size", 50),
        depth=options.pop("depth", 50),
        **options,
    )


def _ids(rows: list[Row]) -> set[str]:
    return {_chunk_id(r) for r in rows}


def _where(test: Callable[[Row], bool]) -> set[str]:
    return _ids([r for r in ROWS if test(r)])


def _run(case: BackendCase, plan: SearchPlan) -> EngineResult:
    (result,) = case.backend.search(case.alias, [plan])
    return result


def _amount(op: str, *bounds: int, currency: str = "USD") -> AmountFilter:
    constraint = AmountConstraint(op=op, currency=currency, bounds=bounds)  # type: ignore[arg-type]
    return AmountFilter(constraint, amount_filter(constraint, "USD"))


def _holds(test: Callable[[int], bool]) -> Callable[[Row], bool]:
    return lambda r: any(test(a) for a in r.get("amounts", []))


FILTER_CASES: dict[str, tuple[Filter, Callable[[Row], bool]]] = {
    "term": (Term("category", "umbrella"), lambda r: r.get("category") == "umbrella"),
    "terms": (Terms("category", ("umbrella", "home")), lambda r: "category" in r),
    "range-gt": (Range("amounts", gt=30_000_000), _holds(lambda a: a > 30_000_000)),
    "range-gte": (Range("amounts", gte=30_000_000), _holds(lambda a: a >= 30_000_000)),
    "range-lt": (Range("amounts", lt=30_000_000), _holds(lambda a: a < 30_000_000)),
    "range-lte": (Range("amounts", lte=30_000_000), _holds(lambda a: a <= 30_000_000)),
    "range-between": (
        Range("amounts", gte=5_000_000, lte=50_000_000),
        _holds(lambda a: 5_000_000 <= a <= 50_000_000),
    ),
    "range-date": (
        Range("effective_from", lte="2024-06-30"),
        lambda r: r.get("effective_from", "9999") <= "2024-06-30",
    ),
    "exists": (Exists("superseded_on"), lambda r: "superseded_on" in r),
    "not-exists": (NotExists("tenant"), lambda r: "tenant" not in r),
    "any-of": (
        AnyOf((Term("category", "home"), Range("amounts", gte=100_000_000))),
        lambda r: (
            r.get("category") == "home" or any(a >= 100_000_000 for a in r.get("amounts", []))
        ),
    ),
    "all-of": (
        AllOf((Term("category", "umbrella"), Exists("effective_from"))),
        lambda r: r.get("category") == "umbrella" and "effective_from" in r,
    ),
    "not": (Not(Term("category", "umbrella")), lambda r: r.get("category") != "umbrella"),
    "match-and": (
        Match("body", "umbrella coverage"),
        lambda r: "umbrella" in r["body"] and "coverage" in r["body"],
    ),
    "match-or": (
        Match("body", "flood excess", "or"),
        lambda r: "flood" in r["body"] or "excess" in r["body"],
    ),
    "nested": (
        Nested(
            "facts",
            AllOf((Match("facts.label", "limit"), Range("facts.magnitude", gte=40_000_000))),
        ),
        _facts(lambda label, units, _: "limit" in label.lower() and units >= 40_000_000),
    ),
    "nested-currency": (
        Nested("facts", Term("facts.currency", "EUR")),
        _facts(lambda _label, _units, currency: currency == "EUR"),
    ),
}


@pytest.mark.parametrize("feature", sorted(FILTER_CASES))
def test_each_constraint_type_selects_exactly_its_chunks(engine: BackendCase, feature: str) -> None:
    node, test = FILTER_CASES[feature]
    result = _run(engine, _plan(node))
    expected = _where(test)
    assert expected, "a case that selects nothing proves nothing"
    assert {h.chunk_id for h in result.hits} == expected
    assert result.candidates == len(expected)


def test_a_filter_matching_nothing_leaves_no_hit_and_no_candidate(engine: BackendCase) -> None:
    result = _run(engine, _plan(MatchNone(), text="umbrella"))
    assert (result.hits, result.total, result.candidates) == ((), 0, 0)


def test_amount_filters_compile_to_the_amounts_and_money_fields(engine: BackendCase) -> None:
    cases = [
        (_amount("eq", 30_000_000), _holds(lambda a: a == 30_000_000)),
        (_amount("in", 5_000_000, 100_000_000), _holds(lambda a: a in (5_000_000, 100_000_000))),
        (_amount("gt", 50_000_000), _holds(lambda a: a > 50_000_000)),
        (_amount("eq", 30_000_000, currency="EUR"), lambda r: "money" in r),
    ]
    for amount, test in cases:
        result = _run(engine, _plan(amounts=(amount,)))
        assert {h.chunk_id for h in result.hits} == _where(test), amount.constraint


def test_the_access_guards_select_what_the_caller_may_see(engine: BackendCase) -> None:
    def visible(tenant: str | None, groups: set[str]) -> set[str]:
        return _where(
            lambda r: (
                r.get("tenant") == tenant and (not r.get("acl") or bool(groups & set(r["acl"])))
            )
        )

    for tenant, groups in [
        (None, set()),
        ("acme", {"agents"}),
        ("acme", set()),
        (None, {"underwriters"}),
    ]:
        guards = (TenantGuard(tenant), AclGuard(tuple(sorted(groups))))
        result = _run(engine, _plan(guards=guards))
        assert {h.chunk_id for h in result.hits} == visible(tenant, groups), (tenant, groups)


def test_as_of_keeps_documents_in_force_on_the_day(engine: BackendCase) -> None:
    day = dt.date(2024, 6, 30)
    result = _run(engine, _plan(guards=(AsOfGuard(day),)))
    iso = day.isoformat()
    assert {h.chunk_id for h in result.hits} == _where(
        lambda r: r.get("effective_from", "0000") <= iso and r.get("superseded_on", "9999") > iso
    )


def test_text_k_offset_collapse_source_and_highlight(engine: BackendCase) -> None:
    umbrella = _where(lambda r: "umbrella" in r["body"])
    full = _run(engine, _plan(text="umbrella"))
    assert {h.chunk_id for h in full.hits} == umbrella and full.total == len(umbrella)
    ranked = [h.chunk_id for h in full.hits]
    page = _run(engine, _plan(text="umbrella", size=2, offset=1))
    assert [h.chunk_id for h in page.hits] == ranked[1:3]
    collapsed = _run(engine, _plan(text="umbrella", collapse=True))
    assert sorted(h.doc_id for h in collapsed.hits) == sorted({i.split("#")[0] for i in umbrella})
    lean = _run(engine, _plan(text="umbrella", source=Source(includes=("chunk_id", "doc_id"))))
    assert [h.chunk_id for h in lean.hits] == ranked
    assert all(h.source == {"chunk_id": h.chunk_id, "doc_id": h.doc_id} for h in lean.hits)
    whole = {h.chunk_id: h.source for h in full.hits}
    assert all(set(whole[h]) >= {"chunk_id", "doc_id", "body", "amounts"} for h in whole)
    bodiless = _run(engine, _plan(text="umbrella", source=Source(excludes=("body", "amounts"))))
    for hit in bodiless.hits:
        assert hit.source == {
            k: v for k, v in whole[hit.chunk_id].items() if k not in {"body", "amounts"}
        }
    marked = _run(engine, _plan(text="flood", highlight=Highlight()))
    assert marked.hits and all(any("«flood»" in f for f in h.highlight) for h in marked.hits)


def test_a_text_without_terms_ranks_by_the_filters_alone(engine: BackendCase) -> None:
    """Punctuation: no term under any analyzer (stop words are terms under ``standard``)."""
    leg = TextLeg("? –", no_terms="all")
    result = _run(engine, _plan(Term("category", "umbrella"), text_leg=leg))
    assert {h.chunk_id for h in result.hits} == _where(lambda r: r.get("category") == "umbrella")


def test_vector_and_hybrid_modes_keep_every_filter_inside_every_leg(engine: BackendCase) -> None:
    wanted = _where(lambda r: "category" in r)
    near = VectorLeg((1.0, 0.0, 0.0), k=3)
    vector = _run(engine, _plan(Terms("category", ("umbrella", "home")), mode="vector",
                                text_leg=None, vector=near, size=3, depth=3))  # fmt: skip
    assert {h.chunk_id for h in vector.hits} == wanted
    assert vector.hits[0].chunk_id == _chunk_id(ROWS[0])  # the nearest: the same vector
    hybrid = _run(engine, _plan(Terms("category", ("umbrella", "home")), mode="hybrid",
                                text="umbrella", vector=near, size=3, depth=3,
                                fusion=Fusion(in_engine=False)))  # fmt: skip
    assert not hybrid.hits and len(hybrid.legs) == 2
    assert all({h.chunk_id for h in leg} <= wanted for leg in hybrid.legs)
    assert {h.chunk_id for h in hybrid.legs[1]} == wanted


def test_each_leg_a_client_fuses_is_depth_deep(engine: BackendCase) -> None:
    umbrella = _where(lambda r: "umbrella" in r["body"])
    assert len(umbrella) > 2
    near = VectorLeg((1.0, 0.0, 0.0), k=2)
    hybrid = _run(engine, _plan(text="umbrella", mode="hybrid", vector=near, size=2, depth=2,
                                fusion=Fusion(in_engine=False)))  # fmt: skip
    lexical, vector = hybrid.legs
    assert len(lexical) == len(vector) == 2 and {h.chunk_id for h in lexical} <= umbrella
    assert vector[0].chunk_id == _chunk_id(ROWS[0])


def test_capabilities_are_read_once_and_name_the_engine(engine: BackendCase) -> None:
    found = engine.backend.capabilities()
    assert engine.backend.capabilities() is found  # read once per connection
    assert found.engine == engine.kind
    assert found.knn == engine.kind  # the vector leg's syntax is the engine's own
    if engine.kind == "embedded":
        assert found.data_nodes is None and found.node_fusion == frozenset()
    else:
        assert found.version[0].isdigit() and (found.data_nodes or 0) >= 1
