"""The TAT-QA scope questions (benchmarks/tatqa_scopes.py): a quarter's, a segment's, a
region's or an adjusted figure, their gold read from the dataset's own cells.

* On small tables written here the truth is known by construction: which cell is a
  quarter's, a region's, the company's total, the GAAP line.
* On the TAT-QA slice (``tests/data/corpora/tatqa-dev``) every question is well formed,
  the generator gives the same file twice, every holder's evidence is a raw cell of the
  dataset that meets the question and names the part it is asked of (never a company
  total), and the plain questions beside them are exactly the plain generator's.
* The hand readings of sampled pairs (``benchmarks/data/tatqa_scope_*.jsonl``) parse, cover
  their pairs, and are judged by the gold's own rules.
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import tatqa_analyst as analyst
import tatqa_scope_readings as scope_readings
import tatqa_scopes as scopes

from osrag.evaluation import load_query_set

SCALES = {"thousand": 3, "million": 6, "billion": 9}


def context(
    uid: str,
    rows: list[list[str]],
    paragraphs: tuple[str, ...] = ("The following table sets forth our results:",),
    scale: str = "million",
) -> dict[str, Any]:
    """A TAT-QA context: its table, paragraphs, and one table answer annotating the scale."""
    return {
        "table": {"uid": uid + "-0000-0000", "table": rows},
        "paragraphs": [{"uid": f"p{i}", "order": i + 1, "text": t}
                       for i, t in enumerate(paragraphs)],
        "questions": [{"answer_from": "table", "answer_type": "span", "scale": scale,
                       "answer": ["1"], "question": "q", "rel_paragraphs": []}],
    }  # fmt: skip


def figures(table: scopes.ScopeTable) -> dict[tuple[str | None, str, int | None], str]:
    """(part, subject, year) → the cell read."""
    return {(f.part.name if f.part else None, f.subject, f.year): f.text for f in table.figures}


# --------------------------------------------------------------------------- reading tables


def test_quarter_columns_take_their_year_from_the_block_or_the_period_row() -> None:
    spanning = scopes.read_scopes(
        context("aaaaaaaa", [
            ["", "", "", "", "Fiscal 2019", ""],
            ["", "First", "Second", "Third", "Fourth", ""],
            ["", "Quarter", "Quarter", "Quarter", "Quarter", "Total"],
            ["Revenues", "$ 94,888", "$ 96,037", "$ 88,495", "$84,380", "$363,800"],
            ["Gross margin", "40.1%", "41.5%", "41.1%", "39.7%", "40.6%"],
            ["Net income (loss)", "8,511", "(854)", "(522)", "11,263", "18,398"],
        ], scale="thousand")
    )  # fmt: skip
    read = figures(spanning)
    assert read[("Q4", "revenue", 2019)] == "$84,380"
    assert read[("Q2", "net income", 2019)] == "(854)"  # the percentage row ends no block
    assert read[(None, "revenue", 2019)] == "$363,800"  # the year's total is the company's
    by_row = scopes.read_scopes(
        context("bbbbbbbb", [
            ["", "First", "Second", "Third", "Fourth"],
            ["2019", "", "", "", ""],
            ["Net sales", "$117,625", "$120,684", "$115,651", "$115,040"],
            ["2018", "", "", "", ""],
            ["Net sales", "$113,530", "$118,021", "$118,859", "$120,073"],
        ], scale="thousand")
    )  # fmt: skip
    assert figures(by_row)[("Q4", "revenue", 2018)] == "$120,073"
    assert figures(by_row)[("Q1", "revenue", 2019)] == "$117,625"
    coded = scopes.read_scopes(
        context("cccccccc", [
            ["OPERATING REVENUES", "Q4 2019", "Q4 2018", "$ CHANGE", "% CHANGE"],
            ["Total operating revenues", "6,316", "6,215", "101", "1.6%"],
        ])
    )  # fmt: skip
    assert figures(coded) == {("Q4", "revenue", 2019): "6,316", ("Q4", "revenue", 2018): "6,215"}


def test_a_quarter_headed_by_its_end_date_is_asked_by_that_date() -> None:
    table = scopes.read_scopes(
        context("dddddddd", [
            ["Quarters Ended", "July 27, 2019 (1)", "April 27, 2019"],
            ["Revenue", "$13,428", "$12,958"],
        ])
    )  # fmt: skip
    assert {f.part for f in table.figures} == {
        scopes.Part("quarter", "quarter ended July 27, 2019", ended="July 27, 2019"),
        scopes.Part("quarter", "quarter ended April 27, 2019", ended="April 27, 2019"),
    }


def test_region_rows_are_the_regions_and_the_total_the_companys() -> None:
    table = scopes.read_scopes(
        context("eeeeeeee", [
            ["", "Fiscal Year 2019", "", "Fiscal Year 2018", ""],
            ["", "Net Sales", "% of Total", "Net Sales", "% of Total"],
            ["APAC", "$533,340", "38.6%", "$479,987", "40.0%"],
            ["Americas", "337,842", "24.4%", "259,105", "21.6%"],
            ["Other", "10,000", "1.0%", "9,000", "1.0%"],
            ["Total", "$1,382,818", "", "$1,200,181", ""],
        ], scale="thousand")
    )  # fmt: skip
    assert figures(table) == {
        ("Asia Pacific", "revenue", 2019): "$533,340",
        ("Asia Pacific", "revenue", 2018): "$479,987",
        ("Americas", "revenue", 2019): "337,842",
        ("Americas", "revenue", 2018): "259,105",
        (None, "revenue", 2019): "$1,382,818",
        (None, "revenue", 2018): "$1,200,181",
    }


def test_a_segments_group_is_read_through_its_total_and_a_product_line_not_at_all() -> None:
    grouped = scopes.read_scopes(
        context("ffffffff", [
            ["", "2019", "2018"],
            ["Transportation Solutions:", "", ""],
            ["Automotive", "$ 5,686", "$ 6,092"],
            ["Sensors", "914", "918"],
            ["Total Transportation Solutions", "6,600", "7,010"],
        ], paragraphs=("Net sales by segment and industry end market were as follows:",))
    )  # fmt: skip
    assert figures(grouped) == {
        ("Transportation Solutions", "revenue", 2019): "6,600",
        ("Transportation Solutions", "revenue", 2018): "7,010",
    }  # the end markets inside the segment are not asked
    product_line = scopes.read_scopes(
        context("gggggggg", [
            ["(Dollars in millions)", "2019", "2018"],
            ["", "Cloud and License Revenues:", ""],
            ["Americas (1)", "$18,410", "$18,030"],
            ["EMEA (1)", "9,168", "9,163"],
        ])
    )  # fmt: skip
    assert product_line.parts() == set()
    assert any("a product line's group" in note for note in product_line.notes)


def test_a_table_under_a_segments_heading_is_that_segments() -> None:
    table = scopes.read_scopes(
        context("hhhhhhhh", [
            ["", "2018", "2017"],
            ["Net revenues", "$2,280", "$1,664"],
            ["Operating income", "$1,111", "$839"],
        ], paragraphs=("Consumer Cyber Safety segment", "Revenue increased $616 million."))
    )  # fmt: skip
    assert {f.part for f in table.figures} == {scopes.Part("segment", "Consumer Cyber Safety")}


def test_the_adjusted_line_is_apart_from_its_gaap_line() -> None:
    table = scopes.read_scopes(
        context("iiiiiiii", [
            ["", "2019", "2018", "2017"],
            ["Operating income (GAAP) (1)", "$200,849", "$112,852", "$34,968"],
            ["Stock-based compensation", "12,866", "7,657", "4,720"],
            ["Adjusted operating income (non-GAAP) (1)", "$237,235", "$142,105", "$66,976"],
        ], scale="thousand")
    )  # fmt: skip
    read = figures(table)
    assert read[("adjusted", "adjusted operating income", 2017)] == "$66,976"
    assert read[(None, "operating income", 2017)] == "$34,968"


# --------------------------------------------------------------------------- asking

OTHERS = [context(f"{i:08d}", [["", "2019"], ["Revenue", "5"]]) for i in range(4)]
"""Reports with a company figure alone: a question no more than half the corpus holds."""


def test_a_part_is_never_held_by_the_companys_total_and_every_question_separates() -> None:
    regions = context(
        "jjjjjjjj",
        [
            ["", "2019", "2018"],
            ["Americas", "259,105", "224,056"],
            ["EMEA", "277,898", "237,437"],
            ["Total", "1,200,181", "757,338"],
        ],
        paragraphs=("Net sales by geographic region were as follows:",),
        scale="thousand",
    )
    found, _, _ = scopes.questions([regions, *OTHERS])
    americas = [q for q in found if q.part.name == "Americas"]
    assert americas, "the Americas are asked about"
    for q in americas:
        assert q.question.holders == ["tatqa-jjjjjjjj"]
        for cells in q.question.evidence.values():
            assert all(c["row"] == 1 for c in cells)  # the Americas' row, never the total
    assert any(q.question.op == "lt" and q.question.low == 500_000_000 for q in americas), (
        "'Americas revenue under $500 million': the total of $1.2 billion must not hold it"
    )


def test_quarter_questions_name_the_quarter_and_year_and_hold_by_that_cell() -> None:
    one = context("kkkkkkkk", [
        ["", "Q1 2019", "Q2 2019", "Q3 2019", "Q4 2019"],
        ["Revenue", "94.9", "96.0", "88.5", "84.4"],
    ])  # fmt: skip
    two = context("llllllll", [
        ["", "Q1 2019", "Q2 2019", "Q3 2019", "Q4 2019"],
        ["Revenue", "117.6", "120.7", "115.7", "115.0"],
    ])  # fmt: skip
    found, summary, _ = scopes.questions([one, two, *OTHERS])
    q4 = {q.question.id: q for q in found if q.part.name == "Q4"}
    over = q4["tqs-quarter-q4-revenue-2019-gt-100000000"].question
    assert over.holders == ["tatqa-llllllll"]
    assert re.search(r"fourth.quarter|Q4|4Q19", over.query) and "100 million" in over.query
    assert over.evidence["tatqa-llllllll"][0]["cell"] == "115.0"
    assert summary.questions["quarter"] == len(found)


def test_the_plain_questions_held_only_by_a_parts_cell_are_found() -> None:
    contexts = [
        context("mmmmmmmm", [["", "2019", "2018"], ["Revenues", "$68,024", "$67,314"]],
                paragraphs=("North America", "North America net revenues increased."),
                scale="thousand"),
        *[context(f"n{i:07d}", [["", "2019", "2018"], ["Revenues", "$9,000", "$8,000"]],
                  scale="thousand") for i in range(4)],
    ]  # fmt: skip
    plain, _ = analyst.questions(analyst.read_tables(contexts), min_documents=1)
    _, _, tables = scopes.questions(contexts)
    wrong = scopes.plain_held_by_parts(plain, tables)
    assert wrong and all(w["documents"] == ["tatqa-mmmmmmmm"] for w in wrong)


# --------------------------------------------------------------------------- the dev slice


@pytest.fixture(scope="module")
def written(corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The analyst questions of the TAT-QA slice, written twice into separate folders."""
    dataset = corpora / "tatqa-dev" / "tatqa_dataset_dev.json"
    outs = [tmp_path_factory.mktemp("scopes"), tmp_path_factory.mktemp("scopes-again")]
    summaries = [analyst.generate(dataset, out) for out in outs]
    lines = (outs[0] / "analyst_queries.jsonl").read_text(encoding="utf-8").splitlines()
    contexts = {
        "tatqa-" + c["table"]["uid"][:8]: c for c in json.loads(dataset.read_text(encoding="utf-8"))
    }
    return {"outs": outs, "summaries": summaries, "records": [json.loads(x) for x in lines],
            "contexts": contexts, "dataset": dataset}  # fmt: skip


