"""One currency table (osrag/currencies.py): every sign, code and noun it lists is read in
prose, in a scale caption and in a table cell, as the same currency."""

from __future__ import annotations

import re

import pytest

from osrag.currencies import (
    CAPTION_NOUNS,
    CODES,
    CURRENCIES,
    DOLLAR,
    LETTER_SIGNS,
    MINOR_UNIT_EXPONENTS,
    NOUN_STEMS,
    NOUNS,
    QUALIFIERS,
    SIGN_CHARACTERS,
    SIGNS,
    SIGNS_AFTER,
    dollar_currency,
    noun_currency,
)
from osrag.extract.money import extract_money, parse_money
from osrag.extract.scale import parse_caption
from osrag.extract.tables import table_amounts

SIGN_CASES = sorted(SIGNS.items())
"""Every sign with the currency it reads as (``$``: the default dollar)."""


def _reading(code: str, default: str = "USD") -> str:
    return dollar_currency(default) if code == DOLLAR else code


def test_the_table_is_well_formed() -> None:
    codes = [c.code for c in CURRENCIES]
    assert len(codes) == len(set(codes))
    for currency in CURRENCIES:
        assert re.fullmatch(r"[A-Z]{3}", currency.code)
        assert currency.exponent in (0, 2, 3)
        assert all(n == " ".join(n.lower().split()) for n in currency.nouns)
    # the scanner's pre-check finds codes as runs of three upper-case letters
    assert all(re.fullmatch(r"[A-Z]{3}", code) for code in CODES)
    assert set(CODES.values()) <= set(MINOR_UNIT_EXPONENTS)
    assert "$" not in SIGNS_AFTER  # "5 $" is never read
    assert set(SIGN_CHARACTERS) >= {"$", "€", "£", "¥", "₹", "₩", "₽", "₪"}
    assert all(any(stem in noun for stem in NOUN_STEMS) for noun in CAPTION_NOUNS)


def test_the_currencies_osrag_recognised_before_are_all_still_there() -> None:
    assert MINOR_UNIT_EXPONENTS["JPY"] == 0
    assert MINOR_UNIT_EXPONENTS["KWD"] == 3
    assert len(MINOR_UNIT_EXPONENTS) == 45
    assert {"TRY", "ALL"}.isdisjoint(MINOR_UNIT_EXPONENTS)  # words in upper-case prose


@pytest.mark.parametrize(("sign", "code"), SIGN_CASES)
def test_every_sign_is_read_before_figures_in_prose(sign: str, code: str) -> None:
    text = f"The fee is {sign}5,000 a year."
    [mention] = extract_money(text)
    assert (mention.raw, mention.currency, mention.minor_units) == (
        f"{sign}5,000",
        _reading(code),
        5000 * 10 ** MINOR_UNIT_EXPONENTS[_reading(code)],
    )


@pytest.mark.parametrize(("sign", "code"), sorted(SIGNS_AFTER.items()))
def test_every_sign_written_after_figures_is_read_there(sign: str, code: str) -> None:
    assert parse_money(f"5,000 {sign}") == parse_money(f"{sign}5,000")
    assert parse_money(f"5,000{sign}") == parse_money(f"{sign}5,000")


@pytest.mark.parametrize(("sign", "code"), SIGN_CASES)
def test_every_sign_names_the_currency_of_a_caption(sign: str, code: str) -> None:
    for caption in (f"({sign} in millions)", f"(in millions of {sign})", f"{sign} million"):
        found = parse_caption(caption)
        assert found is not None, caption
        assert (found.exponent, found.currency) == (6, code), caption


