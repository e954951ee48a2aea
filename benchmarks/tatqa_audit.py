"""How far the TAT-QA analyst gold can be trusted: a blind hand audit of returned documents.

    .venv/bin/python benchmarks/tatqa_audit.py [--audit benchmarks/data/tatqa_audit.jsonl]

``benchmarks/data/tatqa_audit.jsonl`` holds 100 top-5 slots (question, document) of the
bm25 run on the embedded index at commit f9f93c7: 50 drawn at random (seed 34) from the
slots the gold counts as misses and 50 from those it counts as holders, shuffled. Each was
read by hand by a reader who saw only the question and the document — not the gold, not
osrag's facts or filter — and given a verdict (``holds``, ``does-not-hold``, ``unclear``),
the figure relied on and a reason.

This script joins the verdicts to the gold of ``benchmarks/tatqa_analyst.py`` (converted
afresh, so a changed gold rule shows here) and prints how often the two agree on each
side. Neither side is osrag's: the figure says how much of the quantity precision the
gold's own rules cost or credit.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _paths import ROOT

AUDIT = ROOT / "benchmarks" / "data" / "tatqa_audit.jsonl"


def gold_holders(work: Path) -> dict[str, set[str]]:
    """question id → the documents the analyst gold says hold it."""
    import tatqa_corpus

    tatqa_corpus.convert(tatqa_corpus.DATASET, work)
    text = (work / "analyst_queries.jsonl").read_text(encoding="utf-8")
    rows = (json.loads(line) for line in text.splitlines())
    return {q["id"]: set(q.get("holders", [])) for q in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--audit", type=Path, default=AUDIT)
    args = parser.parse_args(argv)
    slots = [json.loads(line) for line in args.audit.read_text(encoding="utf-8").splitlines()]
    with tempfile.TemporaryDirectory(prefix="osrag-audit-") as tmp:
        holders = gold_holders(Path(tmp))
    table: Counter[tuple[str, str]] = Counter()
    for slot in slots:
        held = slot["doc"] in holders.get(slot["query_id"], set())
        side = "gold: holder" if held else "gold: miss"
        table[(side, slot["verdict"])] += 1
    print("| gold says | hand: holds | hand: does not hold | hand: unclear | slots |")
    print("|---|---:|---:|---:|---:|")
    for side in ("gold: holder", "gold: miss"):
        row = [table[(side, v)] for v in ("holds", "does-not-hold", "unclear")]
        print(f"| {side.removeprefix('gold: ')} | {' | '.join(map(str, row))} | {sum(row)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
