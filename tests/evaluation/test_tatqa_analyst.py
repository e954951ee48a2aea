"""The TAT-QA analyst questions (benchmarks/tatqa_analyst.py): every question's holders
re-derived by an independent path.

* On generated tables (hypothesis) the test knows the truth by construction — which
  subject each row is, its values, its scale — and recomputes the holders of every
  question with its own reading of the rules (the sign policy, periods, scales, an
  unannotated scale making a document unjudged, another currency holding nothing).
* On the TAT-QA slice (``tests/data/corpora/tatqa-dev``; the whole dev split in
  ``benchmarks/corpus_checks.py --only analyst``) every holder's evidence is re-read from
  the dataset's raw cells and must meet the question, and every raw row that meets a
  question without its document being a holder must be accounted for by a reason the
  generator recorded (``tests/support/analyst_oracle.py``).
"""

from __future__ import annotations

import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import analyst_oracle
import tatqa_analyst as analyst

from osrag.evaluation import load_query_set

# --------------------------------------------------------------------------- units


def test_labels_are_normalised_as_documented() -> None:
    assert analyst.normalise("Net income (loss) (1)") == "net income loss"
    assert analyst.normalise("Total revenues [2]") == "total revenues"
    assert analyst.normalise("Free cash flow6") == "free cash flow"
    assert analyst.normalise("Research & Development*") == "research and development"
    assert analyst.normalise("Net sales (in thousands)") == "net sales"


def test_cells_are_signed_numbers_and_never_years_or_percentages() -> None:
    assert analyst.cell_value("$ 1,452.4") == Decimal("1452.4")
    assert analyst.cell_value("(470,166)") == Decimal(-470166)
    assert analyst.cell_value("$(1.2)") == Decimal("-1.2")
    assert analyst.cell_value("-5") == Decimal(-5)
    for not_a_value in ("2019", "12.5%", "—", "", "n/a", "(3"):
        assert analyst.cell_value(not_a_value) is None


def test_every_label_means_one_subject() -> None:
    seen: dict[str, str] = {}
    for subject in analyst.SUBJECTS:
        for label in (*subject.labels, *subject.loss_labels):
            assert label == analyst.normalise(label), label
            assert seen.setdefault(label, subject.name) == subject.name, label


def test_thresholds_are_round_and_said_as_analysts_say_them() -> None:
    assert all(str(step).lstrip("125").strip("0") == "" for step in analyst.LADDER)
    assert analyst.dollars_words(500_000_000) == "$500 million"
    assert analyst.dollars_words(2_000_000_000) == "$2 billion"
    assert analyst.dollars_words(500_000) == "$500,000"


# --------------------------------------------------------------------------- generated tables

# (raw label as a filing writes it, subject, loss label?)
LABELS = [
    ("Revenue", "revenue", False),
    ("Total revenues (1)", "revenue", False),
    ("Net sales", "revenue", False),
    ("Net income (loss)", "net income", False),
    ("Net earnings", "net income", False),
    ("Net loss", "net income", True),
    ("Total assets", "total assets", False),
    ("Inventories", "inventories", False),
    ("Interest expense", "interest expense", False),
]
SIGNED = {"net income"}
SCALES = {"thousand": 3, "million": 6, "billion": 9}


@st.composite
def contexts(draw: Any, index: int) -> dict[str, Any]:
    years = draw(st.sampled_from([[2019, 2018], [2019, 2018, 2017]]))
    labels = draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=4, unique=True))
    rows = [["", *[str(y) for y in years]]]
    for raw, _, _ in labels:
        cells = []
        for _ in years:
            number = draw(st.integers(0, 99_999))
            written = f"{number:,}"
            form = draw(st.sampled_from(["plain", "dollar", "parens", "minus"]))
            cells.append(
                {"plain": written, "dollar": f"${written}", "parens": f"({written})",
                 "minus": f"-{written}"}[form]
            )  # fmt: skip
        rows.append([raw, *cells])
    scale = draw(st.sampled_from(["thousand", "million", "billion", ""]))
    other_currency = draw(st.booleans()) and draw(st.booleans())
    return {
        "table": {"uid": f"{index:08d}-synthetic", "table": rows},
        "paragraphs": [
            {"order": 1, "text": "Amounts in £." if other_currency else "Results of the year."}
        ],
        "questions": [{"answer_from": "table", "scale": scale}],
    }


def _value(cell: str) -> Decimal:
    negative = cell.startswith(("(", "-"))
    number = Decimal(re.sub(r"[^\d]", "", cell))
    return -number if negative else number


