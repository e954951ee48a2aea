"""Money extraction against the TAT-QA gold: precision, recall, confusion counts, misses by kind.

    .venv/bin/python benchmarks/tatqa_extraction.py [--out benchmarks/results/tatqa] [--json F]

Converts the dataset (``benchmarks/tatqa_corpus.py``), loads every document the way
``osrag ingest`` does (:func:`osrag.loaders.corpus.load_corpus`) and extracts its amounts with
the ingest code (:func:`osrag.extract.extract_values`). Then, for every annotated number:

* a ``money`` or ``per-unit`` item with an expected value: **TP** when an extracted amount
  overlapping it has exactly that value (minor units, sign apart), **wrong** when the
  amounts overlapping it all have another value (the wrong scale, usually), **miss**
  when nothing was extracted there;
* a ``year``, ``percent`` or ``count`` item, and a bare ``per-unit`` one: a **false
  positive** when an amount is extracted from it (for ``per-unit``: a *scaled* amount).

Precision = TP / (TP + wrong + false positives); recall = TP / (TP + wrong + miss), both
over the items an extractor can know (``core``: the scale and a currency are stated
before the number, and the annotations agree with themselves). Items the document does
not support — no scale stated, no currency stated, conflicting annotations — are counted
apart, so their numbers are visible but never inflate or deflate the score. The gold
is incomplete (only annotated numbers), so precision is measured where the gold speaks.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tatqa_corpus import DATASET, GoldItem, convert, core

from osrag.extract import extract_values
from osrag.extract.money import MoneyMention
from osrag.loaders.corpus import load_corpus
from osrag.models import Document, ExtractionConfig


def extracted(root: Path) -> dict[str, tuple[str, list[MoneyMention]]]:
    """doc id → (text, amounts), read as ingest reads them."""
    config = ExtractionConfig()
    out: dict[str, tuple[str, list[MoneyMention]]] = {}
    for doc in load_corpus(root):
        if isinstance(doc, Document):
            values = extract_values(doc.text, config, start=doc.content_start)
            out[Path(doc.source_path).stem] = (doc.text, values.money)
    return out


def tier(g: GoldItem) -> str:
    if g.kind not in ("money", "per-unit") or g.expected is None:
        return "check"
    if g.kind == "per-unit" or core(g):
        return "core"
    if g.conflict:
        return "conflict"
    return "no scale stated" if not g.scale_stated else "no currency stated"


def miss_kind(g: GoldItem, text: str) -> str:
    """What kind of number a miss or a wrong reading was."""
    span = text[g.spans[0][0] : g.spans[0][1]]
    if g.kind == "per-unit":
        return "per-unit"
    if g.source == "text":
        return "running text" + (" (scaled)" if g.scale else "")
    if g.negative:
        return "negative cell"
    if g.scale:
        return "scaled cell" + ("" if "$" in span else " (bare)")
    return "unscaled cell"


_FIGURES = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _figures(text: str) -> str | None:
    match = _FIGURES.search(text)
    return match.group(0) if match else None


def _near(
    g: GoldItem, text: str, mentions: list[MoneyMention], by_value: bool
) -> list[MoneyMention]:
    """The amounts read from the gold item: overlapping its span, or (``by_value``, for a
    corpus the loader rewrote) written with the same figures."""
    if not by_value:
        return [m for m in mentions for s, e in g.spans if m.start < e and s < m.end]
    figures = _figures(g.answer)
    same = [m for m in mentions if _figures(m.raw) == figures]
    if g.source == "text":  # the paragraph is written as it was: find the answer again
        at = text.find(g.around) if g.around else -1
        return [m for m in same if at >= 0 and at <= m.start < at + len(g.around)]
    line = g.label.strip()  # a row: the loader writes its label first on its line
    return [m for m in same if not line or line in _line_of(text, m.start)]


def _line_of(text: str, at: int) -> str:
    return text[text.rfind("\n", 0, at) + 1 : text.find("\n", at)]


def judge(
    gold: list[GoldItem],
    found: dict[str, tuple[str, list[MoneyMention]]],
    *,
    by_value: bool = False,
) -> dict[str, Any]:
    counts: Counter[tuple[str, str]] = Counter()
    by_kind: Counter[tuple[str, str]] = Counter()
    every_kind: Counter[tuple[str, str, str]] = Counter()
    examples: list[dict[str, Any]] = []
    for g in gold:
        text, mentions = found.get(g.doc_id, ("", []))
        near = _near(g, text, mentions, by_value)
        where = tier(g)
        if where == "check":
            bad = [m for m in near if m.scale or g.kind != "per-unit"]
            outcome = "false positive" if bad else "ok"
            counts[(f"{g.kind} (must not be money)", outcome)] += 1
            if bad:
                by_kind[(g.kind, "false positive")] += 1
                examples.append(_example(g, text, bad, "false positive"))
            continue
        ok = any(m.minor_units == g.expected for m in near)
        outcome = "tp" if ok else ("wrong" if near else "miss")
        counts[(where, outcome)] += 1
        every_kind[(where, miss_kind(g, text), outcome)] += 1
        if where == "core" and outcome != "tp":
            by_kind[(miss_kind(g, text), outcome)] += 1
            examples.append(_example(g, text, near, outcome))
    tp = counts[("core", "tp")]
    wrong = counts[("core", "wrong")]
    miss = counts[("core", "miss")]
    fp = sum(v for (k, o), v in counts.items() if o == "false positive")
    # the same confusion with the items that state no currency counted as money to read
    no_currency = counts[("no currency stated", "miss")] + counts[("no currency stated", "wrong")]
    tp_all = tp + counts[("no currency stated", "tp")]
    return {
        "precision": tp / (tp + wrong + fp) if tp + wrong + fp else 1.0,
        "recall": tp / (tp + wrong + miss) if tp + wrong + miss else 1.0,
        "tp": tp,
        "wrong": wrong,
        "miss": miss,
        "false_positives": fp,
        "counts": {f"{k} / {o}": v for (k, o), v in sorted(counts.items())},
        "misses_by_kind": {f"{k} / {o}": v for (k, o), v in sorted(by_kind.items())},
        "with_no_currency": {
            "tp": tp_all,
            "precision": tp_all / (tp_all + wrong + fp) if tp_all + wrong + fp else 1.0,
            "recall": tp_all / (tp_all + wrong + miss + no_currency),
        },
        "outcomes_by_kind": {f"{t} / {k} / {o}": v for (t, k, o), v in sorted(every_kind.items())},
        "examples": examples,
    }


def _example(g: GoldItem, text: str, near: list[MoneyMention], outcome: str) -> dict[str, Any]:
    at = near[0].start if near else g.spans[0][0]
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return {
        "doc": g.doc_id,
        "outcome": outcome,
        "answer": g.answer,
        "scale": g.scale,
        "expected": g.expected,
        "read": [(m.raw, m.minor_units, m.scale) for m in near],
        "line": text[start : end if end >= 0 else None][:200],
    }


def report(result: dict[str, Any]) -> str:
    lines = [
        f"precision {result['precision']:.4f}   recall {result['recall']:.4f}   "
        f"(TP {result['tp']}, wrong {result['wrong']}, miss {result['miss']}, "
        f"false positives {result['false_positives']})",
        "",
        "| tier / outcome | items |",
        "| --- | ---: |",
        *(f"| {k} | {v} |" for k, v in result["counts"].items()),
        "",
        "| core misses by kind | items |",
        "| --- | ---: |",
        *(f"| {k} | {v} |" for k, v in result["misses_by_kind"].items()),
        "",
        "with the no-currency items counted as money to read: "
        f"precision {result['with_no_currency']['precision']:.4f}   "
        f"recall {result['with_no_currency']['recall']:.4f}",
        "",
        "| tier / kind / outcome | items |",
        "| --- | ---: |",
        *(f"| {k} | {v} |" for k, v in result["outcomes_by_kind"].items()),
    ]
    for example in result["examples"]:
        lines.append(
            f"  {example['outcome']}: {example['doc']} {example['answer']!r} "
            f"scale={example['scale']!r} read={example['read']} | {example['line']}"
        )
    return "\n".join(lines)


def run(dataset: Path, out: Path, form: str = "markdown") -> dict[str, Any]:
    """Convert, extract and judge; ``form="html"`` has the HTML loader write the tables
    (amounts are then matched to the gold by their figures, not by span)."""
    _, gold = convert(dataset, out, form)
    return judge(gold, extracted(out / "corpus"), by_value=form == "html")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/tatqa"))
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    parser.add_argument(
        "--form",
        choices=["markdown", "html"],
        default="markdown",
        help="documents as Markdown pipe tables, or as HTML read by the HTML loader",
    )
    args = parser.parse_args(argv)
    result = run(args.dataset, args.out, args.form)
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
