"""Amount facts of table cells: label (row, group, column qualifier), period, sign.

Every table is written in both shapes osrag reads: a Markdown pipe table and the loaders'
``label — Header: cell; …`` lines (:func:`osrag.loaders.text.table_lines`)."""

from __future__ import annotations

import pytest

from osrag.extract import extract_values
from osrag.lexicon.keys import label_keys
from osrag.loaders.text import table_lines
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact

CONFIG = ExtractionConfig()


def pipe(rows: list[list[str]]) -> str:
    width = max(len(r) for r in rows)
    lines = []
    for i, row in enumerate(rows):
        cells = [*row, *[""] * (width - len(row))]
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + "---|" * width)
    return "\n".join(lines) + "\n"


def loader(rows: list[list[str]]) -> str:
    return "\n".join(table_lines(rows)) + "\n"


SHAPES = {"pipe": pipe, "loader": loader}


def facts(text: str) -> list[AmountFact]:
    return extract_values(text, CONFIG).facts


def described(text: str) -> list[tuple[str, int, str | None, str | None, int | None]]:
    return [(f.raw, f.value, f.label, f.period, f.year) for f in facts(text)]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_year_column_is_the_period_and_the_row_the_label(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["($ in millions)", "2019", "2018"],
            ["Revenue", "$ 1,234.5", "$ 1,100.0"],
            ["Cost of sales", "(500.0)", "(450.0)"],
        ]
    )
    assert described(table) == [
        ("$ 1,234.5", 123_450_000_000, "Revenue", "2019", 2019),
        ("$ 1,100.0", 110_000_000_000, "Revenue", "2018", 2018),
        ("(500.0)", -50_000_000_000, "Cost of sales", "2019", 2019),
        ("(450.0)", -45_000_000_000, "Cost of sales", "2018", 2018),
    ]
    assert all(f.source == "table" for f in facts(table))


def test_a_column_header_that_is_not_a_period_joins_the_label() -> None:
    table = pipe(
        [
            ["(in millions)", "Fair value", "Carrying amount"],
            ["Long-term debt", "$ 120", "$ 118"],
        ]
    )
    assert [f.label for f in facts(table)] == [
        "Long-term debt — Fair value",
        "Long-term debt — Carrying amount",
    ]


def test_a_column_naming_a_part_of_the_company_is_its_scope_not_a_word_of_the_label() -> None:
    table = pipe(
        [
            ["(in millions)", "Americas", "EMEA", "Total"],
            ["Operating income", "$ 120", "$ 80", "$ 200"],
        ]
    )
    assert [(f.label, f.scope, f.scope_name) for f in facts(table)] == [
        ("Operating income", "region", "americas"),
        ("Operating income", "region", "emea"),
        ("Operating income — Total", "own", None),
    ]


def test_merged_headers_qualify_each_column_they_span_and_periods_stay_periods() -> None:
    table = pipe(
        [
            ["", "Domestic", "", "International", ""],
            ["", "September 30,", "", "September 30,", ""],
            ["(in thousands)", "2019", "2018", "2019", "2018"],
            ["Net sales", "$ 10", "$ 9", "$ 7", "$ 6"],
        ]
    )
    assert [(f.label, f.scope_name, f.period) for f in facts(table)] == [
        ("Net sales", "domestic", "2019"),
        ("Net sales", "domestic", "2018"),
        ("Net sales", "international", "2019"),
        ("Net sales", "international", "2018"),
    ]


def test_a_change_header_written_over_words_does_not_reach_a_year_column() -> None:
    # "Percent Change" spans "Actual | Constant"; the empty cell right of it stands over
    # "2018", a column of figures of that year, not of changes
    table = pipe(
        [
            ["Year Ended May 31,", "", "", "", ""],
            ["", "", "", "Percent Change", ""],
            ["(Dollars in millions)", "2019", "Actual", "Constant", "2018"],
            ["Total revenues", "$ 32,582", "2%", "4%", "$ 32,041"],
            ["Total expenses", "10,995", "3%", "6%", "10,654"],
        ]
    )
    assert [(f.label, f.value, f.year) for f in facts(table)] == [
        ("Total revenues", 3_258_200_000_000, 2019),
        ("Total revenues", 3_204_100_000_000, 2018),
        ("Total expenses", 1_099_500_000_000, 2019),
        ("Total expenses", 1_065_400_000_000, 2018),
    ]


