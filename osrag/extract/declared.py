"""Figures a declared currency makes money: "All amounts in US dollars." over a payslip.

A document (or a part of one) may state its currency once — "All amounts in US dollars",
"Amounts are shown in GBP", "Currency: EUR", "(all figures in pounds sterling)": a
declaration (:func:`osrag.extract.scale.declared_currencies`) — and write its figures
bare. Below a declaration, until the next one:

* a table's columns of figures written in cents are in that currency, as a document's one
  sign makes them (:mod:`osrag.extract.tables`);
* a key–value line whose value is one figure written in cents ("Direct deposit to checking:
  1,777.65", "Net pay: 2,104.50") is an amount in it (:func:`declared_line_amounts`).

Not every number becomes money: a figure without two decimals ("Hours: 80", "Employee ID:
20417"), a figure whose key names a count, a ratio or a measure ("Hours worked: 80.00",
"Tax rate: 7.65", "Version: 2.10"), a figure among words, a percentage, a date, or any
figure before the declaration stays a number.
"""

from __future__ import annotations

import re
from decimal import Decimal

from osrag.currencies import DOLLAR, LONG_MAX, SIGNS, dollar_currency
from osrag.extract.money import MoneyMention, minor_unit_exponent
from osrag.extract.scale import declared_currencies
from osrag.extract.tables import declared_at, names_a_count

__all__ = ["declared_line_amounts"]

_KEY_VALUE_CENTS = re.compile(
    r"(?m)^[ \t>*_-]*(?P<key>[^\W\d][^:\n|]{0,80}?)[*_]*[ \t]*:[ \t]*[*_]*[ \t]*"
    r"(?P<num>\d{1,3}(?:,\d{3})+\.\d\d|\d{1,9}\.\d\d)(?![\d.,%])[ \t*_.]*$"
)
"""A key–value line whose value is one figure written in cents."""


def declared_line_amounts(text: str, default_currency: str, *, pos: int = 0) -> list[MoneyMention]:
    """The key–value lines' figures of ``text[pos:]`` that a declaration above them makes
    amounts in its currency (module docstring), in text order."""
    declared = declared_currencies(text, pos)
    if not declared:
        return []
    found: list[MoneyMention] = []
    for match in _KEY_VALUE_CENTS.finditer(text, declared[0][0]):
        token = declared_at(declared, match.start())
        if token is None or names_a_count(match["key"]):
            continue  # "Hours worked: 80.00", "Tax rate: 7.65": a measure, not money
        token = SIGNS.get(token, token)
        currency = dollar_currency(default_currency) if token == DOLLAR else token
        value = Decimal(match["num"].replace(",", "")).scaleb(minor_unit_exponent(currency))
        if value != value.to_integral_value() or value > LONG_MAX:
            continue
        found.append(
            MoneyMention(
                start=match.start("num"),
                end=match.end("num"),
                raw=match["num"],
                currency=currency,
                minor_units=int(value),
                form="code",
            )
        )
    return found
