"""Table forms annual reports use that the facts of their cells must read: a header row
repeated below the figures for another period, a title that names a period among words,
a period in the stub header or a period row with a colon, a row stated at a date, a
restated column, a unit at the end of a header, a ``$`` row under the years, a ``$—``
column, a unit with an apostrophe (``RMB’Million``).

Each table is written as filings write it (its cells invented, never taken from a
benchmark's files); the expectation is written by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_facts_tables import SHAPES, described, facts, pipe

from osrag.extract.facts.labels import clean_label
from osrag.extract.facts.periods import split_period


def test_a_header_repeated_below_the_figures_gives_the_rows_under_it_its_period() -> None:
    table = pipe(
        [
            ["(In Millions)", "Dec 29, 2018", "Acquisitions", "Dec 28, 2019"],
            ["Data Center", "$5,424", "$1,758", "$7,155"],
            ["Total", "$24,513", "$1,825", "$26,276"],
            ["(In Millions)", "Dec 30, 2017", "Acquisitions", "Dec 29, 2018"],
            ["Data Center", "$5,421", "$3", "$5,424"],
        ]
    )
    assert [(f.raw, f.label, f.period, f.year) for f in facts(table)] == [
        ("$5,424", "Data Center", "Dec 29, 2018", 2018),
        ("$1,758", "Data Center — Acquisitions", None, None),
        ("$7,155", "Data Center", "Dec 28, 2019", 2019),
        ("$24,513", "Total", "Dec 29, 2018", 2018),
        ("$1,825", "Total — Acquisitions", None, None),
        ("$26,276", "Total", "Dec 28, 2019", 2019),
        ("$5,421", "Data Center", "Dec 30, 2017", 2017),
        ("$3", "Data Center — Acquisitions", None, None),
        ("$5,424", "Data Center", "Dec 29, 2018", 2018),
    ]


def test_a_repeated_title_period_is_the_period_of_the_block_under_it() -> None:
    table = pipe(
        [
            ["", "", "Fiscal 2019", ""],
            ["($ in thousands)", "First Quarter", "Second Quarter", "Total"],
            ["Revenues", "$ 94,888", "$ 96,037", "$ 190,925"],
            ["", "", "Fiscal 2018", ""],
            ["", "First Quarter", "Second Quarter", "Total"],
            ["Revenues", "$ 88,081", "$ 89,767", "$ 177,848"],
        ]
    )
    assert [(f.label, f.period_part, f.year) for f in facts(table)] == [
        ("Revenues", "q1", 2019),
        ("Revenues", "q2", 2019),
        ("Revenues — Total", "full", 2019),
        ("Revenues", "q1", 2018),
        ("Revenues", "q2", 2018),
        ("Revenues — Total", "full", 2018),
    ]


def test_a_title_naming_a_period_among_words_is_the_period_of_its_columns() -> None:
    table = pipe(
        [
            ["", "", "Price Range 2018"],
            ["", "Low", "High"],
            ["First Quarter", "$ 5.99", "$ 8.40"],
        ]
    )
    assert [(f.label, f.period_part, f.period, f.year) for f in facts(table)] == [
        ("Low", "q1", "2018", 2018),
        ("High", "q1", "2018", 2018),
    ]


def test_a_stub_header_that_is_a_date_is_the_period_of_the_table() -> None:
    table = pipe(
        [
            ["30 June 2019", "Current", "Past due", "Total"],
            ["", "$'000", "$'000", "$'000"],
            ["Gross carrying amount", "23,762", "2,068", "25,830"],
        ]
    )
    assert [(f.label, f.year, f.value) for f in facts(table)] == [
        ("Gross carrying amount — Current", 2019, 2_376_200_000),
        ("Gross carrying amount — Past due", 2019, 206_800_000),
        ("Gross carrying amount — Total", 2019, 2_583_000_000),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_period_row_written_with_a_colon_names_the_period_of_the_rows_under_it(
    shape: str,
) -> None:
    table = SHAPES[shape](
        [
            ["", "High", "Low"],
            ["2019:", "", ""],
            ["Fourth Quarter", "$11.44", "$9.47"],
            ["2018:", "", ""],
            ["Fourth Quarter", "$12.16", "$7.43"],
        ]
    )
    assert [(f.label, f.period_part, f.year) for f in facts(table)] == [
        ("High", "q4", 2019),
        ("Low", "q4", 2019),
        ("High", "q4", 2018),
        ("Low", "q4", 2018),
    ]


def test_a_row_stated_at_a_date_takes_it_as_its_period_where_the_column_names_none() -> None:
    table = pipe(
        [
            ["Restructuring Plan", "Workforce reduction", "Total"],
            ["Balance payable as at June 30, 2018", "$1,590", "$5,021"],
            ["Cash payments", "(213)", "(1,503)"],
            ["Balance payable as at June 30, 2019", "$1,046", "$3,995"],
        ]
    )
    assert [(f.value, f.year) for f in facts(table)] == [
        (159_000, 2018),
        (502_100, 2018),
        (-21_300, None),
        (-150_300, None),
        (104_600, 2019),
        (399_500, 2019),
    ]


@pytest.mark.parametrize(
    ("label", "year"),
    [
        ("Balance payable as at June 30, 2019", 2019),
        ("Outstanding at December 31, 2019:", 2019),
        ("Reassignment on April 1, 2019", 2019),
        ("2019 Notes", None),
        ("Notes due 2025", None),
        ("Fiscal 2018 Plan", None),
    ],
)
def test_only_a_row_stated_at_a_date_names_a_period(label: str, year: int | None) -> None:
    table = pipe([["", "Amount ($)"], [label, "1,000"]])
    assert [f.year for f in facts(table)] == [year]


@pytest.mark.parametrize(
    ("header", "period", "rest"),
    [
        ("Year-ended 31 March 2018 Restated See note 2", "Year-ended 31 March 2018", ""),
        ("Year ended 31 March 2018 (Restated)", "Year ended 31 March 2018", ""),
        ("2018 (Unaudited)", "2018", ""),
        ("Estimated at June 30, 2019", "June 30, 2019", "Estimated"),
        ("Fiscal 2019 Net Sales", "Fiscal 2019", "Net Sales"),
    ],
)
def test_a_restated_or_noted_period_names_no_qualifier(header: str, period: str, rest: str) -> None:
    found, left = split_period(header)
    assert found is not None and found[0] == period
    assert left == rest


def test_a_restated_column_keeps_its_period_and_adds_no_words_to_the_label() -> None:
    table = pipe(
        [
            ["", "Year-ended 31 March 2019", "Year-ended 31 March 2018 Restated See note 2"],
            ["Revenue by country", "$M", "$M"],
            ["UK", "83.2", "73.5"],
        ]
    )
    assert described(table) == [
        ("83.2", 8_320_000_000, "UK", "Year-ended 31 March 2019", 2019),
        ("73.5", 7_350_000_000, "UK", "Year-ended 31 March 2018", 2018),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("unit", ["£m", "RMB’Million", "RMB'000", "US$'000"])
def test_a_unit_ending_a_header_among_words_scales_and_names_its_column(
    unit: str, shape: str
) -> None:
    table = SHAPES[shape](
        [
            ["", f"52 weeks ended 30 Mar 2019 {unit}", f"Financial assets 2018 {unit}"],
            ["Profit before taxation", "(42.7)", "20.9"],
        ]
    )
    found = facts(table)
    assert [f.raw for f in found] == ["(42.7)", "20.9"]
    assert [f.year for f in found] == [2019, 2018]
    assert found[1].label == "Profit before taxation — Financial assets"
    assert all(f.scale in (3, 6) and f.currency in ("GBP", "CNY", "USD") for f in found)


def test_a_unit_naming_no_currency_at_the_end_of_a_header_reads_no_money() -> None:
    table = pipe([["", "Employees 2019 000s"], ["Headcount Americas", "12"]])
    assert facts(table) == []


def test_a_sign_row_under_the_years_signs_each_column_it_stands_in() -> None:
    table = pipe(
        [
            ["", "December 31, 2019", "", "December 31, 2018", ""],
            ["", "$", "%", "$", "%"],
            ["Canada", "96,168", "6.1%", "70,774", "6.6%"],
        ]
    )
    assert [(f.raw, f.value, f.year) for f in facts(table)] == [
        ("96,168", 9_616_800, 2019),
        ("70,774", 7_077_400, 2018),
    ]


def test_a_sign_before_a_number_still_signs_the_next_column() -> None:
    table = pipe([["", "2019", "", "2018"], ["Revenue", "$", "1,234", "$ 1,100"]])
    assert [(f.raw, f.value) for f in facts(table)] == [("1,234", 123_400), ("$ 1,100", 110_000)]


def test_a_signed_nil_cell_signs_its_column() -> None:
    table = pipe(
        [
            ["(In Millions)", "Dec 30, 2017", "Transfers"],
            ["Data Center", "$5,421", "$—"],
            ["Internet of Things", "1,126", "480"],
        ]
    )
    assert [(f.raw, f.value) for f in facts(table)] == [
        ("$5,421", 542_100_000_000),
        ("1,126", 112_600_000_000),
        ("480", 48_000_000_000),
    ]


def test_an_apostrophe_inside_a_word_stays_quotes_around_a_term_go() -> None:
    assert clean_label("USD denominated RMB’Million") == "USD denominated"
    assert clean_label("Owner’s equity") == "Owner’s equity"
    assert clean_label("“Deductible”") == "Deductible"
    assert clean_label("‘Quoted’ term") == "Quoted term"


_YEARS = st.integers(min_value=1995, max_value=2030)
_DATES = st.sampled_from(["December 31, {y}", "Dec 31, {y}", "30 June {y}", "{y}", "Fiscal {y}"])
_QUALIFIERS = st.sampled_from(["Acquisitions", "Transfers", "Carrying amount", "Fair value"])


@settings(max_examples=60, deadline=None)
@given(first=_YEARS, second=_YEARS, date=_DATES, qualifier=_QUALIFIERS, blocks=st.integers(1, 3))
def test_every_block_of_a_table_reads_the_period_of_its_own_header(
    first: int, second: int, date: str, qualifier: str, blocks: int
) -> None:
    rows: list[list[str]] = []
    expected: list[tuple[str | None, int | None]] = []
    for b in range(blocks):
        year = first if b % 2 == 0 else second
        rows.append(["($ in millions)", date.format(y=year), qualifier])
        rows.append(["Revenue", f"$ {100 + b}", f"$ {200 + b}"])
        expected += [("Revenue", year), (f"Revenue — {qualifier}", None)]
    assert [(f.label, f.year) for f in facts(pipe(rows))] == expected


@pytest.mark.parametrize("header", ["2019 RMB’Million", "2019 RMB'000", "2018 USD m"])
def test_a_year_with_a_unit_in_a_header_is_never_money(header: str) -> None:
    table = pipe([["", header], ["Revenue", "1,234"]])
    assert [(f.raw, f.year) for f in facts(table)] == [("1,234", int(header[:4]))]


def test_a_year_before_a_code_in_prose_without_a_unit_is_still_read_as_written() -> None:
    assert [f.raw for f in facts("The fee was 2019 USD in total.")] == ["2019 USD"]


def test_a_loader_table_whose_first_line_names_no_column_reads_columns_by_place() -> None:
    text = (
        "($ in millions)\n"
        "For the year ended December 31: — 2019; 2018; 2017\n"
        "Cost — $100; $82; $91\n"
        "Income tax benefits — (155); (116); (131)\n"
    )
    assert [(f.raw, f.label, f.year) for f in facts(text)] == [
        ("$100", "Cost", 2019),
        ("$82", "Cost", 2018),
        ("$91", "Cost", 2017),
        ("(155)", "Income tax benefits", 2019),
        ("(116)", "Income tax benefits", 2018),
        ("(131)", "Income tax benefits", 2017),
    ]


def test_a_unit_price_is_per_the_unit_its_row_is_sold_in() -> None:
    text = (
        "| Item | Qty | UOM | Unit price | Amount |\n|---|---|---|---|---|\n"
        "| Paper towels | 40 | CS | $28.90 | $1,156.00 |\n"
        "| Hand soap | 12 | bottle | $6.10 | $73.20 |\n"
        "| Mop heads | 6 | XYZ | $9.00 | $54.00 |\n"
    )
    labels = {f.raw: f.label for f in facts(text)}
    assert labels["$28.90"] == "Paper towels — Unit price per case"
    assert labels["$6.10"] == "Hand soap — Unit price per bottle"
    assert labels["$9.00"] == "Mop heads — Unit price"  # no unit it knows: as written
    assert labels["$1,156.00"] == "Paper towels"  # not a price: no unit


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_cell_stacking_labelled_amounts_labels_each_by_its_own_key_and_the_row(
    shape: str,
) -> None:
    # a certificate's limits box: each amount named by the key before it in its cell,
    # under the row's line of cover and the column — never the dates beside them
    table = SHAPES[shape](
        [
            ["Coverage", "Policy no.", "Effective", "Limits"],
            [
                "Excess liability, follow form",
                "XL 3310-7",
                "02/01/2025",
                "Each occurrence $4,000,000; Aggregate $4,000,000",
            ],
            [
                "Garage liability",
                "GA 3310-8",
                "02/01/2025",
                "Any one auto $500,000; Deductible $2,500 per claim",
            ],
        ]
    )
    assert [(f.raw, f.label) for f in facts(table)] == [
        ("$4,000,000", "Excess liability, follow form — Limits — Each occurrence"),
        ("$4,000,000", "Excess liability, follow form — Limits — Aggregate"),
        ("$500,000", "Garage liability — Limits — Any one auto"),
        ("$2,500", "Garage liability — Limits — Deductible"),
    ]


def test_a_cell_whose_amount_follows_no_short_key_is_read_as_before() -> None:
    # words before the amount that are no key ("… less a", a clause): no item label
    table = pipe(
        [
            ["Peril", "Settlement"],
            ["Hail", "Replacement cost less a $1,000 deductible"],
            ["Flood", "Paid when the water rises above $2,000 of damage"],
        ]
    )
    assert [(f.raw, f.label) for f in facts(table)] == [
        ("$1,000", "Hail — deductible"),
        ("$2,000", "Flood — Settlement"),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_column_naming_a_tax_at_its_rate_holds_the_tax_charged(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["Item", "Net", "Sales tax 8.5%", "Total"],
            ["Gym membership, March", "$40.00", "$3.40", "$43.40"],
        ]
    )
    found = {f.raw: f.label for f in facts(table)}
    assert found["$3.40"] == "Gym membership, March — Sales tax 8.5%"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_percentage_column_still_holds_no_money(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["Segment", "Revenue", "% of total", "Margin 12%"],
            ["Retail", "$400.00", "40.0", "15.5"],
        ]
    )
    assert [f.raw for f in facts(table)] == ["$400.00"]


def test_a_cell_written_in_bold_or_italics_is_read_as_its_words() -> None:
    """A total row a quote sets in bold, under a first column that only numbers the rows
    ("| | **Total estimate** | **$2,710.00** |"), is the total's figure; an italic label
    is a label with no star in it."""
    table = pipe(
        [
            ["Phase", "Work", "Price"],
            ["1", "Archive research, 10 hours", "$950.00"],
            ["", "**Total estimate**", "**$2,710.00**"],
            ["", "*Travel, estimated*", "_$780.00_"],
        ]
    )
    assert [(f.raw, f.label) for f in facts(table)] == [
        ("$950.00", "Archive research, 10 hours — Price"),
        ("$2,710.00", "Total estimate — Price"),
        ("$780.00", "Travel, estimated — Price"),
    ]
