"""What matching named quantities by meaning adds to a search, at 1,000 to 300,000 labels.

    .venv/bin/python benchmarks/label_meaning_latency.py [--sizes 1000,30000,300000] \
        [--engines embedded] [--names 200] [--repeats 3] [--before TREE]

``--before TREE``: a source tree of osrag (``git archive REF | tar -x -C TREE``) measured
beside this one, size by size in the same run, each size and tree in a process of its own
(this script, its ``osrag`` imported from the tree): the table has a row for each, the JSON
both and their ratios (after / before).

For each engine and vocabulary size: the sample policies (``examples/insurance``) are
ingested under a temporary alias (its vocabulary embedded by the offline default model),
and the vocabulary is filled to the size with synthetic labels — words made of random
syllables, random unit vectors, the scope of one tenant's documents (the searches are that
tenant's) — written as the ingest writes vocabulary records (a vector's values do not change
the cost of the product, and no synthetic label reaches the threshold, so the matching does
all its work and adds no key). One synthetic label in ten ends in one of a few shared
words ("premium", "deductible", ...), as row names of a real corpus share their heads: a
question naming one of those words matches thousands of labels by key at the largest size.

Then, side by side in one run, each question "<name> under $500" — ``--names`` names that
no label holds, so each is compared by meaning — is searched in bm25 mode by a searcher
matching by keys alone and by one matching by meaning (the default threshold), alternately:

* **first**: each name once — its embedding is computed (the name's first search);
* **cached**: each name again ``--repeats`` times — its embedding comes from the searcher's
  cache.

Before those, on searchers of their own: **warm-up** — a fresh searcher's first search (the
embedding model already loaded in the process: the vocabulary's read and what a first
match costs), in seconds — and **by key**: ``--names``/10 questions "<shared word> under
$500", each matched by key against the labels holding the word (ms, p50 / p99).

Reported: p50 and p99 of the searches' ``took_ms`` for each, the added milliseconds (the
meaning search's percentile less the keys-alone one's), the time of the matching step alone
(:meth:`~osrag.search.searcher.Searcher.with_labels`, p50/p99), the vocabulary's first read
(its records from the engine into arrays, once per generation per engine object), its
arrays' memory, and the bytes of its records (per label, and per 10,000 labels). The table
is printed and the JSON written to ``benchmarks/results/label_meaning_latency.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import quantity_precision as qp
from _cluster import ROOT, console, write_results

from osrag.engines.base import ChunkIndex
from osrag.ingestion.generations import current_generation, purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.label_vocabulary import (
    STATE,
    VOCABULARY,
    encode_vector,
    label_digest,
    read_vocabulary,
    scope_of,
)
from osrag.lexicon.keys import label_keys
from osrag.search.meaning import DEFAULT_THRESHOLD
from osrag.search.searcher import Searcher

SYLLABLES = [a + b for a in "bdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ar", "en", "ol")]
PAGE = 1000
SHARED = ["premium", "deductible", "retention", "sublimit", "copay"]
"""Words one synthetic label in ten ends with."""


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


def synthetic_labels(rng: random.Random, count: int) -> Iterator[str]:
    """``count`` distinct made-up labels ("Bakolar tenvi mezo"), one in ten ending with a
    word of :data:`SHARED`, drawn from ``rng`` as they are asked for."""
    seen: set[str] = set()
    while len(seen) < count:
        label = f"{word(rng).title()} {word(rng)} {word(rng)}"
        if rng.random() < 0.1:
            label = f"{word(rng).title()} {word(rng)} {rng.choice(SHARED)}"
        if label not in seen:
            seen.add(label)
            yield label


def fill(index: ChunkIndex, alias: str, size: int, seed: int) -> tuple[int, int]:
    """Fill the alias's vocabulary to ``size`` labels with synthetic ones: (labels written,
    their records' bytes)."""
    store = index.records(alias)
    generation = current_generation(index, alias).name
    state = store.get(STATE, generation)
    assert state is not None
    have = int(state.data["labels"])
    dimension = int(state.data["embedder"]["dimension"])
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).standard_normal((size, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    acme = scope_of("acme", None)
    written = 0
    page: list[tuple[str, dict[str, Any]]] = []
    count = 0
    for count, label in enumerate(synthetic_labels(rng, size - have), start=1):
        entry = {
            "label": label,
            "keys": list(label_keys(label)),
            "scopes": {acme: 1},
            "vector": encode_vector(vectors[count - 1]),
        }
        written += len(json.dumps(entry))
        page.append((f"{generation}::{label_digest(label)}", entry))
        if len(page) == PAGE:
            store.put_many(VOCABULARY, page)
            page = []
    store.put_many(VOCABULARY, page)
    store.put(
        STATE,
        generation,
        {**state.data, "labels": size, "revision": int(state.data["revision"]) + 1},
    )
    store.refresh()
    return count, written


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 3), "p99": round(p99, 3)}


