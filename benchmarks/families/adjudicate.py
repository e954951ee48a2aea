"""The families set's gold, adjudicated from independent readings of every judged pair.

    .venv/bin/python benchmarks/families/adjudicate.py           # rewrite the gold in queries.jsonl
    .venv/bin/python benchmarks/families/adjudicate.py --check   # exit 1 if queries.jsonl differs

Three files of readings, each one line per (question, document) pair, in the protocol's
format (``benchmarks/data/families/protocol.md``):

* ``readings-author.jsonl`` — the author of the set, who wrote the documents and the
  questions and read every document of each question's family;
* ``readings-blind.jsonl`` — blind readers: language models given only the protocol, the
  questions' text and the documents (not the author's gold, notes or readings), each
  reading two families, every pair the author read;
* ``readings-adjudication.jsonl`` — a third blind reading, of the pairs where the first two
  disagree only, by a reader given the same packet and nothing of either earlier reading.

The gold of a pair is the reading the author and the blind reader share; where they
differ, the reading the adjudicator shares with one of them (a majority of three); where all
three differ, the pair is unjudged. A question's ``holders`` are its pairs that hold,
``unjudged`` those that cannot be judged; a holder's ``evidence`` is the quote of a reading
that says it holds (the author's when the author's does), its ``values`` the figure of that
quote, read as the constraint's currency writes it. Nothing here reads osrag.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

SET = Path(__file__).resolve().parents[1] / "data" / "families"
READINGS = ("readings-author.jsonl", "readings-blind.jsonl", "readings-adjudication.jsonl")
SIGNS = {"USD": "$", "EUR": "€", "GBP": "£"}

Pair = tuple[str, str]


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def readings() -> tuple[dict[Pair, dict[str, Any]], ...]:
    """The author's, the blind readers' and the adjudicator's readings, by pair."""
    return tuple({(r["query"], r["doc"]): r for r in _rows(SET / name)} for name in READINGS)


def gold(
    author: dict[Pair, dict[str, Any]],
    blind: dict[Pair, dict[str, Any]],
    third: dict[Pair, dict[str, Any]],
) -> dict[Pair, dict[str, Any]]:
    """Each pair's adjudicated reading (module docstring): the row whose ``holds`` decides."""
    if set(author) != set(blind):
        raise SystemExit("the author and the blind readers read different pairs")
    decided: dict[Pair, dict[str, Any]] = {}
    for pair, first in author.items():
        second = blind[pair]
        if first["holds"] == second["holds"]:
            decided[pair] = first
            continue
        if pair not in third:
            raise SystemExit(f"{pair}: the readings differ and no adjudication reads it")
        adjudicated = third[pair]
        agreeing = [r for r in (first, second) if r["holds"] == adjudicated["holds"]]
        decided[pair] = agreeing[0] if agreeing else {**adjudicated, "holds": None}
    return decided


_FIGURE = r"\s?(\d[\d,]*(?:\.\d+)?)"


def value_of(evidence: str, currency: str) -> Decimal:
    """The first figure ``evidence`` writes in ``currency`` (its sign, then digits)."""
    sign = re.escape(SIGNS[currency])
    found = re.search(sign + _FIGURE, evidence)
    if found is None:
        raise SystemExit(f"no {currency} figure in {evidence!r}")
    return Decimal(found.group(1).replace(",", ""))


def adjudicated_questions() -> list[dict[str, Any]]:
    """``queries.jsonl`` with each question's gold set from the adjudicated readings."""
    author, blind, third = readings()
    decided = gold(author, blind, third)
    out = []
    for q in _rows(SET / "queries.jsonl"):
        pairs = {doc: r for (query, doc), r in decided.items() if query == q["id"]}
        holders = sorted(d for d, r in pairs.items() if r["holds"] is True)
        evidence = {d: q["evidence"].get(d) or pairs[d]["evidence"] for d in holders}
        values = {
            d: q["values"][d]
            if d in q["values"]
            else _number(value_of(evidence[d], q["constraint"]["currency"]))
            for d in holders
        }
        out.append(
            {
                **q,
                "relevant": holders,
                "holders": holders,
                "unjudged": sorted(d for d, r in pairs.items() if r["holds"] is None),
                "evidence": evidence,
                "values": values,
            }
        )
    return out


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if queries.jsonl differs")
    args = parser.parse_args(argv)
    text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in adjudicated_questions())
    path = SET / "queries.jsonl"
    if args.check:
        return 0 if path.read_text("utf-8") == text else 1
    path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
