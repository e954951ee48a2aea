"""The parts facts are made of: label cleaning, periods, the loss words of the sign policy,
the row labels that need their group."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract.facts.labels import clean_label, is_dependent
from osrag.extract.facts.periods import split_period
from osrag.lexicon.periods import is_period_words, period_of
from osrag.lexicon.signs import names_loss, signed_value

CLEAN = [
    ("**Deductible:**", "Deductible"),
    ("- Deductible:", "Deductible"),
    ("Annual premium ..........", "Annual premium"),
    ("Revenue (£m)", "Revenue"),
    ("Revenue (in millions)", "Revenue"),
    ("Revenue ($ in millions)", "Revenue"),
    ("Target ($)", "Target"),
    ("Margin (%)", "Margin"),
    ("Revenue £m", "Revenue"),
    ("Net income - (in thousands)", "Net income"),
    ("Operating leases (1)", "Operating leases"),
    ("Order intake1", "Order intake"),
    ("Cost of sales*", "Cost of sales"),
    ("Adjusted EBITDA¹", "Adjusted EBITDA"),
    ("  Each   occurrence limit ", "Each occurrence limit"),
    ("“Deductible”", "Deductible"),
    ("Net income (loss)", "Net income (loss)"),
    ("Tier 1 capital", "Tier 1 capital"),
    ("Net sales (Note 4)", "Net sales (Note 4)"),
    ("Net fee", "Net fee"),
]


@pytest.mark.parametrize(("written", "label"), CLEAN)
def test_labels_are_cleaned_and_nothing_else(written: str, label: str) -> None:
    assert clean_label(written) == label


@pytest.mark.parametrize("written", ["$", "2019", "(in millions)", "£m", "(1)", "  ", "%"])
def test_a_label_of_no_words_is_no_label(written: str) -> None:
    assert clean_label(written) is None


def _subsequence(short: str, long: str) -> bool:
    chars = iter(long)
    return all(ch in chars for ch in short)


@given(st.text(max_size=60))
def test_cleaning_is_idempotent_and_only_removes(text: str) -> None:
    once = clean_label(text)
    if once is not None:
        assert clean_label(once) == once
        assert _subsequence("".join(once.split()), "".join(text.split()))


PERIODS = [
    ("2019", ("2019", 2019)),
    ("2 0 1 8", ("2 0 1 8", 2018)),
    ("FY19", ("FY19", 2019)),
    ("FY 2019", ("FY 2019", 2019)),
    ("Fiscal Year 2018", ("Fiscal Year 2018", 2018)),
    ("2019/20", ("2019/20", 2019)),
    ("3Q19", ("3Q19", 2019)),
    ("Q3 FY19", ("Q3 FY19", 2019)),
    ("H1 2019", ("H1 2019", 2019)),
    ("Dec. 31, 2019", ("Dec. 31, 2019", 2019)),
    ("31-Dec-2019", ("31-Dec-2019", 2019)),
    ("December31, 2019", ("December31, 2019", 2019)),
    ("Three months ended March 31, 2019", ("Three months ended March 31, 2019", 2019)),
    ("As at 31 March 2019", ("As at 31 March 2019", 2019)),
    ("Balance at January 31, 2019", ("Balance at January 31, 2019", 2019)),
    ("2018 $’000 RESTATED3", ("2018", 2018)),
    ("2019 €m", ("2019", 2019)),
    ("2018 (4)", ("2018", 2018)),
]


@pytest.mark.parametrize(("header", "period"), PERIODS)
def test_periods_as_filings_write_them(header: str, period: tuple[str, int]) -> None:
    assert period_of(header) == period


@pytest.mark.parametrize(
    "header",
    ["2019 vs 2018", "2019 and 2018", "Fiscal 2018 Plan", "September 30,", "Net Sales", "1,234"],
)
def test_what_is_not_one_period(header: str) -> None:
    assert period_of(header) is None


@pytest.mark.parametrize(
    "header", ["Years Ended December 31,", "Fiscal", "As of", "Fiscal Year Ended", "September 30,"]
)
def test_period_words_without_a_year(header: str) -> None:
    assert is_period_words(header)
    assert not is_period_words("Net Sales")


def test_a_period_among_words_is_split_from_them() -> None:
    assert split_period("Estimated at June 30, 2019") == (("June 30, 2019", 2019), "Estimated")
    assert split_period("Fiscal 2019 Net Sales") == (("Fiscal 2019", 2019), "Net Sales")
    assert split_period("2019 vs. 2018") == (None, "2019 vs. 2018")


LOSS = {
    "Net loss": True,
    "Operating loss": True,
    "Loss before income taxes": True,
    "Impairment losses": True,
    "Loss on extinguishment of debt": True,
    "Foreign exchange losses": True,
    "net loss": True,
    "Accumulated deficit": True,
    "Net income (loss)": False,
    "Net (loss) income": False,
    "Profit/(loss)": False,
    "Gain (loss) on sale": False,
    "Gains and losses": False,
    "Income or loss from operations": False,
    "Net operating loss carryforwards": False,
    "Loss reserves": False,
    "Loss ratio": False,
    "Allowance for credit losses": False,
    "Provision for loan losses": False,
    "Loss from operations": True,
    "Net loss per share": True,
    "Net loss attributable to common stockholders": True,
    "Loss of use": False,
    "D — Loss of use — Essential": False,
    "Loss of income": False,
    "Loss assessment": False,
    "Loss payee": False,
    "Stop loss": False,
    "Stop-loss limit": False,
    "Loss adjustment expenses": False,
    "Losses and loss adjustment expenses": False,
    "Loss given default": False,
    "Net income": False,
    "Revenue": False,
    None: False,
}


@pytest.mark.parametrize(("label", "loss"), LOSS.items())
def test_which_labels_name_a_loss(label: str | None, loss: bool) -> None:
    assert names_loss(label) is loss


@given(
    st.integers(min_value=0, max_value=2**62),
    st.booleans(),
    st.sampled_from(sorted(k for k in LOSS if k)),
)
def test_a_value_is_negated_at_most_once(magnitude: int, negative: bool, label: str) -> None:
    value = signed_value(magnitude, negative, label)
    assert abs(value) == magnitude
    assert (value < 0) == (magnitude > 0 and (negative or LOSS[label]))


@pytest.mark.parametrize(
    ("label", "dependent"),
    [
        ("Total", True),
        ("Basic", True),
        ("Diluted", True),
        ("Federal", True),
        ("United States", True),
        ("Granted", True),
        ("Balance at beginning of year", True),
        ("Outstanding at December 31, 2019", True),
        ("Net sales", False),
        ("Research and development", False),
        ("Inventory", False),
        ("Assumed conversion of options", False),
    ],
)
def test_which_row_labels_need_their_group(label: str, dependent: bool) -> None:
    assert is_dependent(label) is dependent
