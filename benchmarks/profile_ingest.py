"""Where the ingester's CPU goes: ``ingest()`` into the embedded index under cProfile.

    python benchmarks/profile_ingest.py [--corpus PATH | --chunks N] [--url URL] [--top 20]

Ingests a corpus (default: the synthetic policy corpus of ``--chunks`` chunks, written
by ``benchmarks/synthetic_corpus.py`` into a temporary folder unless ``--corpus`` names
one) end to end — load, chunk, extract, build records, serialise, write, manifest —
into a fresh embedded index, or with ``--url`` into a fresh alias on that OpenSearch
(removed afterwards), with no embedder and one process (``workers=1``, so every
stage runs where the profiler sees it).

Every Python thread has its own profiler timed by ``time.thread_time`` (CPU time of
that thread, not wall time): the main thread and the bulk-writer threads are merged
into one profile. CPU the profilers cannot see — tantivy's own native indexing and
merging threads — is the process's CPU (``getrusage``) minus the profiled total, shown
as its own row.

Each function's *self* time is charged to a stage by its module. Time in a function
outside osrag (a C builtin, pydantic, regex, the standard library) is charged to the
osrag module that called it, through the profile's caller edges, in proportion to the
time each caller spent in it — except JSON encoding (``json``, ``orjson``), which is
its own stage wherever it is called. The profiler multiplies Python's cost per call
(about 4.6× on the synthetic corpus) but not native threads', so the shares are
indicative and the ms per chunk an upper bound: ``--unprofiled`` gives the real one.

``--unprofiled`` runs only the same ingest without any profiler, for the true CPU per
chunk (``benchmarks/results/profile_ingest_unprofiled.json``).

Prints the stage table, the top modules and functions, and writes
``benchmarks/results/profile_ingest.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import print_table, write_results

from osrag.engines.base import ChunkIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest

ALIAS = "profile-ingest"

Func = tuple[str, int, str]
"""pstats' key of a function: (file, line, name)."""

STAGES: list[tuple[str, tuple[str, ...]]] = [
    (
        "loading",
        (
            "osrag.loaders.corpus",
            "osrag.loaders",
            "osrag.loaders.seen",
            "osrag.schema.locations",
        ),
    ),
    ("chunking", ("osrag.chunking",)),
    ("extraction (money, dates, ids)", ("osrag.extract", "osrag.currencies")),
    (
        "record building",
        (
            "osrag.models",
            "osrag.ingestion.pipeline",
            "osrag.ingestion.apply",
            "osrag.engines.mapping",
        ),
    ),
    ("bulk writing", ("osrag.engines",)),
    (
        "manifest",
        ("osrag.ingestion.manifest", "osrag.ingestion.generations", "osrag.ingestion.lock"),
    ),
]
"""Stage ← osrag module prefixes (the first match wins). JSON encoding is its own stage."""

JSON = "JSON serialisation"
OTHER = "other osrag (index, workers, config)"
UNSEEN = "CPU no profiler saw (native threads: tantivy indexing, merging)"


def module_of(func: Func) -> str | None:
    """``osrag.x.y`` for a function in the osrag package, else None."""
    path = func[0].replace("\\", "/")
    if "/osrag/" not in path or "/site-packages/" in path:
        return None
    rel = path.rsplit("/osrag/", 1)[1].removesuffix(".py").removesuffix("/__init__")
    return "osrag." + rel.replace("/", ".")


def is_json(func: Func) -> bool:
    path, _, name = func
    return "/json/" in path or "orjson" in path or "orjson" in name or "_json." in name


def stage_of(module: str) -> str:
    for stage, prefixes in STAGES:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return stage
    return OTHER


class Charges:
    """Self time of every function charged to osrag modules (or JSON) via caller edges."""

    def __init__(self, stats: dict[Func, Any]) -> None:
        self.stats = stats
        self._memo: dict[Func, dict[str, float]] = {}

    def owners(self, func: Func, visiting: frozenset[Func] = frozenset()) -> dict[str, float]:
        """Shares (summing to 1) of the owners ``func``'s self time is charged to."""
        if func in self._memo:
            return self._memo[func]
        module = module_of(func)
        if module is not None:
            return {module: 1.0}
        if is_json(func):
            return {JSON: 1.0}
        callers = self.stats[func][4] if func in self.stats else {}
        weights = {c: edge[2] + 1e-12 for c, edge in callers.items() if c not in visiting}
        total = sum(weights.values())
        shares: dict[str, float] = defaultdict(float)
        if not total:
            shares["(outside osrag, no caller)"] = 1.0
        for caller, weight in weights.items():
            for owner, share in self.owners(caller, visiting | {func}).items():
                shares[owner] += share * weight / total
        if not visiting:
            self._memo[func] = dict(shares)
        return dict(shares)

    def by_module(self) -> dict[str, float]:
        charged: dict[str, float] = defaultdict(float)
        for func, (_cc, _nc, tottime, _ct, _callers) in self.stats.items():
            for owner, share in self.owners(func).items():
                charged[owner] += tottime * share
        return dict(charged)


def profile_threads() -> list[cProfile.Profile]:
    """Give every thread started from now on its own CPU-time profiler."""
    profiles: list[cProfile.Profile] = []
    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        profile = cProfile.Profile(time.thread_time)
        profiles.append(profile)
        profile.enable()
        try:
            original(self)
        finally:
            profile.disable()

    threading.Thread.run = run  # type: ignore[method-assign]
    return profiles


