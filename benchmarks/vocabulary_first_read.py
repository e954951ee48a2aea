"""What a search's first read of a large label vocabulary costs: before and after its
snapshot (:mod:`osrag.ingestion.label_snapshot`), side by side in one run — and, with
``--layouts``, the record layouts measured to choose it.

    .venv/bin/python benchmarks/vocabulary_first_read.py [--sizes 200000,500000] \
        [--engines embedded,opensearch] [--questions 100] [--layouts]

**The read path** (the default). For each engine and size, in a process of its own, the
vocabulary is filled as below and its revision moved on, so that the snapshot the ingest
wrote is of another revision (as an osrag that keeps none leaves it). Timed, wall and CPU
seconds of this process, each read through a fresh store object as a new searcher's:

* **before** — :func:`~osrag.ingestion.label_vocabulary.read_vocabulary` finds no current
  snapshot and reads every record (as every search read it before snapshots);
* three syncs of the sample policies, each changing one document: the first adds a label
  and finds the snapshot stale, so its finish writes the snapshot and the key counts whole
  (reading every record); the second adds a label and rewrites the parts and buckets it
  touches; the third changes no label (the ingest's own cost, for comparison);
* **after** — ``read_vocabulary`` reads the snapshot (50,000 labels);
* a **key question** per name — :func:`~osrag.search.meaning.match_name` by keys, for a
  caller of one tenant and group, on the vocabulary of every record and on the snapshot
  with its key counts (each bucket fetched by id the first time a name asks it): the
  reports' label counts, by-key and by-synonym counts must be equal (each synthetic label
  is held in one scope), and their times are compared. The names: labels of the filled
  vocabulary outside the snapshot, made-up names no label holds, and the shared words.

**The layouts** (``--layouts``, the runs that chose the snapshot):

For each engine and vocabulary size, in a process of its own: the sample policies
(``examples/insurance``) are ingested under a temporary alias (its vocabulary embedded by
the offline default model), and the vocabulary is filled to the size with synthetic labels
written as the ingest writes vocabulary records — words of random syllables, one in ten
ending in a shared word ("premium", "deductible", ...), three access scopes. As at the
million-chunk run, only the :data:`~osrag.ingestion.label_vocabulary.MEANING_LABELS` most
widely held labels have vectors (held by 2–50 documents each); the others are held by one
document and keep their keys alone. Then three reads of it are timed (wall and CPU
seconds of this process):

* **today** — :func:`~osrag.ingestion.label_vocabulary.read_vocabulary`: every label's
  record scanned, the most widely held labels' vectors decoded;
* **packed** — the same labels, keys and scopes packed 2,000 labels a record (the
  vectors of the most widely held in the same records, float16 base64 joined): every label
  still read, in a few hundred records instead of one each;
* **snapshot + key records** — the layout that bounds the read: the
  ``MEANING_LABELS`` most widely held labels packed as above (25 records), and one record
  per distinct key counting, by scope, the labels holding it (what "does a label the caller
  may see hold these keys" and "does a label outside the snapshot hold this key" need); the
  first read is the snapshot, and each question then fetches its asked keys' records by id;
  or the same key records grouped in 4,096 **key buckets** by their digest (one record per
  bucket: fewer, larger records to write and to rewrite at a sync).

For the two packed layouts the run also times writing them (what an ingest's finish would
add) and their bytes. The layouts are written here from the full read, so their records
are exactly the vocabulary's.

Reported as a table; the JSON goes to ``benchmarks/results/vocabulary_first_read.json``
(``vocabulary_first_read-layouts.json`` for ``--layouts``).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import quantity_precision as qp
from _cluster import ROOT, console, write_results
from label_meaning_latency import SHARED, synthetic_labels, word

from osrag.engines.base import ChunkIndex, RecordStore
from osrag.ingestion.generations import current_generation, purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.label_snapshot import KEY_COUNTS
from osrag.ingestion.label_snapshot import SNAPSHOT as SNAPSHOT_KIND
from osrag.ingestion.label_vocabulary import (
    MEANING_LABELS,
    STATE,
    VOCABULARY,
    Vocabulary,
    decode_rows,
    encode_vector,
    label_digest,
    read_vocabulary,
    scope_of,
)
from osrag.lexicon.keys import asked_keys, label_keys
from osrag.search.meaning import match_name

SCOPES = [scope_of("acme", None), scope_of("acme", ["claims"]), scope_of("globex", None)]
PAGE = 1000
PACK = 2000
"""Labels a packed record holds."""
BUCKETS = 4096
"""Key buckets: a key's bucket is the first three hex digits of its digest."""
PACKED, SNAPSHOT, KEYS = "layout_packed", "layout_snapshot", "layout_key"
BUCKETED = "layout_key_bucket"
"""The layouts' record kinds (apart from the vocabulary's own)."""


