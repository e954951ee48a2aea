"""What a document declares once for the figures below it: their currency ("All amounts in
US dollars.", "Currency: EUR") and how often a statement's amounts fall due ("Pay
frequency: Weekly", "Billed monthly") — and a rate's unit ("per night", "per person", "per
credit hour", "per mile"), read by the one unit reader."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.extract.scale import declared_currencies
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact


def _facts(text: str, text_format: str = "text") -> list[AmountFact]:
    return extract_values(text, ExtractionConfig(), text_format=text_format).facts  # type: ignore[arg-type]


def _by_raw(text: str, text_format: str = "text") -> dict[str, AmountFact]:
    return {f.raw: f for f in _facts(text, text_format)}


# --------------------------------------------------------------------------- declared currency

_FORMS = [
    "All amounts in {}.",
    "All amounts are in {}",
    "Amounts are shown in {}",
    "Figures are stated in {} unless otherwise stated.",
    "(all figures in {})",
    "All prices are quoted in {}.",
    "Currency: {}",
    "**Currency:** {}",
]
_CURRENCIES = [
    ("US dollars", "USD"),
    ("U.S. dollars", "USD"),
    ("USD", "USD"),
    ("GBP", "GBP"),
    ("pounds sterling", "GBP"),
    ("euros", "EUR"),
    ("EUR", "EUR"),
    ("Canadian dollars", "CAD"),
]


@given(
    st.sampled_from(_FORMS),
    st.sampled_from(_CURRENCIES),
    st.sampled_from([str, str.upper, str.lower]),
)
def test_every_declaration_form_names_its_currency(
    form: str, currency: tuple[str, str], case: object
) -> None:
    written, code = currency
    line = case(form.format(written))  # type: ignore[operator]
    text = f"Statement of account\n{line}\nBalance: 12.00\n"
    assert [c for _, c in declared_currencies(text)] == [code]


def test_a_sentence_that_mentions_a_currency_declares_nothing() -> None:
    for line in (
        "We were paid in dollars last year.",
        "The amounts in this report are in millions",  # a scale, no currency: a caption's
        "Refunds of amounts paid in euros take ten days.",
    ):
        assert declared_currencies(f"Notes\n{line}\n") == []


_STUB = """\
HARBOUR FREIGHT SERVICES LTD                 PAYSLIP
Employee no: 88213          Tax period: 06
All figures in pounds sterling.

PAYMENTS               UNITS      RATE      THIS PERIOD      YEAR TO DATE
Basic salary                              3,104.17        18,625.02
Holiday pay             2.00     143.27     286.54            286.54
Total gross pay                           3,390.71        18,911.56

Net pay: 2,604.33
Hours worked: 162
"""


def test_a_declared_currency_makes_a_space_aligned_tables_cents_columns_money() -> None:
    facts = _by_raw(_STUB)
    gross = facts["3,390.71"]
    assert (gross.currency, gross.value, gross.label) == ("GBP", 339071, "Total gross pay")
    assert facts["18,911.56"].period_part == "ytd"
    assert "2.00" not in facts  # a column of units is a count, not money
    assert "162" not in facts and "88213" not in facts and "06" not in facts


def test_a_declared_currency_makes_a_key_value_lines_cents_figure_money() -> None:
    net = _by_raw(_STUB)["2,604.33"]
    assert (net.currency, net.value, net.label) == ("GBP", 260433, "Net pay")


@given(
    key=st.sampled_from(
        ["Hours worked", "Overtime hours", "Units", "Qty shipped", "Version", "Tax rate",
         "Miles driven", "Number of dependants", "Headcount", "Shipment weight"]
    ),
    whole=st.integers(min_value=1, max_value=9_999),
    cents=st.integers(min_value=0, max_value=99),
)  # fmt: skip
def test_a_key_that_names_a_count_or_a_measure_keeps_its_figure_a_number(
    key: str, whole: int, cents: int
) -> None:
    # "Hours worked: 80.00" under "All amounts in US dollars." is 80 hours, not $80
    figure = f"{whole}.{cents:02d}"
    text = f"All amounts in US dollars.\n\n{key}: {figure}\nNet pay: 1,402.18\n"
    found = _by_raw(text)
    assert figure not in found
    assert found["1,402.18"].value == 140218


def test_a_pipe_table_and_its_key_lines_under_a_declaration_are_in_its_currency() -> None:
    text = (
        "# Invoice 2291\n\nCurrency: EUR\n\n| Item | Amount |\n|---|---|\n"
        "| Consulting | 1,250.00 |\n| Travel | 310.40 |\n\n**Total due:** 1,560.40\n"
    )
    facts = _by_raw(text, "markdown")
    assert {raw: (f.currency, f.value) for raw, f in facts.items()} == {
        "1,250.00": ("EUR", 125000),
        "310.40": ("EUR", 31040),
        "1,560.40": ("EUR", 156040),
    }


def test_figures_before_a_declaration_or_without_one_stay_numbers() -> None:
    undeclared = (
        "Net pay: 2,604.33\nGross     3,390.71     18,911.56\nTax       401.20       2,407.20\n"
    )
    assert _facts(undeclared) == []
    above = "Net pay: 2,604.33\nAll amounts in US dollars.\nRefund: 14.50\n"
    assert [(f.raw, f.currency) for f in _facts(above)] == [("14.50", "USD")]


def test_a_later_declaration_governs_the_figures_below_it() -> None:
    text = "Currency: USD\nDeposit: 500.00\n\nCurrency: EUR\nDeposit: 450.00\n"
    assert [(f.raw, f.currency) for f in _facts(text)] == [("500.00", "USD"), ("450.00", "EUR")]


# --------------------------------------------------------------------------- declared frequency

_WEEKLY = """\
# Harbourview Bistro — Earnings

