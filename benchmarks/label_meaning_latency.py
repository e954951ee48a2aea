"""What matching named quantities by meaning adds to a search, at 1,000 and 50,000 labels.

    .venv/bin/python benchmarks/label_meaning_latency.py [--sizes 1000,50000] \
        [--engines embedded,opensearch] [--names 200] [--repeats 3]

For each engine and vocabulary size: the sample policies (``examples/insurance``) are
ingested under a temporary alias (its vocabulary embedded by the offline default model),
and the vocabulary is filled to the size with synthetic labels — words made of random
syllables, random unit vectors, the scope of one tenant's documents (the searches are that
tenant's) — written as the ingest writes vocabulary records (a vector's values do not change
the cost of the product, and no synthetic label reaches the threshold, so the matching does
all its work and adds no key).

Then, side by side in one run, each question "<name> under $500" — ``--names`` names that
no label holds, so each is compared by meaning — is searched in bm25 mode by a searcher
matching by keys alone and by one matching by meaning (the default threshold), alternately:

* **first**: each name once — its embedding is computed (the name's first search);
* **cached**: each name again ``--repeats`` times — its embedding comes from the searcher's
  cache.

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
import random
import statistics
import sys
import tempfile
import time
import uuid
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


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


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
    labels: set[str] = set()
    while len(labels) < size - have:
        label = f"{word(rng).title()} {word(rng)} {word(rng)}"
        if label in labels:
            continue
        labels.add(label)
        entry = {
            "label": label,
            "keys": list(label_keys(label)),
            "scopes": {acme: 1},
            "vector": encode_vector(vectors[len(labels) - 1]),
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
    return len(labels), written


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 3), "p99": round(p99, 3)}


def measure(index: ChunkIndex, alias: str, names: list[str], repeats: int) -> dict[str, Any]:
    """Keys alone and meaning, alternately, on the same questions (see the module doc)."""
    keys = Searcher(index, alias, label_meaning_threshold=None)
    meaning = Searcher(index, alias, label_meaning_threshold=DEFAULT_THRESHOLD)
    step = Searcher(index, alias, label_meaning_threshold=DEFAULT_THRESHOLD)
    """The matching step timed alone, with a name cache of its own."""
    warm = "setup fee under $500"
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,50000")
    parser.add_argument("--engines", default="embedded,opensearch")
    parser.add_argument("--names", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(1)
    names = [f"{word(rng)} {word(rng)}" for _ in range(args.names)]
    results: dict[str, Any] = {"threshold": DEFAULT_THRESHOLD, "engines": {}}
    with tempfile.TemporaryDirectory(prefix="osrag-meaning-latency-") as tmp:
        for engine_name in args.engines.split(","):
            index = qp.engine(engine_name, Path(tmp) / "home")
            try:
                for size in map(int, args.sizes.split(",")):
                    alias = f"osrag-latency-{uuid.uuid4().hex[:8]}"
                    console.print(f"{engine_name}: {size:,} labels")
                    ingest(ROOT / "examples" / "insurance", index, IngestOptions(alias=alias))
                    try:
                        count, written = fill(index, alias, size, seed=size)
                        row = measure(index, alias, names, args.repeats)
                        row["record_bytes_per_label"] = round(written / count, 1)
                        row["record_mb_per_10k_labels"] = round(
                            row["record_bytes_per_label"] * 10_000 / 2**20, 1
                        )
                        results["engines"].setdefault(engine_name, {})[str(size)] = row
                    finally:
                        purge(index, alias)
            finally:
                close = getattr(index, "close", None)
                if close is not None:
                    close()
    print(table(results))
    path = write_results("label_meaning_latency", results)
    console.print(f"wrote {path}")
    return 0


def table(results: dict[str, Any]) -> str:
    lines = [
        "| engine | labels | searches | keys alone p50 / p99 ms | meaning p50 / p99 ms "
        "| added p50 / p99 ms | matching step p50 / p99 ms | first read ms | arrays MB "
        "| record bytes a label |",
        "|---|---:|---|---|---|---|---|---:|---:|---:|",
    ]
    for engine_name, sizes in results["engines"].items():
        for row in sizes.values():
            for kind in ("first", "cached"):
                r = row[kind]
                lines.append(
                    f"| {engine_name} | {row['labels']:,} | {kind} ({r['searches']}) "
                    f"| {r['keys_ms']['p50']:.1f} / {r['keys_ms']['p99']:.1f} "
                    f"| {r['meaning_ms']['p50']:.1f} / {r['meaning_ms']['p99']:.1f} "
                    f"| {r['added_ms']['p50']:+.1f} / {r['added_ms']['p99']:+.1f} "
                    f"| {r['matching_step_ms']['p50']:.2f} / {r['matching_step_ms']['p99']:.2f} "
                    f"| {row['first_read_ms']:,.0f} | {row['array_mb']} "
                    f"| {row['record_bytes_per_label']:.0f} |"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
