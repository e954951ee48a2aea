"""Ingest throughput against the raw ``_bulk`` ceiling of the same node, side by side.

    python benchmarks/ingest.py [--corpus PATH] [--naive N] [--no-rss]

On ``shared/corpora/opensearch-docs`` (or ``--corpus``), in one run:

1. **osrag**: ``ingest()`` end to end (load → chunk → extract → bulk → refresh) into
   a fresh alias; chunks/s.
2. **raw _bulk ceiling**: the very same chunks, pre-serialised as NDJSON outside the
   timer, sent with the same batch size to a fresh index with the same mapping and
   bulk-loading settings, then refreshed; chunks/s.
3. **naive loop**: one ``index`` request per chunk for the first ``--naive`` chunks.
4. **re-ingest** of the unchanged corpus: seconds, as a share of the first ingest.
5. **peak RSS** of a child process ingesting the corpus, and 4 copies of it under
   other ids: memory must not grow with corpus size.

Targets: osrag ≥ 80 % of the raw ceiling; re-ingest ≤ 15 % of the first.
Raw and osrag run interleaved for `--rounds` rounds; the table shows medians.
Prints a table and writes ``benchmarks/results/ingest.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import (
    CORPORA,
    TREE_RSS_SAMPLER,
    client,
    cluster_url,
    console,
    print_table,
    write_results,
)

from osrag.chunking.records import chunk_source
from osrag.engines.mapping import chunk_index_body
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.apply import BATCH_CHUNKS
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import Document


def _prepared_ndjson(corpus: Path, index: str, options: IngestOptions) -> tuple[list[bytes], int]:
    """The chunks osrag would write, as ready-to-send ``_bulk`` bodies (not timed)."""
    bodies: list[bytes] = []
    lines: list[bytes] = []
    count = 0
    for item in load_corpus(corpus):
        if not isinstance(item, Document):
            continue
        for chunk in prepare_chunks(item, options.chunking, options.extraction):
            source = chunk_source(chunk, index)
            lines.append(json.dumps({"index": {"_index": index, "_id": chunk.chunk_id}}).encode())
            lines.append(json.dumps(source, default=str).encode())
            count += 1
            if len(lines) == 2 * BATCH_CHUNKS:
                bodies.append(b"\n".join(lines) + b"\n")
                lines = []
    if lines:
        bodies.append(b"\n".join(lines) + b"\n")
    return bodies, count


def _raw_bulk(url: str, corpus: Path, options: IngestOptions) -> dict[str, Any]:
    es = client(url)
    index = f"osrag-bench-raw-{uuid.uuid4().hex[:8]}"
    body = chunk_index_body()
    body["settings"]["index"]["refresh_interval"] = "-1"
    es.indices.create(index=index, body=body)
    try:
        bodies, count = _prepared_ndjson(corpus, index, options)
        started = time.perf_counter()
        for payload in bodies:
            response = es.bulk(body=payload)
            if response.get("errors"):
                raise RuntimeError("raw bulk reported item errors")
        es.indices.put_settings(index=index, body={"index": {"refresh_interval": "1s"}})
        es.indices.refresh(index=index)
        seconds = time.perf_counter() - started
        return {
            "chunks": count,
            "seconds": round(seconds, 3),
            "chunks_per_s": round(count / seconds, 1),
        }
    finally:
        es.indices.delete(index=index, ignore=[404])


def _naive(url: str, corpus: Path, options: IngestOptions, limit: int) -> dict[str, Any]:
    es = client(url)
    index = f"osrag-bench-naive-{uuid.uuid4().hex[:8]}"
    es.indices.create(index=index, body=chunk_index_body())
    try:
        chunks = []
        for item in load_corpus(corpus):
            if isinstance(item, Document):
                chunks += prepare_chunks(item, options.chunking, options.extraction)
            if len(chunks) >= limit:
                break
        chunks = chunks[:limit]
        started = time.perf_counter()
        for chunk in chunks:
            es.index(
                index=index,
                id=chunk.chunk_id,
                body=chunk_source(chunk, index),
            )
        es.indices.refresh(index=index)
        seconds = time.perf_counter() - started
        return {
            "chunks": len(chunks),
            "seconds": round(seconds, 3),
            "chunks_per_s": round(len(chunks) / seconds, 1),
        }
    finally:
        es.indices.delete(index=index, ignore=[404])


def _osrag(url: str, corpus: Path, options: IngestOptions) -> dict[str, Any]:
    """First ingest and an unchanged re-ingest, timed."""
    backend = OpenSearchIndex(client(url))
    try:
        started = time.perf_counter()
        first = ingest(corpus, backend, options)
        first_s = time.perf_counter() - started
        started = time.perf_counter()
        again = ingest(corpus, backend, options)
        again_s = time.perf_counter() - started
        assert again.chunks_written == 0, "re-ingest of an unchanged corpus wrote chunks"
        return {
            "documents": first.documents,
            "chunks": first.chunks_written,
            "seconds": round(first_s, 3),
            "chunks_per_s": round(first.chunks_written / first_s, 1),
            "reingest_seconds": round(again_s, 3),
            "workers": options.workers,
        }
    finally:
        purge(backend, options.alias)


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median time, and every round's time beside it."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    median = dict(ordered[len(ordered) // 2])
    median["rounds_seconds"] = [r["seconds"] for r in runs]
    return median


def _child_rss(url: str, corpus: Path) -> dict[str, Any]:
    """Ingest in a fresh process; report its peak RSS and the peak of its whole process
    tree (the ingest process plus its chunking workers), sampled every 20 ms."""
    alias = f"osrag-bench-rss-{uuid.uuid4().hex[:8]}"
    code = f"""
