"""Money → (currency, integer minor units): formats, non-money, exactness, policies."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from osrag.errors import ExtractionError
from osrag.extract.money import (
    LONG_MAX,
    Money,
    canonicalize_money,
    extract_money,
    parse_money,
    scan_money,
)


def usd(minor: int) -> Money:
    return Money(currency="USD", minor_units=minor)


# --------------------------------------------------------------------------- formats

SUPPORTED = [
    ("$300,000", "USD", 30_000_000),
    ("$300,000.00", "USD", 30_000_000),
    ("$1,000.50", "USD", 100_050),
    ("$ 300,000", "USD", 30_000_000),
    ("$300K", "USD", 30_000_000),
    ("$300k", "USD", 30_000_000),
    ("$0.3M", "USD", 30_000_000),
    ("$3M", "USD", 300_000_000),
    ("$2.5 million", "USD", 250_000_000),
    ("$300 million", "USD", 30_000_000_000),
    ("$1.2 billion", "USD", 120_000_000_000),
    ("$1.2bn", "USD", 120_000_000_000),
    ("$10MM", "USD", 1_000_000_000),
    ("$9million", "USD", 900_000_000),
    ("$14.575 Million", "USD", 1_457_500_000),
    ("USD 300,000", "USD", 30_000_000),
    ("USD300,000", "USD", 30_000_000),
    ("US$300,000", "USD", 30_000_000),
    ("U.S.$5", "USD", 500),
    ("300,000 dollars", "USD", 30_000_000),
    ("100 Dollars", "USD", 10_000),
    ("5 U.S. dollars", "USD", 500),
    ("$100 million dollars", "USD", 10_000_000_000),
    ("$5,000,000 USD", "USD", 500_000_000),
    ("$35,000.00USD", "USD", 3_500_000),
    ("€300,000", "EUR", 30_000_000),
    ("EUR 300,000", "EUR", 30_000_000),
    ("10 euros", "EUR", 1_000),
    ("£1,500", "GBP", 150_000),
    ("500 pounds sterling", "GBP", 50_000),
    ("¥30,000,000", "JPY", 30_000_000),
    ("RMB20,000", "CNY", 2_000_000),
    ("USD 2'500'000", "USD", 250_000_000),
    ("CHF 1'234.50", "CHF", 123_450),
    ("300.000 €", "EUR", 30_000_000),
    ("300.000,00 €", "EUR", 30_000_000),
    ("EUR 1.500.000", "EUR", 150_000_000),
    ("€1.500,50", "EUR", 150_050),
    ("300,50 €", "EUR", 30_050),
    ("300\u00a0000 €", "EUR", 30_000_000),
    ("4 005,60 €", "EUR", 400_560),
    ("12 345 678,90 €", "EUR", 1_234_567_890),
    ("3 338,00 EUR", "EUR", 333_800),
    ("12 345,90 SEK", "SEK", 1_234_590),
    ("1 150,00 euros", "EUR", 115_000),
    ("$5,000 CAD", "CAD", 500_000),
    ("$.50", "USD", 50),
    ("KWD 1.250", "KWD", 1_250),
    ("Fifty Thousand Dollars ($50,000)", "USD", 5_000_000),
    ("Four Hundred Eighty Thousand and 00/100 Dollars ($480,000.00)", "USD", 48_000_000),
    ("Five Million and No/100 Dollars ($5,000,000.00)", "USD", 500_000_000),
    ("$10,000USD (Ten Thousand Dollars)", "USD", 1_000_000),
    ("RMB20,000 (RMB TWENTY THOUSAND)", "CNY", 2_000_000),
    ("thirty million Japanese Yen (¥30,000,000)", "JPY", 30_000_000),
    ("nineteen million six hundred and forty four thousand Dollars US", "USD", 1_964_400_000),
    ("one dollar", "USD", 100),
    ("€5,2 Mio", "EUR", 520_000_000),
    ("EUR 1,5 Mrd", "EUR", 150_000_000_000),
    ("CHF 3 Mia", "CHF", 300_000_000_000),
    ("Rs. 5 lakh", "INR", 50_000_000),
    ("Rs 2.5 lakhs", "INR", 25_000_000),
    ("₹2 crore", "INR", 2_000_000_000),
    ("INR 1,200 crores", "INR", 1_200_000_000_000),
    ("Rs 3 lakh crore", "INR", 300_000_000_000_000),
    ("Rs.5,00,000", "INR", 50_000_000),
    ("₹12,34,567.50", "INR", 123_456_750),
    ("1,00,000 INR", "INR", 10_000_000),
    ("$5-million", "USD", 500_000_000),
    ("$2 millions", "USD", 200_000_000),
    ("€3 billions", "EUR", 300_000_000_000),
]


@pytest.mark.parametrize(("text", "currency", "minor"), SUPPORTED)
def test_supported_formats_parse_to_exact_minor_units(text: str, currency: str, minor: int) -> None:
    assert parse_money(text) == Money(currency=currency, minor_units=minor)
    [mention] = extract_money(f"The limit is {text}; see above.")
    assert (mention.currency, mention.minor_units, mention.raw) == (currency, minor, text)


NOT_MONEY = [
    "300000",
    "300,000",
    "300,000 miles",
    "UMB-300000",
    "UMB-300000 dollars",
    "15%",
    "$15%",
    "15 percent",
    "in 2024",
    "the 2020 budget",
    "in 2020 dollars",
    "call (555) 300-0000",
    "call 555-300-0000",
    "Section 3.2",
    "Section 12.4.1",
    "ten (10) days",
    "five pounds of flour",
    "$[*****]",
    "$[●]",
    "$ [***]",
    "US$***",
    "$[**]per unit",
    "[**] Dollars ($[**])",
    "$________",
    "$5OO,000",
    "$1,O00,000",
    "X$5",
    "AUSD 5",
    "500USD",
    "%20SGD",
    "rate SGD.-,getSimpleSGD",
    "version 2.19.6",
    "awk '{print $1}'",
    "`$1`",
    "'$2/$1/'",
    "a million reasons",
    "dollar for dollar",
    "in US Dollars",
    "Mrs 5",
    "HRs 40",
    "the Mio 5",
    "5 Mio",
]


@pytest.mark.parametrize("text", NOT_MONEY)
def test_tricky_non_money_strings_give_nothing(text: str) -> None:
    scan = scan_money(text)
    assert scan.mentions == []
    assert parse_money(text) is None


def test_a_dollar_sign_before_a_redaction_is_never_an_amount() -> None:
    text = "a fee of $[*****] and $ [***] per unit, capped at $[●] or US$*** in total"
    assert extract_money(text) == []


def test_mention_raw_is_the_source_slice() -> None:
    text = "Pay -$500 now, then Fifty Thousand Dollars ($50,000), then €1.500,00."
    for mention in extract_money(text):
        assert text[mention.start : mention.end] == mention.raw


# --------------------------------------------------------------------------- exactness


def test_scaled_decimals_are_exact_not_float() -> None:
    assert parse_money("$0.3M") == usd(30_000_000)
    assert parse_money("$1.1M") == usd(110_000_000)
    assert parse_money("$4.35") == usd(435)
    assert 4.35 * 100 != 435  # what float arithmetic would store (434.99999999999994)
    assert parse_money("$1.15K") == usd(115_000)
    assert parse_money("$0.07") == usd(7)


def test_the_largest_long_is_accepted_and_one_more_cent_is_refused() -> None:
    assert parse_money("$92,233,720,368,547,758.07") == usd(LONG_MAX)
    with pytest.raises(ExtractionError, match=r"92,233,720,368,547,758\.08.*long"):
        parse_money("$92,233,720,368,547,758.08")


def test_an_amount_beyond_a_long_is_reported_never_wrapped() -> None:
    text = "a cap of $100,000,000,000,000,000 and then $5"
    scan = scan_money(text)
    assert [m.raw for m in scan.mentions] == ["$5"]
    [rejected] = scan.rejected
    assert rejected.raw == "$100,000,000,000,000,000"
    assert "long" in rejected.reason
    assert parse_money("$10 trillion") == usd(10**15)
    with pytest.raises(ExtractionError, match="beyond a long"):
        parse_money("$10,000,000 trillion")
    with pytest.raises(ExtractionError):
        parse_money("$" + "9" * 40)


def test_a_fraction_of_a_minor_unit_is_refused_not_rounded() -> None:
    with pytest.raises(ExtractionError, match="minor units"):
        parse_money("$0.0025")
    assert parse_money("¥1") == Money(currency="JPY", minor_units=1)
    with pytest.raises(ExtractionError):
        parse_money("¥1.5")


@pytest.mark.parametrize(
    ("text", "currency", "minor"),
    [("$1", "USD", 100), ("¥1", "JPY", 1), ("KWD 1", "KWD", 1000), ("£1", "GBP", 100)],
)
def test_minor_units_follow_the_currency(text: str, currency: str, minor: int) -> None:
    assert parse_money(text) == Money(currency=currency, minor_units=minor)


# --------------------------------------------------------------------------- policies


def test_a_lone_dot_group_is_grouping_only_when_the_currency_follows() -> None:
    assert parse_money("300.000 €") == Money(currency="EUR", minor_units=30_000_000)
    assert parse_money("$14.575 million") == usd(1_457_500_000)
    for ambiguous in ("$1.500", "€300.000"):
        with pytest.raises(ExtractionError, match="ambiguous"):
            parse_money(ambiguous)


def test_a_space_groups_figures_only_before_a_decimal_comma() -> None:
    """``4 005,60 €`` and ``€ 4 005,60`` are one amount each (the way French, Nordic and
    many European invoices are typed), never ``005,60 €`` or ``€ 4``. Without the decimal
    comma (``4 005 €``) a count before a price reads the same, so nothing is read."""
    (mention,) = extract_money("Total TTC | 4 005,60 €")
    assert (mention.raw, mention.minor_units) == ("4 005,60 €", 400_560)
    (mention,) = extract_money("Total: € 4 005,60")
    assert (mention.raw, mention.minor_units) == ("€ 4 005,60", 400_560)
    assert extract_money("Total: 4 005 €") == []
    assert [m.raw for m in extract_money("Canapé   1   1 150,00 €   1 150,00 €")] == [
        "1 150,00 €",
        "1 150,00 €",
    ]


def test_a_comma_with_three_digits_is_always_grouping() -> None:
    assert parse_money("$1,500") == usd(150_000)
    assert parse_money("1,500 €") == Money(currency="EUR", minor_units=150_000)


def test_a_leading_minus_flags_the_mention_and_keeps_the_magnitude() -> None:
    for text in ("-$500", "$-500", "−$500"):
        [mention] = extract_money(text)
        assert (mention.minor_units, mention.negative, mention.raw) == (50_000, True, text)
        assert parse_money(text) == usd(50_000)  # so a query for $500 matches it


@pytest.mark.parametrize(
    ("text", "raw", "minor"),
    [
        ("a net loss of $(1.2) million", "$(1.2) million", 120_000_000),
        ("a loss of ($3.1) million in 2019", "($3.1) million", 310_000_000),
        ("EPS of $(0.02)", "$(0.02)", 2),
        ("income of $ (3.1) million", "$ (3.1) million", 310_000_000),
        ("US$(500) net", "US$(500)", 50_000),
    ],
)
def test_the_accountants_parentheses_in_prose_are_a_negative_amount(
    text: str, raw: str, minor: int
) -> None:
    [mention] = extract_money(text)
    assert (mention.raw, mention.minor_units, mention.negative) == (raw, minor, True)


def test_a_parenthesis_that_does_not_wrap_the_figures_is_not_read_as_a_sign() -> None:
    assert extract_money("see $(VAR) in the shell") == []
    assert [m.raw for m in extract_money("x $3.1) million")] == []


def test_parentheses_restate_an_amount_they_do_not_negate_it() -> None:
    [mention] = extract_money("a deductible of ($500) per claim")
    assert (mention.minor_units, mention.negative) == (50_000, False)


def test_a_dash_between_two_amounts_is_a_range_not_a_sign() -> None:
    mentions = extract_money("$100 - $200")
    assert [(m.minor_units, m.negative) for m in mentions] == [(10_000, False), (20_000, False)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$100,000–$300,000", [10_000_000, 30_000_000]),
        ("$100,000 to $300,000", [10_000_000, 30_000_000]),
        ("$100,000-300,000", [10_000_000, 30_000_000]),
        ("$100,000 — 300,000", [10_000_000, 30_000_000]),
        ("$1–2 million", [100_000_000, 200_000_000]),
        ("$500K-1M", [50_000_000, 100_000_000]),
        ("100–300 dollars", [10_000, 30_000]),
        ("USD 10 - 20", [1_000, 2_000]),
        ("$10–$20 million", [1_000_000_000, 2_000_000_000]),
        ("$1.5bn-$2bn", [150_000_000_000, 200_000_000_000]),
        ("$500–$1 million", [50_000, 100_000_000]),
        ("$3 million – $2 million", [300_000_000, 200_000_000]),
        ("$20–$10", [2_000, 1_000]),
    ],
)
def test_ranges_give_both_ends(text: str, expected: list[int]) -> None:
    assert [m.minor_units for m in extract_money(text)] == expected


def test_a_dash_to_a_smaller_bare_number_is_not_a_range() -> None:
    assert [m.raw for m in extract_money("costs $500 - 20 of them")] == ["$500"]


@pytest.mark.parametrize("sign", ["£", "$", "€"])
def test_a_dash_opening_the_next_line_is_a_list_marker_not_a_range(sign: str) -> None:
    text = f"- 250 cards: {sign}19.00\n- 500 cards: {sign}26.00\n- 1,000 cards: {sign}38.00"
    assert [m.raw for m in extract_money(text)] == [f"{sign}19.00", f"{sign}26.00", f"{sign}38.00"]
    # a dash at the end of the first end's line still joins a wrapped range
    assert [m.minor_units for m in extract_money(f"{sign}100 –\n200 a night")] == [10_000, 20_000]


def test_words_and_their_figures_are_one_mention() -> None:
    text = "pay Fifty Thousand Dollars ($50,000) and $10,000 (Ten Thousand Dollars) now"
    mentions = extract_money(text)
    assert [m.raw for m in mentions] == [
        "Fifty Thousand Dollars ($50,000)",
        "$10,000 (Ten Thousand Dollars)",
    ]
    assert [m.minor_units for m in mentions] == [5_000_000, 1_000_000]
    assert {m.form for m in mentions} == {"spelled"}


def test_words_and_figures_that_disagree_are_both_kept() -> None:
    mentions = extract_money("Five Thousand Dollars ($50,000)")
    assert sorted(m.minor_units for m in mentions) == [500_000, 5_000_000]


def test_spelled_number_words_need_a_currency() -> None:
    assert extract_money("fifty thousand people") == []
    assert [m.minor_units for m in extract_money("number one Five Hundred Dollars")] == [50_000]


def test_the_dollar_sign_follows_a_dollar_default_currency() -> None:
    assert parse_money("$5", default_currency="CAD") == Money(currency="CAD", minor_units=500)
    assert parse_money("5 dollars", "AUD") == Money(currency="AUD", minor_units=500)
    assert parse_money("$5", default_currency="EUR") == usd(500)
    assert parse_money("US$5", default_currency="CAD") == usd(500)


def test_canonicalize_money_is_the_reference_baseline() -> None:
    text = "limits of $300K and $3,000,000"
    assert canonicalize_money(text) == "limits of money:30000000 and money:300000000"
    assert "money:30000000" in "money:300000000"  # the bug the baseline demonstrates


# --------------------------------------------------------------------------- round trips

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _words(n: int) -> str:
    """English words for 1 ≤ n < 10**12 (the inverse the tests need, nothing more)."""
    parts: list[str] = []
    for scale, name in ((10**9, "billion"), (10**6, "million"), (10**3, "thousand"), (1, "")):
        chunk, n = divmod(n, scale)
        if not chunk:
            continue
        hundreds, rest = divmod(chunk, 100)
        if hundreds:
            parts += [_ONES[hundreds], "hundred"]
        if rest >= 20:
            parts.append(_TENS[rest // 10] + ("-" + _ONES[rest % 10] if rest % 10 else ""))
        elif rest:
            parts.append(_ONES[rest])
        if name:
            parts.append(name)
    return " ".join(parts)


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _formats(dollars: int, cents: int) -> list[tuple[str, str]]:
    """Every way the tests write ``dollars.cents`` (currency, text)."""
    amount = Decimal(dollars) + Decimal(cents) / 100
    tail = f".{cents:02d}" if cents else ""
    us = f"{dollars:,}{tail}"
    eu = f"{dollars:,}".replace(",", ".") + (f",{cents:02d}" if cents else "")
    swiss = f"{dollars:,}".replace(",", "'") + tail
    written = [
        ("USD", f"${us}"),
        ("USD", f"${dollars:,}.{cents:02d}"),
        ("USD", f"$ {us}"),
        ("USD", f"${dollars}{tail}"),
        ("USD", f"US${us}"),
        ("USD", f"USD {us}"),
        ("USD", f"USD{us}"),
        ("USD", f"{us} USD"),
        ("USD", f"{us} dollars"),
        ("USD", f"{us} Dollars"),
        ("USD", f"${_plain(amount / 1000)}K"),
        ("USD", f"${_plain(amount / 1000)}k"),
        ("USD", f"${_plain(amount / 10**6)}M"),
        ("USD", f"${_plain(amount / 10**6)} million"),
        ("USD", f"${_plain(amount / 10**9)}bn"),
        ("USD", f"${_plain(amount / 10**9)} billion"),
        ("EUR", f"€{us}"),
        ("EUR", f"EUR {us}"),
        ("EUR", f"{eu} €"),
        ("EUR", f"{eu} EUR"),
        ("GBP", f"£{us}"),
        ("CHF", f"CHF {swiss}"),
    ]
    if dollars >= 1000 and (cents or dollars >= 10**6):  # unambiguous continental grouping
        written.append(("EUR", f"€{eu}"))
    if 0 < dollars < 10**12:
        spelled = _words(dollars).title()
        and_cents = f" and {cents:02d}/100" if cents else ""
        written.append(("USD", f"{spelled}{and_cents} Dollars"))
        written.append(("USD", f"{spelled}{and_cents} Dollars (${us})"))
    return written


amounts = st.tuples(st.integers(min_value=0, max_value=10**13), st.integers(0, 99))


@given(amounts)
@example((300_000, 0))
@example((1_000, 50))
@example((0, 1))
@example((999_999_999_999, 99))
def test_every_written_form_round_trips_to_the_same_integer(amount: tuple[int, int]) -> None:
    dollars, cents = amount
    minor = dollars * 100 + cents
    for currency, text in _formats(dollars, cents):
        assert parse_money(text) == Money(currency=currency, minor_units=minor), text


@given(st.integers(min_value=0, max_value=10**15))
def test_yen_has_no_minor_unit(yen: int) -> None:
    assert parse_money(f"¥{yen:,}") == Money(currency="JPY", minor_units=yen)


_PROSE = st.lists(
    st.sampled_from(
        [
            "the",
            "policy",
            "limit",
            "covers",
            "each",
            "claim",
            "of",
            "a",
            "for",
            "umbrella",
            "is",
            "with",
            "per",
            "year",
            "total",
            "fee",
            "deductible",
            "annual",
            "aggregate",
            "coverage",
            "premium",
        ]
    ),
    max_size=12,
).map(" ".join)


@given(_PROSE, amounts, st.data(), _PROSE, st.sampled_from(["", ".", ",", ";", ")"]))
def test_an_amount_in_prose_is_found_once_with_its_exact_span(
    before: str, amount: tuple[int, int], data: st.DataObject, after: str, punct: str
) -> None:
    dollars, cents = amount
    currency, written = data.draw(st.sampled_from(_formats(dollars, cents)))
    prefix = f"{before} " if before else ""
    text = f"{prefix}{written}{punct} {after}".rstrip()
    [mention] = extract_money(text)
    assert (mention.start, mention.end) == (len(prefix), len(prefix) + len(written))
    assert (mention.currency, mention.minor_units) == (currency, dollars * 100 + cents)


@given(
    st.text(
        alphabet=st.sampled_from(list("$€£¥0123456789.,'- KkMmUSDEReurodlasn()[]*")), max_size=60
    )
)
def test_scanning_any_text_never_crashes_and_spans_are_ordered_slices(text: str) -> None:
    scan = scan_money(text)
    previous_end = 0
    for mention in scan.mentions:
        assert text[mention.start : mention.end] == mention.raw
        assert mention.start >= previous_end
        assert 0 <= mention.minor_units <= LONG_MAX
        previous_end = mention.end


def test_non_money_strings_stay_non_money_inside_one_long_text() -> None:
    assert extract_money(" ; ".join(NOT_MONEY)) == []


def test_money_displays_with_the_currencys_own_minor_units() -> None:
    from osrag.extract import Money

    assert Money.from_token("EUR:30000000").display() == "EUR 300,000.00"
    assert Money.from_token("JPY:1500").display() == "JPY 1,500"
    assert Money(currency="USD", minor_units=100050).display() == "USD 1,000.50"


def test_a_stray_comma_before_million_keeps_the_scale() -> None:
    """A filing's slip, "$1.6, million" between two amounts of a list, is $1.6 million; a
    comma before "thousands of" or "millions" (a noun, no scale) leaves the figure alone."""
    text = "was $3.0 million, $1.6, million and $1.0 million in 2019, 2018 and 2017"
    assert [m.minor_units for m in extract_money(text)] == [300_000_000, 160_000_000, 100_000_000]
    text = "We paid $500, thousands of customers came, and $2, millions more."
    assert [m.minor_units for m in extract_money(text)] == [50_000, 200]
