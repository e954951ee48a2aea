"""Query throughput under closed-loop load: osrag's Searcher beside a bare client, one run.

    python benchmarks/throughput.py [--chunks 20000] [--seconds 6] [--concurrency 1 4 16 64]
                                    [--hybrid EMBEDDER] [--keep]
    python benchmarks/throughput.py --existing --alias bench-throughput --access \
        --via threads --hybrid python:_synthetic_vectors:embedder [--node-pid PID]

With ``--existing`` the alias is searched as it stands (``throughput_index.py`` builds
100k and 1M chunks with tenants, ACLs and vectors): no ingest, no embedded index;
``--access`` makes every query a caller with a tenant and an ACL group; ``--node-pid``
(a node on this machine) adds the node's CPU milliseconds per query to every threads
cell, and the client process's (both kinds together).

Ingests the synthetic policy corpus (``benchmarks/synthetic_corpus.py``, ``--chunks``
chunks) into a fresh alias ``bench-throughput`` on OpenSearch (``OSRAG_BENCH_URL`` /
``OSRAG_URL``, default http://127.0.0.1:9200) and into an embedded index in a temporary
folder, then, for every workload and every concurrency, runs **closed-loop** clients —
each sends its next query as soon as the previous one answered — and reports
queries/s, p50 and p99 (ms):

* **workloads**: ``bm25`` (words only: a category and two frequent words), ``amount``
  (the same words and ``over $N``, N a limit the corpus holds: an amount filter), and
  with ``--hybrid EMBEDDER`` (the corpus ingested with that embedder) ``hybrid``;
* **threads**: N threads sharing one :class:`~osrag.search.searcher.Searcher` (one opensearch-py
  client, a pool of 64 connections); **async**: N asyncio tasks on one
  :class:`~osrag.search.async_searcher.AsyncSearcher` (``AsyncOpenSearch``, 64 connections);
* **osrag ÷ bare**: beside each osrag cell, the same requests sent by the bare client
  (``msearch`` of the exact lines the Searcher sends for that query:
  :meth:`Searcher.requests <osrag.search.searcher.Searcher.requests>` — the bodies of
  :meth:`Searcher.bodies <osrag.search.searcher.Searcher.bodies>` and the tenant probe — in the
  engine's form), prepared before the clock starts. The two alternate in halves of the
  cell's time (osrag, bare, bare, osrag) so machine noise hits both alike;
* **embedded**: the embedded index's own queries/s, threads on one Searcher, beside its
  engine alone (``EmbeddedIndex.search`` of the same typed plans).

Every cell is bounded by ``--seconds`` and ``--max-queries``; loopback only. Each
query's hits from osrag and from the bare client are compared once (same ids, same
order) before timing. The alias is dropped afterwards unless ``--keep``. Prints the
tables and writes ``benchmarks/results/throughput.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import cluster_url, console, print_table, summary, write_results
from opensearchpy import AsyncOpenSearch, OpenSearch
from synthetic_corpus import CATEGORIES, LIMITS, VOCABULARY, write_corpus

from osrag.engines.base import ChunkIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.engines.rest.compiler import compile_plans
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.async_searcher import AsyncSearcher
from osrag.search.searcher import Searcher

ALIAS = "bench-throughput"
POOL = 64
"""Connections per client: one per client at the highest default concurrency."""


Query = tuple[str, dict[str, Any]]
"""A query text and the Searcher overrides it is sent with (the caller's tenant and groups)."""


def query_texts(n: int, seed: int = 11, *, access: bool = False) -> dict[str, list[Query]]:
    """``n`` word queries and the same words with ``over $N`` (N a limit the corpus holds);
    with ``access``, query ``i`` is a caller of ``tenant-{i % 4}`` in ``group-{i % 3}``
    (the access policy ``throughput_index.py`` writes)."""
    rng = random.Random(seed)
    common = VOCABULARY[:150]
    words = [
        f"{rng.choice(CATEGORIES)} {rng.choice(common)} {rng.choice(common)}" for _ in range(n)
    ]
    limits = [limit for limit in LIMITS if 10_000 <= limit <= 5_000_000]
    amounts = [f"{text} over ${rng.choice(limits):,}" for text in words]

    def caller(i: int) -> dict[str, Any]:
        return {"tenant": f"tenant-{i % 4}", "acl": [f"group-{i % 3}"]} if access else {}

    return {
        "bm25": [(text, caller(i)) for i, text in enumerate(words)],
        "amount": [(text, caller(i)) for i, text in enumerate(amounts)],
    }


class Cell:
    """Latencies (seconds) and elapsed wall time of one client kind in one cell."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.elapsed = 0.0

    def row(self) -> dict[str, float]:
        qps = len(self.latencies) / self.elapsed if self.elapsed else 0.0
        ms = summary([1000 * x for x in self.latencies])
        return {"qps": round(qps, 1), "p50_ms": ms["p50"], "p99_ms": ms["p99"], "n": ms["n"]}


def run_threads(
    call: Callable[[Any], Any], items: list[Any], clients: int, seconds: float, cap: int
) -> tuple[list[float], float]:
    """``clients`` threads, each calling ``call`` on the next item until the deadline."""
    numbers, lock, latencies = itertools.count(), threading.Lock(), []
    deadline = time.perf_counter() + seconds

    def client() -> None:
        mine: list[float] = []
        for n in numbers:
            start = time.perf_counter()
            if n >= cap or start >= deadline:
                break
            call(items[n % len(items)])
            mine.append(time.perf_counter() - start)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - started


async def run_tasks(
    call: Callable[[Any], Awaitable[Any]], items: list[Any], clients: int, seconds: float, cap: int
) -> tuple[list[float], float]:
    """``clients`` asyncio tasks, each awaiting ``call`` on the next item until the deadline."""
    numbers, latencies = itertools.count(), []
    deadline = time.perf_counter() + seconds

    async def client() -> None:
        for n in numbers:
            start = time.perf_counter()
            if n >= cap or start >= deadline:
                break
            await call(items[n % len(items)])
            latencies.append(time.perf_counter() - start)

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - started


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system, s) of process ``pid`` so far (this process's with None)."""
    if pid is None:
        return time.process_time()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Kind = tuple[str, Callable[[Any], Any], list[Any]]
"""A client kind in a comparison: its name, its call, the items it calls on."""


def interleaved_sync(kinds: list[Kind], clients: int, seconds: float, cap: int) -> dict[str, Cell]:
    """Each kind for ``seconds`` in two halves, in the order A, B, B, A."""
    cells = {name: Cell() for name, _, _ in kinds}
    for order in (kinds, kinds[::-1]):
        for name, call, items in order:
            latencies, elapsed = run_threads(call, items, clients, seconds / 2, cap // 2)
            cells[name].latencies += latencies
            cells[name].elapsed += elapsed
    return cells


async def interleaved_async(
    kinds: list[Kind], clients: int, seconds: float, cap: int
) -> dict[str, Cell]:
    cells = {name: Cell() for name, _, _ in kinds}
    for order in (kinds, kinds[::-1]):
        for name, call, items in order:
            latencies, elapsed = await run_tasks(call, items, clients, seconds / 2, cap // 2)
            cells[name].latencies += latencies
            cells[name].elapsed += elapsed
    return cells


def wire_lines(searcher: Searcher, query: Query, mode: str) -> list[dict[str, Any]]:
    """The ``_msearch`` lines the Searcher sends for ``query`` (not timed)."""
    plan = searcher.plan(query[0], mode=mode, **query[1])
    sent = searcher.requests(plan, searcher.query_vector(plan))
    engine = searcher.index
    assert isinstance(engine, OpenSearchIndex)
    return engine.msearch_lines(compile_plans(engine, sent.plans)[0], searcher.search_type)


def same_hits(searcher: Searcher, client: OpenSearch, query: Query, mode: str) -> bool:
    """osrag's hits and the bare client's, for the same request: same ids in the same order."""
    ours = [hit.chunk_id for hit in searcher.search(query[0], mode=mode, **query[1]).hits]
    lines = wire_lines(searcher, query, mode)
    answers = client.msearch(index=searcher.alias, body=lines)["responses"]
    theirs = [hit["_id"] for hit in answers[0]["hits"]["hits"]]
    return ours == theirs


Workloads = dict[str, tuple[list[Query], str]]


def workloads(queries: dict[str, list[Query]], hybrid: bool, names: list[str]) -> Workloads:
    chosen = {"bm25": (queries["bm25"], "bm25"), "amount": (queries["amount"], "bm25")}
    if hybrid:
        chosen["hybrid"] = (queries["bm25"], "hybrid")
    return {name: chosen[name] for name in names if name in chosen}


def ratio_row(workload: str, transport: str, clients: int, cells: dict[str, Cell]) -> list[Any]:
    ours, bare = cells["osrag"].row(), cells["bare"].row()
    ratio = ours["qps"] / bare["qps"] if bare["qps"] else float("nan")
    return [
        workload,
        transport,
        clients,
        ours["qps"],
        ours["p50_ms"],
        ours["p99_ms"],
        bare["qps"],
        bare["p50_ms"],
        bare["p99_ms"],
        round(ratio, 3),
    ]


def sync_rows(url: str, chosen: Workloads, args: Any) -> list[list[Any]]:
    client = OpenSearch(url, timeout=60, http_compress=False, pool_maxsize=POOL)
    searcher = Searcher(OpenSearchIndex(client), args.alias, embedder=args.hybrid)
    rows = []
    for workload, (texts, mode) in chosen.items():
        lines = [wire_lines(searcher, text, mode) for text in texts]
        agree = sum(same_hits(searcher, client, text, mode) for text in texts)
        console.print(
            f"[dim]{workload}: osrag and bare agree on {agree}/{len(texts)} queries[/dim]"
        )
        kinds: list[Kind] = [
            ("osrag", lambda q, m=mode: searcher.search(q[0], mode=m, **q[1]), texts),
            ("bare", lambda body: client.msearch(index=args.alias, body=body), lines),
        ]
        run_threads(kinds[0][1], texts, 4, 0.5, 10_000)  # warm the caches of both paths
        run_threads(kinds[1][1], lines, 4, 0.5, 10_000)
        for clients in args.concurrency:
            node, mine = cpu_seconds(args.node_pid), cpu_seconds(None)
            cells = interleaved_sync(kinds, clients, args.seconds, args.max_queries)
            node, mine = cpu_seconds(args.node_pid) - node, cpu_seconds(None) - mine
            count = sum(len(cell.latencies) for cell in cells.values())
            per_query = [round(1000 * node / count, 3) if args.node_pid else None]
            rows.append(
                ratio_row(workload, "threads", clients, cells)
                + per_query
                + [round(1000 * mine / count, 3)]
            )
            console.print(rows[-1])
    client.close()
    return rows


async def async_rows(url: str, chosen: Workloads, args: Any) -> list[list[Any]]:
    sync_client = OpenSearch(url, timeout=60, http_compress=False)
    client = AsyncOpenSearch(url, timeout=60, http_compress=False, maxsize=POOL)
    searcher = AsyncSearcher(
        OpenSearchIndex(sync_client), args.alias, client=client, embedder=args.hybrid
    )
    rows = []
    try:
        for workload, (texts, mode) in chosen.items():
            lines = [wire_lines(searcher.searcher, text, mode) for text in texts]

            async def ours(query: Query, m: str = mode) -> Any:
                return await searcher.search(query[0], mode=m, **query[1])

            async def bare(body: list[dict[str, Any]]) -> Any:
                return await client.msearch(index=args.alias, body=body)

            kinds: list[Kind] = [("osrag", ours, texts), ("bare", bare, lines)]
            await run_tasks(ours, texts, 4, 0.5, 10_000)
            await run_tasks(bare, lines, 4, 0.5, 10_000)
            for clients in args.concurrency:
                cells = await interleaved_async(kinds, clients, args.seconds, args.max_queries)
                rows.append(ratio_row(workload, "async", clients, cells))
                console.print(rows[-1])
    finally:
        await client.close()
        sync_client.close()
    return rows


def embedded_rows(index: ChunkIndex, queries: dict[str, list[Query]], args: Any) -> list[list[Any]]:
    """The embedded index through the Searcher, beside its engine alone, threads."""
    searcher = Searcher(index, ALIAS)
    rows = []

    def ours(query: Query) -> Any:
        return searcher.search(query[0], **query[1])

    for workload in ("bm25", "amount"):
        texts = queries[workload]
        plans = [searcher.requests(searcher.plan(t, **o), None).plans for t, o in texts]
        kinds: list[Kind] = [
            ("osrag", ours, texts),
            ("bare", lambda p: index.search(ALIAS, p), plans),
        ]
        run_threads(ours, texts, 2, 0.5, 10_000)
        for clients in args.concurrency:
            cells = interleaved_sync(kinds, clients, args.seconds, args.max_queries)
            rows.append(ratio_row(workload, "embedded", clients, cells))
            console.print(rows[-1])
    return rows


def build(url: str, corpus: Path, root: Path, hybrid: str | None) -> tuple[ChunkIndex, Any]:
    """The corpus in a fresh OpenSearch alias and in an embedded index (not timed)."""
    engine = OpenSearchIndex(OpenSearch(url, timeout=120, http_compress=False))
    purge(engine, ALIAS)
    started = time.perf_counter()
    report = ingest(corpus, engine, IngestOptions(alias=ALIAS, embedder=hybrid))
    console.print(
        f"[dim]OpenSearch: {report.chunks_written:,} chunks in "
        f"{time.perf_counter() - started:.1f} s[/dim]"
    )
    embedded = EmbeddedIndex(root)
    ingest(corpus, embedded, IngestOptions(alias=ALIAS))
    return engine, embedded


COLUMNS = [
    "workload",
    "clients via",
    "clients",
    "osrag q/s",
    "osrag p50",
    "osrag p99",
    "bare q/s",
    "bare p50",
    "bare p99",
    "osrag ÷ bare",
]


def measure(url: str, queries: dict[str, list[Query]], args: Any) -> list[list[Any]]:
    """The chosen client kinds' rows, on ``args.alias`` as it stands."""
    chosen = workloads(queries, bool(args.hybrid), args.workloads)
    rows = sync_rows(url, chosen, args) if "threads" in args.via else []
    if "async" in args.via:
        rows += asyncio.run(async_rows(url, chosen, args))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=20_000, help="synthetic corpus size")
    parser.add_argument("--seconds", type=float, default=6.0, help="per client kind per cell")
    parser.add_argument("--max-queries", type=int, default=50_000, help="per kind per cell")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--queries", type=int, default=200, help="distinct query texts")
    parser.add_argument("--hybrid", metavar="EMBEDDER", help="also hybrid (ingests vectors)")
    parser.add_argument("--keep", action="store_true", help="keep the alias afterwards")
    parser.add_argument("--alias", default=ALIAS, help="the alias searched")
    parser.add_argument(
        "--existing",
        action="store_true",
        help="search the alias as it stands (throughput_index.py built it): no ingest, "
        "no embedded index, nothing dropped",
    )
    parser.add_argument("--access", action="store_true", help="queries carry a tenant and ACL")
    parser.add_argument(
        "--via", nargs="+", default=["threads", "async", "embedded"], help="client kinds"
    )
    parser.add_argument(
        "--workloads", nargs="+", default=["bm25", "amount", "hybrid"], help="workloads run"
    )
    parser.add_argument("--label", default="", help="suffix of the results file name")
    parser.add_argument(
        "--node-pid",
        type=int,
        help="the node's process id (a local node): its CPU ms per query, per threads cell",
    )
    args = parser.parse_args()
    url = cluster_url()
    queries = query_texts(args.queries, access=args.access)
    if args.existing:
        client = OpenSearch(url)
        chunks = int(client.count(index=args.alias)["count"])
        client.close()
        rows = measure(url, queries, args)
    else:
        chunks = args.chunks
        with tempfile.TemporaryDirectory(prefix="osrag-throughput-") as tmp:
            write_corpus(Path(tmp) / "corpus", args.chunks)
            engine, embedded = build(url, Path(tmp) / "corpus", Path(tmp) / "embedded", args.hybrid)
            try:
                rows = measure(url, queries, args)
                if "embedded" in args.via:
                    rows += embedded_rows(embedded, queries, args)
            finally:
                if not args.keep:
                    purge(engine, ALIAS)
                embedded.close()
    print_table(f"closed-loop throughput, {chunks:,} chunks (ms)", COLUMNS, rows)
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(str(value) for value in row) + " |")
    payload = {
        "chunks": chunks,
        "extra_columns_threads": ["node CPU ms/query", "client CPU ms/query (both kinds)"],
        "alias": args.alias,
        "access": args.access,
        "seconds_per_kind_per_cell": args.seconds,
        "hybrid": args.hybrid,
        "columns": COLUMNS,
        "rows": rows,
    }
    name = f"throughput{'_' + args.label if args.label else ''}"
    print(f"wrote {write_results(name, payload)}")


if __name__ == "__main__":
    main()