def test_a_group_row_written_in_the_first_column_groups_the_rows_under_it() -> None:
    table = pipe(
        [
            ["(Dollars in millions)", "2019", "2018"],
            ["", "Revenues:", ""],
            ["Americas", "$ 18,410", "$ 18,030"],
            ["Total revenues", "32,582", "32,041"],
        ]
    )
    assert [(f.label, f.scope_name, f.year) for f in facts(table)][::2] == [
        ("Revenues", "americas", 2019),
        ("Total revenues", None, 2019),
    ]


def test_a_title_over_every_column_qualifies_none_of_them() -> None:
    table = pipe(
        [
            ["", "", "Combined Pension Plan", ""],
            ["", "Years Ended December 31,", "", ""],
            ["($ in millions)", "2019", "2018", "2017"],
            ["Service cost", "12", "11", "10"],
        ]
    )
    assert [(f.label, f.year) for f in facts(table)] == [
        ("Service cost", 2019),
        ("Service cost", 2018),
        ("Service cost", 2017),
    ]


def test_a_title_period_over_several_columns_is_the_period_of_each() -> None:
    table = pipe(
        [
            ["", "December 31, 2019", ""],
            ["($ in millions)", "Carrying amount", "Fair value"],
            ["Senior notes", "500", "520"],
        ]
    )
    assert [(f.label, f.period, f.year) for f in facts(table)] == [
        ("Senior notes — Carrying amount", "December 31, 2019", 2019),
        ("Senior notes — Fair value", "December 31, 2019", 2019),
    ]


@pytest.mark.parametrize(
    ("header", "period", "year"),
    [
        ("2019", "2019", 2019),
        ("Fiscal 2019", "Fiscal 2019", 2019),
        ("December 31, 2019", "December 31, 2019", 2019),
        ("FY19", "FY19", 2019),
        ("2019 (1)", "2019", 2019),
        ("2019*", "2019", 2019),
        ("2019¹", "2019", 2019),
        ("31 March 2019", "31 March 2019", 2019),
        ("Year ended 30 June 2019", "Year ended 30 June 2019", 2019),
    ],
)
def test_period_headers_as_filings_write_them(header: str, period: str, year: int) -> None:
    table = pipe([["($ in millions)", header, "Prior"], ["Revenue", "10", "9"]])
    first = facts(table)[0]
    assert (first.raw, first.label, first.period, first.year) == ("10", "Revenue", period, year)


@pytest.mark.parametrize(
    ("header", "part"),
    [
        ("Q3 2019", "q3"),
        ("3Q19", "q3"),
        ("Three Months Ended March 31, 2019", "part"),
        ("Six months ended June 30, 2019", "part"),
        ("Twelve months ended March 31, 2019", "full"),
        ("52 weeks ended June 29, 2019", "full"),
    ],
)
def test_a_part_of_a_year_is_the_facts_period_part(header: str, part: str) -> None:
    """A quarter's or a half's revenue is not the year's: the column's part of the year is
    the fact's ``period_part`` (a filter asks the whole year by default); the label stays
    what is measured, and a year's worth is the full year."""
    first = facts(pipe([["($ in millions)", header, "Prior"], ["Revenue", "10", "9"]]))[0]
    assert (first.label, first.period_part, first.year) == ("Revenue", part, 2019)
    assert "revenue" in label_keys(first.label)


def test_a_row_under_a_deferred_balance_is_a_part_of_it() -> None:
    """Rows under "Deferred tax assets:" are the tax effects of their items: the label
    says so and the item's own name is not a key; the balance's totals stand alone."""
    rows = [
        ["($ in millions)", "2019", "2018"],
        ["Deferred tax assets:", "", ""],
        ["Stock-based compensation", "16", "22"],
        ["Deferred revenue", "205", "156"],
        ["Gross deferred tax assets", "221", "178"],
        ["Valuation allowance", "(12)", "(10)"],
        ["Deferred tax liabilities:", "", ""],
        ["Property and equipment", "31", "25"],
        ["Total deferred tax liabilities", "31", "25"],
    ]
    got = {f.label: label_keys(f.label) for f in facts(pipe(rows))}
    assert got["Deferred tax assets: Stock-based compensation"] == (
        "stock based compensation deferred tax asset",
    )
    assert "deferred revenue" not in got["Deferred tax assets: Deferred revenue"]
    assert "property and equipment" not in got["Deferred tax liabilities: Property and equipment"]
    assert "deferred tax asset" in got["Gross deferred tax assets"]
    assert "valuation allowance" in got["Valuation allowance"]
    assert "deferred tax liability" in got["Total deferred tax liabilities"]


