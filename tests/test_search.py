"""Search against a real node: the reference story, amount formats, currencies, fallback,
tenant and ACL isolation, literal query syntax, overlapping evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opensearchpy import OpenSearch
from typer.testing import CliRunner

from osrag.backends.opensearch import OpenSearchBackend
from osrag.cli import app
from osrag.errors import QueryError
from osrag.extract import canonicalize_money
from osrag.index import IngestOptions, ingest
from osrag.models import ChunkingConfig, QuerySpec
from osrag.search import Searcher

DATA = Path(__file__).resolve().parent / "data" / "insurance"
pytestmark = pytest.mark.opensearch

THREE_HUNDRED_K = {
    "umb-300k-classic",
    "umb-300k-plus",
    "umb-300k-landlord",
    "umb-300k-cross-border",
}


@pytest.fixture(scope="module")
def indexed(os_client: OpenSearch) -> tuple[OpenSearchBackend, str, str]:
    """The small insurance corpus, indexed twice: osrag's way and with canonical tokens."""
    import uuid

    alias = f"osrag-test-search-{uuid.uuid4().hex[:8]}"
    backend = OpenSearchBackend(os_client)
    ingest(DATA, backend, IngestOptions(alias=alias))
    canonical_alias = f"{alias}-canonical"
    ingest(DATA, backend, IngestOptions(alias=canonical_alias, canonical_tokens=True))
    yield backend, alias, canonical_alias
    backend.purge_alias(alias)
    backend.purge_alias(canonical_alias)


def _docs(result) -> list[str]:  # type: ignore[no-untyped-def]
    seen: dict[str, None] = {}
    for hit in result.hits:
        seen.setdefault(hit.doc_id, None)
    return list(seen)


def test_reference_story_canonical_tokens_rank_the_3m_policy_the_filter_never_does(
    indexed: tuple[OpenSearchBackend, str, str],
) -> None:
    backend, alias, canonical_alias = indexed
    question = "What coverage does the $300,000 umbrella policy provide?"
    canonical = Searcher(backend, canonical_alias, enforce_access=False).search(
        canonicalize_money(question), amount_filter=False, size=10
    )
    ranked = _docs(canonical)
    # a hint, not a constraint: the ten-times policy still ranks, and money:30000000
    # has lost its currency, so the euro policy ranks among the first five
    assert "umb-3m-classic" in ranked
    assert "umb-eur-300k" in ranked[:5]

    filtered = Searcher(backend, alias, enforce_access=False).search(question, size=50)
    assert filtered.amount_status == "one" and not filtered.fallback
    assert set(_docs(filtered)) == THREE_HUNDRED_K  # at any depth: never the $3M or € policy
    assert all(30_000_000 in h.amounts for h in filtered.hits)


@pytest.mark.parametrize("stated", ["$300K", "$0.3M", "$300,000", "USD 300,000", "300,000 dollars"])
def test_every_format_of_300k_returns_the_same_set(
    indexed: tuple[OpenSearchBackend, str, str], stated: str
) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search(f"umbrella {stated}", size=50)
    assert set(_docs(result)) == THREE_HUNDRED_K
    assert [f.name for f in result.filters_applied] == ["amount"]
    assert result.candidate_count >= len(THREE_HUNDRED_K)


def test_30k_does_not_return_300k_documents(indexed: tuple[OpenSearchBackend, str, str]) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search("renters $30,000", size=50)
    assert set(_docs(result)) == {"renters-30k"}


def test_euro_amount_does_not_return_dollar_documents(
    indexed: tuple[OpenSearchBackend, str, str],
) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search("umbrella €300,000", size=50)
    assert set(_docs(result)) == {"umb-eur-300k"}


def test_an_amount_nobody_wrote_falls_back_and_says_so(
    indexed: tuple[OpenSearchBackend, str, str],
) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search("$123,456 umbrella", size=10)
    assert result.fallback is True
    assert [f.name for f in result.filters_applied] == []
    assert result.hits  # plain BM25 still answers
    assert result.candidate_count > 0


def test_two_amounts_apply_no_amount_filter(indexed: tuple[OpenSearchBackend, str, str]) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search(
        "compare the $300,000 and $3,000,000 umbrellas", size=50
    )
    assert result.amount_status == "ambiguous" and not result.fallback
    assert result.filters_applied == []
    assert {"umb-3m-classic"} | THREE_HUNDRED_K <= set(_docs(result))


def test_a_multi_tenant_alias_refuses_a_search_without_tenant(
    indexed: tuple[OpenSearchBackend, str, str],
) -> None:
    backend, alias, _ = indexed
    with pytest.raises(QueryError, match="multi-tenant"):
        Searcher(backend, alias).search("umbrella")


def test_fallback_never_drops_the_tenant(indexed: tuple[OpenSearchBackend, str, str]) -> None:
    backend, alias, _ = indexed
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
    indexed: tuple[OpenSearchBackend, str, str], tenant: str, groups: list[str], words: list[str]
) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias).search(" ".join(words), tenant=tenant, acl=groups, size=50)
    for hit in result.hits:
        source = backend.client.get(index=alias, id=hit.chunk_id)["_source"]
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
def test_query_syntax_is_searched_literally_and_never_errors(
    indexed: tuple[OpenSearchBackend, str, str], text: str
) -> None:
    backend, alias, _ = indexed
    result = Searcher(backend, alias, enforce_access=False).search(text)
    assert result.query == text


def test_overlapping_fixed_windows_are_not_independent_evidence(
    os_client: OpenSearch, index_prefix: str
) -> None:
    backend = OpenSearchBackend(os_client)
    options = IngestOptions(
        alias=index_prefix, chunking=ChunkingConfig(strategy="fixed", size=30, overlap=15)
    )
    ingest(DATA, backend, options)
    result = Searcher(backend, index_prefix, enforce_access=False).search(
        QuerySpec(text="umbrella limit occurrence defense costs", size=40, amount_filter=False)
    )
    assert result.raw_hits > result.unique_spans
    flagged = [h for h in result.hits if h.overlaps]
    assert flagged
    by_id = {h.chunk_id: h for h in result.hits}
    for hit in flagged:
        for other in hit.overlaps:
            assert by_id[other].doc_id == hit.doc_id and by_id[other].span.overlaps(hit.span)


def test_search_cli_json_has_the_documented_shape(
    indexed: tuple[OpenSearchBackend, str, str], opensearch_url: str
) -> None:
    _, alias, _ = indexed
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
        ],
        env={"OSRAG_URL": opensearch_url},
    )
    assert result.exit_code == 0, result.output
    import json

    payload = json.loads(result.output)
    assert {"hits", "filters_applied", "candidate_count", "fallback"} <= set(payload)
    assert {"doc_id", "chunk_id", "score", "amounts"} <= set(payload["hits"][0])
    assert {h["doc_id"] for h in payload["hits"]} <= THREE_HUNDRED_K


def test_search_cli_without_tenant_on_a_multi_tenant_alias_is_a_clear_error(
    indexed: tuple[OpenSearchBackend, str, str], opensearch_url: str
) -> None:
    _, alias, _ = indexed
    result = CliRunner().invoke(
        app, ["search", "umbrella", "--alias", alias], env={"OSRAG_URL": opensearch_url}
    )
    assert result.exit_code != 0