**Pay frequency:** {frequency}
**Period:** June 3 – June 9, 2024

| Earnings | Rate | Current | Year to date |
|---|---|---|---|
| Regular wages | $16.00 | $576.00 | $12,672.00 |
| Gross earnings | | $640.00 | $14,080.00 |

**Take-home pay:** $521.10
"""


def test_a_declared_pay_frequency_gives_the_current_amounts_their_unit() -> None:
    facts = _by_raw(_WEEKLY.format(frequency="Weekly"), "markdown")
    assert facts["$640.00"].period_unit == "week"
    assert facts["$576.00"].period_unit == "week"
    assert facts["$521.10"].period_unit == "week"
    assert facts["$14,080.00"].period_unit is None  # year to date
    assert facts["$16.00"].period_unit is None  # a rate, not the week's pay


def test_a_frequency_that_is_no_unit_gives_none() -> None:
    for frequency in ("Biweekly", "Semi-monthly", "Every two weeks"):
        facts = _by_raw(_WEEKLY.format(frequency=frequency), "markdown")
        assert facts["$640.00"].period_unit is None, frequency


def test_a_billed_line_and_a_billing_cycle_declare_the_unit() -> None:
    for line in ("Billed quarterly", "Billing cycle: Monthly"):
        text = f"Account 4471\n{line}\n\nService charge: $38.50\nLate fee: $5.00 per day\n"
        facts = _by_raw(text)
        unit = "quarter" if "quarterly" in line else "month"
        assert facts["$38.50"].period_unit == unit, line
        assert facts["$5.00"].period_unit == "day"  # the amount states its own unit


# --------------------------------------------------------------------------- rate units


def test_an_amount_per_a_rate_unit_has_that_unit() -> None:
    text = (
        "The Inn will hold twelve rooms at a negotiated rate of $174.00 per room per night.\n\n"
        "Dinner is priced at $82 per guest, and the shuttle at $1.10 per mile.\n\n"
        "Summer tuition is $455 per credit hour.\n"
    )
    facts = _by_raw(text)
    assert facts["$174.00"].period_unit == "night"
    assert facts["$82"].period_unit == "person"
    assert facts["$1.10"].period_unit == "mile"
    assert facts["$455"].period_unit == "credit hour"


def test_a_rate_in_a_row_label_is_labelled_by_its_item_and_the_row_total_is_no_rate() -> None:
    text = (
        "| Charge | Amount |\n|---|---|\n"
        "| Lab fee – graduate, 3 credit hours at $75.00 per credit hour | $225.00 |\n"
        "| Meal plan – 10 meals per week | $1,480.00 |\n"
    )
    facts = _by_raw(text, "markdown")
    rate = facts["$75.00"]
    assert (rate.label, rate.period_unit) == ("Lab fee — graduate", "credit hour")
    assert facts["$225.00"].period_unit is None  # the product: 3 × $75.00
    assert facts["$1,480.00"].period_unit is None  # "per week" counts the meals


def test_a_period_in_the_label_wins_over_a_rate_unit_after_the_amount() -> None:
    fact = _by_raw("Annual benefit maximum: $1,750.00 per member.\nYearly cap: $900 per person.\n")
    assert fact["$900"].period_unit == "year"


_UNIT_WORDS = {"Weekly": "week", "Monthly": "month", "Quarterly": "quarter", "Annually": "year"}


@given(
    st.sampled_from(["Pay frequency: {}", "Pay period: {}", "Billing cycle: {}", "Billed {}"]),
    st.sampled_from(sorted(_UNIT_WORDS)),
    st.sampled_from([str, str.upper, str.lower]),
    st.integers(1, 99_999),
)
def test_every_frequency_declaration_gives_its_unit_to_a_current_amount_below_it(
    form: str, word: str, case: object, cents: int
) -> None:
    line = case(form.format(word))  # type: ignore[operator]
    amount = f"${cents // 100:,}.{cents % 100:02d}"
    text = f"Statement 2291\n{line}\n\nService charge: {amount}\n"
    above = f"Service charge: {amount}\n\n{line}\n"
    (fact,) = _facts(text)
    assert fact.period_unit == _UNIT_WORDS[word]
    (before,) = _facts(above)
    assert before.period_unit is None  # a declaration governs the figures below it


def test_a_loans_payment_schedule_declares_no_unit_for_its_principal() -> None:
    text = "Loan summary\nPayment schedule: Monthly\n\nLoan amount: $48,000.00\n"
    assert _by_raw(text)["$48,000.00"].period_unit is None


# --------------------------------------------------------------------------- a price list's unit

_KENNEL = """# Riverside Boarding Kennels — Tariff 2027

