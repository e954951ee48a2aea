"""Interactive latency of the ``osrag`` command: wall time of a new process, and warm.

    python benchmarks/cli_latency.py [--rounds 5]
    python benchmarks/cli_latency.py --variant before=/tmp/old-checkout --variant after=.

Each variant is a checkout (its folder goes first on ``PYTHONPATH``), optionally with
its own interpreter: ``NAME=PATH`` or ``NAME=PATH@PYTHON`` (default: this checkout
with this interpreter). Every variant gets its own working folder and cache folder
(``OSRAG_CACHE_DIR``), with no ``OSRAG_*`` variable of the caller's, and ingests the
sample corpus (``examples/insurance``, ``--embedder default``) into the embedded index
there, as ``scripts/demo`` does (its sources byte-compiled first, as an install
does: where ``PYTHONDONTWRITEBYTECODE`` is set, every process would otherwise compile
every module it imports, ~0.4 s). Then, in ``--rounds`` rounds, every measure runs once
per variant, the variants' order alternating from round to round, so machine load
falls on all of them alike:

* **cold**: the wall time of a new process (``python -m osrag.cli …``, what the
  ``osrag`` script runs), beside ``python -c "import osrag"`` and ``import osrag.cli``,
  and its CPU time (user + system): on a shared machine the wall time follows the
  load, the CPU time much less — it is about what the wall time would be on an idle
  one, the command being one thread but for a few ms;
* **warm**: the same command run again inside a process that has just run it once
  (``app(args)`` twice; the second is timed): imports and anything a process keeps are
  warm, nothing else is shared.

Measures: ``search 'umbrella over $500,000'`` (with the demo's ``--tenant acme --acl
agents``) in ``--mode bm25`` and in the default mode (hybrid, the alias holds
vectors); the hybrid search again with the cache folder's ``models/`` removed first
(the first search after an install: the embedder's graph is built); ``chunks FILE``;
``index status``. Medians of the rounds; the load average before and after.

Then, once per variant: the ``--json`` search's ``took_ms`` and ``embedder_load_ms``
(where the variant reports it), and ``python -X importtime`` of ``import osrag.cli``
and of each search: total import time, the packages that cost most (their modules'
own time), and whether the local-engine manager (``osrag.node``), the evaluation,
the framework integrations, ``onnx`` or ``opensearchpy`` were imported.

Writes ``benchmarks/results/cli_latency.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _cluster import ROOT, write_results
from rich.console import Console
from rich.table import Table

console = Console(width=200)

QUERY = "umbrella over $500,000"
ACCESS = ["--tenant", "acme", "--acl", "agents"]
CORPUS = ROOT / "examples" / "insurance"
CHUNKS_FILE = CORPUS / "globex-umbrella-1m.md"

MEASURES: dict[str, list[str]] = {
    "search bm25": ["search", QUERY, "--mode", "bm25", *ACCESS],
    "search hybrid": ["search", QUERY, *ACCESS],
    "search hybrid, empty model cache": ["search", QUERY, *ACCESS],
    "chunks FILE": ["chunks", str(CHUNKS_FILE)],
    "index status": ["index", "status"],
}
"""The commands timed (arguments after ``osrag``)."""

IMPORTS = {"import osrag": "import osrag", "import osrag.cli": "import osrag.cli"}
NO_WARM = {"search hybrid, empty model cache"}
"""Measures whose point is a process that starts from nothing."""

WATCHED = ("osrag.node", "osrag.evaluation", "osrag.integrations", "onnx", "opensearchpy")
"""Modules an interactive search should not need."""

WARM_DRIVER = r"""
import contextlib, io, json, sys, time
from osrag.cli import app
args = json.loads(sys.argv[1])
times = []
for _ in range(2):
    sink = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            app(args, standalone_mode=False, prog_name="osrag")
        except SystemExit as exc:
            if exc.code:
                raise
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""
"""Runs one command twice in one process; prints both wall times."""


