"""A hundred thousand and a million chunks on one node, side by side.

    python benchmarks/scale.py [--sizes 100000,1000000] [--work DIR] [--queries 300]
                               [--workers N] [--writers M] [--keep]

For each size, on the synthetic policy corpus (``synthetic_corpus.py``, seed 7;
the 100k corpus is the start of the 1M one), in one run against one node
(``OSRAG_BENCH_URL``, else a local node):

1. **raw _bulk ceiling** — the very chunks osrag writes, serialised beforehand
   (outside the timer), sent with osrag's request size and writer count into a
   fresh index with the same mapping and bulk-loading settings, then refreshed;
2. **osrag ingest** into a fresh alias, in a child process: chunks/s and the
   ratio to (1); the peak RSS of the ingesting process (``ru_maxrss``) and of its
   process tree (sampled every 20 ms); its CPU seconds;
3. **unchanged re-ingest**, in a child process: seconds (and the share of the
   first ingest's), chunks written and the index's own write counters (``_stats``
   ``index_total``/``delete_total`` before and after: zero writes), peak RSS;
4. **the manifest**: records in ``<alias>.manifest`` by kind, and its bytes on disk;
   the generation's bytes on disk (for ``docs/scale.md``);
5. **queries**: p50/p99 of ``Searcher.search`` (client-side, the full osrag path:
   analysis, one ``_msearch`` with the ranked search and the candidate count) for
   queries with one stated amount (a filter) and the same queries without it;
6. **``osrag index status``**: the CLI end to end (a new process) and the library
   call alone.

The load average of the machine is recorded beside every measurement. Targets:
re-ingest ≤ 15 % of the first and zero writes; peak RSS at 1M within 10 % of 100k.
Prints a table and writes ``benchmarks/results/scale.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _rawbulk
import synthetic_corpus
from _cluster import (
    TREE_RSS_SAMPLER,
    client,
    cluster_url,
    console,
    print_table,
    summary,
    write_results,
)

from osrag.engines.mapping import manifest_index
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.apply import BATCH_BYTES, BATCH_CHUNKS
from osrag.ingestion.generations import current_generation, purge, status
from osrag.ingestion.pipeline import default_workers
from osrag.search.searcher import Searcher


def load() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


CHILD = (
    r"""
import json, resource, sys, threading, time
from pathlib import Path
import psutil
from opensearchpy import OpenSearch
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.ingest import IngestOptions, ingest
url, corpus, alias, workers, writers = sys.argv[1:6]
"""
    + TREE_RSS_SAMPLER
    + r"""backend = OpenSearchIndex(OpenSearch(url, timeout=300))
