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

from tatqa_corpus import DATASET, GoldItem, Rendered, convert, core

from osrag.extract import extract_values
from osrag.extract.money import MoneyMention
from osrag.loaders.corpus import load_corpus
from osrag.models import Document, ExtractionConfig
from osrag.schema.facts import AmountFact

FACTS: dict[str, list[AmountFact]] = {}
"""doc id → the facts read with the amounts of :func:`extracted` (for the label measures)."""


def extracted(root: Path) -> dict[str, tuple[str, list[MoneyMention]]]:
    """doc id → (text, amounts), read as ingest reads them (the facts go to ``FACTS``)."""
    config = ExtractionConfig()
    out: dict[str, tuple[str, list[MoneyMention]]] = {}
    FACTS.clear()
    for doc in load_corpus(root):
        if isinstance(doc, Document):
            values = extract_values(doc.text, config, start=doc.content_start)
            out[Path(doc.source_path).stem] = (doc.text, values.money)
            FACTS[Path(doc.source_path).stem] = values.facts
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


_GOLD_NUMBER = re.compile(r"\s*[$€£]?\s*\(?\s*[$€£]?\s*[-–]?\d[\d,]*(?:\.\d+)?\s*\)?\s*%?\s*")
_GOLD_BARE_YEAR = re.compile(r"\s*(?:19|20)\d\d\s*(?:\(\w{1,2}\)|\*+)?\s*")
_GOLD_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _norm(text: str | None) -> str:
    """The one normalisation of both sides: white space collapsed, lower case, a trailing
    colon dropped."""
    return " ".join((text or "").split()).lower().removesuffix(":").strip()


def _gold_header(rows: list[list[str]], r: int, c: int) -> str | None:
    """The dataset's column header of cell (r, c) that names a year: of the rows above the
    table's first row with a number (not a bare year) after its first cell, the lowest
    cell of column c holding a year; None when there is none."""
    first = next(
        (
            i
            for i, row in enumerate(rows)
            if any(_GOLD_NUMBER.fullmatch(x) and not _GOLD_BARE_YEAR.fullmatch(x) for x in row[1:])
        ),
        len(rows),
    )
    for i in range(min(r, first) - 1, -1, -1):
        cell = rows[i][c] if c < len(rows[i]) else ""
        if _GOLD_YEAR.search(cell):
            return cell
    return None


def labels(dataset: Path, docs: list[Rendered], gold: list[GoldItem]) -> dict[str, Any]:
    """Label and period agreement on the gold table amounts: every table cell a core money
    answer was found in (each cell once), its fact compared with the dataset's row label
    (the cell's first cell in its row) and with its column header where that names a
    year. ``label exact``: the stored label equals the row label; ``label row``: it equals
    it, or is it joined with a column qualifier (``row — qualifier``) or under a group
    (``group: row``), the documented joins; ``period text``: the stored period equals the
    header; ``year``: the stored year is the header's year. Both sides normalised only by
    :func:`_norm`. Gold from the dataset's cells; the facts from the ingest code."""
    contexts = json.loads(dataset.read_text(encoding="utf-8"))
    tables = {"tatqa-" + c["table"]["uid"][:8]: c["table"]["table"] for c in contexts}
    cells_of = {d.doc_id: {(a, b): (r, c) for r, c, a, b in d.cells} for d in docs}
    seen: set[tuple[str, int, int]] = set()
    counts: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    for g in gold:
        if not core(g) or g.source != "table":
            continue
        for start, end in g.spans:
            r, c = cells_of[g.doc_id].get((start, end), (-1, -1))
            if r < 0 or (g.doc_id, r, c) in seen:
                continue
            seen.add((g.doc_id, r, c))
            rows = tables[g.doc_id]
            fact = next(
                (f for f in FACTS.get(g.doc_id, []) if f.start < end and start < f.end), None
            )
            _judge_label(counts, misses, g.doc_id, rows, r, c, fact)
    total = counts["cells"]
    with_header = counts["with year header"]
    return {
        "cells": total,
        "with_fact": counts["with fact"],
        "label_exact": counts["label exact"] / total if total else 1.0,
        "label_row": counts["label row"] / total if total else 1.0,
        "cells_with_year_header": with_header,
        "period_text": counts["period text"] / with_header if with_header else 1.0,
        "year": counts["year"] / with_header if with_header else 1.0,
        "disagreements": misses,
    }


def _judge_label(
    counts: Counter[str],
    misses: list[dict[str, Any]],
    doc: str,
    rows: list[list[str]],
    r: int,
    c: int,
    fact: AmountFact | None,
) -> None:
    counts["cells"] += 1
    row = _norm(rows[r][0])
    header = _gold_header(rows, r, c)
    label = _norm(fact.label if fact else None)
    exact = fact is not None and label == row
    row_part = label.split(" — ", 1)[0]  # the column join, then the group join
    joined = exact or (fact is not None and (row_part == row or row_part.endswith(": " + row)))
    counts["with fact"] += fact is not None
    counts["label exact"] += exact
    counts["label row"] += joined
    period_ok = year_ok = True
    if header is not None:
        counts["with year header"] += 1
        year = int(_GOLD_YEAR.search(header).group())  # type: ignore[union-attr]
        period_ok = fact is not None and _norm(fact.period) == _norm(header)
        year_ok = fact is not None and fact.year == year
        counts["period text"] += period_ok
        counts["year"] += year_ok
    if not (exact and period_ok and year_ok):
        misses.append(
            {
                "doc": doc,
                "row": rows[r][0],
                "header": header,
                "label": fact.label if fact else None,
                "period": fact.period if fact else None,
                "year": fact.year if fact else None,
            }
        )


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
    if "labels" in result:
        got = result["labels"]
        lines += [
            "",
            f"labels of the gold table amounts ({got['cells']} cells, {got['with_fact']} with "
            f"a fact; {got['cells_with_year_header']} under a year header):",
            "",
            "| measure | agreement |",
            "| --- | ---: |",
            f"| label equals the row label | {got['label_exact']:.4f} |",
            f"| label is the row label (or it joined: row — column, group: row) | "
            f"{got['label_row']:.4f} |",
            f"| period equals the column header | {got['period_text']:.4f} |",
            f"| year equals the column header's year | {got['year']:.4f} |",
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
    docs, gold = convert(dataset, out, form)
    result = judge(gold, extracted(out / "corpus"), by_value=form == "html")
    if form == "markdown":  # the loader rewrites the HTML tables: no cell offsets to compare
        result["labels"] = labels(dataset, docs, gold)
    return result


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
    parser.add_argument(
        "--disagreements", action="store_true", help="list the cells whose label or period differs"
    )
    args = parser.parse_args(argv)
    result = run(args.dataset, args.out, args.form)
    print(report(result))
    if args.disagreements and "labels" in result:
        for miss in result["labels"]["disagreements"]:
            print("  label/period:", json.dumps(miss, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
