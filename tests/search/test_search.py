"""Search on both backends: the reference story, amount formats, currencies, fallback,
tenant and ACL isolation, literal query syntax, overlapping evidence.

Every test runs on OpenSearch and on the embedded index (``indexed`` and
``backend_case`` are parametrized); checks go through ``Searcher`` and the
``ChunkIndex`` interface.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from osrag.cli import app
from osrag.engines.base import ChunkIndex
from osrag.errors import QueryError
from osrag.extract import canonicalize_money
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import ChunkingConfig, QuerySpec, SearchHit, Span
from osrag.search.results import count_unique_spans
from osrag.search.searcher import Searcher

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"

THREE_HUNDRED_K = {
    "umb-300k-classic",
    "umb-300k-plus",
    "umb-300k-landlord",
    "umb-300k-cross-border",
}


class Indexed(NamedTuple):
    backend: ChunkIndex
    alias: str
    canonical_alias: str
    case: BackendCase


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    """The small insurance corpus, indexed twice: osrag's way and with canonical tokens."""
    case = open_case(request, request.param, tmp_path_factory.mktemp("search"))
    backend, alias = case.backend, case.alias
    ingest(DATA, backend, IngestOptions(alias=alias))
    canonical_alias = f"{alias}-canonical"
    ingest(DATA, backend, IngestOptions(alias=canonical_alias, canonical_tokens=True))
    yield Indexed(backend, alias, canonical_alias, case)
    case.purge(alias)
    case.purge(canonical_alias)


def _docs(result) -> list[str]:  # type: ignore[no-untyped-def]
    seen: dict[str, None] = {}
    for hit in result.hits:
        seen.setdefault(hit.doc_id, None)
    return list(seen)


def test_reference_story_canonical_tokens_rank_the_3m_policy_the_filter_never_does(
    indexed: Indexed,
) -> None:
    backend, alias, canonical_alias, _ = indexed
    question = "What coverage does the $300,000 umbrella policy provide?"
    canonical = Searcher(backend, canonical_alias, enforce_access=False).search(
        canonicalize_money(question), amount_filter=False, k=10
    )
    ranked = _docs(canonical)
    # a hint, not a constraint: the ten-times policy still ranks, and money:30000000
    # has lost its currency, so the euro policy ranks among the first five
    assert "umb-3m-classic" in ranked
    assert "umb-eur-300k" in ranked[:5]

    filtered = Searcher(backend, alias, enforce_access=False).search(question, k=50)
    assert filtered.amount_status == "one" and not filtered.fallback
    assert set(_docs(filtered)) == THREE_HUNDRED_K  # at any depth: never the $3M or € policy
    assert all(30_000_000 in h.amounts for h in filtered.hits)


@pytest.mark.parametrize("stated", ["$300K", "$0.3M", "$300,000", "USD 300,000", "300,000 dollars"])
def test_every_format_of_300k_returns_the_same_set(indexed: Indexed, stated: str) -> None:
    backend, alias, _, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search(f"umbrella {stated}", k=50)
    assert set(_docs(result)) == THREE_HUNDRED_K
    assert [f.name for f in result.filters_applied] == ["amount"]
    assert result.candidate_count >= len(THREE_HUNDRED_K)


def test_30k_does_not_return_300k_documents(indexed: Indexed) -> None:
    backend, alias, _, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search("renters $30,000", k=50)
    assert set(_docs(result)) == {"renters-30k"}


def test_euro_amount_does_not_return_dollar_documents(
    indexed: Indexed,
) -> None:
    backend, alias, _, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search("umbrella €300,000", k=50)
    assert set(_docs(result)) == {"umb-eur-300k"}


def test_an_amount_nobody_wrote_falls_back_and_says_so(
    indexed: Indexed,
) -> None:
    backend, alias, _, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search("$123,456 umbrella", k=10)
    assert result.fallback is True
    assert [f.name for f in result.filters_applied] == []
    assert result.hits  # plain BM25 still answers
    assert result.candidate_count > 0


def test_two_amounts_no_chunk_holds_together_fall_back_together(indexed: Indexed) -> None:
    backend, alias, _, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search(
        "compare the $300,000 and $3,000,000 umbrellas", k=50
    )
    assert result.amount_status == "several" and len(result.constraints) == 2
    assert result.fallback and result.amount_candidates == 0
    assert result.filters_applied == []
    assert {"umb-3m-classic"} | THREE_HUNDRED_K <= set(_docs(result))


def test_a_multi_tenant_alias_refuses_a_search_without_tenant(
    indexed: Indexed,
) -> None:
    backend, alias, _, _ = indexed
    with pytest.raises(QueryError, match="several tenants: pass a tenant"):
        Searcher(backend, alias).search("umbrella")


def test_fallback_never_drops_the_tenant(indexed: Indexed) -> None:
    backend, alias, _, _ = indexed
    # €300,000 exists only for globex: for acme the amount filter is empty and falls back,
    # but the tenant filter stays.
    result = Searcher(backend, alias).search("umbrella €300,000", tenant="acme", acl=["agents"])
    assert result.fallback
    assert [f.name for f in result.filters_applied] == ["tenant", "acl"]
    assert result.hits and all(h.doc_id != "umb-eur-300k" for h in result.hits)


