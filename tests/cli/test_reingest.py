"""A re-ingest loses nothing silently: the alias remembers its embedder and chunking, and a
dry run says what the alias will lose before anything changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from backend_cases import BackendCase
from counting_vectors import CountingVectors
from typer.testing import CliRunner

from osrag.cli import app
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.remembered import current_record

INSURANCE = Path(__file__).resolve().parents[1] / "data" / "insurance"
SPEC = "python:counting_vectors:embedder"


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """Two corpora of different documents: six policies, and four others."""
    one, other = tmp_path / "one", tmp_path / "other"
    one.mkdir()
    other.mkdir()
    policies = sorted(p for p in INSURANCE.glob("*.md") if p.name != "EXPECTED.md")
    for n, path in enumerate(policies):
        shutil.copy(path, (one if n < 6 else other) / path.name)
    return one, other


def run(case: BackendCase, *args: str) -> tuple[int, str, str]:
    flags, env = case.cli()
    result = CliRunner().invoke(app, [*args, "--alias", case.alias, *flags], env=env)
    return result.exit_code, result.stdout, result.stderr + str(result.exception or "")


def test_a_reingest_without_embedder_keeps_the_alias_embedder_and_chunking(
    backend_case: BackendCase, folders: tuple[Path, Path], tmp_path: Path
) -> None:
    one, _ = folders
    code, _, err = run(
        backend_case, "ingest", str(one), "--embedder", SPEC, "--strategy", "sentences", "-q"
    )
    assert code == 0, err
    home = one / "home-2023.md"
    home.write_text(home.read_text().replace("deductible", "deductible amount", 1))
    code, _, err = run(backend_case, "ingest", str(one), "-q")
    assert code == 0, err
    assert "the one alias" in err
    record = current_record(backend_case.backend, backend_case.alias)
    assert record is not None and record.config["embedder"]["id"] == CountingVectors().id
    assert record.config["chunking"]["strategy"] == "sentences"
    code, out, err = run(
        backend_case,
        "search",
        "deductible",
        "--mode",
        "hybrid",
        "--json",
        "--tenant",
        "acme",
        "--acl",
        "agents",
    )
    assert code == 0, err
    assert json.loads(out)["hits"]
    # a chunking flag changes that one value and keeps the embedder: a new generation
    code, out, err = run(backend_case, "ingest", str(one), "--max-tokens", "60", "--json", "-q")
    assert code == 0, err
    report = json.loads(out)
    assert report["new_generation"] and report["vectors_from_generation"] > 0
    record = current_record(backend_case.backend, backend_case.alias)
    assert record is not None and record.config["chunking"]["max_tokens"] == 60
    assert record.config["chunking"]["strategy"] == "sentences"


def test_no_embedder_drops_vectors_on_purpose_and_the_dry_run_says_so(
    backend_case: BackendCase, folders: tuple[Path, Path]
) -> None:
    one, _ = folders
    assert run(backend_case, "ingest", str(one), "--embedder", SPEC, "-q")[0] == 0
    code, out, err = run(backend_case, "ingest", str(one), "--no-embedder", "--dry-run", "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["vectors"] is None and plan["new_generation"]
    assert any("holds vectors" in w for w in plan["warnings"])
    assert any(s["setting"] == "embedder.id" and s["after"] is None for s in plan["settings"])
    code, _, err = run(backend_case, "ingest", str(one), "--no-embedder", "-q")
    assert code == 0, err
    record = current_record(backend_case.backend, backend_case.alias)
    assert record is not None and "embedder" not in record.config


def test_a_dry_run_of_another_folder_says_what_the_alias_will_lose(
    backend_case: BackendCase, folders: tuple[Path, Path]
) -> None:
    one, other = folders
    assert run(backend_case, "ingest", str(one), "-q")[0] == 0
    held = len(list(one.glob("*.md")))
    for extra in ((), ("--max-tokens", "100")):  # in place, then a new generation
        code, out, err = run(backend_case, "ingest", str(other), *extra, "--dry-run", "--json")
        assert code == 0, err
        plan = json.loads(out)
        assert plan["documents"]["new"] == len(list(other.glob("*.md")))
        assert plan["documents"]["removed"] == held
        assert plan["chunks"]["after"] == plan["chunks"]["new"]
    code, out, err = run(backend_case, "ingest", str(other), "--dry-run")
    assert code == 0, err
    assert "removed" in out and "(dry run: nothing written)" in out
    code, out, _ = run(backend_case, "ingest", str(other), "--no-prune", "--max-tokens", "90")
    code, out, err = run(backend_case, "ingest", str(other), "--dry-run", "--json", "--no-prune")
    plan = json.loads(out)
    assert plan["documents"]["removed"] == 0 and plan["documents"]["unchanged"] == len(
        list(other.glob("*.md"))
    )


def test_an_embedder_the_manifest_cannot_rebuild_is_refused_with_the_reason(
    backend_case: BackendCase, folders: tuple[Path, Path]
) -> None:
    one, _ = folders
    options = IngestOptions(alias=backend_case.alias, embedder=CountingVectors(), embed_workers=1)
    ingest(one, backend_case.backend, options)
    code, _, err = run(backend_case, "ingest", str(one), "--max-tokens", "90")
    assert code != 0
    assert "given as an object" in err and "--no-embedder" in err
    assert err.strip().count("\n") == 0
    code, _, err = run(backend_case, "ingest", str(one), "--max-tokens", "90", "--no-embedder")
    assert code == 0, err


def test_config_show_names_the_engine_the_commands_use(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["config", "show", "--json"], env={"OSRAG_HOME": str(tmp_path)}
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["values"]["url"] == {"value": None, "source": "default"}
    assert report["engine"].startswith(f"the embedded index in {tmp_path / 'embedded'}")
    url = "http://127.0.0.1:9"
    result = CliRunner().invoke(app, ["config", "show"], env={"OSRAG_URL": url})
    assert result.exit_code == 0, result.output
    assert f"engine: the cluster at {url}" in result.stdout
