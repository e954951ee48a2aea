"""Plain-text tables whose columns are aligned with spaces: statements and pay slips
printed as text. The figures carry no sign; the caption above says the unit and currency,
or the document writes its one currency before the figures elsewhere.

Built for the forms, not for any file: each table here is small and synthetic."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact

CONFIG = ExtractionConfig()


def facts(text: str) -> list[AmountFact]:
    return extract_values(text, CONFIG).facts


def described(text: str) -> list[tuple[str, int, str | None, int | None]]:
    return [(f.raw, f.value, f.label, f.year) for f in facts(text) if f.source == "table"]


STATEMENT = """\
NORTHFIELD FOODS LTD
STATEMENT OF FINANCIAL POSITION
(in thousands of pounds)

                                   31 March       31 March
                                       2025           2024
Inventories                           812.4          790.0
Trade receivables                   1,204.9        1,117.3
    Total assets                    4,306.1        4,021.8

Equity and liabilities
Trade payables                       (96.2)          88.5
    Total equity and liabilities    4,306.1        4,021.8

The notes form part of these statements.
"""


def test_a_caption_scales_a_space_aligned_statement_and_its_years_are_its_periods() -> None:
    got = described(STATEMENT)
    assert got[:2] == [
        ("812.4", 81_240_000, "Inventories", 2025),
        ("790.0", 79_000_000, "Inventories", 2024),
    ]
    assert ("4,306.1", 430_610_000, "Total assets", 2025) in got
    assert {f.currency for f in facts(STATEMENT)} == {"GBP"}


def test_a_block_after_a_blank_line_goes_on_with_the_columns_above_it() -> None:
    got = described(STATEMENT)
    assert ("(96.2)", -9_620_000, "Trade payables", 2025) in got
    assert ("4,021.8", 402_180_000, "Total equity and liabilities", 2024) in got
    assert len(got) == 10


PAY_SLIP = """\
HOLLOWAY PRINT WORKS            PAY ADVICE
Pay date: 03/15/2025

EARNINGS            RATE     HOURS      CURRENT       YTD
Base               31.20     75.00     2,340.00    11,700.00
Shift premium       4.10     20.00        82.00       410.00
Gross earnings                         2,422.00    12,110.00

TAXES                                   CURRENT       YTD
Withholding                              301.15     1,505.75

NET PAY                                2,120.85    10,604.25

Deposited to checking ****2209                 $2,120.85
"""


def test_figures_in_cents_take_the_one_currency_the_document_writes() -> None:
    got = {(f.raw, f.label, f.currency) for f in facts(PAY_SLIP) if f.source == "table"}
    assert ("2,422.00", "Gross earnings", "USD") in got  # "CURRENT" beside "YTD": the period
    assert ("10,604.25", "NET PAY", "USD") in got
    assert ("31.20", "Base — RATE per hour", "USD") in got  # a rate beside its row's hours


def test_an_hours_column_is_not_money() -> None:
    raws = {f.raw for f in facts(PAY_SLIP)}
    assert "75.00" not in raws and "20.00" not in raws


def test_without_a_currency_sign_anywhere_aligned_figures_are_not_money() -> None:
    unsigned = PAY_SLIP.replace("$2,120.85", "2,120.85 paid")
    assert [f for f in facts(unsigned) if f.source == "table"] == []


def test_two_currencies_written_leave_the_figures_unread() -> None:
    mixed = PAY_SLIP + "Bonus paid abroad: €250.00\n"
    assert [f for f in facts(mixed) if f.source == "table"] == []


def test_prose_with_double_spaces_is_not_a_table() -> None:
    text = (
        "The fee is due on signing.  It was 2,500 last year.\n"
        "Payment follows within  30\n\nAll amounts in thousands of dollars.\n"
    )
    assert [f for f in facts(text) if f.source == "table"] == []


RECEIPT = """\
ITEM                                  QTY     PRICE    AMOUNT
-------------------------------------------------------------
Guttering, 5 in. seamless, per ft      84      9.50    798.00
Downspout, 3x4, 10 ft                   4     38.00    152.00
  (@ $3.80 per foot, cut to length)
