"""A probe set's gold read a second time, blind: how far two readers agree, and the gold
they agree on.

    .venv/bin/python benchmarks/families/second_reading.py --set probe3          # table, JSON
    .venv/bin/python benchmarks/families/second_reading.py --set probe3 --write  # + agreed gold
    .venv/bin/python benchmarks/families/second_reading.py --set probe3 --packet DIR

A probe set's author writes each question's gold as ``holders`` and ``unjudged`` in
``queries.jsonl``, having read every document of the question's family (and documents of
other families that could hold the quantity). That is one reading of every pair
(question, document): it holds when the document is a holder, is undecided when it is
unjudged, and does not hold otherwise. ``readings-blind.jsonl`` beside it is a second
reading, in the development set's protocol format (``benchmarks/data/families/
protocol.md``: one line per pair, ``holds`` true, false or null, ``evidence``), made by
blind readers: language models given only the protocol, the questions' text and the
documents — not the author's gold, notes or readings.

Reported: the pairs both read and decided, the share on which they agree, Cohen's kappa
(agreement beyond what the two readers' rates of "holds" give by chance), and the pairs on
which they differ. The **agreed gold** keeps a pair as a holder only where both readers
say it holds (or where the one reader who read it says so), and makes every pair they
differ on, or that either could not decide, unjudged: precision measured on it is
measured on pairs two readers settled the same way. A question left with no holder is
dropped by the benchmark (it has nothing to find). Nothing here reads osrag.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data"
RESULTS = ROOT / "benchmarks" / "results"
BLIND = "readings-blind.jsonl"
AGREED = "queries-agreed.jsonl"

Pair = tuple[str, str]
Holds = bool | None


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _doc_id(name: str) -> str:
    """A document's id: its path under ``documents/`` without the suffix."""
    return name.rsplit(".", 1)[0]


def author_readings(folder: Path) -> dict[Pair, Holds]:
    """The author's reading of every pair, from the gold of ``queries.jsonl``: each
    question against every document of its family, and any other document its gold names."""
    families = json.loads((folder / "families.json").read_text("utf-8"))["families"]
    docs = {f: [_doc_id(n) for n in fam["documents"]] for f, fam in families.items()}
    read: dict[Pair, Holds] = {}
    for q in _rows(folder / "queries.jsonl"):
        holders, unjudged = set(q["holders"]), set(q.get("unjudged", ()))
        for doc in sorted(set(docs[q["family"]]) | holders | unjudged):
            read[(q["id"], doc)] = True if doc in holders else None if doc in unjudged else False
    return read


def blind_readings(folder: Path) -> dict[Pair, dict[str, Any]]:
    """The blind readers' rows, by pair (a pair read twice is an error in the file)."""
    read: dict[Pair, dict[str, Any]] = {}
    for row in _rows(folder / BLIND):
        pair = (row["query"], row["doc"])
        if pair in read:
            raise SystemExit(f"{folder / BLIND}: {pair} is read twice")
        if row["holds"] not in (True, False, None):
            raise SystemExit(f"{folder / BLIND}: {pair}: holds must be true, false or null")
        read[pair] = row
    return read


def agreement(author: dict[Pair, Holds], blind: dict[Pair, dict[str, Any]]) -> dict[str, Any]:
    """How far the two readings agree on the pairs both read and both decided."""
    both = [(author[p], blind[p]["holds"]) for p in author if p in blind]
    decided = [(a, b) for a, b in both if a is not None and b is not None]
    n = len(decided)
    agreed = sum(a == b for a, b in decided)
    observed = agreed / n if n else 0.0
    a_yes = sum(a for a, _ in decided) / n if n else 0.0
    b_yes = sum(b for _, b in decided) / n if n else 0.0
    chance = a_yes * b_yes + (1 - a_yes) * (1 - b_yes)
    kappa = (observed - chance) / (1 - chance) if chance < 1 else 1.0
    return {
        "pairs_author": len(author),
        "pairs_blind": len(blind),
        "pairs_both": len(both),
        "pairs_decided_by_both": n,
        "undecided_by_either": len(both) - n,
        "agreed": agreed,
        "agreement": round(observed, 4),
        "kappa": round(kappa, 4),
        "holds_author": sum(a for a, _ in decided),
        "holds_blind": sum(b for _, b in decided),
        "author_only_holds": sorted(
            f"{p[0]} {p[1]}"
            for p in author
            if p in blind and author[p] is True and blind[p]["holds"] is False
        ),
        "blind_only_holds": sorted(
            f"{p[0]} {p[1]}"
            for p in author
            if p in blind and author[p] is False and blind[p]["holds"] is True
        ),
    }