options = IngestOptions(
    alias=alias, workers=int(workers), writers=int(writers) if writers != "-" else None
)
cpu = time.process_time()
started = time.perf_counter()
report = ingest(Path(corpus), backend, options)
seconds = time.perf_counter() - started
done.set()
print(json.dumps({
    "report": json.loads(report.model_dump_json()),
    "seconds": round(seconds, 3),
    "cpu_seconds": round(time.process_time() - cpu, 3),
    "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    "peak_tree_rss_mib": round(peak[0] / 2**20, 1),
}))
"""
)


def ingest_child(url: str, corpus: Path, alias: str, workers: int, writers: int | None) -> Any:
    started_load = load()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, url, str(corpus), alias, str(workers), str(writers or "-")],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"ingest failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["load_before"], result["load_after"] = started_load, load()
    return result


def index_writes(es: Any, index: str) -> tuple[int, int]:
    stats = es.indices.stats(index=index, metric="indexing")["_all"]["primaries"]["indexing"]
    return int(stats["index_total"]), int(stats["delete_total"])


def store_bytes(es: Any, index: str) -> int:
    es.indices.flush(index=index)
    stats = es.indices.stats(index=index, metric="store")
    return int(stats["_all"]["primaries"]["store"]["size_in_bytes"])


def manifest_size(es: Any, alias: str, generation: str) -> dict[str, Any]:
    """Records by kind, bytes on disk, and how long reading every document record of the
    generation takes (what an ingest does before it plans)."""
    from osrag.ingestion.manifest import Manifest

    backend = OpenSearchIndex(es)
    started = time.perf_counter()
    records = sum(1 for _ in Manifest(backend.records(alias), alias).documents(generation))
    scan = time.perf_counter() - started
    name = manifest_index(alias)
    es.indices.refresh(index=name)
    kinds = es.search(
        index=name,
        body={"size": 0, "aggs": {"kinds": {"terms": {"field": "kind"}}}},
    )["aggregations"]["kinds"]["buckets"]
    return {
        "scan_seconds": round(scan, 3),
        "document_records": records,
        "records": int(es.count(index=name)["count"]),
        "by_kind": {b["key"]: b["doc_count"] for b in kinds},
        "bytes": store_bytes(es, name),
    }


def queries(seed: int, n: int) -> list[tuple[str, str]]:
    """(with an amount, the same words without it): limits the corpus states."""
    rng = random.Random(seed)
    topics = ["umbrella liability", "flood damage", "theft of jewelry", "medical evacuation"]
    topics += ["water damage to the dwelling", "defense costs of a suit", "rental car accident"]
    topics += ["cyber breach ransom", "additional living expenses", "contractor premises"]
    made = []
    for _ in range(n):
        topic = rng.choice(topics)
        amount = synthetic_corpus.write_amount(rng, rng.choice(synthetic_corpus.LIMITS[:13]))
        made.append((f"{topic} limit {amount.text}", f"{topic} limit"))
    return made


def query_latency(url: str, alias: str, n: int) -> dict[str, Any]:
    searcher = Searcher(OpenSearchIndex(client(url)), alias, enforce_access=False)
    pairs = queries(3, n)
    for text, plain in pairs[:20]:  # warm the caches alike
        searcher.search(text)
        searcher.search(plain)
    took: dict[str, list[float]] = {"amount filter": [], "no amount filter": []}
    candidates: list[int] = []
    before = load()
    for text, plain in pairs:
        started = time.perf_counter()
        result = searcher.search(text)
        took["amount filter"].append((time.perf_counter() - started) * 1000)
        assert result.amount is not None and not result.fallback, text
        candidates.append(result.candidate_count)
        started = time.perf_counter()
        searcher.search(plain)
        took["no amount filter"].append((time.perf_counter() - started) * 1000)
    return {
        **{k: summary(v) for k, v in took.items()},
        "candidates_median": sorted(candidates)[len(candidates) // 2],
        "load_before": before,
        "load_after": load(),
    }


def status_time(url: str, alias: str) -> dict[str, Any]:
    backend = OpenSearchIndex(client(url))
    started = time.perf_counter()
    found = status(backend, alias)
    library = time.perf_counter() - started
    assert found.consistent, found.problems
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "osrag.cli", "index", "status", "--url", url, "--alias", alias],
        capture_output=True,
        text=True,
        env=env,
    )
    cli = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "osrag.cli", "--help"], capture_output=True, env=env)
    startup = time.perf_counter() - started
    return {
        "library_seconds": round(library, 3),
        "cli_seconds": round(cli, 3),
        "cli_startup_seconds": round(startup, 3),
        "load": load(),
    }


def run_size(args: argparse.Namespace, url: str, size: int) -> dict[str, Any]:
    es = client(url)
    corpus = args.work / f"corpus-{size}"
    if not (corpus / "CORPUS.json").is_file():
        console.print(f"writing the {size:,}-chunk corpus to {corpus}")
        synthetic_corpus.write_corpus(corpus, size)
    meta = json.loads((corpus / "CORPUS.json").read_text())
    ndjson = args.work / f"raw-{size}.ndjson"
    console.print(f"serialising {size:,} chunks for the raw ceiling (not timed)")
    _rawbulk.ndjson(corpus, ndjson)
    writers = args.writers or 2
    result: dict[str, Any] = {"size": size, "corpus": meta}
    load_before = load()
    result["raw"] = _rawbulk.ceiling(
        es, ndjson, max_chunks=BATCH_CHUNKS, max_bytes=BATCH_BYTES, concurrency=writers
    )
    result["raw"]["load_before"], result["raw"]["load_after"] = load_before, load()
    console.print(f"raw ceiling: {result['raw']['chunks_per_s']} chunks/s")

    alias = f"osrag-bench-scale-{uuid.uuid4().hex[:8]}"
    try:
        first = ingest_child(url, corpus, alias, args.workers, args.writers)
        generation = first["report"]["generation"]
        assert first["report"]["chunks_written"] == meta["chunks"], first["report"]
        first["chunks_per_s"] = round(meta["chunks"] / first["seconds"], 1)
        first["of_raw"] = round(first["chunks_per_s"] / result["raw"]["chunks_per_s"], 3)
        result["ingest"] = first
        console.print(f"ingest: {first['chunks_per_s']} chunks/s ({first['of_raw']} of raw)")

        writes_before = index_writes(es, generation)
        again = ingest_child(url, corpus, alias, args.workers, args.writers)
        writes_after = index_writes(es, generation)
        again["index_writes"] = [a - b for a, b in zip(writes_after, writes_before, strict=True)]
        again["of_first"] = round(again["seconds"] / first["seconds"], 3)
        result["reingest"] = again
        console.print(f"re-ingest: {again['seconds']} s ({again['of_first']} of the first)")

        result["manifest"] = manifest_size(es, alias, generation)
        result["generation_bytes"] = store_bytes(es, generation)
        result["queries"] = query_latency(url, alias, args.queries)
        result["status"] = status_time(url, alias)
        record = current_generation(OpenSearchIndex(es), alias)
        result["generation"] = {"name": record.name, "chunks": record.chunks}
    finally:
        if not args.keep:
            purge(OpenSearchIndex(es), alias)
        else:
            result["alias"] = alias
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "osrag-scale")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--writers", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the aliases afterwards")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    url = cluster_url()
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = [run_size(args, url, size) for size in sizes]
    rows: list[list[Any]] = []

    def row(label: str, pick: Any) -> None:
        rows.append([label, *(pick(r) for r in runs)])

    row("documents", lambda r: r["corpus"]["documents"])
    row("corpus MiB", lambda r: round(r["corpus"]["bytes"] / 2**20, 1))
    row("raw _bulk ceiling, chunks/s", lambda r: r["raw"]["chunks_per_s"])
    row("osrag ingest, chunks/s", lambda r: r["ingest"]["chunks_per_s"])
    row("  ratio to the raw ceiling", lambda r: r["ingest"]["of_raw"])
    row("  seconds", lambda r: r["ingest"]["seconds"])
    row("  CPU seconds of the ingester", lambda r: r["ingest"]["cpu_seconds"])
    row("  peak RSS MiB (process)", lambda r: r["ingest"]["peak_rss_mib"])
    row("  peak RSS MiB (process tree)", lambda r: r["ingest"]["peak_tree_rss_mib"])
    row("unchanged re-ingest, seconds", lambda r: r["reingest"]["seconds"])
    row("  share of the first ingest", lambda r: r["reingest"]["of_first"])
    row("  chunks written", lambda r: r["reingest"]["report"]["chunks_written"])
    row("  index writes (index, delete)", lambda r: tuple(r["reingest"]["index_writes"]))
    row("  peak RSS MiB (process)", lambda r: r["reingest"]["peak_rss_mib"])
    row("manifest records", lambda r: r["manifest"]["records"])
    row("manifest MiB on disk", lambda r: round(r["manifest"]["bytes"] / 2**20, 1))
    row("  reading every document record, s", lambda r: r["manifest"]["scan_seconds"])
    row("generation MiB on disk", lambda r: round(r["generation_bytes"] / 2**20, 1))
    row("query p50 ms, amount filter", lambda r: r["queries"]["amount filter"]["p50"])
    row("query p99 ms, amount filter", lambda r: r["queries"]["amount filter"]["p99"])
    row("query p50 ms, no amount filter", lambda r: r["queries"]["no amount filter"]["p50"])
    row("query p99 ms, no amount filter", lambda r: r["queries"]["no amount filter"]["p99"])
    row("  candidates (median, filtered)", lambda r: r["queries"]["candidates_median"])
    row("osrag index status, CLI seconds", lambda r: r["status"]["cli_seconds"])
    row("  of which CLI start-up", lambda r: r["status"]["cli_startup_seconds"])
    row("  library call seconds", lambda r: r["status"]["library_seconds"])
    row("load average (1 min) at ingest start", lambda r: r["ingest"]["load_before"][0])
    print_table(
        f"osrag at scale on one node (workers {args.workers}, writers {args.writers or 'default'})",
        ["", *(f"{s:,} chunks" for s in sizes)],
        rows,
    )
    if len(runs) > 1:
        small, big = runs[0], runs[-1]
        console.print(
            "peak RSS, largest over smallest: "
            f"{big['ingest']['peak_rss_mib'] / small['ingest']['peak_rss_mib']:.3f} (process), "
            f"{big['reingest']['peak_rss_mib'] / small['reingest']['peak_rss_mib']:.3f} "
            "(re-ingest)"
        )
    path = write_results(
        "scale",
        {"workers": args.workers, "writers": args.writers, "runs": runs, "table": rows},
    )
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