-------------------------------------------------------------
SUBTOTAL                                               950.00
Loyalty discount 5% on materials                       -47.50
State sales tax 6.25%                                   56.41
TOTAL                                                  958.91
Effective tax rate 5.9%                                  5.90
"""


def test_a_sign_in_a_lines_words_leaves_a_bills_bare_columns_to_the_documents_sign() -> None:
    # the one "$" of the bill is inside a note line: its columns are still the bill's
    # figures in cents, in the document's one currency
    raws = {f.raw: f.currency for f in facts(RECEIPT) if f.source == "table"}
    assert {"798.00", "152.00", "950.00", "958.91"} <= set(raws)
    assert set(raws.values()) == {"USD"}


def test_a_row_charged_at_the_rate_its_label_states_is_an_amount() -> None:
    got = {(f.raw, f.label) for f in facts(RECEIPT) if f.source == "table"}
    assert ("56.41", "State sales tax 6.25%") in got
    assert ("-47.50", "Loyalty discount 5% on materials") in got


def test_a_label_naming_a_ratio_beside_its_rate_stays_a_ratio() -> None:
    assert "5.90" not in {f.raw for f in facts(RECEIPT)}


def test_a_sign_in_a_bills_column_still_signs_only_its_own_column() -> None:
    signed = RECEIPT.replace("    958.91", "   $958.91")
    raws = {f.raw for f in facts(signed) if f.source == "table"}
    assert "$958.91" in raws and "950.00" in raws  # the signed AMOUNT column
    assert "38.00" not in raws  # PRICE: no sign in it, none borrowed from the document


COUNTED = """\
QTY  ITEM                                 EACH      AMOUNT
-----------------------------------------------------------
 2   Kayak rental, tandem                 45.00      90.00
 1   Guided sunset paddle (per person)    65.00      65.00
-----------------------------------------------------------
     SUBTOTAL                                       155.00
     TOTAL CHARGED  VISA ****1180                   155.00
Card payments only; a $10 fee applies to refunds.
"""


def test_a_count_before_the_label_is_a_column_of_its_own_and_makes_the_rows_lines() -> None:
    got = {(f.raw, f.label, f.scope) for f in facts(COUNTED) if f.source == "table"}
    # the price each and the line's amount, both named by the item
    assert ("45.00", "Kayak rental, tandem — EACH", "own") in got
    assert ("90.00", "Kayak rental, tandem", "line_item") in got
    assert ("65.00", "Guided sunset paddle (per person)", "line_item") in got
    # the counts are no amounts
    assert not {raw for raw, _, _ in got} & {"2", "1"}


def test_a_line_number_before_a_rows_label_names_nothing() -> None:
    numbered = COUNTED.replace(" 2   Kayak", "12   Kayak")
    labels = {f.label for f in facts(numbered) if f.raw == "90.00"}
    assert labels == {"Kayak rental, tandem"}


UNSIGNED_BILL = """\
RIVERBEND APPLIANCE REPAIR                     INVOICE 5521
118 Mill Street, {town}

DESCRIPTION                          HOURS      RATE      AMOUNT
Diagnostic visit                                            89.00
Labor, dryer drum bearing             1.50     95.00      142.50
                                                       ---------
