"""A value that cannot be read is one document's error, never the ingest's.

Front matter with an impossible date or time, an integer of 5,000 digits, a value that
contains itself; a ``.jsonl`` line with a 5,000-digit integer, 100,000-deep nesting or
a lone surrogate; a document whose chunking fails: each is reported naming the file and
the line, ``osrag ingest`` and ``osrag chunks`` exit 3, the rest of the corpus goes in
and the document's previous version stays searchable — on the embedded engine and on
OpenSearch, with one process and with a pool of two. A hypothesis test feeds generated
hostile YAML and JSON values through the loaders: nothing escapes a document.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, open_case
from clirun import osrag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osrag.errors import QueryError
from osrag.ingestion.plan import plan_ingest
from osrag.loaders.corpus import load_file
from osrag.models import Chunk, Document, LoadIssue
from osrag.search.searcher import Searcher

DIGITS = "9" * 5000

FRONT_MATTER = {
    "day 30 of February": ("reviewed: 2024-02-30", 3),
    "month 13": ("effective_from: 2024-13-45", 3),
    "year 0": ("created: 0000-01-01", 3),
    "hour 25": ("updated: 2024-01-01 25:00:00", 3),
    "a 5,000-digit integer": (f"claims: {DIGITS}", 3),
    "a value that contains itself": ("links: &x [*x]", 3),
    "an alias bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        + "\n".join(
            f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]"
            for p, c in zip("bcdefgh", "cdefghi", strict=True)
        ),
        None,
    ),
}
"""Front-matter lines and the line of the file the error names (None: any line) that used
to stop the ingest (the alias bomb expands to 10⁹ values: it took memory until it did)."""


@pytest.fixture(params=[pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    alias = request.getfixturevalue("index_prefix") if request.param == "opensearch" else None
    case = open_case(request, request.param, tmp_path, alias)
    yield case
    if case.kind == "embedded":
        case.backend.close()  # type: ignore[attr-defined]


def _ingest(case: BackendCase, corpus: Path, *extra: str) -> Any:
    flags, env = case.cli()
    return osrag("ingest", str(corpus), *flags, "--alias", case.alias, "-q", *extra, env=env)


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error")]


def _bodies(case: BackendCase, text: str) -> list[str]:
    try:
        found = Searcher(case.backend, case.alias).search(text, k=50)
    except QueryError:
        return []
    return [hit.body for hit in found.hits]


def _corpus(tmp_path: Path, padding: int = 0) -> Path:
    """``ok.md``, ``rider.md`` and ``padding`` small files (enough of them start the pool)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ok.md").write_text("# Umbrella\n\nThe umbrella policy covers $300,000.\n")
    (corpus / "rider.md").write_text(
        "---\ntitle: Rider\n---\n# Rider\n\nThe flood rider pays $7,000.\n"
    )
    for n in range(padding):
        (corpus / f"p{n:03}.md").write_text(f"# Page {n}\n\nPage {n} of the handbook.\n")
    return corpus


def _edit(corpus: Path, bad_line: str) -> None:
    """The good file edited, the rider edited with a bad front-matter line, a file added."""
    (corpus / "ok.md").write_text("# Umbrella\n\nThe umbrella policy covers $500,000.\n")
    (corpus / "rider.md").write_text(
        f"---\ntitle: Rider\n{bad_line}\n---\n# Rider\n\nThe flood rider pays $9,000.\n"
    )
    (corpus / "new.md").write_text("# Boat\n\nThe boat policy covers $40,000.\n")


