"""The embedded backend beside OpenSearch: ingest throughput and query latency, one run.

    python benchmarks/embedded.py [--corpus PATH] [--queries N] [--rounds R]

On ``shared/corpora/opensearch-docs`` (or ``--corpus``):

1. **ingest**: ``ingest()`` end to end (load → chunk → extract → write → refresh) into
   a fresh alias on each backend — OpenSearch (``OSRAG_BENCH_URL`` / ``OSRAG_URL`` / a
   local node) and the embedded index (a temporary folder); chunks/s; then the
   re-ingest of the unchanged corpus (seconds);
2. **query latency**: ``Searcher.search`` with the same texts on both backends,
   interleaved query by query so machine noise hits both alike — plain BM25 (no
   amount), with an amount that is in the index (a filter), and with an amount in no
   document (the filter empties the set: fallback, a second query); p50/p99 in ms;
3. **size on disk** of each index;
4. **depth** (``--depth-only`` runs just this): the Cranfield collection repeated
   ``--copies`` times under new ids (8 × 1,400 = 11,200 documents, real text, many
   exact ties) on both backends, and its 225 queries at depth 1,000 the way
   ``osrag eval`` asks for them (no highlight, no ``_source`` beyond the ids and
   spans): as ranked chunks, and collapsed to one hit per document; p50/p99 in ms,
   for the engine alone (``ChunkIndex.search`` of the typed plan: osrag's hit records)
   and through the Searcher (which shapes every hit into a validated ``SearchHit``).

The texts are heading leaves of the corpus (what users ask about); the amount is the
most frequent one. Prints tables (with embedded ÷ OpenSearch ratios) and writes
``benchmarks/results/embedded.json``. Ratios, not absolute times, carry across machines.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import CORPORA, client, cluster_url, console, print_table, summary, write_results

from osrag.engines.base import ChunkIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document, ExtractionConfig, QuerySpec
from osrag.search.query import search_plan
from osrag.search.searcher import Searcher


def _texts_and_amount(corpus: Path, n: int, seed: int = 7) -> tuple[list[str], int]:
    """Heading leaves (the last breadcrumb part) and the most frequent amount. Not timed."""
    leaves: set[str] = set()
    amounts: Counter[int] = Counter()
    for item in load_corpus(corpus):
        if isinstance(item, Document):
            for chunk in prepare_chunks(item, ChunkingConfig(), ExtractionConfig()):
                leaves.add(chunk.breadcrumb.split(" › ")[-1])
                amounts.update(chunk.amounts)
    rng = random.Random(seed)
    texts = rng.sample(sorted(leaves), min(n, len(leaves)))
    return texts, (amounts.most_common(1)[0][0] if amounts else 100)


def _ingest(backend: ChunkIndex, corpus: Path, alias: str) -> dict[str, Any]:
    started = time.perf_counter()
    first = ingest(corpus, backend, IngestOptions(alias=alias))
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    again = ingest(corpus, backend, IngestOptions(alias=alias))
    reingest = time.perf_counter() - started
    assert again.chunks_written == 0, "re-ingest of an unchanged corpus wrote chunks"
    return {
        "documents": first.documents,
        "chunks": first.chunks_written,
        "seconds": round(seconds, 3),
        "chunks_per_s": round(first.chunks_written / seconds, 1),
        "reingest_seconds": round(reingest, 3),
        "generation": first.generation,
    }


def _repeated_cranfield(folder: Path, copies: int) -> tuple[Path, list[str]]:
    """Cranfield's abstracts ``copies`` times under new ids, and its query texts. Not timed."""
    import json

    derived = CORPORA / "cranfield" / "derived"
    corpus = folder / "cranfield-repeated.jsonl"
    lines = (derived / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    with corpus.open("w", encoding="utf-8") as handle:
        for copy in range(copies):
            for line in lines:
                record = json.loads(line)
                record["_id"] = f"c{copy}-{record['_id']}"
                handle.write(json.dumps(record) + "\n")
    queries = [
        json.loads(line)["text"]
        for line in (derived / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    return corpus, queries


def _depth(es: Any, url: str, copies: int, depth: int, rounds: int) -> dict[str, Any]:
    """Queries at depth on the repeated Cranfield collection, interleaved across backends."""
    alias = f"osrag-bench-depth-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="osrag-bench-depth-") as tmp:
        corpus, texts = _repeated_cranfield(Path(tmp), copies)
        backends: dict[str, ChunkIndex] = {
            "opensearch": OpenSearchIndex(es),
            "embedded": EmbeddedIndex(Path(tmp) / "embedded"),
        }
        try:
            documents = 0
            for backend in backends.values():
                documents = ingest(corpus, backend, IngestOptions(alias=alias)).documents
            searchers = {
                name: Searcher(b, alias, enforce_access=False) for name, b in backends.items()
            }
            variants = {
                "ranked chunks": lambda t: QuerySpec(
                    text=t, k=depth, amount_filter=False, highlight=False, source_fields=[]
                ),
                "one per document": lambda t: QuerySpec(
                    text=t,
                    k=depth,
                    amount_filter=False,
                    highlight=False,
                    source_fields=[],
                    collapse=True,
                ),
            }
            timings: dict[str, dict[str, list[float]]] = {
                name: {f"{layer}: {v}": [] for v in variants for layer in ("engine", "Searcher")}
                for name in backends
            }
            for text in texts[:20]:
                for searcher in searchers.values():
                    searcher.search(text, k=depth, highlight=False, source_fields=[])
            # the four measurements of a query run in a shuffled order: a JVM collecting
            # after a large response must not always land on the same one
            rng = random.Random(11)
            steps = [(name, layer) for name in backends for layer in ("engine", "Searcher")]
            for _round in range(rounds):
                for text in texts:
                    for variant, make in variants.items():
                        spec = make(text)
                        for name, layer in rng.sample(steps, len(steps)):
                            searcher = searchers[name]
                            if layer == "Searcher":
                                elapsed = _timed(searcher, spec)
                            else:
                                plan = search_plan(searcher.plan(spec))
                                started = time.perf_counter()
                                backends[name].search(alias, [plan])
                                elapsed = (time.perf_counter() - started) * 1000
                            timings[name][f"{layer}: {variant}"].append(elapsed)
        finally:
            for backend in backends.values():
                purge(backend, alias)
                backend.close()
    latency = {name: {v: summary(t) for v, t in per.items()} for name, per in timings.items()}
    rows = []
    for variant in latency["embedded"]:
        for q in ("p50", "p99"):
            a, b = latency["opensearch"][variant][q], latency["embedded"][variant][q]
            rows.append([f"{variant} {q}", a, b, b / a])
    print_table(
        f"depth {depth}: query latency, ms ({documents:,} documents, "
        f"{len(texts)} queries × {rounds} rounds, interleaved)",
        ["query", "opensearch", "embedded", "ratio"],
        rows,
    )
    return {"documents": documents, "depth": depth, "queries": len(texts), "latency_ms": latency}


def _timed(searcher: Searcher, spec: QuerySpec) -> float:
    started = time.perf_counter()
    searcher.search(spec)
    return (time.perf_counter() - started) * 1000


def _folder_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPORA / "opensearch-docs")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=8, help="depth: Cranfield copies")
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--depth-only", action="store_true", help="only the depth section")
    args = parser.parse_args()
    url = cluster_url()
    es = client(url)
    if args.depth_only:
        depth = _depth(es, url, args.copies, args.depth, args.rounds)
        console.print(f"wrote {write_results('embedded-depth', {'url': url, 'depth': depth})}")
        return
    alias = f"osrag-bench-emb-{uuid.uuid4().hex[:8]}"
    console.print(f"corpus {args.corpus}; OpenSearch at {url}; alias {alias}")
    texts, amount = _texts_and_amount(args.corpus, args.queries)

    with tempfile.TemporaryDirectory(prefix="osrag-bench-embedded-") as tmp:
        backends: dict[str, ChunkIndex] = {
            "opensearch": OpenSearchIndex(es),
            "embedded": EmbeddedIndex(Path(tmp) / "embedded"),
        }
        try:
            ingests = {name: _ingest(b, args.corpus, alias) for name, b in backends.items()}
            sizes = {
                "opensearch": round(
                    es.indices.stats(index=ingests["opensearch"]["generation"], metric="store")[
                        "_all"
                    ]["primaries"]["store"]["size_in_bytes"]
                    / 1e6,
                    1,
                ),
                "embedded": _folder_mb(Path(tmp) / "embedded"),
            }
            searchers = {
                name: Searcher(b, alias, enforce_access=False) for name, b in backends.items()
            }
            variants = {
                "plain": lambda t: QuerySpec(text=t, amount_filter=False),
                "amount filter": lambda t: QuerySpec(text=t, amount=amount),
                "fallback": lambda t: QuerySpec(text=t, amount=123_456_789),
            }
            timings: dict[str, dict[str, list[float]]] = {
                name: {v: [] for v in variants} for name in backends
            }
            for text in texts[:20]:  # warm-up: caches, JIT, page cache
                for searcher in searchers.values():
                    searcher.search(text)
            for _round in range(args.rounds):
                for text in texts:
                    for variant, make in variants.items():
                        spec = make(text)
                        for name, searcher in searchers.items():
                            timings[name][variant].append(_timed(searcher, spec))
        finally:
            for backend in backends.values():
                purge(backend, alias)
                backend.close()

    latency = {name: {v: summary(t) for v, t in per.items()} for name, per in timings.items()}
    os_in, emb_in = ingests["opensearch"], ingests["embedded"]
    print_table(
        "ingest (ratio: embedded ÷ OpenSearch)",
        ["measure", "opensearch", "embedded", "ratio"],
        [
            ["chunks", os_in["chunks"], emb_in["chunks"], ""],
            ["seconds", os_in["seconds"], emb_in["seconds"], emb_in["seconds"] / os_in["seconds"]],
            [
                "chunks/s",
                os_in["chunks_per_s"],
                emb_in["chunks_per_s"],
                emb_in["chunks_per_s"] / os_in["chunks_per_s"],
            ],
            [
                "re-ingest seconds",
                os_in["reingest_seconds"],
                emb_in["reingest_seconds"],
                emb_in["reingest_seconds"] / max(os_in["reingest_seconds"], 1e-9),
            ],
            ["size on disk MB", sizes["opensearch"], sizes["embedded"], ""],
        ],
    )
    rows = []
    for variant in variants:
        for q in ("p50", "p99"):
            a, b = latency["opensearch"][variant][q], latency["embedded"][variant][q]
            rows.append([f"{variant} {q}", a, b, b / a])
    print_table(
        f"Searcher.search latency, ms ({len(texts)} texts × {args.rounds} rounds, interleaved)",
        ["query", "opensearch", "embedded", "ratio"],
        rows,
    )
    path = write_results(
        "embedded",
        {
            "corpus": str(args.corpus),
            "url": url,
            "queries": len(texts),
            "rounds": args.rounds,
            "amount": amount,
            "ingest": ingests,
            "size_mb": sizes,
            "latency_ms": latency,
            "depth": _depth(es, url, args.copies, args.depth, args.rounds),
        },
    )
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
