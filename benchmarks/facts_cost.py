"""What amount facts cost: ingest CPU and index size with and without them, and the latency
of a bound filter beside a role-free one at 100k and 1M chunks, on one OpenSearch node.

    python benchmarks/facts_cost.py [--url URL] [--cost-chunks 20000]
                                    [--sizes 100000,1000000] [--queries 200] [--work DIR]
                                    [--label NAME] [--keep] [--before TREE --repeats 3]

The synthetic policies of ``synthetic_corpus.py`` (seed 7; tables of coverages with limit and
deductible columns, amounts in prose), on the node at ``--url`` (else ``OSRAG_BENCH_URL``,
else a local node), in one run:

1. **cost** — the first ``--cost-chunks`` chunks ingested twice into fresh aliases, in child
   processes: with facts (as osrag ingests), and without (the extraction of facts replaced
   by nothing, everything else the same). Reported: the ingesting process's CPU seconds per
   chunk, the generation's bytes on disk after a merge to one segment, and its Lucene
   documents (a nested fact is a document of its own);
2. **latency** — for each size, the corpus ingested with facts, then ``--queries`` questions
   whose constraint names a quantity the tables label ("limit over $1 million",
   "deductible under $500"), each run twice in turn: bound (the question as asked: one
   ``nested`` filter on a fact with that label) and role-free (the same constraint on any
   amount, ``QuerySpec(constraints=[c.role_free()])``). p50/p99 of ``Searcher.search``
   (client-side, the whole osrag path), the candidates of each, the load average beside;
   the first search apart (it reads the generation's label vocabulary).

``--before TREE``: an osrag source tree (``git archive REF | tar -x -C TREE``) whose cost
part runs beside this checkout's (or beside ``--after TREE``'s: another tree, such as the
mypyc build ``benchmarks/compiled_extraction.py --keep-build`` leaves), ``--repeats``
times each, alternating (the order turns every round, so a burst of load on a shared
machine hits both alike); each run is a row of ``cost_runs`` with its tree, and the table
gives each tree's mean CPU per chunk and ratio.
``--corpus NAME=DIR`` (repeatable) runs the cost part on a folder of real documents as
well, after one untimed ingest of it that fills the vector cache (so neither timed run
embeds): the ratio depends on how many amounts a chunk holds, and the synthetic policies
hold about four facts a chunk, far more than most documents. With ``--before`` each folder
is measured by both trees in turn, as the synthetic policies are (``corpus_runs``).
``--cost-chunks 0`` leaves
the synthetic cost part out. Prints the tables and writes
``benchmarks/results/facts_cost.json`` (``facts_cost-NAME.json`` with ``--label NAME``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic_corpus
from _cluster import client, cluster_url, console, print_table, summary, write_results

from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.models import QuerySpec
from osrag.search.searcher import Searcher

CHILD = r"""
import json, sys, time
from pathlib import Path
from opensearchpy import OpenSearch
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.ingest import IngestOptions, ingest
url, corpus, alias, facts = sys.argv[1:5]
if facts == "0":
    import osrag.extract.enrich as enrich
    enrich.amount_facts = lambda *args, **kwargs: []  # the facts' extraction, and nothing else
