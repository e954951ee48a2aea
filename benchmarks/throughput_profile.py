"""Where a Searcher query's client-side time goes, beside the bare client's same request.

    python benchmarks/throughput_profile.py [--alias bench-throughput] [--queries 300]
                                            [--workloads bm25 amount] [--access]

One client, one query at a time (no load, so the node answers at its fastest and the
client's share is as large as it gets). For each workload: the same query texts as
``throughput.py``, each sent through :meth:`Searcher.search` and through the bare
client (``client.msearch`` of the exact lines, built beforehand). Reports, per query:

* the mean wall time of the Searcher's stages, timed one by one around the
  Searcher's own public steps (``plan``, ``query_vector``, ``requests``, the engine's
  ``msearch`` — HTTP, node, JSON decode, the shard check —, ``answered``, the result's
  shaping), beside the bare ``client.msearch``;
* the client process's CPU time per query (``time.process_time``: what the client
  itself burns, whatever the node's wait), Searcher against bare;
* HTTP requests per search (counted at the transport);
* with ``--total-hits-cap N``: the bare lines as they are (``track_total_hits: true``)
  and with the hits' total capped at N — wall and node CPU per query (``--node-pid``);
* the top functions by own time under :mod:`cProfile` over the whole
  :meth:`Searcher.search` (``--top``), and the functions whose own time under the
  Searcher exceeds the bare client's for the same requests (ms a query; socket waits
  left out) — where the Searcher's extra client CPU goes.

Writes ``benchmarks/results/throughput_profile.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import cluster_url, console, write_results
from opensearchpy import OpenSearch
from throughput import Query, cpu_seconds, query_texts, wire_lines

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.search.ladder import Ladder
from osrag.search.results import answering_index, shape_result
from osrag.search.searcher import Searcher


class CountingTransport:
    """Counts the HTTP requests a client's transport performs (passes each one on)."""

    def __init__(self, client: OpenSearch) -> None:
        self.count = 0
        self._perform = client.transport.perform_request

        def perform(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return self._perform(*args, **kwargs)

        client.transport.perform_request = perform  # type: ignore[method-assign]


def staged(searcher: Searcher, query: Query, mode: str, clock: dict[str, float]) -> Any:
    """:meth:`Searcher.search`'s steps, each timed into ``clock`` (same calls, same order)."""
    marks = [time.perf_counter()]
    plan = searcher.plan(query[0], mode=mode, **query[1])
    marks.append(time.perf_counter())
    vector = searcher.query_vector(plan)
    marks.append(time.perf_counter())
    ladder: Ladder[Any] = Ladder(plan)
    sent = searcher.requests(plan, vector, step=ladder.step)
    marks.append(time.perf_counter())
    answers = searcher.index.search(searcher.alias, sent.plans, search_type=searcher.search_type)
    marks.append(time.perf_counter())
    ran = searcher.answered(plan, sent, answers)
    marks.append(time.perf_counter())
    while (step := ladder.after(ran)) is not None:
        ran = searcher._run(plan, vector, step=step)
    ran = ladder.settled(ran)
    marks.append(time.perf_counter())
    answered = answering_index(ran) or searcher.index.alias_target(searcher.alias) or ""
    result = shape_result(plan, ran, ladder, answered, marks[0])
    marks.append(time.perf_counter())
    names = ["plan", "query_vector", "requests", "search", "answered", "fallback", "shape"]
    for name, start, end in zip(names, marks, marks[1:], strict=False):
        clock[name] = clock.get(name, 0.0) + end - start
    return result


def own_times(run: Any) -> dict[str, float]:
    """Own time (s) per function while ``run()`` runs under :mod:`cProfile`."""
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    return {f"{Path(k[0]).name}:{k[2]}": v[2] for k, v in stats.items()}


def extra_costs(
    searcher: Searcher, client: OpenSearch, queries: list[Query], lines: list[Any], mode: str
) -> list[tuple[str, float]]:
    """Functions whose own time under the Searcher exceeds the bare client's (ms a query),
    socket waits left out: where the Searcher's extra client CPU goes."""
    ours = own_times(lambda: [searcher.search(q[0], mode=mode, **q[1]) for q in queries])
    bare = own_times(lambda: [client.msearch(index=searcher.alias, body=b) for b in lines])
    waits = ("recv_into", "sendall", "settimeout", "connect")
    extra = {
        name: 1000 * (spent - bare.get(name, 0.0)) / len(queries)
        for name, spent in ours.items()
        if not any(w in name for w in waits)
    }
    ranked = sorted(extra.items(), key=lambda item: -item[1])
    return [(name, round(ms, 4)) for name, ms in ranked[:15]]


def capped(lines: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """The same lines with every body that returns hits counting at most ``cap`` of them."""
    return [
        {**line, "track_total_hits": cap}
        if line.get("size", 0) and "track_total_hits" in line
        else line
        for line in lines
    ]


def total_hits_cost(
    client: OpenSearch, alias: str, lines: list[Any], cap: int, pid: int | None
) -> dict[str, Any]:
    """Bare ``_msearch`` of the Searcher's lines as they are and with the hits' total capped
    at ``cap``: wall ms and node CPU ms a query (one client)."""
    out: dict[str, Any] = {}
    for name, bodies in (("exact", lines), (f"capped at {cap}", [capped(x, cap) for x in lines])):
        for body in bodies[:20]:
            client.msearch(index=alias, body=body)
        started, node = time.perf_counter(), cpu_seconds(pid) if pid else 0.0
        for body in bodies:
            client.msearch(index=alias, body=body)
        wall = 1000 * (time.perf_counter() - started) / len(bodies)
        spent = 1000 * (cpu_seconds(pid) - node) / len(bodies) if pid else None
        out[name] = {"wall_ms": round(wall, 3), "node_cpu_ms": spent and round(spent, 3)}
    return out


def profile_workload(
    searcher: Searcher, client: OpenSearch, queries: list[Query], mode: str, top: int
) -> dict[str, Any]:
    lines = [wire_lines(searcher, q, mode) for q in queries]
    counter = CountingTransport(client)
    for q in queries[:50]:  # warm both paths (the generation read, the node's caches)
        searcher.search(q[0], mode=mode, **q[1])
    clock: dict[str, float] = {}
    counter.count = 0
    for q in queries:
        staged(searcher, q, mode, clock)
    requests_per_search = counter.count / len(queries)
    started, cpu = time.perf_counter(), time.process_time()
    for body in lines:
        client.msearch(index=searcher.alias, body=body)
    bare_ms = 1000 * (time.perf_counter() - started) / len(queries)
    bare_cpu_ms = 1000 * (time.process_time() - cpu) / len(queries)
    started, cpu = time.perf_counter(), time.process_time()
    for q in queries:
        searcher.search(q[0], mode=mode, **q[1])
    search_ms = 1000 * (time.perf_counter() - started) / len(queries)
    search_cpu_ms = 1000 * (time.process_time() - cpu) / len(queries)
    profiler = cProfile.Profile()
    profiler.enable()
    for q in queries:
        searcher.search(q[0], mode=mode, **q[1])
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    stats.print_stats(top)
    stages = {k: round(1000 * v / len(queries), 3) for k, v in clock.items()}
    extra = extra_costs(searcher, client, queries, lines, mode)
    return {
        "queries": len(queries),
        "search_ms": round(search_ms, 3),
        "bare_msearch_ms": round(bare_ms, 3),
        "search_client_cpu_ms": round(search_cpu_ms, 3),
        "bare_client_cpu_ms": round(bare_cpu_ms, 3),
        "stages_ms": stages,
        "http_requests_per_search": requests_per_search,
        "extra_own_ms_vs_bare": extra,
        "lines": lines,
        "cprofile_top_tottime": out.getvalue(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alias", default="bench-throughput")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--workloads", nargs="+", default=["bm25", "amount"])
    parser.add_argument("--hybrid", metavar="EMBEDDER", help="the query embedder, for hybrid")
    parser.add_argument("--access", action="store_true", help="queries carry a tenant and ACL")
    parser.add_argument("--top", type=int, default=25, help="cProfile rows per workload")
    parser.add_argument(
        "--total-hits-cap",
        type=int,
        help="also time the bare lines with track_total_hits capped at this (vs exact)",
    )
    parser.add_argument("--node-pid", type=int, help="a local node's pid: its CPU per query")
    args = parser.parse_args()
    client = OpenSearch(cluster_url(), timeout=60, http_compress=False)
    searcher = Searcher(OpenSearchIndex(client), args.alias, embedder=args.hybrid)
    queries = query_texts(args.queries, access=args.access)
    results: dict[str, Any] = {}
    for workload in args.workloads:
        mode = "hybrid" if workload == "hybrid" else "bm25"
        chosen = queries["bm25" if workload == "hybrid" else workload]
        results[workload] = found = profile_workload(searcher, client, chosen, mode, args.top)
        console.print(
            f"{workload}: search {found['search_ms']} ms, bare {found['bare_msearch_ms']} ms, "
            f"client CPU {found['search_client_cpu_ms']} vs {found['bare_client_cpu_ms']} ms, "
            f"{found['http_requests_per_search']} requests/search; stages {found['stages_ms']}"
        )
        lines = found.pop("lines")
        if args.total_hits_cap:
            found["total_hits"] = total_hits_cost(
                client, args.alias, lines, args.total_hits_cap, args.node_pid
            )
            console.print(f"{workload} track_total_hits: {found['total_hits']}")
        print(found["cprofile_top_tottime"])
        for name, ms in found["extra_own_ms_vs_bare"]:
            print(f"  +{ms:.4f} ms  {name}")
    count = int(client.count(index=args.alias)["count"])
    print(f"wrote {write_results('throughput_profile', {'chunks': count, **results})}")


if __name__ == "__main__":
    main()
