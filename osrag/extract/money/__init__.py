"""Money in text → ``(currency, minor units)`` as an exact integer.

One concept per module, each stating the rule it applies:

* :mod:`~osrag.extract.money.patterns` — what is written as money (a currency next to
  figures or number words), the scale words, what is not money; the compiled patterns
  and the cheap pre-check;
* :mod:`~osrag.extract.money.candidates` — how a match is read: which currency, the
  sign, ranges, placeholders and price bases;
* :mod:`~osrag.extract.money.values` — what figures are worth: Unicode digits,
  the separator policy, scales, spelled numbers, exact minor units;
* :mod:`~osrag.extract.money.scan` — the mentions and the public functions; words
  restating figures.

The currencies themselves (signs, codes, nouns, minor units, what ``$`` means) are one
table in :mod:`osrag.currencies`. Table cells and their scale captions are read by
:mod:`osrag.extract.tables` and :mod:`osrag.extract.scale`.
"""

from __future__ import annotations

from osrag.currencies import (
    DOLLAR,
    DOLLAR_CURRENCIES,
    LONG_MAX,
    MINOR_UNIT_EXPONENTS,
    dollar_currency,
)
from osrag.extract.money.patterns import (
    SCALE_WORDS,
    SIGN_CLASS,
    MoneyForm,
    alternation,
    may_state_money,
    sign_pattern,
)
from osrag.extract.money.scan import (
    MoneyMention,
    MoneyScan,
    RejectedMoney,
    canonicalize_money,
    extract_money,
    full_scan,
    parse_money,
    scan_money,
)
from osrag.extract.money.values import SCALES, ascii_digits, minor_unit_exponent
from osrag.models import Money

__all__ = [
    "DOLLAR",
    "DOLLAR_CURRENCIES",
    "LONG_MAX",
    "MINOR_UNIT_EXPONENTS",
    "SCALES",
    "SCALE_WORDS",
    "SIGN_CLASS",
    "Money",
    "MoneyForm",
    "MoneyMention",
    "MoneyScan",
    "RejectedMoney",
    "alternation",
    "ascii_digits",
    "canonicalize_money",
    "dollar_currency",
    "extract_money",
    "full_scan",
    "may_state_money",
    "minor_unit_exponent",
    "parse_money",
    "scan_money",
    "sign_pattern",
]
