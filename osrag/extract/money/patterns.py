"""Where amounts are written: the compiled patterns that find them, built from the
currency table (:mod:`osrag.currencies`) and the scale and number words
(:mod:`osrag.extract.money.values`), and the cheap pre-check that spares a text them.

What is money (the rule)
------------------------
A number is money only when a currency is written next to it:

* a sign or code before it (:data:`PREFIXED`): ``$300,000``, ``$ 300,000``,
  ``US$300,000``, ``U.S.$5``, ``€300,000``, ``£1,500``, ``¥1``, ``C$``/``A$``/``HK$``…,
  ``USD 300,000``, ``USD300,000``, ``EUR 1.500,00``, ``RMB20,000``, ``Rs. 5,000``, ``₹5``
  — every sign and code of the currency table;
* a code, sign or currency word after it (:data:`SUFFIXED`): ``300,000 USD``,
  ``300.000 €``, ``300,000 dollars``, ``100 Dollars``, ``5 US dollars``, ``10 euros``,
  ``500 rupees``, ``500 pounds sterling`` (bare "pounds" is a weight, not money). A code
  or word after the figures needs a space (``500USD`` and ``%20SGD`` are not money); a
  sign may be attached (``300€``) and must be one written after figures
  (:attr:`~osrag.currencies.Sign.after`: never ``$``);
* spelled out with a currency (:data:`SPELLED_BEFORE` before a noun, :data:`PREFIXED`
  after a code): ``Fifty Thousand Dollars``, ``Four Hundred Eighty Thousand and 00/100
  Dollars``, ``RMB TWENTY THOUSAND``.

Scales: attached ``k``/``K`` (10³), ``m``/``M`` (10⁶), ``B`` (10⁹); attached or spaced
scale words of :data:`~osrag.extract.money.values.SCALES` in any case (``$300K``,
``$0.3M``, ``$2.5 million``, ``$1.2bn``, ``Rs. 5 lakh``, ``₹2 crore``); ``Mio``/``Mrd``/
``Mia`` only capitalised (``€5,2 Mio.``; "the mio project" is a name). A hyphen may join
the figures to a scale word (``a $5-million contract``).

Not money: bare numbers, ``300,000 miles``, ``UMB-300000``, ``15%`` (and ``$15%``), a
number glued to letters (``$5OO,000`` — OCR noise) or, by a separator, to more digits it
cannot be part of (``$1,600,00.00``, ``$٣٠٠،٠٠٠``), and redactions: a currency sign
followed by anything but a digit (``$[*****]``, ``$[●]``, ``$ [***]``, ``US$***``) is
never an amount (the figures the patterns require, and what may not follow them).

Speed: each pattern starts with a literal branch or a digit class, so the regex engine
skips straight to candidate positions instead of trying every character; the spelled
forms are found from the few currency nouns (``str.find``).
"""

from __future__ import annotations

import re
from typing import Literal

from osrag.currencies import (
    CODES,
    LETTER_SIGNS,
    NOUN_STEMS,
    NOUNS,
    QUALIFIERS,
    SIGN_CHARACTERS,
    SIGNS,
    SIGNS_AFTER,
)
from osrag.extract.money.values import NUMBER_WORDS, SCALES

MoneyForm = Literal["symbol", "code", "word", "spelled"]
"""How the currency was written: ``$5`` / ``USD 5`` / ``5 dollars`` / ``Five Dollars``."""


def alternation(words: list[str]) -> str:
    """``words`` as one regex alternation, longest first, a space inside one matching any
    run of white space (``pounds   sterling``)."""
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(part) for part in w.split(" ")) for w in ordered)


def sign_pattern(*, spaced: bool = False) -> str:
    """Every sign of the currency table as one alternation, longest first; a lettered
    sign only as a word of its own (``Rs``, not the end of "Mrs"). ``spaced``: a space
    allowed before the ``$`` of a lettered sign (``U.S. $``, ``US $``), as scale captions
    and table cells write them; prose reads ``US $5`` as ``$5``."""
    parts = []
    for sign in sorted(SIGNS, key=len, reverse=True):
        if spaced and len(sign) > 1 and sign.endswith("$"):
            part = re.escape(sign[:-1]) + r"\s?\$"
        else:
            part = re.escape(sign)
        lead = r"\b" if sign[0].isalpha() else ""
        tail = r"\b" if sign[-1].isalnum() else ""
        parts.append(lead + part + tail)
    return "|".join(parts)


def _scale_alternation(words: list[str]) -> str:
    """Scale words as one alternation, longest first ("millions" before "million" before
    "mil"); a space inside one ("lakh crore") matches any run of spaces and tabs."""
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(r"[ \t]+".join(re.escape(part) for part in w.split()) for w in ordered)


