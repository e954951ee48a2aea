"""What written figures are worth: digits, separators, scale words and spelled numbers →
exact minor units.

Every conversion is exact (integers, or :class:`decimal.Decimal` with traps on any
rounding): ``$0.3M`` is exactly ``30_000_000`` cents. A value that is not a whole number
of minor units, is beyond a ``long`` (:data:`~osrag.currencies.LONG_MAX`) or has
ambiguous separators raises :class:`Unrepresentable` with the reason — never a rounded,
wrapped or guessed number.

Digits (the rule)
-----------------
Any Unicode decimal digit (``str.isdecimal``) is read as the ASCII digit of the same
value, and the Arabic separators as their ASCII counterparts — ``٬`` (U+066C) groups
thousands like ``,``, ``٫`` (U+066B) is the decimal point ``.``, ``٪`` and ``％`` are
``%`` — so ``$٣٠٠٬٠٠٠`` (Arabic-Indic), ``$۳۰۰٬۰۰۰`` (Eastern Arabic-Indic), ``$३००,०००``
(Devanagari) and ``$３００,０００`` (full-width) all read as ``$300,000``, under the
separator policy below. :func:`ascii_digits` does it character for character, so every
offset into the rewritten text is an offset into the original. A separator osrag
cannot read (``،``, ``，``, ``．``) glued to more digits ends no amount: ``$٣٠٠،٠٠٠`` is
not read at all rather than read as $300.

Separators (the policy)
-----------------------
``1,500.00`` (US), ``1.500,00`` and ``1.500.000`` (continental), ``1'500'000`` (Swiss),
``5,00,000`` (Indian) and no-break-space grouping are unambiguous. ``1,500`` is always
fifteen hundred. A single comma with one or two digits after it is a decimal comma
(``300,50 €``). A lone ``.ddd`` (``1.500``) is ambiguous: it is a decimal point when a
scale follows (``$14.575 million``) or the currency has three minor digits
(``KWD 1.250``), thousands grouping when the currency is written *after* the number
(``300.000 €``, the continental placement), and otherwise rejected as ambiguous
(``$1.500``, ``€300.000``) rather than guessed. Ordinary spaces never group digits
(tables would merge columns).

Scales: :data:`SCALES`. Spelled numbers: :func:`spelled_value`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from decimal import Context, Decimal, Inexact, InvalidOperation, Rounded

from osrag.currencies import LONG_MAX, MINOR_UNIT_EXPONENTS
from osrag.errors import ExtractionError
from osrag.lexicon.function_words import UNIT_NUMBERS

SCALES: dict[str, int] = {
    "k": 3, "thousand": 3, "m": 6, "mm": 6, "mil": 6, "mn": 6, "mln": 6, "million": 6,
    "b": 9, "bn": 9, "bln": 9, "billion": 9, "trillion": 12,
    "thousands": 3, "millions": 6, "billions": 9, "trillions": 12,
    "mio": 6, "mrd": 9, "mia": 9,
    "lakh": 5, "lakhs": 5, "lac": 5, "lacs": 5, "crore": 7, "crores": 7,
    "lakh crore": 12, "lakh crores": 12,
}  # fmt: skip
"""Powers of ten of each scale word or letter (looked up lower-cased): the English words
and the press's abbreviations; German, Swiss and Dutch ``Mio.``/``Mrd.``/``Mia.``;
the Indian lakh (10⁵) and crore (10⁷)."""

UNITS = UNIT_NUMBERS
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
BIG = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
NUMBER_WORDS = [*UNITS, *TENS, "hundred", *BIG]
"""Every word :func:`spelled_value` reads."""


class Unrepresentable(Exception):
    """A written amount that cannot be stored exactly (the reason is the message)."""


def minor_unit_exponent(currency: str) -> int:
    """ISO 4217 exponent of ``currency`` (USD 2, JPY 0, KWD 3)."""
    try:
        return MINOR_UNIT_EXPONENTS[currency]
    except KeyError:
        raise ExtractionError(f"unknown currency {currency!r}") from None


# --------------------------------------------------------------------------- digits

_SEPARATORS = {"\u066c": ",", "\u066b": ".", "\u066a": "%", "\uff05": "%"}
_TO_ASCII = re.compile(r"[^\D0-9]|[\u066c\u066b\u066a\uff05]")
"""A decimal digit other than 0-9, or a separator read as its ASCII counterpart."""
_BLOCKS = re.compile("[\u0660-\u1c59\ua620-\uabf9\uff05-\uff19\U000104a0-\U0001fbf9]")
"""The blocks that hold every such character (the tests check it against the Unicode
database): a plain range test, many times faster than the digit category, which spares
the text whose only non-ASCII characters are punctuation, Latin letters or symbols."""


@functools.lru_cache(maxsize=512)
def _ascii(char: str) -> str:
    return _SEPARATORS.get(char) or str(unicodedata.decimal(char))


def ascii_digits(text: str) -> str:
    """``text`` with every decimal digit written in ASCII and the Arabic separators as
    ``,`` ``.`` ``%``; one character for one, so offsets are unchanged. ``text`` itself
    when there is nothing to rewrite (every ASCII text)."""
    return text if text.isascii() else _rewritten(text)


@functools.lru_cache(maxsize=1)
def _rewritten(text: str) -> str:
    """:func:`ascii_digits` of a non-ASCII text, the last one kept: the money scan and the
    table reader read the same text one after the other."""
    if _BLOCKS.search(text) is None or _TO_ASCII.search(text) is None:
        return text
    return _TO_ASCII.sub(lambda m: _ascii(m.group()), text)


# --------------------------------------------------------------------------- figures


def plain_decimal(number: str, *, scaled: bool, currency_after: bool, exponent: int = 2) -> str:
    """Rewrite matched figures as ``digits[.digits]`` following the separator policy."""
    seps = [(i, c) for i, c in enumerate(number) if not c.isdigit()]
    if not seps:
        return number
    if len(seps) == 1:
        i, c = seps[0]
        head, tail = number[:i], number[i + 1 :]
        groupable = len(tail) == 3 and 0 < len(head) <= 3 and not head.startswith("0")
        if c in "'’\u00a0\u202f ":
            return head + tail
        if c == ",":
            return head + tail if groupable else f"{head}.{tail}"
        if not groupable or scaled or exponent == 3:  # c == "."; KWD 1.250 has fils
            return number
        if currency_after:
            return head + tail
        raise Unrepresentable(f"ambiguous separator in {number!r} (decimal point or grouping?)")
    chars = {c for _, c in seps}
    if len(chars) == 1:
        return number.replace(seps[0][1], "")
    *groups, (last_i, last_c) = seps
    group_chars = {c for _, c in groups}
    if len(group_chars) != 1 or last_c not in ".," or last_c in group_chars:
        raise Unrepresentable(f"inconsistent separators in {number!r}")
    return number[:last_i].replace(group_chars.pop(), "") + "." + number[last_i + 1 :]


def _integer_minor_units(plain: str, exponent: int) -> int | None:
    """``digits[.digits]`` with no more fraction digits than ``exponent``, converted in
    integers (the same value exact decimal arithmetic gives, several times faster); None
    for anything else (:func:`minor_units` then uses :class:`~decimal.Decimal`)."""
    if not plain.isascii():
        return None
    head, dot, tail = plain.partition(".")
    if not (head or dot) or len(tail) > exponent:
        return None
    if (head and not head.isdigit()) or (dot and not tail.isdigit()):
        return None
    return int(head or "0") * 10**exponent + int(tail or "0") * 10 ** (exponent - len(tail))


def minor_units(plain: str, scale: int, currency: str) -> int:
    """Exact ``plain × 10**(scale + exponent)``; a fraction or an overflow is refused."""
    exponent = scale + minor_unit_exponent(currency)
    whole = plain.split(".")[0].lstrip("0")
    if len(whole) + exponent > 19:  # ≥ 10**19 > LONG_MAX, refused before any conversion
        raise Unrepresentable(f"beyond a long ({LONG_MAX}) in minor units")
    units = _integer_minor_units(plain, exponent)
    if units is not None:
        if units > LONG_MAX:
            raise Unrepresentable(f"beyond a long ({LONG_MAX}) in minor units")
        return units
    context = Context(prec=60, traps=[Inexact, Rounded, InvalidOperation])
    try:
        value = context.scaleb(Decimal(plain), exponent)
    except (Inexact, Rounded, InvalidOperation):
        raise Unrepresentable(f"not exactly representable: {plain!r}") from None
    if value != value.to_integral_value():
        raise Unrepresentable(f"not a whole number of {currency} minor units")
    units = int(value)
    if units > LONG_MAX:
        raise Unrepresentable(f"beyond a long ({LONG_MAX}) in minor units")
    return units


def scale_exponent(word: str) -> int:
    """The power of ten of a scale word or letter as written (``"M"``, ``"lakh  crore"``)."""
    key = word.lower()
    return SCALES[key] if key in SCALES else SCALES[" ".join(key.split())]


def spelled_value(words: str) -> int | None:
    """``nineteen million six hundred and forty four thousand`` → 19644000; ill-formed → None."""
    total = current = 0
    previous = ""  # "unit", "teen", "tens", "hundred", "big"
    for word in re.findall(r"[a-z]+", words.lower()):
        if word == "and":
            continue
        if word in UNITS:
            kind = "teen" if UNITS[word] >= 10 else "unit"
            if previous in ("unit", "teen") or (previous == "tens" and kind == "teen"):
                return None
            current += UNITS[word]
            previous = kind
        elif word in TENS:
            if previous in ("unit", "teen", "tens"):
                return None
            current += TENS[word]
            previous = "tens"
        elif word == "hundred":
            if previous not in ("unit", "teen") or current >= 100:
                return None
            current *= 100
            previous = "hundred"
        else:
            if previous in ("", "big") or current == 0:
                return None
            total += current * BIG[word]
            current = 0
            previous = "big"
    return None if previous == "" else total + current
