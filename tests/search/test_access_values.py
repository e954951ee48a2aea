"""An empty or mistyped access value never opens a document, on every entry point.

In a corpus: an empty ``acl`` (``[]``, nothing, ``['']``), an empty or blank ``tenant``,
a tenant YAML reads as a boolean or a number — each is an error naming the file and the
line (exit 3), and the document is visible to no one; a tenant with spaces around it is
stripped. Date keys are folded and near misses refused as the access keys are. From a
caller: a blank tenant is refused by the Searcher, the AsyncSearcher, ``build_query``,
the three retrievers and the CLI; the LlamaIndex retriever checks ``unrestricted`` on
every call; ``--tenant`` given twice is an error.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, open_case
from clirun import osrag

from osrag.errors import QueryError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.loaders.corpus import load_file
from osrag.models import Document, LoadIssue
from osrag.search.query import build_query
from osrag.search.searcher import Searcher

EMPTY_VALUES = {
    "acl: []": "acl",
    "acl:": "acl",
    "acl: ''": "acl",
    "acl: ['']": "acl",
    "acl: [' ', agents]": "acl",
    "tenant:": "tenant",
    "tenant: ''": "tenant",
    "tenant: '  '": "tenant",
    "tenant: yes": "tenant",
    "tenant: 42": "tenant",
    "tenant: 2024-01-01": "tenant",
    "acl: [1001]": "acl",
    "acl: {a: b}": "acl",
}
"""A front-matter line (on line 3 of its file) and the key its error names."""


@pytest.fixture(params=[pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    alias = request.getfixturevalue("index_prefix") if request.param == "opensearch" else None
    case = open_case(request, request.param, tmp_path, alias)
    yield case
    if case.kind == "embedded":
        case.backend.close()  # type: ignore[attr-defined]


def _visible(case: BackendCase, text: str, **scope: Any) -> list[str]:
    try:
        found = Searcher(case.backend, case.alias).search(text, k=50, **scope)
    except QueryError:
        return []
    return [hit.doc_id for hit in found.hits]


def test_an_empty_or_mistyped_access_value_is_an_error_and_the_document_stays_out(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "scoped.md").write_text("---\ntenant: acme\n---\nThe scoped cellar note.\n")
    names = {}
    for n, line in enumerate(EMPTY_VALUES):
        name = f"e{n:02}"
        names[name] = line
        (corpus / f"{name}.md").write_text(
            f"---\ntitle: E\n{line}\n---\nThe secret umbrella plan.\n"
        )
    (corpus / "rows.jsonl").write_text(
        "\n".join(
            json.dumps({"id": f"j{n}", "text": "The secret umbrella plan.", **fields})
            for n, fields in enumerate(
                [{"tenant": None}, {"acl": []}, {"tenant": True}, {"tenant": " "}, {"acl": None}]
            )
        )
        + "\n"
    )
    (corpus / "page.html").write_text(
        '<html><head><meta name="tenant" content=" "></head>'
        "<body><p>The secret umbrella plan.</p></body></html>"
    )
    flags, env = engine.cli()
    result = osrag("ingest", str(corpus), *flags, "--alias", engine.alias, "-q", env=env)
    assert result.returncode == 3, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error")]
    for name, line in names.items():
        (error,) = [e for e in errors if f" {name}.md:" in e]
        assert f"{name}.md:3:" in error and repr(EMPTY_VALUES[line]) in error, (line, error)
    assert sum("rows.jsonl:" in e for e in errors) == 5
    assert sum("page.html" in e for e in errors) == 1
    everyone = [(None, None), ("acme", None), ("acme", ["agents"]), ("x", ["agents"])]
    for tenant, acl in everyone:
        seen = _visible(engine, "secret umbrella plan", tenant=tenant, acl=acl)
        assert not seen, (tenant, acl, seen)
    assert _visible(engine, "scoped cellar note", tenant="acme") == ["scoped"]


def test_access_values_are_stripped(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text("---\ntenant: ' acme '\nacl: [' agents ', hr]\n---\nBody.\n")
    (doc,) = load_file(path)
    assert isinstance(doc, Document) and doc.tenant == "acme" and doc.acl == ["agents", "hr"]


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("Effective_From", "effective_from"),
        ("effectiveFrom", "effective_from"),
        (" effective-from ", "effective_from"),
        ("SUPERSEDED_ON", "superseded_on"),
        ("supersededOn", "superseded_on"),
    ],
)
def test_a_date_key_in_another_spelling_is_the_date_key(
    tmp_path: Path, key: str, expected: str
) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"---\n{json.dumps(key)}: 2030-01-01\n---\nBody.\n")
    (doc,) = load_file(path)
    assert isinstance(doc, Document) and getattr(doc, expected) == dt.date(2030, 1, 1)
    assert not doc.meta


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("effective_date", "effective_from"),
        ("effective", "effective_from"),
        ("EffectiveDate", "effective_from"),
        ("efective_from", "effective_from"),
        ("superseded", "superseded_on"),
        ("superseded_at", "superseded_on"),
        ("superseeded_on", "superseded_on"),
    ],
)
def test_a_date_key_near_miss_is_refused_naming_the_key_it_resembles(
    tmp_path: Path, key: str, meant: str
) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"---\ntitle: T\n{key}: 2030-01-01\n---\nBody.\n")
    (issue,) = load_file(path)
    assert isinstance(issue, LoadIssue) and issue.line == 3
    assert f"did you mean {meant!r}" in issue.reason


@pytest.mark.parametrize("line", ["effective_from:", "superseded_on: ''"])
def test_an_empty_date_is_refused(tmp_path: Path, line: str) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"---\n{line}\n---\nBody.\n")
    (issue,) = load_file(path)
    assert isinstance(issue, LoadIssue) and issue.line == 2 and "empty" in issue.reason


def test_a_capitalised_date_key_keeps_a_future_document_out_of_an_as_of_search(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "future.md").write_text("---\nEffective_From: 2030-01-01\n---\nThe future plan.\n")
    (corpus / "now.md").write_text("---\neffective_from: 2020-01-01\n---\nThe present plan.\n")
    assert not ingest(corpus, engine.backend, IngestOptions(alias=engine.alias)).errors
    assert _visible(engine, "plan", as_of=dt.date(2025, 6, 1)) == ["now"]
    assert sorted(_visible(engine, "plan", as_of=dt.date(2031, 6, 1))) == ["future", "now"]


# ---------------------------------------------------------------- callers


BLANKS = ["", " ", "\t"]


@pytest.fixture
def indexed(engine: BackendCase, tmp_path: Path) -> BackendCase:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "acme.md").write_text("---\ntenant: acme\n---\nThe acme umbrella plan.\n")
    (corpus / "open.md").write_text("The open umbrella plan.\n")
    assert not ingest(corpus, engine.backend, IngestOptions(alias=engine.alias)).errors
    return engine


@pytest.mark.parametrize("blank", BLANKS)
def test_a_blank_tenant_from_a_caller_is_refused_everywhere(
    indexed: BackendCase, blank: str
) -> None:
    from osrag.integrations import haystack, langchain, llama_index
    from osrag.search.async_searcher import AsyncSearcher

    searcher = Searcher(indexed.backend, indexed.alias)
    assert _visible(indexed, "umbrella plan", tenant=" acme ") == ["acme"]  # stripped
    with pytest.raises(QueryError, match="tenant"):
        searcher.search("umbrella plan", tenant=blank)
    with pytest.raises(QueryError, match="tenant"):
        build_query("umbrella plan", tenant=blank)
    with pytest.raises(QueryError, match="group"):
        searcher.search("umbrella plan", tenant="acme", acl=["agents", blank])
    asynchronous = AsyncSearcher(indexed.backend, indexed.alias)
    with pytest.raises(QueryError, match="tenant"):
        asyncio.run(asynchronous.search("umbrella plan", tenant=blank))
    retrievers = [
        lambda: langchain.OsragRetriever(searcher=searcher, tenant=blank).invoke("umbrella"),
        lambda: llama_index.OsragRetriever(searcher, tenant=blank).retrieve("umbrella"),
        lambda: haystack.OsragRetriever(searcher, tenant=blank).run("umbrella"),
    ]
    for retrieve in retrievers:
        with pytest.raises((QueryError, ValueError), match="tenant"):
            retrieve()


def test_the_cli_refuses_a_blank_tenant_and_a_repeated_one(indexed: BackendCase) -> None:
    flags, env = indexed.cli()
    alias = ["--alias", indexed.alias]
    blank = osrag("search", "umbrella plan", *flags, *alias, "--tenant", " ", env=env)
    assert blank.returncode == 8 and "tenant" in blank.stderr, blank.stderr
    twice = osrag(
        "search", "umbrella plan", *flags, *alias, "--tenant", "acme", "--tenant", "x", env=env
    )
    assert twice.returncode == 2 and "--tenant" in twice.stderr, twice.stderr
    once = osrag("search", "umbrella plan", *flags, *alias, "--tenant", "acme", "--json", env=env)
    assert once.returncode == 0 and [h["doc_id"] for h in json.loads(once.stdout)["hits"]] == [
        "acme"
    ]


def test_the_llama_index_retriever_checks_unrestricted_on_every_call(
    indexed: BackendCase,
) -> None:
    from osrag.integrations import llama_index

    retriever = llama_index.OsragRetriever(Searcher(indexed.backend, indexed.alias), tenant="acme")
    assert [n.node.metadata["doc_id"] for n in retriever.retrieve("umbrella plan")] == ["acme"]
    retriever.keywords["unrestricted"] = True
    retriever.search_options = {"unrestricted": True}
    with pytest.raises(ValueError, match="unrestricted"):
        retriever.retrieve("umbrella plan")