def fill(store: RecordStore, generation: str, size: int, seed: int) -> int:
    """The vocabulary filled to ``size`` labels (see the module docstring): bytes written."""
    state = store.get(STATE, generation)
    assert state is not None
    have, dimension = int(state.data["labels"]), int(state.data["embedder"]["dimension"])
    rng, vectors = random.Random(seed), np.random.default_rng(seed)
    page: list[tuple[str, dict[str, Any]]] = []
    written = 0
    for at, label in enumerate(synthetic_labels(rng, size - have)):
        top = at < MEANING_LABELS
        vector = None
        if top:
            v = vectors.standard_normal(dimension).astype(np.float32)
            vector = encode_vector(v / np.linalg.norm(v))
        entry = {
            "label": label,
            "keys": list(label_keys(label)),
            "scopes": {rng.choice(SCOPES): rng.randint(2, 50) if top else 1},
            "vector": vector,
        }
        written += len(json.dumps(entry))
        page.append((f"{generation}::{label_digest(label)}", entry))
        if len(page) == PAGE:
            store.put_many(VOCABULARY, page)
            page = []
    store.put_many(VOCABULARY, page)
    data = {**state.data, "labels": size, "revision": int(state.data["revision"]) + 1}
    store.put(STATE, generation, data)
    store.refresh()
    return written


def timed(work: Callable[[], Any]) -> tuple[Any, dict[str, float]]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    return out, {
        "wall_s": round(time.perf_counter() - wall, 3),
        "cpu_s": round(time.process_time() - cpu, 3),
    }


def packs(vocabulary: Vocabulary, rows: list[int]) -> Iterator[dict[str, Any]]:
    """``rows`` of the vocabulary as packed records: texts, keys, scopes, and the vectors
    (float16, base64, joined; an empty text for a label without one) of those compared by
    meaning."""
    assert vocabulary.vectors is not None
    vector_of = {int(r): i for i, r in enumerate(vocabulary.meaning_rows)}
    for start in range(0, len(rows), PACK):
        part = rows[start : start + PACK]
        yield {
            "labels": [vocabulary.labels[r] for r in part],
            "keys": [list(vocabulary.keys[r]) for r in part],
            "scopes": [list(vocabulary.scopes[r]) for r in part],
            "vectors": [
                encode_vector(vocabulary.vectors[vector_of[r]]) if r in vector_of else ""
                for r in part
            ],
        }


def read_packed(
    store: RecordStore, kind: str, generation: str, parts: int, dimension: int
) -> Vocabulary:
    """A vocabulary from its packed records."""
    found = store.get_many(kind, [f"{generation}::{i}" for i in range(parts)])
    labels: list[str] = []
    keys: list[tuple[str, ...]] = []
    scopes: list[tuple[str, ...]] = []
    texts: list[str] = []
    for i in range(parts):
        part = found[f"{generation}::{i}"]
        labels += part["labels"]
        keys += [tuple(k) for k in part["keys"]]
        scopes += [tuple(s) for s in part["scopes"]]
        texts += part["vectors"]
    rows = np.asarray([i for i, t in enumerate(texts) if t], dtype=np.intp)
    vectors = decode_rows([texts[i] for i in rows], dimension)
    return Vocabulary(
        generation=generation,
        revision=0,
        embedder=None,
        labels=labels,
        keys=keys,
        scopes=scopes,
        vectors=vectors,
        meaning_rows=rows,
    )


