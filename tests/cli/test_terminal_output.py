"""The terminal shows text, never control codes: every table cell and message of the CLI.

A corpus can name its files and headings anything: an escape sequence that clears the
screen or colours what follows, a bell, a C1 control (``\\x9b`` is a one-byte CSI), a
bidirectional override, Rich markup (``[bold red]x``), a newline that would draw a
forged row. The text output of ``osrag search``, ``osrag chunks`` and ``osrag ingest
--dry-run`` writes each as visible text on its own row; ``--json`` carries the values
exactly (JSON-escaped). On the embedded engine and on OpenSearch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from backend_cases import BackendCase, open_case
from clirun import osrag

CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What must never reach the terminal raw (a newline only where the CLI puts one)."""

NAMES = {
    "esc\x1b[2Jclear": "# [bold red]x umbrella\n\n## Bell\x07 and CSI\x9b31m umbrella\n\n"
    "The umbrella pays $300.\n",
    "x\nerror forged": "# Forged umbrella\n\nThe umbrella pays $400.\n",
    "rtl\u202eevil": '---\ntitle: "Title\\u001b]0;pwned\\u0007 umbrella"\n---\n'
    "The umbrella pays $500.\n",
}
"""File names (without .md) and their text: control codes and markup in names and headings."""


@pytest.fixture(params=[pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    alias = request.getfixturevalue("index_prefix") if request.param == "opensearch" else None
    case = open_case(request, request.param, tmp_path, alias)
    yield case
    if case.kind == "embedded":
        case.backend.close()  # type: ignore[attr-defined]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in NAMES.items():
        (folder / f"{name}.md").write_text(text)
    return folder


def _clean(output: str) -> None:
    found = CONTROL.search(output)
    assert found is None, f"raw {found.group()!r} at {found.start()}: {output[:2000]!r}"


def test_search_writes_every_cell_as_text_on_its_own_row(engine: BackendCase, corpus: Path) -> None:
    flags, env = engine.cli()
    alias = ["--alias", engine.alias]
    assert osrag("ingest", str(corpus), *flags, *alias, "-q", env=env).returncode == 0
    shown = osrag("search", "umbrella", *flags, *alias, env=env)
    assert shown.returncode == 0, shown.stderr
    _clean(shown.stdout)
    _clean(shown.stderr)
    rows = shown.stdout.strip("\n").splitlines()
    given = json.loads(osrag("search", "umbrella", *flags, *alias, "--json", env=env).stdout)
    hits = given["hits"]
    assert len(hits) == len(NAMES) and len(rows) == 1 + len(hits), shown.stdout
    assert {h["doc_id"] for h in hits} == set(NAMES)  # --json: the values, exactly
    assert any(h["breadcrumb"].startswith("[bold red]x") for h in hits)
    assert "[bold red]x umbrella" in shown.stdout  # markup shown as text
    assert "x\\nerror forged" in shown.stdout and "\\x1b[2J" in shown.stdout
    assert not any(row.startswith("error forged") for row in rows)
    passages = osrag("search", "umbrella", *flags, *alias, "--context", "section", env=env)
    assert passages.returncode == 0, passages.stderr
    _clean(passages.stdout)
    _clean(passages.stderr)
    assert "[bold red]x umbrella" in passages.stdout and "x\\nerror forged" in passages.stdout


def test_chunks_and_a_dry_run_write_names_and_headings_as_text(
    engine: BackendCase, corpus: Path
) -> None:
    chunks = osrag("chunks", str(corpus), "--strategy", "structural", "--all")
    assert chunks.returncode == 0, chunks.stderr
    _clean(chunks.stdout)
    assert "[bold red]x umbrella" in chunks.stdout and "\\x07" in chunks.stdout
    flags, env = engine.cli()
    dry = osrag("ingest", str(corpus), *flags, "--alias", engine.alias, "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    _clean(dry.stdout)
    _clean(dry.stderr)
    assert "x\\nerror forged" in dry.stdout


def test_an_error_message_holding_control_codes_is_one_line_of_text(tmp_path: Path) -> None:
    folder = tmp_path / "bad\x1b[31m\nerror: forged"
    result = osrag(
        "ingest", str(folder), "--backend", "embedded", env={"OSRAG_HOME": str(tmp_path)}
    )
    assert result.returncode == 3, result.stderr
    _clean(result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error:")
