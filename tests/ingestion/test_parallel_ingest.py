"""Parallel ingest: N worker processes and M bulk writers give the same index and manifest.

The pure parts are properties (hypothesis): :func:`osrag.ingestion.workers.ordered` yields in
input order with a bounded number in flight, whatever order the work finishes in;
:func:`osrag.ingestion.apply.batches` partitions the changes in order within its limits. The
whole ingest is then run on both engines with several (workers, writers) pairs, on a
synthetic corpus with a multi-document JSON Lines file, a duplicate id, an unreadable
file and an empty document, first ingest and an incremental sync: chunk ids, stored
chunks, manifest records, change log and report must equal the (1, 1) run's.
"""

from __future__ import annotations

import importlib
import random
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, filtered
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.ingestion.apply import batches, request_bytes
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.ingestion.label_vocabulary import read_vocabulary
from osrag.ingestion.plan import Change
from osrag.ingestion.workers import Workers, ordered
from osrag.models import IngestReport

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
synthetic = importlib.import_module("synthetic_corpus")


# ----------------------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(min_value=0, max_value=0.003), max_size=40),
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=1, max_value=4),
)
def test_ordered_yields_in_input_order_with_a_bounded_window(
    delays: list[float], window: int, threads: int
) -> None:
    in_flight = [0, 0]  # now, most
    lock = threading.Lock()

    def work(item: tuple[int, float]) -> int:
        number, delay = item
        time.sleep(delay)  # later items often finish first
        return number

    with ThreadPoolExecutor(threads) as pool:

        def submit(item: tuple[int, float]) -> Future[int]:
            with lock:
                in_flight[0] += 1
                in_flight[1] = max(in_flight[1], in_flight[0])
            return pool.submit(work, item)

        results = []
        for value in ordered(submit, enumerate(delays), window):
            with lock:
                in_flight[0] -= 1
            results.append(value)
    assert results == list(range(len(delays)))
    assert in_flight[1] <= window


def test_workers_run_inline_below_the_threshold_and_in_processes_above() -> None:
    with Workers(2, pool_after=3) as workers:
        pids = list(workers.map(_pid, range(12)))
    assert pids[:3] == [pids[0]] * 3 and pids[0] == _pid(0)  # this process
    assert all(p != pids[0] for p in pids[3:])  # worker processes


def _pid(_: int) -> int:
    import os

    return os.getpid()


def _change(doc: int, chunks: int, deletes: int) -> Change:
    from osrag.models import Chunk, Span, TokenSpan

    made = [
        Chunk(
            f"d{doc}#{n}#0",
            f"d{doc}",
            "p.md",
            "v",
            "structural",
            n,
            "T",
            "x" * (10 * n),
            "y" * (5 * n),
            "T",
            [],
            Span(0, 1),
            TokenSpan(0, 1),
            "t",
            "p",
            "0",
        )
        for n in range(chunks)
    ]
    return Change("add", f"d{doc}", None, made, made, [f"old{n}" for n in range(deletes)])


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5)), max_size=40),
    st.integers(min_value=1, max_value=50),
    st.integers(min_value=500, max_value=20_000),
)
def test_batches_keep_documents_whole_in_order_within_the_limits(
    shapes: list[tuple[int, int]], max_chunks: int, max_bytes: int
) -> None:
    changes = [_change(n, chunks, deletes) for n, (chunks, deletes) in enumerate(shapes)]
    groups = list(batches(iter(changes), max_chunks=max_chunks, max_bytes=max_bytes))
    assert [c for group in groups for c in group] == changes  # a partition, in order
    for group in groups:
        actions = sum(len(c.write) + len(c.delete) for c in group)
        size = sum(request_bytes(c) for c in group)
        without_last = group[:-1]
        # a group closes as soon as it reaches a limit: only its last change may cross it
        assert sum(len(c.write) + len(c.delete) for c in without_last) < max_chunks
        assert sum(request_bytes(c) for c in without_last) < max_bytes
        if group is not groups[-1]:
            assert actions >= max_chunks or size >= max_bytes


# ----------------------------------------------------------------------------- engines

PAIRS = [(1, 1), (2, 1), (1, 4), (3, 3)]
"""(worker processes, bulk writers); the first is the reference."""


