"""The role-bound queries of examples/insurance: their hand-checked gold holds together.

Each of ``r01``–``r24`` names a quantity and a constraint; its ``holders`` were read from
the policies by hand, and ``evidence`` gives the line of each holder's file that makes it
one. Checked here without osrag: the line is in the file, and it states an amount (parsed
by the small reader below, not by osrag's extraction) in the query's currency meeting the
constraint. The query file is read by ``osrag eval``'s own loader.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from osrag.evaluation import load_query_set

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "insurance"
ROWS = [
    json.loads(line)
    for line in (EXAMPLES / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
ROLE_BOUND = [r for r in ROWS if r["id"].startswith("r")]
DOCUMENTS = {p.stem for p in EXAMPLES.glob("*.md") if p.name != "README.md"}

_AMOUNT = re.compile(
    r"(?P<sign>[$€£]|USD |EUR |GBP )\s?(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<word>million|bn|M|K)\b)?"
)
_SIGN = {"$": "USD", "€": "EUR", "£": "GBP", "USD ": "USD", "EUR ": "EUR", "GBP ": "GBP"}
_WORD = {"million": 6, "M": 6, "bn": 9, "K": 3, None: 0}


def amounts(line: str) -> list[tuple[str, Decimal]]:
    """(currency, value) of every amount a policy line writes: $1,000, $3M, €100,000,
    £5 million, USD 300,000 (enough for these lines; a test helper, not a parser)."""
    return [
        (_SIGN[m["sign"]], Decimal(m["num"].replace(",", "")).scaleb(_WORD[m["word"]]))
        for m in _AMOUNT.finditer(line.replace("**", ""))
    ]


def meets(value: Decimal, constraint: dict[str, Any]) -> bool:
    bound = Decimal(constraint["amount"])
    return {
        "lt": value < bound,
        "lte": value <= bound,
        "gt": value > bound,
        "gte": value >= bound,
    }[constraint["op"]]


def test_the_reader_reads_the_forms_the_lines_use() -> None:
    assert amounts("limit of **$3M** for all") == [("USD", Decimal(3_000_000))]
    assert amounts("| Medical | £5 million | £10 million |") == [
        ("GBP", Decimal(5_000_000)),
        ("GBP", Decimal(10_000_000)),
    ]
    assert amounts("The retention is $10K per claim, USD 2,500") == [
        ("USD", Decimal(10_000)),
        ("USD", Decimal(2_500)),
    ]


def test_there_are_at_least_twenty_role_bound_queries_in_three_currencies() -> None:
    assert len(ROLE_BOUND) >= 20
    assert {r["constraint"]["currency"] for r in ROLE_BOUND} == {"USD", "EUR", "GBP"}


@pytest.mark.parametrize("row", ROLE_BOUND, ids=[r["id"] for r in ROLE_BOUND])
def test_each_holder_has_a_line_in_its_file_stating_the_quantity(row: dict[str, Any]) -> None:
    holders, unjudged = set(row["holders"]), set(row["unjudged"])
    assert holders, "a role-bound query lists at least one holder"
    assert holders <= DOCUMENTS and unjudged <= DOCUMENTS
    assert not holders & unjudged
    assert sorted(row["relevant"]) == sorted(row["holders"])
    assert set(row["evidence"]) == holders
    for doc, line in row["evidence"].items():
        lines = (EXAMPLES / f"{doc}.md").read_text(encoding="utf-8").splitlines()
        assert any(line in text for text in lines), (doc, line)
        stated = [v for c, v in amounts(line) if c == row["constraint"]["currency"]]
        assert any(meets(v, row["constraint"]) for v in stated), (doc, line, stated)
        assert doc in row["note"]  # the note names the line that makes each holder


def test_the_traps_the_queries_exist_for_are_in_the_corpus() -> None:
    condo = (EXAMPLES / "condo-unit-owners.md").read_text(encoding="utf-8")
    assert "$450 a year" in condo and "The deductible is $2,500" in condo
    r01 = next(r for r in ROLE_BOUND if r["id"] == "r01")
    assert "condo-unit-owners" not in r01["holders"]  # its $450 is a premium
    life = (EXAMPLES / "life-term-20.md").read_text(encoding="utf-8")
    assert "death benefit of $750,000" in life
    r03 = next(r for r in ROLE_BOUND if r["id"] == "r03")
    assert "life-term-20" not in r03["holders"]  # a death benefit is not an umbrella limit


def test_osrag_eval_reads_the_holders_of_the_query_file() -> None:
    query_set = load_query_set(EXAMPLES / "queries.jsonl")
    by_id = {q.id: q for q in query_set.queries}
    for row in ROLE_BOUND:
        query = by_id[row["id"]]
        assert query.holders == row["holders"] and query.unjudged == row["unjudged"]
    assert all(q.holders is None for q in query_set.queries if not q.id.startswith("r"))