def agreed_questions(folder: Path) -> list[dict[str, Any]]:
    """``queries.jsonl`` with the agreed gold (module docstring)."""
    author, blind = author_readings(folder), blind_readings(folder)
    out = []
    for q in _rows(folder / "queries.jsonl"):
        mine = {d: h for (qid, d), h in author.items() if qid == q["id"]}
        theirs = {d: r["holds"] for (qid, d), r in blind.items() if qid == q["id"]}
        holders: list[str] = []
        unjudged: list[str] = []
        for doc in sorted(set(mine) | set(theirs)):
            readings = [r[doc] for r in (mine, theirs) if doc in r]
            if None in readings or len(set(readings)) > 1:
                unjudged.append(doc)
            elif readings[0] is True:
                holders.append(doc)
        evidence = {d: q["evidence"].get(d) or blind[(q["id"], d)]["evidence"] for d in holders}
        values = {d: q["values"][d] for d in holders if d in q["values"]}
        out.append(
            {
                **q,
                "relevant": holders,
                "holders": holders,
                "unjudged": unjudged,
                "evidence": evidence,
                "values": values,
            }
        )
    return out


def write_packet(folder: Path, out: Path) -> None:
    """What a blind reader is given, in ``out``: the protocol, ``families.json``, the
    documents and the sources of the Word and PDF ones, and the questions with their
    ``id``, ``family`` and ``query`` only (no gold, notes or evidence)."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "families" / "protocol.md", out / "protocol.md")
    shutil.copy(folder / "families.json", out / "families.json")
    for part in ("documents", "sources"):
        if (folder / part).exists():
            shutil.copytree(folder / part, out / part, dirs_exist_ok=True)
    questions = [
        {k: q[k] for k in ("id", "family", "query")} for q in _rows(folder / "queries.jsonl")
    ]
    text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
    (out / "queries.jsonl").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", required=True, help="a probe set under benchmarks/data")
    parser.add_argument("--write", action="store_true", help=f"write {AGREED} beside the gold")
    parser.add_argument("--packet", type=Path, help="write a blind reader's packet here, only")
    args = parser.parse_args(argv)
    folder = DATA / args.set
    if args.packet is not None:
        write_packet(folder, args.packet)
        print(f"wrote the packet of {args.set} to {args.packet}")
        return 0
    author, blind = author_readings(folder), blind_readings(folder)
    report = agreement(author, blind)
    questions = agreed_questions(folder)
    report["questions"] = len(questions)
    report["questions_with_an_agreed_holder"] = sum(bool(q["holders"]) for q in questions)
    for key in ("pairs_author", "pairs_blind", "pairs_decided_by_both", "agreed"):
        print(f"{key:36} {report[key]}")
    print(f"{'agreement':36} {report['agreement']:.3f}")
    print(f"{'kappa':36} {report['kappa']:.3f}")
    print(f"{'questions with an agreed holder':36} {report['questions_with_an_agreed_holder']}")
    for key in ("author_only_holds", "blind_only_holds"):
        print(f"{key}: {', '.join(report[key]) or '-'}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"second_reading-{args.set}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    if args.write:
        text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
        (folder / AGREED).write_text(text, encoding="utf-8")
        print(f"wrote {(folder / AGREED).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