TENANT_DOCS = {"acme", "globex"}
WORDS = [
    "umbrella",
    "limit",
    "claims",
    "home",
    "renters",
    "tower",
    "coverage",
    "$300,000",
    "€300,000",
    "deductible",
]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tenant=st.sampled_from(sorted(TENANT_DOCS)),
    groups=st.lists(st.sampled_from(["agents", "underwriters", "nobody"]), max_size=2),
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
)
def test_no_hit_ever_comes_from_another_tenant_or_a_group_the_caller_lacks(
    indexed: Indexed, tenant: str, groups: list[str], words: list[str]
) -> None:
    backend, alias, _, case = indexed
    result = Searcher(backend, alias).search(" ".join(words), tenant=tenant, acl=groups, k=50)
    for hit in result.hits:
        source = case.source(alias, hit.chunk_id)
        assert source["tenant"] == tenant
        assert not source["acl"] or set(source["acl"]) & set(groups)


@pytest.mark.parametrize(
    "text",
    [
        '"umbrella',
        "limit:300000",
        "umb*",
        "(claims",
        "umbrella AND NOT home",
        "C:\\path\\",
        "a OR",
        "/regex/",
        "~",
    ],
)
def test_query_syntax_is_searched_literally_and_never_errors(indexed: Indexed, text: str) -> None:
    backend, alias, _, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search(text)
    assert result.query == text


def test_overlapping_fixed_windows_are_not_independent_evidence(
    backend_case: BackendCase,
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    options = IngestOptions(
        alias=alias, chunking=ChunkingConfig(strategy="fixed", size=30, overlap=15)
    )
    ingest(DATA, backend, options)
    result = Searcher(backend, alias, enforce_access=False).search(
        QuerySpec(text="umbrella limit occurrence defense costs", k=40, amount_filter=False)
    )
    assert result.raw_hits > result.unique_spans
    flagged = [h for h in result.hits if h.overlaps]
    assert flagged
    by_id = {h.chunk_id: h for h in result.hits}
    for hit in flagged:
        for other in hit.overlaps:
            assert by_id[other].doc_id == hit.doc_id and by_id[other].span.overlaps(hit.span)


def test_search_cli_json_has_the_documented_shape(indexed: Indexed) -> None:
    alias = indexed.alias
    args, env = indexed.case.cli()
    result = CliRunner().invoke(
        app,
        [
            "search",
            "umbrella $300K",
            "--alias",
            alias,
            "--tenant",
            "acme",
            "--acl",
            "agents",
            "--json",
            *args,
        ],
        env=env,
    )
    assert result.exit_code == 0, result.output
    import json

    payload = json.loads(result.output)
    assert {"hits", "filters_applied", "candidate_count", "fallback"} <= set(payload)
    assert {"doc_id", "chunk_id", "score", "amounts"} <= set(payload["hits"][0])
    assert {h["doc_id"] for h in payload["hits"]} <= THREE_HUNDRED_K


def test_search_cli_without_tenant_on_a_multi_tenant_alias_is_a_clear_error(
    indexed: Indexed,
) -> None:
    args, env = indexed.case.cli()
    result = CliRunner().invoke(
        app, ["search", "umbrella", "--alias", indexed.alias, *args], env=env
    )
    assert result.exit_code != 0


def test_hits_carry_highlighted_fragments_of_the_body(indexed: Indexed) -> None:
    result = Searcher(indexed.backend, indexed.alias, enforce_access=False).search(
        "lead paint exclusion", amount_filter=False, k=3
    )
    assert result.hits
    top = result.hits[0]
    assert top.highlight, "the match is on `text`, the fragments come from `body`"
    marked = " ".join(top.highlight).lower()
    assert "«" in marked and "»" in marked
    assert any(word in marked for word in ("«lead»", "«paint»", "«exclusion»"))


def _hit_at(doc_id: str, start: int, end: int) -> SearchHit:
    return SearchHit(
        chunk_id=f"{doc_id}#{start}#x", doc_id=doc_id, score=1.0, span=Span(start, end)
    )


@pytest.mark.parametrize(
    ("spans", "unique"),
    [
        ([("a", 0, 10), ("a", 10, 20)], 2),  # touching: two pieces of evidence
        ([("a", 0, 10), ("a", 5, 20)], 1),  # overlapping: one
        ([("a", 0, 10), ("b", 0, 10)], 2),  # the same interval of another document
        ([("a", 0, 30), ("a", 5, 10), ("a", 30, 40)], 2),  # contained, then touching
        ([("a", 20, 30), ("a", 0, 10), ("a", 9, 21)], 1),  # out of order, chained
        ([], 0),
    ],
)
def test_unique_spans_merge_overlaps_only_within_a_document(
    spans: list[tuple[str, int, int]], unique: int
) -> None:
    assert count_unique_spans([_hit_at(*s) for s in spans]) == unique
