"""How money is written: the currency signs, codes and words, the scale words, and the
compiled patterns that find written amounts (:mod:`osrag.extract.money` reads them).

Speed: each pattern starts with a literal branch or a digit class, so the regex engine
skips straight to candidate positions instead of trying every character; the spelled
forms are found from the few currency nouns (``str.find``).
"""

from __future__ import annotations

import re
from typing import Literal

from osrag.currencies import MINOR_UNIT_EXPONENTS

CODE_ALIASES: dict[str, str] = {"RMB": "CNY"}
"""Non-ISO codes seen in real contracts, mapped to their ISO code."""

DOLLAR_CURRENCIES = frozenset({"USD", "CAD", "AUD", "NZD", "HKD", "SGD"})

DOLLAR = "$"
"""Marker for "the dollar": resolved to a currency by :func:`dollar_currency`."""

SYMBOLS: dict[str, str] = {
    "U.S.$": "USD", "US$": "USD", "CA$": "CAD", "C$": "CAD", "AU$": "AUD",
    "A$": "AUD", "NZ$": "NZD", "HK$": "HKD", "SG$": "SGD", "S$": "SGD",
    "R$": "BRL", "Rs.": "INR", "Rs": "INR", "$": DOLLAR, "€": "EUR", "£": "GBP",
    "¥": "JPY", "₹": "INR",
    "₩": "KRW", "₽": "RUB", "₪": "ILS", "₱": "PHP", "₫": "VND",
}  # fmt: skip
"""Currency signs written before a number (longest first in the pattern)."""