def measure(index: ChunkIndex, alias: str, names: list[str], repeats: int) -> dict[str, Any]:
    """Keys alone and meaning, alternately, on the same questions (see the module doc)."""
    warm = "setup fee under $500"
    loader = Searcher(index, alias, label_meaning_threshold=DEFAULT_THRESHOLD)
    loader.search(warm, mode="bm25", tenant="acme")  # the model loaded before any timing
    _forget_vocabularies()
    first = Searcher(index, alias, label_meaning_threshold=DEFAULT_THRESHOLD)
    started = time.perf_counter()
    first.search(warm, mode="bm25", tenant="acme")
    warm_up_s = time.perf_counter() - started
    by_key: list[float] = []
    for shared in SHARED * max(1, len(names) // 10 // len(SHARED)):
        plan = first.plan_by_keys(f"{shared} under $500", mode="bm25", tenant="acme")
        started = time.perf_counter()
        first.with_labels(plan)
        by_key.append((time.perf_counter() - started) * 1000)
    keys = Searcher(index, alias, label_meaning_threshold=None)
    meaning = Searcher(index, alias, label_meaning_threshold=DEFAULT_THRESHOLD)
    step = Searcher(index, alias, label_meaning_threshold=DEFAULT_THRESHOLD)
    """The matching step timed alone, with a name cache of its own."""
    for searcher in (keys, meaning, step):  # the model loaded, the vocabulary read, once
        searcher.search(warm, mode="bm25", tenant="acme")
    generation = current_generation(index, alias).name
    started = time.perf_counter()
    vocabulary = read_vocabulary(index.records(alias), generation)
    read_ms = (time.perf_counter() - started) * 1000
    assert vocabulary is not None and vocabulary.vectors is not None
    runs: dict[str, dict[str, list[float]]] = {
        "first": {"keys": [], "meaning": [], "step": []},
        "cached": {"keys": [], "meaning": [], "step": []},
    }
    for kind, rounds in (("first", 1), ("cached", repeats)):
        for _ in range(rounds):
            for name in names:
                question = f"{name} under $500"
                runs[kind]["keys"].append(keys.search(question, mode="bm25", tenant="acme").took_ms)
                result = meaning.search(question, mode="bm25", tenant="acme")
                assert result.label_matches[0].vocabulary == "meaning"
                runs[kind]["meaning"].append(result.took_ms)
                plan = step.plan_by_keys(question, mode="bm25", tenant="acme")
                started = time.perf_counter()
                step.with_labels(plan)
                runs[kind]["step"].append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {
        "labels": len(vocabulary),
        "warm_up_s": round(warm_up_s, 2),
        "by_key_step_ms": percentiles(by_key),
        "first_read_ms": round(read_ms, 1),
        "array_mb": round(vocabulary.vectors.nbytes / 2**20, 1),
    }
    for kind, found in runs.items():
        k, m, step = (percentiles(found[n]) for n in ("keys", "meaning", "step"))
        out[kind] = {
            "searches": len(found["keys"]),
            "keys_ms": k,
            "meaning_ms": m,
            "added_ms": {p: round(m[p] - k[p], 3) for p in ("p50", "p99")},
            "matching_step_ms": step,
        }
    return out


def _forget_vocabularies() -> None:
    """The vocabularies this process has read forgotten: the next searcher reads its own."""
    from osrag.search import meaning

    loaded = getattr(meaning, "_LOADED", None)
    if loaded is not None:
        loaded.clear()


def one(engine_name: str, size: int, names: list[str], repeats: int, home: Path) -> dict[str, Any]:
    """One engine and size, in this process: its row."""
    index = qp.engine(engine_name, home)
    try:
        alias = f"osrag-latency-{uuid.uuid4().hex[:8]}"
        ingest(ROOT / "examples" / "insurance", index, IngestOptions(alias=alias))
        try:
            count, written = fill(index, alias, size, seed=size)
            row = measure(index, alias, names, repeats)
            row["record_bytes_per_label"] = round(written / count, 1)
            row["record_mb_per_10k_labels"] = round(
                row["record_bytes_per_label"] * 10_000 / 2**20, 1
            )
            return row
        finally:
            purge(index, alias)
    finally:
        close = getattr(index, "close", None)
        if close is not None:
            close()


def in_tree(tree: Path, engine_name: str, size: int, args: argparse.Namespace) -> dict[str, Any]:
    """:func:`one` in a process of its own, importing ``osrag`` from ``tree``."""
    command = [
        sys.executable,
        __file__,
        "--one",
        "--engines",
        engine_name,
        "--sizes",
        str(size),
        "--names",
        str(args.names),
        "--repeats",
        str(args.repeats),
    ]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def ratios(before: dict[str, Any], after: dict[str, Any]) -> dict[str, float | None]:
    def r(a: float, b: float) -> float | None:
        return round(a / b, 3) if b else None

    return {
        "warm_up": r(after["warm_up_s"], before["warm_up_s"]),
        "by_key_p50": r(after["by_key_step_ms"]["p50"], before["by_key_step_ms"]["p50"]),
        "meaning_step_cached_p50": r(
            after["cached"]["matching_step_ms"]["p50"], before["cached"]["matching_step_ms"]["p50"]
        ),
        "first_read": r(after["first_read_ms"], before["first_read_ms"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,30000,300000")
    parser.add_argument("--engines", default="embedded")
    parser.add_argument("--names", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", type=Path, help="an osrag source tree measured beside this")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    rng = random.Random(1)
    names = [f"{word(rng)} {word(rng)}" for _ in range(args.names)]
    if args.one:
        with tempfile.TemporaryDirectory(prefix="osrag-meaning-latency-") as tmp:
            row = one(args.engines, int(args.sizes), names, args.repeats, Path(tmp) / "home")
        print(json.dumps(row))
        return 0
    results: dict[str, Any] = {"threshold": DEFAULT_THRESHOLD, "engines": {}}
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    for engine_name in args.engines.split(","):
        for size in map(int, args.sizes.split(",")):
            for tree_name, tree in trees.items():
                console.print(f"{engine_name}: {size:,} labels, {tree_name}")
                row = in_tree(tree, engine_name, size, args)
                sized = results["engines"].setdefault(engine_name, {}).setdefault(str(size), {})
                sized[tree_name] = row
            if "before" in sized:
                sized["after_over_before"] = ratios(sized["before"], sized["after"])
    print(table(results))
    path = write_results("label_meaning_latency", results)
    console.print(f"wrote {path}")
    return 0


def table(results: dict[str, Any]) -> str:
    lines = [
        "| engine | labels | tree | warm-up s | by key p50 / p99 ms | searches "
        "| keys alone p50 / p99 ms | meaning p50 / p99 ms "
        "| added p50 / p99 ms | matching step p50 / p99 ms | first read ms | arrays MB "
        "| record bytes a label |",
        "|---|---:|---|---:|---|---|---|---|---|---|---:|---:|---:|",
    ]
    for engine_name, sizes in results["engines"].items():
        for trees in sizes.values():
            for tree_name, row in trees.items():
                if tree_name == "after_over_before":
                    continue
                for kind in ("first", "cached"):
                    r = row[kind]
                    k, step = row["by_key_step_ms"], r["matching_step_ms"]
                    lines.append(
                        f"| {engine_name} | {row['labels']:,} | {tree_name} "
                        f"| {row['warm_up_s']:.2f} "
                        f"| {k['p50']:.2f} / {k['p99']:.2f} | {kind} ({r['searches']}) "
                        f"| {r['keys_ms']['p50']:.1f} / {r['keys_ms']['p99']:.1f} "
                        f"| {r['meaning_ms']['p50']:.1f} / {r['meaning_ms']['p99']:.1f} "
                        f"| {r['added_ms']['p50']:+.1f} / {r['added_ms']['p99']:+.1f} "
                        f"| {step['p50']:.2f} / {step['p99']:.2f} "
                        f"| {row['first_read_ms']:,.0f} | {row['array_mb']} "
                        f"| {row['record_bytes_per_label']:.0f} |"
                    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
