"""What the node's caches do for repeated amount filters: filter (query) cache and request cache.

    python benchmarks/query_caches.py [--alias bench-throughput] [--clients 4] [--seconds 6]

The ``amount`` workload of ``throughput.py`` (words and ``over $N``, each query a
caller with a tenant and an ACL group), in three query sets of 200 texts:

* ``same amount``: every query ``over $250,000`` (the words vary);
* ``distinct amounts``: every query its own amount (``over $<random>``, none repeated);
* ``exact repeats``: 20 full queries (words, amount, caller) sent over and over;

each under three request-cache settings: ``index default`` (the index setting on,
which caches only ``size: 0`` searches — the tenant probe), ``off``
(``index.requests.cache.enable: false``) and ``forced`` (``request_cache: true`` in
every ``_msearch`` header: the hits' query phase cached too). The Searcher's exact
lines are sent by the bare client (the Searcher sets no ``request_cache``); both caches
are cleared before each cell. Reports q/s, p50/p99 and the generation index's
``query_cache`` and ``request_cache`` counters (hits, misses, entries, memory) over
the cell. Writes ``benchmarks/results/query_caches.json``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import cluster_url, console, print_table, summary, write_results
from opensearchpy import OpenSearch
from throughput import Query, query_texts, run_threads, wire_lines

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.search.searcher import Searcher


def query_sets(n: int) -> dict[str, list[Query]]:
    words = [(text, who) for text, who in query_texts(n, access=True)["bm25"]]
    rng = random.Random(5)
    distinct = rng.sample(range(10_000, 5_000_000), n)
    return {
        "same amount": [(f"{t} over $250,000", who) for t, who in words],
        "distinct amounts": [
            (f"{t} over ${d:,}", who) for (t, who), d in zip(words, distinct, strict=True)
        ],
        "exact repeats": [(f"{t} over $250,000", who) for t, who in words[:20]],
    }


def counters(client: OpenSearch, index: str) -> dict[str, int]:
    stats = client.indices.stats(index=index, metric="query_cache,request_cache")
    total = stats["_all"]["total"]
    query, request = total["query_cache"], total["request_cache"]
    return {
        "query_cache_hits": query["hit_count"],
        "query_cache_misses": query["miss_count"],
        "query_cache_entries": query["cache_count"],
        "query_cache_bytes": query["memory_size_in_bytes"],
        "request_cache_hits": request["hit_count"],
        "request_cache_misses": request["miss_count"],
        "request_cache_bytes": request["memory_size_in_bytes"],
    }


def forced(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same ``_msearch`` lines with ``request_cache: true`` in every header."""
    return [{**line, "request_cache": True} if i % 2 == 0 else line for i, line in enumerate(lines)]


def cell(client: OpenSearch, index: str, alias: str, bodies: list[Any], args: Any) -> list[Any]:
    client.indices.clear_cache(index=index, query=True, request=True)
    before = counters(client, index)
    latencies, elapsed = run_threads(
        lambda body: client.msearch(index=alias, body=body),
        bodies,
        args.clients,
        args.seconds,
        1_000_000,
    )
    after = counters(client, index)
    ms = summary([1000 * x for x in latencies])
    delta = {k: after[k] - before[k] for k in after if not k.endswith("bytes")}
    delta |= {k: after[k] for k in after if k.endswith("bytes")}
    return [round(len(latencies) / elapsed, 1), ms["p50"], ms["p99"], delta]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alias", default="bench-throughput")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    client = OpenSearch(cluster_url(), timeout=60, http_compress=False, pool_maxsize=64)
    searcher = Searcher(OpenSearchIndex(client), args.alias)
    index = next(iter(client.indices.get_alias(name=args.alias)))
    rows: list[list[Any]] = []
    try:
        for name, queries in query_sets(args.queries).items():
            lines = [wire_lines(searcher, q, "bm25") for q in queries]
            for setting in ("index default", "off", "forced"):
                enabled = setting != "off"
                client.indices.put_settings(
                    index=index, body={"index": {"requests.cache.enable": enabled}}
                )
                bodies = [forced(x) for x in lines] if setting == "forced" else lines
                row = [name, setting, *cell(client, index, args.alias, bodies, args)]
                console.print(row)
                rows.append(row)
    finally:
        client.indices.put_settings(index=index, body={"index": {"requests.cache.enable": None}})
    columns = ["queries", "request cache", "q/s", "p50", "p99", "cache counters over the cell"]
    print_table(f"amount filters and the node's caches ({args.clients} clients)", columns, rows)
    chunks = int(client.count(index=args.alias)["count"])
    payload = {"chunks": chunks, "clients": args.clients, "columns": columns, "rows": rows}
    print(f"wrote {write_results('query_caches', payload)}")


if __name__ == "__main__":
    main()