def target_index(url: str | None, root: Path) -> ChunkIndex:
    """The embedded index under ``root``, or OpenSearch at ``url`` with no alias left over."""
    if url is None:
        return EmbeddedIndex(root)
    from opensearchpy import OpenSearch

    from osrag.engines.opensearch.index import OpenSearchIndex

    index = OpenSearchIndex(OpenSearch(url, timeout=300))
    purge(index, ALIAS)
    return index


def profiled_ingest(corpus: Path, index: ChunkIndex) -> tuple[pstats.Stats, dict[str, Any]]:
    options = IngestOptions(alias=ALIAS, workers=1, embed_workers=1)
    threads = profile_threads()
    main = cProfile.Profile(time.thread_time)
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    main.enable()
    report = ingest(corpus, index, options)
    main.disable()
    wall, cpu1 = time.perf_counter() - wall0, resource.getrusage(resource.RUSAGE_SELF)
    stats = pstats.Stats(main)
    for profile in threads:
        stats.add(profile)
    process_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    run = {
        "corpus": str(corpus),
        "documents": report.documents,
        "chunks": report.chunks_written,
        "wall_seconds": round(wall, 2),
        "process_cpu_seconds": round(process_cpu, 2),
        "threads_profiled": 1 + len(threads),
    }
    return stats, run


def unprofiled_ingest(corpus: Path, index: ChunkIndex) -> dict[str, Any]:
    """The same ingest with no profiler: the CPU per chunk the shares apply to."""
    options = IngestOptions(alias=ALIAS, workers=1, embed_workers=1)
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    report = ingest(corpus, index, options)
    wall, cpu1 = time.perf_counter() - wall0, resource.getrusage(resource.RUSAGE_SELF)
    process_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    chunks = max(1, report.chunks_written)
    return {
        "documents": report.documents,
        "chunks": report.chunks_written,
        "wall_seconds": round(wall, 2),
        "process_cpu_seconds": round(process_cpu, 2),
        "cpu_ms_per_chunk": round(1000 * process_cpu / chunks, 4),
    }


def tables(stats: pstats.Stats, run: dict[str, Any], top: int) -> dict[str, Any]:
    raw: dict[Func, Any] = stats.stats  # type: ignore[attr-defined]
    modules = Charges(raw).by_module()
    profiled = sum(modules.values())
    stages: dict[str, float] = defaultdict(float)
    for module, seconds in modules.items():
        osrag = module.startswith("osrag")
        stages[stage_of(module) if osrag else module] += seconds
    stages[UNSEEN] = max(0.0, run["process_cpu_seconds"] - profiled)
    chunks = max(1, run["chunks"])
    total = sum(stages.values())
    stage_rows = [
        [name, round(s, 2), round(100 * s / total, 1), round(1000 * s / chunks, 4)]
        for name, s in sorted(stages.items(), key=lambda kv: -kv[1])
    ]
    module_rows = [
        [m, round(s, 2), round(100 * s / total, 1)]
        for m, s in sorted(modules.items(), key=lambda kv: -kv[1])[:top]
    ]
    by_self = sorted(raw.items(), key=lambda kv: -kv[1][2])[:top]
    function_rows = [
        [f"{Path(f[0]).name}:{f[1]} {f[2]}", nc, round(tt, 2), round(ct, 2)]
        for f, (_cc, nc, tt, ct, _callers) in by_self
    ]
    return {
        "profiled_cpu_seconds": round(profiled, 2),
        "cpu_ms_per_chunk": round(1000 * run["process_cpu_seconds"] / chunks, 4),
        "stages": stage_rows,
        "modules": module_rows,
        "functions": function_rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, help="a corpus folder (default: synthetic)")
    parser.add_argument("--chunks", type=int, default=100_000, help="synthetic corpus size")
    parser.add_argument("--top", type=int, default=20, help="modules and functions listed")
    parser.add_argument(
        "--unprofiled", action="store_true", help="only the same ingest without the profiler"
    )
    parser.add_argument("--url", help="ingest into this OpenSearch instead of the embedded index")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="osrag-profile-") as tmp:
        corpus = args.corpus
        if corpus is None:
            from synthetic_corpus import write_corpus

            corpus = Path(tmp) / "corpus"
            write_corpus(corpus, args.chunks)
        index = target_index(args.url, Path(tmp) / "embedded")
        suffix = "" if args.url is None else "_opensearch"
        try:
            if args.unprofiled:
                plain = unprofiled_ingest(corpus, index)
                print(f"without the profiler: {plain}")
                print(f"wrote {write_results('profile_ingest_unprofiled' + suffix, plain)}")
                return
            stats, run = profiled_ingest(corpus, index)
        finally:
            if args.url is not None:
                purge(index, ALIAS)
    result = tables(stats, run, args.top)
    print(
        f"{run['documents']:,} documents, {run['chunks']:,} chunks in {run['wall_seconds']} s "
        f"wall; process CPU {run['process_cpu_seconds']} s "
        f"({result['cpu_ms_per_chunk']} ms/chunk, under the profiler); "
        f"profiled {result['profiled_cpu_seconds']} s in {run['threads_profiled']} threads"
    )
    print_table("CPU per stage", ["stage", "CPU s", "%", "ms/chunk"], result["stages"])
    print_table("CPU per module (charged)", ["module", "CPU s", "%"], result["modules"])
    print_table(
        "functions by self time", ["function", "calls", "self s", "cum s"], result["functions"]
    )
    path = write_results("profile_ingest" + suffix, {"run": run, **result})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