def _scoped(written: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in written["records"] if "scope" in r]


@pytest.mark.corpus
def test_the_generator_writes_the_same_questions_every_run(written: dict[str, Any]) -> None:
    first, again = (out / "analyst_queries.jsonl" for out in written["outs"])
    assert first.read_bytes() == again.read_bytes()
    assert written["summaries"][0] == written["summaries"][1]
    tables = [out / "analyst_scope_tables.jsonl" for out in written["outs"]]
    assert tables[0].read_bytes() == tables[1].read_bytes()


@pytest.mark.corpus
def test_the_scope_questions_are_well_formed(written: dict[str, Any]) -> None:
    scoped = _scoped(written)
    summary = written["summaries"][0]
    assert len(scoped) == summary["scope_questions"] >= 20
    assert {r["scope"] for r in scoped} >= {"segment", "region", "adjusted"}
    assert len({r["id"] for r in written["records"]}) == len(written["records"])
    for r in scoped:
        c = r["constraint"]
        assert scopes.is_scope(r["id"]) and r["scope"] in scopes.KINDS, r["id"]
        assert r["holders"] and r["holders"] == r["relevant"] == sorted(r["evidence"]), r["id"]
        assert not set(r["holders"]) & set(r["unjudged"]), r["id"]
        assert c["op"] in ("gt", "lt") and c["low"] in analyst.LADDER, r["id"]
        assert analyst.dollars_words(c["low"]) in r["query"], r["id"]
        if r["scope"] in ("segment", "region"):
            assert r["part"] in r["query"], r["id"]
    # the same gold as qrels, for --holders
    out = written["outs"][0]
    from_qrels = load_query_set(
        out / "analyst_queries.jsonl", holders=out / "analyst_holders.qrels"
    )
    inline = load_query_set(out / "analyst_queries.jsonl")
    assert [(q.holders, q.unjudged) for q in from_qrels.queries] == [
        (q.holders, q.unjudged) for q in inline.queries
    ]


