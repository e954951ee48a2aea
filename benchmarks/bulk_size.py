"""How big a ``_bulk`` request should be: the raw ceiling by request size and concurrency.

    python benchmarks/bulk_size.py [--chunks 60000] [--sizes 0.25,0.5,1,2,4,8,16,32]
                                   [--concurrency 1,2,4] [--rounds 2]

The engines' guidance is to grow the request until throughput stops growing
(a few MB to tens of MB). On the synthetic policy corpus
(``synthetic_corpus.py``), serialised once outside the timers, every request
size (MB, no count cap) is sent with every concurrency into a fresh index with
a generation's mapping and bulk-loading settings; rounds are interleaved and the
median round kept (the machine is shared; the best round is kept too). A request
the node refuses with 429 (its indexing-pressure limit, 10 % of the heap, counts
the bytes of every request in flight) is resent after a back-off and counted. The
plateau is the smallest size whose median chunks/s is within 5 % of the best:
osrag's defaults (:data:`osrag.ingestion.apply.BATCH_BYTES`, the writer count) come from it.
Prints a table and writes ``benchmarks/results/bulk_size.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _rawbulk
import synthetic_corpus
from _cluster import client, cluster_url, console, print_table, write_results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=60_000)
    parser.add_argument("--sizes", default="0.5,1,2,4,8,16", help="request MB")
    parser.add_argument("--concurrency", default="1,2,4")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "osrag-scale")
    args = parser.parse_args()
    url = cluster_url()
    es = client(url)
    corpus = args.work / f"corpus-{args.chunks}"
    if not (corpus / "CORPUS.json").is_file():
        synthetic_corpus.write_corpus(corpus, args.chunks)
    path = args.work / f"raw-{args.chunks}.ndjson"
    chunks = _rawbulk.ndjson(corpus, path)
    console.print(f"{chunks} chunks, {path.stat().st_size / 2**20:.1f} MiB of NDJSON → {url}")
    sizes = [float(s) for s in args.sizes.split(",")]
    threads = [int(c) for c in args.concurrency.split(",")]
    runs: dict[tuple[float, int], list[dict[str, Any]]] = {}
    loads: list[list[float]] = []
    for _ in range(args.rounds):
        for size in sizes:
            for concurrency in threads:
                loads.append([round(v, 2) for v in os.getloadavg()])
                run = _rawbulk.ceiling(
                    es,
                    path,
                    max_chunks=10**9,
                    max_bytes=int(size * 2**20),
                    concurrency=concurrency,
                )
                runs.setdefault((size, concurrency), []).append(run)
                console.print(
                    f"[dim]{size} MB × {concurrency}: {run['chunks_per_s']} chunks/s, "
                    f"{run['rejected_429']} × 429, load {loads[-1][0]}[/]"
                )

    def median(key: tuple[float, int]) -> float:
        rates = sorted(r["chunks_per_s"] for r in runs[key])
        return rates[len(rates) // 2]

    top = max(median(k) for k in runs)
    rows = []
    per_chunk = path.stat().st_size / chunks
    for size in sizes:
        row: list[Any] = [size, round(size * 2**20 / per_chunk)]
        for concurrency in threads:
            key = (size, concurrency)
            rejected = sum(r["rejected_429"] for r in runs[key])
            best = max(r["chunks_per_s"] for r in runs[key])
            pushed = f", {rejected}×429" if rejected else ""
            row.append(f"{median(key):,.0f} (best {best:,.0f}{pushed})")
        row.append(round(max(median((size, c)) for c in threads) / top, 3))
        rows.append(row)
    plateau = next(r[0] for r in rows if r[-1] >= 0.95)
    print_table(
        f"raw _bulk chunks/s by request size and writers (median of {args.rounds} rounds)",
        ["request MB", "≈ chunks", *[f"{c} writer(s)" for c in threads], "of best"],
        rows,
    )
    console.print(f"plateau (within 5 % of the best median) from {plateau} MB")
    write_results(
        "bulk_size",
        {
            "chunks": chunks,
            "ndjson_bytes": path.stat().st_size,
            "runs": [
                {"request_mb": size, "round": n, **run}
                for (size, _c), rounds in runs.items()
                for n, run in enumerate(rounds)
            ],
            "median_chunks_per_s": {f"{s}MB x{c}": median((s, c)) for s, c in runs},
            "plateau_mb": plateau,
            "load_averages": loads,
        },
    )


if __name__ == "__main__":
    main()
