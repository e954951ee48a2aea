"""Does BM25 inside the filtered candidate set rank differently with the index's
statistics (OpenSearch's behaviour) than with statistics of the candidate set alone
(what the reference lab does)?

    python benchmarks/candidate_stats.py [--corpus PATH --queries FILE]

For every labelled query that states one amount: the filtered ranking osrag returns
(term statistics of the whole index), and the ranking of the same match query on a
temporary index holding only the candidate chunks (statistics of the candidate set).
Reports how often the document order is identical, the mean top-5/top-10 overlap,
and the metrics under both. Prints a table, writes ``benchmarks/results/candidate_stats.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import ROOT, client, cluster_url, console, print_table, write_results

from osrag.engines.mapping import chunk_index_body
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.evaluation import dedupe_docs, mean_metrics, query_metrics, read_queries
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.query import bool_query, candidate_query
from osrag.search.searcher import Searcher


def _overlap(a: list[str], b: list[str], k: int) -> float:
    top_a, top_b = set(a[:k]), set(b[:k])
    return len(top_a & top_b) / max(1, min(k, max(len(top_a), len(top_b))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=ROOT / "examples" / "insurance")
    parser.add_argument(
        "--queries", type=Path, default=ROOT / "examples" / "insurance" / "queries.jsonl"
    )
    args = parser.parse_args()
    es = client(cluster_url())
    backend = OpenSearchIndex(es)
    alias = f"osrag-bench-cs-{uuid.uuid4().hex[:8]}"
    ingest(args.corpus, backend, IngestOptions(alias=alias))
    searcher = Searcher(backend, alias, enforce_access=False)
    rows: list[dict[str, Any]] = []
    index_metrics, candidate_metrics = [], []
    try:
        for q in read_queries(args.queries):
            plan = searcher.plan(q.query, k=100, highlight=False)
            if plan.amount is None:
                continue
            with_index_stats = searcher.search(q.query, k=100, highlight=False)
            if with_index_stats.fallback:
                continue
            candidates = es.search(
                index=alias, body={"query": candidate_query(plan), "size": 10_000}
            )["hits"]["hits"]
            temp = f"{alias}-cand-{q.id.lower()}"
            es.indices.create(index=temp, body=chunk_index_body())
            try:
                body = "".join(
                    f'{{"index":{{"_index":"{temp}","_id":{_json(h["_id"])}}}}}\n{_json(h["_source"])}\n'
                    for h in candidates
                )
                es.bulk(body=body, refresh=True)
                unfiltered = {"query": bool_query(plan, drop_amount=True), "size": 100}
                hits = es.search(index=temp, body=unfiltered)["hits"]["hits"]
            finally:
                es.indices.delete(index=temp)
            ranking_index = dedupe_docs(h.doc_id for h in with_index_stats.hits)
            ranking_cand = dedupe_docs(h["_source"]["doc_id"] for h in hits)
            index_metrics.append(query_metrics(ranking_index, q.relevant, [5, 10]))
            candidate_metrics.append(query_metrics(ranking_cand, q.relevant, [5, 10]))
            rows.append(
                {
                    "query": q.id,
                    "candidates": len(candidates),
                    "same_order": ranking_index == ranking_cand,
                    "overlap@5": _overlap(ranking_index, ranking_cand, 5),
                    "overlap@10": _overlap(ranking_index, ranking_cand, 10),
                }
            )
    finally:
        purge(backend, alias)
    same = sum(r["same_order"] for r in rows)
    summary = {
        "queries": len(rows),
        "identical_document_order": same,
        "mean_overlap@5": round(statistics.fmean(r["overlap@5"] for r in rows), 4)
        if rows
        else None,
        "mean_overlap@10": round(statistics.fmean(r["overlap@10"] for r in rows), 4)
        if rows
        else None,
        "metrics_index_statistics": mean_metrics(index_metrics),
        "metrics_candidate_statistics": mean_metrics(candidate_metrics),
    }
    print_table(
        "per query (one stated amount, filter applied)",
        ["query", "candidates", "same order", "overlap@5", "overlap@10"],
        [
            [r["query"], r["candidates"], r["same_order"], r["overlap@5"], r["overlap@10"]]
            for r in rows
        ],
    )
    metric_rows = [
        [m, summary["metrics_index_statistics"][m], summary["metrics_candidate_statistics"][m]]
        for m in summary["metrics_index_statistics"]
    ]
    print_table(
        "metrics",
        ["metric", "index statistics (OpenSearch)", "candidate-set statistics"],
        metric_rows,
    )
    console.print(
        f"{same}/{len(rows)} queries rank documents in the same order; "
        f"mean overlap@5 {summary['mean_overlap@5']}, @10 {summary['mean_overlap@10']}"
    )
    path = write_results(
        "candidate_stats", {"corpus": str(args.corpus), "summary": summary, "queries": rows}
    )
    console.print(f"wrote {path}")


def _json(value: Any) -> str:
    import json

    return json.dumps(value, default=str)


if __name__ == "__main__":
    main()
