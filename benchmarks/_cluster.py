"""Shared plumbing for the benchmarks that need a cluster: where it is, results, tables."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from _paths import CORPORA as CORPORA  # re-exported: benchmarks import it from here
from _paths import ROOT
from opensearchpy import OpenSearch
from rich.console import Console
from rich.table import Table

RESULTS = ROOT / "benchmarks" / "results"
console = Console()


def cluster_url() -> str:
    """``OSRAG_BENCH_URL``, else ``OSRAG_URL``, else a local node started for the run."""
    url = os.environ.get("OSRAG_BENCH_URL") or os.environ.get("OSRAG_URL")
    if url:
        return url
    from osrag import node

    return node.start(progress=lambda m: console.print(f"[dim]{m}[/dim]")).url


def elasticsearch_url() -> str:
    """``OSRAG_BENCH_ES_URL``, else a local Elasticsearch node started for the run (:9400)."""
    url = os.environ.get("OSRAG_BENCH_ES_URL")
    if url:
        return url
    from osrag import node

    started = node.start(
        engine="elasticsearch",
        port=node.DEFAULT_ES_PORT,
        progress=lambda m: console.print(f"[dim]{m}[/dim]"),
    )
    return started.url


def client(url: str) -> OpenSearch:
    return OpenSearch(url, timeout=120, http_compress=False)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 3),
        "p99": round(percentile(values, 99), 3),
        "mean": round(statistics.fmean(values), 3) if values else float("nan"),
        "n": len(values),
    }


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_results(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), **payload}, indent=2) + "\n")
    return path


def print_table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*(f"{v:,.3f}" if isinstance(v, float) else str(v) for v in row))
    console.print(table)


TREE_RSS_SAMPLER = r"""
me, peak, done = psutil.Process(), [0], threading.Event()
def sample():
    while not done.is_set():
        try:
            tree = [me, *me.children(recursive=True)]
            peak[0] = max(peak[0], sum(p.memory_info().rss for p in tree))
        except psutil.Error:
            pass
        time.sleep(0.02)
threading.Thread(target=sample, daemon=True).start()
"""
"""Source for a child process (after ``import psutil, threading, time``): samples the RSS of
the process and its children every 20 ms into ``peak[0]`` until ``done`` is set."""