@pytest.mark.parametrize("case_name", list(FRONT_MATTER))
def test_an_unreadable_front_matter_value_is_that_documents_error(
    engine: BackendCase, tmp_path: Path, case_name: str
) -> None:
    bad_line, line = FRONT_MATTER[case_name]
    corpus = _corpus(tmp_path)
    assert _ingest(engine, corpus).returncode == 0
    _edit(corpus, bad_line)
    result = _ingest(engine, corpus)
    assert result.returncode == 3, result.stderr[-3000:]
    (error,) = _errors(result.stderr)
    assert f"rider.md:{line or ''}" in error, error
    assert "Traceback" not in result.stderr
    assert any("$500,000" in b for b in _bodies(engine, "umbrella policy"))  # edits went in
    assert any("$40,000" in b for b in _bodies(engine, "boat policy"))  # so did new files
    riders = _bodies(engine, "flood rider")
    assert any("$7,000" in b for b in riders) and not any("$9,000" in b for b in riders)


def test_a_bad_value_with_a_pool_of_two_is_one_documents_error(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path, padding=150)  # past the pool's start (32 tasks of 4 files)
    (corpus / "zz-late.md").write_text("---\ntitle: Late\n---\nThe late page.\n")
    assert _ingest(engine, corpus, "--workers", "2").returncode == 0
    _edit(corpus, "reviewed: 2024-02-30")
    (corpus / "zz-late.md").write_text(f"---\nclaims: {DIGITS}\n---\nThe late page, edited.\n")
    result = _ingest(engine, corpus, "--workers", "2")
    assert result.returncode == 3, result.stderr[-3000:]
    errors = _errors(result.stderr)
    assert len(errors) == 2 and "rider.md:3" in errors[0] and "zz-late.md:2" in errors[1]
    assert any("$40,000" in b for b in _bodies(engine, "boat policy"))
    assert any(b.startswith("The late page.") for b in _bodies(engine, "late page"))


