"""An ingest killed mid-embedding (a real SIGKILL of a child process) and run again embeds
only what the killed run had not stored, and leaves index = manifest = expected."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from osrag.engines.embedded.index import EmbeddedIndex

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
scale = importlib.import_module("hybrid_scale")
synthetic = importlib.import_module("synthetic_corpus")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    synthetic.write_corpus(folder, 300)
    return folder


def _index_ids(root: Path, alias: str) -> list[str]:
    index = EmbeddedIndex(root)
    try:
        return [chunk_id for chunk_id, _doc in index.chunk_ids(alias)]
    finally:
        index.close()


def test_a_rerun_after_a_kill_mid_embedding_embeds_only_the_missing_chunks(
    corpus: Path, tmp_path: Path
) -> None:
    expected = scale.expected_chunks(corpus, "hash")
    distinct = len(set(expected.values()))
    assert len(expected) >= 300
    env = {
        **os.environ,
        "OSRAG_CACHE_DIR": str(tmp_path / "cache"),
        scale.DELAY_VARIABLE: "0.01",  # 0.64 s a batch of 64: the kill lands between batches
    }
    root = tmp_path / "index"
    killed = scale.run_killed(corpus, root, "resume", "hash", env, kill_after=int(0.4 * distinct))
    assert killed["returncode"] == -9
    before = killed["cached_at_kill"]
    assert 0.4 * distinct <= before < distinct  # killed after 40 %, before the end

    rerun = scale.run_child(corpus, root, "resume", "hash", env)
    assert rerun["errors"] == 0
    assert rerun["chunks_embedded"] == distinct - before  # the cache misses: only the rest
    # the rerun resumes the killed run's generation: chunks it had written stay as they are
    kept = len(expected) - rerun["chunks_written"]
    assert rerun["vectors_reused"] + kept == before  # the hits: stored but not yet written

    state = scale.stored_state(root, "resume")
    checked = scale.check(state, expected, "hash")
    assert checked["ids_equal"] and checked["vectors_checked"] == len(expected)
    assert checked["min_cosine"] >= 0.99999
    ids = _index_ids(root, "resume")
    assert len(ids) == len(set(ids)) == len(expected) and set(ids) == set(expected)

    again = scale.run_child(corpus, root, "resume", "hash", env)  # nothing left to do
    assert again["chunks_embedded"] == 0 and again["chunks_written"] == 0
