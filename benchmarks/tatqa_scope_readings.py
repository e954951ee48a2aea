"""Hand readings of the TAT-QA scope questions' documents, judged against their dataset gold.

    .venv/bin/python benchmarks/tatqa_scope_readings.py [--readings FILE …]
    .venv/bin/python benchmarks/tatqa_scope_readings.py --draw 40 [--seed 7]

A **reading** is one reader's account of one (document, part, subject) — "tatqa-5127ef77,
region Americas, revenue" — written from the rendered document alone
(``benchmarks/data/tatqa_scope_protocol.md`` is what a reader is given): the part's own
figures for the subject, each with its year, in whole currency units with the sign as
written, the currency, and a note; ``figures: []`` when the document states no figure of
that part; ``unclear`` when the reader cannot decide. A reading is judged against a
question by the gold's own rules (:func:`tatqa_hand.verdict`: the subject's kind, the sign
words, the year named, else any, the same bound; another currency holds no "$" question).

``--draw N`` prints a random sample of N (question, document) pairs (seeded, :func:`draw`):
half from the pairs the dataset gold (:mod:`tatqa_scopes`) says hold, half from those it
says do not hold among the documents with a figure of the question's subject — the asked
part's own (another year's, one short of the bound) or only others — where a reading could
disagree, with the reading task of
each (``corpus/<doc>.md`` of ``benchmarks/tatqa_corpus.py``'s output). The 40 pairs drawn
with the default seed are ``benchmarks/data/tatqa_scope_pairs.jsonl``. Run without it, the
module prints how the readings (``benchmarks/data/tatqa_scope_readings-*.jsonl``, one file a
reader) and the dataset gold agree on those pairs.

``tatqa_scope_readings-author.jsonl`` holds the readings of the rules' author: each sampled
document read whole, by hand, under the protocol — but by a reader who knew the rules, so
not blind. They check the rules against the documents; the protocol is written for
separate blind readers of the pooled documents (language models given only the protocol
and the documents, as for ``benchmarks/tatqa_hand.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tatqa_analyst as analyst
import tatqa_hand
import tatqa_scopes
from _paths import ROOT

DATA = ROOT / "benchmarks" / "data"
READINGS = sorted(DATA.glob("tatqa_scope_readings-*.jsonl"))
SEED = 7


def asked(record: dict[str, Any]) -> tatqa_hand.Asked:
    """What a scope question asks of its part's figures: subject, kind, year and bound."""
    c = record["constraint"]
    return tatqa_hand.Asked(
        c["subject"],
        tatqa_scopes._SUBJECTS_BY_NAME[c["subject"]].kind,
        c["period"],
        analyst.Constraint(
            cast(analyst.Op, c["op"]),
            c["low"],
            c["high"],
            cast(analyst.Sign | None, c["sign"]),
        ),
    )


def gold(record: dict[str, Any], doc: str) -> str:
    if doc in record["holders"]:
        return "holds"
    return "unjudged" if doc in record["unjudged"] else "does-not-hold"


def read_key(record: dict[str, Any], doc: str) -> tuple[str, str, str, str]:
    """The reading a (question, document) pair needs: (document, kind, part, subject)."""
    return doc, record["scope"], record["part"], record["constraint"]["subject"]


