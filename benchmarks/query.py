"""Query latency: ``Searcher.search`` against the same request sent raw with opensearch-py.

    python benchmarks/query.py [--corpus PATH] [--queries N] [--rounds R]

Indexes ``shared/corpora/opensearch-docs`` (or ``--corpus``) into a temporary alias,
then times, interleaved in one run so machine noise hits every variant alike:

* ``raw match``      — ``client.search`` with only the ``match`` (OpenSearch's own work);
* ``raw osrag body`` — ``client.search`` with osrag's exact body (filters, highlight, the
  ``global`` candidate-count aggregation);
* ``Searcher``       — ``Searcher.search`` (analysis, planning, the request, shaping);
* the same three with an amount filter (an amount that is in the index), and
* ``fallback``       — an amount in no document: the filter empties the set, a second
  request runs without it.

osrag's overhead beyond OpenSearch's work = Searcher − raw osrag body (target ≤ 1 ms at
p50); the cost of the candidate count = raw osrag body − raw match; the fallback's cost =
fallback − Searcher with amount. Also compared: the count as a separate request and
``_msearch`` folding. Prints tables, writes ``benchmarks/results/query.json``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import CORPORA, client, cluster_url, console, print_table, summary, write_results

from osrag.backends.opensearch import OpenSearchBackend
from osrag.index import IngestOptions, ingest
from osrag.models import QuerySpec
from osrag.query import candidate_query, plan_query, request_body
from osrag.search import Searcher


def _query_texts(es: Any, alias: str, n: int, seed: int = 7) -> list[str]:
    """Real questions: headings of the indexed corpus (breadcrumb leaves)."""
    response = es.search(
        index=alias,
        body={"size": 0, "aggs": {"b": {"terms": {"field": "breadcrumb.keyword", "size": 5000}}}},
    )
    leaves = sorted({b["key"].split(" › ")[-1] for b in response["aggregations"]["b"]["buckets"]})
    rng = random.Random(seed)
    return rng.sample(leaves, min(n, len(leaves)))


def _an_indexed_amount(es: Any, alias: str) -> int:
    response = es.search(
        index=alias, body={"size": 0, "aggs": {"a": {"terms": {"field": "amounts", "size": 1}}}}
    )
    buckets = response["aggregations"]["a"]["buckets"]
    return int(buckets[0]["key"]) if buckets else 100


def _timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    started = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPORA / "opensearch-docs")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    url = cluster_url()
    es = client(url)
    backend = OpenSearchBackend(es)
    alias = f"osrag-bench-q-{uuid.uuid4().hex[:8]}"
    console.print(f"indexing {args.corpus} into {alias} …")
    ingest(args.corpus, backend, IngestOptions(alias=alias))
    try:
        texts = _query_texts(es, alias, args.queries)
        amount = _an_indexed_amount(es, alias)
        searcher = Searcher(backend, alias, enforce_access=False)
        searcher.generation()  # warm the generation cache as a long-lived searcher would be
        timings: dict[str, list[float]] = {
            k: []
            for k in (
                "raw match",
                "raw osrag body",
                "Searcher",
                "raw match + amount",
                "raw osrag body + amount",
                "Searcher + amount",
                "Searcher fallback",
                "count as 2nd request",
                "_msearch (search+count)",
            )
        }
        for text in texts[:20]:  # warm-up
            es.search(index=alias, body={"query": {"match": {"text": text}}})
        for _round in range(args.rounds):
            for text in texts:
                plain = QuerySpec(text=text, amount_filter=False)
                with_amount = QuerySpec(text=text, amount=amount)
                missing = QuerySpec(text=text, amount=123_456_789)
                plan = plan_query(plain)
                plan_amount = plan_query(with_amount)
                body = request_body(plan) | {
                    "aggs": {"c": {"global": {}, "aggs": {"f": {"filter": candidate_query(plan)}}}},
                    "track_total_hits": True,
                }
                body_amount = request_body(plan_amount) | {
                    "aggs": {
                        "c": {"global": {}, "aggs": {"f": {"filter": candidate_query(plan_amount)}}}
                    },
                    "track_total_hits": True,
                }
                raw_match = {"query": {"match": {"text": text}}, "size": 10}
                raw_match_amount = {
                    "query": {
                        "bool": {
                            "must": [{"match": {"text": text}}],
                            "filter": [{"term": {"amounts": amount}}],
                        }
                    },
                    "size": 10,
                }
                timings["raw match"].append(_timed(es.search, index=alias, body=raw_match))
                timings["raw osrag body"].append(_timed(es.search, index=alias, body=body))
                timings["Searcher"].append(_timed(searcher.search, plain))
                timings["raw match + amount"].append(
                    _timed(es.search, index=alias, body=raw_match_amount)
                )
                timings["raw osrag body + amount"].append(
                    _timed(es.search, index=alias, body=body_amount)
                )
                timings["Searcher + amount"].append(_timed(searcher.search, with_amount))
                timings["Searcher fallback"].append(_timed(searcher.search, missing))
                plain_body = request_body(plan_amount)
                count_body = {"query": candidate_query(plan_amount)}
                timings["count as 2nd request"].append(
                    _timed(es.search, index=alias, body=plain_body)
                    + _timed(es.count, index=alias, body=count_body)
                )
                ms_body = [
                    {},
                    plain_body,
                    {},
                    {"size": 0, "query": candidate_query(plan_amount), "track_total_hits": True},
                ]
                timings["_msearch (search+count)"].append(
                    _timed(es.msearch, index=alias, body=ms_body)
                )
        stats = {name: summary(values) for name, values in timings.items()}
        rows = [[name, s["n"], s["p50"], s["p99"], s["mean"]] for name, s in stats.items()]
        print_table("latency (ms), interleaved", ["variant", "n", "p50", "p99", "mean"], rows)
        derived = {
            "osrag_overhead_p50_ms": round(
                stats["Searcher"]["p50"] - stats["raw osrag body"]["p50"], 3
            ),
            "osrag_overhead_amount_p50_ms": round(
                stats["Searcher + amount"]["p50"] - stats["raw osrag body + amount"]["p50"], 3
            ),
            "candidate_count_cost_p50_ms": round(
                stats["raw osrag body"]["p50"] - stats["raw match"]["p50"], 3
            ),
            "fallback_cost_p50_ms": round(
                stats["Searcher fallback"]["p50"] - stats["Searcher + amount"]["p50"], 3
            ),
            "global_agg_vs_second_request_p50_ms": round(
                stats["count as 2nd request"]["p50"] - stats["raw osrag body + amount"]["p50"], 3
            ),
        }
        print_table("derived (p50, ms)", ["measure", "ms"], [[k, v] for k, v in derived.items()])
        path = write_results(
            "query",
            {
                "corpus": str(args.corpus),
                "queries": len(texts),
                "rounds": args.rounds,
                "amount": amount,
                "latency_ms": stats,
                "derived": derived,
            },
        )
        console.print(f"wrote {path}")
    finally:
        backend.purge_alias(alias)


if __name__ == "__main__":
    main()
