"""Written figures → exact minor units: the separator policy, the scale words, spelled
numbers and currency nouns (:mod:`osrag.extract.money` applies them to what it found).

Every conversion is exact (integers, or :class:`decimal.Decimal` with traps on any
rounding); a value that cannot be stored exactly raises ``_Unrepresentable``
with the reason, never a rounded or wrapped number.
"""

from __future__ import annotations

import re
from decimal import Context, Decimal, Inexact, InvalidOperation, Rounded

from osrag.currencies import LONG_MAX, MINOR_UNIT_EXPONENTS
from osrag.errors import ExtractionError
from osrag.extract.money_patterns import (
    _BIG,
    _TENS,
    _UNITS,
    DOLLAR_CURRENCIES,
    QUALIFIED_DOLLARS,
    SCALES,
)


def dollar_currency(default_currency: str = "USD") -> str:
    """What ``$`` and a bare "dollars" mean: the default if it is a dollar currency, else USD."""
    return default_currency if default_currency in DOLLAR_CURRENCIES else "USD"


def minor_unit_exponent(currency: str) -> int:
    """ISO 4217 exponent of ``currency`` (USD 2, JPY 0, KWD 3)."""
    try:
        return MINOR_UNIT_EXPONENTS[currency]
    except KeyError:
        raise ExtractionError(f"unknown currency {currency!r}") from None


class _Unrepresentable(Exception):
    """A written amount that cannot be stored exactly (the reason is the message)."""


def _plain_decimal(number: str, *, scaled: bool, currency_after: bool, exponent: int = 2) -> str:
    """Rewrite a matched number as ``digits[.digits]`` following the separator policy."""
    seps = [(i, c) for i, c in enumerate(number) if not c.isdigit()]
    if not seps:
        return number
    if len(seps) == 1:
        i, c = seps[0]
        head, tail = number[:i], number[i + 1 :]
        groupable = len(tail) == 3 and 0 < len(head) <= 3 and not head.startswith("0")
        if c in "'’\u00a0\u202f":
            return head + tail
        if c == ",":
            return head + tail if groupable else f"{head}.{tail}"
        if not groupable or scaled or exponent == 3:  # c == "."; KWD 1.250 has fils
            return number
        if currency_after:
            return head + tail
        raise _Unrepresentable(f"ambiguous separator in {number!r} (decimal point or grouping?)")
    chars = {c for _, c in seps}
    if len(chars) == 1:
        return number.replace(seps[0][1], "")
    *groups, (last_i, last_c) = seps
    group_chars = {c for _, c in groups}
    if len(group_chars) != 1 or last_c not in ".," or last_c in group_chars:
        raise _Unrepresentable(f"inconsistent separators in {number!r}")
    return number[:last_i].replace(group_chars.pop(), "") + "." + number[last_i + 1 :]


def _integer_minor_units(plain: str, exponent: int) -> int | None:
    """``digits[.digits]`` with no more fraction digits than ``exponent``, converted in
    integers (the same value exact decimal arithmetic gives, several times faster); None
    for anything else (:func:`_minor_units` then uses :class:`~decimal.Decimal`)."""
    if not plain.isascii():
        return None
    head, dot, tail = plain.partition(".")
    if not (head or dot) or len(tail) > exponent:
        return None
    if (head and not head.isdigit()) or (dot and not tail.isdigit()):
        return None
    return int(head or "0") * 10**exponent + int(tail or "0") * 10 ** (exponent - len(tail))


def _minor_units(plain: str, scale: int, currency: str) -> int:
    """Exact ``plain × 10**(scale + exponent)``; a fraction or an overflow is refused."""
    exponent = scale + minor_unit_exponent(currency)
    whole = plain.split(".")[0].lstrip("0")
    if len(whole) + exponent > 19:  # ≥ 10**19 > LONG_MAX, refused before any conversion
        raise _Unrepresentable(f"beyond a long ({LONG_MAX}) in minor units")
    units = _integer_minor_units(plain, exponent)
    if units is not None:
        if units > LONG_MAX:
            raise _Unrepresentable(f"beyond a long ({LONG_MAX}) in minor units")
        return units
    context = Context(prec=60, traps=[Inexact, Rounded, InvalidOperation])
    try:
        value = context.scaleb(Decimal(plain), exponent)
    except (Inexact, Rounded, InvalidOperation):
        raise _Unrepresentable(f"not exactly representable: {plain!r}") from None
    if value != value.to_integral_value():
        raise _Unrepresentable(f"not a whole number of {currency} minor units")
    units = int(value)
    if units > LONG_MAX:
        raise _Unrepresentable(f"beyond a long ({LONG_MAX}) in minor units")
    return units


def _scale_of(match: re.Match[str], tag: str) -> int | None:
    token = match.group(f"{tag}_a") or match.group(f"{tag}_w")
    if not token:
        return None
    key = token.lower()
    return SCALES[key] if key in SCALES else SCALES[" ".join(key.split())]  # "lakh  crore"


def _scaled_end(match: re.Match[str], tag: str, number_group: str) -> int:
    return max(match.end(number_group), match.end(f"{tag}_a"), match.end(f"{tag}_w"))


def _noun_currency(noun: str, qualifier: str | None, dollar: str) -> str:
    noun = noun.lower()
    if noun.startswith("dollar"):
        if qualifier:
            return QUALIFIED_DOLLARS.get(re.sub(r"\s+", " ", qualifier.lower()), dollar)
        return dollar
    if noun.startswith("euro"):
        return "EUR"
    if noun.startswith("pound"):
        return "GBP"
    if noun == "yen":
        return "JPY"
    if noun.startswith("franc"):
        return "CHF"
    return "CNY"  # yuan, renminbi


def _spelled_value(words: str) -> int | None:
    """``nineteen million six hundred and forty four thousand`` → 19644000; ill-formed → None."""
    total = current = 0
    previous = ""  # "unit", "teen", "tens", "hundred", "big"
    for word in re.findall(r"[a-z]+", words.lower()):
        if word == "and":
            continue
        if word in _UNITS:
            kind = "teen" if _UNITS[word] >= 10 else "unit"
            if previous in ("unit", "teen") or (previous == "tens" and kind == "teen"):
                return None
            current += _UNITS[word]
            previous = kind
        elif word in _TENS:
            if previous in ("unit", "teen", "tens"):
                return None
            current += _TENS[word]
            previous = "tens"
        elif word == "hundred":
            if previous not in ("unit", "teen") or current >= 100:
                return None
            current *= 100
            previous = "hundred"
        else:
            if previous in ("", "big") or current == 0:
                return None
            total += current * _BIG[word]
            current = 0
            previous = "big"
    return None if previous == "" else total + current


# --------------------------------------------------------------------------- scanning
