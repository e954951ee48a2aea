"""Hybrid retrieval costs, side by side in one run on the same node.

* **Ingest with vectors vs without**: the same corpus (the first ``--files`` files of
  ``shared/corpora/opensearch-docs``) into two aliases, one with the offline default
  embedder; chunks/s of each, their ratio, and the embedder's own chunks/s. Then an
  unchanged re-ingest with vectors: chunks embedded (target 0) and its time.
* **Query latency, p50/p99** on the sample policies (``examples/insurance``), every
  labelled query, interleaved: bm25 vs vector vs hybrid through the Searcher; hybrid
  fused on the engine (osrag's search pipeline) vs in the client; the engine's own time
  for the same bodies (``ChunkIndex.msearch``) so osrag's overhead shows; and the cost of
  embedding the query, measured apart.

    python benchmarks/hybrid.py [--files 150] [--rounds 5]

Prints tables and writes ``benchmarks/results/hybrid.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _cluster import (
    CORPORA,
    ROOT,
    client,
    cluster_url,
    machine,
    print_table,
    summary,
    write_results,
)

from osrag.embedding import default_embedder
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import QuerySpec
from osrag.search.searcher import Searcher

EXAMPLES = ROOT / "examples" / "insurance"


class ClientFusion(OpenSearchIndex):
    """The same engine, fusing the hybrid legs in the client."""

    def fusion_pipeline(self, spec: Any) -> str | None:
        return None


def _corpus(folder: Path, files: int) -> Path:
    source = CORPORA / "opensearch-docs"
    picked = sorted(source.rglob("*.md"))[:files]
    for path in picked:
        target = folder / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return folder


def _ingest_costs(url: str, corpus: Path) -> dict[str, Any]:
    index = OpenSearchIndex(client(url))
    plain, embedded = (f"osrag-bench-hy-{uuid.uuid4().hex[:8]}" for _ in range(2))
    try:
        started = time.perf_counter()
        words = ingest(corpus, index, IngestOptions(alias=plain))
        plain_s = time.perf_counter() - started
        options = IngestOptions(alias=embedded, embedder="default")
        started = time.perf_counter()
        vectors = ingest(corpus, index, options)
        vectors_s = time.perf_counter() - started
        started = time.perf_counter()
        again = ingest(corpus, index, options)
        again_s = time.perf_counter() - started
    finally:
        purge(index, plain)
        purge(index, embedded)
    texts = ["umbrella liability coverage limits and exclusions " * 12] * 128
    model = default_embedder()
    model.embed(texts[:8])  # load once
    started = time.perf_counter()
    model.embed(texts)
    embed_rate = len(texts) / (time.perf_counter() - started)
    return {
        "chunks": words.chunks_written,
        "without_vectors_chunks_per_s": round(words.chunks_written / plain_s, 1),
        "with_vectors_chunks_per_s": round(vectors.chunks_written / vectors_s, 1),
        "ratio": round(plain_s / vectors_s, 3),
        "embedded_chunks": vectors.chunks_embedded,
        "embedder_texts_per_s": round(embed_rate, 1),
        "reingest_chunks_embedded": again.chunks_embedded,
        "reingest_seconds": round(again_s, 2),
        "first_with_vectors_seconds": round(vectors_s, 2),
    }


def _query_costs(url: str, rounds: int) -> dict[str, Any]:
    index = OpenSearchIndex(client(url))
    alias = f"osrag-bench-hy-{uuid.uuid4().hex[:8]}"
    ingest(EXAMPLES, index, IngestOptions(alias=alias, embedder="default"))
    try:
        queries = [json.loads(line)["query"] for line in (EXAMPLES / "queries.jsonl").open()]
        server = Searcher(index, alias, enforce_access=False)
        clientside = Searcher(ClientFusion(client(url)), alias, enforce_access=False)
        embedder = server.embedder()
        variants: dict[str, Any] = {
            "bm25": (server, "bm25"),
            "vector": (server, "vector"),
            "hybrid, fused on the engine": (server, "hybrid"),
            "hybrid, fused in the client": (clientside, "hybrid"),
        }
        timings: dict[str, list[float]] = {}
        rng = random.Random(5)
        for _round in range(rounds + 1):
            for text in queries:
                vector = [float(x) for x in embedder.embed_queries([text])[0]]
                for name in rng.sample(list(variants), len(variants)):
                    searcher, mode = variants[name]
                    spec = QuerySpec(text=text, mode=mode, k=10, highlight=False)
                    plan = searcher.plan(spec)
                    bodies, _pipeline = searcher.bodies(plan, vector)
                    started = time.perf_counter()
                    searcher.index.msearch(alias, bodies)
                    engine = (time.perf_counter() - started) * 1000
                    started = time.perf_counter()
                    searcher.search(spec)
                    whole = (time.perf_counter() - started) * 1000
                    if _round:  # the first round warms caches and the JVM
                        timings.setdefault(f"{name}: engine", []).append(engine)
                        timings.setdefault(f"{name}: Searcher", []).append(whole)
                started = time.perf_counter()
                embedder.embed_queries([text])
                if _round:
                    timings.setdefault("embedding the query", []).append(
                        (time.perf_counter() - started) * 1000
                    )
    finally:
        purge(index, alias)
    return {name: summary(values) for name, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    url = cluster_url()
    with tempfile.TemporaryDirectory(prefix="osrag-bench-hybrid-") as tmp:
        ingest_costs = _ingest_costs(url, _corpus(Path(tmp) / "docs", args.files))
    print_table(
        f"ingest with vectors vs without ({ingest_costs['chunks']:,} chunks)",
        ["measure", "value"],
        [[k, v] for k, v in ingest_costs.items()],
    )
    latency = _query_costs(url, args.rounds)
    rows = [[name, s["p50"], s["p99"]] for name, s in latency.items()]
    print_table("query latency, ms (37 queries × rounds, interleaved)", ["", "p50", "p99"], rows)
    path = write_results(
        "hybrid", {"machine": machine(), "ingest": ingest_costs, "latency_ms": latency}
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
