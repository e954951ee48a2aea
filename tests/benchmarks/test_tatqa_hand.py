"""The hand-adjudicated TAT-QA gold: readings judged by the dataset gold's own rules, the
dataset's verdict kept where nobody read, readers who disagree leave a pair unjudged."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
hand = importlib.import_module("tatqa_hand")


def reading(doc: str, subject: str, *figures: tuple[int, int], **extra: Any) -> dict[str, Any]:
    return {
        "doc": doc,
        "subject": subject,
        "currency": extra.pop("currency", "USD"),
        "figures": [{"year": y, "value": v} for y, v in figures],
        "note": extra.pop("note", ""),
        **extra,
    }


def test_a_question_id_names_its_subject_sign_period_and_bound() -> None:
    loss = hand.asked("a-net-loss-2019-lt-20000000")
    assert (loss.subject, loss.sign, loss.period, loss.bound.op) == (
        "net income",
        "loss",
        2019,
        "lt",
    )
    revenue = hand.asked("a-revenue-any-between-1000000000-5000000000")
    assert (revenue.kind, revenue.period, revenue.bound.low, revenue.bound.high) == (
        "magnitude",
        None,
        1_000_000_000,
        5_000_000_000,
    )


def test_readings_are_judged_by_the_golds_rules() -> None:
    over = hand.asked("a-interest-expense-2018-gt-5000000")
    written_negative = reading("d", "interest expense", (2018, -6_442_000), (2019, -1_000))
    assert hand.verdict(written_negative, over) == "holds"  # a magnitude: its size
    assert hand.verdict(reading("d", "interest expense", (2019, 9_000_000)), over) == (
        "does-not-hold"  # another year
    )
    loss = hand.asked("a-net-loss-any-lt-20000000")
    assert hand.verdict(reading("d", "net income", (2019, -3_100_000)), loss) == "holds"
    assert hand.verdict(reading("d", "net income", (2019, 3_100_000)), loss) == "does-not-hold"
    assert hand.verdict(reading("d", "net income", (2019, -3_100_000)), loss, "GBP") == (
        "does-not-hold"
    )
    unsure = reading("d", "net income", (2019, -3_100_000), unclear=True)
    assert hand.verdict(unsure, loss) == "unjudged"


def test_a_dollar_tied_to_no_country_is_the_us_dollar_unless_a_note_says_otherwise() -> None:
    assert hand.currency([reading("d", "revenue", currency="unclear")]) == "USD"
    aussie = reading("d", "revenue", currency="unclear", note="Australian conventions ($'000)")
    assert hand.currency([reading("d", "revenue"), aussie]) == "unclear"
    assert hand.currency([reading("d", "revenue", currency="CAD")]) == "CAD"


def test_adjudication_replaces_read_pairs_and_keeps_the_rest(tmp_path: Path) -> None:
    question = {
        "id": "a-revenue-2019-gt-500000000",
        "query": "revenue over $500 million in 2019",
        "holders": ["gold-only", "segment-only"],
        "unjudged": ["unjudged-unread"],
    }
    readings = {
        ("segment-only", "revenue"): [reading("segment-only", "revenue")],  # no company figure
        ("missed", "revenue"): [reading("missed", "revenue", (2019, 6_489_000_000))],
        ("disputed", "revenue"): [
            reading("disputed", "revenue", (2019, 600_000_000)),
            reading("disputed", "revenue", (2019, 400_000_000)),
        ],
        ("missed", "net income"): [reading("missed", "net income")],  # another subject
    }
    got = hand.adjudicate(question, readings)
    assert got["holders"] == ["gold-only", "missed"]
    assert got["unjudged"] == ["disputed", "unjudged-unread"]
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps(question) + "\n", encoding="utf-8")
    out = hand.write_adjudicated(queries, tmp_path / "hand.jsonl", readings)
    assert json.loads(out.read_text(encoding="utf-8"))["relevant"] == ["gold-only", "missed"]


def test_the_stored_readings_cover_their_pairs_and_parse() -> None:
    readings = hand.load_readings()
    assert len(readings) >= 100
    for (doc, subject), read in readings.items():
        assert doc.startswith("tatqa-") and subject
        assert all(isinstance(f["value"], int) for r in read for f in r["figures"])
