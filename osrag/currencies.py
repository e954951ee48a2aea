"""The currencies osrag recognises and the largest amount it stores (no imports: every
layer, from the models to the extractors, reads these)."""

from __future__ import annotations

LONG_MAX = 2**63 - 1
"""OpenSearch's ``long``: the largest amount in minor units osrag stores."""

MINOR_UNIT_EXPONENTS: dict[str, int] = {
    # ISO 4217 minor-unit exponents of the currencies osrag recognises. A short,
    # curated list on purpose: every code here is also a token the scanner
    # accepts before or after a number, and each one added is a possible false
    # positive in upper-case prose (which is why e.g. TRY and ALL are absent).
    "AED": 2, "ARS": 2, "AUD": 2, "BHD": 3, "BRL": 2, "CAD": 2, "CHF": 2,
    "CLP": 0, "CNY": 2, "COP": 2, "CZK": 2, "DKK": 2, "EGP": 2, "EUR": 2,
    "GBP": 2, "HKD": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2, "ISK": 0,
    "JOD": 3, "JPY": 0, "KRW": 0, "KWD": 3, "MXN": 2, "MYR": 2, "NGN": 2,
    "NOK": 2, "NZD": 2, "OMR": 3, "PHP": 2, "PKR": 2, "PLN": 2, "QAR": 2,
    "RUB": 2, "SAR": 2, "SEK": 2, "SGD": 2, "THB": 2, "TWD": 2, "UAH": 2,
    "USD": 2, "VND": 0, "ZAR": 2,
}  # fmt: skip
