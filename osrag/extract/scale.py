"""Scale captions: "(in millions, except per share data)" → a power of ten and its exceptions.

Financial tables state their unit once, in a caption, and write the cells bare:
``$831.7`` under "(columnar dollars in millions except per share amounts)" is
$831,700,000. This module reads such captions; :mod:`osrag.extract.tables`
decides which cells a caption governs.

What is a caption (the rule)
----------------------------
A caption names a scale — ``thousands`` (10³), ``millions`` (10⁶), ``billions``
(10⁹), and in Indian filings ``lakhs`` (10⁵) and ``crores`` (10⁷): ``(₹ in crore)``,
``(Rs. in lakhs)`` — in one of the forms filings use, and nothing else that could be a
sentence:

* a parenthetical that states the scale with *in*: ``(in thousands)``,
  ``(In millions, except per share amounts)``, ``($ in billions)``,
  ``(Dollars in thousands)``, ``(In millions of U.S. dollars)``,
  ``(amounts in thousands)``, ``(table in millions)``, ``(in $000's)``,
  ``(Tabular amounts in millions, unless otherwise disclosed)``,
  ``(All amounts expressed in thousands of U.S. Dollars, except share data)``;
* a unit written as a cell or line of its own, or after a column's year:
  ``$ in millions``, ``U.S. $ in thousands``, ``in millions``, ``(000s)``, ``£ million``,
  ``$000``, ``$'000``, ``£'000``, ``€m``, ``$m``, ``£m``, ``2019 €m``,
  ``2018 $’000 RESTATED``.

"millions of customers" in a sentence is not a caption (no parenthesis, not a
cell of its own); "in millions" with no ``in`` before the scale word is not
either. A caption's **currency** is the one it names — any sign, code or noun of the
currency table (:mod:`osrag.currencies`): ``$``, ``€``, ``S$``, ``Rs.``, ``EUR``,
"dollars", "U.S. dollars", "NT dollars", "euros", "pounds", "yen", ``€m``… — or ``None``
when it names only a scale — then a cell is money only by a currency sign of its own, its row's or
its column's (:mod:`osrag.extract.tables`).

**Exceptions**: the words after *except* (``except per share amounts``,
``except share and per share data``, ``except percentages``, ``except ratios``)
name rows the scale does not reach; per-share values are never scaled whether
or not the caption says so (a per-share figure is never stated in thousands).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

from osrag.currencies import (
    CAPTION_NOUNS,
    CODES,
    LETTER_SIGNS,
    QUALIFIERS,
    SIGN_CHARACTERS,
    SIGNS,
    noun_currency,
)
from osrag.extract.marks import LAKH, line_matches
from osrag.extract.money import SCALES, SIGN_CLASS, alternation, sign_pattern

__all__ = ["Caption", "declared_currencies", "find_caption", "parse_caption"]

_SCALE_WORDS = {"thousand": 3, "thousands": 3, "million": 6, "millions": 6}
_SCALE_WORDS |= {"billion": 9, "billions": 9}
_SCALE_WORDS |= {"lakh": 5, "lakhs": 5, "lac": 5, "lacs": 5, "crore": 7, "crores": 7}

# The currency a caption names, from the currency table: a sign (a space allowed before
# the "$" of a lettered one: "U.S. $"), a code in any case ("USD", "eur"), or a noun with
# its qualifier ("U.S. dollars", "Canadian dollars", "euros", "pounds", "rupees").
_SIGN = rf"(?:{sign_pattern(spaced=True)}|\b(?:{alternation(list(CODES))}))"
_NOUN = rf"(?:(?:{alternation(list(QUALIFIERS))})\s+)?(?:{alternation(list(CAPTION_NOUNS))})"
_SIGNS = {"".join(sign.lower().split()): code for sign, code in SIGNS.items()}
_SCALE = "(?:" + "|".join(sorted(_SCALE_WORDS, key=len, reverse=True)) + ")"
_QUOTE = r"['’‘`]"

# "in millions", "$ in millions", "dollars in thousands", "in thousands of U.S. dollars",
# "in $000's", "in millions of €", "in € millions"
_IN_SCALE = re.compile(
    rf"(?i)(?:(?P<pre>{_SIGN}|{_NOUN})\s*)?\bin\s+(?:(?P<mid>{_SIGN})\s*)?"
    rf"(?:(?P<scale>{_SCALE})\b|(?P<k>{_SIGN})?\s*{_QUOTE}?000{_QUOTE}?s?\b)"
    rf"(?:\s+(?:of\s+)?(?P<post>{_SIGN}|{_NOUN}))?"
)
# a unit on its own: "$'000", "$000", "(000s)", "€m", "$m", "£'000", "€ million"
_UNIT = re.compile(
    rf"(?i)(?<![\w{re.escape(SIGN_CHARACTERS)}])(?:(?P<sign>{_SIGN})\s?{_QUOTE}?(?:000\b|(?P<m>m|bn|mn|{_SCALE})\b)"
    rf"|\(000{_QUOTE}?s\)|\b000{_QUOTE}?s\b)"
)
_IN_SCALE_CORE = re.compile(
    rf"(?i)\bin\s+(?:{_SIGN}\s*)?(?:{_SCALE}\b|(?:{_SIGN})?\s*{_QUOTE}?000)"
)
"""What every :data:`_IN_SCALE` match holds ("in" and what follows it): a text without it
is spared the full pattern, whose optional lead makes every position a candidate."""
_UNIT_LETTERS = tuple(
    sorted({code.lower() for code in CODES} | {s.lower().rstrip(".") for s in LETTER_SIGNS})
)
"""What a unit written in letters holds: a code or a lettered sign, lower-cased."""
_ASCII_SIGNS = tuple(ch for ch in SIGN_CHARACTERS if ch.isascii())
_EXCEPT = re.compile(r"(?i)\bexcept\b(?P<what>[^)]*)")
_SIGN_UNIT = re.compile(rf"{SIGN_CLASS}\s?(?:[mM]|[bBmM][nN])\b")
_UNIT_WORD = re.compile(r"[mb]n?\b")
_CODE_UNIT = re.compile(rf"(?i)\b(?:{alternation([*CODES, *LETTER_SIGNS])})\s?(?:m|bn|mn)\b")


def _hinted(text: str) -> bool:
    """False when ``text`` holds no caption: every caption holds a scale word, ``000``,
    or a sign, code or lettered sign before ``m``/``bn``/``mn``; most text holds none.
    (``str.lower`` and ``in`` first: many times faster than one case-blind pattern.)"""
    lowered = text.lower()
    if "000" in lowered or "thousand" in lowered or "million" in lowered:
        return True
    if "billion" in lowered or "lakh" in lowered or "crore" in lowered:
        return True
    if "lac" in lowered and LAKH.search(lowered):
        return True
    if _SIGN_UNIT.search(text):
        return True
    return _UNIT_WORD.search(lowered) is not None and _CODE_UNIT.search(text) is not None


_SHARES_ONLY = re.compile(r"(?i)\b(?:shares|units|employees|customers)\s+in\b")
_MONEY_SUBJECT = re.compile(
    rf"(?i)amounts|\bcurrency\b|{SIGN_CLASS}|\b(?:{alternation(list(CAPTION_NOUNS))})\b"
)
_SCALE_PAREN = re.compile(r"\(([^()]{1,200})\)")
_YEARISH = re.compile(r"(?i)\b(?:fiscal\s+|fy\s*)?(?:19|20)\d\d\b|\brestated\d*\b|\bnotes?\b")


@dataclass(frozen=True, slots=True)
class Caption:
    """A scale statement: ``10**exponent``, the currency it names (or ``None``), its exceptions."""

    exponent: int
    currency: str | None
    text: str
    start: int
    end: int
    except_per_share: bool = False
    except_shares: bool = False


def _currency(token: str | None) -> str | None:
    """The currency a caption's sign, code or noun names (``$`` for an unqualified dollar,
    resolved by the default currency where the caption is applied)."""
    if not token:
        return None
    compact = "".join(token.lower().split())
    if compact in _SIGNS:
        return _SIGNS[compact]
    if compact.upper() in CODES:
        return CODES[compact.upper()]
    words = token.split()
    for i in range(len(words)):  # "U.S. dollars": the qualifier, then the noun
        currency = noun_currency(" ".join(words[i:]), " ".join(words[:i]) or None, caption=True)
        if currency is not None:
            return currency
    return None


def _exceptions(text: str) -> tuple[bool, bool]:
    match = _EXCEPT.search(text)
    if match is None:
        return False, False
    what = match.group("what").lower()
    per_share = "per share" in what or "per-share" in what or "eps" in what
    shares = bool(re.search(r"\bshares?\b(?!\s*amounts)", what.replace("per share", "")))
    return per_share, shares


def _from_in_scale(match: re.Match[str]) -> tuple[int, str | None]:
    scale = match.group("scale")
    exponent = _SCALE_WORDS[scale.lower()] if scale else 3
    currency = None
    for group in ("pre", "mid", "k", "post"):
        currency = currency or _currency(match.group(group))
    return exponent, currency


def parse_caption(text: str, offset: int = 0) -> Caption | None:
    """``text`` as a whole caption — a cell, a line, or a parenthetical — or ``None``.

    The whole of ``text`` must be the caption: the scale statement, optionally in
    parentheses, with at most a year, "fiscal", "restated" or a note marker
    beside it (``2019 €m``). ``offset`` is added to the span.
    """
    stripped = text.strip()
    if not stripped or len(stripped) > 240:
        return None
    caption = _whole_caption(stripped)
    if caption is None:
        return None
    lead = offset + text.find(stripped)
    return dataclasses.replace(caption, start=lead, end=lead + len(stripped)) if lead else caption


@functools.lru_cache(maxsize=1 << 13)
def _whole_caption(stripped: str) -> Caption | None:
    """:func:`parse_caption` of a stripped text at offset 0, memoised: table cells and
    lines repeat (``$'000``, ``2019``, a row label in every table of a filing)."""
    if not _hinted(stripped):
        return None
    lead = 0
    inner = stripped[1:-1] if stripped.startswith("(") and stripped.endswith(")") else stripped
    match = _IN_SCALE.search(inner) if _IN_SCALE_CORE.search(inner) else None
    if match is not None:
        if _SHARES_ONLY.search(inner) and not _MONEY_SUBJECT.search(inner):
            return None  # "(shares in thousands)" scales counts, never money
        exponent, currency = _from_in_scale(match)
        rest = _EXCEPT.sub(" ", inner[: match.start()] + " " + inner[match.end() :])
        if stripped is inner and not _only_words(rest, allow=r"[\w\s,.;:'’-]"):
            return None
        if stripped is inner and len(rest.split()) > 6:
            return None  # a bare "in millions" in a sentence is not a caption
        per_share, shares = _exceptions(inner)
        return Caption(exponent, currency, stripped, lead, lead + len(stripped), per_share, shares)
    unit = _UNIT.search(inner) if _may_state_unit(inner) else None
    if unit is None:
        return None
    rest = _YEARISH.sub(" ", inner[: unit.start()] + " " + inner[unit.end() :])
    if re.search(r"\w", rest):
        return None
    word = (unit.group("m") or "").lower()
    exponent = (_SCALE_WORDS.get(word) or SCALES.get(word, 6)) if word else 3
    currency = _currency(unit.group("sign"))
    return Caption(exponent, currency, stripped, lead, lead + len(stripped))


def _may_state_unit(text: str) -> bool:
    """False only when :data:`_UNIT` cannot match: every unit holds ``000``, a currency
    sign, a lettered sign or a currency code (an ASCII text is lower-cased exactly; any
    other goes to the pattern)."""
    if "000" in text or not text.isascii() or any(sign in text for sign in _ASCII_SIGNS):
        return True
    lowered = text.lower()
    return any(letters in lowered for letters in _UNIT_LETTERS)


def _only_words(text: str, allow: str) -> bool:
    return re.fullmatch(rf"{allow}*", text) is not None


def find_caption(text: str, offset: int = 0) -> Caption | None:
    """The last parenthetical caption inside a line of prose, or the line itself as one.

    "…are as follows (in thousands):" and "NOTES TO FINANCIAL STATEMENTS (in
    thousands, except per share data)" state captions; "the loss was $3 (in
    part offset)" does not. The caption must be a parenthetical (or the whole
    line), so "millions of customers" in a sentence never is.
    """
    if not _hinted(text):
        return None
    whole = parse_caption(text, offset)
    if whole is not None:
        return whole
    found = None
    for paren in _SCALE_PAREN.finditer(text):
        caption = parse_caption(paren.group(0), offset + paren.start())
        if caption is not None:
            found = caption
    return found


# ------------------------------------------------------------------ declared currency

_DECLARED = re.compile(
    rf"""(?imx)
    ^[ \t>*_#-]*\(?[ \t*_]*
    (?:
        (?:all\s+|the\s+)?(?:amounts|figures|values|prices|sums|charges|fees)
        (?:\s+(?:on|in)\s+this\s+\w+)?
        \s+(?:are\s+|is\s+)?(?:(?:shown|stated|expressed|given|quoted|presented|denominated|
            reported|listed|payable|written)\s+)?in\s+
        (?P<currency>{_SIGN}|{_NOUN}(?:\s+sterling)?)
      | currency[ \t]*[*_]*[ \t]*[:=–—-][ \t]*[*_]*[ \t]*(?P<code>{_SIGN}|{_NOUN})
    )
    (?:[ \t,]+(?:unless\s+(?:otherwise\s+)?(?:stated|noted|indicated|shown)|except\s+where\s+
        (?:otherwise\s+)?(?:stated|noted|indicated)))?
    [ \t*_]*[.)]?[ \t*_]*\)?[ \t*_.]*$
    """
)
"""A line (or a parenthetical line) that declares the currency of the figures after it:
"All amounts in US dollars.", "Amounts are shown in GBP", "Currency: EUR", "(all figures
in pounds sterling)", "All prices are quoted in euros unless otherwise stated". The whole
line is the declaration; a sentence that mentions a currency among other words is none."""


def declared_currencies(text: str, pos: int = 0) -> list[tuple[int, str]]:
    """``(end, currency)`` of every line of ``text[pos:]`` that declares the currency of
    the figures after it (:data:`_DECLARED`), in order: the currency's code, or the sign
    ``$`` for an unqualified dollar (the default currency resolves it where it is
    applied). A scale caption naming a currency is a caption, read by :func:`find_caption`,
    not a declaration."""
    found: list[tuple[int, str]] = []
    lowered = text.lower()
    if "currency" not in lowered and " in " not in lowered:
        return found
    for match in line_matches(_DECLARED, text, pos):
        currency = _currency(match.group("currency") or match.group("code"))
        if currency is not None:
            found.append((match.end(), currency))
    return found