def _raw_scale(context: dict[str, Any]) -> int:
    """The one thousand/million/billion the table's answers annotate (table, else table-text)."""
    for source in ("table", "table-text"):
        given = {q["scale"] for q in context["questions"]
                 if q["answer_from"] == source and q["scale"] in SCALES}  # fmt: skip
        if given:
            assert len(given) == 1
            return SCALES[given.pop()]
    raise AssertionError(f"no scale annotated for {context['table']['uid']}")


def _meets(record: dict[str, Any], label: str, raw: str, exponent: int) -> bool:
    """The cell, read as the question reads its subject (a loss question: the loss's size; a
    balance or expense: its size), meets the bound."""
    constraint = record["constraint"]
    subject = scopes._SUBJECTS_BY_NAME[constraint["subject"]]
    match = re.fullmatch(r"[\s$]*(\()?[\s$]*([-−–])?[\s$]*([\d,]+(?:\.\d+)?)\s*\)?\s*", raw)
    assert match, raw
    size = Decimal(match.group(3).replace(",", "")).scaleb(exponent)
    loss = analyst.normalise(label) in subject.loss_labels
    negative = bool(match.group(1) or match.group(2)) or loss
    if constraint["sign"] == "loss":
        if not negative:
            return False
        value = size
    else:
        value = -size if negative and subject.kind == "signed" else size
    low = Decimal(constraint["low"])
    return value > low if constraint["op"] == "gt" else value < low