import resource, threading, time
from pathlib import Path
import psutil
from opensearchpy import OpenSearch
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
{TREE_RSS_SAMPLER}
backend = OpenSearchIndex(OpenSearch({url!r}, timeout=120))
started = time.perf_counter()
report = ingest(Path({str(corpus)!r}), backend, IngestOptions(alias={alias!r}))
seconds = time.perf_counter() - started
done.set()
purge(backend, {alias!r})
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(report.documents, report.chunks_written, round(seconds, 3), rss, peak[0])
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    documents, chunks, seconds = int(out[0]), int(out[1]), float(out[2])
    return {
        "documents": documents,
        "chunks": chunks,
        "seconds": seconds,
        "peak_rss_mib": round(int(out[3]) / 1024, 1),
        "peak_tree_rss_mib": round(int(out[4]) / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPORA / "opensearch-docs")
    parser.add_argument(
        "--naive", type=int, default=2000, help="chunks for the one-request-per-chunk loop"
    )
    parser.add_argument("--no-rss", action="store_true", help="skip the 1x/4x memory runs")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds of raw and osrag (medians)"
    )
    args = parser.parse_args()
    url = cluster_url()
    options = IngestOptions(alias=f"osrag-bench-{uuid.uuid4().hex[:8]}")
    console.print(f"corpus {args.corpus} → {url}")

    pool_size = 2 if options.workers == 1 else 1
    runs: dict[str, list[dict[str, Any]]] = {"raw": [], "osrag": [], "other": []}
    for _round in range(args.rounds):  # interleaved, so machine noise hits each alike
        runs["raw"].append(_raw_bulk(url, args.corpus, options))
        runs["osrag"].append(_osrag(url, args.corpus, options))
        runs["other"].append(
            _osrag(url, args.corpus, dataclasses.replace(options, workers=pool_size))
        )
    raw, ours, other = (_median_run(runs[k]) for k in ("raw", "osrag", "other"))
    naive = _naive(url, args.corpus, options, args.naive)
    rows = [
        [
            "raw _bulk ceiling (pre-serialised NDJSON)",
            raw["chunks"],
            raw["seconds"],
            raw["chunks_per_s"],
            1.0,
        ],
        [
            "osrag ingest (load+chunk+extract+bulk)",
            ours["chunks"],
            ours["seconds"],
            ours["chunks_per_s"],
            round(ours["chunks_per_s"] / raw["chunks_per_s"], 3),
        ],
        [
            f"osrag ingest, --workers {pool_size}",
            other["chunks"],
            other["seconds"],
            other["chunks_per_s"],
            round(other["chunks_per_s"] / raw["chunks_per_s"], 3),
        ],
        [
            "naive: one request per chunk",
            naive["chunks"],
            naive["seconds"],
            naive["chunks_per_s"],
            round(naive["chunks_per_s"] / raw["chunks_per_s"], 3),
        ],
        [
            "osrag re-ingest, unchanged corpus",
            0,
            ours["reingest_seconds"],
            0.0,
            round(ours["reingest_seconds"] / ours["seconds"], 3),
        ],
    ]
    rows[1][0] = f"osrag ingest (load+chunk+extract+bulk, --workers {ours['workers']})"
    print_table(
        "ingest (ratio: of the raw ceiling; re-ingest: of the first ingest's time)",
        ["run", "chunks", "seconds", "chunks/s", "ratio"],
        rows,
    )
    payload: dict[str, Any] = {
        "corpus": str(args.corpus),
        "raw_bulk": raw,
        "osrag": ours,
        f"osrag_workers_{pool_size}": other,
        "naive": naive,
        "osrag_over_raw": rows[1][4],
        "reingest_over_first": rows[4][4],
    }
    if not args.no_rss:
        with tempfile.TemporaryDirectory(prefix="osrag-bench-4x-") as tmp:
            for n in range(4):
                shutil.copytree(args.corpus, Path(tmp) / f"copy{n}")
            one = _child_rss(url, args.corpus)
            four = _child_rss(url, Path(tmp))
        print_table(
            "peak RSS while ingesting (child process)",
            ["corpus", "documents", "chunks", "seconds", "peak RSS MiB", "tree, sampled MiB"],
            [
                [
                    "1x",
                    one["documents"],
                    one["chunks"],
                    one["seconds"],
                    one["peak_rss_mib"],
                    one["peak_tree_rss_mib"],
                ],
                [
                    "4x (copies under other ids)",
                    four["documents"],
                    four["chunks"],
                    four["seconds"],
                    four["peak_rss_mib"],
                    four["peak_tree_rss_mib"],
                ],
            ],
        )
        payload["rss"] = {
            "1x": one,
            "4x": four,
            "ratio_4x_over_1x": round(four["peak_rss_mib"] / one["peak_rss_mib"], 3),
        }
    path = write_results("ingest", payload)
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