backend = OpenSearchIndex(OpenSearch(url, timeout=600))
cpu = time.process_time()
started = time.perf_counter()
report = ingest(Path(corpus), backend, IngestOptions(alias=alias))
print(json.dumps({
    "chunks": report.chunks_written,
    "seconds": round(time.perf_counter() - started, 3),
    "cpu_seconds": round(time.process_time() - cpu, 3),
}))
"""


def load() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def ingest_child(
    url: str, corpus: Path, alias: str, facts: bool, tree: Path | None = None
) -> dict[str, Any]:
    """One ingest in a child process; ``tree``: the osrag source tree it imports (first on
    ``PYTHONPATH``), else this checkout's."""
    before = load()
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, url, str(corpus), alias, "1" if facts else "0"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,  # ``python -c`` puts the working folder first on the path
    )
    if done.returncode != 0:
        raise RuntimeError(f"ingest failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["load_before"], result["load_after"] = before, load()
    return result


def on_disk(url: str, alias: str) -> dict[str, int]:
    """Bytes and Lucene documents of the alias's generation, merged to one segment."""
    es = client(url)
    generation = OpenSearchIndex(es).alias_target(alias)
    assert generation is not None
    es.indices.forcemerge(index=generation, max_num_segments=1, request_timeout=3600)
    es.indices.refresh(index=generation)
    stats = es.indices.stats(index=generation, metric="store,docs")["_all"]["primaries"]
    return {
        "bytes": int(stats["store"]["size_in_bytes"]),
        "lucene_documents": int(stats["docs"]["count"]),
        "chunks": int(es.count(index=generation)["count"]),
    }


def cost(url: str, corpus: Path, tree: Path | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for facts in (True, False):
        name = "with facts" if facts else "without facts"
        alias = f"osrag-fc-{uuid.uuid4().hex[:8]}"
        try:
            ran = ingest_child(url, corpus, alias, facts, tree)
            ran.update(on_disk(url, alias))
            ran["cpu_ms_per_chunk"] = round(ran["cpu_seconds"] * 1000 / ran["chunks"], 4)
            ran["bytes_per_chunk"] = round(ran["bytes"] / ran["chunks"], 1)
            out[name] = ran
        finally:
            purge(OpenSearchIndex(client(url)), alias)
        console.print(f"  {name}: {out[name]}")
    out["ratio_cpu"] = round(
        out["with facts"]["cpu_ms_per_chunk"] / out["without facts"]["cpu_ms_per_chunk"], 3
    )
    return out


def warm(url: str, corpus: Path) -> None:
    """One untimed ingest of ``corpus`` (its vectors into the cache)."""
    alias = f"osrag-fc-{uuid.uuid4().hex[:8]}"
    try:
        ingest_child(url, corpus, alias, True)
    finally:
        purge(OpenSearchIndex(client(url)), alias)


def warmed_cost(url: str, corpus: Path) -> dict[str, Any]:
    """The cost part on ``corpus`` after one untimed ingest of it."""
    warm(url, corpus)
    return cost(url, corpus)


def cost_runs(
    url: str, corpus: Path, before: Path, repeats: int, after: Path | None = None
) -> list[dict[str, Any]]:
    """The cost part of ``before`` and of ``after`` (None: this checkout), ``repeats`` times
    each, in turn."""
    runs: list[dict[str, Any]] = []
    trees: list[tuple[str, Path | None]] = [("before", before), ("after", after)]
    for number in range(1, repeats + 1):
        for name, tree in trees if number % 2 else trees[::-1]:
            console.print(f"[bold]{name}[/bold], run {number}")
            runs.append({"tree": name, "run": number, **cost(url, corpus, tree)})
    return runs


def mean_of(runs: list[dict[str, Any]], tree: str) -> list[Any]:
    """A tree's mean CPU ms per chunk without and with facts, and the mean of its ratios."""
    mine = [r for r in runs if r["tree"] == tree]

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 3)

    return [
        f"{tree}, mean of {len(mine)}",
        mean([r["without facts"]["cpu_ms_per_chunk"] for r in mine]),
        mean([r["with facts"]["cpu_ms_per_chunk"] for r in mine]),
        mean([r["ratio_cpu"] for r in mine]),
    ]


QUANTITIES = (("limit", ("over", "above", "at least")), ("deductible", ("under", "below")))


def questions(seed: int, n: int) -> list[str]:
    """Questions naming a quantity the synthetic tables label, with an amount they hold."""
    rng = random.Random(seed)
    made = []
    for _ in range(n):
        label, words = rng.choice(QUANTITIES)
        if label == "limit":
            amount = rng.choice(synthetic_corpus.LIMITS[5:14])
        else:
            amount = rng.choice((250, 500, 1_000, 2_500, 5_000))
        made.append(f"coverage with a {label} {rng.choice(words)} ${amount:,}")
    return made


def latency(url: str, alias: str, n: int) -> dict[str, Any]:
    searcher = Searcher(OpenSearchIndex(client(url)), alias, enforce_access=False)
    asked = questions(11, n)
    plans = [searcher.plan(q) for q in asked]
    free = [
        QuerySpec(text=q, constraints=[p.constraints[0].role_free()])
        for q, p in zip(asked, plans, strict=True)
    ]
    started = time.perf_counter()
    searcher.search(asked[0])  # reads the label vocabulary
    first_ms = (time.perf_counter() - started) * 1000
    for q, f in zip(asked[:20], free[:20], strict=True):  # warm alike
        searcher.search(q)
        searcher.search(f)
    took: dict[str, list[float]] = {"bound": [], "role-free": []}
    candidates: dict[str, list[int]] = {"bound": [], "role-free": []}
    steps: dict[str, int] = {}
    before = load()
    for q, f in zip(asked, free, strict=True):
        for name, spec in (("bound", q), ("role-free", f)):
            started = time.perf_counter()
            result = searcher.search(spec)
            took[name].append((time.perf_counter() - started) * 1000)
            candidates[name].append(result.candidate_count)
            if name == "bound":
                steps[str(result.amount_step)] = steps.get(str(result.amount_step), 0) + 1
    return {
        **{k: summary(v) for k, v in took.items()},
        "first_search_ms": round(first_ms, 1),
        "candidates_median": {k: sorted(v)[len(v) // 2] for k, v in candidates.items()},
        "bound_answered_at": steps,
        "load_before": before,
        "load_after": load(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=None)
    parser.add_argument("--cost-chunks", type=int, default=20_000)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--label", default=None, help="names the results file")
    parser.add_argument(
        "--keep", action="store_true", help="keep each size's alias (it is printed) for more runs"
    )
    parser.add_argument(
        "--before", type=Path, default=None, help="an osrag source tree measured beside this"
    )
    parser.add_argument(
        "--after", type=Path, default=None, help="the tree measured after --before's (else this)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs of each tree (--before)")
    parser.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="a folder of documents whose cost part runs too (repeatable)",
    )
    args = parser.parse_args(argv)
    url = args.url or cluster_url()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    results: dict[str, Any] = {"url": url, "cost_chunks": args.cost_chunks, "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="osrag-fc-") as tmp:
        work = args.work or Path(tmp)
        if args.cost_chunks:
            small = work / f"corpus-{args.cost_chunks}"
            synthetic_corpus.write_corpus(small, args.cost_chunks, seed=7)
            console.print(f"[bold]cost[/bold]: {args.cost_chunks:,} chunks, with and without")
            if args.before is None:
                results["cost"] = cost(url, small)
            else:
                results["before"] = str(args.before)
                results["after"] = str(args.after) if args.after else None
                warm(url, small)  # neither tree's first run embeds the labels
                results["cost_runs"] = cost_runs(url, small, args.before, args.repeats, args.after)
        for named in args.corpus:
            name, _, folder = named.partition("=")
            console.print(f"[bold]cost[/bold] on {name} ({folder}), with and without")
            if args.before is None:
                results.setdefault("corpora", {})[name] = warmed_cost(url, Path(folder))
            else:
                warm(url, Path(folder))
                results.setdefault("corpus_runs", {})[name] = cost_runs(
                    url, Path(folder), args.before, args.repeats, args.after
                )
        for size in sizes:
            corpus = work / f"corpus-{size}"
            synthetic_corpus.write_corpus(corpus, size, seed=7)
            alias = f"osrag-fq-{uuid.uuid4().hex[:8]}"
            try:
                console.print(f"[bold]{size:,} chunks[/bold]: ingest with facts")
                ran = ingest_child(url, corpus, alias, True)
                ran.update(on_disk(url, alias))
                console.print(f"  ingested: {ran}")
                row = {"ingest": ran, "queries": latency(url, alias, args.queries)}
                results["sizes"][str(size)] = row
                console.print(f"  queries: {row['queries']}")
            finally:
                if args.keep:
                    console.print(f"  kept alias {alias}")
                else:
                    purge(OpenSearchIndex(client(url)), alias)
    c = {k: v for k, v in results.get("cost", {}).items() if isinstance(v, dict)}
    tables = {"": results["cost_runs"]} if "cost_runs" in results else {}
    tables.update({f", {name}": runs for name, runs in results.get("corpus_runs", {}).items()})
    for name, runs in tables.items():
        print_table(
            f"ingest CPU ms / chunk, each tree in turn{name}",
            ["tree, run", "without facts", "with facts", "with / without"],
            [
                *[[f"{r['tree']}, run {r['run']}", r["without facts"]["cpu_ms_per_chunk"],
                   r["with facts"]["cpu_ms_per_chunk"], r["ratio_cpu"]] for r in runs],
                mean_of(runs, "before"),
                mean_of(runs, "after"),
            ],
        )  # fmt: skip
    if c:
        print_table(
            "ingest with and without facts",
            ["", "CPU ms / chunk", "bytes / chunk", "Lucene docs / chunk", "chunks"],
            [
                [k, v["cpu_ms_per_chunk"], v["bytes_per_chunk"],
                 round(v["lucene_documents"] / v["chunks"], 2), v["chunks"]]
                for k, v in c.items()
            ],
        )  # fmt: skip
    if "corpora" in results:
        print_table(
            "ingest CPU ms / chunk by corpus",
            ["corpus", "chunks", "Lucene docs / chunk", "without", "with facts", "with / without"],
            [
                [name, r["with facts"]["chunks"],
                 round(r["with facts"]["lucene_documents"] / r["with facts"]["chunks"], 2),
                 r["without facts"]["cpu_ms_per_chunk"], r["with facts"]["cpu_ms_per_chunk"],
                 r["ratio_cpu"]]
                for name, r in results["corpora"].items()
            ],
        )  # fmt: skip
    if results["sizes"]:
        print_table(
            "bound beside role-free (Searcher.search, ms)",
            ["chunks", "bound p50", "bound p99", "role-free p50", "role-free p99", "candidates"],
            [
                [size, r["queries"]["bound"]["p50"], r["queries"]["bound"]["p99"],
                 r["queries"]["role-free"]["p50"], r["queries"]["role-free"]["p99"],
                 str(r["queries"]["candidates_median"])]
                for size, r in results["sizes"].items()
            ],
        )  # fmt: skip
    path = write_results(f"facts_cost-{args.label}" if args.label else "facts_cost", results)
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
