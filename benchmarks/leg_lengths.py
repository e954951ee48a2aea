"""How long is each mode's list, at which amount step, and what does it hold? Per question.

    .venv/bin/python benchmarks/leg_lengths.py [--sets families,probe2] [--out FILE]

For every question with holder gold of the named sets (the readers of
``benchmarks/quantity_precision.py``), on the embedded engine with the default offline
embedder, each mode (bm25, vector, hybrid) is asked for 100 documents (one hit each, as the
evaluation asks) and the row records: the amount step that answered, the candidate
chunks, the documents returned, the holders among the first five, quantity precision@5
over the documents returned (the benchmark's definition) and over five (trec_eval's P@5
definition, a missing rank counted as not holding), and the ranking with its scores.
Written as JSON Lines, one row per question and mode, and summarised per set, mode and
amount step.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quantity_precision as qp
from _cluster import console

from osrag.errors import QueryError
from osrag.evaluation.inputs import QuerySet
from osrag.evaluation.quantity import HolderGold, condensed
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.searcher import Searcher

MODES = ("bm25", "vector", "hybrid")
DEPTH = 100


def row(searcher: Searcher, query: Any, mode: str, floor: float | None) -> dict[str, Any]:
    """One question in one mode (module docstring)."""
    gold = HolderGold.of(query.holders or [], query.unjudged)
    try:
        result = searcher.search(
            query.query,
            k=DEPTH,
            mode=mode,
            collapse=True,
            highlight=False,
            source_fields=[],
            tenant=query.tenant,
            acl=query.acl,
            **({} if floor is None else {"vector_floor": floor}),
        )
    except QueryError:
        return {"id": query.id, "mode": mode, "step": "refused"}
    ranking = condensed([h.doc_id for h in result.hits], gold)
    top = ranking[:5]
    held = sum(1 for d in top if d in gold.holders)
    return {
        "id": query.id,
        "mode": mode,
        "step": result.amount_step or "no constraint",
        "candidates": result.candidate_count,
        "returned": len(ranking),
        "holders": len(gold.holders),
        "held@5": held,
        "qp@5": held / len(top) if top else 0.0,
        "p@5": held / 5,
        "top5": top,
        "ranking": ranking,
        "scores": [round(float(h.score or 0.0), 6) for h in result.hits],
        "hits": [h.doc_id for h in result.hits],
    }


def measure(
    corpus: Path, queries: QuerySet, home: Path, floor: float | None = None
) -> list[dict[str, Any]]:
    index = qp.engine("embedded", home)
    alias = f"osrag-legs-{uuid.uuid4().hex[:8]}"
    options = IngestOptions(alias=alias, embedder="default")
    try:
        ingest(corpus, index, options)
        searcher = Searcher(index, alias, extraction=options.extraction, enforce_access=False)
        return [row(searcher, q, m, floor) for q in queries.queries for m in MODES]
    finally:
        purge(index, alias)
        close = getattr(index, "close", None)
        if close is not None:
            close()


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Per mode and amount step: questions, mean documents returned, QP@5, P@5."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["step"] == "refused":
            continue
        groups[(r["mode"], r["step"])].append(r)
        groups[(r["mode"], "all")].append(r)
    lines = ["| mode | step | questions | returned (mean) | <5 returned | QP@5 | P@5 |"]
    lines.append("|---|---|---:|---:|---:|---:|---:|")
    for (mode, step), rs in sorted(groups.items()):
        n = len(rs)
        lines.append(
            f"| {mode} | {step} | {n} | {sum(r['returned'] for r in rs) / n:.1f} "
            f"| {sum(1 for r in rs if r['returned'] < 5)} "
            f"| {sum(r['qp@5'] for r in rs) / n:.3f} | {sum(r['p@5'] for r in rs) / n:.3f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="families,probe,probe2,probe3,probe4,probe5,insurance")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/leg_lengths.jsonl"))
    parser.add_argument(
        "--vector-floor", type=float, help="QuerySpec.vector_floor (default: the spec's own)"
    )
    args = parser.parse_args(argv)
    readers = {
        "insurance": qp.insurance_set,
        **{name: (lambda f=folder: qp.families_set(f)) for name, folder in qp.FAMILY_SETS.items()},
    }
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="osrag-legs-") as tmp:
        for name in args.sets.split(","):
            corpus, queries = readers[name]()
            console.print(f"[bold]{name}[/bold]: {len(queries.queries)} questions")
            rows = [
                {"set": name, **r}
                for r in measure(corpus, queries, Path(tmp) / name, args.vector_floor)
            ]
            print(f"\n{name}\n" + "\n".join(summary(rows)))
            out += rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    console.print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
