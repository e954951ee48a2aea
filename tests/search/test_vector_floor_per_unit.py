"""The vector leg's floor at the per-unit step, chosen apart from the role-free step's.

At the per-unit step the filter keeps only amounts stated at the asked unit ("$24 per
hour" for "under $30 an hour"), so every candidate already shares the unit with the
question, and the vector leg's hits that also mean the asked quantity score near its best;
other services billed by the hour score a little lower. The leg keeps the hits scoring at
least ``vector_floor_per_unit`` (0.95) of its best there, ``vector_floor`` (0.8) at the
role-free step. Pure checks of the floor per step, then the search on OpenSearch,
Elasticsearch and the embedded index with vectors from the offline default model.

What each question must return is written beside it, read from the documents by hand.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case
from hypothesis import given
from hypothesis import strategies as st

from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import QuerySpec
from osrag.search.query import AMOUNT_STEPS, plan_query, search_plan, vector_floor
from osrag.search.searcher import Searcher

VECTOR = [0.1, 0.2, 0.3, 0.4]
HOURLY = "dog walkers charging under $30 an hour"


@given(
    st.sampled_from(AMOUNT_STEPS),
    st.floats(min_value=0.0, max_value=1.0),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_each_step_where_the_words_choose_has_its_own_floor(
    step: str, role_free: float, per_unit: float
) -> None:
    plan = plan_query(
        QuerySpec(
            text=HOURLY, mode="vector", vector_floor=role_free, vector_floor_per_unit=per_unit
        )
    )
    floor = vector_floor(plan, step)  # type: ignore[arg-type]
    share = {"per-unit": per_unit, "role-free": role_free}.get(step)
    assert floor == (share if share else None)


def test_the_per_unit_plan_carries_its_own_floor_and_the_role_free_plan_the_other() -> None:
    plan = plan_query(QuerySpec(text=HOURLY, mode="hybrid", k=5))
    assert search_plan(plan, vector=VECTOR, step="per-unit").vector.floor == 0.95  # type: ignore[union-attr]
    assert search_plan(plan, vector=VECTOR, step="role-free").vector.floor == 0.8  # type: ignore[union-attr]
    assert search_plan(plan, vector=VECTOR, step="bound").vector.floor is None  # type: ignore[union-attr]
    off = plan_query(QuerySpec(text=HOURLY, mode="vector", vector_floor_per_unit=0))
    assert search_plan(off, vector=VECTOR, step="per-unit").vector.floor is None  # type: ignore[union-attr]
    assert search_plan(off, vector=VECTOR, step="role-free").vector.floor == 0.8  # type: ignore[union-attr]


# --------------------------------------------------------------------------- search


DOCUMENTS = {
    # the asked quantity: dog walking at $24 an hour
    "dog-walker": "# Happy Paws\n\nNeighbourhood dog walking, group walks in the park: "
    "$24 per hour.\n",
    # pet sitting at $26 an hour: near in meaning, not dog walking
    "pet-sitter": "# Cosy Cats\n\nIn-home pet sitting while you travel: $26 per hour.\n",
    # three other services billed by the hour under $30
    "algebra-tutor": "# Algebra help\n\nOne-to-one maths tutoring for high school "
    "students: $28 per hour.\n",
    "city-garage": "# City Garage\n\nShort-stay parking near the station: $4 per hour.\n",
    "plumber": "# Plumbing quote\n\nLabour for fitting a new boiler: $25 per hour.\n",
    # a dog's night at a kennel, $45: not an hourly amount, and over $30
    "kennel": "# Lakeside Kennels\n\nDog boarding, one night: $45.\n",
}
HOURLY_UNDER_30 = {"dog-walker", "pet-sitter", "algebra-tutor", "city-garage", "plumber"}


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def services(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    """The documents above, ingested with vectors from the offline default model."""
    folder = tmp_path_factory.mktemp("per-unit-floor")
    source = folder / "services"
    source.mkdir()
    for name, text in DOCUMENTS.items():
        (source / f"{name}.md").write_text(text, encoding="utf-8")
    case = open_case(request, request.param, folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(folder / "vector-cache"))
        ingest(source, case.backend, IngestOptions(alias=case.alias, embedder="default"))
    try:
        yield case
    finally:
        case.purge()


def _documents(case: BackendCase, mode: str, **asked: object) -> tuple[str | None, list[str]]:
    result = Searcher(case.backend, case.alias, enforce_access=False).search(
        HOURLY, mode=mode, k=10, collapse=True, **asked
    )
    return result.amount_step, [h.doc_id for h in result.hits]


def test_the_vector_leg_keeps_only_the_hourly_amounts_near_its_best(
    services: BackendCase,
) -> None:
    # no label says "dog walkers": the per-unit step passes every hourly amount under $30
    # (the question's subject, "dog walkers", cuts nothing of what is measured here: off)
    step, every = _documents(services, "vector", vector_floor_per_unit=0, subject_cut=False)
    assert step == "per-unit"
    assert every[0] == "dog-walker" and set(every) == HOURLY_UNDER_30
    # the role-free step's share keeps the pet sitter too; the per-unit step's does not
    assert _documents(services, "vector", vector_floor_per_unit=0.8, subject_cut=False)[1][:2] == [
        "dog-walker",
        "pet-sitter",
    ]
    assert _documents(services, "vector") == ("per-unit", ["dog-walker"])
    assert _documents(services, "hybrid") == ("per-unit", ["dog-walker"])
