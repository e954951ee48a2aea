"""Query latency: ``Searcher.search`` against the same request sent raw with opensearch-py.

    python benchmarks/query.py [--corpus PATH] [--queries N] [--rounds R]

Indexes ``shared/corpora/opensearch-docs`` (or ``--corpus``) into a temporary alias,
then times, interleaved in one run so machine noise hits every variant alike, each
without and with an amount filter (an amount that is in the index):

* ``raw match`` — the request a user would send without osrag (OpenSearch's own work);
* ``osrag body, no highlight, no count`` / ``osrag body, no count`` — osrag's request
  without the candidate count (and without the highlight);
* ``osrag request as sent`` — exactly what the Searcher sends (``search_bodies``: one
  ``_msearch`` with the search — filters, highlight — and the count of its candidate set);
* ``Searcher.search`` — analysis, planning, the request, shaping the result;
* ``+ range`` — the question with a comparison appended (``… over $N``): the constraint
  parser reads it and the filter is a ``range``; ``plan_query`` alone times the analysis
  and planning without any request;
* ``Searcher.search fallback`` — an amount in no document: a second request runs
  without the amount filter; and the count folded other ways (a second ``_count``
  request, a ``global`` aggregation inside the search);
* ``AsyncSearcher`` in flight — the same searches (without and with the amount) through
  one :class:`osrag.AsyncSearcher` with 1, 8 and 32 requests in flight (``--in-flight``):
  p50/p99 per search and searches per second, beside the sync Searcher shared by as
  many threads.

osrag's overhead beyond OpenSearch's work = Searcher − request as sent (target ≤ 1 ms
at p50; with an amount also over only the searches that did not fall back, since a
fallback — without the amount, or the amount's candidates without the text — is a
second request; and how many fell back); the candidate count's cost = request as sent −
body without count. Prints tables, writes ``benchmarks/results/query.json``.
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
from _concurrency import in_flight

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import QuerySpec
from osrag.search.query import bool_query, candidate_query, plan_query, request_body, search_bodies
from osrag.search.searcher import Searcher


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


def _paired_overhead(p50: dict[str, float], label: str) -> float | None:
    """Searcher − request as sent over the searches that did not fall back (a fallback
    is a second request, the price of an amount no candidate holds, not overhead)."""
    searched = p50.get(f"Searcher.search{label}, no fallback")
    sent = p50.get(f"request as sent{label}, no fallback")
    return None if searched is None or sent is None else round(searched - sent, 3)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPORA / "opensearch-docs")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--in-flight",
        default="1,8,32",
        help="concurrency levels for the AsyncSearcher runs, comma-separated ('' skips them)",
    )
    args = parser.parse_args()
    levels = [int(n) for n in args.in_flight.split(",") if n.strip()]
    url = cluster_url()
    es = client(url)
    backend = OpenSearchIndex(es)
    alias = f"osrag-bench-q-{uuid.uuid4().hex[:8]}"
    console.print(f"indexing {args.corpus} into {alias} …")
    ingest(args.corpus, backend, IngestOptions(alias=alias))
    try:
        texts = _query_texts(es, alias, args.queries)
        amount = _an_indexed_amount(es, alias)
        searcher = Searcher(backend, alias, enforce_access=False)
        searcher.generation()  # warm the generation cache as a long-lived searcher would be
        enforced = Searcher(backend, alias)  # an end user's view: guards, the tenant probe
        enforced.generation()
        timings: dict[str, list[float]] = {}
        fallbacks: dict[str, int] = {}

        def timed(name: str, fn: Any, *a: Any, **kw: Any) -> None:
            timings.setdefault(name, []).append(_timed(fn, *a, **kw))

        for text in texts[:20]:  # warm-up
            es.search(index=alias, body={"query": {"match": {"text": text}}})
        for _round in range(args.rounds):
            for text in texts:
                for label, spec in (
                    ("", QuerySpec(text=text, amount_filter=False, unrestricted=True)),
                    (" + amount", QuerySpec(text=text, amount=amount, unrestricted=True)),
                    (
                        " + range",
                        QuerySpec(text=f"{text} over ${amount // 100:,}", unrestricted=True),
                    ),
                ):
                    timed(f"plan_query{label}", plan_query, spec)
                    plan = plan_query(spec)
                    # exactly what the Searcher sends: the search and its candidate count
                    sent = [line for body in search_bodies(plan) for line in ({}, body)]
                    no_count = request_body(plan)
                    no_highlight = {k: v for k, v in no_count.items() if k != "highlight"}
                    raw = {"query": bool_query(plan), "size": spec.k}
                    if not label:
                        raw = {"query": {"match": {"text": text}}, "size": spec.k}
                    timed(f"raw match{label}", es.search, index=alias, body=raw)
                    timed(
                        f"osrag body, no highlight, no count{label}",
                        es.search,
                        index=alias,
                        body=no_highlight,
                    )
                    timed(f"osrag body, no count{label}", es.search, index=alias, body=no_count)
                    sent_ms = _timed(es.msearch, index=alias, body=sent)
                    timings.setdefault(f"osrag request as sent{label}", []).append(sent_ms)
                    started = time.perf_counter()
                    result = searcher.search(spec)
                    searched_ms = (time.perf_counter() - started) * 1000
                    timings.setdefault(f"Searcher.search{label}", []).append(searched_ms)
                    if result.fallback or result.text_fallback:  # a second request
                        fallbacks[label] = fallbacks.get(label, 0) + 1
                    else:
                        paired = timings.setdefault(f"Searcher.search{label}, no fallback", [])
                        paired.append(searched_ms)
                        timings.setdefault(f"request as sent{label}, no fallback", []).append(
                            sent_ms
                        )
                    user = spec.model_copy(update={"unrestricted": False})
                    timed(f"Searcher.search, access enforced{label}", enforced.search, user)
                    if label == " + amount":
                        count_body = {"query": candidate_query(plan)}
                        timings.setdefault("search + count as a 2nd request", []).append(
                            _timed(es.search, index=alias, body=no_count)
                            + _timed(es.count, index=alias, body=count_body)
                        )
                        global_agg = no_count | {
                            "aggs": {
                                "c": {
                                    "global": {},
                                    "aggs": {"f": {"filter": candidate_query(plan)}},
                                }
                            }
                        }
                        timed(
                            "search with a global count aggregation",
                            es.search,
                            index=alias,
                            body=global_agg,
                        )
                        missing = QuerySpec(text=text, amount=123_456_789)
                        timed("Searcher.search fallback", searcher.search, missing)
        stats = {name: summary(values) for name, values in timings.items()}
        rows = [[name, s["n"], s["p50"], s["p99"], s["mean"]] for name, s in stats.items()]
        print_table("latency (ms), interleaved", ["variant", "n", "p50", "p99", "mean"], rows)
        p50 = {name: s["p50"] for name, s in stats.items()}
        derived = {
            "osrag_overhead_p50_ms": round(
                p50["Searcher.search"] - p50["osrag request as sent"], 3
            ),
            "access_guards_and_tenant_probe_p50_ms": round(
                p50["Searcher.search, access enforced"] - p50["Searcher.search"], 3
            ),
            "osrag_overhead_amount_p50_ms": round(
                p50["Searcher.search + amount"] - p50["osrag request as sent + amount"], 3
            ),
            "osrag_overhead_range_p50_ms": round(
                p50["Searcher.search + range"] - p50["osrag request as sent + range"], 3
            ),
            "osrag_overhead_amount_no_fallback_p50_ms": _paired_overhead(p50, " + amount"),
            "osrag_overhead_range_no_fallback_p50_ms": _paired_overhead(p50, " + range"),
            "searches_that_fell_back": {
                label or "no amount": fallbacks.get(label, 0)
                for label in ("", " + amount", " + range")
            },
            "searches_per_variant": len(texts) * args.rounds,
            "constraint_parsing_p50_ms": round(p50["plan_query + range"] - p50["plan_query"], 3),
            "candidate_count_cost_p50_ms": round(
                p50["osrag request as sent + amount"] - p50["osrag body, no count + amount"], 3
            ),
            "highlight_cost_p50_ms": round(
                p50["osrag body, no count"] - p50["osrag body, no highlight, no count"], 3
            ),
            "fallback_cost_p50_ms": round(
                p50["Searcher.search fallback"] - p50["Searcher.search + amount"], 3
            ),
            "count_as_2nd_request_minus_msearch_p50_ms": round(
                p50["search + count as a 2nd request"] - p50["osrag request as sent + amount"], 3
            ),
            "global_agg_minus_msearch_p50_ms": round(
                p50["search with a global count aggregation"]
                - p50["osrag request as sent + amount"],
                3,
            ),
        }
        print_table("derived (p50, ms)", ["measure", "ms"], [[k, v] for k, v in derived.items()])
        concurrent = in_flight(url, alias, texts, amount, levels, args.rounds) if levels else []
        print_table(
            "requests in flight (ms per search): AsyncSearcher | Searcher in as many threads",
            ["in flight", "n", "p50", "p99", "searches/s", "| p50", "p99", "searches/s"],
            [
                [c["in_flight"], c["n"], c["p50"], c["p99"], c["per_second"]]
                + [c["threads"][name] for name in ("p50", "p99", "per_second")]
                for c in concurrent
            ],
        )
        path = write_results(
            "query",
            {
                "corpus": str(args.corpus),
                "queries": len(texts),
                "rounds": args.rounds,
                "amount": amount,
                "latency_ms": stats,
                "derived": derived,
                "async_in_flight": concurrent,
            },
        )
        console.print(f"wrote {path}")
    finally:
        purge(backend, alias)


if __name__ == "__main__":
    main()
