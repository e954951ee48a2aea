"""The local engines: cold fetch per artifact, warm start per engine, memory per node, one run.

    python benchmarks/node_engines.py [--port 9200] [--es-port 9400] [--cluster-port 9500]
        [--transport-port N] [--skip-fetch] [--skip-start]

1. **cold fetch**: each artifact ``osrag node start`` needs — the OpenSearch
   distribution, its two modules' nine jars, the k-NN and neural-search plugin
   zips, the Elasticsearch distribution — fetched into an empty folder over
   HTTPS (SHA-1 checked), then with Maven into an empty local repository
   (``-Dmaven.repo.local``; the first Maven call also fetches Maven's own
   dependency plugin);
2. **warm start**: with everything fetched and unpacked (``OSRAG_HOME``), the
   time from ``node.start`` to healthy for OpenSearch (one node, yellow),
   Elasticsearch (one node, yellow) and the three-node cluster (green, all
   joined), one after the other, each stopped before the next;
3. **memory**: the resident set of each node a few seconds after it is healthy
   (Elasticsearch: launcher JVM + server JVM), heap 512m each.

The machine's load average is printed beside the times: on 2 shared cores it
moves them by tens of seconds. Ratios to the single OpenSearch node are the
comparable figures. Writes ``benchmarks/results/node_engines.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import console, print_table, write_results

from osrag import node
from osrag.node import elasticsearch, opensearch
from osrag.node.fetch import Artifact, fetch


def _artifact_groups() -> list[tuple[str, list[Artifact]]]:
    modules = [jar for m in opensearch.extra_modules() for jar in m.jars]
    return [
        ("OpenSearch integ-test zip", [opensearch.distribution_artifact()]),
        ("analysis-common + lang-painless (9 jars)", modules),
        *((f"plugin {p.name}", [p.artifact(node.OPENSEARCH_VERSION)]) for p in node.PLUGINS),
        ("Elasticsearch integ-test zip", [elasticsearch.distribution_artifact()]),
    ]


def _size_mb(folder: Path, artifacts: list[Artifact]) -> float:
    return sum((folder / a.filename).stat().st_size for a in artifacts) / 1e6


def cold_fetch() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    saved_path, saved_opts = os.environ.get("PATH", ""), os.environ.get("MAVEN_OPTS")
    with tempfile.TemporaryDirectory(prefix="osrag-fetch-") as tmp:
        https, maven = Path(tmp) / "https", Path(tmp) / "maven"
        for name, artifacts in _artifact_groups():
            os.environ["PATH"] = "/nonexistent"  # no mvn: HTTPS with the SHA-1 check
            started = time.perf_counter()
            fetch(artifacts, https, progress=lambda _m: None)
            https_s = time.perf_counter() - started
            os.environ["PATH"] = saved_path
            os.environ["MAVEN_OPTS"] = f"-Dmaven.repo.local={Path(tmp) / 'm2'}"
            started = time.perf_counter()
            fetch(artifacts, maven, progress=lambda _m: None)
            maven_s = time.perf_counter() - started
            rows.append(
                {
                    "artifact": name,
                    "mb": round(_size_mb(https, artifacts), 1),
                    "https_s": round(https_s, 1),
                    "maven_s": round(maven_s, 1),
                }
            )
    os.environ["PATH"] = saved_path
    if saved_opts is None:
        os.environ.pop("MAVEN_OPTS", None)
    else:
        os.environ["MAVEN_OPTS"] = saved_opts
    return rows


def _load() -> float:
    return os.getloadavg()[0]


def warm_start(args: argparse.Namespace) -> list[dict[str, Any]]:
    say = lambda m: console.print(f"[dim]{m}[/dim]")  # noqa: E731
    cases: list[tuple[str, dict[str, Any]]] = [
        ("OpenSearch, 1 node", {"port": args.port, "engine": "opensearch"}),
        ("Elasticsearch, 1 node", {"port": args.es_port, "engine": "elasticsearch"}),
        ("OpenSearch, 3 nodes", {"port": args.cluster_port, "engine": "opensearch", "nodes": 3}),
    ]
    # fetch and unpack first, so only the start is timed
    opensearch.ensure_distribution(node.default_home(), say)
    elasticsearch.ensure_distribution(node.default_home(), say)
    rows: list[dict[str, Any]] = []
    for i, (name, kwargs) in enumerate(cases):
        if node.status(port=kwargs["port"]).running:
            raise SystemExit(f"something osrag started already runs on {kwargs['port']}: stop it")
        transport = None  # a cluster's transport ports are its own: --cluster-port + 100
        if args.transport_port is not None and kwargs.get("nodes", 1) == 1:
            transport = args.transport_port + 10 * i
        load = _load()
        started = time.perf_counter()
        status = node.start(transport_port=transport, progress=say, **kwargs)
        seconds = time.perf_counter() - started
        time.sleep(5)
        settled = node.status(port=kwargs["port"])
        members = [m.rss_mb for m in settled.nodes] or [settled.rss_mb]
        rows.append(
            {
                "engine": name,
                "start_s": round(seconds, 1),
                "load_1min": round(load, 2),
                "rss_mb_per_node": members,
                "rss_mb_total": sum(m or 0 for m in members),
                "version": status.version,
            }
        )
        node.stop(port=kwargs["port"], engine=kwargs["engine"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=node.DEFAULT_PORT)
    parser.add_argument("--es-port", type=int, default=node.DEFAULT_ES_PORT)
    parser.add_argument("--cluster-port", type=int, default=node.DEFAULT_CLUSTER_PORT)
    parser.add_argument(
        "--transport-port",
        type=int,
        help="single nodes' transport port (+10 for Elasticsearch); default: the engine picks",
    )
    parser.add_argument("--skip-fetch", action="store_true")
    parser.add_argument("--skip-start", action="store_true")
    args = parser.parse_args()

    payload: dict[str, Any] = {}
    if not args.skip_fetch:
        payload["cold_fetch"] = rows = cold_fetch()
        print_table(
            "cold fetch (empty folder / empty Maven repository)",
            ["artifact", "MB", "HTTPS s", "Maven s"],
            [[r["artifact"], r["mb"], r["https_s"], r["maven_s"]] for r in rows],
        )
    if not args.skip_start:
        payload["warm_start"] = rows = warm_start(args)
        base = rows[0]["start_s"] or 1.0
        print_table(
            "warm start to healthy, and memory (heap 512m per node)",
            ["engine", "start s", "÷ OpenSearch 1 node", "load (1 min)", "RSS MB per node"],
            [
                [
                    r["engine"],
                    r["start_s"],
                    round(r["start_s"] / base, 2),
                    r["load_1min"],
                    ", ".join(str(m) for m in r["rss_mb_per_node"]),
                ]
                for r in rows
            ],
        )
    console.print(f"wrote {write_results('node_engines', payload)}")


if __name__ == "__main__":
    main()