@dataclass
class Variant:
    name: str
    path: Path
    python: str
    work: Path = Path()
    cold: dict[str, list[float]] = field(default_factory=dict)
    cold_cpu: dict[str, list[float]] = field(default_factory=dict)
    warm: dict[str, list[float]] = field(default_factory=dict)
    ingest_s: float = 0.0

    @property
    def env(self) -> dict[str, str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
        return clean | {
            "PYTHONPATH": str(self.path),
            "OSRAG_CACHE_DIR": str(self.work / "cache"),
            "COLUMNS": "160",
            "NO_COLOR": "1",
        }

    def run(self, argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.python, *argv],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if check and done.returncode != 0:
            raise SystemExit(
                f"{self.name}: {' '.join(argv[:4])}… exited {done.returncode}:\n{done.stderr}"
            )
        return done

    def timed(self, label: str, argv: list[str]) -> None:
        """Run ``argv`` in a new process: its wall time into ``cold``, its CPU time (user +
        system, what the wall time would be on an idle machine for a one-thread process)
        into ``cold_cpu``."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        self.run(argv)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.cold.setdefault(label, []).append(wall)
        self.cold_cpu.setdefault(label, []).append(cpu)


def parse_variant(text: str) -> Variant:
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise SystemExit(f"--variant {text!r}: expected NAME=PATH or NAME=PATH@PYTHON")
    path, _, python = rest.partition("@")
    folder = Path(path).resolve()
    if not (folder / "osrag" / "__init__.py").is_file():
        raise SystemExit(f"--variant {text!r}: {folder} holds no osrag package")
    return Variant(name, folder, python or sys.executable)


def prepare(variant: Variant, root: Path) -> None:
    """The variant's sources byte-compiled (as ``pip install`` does; an environment with
    ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module in every process),
    a working folder and cache for it, and the sample corpus ingested there."""
    variant.work = root / variant.name
    variant.work.mkdir()
    variant.run(["-m", "compileall", "-q", str(variant.path / "osrag")])
    started = time.perf_counter()
    variant.run(["-m", "osrag.cli", "ingest", str(CORPUS), "--embedder", "default"])
    variant.ingest_s = time.perf_counter() - started
    console.print(f"[dim]{variant.name}: ingested {CORPUS.name} in {variant.ingest_s:.1f} s[/dim]")


def one_round(variant: Variant) -> None:
    for label, code in IMPORTS.items():
        variant.timed(label, ["-c", code])
    for label, args in MEASURES.items():
        if label in NO_WARM:
            shutil.rmtree(variant.work / "cache" / "models", ignore_errors=True)
        variant.timed(label, ["-m", "osrag.cli", *args])
        if label not in NO_WARM:
            done = variant.run(["-c", WARM_DRIVER, json.dumps(args)])
            variant.warm.setdefault(label, []).append(json.loads(done.stdout)[-1])


def reported_times(variant: Variant) -> dict[str, dict[str, Any]]:
    """``took_ms`` and ``embedder_load_ms`` of a ``--json`` search in a new process."""
    found: dict[str, dict[str, Any]] = {}
    for label in ("search bm25", "search hybrid"):
        done = variant.run(["-m", "osrag.cli", *MEASURES[label], "--json"])
        result = json.loads(done.stdout)
        found[label] = {
            "took_ms": result.get("took_ms"),
            "embedder_load_ms": result.get("embedder_load_ms", "not reported"),
        }
    return found


def import_profile(variant: Variant, argv: list[str]) -> dict[str, Any]:
    """``-X importtime`` of one command: total, the costliest packages, watched modules."""
    done = variant.run(["-X", "importtime", *argv])
    own: Counter[str] = Counter()
    modules: set[str] = set()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = (part.strip() for part in line[12:].split("|"))
        modules.add(name)
        top = name.split(".")[0]
        key = ".".join(name.split(".")[:2]) if top == "osrag" else top
        own[key] += int(self_us)
    return {
        "total_ms": round(sum(own.values()) / 1000, 1),
        "top": [(name, round(us / 1000, 1)) for name, us in own.most_common(8)],
        "imported": {
            watched: any(m == watched or m.startswith(watched + ".") for m in modules)
            for watched in WATCHED
        },
    }


def print_table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*(f"{v:,.1f}" if isinstance(v, float) else str(v) for v in row))
    console.print(table)


def median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME=PATH[@PYTHON]: a checkout to measure (repeatable; default: this one)",
    )
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    variants = [parse_variant(v) for v in args.variant] or [Variant("this", ROOT, sys.executable)]
    if len({v.name for v in variants}) != len(variants):
        raise SystemExit("--variant: the names must differ")
    load: dict[str, Any] = {"before": os.getloadavg(), "rounds": []}
    with tempfile.TemporaryDirectory(prefix="osrag-cli-latency-") as tmp:
        for variant in variants:
            prepare(variant, Path(tmp))
        for round_no in range(args.rounds):
            order = variants if round_no % 2 == 0 else variants[::-1]
            for variant in order:
                one_round(variant)
            load["rounds"].append(os.getloadavg()[0])
            console.print(
                f"[dim]round {round_no + 1}/{args.rounds}, load {os.getloadavg()[0]:.2f}[/dim]"
            )
        load["after"] = os.getloadavg()
        reported = {v.name: reported_times(v) for v in variants}
        profiles = {
            v.name: {
                "import osrag.cli": import_profile(v, ["-c", "import osrag.cli"]),
                **{
                    label: import_profile(v, ["-m", "osrag.cli", *MEASURES[label]])
                    for label in ("search bm25", "search hybrid")
                },
            }
            for v in variants
        }
    labels = [*IMPORTS, *MEASURES]
    columns = ["measure"]
    for v in variants:
        columns += [f"{v.name} cold ms", f"{v.name} cold CPU ms", f"{v.name} warm ms"]
    if len(variants) == 2:
        columns.append(f"cold {variants[1].name}/{variants[0].name}")
    rows = []
    for label in labels:
        row: list[Any] = [label]
        for v in variants:
            row.append(median_ms(v.cold[label]))
            row.append(median_ms(v.cold_cpu[label]))
            row.append(median_ms(v.warm[label]) if label in v.warm else "—")
        if len(variants) == 2:
            row.append(
                f"{median_ms(variants[1].cold[label]) / median_ms(variants[0].cold[label]):.2f}"
            )
        rows.append(row)
    print_table(
        f"osrag CLI wall time, median of {args.rounds} interleaved rounds (1-minute load "
        f"average {load['before'][0]:.2f} before, "
        f"{', '.join(f'{x:.2f}' for x in load['rounds'])} after each round; {os.cpu_count()} CPUs)",
        columns,
        rows,
    )
    print_table(
        "reported by a --json search (new process, after the rounds)",
        ["variant", "search", "took_ms", "embedder_load_ms"],
        [
            [name, label, str(t["took_ms"]), str(t["embedder_load_ms"])]
            for name, by_label in reported.items()
            for label, t in by_label.items()
        ],
    )
    print_table(
        "python -X importtime (one run each): total, costliest packages (own time), watched",
        ["variant", "what", "total ms", "costliest (ms)", "imports"],
        [
            [
                name,
                what,
                p["total_ms"],
                ", ".join(f"{pkg} {ms}" for pkg, ms in p["top"][:6]),
                ", ".join(m for m, yes in p["imported"].items() if yes) or "none of them",
            ]
            for name, by_what in profiles.items()
            for what, p in by_what.items()
        ],
    )
    path = write_results(
        "cli_latency",
        {
            "rounds": args.rounds,
            "load_average": load,
            "variants": {
                v.name: {
                    "checkout": v.path.name,  # no machine paths in results
                    "python": Path(v.python).name,
                    "ingest_s": round(v.ingest_s, 2),
                    "cold_ms": {k: [round(x * 1000, 1) for x in xs] for k, xs in v.cold.items()},
                    "warm_ms": {k: [round(x * 1000, 1) for x in xs] for k, xs in v.warm.items()},
                    "median_cold_ms": {k: median_ms(xs) for k, xs in v.cold.items()},
                    "cold_cpu_ms": {
                        k: [round(x * 1000, 1) for x in xs] for k, xs in v.cold_cpu.items()
                    },
                    "median_cold_cpu_ms": {k: median_ms(xs) for k, xs in v.cold_cpu.items()},
                    "median_warm_ms": {k: median_ms(xs) for k, xs in v.warm.items()},
                    "reported": reported[v.name],
                    "importtime": profiles[v.name],
                }
                for v in variants
            },
        },
    )
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
