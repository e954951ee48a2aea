"""Scoring across shards: does a 3-shard generation rank like a 1-shard one?

    OSRAG_BENCH_CLUSTER_URL=http://127.0.0.1:9520 python benchmarks/shards.py

BM25 takes its term statistics (document frequencies, average field length)
from the shard that holds a document. With several shards each scores with its
own statistics (``query_then_fetch``), which can reorder results — most of all
inside a small filtered candidate set, where a few documents decide. With
``dfs_query_then_fetch`` the statistics of every shard are gathered first, so
the scores are a single shard's, at the cost of one more round trip.

On the three-node cluster (``osrag node start --nodes 3``), for
``examples/insurance`` (37 labelled queries, 21 with an amount filter) and
Cranfield (1,400 abstracts, 225 queries), each corpus is ingested twice — 1 shard
and 3 shards, 1 replica each — and every query runs three ways: the 1-shard
generation (the reference), the 3-shard generation with ``query_then_fetch``
and with ``dfs_query_then_fetch``. Reported per way: nDCG@10, MAP, P@10,
recall@10 (document level), the queries whose top-10 document order differs
from the reference, the mean top-10 overlap, the largest score difference of
a chunk against the reference, and the mean ``Searcher.search`` time. Hits with
equal scores are ordered by chunk id first: a primary and its replica break ties
in different orders (their segments are built apart), which is not a scoring change.

``--latency-chunks N`` adds the cost side at a larger size: the synthetic policy
corpus of N chunks in a 3-shard generation, the scale benchmark's queries (with
and without an amount filter) timed with both search types, interleaved (p50/p99).
Prints tables and writes ``benchmarks/results/shards.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import CORPORA, ROOT, client, console, print_table, write_results

from osrag.engines.base import SearchType
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.evaluation import LabelledQuery, dedupe_docs, mean_metrics, query_metrics, read_queries
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.searcher import Searcher

WAYS: list[tuple[str, int, SearchType]] = [
    ("1 shard", 1, "query_then_fetch"),
    ("3 shards, query_then_fetch", 3, "query_then_fetch"),
    ("3 shards, dfs_query_then_fetch", 3, "dfs_query_then_fetch"),
]


def cluster() -> str:
    url = os.environ.get("OSRAG_BENCH_CLUSTER_URL")
    if url:
        return url
    from osrag import node

    port = int(os.environ.get("OSRAG_BENCH_CLUSTER_PORT", node.DEFAULT_CLUSTER_PORT))
    return node.start(port=port, nodes=3, progress=lambda m: console.print(f"[dim]{m}[/]")).url


def corpora() -> list[tuple[str, Path, list[LabelledQuery], int]]:
    insurance = ROOT / "examples" / "insurance"
    cranfield = CORPORA / "cranfield" / "derived"
    return [
        ("insurance", insurance, read_queries(insurance / "queries.jsonl"), 100),
        (
            "cranfield",
            cranfield / "corpus.jsonl",
            read_queries(cranfield / "queries.jsonl", cranfield / "qrels.tsv"),
            1000,
        ),
    ]


def run(searcher: Searcher, queries: list[LabelledQuery], depth: int) -> dict[str, dict[str, Any]]:
    """Per query: document ranking, chunk scores, metrics, whether an amount filtered, time."""
    answers: dict[str, dict[str, Any]] = {}
    for q in queries:
        started = time.perf_counter()
        result = searcher.search(
            q.query, k=depth, tenant=q.tenant, acl=q.acl, highlight=False, source_fields=[]
        )
        seconds = time.perf_counter() - started
        # equal scores come back in the order of the copy that answered (a primary and its
        # replica build their segments apart): order ties by chunk id, so a ranking
        # changes only when scores do
        hits = sorted(result.hits, key=lambda h: (-round(h.score or 0.0, 4), h.chunk_id))
        ranking = dedupe_docs(h.doc_id for h in hits)
        answers[q.id] = {
            "ranking": ranking,
            "scores": {h.chunk_id: h.score or 0.0 for h in result.hits},
            "metrics": query_metrics(ranking, q.relevant, [10]),
            "filtered": result.amount is not None and not result.fallback,
            "candidates": result.candidate_count,
            "ms": seconds * 1000,
        }
    return answers


def compare(
    reference: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]], only_filtered: bool
) -> dict[str, Any]:
    ids = [i for i in reference if reference[i]["filtered"] or not only_filtered]
    changed = [i for i in ids if reference[i]["ranking"][:10] != other[i]["ranking"][:10]]
    overlap = [
        len(set(reference[i]["ranking"][:10]) & set(other[i]["ranking"][:10]))
        / max(1, min(10, len(reference[i]["ranking"])))
        for i in ids
    ]
    drift = 0.0
    for i in ids:
        theirs = other[i]["scores"]
        for chunk, score in reference[i]["scores"].items():
            if chunk in theirs:
                drift = max(drift, abs(theirs[chunk] - score))
    return {
        "queries": len(ids),
        "top10_order_changed": len(changed),
        "changed": changed,
        "mean_top10_overlap": round(statistics.fmean(overlap), 4) if overlap else None,
        "max_score_difference": round(drift, 5),
        "metrics": mean_metrics([other[i]["metrics"] for i in ids]),
        "mean_ms": round(statistics.fmean(other[i]["ms"] for i in ids), 2) if ids else None,
    }


def latency(backend: OpenSearchIndex, chunks: int, work: Path, n: int) -> dict[str, Any]:
    """p50/p99 of both search types on a 3-shard generation of the synthetic corpus."""
    import synthetic_corpus
    from _cluster import summary
    from scale import queries

    corpus = work / f"corpus-{chunks}"
    if not (corpus / "CORPUS.json").is_file():
        synthetic_corpus.write_corpus(corpus, chunks)
    alias = f"osrag-bench-shl-{uuid.uuid4().hex[:8]}"
    took: dict[str, list[float]] = {}
    try:
        started = time.perf_counter()
        report = ingest(corpus, backend, IngestOptions(alias=alias, shards=3, replicas=1))
        ingest_seconds = time.perf_counter() - started
        pairs = queries(3, n)
        searchers = {
            t: Searcher(backend, alias, enforce_access=False, search_type=t)
            for t in ("query_then_fetch", "dfs_query_then_fetch")
        }
        for text, plain in pairs[:20]:
            for searcher in searchers.values():
                searcher.search(text)
                searcher.search(plain)
        for text, plain in pairs:
            for kind, searcher in searchers.items():
                for label, query in (("amount filter", text), ("no amount filter", plain)):
                    started = time.perf_counter()
                    searcher.search(query)
                    took.setdefault(f"{kind}, {label}", []).append(
                        (time.perf_counter() - started) * 1000
                    )
    finally:
        purge(backend, alias)
    return {
        "chunks": report.chunks_written,
        "ingest_seconds": round(ingest_seconds, 1),
        "ms": {k: summary(v) for k, v in took.items()},
        "load": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per way (min kept)")
    parser.add_argument("--latency-chunks", type=int, default=0)
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument("--work", type=Path, default=Path("/tmp/osrag-scale"))
    args = parser.parse_args()
    url = cluster()
    backend = OpenSearchIndex(client(url))
    console.print(f"cluster {url}: {backend.data_nodes()} data nodes")
    results: dict[str, Any] = {}
    for name, path, queries, depth in corpora():
        aliases = {1: f"osrag-bench-sh1-{uuid.uuid4().hex[:8]}"}
        aliases[3] = f"osrag-bench-sh3-{uuid.uuid4().hex[:8]}"
        try:
            for shards, alias in aliases.items():
                ingest(path, backend, IngestOptions(alias=alias, shards=shards, replicas=1))
            answers: dict[str, dict[str, dict[str, Any]]] = {}
            for _ in range(args.rounds):  # interleaved; the fastest round's times are kept
                for label, shards, search_type in WAYS:
                    searcher = Searcher(
                        backend, aliases[shards], enforce_access=False, search_type=search_type
                    )
                    got = run(searcher, queries, depth)
                    if label in answers:
                        for qid, answer in got.items():
                            kept = answers[label][qid]
                            kept["ms"] = min(kept["ms"], answer["ms"])
                            assert kept["ranking"] == answer["ranking"], (label, qid)
                    else:
                        answers[label] = got
        finally:
            for alias in aliases.values():
                purge(backend, alias)
        reference = answers[WAYS[0][0]]
        results[name] = {
            scope: {
                label: compare(reference, answers[label], scope == "filtered queries")
                for label, _, _ in WAYS
            }
            for scope in ("all queries", "filtered queries")
        }
        for scope, by_way in results[name].items():
            if not next(iter(by_way.values()))["queries"]:
                continue
            metric_names = ["ndcg@10", "map", "precision@10", "recall@10"]
            print_table(
                f"{name}: {scope} ({next(iter(by_way.values()))['queries']})",
                [
                    "way",
                    *metric_names,
                    "top-10 order changed",
                    "top-10 overlap",
                    "max |Δscore|",
                    "ms/query",
                ],
                [
                    [
                        label,
                        *(way["metrics"].get(m) for m in metric_names),
                        way["top10_order_changed"],
                        way["mean_top10_overlap"],
                        way["max_score_difference"],
                        way["mean_ms"],
                    ]
                    for label, way in by_way.items()
                ],
            )
    if args.latency_chunks:
        measured = latency(backend, args.latency_chunks, args.work, args.latency_queries)
        results["latency"] = measured
        print_table(
            f"search type cost on a 3-shard generation of {measured['chunks']:,} chunks",
            ["search type, query", "p50 ms", "p99 ms"],
            [[k, v["p50"], v["p99"]] for k, v in measured["ms"].items()],
        )
    path = write_results("shards", {"url": url, "results": results, "load": os.getloadavg()})
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