SIGN_CLASS = "[" + re.escape(SIGN_CHARACTERS) + "]"
"""Any character of a currency sign, as a regex class (``[$€£…]``)."""
_CODES = alternation(list(CODES))
_PREFIXES = alternation([*SIGNS, *CODES])
_SIGNS_AFTER = alternation(list(SIGNS_AFTER))
_HS = r"[ \t\u00a0\u202f]"
_WS = rf"{_HS}*(?:\r?\n{_HS}*)?"  # horizontal space, at most one line break
_SPACE_GROUPED = r"\d{0,2}(?:[ ]\d{3})+,\d\d(?!\d)"
"""After a first digit: groups of three set off by an ordinary space, then a decimal comma
and two decimals (``4 005,60``, the French and Nordic way of typing figures) — read only
whole, so neither ``4`` nor ``005,60`` is an amount of its own. ``[ ]``: a space the VERBOSE
patterns it goes into keep. Without the decimals (``4 005 €``) a count before a price reads
the same, and nothing is read."""
_NUM = (
    r"\d{1,2}(?:,\d\d)+,\d{3}(?:\.\d+)?"  # Indian grouping: 5,00,000 (five lakh)
    rf"|\d{_SPACE_GROUPED}"
    r"|\d{1,3}(?:[,.'’\u00a0\u202f]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|\.\d+"
)
_GLUE = "،，．"
"""Separators osrag does not read (Arabic comma, full-width comma and full stop): glued
to digits they end no amount, so ``$٣٠٠،٠٠٠`` is not read as $300."""
# a number that starts a match: not inside a word, a number or an identifier (UMB-300000)
_NUM_START = (
    rf"\d(?<![\w.,'’/%{_GLUE}{re.escape(SIGN_CHARACTERS)}]\d)(?<!\w[-–]\d)(?<!\d[ \u00a0\u202f]\d)"
    rf"(?:\d?(?:,\d\d)+,\d{{3}}(?:\.\d+)?|{_SPACE_GROUPED}"
    r"|\d{0,2}(?:[,.'’\u00a0\u202f]\d{3})+(?:[.,]\d+)?|\d*(?:[.,]\d+)?)"
)
_ATTACHED_SCALE = r"[kKmMB]"

SCALE_WORDS = _scale_alternation([w for w in SCALES if len(w) > 1])
"""Every scale word of :data:`~osrag.extract.money.values.SCALES` (not the letters), as
one alternation."""
_CAPITALISED_SCALES = ("Mio", "Mrd", "Mia")
"""Read as a scale only capitalised: "5 Mio." is five million, "the mio project" a name."""
_ANY_CASE_SCALES = [w for w in SCALES if len(w) > 1 and w.title() not in _CAPITALISED_SCALES]
_WORD_SCALE = (
    rf"(?i:{_scale_alternation(_ANY_CASE_SCALES)})|(?:{'|'.join(_CAPITALISED_SCALES)})(?=\.|\b)"
)
_END = rf"(?!\w|[.,'’{_GLUE}]\d|[.,]O|[ \t]*%)"
"""What may not follow an amount: letters or digits, a separator and more digits, a
percent sign."""
_DASH = rf"{_HS}*[-–—]{_WS}"
"""The dash of a range, on its first end's line: a dash that opens the next line is a list
item's marker ("£19.00" over "- 500 cards: £26.00" is no range to £500)."""


def _scale(tag: str) -> str:
    """A scale after the figures: a letter glued to them, or a word after a space, a hyphen
    or a stray comma before "million" / "billion" ("$1.6, million": a slip no reader takes
    for $1.60; "$500, thousands of …" stays $500)."""
    stray = rf",{_HS}*(?=(?i:[mb]illion)\b)"
    return rf"(?:(?P<{tag}_a>{_ATTACHED_SCALE})|(?:{_WS}|-|{stray})(?P<{tag}_w>{_WORD_SCALE}))?"


_QUALIFIERS = alternation(list(QUALIFIERS))
_CURRENCY_NOUN = alternation(list(NOUNS))


def _currency_word(tag: str) -> str:
    return (
        rf"(?i:(?:(?P<{tag}_q>{_QUALIFIERS})\s+)?(?P<{tag}_w>{_CURRENCY_NOUN}))"
        r"(?:\s+US\b)?(?![\w-])"
    )


_NUMBER_WORD = alternation(NUMBER_WORDS)
_NUMBER_WORDS_RUN = rf"(?:{_NUMBER_WORD})(?:(?:[\s-]+(?:and[\s-]+)?|,\s*)(?:{_NUMBER_WORD}))*\b"
_CENTS = r"(?:\s+and\s+(?:(?P<cents>\d{1,2})|[Nn][Oo])/100)?"  # "and 00/100", "and No/100"

