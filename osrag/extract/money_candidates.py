"""Candidate amounts: what the money patterns matched, read into currency, figures,
scale and sign before any conversion (:func:`osrag.extract.money.full_scan` resolves,
orders and merges them).

The rules (ranges, placeholders, signs, "in 2020 dollars") are stated in
:mod:`osrag.extract.money`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from osrag.extract.money_patterns import (
    _CURRENCY_NOUN_AT,
    _NEXT_WORD,
    _NOUN_FALLBACK,
    _NOUN_STEMS,
    _PRICE_BASIS,
    _SPELLED_BEFORE,
    _SPELLED_WINDOW,
    CODE_ALIASES,
    DOLLAR,
    DOLLAR_CURRENCIES,
    SUFFIX_SYMBOLS,
    SYMBOLS,
    MoneyForm,
)
from osrag.extract.money_values import (
    _minor_units,
    _noun_currency,
    _plain_decimal,
    _scale_of,
    _scaled_end,
    _spelled_value,
    _Unrepresentable,
    minor_unit_exponent,
)


@dataclass(slots=True)
class _Candidate:
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
    head: _Candidate,
    tail_number: str,
    tail_start: int,
    tail_scale: int | None,
    tail_end: int,
    *,
    signed_tail: bool = False,
) -> list[_Candidate]:
    """A dash range ``head–tail``: both ends if it reads low to high, else only ``head``
    (and the tail, when it has a currency sign of its own: ``$3 million – $2 million``).

    The head borrows the tail's scale (``$1–2 million``, ``$10–$20 million``) unless that
    puts it above the tail (``$500–$1 million`` is $500 and $1 million).
    """
    tail = replace(head, start=tail_start, end=tail_end, number=tail_number, scale=tail_scale)
    tail.negative = False
    borrowed = replace(head, scale=head.scale if head.scale is not None else tail_scale)
    try:
        low = Decimal(_plain_decimal(head.number or "", scaled=True, currency_after=True))
        high = Decimal(_plain_decimal(tail_number, scaled=True, currency_after=True))
        low = low.scaleb(borrowed.scale or 0)
        high = high.scaleb(tail_scale or 0)
    except (_Unrepresentable, InvalidOperation):
        return [head]
    if high >= low and not head.negative:
        return [borrowed, tail]
    as_written = head.scale is None and high >= low.scaleb(-(tail_scale or 0))
    return [head, tail] if signed_tail or (as_written and not head.negative) else [head]


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


def _prefixed(match: re.Match[str], text: str, dollar: str) -> list[_Candidate]:
    start = match.start()
    if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return []  # inside a word: "AUSD 5", "X$5" ("$$5" is a typo for "$5")
    if _is_placeholder(match, text):
        return []
    pre = match.group("pre")
    symbol = pre in SYMBOLS
    currency = SYMBOLS[pre] if symbol else CODE_ALIASES.get(pre, pre)
    if currency == DOLLAR:
        currency = dollar
    if match.group("words") is not None:  # "RMB TWENTY THOUSAND"
        value = _spelled_value(match.group("words"))
        if symbol or value is None:
            return []
        cents = match.group("cents")
        plain = f"{value}.{cents}" if cents else str(value)
        return [_Candidate(start, match.end(), currency, "spelled", number=plain)]
    end = match.end()
    negative = match.group("sign") is not None or match.group("open") is not None
    if match.group("shut") is not None:  # "($3.1) million": negative, the "(" included
        if text[start - 1 : start] != "(":
            return []  # a stray ")" between the figures and the scale: not one amount
        start, negative = start - 1, True
    post = match.group("pcode")
    post_currency = CODE_ALIASES.get(post, post) if post else None
    if match.group("pw_w"):
        post_currency = _noun_currency(match.group("pw_w"), match.group("pw_q"), dollar)
    if post_currency and post_currency != currency:
        if pre == "$" and post_currency in DOLLAR_CURRENCIES:
            currency = post_currency  # "$5,000 CAD" names which dollar
        else:  # a different currency after the figures is not part of this amount
            end = _scaled_end(match, "t", "t_num") if match.group("t_num") else -1
            end = max(end, _scaled_end(match, "s", "num"))
    head = _Candidate(
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


def _suffixed(match: re.Match[str], text: str, dollar: str) -> list[_Candidate]:
    if match.group("code"):
        currency, form = CODE_ALIASES.get(match.group("code"), match.group("code")), "code"
    elif match.group("sym"):
        currency, form = SUFFIX_SYMBOLS[match.group("sym")], "symbol"
    else:
        currency, form = _noun_currency(match.group("w_w"), match.group("w_q"), dollar), "word"
        number = match.group("num")
        if (
            match.group("t_num") is None
            and len(number) == 4
            and number.isdigit()
            and 1800 <= int(number) <= 2199
            and _PRICE_BASIS.search(text, max(0, match.start() - 20), match.start())
        ):
            return []  # "in 2020 dollars": a price basis, not an amount
    tail_number = match.group("t_num")
    whole = _Candidate(
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


def _spelled(text: str, pos: int, dollar: str) -> list[_Candidate]:
    """Number words before a currency noun: ``Fifty Thousand Dollars``."""
    lowered = text.lower()
    if len(lowered) == len(text):  # lower() kept every offset: find the nouns with str.find
        hits = sorted(
            i
            for stem in _NOUN_STEMS
            for i in _find_all(lowered, stem, pos)
            if i == 0 or not lowered[i - 1].isalpha()
        )
    else:
        hits = [m.start() for m in _NOUN_FALLBACK.finditer(text, pos)]
    found: list[_Candidate] = []
    for hit in hits:
        noun = _CURRENCY_NOUN_AT.match(text, hit)
        if noun is None:
            continue
        window_start = max(pos, hit - _SPELLED_WINDOW)
        words = _SPELLED_BEFORE.search(text, window_start, hit)
        value = _spelled_value(words.group("words")) if words else None
        while words is not None and value is None:  # "one Five Hundred Dollars": drop "one"
            next_word = _NEXT_WORD.search(text, words.start() + 1, hit)
            words = _SPELLED_BEFORE.search(text, next_word.start(), hit) if next_word else None
            value = _spelled_value(words.group("words")) if words else None
        if words is None or value is None:
            continue
        currency = _noun_currency(noun.group(0).split()[0], words.group("q"), dollar)
        if noun.group(0).lower().startswith("pound") and "sterling" not in noun.group(0).lower():
            continue  # "five pounds" is a weight
        cents = words.group("cents")
        plain = f"{value}.{cents}" if cents else str(value)
        found.append(_Candidate(words.start(), noun.end(), currency, "spelled", number=plain))
    return found


def _find_all(haystack: str, needle: str, pos: int) -> list[int]:
    hits = []
    i = haystack.find(needle, pos)
    while i >= 0:
        hits.append(i)
        i = haystack.find(needle, i + len(needle))
    return hits


def _resolve(candidate: _Candidate) -> int:
    if candidate.units is not None:
        return candidate.units
    if candidate.form == "spelled" and candidate.scale is None:
        return _minor_units(candidate.number or "0", 0, candidate.currency)
    plain = _plain_decimal(
        candidate.number or "",
        scaled=candidate.scale is not None,
        currency_after=candidate.currency_after,
        exponent=minor_unit_exponent(candidate.currency),
    )
    return _minor_units(plain, candidate.scale or 0, candidate.currency)


def _non_overlapping(candidates: list[_Candidate]) -> list[_Candidate]:
    """Earliest start wins; at the same start the longer one."""
    kept: list[_Candidate] = []
    for candidate in sorted(candidates, key=lambda c: (c.start, -c.end)):
        if kept and candidate.start < kept[-1].end:
            continue
        kept.append(candidate)
    return kept


def _apply_signs(figures: list[_Candidate], text: str) -> None:
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
