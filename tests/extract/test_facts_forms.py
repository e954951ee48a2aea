"""The table forms annual reports use, each in both shapes osrag reads (a Markdown pipe
table and the loaders' ``label — Header: cell; …`` lines): where the unit or currency is
stated, which columns and rows are not money, which group rows govern the rows under them.

Built for the forms, not for any file: each table here is small and synthetic."""

from __future__ import annotations

import pytest
from test_facts_tables import SHAPES, described, facts


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize(
    ("unit", "currency", "factor"),
    [("£m", "GBP", 10**8), ("$m", "USD", 10**8), ("$'000", "USD", 10**5), ("€’000", "EUR", 10**5)],
)
def test_a_unit_in_the_top_left_header_cell_governs_the_table(
    shape: str, unit: str, currency: str, factor: int
) -> None:
    table = SHAPES[shape]([[unit, "2019", "2018"], ["Revenue", "1,234", "1,100"]])
    got = facts(table)
    assert [(f.label, f.currency, f.value, f.year) for f in got] == [
        ("Revenue", currency, 1234 * factor, 2019),
        ("Revenue", currency, 1100 * factor, 2018),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_unit_in_a_row_label_governs_that_row(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["", "2019", "2018"],
            ["Revenue (£m)", "1,234", "1,100"],
            ["Employees", "5,000", "4,800"],
            ["Dividend per share (p)", "12.5", "11.0"],
        ]
    )
    assert described(table) == [
        ("1,234", 123_400_000_000, "Revenue", "2019", 2019),
        ("1,100", 110_000_000_000, "Revenue", "2018", 2018),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_currency_in_a_column_header_makes_its_column_money(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["Executive", "Target ($)", "Actual (%)", "Shares (#)"],
            ["Chief executive", "1,500,000", "80", "12,000"],
            ["Chief financial officer", "750,000", "75", "6,000"],
        ]
    )
    assert described(table) == [
        ("1,500,000", 150_000_000, "Chief executive — Target", None, None),
        ("750,000", 75_000_000, "Chief financial officer — Target", None, None),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_caption_in_the_second_header_row_governs_the_table(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["", "2019", "2018"],
            ["", "(in millions of dollars)", ""],
            ["Revenue", "1,234", "1,100"],
        ]
    )
    assert [(f.value, f.year) for f in facts(table)] == [
        (123_400_000_000, 2019),
        (110_000_000_000, 2018),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_percentage_column_marked_in_a_sub_header_is_not_money(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["(in millions of dollars)", "2019", "2019", "2018", "2018"],
            ["", "$", "%", "$", "%"],
            ["Revenue", "1,234", "55.2", "1,100", "54.1"],
        ]
    )
    assert [(f.raw, f.year) for f in facts(table)] == [("1,234", 2019), ("1,100", 2018)]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_percentage_group_row_marks_the_rows_under_it(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["(in millions of dollars)", "2019", "2018"],
            ["Revenue", "1,234", "1,100"],
            ["As a percentage of revenue:", "", ""],
            ["Gross margin", "45.2", "44.1"],
        ]
    )
    assert [f.raw for f in facts(table)] == ["1,234", "1,100"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_columns_of_years_durations_and_counts_under_a_money_caption_are_not_money(
    shape: str,
) -> None:
    table = SHAPES[shape](
        [
            [
                "(in thousands of dollars)",
                "Amount",
                "Year of expiry",
                "Term (years)",
                "Remaining life",
                "Number of vessels",
            ],
            ["Charter A", "120", "2024", "5", "3.5", "3"],
            ["Charter B", "80", "2026", "7", "6.0", "2"],
        ]
    )
    assert described(table) == [
        ("120", 12_000_000, "Charter A", None, None),
        ("80", 8_000_000, "Charter B", None, None),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_group_row_that_mentions_shares_does_not_make_money_rows_counts(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["(in millions of dollars, except per share data)", "2019", "2018"],
            ["Repurchases of common shares:", "", ""],
            ["Amount paid", "120", "110"],
            ["Weighted-average shares outstanding:", "", ""],
            ["Basic", "48", "47"],
            ["Assumed conversion of options", "2", "1"],
            ["Per share data:", "", ""],
            ["Dividends declared", "0.44", "0.40"],
        ]
    )
    assert [(f.label, f.value) for f in facts(table)] == [
        ("Amount paid", 12_000_000_000),
        ("Amount paid", 11_000_000_000),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_currency_alone_in_a_row_label_is_that_row_at_face_value(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["$m", "2019", "2018"],
            ["Sales", "8,657", "8,244"],
            ["Sales per square metre ($)", "18,675", "18,094"],
        ]
    )
    assert [(f.label, f.value) for f in facts(table)] == [
        ("Sales", 865_700_000_000),
        ("Sales", 824_400_000_000),
        ("Sales per square metre", 1_867_500),
        ("Sales per square metre", 1_809_400),
    ]
