"""Labels matched by meaning against keys alone: the threshold sweep, and the side-by-side.

    .venv/bin/python benchmarks/label_meaning.py [--label after] [--sets families,tatqa] \
        [--thresholds off,0.5,0.55,…] [--sweep-modes bm25,vector] [--chosen 0.7] \
        [--engines embedded,opensearch,elasticsearch] [--modes bm25,vector,hybrid] \
        [--cluster-modes bm25]

Query sets with gold independent of osrag (see ``benchmarks/quantity_precision.py``):
``families`` — the development set of ``benchmarks/data/families`` (126 questions in ten
families, two of them families no profile covers); ``probe`` to ``probe7`` — the probe
sets of families, written as ``families`` is (a held-out set is measured only when named);
``insurance`` — the role-bound questions of ``examples/insurance``; ``tatqa`` — the TAT-QA
analyst questions, and ``tatqa-hand`` — the same with their gold adjudicated by the hand
readings. Each corpus is ingested once per engine with the offline default embedder (so
vector and hybrid run, and the label vocabulary has vectors).

**The sweep** (embedded engine, every mode of ``--sweep-modes``, default bm25): for every
threshold —
``off`` is keys alone — each question is searched as the evaluation searches (one hit per
document, ten documents), and reported per family and per set: quantity precision@5
(:func:`osrag.evaluation.quantity.quantity_precision_at` against the holder gold), the
share answered at the bound step of the amount ladder, how many questions meaning added
a key to, and the **judged matches**: every label a question matched by meaning that
added a key, judged by the rule below.

**The rule that judges a label matched by meaning** (written down here; it reads the
gold and the label's text, never osrag's filter):

* **a set of families, and insurance** — *right* when the label's row (its text before the
  first `` — ``, after a group's ``: ``, without parenthesised words, as words) is written in the
  evidence a reader cited for a holder of the question (the row or sentence that makes it
  hold); else *wrong* when a document the gold judges as not holding the quantity (neither
  a holder nor unjudged) holds a fact with that label whose amount meets the question's
  constraint (its currency, and its magnitude compared as the constraint says) — had the
  label been the asked quantity, that document would hold it; else *inert* when no fact
  with that label meets the constraint anywhere (the key admits no document; it is not
  judged); else *unjudged* (it meets the constraint only in holders whose evidence cites
  another row, or in unjudged documents). The facts are read by osrag's extraction — what
  the key admits —; the verdict comes from the gold.
* **tatqa, tatqa-hand** — *right* when the label's row, normalised as the dataset's gold normalises
  row labels (:func:`tatqa_analyst.normalise`), is one of the labels the gold takes to mean
  the question's subject (:data:`tatqa_analyst.SUBJECTS`, the loss labels included); else
  *wrong* (another line of the table). Whether it admits a document (a fact meeting the
  constraint) is counted beside.

Precision of the added keys = right / (right + wrong); **false matches** = wrong.

**The side-by-side** (``--chosen``): keys alone against meaning at the chosen threshold,
per family and set, on every engine and mode asked (the clusters in ``--cluster-modes``),
in one run: QP@5, the share answered at the bound step, the false matches.

The tables are printed and the JSON written to ``benchmarks/results/label_meaning[-LABEL].json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quantity_precision as qp
import tatqa_analyst
from _cluster import console, write_results

from osrag.engines.base import ChunkIndex
from osrag.errors import QueryError
from osrag.evaluation.inputs import QuerySet
from osrag.evaluation.quantity import HolderGold, quantity_precision_at
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document, ExtractionConfig, SearchResult
from osrag.search.meaning import DEFAULT_THRESHOLD
from osrag.search.searcher import Searcher

THRESHOLDS = (
    "off,0.5,0.55,0.575,0.6,0.625,0.65,0.675,0.7,0.75,0.8,0.6/beside,0.65/beside,0.7/beside"
)
K = 5
MINOR = 100
"""Minor units per major unit of every currency the sets ask in (USD, GBP, EUR, …)."""
TATQA_SETS = ("tatqa", "tatqa-hand")
"""The sets judged by the TAT-QA subjects' row labels rather than by cited evidence."""


# --------------------------------------------------------------------------- gold