{line}

| Stay | Small dog | Large dog |
|---|---:|---:|
| Standard kennel | £22.00 | £26.00 |
| Suite with run | £31.00 | £35.00 |

Medication: £2.50 per dose. Deposit on booking: £40.00.

## Grooming

| Service | Price |
|---|---:|
| Bath and dry | £28.00 |
"""


@given(
    st.sampled_from(
        [
            ("All prices are per dog per night.", "night"),
            ("Prices are per week unless stated.", "week"),
            ("All rates shown are per day, VAT included.", "day"),
            ("Our fees are **per night**; cats half price.", "night"),
            ("Rates are weekly.", "week"),
            # a line that opens by saying it, with no verb
            ("Prices per night. Choose a standard kennel or a suite.", "night"),
            ("Rates per week, VAT included.", "week"),
        ]
    ),
    st.sampled_from([str, str.lower]),
)
def test_a_price_lists_declared_unit_goes_to_its_prices_below_it_in_its_section(
    declaration: tuple[str, str], case: object
) -> None:
    line, unit = declaration
    facts = _by_raw(_KENNEL.format(line=case(line)), "markdown")  # type: ignore[operator]
    for raw in ("£22.00", "£26.00", "£31.00", "£35.00"):
        assert facts[raw].period_unit == unit, raw
    assert facts["£2.50"].period_unit is None  # its own unit, not a period of the list's
    assert facts["£40.00"].period_unit is None  # a deposit is no price of the list
    assert facts["£28.00"].period_unit is None  # another section's price


def test_a_price_list_without_a_declaration_or_with_a_declaration_of_no_unit_states_none() -> None:
    for line in (
        "Prices include VAT at 20%.",
        "All prices are subject to change.",
        "",
        "Fees per dog vary by breed.",
        "Ask about prices per night in December.",
    ):
        facts = _by_raw(_KENNEL.format(line=line), "markdown")
        assert facts["£22.00"].period_unit is None, line


def test_a_declaration_below_the_prices_gives_them_no_unit() -> None:
    text = _KENNEL.format(line="").replace(
        "Medication:", "All prices are per dog per night.\n\nMedication:"
    )
    assert _by_raw(text, "markdown")["£22.00"].period_unit is None
