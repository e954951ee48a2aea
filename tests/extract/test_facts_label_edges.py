"""Label edges of bills, pay stubs, quotes and fee statements: a rate beside a row's hours,
a year-to-date cell beside a line's amount, a heading naming the statement's own period, a
dashed period after a name, an adverb of time after it, a total named with what its
figures are. Texts written for these tests."""

from __future__ import annotations

from osrag.extract import extract_values
from osrag.lexicon.keys import label_keys
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact


def _facts(text: str) -> dict[str, AmountFact]:
    return {f.raw: f for f in extract_values(text, ExtractionConfig()).facts}


STUB = """# Harbor Bakery — Earnings statement

| Earnings | Hours | Rate | Current | Year to date |
|---|---|---|---|---|
| Regular | 32.50 | $18.40 | $598.00 | $9,568.00 |
| Overtime | 2.00 | $27.60 | $55.20 | $441.60 |
| Gross pay | | | $653.20 | $10,009.60 |
"""


def test_a_rate_beside_the_hours_of_its_row_is_a_rate_per_hour() -> None:
    facts = _facts(STUB)
    regular, overtime = facts["$18.40"], facts["$27.60"]
    assert (regular.label, regular.period_unit) == ("Regular — Rate per hour", "hour")
    assert overtime.period_unit == "hour"
    assert "rate" in label_keys(regular.label)


def test_a_lines_amount_is_its_current_cell_not_its_year_to_date() -> None:
    facts = _facts(STUB)
    current, year_to_date = facts["$598.00"], facts["$9,568.00"]
    assert (current.scope, current.period_part) == ("line_item", "full")
    assert (year_to_date.scope, year_to_date.period_part) == ("own", "ytd")
    assert facts["$653.20"].scope == "own"  # the total the lines sum
    assert facts["$18.40"].period_unit == "hour" and facts["$18.40"].scope == "own"


def test_a_rate_beside_a_column_that_counts_nothing_states_no_unit() -> None:
    facts = _facts(
        "| Service | Rate | Amount |\n|---|---|---|\n| Consulting | $150.00 | $1,200.00 |\n"
    )
    assert facts["$150.00"].period_unit is None


BILL = """# Lakemont Gas Company

## Charges for this quarter

| Description | Amount |
|---|---|
| Meter charge (quarterly) | $27.00 |
| Gas supply | $212.40 |
"""


def test_a_heading_naming_the_statements_own_period_is_no_part_of_a_year() -> None:
    facts = _facts(BILL)
    meter = facts["$27.00"]
    assert (meter.period_part, meter.period_unit) == ("full", "quarter")
    assert facts["$212.40"].period_part == "full"
    monthly = _facts(BILL.replace("Charges for this quarter", "Current month's charges"))
    assert monthly["$212.40"].period_part == "full"


def test_a_heading_naming_a_quarter_of_the_year_still_is_one() -> None:
    facts = _facts(BILL.replace("Charges for this quarter", "Third quarter charges"))
    assert facts["$212.40"].period_part == "q3"


def test_a_dashed_period_after_a_name_is_no_word_of_it() -> None:
    facts = _facts(
        "Little Oaks Nursery\n\n"
        "Monthly care fee - October (4 days a week)          $1,120.00\n"
        "Meals                                                 $96.00\n"
    )
    fee = facts["$1,120.00"]
    assert fee.period_unit == "month"
    assert label_keys(fee.label) == ("monthly care fee", "care fee", "fee")


def test_an_adverb_of_time_after_a_name_is_no_word_of_it() -> None:
    facts = _facts("Free storage: 3 days. Storage thereafter: $60.00 per pallet per day.")
    storage = facts["$60.00"]
    assert storage.period_unit == "day"
    assert "storage" in label_keys(storage.label)


def test_a_total_named_with_what_its_figures_are_is_the_documents_total() -> None:
    facts = _facts(
        "| Charge | Amount |\n|---|---|\n| Pickup | $95.00 |\n| Linehaul | $640.00 |\n"
        "| Total estimated charges | $735.00 |\n"
    )
    assert "total" in label_keys(facts["$735.00"].label)
    assert "total" not in label_keys(facts["$640.00"].label)


def test_a_total_rows_cells_under_named_columns_are_their_columns_totals() -> None:
    facts = _facts(
        "# Claim summary\n\n"
        "| Visit | Billed | Plan paid | You owe |\n|---|---|---|---|\n"
        "| Office visit | $220.00 | $150.00 | $70.00 |\n"
        "| Lab work | $80.00 | $60.00 | $20.00 |\n"
        "| Totals | $300.00 | $210.00 | $90.00 |\n"
    )
    for raw in ("$300.00", "$210.00", "$90.00"):
        assert "total" not in label_keys(facts[raw].label)
    assert "billed" in label_keys(facts["$300.00"].label)
    one_column = _facts("| Item | Amount |\n|---|---|\n| Freight | $90.00 |\n| Total | $90.00 |\n")
    assert "total" in label_keys(one_column["$90.00"].label)