SUFFIX_SYMBOLS: dict[str, str] = {"€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
"""Signs also accepted *after* a number (``300.000 €``). Never ``$``."""

QUALIFIED_DOLLARS: dict[str, str] = {
    "us": "USD", "u.s.": "USD", "united states": "USD", "american": "USD",
    "canadian": "CAD", "australian": "AUD", "new zealand": "NZD",
    "hong kong": "HKD", "singapore": "SGD",
}  # fmt: skip

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

MoneyForm = Literal["symbol", "code", "word", "spelled"]
"""How the currency was written: ``$5`` / ``USD 5`` / ``5 dollars`` / ``Five Dollars``."""


# --------------------------------------------------------------------------- the patterns


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Speed: each pattern below starts with a literal branch or a digit class, so the
# regex engine skips straight to candidate positions instead of trying every
# character; spelled amounts are found from the few currency words (str.find).
_CODES = _alternation([*MINOR_UNIT_EXPONENTS, *CODE_ALIASES])
_PREFIXES = _alternation([*SYMBOLS, *MINOR_UNIT_EXPONENTS, *CODE_ALIASES])
_SUFFIX_SYMBOLS = _alternation(list(SUFFIX_SYMBOLS))
_HS = r"[ \t\u00a0\u202f]"
_WS = rf"{_HS}*(?:\r?\n{_HS}*)?"  # horizontal space, at most one line break
_NUM = (
    r"\d{1,2}(?:,\d\d)+,\d{3}(?:\.\d+)?"  # Indian grouping: 5,00,000 (five lakh)
    r"|\d{1,3}(?:[,.'’\u00a0\u202f]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|\.\d+"
)
# a number that starts a match: not inside a word, a number or an identifier (UMB-300000)
_NUM_START = (
    r"\d(?<![\w.,'’$€£¥₹/%]\d)(?<!\w[-–]\d)(?<!\d[ \u00a0\u202f]\d)"
    r"(?:\d?(?:,\d\d)+,\d{3}(?:\.\d+)?|\d{0,2}(?:[,.'’\u00a0\u202f]\d{3})+(?:[.,]\d+)?"
    r"|\d*(?:[.,]\d+)?)"
)
_ATTACHED_SCALE = r"[kKmMB]"


def _scale_alternation(words: list[str]) -> str:
    """Scale words as one alternation, longest first ("millions" before "million" before
    "mil"); a space inside one ("lakh crore") matches any run of spaces and tabs."""
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(r"[ \t]+".join(re.escape(part) for part in w.split()) for w in ordered)


SCALE_WORDS = _scale_alternation([w for w in SCALES if len(w) > 1])
"""Every scale word of :data:`SCALES` (not the letters), as one alternation."""
_CAPITALISED_SCALES = ("Mio", "Mrd", "Mia")
"""Read as a scale only capitalised: "5 Mio." is five million, "the mio project" a name."""
_ANY_CASE_SCALES = [w for w in SCALES if len(w) > 1 and w.title() not in _CAPITALISED_SCALES]
_WORD_SCALE = (
    rf"(?i:{_scale_alternation(_ANY_CASE_SCALES)})|(?:{'|'.join(_CAPITALISED_SCALES)})(?=\.|\b)"
)
_END = r"(?!\w|[.,'’]\d|[.,]O|[ \t]*%)"  # not glued to letters/digits, not a percentage
_DASH = rf"{_WS}[-–—]{_WS}"


def _scale(tag: str) -> str:
    return rf"(?:(?P<{tag}_a>{_ATTACHED_SCALE})|(?:{_WS}|-)(?P<{tag}_w>{_WORD_SCALE}))?"


_QUALIFIERS = "|".join(
    r"\s+".join(re.escape(w) for w in q.split())
    for q in sorted([*QUALIFIED_DOLLARS, "japanese", "chinese", "swiss"], key=len, reverse=True)
)
_CURRENCY_NOUN = r"dollars?|euros?|pounds?\s+sterling|yen|yuan|renminbi|francs?"


def _currency_word(tag: str) -> str:
    return (
        rf"(?i:(?:(?P<{tag}_q>{_QUALIFIERS})\s+)?(?P<{tag}_w>{_CURRENCY_NOUN}))"
        r"(?:\s+US\b)?(?![\w-])"
    )


_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_BIG = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER_WORD = _alternation([*_UNITS, *_TENS, "hundred", *_BIG])
_WORDS = rf"(?:{_NUMBER_WORD})(?:(?:[\s-]+(?:and[\s-]+)?|,\s*)(?:{_NUMBER_WORD}))*\b"
_CENTS = r"(?:\s+and\s+(?:(?P<cents>\d{1,2})|[Nn][Oo])/100)?"  # "and 00/100", "and No/100"

_PREFIXED = re.compile(
    rf"""
    (?P<pre>{_PREFIXES})
    (?:
        (?:(?P<sign>[-−])|{_HS}*(?P<open>\()[ \t]*)?{_WS}
        (?P<num>{_NUM})
        (?(open)[ \t]*\)|(?P<shut>\)(?={_HS}*(?:{_WORD_SCALE})(?!\w)))?)
        {_scale("s")}
        (?:{_DASH}(?P<t_pre>(?P=pre){_WS})?(?P<t_num>{_NUM}){_scale("t")}{_END})?
        (?:{_WS}(?:(?P<pcode>{_CODES})(?!\w)|{_currency_word("pw")})(?!{_WS}[-−]?\d))?
        {_END}
    |
        \s+(?P<words>(?i:{_WORDS})){_CENTS}(?![\w-])
    )
    """,
    re.VERBOSE,
)
"""A sign or code, then figures (``$300K``, ``USD 1'000'000``) or words (``RMB TEN THOUSAND``).
The accountant's parentheses: ``$(1.2) million`` (``open``), and the ``)`` of
``($3.1) million`` before its scale word (``shut``)."""

_SUFFIXED = re.compile(
    rf"""
    (?P<num>{_NUM_START}){_scale("s")}
    (?:{_DASH}(?P<t_num>{_NUM}){_scale("t")})?
    {_WS}(?=[A-Z€£¥₹deypfruacnhsj])  # cheap guard: what a code, sign or currency word starts with
    (?:(?<=\s)(?P<code>{_CODES})|(?P<sym>{_SUFFIX_SYMBOLS})|(?<=\s){_currency_word("w")})
    {_END}
    """,
    re.VERBOSE,
)
"""Figures, then a code, sign or currency word (``300.000 €``, ``100 Dollars``)."""

_SPELLED_BEFORE = re.compile(
    rf"(?<![\w-])(?i:(?P<words>{_WORDS})){_CENTS}\s+(?:(?i:(?P<q>{_QUALIFIERS}))\s+)?\Z"
)
"""Number words ending right before a currency noun (searched in a short window)."""
_SPELLED_WINDOW = 300
_NEXT_WORD = re.compile(r"(?<=[\s,-])[A-Za-z]")
_CURRENCY_NOUN_AT = re.compile(rf"(?i:{_CURRENCY_NOUN})(?:\s+US\b)?(?![\w-])")
_NOUN_STEMS = ("dollar", "euro", "pound", "yen", "yuan", "renminbi", "franc")
_NOUN_FALLBACK = re.compile(rf"(?i:{'|'.join(_NOUN_STEMS)})")

_OPEN_PAREN = re.compile(r"\s*\(\s*")
_CLOSE_PAREN = re.compile(r"\s*\)")
_PAREN_SPELLED = re.compile(
    rf"\s*\(\s*(?:(?:{_CODES}|US\$)\s*)?(?i:(?P<words>{_WORDS})){_CENTS}"
    rf"(?:\s+{_currency_word('p')})?\s*\)"
)
_PRICE_BASIS = re.compile(r"(?i:\b(?:in|constant|real|nominal)\s+)\Z")


# --------------------------------------------------------------------------- the pre-filter

_SIGN_CHARS = tuple(
    sorted({ch for sign in SYMBOLS for ch in sign if not ch.isalnum() and ch != "."})
)
_CODE_SET = frozenset([*MINOR_UNIT_EXPONENTS, *CODE_ALIASES])
_UPPER_RUN = re.compile(r"[A-Z]{3,}")
assert all(len(code) == 3 and code.isalpha() and code.isupper() for code in _CODE_SET)


_SIGN_CLASS = "[" + "".join(_SIGN_CHARS) + "]"
_SIGNED_FIGURES = re.compile(
    rf"{_SIGN_CLASS}(?:(?:[-−]|{_HS}*\([ \t]*)?{_WS}[\d.]|\s+(?i:{_NUMBER_WORD}))"
    rf"|\d{_WS}{_alternation(list(SUFFIX_SYMBOLS))}"
)
"""A sign with figures (or number words) after it, or figures with a sign after them."""
_RUPEES = re.compile(rf"(?<![A-Za-z])Rs\.?{_WS}[-−]?\d")
"""``Rs. 5,000``: the rupee written in letters, with figures after it."""
