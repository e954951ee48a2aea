"""Worker processes and bulk writers: which counts ingest fastest on this machine?

    python benchmarks/parallel_ingest.py [--chunks 40000] [--pairs 1x1,1x2,1x4,2x1,2x2,2x4]
                                         [--rounds 3]

On the synthetic policy corpus, every (workers × writers) pair ingests into a
fresh alias, interleaved with the raw ``_bulk`` ceiling of the same chunks (osrag's
request size, two writers) for several rounds; the median round is kept. Reports
chunks/s, the ratio to the ceiling, the CPU seconds of the ingesting process and
of its workers, and the load average. ``osrag.ingestion.pipeline.default_workers`` and the
engines' ``write_concurrency`` come from these numbers (``docs/scale.md``).
Prints a table and writes ``benchmarks/results/parallel_ingest.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _rawbulk
import synthetic_corpus
from _cluster import client, cluster_url, console, print_table, write_results
from scale import ingest_child

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.apply import BATCH_BYTES, BATCH_CHUNKS
from osrag.ingestion.generations import purge
from osrag.ingestion.workers import usable_cores


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=40_000)
    parser.add_argument("--pairs", default="1x1,1x2,1x4,2x1,2x2,2x4")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "osrag-scale")
    args = parser.parse_args()
    url = cluster_url()
    es = client(url)
    corpus = args.work / f"corpus-{args.chunks}"
    if not (corpus / "CORPUS.json").is_file():
        synthetic_corpus.write_corpus(corpus, args.chunks)
    ndjson = args.work / f"raw-{args.chunks}.ndjson"
    _rawbulk.ndjson(corpus, ndjson)
    pairs = [tuple(int(v) for v in p.split("x")) for p in args.pairs.split(",")]
    runs: dict[str, list[dict[str, Any]]] = {}
    for _ in range(args.rounds):
        raw = _rawbulk.ceiling(es, ndjson, max_chunks=BATCH_CHUNKS, max_bytes=BATCH_BYTES)
        raw["load"] = list(os.getloadavg())
        runs.setdefault("raw", []).append(raw)
        for workers, writers in pairs:
            alias = f"osrag-bench-par-{uuid.uuid4().hex[:8]}"
            try:
                result = ingest_child(url, corpus, alias, workers, writers)
            finally:
                purge(OpenSearchIndex(es), alias)
            result["chunks_per_s"] = round(args.chunks / result["seconds"], 1)
            result["ratio"] = round(result["chunks_per_s"] / raw["chunks_per_s"], 3)
            runs.setdefault(f"{workers}x{writers}", []).append(result)
            console.print(
                f"[dim]{workers} workers × {writers} writers: {result['chunks_per_s']} chunks/s "
                f"({result['ratio']} of raw {raw['chunks_per_s']}), load {result['load_before']}"
            )

    def median(key: str, field: str) -> Any:
        """``field`` of the round with the median chunks/s (one round's numbers together)."""
        ordered = sorted(runs[key], key=lambda r: r["chunks_per_s"])
        return ordered[(len(ordered) - 1) // 2][field]

    rows: list[list[Any]] = [["raw _bulk ceiling", "-", "-", median("raw", "chunks_per_s"), 1.0]]
    rows[0] += ["-", "-"]
    for workers, writers in pairs:
        key = f"{workers}x{writers}"
        rows.append(
            [
                f"osrag, {workers} worker(s)",
                workers,
                writers,
                median(key, "chunks_per_s"),
                median(key, "ratio"),
                median(key, "cpu_seconds"),
                median(key, "peak_tree_rss_mib"),
            ]
        )
    print_table(
        f"ingest of {args.chunks:,} chunks by workers and writers "
        f"(median of {args.rounds} rounds; {usable_cores()} usable cores)",
        ["run", "workers", "writers", "chunks/s", "of raw", "CPU s (main)", "tree RSS MiB"],
        rows,
    )
    write_results(
        "parallel_ingest",
        {"chunks": args.chunks, "cores": usable_cores(), "runs": runs, "table": rows},
    )


if __name__ == "__main__":
    main()
