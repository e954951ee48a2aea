"""``took_ms`` is the search; loading the embedder's model is ``embedder_load_ms``, apart.

On an embedded index of the sample policies with vectors from the default embedder:
a searcher's first hybrid search reports the load once (and, when it had to build
the ONNX graph, says so in ``embedder_note`` and on the command line); later searches
and bm25 searches whose named quantity a label holds by key report none; a bm25 search
whose named quantity no label holds embeds the name to match it by meaning, and reports
that load apart; ``took_ms`` never includes it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from osrag.config import load_settings
from osrag.engines import open_index
from osrag.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "insurance"
QUERY = "umbrella over $500,000"
BY_KEYS = "limit over $500,000"
"""Its named quantity is the key of labels the policies hold: keys alone answer it."""
BY_MEANING = "maximum payout over $500,000"
"""Its named quantity is no label's key: it is matched by meaning (its name embedded)."""
ACCESS = {"tenant": "acme", "acl": ["agents"]}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    work = tmp_path_factory.mktemp("search-timing")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    env |= {"OSRAG_CACHE_DIR": str(work / "cache"), "COLUMNS": "250"}
    done = osrag(["ingest", str(EXAMPLES), "--embedder", "default"], work, env)
    assert done.returncode == 0, done.stderr
    return work, env


def osrag(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "osrag.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_first_search_after_install_builds_the_graph_once_and_says_so(
    embedded: tuple[Path, dict[str, str]],
) -> None:
    work, env = embedded
    shutil.rmtree(work / "cache" / "models")  # as just installed: nothing stored
    args = ["search", QUERY, "--tenant", "acme", "--acl", "agents"]
    first = osrag(args, work, env)
    assert first.returncode == 0, first.stderr
    assert "ms loading the embedder)" in first.stderr
    assert "note: built the ONNX graph of all-MiniLM-L6-v2 from its weights once" in first.stderr

    second = osrag([*args, "--json"], work, env)
    result = json.loads(second.stdout)
    assert result["mode"] == "hybrid" and result["embedder_note"] is None
    assert result["embedder_load_ms"] > 0 and result["took_ms"] < result["embedder_load_ms"]
    assert "note: built the ONNX graph" not in osrag(args, work, env).stderr

    by_keys = ["search", BY_KEYS, "--tenant", "acme", "--acl", "agents"]
    bm25 = json.loads(osrag([*by_keys, "--mode", "bm25", "--json"], work, env).stdout)
    assert bm25["embedder_load_ms"] is None and bm25["embedder_note"] is None
    assert bm25["label_matches"][0]["by_key"] > 0

    meaning = ["search", BY_MEANING, "--tenant", "acme", "--acl", "agents", "--mode", "bm25"]
    by_meaning = json.loads(osrag([*meaning, "--json"], work, env).stdout)
    assert by_meaning["label_matches"][0]["vocabulary"] == "meaning"
    assert by_meaning["embedder_load_ms"] > 0
    assert by_meaning["took_ms"] < by_meaning["embedder_load_ms"]


def test_took_leaves_the_load_out_and_a_searcher_reports_it_once(
    embedded: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    work, env = embedded
    monkeypatch.chdir(work)
    monkeypatch.setenv("OSRAG_CACHE_DIR", env["OSRAG_CACHE_DIR"])
    settings = load_settings(backend="embedded")
    index = open_index(settings)
    try:
        searcher = Searcher(index, settings.alias)
        started = time.perf_counter()
        first = searcher.search(QUERY, mode="hybrid", **ACCESS)
        wall_ms = (time.perf_counter() - started) * 1000
        assert first.embedder_load_ms is not None and first.embedder_load_ms > 0
        assert first.took_ms + first.embedder_load_ms <= wall_ms + 1.0
        again = searcher.search(QUERY, mode="hybrid", **ACCESS)
        assert again.embedder_load_ms is None and again.embedder_note is None
        assert [h.chunk_id for h in again.hits] == [h.chunk_id for h in first.hits]
        assert searcher.search(QUERY, mode="bm25", **ACCESS).embedder_load_ms is None
        assert searcher.search(BY_KEYS, mode="bm25", **ACCESS).embedder_load_ms is None
    finally:
        index.close()


def test_a_load_before_the_search_is_reported_but_not_subtracted(
    embedded: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--explain`` builds the request (and so loads the embedder) before searching: the
    search reports that load, and its own time is not reduced by it."""
    work, env = embedded
    monkeypatch.chdir(work)
    monkeypatch.setenv("OSRAG_CACHE_DIR", env["OSRAG_CACHE_DIR"])
    settings = load_settings(backend="embedded")
    index = open_index(settings)
    try:
        searcher = Searcher(index, settings.alias)
        searcher.bodies(searcher.plan(QUERY, mode="hybrid", **ACCESS))
        result = searcher.search(QUERY, mode="hybrid", **ACCESS)
    finally:
        index.close()
    assert result.embedder_load_ms is not None and result.took_ms > 0


def test_a_first_search_with_passages_leaves_the_load_out_too(
    embedded: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A context's extra request is inside ``took_ms``; the model load still is not."""
    work, env = embedded
    monkeypatch.chdir(work)
    monkeypatch.setenv("OSRAG_CACHE_DIR", env["OSRAG_CACHE_DIR"])
    settings = load_settings(backend="embedded")
    index = open_index(settings)
    try:
        searcher = Searcher(index, settings.alias)
        started = time.perf_counter()
        first = searcher.search(QUERY, mode="hybrid", context="neighbours", **ACCESS)
        wall_ms = (time.perf_counter() - started) * 1000
    finally:
        index.close()
    assert first.passages and first.context is not None
    assert first.embedder_load_ms is not None and first.embedder_load_ms > 0
    assert first.took_ms + first.embedder_load_ms <= wall_ms + 1.0
