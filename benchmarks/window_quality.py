"""Retrieval quality: chunks fitted to the embedder's window against truncated ones.

    python benchmarks/window_quality.py [--corpus DIR] [--permutations N]

On Cranfield (``derived/``: corpus, queries, qrels) two temporary generations are built
in the embedded index with the default embedder, from the default chunking:

- **truncate** — ``max_tokens`` 400 whitespace tokens, the embedder cuts every text at
  its 256-token window (``osrag ingest --truncate``; what an ingest did before);
- **fit** — chunks cut so the embedded text fits the window, in the embedder's tokens
  (the default).

Every query runs in each of ``bm25``, ``vector`` and ``hybrid``; nDCG@10 and
recall@10 are compared per mode, fit against truncate, with the paired
randomisation test and the paired t-test of :mod:`osrag.evaluation.significance`.
Prints a table and writes ``benchmarks/results/window_quality.json``. Vectors go
through the usual vector cache, so a rerun embeds nothing again.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRANFIELD = Path("/work/shared/corpora/cranfield/derived")
RESULTS = ROOT / "benchmarks" / "results" / "window_quality.json"
MODES = ("bm25", "vector", "hybrid")
METRICS = ("ndcg@10", "recall@10")


def evaluate(derived: Path, permutations: int) -> dict[str, Any]:
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.evaluation import load_query_set, run_evaluation
    from osrag.evaluation.configs import EvalConfig, label
    from osrag.evaluation.significance import paired_test
    from osrag.ingestion.ingest import IngestOptions

    queries = load_query_set(derived / "queries.jsonl", derived / "qrels.tsv")
    configs = [
        EvalConfig(label(p), p)
        for p in ({"fit_window": fit, "mode": mode} for fit in (False, True) for mode in MODES)
    ]
    with tempfile.TemporaryDirectory(prefix="osrag-window-quality-") as tmp:
        index = EmbeddedIndex(Path(tmp) / "embedded")
        report = run_evaluation(
            queries,
            index,
            alias="osrag-window-quality",
            configs=configs,
            ks=(10,),
            corpus=derived / "corpus.jsonl",
            base=IngestOptions(alias="osrag-window-quality", embedder="default", embed_workers=1),
            permutations=permutations,
            progress=print,
        )
    by_name = {c.name: c for c in report.configs}
    rows: list[dict[str, Any]] = []
    for mode in MODES:
        before = by_name[label({"fit_window": False, "mode": mode})]
        after = by_name[label({"fit_window": True, "mode": mode})]
        ids = sorted(set(before.per_query) & set(after.per_query))
        for metric in METRICS:
            a = [before.per_query[q][metric] for q in ids]
            b = [after.per_query[q][metric] for q in ids]
            test = paired_test(a, b, permutations=permutations)
            rows.append(
                {
                    "mode": mode,
                    "metric": metric,
                    "truncate": round(before.metrics[metric], 4),
                    "fit": round(after.metrics[metric], 4),
                    "difference": round(test.mean_difference, 4),
                    "p_randomization": round(test.p_randomization, 4),
                    "p_t_test": round(test.p_t_test, 4),
                    "queries": test.queries,
                }
            )
    return {"corpus": str(derived), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CRANFIELD)
    parser.add_argument("--permutations", type=int, default=10_000)
    args = parser.parse_args()
    result = evaluate(args.corpus, args.permutations)
    print("| mode | metric | truncate | fit | difference | p (randomisation) | p (t) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in result["rows"]:
        print(
            f"| {r['mode']} | {r['metric']} | {r['truncate']:.4f} | {r['fit']:.4f} | "
            f"{r['difference']:+.4f} | {r['p_randomization']:.4f} | {r['p_t_test']:.4f} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {RESULTS}")


if __name__ == "__main__":
    main()
