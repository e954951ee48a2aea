"""What ``osrag search`` and ``osrag index status`` print is for a person to read.

On the example corpus, ingested with vectors into an embedded index, at a narrow (60
columns) and a wide (160) terminal: a document id is never cut; a notice (no cluster
URL set) is on stderr before the results; counts take their plural only when they are
more than one; ``index status`` is a table of words, never a Python ``repr``, and
``--json`` is the library's model; ``--explain`` is a few lines — the constraints read,
the amount ladder, one line per leg with its filters — and ``--explain-json`` adds the
request bodies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from osrag.cli import app
from osrag.cli.common import err, out

NARROW, WIDE = 60, 160
ACCESS = ["--tenant", "acme", "--acl", "agents"]
NOTICE = "no cluster URL set; using the embedded index in .osrag"


@pytest.fixture(scope="module")
def corpus(workspaces: Any) -> tuple[Path, dict[str, str]]:
    """The example corpus ingested with vectors, and the environment to search it with."""
    folder, cache = workspaces.folder("vectors")
    return folder, workspaces.environment(cache)


@pytest.fixture
def osrag(corpus: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``osrag(*args, width=…)``: the command run in this process (typer's CliRunner) in
    the corpus's folder, both consoles as wide as a terminal of ``width`` columns."""
    folder, env = corpus
    monkeypatch.chdir(folder)

    def run(*args: str, width: int = WIDE) -> Result:
        for console in (out, err):
            monkeypatch.setattr(console, "_width", width)
        return CliRunner().invoke(app, list(args), env=env)

    yield run


def _hits(osrag: Any, query: str, *flags: str) -> list[str]:
    shown = osrag("search", query, *ACCESS, *flags, "--json")
    assert shown.exit_code == 0, shown.output
    return [hit["doc_id"] for hit in json.loads(shown.stdout)["hits"]]


@pytest.mark.parametrize("width", [NARROW, WIDE])
def test_a_document_id_is_never_cut(osrag: Any, width: int) -> None:
    query = "What coverage does the $300,000 umbrella policy provide?"
    ids = _hits(osrag, query, "--k", "5")
    assert "umbrella-300k-cross-border" in ids  # the longest id of the corpus
    shown = osrag("search", query, *ACCESS, "--k", "5", width=width)
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert all(len(line.rstrip()) <= width for line in lines)
    for rank, doc_id in enumerate(ids, 1):
        # each hit's id whole, on the line that starts with its rank
        assert any(re.match(rf"{rank}\s+{re.escape(doc_id)}\b", line) for line in lines), (
            shown.stdout
        )


def test_a_wide_terminal_gets_a_row_per_hit_and_a_narrow_one_a_few_lines_each(
    osrag: Any,
) -> None:
    wide = osrag("search", "deductible under $1,000", *ACCESS, "--k", "3", width=WIDE)
    header = wide.stdout.splitlines()[0].split()
    assert header == ["#", "doc", "breadcrumb", "score", "amounts"]
    assert [line[:1] for line in wide.stdout.splitlines()[1:]] == ["1", "2", "3"]
    narrow = osrag("search", "deductible under $1,000", *ACCESS, "--k", "3", width=NARROW)
    lines = narrow.stdout.splitlines()
    assert lines[0].split() == ["#", "doc", "·", "score,", "breadcrumb,", "amounts"]
    first = lines[1:4]
    assert re.match(r"1\s+\S+ · \d\.\d\d$", first[0].rstrip()), narrow.stdout
    assert "›" in first[1] and first[2].strip().startswith("USD ")  # breadcrumb, amounts
    # an amount is never split across lines
    assert not any(line.rstrip().endswith("USD") for line in lines)


def test_the_notice_is_on_stderr_before_the_results(osrag: Any) -> None:
    shown = osrag("search", "deductible under $1,000", *ACCESS, "--k", "2", "--explain")
    assert shown.exit_code == 0, shown.output
    assert NOTICE in shown.stderr and NOTICE not in shown.stdout
    order = shown.output  # stdout and stderr in the order written
    places = [
        order.index(NOTICE),
        order.index("query: 1 amount constraint"),
        order.index("amount ladder"),
        order.index("legs (step bound"),
        order.index(" · 2 hits (2 unique spans) · "),
        order.index("auto-standard-2024"),
    ]
    assert places == sorted(places), order


def test_counts_take_the_plural_only_above_one(osrag: Any) -> None:
    one = osrag("search", "premium of $450", *ACCESS, "--k", "5", "--mode", "bm25")
    assert one.exit_code == 0, one.output
    summary = " ".join(one.stderr.split())
    assert " · 1 candidate · 1 hit (1 unique span) · " in summary, summary
    many = osrag("search", "umbrella $300K", *ACCESS, "--k", "3", "--mode", "bm25")
    summary = " ".join(many.stderr.split())
    assert " · 10 candidates · 3 hits (3 unique spans) · " in summary, summary
    explained = osrag("search", "premium of $450", *ACCESS, "--mode", "bm25", "--explain")
    assert "bound      1 candidate  ← answered" in explained.stderr


