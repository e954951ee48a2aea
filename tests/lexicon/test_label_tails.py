"""What may end a label and names nothing it measures: a dashed period ("Monthly fee -
June"), an adverb of time ("Storage thereafter"); and a total named with what its figures
are ("Total quoted charges"), which is the document's total. Unit cases, and properties
over generated names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_keys import SIMPLE

from osrag.lexicon.keys import COLUMN_JOIN, asked_keys, label_keys, without_dated_tail
from osrag.lexicon.label_roles import STATED_TOTAL_WORDS, TIME_ADVERBS, TOTALLED_HEADS
from osrag.lexicon.periods import MONTHS


def assert_keys(label: str, keys: set[str], not_keys: set[str]) -> None:
    """``label`` carries every key of ``keys`` and none of ``not_keys``."""
    carried = set(label_keys(label))
    assert keys <= carried
    assert not (not_keys & carried)


PERIODS = st.one_of(
    st.sampled_from(sorted(MONTHS)).map(str.capitalize),
    st.builds(lambda m, y: f"{m.capitalize()} {y}", st.sampled_from(sorted(MONTHS)),
              st.integers(1990, 2035)),
    st.integers(1990, 2035).map(str),
)  # fmt: skip


@given(SIMPLE, st.sampled_from([" - ", " – "]), PERIODS)
def test_a_dashed_period_after_a_name_changes_no_key(name: str, dash: str, period: str) -> None:
    assert label_keys(f"{name}{dash}{period}") == label_keys(name)


@given(SIMPLE, st.sampled_from(sorted(TIME_ADVERBS)))
def test_an_adverb_of_time_after_a_name_changes_no_key(name: str, adverb: str) -> None:
    assert label_keys(f"{name} {adverb}") == label_keys(name)


@given(st.lists(st.sampled_from(sorted(STATED_TOTAL_WORDS)), min_size=1, max_size=2),
       st.sampled_from(sorted(TOTALLED_HEADS)))  # fmt: skip
def test_a_total_named_with_what_its_figures_are_is_a_total(words: list[str], head: str) -> None:
    label = f"Total {' '.join(words)} {head}s"
    assert "total" in label_keys(label)
    assert set(asked_keys("total")) & set(label_keys(label))


@pytest.mark.parametrize(
    ("label", "keys"),
    [
        ("Monthly tuition - September (Grade 3)", ("monthly tuition", "tuition")),
        ("Parking – March 2025", ("parking",)),
        ("Demurrage thereafter", ("demurrage",)),
        ("Total quoted charges", ("total quoted charge", "quoted charge", "charge", "total")),
        # a total named with the verb of its charging is the receipt's total
        ("Total charged", ("total charged", "charged", "total")),
        ("Total billed", ("total billed", "billed", "total")),
        # a charge's floor named alone is the minimum a question asks ("a $100 shop minimum")
        ("Minimum charge", ("minimum charge", "minimum")),
        ("Minimum fee", ("minimum fee", "minimum")),
    ],
)
def test_the_forms_written_out(label: str, keys: tuple[str, ...]) -> None:
    assert label_keys(label) == keys


@pytest.mark.parametrize(
    ("label", "absent"),
    [
        ("Housing – double room", "housing"),  # a dashed part that is no period stays
        ("Total freight charges", "total"),  # a total of one kind of charge: not the total
        ("Total charges", "total"),
        ("Total paid", "total"),  # on a statement, the payments
        ("Total billed by provider", "total"),  # what another party billed
        ("Total due", "total"),  # after a deposit, the balance
        ("Minimum order", "minimum"),  # a floor of the order, not of a charge
    ],
)
def test_what_stays_a_word_of_the_name(label: str, absent: str) -> None:
    keys = label_keys(label)
    assert keys and absent not in keys


def test_an_adverb_alone_is_still_the_labels_one_word() -> None:
    assert label_keys("Thereafter") == ("thereafter",)


def test_the_dashed_tail_goes_only_when_it_is_a_period() -> None:
    assert without_dated_tail("Rent - June 2024") == "Rent"
    assert without_dated_tail("Rent - Unit 4") == "Rent - Unit 4"
    assert without_dated_tail("Year-end bonus") == "Year-end bonus"


@given(st.sampled_from(["Total", "Totals", "Grand total", "TOTAL"]), SIMPLE)
def test_a_total_rows_cell_under_a_named_column_is_that_columns_total(
    row: str, column: str
) -> None:
    keys = label_keys(f"{row}{COLUMN_JOIN}{column}")
    assert "total" not in keys  # "Totals — Deductible" is the total deductible, no total
    assert set(label_keys(column)) <= set(keys)


@pytest.mark.parametrize("column", ["Amount", "Total amount", "Values"])
def test_a_total_rows_cell_under_a_blank_column_is_the_total(column: str) -> None:
    assert "total" in label_keys(f"Total{COLUMN_JOIN}{column}")


DATES = st.one_of(
    st.builds(lambda d, m, y: f"{d} {m.capitalize()} {y}", st.integers(1, 28),
              st.sampled_from(sorted(MONTHS)), st.integers(1990, 2035)),
    st.builds(lambda m, d, y: f"{m.capitalize()} {d}, {y}", st.sampled_from(sorted(MONTHS)),
              st.integers(1, 28), st.integers(1990, 2035)),
    st.builds(lambda d, m, y: f"{d:02d}/{m:02d}/{y}", st.integers(1, 28), st.integers(1, 12),
              st.integers(1990, 2035)),
)  # fmt: skip
DATE_LEADS = st.sampled_from(
    ["", "paid ", "received ", "due by ", "on ", "at ", "as of ", "paid on "]
)


@given(SIMPLE, DATE_LEADS, DATES)
def test_a_date_after_a_name_changes_no_key(name: str, lead: str, date: str) -> None:
    # a "due" stays: the figure falls due on that date, and "X due by …" is "X due"
    said = f"{name} due" if lead.startswith("due") else name
    assert label_keys(f"{name} {lead}{date}") == label_keys(said)


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("Royalties earned this period", "Royalties earned"),
        ("Gross pay this period", "Gross pay"),
        ("Interest charged this month", "Interest charged"),
        ("Fees billed current period", "Fees billed"),
        ("Deposit paid 2 October 2026", "Deposit"),
        ("Deposit received 09/02/2026", "Deposit"),
        ("BALANCE DUE BY 23 APRIL 2027", "BALANCE DUE"),
        ("Balance due by November 11, 2024", "Balance due"),
        ("Total due by 01/15/2025", "Total due"),
    ],
)
def test_the_statements_own_period_or_a_date_is_no_word_of_the_keys(label: str, name: str) -> None:
    assert label_keys(label) == label_keys(name)
    assert not {"period", "this period", "2026", "2027"} & set(label_keys(label))


@pytest.mark.parametrize("label", ["Payment received", "Balance due", "Period 3 fee"])
def test_a_participle_or_a_period_word_without_a_date_stays(label: str) -> None:
    assert label.lower() in label_keys(label)


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("Total pledges in 2025", "Total pledges"),
        ("Membership fees during the year", "Membership fees"),
        ("Interest paid for the tax year", "Interest paid"),
        ("Contributions in the calendar year", "Contributions"),
    ],
)
def test_the_year_a_figure_sums_is_no_word_of_the_keys(label: str, name: str) -> None:
    assert label_keys(label) == label_keys(name)


@pytest.mark.parametrize(
    ("label", "key"),
    [
        ("AMOUNT DUE BY 14 MARCH 2027", "amount due"),
        ("Total due on 06/30/2026", "total due"),
        ("Amount received 3 February 2026", "amount received"),
    ],
)
def test_a_participle_after_a_figure_word_names_the_figure_before_its_date(
    label: str, key: str
) -> None:
    assert key in label_keys(label)
    assert not {"amount", "total", "2026", "2027"} & set(label_keys(label))


@pytest.mark.parametrize(
    ("label", "cover"),
    [("Spoiled food reimbursement", "spoiled food"), ("Hotel stay reimbursement", "hotel stay")],
)
def test_a_reimbursement_is_the_cover_of_what_it_pays_back(label: str, cover: str) -> None:
    assert cover in label_keys(label)


@pytest.mark.parametrize(
    ("label", "keys"),
    [
        ("Deposit paid on booking", {"deposit"}),
        ("Retainer paid at signing (50%)", {"retainer"}),
        ("Balance payable on completion", {"balance"}),
        ("Fee at check-out", {"fee"}),
        ("Instalment due upon delivery", {"instalment", "instalment due"}),
        ("Amount due on arrival", {"amount due"}),
        ("Balance due on the fitting day", {"balance", "balance due"}),
        ("Second instalment due on the day of the move", {"second instalment"}),
        ("Balance payable on the wedding day", {"balance"}),
    ],
)
def test_the_moment_of_payment_that_ends_a_label_names_nothing_it_measures(
    label: str, keys: set[str]
) -> None:
    assert keys <= set(label_keys(label))
    assert not any(
        word in k for k in label_keys(label) for word in ("booking", "signing", "day", "fitting")
    )


@given(SIMPLE, st.sampled_from(["paid on booking", "due at pick-up", "payable on collection"]))
def test_a_moment_of_payment_after_a_name_keeps_the_names_keys(name: str, tail: str) -> None:
    assert set(label_keys(name)) <= set(label_keys(f"{name} {tail}"))


@pytest.mark.parametrize(
    ("label", "key"),
    [
        ("VAT on parts and labour", "vat"),
        ("VAT @ 20% on materials", "vat"),
        ("Sales tax on rentals", "sale tax"),
        ("Discount on the second room", "discount"),
        ("Commission on sales", "commission"),
    ],
)
def test_the_base_a_levy_is_taken_on_leaves_the_levy(label: str, key: str) -> None:
    assert key in label_keys(label)


@pytest.mark.parametrize("label", ["Net losses on disposals of assets", "Gain on sale of land"])
def test_any_other_on_makes_another_line(label: str) -> None:
    head = label.split()[1] if label.startswith("Net") else label.split()[0]
    assert head.lower() not in label_keys(label)


@pytest.mark.parametrize(
    ("label", "keys", "not_keys"),
    [
        ("Balance due", {"balance", "balance due"}, set()),
        ("Rent due", {"rent", "rent due"}, set()),
        ("Amount due", {"amount due"}, {"amount"}),
        ("Total due", {"total due"}, {"total"}),
        ("Amounts due from customers", {"amount due from customer"}, {"amount"}),
        ("Less amounts not currently due", set(), {"currently", "not currently"}),
    ],
)
def test_a_due_that_ends_a_name_leaves_what_it_measures(
    label: str, keys: set[str], not_keys: set[str]
) -> None:
    assert_keys(label, keys, not_keys)


@pytest.mark.parametrize(
    ("label", "keys", "not_keys"),
    [
        # what an item comes with leaves the item
        ("Gutter guard with end caps", {"gutter guard", "gutter guard with end cap"}, set()),
        ("Deluxe kennel with heated floor — Per night", {"deluxe kennel", "kennel"}, set()),
        # a participle's "with" keeps the whole name
        ("Costs associated with the relocation", set(), {"cost associated", "associated"}),
        ("Amounts settled with suppliers", set(), {"amount settled"}),
    ],
)
def test_a_with_naming_what_an_item_comes_with_leaves_the_item(
    label: str, keys: set[str], not_keys: set[str]
) -> None:
    assert_keys(label, keys, not_keys)


@pytest.mark.parametrize(
    ("label", "keys", "not_keys"),
    [
        ("Deposit to reserve the venue", {"deposit", "deposit to reserve the venue"}, set()),
        ("Retainer to secure the week, non-refundable", {"retainer"}, set()),
        ("Holding fee to book the hall", {"holding fee", "fee"}, set()),
        # a "to" before anything else keeps the whole name
        ("Payments to suppliers", set(), {"payment"}),
        ("Adjustment to the purchase price", set(), {"adjustment"}),
    ],
)
def test_a_payment_to_hold_a_booking_leaves_the_payment(
    label: str, keys: set[str], not_keys: set[str]
) -> None:
    assert_keys(label, keys, not_keys)
