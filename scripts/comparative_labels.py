#!/usr/bin/env python3
"""Write the comparative queries of examples/insurance with labels computed, not picked.

Each query names a policy category (or none) and states one amount constraint. Its
relevant documents are the policies of that category holding an amount that meets
the constraint, as osrag reads the constraint from the query text and the amounts
from the documents (the same extraction ingest uses). Run it after changing a
policy or a query: ``.venv/bin/python scripts/comparative_labels.py``; the tests
recompute the labels and compare them with queries.jsonl.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osrag.extract import extract_money  # noqa: E402
from osrag.loaders.corpus import Document, load_corpus  # noqa: E402
from osrag.models import AmountConstraint  # noqa: E402
from osrag.search.analysis import analyze_query  # noqa: E402

CORPUS = ROOT / "examples" / "insurance"
QUERIES = CORPUS / "queries.jsonl"

COMPARATIVE: list[tuple[str, str, str | None, str]] = [
    ("c01", "umbrella policies with limits over $500,000", "umbrella",
     "gt: the issue's example; the four $300K umbrellas also state $500,000 exactly and must "
     "not be returned"),
    ("c02", "umbrella with a limit of at least $1,000,000", "umbrella",
     "gte: $1,000,000 itself counts"),
    ("c03", "liability limits between $2 million and $5 million", None,
     "between, word scales, no category: every policy stating an amount in the range"),
    ("c04", "renters personal property coverage under $50,000", "renters", "lt"),
    ("c05", "the $300K or $3M umbrella", "umbrella", "in: a terms filter of both amounts"),
    ("c06", "commercial programs with limits in excess of $100 million", None, "gt, word scale"),
    ("c07", "general liability aggregate of $1M–$2M", "liability", "between written as a dash"),
    ("c08", "flood coverage above $2,000,000", "flood", "gt"),
    ("c09", "auto liability limits of $250,000 or more", "auto", "gte written after the amount"),
    ("c10", "excess flood building limit of about $2.5 million", "flood",
     "approximate: the ±10 % band $2,250,000–$2,750,000"),
    ("c11", "cyber policy with limits from $4M to $6M", "cyber", "from … to"),
    ("c12", "home policy with dwelling coverage no more than $350,000", "home", "lte"),
]  # fmt: skip
"""(id, query, category the query names or None, note)."""


def documents() -> list[Document]:
    return [d for d in load_corpus(CORPUS) if isinstance(d, Document)]


def meets(c: AmountConstraint, currency: str, units: int) -> bool:
    """Whether one amount meets the constraint, by its operator."""
    b = c.bounds
    if currency != c.currency:
        return False
    if c.op == "eq":
        return units == b[0]
    if c.op == "in":
        return units in b
    if c.op == "between":
        return b[0] <= units <= b[1]
    return {"gt": units > b[0], "gte": units >= b[0], "lt": units < b[0], "lte": units <= b[0]}[
        c.op
    ]


def relevant(query: str, category: str | None, docs: list[Document]) -> list[str]:
    """The documents of ``category`` holding an amount that meets every constraint."""
    constraints = analyze_query(query).constraints
    if not constraints:
        raise SystemExit(f"{query!r} states no amount constraint")
    found = []
    for doc in docs:
        if category is not None and doc.category != category:
            continue
        held = [(m.currency, m.minor_units) for m in extract_money(doc.text)]
        if all(any(meets(c, cur, units) for cur, units in held) for c in constraints):
            found.append(doc.doc_id)
    return sorted(found)


def labelled() -> list[dict[str, object]]:
    docs = documents()
    rows = []
    for qid, query, category, note in COMPARATIVE:
        ids = relevant(query, category, docs)
        if not ids:
            raise SystemExit(f"{qid}: no policy meets {query!r}")
        rows.append({"id": qid, "query": query, "relevant": ids, "note": f"comparative: {note}"})
    return rows


def main() -> None:
    kept = [
        line
        for line in QUERIES.read_text(encoding="utf-8").splitlines()
        if line.strip() and not json.loads(line)["id"].startswith("c")
    ]
    rows = [json.dumps(row, ensure_ascii=False) for row in labelled()]
    QUERIES.write_text("\n".join([*kept, *rows]) + "\n", encoding="utf-8")
    print(f"{QUERIES}: {len(kept)} queries kept, {len(rows)} comparative queries written")


if __name__ == "__main__":
    main()
