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

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.parametrize(
    ("args", "young"),
    [
        (["search", "--help"], 50_000),
        (["-v", "index", "--help"], 50_000),
        (["embedder", "--help"], 50_000),
        (["ingest", "--help"], 700),
        (["chunks", "--help"], 700),
        (["--version"], 700),
    ],
)
def test_short_commands_collect_cyclic_garbage_at_a_slower_pace(
    tmp_path: Path, args: list[str], young: int
) -> None:
    """search, index, config and embedder pass over the young generation every 50,000 new
    objects; every command keeps the collector on, and the long ones its default pace."""
    code = (  # at exit, ordinary or quick (os._exit), say how the collector ran
        "import atexit, gc, os, sys\n"
        "say = lambda: print('collector', gc.isenabled(), gc.get_threshold()[0],"
        " file=sys.stderr, flush=True)\n"
        "atexit.register(say)\n"
        "real_exit = os._exit\n"
        "os._exit = lambda code: (say(), real_exit(code))\n"
        "sys.argv[0] = 'osrag'\n"
        "from osrag.cli import main\n"
        "main()\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"collector True {young}" in done.stderr


def test_a_search_ends_without_teardown_but_with_its_output_and_exit_code(
    embedded: tuple[Path, dict[str, str]],
) -> None:
    """search skips the interpreter's teardown (os._exit): its whole answer still reaches
    a pipe, and a failure still has its message and exit code."""
    work, env = embedded
    code = (  # an exit handler prints only if the interpreter's teardown runs
        "import atexit, sys\n"
        "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
        "sys.argv[0] = 'osrag'\n"
        "from osrag.cli import main\n"
        "main()\n"
    )

    def osrag(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code, *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    found = osrag(*SEARCH, "--mode", "bm25", "--json", "--k", "50")
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)  # complete: it parses
    assert result["hits"] and result["mode"] == "bm25"
    assert "teardown ran" not in found.stderr
    refused = osrag(*SEARCH, "--as-of", "yesterday")
    assert refused.returncode == 2
    assert "--as-of 'yesterday': expected YYYY-MM-DD" in refused.stderr
    assert osrag("search", "--no-such-flag").returncode == 2  # a usage error, as click says
    assert "teardown ran" in osrag("index", "status").stderr  # other commands end as ever
