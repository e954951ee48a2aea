"""A fact's period unit — how often its amount recurs — read from real text: the unit
phrase after the amount, else its label (a key, a noun phrase, a table's column)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from paths import CORPORA

from osrag.extract import extract_values
from osrag.loaders.corpus import load_file
from osrag.models import Document, ExtractionConfig
from osrag.schema.facts import AmountFact

REPO = Path(__file__).resolve().parents[2]
FAMILIES = REPO / "benchmarks" / "data" / "families" / "documents"
CUAD = CORPORA / "cuad-contracts" / "contracts"
"""The slice of the CUAD contracts (the families set holds twelve more, in its own
folder)."""


@cache
def _facts(path: Path) -> tuple[AmountFact, ...]:
    (document,) = [d for d in load_file(path, path.name) if isinstance(d, Document)]
    return tuple(extract_values(document.text, ExtractionConfig()).facts)


def _fact(path: Path, raw: str, nth: int = 0) -> AmountFact:
    found = [f for f in _facts(path) if f.raw == raw]
    assert len(found) > nth, f"{raw} not read in {path.name}: {[f.raw for f in _facts(path)]}"
    return found[nth]


@pytest.mark.parametrize(
    ("document", "raw", "label", "unit"),
    [
        # a key-value line and the unit after the amount ("- Wage: $900 per week for …")
        ("compensation/seasonal-employment-agreement.md", "$900", "Wage", "week"),
        ("compensation/seasonal-employment-agreement.md", "$150", "Housing stipend", "week"),
        ("compensation/seasonal-employment-agreement.md", "$22.50", "regular rate", "hour"),
        ("compensation/seasonal-employment-agreement.md", "$500", "Completion bonus", None),
        # prose: the unit after the amount, else the label's
        ("compensation/postdoc-appointment-letter.pdf", "$62,500", "stipend", "year"),
        ("compensation/postdoc-appointment-letter.pdf", "$5,208.33", None, "month"),
        ("leases/residential-lease-elm-st.docx", "$2,150.00", "monthly rent", "month"),
        ("leases/residential-lease-elm-st.docx", "$35.00", "pet rent", "month"),
        ("leases/residential-lease-elm-st.docx", "$3,225.00", "security deposit", None),
        ("leases/residential-lease-elm-st.docx", "$10.00", None, "day"),
        ("grants/scholarship-award-hensley.md", "$6,000", "scholarship", "year"),
        # "per semester" is no unit of the six: never guessed as a half-year
        ("grants/scholarship-award-hensley.md", "$3,000", None, None),
        ("loans/credit-agreement-tessellate.pdf", "$1,875,000",
         "consecutive quarterly installments", "quarter"),
        # a table's column names the unit of its cells
        ("insurance/professional-liability-quill.md", "$9,300", "Annual premium", "year"),
    ],
)  # fmt: skip
def test_the_unit_of_an_amount_in_the_families_documents(
    document: str, raw: str, label: str | None, unit: str | None
) -> None:
    """(``label`` None: the amount's label is not what the case is about.)"""
    fact = _fact(FAMILIES / document, raw)
    assert fact.period_unit == unit
    assert label is None or fact.label == label


def test_a_table_column_states_the_unit_of_its_cells() -> None:
    """The commercial lease's rent schedule (a PDF table: `Lease year | Annual rate per
    RSF | Annual base rent | Monthly base rent`): each cell recurs by its column's unit."""
    lease = FAMILIES / "leases" / "commercial-lease-riverside.pdf"
    assert _fact(lease, "$8,431.25").period_unit == "month"
    assert _fact(lease, "$101,175.00").period_unit == "year"
    assert "Monthly base rent" in (_fact(lease, "$8,431.25").label or "")


@pytest.mark.parametrize(
    ("contract", "raw", "label", "unit"),
    [
        (FAMILIES / "contracts" / "cuad-intricon-strategic-alliance.txt", "US$300,000",
         "fixed technology access fee", "year"),
        (FAMILIES / "contracts" / "cuad-slinger-bag-consulting.docx", "$8,500",
         "Base Consulting Fee", "month"),
        (CUAD / "AlliedEsportsEntertainmentInc_20190815_8-K_EX-10.19_11788293_EX-10.19_Content "
         "License Agreement.txt", "three million U.S. dollars ($3,000,000)", None, "year"),
        (CUAD / "KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.txt", "$1000", None,
         "day"),
        (CUAD / "WPPPLC_04_30_2020-EX-4.28-SERVICE AGREEMENT.txt", "£30,000",
         "fixed benefits allowance", "year"),
        # "and a fixed benefits allowance of £30,000 per annum": the unit is the allowance's
        (CUAD / "WPPPLC_04_30_2020-EX-4.28-SERVICE AGREEMENT.txt", "£740,000", "salary", None),
    ],
)  # fmt: skip
def test_the_unit_of_an_amount_in_real_contracts(
    contract: Path, raw: str, label: str | None, unit: str
) -> None:
    fact = _fact(contract, raw)
    assert fact.period_unit == unit
    assert label is None or fact.label == label


def test_an_average_per_day_is_no_daily_amount() -> None:
    """ "0.65% of a Fund's average daily net assets up to $25 million": the assets are a
    daily average, the amount falls due on no day."""
    text = (
        "each Fund shall pay the Adviser a fee at an annual rate of 0.65% of a Fund's average "
        "daily net assets up to $25 million.\n"
    )
    (fact,) = extract_values(text, ExtractionConfig()).facts
    assert fact.label == "average daily net assets" and fact.period_unit is None


@pytest.mark.parametrize(
    ("line", "unit"),
    [
        ("Total pledges in the year: $1,250.00", "year"),
        ("Membership fees paid during the tax year: £96.00", "year"),
        ("Total pledges in 2025: $1,250.00", None),  # dated: its year, no unit
        ("Total pledges: $1,250.00", None),
    ],
)
def test_a_label_summing_the_year_is_a_years_figure(line: str, unit: str | None) -> None:
    (fact,) = extract_values(line, ExtractionConfig()).facts
    assert fact.period_unit == unit


@pytest.mark.parametrize(
    ("text", "raw", "unit"),
    [
        ("Proofreading is charged at $0.04 per word.", "$0.04", "word"),
        ("| Run | Price per copy | Total |\n|---|---|---|\n| 250 | $6.10 | $1,525.00 |\n",
         "$6.10", "copy"),
        ("System price per watt: $2.95", "$2.95", "watt"),
        ("Drum lessons are £28 a lesson, paid each half term.", "£28", "lesson"),
    ],
)  # fmt: skip
def test_a_price_per_unit_of_work_or_goods_states_that_unit(text: str, raw: str, unit: str) -> None:
    fact = next(f for f in extract_values(text, ExtractionConfig()).facts if f.raw == raw)
    assert fact.period_unit == unit


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        # the unit phrase wrapped onto the next line, either side of the rate word
        ("Extra work is quoted separately, with labour billed at $60 per\nhour and parts at cost.",
         "hour"),
        ("The parking permit costs $30.00\nper week while the works last.", "week"),
        ("Each guest pays a supplement of £15 a\nnight in high season.", "night"),
        # a line that ends after the amount ends its clause
        ("Deposit $500\nMonthly rent $1,200\n", None),
        # a rate word ends a line far from the amount, or "each" ends a price of its own
        ("Soap $2 each\nDay spa passes $40", None),
        ("Towels: $5 each\nWeek two: cleaning $40", None),
        ("We quote $300 for the survey and invoice it after each\nmonth of work.", None),
        ("The charge is $30 for a\nweekly class pack.", None),
    ],
)  # fmt: skip
def test_a_unit_wrapped_onto_the_next_line_is_the_amounts(text: str, unit: str | None) -> None:
    assert extract_values(text, ExtractionConfig()).facts[0].period_unit == unit