def key_records(store: RecordStore, generation: str) -> dict[str, dict[str, Any]]:
    """One record per distinct key: by scope, how many labels holding it that scope has."""
    out: dict[str, dict[str, Any]] = {}
    for _, entry in store.scan(VOCABULARY, f"{generation}::"):
        for key in entry["keys"]:
            record = out.setdefault(key, {"key": key, "scopes": {}})
            for scope in entry["scopes"]:
                record["scopes"][scope] = record["scopes"].get(scope, 0) + 1
    return out


def bucket_of(key: str) -> str:
    return label_digest(key)[:3]


def buckets(by_key: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The key records grouped in :data:`BUCKETS` records by their digest."""
    out: dict[str, dict[str, Any]] = {}
    for key, record in by_key.items():
        out.setdefault(bucket_of(key), {})[key] = record["scopes"]
    return out


def put_all(
    store: RecordStore, kind: str, items: list[tuple[str, dict[str, Any]]], page: int = PAGE
) -> None:
    for start in range(0, len(items), page):
        store.put_many(kind, items[start : start + page])
    store.refresh()


CALLER = {"tenant": "acme", "acl": ["claims"]}
"""The caller of the key questions: two of the three synthetic scopes are its."""
EDITED = "renters-30k-basic.md"
"""The sample policy the syncs change."""
WIDE = 2000
"""Labels of the vocabulary a new price list holds: a sync that changes the scopes of as
many labels, most of them the snapshot's."""


def key_question(vocabulary: Vocabulary, name: str) -> tuple[tuple[int, int, int], float]:
    """A name matched by keys for :data:`CALLER`: the report's label, by-key and
    by-synonym counts, and the milliseconds it took."""
    started = time.perf_counter()
    visible = vocabulary.visible(CALLER["tenant"], CALLER["acl"])

    def beyond(keys: Sequence[str]) -> dict[str, int]:
        return vocabulary.beyond(keys, CALLER["tenant"], CALLER["acl"])

    report = match_name(vocabulary, name, visible=visible, use="keys", beyond=beyond).report
    took = (time.perf_counter() - started) * 1000
    return (report.labels, report.by_key, report.by_synonym), took


def stored_mb(store: RecordStore, kind: str, generation: str) -> float:
    store.refresh()
    found = store.scan(kind, f"{generation}::")
    return round(sum(len(json.dumps(record)) for _, record in found) / 2**20, 1)


def read_path(engine_name: str, size: int, questions: int, home: Path) -> dict[str, Any]:
    """One engine and size, in this process: the read path's row (see the module
    docstring)."""
    index: ChunkIndex = qp.engine(engine_name, home)
    alias = f"osrag-vocab-read-{uuid.uuid4().hex[:8]}"
    folder = home.parent / "policies"
    shutil.copytree(ROOT / "examples" / "insurance", folder)
    options = IngestOptions(alias=alias)
    try:
        ingest(folder, index, options)
        store = index.records(alias)
        generation = current_generation(index, alias).name
        written, filled = timed(lambda: fill(store, generation, size, seed=size))
        fresh = index.records  # each read through a fresh store object, as a new searcher's
        whole, before = timed(lambda: read_vocabulary(fresh(alias), generation))
        assert whole is not None and whole.counts is None and len(whole) == size
        edited = folder / EDITED
        syncs: dict[str, dict[str, float]] = {}
        for step, row in (("whole", "Porting surcharge"), ("parts", "Reconnection surcharge")):
            edited.write_text(
                edited.read_text() + f"\n\n| Item | Amount |\n|---|---|\n| {row} | $10.00 |\n"
            )
            report, syncs[step] = timed(lambda: ingest(folder, index, options))
            assert report.label_vocabulary is not None and report.label_vocabulary.added == 1
        snapshot_labels = [whole.labels[r] for r in whole.meaning_rows]
        wide = [label for label in snapshot_labels if label.count(" ") == 2][:WIDE]
        rows = "".join(f"| {label} | $10.00 |\n" for label in wide)
        (folder / "wide.md").write_text(f"# Price list\n\n| Item | Amount |\n|---|---|\n{rows}")
        report, syncs["wide"] = timed(lambda: ingest(folder, index, options))
        assert report.label_vocabulary is not None
        wide_added = report.label_vocabulary.added
        edited.write_text(edited.read_text() + "\n\nNo amount is named in this line.\n")
        report, syncs["no_label"] = timed(lambda: ingest(folder, index, options))
        assert report.documents_changed == 1
        first, after = timed(lambda: read_vocabulary(fresh(alias), generation))
        assert first is not None and first.counts is not None
        whole = read_vocabulary(fresh(alias), generation, every_record=True)
        assert whole is not None and len(whole) == size + 2 + wide_added
        rng = random.Random(7)
        outside = sorted(set(whole.labels) - set(first.labels))
        names = [label.lower() for label in rng.sample(outside, questions)]
        names += [f"{word(rng)} {word(rng)}" for _ in range(questions)]
        names += list(SHARED)
        times: dict[str, list[float]] = {"before": [], "after": []}
        for name in names:
            said, took = key_question(whole, name)
            times["before"].append(took)
            answered, took = key_question(first, name)
            times["after"].append(took)
            assert answered == said, (name, said, answered)
        return {
            "labels": len(whole),
            "snapshot_labels": len(first),
            "fill": {**filled, "mb": round(written / 2**20, 1)},
            "before": before,
            "after": after,
            "syncs": syncs,
            "wide_labels": len(wide),
            "wide_added": wide_added,
            "snapshot_mb": stored_mb(store, SNAPSHOT_KIND, generation),
            "key_counts_mb": stored_mb(store, KEY_COUNTS, generation),
            "key_question_ms": {k: percentiles(v) for k, v in times.items()},
        }
    finally:
        purge(index, alias)
        close = getattr(index, "close", None)
        if close is not None:
            close()


def one(engine_name: str, size: int, questions: int, home: Path) -> dict[str, Any]:
    """One engine and size, in this process: its row of the layouts."""
    index: ChunkIndex = qp.engine(engine_name, home)
    alias = f"osrag-vocab-read-{uuid.uuid4().hex[:8]}"
    try:
        ingest(ROOT / "examples" / "insurance", index, IngestOptions(alias=alias))
        store = index.records(alias)
        generation = current_generation(index, alias).name
        state = store.get(STATE, generation)
        assert state is not None
        dimension = int(state.data["embedder"]["dimension"])
        written, filled = timed(lambda: fill(store, generation, size, seed=size))
        vocabulary, today = timed(lambda: read_vocabulary(index.records(alias), generation))
        assert vocabulary is not None and vocabulary.vectors is not None
        # the packed layouts, from the full read (their records are the vocabulary's)
        everything = list(range(len(vocabulary)))
        packed = [(f"{generation}::{i}", p) for i, p in enumerate(packs(vocabulary, everything))]
        top = [int(r) for r in vocabulary.meaning_rows]
        snapshot = [(f"{generation}::{i}", p) for i, p in enumerate(packs(vocabulary, top))]
        by_key = key_records(store, generation)
        keyed = [(f"{generation}::{label_digest(k)}", r) for k, r in by_key.items()]
        _, packed_write = timed(lambda: put_all(store, PACKED, packed, 5))
        _, snapshot_write = timed(lambda: put_all(store, SNAPSHOT, snapshot, 5))
        _, keys_write = timed(lambda: put_all(store, KEYS, keyed))
        bucketed = [(f"{generation}::{b}", r) for b, r in buckets(by_key).items()]
        _, bucketed_write = timed(lambda: put_all(store, BUCKETED, bucketed, 100))
        fresh = index.records  # each read through a fresh store object, as a new searcher's
        read, packed_read = timed(
            lambda: read_packed(fresh(alias), PACKED, generation, len(packed), dimension)
        )
        assert read.labels == vocabulary.labels
        snap, snapshot_read = timed(
            lambda: read_packed(fresh(alias), SNAPSHOT, generation, len(snapshot), dimension)
        )
        assert len(snap) == len(vocabulary.meaning_rows)
        assert np.allclose(snap.vectors, vocabulary.vectors, atol=1e-3)
        rng = random.Random(7)
        names = [f"{word(rng)} {word(rng)}" for _ in range(questions)]
        names += [f"{word(rng)} {s}" for s in SHARED for _ in range(max(1, questions // 50))]
        lookups: list[float] = []
        for name in names:
            wanted = [f"{generation}::{label_digest(k)}" for k in asked_keys(name)]
            started = time.perf_counter()
            fresh(alias).get_many(KEYS, wanted)
            lookups.append((time.perf_counter() - started) * 1000)
        in_buckets: list[float] = []
        for name in names:
            wanted = sorted({f"{generation}::{bucket_of(k)}" for k in asked_keys(name)})
            started = time.perf_counter()
            fresh(alias).get_many(BUCKETED, wanted)
            in_buckets.append((time.perf_counter() - started) * 1000)
        return {
            "labels": len(vocabulary),
            "with_vectors": len(vocabulary.meaning_rows),
            "fill": {**filled, "mb": round(written / 2**20, 1)},
            "today": today,
            "packed": {
                "records": len(packed),
                "mb": round(sum(len(json.dumps(p)) for _, p in packed) / 2**20, 1),
                "write": packed_write,
                "read": packed_read,
            },
            "snapshot": {
                "records": len(snapshot),
                "mb": round(sum(len(json.dumps(p)) for _, p in snapshot) / 2**20, 1),
                "write": snapshot_write,
                "read": snapshot_read,
            },
            "key_records": {
                "records": len(keyed),
                "mb": round(sum(len(json.dumps(r)) for _, r in keyed) / 2**20, 1),
                "write": keys_write,
                "lookup_ms": percentiles(lookups),
            },
            "key_buckets": {
                "records": len(bucketed),
                "mb": round(sum(len(json.dumps(r)) for _, r in bucketed) / 2**20, 1),
                "write": bucketed_write,
                "lookup_ms": percentiles(in_buckets),
            },
        }
    finally:
        purge(index, alias)  # the alias's records too, the packed kinds with them
        close = getattr(index, "close", None)
        if close is not None:
            close()


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "questions": len(ordered),
        "p50": round(statistics.median(ordered), 2),
        "p99": round(p99, 2),
    }


def table(results: dict[str, Any], head: Sequence[str], cells: Callable[[Any], str]) -> str:
    """A Markdown table of ``results``: the ``head`` lines, then a row an engine and size —
    the engine, the labels and the columns ``cells`` writes of the size's result."""
    lines = list(head)
    for engine_name, sizes in results["engines"].items():
        for row in sizes.values():
            lines.append(f"| {engine_name} | {row['labels']:,} | {cells(row)} |")
    return "\n".join(lines)


LAYOUTS_HEAD = (
    "| engine | labels | today: read s (CPU s) | packed: records, read s (CPU s), write s "
    "| snapshot: records, read s (CPU s), write s | key records: records, MB, write s, "
    "lookup p50 / p99 ms | key buckets: records, MB, write s, lookup p50 / p99 ms |",
    "|---|---:|---|---|---|---|---|",
)


def layouts_cells(row: dict[str, Any]) -> str:
    t, p, s, k = row["today"], row["packed"], row["snapshot"], row["key_records"]
    b = row["key_buckets"]
    return (
        f"{t['wall_s']:.1f} ({t['cpu_s']:.1f}) "
        f"| {p['records']}, {p['read']['wall_s']:.1f} ({p['read']['cpu_s']:.1f}), "
        f"{p['write']['wall_s']:.1f} "
        f"| {s['records']}, {s['read']['wall_s']:.2f} ({s['read']['cpu_s']:.2f}), "
        f"{s['write']['wall_s']:.1f} "
        f"| {k['records']:,}, {k['mb']}, {k['write']['wall_s']:.1f}, "
        f"{k['lookup_ms']['p50']:.1f} / {k['lookup_ms']['p99']:.1f} "
        f"| {b['records']:,}, {b['mb']}, {b['write']['wall_s']:.1f}, "
        f"{b['lookup_ms']['p50']:.1f} / {b['lookup_ms']['p99']:.1f}"
    )


READ_HEAD = (
    "| engine | labels | first read before: s (CPU s) | after: s (CPU s) | before / after "
    "| key question p50 / p99 ms, before → after | sync rewriting whole / its parts / "
    "2,000 labels' parts / no label: s | snapshot MB, key counts MB |",
    "|---|---:|---|---|---:|---|---|---|",
)


def read_cells(row: dict[str, Any]) -> str:
    b, a, q, sync = row["before"], row["after"], row["key_question_ms"], row["syncs"]
    return (
        f"{b['wall_s']:.1f} ({b['cpu_s']:.1f}) "
        f"| {a['wall_s']:.2f} ({a['cpu_s']:.2f}) | {b['wall_s'] / a['wall_s']:.0f}× "
        f"| {q['before']['p50']:.2f} / {q['before']['p99']:.2f} → "
        f"{q['after']['p50']:.2f} / {q['after']['p99']:.2f} "
        f"| {sync['whole']['wall_s']:.1f} / {sync['parts']['wall_s']:.1f} / "
        f"{sync['wide']['wall_s']:.1f} / "
        f"{sync['no_label']['wall_s']:.1f} "
        f"| {row['snapshot_mb']}, {row['key_counts_mb']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="200000,500000")
    parser.add_argument("--engines", default="embedded,opensearch")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--label", default="", help="a suffix of the JSON file's name")
    parser.add_argument(
        "--layouts", action="store_true", help="the record layouts, not the read path"
    )
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        run = one if args.layouts else read_path
        with tempfile.TemporaryDirectory(prefix="osrag-vocab-read-") as tmp:
            row = run(args.engines, int(args.sizes), args.questions, Path(tmp) / "home")
        print(json.dumps(row))
        return 0
    results: dict[str, Any] = {"meaning_labels": MEANING_LABELS, "engines": {}}
    for engine_name in args.engines.split(","):
        for size in map(int, args.sizes.split(",")):
            console.print(f"{engine_name}: {size:,} labels")
            command = [sys.executable, __file__, "--one", "--engines", engine_name]
            command += ["--sizes", str(size), "--questions", str(args.questions)]
            command += ["--layouts"] if args.layouts else []
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(f"{engine_name} at {size:,} failed:\n{done.stderr[-3000:]}")
            row = json.loads(done.stdout.strip().splitlines()[-1])
            results["engines"].setdefault(engine_name, {})[str(size)] = row
            console.print(json.dumps(row))
    head, cells = (LAYOUTS_HEAD, layouts_cells) if args.layouts else (READ_HEAD, read_cells)
    print(table(results, head, cells))
    name = "vocabulary_first_read" + ("-layouts" if args.layouts else "")
    name += f"-{args.label}" if args.label else ""
    console.print(f"wrote {write_results(name, results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
