"""A probe set's second, blind reading: its agreement with the author's gold is computed as
defined (Cohen's kappa on a worked example), a committed reading covers every pair the author
read, and the agreed gold keeps a holder only where the readings agree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "families"))
import second_reading

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
READ_TWICE = sorted(p.parent.name for p in DATA.glob("*/" + second_reading.BLIND))


def _row(holds: bool | None) -> dict[str, object]:
    return {"holds": holds, "evidence": "x", "reader": "blind"}


def test_kappa_of_a_worked_example() -> None:
    # 10 pairs both decided: 4 both hold, 4 both do not, one each way apart.
    # observed 0.8; each reader says "holds" for 5 of 10: chance 0.5; kappa 0.6
    author = {("q", f"d{i}"): i < 5 for i in range(10)}
    blind_holds = [True, True, True, True, False, True, False, False, False, False]
    blind = {("q", f"d{i}"): _row(h) for i, h in enumerate(blind_holds)}
    author[("q", "u")] = None
    blind[("q", "u")] = _row(True)
    found = second_reading.agreement(author, blind)
    assert found["pairs_decided_by_both"] == 10
    assert found["undecided_by_either"] == 1
    assert found["agreement"] == pytest.approx(0.8)
    assert found["kappa"] == pytest.approx(0.6)
    assert found["author_only_holds"] == ["q d4"]
    assert found["blind_only_holds"] == ["q d5"]


def test_the_agreed_gold_keeps_only_what_both_readings_say(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    families = {"bills": {"documents": ["bills/a.md", "bills/b.md", "bills/c.md"]}}
    (folder / "families.json").write_text(json.dumps({"families": families}), "utf-8")
    question = {
        "id": "b-01",
        "family": "bills",
        "query": "bills over $10",
        "holders": ["bills/a", "bills/b"],
        "unjudged": [],
        "evidence": {"bills/a": "Total $20", "bills/b": "Total $30"},
        "values": {"bills/a": 20, "bills/b": 30},
    }
    (folder / "queries.jsonl").write_text(json.dumps(question) + "\n", "utf-8")
    rows = [
        {"query": "b-01", "doc": "bills/a", "holds": True, "evidence": "Total $20"},
        {"query": "b-01", "doc": "bills/b", "holds": False, "evidence": "a subtotal"},
        {"query": "b-01", "doc": "bills/c", "holds": None, "evidence": "cannot tell"},
    ]
    text = "".join(json.dumps({**r, "reader": "blind"}) + "\n" for r in rows)
    (folder / second_reading.BLIND).write_text(text, "utf-8")
    (agreed,) = second_reading.agreed_questions(folder)
    assert agreed["holders"] == ["bills/a"]
    assert agreed["unjudged"] == ["bills/b", "bills/c"]
    assert agreed["values"] == {"bills/a": 20}


@pytest.mark.parametrize("name", READ_TWICE)
def test_a_committed_second_reading_covers_every_pair_of_a_family(name: str) -> None:
    folder = DATA / name
    questions = {q["id"]: q["family"] for q in map(json.loads, (folder / "queries.jsonl").open())}
    author = second_reading.author_readings(folder)
    blind = second_reading.blind_readings(folder)
    # every document of each question's family; a pair across families is read by a reader
    # who thought it could hold, so either reading may lack it
    in_family = {(q, d) for q, d in author if d.split("/")[0] == questions[q]}
    assert in_family <= set(blind), sorted(in_family - set(blind))[:5]
    assert {q for q, _ in blind} <= set(questions)