def _names_the_part(record: dict[str, Any], doc: str, context: dict[str, Any], row: int,
                    col: int) -> bool:  # fmt: skip
    """The evidence cell is the asked part's: its row names the region or segment (or its
    table is that part's), its column the quarter, its label the adjusted figure."""
    rows = context["table"]["table"]
    label = analyst.normalise(rows[row][0])
    part = record["part"]
    whole = scopes.heading_part(context)
    if record["scope"] == "region":
        region = next(r for r in scopes.REGIONS if r.name == part)
        named = any(re.search(rf"\b{name}\b", label) for name in region.labels)
        return named or whole == scopes.Part("region", part)
    if record["scope"] == "segment":
        by_hand = scopes.SEGMENT_TABLES.get(doc, ("",))[0] == part
        return analyst.normalise(part) in label or by_hand or whole == scopes.Part("segment", part)
    if record["scope"] == "quarter":
        header = analyst.normalise(" ".join(r[col] for r in rows[:row]))
        return bool(re.search(r"quarter|first|second|third|fourth|\bq[1-4]|[1-4]q\d", header))
    return bool(re.search(r"\badjusted\b|\bnon gaap\b", label))


@pytest.mark.corpus
def test_every_holder_is_held_by_a_raw_cell_of_the_asked_part(written: dict[str, Any]) -> None:
    checked = 0
    for r in _scoped(written):
        for doc, cells in r["evidence"].items():
            context = written["contexts"][doc]
            rows = context["table"]["table"]
            exponent = _raw_scale(context)
            assert cells, f"{r['id']} {doc}: a holder without evidence"
            for cell in cells:
                raw = rows[cell["row"]][cell["column"]]
                assert raw == cell["cell"], f"{r['id']} {doc}: {cell} is {raw!r} in the dataset"
                label = rows[cell["row"]][0]
                assert _meets(r, label, raw, exponent), f"{r['id']} {doc}: {raw}"
                assert _names_the_part(r, doc, context, cell["row"], cell["column"]), (r["id"], doc)
                checked += 1
    assert checked >= 20


