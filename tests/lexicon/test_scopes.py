"""The scope reader: a name's words split into what, whose and when — the same on the
document side (a row, a column, a heading, a noun phrase in prose) and the question side.

The cases are names as annual reports, releases and invoices write them (the TAT-QA
tables, the families set's statements), and names a question writes; the properties hold
for names built from the vocabulary's own lists."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from osrag.lexicon.scopes import (
    REGIONS,
    RELATIVE_REGIONS,
    is_region,
    names_forecast,
    read_scope,
    region_name,
    scope_of,
)

CASES = [
    # a part of the company: a region (whatever noun follows), a segment, a product line
    ("Americas revenue", ("revenue", "region", "americas", None)),
    ("EMEA revenue", ("revenue", "region", "emea", None)),
    ("Americas segment revenue", ("revenue", "region", "americas", None)),
    ("Revenue in the Americas", ("Revenue", "region", "americas", None)),
    (
        "Long-lived assets located in the Americas",
        ("Long-lived assets", "region", "americas", None),
    ),
    ("APAC", ("", "region", "asia pacific", None)),
    ("Asia Pacific region", ("", "region", "asia pacific", None)),
    ("U.S.", ("", "region", "united states", None)),
    ("UK revenue", ("revenue", "region", "united kingdom", None)),
    ("Revenue from international", ("Revenue", "region", "international", None)),
    ("International revenue", ("International revenue", "own", None, None)),
    ("Foreign tax credits", ("Foreign tax credits", "own", None, None)),
    ("Domestic manufacturers deduction", ("Domestic manufacturers deduction", "own", None, None)),
    ("Rest of world", ("", "region", "rest of world", None)),
    ("Foreign", ("", "region", "foreign", None)),
    ("Marine Services segment revenue", ("revenue", "segment", "marine services", None)),
    (
        "Total Marine Services segment revenue",
        ("Total revenue", "segment", "marine services", None),
    ),
    ("Consumer Cyber Safety segment", ("", "segment", "consumer cyber safety", None)),
    ("Retail segment net sales", ("net sales", "segment", "retail", None)),
    ("Total segment operating income", ("Total operating income", "segment", None, None)),
    ("Segment assets", ("assets", "segment", None, None)),
    ("Storage product line revenue", ("revenue", "product", "storage", None)),
    # another entity's figures, or another kind of figure
    ("Income from discontinued operations", ("Income", "discontinued", None, None)),
    ("Assets held for sale", ("Assets", "discontinued", None, None)),
    ("Total assets acquired", ("Total assets", "acquired", None, None)),
    ("Liabilities assumed", ("Liabilities", "acquired", None, None)),
    ("Pro forma revenue", ("revenue", "pro_forma", None, None)),
    ("Parent", ("", "parent", None, None)),
    (
        "Tax effect of stock-based compensation",
        ("stock-based compensation", "tax_effect", None, None),
    ),
    ("Adjusted EBITDA", ("EBITDA", "adjusted", None, None)),
    ("Adjusted operating income (non-GAAP)", ("operating income", "adjusted", None, None)),
    ("Non-GAAP net income", ("net income", "adjusted", None, None)),
    ("Underlying operating profit", ("operating profit", "adjusted", None, None)),
    ("Operating income (GAAP)", ("Operating income", "own", None, None)),
    # the part of the year
    ("Fourth-quarter net sales", ("net sales", "own", None, "q4")),
    ("fourth quarter revenue", ("revenue", "own", None, "q4")),
    ("Q4 net income", ("net income", "own", None, "q4")),
    ("4Q19 revenue", ("revenue", "own", None, "q4")),
    ("4th Qtr", ("", "own", None, "q4")),
    ("First half revenue", ("revenue", "own", None, "h1")),
    ("H2", ("", "own", None, "h2")),
    ("Three months ended", ("", "own", None, "part")),
    ("26 weeks", ("", "own", None, "part")),
    ("Year to date revenue", ("revenue", "own", None, "ytd")),
    ("YTD gross pay", ("gross pay", "own", None, "ytd")),
    ("Net pay year-to-date", ("Net pay", "own", None, "ytd")),
    ("Dividends fiscal year to date", ("Dividends", "own", None, "ytd")),
    ("Charges this period", ("Charges", "own", None, "full")),
    ("Current period net pay", ("net pay", "own", None, "full")),
    ("Deductions this pay period", ("Deductions", "own", None, "full")),
    ("current gross pay", ("gross pay", "own", None, "full")),
    ("Full Year", ("", "own", None, "full")),
    ("Twelve months", ("", "own", None, "full")),
    # nothing of the kind: the name is what, all of it
    ("Net revenues", ("Net revenues", "own", None, None)),
    ("Net income (loss)", ("Net income (loss)", "own", None, None)),
    ("Acquired intangible assets", ("Acquired intangible assets", "own", None, None)),
    ("Net income attributable to parent", ("Net income attributable to parent", "own", None, None)),
    (
        "Unrealized gain, net of tax effect",
        ("Unrealized gain, net of tax effect", "own", None, None),
    ),
    ("Foreign currency translation", ("Foreign currency translation", "own", None, None)),
    ("U.S. federal", ("U.S. federal", "own", None, None)),
    ("Revenue by segment", ("Revenue by segment", "own", None, None)),
    ("show us revenue", ("show us revenue", "own", None, None)),
    ("Deferred revenue", ("Deferred revenue", "own", None, None)),
    ("Balance at end of year", ("Balance at end of year", "own", None, None)),
    # "current" as a class of balance or of tax, not the statement's period
    ("Current assets", ("Current assets", "own", None, None)),
    ("Total current liabilities", ("Total current liabilities", "own", None, None)),
    ("Current portion of long-term debt", ("Current portion of long-term debt", "own", None, None)),
    ("Current income tax expense", ("Current income tax expense", "own", None, None)),
    ("Current", ("Current", "own", None, None)),
    ("Current year", ("Current year", "own", None, None)),  # a tax's year, under its group
    (
        "Additions for tax positions taken during the current period",
        ("Additions for tax positions taken during the current period", "own", None, None),
    ),
    # an expected figure, not the reported one: whoever's, it is a forecast
    ("Revenue guidance", ("Revenue", "forecast", None, None)),
    ("Projected net sales", ("net sales", "forecast", None, None)),
    ("Budgeted operating costs", ("operating costs", "forecast", None, None)),
    ("Adjusted EBITDA outlook", ("Adjusted EBITDA", "forecast", None, None)),
    ("Budget", ("Budget", "own", None, None)),  # only a table's column of its own
    # an actual measure that says "projected", an award's approved budget, a budget year
    ("Projected benefit obligation", ("Projected benefit obligation", "own", None, None)),
    ("Approved budget", ("Approved budget", "own", None, None)),
    ("Effect of new guidance", ("Effect of new guidance", "own", None, None)),
    # one year of a term of several: a part of its period, as a quarter is of a year
    ("first-year funding", ("funding", "own", None, "y1")),
    ("Year 2 stipend", ("stipend", "own", None, "y2")),
    ("Direct costs (budget year 3)", ("Direct costs", "own", None, "y3")),
    ("Salary, year one", ("Salary,", "own", None, "y1")),
    ("4th year royalty", ("royalty", "own", None, "y4")),
    ("Fee for the second year of the term", ("Fee", "own", None, "y2")),
    # a range of years, a calendar year, the fiscal year: no one year of a term
    ("Base rent, years 1–5", ("Base rent, years 1–5", "own", None, None)),
    ("Minimum payment, Year 1 to 3", ("Minimum payment, Year 1 to 3", "own", None, None)),
    ("Year 2025 revenue", ("Year 2025 revenue", "own", None, None)),
    ("Total costs (budget year 2)", ("Total costs", "own", None, "y2")),
    # "half" after an article is a fraction, no half of the year
    ("Weekend cover (time and a half)", ("Weekend cover (time and a half)", "own", None, None)),
    ("Overtime at one and a half times", ("Overtime at one and a half times", "own", None, None)),
    ("Tour fee, a half day", ("Tour fee, a half day", "own", None, None)),
    # the article before a half year: still a half of the year
    ("Profit, a half year ended 30 June", ("Profit, 30 June", "own", None, "part")),
    ("Revenue for the half", ("Revenue", "own", None, "part")),
    ("Sales, second half", ("Sales,", "own", None, "h2")),
    # a geography that opens a bracket and goes on to another noun describes that noun
    (
        "Keyboard replacement (US layout, parts and labor)",
        ("Keyboard replacement (US layout, parts and labor)", "own", None, None),
    ),
    ("Travel adapter (UK plug)", ("Travel adapter (UK plug)", "own", None, None)),
    # alone in its bracket, or before a part's noun, it names the part
    ("Revenue (United States)", ("Revenue", "region", "united states", None)),
    ("Net sales (Europe segment)", ("Net sales", "region", "europe", None)),
]


@pytest.mark.parametrize(("name", "reading"), CASES)
def test_a_name_splits_into_what_whose_and_when(name: str, reading: tuple[object, ...]) -> None:
    assert scope_of(name) == reading


def test_a_geography_is_a_region_by_its_first_name() -> None:
    assert region_name(["apac"]) == region_name(["asia", "pacific"]) == "asia pacific"
    assert is_region("United States") and is_region("U.S.") and not is_region("Revenue")


def test_the_reader_takes_tokens_as_written_and_keeps_them() -> None:
    reading = read_scope(["Adjusted", "EBITDA", "(non-GAAP)"])
    assert reading.what == ["EBITDA"]
    assert read_scope(["Total", "revenue", "—", "Discontinued", "operations"]).what == [
        "Total",
        "revenue",
    ]


_QUANTITIES = ["revenue", "net sales", "operating income", "total assets", "EBITDA"]
_REGION_NAMES = [names[0] for names in REGIONS if names[0] not in RELATIVE_REGIONS]
_FORMS = ["{part} {q}", "{q} in the {part}", "{q} — {part}"]


@given(st.sampled_from(_QUANTITIES), st.sampled_from(_REGION_NAMES), st.sampled_from(_FORMS))
def test_a_region_and_a_quantity_read_back(quantity: str, region: str, form: str) -> None:
    name = form.format(part=region.title(), q=quantity)
    what, scope, scope_name, part = scope_of(name)
    assert (what, scope, scope_name, part) == (quantity, "region", region, None)


@given(st.sampled_from(_QUANTITIES), st.sampled_from(sorted(RELATIVE_REGIONS)))
def test_a_relative_region_is_a_part_alone_never_before_a_noun(quantity: str, region: str) -> None:
    assert scope_of(f"{quantity} — {region.title()}") == (quantity, "region", region, None)
    assert scope_of(f"{region.title()} {quantity}")[1] == "own"


_PARTS = {
    "Q1": "q1", "Q2": "q2", "Q3": "q3", "Q4": "q4", "First Quarter": "q1",
    "fourth-quarter": "q4", "3rd quarter": "q3", "H1": "h1", "second half": "h2",
    "Nine Months": "part", "Full Year": "full",
}  # fmt: skip


@given(st.sampled_from(_QUANTITIES), st.sampled_from(sorted(_PARTS)), st.booleans())
def test_a_part_of_the_year_reads_back_before_or_after(
    quantity: str, part: str, before: bool
) -> None:
    name = f"{part} {quantity}" if before else f"{quantity} — {part}"
    assert scope_of(name) == (quantity, "own", None, _PARTS[part])


_WORDS = [
    "Total", "net", "revenue", "Americas", "segment", "Adjusted", "(non-GAAP)", "Q4", "of",
    "in", "the", "—", "discontinued", "operations", "Parent", "Consumer", "assets",
    "acquired", "income", "from", "U.S.", "tax", "effect", "Full", "Year",
]  # fmt: skip
_TOKENS = st.lists(st.sampled_from(_WORDS), max_size=8)


@given(_TOKENS)
@example(["segment", "(non-GAAP)", "segment", "Total"])  # a bracketed note is no name
@example(["Parent", "(non-GAAP)", "Parent"])  # a scope said twice, a note between
def test_what_is_never_invented_and_the_scope_is_taken_whole(tokens: list[str]) -> None:
    reading = read_scope(tokens)
    it = iter(tokens)
    assert all(word in it for word in reading.what)  # a subsequence of the tokens
    again = read_scope(reading.what)  # what is left says no more of the same scope or part
    if reading.scope != "own":
        assert (again.scope, again.scope_name) != (reading.scope, reading.scope_name)
    if reading.period_part is not None:
        assert again.period_part != reading.period_part


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("For fiscal 2026 the company expects net sales of", True),
        ("Management anticipates capital spending of about", True),
        ("Operating costs are expected to be approximately", True),
        ("Our guidance for 2026 calls for revenue of", True),
        ("The board budgeted maintenance spending of", True),
        ("We expect sales of $2.1 billion, compared with", False),
        ("The expected return on plan assets was", False),
        ("Expected credit losses on receivables totaled", False),
        ("Unrecognized cost expected to be recognized over three years is", False),
        ("The projected benefit obligation was", False),
        ("Adopting mortality projection scales lowered the obligation by", False),
        ("Under the new revenue recognition guidance, revenue rose by", False),
        ("After Treasury guidance issued in 2025 the charge was", False),
        ("Our 2026 guidance calls for revenue of", True),
        ("Net sales for the year were", False),
    ],
)
def test_a_clause_before_an_amount_says_whether_it_is_expected(clause: str, expected: bool) -> None:
    assert names_forecast(clause.split()) is expected
