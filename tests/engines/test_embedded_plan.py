"""The embedded engine's plan compiler against an oracle: random constraint trees select
exactly the chunks a direct reading of their stored records selects."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osrag.engines.embedded.compiler import minimum_should_match
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.errors import QueryError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.schema.filters import (
    AllOf,
    AnyOf,
    Exists,
    Filter,
    MatchNone,
    NamedFilter,
    Not,
    NotExists,
    Range,
    Term,
    Terms,
)
from osrag.schema.plan import SearchPlan, Source, TextLeg

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "insurance"
ALIAS = "plan-oracle"
KEYWORDS = ("tenant", "acl", "category", "money", "doc_id")
NUMBERS = ("amounts",)
DAYS = ("effective_from", "superseded_on")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[EmbeddedIndex, list[dict[str, Any]]]:
    index = EmbeddedIndex(tmp_path_factory.mktemp("plan") / "index")
    ingest(DATA, index, IngestOptions(alias=ALIAS))
    (every,) = index.search(ALIAS, [_plan(None, size=10_000)])
    records = [hit.source for hit in every.hits]
    assert len(records) == index.count(ALIAS) > 10
    return index, records


def _plan(node: Filter | None, *, text: str = "", size: int = 10_000) -> SearchPlan:
    return SearchPlan(
        mode="bm25",
        text=TextLeg(text),
        vector=None,
        guards=(),
        filters=(NamedFilter("f", node),) if node is not None else (),
        size=size,
        depth=size,
        source=Source(includes=None, excludes=("text",)),
    )


def _values(record: dict[str, Any], field: str) -> list[Any]:
    value = record.get(field)
    if value is None or value == [] or value == "":
        return []
    return value if isinstance(value, list) else [value]


def _within(value: Any, node: Range) -> bool:
    return (
        (node.gt is None or value > node.gt)
        and (node.gte is None or value >= node.gte)
        and (node.lt is None or value < node.lt)
        and (node.lte is None or value <= node.lte)
    )


def _holds(node: Filter, record: dict[str, Any]) -> bool:
    """The oracle: the constraint read straight off the stored record."""
    if isinstance(node, Term):
        return node.value in _values(record, node.field)
    if isinstance(node, Terms):
        return any(v in node.values for v in _values(record, node.field))
    if isinstance(node, Range):
        return any(_within(v, node) for v in _values(record, node.field))
    if isinstance(node, Exists):
        return bool(_values(record, node.field))
    if isinstance(node, NotExists):
        return not _values(record, node.field)
    if isinstance(node, MatchNone):
        return False
    if isinstance(node, Not):
        return not _holds(node.item, record)
    if isinstance(node, AnyOf):
        return any(_holds(i, record) for i in node.items)
    assert isinstance(node, AllOf)
    return all(_holds(i, record) for i in node.items)


def _trees(records: list[dict[str, Any]]) -> st.SearchStrategy[Filter]:
    seen: dict[str, list[Any]] = {
        f: sorted({v for r in records for v in _values(r, f)}) for f in KEYWORDS + NUMBERS + DAYS
    }
    keyword = st.sampled_from([f for f in KEYWORDS if seen[f]])
    number = st.sampled_from(seen["amounts"]) | st.integers(0, 10**10)
    day = st.sampled_from([d for f in DAYS for d in seen[f]] or ["2024-01-01"]) | st.dates(
        dt.date(2000, 1, 1), dt.date(2030, 12, 31)
    ).map(dt.date.isoformat)

    def term(field: str) -> st.SearchStrategy[Filter]:
        values = st.sampled_from(seen[field] + ["nobody-has-this"])
        return st.one_of(
            values.map(lambda v: Term(field, v)),
            st.lists(values, min_size=1, max_size=3).map(lambda vs: Terms(field, tuple(vs))),
        )

    def ranged(field: str, bound: st.SearchStrategy[Any]) -> st.SearchStrategy[Filter]:
        low = st.one_of(st.none(), bound)
        return (
            st.tuples(low, low, st.booleans(), st.booleans())
            .filter(lambda t: t[0] is not None or t[1] is not None)
            .map(
                lambda t: Range(
                    field,
                    gt=t[0] if t[2] else None,
                    gte=None if t[2] else t[0],
                    lt=t[1] if t[3] else None,
                    lte=None if t[3] else t[1],
                )
            )
        )

    fields = st.sampled_from(KEYWORDS + NUMBERS + DAYS)
    leaves = st.one_of(
        keyword.flatmap(term),
        number.map(lambda v: Term("amounts", v)),
        ranged("amounts", number),
        st.sampled_from(DAYS).flatmap(lambda f: ranged(f, day)),
        fields.map(Exists),
        fields.map(NotExists),
        st.just(MatchNone()),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            inner.map(Not),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: AnyOf(tuple(xs))),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: AllOf(tuple(xs))),
        ),
        max_leaves=6,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_constraint_tree_selects_exactly_the_chunks_whose_records_meet_it(
    indexed: tuple[EmbeddedIndex, list[dict[str, Any]]], data: st.DataObject
) -> None:
    index, records = indexed
    node = data.draw(_trees(records))
    (result,) = index.search(ALIAS, [_plan(node)])
    expected = {r["chunk_id"] for r in records if _holds(node, r)}
    assert {hit.chunk_id for hit in result.hits} == expected
    assert result.candidates == len(expected)


def test_filters_never_change_the_text_scores(
    indexed: tuple[EmbeddedIndex, list[dict[str, Any]]],
) -> None:
    index, _records = indexed
    (everything,) = index.search(ALIAS, [_plan(None, text="umbrella liability")])
    (narrowed,) = index.search(ALIAS, [_plan(Exists("amounts"), text="umbrella liability")])
    scores = {hit.chunk_id: hit.score for hit in everything.hits}
    assert narrowed.hits and len(narrowed.hits) < len(everything.hits)
    for hit in narrowed.hits:
        assert hit.score == pytest.approx(scores[hit.chunk_id])


@pytest.mark.parametrize(
    ("node", "message"),
    [
        (Term("nope", "x"), "no field 'nope'"),
        (Range("tenant", gte="a"), "'tenant' is keyword"),
        (Term("amounts", "three hundred"), "not an integer"),
        (Range("effective_from", gte="soon"), "not a day"),
    ],
)
def test_a_constraint_the_mapping_cannot_answer_is_refused_by_name(
    indexed: tuple[EmbeddedIndex, list[dict[str, Any]]], node: Filter, message: str
) -> None:
    with pytest.raises(QueryError, match=message):
        indexed[0].search(ALIAS, [_plan(node)])


@given(st.integers(0, 40), st.integers(-50, 50))
def test_an_integer_minimum_should_match_is_the_count_or_all_but_it(
    optional: int, spec: int
) -> None:
    needed = minimum_should_match(optional, spec)
    assert needed == max(spec if spec >= 0 else optional + spec, 0)