@pytest.mark.corpus
def test_no_segment_or_region_question_is_held_by_a_company_total(
    written: dict[str, Any],
) -> None:
    for r in _scoped(written):
        if r["scope"] not in ("segment", "region"):
            continue
        for doc, cells in r["evidence"].items():
            rows = written["contexts"][doc]["table"]["table"]
            for cell in cells:
                label = analyst.normalise(rows[cell["row"]][0])
                subject = analyst.BY_LABEL.get(label)
                whole_table = scopes.heading_part(written["contexts"][doc]) or (
                    doc in scopes.SEGMENT_TABLES
                )
                assert label not in ("", "total"), (r["id"], doc, label)
                assert subject is None or whole_table, (r["id"], doc, label)


@pytest.mark.corpus
def test_the_plain_questions_are_the_plain_generators_alone(written: dict[str, Any]) -> None:
    contexts = json.loads(written["dataset"].read_text(encoding="utf-8"))
    plain, _ = analyst.questions(analyst.read_tables(contexts))
    records = [r for r in written["records"] if "scope" not in r]
    assert records == [json.loads(json.dumps(q.record())) for q in plain]
    assert written["records"][: len(records)] == records  # the scope questions come after


# --------------------------------------------------------------------------- hand readings


def test_a_reading_is_judged_by_the_golds_rules() -> None:
    question = {
        "id": "tqs-quarter-q2-net-loss-any-lt-1000000",
        "scope": "quarter",
        "part": "Q2",
        "holders": ["tatqa-a"],
        "unjudged": [],
        "constraint": {"subject": "net income", "period": None, "op": "lt", "low": 1_000_000,
                       "high": None, "sign": "loss"},
    }  # fmt: skip
    loss = {
        "doc": "tatqa-a",
        "kind": "quarter",
        "part": "Q2",
        "subject": "net income",
        "currency": "USD",
        "figures": [{"year": 2019, "value": -854_000}],
        "note": "",
    }
    profit = {**loss, "doc": "tatqa-b", "figures": [{"year": 2019, "value": 11_943_000}]}
    pairs = [{"question": question["id"], "doc": "tatqa-a"},
             {"question": question["id"], "doc": "tatqa-b"}]  # fmt: skip
    readings = {scope_readings.read_key(question, r["doc"]): [r] for r in (loss, profit)}
    table, differ = scope_readings.agreement([question], pairs, readings)
    assert table == {("holds", "holds"): 1, ("does-not-hold", "does-not-hold"): 1}
    assert differ == []


def test_the_stored_readings_cover_the_sampled_pairs_and_parse() -> None:
    pairs_file = scope_readings.DATA / "tatqa_scope_pairs.jsonl"
    pairs = [json.loads(x) for x in pairs_file.read_text(encoding="utf-8").splitlines() if x]
    readings = scope_readings.load(scope_readings.READINGS)
    assert len(pairs) == 40 and scope_readings.READINGS
    for pair in pairs:
        assert (pair["doc"], pair["kind"], pair["part"], pair["subject"]) in readings, pair
    for read in readings.values():
        for r in read:
            assert r["kind"] in scopes.KINDS and r["subject"] in scopes._SUBJECTS_BY_NAME
            assert all(isinstance(f["value"], int) and isinstance(f["year"], int)
                       for f in r["figures"])  # fmt: skip