def draw(
    records: list[dict[str, Any]], tables: list[tatqa_scopes.ScopeTable], n: int, seed: int
) -> list[tuple[dict[str, Any], str]]:
    """``n`` (question, document) pairs: half the gold's holders; a quarter its non-holders
    among the documents with a figure of the asked part (another year's, one under the
    bound); a quarter its non-holders among those with only other figures of the subject
    (the company's, another part's)."""
    with_part: dict[tuple[str, str, str], set[str]] = {}
    with_subject: dict[str, set[str]] = {}
    for t in tables:
        for f in t.figures:
            with_subject.setdefault(f.subject, set()).add(t.doc_id)
            if f.part is not None:
                with_part.setdefault((f.part.kind, f.part.name, f.subject), set()).add(t.doc_id)
    held, near, far = [], [], []
    for r in records:
        held += [(r, doc) for doc in r["holders"]]
        part = with_part.get((r["scope"], r["part"], r["constraint"]["subject"]), set())
        for doc in sorted(with_subject.get(r["constraint"]["subject"], set())):
            if gold(r, doc) == "does-not-hold":
                (near if doc in part else far).append((r, doc))
    rng = random.Random(seed)
    half = n // 2
    return (
        rng.sample(held, half)
        + rng.sample(near, (n - half) // 2)
        + rng.sample(far, n - half - (n - half) // 2)
    )


def load(paths: list[Path]) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
    """(document, kind, part, subject) → its readings, one per reader."""
    out: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line:
                r = json.loads(line)
                out.setdefault((r["doc"], r["kind"], r["part"], r["subject"]), []).append(r)
    return out


def agreement(
    records: list[dict[str, Any]], pairs: list[dict[str, str]], readings: dict[Any, Any]
) -> tuple[Counter[tuple[str, str]], list[str]]:
    """(dataset gold, reading) → pairs, and a line for each disagreement."""
    by_id = {r["id"]: r for r in records}
    table: Counter[tuple[str, str]] = Counter()
    differ = []
    for pair in pairs:
        record = by_id[pair["question"]]
        read = readings.get(read_key(record, pair["doc"]))
        if not read:
            table[(gold(record, pair["doc"]), "not read")] += 1
            continue
        found = tatqa_hand.agreed(read, asked(record))
        expected = gold(record, pair["doc"])
        table[(expected, found)] += 1
        if found != expected:
            notes = "; ".join(r.get("note", "") for r in read)
            differ.append(f"{record['id']} {pair['doc']}: gold {expected}, read {found} ({notes})")
    return table, differ


def _converted(work: Path) -> tuple[list[dict[str, Any]], list[tatqa_scopes.ScopeTable]]:
    """The scope questions and tables of the dev split, converted into ``work``."""
    import tatqa_corpus

    tatqa_corpus.convert(tatqa_corpus.DATASET, work)
    lines = (work / "analyst_queries.jsonl").read_text(encoding="utf-8").splitlines()
    records = [r for r in map(json.loads, lines) if "scope" in r]
    contexts = json.loads(tatqa_corpus.DATASET.read_text(encoding="utf-8"))
    return records, [tatqa_scopes.read_scopes(c) for c in contexts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readings", type=Path, nargs="*", default=READINGS)
    parser.add_argument("--pairs", type=Path, default=DATA / "tatqa_scope_pairs.jsonl")
    parser.add_argument("--draw", type=int, help="print a sample of this many pairs")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="osrag-scope-readings-") as tmp:
        records, tables = _converted(Path(tmp))
    if args.draw:
        for record, doc in draw(records, tables, args.draw, args.seed):
            _, kind, part, subject = read_key(record, doc)
            print(json.dumps({"question": record["id"], "doc": doc, "kind": kind, "part": part,
                              "subject": subject, "file": f"corpus/{doc}.md"}))  # fmt: skip
        return 0
    pairs = [json.loads(x) for x in args.pairs.read_text(encoding="utf-8").splitlines() if x]
    table, differ = agreement(records, pairs, load(args.readings))
    print(f"{len(pairs)} (question, document) pairs; readings from {len(args.readings)} file(s)")
    print("| dataset gold | read: holds | read: does not hold | read: unjudged | not read |")
    print("|---|---:|---:|---:|---:|")
    for side in ("holds", "does-not-hold", "unjudged"):
        row = [table[(side, v)] for v in ("holds", "does-not-hold", "unjudged", "not read")]
        print(f"| {side} | {' | '.join(map(str, row))} |")
    agree = sum(table[(s, s)] for s in ("holds", "does-not-hold"))
    judged = sum(v for (g, r), v in table.items() if r in ("holds", "does-not-hold"))
    print(f"\nagreement on the pairs both judge: {agree} of {judged}")
    for line in differ:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
