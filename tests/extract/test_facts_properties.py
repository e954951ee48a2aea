"""Property tests of amount facts: a table or a sentence generated from parts — phrasing,
label, currency, sign, period, table shape — must give back exactly the fact it was made
of (label, value with its sign, currency, period, year).

Each label is tagged by hand with what the sign policy makes of it (``loss``: a positively
written figure is stored negative), so the expectation never comes from the code under
test."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from test_facts_tables import SHAPES, facts

# label as written → (label as stored, names a loss)
TABLE_LABELS = {
    "Revenue": ("Revenue", False),
    "Net sales": ("Net sales", False),
    "Cost of goods sold": ("Cost of goods sold", False),
    "Operating income": ("Operating income", False),
    "Net income (loss)": ("Net income (loss)", False),
    "Net loss": ("Net loss", True),
    "Operating loss": ("Operating loss", True),
    "Loss before income taxes": ("Loss before income taxes", True),
    "Impairment losses": ("Impairment losses", True),
    "Net operating loss carryforwards": ("Net operating loss carryforwards", False),
    "Allowance for credit losses": ("Allowance for credit losses", False),
    "Loss from operations": ("Loss from operations", True),
    "Loss of use": ("Loss of use", False),
    "Loss assessment": ("Loss assessment", False),
    "Loss payee": ("Loss payee", False),
    "Stop loss": ("Stop loss", False),
    "Loss adjustment expenses": ("Loss adjustment expenses", False),
    "Trade receivables (1)": ("Trade receivables", False),
    "Accrued liabilities*": ("Accrued liabilities", False),
    "Goodwill:": ("Goodwill", False),
    "Property, plant and equipment, net": ("Property, plant and equipment, net", False),
    "Cash and cash equivalents": ("Cash and cash equivalents", False),
    "Deferred revenue — current": ("Deferred revenue — current", False),
}
# a header as written → (period as stored, year); QUARTERS: the part of a year it names,
# the fact's period part (a quarter's figure is not the year's); every other is "full"
QUARTERS = {"Q4 2019": "q4", "Three months ended March 31, 2019": "part"}
PERIODS = {
    "2019": ("2019", 2019),
    "Fiscal 2019": ("Fiscal 2019", 2019),
    "December 31, 2019": ("December 31, 2019", 2019),
    "31 December 2019": ("31 December 2019", 2019),
    "FY2019": ("FY2019", 2019),
    "FY19": ("FY19", 2019),
    "2019 (1)": ("2019", 2019),
    "2019*": ("2019", 2019),
    "Q4 2019": ("Q4 2019", 2019),
    "Three months ended March 31, 2019": ("Three months ended March 31, 2019", 2019),
    "Year ended June 30, 2019": ("Year ended June 30, 2019", 2019),
    "2018": ("2018", 2018),
    "Fiscal 2018": ("Fiscal 2018", 2018),
    "December 31, 2018": ("December 31, 2018", 2018),
    "30 June 2018": ("30 June 2018", 2018),
}
# how the table states its unit → (currency, power of ten); the cells are bare
UNITS = {
    "($ in millions)": ("USD", 6),
    "(in thousands of U.S. dollars)": ("USD", 3),
    "(€ in millions)": ("EUR", 6),
    "£m": ("GBP", 6),
    "$'000": ("USD", 3),
    "(in millions of euros)": ("EUR", 6),
}

figures = st.decimals(min_value=Decimal("0.1"), max_value=Decimal("99999.9"), places=1)


def _written(value: Decimal, form: str) -> str:
    text = f"{value:,.1f}"
    return {"plain": text, "parentheses": f"({text})", "minus": f"-{text}"}[form]


@settings(max_examples=150, deadline=None)
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    unit=st.sampled_from(sorted(UNITS)),
    headers=st.lists(
        st.sampled_from(sorted(PERIODS)),
        min_size=1,
        max_size=3,
        unique_by=lambda h: PERIODS[h][1] * 100 + len(PERIODS[h][0]),
    ),
    labels=st.lists(st.sampled_from(sorted(TABLE_LABELS)), min_size=1, max_size=4, unique=True),
    data=st.data(),
)
def test_a_generated_table_gives_back_every_cell_as_generated(
    shape: str, unit: str, headers: list[str], labels: list[str], data: st.DataObject
) -> None:
    currency, power = UNITS[unit]
    expected = []
    rows = [[unit, *headers]]
    for label in labels:
        stored, loss = TABLE_LABELS[label]
        row = [label]
        for header in headers:
            value = data.draw(figures)
            form = data.draw(st.sampled_from(["plain", "parentheses", "minus"]))
            row.append(_written(value, form))
            magnitude = int(value.scaleb(power + 2))
            negative = form != "plain" or loss
            period, year = PERIODS[header]
            part = QUARTERS.get(header, "full")
            value_as_stored = -magnitude if negative else magnitude
            expected.append((stored, value_as_stored, currency, period, year, part))
        rows.append(row)
    got = facts(SHAPES[shape](rows))
    found = [(f.label, f.value, f.currency, f.period, f.year, f.period_part) for f in got]
    assert found == expected
    assert all(f.source == "table" for f in got)


# prose: label (as it reads in a sentence) → names a loss
PROSE_LABELS = {
    "revenue": False,
    "net revenue": False,
    "total revenues": False,
    "operating income": False,
    "net loss": True,
    "operating loss": True,
    "deductible": False,
    "annual premium": False,
    "limit of liability": False,
    "gross margin": False,
    "free cash flow": False,
}
PHRASINGS = [
    "The {label} was {amount} in {year}.",
    "Our {label} for fiscal {year} was {amount}.",
    "We reported a {label} of {amount} in {year}.",
    "In {year}, {label} totaled {amount}.",
    "{Label} rose to {amount} in {year}.",
    "{Label} amounted to {amount} for the year ended December 31, {year}.",
    "- {Label}: {amount}",
    "{Label}: {amount} ({year})",
    "{Label} ..... {amount}",
]
CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP", "USD ": "USD", "EUR ": "EUR"}


@settings(max_examples=200, deadline=None)
@given(
    phrasing=st.sampled_from(PHRASINGS),
    label=st.sampled_from(sorted(PROSE_LABELS)),
    sign=st.sampled_from(sorted(CURRENCIES)),
    whole=st.integers(min_value=1, max_value=999),
    scale=st.sampled_from([("", 0), (" million", 6), (" billion", 9)]),
    negative=st.booleans(),
    year=st.integers(min_value=1995, max_value=2030),
)
def test_a_generated_sentence_gives_back_its_amount_as_generated(
    phrasing: str,
    label: str,
    sign: str,
    whole: int,
    scale: tuple[str, int],
    negative: bool,
    year: int,
) -> None:
    word, power = scale
    figures_text = f"({whole:,})" if negative and sign in ("$", "€", "£") else f"{whole:,}"
    amount = f"{sign}{figures_text}{word}"
    text = phrasing.format(
        label=label, Label=label[:1].upper() + label[1:], amount=amount, year=year
    )
    (fact,) = facts(text + "\n")
    magnitude = whole * 10 ** (power + 2)
    written_negative = negative and sign in ("$", "€", "£")
    expect_negative = written_negative or PROSE_LABELS[label]
    assert fact.label is not None and fact.label.lower() == label
    assert (fact.value, fact.currency) == (
        -magnitude if expect_negative else magnitude,
        CURRENCIES[sign],
    )
    if "{year}" in phrasing:
        assert fact.year == year
    else:
        assert fact.year is None
    assert fact.source == (
        "key" if phrasing.startswith(("-", "{Label}:", "{Label} .")) else "prose"
    )