@pytest.mark.parametrize("marker", ["(1)", "*", "¹", "(a)"])
def test_header_years_with_footnote_markers_are_never_money(marker: str) -> None:
    table = pipe(
        [
            ["($ in millions)", f"2019 {marker}".replace(" ¹", "¹"), "2018", f"2017 {marker}"],
            ["Revenue", "1,234", "1,100", "900"],
        ]
    )
    assert [(f.raw, f.year) for f in facts(table)] == [
        ("1,234", 2019),
        ("1,100", 2018),
        ("900", 2017),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_group_row_names_only_the_rows_that_need_it(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["(in thousands of dollars)", "2019", "2018"],
            ["Operating expenses:", "", ""],
            ["Research and development", "1,000", "900"],
            ["Total", "3,000", "2,800"],
            ["Income taxes, federal:", "", ""],
            ["Current", "40", "30"],
        ]
    )
    assert [f.label for f in facts(table)][::2] == [
        "Research and development",
        "Operating expenses: Total",
        "Income taxes, federal: Current",
    ]


def test_a_label_only_row_naming_a_year_is_the_period_of_the_rows_under_it() -> None:
    table = loader(
        [
            ["(in thousands)", "First", "Second"],
            ["2019", "", ""],
            ["Net sales", "$117,625", "$120,684"],
            ["2018", "", ""],
            ["Net sales", "$113,530", "$118,021"],
        ]
    )
    assert [(f.label, f.year) for f in facts(table)] == [
        ("Net sales — First", 2019),
        ("Net sales — Second", 2019),
        ("Net sales — First", 2018),
        ("Net sales — Second", 2018),
    ]


def test_rows_that_are_years_give_the_period_and_columns_the_label() -> None:
    table = pipe(
        [["", "Revenue", "Net income"], ["2019", "$ 500", "$ 50"], ["2018", "$ 450", "$ 40"]]
    )
    assert [(f.label, f.year) for f in facts(table)] == [
        ("Revenue", 2019),
        ("Net income", 2019),
        ("Revenue", 2018),
        ("Net income", 2018),
    ]


def test_labels_are_cleaned_of_footnotes_units_and_colons() -> None:
    table = pipe(
        [
            ["", "2019"],
            ["Operating leases (1)", "$ 12"],
            ["Order intake1", "$ 13"],
            ["Revenue (in millions)", "$ 14"],
            ["  Adjusted   EBITDA*:", "$ 15"],
        ]
    )
    assert [(f.label, f.scope) for f in facts(table)] == [
        ("Operating leases", "own"),
        ("Order intake", "own"),
        ("Revenue", "own"),
        ("EBITDA", "adjusted"),  # what is measured, and whose kind of figure
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_signs_follow_the_one_policy(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["($ in millions)", "2019", "2018"],
            ["Net loss", "(3.1)", "2.0"],
            ["Operating loss", "4.0", "(1.0)"],
            ["Net income (loss)", "(6.6)", "7.0"],
            ["Net operating loss carryforwards", "12.0", "11.0"],
            ["Allowance for credit losses", "(1.5)", "1.4"],
        ]
    )
    assert [(f.label, f.value) for f in facts(table)] == [
        ("Net loss", -310_000_000),  # written negative: stays negative (never flipped twice)
        ("Net loss", -200_000_000),  # a loss written positive is a negative result
        ("Operating loss", -400_000_000),
        ("Operating loss", -100_000_000),
        ("Net income (loss)", -660_000_000),  # a both-ways label: the sign as written
        ("Net income (loss)", 700_000_000),
        ("Net operating loss carryforwards", 1_200_000_000),  # "loss" qualifies: an asset
        ("Net operating loss carryforwards", 1_100_000_000),
        ("Allowance for credit losses", -150_000_000),  # the object of "for": as written
        ("Allowance for credit losses", 140_000_000),
    ]
    assert all(f.magnitude == abs(f.value) for f in facts(table))