def test_osrag_chunks_reports_a_bad_value_and_exits_3(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    _edit(corpus, "effective_from: 2024-13-45")
    result = osrag("chunks", str(corpus))
    assert result.returncode == 3, result.stderr[-3000:]
    assert "rider.md:3" in result.stdout and "1 load errors" in result.stdout
    assert "Traceback" not in result.stderr


JSONL_LINES = {
    "a 5,000-digit integer": '{"id": "big", "text": "Big.", "claims": ' + DIGITS + "}",
    "100,000-deep nesting": '{"id": "deep", "text": "Deep.", "tree": '
    + "[" * 100_000
    + "]" * 100_000
    + "}",
    "a lone surrogate": '{"id": "half", "text": "Half \\ud800 a character."}',
}


def test_a_bad_jsonl_line_is_that_lines_error(engine: BackendCase, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    good = [json.dumps({"id": f"r{n}", "text": f"Row {n} covers the cellar."}) for n in range(3)]
    lines = [good[0], *JSONL_LINES.values(), good[1], good[2]]
    (corpus / "rows.jsonl").write_text("\n".join(lines) + "\n")
    result = _ingest(engine, corpus)
    assert result.returncode == 3, result.stderr[-3000:]
    errors = _errors(result.stderr)
    assert [e.split(":")[1] for e in errors] == ["2", "3", "4"], errors
    assert "Traceback" not in result.stderr
    assert len(_bodies(engine, "cellar")) == 3


def test_a_document_whose_chunking_fails_is_reported_and_the_rest_go_in() -> None:
    docs = [
        Document(doc_id=name, source_path=f"{name}.md", source_version=name, title="", text=name)
        for name in ("a", "b", "c")
    ]

    def prepare(items: Any) -> Iterator[tuple[Document, list[Chunk] | LoadIssue]]:
        from osrag.ingestion.pipeline import prepared

        for doc in items:
            yield doc, prepared(doc, lambda d: [] if d.doc_id != "b" else 1 / 0)

    changes = list(plan_ingest(docs, {}, prepare))
    assert [(c.kind, c.doc_id) for c in changes] == [("add", "a"), ("failed", "b.md"), ("add", "c")]
    issue = changes[1].issue
    assert issue is not None and "ZeroDivisionError" in issue.reason


# ---------------------------------------------------------------- generated hostile values

_SCALARS = st.one_of(
    st.sampled_from(
        [
            "2024-02-30", "2024-13-45", "0000-01-01", "2024-01-01 25:00:00",
            "2024-01-01T10:00:00+99:00", DIGITS, "0x" + "f" * 5000, "-" + DIGITS,
            ".nan", ".inf", "-.inf", "1e999999", "!!binary AAAA", "!!set {a, b}",
            "!!python/object:os.system x", "~", "''", "' '", "yes", "no", "on", "null",
            "!!timestamp 2024-02-30", "!!int x", "!!float y", "[" * 50 + "]" * 50,
            "{" * 2000, "*undefined", "&a [*a]", "!!str", "12:30:45", "1:" + "2" * 5000,
            "\"\\ud800\"", "\"\\x00\"", "'\x1b[2J'", "|\n  block", ">-\n  folded",
        ]
    ),
    st.text(max_size=20),
    st.integers(),
    st.floats(),
)  # fmt: skip
_KEYS = st.sampled_from(
    ["title", "id", "tenant", "acl", "effective_from", "superseded_on", "category",
     "reviewed", "meta", "Tenant", "Effective_From", "x"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(_KEYS, _SCALARS), min_size=1, max_size=4))
def test_no_generated_front_matter_escapes_its_document(pairs: list[tuple[str, Any]]) -> None:
    lines = [f"{key}: {value}" for key, value in pairs]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.md"
        path.write_text("---\n" + "\n".join(lines) + "\n---\nBody $300.\n", errors="surrogatepass")
        _loaded_and_prepared(path)


def test_a_front_matter_number_too_long_to_write_is_a_clear_error() -> None:
    # YAML reads 0x followed by 4,000 f's as an integer of 16,000 bits: more digits than
    # Python writes; the document is refused naming the key, the next one still loads
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.md"
        path.write_text("---\nreviewed: 0x" + "f" * 4000 + "\n---\nBody $300.\n")
        (issue,) = _loaded_and_prepared(path)
    assert isinstance(issue, LoadIssue) and "'reviewed'" in issue.reason
    assert "too long" in issue.reason


_JSON = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.floats(), st.text(max_size=10),
        st.integers(min_value=-(10**30), max_value=10**30),
    ),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip
_RAW_JSON = st.sampled_from(
    [DIGITS, "[" * 100_000 + "]" * 100_000, '"\\ud800"', '"\\udfff x"', "NaN", "-Infinity",
     "1e999999", '{"a": ' * 3000 + "1" + "}" * 3000, "tru", '"\\u0000"']
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fields=st.dictionaries(_KEYS, _JSON, max_size=4),
    raw=st.lists(st.tuples(_KEYS, _RAW_JSON), max_size=2),
)
def test_no_generated_jsonl_value_escapes_its_line(
    fields: dict[str, Any], raw: list[tuple[str, str]]
) -> None:
    body = json.dumps({"id": "r1", "text": "Row $300.", **fields})[:-1]
    body += "".join(f", {json.dumps(key)}: {value}" for key, value in raw) + "}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        path.write_text(body + "\n" + json.dumps({"id": "r2", "text": "Next."}) + "\n")
        items = _loaded_and_prepared(path)
    assert len(items) == 2 and isinstance(items[1], Document)


def _loaded_and_prepared(path: Path) -> list[Document | LoadIssue]:
    """Load ``path``; every document chunks and its chunks serialise as the engines get them."""
    from osrag.chunking.records import chunk_source, metadata_digest
    from osrag.ingestion.pipeline import prepare_chunks
    from osrag.models import ChunkingConfig

    items = list(load_file(path))
    for item in items:
        if isinstance(item, LoadIssue):
            assert item.line is not None and item.reason
            continue
        metadata_digest(item)
        for chunk in prepare_chunks(item, ChunkingConfig()):
            json.dumps(chunk_source(chunk), default=str).encode("utf-8")  # as the engines do
        for value in (item.tenant, *(item.acl or [])):
            assert value is None or (isinstance(value, str) and value.strip() == value != "")
    return items
