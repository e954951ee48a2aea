"""What int8 quantization costs in retrieval quality: ``default`` against ``default-int8``.

    python benchmarks/embedding_quality.py [--only insurance|cranfield]

For each collection — examples/insurance (37 labelled queries) and Cranfield
(225 queries, 1,400 abstracts) — runs ``osrag eval`` on the embedded engine
twice, once per embedder, each comparing ``mode=bm25,vector,hybrid`` on a
temporary generation, then pairs the per-query nDCG@10 of the two embedders
in each mode: mean difference and the paired randomisation test's p-value
(``osrag.evaluation.significance``). The decision rule: ``default-int8``
may become the default only if it costs less than 0.005 nDCG@10 in every
mode on both collections. Writes ``benchmarks/results/embedding_quality.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _paths import CORPORA, ROOT

RESULTS = ROOT / "benchmarks" / "results" / "embedding_quality.json"
EMBEDDERS = ("default", "default-int8")
THRESHOLD = 0.005


def collections() -> dict[str, list[str]]:
    cran = CORPORA / "cranfield" / "derived"
    insurance = ROOT / "examples" / "insurance"
    return {
        "insurance": [str(insurance / "queries.jsonl"), "--corpus", str(insurance)],
        "cranfield": [
            str(cran / "queries.jsonl"),
            "--qrels",
            str(cran / "qrels.tsv"),
            "--corpus",
            str(cran / "corpus.jsonl"),
        ],
    }


def run_eval(args: list[str], embedder: str, home: Path) -> tuple[dict[str, Any], float]:
    env = dict(os.environ, OSRAG_HOME=str(home), OSRAG_CACHE_DIR=str(home / "cache"))
    cmd = [sys.executable, "-m", "osrag.cli", "eval", *args, "--backend", "embedded"]
    cmd += ["--embedder", embedder, "--compare", "mode=bm25,vector,hybrid", "--k", "10", "--json"]
    started = time.perf_counter()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env, cwd=ROOT)
    return json.loads(done.stdout), time.perf_counter() - started


def compare(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from osrag.evaluation.significance import paired_test

    base, cand = ({c["params"]["mode"]: c for c in runs[e]["configs"]} for e in EMBEDDERS)
    out: dict[str, Any] = {}
    for mode in base:
        ids = sorted(base[mode]["per_query"])
        a = [base[mode]["per_query"][q]["ndcg@10"] for q in ids]
        b = [cand[mode]["per_query"][q]["ndcg@10"] for q in ids]
        test = paired_test(a, b)
        out[mode] = {
            "ndcg@10": {
                e: c[mode]["metrics"]["ndcg@10"]
                for e, c in zip(EMBEDDERS, (base, cand), strict=True)
            },
            "difference": test.mean_difference,
            "p_randomization": test.p_randomization,
            "queries": test.queries,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(collections()))
    args = parser.parse_args()
    result: dict[str, Any] = {"loadavg_start": os.getloadavg()}
    for name, eval_args in collections().items():
        if args.only and name != args.only:
            continue
        runs, seconds = {}, {}
        with tempfile.TemporaryDirectory(prefix="osrag-quality-") as tmp:
            for embedder in EMBEDDERS:
                runs[embedder], seconds[embedder] = run_eval(eval_args, embedder, Path(tmp))
        result[name] = {"modes": compare(runs), "eval_seconds": seconds}
        print(f"\n{name}: nDCG@10, default → default-int8 (paired randomisation p)")
        for mode, row in result[name]["modes"].items():
            before, after = row["ndcg@10"].values()
            print(
                f"  {mode:7s} {before:.4f} → {after:.4f}  Δ {row['difference']:+.4f}  "
                f"p {row['p_randomization']:.3f}  ({row['queries']} queries)"
            )
    costs = [
        -row["difference"]
        for name in ("insurance", "cranfield")
        if name in result
        for mode, row in result[name]["modes"].items()
        if mode != "bm25"
    ]
    result["int8_may_be_default"] = bool(costs) and max(costs) < THRESHOLD
    print(
        f"\nint8 may be the default (costs < {THRESHOLD} everywhere): "
        f"{result['int8_may_be_default']}"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
