"""Whose figure and which part of the year a fact is: the forms of statements, releases and
itemised documents that say so, read into ``scope``, ``scope_name`` and ``period_part`` —
in a table (a column, a row, a group, the heading, the describing sentence, the table's
shape) and in prose (the noun phrase, the stated period, the section's heading).

Each form is a general rule of the language of such documents, with a case written as
they write it and, where the real test documents hold it, the real text (the families
set's statements, invoices and orders; the TAT-QA slice)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from paths import CORPORA, ROOT
from test_facts_tables import SHAPES, facts, pipe

from osrag.extract import extract_values
from osrag.lexicon.keys import label_keys
from osrag.loaders.corpus import load_corpus
from osrag.models import Document, ExtractionConfig
from osrag.schema.facts import AmountFact

FAMILIES = ROOT / "benchmarks" / "data" / "families" / "documents"


def _document(relative: str) -> list[AmountFact]:
    path = FAMILIES / relative
    for item in load_corpus(path.parent):
        if isinstance(item, Document) and Path(item.source_path).name == path.name:
            return extract_values(item.text, ExtractionConfig()).facts
    raise AssertionError(f"{relative} not loaded")


def _by_raw(found: list[AmountFact], raw: str) -> AmountFact:
    return next(f for f in found if f.raw.replace("\n", " ") == raw)


# --------------------------------------------------------------------------- parts of the company


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_segment_table_under_its_heading_is_the_segments(shape: str) -> None:
    text = "Consumer Cyber Safety segment\n\nRevenue grew in fiscal 2019.\n\n" + SHAPES[shape](
        [["($ in millions)", "2019", "2018"], ["Net revenues", "$ 2,456", "$ 2,280"]]
    )
    first = facts(text)[0]
    assert (first.label, first.scope, first.scope_name) == (
        "Net revenues",
        "segment",
        "consumer cyber safety",
    )


def test_a_sentence_naming_one_segment_makes_the_table_that_segments() -> None:
    text = "The following table presents the results of our Retail segment:\n\n" + pipe(
        [["($ in millions)", "2019", "2018"], ["Net sales", "$ 1,420", "$ 1,380"]]
    )
    assert {(f.scope, f.scope_name) for f in facts(text)} == {("segment", "retail")}


def test_a_sentence_naming_several_parts_names_none() -> None:
    text = "Our segments are the Americas, EMEA and Asia Pacific, as follows:\n\n" + pipe(
        [["($ in millions)", "2019"], ["Total revenue", "$ 4,812"]]
    )
    assert facts(text)[0].scope == "own"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_rows_of_a_table_by_segment_are_the_parts_of_its_total(shape: str) -> None:
    text = "### Revenue by segment\n\n" + SHAPES[shape](
        [
            ["Segment ($ in millions)", "Fiscal 2023", "Fiscal 2022"],
            ["Americas", "$ 2,140", "$ 1,985"],
            ["Consumer Products", "1,610", "1,572"],
            ["Total net revenue", "$ 3,750", "$ 3,557"],
            ["Corporate costs", "(43)", "(40)"],
        ]
    )
    got = [(f.label, f.scope, f.scope_name) for f in facts(text)][::2]
    assert got == [
        ("net revenue", "region", "americas"),  # a geography is a region on both sides
        ("net revenue", "segment", "consumer products"),
        ("Total net revenue", "own", None),
        ("Corporate costs", "own", None),  # below the total: a reconciling line
    ]


def test_columns_of_a_table_by_segment_are_the_parts() -> None:
    text = "The carrying value of goodwill by segment was as follows:\n\n" + pipe(
        [
            ["($ in millions)", "Application Software", "Process Technologies", "Total"],
            ["Balances at December 31, 2019", "$ 5,389.4", "$ 314.5", "$ 5,703.9"],
            ["Goodwill acquired", "143.4", "—", "143.4"],
        ]
    )
    got = [(f.label, f.scope, f.scope_name, f.year) for f in facts(text)]
    assert got[:3] == [
        ("Application Software", "segment", "application software", 2019),
        ("Process Technologies", "segment", "process technologies", 2019),
        ("Total", "own", None, 2019),
    ]
    assert got[3][:3] == ("Goodwill", "acquired", None)  # the acquired business's goodwill


@pytest.mark.parametrize(
    ("sentence", "quantity"),
    [
        (
            "The table below sets out a breakdown of net sales to external customers by "
            "geographic region (in thousands):",
            "net sales",
        ),
        (
            "We report total external revenues by country, based on the customer's location:",
            "revenues",
        ),
        ("The following table shows operating income information by reportable segment:", "income"),
    ],
)
def test_a_long_sentence_names_the_quantity_of_its_parts_before_by(
    sentence: str, quantity: str
) -> None:
    """A describing sentence too long to be a quantity before "by" still names one: its
    clause's last quantity noun, with a lead netting it; the rows that name only a part are
    that part's figure of it, the unlabelled total the company's."""
    text = (
        sentence
        + "\n\n"
        + pipe(
            [
                ["", "2024", "2023"],
                ["France", "$ 412", "$ 398"],
                ["Northwind Logistics", "208", "190"],
                ["", "$ 620", "$ 588"],
            ]
        )
    )
    got = {(f.label, f.scope, f.scope_name) for f in facts(text)}
    part = ("segment", "northwind logistics") if "segment" in sentence else ("region", "france")
    assert (quantity, *part) in got
    assert not any(f.label in {"France", "Northwind Logistics"} for f in facts(text))


def test_a_heading_of_parts_takes_the_quantity_its_sentence_names() -> None:
    """A heading saying only that the rows are regions ("Geographic information") leaves
    the quantity to the sentence below it."""
    text = (
        "## 14. Geographic information\n\n"
        "The following table presents total external revenues by geographic location, based "
        "on the location of the customer:\n\n"
        + pipe([["", "2024", "2023"], ["Japan", "$ 96", "$ 70"], ["Brazil", "41", "38"]])
    )
    got = [(f.label, f.scope, f.scope_name) for f in facts(text)]
    assert got[0] == ("revenues", "region", "japan")
    assert got[2] == ("revenues", "region", "brazil")


@pytest.mark.corpus
def test_a_table_of_regions_names_each_region_in_real_filings() -> None:
    """TAT-QA: revenue by delivery location, countries under "Americas:" and "EMEA:"."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import tatqa_corpus

    contexts = json.loads((CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json").read_text("utf-8"))
    (context,) = [c for c in contexts if c["table"]["uid"].startswith("68bafc82")]
    found = facts(tatqa_corpus.render(context).text)
    assert (found[0].scope, found[0].scope_name, found[0].year) == (
        "region",
        "united states",
        2019,
    )
    assert {f.scope for f in found} >= {"region", "own"}


# --------------------------------------------------------------------------- parts of the year


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_table_of_quarters_gives_each_quarter_and_the_full_year(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["2023 (in thousands of dollars)", "First Quarter", "Fourth Quarter", "Full Year"],
            ["Revenue", "212,406", "268,301", "944,377"],
        ]
    )
    assert [(f.label, f.period_part) for f in facts(table)] == [
        ("Revenue", "q1"),
        ("Revenue", "q4"),
        ("Revenue", "full"),
    ]


def test_a_quarterly_table_of_dates_is_each_quarters() -> None:
    text = "Quarterly Results of Operations (Unaudited)\n\n" + pipe(
        [
            ["($ in thousands)", "March 31, 2019", "June 30, 2019"],
            ["Net sales", "$ 117,625", "$ 120,684"],
        ]
    )
    assert [(f.period_part, f.year) for f in facts(text)] == [("part", 2019), ("part", 2019)]


def test_a_quarterly_releases_lists_take_their_headings_part_of_the_year() -> None:
    """The families set's fourth-quarter release: its bold headings over the lists."""
    found = _document("financial/vantor-q4-release.md")
    assert _by_raw(found, "$1.06 billion").period_part == "q4"
    assert _by_raw(found, "$1.02 billion").period_part == "q4"  # "in the fourth quarter of 2022"
    assert (_by_raw(found, "$142.3 million").label, _by_raw(found, "$142.3 million").scope) == (
        "EBITDA",
        "adjusted",
    )
    assert _by_raw(found, "$3.92 billion").period_part == "full"  # "Full year 2023 highlights"


def test_a_quarter_in_prose_is_read_from_its_words_and_its_period() -> None:
    found = facts("Fourth-quarter net sales were $612 million. Revenue for the third quarter "
                  "of 2019 was $5.2 million.")  # fmt: skip
    assert [(f.label, f.period_part) for f in found] == [("net sales", "q4"), ("Revenue", "q3")]


# --------------------------------------------------------------------------- other entities, kinds


def test_a_purchase_price_allocation_under_its_heading_is_the_acquired_business() -> None:
    text = "Purchase Price Allocation\n\nThe allocation is preliminary.\n\n" + pipe(
        [["($ in thousands)", "Amount"], ["Goodwill", "$ 33,014"], ["Total assets", "$ 54,060"]]
    )
    assert {f.scope for f in facts(text)} == {"acquired"}


def test_a_deferred_tax_table_described_so_holds_the_tax_effects_of_its_items() -> None:
    """Its items' rows are their tax effects — a loss carryforward is an asset, never
    stored as a loss —, its totals and allowance the balance."""
    text = (
        "The tax effects of temporary differences that give rise to deferred tax assets are"
        " as follows:\n\n"
        + pipe(
            [
                ["($ in thousands)", "2019"],
                ["Net operating losses", "$ 12,500"],
                ["Stock-based compensation", "3,100"],
                ["Valuation allowance", "(4,000)"],
                ["Total deferred tax assets", "$ 11,600"],
            ]
        )
    )
    got = [(f.label, f.scope, f.value) for f in facts(text)]
    assert got == [
        ("Deferred tax assets: Net operating losses", "tax_effect", 1_250_000_000),
        ("Deferred tax assets: Stock-based compensation", "tax_effect", 310_000_000),
        ("Valuation allowance", "own", -400_000_000),
        ("Total deferred tax assets", "own", 1_160_000_000),
    ]


@pytest.mark.corpus
def test_loss_carryforwards_under_a_deferred_tax_balance_are_no_loss_in_real_filings() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import tatqa_corpus

    contexts = json.loads((CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json").read_text("utf-8"))
    (context,) = [c for c in contexts if c["table"]["uid"].startswith("53eec737")]
    found = [f for f in facts(tatqa_corpus.render(context).text) if f.label and "losses" in f.label]
    assert found and all(f.scope == "tax_effect" and f.value > 0 for f in found)


def test_a_roll_forwards_movement_is_not_the_balance() -> None:
    table = pipe(
        [
            ["($ in millions)", "Balance at Dec 29, 2018", "Acquisitions", "Impairment"],
            ["Goodwill", "$ 5,424", "$ 1,758", "$ (120)"],
        ]
    )
    keys = [label_keys(f.label) for f in facts(table)]
    assert "goodwill" in keys[0]
    assert "goodwill" not in keys[1] and "goodwill" not in keys[2]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_adjusted_rows_and_non_gaap_columns_are_adjusted(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["($ in millions)", "GAAP", "Non-GAAP"],
            ["Operating income", "$ 612", "$ 655"],
            ["Adjusted EBITDA", "", "$ 801"],
        ]
    )
    assert [(f.label, f.scope) for f in facts(table)] == [
        ("Operating income", "own"),
        ("Operating income", "adjusted"),
        ("EBITDA", "adjusted"),
    ]


# --------------------------------------------------------------------------- a document's lines


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_itemised_documents_lines_are_line_items_and_its_totals_its_own(shape: str) -> None:
    table = SHAPES[shape](
        [
            ["Item", "Qty", "Unit price", "Total"],
            ["Widget", "24", "$96.50", "$2,316.00"],
            ["Subtotal", "", "", "$2,316.00"],
            ["Total due", "", "", "$2,506.00"],
        ]
    )
    got = [(f.raw, f.scope) for f in facts(table)]
    assert got == [
        ("$96.50", "own"),  # a unit price: no part of the total
        ("$2,316.00", "line_item"),  # the line's amount, which the total sums
        ("$2,316.00", "own"),
        ("$2,506.00", "own"),
    ]


@pytest.mark.parametrize(
    ("document", "line", "total"),
    [
        ("invoices/northwind-invoice-4471.pdf", "$2,316.00", "$4,025.30"),
        ("invoices/meridian-freight-invoice.md", "£5,920.00", "£10,278.00"),
        ("invoices/atlas-consulting-invoice.docx", "$8,300.00", "$6,862.40"),
        ("purchasing/purchase-order-7734.pdf", "$4,500.00", "$7,110.00"),
    ],
)
def test_real_invoices_and_orders_tell_their_lines_from_their_totals(
    document: str, line: str, total: str
) -> None:
    found = _document(document)
    assert _by_raw(found, line).scope == "line_item"
    assert _by_raw(found, total).scope == "own"


# --------------------------------------------------------------------------- prose


@pytest.mark.parametrize(
    ("sentence", "reading"),
    [
        ("Retail segment net sales were $1.42 billion.", ("net sales", "segment", "retail")),
        ("UK revenue was £903.1 million.", ("revenue", "region", "united kingdom")),
        ("Adjusted EBITDA of $318.2 million.", ("EBITDA", "adjusted", None)),
        ("Revenue in the Americas was $18.4 million.", ("Revenue", "region", "americas")),
        ("Net income was $121.4 million.", ("Net income", "own", None)),
    ],
)
def test_a_prose_amounts_name_says_whose_it_is(
    sentence: str, reading: tuple[str, str, str | None]
) -> None:
    (found,) = facts(sentence)
    assert (found.label, found.scope, found.scope_name) == reading


def test_an_expected_figure_is_a_forecast_read_from_its_clause_or_its_heading() -> None:
    """A figure a company expects, guides to or budgets is no reported actual: its clause's
    verb or noun, or the heading of its section, makes it a forecast; the reported figure
    beside it, and a comparison in the same sentence, stay the company's own."""
    text = (
        "Net sales for fiscal 2025 were $812.4 million.\n\n"
        "## Fiscal 2026 guidance\n\n"
        "Brightwell expects net sales of $850 million to $870 million and\n"
        "capital spending of about $41 million.\n\n"
        "We anticipate freight costs of $12.5 million, compared with $11.9 million last year."
    )
    got = [(f.raw, f.label, f.scope) for f in facts(text)]
    assert got == [
        ("$812.4 million", "Net sales", "own"),
        ("$850 million", "net sales", "forecast"),
        ("$870 million", "net sales", "forecast"),
        ("$41 million", "capital spending", "forecast"),
        ("$12.5 million", "freight costs", "forecast"),
        ("$11.9 million", "freight costs", "own"),
    ]


def test_an_adjective_expected_names_an_actual_measure() -> None:
    found = facts("The expected return on plan assets was $4.6 million in 2025.")
    assert [(f.label, f.scope) for f in found] == [("expected return on plan assets", "own")]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_budget_or_outlook_column_is_a_forecast(shape: str) -> None:
    text = SHAPES[shape](
        [
            ["", "2025 Actual", "2026 Budget", "2027 Outlook"],
            ["Operating costs", "$ 410", "$ 445", "$ 460"],
        ]
    )
    found = facts(text)
    assert all((f.label or "").startswith("Operating costs") for f in found)
    assert [(f.year, f.scope) for f in found] == [
        (2025, "own"), (2026, "forecast"), (2027, "forecast")
    ]  # fmt: skip


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_budget_column_with_no_actuals_beside_it_states_the_figures(shape: str) -> None:
    """A grant's or a project's "Item | Budget" table is the award's own figures: a budget
    is a forecast only beside the actuals it is compared with."""
    text = SHAPES[shape]([["Item", "Budget"], ["Field equipment", "$ 12,400"]])
    found = facts(text)
    assert [(f.raw, f.scope) for f in found] == [("$ 12,400", "own")]
    assert all((f.label or "").startswith("Field equipment") for f in found)


def test_a_key_naming_a_projection_is_a_forecast() -> None:
    found = facts("Projected revenue: $5,400,000\nRevenue to date: $1,250,000\n")
    assert [(f.label, f.scope) for f in found] == [
        ("revenue", "forecast"),
        ("Revenue to date", "own"),
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_budget_by_term_year_gives_each_column_its_year_and_the_total_the_whole(
    shape: str,
) -> None:
    text = SHAPES[shape](
        [["Category", "Year 1", "Year 2", "Total"], ["Equipment", "$ 8,000", "$ 9,500", "$ 17,500"]]
    )
    found = facts(text)
    assert all((f.label or "").startswith("Equipment") for f in found)
    assert [f.period_part for f in found] == ["y1", "y2", "full"]


def test_a_term_year_in_a_key_or_a_phrase_is_the_facts_part_and_leaves_the_label() -> None:
    text = (
        "Total award (four years): $612,000\n"
        "Funds released (award year 1): $150,000\n\n"
        "Second-year support of $155,000 follows a satisfactory report."
    )
    got = [(f.raw, f.label, f.period_part) for f in facts(text)]
    assert got == [
        ("$612,000", "Total award (four years)", "full"),
        ("$150,000", "Funds released", "y1"),
        ("$155,000", "support", "y2"),
    ]


def test_a_section_heading_naming_a_term_year_gives_its_lines_no_part() -> None:
    """Only a figure's own words say it is one year's share: the lines of a table headed
    "Budget, year 1" are costs as stated (the document states no whole of them)."""
    text = "## Budget, year 1\n\n" + pipe([["Item", "Amount"], ["Field travel", "$ 6,200"]])
    assert [f.period_part for f in facts(text)] == ["full"]


def test_a_comparison_in_the_same_sentence_takes_the_scope_of_what_it_compares() -> None:
    found = facts("Adjusted EBITDA was $318.2 million, compared with $291.5 million in 2022.")
    assert [(f.label, f.scope) for f in found] == [("EBITDA", "adjusted"), ("EBITDA", "adjusted")]


def test_a_stub_header_naming_a_part_of_the_year_makes_every_column_a_part() -> None:
    """ "Quarters Ended" or "Three Months Ended" in the top-left cell, dates over the columns:
    each figure is a quarter's (which one depends on the fiscal year), never the year's;
    "Year Ended" there leaves the year's."""
    text = (
        "| Three Months Ended | March 31, 2019 | March 31, 2018 |\n|---|---|---|\n"
        "| Revenue | $1,200 | $1,100 |\n\n"
        "| Quarters Ended | July 27, 2019 | April 27, 2019 |\n|---|---|---|\n"
        "| Net income | $2,206 | $3,044 |\n\n"
        "| Year Ended | December 31, 2019 | December 31, 2018 |\n|---|---|---|\n"
        "| Revenue | $5,200 | $4,100 |\n"
    )
    got = [(f.raw, f.year, f.period_part) for f in facts(text)]
    assert got == [
        ("$1,200", 2019, "part"), ("$1,100", 2018, "part"),
        ("$2,206", 2019, "part"), ("$3,044", 2019, "part"),
        ("$5,200", 2019, "full"), ("$4,100", 2018, "full"),
    ]  # fmt: skip


# --------------------------------------------------------------------------- the year to date


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("current", ["Current", "This period", "Current period", "This pay period"])
@pytest.mark.parametrize("to_date", ["Year to date", "YTD", "Year-to-date"])
def test_a_year_to_date_column_is_that_part_and_the_current_one_the_whole(
    shape: str, current: str, to_date: str
) -> None:
    """A statement's running total beside its period's own figure: the same label, the one
    the year to date (``ytd``), the other the statement's period (``full``), which the
    current column's header does not qualify."""
    text = SHAPES[shape](
        [
            ["Earnings", current, to_date],
            ["Base wages", "$1,840.00", "$16,560.00"],
            ["Gross pay", "$1,975.50", "$17,779.50"],
        ]
    )
    got = [(f.raw, f.label, f.period_part) for f in facts(text)]
    assert got == [
        ("$1,840.00", "Base wages", "full"), ("$16,560.00", "Base wages", "ytd"),
        ("$1,975.50", "Gross pay", "full"), ("$17,779.50", "Gross pay", "ytd"),
    ]  # fmt: skip


def test_current_beside_deferred_is_a_class_of_tax_not_the_period() -> None:
    text = pipe(
        [["(in thousands)", "Current", "Deferred", "Total"], ["State", "$412", "$(38)", "$374"]]
    )
    got = [(f.raw, f.label, f.period_part) for f in facts(text)]
    assert got[0] == ("$412", "State — Current", "full")
    assert got[1][1] == "State — Deferred"


@pytest.mark.parametrize(
    ("text", "raw", "label", "part"),
    [
        ("YTD gross: $31,200\nNet pay: $1,480.00\n", "$31,200", "gross", "ytd"),
        ("YTD gross: $31,200\nNet pay: $1,480.00\n", "$1,480.00", "Net pay", "full"),
        ("Dividends year-to-date: $38.90\n", "$38.90", "Dividends", "ytd"),
        ("Fees this period: $12.00\n", "$12.00", "Fees", "full"),
        (
            "She had year-to-date earnings of $31,200 by the end of May.",
            "$31,200",
            "earnings",
            "ytd",
        ),
    ],
)
def test_the_year_to_date_in_a_key_line_or_a_phrase_is_the_facts_part(
    text: str, raw: str, label: str, part: str
) -> None:
    found = _by_raw(facts(text), raw)
    assert (found.label, found.period_part) == (label, part)


def test_fiscal_headers_keep_their_parts_beside_the_year_to_date_reading() -> None:
    text = pipe(
        [
            ["", "Nine Months Ended September 30, 2019", "Year Ended December 31, 2018"],
            ["Revenue", "$3,100", "$4,000"],
        ]
    )
    assert [(f.raw, f.period_part) for f in facts(text)] == [("$3,100", "part"), ("$4,000", "full")]
