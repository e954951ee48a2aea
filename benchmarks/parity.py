"""Parity of the embedded backend with OpenSearch, measured on the same corpora and queries.

    python benchmarks/parity.py [--depth N]

For the sample corpus (``examples/insurance``, its 37 labelled queries) and Cranfield
(``shared/corpora/cranfield/derived``, 225 queries, qrels), in one run:

1. the corpus is ingested into both backends (OpenSearch: ``OSRAG_BENCH_URL`` /
   ``OSRAG_URL`` / a local node; embedded: a temporary folder);
2. ``run_evaluation`` runs the labelled queries on each (osrag's default query; on the
   sample corpus also plain BM25 without the amount filter): recall, precision, MRR,
   nDCG, MAP per backend;
3. the **document overlap** of the two rankings of each query at 5 and at 10 —
   ``|A_k ∩ B_k| / max(|A_k|, |B_k|)`` (1 when both are empty) — averaged over queries;
4. the **candidate count** of every query stating one amount, per backend: they must
   be identical (the same filter over the same chunks).

Targets: mean top-5 overlap ≥ 0.8; nDCG@10 within 0.02 of OpenSearch;
identical candidate counts. Prints a table and writes ``benchmarks/results/parity.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import CORPORA, ROOT, client, cluster_url, console, print_table, write_results

from osrag.engines.base import ChunkIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.evaluation import EvalConfig, LabelledQuery, read_queries, run_evaluation
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.analysis import analyze_query
from osrag.search.searcher import Searcher

DATASETS = {
    "insurance": (
        ROOT / "examples" / "insurance",
        ROOT / "examples" / "insurance" / "queries.jsonl",
        None,
    ),
    "cranfield": (
        CORPORA / "cranfield" / "derived" / "corpus.jsonl",
        CORPORA / "cranfield" / "derived" / "queries.jsonl",
        CORPORA / "cranfield" / "derived" / "qrels.tsv",
    ),
}


def overlap(left: list[str], right: list[str], k: int) -> float:
    a, b = left[:k], right[:k]
    if not a and not b:
        return 1.0
    return len(set(a) & set(b)) / max(len(a), len(b))


def _evaluate(
    backend: ChunkIndex,
    corpus: Path,
    queries: list[LabelledQuery],
    configs: list[EvalConfig],
    depth: int,
) -> dict[str, Any]:
    alias = f"osrag-parity-{uuid.uuid4().hex[:8]}"
    try:
        started = time.perf_counter()
        report = ingest(corpus, backend, IngestOptions(alias=alias))
        ingest_s = time.perf_counter() - started
        started = time.perf_counter()
        evaluation = run_evaluation(
            queries, backend, alias=alias, configs=configs, ks=[5, 10], depth=depth
        )
        eval_s = time.perf_counter() - started
        searcher = Searcher(backend, alias, enforce_access=False)
        candidates: dict[str, int] = {}
        for q in queries:
            if analyze_query(q.query).amount is not None:
                result = searcher.search(q.query, k=1, highlight=False)
                candidates[q.id] = result.candidate_count
        return {
            "chunks": report.chunks_written,
            "ingest_seconds": round(ingest_s, 3),
            "eval_seconds": round(eval_s, 3),
            "configs": {c.name: c for c in evaluation.configs},
            "candidates": candidates,
        }
    finally:
        purge(backend, alias)


def _compare(name: str, depth: int, cluster: ChunkIndex, embedded: ChunkIndex) -> dict[str, Any]:
    corpus, queries_file, qrels = DATASETS[name]
    queries = read_queries(queries_file, qrels)
    configs = [EvalConfig("osrag", {})]
    if qrels is None:
        configs.append(EvalConfig("bm25 (no amount filter)", {"amount_filter": False}))
    console.print(f"[bold]{name}[/bold]: {len(queries)} queries, depth {depth}")
    runs = {
        "opensearch": _evaluate(cluster, corpus, queries, configs, depth),
        "embedded": _evaluate(embedded, corpus, queries, configs, depth),
    }
    out: dict[str, Any] = {"queries": len(queries), "depth": depth, "configs": {}}
    for config in configs:
        theirs = runs["opensearch"]["configs"][config.name]
        ours = runs["embedded"]["configs"][config.name]
        judged = sorted(theirs.rankings)
        at5 = [overlap(ours.rankings.get(q, []), theirs.rankings[q], 5) for q in judged]
        at10 = [overlap(ours.rankings.get(q, []), theirs.rankings[q], 10) for q in judged]
        identical = sum(ours.rankings.get(q, [])[:10] == theirs.rankings[q][:10] for q in judged)
        out["configs"][config.name] = {
            "metrics": {"opensearch": theirs.metrics, "embedded": ours.metrics},
            "overlap@5": round(statistics.fmean(at5), 4),
            "overlap@10": round(statistics.fmean(at10), 4),
            "min_overlap@5": round(min(at5), 4),
            "identical_top10_rankings": identical,
            "judged_queries": len(judged),
            "ndcg@10_difference": round(ours.metrics["ndcg@10"] - theirs.metrics["ndcg@10"], 4),
        }
    cands_os, cands_emb = runs["opensearch"]["candidates"], runs["embedded"]["candidates"]
    out["amount_queries"] = {
        q: {"opensearch": cands_os[q], "embedded": cands_emb.get(q)} for q in sorted(cands_os)
    }
    out["candidate_counts_identical"] = cands_os == cands_emb
    out["chunks"] = {k: v["chunks"] for k, v in runs.items()}
    out["seconds"] = {
        k: {"ingest": v["ingest_seconds"], "eval": v["eval_seconds"]} for k, v in runs.items()
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--depth", type=int, default=100, help="chunks retrieved per query")
    args = parser.parse_args()
    url = cluster_url()
    cluster = OpenSearchIndex(client(url))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="osrag-parity-") as tmp:
        embedded = EmbeddedIndex(Path(tmp) / "embedded")
        for name in DATASETS:
            results[name] = _compare(name, args.depth, cluster, embedded)
        embedded.close()

    metric_names = ["ndcg@10", "map", "recall@10", "precision@10", "mrr"]
    rows = []
    for name, result in results.items():
        for config, c in result["configs"].items():
            for kind in ("opensearch", "embedded"):
                m = c["metrics"][kind]
                rows.append([name, config, kind, *(round(m.get(x, 0.0), 4) for x in metric_names)])
    print_table("metrics per backend", ["corpus", "query", "backend", *metric_names], rows)
    rows = []
    for name, result in results.items():
        for config, c in result["configs"].items():
            rows.append(
                [
                    name,
                    config,
                    c["overlap@5"],
                    c["overlap@10"],
                    c["min_overlap@5"],
                    f"{c['identical_top10_rankings']}/{c['judged_queries']}",
                    c["ndcg@10_difference"],
                ]
            )
    print_table(
        "parity (targets: overlap@5 ≥ 0.8, |Δ nDCG@10| ≤ 0.02)",
        ["corpus", "query", "overlap@5", "overlap@10", "min overlap@5", "same top 10", "Δ nDCG@10"],
        rows,
    )
    rows = [
        [
            name,
            q,
            counts["opensearch"],
            counts["embedded"],
            counts["opensearch"] == counts["embedded"],
        ]
        for name, result in results.items()
        for q, counts in result["amount_queries"].items()
    ]
    print_table(
        "candidate count of every query stating one amount",
        ["corpus", "query", "opensearch", "embedded", "identical"],
        rows,
    )
    worst5 = min(c["overlap@5"] for r in results.values() for c in r["configs"].values())
    worst_ndcg = max(
        abs(c["ndcg@10_difference"]) for r in results.values() for c in r["configs"].values()
    )
    identical = all(r["candidate_counts_identical"] for r in results.values())
    verdict = {
        "min_mean_overlap@5": worst5,
        "max_abs_ndcg@10_difference": worst_ndcg,
        "candidate_counts_identical": identical,
        "targets_met": worst5 >= 0.8 and worst_ndcg <= 0.02 and identical,
    }
    console.print(verdict)
    path = write_results("parity", {"url": url, "datasets": results, "verdict": verdict})
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
