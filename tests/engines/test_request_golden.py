"""The request bodies osrag sends are the ones recorded in ``tests/golden/request_bodies.json``
(see :mod:`request_golden`): every query spec of the fixed set, through
:func:`osrag.build_query` and through each REST engine's ``_msearch`` lines (OpenSearch
with and without its fusion pipeline, Elasticsearch), with and without the amount
fallback (and at the role-free step where a constraint is bound); and the requests beside
them (a caller's ``bool``, the tenant probe, the fusion pipelines)."""

from __future__ import annotations

import json

import pytest
from request_golden import CASES, FIXTURE, case_bodies, extras

GOLDEN = json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_golden_covers_every_case() -> None:
    assert sorted(GOLDEN["cases"]) == sorted(CASES)
    text = FIXTURE.read_text(encoding="utf-8")
    for shape in (
        '"hybrid": {"queries"',
        '"retriever": {"rrf"',
        '"knn": {"vector"',
        '"num_candidates"',
        '"collapse"',
        '"search_pipeline"',
        '"dfs_query_then_fetch"',
        '"money"',
        '"error"',
        '"nested": {"path": "facts"',
        '"facts.value"',
        '"build_role_free"',
    ):
        assert shape in text, f"no case sends {shape}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_request_is_the_golden_one(name: str) -> None:
    assert case_bodies(CASES[name]) == GOLDEN["cases"][name]


def test_the_requests_beside_a_spec_are_the_golden_ones() -> None:
    assert extras() == {k: v for k, v in GOLDEN.items() if k != "cases"}