PREFIXED = re.compile(
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
        \s+(?P<words>(?i:{_NUMBER_WORDS_RUN})){_CENTS}(?![\w-])
    )
    """,
    re.VERBOSE,
)
"""A sign or code, then figures (``$300K``, ``USD 1'000'000``) or words (``RMB TEN THOUSAND``).
The accountant's parentheses: ``$(1.2) million`` (``open``), and the ``)`` of
``($3.1) million`` before its scale word (``shut``)."""

_SUFFIX_STARTS = "".join(sorted({*SIGNS_AFTER, *(w[0] for w in [*NOUNS, *QUALIFIERS])}))
"""What a sign, currency word or qualifier after figures starts with (codes: ``A-Z``)."""
SUFFIXED = re.compile(
    rf"""
    (?P<num>{_NUM_START}){_scale("s")}
    (?:{_DASH}(?P<t_num>{_NUM}){_scale("t")})?
    {_WS}(?=[A-Z{re.escape(_SUFFIX_STARTS)}])  # cheap guard: what a code, sign or word starts with
    (?:(?<=\s)(?P<code>{_CODES})|(?P<sym>{_SIGNS_AFTER})|(?<=\s){_currency_word("w")})
    {_END}
    """,
    re.VERBOSE,
)
"""Figures, then a code, sign or currency word (``300.000 €``, ``100 Dollars``)."""

SPELLED_BEFORE = re.compile(
    rf"(?<![\w-])(?i:(?P<words>{_NUMBER_WORDS_RUN})){_CENTS}\s+(?:(?i:(?P<q>{_QUALIFIERS}))\s+)?\Z"
)
"""Number words ending right before a currency noun (searched in a short window)."""
SPELLED_WINDOW = 300
NEXT_WORD = re.compile(r"(?<=[\s,-])[A-Za-z]")
CURRENCY_NOUN_AT = re.compile(rf"(?i:(?P<noun>{_CURRENCY_NOUN}))(?:\s+US\b)?(?![\w-])")
NOUN_FALLBACK = re.compile(rf"(?i:{'|'.join(NOUN_STEMS)})")
"""A currency noun's stem, for a text whose lower-casing moves offsets."""

OPEN_PAREN = re.compile(r"\s*\(\s*")
CLOSE_PAREN = re.compile(r"\s*\)")
PAREN_SPELLED = re.compile(
    rf"\s*\(\s*(?:(?:{_CODES}|US\$)\s*)?(?i:(?P<words>{_NUMBER_WORDS_RUN})){_CENTS}"
    rf"(?:\s+{_currency_word('p')})?\s*\)"
)
"""Words in parentheses restating the figures before them: ``$10,000 (Ten Thousand Dollars)``."""
PRICE_BASIS = re.compile(r"(?i:\b(?:in|constant|real|nominal)\s+)\Z")


# --------------------------------------------------------------------------- the pre-check

_CODE_SET = frozenset(CODES)
_UPPER_RUN = re.compile(r"[A-Z]{3,}")
_SIGNED_FIGURES = re.compile(
    rf"{SIGN_CLASS}(?:(?:[-−]|{_HS}*\([ \t]*)?{_WS}[\d.]|\s+(?i:{_NUMBER_WORD}))"
    rf"|\d(?:{_ATTACHED_SCALE}|(?:{_WS}|-)(?:{_WORD_SCALE}))?{_WS}(?:{_SIGNS_AFTER})"
)
"""A sign with figures (or number words) after it, or figures (and a scale) with a sign
after them."""
_LETTER_SIGN_FIGURE = re.compile(rf"(?<![A-Za-z])(?:{alternation(list(LETTER_SIGNS))}){_WS}[-−]?\d")
"""``Rs. 5,000``: a sign written in letters, with figures after it."""
LETTER_STEMS = [s for s in LETTER_SIGNS if not any(o != s and o in s for o in LETTER_SIGNS)]
"""A piece of text every lettered sign holds (``Rs``)."""


def may_state_money(text: str, pos: int = 0) -> bool:
    """False only when ``text[pos:]`` cannot hold an amount: no currency sign next to
    figures, no currency code (upper-case, three letters) and no currency noun.

    Every amount the scanner accepts is anchored on one of those (upper-case: every code
    of the table is three upper-case letters), and most prose has none — a ``$`` in
    shell code is not next to figures — so this cheap test spares most texts the full
    scan.
    """
    if any(sign in text for sign in SIGN_CHARACTERS) and _SIGNED_FIGURES.search(text, pos):
        return True
    if any(stem in text for stem in LETTER_STEMS) and _LETTER_SIGN_FIGURE.search(text, pos):
        return True
    lowered = text.lower()
    if any(stem in lowered for stem in NOUN_STEMS):
        return True
    for run in _UPPER_RUN.findall(text, pos):
        if any(run[i : i + 3] in _CODE_SET for i in range(len(run) - 2)):
            return True
    return False
