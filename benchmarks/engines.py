"""OpenSearch, Elasticsearch and the embedded index side by side, in one run.

    python benchmarks/engines.py [--depth N] [--ingest-corpus PATH] [--rounds R] [--queries N]

Engines: OpenSearch at ``OSRAG_BENCH_URL`` / ``OSRAG_URL`` (else a local node),
Elasticsearch at ``OSRAG_BENCH_ES_URL`` (else a local node on :9400), the embedded
index in a temporary folder.

1. **Quality** on ``examples/insurance`` (37 labelled queries; osrag's query and plain
   BM25) and Cranfield (225 queries, qrels): recall, precision, MRR, nDCG, MAP per
   engine, plus OpenSearch built with the ``standard`` analyzer as a control — the
   Elasticsearch integ-test node has no ``english`` analyzer and falls back to
   ``standard``, so Elasticsearch is compared both with OpenSearch as shipped
   (``english``) and with OpenSearch on the same analyzer. For each pair: the mean
   top-10 document overlap ``|A ∩ B| / max(|A|, |B|)``, identical top-10 rankings,
   Δ nDCG@10, and the candidate count of every query stating one amount (filters only:
   it must be identical on every engine).
2. **Ingest** of ``shared/corpora/opensearch-docs`` (or ``--ingest-corpus``) on each
   cluster: osrag's ``ingest()`` against that engine's own raw ``_bulk`` ceiling (the
   same chunks pre-serialised outside the timer, same batch size, same mapping and
   bulk-loading settings), interleaved for ``--rounds`` rounds; medians, and the ratio.
   Beside them, osrag's own side alone (load → chunk → extract → serialise, no
   engine): when an engine's ceiling is above it, the ratio measures osrag's Python,
   not the engine code.
3. **Query overhead** on each cluster, interleaved: ``Searcher.search`` against exactly
   the request it sends (one ``_msearch``: the search and its candidate count), sent raw
   with that engine's own client; osrag's overhead = the difference at p50.

Prints tables and writes ``benchmarks/results/engines.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import (
    CORPORA,
    client,
    cluster_url,
    console,
    elasticsearch_url,
    print_table,
    summary,
    write_results,
)
from elasticsearch import Elasticsearch
from parity import DATASETS, overlap

from osrag.chunking.records import chunk_source
from osrag.engines.base import ChunkIndex
from osrag.engines.elasticsearch.index import ElasticsearchIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.mapping import chunk_index_body
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.engines.rest.bulk import dumps
from osrag.engines.rest.index import BULK_ACTIONS, RestIndex
from osrag.evaluation import EvalConfig, read_queries, run_evaluation
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import Document, QuerySpec
from osrag.search.analysis import analyze_query
from osrag.search.query import search_bodies
from osrag.search.searcher import Searcher


@dataclass
class Variant:
    """One engine as the quality runs build it."""

    label: str
    engine: ChunkIndex
    analyzer: str  # asked for; the engine may substitute (recorded per run)


PAIRS = [
    ("elasticsearch", "opensearch"),
    ("elasticsearch", "opensearch-standard"),
    ("embedded", "opensearch"),
]
"""Which rankings are compared: (engine, reference)."""


# --------------------------------------------------------------------------- quality


def _quality_run(
    variant: Variant, corpus: Path, queries: list[Any], configs: list[EvalConfig], depth: int
) -> dict[str, Any]:
    alias = f"osrag-engines-{uuid.uuid4().hex[:8]}"
    try:
        ingest(corpus, variant.engine, IngestOptions(alias=alias, analyzer=variant.analyzer))
        used = current_generation(variant.engine, alias).config["analyzer"]
        evaluation = run_evaluation(
            queries, variant.engine, alias=alias, configs=configs, ks=[5, 10], depth=depth
        )
        searcher = Searcher(variant.engine, alias, enforce_access=False)
        candidates = {
            q.id: searcher.search(q.query, k=1, highlight=False).candidate_count
            for q in queries
            if analyze_query(q.query).amount is not None
        }
        return {
            "analyzer": used,
            "configs": {c.name: c for c in evaluation.configs},
            "candidates": candidates,
        }
    finally:
        purge(variant.engine, alias)


def _quality(name: str, variants: list[Variant], depth: int) -> dict[str, Any]:
    corpus, queries_file, qrels = DATASETS[name]
    queries = read_queries(queries_file, qrels)
    configs = [EvalConfig("osrag", {})]
    if qrels is None:
        configs.append(EvalConfig("bm25 (no amount filter)", {"amount_filter": False}))
    console.print(f"[bold]{name}[/bold]: {len(queries)} queries, depth {depth}")
    runs = {v.label: _quality_run(v, corpus, queries, configs, depth) for v in variants}
    out: dict[str, Any] = {
        "queries": len(queries),
        "analyzers": {label: run["analyzer"] for label, run in runs.items()},
        "metrics": {
            label: {c: run["configs"][c].metrics for c in run["configs"]}
            for label, run in runs.items()
        },
        "pairs": {},
    }
    for left, right in PAIRS:
        if left not in runs or right not in runs:
            continue
        for config in configs:
            ours, theirs = runs[left]["configs"][config.name], runs[right]["configs"][config.name]
            judged = sorted(theirs.rankings)
            at10 = [overlap(ours.rankings.get(q, []), theirs.rankings[q], 10) for q in judged]
            same = sum(ours.rankings.get(q, [])[:10] == theirs.rankings[q][:10] for q in judged)
            out["pairs"][f"{left} vs {right} · {config.name}"] = {
                "overlap@10": round(statistics.fmean(at10), 4),
                "min_overlap@10": round(min(at10), 4),
                "identical_top10": f"{same}/{len(judged)}",
                "ndcg@10_difference": round(ours.metrics["ndcg@10"] - theirs.metrics["ndcg@10"], 4),
            }
        counts_left, counts_right = runs[left]["candidates"], runs[right]["candidates"]
        out["pairs"][f"{left} vs {right} · candidate counts"] = {
            "amount_queries": len(counts_right),
            "identical": counts_left == counts_right,
            "differing": {
                q: [counts_left.get(q), n]
                for q, n in counts_right.items()
                if counts_left.get(q) != n
            },
        }
    return out


# --------------------------------------------------------------------------- ingest


def _bulk_bodies(corpus: Path, options: IngestOptions) -> tuple[list[bytes], int]:
    """The chunks osrag would write, as ``_bulk`` bodies for ``POST <index>/_bulk`` (built
    outside the timer, serialised as osrag serialises them)."""
    bodies: list[bytes] = []
    lines: list[str] = []
    count = 0
    for item in load_corpus(corpus):
        if not isinstance(item, Document):
            continue
        for chunk in prepare_chunks(item, options.chunking, options.extraction):
            lines += [dumps({"index": {"_id": chunk.chunk_id}}), dumps(chunk_source(chunk, "raw"))]
            count += 1
            if len(lines) == 2 * BULK_ACTIONS:
                bodies.append(("\n".join(lines) + "\n").encode())
                lines = []
    if lines:
        bodies.append(("\n".join(lines) + "\n").encode())
    return bodies, count


def _raw_bulk(engine: RestIndex, bodies: list[bytes], count: int) -> float:
    """chunks/s of the bodies sent as they are, into an index made as osrag makes one."""
    name = f"osrag-bench-raw-{uuid.uuid4().hex[:8]}-0123abcd-1"
    started = time.perf_counter()
    engine.create_generation(name, chunk_index_body(), bulk_loading=True)
    try:
        for payload in bodies:
            if engine.client.bulk(index=name, body=payload).get("errors"):
                raise RuntimeError("raw bulk reported item errors")
        engine.finish_generation(name)
        return count / (time.perf_counter() - started)
    finally:
        engine.drop_generation(name)


def _pipeline_alone(corpus: Path) -> float:
    """chunks/s of load → chunk → extract → serialise with no engine: what osrag's own
    Python side can feed an engine on this machine."""
    options = IngestOptions()
    started, count = time.perf_counter(), 0
    for item in load_corpus(corpus):
        if isinstance(item, Document):
            for chunk in prepare_chunks(item, options.chunking, options.extraction):
                dumps(chunk_source(chunk, "pipeline"))
                count += 1
    return count / (time.perf_counter() - started)


def _osrag_ingest(engine: RestIndex, corpus: Path, alias: str) -> tuple[float, int]:
    purge(engine, alias)
    started = time.perf_counter()
    report = ingest(corpus, engine, IngestOptions(alias=alias))
    return report.chunks_written / (time.perf_counter() - started), report.chunks_written


def _ingest(engines: dict[str, RestIndex], corpus: Path, rounds: int) -> dict[str, Any]:
    bodies, count = _bulk_bodies(corpus, IngestOptions())
    results: dict[str, Any] = {}
    aliases = {label: f"osrag-engines-ingest-{uuid.uuid4().hex[:8]}" for label in engines}
    samples: dict[str, dict[str, list[float]]] = {e: {"raw": [], "osrag": []} for e in engines}
    pipeline: list[float] = []
    for round_number in range(rounds):
        pipeline.append(_pipeline_alone(corpus))
        for label, engine in engines.items():
            console.print(f"ingest round {round_number + 1}/{rounds}: {label}")
            samples[label]["raw"].append(_raw_bulk(engine, bodies, count))
            rate, written = _osrag_ingest(engine, corpus, aliases[label])
            assert written == count, f"{label}: osrag wrote {written} chunks, raw {count}"
            samples[label]["osrag"].append(rate)
    for label in engines:
        raw, ours = (statistics.median(samples[label][k]) for k in ("raw", "osrag"))
        results[label] = {
            "chunks": count,
            "raw_chunks_per_s": round(raw, 1),
            "osrag_chunks_per_s": round(ours, 1),
            "ratio": round(ours / raw, 3),
            "pipeline_alone_chunks_per_s": round(statistics.median(pipeline), 1),
            "rounds": {k: [round(v, 1) for v in vs] for k, vs in samples[label].items()},
        }
    results["aliases"] = aliases
    return results


# --------------------------------------------------------------------------- queries


def _query_texts(engine: RestIndex, alias: str, n: int) -> list[str]:
    """Real questions: headings of the indexed corpus (breadcrumb leaves), every n-th."""
    body = {"size": 0, "aggs": {"b": {"terms": {"field": "breadcrumb.keyword", "size": 5000}}}}
    (answer,) = engine.msearch(alias, [body])
    leaves = sorted({b["key"].split(" › ")[-1] for b in answer["aggregations"]["b"]["buckets"]})
    step = max(1, len(leaves) // n)
    return leaves[::step][:n]


def _ms(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    started = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def _queries(engines: dict[str, RestIndex], aliases: dict[str, str], n: int, rounds: int) -> Any:
    results: dict[str, Any] = {}
    for label, engine in engines.items():
        alias = aliases[label]
        texts = _query_texts(engine, alias, n)
        searcher = Searcher(engine, alias, enforce_access=False)
        searcher.generation()  # a long-lived searcher has its generation cached
        timings: dict[str, list[float]] = {"request as sent": [], "Searcher.search": []}
        paired: list[float] = []
        for text in texts[:10]:  # warm-up
            searcher.search(text)
        for round_number in range(rounds):
            for i, text in enumerate(texts):
                spec = QuerySpec(text=text, amount_filter=False)
                # exactly what the Searcher sends (its plan: the operator's view, no guards)
                lines = [line for b in search_bodies(searcher.plan(spec)) for line in ({}, b)]
                # the same query twice in a row: which goes first alternates, so neither
                # always meets the engine's caches warm
                if (i + round_number) % 2:
                    searched = _ms(searcher.search, spec)
                    raw = _ms(engine.client.msearch, index=alias, body=lines)
                else:
                    raw = _ms(engine.client.msearch, index=alias, body=lines)
                    searched = _ms(searcher.search, spec)
                timings["request as sent"].append(raw)
                timings["Searcher.search"].append(searched)
                paired.append(searched - raw)
        stats = {name: summary(values) for name, values in timings.items()}
        results[label] = {
            "queries": len(texts),
            "timings_ms": stats,
            "overhead_p50_ms": round(
                stats["Searcher.search"]["p50"] - stats["request as sent"]["p50"], 3
            ),
            "paired_overhead_median_ms": round(statistics.median(paired), 3),
        }
    return results


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--depth", type=int, default=100, help="chunks retrieved per query")
    parser.add_argument("--ingest-corpus", type=Path, default=CORPORA / "opensearch-docs")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved ingest rounds")
    parser.add_argument("--queries", type=int, default=100, help="timed queries per engine")
    parser.add_argument(
        "--parts", default="quality,ingest,query", help="which of quality,ingest,query to run"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    os_url, es_url = cluster_url(), elasticsearch_url()
    opensearch = OpenSearchIndex(client(os_url))
    elastic = ElasticsearchIndex(Elasticsearch(es_url, request_timeout=120))
    results: dict[str, Any] = {"urls": {"opensearch": os_url, "elasticsearch": es_url}}
    clusters: dict[str, RestIndex] = {"opensearch": opensearch, "elasticsearch": elastic}
    if "quality" in parts:
        results["quality"] = _all_quality(opensearch, elastic, args.depth)
    aliases = {label: f"osrag-engines-q-{uuid.uuid4().hex[:8]}" for label in clusters}
    if "ingest" in parts:
        console.print(f"[bold]ingest[/bold]: {args.ingest_corpus}, {args.rounds} rounds")
        results["ingest"] = _ingest(clusters, args.ingest_corpus, args.rounds)
        aliases = results["ingest"].pop("aliases")
    try:
        if "query" in parts:
            if "ingest" not in parts:
                for label, engine in clusters.items():
                    ingest(args.ingest_corpus, engine, IngestOptions(alias=aliases[label]))
            console.print(f"[bold]queries[/bold]: {args.queries} per engine, {args.rounds} rounds")
            results["query"] = _queries(clusters, aliases, args.queries, args.rounds)
    finally:
        for label, engine in clusters.items():
            purge(engine, aliases[label])
    _print(results)
    path = write_results(
        "engines" if parts == {"quality", "ingest", "query"} else "engines-part", results
    )
    console.print(f"wrote {path}")


def _all_quality(opensearch: RestIndex, elastic: RestIndex, depth: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="osrag-engines-") as tmp:
        embedded = EmbeddedIndex(Path(tmp) / "embedded")
        variants = [
            Variant("opensearch", opensearch, "english"),
            Variant("opensearch-standard", opensearch, "standard"),
            Variant("elasticsearch", elastic, "english"),
            Variant("embedded", embedded, "english"),
        ]
        try:
            return {name: _quality(name, variants, depth) for name in DATASETS}
        finally:
            embedded.close()


def _print(results: dict[str, Any]) -> None:
    metric_names = ["ndcg@10", "map", "recall@10", "precision@10", "mrr"]
    rows = []
    for name, q in results.get("quality", {}).items():
        for label, per_config in q["metrics"].items():
            for config, m in per_config.items():
                values = [round(m[x], 4) for x in metric_names]
                rows.append([name, config, label, q["analyzers"][label], *values])
    print_table(
        "metrics per engine (analyzer: the one the generation really uses)",
        ["corpus", "query", "engine", "analyzer", *metric_names],
        rows,
    )
    rows = []
    for name, q in results.get("quality", {}).items():
        for pair, p in q["pairs"].items():
            if "candidate counts" in pair:
                rows.append([name, pair, "", "", "", f"identical: {p['identical']}"])
            else:
                rows.append(
                    [
                        name,
                        pair,
                        p["overlap@10"],
                        p["min_overlap@10"],
                        p["identical_top10"],
                        p["ndcg@10_difference"],
                    ]
                )
    print_table(
        "rankings and candidate counts, engine vs reference",
        ["corpus", "pair", "overlap@10", "min overlap@10", "same top 10", "Δ nDCG@10"],
        rows,
    )
    print_table(
        "ingest: osrag vs the engine's own raw _bulk ceiling (medians)",
        ["engine", "chunks", "raw chunks/s", "osrag chunks/s", "ratio", "pipeline alone chunks/s"],
        [
            [
                e,
                r["chunks"],
                r["raw_chunks_per_s"],
                r["osrag_chunks_per_s"],
                r["ratio"],
                r["pipeline_alone_chunks_per_s"],
            ]
            for e, r in results.get("ingest", {}).items()
        ],
    )
    print_table(
        "query: Searcher.search vs the request it sends, raw (ms)",
        [
            "engine",
            "queries",
            "raw p50",
            "Searcher p50",
            "overhead p50",
            "paired overhead (median)",
            "raw p99",
            "Searcher p99",
        ],
        [
            [
                e,
                r["queries"],
                r["timings_ms"]["request as sent"]["p50"],
                r["timings_ms"]["Searcher.search"]["p50"],
                r["overhead_p50_ms"],
                r["paired_overhead_median_ms"],
                r["timings_ms"]["request as sent"]["p99"],
                r["timings_ms"]["Searcher.search"]["p99"],
            ]
            for e, r in results.get("query", {}).items()
        ],
    )


if __name__ == "__main__":
    main()
