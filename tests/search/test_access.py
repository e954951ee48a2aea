"""Access control fails closed on every engine, whatever the index held when a searcher started.

A long-lived :class:`~osrag.search.searcher.Searcher` (the README's own pattern) keeps
answering while ingests add documents with tenants and ACLs. No document may
ever be visible outside its scope: a caller without a tenant never sees a
tenant's document, a caller never sees an ACL'd document unless it names one
of the caller's groups — from the first search after the ingest, not after a
cache expires.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from backend_cases import BackendCase
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from osrag.cli import app
from osrag.errors import QueryError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.searcher import Searcher

SCOPES: dict[str, tuple[str | None, list[str]]] = {
    "public": (None, []),
    "hr-only": (None, ["hr"]),
    "acme": ("acme", []),
    "acme-hr": ("acme", ["hr"]),
    "globex": ("globex", []),
}
CALLERS: list[tuple[str | None, list[str] | None]] = [
    (None, None),
    (None, []),
    (None, ["agents"]),
    (None, ["hr"]),
    ("acme", None),
    ("acme", ["hr"]),
    ("globex", ["agents"]),
]


def _write(corpus: Path, name: str, scope: str) -> None:
    tenant, acl = SCOPES[scope]
    front = []
    if tenant:
        front.append(f"tenant: {tenant}")
    if acl:
        front.append(f"acl: [{', '.join(acl)}]")
    head = "---\n" + "\n".join(front) + "\n---\n" if front else ""
    body = f"# Umbrella {name}\n\nThe umbrella policy {name} covers claims up to $300,000.\n"
    (corpus / f"{name}.md").write_text(head + body)


def _assert_in_scope(
    case: BackendCase, hits: list[str], tenant: str | None, groups: list[str] | None
) -> None:
    for chunk_id in hits:
        source = case.source(case.alias, chunk_id)
        assert source.get("tenant") == tenant, f"{chunk_id} of tenant {source.get('tenant')}"
        acl = source.get("acl") or []
        assert not acl or set(acl) & set(groups or []), f"{chunk_id} (acl {acl}) leaked"


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("ingest"), st.sampled_from(sorted(SCOPES))),
            st.tuples(st.just("search"), st.integers(0, len(CALLERS) - 1)),
        ),
        min_size=2,
        max_size=7,
    )
)
def test_a_long_lived_searcher_never_shows_a_document_outside_its_scope(
    backend_case: BackendCase, tmp_path_factory: pytest.TempPathFactory, steps: list
) -> None:
    corpus = tmp_path_factory.mktemp("access")
    _write(corpus, "seed", "public")
    alias = f"{backend_case.alias}-{next(_examples)}"
    case = BackendCase(
        backend_case.kind, backend_case.backend, alias, backend_case.url, backend_case.home
    )
    ingest(corpus, case.backend, IngestOptions(alias=alias))
    searcher = Searcher(case.backend, alias)  # lives across every ingest below
    try:
        for n, (action, arg) in enumerate(steps):
            if action == "ingest":
                _write(corpus, f"doc{n}", arg)
                ingest(corpus, case.backend, IngestOptions(alias=alias))
                continue
            tenant, groups = CALLERS[arg]
            try:
                result = searcher.search("umbrella policy claims", tenant=tenant, acl=groups)
            except QueryError:
                continue  # refusing is failing closed
            _assert_in_scope(case, [h.chunk_id for h in result.hits], tenant, groups)
            assert {f.name for f in result.filters_applied} >= {"tenant", "acl"}
    finally:
        case.purge(alias)


_examples = itertools.count()


def test_a_restricted_document_added_after_the_searcher_started_is_guarded_at_once(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _write(corpus, "open", "public")
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    searcher = Searcher(backend_case.backend, backend_case.alias)
    assert {h.doc_id for h in searcher.search("umbrella").hits} == {"open"}
    _write(corpus, "hr-secret", "hr-only")
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    # the same searcher, straight away: the ACL'd document is not visible to a caller
    # without the group, and is to one with it
    result = searcher.search("umbrella")
    assert {h.doc_id for h in result.hits} == {"open"}
    assert [f.name for f in result.filters_applied] == ["tenant", "acl"]
    assert "hr-secret" in {h.doc_id for h in searcher.search("umbrella", acl=["hr"]).hits}
    _write(corpus, "acme-secret", "acme")
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    # the alias now holds a tenant's documents: a caller without a tenant is refused at once
    with pytest.raises(QueryError, match="pass a tenant"):
        searcher.search("umbrella")
    assert {h.doc_id for h in searcher.search("umbrella", tenant="acme").hits} == {"acme-secret"}


def test_unclosed_front_matter_is_refused_and_keeps_the_previous_version(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    secret = corpus / "secret.md"
    secret.write_text("---\ntenant: acme\nacl: [hr]\n---\n# Salaries\n\nThe pay table.\n")
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    before = backend_case.chunk_ids(backend_case.alias, "secret")
    assert before
    # the closing line is lost in an edit: the metadata must not become public text
    secret.write_text("---\ntenant: acme\nacl: [hr]\n\n# Salaries\n\nThe new pay table.\n")
    args, env = backend_case.cli()
    result = CliRunner().invoke(
        app, ["ingest", str(corpus), "--alias", backend_case.alias, *args], env=env
    )
    assert result.exit_code == 3, result.output
    assert "secret.md:1" in result.output and "never closed" in result.output
    assert backend_case.chunk_ids(backend_case.alias, "secret") == before
    anonymous = Searcher(backend_case.backend, backend_case.alias, enforce_access=False)
    assert all("new pay" not in h.body for h in anonymous.search("pay table").hits)