def _records(path: Path) -> dict[str, dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {row["id"]: row for row in map(json.loads, filter(None, lines))}


def _bounds(constraint: dict[str, Any]) -> tuple[str, int, int | None]:
    """(op, low, high) in minor units of a gold constraint (families' ``amount`` or
    ``low``/``high``; TAT-QA's ``low``/``high``)."""
    low = constraint.get("amount", constraint.get("low"))
    high = constraint.get("high")
    return (
        constraint["op"],
        round(float(low) * MINOR),
        None if high is None else round(float(high) * MINOR),
    )


def meets(magnitude: int, currency: str, constraint: dict[str, Any]) -> bool:
    """Whether an amount meets a gold constraint (this benchmark's own comparison)."""
    if currency != constraint.get("currency", "USD"):
        return False
    op, low, high = _bounds(constraint)
    if op == "between":
        return low <= magnitude <= (high if high is not None else low)
    return {
        "gt": magnitude > low,
        "gte": magnitude >= low,
        "lt": magnitude < low,
        "lte": magnitude <= low,
        "eq": magnitude == low,
    }[op]


def row_words(label: str) -> str:
    """A label's row as words: before the first `` — ``, after a group's ``: ``,
    parenthesised and bracketed words left out, lower case."""
    row = label.split(" — ")[0].rpartition(": ")[2]
    row = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", row)
    return " ".join(re.findall(r"[a-z0-9]+", row.lower()))


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def facts_by_label(corpus: Path) -> dict[str, list[tuple[str, int, str]]]:
    """Label → (document, magnitude, currency) of every fact the extraction reads in
    ``corpus`` (what a key of that label admits)."""
    found: dict[str, list[tuple[str, int, str]]] = {}
    for item in load_corpus(corpus):
        if not isinstance(item, Document):
            continue
        for chunk in prepare_chunks(item, ChunkingConfig(), ExtractionConfig()):
            for fact in chunk.facts:
                if fact.label:
                    found.setdefault(fact.label, []).append(
                        (item.doc_id, abs(fact.value), fact.currency)
                    )
    return found


class Judge:
    """The rule of the module docstring, for one set."""

    def __init__(self, set_name: str, raw: dict[str, dict[str, Any]], corpus: Path) -> None:
        self.set_name = set_name
        self.raw = raw
        self.facts = facts_by_label(corpus)
        self.subjects = {s.name: s for s in tatqa_analyst.SUBJECTS}

    def admits(self, qid: str, label: str) -> list[str]:
        """The documents a fact with ``label`` meeting the question's constraint is in."""
        constraint = self.raw[qid]["constraint"]
        return sorted(
            {doc for doc, value, cur in self.facts.get(label, []) if meets(value, cur, constraint)}
        )

    def verdict(self, qid: str, label: str) -> str:
        row = self.raw[qid]
        admitted = self.admits(qid, label)
        if self.set_name in TATQA_SETS:
            subject = self.subjects[row["constraint"]["subject"]]
            names = set(subject.labels) | set(subject.loss_labels)
            return "right" if tatqa_analyst.normalise(row_words(label)) in names else "wrong"
        holders = set(row.get("holders") or [])
        unjudged = set(row.get("unjudged") or [])
        cited = row_words(label)
        evidence = row.get("evidence") or {}
        if cited and any(f" {cited} " in _words(evidence.get(h, "")) for h in holders):
            return "right"
        if any(d not in holders and d not in unjudged for d in admitted):
            return "wrong"
        if not admitted:
            return "inert"
        return "unjudged"


# --------------------------------------------------------------------------- runs


def search(searcher: Searcher, q: Any, mode: str) -> SearchResult | None:
    try:
        return searcher.search(
            q.query,
            k=10,
            collapse=True,
            mode=mode,
            highlight=False,
            source_fields=[],
            tenant=q.tenant,
            acl=q.acl,
        )
    except QueryError:
        return None


def run_queries(
    index: ChunkIndex,
    alias: str,
    queries: QuerySet,
    mode: str,
    threshold: float | None,
    judge: Judge,
    *,
    beside_keys: bool = False,
) -> dict[str, dict[str, Any]]:
    """Per question: QP@5, the step that answered, the labels matched by meaning that added
    keys, each with its verdict. ``beside_keys``: by meaning also where labels hold the
    name's keys (the variant the default leaves out)."""
    searcher = Searcher(index, alias, enforce_access=False, label_meaning_threshold=threshold)
    searcher.meaning.beside_keys = beside_keys
    rows: dict[str, dict[str, Any]] = {}
    for q in queries.queries:
        result = search(searcher, q, mode)
        gold = HolderGold.of(q.holders or [], q.unjudged)
        ranking = [h.doc_id for h in result.hits] if result else []
        matched = []
        if result is not None:
            for report in result.label_matches:
                for m in report.matches:
                    if m.by == "meaning" and m.keys:
                        matched.append(
                            {
                                "name": report.name,
                                "label": m.label,
                                "cosine": m.cosine,
                                "keys": m.keys,
                                "verdict": judge.verdict(q.id, m.label),
                                "admits": bool(judge.admits(q.id, m.label)),
                            }
                        )
        rows[q.id] = {
            f"qp@{K}": quantity_precision_at(ranking, gold, K),
            "step": (result.amount_step or "no constraint") if result else "refused",
            "meaning": matched,
            "unmatched": [
                r.name for r in (result.label_matches if result else []) if not r.matched
            ],
        }
    return rows


def summarise(rows: dict[str, dict[str, Any]], qids: Iterable[str]) -> dict[str, Any]:
    ids = [q for q in qids if q in rows]
    if not ids:
        return {}
    verdicts = Counter(m["verdict"] for q in ids for m in rows[q]["meaning"])
    judged = verdicts["right"] + verdicts["wrong"]
    return {
        "queries": len(ids),
        f"qp@{K}": round(sum(rows[q][f"qp@{K}"] for q in ids) / len(ids), 4),
        "bound_share": round(sum(rows[q]["step"] == "bound" for q in ids) / len(ids), 4),
        "with_meaning": sum(bool(rows[q]["meaning"]) for q in ids),
        "matches": sum(len(rows[q]["meaning"]) for q in ids),
        "verdicts": dict(verdicts),
        "precision": round(verdicts["right"] / judged, 4) if judged else None,
        "false_matches": verdicts["wrong"],
        "false_admitting": sum(
            m["verdict"] == "wrong" and m["admits"] for q in ids for m in rows[q]["meaning"]
        ),
        "unmatched": sum(bool(rows[q]["unmatched"]) for q in ids),
    }


def groups(set_name: str, queries: QuerySet) -> dict[str, list[str]]:
    """Question ids by family (a set of families), and the whole set."""
    ids = [q.id for q in queries.queries]
    out: dict[str, list[str]] = {}
    folder = qp.FAMILY_SETS.get(set_name)
    if folder is not None:
        family, no_profile = qp.families_of_queries(folder)
        for name in sorted(set(family.values())):
            out[name] = [q for q in ids if family.get(q) == name]
        out["(families a profile covers)"] = [q for q in ids if family.get(q) not in no_profile]
        out["(families no profile covers)"] = [q for q in ids if family.get(q) in no_profile]
    out["(all)"] = ids
    return out


def parse_threshold(text: str) -> tuple[float | None, bool]:
    """``off`` (keys alone), ``0.65``, or ``0.65/beside`` (by meaning beside the keys too)."""
    value, _, variant = text.partition("/")
    return (None if value == "off" else float(value)), variant == "beside"


def load_sets(names: list[str], work: Path) -> dict[str, tuple[Path, QuerySet, dict[str, Any]]]:
    loaded: dict[str, tuple[Path, QuerySet, dict[str, Any]]] = {}
    for name in names:
        folder = qp.FAMILY_SETS.get(name)
        if folder is not None:
            corpus, queries = qp.families_set(folder)
            raw = _records(folder / "queries.jsonl")
        elif name == "insurance":
            corpus, queries = qp.insurance_set()
            raw = _records(qp.INSURANCE / "queries.jsonl")
        elif name == "tatqa":
            corpus, queries = qp.tatqa_set(work / "tatqa")
            raw = _records(work / "tatqa" / "analyst_queries.jsonl")
        elif name == "tatqa-hand":
            corpus, queries = qp.tatqa_hand_set(work / "tatqa")
            raw = _records(work / "tatqa" / "analyst_queries_hand.jsonl")
        else:
            known = ", ".join([*qp.FAMILY_SETS, "insurance", *TATQA_SETS])
            raise SystemExit(f"unknown set {name!r}: one of {known}")
        loaded[name] = (corpus, queries, raw)
    return loaded


def sweep_table(results: dict[str, Any]) -> str:
    lines = [
        "| set | mode | group | threshold | QP@5 | bound | questions with a meaning key "
        "| matches | right / wrong / inert / unjudged | precision | false matches (admitting) |",
        "|---|---|---|---|---:|---:|---:|---:|---|---:|---|",
    ]
    for set_name, by_mode in results["sweep"].items():
        for mode, by_threshold in by_mode.items():
            for threshold, by_group in by_threshold.items():
                for group, s in by_group.items():
                    v = s["verdicts"]
                    precision = "—" if s["precision"] is None else f"{s['precision']:.2f}"
                    lines.append(
                        f"| {set_name} | {mode} | {group} | {threshold} | {s[f'qp@{K}']:.3f} "
                        f"| {s['bound_share']:.0%} | {s['with_meaning']} | {s['matches']} "
                        f"| {v.get('right', 0)} / {v.get('wrong', 0)} / {v.get('inert', 0)} / "
                        f"{v.get('unjudged', 0)} | {precision} "
                        f"| {s['false_matches']} ({s['false_admitting']}) |"
                    )
    return "\n".join(lines)


def side_table(results: dict[str, Any]) -> str:
    lines = [
        "| set | engine | mode | group | questions | QP@5 keys | QP@5 meaning | bound keys "
        "| bound meaning | false matches |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for set_name, engines in results["side_by_side"].items():
        for engine_name, modes in engines.items():
            for mode, by_group in modes.items():
                for group, pair in by_group.items():
                    keys, meaning = pair["keys"], pair["meaning"]
                    lines.append(
                        f"| {set_name} | {engine_name} | {mode} | {group} | {keys['queries']} "
                        f"| {keys[f'qp@{K}']:.3f} | {meaning[f'qp@{K}']:.3f} "
                        f"| {keys['bound_share']:.0%} | {meaning['bound_share']:.0%} "
                        f"| {meaning['false_matches']} |"
                    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--label", default="after", help="names the results file")
    parser.add_argument("--sets", default="families,tatqa")
    parser.add_argument(
        "--thresholds",
        default=THRESHOLDS,
        help="off (keys alone), a cosine, or COSINE/beside (by meaning beside the keys too); "
        "'' skips the sweep",
    )
    parser.add_argument("--sweep-modes", default="bm25", help="the sweep's modes, comma-separated")
    parser.add_argument(
        "--chosen", default=str(DEFAULT_THRESHOLD), help="'' skips the side-by-side"
    )
    parser.add_argument("--engines", default="embedded,opensearch,elasticsearch")
    parser.add_argument("--modes", default="bm25,vector,hybrid", help="on the embedded engine")
    parser.add_argument("--cluster-modes", default="bm25", help="on OpenSearch and Elasticsearch")
    args = parser.parse_args(argv)
    thresholds = [t for t in args.thresholds.split(",") if t]
    sweep_modes = [m for m in args.sweep_modes.split(",") if m]
    results: dict[str, Any] = {
        "label": args.label,
        "rule": "benchmarks/label_meaning.py (module docstring)",
        "sweep": {},
        "side_by_side": {},
        "per_query": {},
    }
    with tempfile.TemporaryDirectory(prefix="osrag-meaning-") as tmp:
        work = Path(tmp)
        loaded = load_sets(args.sets.split(","), work)
        judges = {name: Judge(name, raw, corpus) for name, (corpus, _, raw) in loaded.items()}
        for engine_name in args.engines.split(","):
            index = qp.engine(engine_name, work / "home")
            modes = (args.modes if engine_name == "embedded" else args.cluster_modes).split(",")
            try:
                for set_name, (corpus, queries, _) in loaded.items():
                    alias = f"osrag-meaning-{uuid.uuid4().hex[:8]}"
                    console.print(f"[bold]{set_name}[/bold] on {engine_name}: ingesting")
                    ingest(corpus, index, IngestOptions(alias=alias, embedder="default"))
                    try:
                        grouped = groups(set_name, queries)
                        if engine_name == "embedded" and thresholds:
                            for mode in sweep_modes:
                                sweep = results["sweep"].setdefault(set_name, {})
                                per_query = results["per_query"].setdefault(set_name, {})
                                for text in thresholds:
                                    console.print(f"  sweep {mode} at {text}")
                                    threshold, beside = parse_threshold(text)
                                    rows = run_queries(
                                        index,
                                        alias,
                                        queries,
                                        mode,
                                        threshold,
                                        judges[set_name],
                                        beside_keys=beside,
                                    )
                                    sweep.setdefault(mode, {})[text] = {
                                        g: summarise(rows, ids) for g, ids in grouped.items()
                                    }
                                    per_query.setdefault(mode, {})[text] = rows
                        if args.chosen:
                            side = results["side_by_side"].setdefault(set_name, {})
                            for mode in modes:
                                console.print(f"  side by side {engine_name} {mode}")
                                pair = {
                                    name: run_queries(
                                        index, alias, queries, mode, threshold, judges[set_name]
                                    )
                                    for name, threshold in (
                                        ("keys", None),
                                        ("meaning", float(args.chosen)),
                                    )
                                }
                                side.setdefault(engine_name, {})[mode] = {
                                    g: {n: summarise(rows, ids) for n, rows in pair.items()}
                                    for g, ids in grouped.items()
                                }
                    finally:
                        purge(index, alias)
            finally:
                close = getattr(index, "close", None)
                if close is not None:
                    close()
    if results["sweep"]:
        print(f"threshold sweep ({args.sweep_modes}, embedded)\n{sweep_table(results)}")
    if results["side_by_side"]:
        print(f"\nkeys alone against meaning at {args.chosen}\n{side_table(results)}")
    path = write_results(f"label_meaning-{args.label}", results)
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
