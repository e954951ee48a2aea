"""The TAT-QA analyst questions (benchmarks/tatqa_analyst.py): every question's holders
re-derived by an independent path.

* On generated tables (hypothesis) the test knows the truth by construction — which
  subject each row is, its values, its scale — and recomputes the holders of every
  question with its own reading of the rules (the sign policy, periods, scales, an
  unannotated scale making a document unjudged, another currency holding nothing).
* On the real dev split every holder's evidence is re-read from the dataset's raw cells
  (label, period header, annotated scale, sign) and must meet the question; and every raw
  row that meets a question without its document being a holder must be accounted for by
  a reason the generator recorded (an unjudged table, a dropped row).
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

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
    out = tmp_path_factory.mktemp("analyst")
    dataset = corpora / "tatqa-dev" / "tatqa_dataset_dev.json"
    summary = analyst.generate(dataset, out)
    contexts = {"tatqa-" + c["table"]["uid"][:8]: c for c in json.loads(dataset.read_text("utf-8"))}
    tables = {
        t["doc_id"]: t
        for t in map(json.loads, (out / "analyst_tables.jsonl").read_text().splitlines())
    }
    return {"out": out, "summary": summary, "contexts": contexts, "tables": tables}


def _raw_scale(context: dict[str, Any]) -> str | None:
    for source in ("table", "table-text"):
        given_ = {
            q["scale"] for q in context["questions"]
            if q["answer_from"] == source and q["scale"] in SCALES
        }  # fmt: skip
        if given_:
            return given_.pop() if len(given_) == 1 else None
    return None


def _raw_number(cell: str) -> Decimal:
    match = re.fullmatch(
        r"[\s$]*(\()?[\s$]*([-−–])?[\s$]*((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*\)?\s*", cell
    )
    assert match, cell
    number = Decimal(match.group(3).replace(",", ""))
    return -number if match.group(1) or match.group(2) else number


def _meets(q: dict[str, Any], dollars: Decimal) -> bool:
    c = q["constraint"]
    low, high = Decimal(c["low"]), Decimal(c["high"] or 0)
    return {"gt": dollars > low, "gte": dollars >= low, "lt": dollars < low,
            "between": low <= dollars <= high}[c["op"]]  # fmt: skip


def _header_rows(rows: list[list[str]]) -> int:
    """Rows above the first with a number (not a bare year) after the first column."""
    number = re.compile(r"[\s$]*\(?[\s$]*[-−–]?[\s$]*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*\)?\s*")
    for i, row in enumerate(rows):
        cells = [c for c in row[1:] if number.fullmatch(c) and not re.fullmatch(r"(19|20)\d\d", c)]
        if cells:
            return i
    return len(rows)


def _reading(q: dict[str, Any], label: str, dollars: Decimal) -> Decimal | None:
    """The value the question reads from a cell of a row so labelled (None: not one)."""
    subject = analyst.subject_named(q["constraint"]["subject"])
    words = re.sub(r"\((?:\d+|[a-z])\)", " ", label.lower().replace("&", " and "))
    words = " ".join(re.sub(r"[^a-z0-9]+", " ", words).split())
    loss = words in subject.loss_labels
    if q["constraint"]["sign"] == "loss":
        if loss:
            return abs(dollars)
        return -dollars if dollars < 0 else None
    if loss:
        return -abs(dollars)
    return dollars if subject.kind == "signed" else abs(dollars)


@pytest.mark.corpus
def test_the_dev_split_gives_a_few_hundred_questions_of_varied_reach(
    generated: dict[str, Any],
) -> None:
    summary = generated["summary"]
    assert summary["questions"] >= 300
    assert summary["holders_min"] == 1 and summary["holders_max"] >= 10
    histogram = summary["holders_histogram"]
    assert histogram["1"] >= 30 and histogram["4-7"] + histogram["8-15"] + histogram["16+"] >= 50
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
    contexts = generated["contexts"]
    lines = (generated["out"] / "analyst_queries.jsonl").read_text().splitlines()
    for q in map(json.loads, lines):
        period = q["constraint"]["period"]
        assert q["holders"] and set(q["evidence"]) == set(q["holders"])
        for doc, cells in q["evidence"].items():
            context = contexts[doc]
            rows = context["table"]["table"]
            scale = _raw_scale(context)
            assert scale is not None and all(c["scale"] == scale for c in cells), (q["id"], doc)
            text = " ".join(" ".join(r) for r in rows) + " ".join(
                p["text"] for p in context["paragraphs"]
            )
            assert not re.search(r"£|€|¥|RMB", text), (q["id"], doc)
            met = False
            for cell in cells:
                raw = rows[cell["row"]][cell["column"]]
                assert raw == cell["cell"], (q["id"], doc)
                if period is not None:
                    above = rows[: _header_rows(rows)]
                    header = " ".join(r[cell["column"]] for r in above)
                    assert str(period) in header, (q["id"], doc, header)
                dollars = _raw_number(raw).scaleb(SCALES[scale])
                reading = _reading(q, rows[cell["row"]][0], dollars)
                met |= reading is not None and _meets(q, reading)
            assert met, (q["id"], doc, cells)


@pytest.mark.corpus
def test_a_raw_row_meeting_a_question_is_a_holder_or_has_a_recorded_reason(
    generated: dict[str, Any],
) -> None:
    contexts, tables = generated["contexts"], generated["tables"]
    lines = (generated["out"] / "analyst_queries.jsonl").read_text().splitlines()
    unexplained = []
    for q in map(json.loads, lines):
        subject = analyst.subject_named(q["constraint"]["subject"])
        names = {*subject.labels, *subject.loss_labels}
        period = q["constraint"]["period"]
        for doc, context in contexts.items():
            if doc in q["holders"] or doc in q["unjudged"]:
                continue
            table = tables[doc]
            if table["unjudged"] or table["currency"] != "USD":
                continue  # recorded: the table is not judged, or not in dollars
            dropped = {d["row"] for d in table["dropped"]}
            scale = _raw_scale(context)
            rows = context["table"]["table"]
            top = _header_rows(rows)
            for r, row in enumerate(rows[top:], top):
                if analyst.normalise(row[0]) not in names or r in dropped:
                    continue
                for c, cell in enumerate(row[1:], 1):
                    header = " ".join(x[c] for x in rows[:top] if c < len(x))
                    years = set(re.findall(r"(?:19|20)\d\d", header))
                    if period is not None and years != {str(period)}:
                        continue
                    if c not in table["value_columns"] or analyst.cell_value(cell) is None:
                        continue
                    assert scale is not None
                    dollars = _raw_number(cell).scaleb(SCALES[scale])
                    reading = _reading(q, row[0], dollars)
                    if reading is not None and _meets(q, reading):
                        unexplained.append((q["id"], doc, r, cell))
    assert unexplained == []
