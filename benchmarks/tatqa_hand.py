"""The TAT-QA analyst gold, corrected by a blind hand reading of the documents returned.

    .venv/bin/python benchmarks/tatqa_hand.py [--readings benchmarks/data/tatqa_hand_readings.jsonl]

``benchmarks/data/tatqa_hand_readings.jsonl`` holds, for every (document, subject) pair in
the top-5 pool of the analyst questions (bm25, vector and hybrid on the embedded index at
commit ab06e16: 175 pairs, 104 documents; the 4 pairs the pool at cc5c987 added; the 21
pairs the bm25 top 5 at c5e3018 added, after prose amounts got their labels; and the 3 the
bm25 top 5 at 2d42fba added), the
company's own figure for the subject in each year the document gives, read one document
at a time by readers who saw only the document and the subject's definition — not the
questions, not the dataset's gold, not osrag's code, facts or filter
(``benchmarks/data/tatqa_hand_protocol.md`` is what they were given). The readers were
separate language-model sessions given the protocol and the documents alone, told to
read each document themselves and never to script the extraction. A reading is
the document's figures in whole currency units with the sign as written, its currency,
and a note; ``unclear`` when the reader could not decide. Two readers (A, B) read every
pair of the first pool, six more (C–H) 130 of them again, two (I, J) the 4 added, two (K,
L) the 21 added, two (M, N) the 3 added: 158
pairs read twice, so the readers' agreement is measured.

The **hand-adjudicated gold** of a question is the dataset gold
(:mod:`tatqa_analyst`) with each hand-read (document, subject) pair replaced by the
readings' verdict, judged with the gold's own rules — the subject's kind (a magnitude is
read without its sign), the sign words ("net loss under $20 million" is a loss of that
size), the period (a year named, else any year) and the same bounds. A reading in another
currency holds no dollar question (a "$" tied to no country is the US dollar, as the
dataset gold reads it: :func:`currency`); an unclear reading, one whose "$" a reader says
is another country's, and a pair whose readers reach different verdicts are unjudged.
Pairs nobody read keep the dataset's verdict, so the figure stays the dataset gold's
wherever the hand did not look: pooled adjudication, as TREC does, never osrag's answers.
The pool is osrag's top 5 at one commit, so a later change that brings new documents into
the top 5 is judged there by the dataset gold until they are read too.

Run alone, it prints how the hand readings and the dataset gold agree on the pooled
(question, document) slots.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tatqa_analyst
from _paths import ROOT

READINGS = ROOT / "benchmarks" / "data" / "tatqa_hand_readings.jsonl"

_QID = re.compile(
    r"a-(?P<slug>.+)-(?P<period>any|\d{4})-(?P<op>gte|gt|lt|between)-(?P<low>\d+)(?:-(?P<high>\d+))?$"
)


@dataclass(frozen=True)
class Asked:
    """A question's subject, period and bound (the gold's own
    :class:`tatqa_analyst.Constraint`), read back from its id."""

    subject: str
    kind: str
    period: int | None
    bound: tatqa_analyst.Constraint

    @property
    def sign(self) -> str | None:
        return self.bound.sign

    def meets(self, dollars: Decimal) -> bool:
        return self.bound.meets(dollars)


def asked(question_id: str) -> Asked:
    """The subject and bound a question id names (``a-net-loss-2019-lt-20000000``)."""
    found = _QID.match(question_id)
    if found is None:
        raise ValueError(f"not an analyst question id: {question_id}")
    slug = found["slug"]
    for subject in tatqa_analyst.SUBJECTS:
        for name, sign in ((subject.name, None), (subject.loss_name, "loss")):
            if name and re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") == slug:
                high = int(found["high"]) if found["high"] else None
                return Asked(
                    subject.name,
                    subject.kind,
                    None if found["period"] == "any" else int(found["period"]),
                    tatqa_analyst.Constraint(
                        cast(tatqa_analyst.Op, found["op"]),
                        int(found["low"]),
                        high,
                        cast(tatqa_analyst.Sign | None, sign),
                    ),
                )
    raise ValueError(f"no subject named by {question_id}")


_OTHER_DOLLAR = re.compile(
    r"(?i)australia|\baud\b|canad|\bcad\b|hong kong|singapore|new zealand|taiwan"
)
"""A reader's note saying a "$" is another country's dollar."""


def currency(readings: list[dict[str, Any]]) -> str:
    """The currency of a pair's readings: a code a reader names other than USD; else
    ``unclear`` when a reader's note says the "$" follows another country's conventions;
    else USD — the protocol asked readers to mark a "$" tied to no country ``unclear``,
    and such a "$" is read as the US dollar, as the dataset's own gold reads it."""
    named = {str(r.get("currency") or "unclear") for r in readings} - {"USD", "unclear"}
    if named:
        return sorted(named)[0]
    if any(_OTHER_DOLLAR.search(r.get("note", "")) for r in readings):
        return "unclear"
    return "USD"