def _expected(ctxs: list[dict[str, Any]], q: analyst.Question) -> tuple[set[str], set[str]]:
    """The holders and unjudged documents of ``q``, read from the raw generated tables."""
    held, unjudged = set(), set()
    for ctx in ctxs:
        doc = "tatqa-" + ctx["table"]["uid"][:8]
        rows = ctx["table"]["table"]
        years = [int(y) for y in rows[0][1:]]
        mine = [(r, loss) for r in rows[1:] for raw, s, loss in LABELS
                if r[0] == raw and s == q.subject]  # fmt: skip
        if not mine or "£" in ctx["paragraphs"][0]["text"]:
            continue
        scale = ctx["questions"][0]["scale"]
        if not scale:
            if q.period is None or q.period in years:
                unjudged.add(doc)
            continue
        readings: list[Decimal] = []
        ambiguous = False
        for row, loss in mine:
            values = [_value(c) for c in row[1:]]
            signs = {v < 0 for v in values if v}
            if len(signs) > 1 and (loss or q.subject not in SIGNED):
                ambiguous = True
            for year, v in zip(years, values, strict=True):
                if q.period is not None and year != q.period:
                    continue
                dollars = v.scaleb(SCALES[scale])
                if loss:  # a loss label: its figure is a loss, whatever its sign
                    readings.append(abs(dollars) if q.sign == "loss" else -abs(dollars))
                elif q.subject not in SIGNED:
                    readings.append(abs(dollars))
                elif q.sign == "loss":
                    if dollars < 0:
                        readings.append(-dollars)
                else:
                    readings.append(dollars)
        if ambiguous:
            unjudged.add(doc)
            continue
        if any(_meets_bound(q.op, v, Decimal(q.low), Decimal(q.high or 0)) for v in readings):
            held.add(doc)
    return held, unjudged


def _meets_bound(op: str, value: Decimal, low: Decimal, high: Decimal) -> bool:
    return {"gt": value > low, "gte": value >= low, "lt": value < low,
            "between": low <= value <= high}[op]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 12).flatmap(lambda n: st.tuples(*[contexts(i) for i in range(n)])))
def test_every_question_holds_where_the_raw_cells_say(ctxs: tuple[dict[str, Any], ...]) -> None:
    tables = analyst.read_tables(ctxs)
    found, summary = analyst.questions(tables, min_documents=1)
    for q in found:
        held, unjudged = _expected(list(ctxs), q)
        assert set(q.holders) == held, q.query
        assert set(q.unjudged) == unjudged, q.query
        assert 1 <= len(q.holders) <= len(ctxs) / 2
        if q.sign is None and q.subject in SIGNED:
            assert q.op != "lt"  # "net income under $X" is never asked
    assert summary.questions == len(found) == len({q.id for q in found})


# --------------------------------------------------------------------------- the dev split


@pytest.fixture(scope="module")
def generated(corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The questions of the TAT-QA slice (tests/data/corpora/tatqa-dev)."""
    out = tmp_path_factory.mktemp("analyst")
    dataset = corpora / "tatqa-dev" / "tatqa_dataset_dev.json"
    return {"out": out, "dataset": dataset, "summary": analyst.generate(dataset, out)}


@pytest.mark.corpus
def test_the_questions_reach_one_to_many_documents_and_parse(generated: dict[str, Any]) -> None:
    summary = generated["summary"]
    assert summary["questions"] >= 20
    assert summary["holders_min"] == 1 and summary["holders_max"] >= 4
    assert summary["holders_max"] <= summary["tables"] / 2
    query_set = load_query_set(generated["out"] / "analyst_queries.jsonl")
    assert all(q.holders and set(q.holders) == set(q.relevant) for q in query_set.queries)
    # the same gold as qrels, for --holders
    from_qrels = load_query_set(
        generated["out"] / "analyst_queries.jsonl",
        holders=generated["out"] / "analyst_holders.qrels",
    )
    assert [(q.holders, q.unjudged) for q in from_qrels.queries] == [
        (q.holders, q.unjudged) for q in query_set.queries
    ]


@pytest.mark.corpus
def test_every_holder_is_held_by_its_raw_cells(generated: dict[str, Any]) -> None:
    checked, failures = analyst_oracle.unsound_holders(generated["dataset"], generated["out"])
    assert checked >= 50 and failures == []


@pytest.mark.corpus
def test_a_raw_row_meeting_a_question_is_a_holder_or_has_a_recorded_reason(
    generated: dict[str, Any],
) -> None:
    checked, failures = analyst_oracle.unexplained_rows(generated["dataset"], generated["out"])
    assert checked >= 50 and failures == []