def test_every_flat_amount_has_its_fact() -> None:
    table = pipe(
        [
            ["(€ in millions)", "2019", "2018"],
            ["Revenue", "1,234", "1,100"],
            ["Net loss", "(12)", "(10)"],
        ]
    )
    values = extract_values("Revenue was €5 million in 2019.\n\n" + table, CONFIG)
    assert [(m.raw, m.minor_units, m.currency) for m in values.money] == [
        (f.raw, f.magnitude, f.currency) for f in values.facts
    ]
    assert [(m.start, m.end) for m in values.money] == [(f.start, f.end) for f in values.facts]


def test_the_parts_above_a_total_of_a_deferred_balance_are_its_parts() -> None:
    """No group row, the total below names the balance: the rows above it are its parts."""
    rows = [
        ["($ in thousands)", "2019", "2018"],
        ["Stock-based compensation", "6,353", "7,658"],
        ["Total deferred tax assets", "6,353", "7,658"],
        ["Revenue", "9,000", "8,000"],
    ]
    labels = [f.label for f in facts(pipe(rows))]
    assert labels[:2] == ["Deferred tax assets: Stock-based compensation"] * 2
    assert labels[2:4] == ["Total deferred tax assets"] * 2
    assert labels[4:] == ["Revenue"] * 2


def test_a_table_the_sentence_before_it_calls_an_allocation_holds_its_shares() -> None:
    """Stock-based compensation "as follows" over cost of revenues and R&D: the rows are
    its shares (never cost of revenues itself), the total is the compensation."""
    text = "The Company recognized stock-based compensation expense as follows:\n\n" + pipe(
        [
            ["($ in thousands)", "2019", "2018"],
            ["Cost of revenues", "234", "259"],
            ["Research and development", "1,310", "1,141"],
            ["Total", "1,544", "1,400"],
        ]
    )
    got = {f.label: label_keys(f.label) for f in facts(text)}
    share = got["Stock-based compensation expense: Cost of revenues"]
    assert "cost of revenue" not in share
    assert "stock based compensation" in got["Stock-based compensation expense: Total"]


def test_a_table_that_only_mentions_depreciation_is_not_an_allocation() -> None:
    """The introducing sentence names no allocation: the rows are what they say."""
    text = "Property and equipment consisted of the following:\n\n" + pipe(
        [
            ["($ in thousands)", "2019", "2018"],
            ["Buildings", "5,000", "4,000"],
            ["Less accumulated depreciation", "(1,000)", "(800)"],
            ["Property and equipment, net", "4,000", "3,200"],
        ]
    )
    labels = {f.label for f in facts(text)}
    assert labels == {"Buildings", "Less accumulated depreciation", "Property and equipment, net"}


_STATEMENT = [
    ["($ in thousands)", "2019", "2018"],
    ["Total revenue", "9,845", "11,993"],
    ["Total assets", "54,060", "50,000"],
]


@pytest.mark.parametrize(
    ("paragraph", "scope"),
    [
        (
            "The following table summarizes the major line items of these discontinued"
            " solutions, as reported for the years ended December 31, 2019 and 2018:",
            "discontinued",
        ),
        (
            "The major classes of assets and liabilities held for sale are as follows:",
            "discontinued",
        ),
        (
            "The following table summarizes the allocation of the purchase price among the"
            " assets acquired and liabilities assumed. The allocation is still preliminary.",
            "acquired",
        ),
        (
            "The unaudited pro forma results of operations are presented below as if the"
            " acquisition had occurred at the beginning of 2018. The following table"
            " presents them.",
            "pro_forma",
        ),
    ],
)
def test_a_table_described_as_another_entitys_figures_qualifies_each_fact(
    paragraph: str, scope: str
) -> None:
    """Discontinued operations, an acquired business, pro forma figures: not the
    company's revenue or assets — the facts' scope says whose they are."""
    got = {(f.label, f.scope) for f in facts(paragraph + "\n\n" + pipe(_STATEMENT))}
    assert got == {("Total revenue", scope), ("Total assets", scope)}


@pytest.mark.parametrize(
    "paragraph",
    [
        "Results from continuing operations, excluding discontinued operations, are as follows:",
        "The following table summarizes the changes in goodwill, including acquisitions:",
        "Revenue grew in 2019. Our discontinued products are described in Note 4.",
        "The following table presents our consolidated results of operations:",
    ],
)
def test_a_table_whose_description_sets_other_entities_aside_is_the_companys(
    paragraph: str,
) -> None:
    got = {f.label: label_keys(f.label) for f in facts(paragraph + "\n\n" + pipe(_STATEMENT))}
    assert set(got) == {"Total revenue", "Total assets"}
    assert "revenue" in got["Total revenue"]