def verdict(reading: dict[str, Any], question: Asked, money: str = "USD") -> str:
    """``holds``, ``does-not-hold`` or ``unjudged``: the reading judged by the gold's rules
    (``money``: the pair's currency, :func:`currency`)."""
    if reading.get("unclear") or money == "unclear":
        return "unjudged"
    if money != "USD":
        return "does-not-hold"  # another currency holds no dollar question
    for figure in reading.get("figures", []):
        if question.period is not None and figure.get("year") != question.period:
            continue
        value = Decimal(str(figure["value"]))
        if question.kind == "magnitude":
            dollars = abs(value)
        elif question.sign == "loss":
            if value >= 0:
                continue
            dollars = -value
        else:
            dollars = value
        if question.meets(dollars):
            return "holds"
    return "does-not-hold"


Readings = dict[tuple[str, str], list[dict[str, Any]]]


def load_readings(path: Path = READINGS) -> Readings:
    """(document, subject) → its hand readings, one per reader."""
    out: Readings = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line:
            reading = json.loads(line)
            out.setdefault((reading["doc"], reading["subject"]), []).append(reading)
    return out


def agreed(readings: list[dict[str, Any]], question: Asked) -> str:
    """The readers' common verdict on a question; ``unjudged`` when they differ."""
    money = currency(readings)
    found = {verdict(r, question, money) for r in readings}
    return found.pop() if len(found) == 1 else "unjudged"


def adjudicate(question: dict[str, Any], readings: Readings) -> dict[str, Any]:
    """The question with its holders and unjudged documents adjudicated (module docstring)."""
    bound = asked(question["id"])
    holders = set(question.get("holders", []))
    unjudged = set(question.get("unjudged", []))
    for (doc, subject), read in readings.items():
        if subject != bound.subject:
            continue
        holders.discard(doc)
        unjudged.discard(doc)
        found = agreed(read, bound)
        if found == "holds":
            holders.add(doc)
        elif found == "unjudged":
            unjudged.add(doc)
    out = dict(question)
    out["holders"] = sorted(holders)
    out["relevant"] = sorted(holders)
    out["unjudged"] = sorted(unjudged - holders)
    return out


def plain(lines: list[str]) -> list[dict[str, Any]]:
    """The plain analyst questions of ``analyst_queries.jsonl``'s lines: the scope questions
    beside them (a quarter's, a segment's figure: ``benchmarks/tatqa_scopes.py``) ask what
    these readings of the company's yearly figures do not read."""
    return [q for q in map(json.loads, filter(None, lines)) if "scope" not in q]


def write_adjudicated(queries: Path, out: Path, readings: Readings) -> Path:
    """``queries`` (the analyst questions; the scope questions beside them are left out)
    adjudicated into ``out``; questions left with no holder are kept (their precision is 0
    wherever they return a document)."""
    lines = queries.read_text(encoding="utf-8").splitlines()
    adjudicated = [adjudicate(q, readings) for q in plain(lines)]
    out.write_text("".join(json.dumps(q) + "\n" for q in adjudicated), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readings", type=Path, default=READINGS)
    args = parser.parse_args(argv)
    import tatqa_corpus

    readings = load_readings(args.readings)
    with tempfile.TemporaryDirectory(prefix="osrag-hand-") as tmp:
        work = Path(tmp)
        tatqa_corpus.convert(tatqa_corpus.DATASET, work)
        lines = (work / "analyst_queries.jsonl").read_text(encoding="utf-8").splitlines()
    questions = plain(lines)
    table: Counter[tuple[str, str]] = Counter()
    readers: Counter[str] = Counter()
    for question in questions:
        bound = asked(question["id"])
        for (doc, subject), read in readings.items():
            if subject != bound.subject:
                continue
            if doc in question.get("unjudged", []):
                gold = "unjudged"
            else:
                gold = "holds" if doc in question.get("holders", []) else "does-not-hold"
            table[(gold, agreed(read, bound))] += 1
            if len(read) > 1:
                verdicts = [verdict(r, bound, currency(read)) for r in read]
                if "unjudged" in verdicts:
                    readers["a reader unjudged"] += 1
                else:
                    readers["agree" if len(set(verdicts)) == 1 else "differ"] += 1
    pairs = sum(len(r) > 1 for r in readings.values())
    print(
        f"{len(readings)} (document, subject) pairs read, {pairs} by two readers; on the "
        f"(question, document) pairs those judge, the two agree {readers['agree']}, differ "
        f"{readers['differ']}, one of them cannot judge {readers['a reader unjudged']}"
    )
    print("\n(question, document) pairs the hand readings judge:")
    print("| dataset gold | hand: holds | hand: does not hold | hand: unjudged |")
    print("|---|---:|---:|---:|")
    for gold in ("holds", "does-not-hold", "unjudged"):
        row = [table[(gold, v)] for v in ("holds", "does-not-hold", "unjudged")]
        print(f"| {gold} | {' | '.join(map(str, row))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
