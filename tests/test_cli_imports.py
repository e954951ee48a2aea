"""A command imports what it needs: what ``osrag search`` and its neighbours load, pinned.

Each case runs the real command in a new process (the CLI's ``app``, as the
``osrag`` script does) on an embedded index of the sample policies, then lists the
modules that process imported. A search must not import the local-engine manager
(``osrag.node``), the evaluation, the framework integrations or the cluster clients;
with the default embedder's graph stored, not ``onnx`` either (the graph is read,
not built); a preview of a Markdown file must not import the PDF, DOCX or HTML
loaders.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "insurance"

RUN_AND_LIST = """
import json, sys
from osrag.cli import app
try:
    app(sys.argv[2:], standalone_mode=False, prog_name="osrag")
except SystemExit as exc:
    if exc.code:
        raise
with open(sys.argv[1], "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""

NEVER_FOR_A_SEARCH = ("osrag.node", "osrag.evaluation", "osrag.integrations")
CLUSTER_CLIENTS = ("opensearchpy", "elasticsearch", "aiohttp")


def imported_by(args: list[str], *, cwd: Path, env: dict[str, str], out: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(out), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(out.read_text(encoding="utf-8")))


def loaded(modules: set[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(package + "."))


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A working folder holding the sample policies in the embedded index, with vectors
    (the default embedder, so its graph is stored), and the environment to use it."""
    work = tmp_path_factory.mktemp("cli-imports")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    env |= {"OSRAG_CACHE_DIR": str(work / "cache"), "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "osrag.cli", "ingest", str(EXAMPLES), "--embedder", "default"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return work, env


SEARCH = ["search", "umbrella over $500,000", "--tenant", "acme", "--acl", "agents"]


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_a_search_imports_no_engine_manager_evaluation_integrations_or_clients(
    embedded: tuple[Path, dict[str, str]], tmp_path: Path, mode: str
) -> None:
    work, env = embedded
    modules = imported_by([*SEARCH, "--mode", mode], cwd=work, env=env, out=tmp_path / "m")
    assert "osrag.search.searcher" in modules  # it did search
    for package in (*NEVER_FOR_A_SEARCH, *CLUSTER_CLIENTS, "onnx"):
        assert not loaded(modules, package), f"a {mode} search imported {package}"
    assert ("onnxruntime" in modules) == (mode == "hybrid")
    assert not loaded(modules, "osrag.cli.node") and not loaded(modules, "osrag.cli.eval")


def test_search_help_imports_only_the_search_command(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    modules = imported_by(["search", "--help"], cwd=tmp_path, env=env, out=tmp_path / "m")
    assert "osrag.cli.search" in modules
    others = {"osrag.cli.node", "osrag.cli.eval", "osrag.cli.ingest", "osrag.cli.chunks"}
    assert not modules & others
    for package in (*NEVER_FOR_A_SEARCH, *CLUSTER_CLIENTS, "osrag.search", "numpy"):
        assert not loaded(modules, package), f"search --help imported {package}"


def test_index_status_and_chunks_import_only_what_they_use(
    embedded: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    work, env = embedded
    status = imported_by(["index", "status"], cwd=work, env=env, out=tmp_path / "status")
    chunks = imported_by(
        ["chunks", str(EXAMPLES / "globex-umbrella-1m.md")], cwd=work, env=env, out=tmp_path / "c"
    )
    for modules in (status, chunks):
        for package in (*NEVER_FOR_A_SEARCH, *CLUSTER_CLIENTS, "onnxruntime"):
            assert not loaded(modules, package)
    for other_format in ("osrag.loaders.pdf", "osrag.loaders.docx", "osrag.loaders.html"):
        assert other_format not in chunks


def test_every_command_is_listed_and_each_loads(tmp_path: Path) -> None:
    """The lazy root group still knows every command (``--help`` lists them; a typo gets
    a suggestion) and builds each one."""
    from typer.testing import CliRunner

    from osrag.cli import COMMANDS, app

    listing = CliRunner().invoke(app, ["--help"], prog_name="osrag")
    assert listing.exit_code == 0
    for name in COMMANDS:
        assert name in listing.output
        shown = CliRunner().invoke(app, [name, "--help"], prog_name="osrag")
        assert shown.exit_code == 0, (name, shown.output)
    typo = CliRunner().invoke(app, ["serch"], prog_name="osrag")
    assert typo.exit_code != 0 and "Did you mean 'search'?" in typo.output