TOTAL                                                     231.50
BALANCE DUE                                               231.50
"""


def test_a_bill_with_no_sign_is_in_the_currency_of_the_country_its_address_is_in() -> None:
    us = {(f.raw, f.currency) for f in facts(UNSIGNED_BILL.format(town="Bend, OR 97701"))}
    assert {("231.50", "USD"), ("142.50", "USD"), ("89.00", "USD")} <= us
    uk = {(f.raw, f.currency) for f in facts(UNSIGNED_BILL.format(town="Leeds LS1 4DY"))}
    assert ("231.50", "GBP") in uk


def test_a_bill_with_no_sign_and_no_address_or_two_countries_has_no_amounts() -> None:
    nowhere = UNSIGNED_BILL.format(town="Riverbend")
    both = UNSIGNED_BILL.format(town="Bend, OR 97701") + "Remit to: Leeds LS1 4DY\n"
    german = UNSIGNED_BILL.format(town="50667 Köln")  # a five-digit code names no country
    for text in (nowhere, both, german):
        assert [f for f in facts(text) if f.source == "table"] == []


# An amount inside a worded cell: the row's label says what it is.

ROWS = [
    ("Set-up charge", "€18,000, payable at signing"),
    ("Renewal charge", "0.5% yearly (€6,000), added to the balance"),
]


def test_an_amount_in_a_pipe_tables_worded_cell_takes_its_rows_label() -> None:
    text = "| Term | Detail |\n|---|---|\n" + "".join(f"| {a} | {b} |\n" for a, b in ROWS)
    assert [(f.raw, f.label) for f in facts(text)] == [
        ("€18,000", "Set-up charge — Detail"),
        ("€6,000", "Renewal charge — Detail"),
    ]


def test_under_a_header_line_stating_an_amount_the_row_label_alone_names_it() -> None:
    """A two-column table of terms whose first row the loader wrote as its header line:
    every row names that amount as its column, so no key is read; the row label is."""
    head = "Loan of €1,200,000"
    text = f"Facility | {head}\n" + "".join(f"{a} — {head}: {b}\n" for a, b in ROWS)
    got = [(f.raw, f.label, f.source) for f in facts(text) if f.raw != "€1,200,000"]
    assert got == [("€18,000", "Set-up charge", "table"), ("€6,000", "Renewal charge", "table")]


def test_a_cell_listing_several_amounts_takes_no_row_label() -> None:
    head = "Loan of €1,200,000"
    text = f"Facility | {head}\nThresholds — {head}: €5,000, €20,000 or €80,000\n"
    assert all(f.label != "Thresholds" for f in facts(text))


def test_a_dash_in_prose_outside_a_table_gives_no_row_label() -> None:
    text = "Set-up charge — as agreed — is €18,000, payable at signing.\n"
    assert all(f.source != "table" for f in facts(text))


# A table under a heading naming a range of offers: each row is one of them.

OFFERS = """\
## Support tiers

| Tier | Monthly fee | Seats |
|---|---|---|
| Standard | $49 | 5 |
| Premium | $199 | 25 |
| Total of both | $248 | 30 |
"""


def test_a_row_under_a_heading_of_offers_is_named_as_the_offer() -> None:
    assert [(f.raw, f.label) for f in facts(OFFERS)] == [
        ("$49", "Standard support tier — Monthly fee"),
        ("$199", "Premium support tier — Monthly fee"),
        ("$248", "Total of both — Monthly fee"),
    ]


def test_a_heading_naming_no_offers_leaves_the_row_labels() -> None:
    text = OFFERS.replace("Support tiers", "Support charges")
    assert [f.label for f in facts(text)][:2] == ["Standard — Monthly fee", "Premium — Monthly fee"]


RATE_CARD = """\
PLAN PRICES

  Plan                      1-year plan    Monthly plan
  Standard                    $120.00        $11.99/month
  Premium                     $210.00        $19.99/month
  Hosting                     $300.00        $30 per month
"""

UNITS = st.sampled_from(["/month", "/mo", "/hr", "/week", "/yr", "/day"])


def test_a_figure_priced_by_its_unit_is_a_cell_of_its_column() -> None:
    got = {(f.raw, f.label, f.period_unit) for f in facts(RATE_CARD)}
    assert ("$11.99", "Standard — Monthly plan", "month") in got
    assert ("$19.99", "Premium — Monthly plan", "month") in got
    assert ("$30", "Hosting — Monthly plan", "month") in got
    assert ("$210.00", "Premium — 1-year plan", None) in got


@given(UNITS, st.integers(1, 999), st.integers(1, 999))
def test_a_unit_after_the_figures_changes_no_label(unit: str, first: int, second: int) -> None:
    # the same rate card with and without the unit each figure is priced by
    def card(tail: str) -> str:
        rows = [("Basic", first), ("Plus", second)]
        lines = [f"  {'Plan':<14}  {'Price':>14}"]  # the header over its column
        lines += [f"  {name:<14}  {f'${value}.00{tail}':>14}" for name, value in rows]
        return "RATES\n\n" + "\n".join(lines) + "\n"

    bare = [(f.raw, f.label) for f in facts(card("")) if f.source == "table"]
    rated = [(f.raw, f.label) for f in facts(card(unit)) if f.source == "table"]
    assert len(bare) == 2 and rated == bare