@pytest.mark.parametrize(
    ("heading", "scoped"),
    [
        ("Consumer Cyber Safety segment", True),
        ("## Aerospace and Defense segment", True),
        ("North America", True),
        ("Asia Pacific region", True),
        ("Overview", False),
        ("Results by segment", False),
        ("Segment information", False),
        ("Consolidated results", False),
    ],
)
def test_a_table_under_a_heading_naming_one_segment_or_region_holds_its_figures(
    heading: str, scoped: bool
) -> None:
    text = f"{heading}\n\nRevenue increased in fiscal 2019, driven by subscriptions.\n\n" + pipe(
        _STATEMENT
    )
    revenue = next(f for f in facts(text) if f.label == "Total revenue")
    assert (revenue.scope in ("segment", "region")) == scoped
    assert (revenue.scope_name is not None) == scoped


def test_rows_under_an_includes_group_are_parts_of_the_lines_above() -> None:
    """ "Includes stock-based compensation of:" under a cost of revenue table: its rows and
    its Total are the compensation included in cost of revenue, not the company's."""
    table = pipe(
        [
            ["(In thousands)", "2019", "2018"],
            ["Total cost of revenue", "$ 324,350", "$ 296,783"],
            ["Includes stock-based compensation of:", "", ""],
            ["Cost of services revenue", "$ 22,781", "$ 21,856"],
            ["Total", "$ 27,612", "$ 24,744"],
        ]
    )
    got = {f.label: label_keys(f.label) for f in facts(table)}
    assert "cost of revenue" in got["Total cost of revenue"]
    assert "stock based compensation" not in got["Includes stock-based compensation of: Total"]
    assert (
        "cost of service revenue"
        not in got["Includes stock-based compensation of: Cost of services revenue"]
    )


def test_columns_named_by_an_ordinal_alone_are_quarters() -> None:
    """ "First | Second | Third | Fourth" over a year row: the quarters, not the year."""
    table = pipe(
        [
            ["(in thousands)", "First", "Second", "Third", "Fourth"],
            ["2019", "", "", "", ""],
            ["Net sales", "$117,625", "$120,684", "$115,651", "$115,040"],
        ]
    )
    got = [(f.label, f.period_part, f.year) for f in facts(table)]
    assert got == [
        ("Net sales", "q1", 2019),
        ("Net sales", "q2", 2019),
        ("Net sales", "q3", 2019),
        ("Net sales", "q4", 2019),
    ]


def test_columns_named_by_a_written_ordinal_are_quarters_too() -> None:
    """ "1st | 2nd | 3rd | 4th": the same ordinals (one table of them, both sides)."""
    table = pipe(
        [
            ["(in thousands)", "1st", "2nd", "3rd", "4th"],
            ["2019", "", "", "", ""],
            ["Net sales", "$117,625", "$120,684", "$115,651", "$115,040"],
        ]
    )
    got = [(f.label, f.period_part, f.year) for f in facts(table)]
    assert got[3] == ("Net sales", "q4", 2019)


def test_ordinals_that_are_not_all_quarters_stay_as_written() -> None:
    table = pipe(
        [
            ["(in thousands)", "First lien", "Second lien"],
            ["Term loans", "$1,000", "$500"],
        ]
    )
    assert [f.label for f in facts(table)] == [
        "Term loans — First lien",
        "Term loans — Second lien",
    ]


def test_a_parent_entitys_table_is_not_the_groups() -> None:
    """A table headed "Parent" (the parent entity's own statement beside the group's), or
    described as the parent company's: not the company's consolidated total assets."""
    headed = pipe(
        [
            ["Parent", "", ""],
            ["", "2019", "2018"],
            ["Total assets", "US$383,665", "US$336,032"],
        ]
    )
    described = "The condensed balance sheet of the parent company is as follows:\n\n" + pipe(
        _STATEMENT
    )
    for text in (headed, described):
        got = {(f.label, f.scope) for f in facts(text)}
        assert ("Total assets", "parent") in got, got
