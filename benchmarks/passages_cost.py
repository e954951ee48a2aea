"""What a context costs a search: the one extra request and the assembly, at 100k chunks.

    python benchmarks/passages_cost.py [--chunks 100000] [--queries 200] [--k 10]
                                       [--budget 1024] [--work DIR] [--url URL]

Writes the synthetic policy corpus (``synthetic_corpus.py``, seed 7; reused when ``--work``
already holds it), ingests it into a temporary alias on OpenSearch (``--url``, else
``OSRAG_BENCH_URL``, else a local node) and into a temporary embedded index, then times
``Searcher.search`` per query — interleaved, so machine noise hits every variant alike —
without a context and with each of ``neighbours``, ``section`` and ``table`` (``--k``
hits, ``--budget`` tokens). The questions are ``scale.py``'s (a topic and "limit",
without the amount). Per engine: p50/p99 of each variant, of the time added to the same
query's plain search (paired), of the assembly alone (no I/O: the report's
``assembly_ms``), and the chunks the extra request read. Prints tables, writes
``benchmarks/results/passages_cost.json``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic_corpus
from _cluster import RESULTS, client, cluster_url, print_table, summary, write_results
from scale import queries

from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.schema.passages import ContextRequest
from osrag.search.searcher import Searcher

KINDS = ("neighbours", "section", "table")


def _time(
    searcher: Searcher, text: str, k: int, context: ContextRequest | None
) -> tuple[float, Any]:
    started = time.perf_counter()
    result = searcher.search(text, k=k, mode="bm25", context=context)
    return (time.perf_counter() - started) * 1000, result


def measure(searcher: Searcher, texts: list[str], k: int, budget: int) -> dict[str, Any]:
    """Every variant per query, interleaved; p50/p99 and paired differences."""
    requests = {kind: ContextRequest(kind=kind, budget=budget) for kind in KINDS}  # type: ignore[arg-type]
    for text in texts[:20]:  # warm the caches alike
        _time(searcher, text, k, None)
        for request in requests.values():
            _time(searcher, text, k, request)
    took: dict[str, list[float]] = {"plain": []}
    added: dict[str, list[float]] = {}
    assembly: dict[str, list[float]] = {}
    read: dict[str, list[int]] = {}
    for text in texts:
        plain, _ = _time(searcher, text, k, None)
        took["plain"].append(plain)
        for kind, request in requests.items():
            total, result = _time(searcher, text, k, request)
            took.setdefault(kind, []).append(total)
            added.setdefault(kind, []).append(total - plain)
            report = result.context
            read.setdefault(kind, []).append(report.chunks_read if report else 0)
            assembly.setdefault(kind, []).append(report.assembly_ms if report else 0.0)
    return {
        "search": {name: summary(values) for name, values in took.items()},
        "added": {name: summary(values) for name, values in added.items()},
        "assembly_ms": {name: summary(values) for name, values in assembly.items()},
        "chunks_read": {name: summary([float(v) for v in values]) for name, values in read.items()},
    }


def _ingested(engine: Any, corpus: Path) -> tuple[str, int, float]:
    alias = f"osrag-bench-passages-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    ingest(corpus, engine, IngestOptions(alias=alias))
    return alias, engine.count(alias), time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--budget", type=int, default=1024)
    parser.add_argument("--work", type=Path, default=RESULTS / "synthetic")
    parser.add_argument("--url", help="OpenSearch (default: OSRAG_BENCH_URL, else a local node)")
    parser.add_argument("--engines", default="opensearch,embedded")
    args = parser.parse_args(argv)
    corpus = args.work / f"chunks-{args.chunks}"
    written = synthetic_corpus.write_corpus(corpus, args.chunks, seed=7)
    texts = [plain for _, plain in queries(3, args.queries)]
    results: dict[str, Any] = {"corpus": vars(written), "k": args.k, "budget": args.budget}
    with tempfile.TemporaryDirectory() as home:
        engines: dict[str, Any] = {}
        if "opensearch" in args.engines:
            engines["opensearch"] = OpenSearchIndex(client(args.url or cluster_url()))
        if "embedded" in args.engines:
            engines["embedded"] = EmbeddedIndex(Path(home) / "embedded")
        for name, engine in engines.items():
            alias, chunks, seconds = _ingested(engine, corpus)
            try:
                found = measure(
                    Searcher(engine, alias, enforce_access=False), texts, args.k, args.budget
                )
            finally:
                purge(engine, alias)
            results[name] = {"chunks": chunks, "ingest_seconds": round(seconds, 1), **found}
            _print(name, chunks, found)
    print(f"→ {write_results('passages_cost', results)}")
    return 0


def _print(name: str, chunks: int, found: dict[str, Any]) -> None:
    rows = [
        ["plain", found["search"]["plain"]["p50"], found["search"]["plain"]["p99"], "", "", "", ""]
    ]
    for kind in KINDS:
        rows.append(
            [
                kind,
                found["search"][kind]["p50"],
                found["search"][kind]["p99"],
                found["added"][kind]["p50"],
                found["added"][kind]["p99"],
                found["assembly_ms"][kind]["p50"],
                found["chunks_read"][kind]["p50"],
            ]
        )
    print_table(
        f"{name}, {chunks:,} chunks: Searcher.search ms",
        ["context", "p50", "p99", "added p50", "added p99", "assembly p50", "chunks read p50"],
        rows,
    )


if __name__ == "__main__":
    sys.exit(main())
