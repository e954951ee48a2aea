"""What one over-long name costs an ingest as it grows: seconds, peak RSS, key and index bytes.

A table row label, a column header or a heading of 1 kB to 200 kB (words) is the whole of
one file; each size is ingested into a fresh embedded index by a fresh child process of
``--code`` (this checkout by default), capped at ``--cap-gb`` of address space and
``--timeout`` seconds, and with ``--before CHECKOUT`` the same cases run on that checkout
in the same run, side by side. The line to read: whether seconds, peak RSS and bytes
grow linearly with the name (after the length bounds of ``osrag/lexicon/bounds.py``: flat
past the bound but for the text itself) or with its square (before them).
``tests/ingestion/test_length_cost.py`` asserts the same on counts and bytes.

    python benchmarks/name_cost.py
    python benchmarks/name_cost.py --before ../before --sizes 1000,10000,50000,100000

Prints a table; writes ``benchmarks/results/name_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "name_cost.json"
sys.path.insert(0, str(ROOT / "benchmarks"))

from hostile_files import wait_child  # noqa: E402

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliett", "kilo", "lima", "mike"]  # fmt: skip
"""No word of a label role: every tail of a name would be a key without the bounds."""

PLACES = {
    "row label": "# Table\n\n| Item | 2019 |\n| --- | --- |\n| {name} | $1,000 |\n"
    "| Revenue | $2,000 |\n",
    "column header": "# Table\n\n| Item | {name} |\n| --- | --- |\n| Revenue | $1,000 |\n"
    "| Cost of sales | $2,000 |\n",
    "heading": "# {name}\n\nThe premium is $1,000. The deductible is $2,000.\n",
}

CHILD = """
import json, pathlib, sys
from osrag.ingestion.ingest import IngestOptions, ingest
try:
    from osrag.engines.embedded.index import EmbeddedIndex
except ImportError:
    from osrag.engines.embedded import EmbeddedIndex
corpus, where = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
report = ingest(corpus, EmbeddedIndex(str(where)), IngestOptions())
size = sum(p.stat().st_size for p in where.rglob("*") if p.is_file())
print(json.dumps({"errors": len(report.errors), "index": size}))
"""
"""The ingest, in the child (a checkout from before the engine packages is read too)."""


def _name(length: int) -> str:
    return " ".join(WORDS[n % len(WORDS)] for n in range(length // 4))[:length]


def _limits(cap_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
    os.setsid()


def run_case(code: Path, place: str, size: int, timeout: float, cap_gb: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="osrag-name-cost-") as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        text = PLACES[place].replace("{name}", _name(size))
        (corpus / "named.md").write_text(text, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
        env |= {"PYTHONPATH": str(code), "OSRAG_HOME": tmp, "OSRAG_CACHE_DIR": f"{tmp}/cache"}
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(corpus), f"{tmp}/index"],
            env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _limits(int(cap_gb * 1024**3)),
        )  # fmt: skip
        status, usage, outcome = wait_child(child, timeout)
        seconds = time.perf_counter() - started
        out = child.stdout.read().decode() if child.stdout else ""
        found: dict[str, Any] = {}
        if out.strip():
            found = json.loads(out.strip().splitlines()[-1])
        return {
            "exit": outcome or str(os.waitstatus_to_exitcode(status)),
            "seconds": round(seconds, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "input_bytes": len(text.encode()),
            "index_bytes": found.get("index"),
            "errors": found.get("errors"),
        }


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return ""
    index = "—" if row["index_bytes"] is None else f"{row['index_bytes'] / 1e6:.2f}"
    return f"{row['exit']:>7} {row['seconds']:>7.1f} {row['peak_rss_mib']:>8.0f} {index:>8}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=Path("."), help="checkout whose osrag is run")
    parser.add_argument("--before", type=Path, default=None, help="a checkout to compare with")
    parser.add_argument("--sizes", default="1000,10000,50000,100000,200000")
    parser.add_argument("--places", default=",".join(PLACES))
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--cap-gb", type=float, default=8.0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    codes = {"after": args.code}
    if args.before is not None:
        codes = {"before": args.before, **codes}
    head = " ".join(f"{c + ': exit':>7} {'s':>7} {'MiB':>8} {'index MB':>8}" for c in codes)
    print(f"{'name':<14} {'bytes':>8}  {head}")
    rows: list[dict[str, Any]] = []
    for place in args.places.split(","):
        for size in sizes:
            row: dict[str, Any] = {"place": place, "size": size}
            for label, code in codes.items():
                row[label] = run_case(code.resolve(), place, size, args.timeout, args.cap_gb)
            rows.append(row)
            cells = "  ".join(_cell(row.get(label)) for label in codes)
            print(f"{place:<14} {size:>8}  {cells}", flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps({"codes": {k: str(v) for k, v in codes.items()}, "rows": rows}, indent=1) + "\n"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
