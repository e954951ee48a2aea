"""Candidate amounts: what the money patterns matched, read into currency, figures,
scale and sign before any conversion (:func:`osrag.extract.money.scan.full_scan`
converts, orders and merges them).

The rules applied here
----------------------
* **Which currency.** A sign, code or noun reads as the currency table says
  (:mod:`osrag.currencies`): ``$`` and an unqualified "dollars" are the default currency
  when it is a dollar currency, else USD; ``US$``/``USD``/"US dollars" are always USD;
  ``$5,000 CAD`` is CAD (a dollar code after ``$`` names which dollar). A different
  currency after the figures is not part of the amount.
* **Not an amount.** A sign or code inside a word (``AUSD 5``, ``X$5``); in code, a
  single-digit ``$1`` touching a quote, backtick, bracket, brace, ``/`` or ``=``
  (``'$2/$1/'``, ``[$1]``, ``awk '{print $1}'``) is a placeholder, not a dollar; "in
  2020 dollars" — a year followed by "dollars" after *in*, *constant*, *real* or
  *nominal* — is a price basis; a year followed by a code or sign that a unit follows
  (``2019 RMB’Million``, ``2019 RMB'000``) is a column header.
* **Negatives.** A minus attached before the amount (``-$500``, ``$-500``, ``−€5``) sets
  ``negative``; the dash of ``$100 - $200`` joins a range instead. Parentheses are *not*
  a sign: in contracts ``Five Hundred Dollars ($500)`` restates an amount, so ``($500)``
  is positive. Only the accountant's forms that cannot be a restatement are negative:
  parentheses between the sign and the figures (``$(1.2) million``, ``$ (3.1)``) and a
  parenthesis closed before the scale word (``($3.1) million``).
* **Ranges.** ``$100,000–$300,000`` and ``$100,000 to $300,000`` give two amounts. A dash
  range whose second end has no currency of its own (``$100,000–300,000``, ``$1–2
  million``, ``100–300 dollars``) gives both ends when the second is not smaller than
  the first (ranges are written low to high; this keeps ``$500 - 20`` from inventing a
  range); ``to`` without a second currency sign is not a range, nor is a dash that opens
  the next line (a list item's marker: ``£19.00`` over ``- 500 cards``). See :func:`_ends`
  for the borrowed scale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from osrag.currencies import (
    CODES,
    DOLLAR,
    DOLLAR_CURRENCIES,
    NOUN_STEMS,
    SIGNS,
    SIGNS_AFTER,
    noun_currency,
)
from osrag.extract.money.patterns import (
    CURRENCY_NOUN_AT,
    NEXT_WORD,
    NOUN_FALLBACK,
    PRICE_BASIS,
    SPELLED_BEFORE,
    SPELLED_WINDOW,
    MoneyForm,
)
from osrag.extract.money.values import (
    Unrepresentable,
    minor_unit_exponent,
    minor_units,
    plain_decimal,
    scale_exponent,
    spelled_value,
)


@dataclass(slots=True)
class Candidate:
    """One amount as written, before conversion."""

    start: int
    end: int
    currency: str
    form: MoneyForm
    number: str | None = None  # figures as written, or None when `units` is known
    scale: int | None = None
    units: int | None = None
    negative: bool = False
    currency_after: bool = False


def _ends(
    head: Candidate,
    tail_number: str,
    tail_start: int,
    tail_scale: int | None,
    tail_end: int,
    *,
    signed_tail: bool = False,
) -> list[Candidate]:
    """A dash range ``head–tail``: both ends if it reads low to high, else only ``head``
    (and the tail, when it has a currency sign of its own: ``$3 million – $2 million``).

    The head borrows the tail's scale (``$1–2 million``, ``$10–$20 million``) unless that
    puts it above the tail (``$500–$1 million`` is $500 and $1 million).
    """
    tail = replace(head, start=tail_start, end=tail_end, number=tail_number, scale=tail_scale)
    tail.negative = False
    borrowed = replace(head, scale=head.scale if head.scale is not None else tail_scale)
    try:
        low = Decimal(plain_decimal(head.number or "", scaled=True, currency_after=True))
        high = Decimal(plain_decimal(tail_number, scaled=True, currency_after=True))
        low = low.scaleb(borrowed.scale or 0)
        high = high.scaleb(tail_scale or 0)
    except (Unrepresentable, InvalidOperation):
        return [head]
    if high >= low and not head.negative:
        return [borrowed, tail]
    as_written = head.scale is None and high >= low.scaleb(-(tail_scale or 0))
    return [head, tail] if signed_tail or (as_written and not head.negative) else [head]


def _scale_of(match: re.Match[str], tag: str) -> int | None:
    token = match.group(f"{tag}_a") or match.group(f"{tag}_w")
    return scale_exponent(token) if token else None


def _scaled_end(match: re.Match[str], tag: str, number_group: str) -> int:
    return max(match.end(number_group), match.end(f"{tag}_a"), match.end(f"{tag}_w"))


def _noun(noun: str, qualifier: str | None, dollar: str) -> str:
    """The currency a matched noun names; an unqualified dollar is ``dollar``."""
    currency = noun_currency(noun, qualifier)
    if currency is None:
        raise ValueError(f"{noun!r} is no currency noun")  # the patterns match only nouns
    return dollar if currency == DOLLAR else currency


_PLACEHOLDER_EDGES = "`'\"[]{}/="


def _is_placeholder(match: re.Match[str], text: str) -> bool:
    """``$1`` in ``'$2/$1/'``, ``[$1]``, `` `$1` ``: a regex or template placeholder."""
    if match.group("pre") != "$" or match.end() - match.start() != 2:
        return False
    before = text[match.start() - 1] if match.start() else ""
    after = text[match.end()] if match.end() < len(text) else ""
    return (before != "" and before in _PLACEHOLDER_EDGES) or (
        after != "" and after in _PLACEHOLDER_EDGES
    )


def prefixed(match: re.Match[str], text: str, dollar: str) -> list[Candidate]:
    start = match.start()
    if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return []  # inside a word: "AUSD 5", "X$5" ("$$5" is a typo for "$5")
    if _is_placeholder(match, text):
        return []
    pre = match.group("pre")
    symbol = pre in SIGNS
    currency = SIGNS[pre] if symbol else CODES[pre]
    if currency == DOLLAR:
        currency = dollar
    if match.group("words") is not None:  # "RMB TWENTY THOUSAND"
        value = spelled_value(match.group("words"))
        if symbol or value is None:
            return []
        cents = match.group("cents")
        plain = f"{value}.{cents}" if cents else str(value)
        return [Candidate(start, match.end(), currency, "spelled", number=plain)]
    end = match.end()
    negative = match.group("sign") is not None or match.group("open") is not None
    if match.group("shut") is not None:  # "($3.1) million": negative, the "(" included
        if text[start - 1 : start] != "(":
            return []  # a stray ")" between the figures and the scale: not one amount
        start, negative = start - 1, True
    post = match.group("pcode")
    post_currency = CODES[post] if post else None
    if match.group("pw_w"):
        post_currency = _noun(match.group("pw_w"), match.group("pw_q"), dollar)
    if post_currency and post_currency != currency:
        if pre == "$" and post_currency in DOLLAR_CURRENCIES:
            currency = post_currency  # "$5,000 CAD" names which dollar
        else:  # a different currency after the figures is not part of this amount
            end = _scaled_end(match, "t", "t_num") if match.group("t_num") else -1
            end = max(end, _scaled_end(match, "s", "num"))
    head = Candidate(
        start,
        end,
        currency,
        "symbol" if symbol else "code",
        number=match.group("num"),
        scale=_scale_of(match, "s"),
        negative=negative,
    )
    if match.group("t_num") is None:
        return [head]
    head = replace(head, end=_scaled_end(match, "s", "num"))
    signed = match.group("t_pre") is not None
    tail_start = match.start("t_pre") if signed else match.start("t_num")
    tail_scale = _scale_of(match, "t")
    return _ends(head, match.group("t_num"), tail_start, tail_scale, end, signed_tail=signed)


_BARE_YEAR = re.compile(r"(?:19|20)\d\d")
_UNIT_AFTER = re.compile(r"(?i)[ \t]?['’‘`]?[ \t]?(?:000|m|mn|bn|million|billion|thousand)\b")
"""A scale unit glued to the code or sign after a figure (``RMB’Million``, ``€m``)."""


def suffixed(match: re.Match[str], text: str, dollar: str) -> list[Candidate]:
    if match.group("code") or match.group("sym"):
        number = match.group("num")
        if (
            match.group("t_num") is None
            and _BARE_YEAR.fullmatch(number)
            and _UNIT_AFTER.match(text, match.end())
        ):
            return []  # "2019 RMB’Million", "2019 RMB'000": a column's year and unit
    if match.group("code"):
        currency, form = CODES[match.group("code")], "code"
    elif match.group("sym"):
        currency, form = SIGNS_AFTER[match.group("sym")], "symbol"
    else:
        currency, form = _noun(match.group("w_w"), match.group("w_q"), dollar), "word"
        number = match.group("num")
        if (
            match.group("t_num") is None
            and len(number) == 4
            and number.isdigit()
            and 1800 <= int(number) <= 2199
            and PRICE_BASIS.search(text, max(0, match.start() - 20), match.start())
        ):
            return []  # "in 2020 dollars": a price basis, not an amount
    tail_number = match.group("t_num")
    whole = Candidate(
        match.start(),
        match.end(),
        currency,
        form,  # type: ignore[arg-type]
        number=match.group("num"),
        scale=_scale_of(match, "s"),
        currency_after=True,
    )
    if tail_number is None:
        return [whole]
    head = replace(whole, end=_scaled_end(match, "s", "num"))
    ends = _ends(head, tail_number, match.start("t_num"), _scale_of(match, "t"), match.end())
    if len(ends) == 2:
        return ends
    # not a range: only the second number carries the currency
    tail_start, tail_scale = match.start("t_num"), _scale_of(match, "t")
    return [replace(whole, start=tail_start, number=tail_number, scale=tail_scale)]


def spelled(text: str, pos: int, dollar: str) -> list[Candidate]:
    """Number words before a currency noun: ``Fifty Thousand Dollars``."""
    lowered = text.lower()
    if len(lowered) == len(text):  # lower() kept every offset: find the nouns with str.find
        hits = sorted(
            i
            for stem in NOUN_STEMS
            for i in _find_all(lowered, stem, pos)
            if i == 0 or not lowered[i - 1].isalpha()
        )
    else:
        hits = [m.start() for m in NOUN_FALLBACK.finditer(text, pos)]
    found: list[Candidate] = []
    for hit in hits:
        noun = CURRENCY_NOUN_AT.match(text, hit)
        if noun is None:
            continue
        window_start = max(pos, hit - SPELLED_WINDOW)
        words = SPELLED_BEFORE.search(text, window_start, hit)
        value = spelled_value(words.group("words")) if words else None
        while words is not None and value is None:  # "one Five Hundred Dollars": drop "one"
            next_word = NEXT_WORD.search(text, words.start() + 1, hit)
            words = SPELLED_BEFORE.search(text, next_word.start(), hit) if next_word else None
            value = spelled_value(words.group("words")) if words else None
        if words is None or value is None:
            continue
        currency = _noun(noun.group("noun"), words.group("q"), dollar)
        cents = words.group("cents")
        plain = f"{value}.{cents}" if cents else str(value)
        found.append(Candidate(words.start(), noun.end(), currency, "spelled", number=plain))
    return found


def _find_all(haystack: str, needle: str, pos: int) -> list[int]:
    hits = []
    i = haystack.find(needle, pos)
    while i >= 0:
        hits.append(i)
        i = haystack.find(needle, i + len(needle))
    return hits


def resolve(candidate: Candidate) -> int:
    if candidate.units is not None:
        return candidate.units
    if candidate.form == "spelled" and candidate.scale is None:
        return minor_units(candidate.number or "0", 0, candidate.currency)
    plain = plain_decimal(
        candidate.number or "",
        scaled=candidate.scale is not None,
        currency_after=candidate.currency_after,
        exponent=minor_unit_exponent(candidate.currency),
    )
    return minor_units(plain, candidate.scale or 0, candidate.currency)


def non_overlapping(candidates: list[Candidate]) -> list[Candidate]:
    """Earliest start wins; at the same start the longer one."""
    kept: list[Candidate] = []
    for candidate in sorted(candidates, key=lambda c: (c.start, -c.end)):
        if kept and candidate.start < kept[-1].end:
            continue
        kept.append(candidate)
    return kept


def apply_signs(figures: list[Candidate], text: str) -> None:
    """``-$500`` is negative; the dash of ``$100 - $200`` joins a range instead."""
    previous_end = -1
    for figure in figures:
        s = figure.start
        if (
            s
            and text[s - 1] in "-−"
            and (s == 1 or not (text[s - 2].isalnum() or text[s - 2] in ".,_"))
        ):
            joins_range = previous_end >= 0 and not text[previous_end : s - 1].strip()
            if not joins_range:
                figure.negative = True
                figure.start = s - 1
        previous_end = figure.end