@pytest.mark.parametrize("width", [NARROW, WIDE])
def test_index_status_is_a_table_of_words(osrag: Any, width: int) -> None:
    shown = osrag("index", "status", width=width)
    assert shown.exit_code == 0, shown.output
    assert NOTICE in shown.stderr and NOTICE not in shown.stdout
    text = shown.stdout
    assert all(len(line.rstrip()) <= width for line in text.splitlines())
    assert not re.search(r"[{}]|': '|\bTrue\b|\bFalse\b", text), text  # no Python repr
    rows = [line.split()[0] for line in text.splitlines() if line[:1].strip()]
    assert rows[:6] == ["alias", "documents", "chunks", "updated", "tenants", "acl"]
    assert {"chunking", "embedder", "analyzer", "versions", "lock"} <= set(rows)
    model = json.loads(osrag("index", "status", "--json").stdout)
    record = model["generation"]
    flat = " ".join(text.split())
    assert f"osrag-chunks → {record['name']} (ready)" in flat
    assert f"{record['chunks']} in the manifest, {model['chunks_in_index']} in the index" in flat
    assert "tenants acme, globex" in flat and "lock free" in flat
    assert "strategy structural · tokenizer minilm-wordpiece · size 200" in flat
    solid = "".join(text.split())  # a value longer than its column folds onto the next line
    for key, value in record["versions"].items():
        assert f"{key}{value}" in solid


def test_explain_says_what_was_read_and_sent_in_a_few_lines(osrag: Any) -> None:
    shown = osrag("search", "deductible under $1,000", *ACCESS, "--explain")
    assert shown.exit_code == 0, shown.output
    explained = shown.stderr.split("hybrid (client:rrf) · ")[0]
    assert len(explained.splitlines()) < 20
    flat = " ".join(explained.split())
    assert (
        "query: 1 amount constraint 'under $1,000' → deductible < USD 1,000.00 · bound to "
        "label 'deductible'"
    ) in flat
    assert (
        "bound 5 candidates ← answered asked: deductible < USD 1,000.00: label keys "
        "{deductible, deductible amount} ('deductible' is a quantity of the insurance "
        "profile, also named {deductible amount}) role-free not needed none not needed"
    ) in flat
    assert (
        'bm25 match "deductible" (the words rank; the bound filter chooses) · amount '
        "facts[label_keys∈{deductible, deductible amount}, magnitude<100000 "
        "(all of a range), "
        "currency=USD, scope∈{line_item, own}, (period_part=full or (period_part∈{y1, y2, "
        "y3, y4, y5, "
        "y6, y7, y8, y9, y10}, period_unit exists))] · tenant=acme · acl∈{agents} or no acl"
    ) in flat
    assert 'vector 10 nearest to the embedding of "deductible" (384 dimensions)' in flat
    assert "fusion rrf in the client (rank constant 60)" in flat
    assert '"nested"' not in shown.stderr  # the bodies are --explain-json's
    as_json = osrag("search", "deductible under $1,000", *ACCESS, "--explain", "--json")
    assert json.loads(as_json.stdout)["amount_step"] == "bound"  # stdout: the model alone


def test_explain_shows_each_step_the_ladder_tried(osrag: Any) -> None:
    query = "umbrella with a $500 deductible and a $3,000,000 limit"
    shown = osrag("search", query, *ACCESS, "--mode", "bm25", "--explain")
    assert shown.exit_code == 0, shown.output
    flat = " ".join(shown.stderr.split())
    assert "query: 2 amount constraints" in flat
    assert re.search(r"bound 0 candidates asked: .*? role-free 0 candidates asked: .*? none ", flat)
    assert re.search(r"none \d+ candidates ← answered", flat), flat
    assert "legs (step none, up to 10 hits):" in flat
    assert "boost amounts=50000 · boost amounts=300000000 · tenant=acme" in flat
    role_free = osrag("search", "umbrella $300K", *ACCESS, "--mode", "bm25", "--explain")
    flat = " ".join(role_free.stderr.split())
    assert "'$300K' → amount = USD 300,000.00 · role-free: " in flat
    # the words choose at the role-free step: the lexical leg's floor is said
    assert (
        'bm25 match "umbrella" · the hits scoring at least 0.3 of its best · '
        "amounts=30000000 · tenant=acme"
    ) in flat


def test_explain_json_adds_the_request_of_the_step_that_answered(osrag: Any) -> None:
    flags = [*ACCESS, "--k", "2", "--explain-json"]
    shown = osrag("search", "umbrella $300K", *flags, "--mode", "bm25")
    assert shown.exit_code == 0, shown.output
    compact, bodies = shown.stderr.split("the role-free step's request, as OpenSearch DSL:\n")
    assert "legs (step role-free" in compact
    sent = json.loads(bodies.split("\nbm25 · ")[0])
    assert sent[0]["query"]["bool"]["filter"][0] == {"term": {"amounts": 30000000}}
    hybrid = osrag("search", "umbrella $300K", *flags, "--mode", "hybrid")
    assert re.search(r'"vector": \[-?\d\.\d+, … 384 numbers\]', hybrid.stderr)