def _corpus(folder: Path, chunks: int = 2500) -> Path:
    synthetic.write_corpus(folder, chunks, seed=11)
    (folder / "extra").mkdir()
    lines = [
        '{"id": "faq-1", "title": "FAQ one", "text": "Umbrella limits start at $300,000."}',
        '{"id": "faq-2", "title": "FAQ two", "text": "Flood cover up to €250,000 a year."}',
        '{"id": "policy-00000003", "title": "A duplicate id", "text": "Loses to the file."}',
        "{not json",
    ]
    (folder / "extra" / "faq.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "extra" / "empty.md").write_text("---\nid: empty-one\n---\n")
    (folder / "extra" / "binary.md").write_bytes(b"\x00\x01 not text")
    return folder


def _edit(folder: Path) -> None:
    """Change some policies, remove one, add one: a sync with writes, deletes and a prune."""
    rng = random.Random(5)
    files = sorted(folder.glob("p*/*.md"))
    for path in rng.sample(files[8:], 12):
        text = path.read_text()
        path.write_text(text.replace("## ", "## Amended ", 1) + "\nA rider adds $1,500.\n")
    files[7].unlink()
    (folder / "extra" / "new.md").write_text("# New\n\n## Cover\n\nUp to $25,000 per claim.\n")


def _snapshot(case: BackendCase, alias: str, report: IngestReport) -> dict[str, Any]:
    record = current_generation(case.backend, alias)
    generation = record.name
    manifest = case.manifest(alias)
    documents = {
        r.doc_id: r.model_dump(exclude={"ingested_at", "generation"})
        for r in manifest.documents(generation)
    }
    log = sorted(
        (c.doc_id, c.action, tuple(c.old_ids), tuple(c.new_ids))
        for c in manifest.changes(generation)
    )
    chunks = {
        s["chunk_id"]: {k: v for k, v in s.items() if k != "generation"}
        for s in filtered(case.backend, generation)
    }
    return {
        "chunks": chunks,
        "documents": documents,
        "log": log,
        "record": (record.documents, record.chunks, record.config),
        "report": report.model_dump(
            exclude={
                "generation": True,
                "alias": True,
                "seconds": True,
                "previous_generation": True,
                "lock_wait_seconds": True,
                # where a label's vector came from depends on the vector cache, not the run
                "label_vocabulary": {"vectors_embedded", "vectors_cached"},
            }
        ),
        "labels": _labels(case, alias, generation),
    }


def _labels(case: BackendCase, alias: str, generation: str) -> list[Any]:
    """The generation's label vocabulary: each label, its keys and its documents' scopes."""
    vocabulary = read_vocabulary(case.backend.records(alias), generation)
    assert vocabulary is not None and len(vocabulary) > 0
    return sorted(zip(vocabulary.labels, vocabulary.keys, vocabulary.scopes, strict=True))


def _run(case: BackendCase, alias: str, folder: Path, workers: int, writers: int) -> list[Any]:
    """A first ingest and a sync after edits; a snapshot of each."""
    options = IngestOptions(alias=alias, workers=workers, writers=writers, batch_chunks=97)
    first = ingest(_corpus(folder), case.backend, options)
    assert first.chunks_written > 2400 and len(first.errors) == 3  # not json, duplicate, binary
    snapshots = [_snapshot(case, alias, first)]
    _edit(folder)
    second = ingest(folder, case.backend, options)
    assert second.documents_changed == 12 and second.documents_removed == 1
    snapshots.append(_snapshot(case, alias, second))
    for snapshot in snapshots:
        assert len(snapshot["chunks"]) == snapshot["record"][1]  # index = manifest
    return snapshots


_REFERENCE: dict[str, list[dict[str, Any]]] = {}


@pytest.mark.parametrize(("workers", "writers"), PAIRS)
def test_any_workers_and_writers_build_the_same_index_and_manifest(
    backend_case: BackendCase, tmp_path_factory: pytest.TempPathFactory, workers: int, writers: int
) -> None:
    if backend_case.kind not in _REFERENCE:  # the (1, 1) run, once per engine
        reference_alias = f"{backend_case.alias}-reference"
        _REFERENCE[backend_case.kind] = _run(
            backend_case, reference_alias, tmp_path_factory.mktemp("reference"), *PAIRS[0]
        )
    mine = _run(backend_case, backend_case.alias, tmp_path_factory.mktemp("c"), workers, writers)
    for ours, theirs in zip(mine, _REFERENCE[backend_case.kind], strict=True):
        for key in ours:
            assert ours[key] == theirs[key], f"{key} differs with {workers=} {writers=}"
