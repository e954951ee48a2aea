"""Amounts as other documents state them: a held-out-style set written apart from TAT-QA.

``tests/data/heldout/documents`` holds statements written the way filings and contracts
state amounts — a caption in a table's header cell, on a line above the table, in a
section heading, a unit after a column's year (``2024 £m``), ``USD million``,
``(in ’000s)``, "amounts in thousands of dollars" — with per-share rows, ``%`` columns,
counts, unicode minus, parentheses, ``—`` / ``nil`` and ``CR``/``DR`` cells, prose beside
the tables, a caption's scope ending at the next heading or table. ``amounts.json`` is
every amount each document states, hand-checked (raw text, currency, minor units,
negative). ``queries.tsv`` is query phrasings with the constraint each states (or none).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.models import ExtractionConfig
from osrag.search.analysis import analyze_query

DATA = Path(__file__).parents[1] / "data" / "heldout"
EXPECTED: dict[str, list[list[object]]] = json.loads(
    (DATA / "amounts.json").read_text(encoding="utf-8")
)


def _rows() -> list[dict[str, str]]:
    with (DATA / "queries.tsv").open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


ROWS = _rows()


def test_every_document_has_its_hand_checked_amounts() -> None:
    names = sorted(p.name for p in (DATA / "documents").glob("*.md"))
    assert names == sorted(EXPECTED) and len(names) >= 8


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_documents_yield_exactly_the_amounts_they_state(name: str) -> None:
    text = (DATA / "documents" / name).read_text(encoding="utf-8")
    money = extract_values(text, ExtractionConfig()).money
    got = [[m.raw, m.currency, m.minor_units, m.negative] for m in money]
    assert got == EXPECTED[name]
    for m in money:
        assert text[m.start : m.end] == m.raw


def test_what_the_documents_must_not_read_is_not_read() -> None:
    read = {(name, str(raw)) for name, rows in EXPECTED.items() for raw, *_ in rows}
    never = [
        ("header-cell-thousands.md", "59.5%"),  # a % column
        ("header-cell-thousands.md", "1,240"),  # employees in prose
        ("line-above-millions.md", "0.42"),  # per share, excepted by the caption
        ("line-above-millions.md", "88.1"),  # a share count
        ("section-euro.md", "3,410"),  # employees, after the caption's section ended
        ("pound-unit-column.md", "21.4"),  # earnings per share (pence)
        ("amounts-thousands-of-dollars.md", "1,250"),  # the lead-in governs one table
        ("no-caption.md", "4,800"),  # bare, no caption, no sign in its column
        ("thousands-quote.md", "1,234 CR"),  # CR/DR cells are not read
    ]
    assert not read & set(never)


def test_a_caption_scales_only_the_table_it_governs() -> None:
    amounts = {str(raw): units for raw, _cur, units, _neg in EXPECTED["line-above-millions.md"]}
    assert amounts["1,204.6"] == 120_460_000_000  # $1,204.6 million
    assert amounts["$ 310"] == 31_000  # the next section's table states its own unit: none
    prose = {str(raw): units for raw, _c, units, _n in EXPECTED["header-cell-thousands.md"]}
    assert prose["$250"] == 25_000  # running text is never scaled by a caption


def test_signs_are_kept_as_evidence_and_magnitudes_stored() -> None:
    rows = EXPECTED["line-above-millions.md"] + EXPECTED["pound-unit-column.md"]
    negatives = {str(raw): units for raw, _c, units, negative in rows if negative}
    assert negatives == {"−3.1": 310_000_000, "(12.3)": 1_230_000_000, "(8.0)": 800_000_000}


def _expected(row: dict[str, str]) -> list[tuple[str, str, tuple[int, ...]]]:
    if row["op"] == "none":
        return []
    ops, bounds, currencies = (row[k].split(";") for k in ("op", "bounds", "currency"))
    return [
        (op, cur, tuple(int(b) for b in bs.split(",")))
        for op, bs, cur in zip(ops, bounds, currencies, strict=True)
    ]


@pytest.mark.parametrize("row", ROWS, ids=[r["phrase"] for r in ROWS])
def test_held_out_phrasings_state_what_they_say_or_nothing(row: dict[str, str]) -> None:
    got = [(c.op, c.currency, c.bounds) for c in analyze_query(row["phrase"]).constraints]
    assert got == _expected(row)


SCALE_WORDS = {"mn": 6, "mln": 6, "million": 6, "bn": 9, "bln": 9, "billion": 9}


@given(
    st.integers(min_value=1, max_value=999),
    st.integers(min_value=1, max_value=999),
    st.sampled_from(sorted(SCALE_WORDS)),
    st.sampled_from(["between {a} and {b}", "from {a} to {b}", "{a} to {b}"]),
    st.sampled_from([("$", "", "USD"), ("", " dollars", "USD"), ("€", "", "EUR")]),
)
def test_a_bare_first_end_borrows_the_amount_s_scale_and_currency(
    a: int, b: int, word: str, form: str, money: tuple[str, str, str]
) -> None:
    sign, noun, currency = money
    low, high = sorted((a, b))
    high_text = f"{sign}{high} {word}{noun}"
    text = "awards " + form.format(a=low, b=high_text)
    factor = 10 ** SCALE_WORDS[word] * 100
    constraints = analyze_query(text).constraints
    if low == high and form == "{a} to {b}":
        assert [c.bounds for c in constraints] == [(low * factor, high * factor)]
        return
    assert [(c.op, c.currency, c.bounds) for c in constraints] == [
        ("between", currency, (low * factor, high * factor))
    ]


@given(
    st.integers(min_value=1900, max_value=2099),
    st.integers(min_value=1, max_value=999),
    st.sampled_from(["between {y} and", "from {y} to", "{y} to"]),
)
def test_a_year_is_never_the_first_end_of_a_range(year: int, amount: int, form: str) -> None:
    text = f"{form.format(y=year)} ${amount} million"
    constraints = analyze_query(text).constraints
    assert [(c.op, c.bounds) for c in constraints] == [("eq", (amount * 10**8,))]


@given(
    st.integers(min_value=1, max_value=99_999),
    st.sampled_from(["north of", "south of"]),
    st.sampled_from(["$", "€", "£"]),
)
def test_north_and_south_of_compare(amount: int, word: str, sign: str) -> None:
    (constraint,) = analyze_query(f"deals {word} {sign}{amount:,}").constraints
    assert constraint.op == ("gt" if word == "north of" else "lt")
    assert constraint.bounds == (amount * 100,)


HELD_OUT_CAPTIONS = [
    ("Dollars in thousands", 3, "$"),
    ("(In millions of U.S. dollars, except per share data)", 6, "USD"),
    ("(€ in millions)", 6, "EUR"),
    ("£m", 6, "GBP"),
    ("USD million", 6, "USD"),
    ("USD m", 6, "USD"),
    ("EUR m", 6, "EUR"),
    ("(in ’000s)", 3, None),
    ("(in '000s)", 3, None),
    ("amounts in thousands of dollars", 3, "$"),
    ("(expressed in thousands of Canadian dollars)", 3, "CAD"),
    ("(in thousands of Australian dollars)", 3, "AUD"),
    ("(in CHF millions)", 6, "CHF"),
]


@pytest.mark.parametrize(("text", "exponent", "currency"), HELD_OUT_CAPTIONS)
def test_held_out_caption_shapes(text: str, exponent: int, currency: str | None) -> None:
    from osrag.extract.scale import parse_caption

    caption = parse_caption(text)
    assert caption is not None, text
    assert (caption.exponent, caption.currency) == (exponent, currency)


@pytest.mark.parametrize("text", ["In USD m", "USD more", "EUR members"])
def test_shapes_left_unread(text: str) -> None:
    from osrag.extract.scale import parse_caption

    assert parse_caption(text) is None


@given(
    st.integers(min_value=1, max_value=999),
    st.integers(min_value=1, max_value=999),
    st.sampled_from([("million", 6), ("billion", 9), ("bn", 9), ("mn", 6)]),
    st.sampled_from([("$", "USD"), ("US$", "USD"), ("USD ", "USD"), ("€", "EUR")]),
)
def test_a_first_end_without_a_scale_borrows_the_second_s_while_it_stays_below(
    a: int, b: int, scale: tuple[str, int], sign: tuple[str, str]
) -> None:
    (word, power), (symbol, currency) = scale, sign
    text = f"settlements between {symbol}{a} and {symbol}{b} {word}"
    (constraint,) = analyze_query(text).constraints
    high = b * 10**power * 100
    low = a * 10**power * 100 if a < b else a * 100
    assert (constraint.op, constraint.currency) == ("between", currency)
    assert constraint.bounds == tuple(sorted((low, high)))