@pytest.mark.parametrize(("sign", "code"), SIGN_CASES)
def test_every_sign_is_read_in_a_table_cell(sign: str, code: str) -> None:
    currency = _reading(code)
    minor = 10 ** MINOR_UNIT_EXPONENTS[currency]
    signed = f"(in millions)\n\n| Item | 2019 |\n|---|---|\n| Revenue | {sign} 5 |\n"
    [cell] = table_amounts(signed)
    assert (cell.raw, cell.currency, cell.minor_units) == (f"{sign} 5", currency, 5 * 10**6 * minor)
    alone = f"(in millions)\n\n| Item | | 2019 |\n|---|---|---|\n| Revenue | {sign} | 7 |\n"
    [cell] = table_amounts(alone)  # a sign in a cell of its own signs the next one
    assert (cell.raw, cell.currency, cell.minor_units) == ("7", currency, 7 * 10**6 * minor)
    captioned = f"| Item | {sign} million |\n|---|---|\n| Revenue | 9 |\n"
    [cell] = table_amounts(captioned)  # the column's unit names the currency
    assert (cell.currency, cell.minor_units) == (currency, 9 * 10**6 * minor)


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_read_in_prose_and_in_a_caption(code: str) -> None:
    iso = CODES[code]
    assert parse_money(f"{code} 5") == parse_money(f"5 {code}")
    assert parse_money(f"{code} 5") is not None
    assert parse_money(f"{code} 5").currency == iso  # type: ignore[union-attr]
    for caption in (f"({code} in thousands)", f"(in thousands of {code})", f"{code}'000"):
        found = parse_caption(caption)
        assert found is not None, caption
        assert (found.exponent, found.currency) == (3, iso), caption
    found = parse_caption(f"{code} m")
    assert found is not None
    assert (found.exponent, found.currency) == (6, iso)


@pytest.mark.parametrize(("noun", "code"), sorted(NOUNS.items()))
def test_every_noun_is_read_after_figures_in_words_and_in_a_caption(noun: str, code: str) -> None:
    currency = _reading(code)
    minor = 10 ** MINOR_UNIT_EXPONENTS[currency]
    [mention] = extract_money(f"a fee of 5,000 {noun} a year")
    assert (mention.currency, mention.minor_units) == (currency, 5000 * minor)
    [mention] = extract_money(f"a fee of Five Thousand {noun.title()} a year")
    assert (mention.currency, mention.minor_units, mention.form) == (
        currency,
        5000 * minor,
        "spelled",
    )
    found = parse_caption(f"(in thousands of {noun})")
    assert found is not None
    assert found.currency == code


@pytest.mark.parametrize(("qualifier", "code"), sorted(QUALIFIERS.items()))
def test_a_qualifier_names_the_currency_with_a_noun_it_lists(qualifier: str, code: str) -> None:
    [currency] = [c for c in CURRENCIES if c.code == code]
    noun = currency.nouns[-1]
    [mention] = extract_money(f"paid 5 {qualifier} {noun} each", default_currency="CAD")
    assert mention.currency == code
    found = parse_caption(f"(in millions of {qualifier.title()} {noun})")
    assert found is not None
    assert found.currency == code


def test_ambiguous_signs_and_nouns_have_one_reading() -> None:
    assert parse_money("$5", "CAD") == parse_money("CAD 5")
    assert parse_money("$5", "EUR") == parse_money("USD 5")
    assert parse_money("5 dollars", "AUD") == parse_money("AUD 5")
    assert parse_money("5 Swiss dollars", "AUD") == parse_money("AUD 5")  # not CHF
    assert parse_money("¥5", "CNY") == parse_money("JPY 5")
    assert parse_money("Rs. 5") == parse_money("INR 5")
    assert parse_money("5 NT dollars") == parse_money("TWD 5")
    assert parse_money("NT$5") == parse_money("TWD 5")
    assert noun_currency("pounds") is None  # a weight in prose
    assert extract_money("it weighs 5 pounds") == []
    assert noun_currency("pounds", caption=True) == "GBP"
    assert LETTER_SIGNS == ("Rs.", "Rs")
    assert extract_money("Mrs 5 and hers 6") == []
