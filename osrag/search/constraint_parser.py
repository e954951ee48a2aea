"""Query text + its money mentions → the amount constraints it states. Pure.

The rule: a comparison word constrains an amount only when it **directly governs**
it — nothing but spaces between the word and the amount (``over $500,000``,
``$500K or more``, ``>$500``). ``over 500 employees`` states no amount (no
currency), and in ``limits of $500,000 over the term`` the word follows the
amount, so the amount is exact (``eq``).

Phrasings (case-insensitive; the amounts are whatever
:func:`~osrag.extract.money.scan_money` reads, scales included: ``$30,000
thousand``, ``$8.2 billion``, ``100 million dollars``):

* ``eq``, said: exactly, precisely, exact, equal to, equals, ``=`` (the phrase is the
  constraint's, never part of the name before it: "a principal of exactly $85,000");
* ``gt``: over, above, more than, greater than, higher than, larger than,
  exceeding, exceeds, exceeded, exceed, in excess of, upwards of, north of, more
  expensive than, costlier than, pricier than, tops, topping, topped ("a partner rate
  **tops** $300 an hour"), ``>``;
* ``gte``: at least, no less than, not less than, no fewer than, not under, not
  below, a minimum of, minimum (of), greater (more) than or equal to, equal to or
  greater (more) than, at or above, ``>=``, ``≥``; after the amount: or more,
  or above, or higher, or greater, or over, and up, and above, and over, and
  higher, ``+`` (``$500K+``);
* ``lt``: under, below, less than, lower than, fewer than, smaller than, south of,
  cheaper than, less expensive than, ``<``;
* ``lte``: at most, no more than, not more than, no greater than, no higher
  than, up to, not exceeding, not to exceed, not over, not above, a maximum of,
  maximum (of), less (lower) than or equal to, equal to or less than, at or below, no
  larger than, ``<=``, ``≤``; after the amount: or less, or below, or lower, or under,
  or fewer, and below, and under, and less — either after the amount's period unit too
  ("$50 a day or less", "$2,000 per month or more"), or after any unit it is priced by
  ("£2.50 a ticket or less", "$15 per signature or less");
* ``between``: between X and Y (or X–Y, X to Y), from X to Y (or through/until), X to Y, X–Y
  / X-Y (``$1M–$2M``, ``$1-2 million``); the ends are sorted for "between" and
  "from"; a bare "X to Y" or "X–Y" is a range only when written low to high
  (``$500 - $200`` is not); "between $1M and 2M" borrows the first end's currency;
  a bare first end borrows the amount's currency and scale ("between 5 and 10
  million dollars", not a year); "between $5 and $10 million" is $5M–$10M (a first
  end without a scale word borrows the second's while it stays below it);
* ``in``: X or Y, X, Y or Z, either X or Y (one ``terms`` of all);
* approximate — about, around, approximately, approx., roughly, circa, ca.,
  nearly, almost, close to, ``~``, ``≈`` — the band ±10 % as a
  ``between`` with ``approximate=True`` (:data:`APPROXIMATE_BAND_PERCENT`);
* anything else: ``eq``.

A comparison or range whose amount is written negative ("under -$5 million", "over $-5",
"between -$5M and $5M") has a negative bound, read as written: the signed value is compared
with it (:attr:`~osrag.schema.constraints.AmountConstraint.written_signed`), never its
magnitude. An exact amount or a choice ("a refund of -$500", "about -$500") names a figure
however a document signs it: its magnitude.

Two mentions of the same condition (``$300K ($300,000)``) are one constraint.
Every step looks at a bounded window around each mention, so the cost is
linear in the length of the query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from osrag.currencies import SIGN_CHARACTERS
from osrag.errors import ExtractionError
from osrag.extract.money import SCALE_WORDS, MoneyMention, ascii_digits, parse_money
from osrag.lexicon.function_words import HEDGES
from osrag.lexicon.links import RANGE_LINKS, RANGE_OPENING, alternation
from osrag.lexicon.periods import YEAR4, rate_phrase_end, unit_phrase_end
from osrag.schema.constraints import (
    APPROXIMATE_BAND_PERCENT,
    AmountConstraint,
    ConstraintOp,
    approximate_band,
)

__all__ = ["APPROXIMATE_BAND_PERCENT", "parse_constraints"]

WINDOW = 40
"""Characters before a mention searched for the word that governs it."""


def _words(*phrases: str) -> str:
    """Phrases as one alternation; spaces inside match any run of white space."""
    ordered = sorted(phrases, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in ordered)


_PREFIX_WORDS: dict[ConstraintOp, tuple[str, ...]] = {
    "eq": ("exactly", "precisely", "equal to", "equals", "exact"),
    "gt": (
        "over", "above", "more than", "greater than", "higher than", "larger than",
        "bigger than", "exceeding", "exceeds", "exceeded", "exceed", "in excess of", "upwards of",
        "north of", "more expensive than", "costlier than", "pricier than", "tops", "topping",
        "topped",
    ),
    "gte": (
        "at least", "no less than", "not less than", "no fewer than", "not under",
        "not below", "a minimum of", "minimum of", "minimum", "min.",
        "greater than or equal to", "more than or equal to", "at or above", "at or over",
        "equal to or greater than", "equal to or more than", "equal to or above",
    ),
    "lt": (
        "under", "below", "less than", "lower than", "fewer than", "smaller than", "south of",
        "cheaper than", "less expensive than", "lesser than",
    ),
    "lte": (
        "at most", "no more than", "not more than", "no greater than", "not greater than",
        "no higher than", "up to", "not exceeding", "not to exceed", "not over",
        "not above", "a maximum of", "maximum of", "maximum", "max.", "up to and including",
        "less than or equal to", "lower than or equal to", "at or below", "at or under",
        "equal to or less than", "equal to or lower than", "equal to or below", "no larger than",
        "not larger than",
    ),
}  # fmt: skip
_PREFIX_SIGNS: dict[ConstraintOp, tuple[str, ...]] = {
    "eq": ("=",),
    "gt": (">",),
    "gte": (">=", "≥", "=>"),
    "lt": ("<",),
    "lte": ("<=", "≤", "=<"),
}
_APPROXIMATE_WORDS = (*sorted(HEDGES), "about", "approx.", "approx", "ca.", "close to")
"""The words of an approximate amount: the hedges, "about", the abbreviations."""
_APPROXIMATE_SIGNS = ("~", "≈")


def _prefix_pattern() -> re.Pattern[str]:
    branches = []
    for op in _PREFIX_WORDS:
        words = _words(*_PREFIX_WORDS[op])
        signs = "|".join(re.escape(s) for s in sorted(_PREFIX_SIGNS[op], key=len, reverse=True))
        branches.append(rf"(?P<{op}>(?<![\w.])(?:{words})(?=\s)|(?:{signs}))")
    approx = _words(*_APPROXIMATE_WORDS)
    signs = "|".join(re.escape(s) for s in _APPROXIMATE_SIGNS)
    branches.append(rf"(?P<approx>(?<![\w.])(?:{approx})(?=\s)|(?:{signs}))")
    # the leftmost match wins, so "no more than" beats "more than", "not over" beats "over"
    return re.compile(rf"(?i:{'|'.join(branches)})\s*\Z")


_PREFIX = _prefix_pattern()
_SUFFIX = re.compile(
    r"(?i:(?P<gte>\+|\s+(?:or\s+(?:more|above|higher|greater|over)|and\s+(?:up|above|over|"
    r"more|higher)))|\s+(?P<lte>(?:or|and)\s+(?:less|below|lower|under|fewer)))(?![\w])"
)
_BETWEEN = RANGE_OPENING
_FROM = re.compile(r"(?i:(?<![\w])from)\s+\Z")
_EITHER = re.compile(r"(?i:(?<![\w])either)\s+\Z")
_TO = re.compile(
    rf"\s*(?:(?:up\s+)?to|{alternation(RANGE_LINKS - {'to'})}|until|[-–—])\s*", re.IGNORECASE
)
_BARE_TO = re.compile(rf"\s+(?:{alternation(RANGE_LINKS)})\s+|\s*[-–—]\s*", re.IGNORECASE)
_OR = re.compile(r"\s*,?\s+or\s+", re.IGNORECASE)
_COMMA = re.compile(r"\s*,\s*")
_AND_GAP = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
_BARE_END = re.compile(
    r"\s+(?i:and|to|through)\s+(?P<num>\d[\d,.']*(?:\s*(?i:[kmb]\b|thousand|million|billion|"
    rf"bn|mm)\b)?)(?![\w{re.escape(SIGN_CHARACTERS)}])"
)


# "between 5 and 10 million dollars": a bare first end right before an amount (its
# opener, the number, the connector); not a year (2019), not inside a word or a number
_BARE_START = re.compile(
    r"(?:(?<![\w])(?P<opener>between|from)\s+)?"
    rf"(?<![\w.,'’{re.escape(SIGN_CHARACTERS)}-])"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<scale>{SCALE_WORDS}|[kmb])\b)?"
    r"\s+(?P<conn>and|to|through)\s+\Z",
    re.IGNORECASE,
)
_ASKED_YEAR = re.compile(YEAR4)
# the scale word a mention is written with ("$10 million", "€2.5bn")
_MENTION_SCALE = re.compile(
    rf"\d\s*(?P<scale>{SCALE_WORDS}|[kmb])\b",
    re.IGNORECASE,
)


_FIGURES = re.compile(r"\d[\d,.]*")


def _written(mention: MoneyMention) -> int:
    """The amount as the question writes it: negative when written so ("-$5 million",
    "$(5) million") — a bound read as written, never its magnitude."""
    return -mention.minor_units if mention.negative else mention.minor_units


def _written_scale(mention: MoneyMention) -> str | None:
    found = _MENTION_SCALE.search(mention.raw)
    return found.group("scale") if found else None


def _borrowed_low(first: MoneyMention, second: MoneyMention) -> int:
    """The first end of a range, reading "between $5 and $10 million" as $5M–$10M: a
    first end written without a scale borrows the second end's when it then stays
    below it ("between $500 and $1 million" stays $500–$1M)."""
    scale = _written_scale(second)
    figures = _FIGURES.search(ascii_digits(first.raw))
    if first.negative or second.negative:
        return _written(first)
    if scale is None or figures is None or _written_scale(first) is not None:
        return first.minor_units
    try:
        borrowed = parse_money(f"{first.currency} {figures.group(0)} {scale}")
    except ExtractionError:
        return first.minor_units
    if borrowed is None or borrowed.minor_units >= second.minor_units:
        return first.minor_units
    return borrowed.minor_units


def _bare_start(text: str, mention: MoneyMention) -> AmountConstraint | None:
    """ "between 5 and 10 million dollars", "from 5 to 10 million dollars", "5 to 10
    million dollars": a range whose first end is a bare number that borrows the
    amount's currency (and its scale when it has none); written low to high."""
    window = text[max(0, mention.start - WINDOW) : mention.start]
    found = _BARE_START.search(window)
    if found is None or _ASKED_YEAR.fullmatch(found.group("num")) or mention.negative:
        return None
    opener, conn = (found.group("opener") or "").lower(), found.group("conn").lower()
    if (opener == "between") != (conn == "and"):
        return None
    scale = found.group("scale") or _written_scale(mention) or ""
    try:
        low = parse_money(f"{mention.currency} {found.group('num')} {scale}".strip())
    except ExtractionError:
        return None
    if low is None or low.minor_units > mention.minor_units:
        return None
    start = mention.start - len(window) + found.start()
    bounds = (low.minor_units, mention.minor_units)
    return _make("between", mention.currency, bounds, text, start, mention.end)


@dataclass
class _Found:
    constraint: AmountConstraint
    next_index: int


def _make(
    op: ConstraintOp,
    currency: str,
    bounds: tuple[int, ...],
    text: str,
    start: int,
    end: int,
    *,
    approximate: bool = False,
) -> AmountConstraint:
    return AmountConstraint(
        op=op,
        currency=currency,
        bounds=bounds,
        text=text[start:end],
        start=start,
        end=end,
        approximate=approximate,
    )


def _full(pattern: re.Pattern[str], gap: str) -> bool:
    return pattern.fullmatch(gap) is not None


def _pair(text: str, mentions: Sequence[MoneyMention], i: int) -> _Found | None:
    """A range or a choice that starts at mention ``i``."""
    first = mentions[i]
    before = text[max(0, first.start - WINDOW) : first.start]
    between, from_ = _BETWEEN.search(before), _FROM.search(before)
    opener = between or from_
    start = first.start - len(opener.group(0)) if opener else first.start
    if i + 1 < len(mentions) and mentions[i + 1].currency == first.currency:
        second = mentions[i + 1]
        gap = text[first.end : second.start]
        first_units = _borrowed_low(first, second)
        low, high = sorted((first_units, _written(second)))
        ordered = first_units <= _written(second)
        if (between and (_full(_AND_GAP, gap) or _full(_BARE_TO, gap))) or (
            from_ and _full(_TO, gap)
        ):
            found = _make("between", first.currency, (low, high), text, start, second.end)
            return _Found(found, i + 2)
        if not opener and ordered and _full(_BARE_TO, gap):
            found = _make("between", first.currency, (low, high), text, start, second.end)
            return _Found(found, i + 2)
    bare = _BARE_END.match(text, first.end) if opener else None
    if bare is not None and _bare_fits(bare, mentions, i, between is not None):
        try:
            other = parse_money(f"{first.currency} {bare.group('num')}", first.currency)
        except ExtractionError:
            other = None
        if other is not None:
            low, high = sorted((_written(first), other.minor_units))
            found = _make("between", first.currency, (low, high), text, start, bare.end())
            return _Found(found, i + 1)
    return _choice(text, mentions, i)


def _bare_fits(
    bare: re.Match[str], mentions: Sequence[MoneyMention], i: int, between: bool
) -> bool:
    """ "between $1M and 2M" / "from $100 to 200": the connector fits the opener, and the
    bare number is not the start of the next mention (a mention in another currency)."""
    connector = bare.group(0).split()[0].lower()
    if connector != "and" if between else connector == "and":
        return False
    return i + 1 >= len(mentions) or mentions[i + 1].start >= bare.end()


def _choice(text: str, mentions: Sequence[MoneyMention], i: int) -> _Found | None:
    """``X or Y`` / ``X, Y or Z``: every alternative, in one ``in``."""
    first = mentions[i]
    j, saw_or = i, False
    while j + 1 < len(mentions) and mentions[j + 1].currency == first.currency:
        gap = text[mentions[j].end : mentions[j + 1].start]
        if _full(_OR, gap):
            saw_or, j = True, j + 1
            break
        if not _full(_COMMA, gap):
            break
        j += 1
    if not saw_or:
        return None
    values = tuple(sorted({m.minor_units for m in mentions[i : j + 1]}))
    either = _EITHER.search(text, max(0, first.start - WINDOW), first.start)
    start = either.start() if either else first.start
    if len(values) == 1:
        return _Found(_make("eq", first.currency, values, text, start, mentions[j].end), j + 1)
    return _Found(_make("in", first.currency, values, text, start, mentions[j].end), j + 1)


def _single(text: str, mention: MoneyMention) -> AmountConstraint:
    """One amount: governed by the word right before it, or after it, or exact."""
    before = _PREFIX.search(text, max(0, mention.start - WINDOW), mention.start)
    if before is not None:
        op = cast(ConstraintOp, before.lastgroup)
        start = before.start()
        if before.lastgroup == "approx":
            band = approximate_band(mention.minor_units)
            return _make(
                "between", mention.currency, band, text, start, mention.end, approximate=True
            )
        units = mention.minor_units if op == "eq" else _written(mention)
        return _make(op, mention.currency, (units,), text, start, mention.end)
    after = _SUFFIX.match(text, mention.end)
    if after is None and (unit_end := unit_phrase_end(text, mention.end)) is not None:
        after = _SUFFIX.match(text, unit_end)  # "$50 a day or less"
    if after is None and (rate_end := rate_phrase_end(text, mention.end)) is not None:
        after = _SUFFIX.match(text, rate_end)  # "£2.50 a ticket or less"
    if after is not None:
        op = "gte" if after.group("gte") is not None else "lte"
        return _make(op, mention.currency, (_written(mention),), text, mention.start, after.end())
    return _make("eq", mention.currency, (mention.minor_units,), text, mention.start, mention.end)


def parse_constraints(text: str, mentions: Sequence[MoneyMention]) -> list[AmountConstraint]:
    """The constraints ``text`` states about the amounts in ``mentions`` (sorted, as
    :func:`~osrag.extract.money.scan_money` returns them), in the order stated; the
    same condition stated twice is kept once (its first statement). Digits in any script
    are read as ASCII; each constraint's ``text`` is the query as written."""
    written, text = text, ascii_digits(text)
    found: dict[tuple[object, ...], AmountConstraint] = {}
    i = 0
    while i < len(mentions):
        bare = _bare_start(text, mentions[i])
        if bare is not None:
            found.setdefault(bare.key, bare)
            i += 1
            continue
        pair = _pair(text, mentions, i)
        if pair is not None:
            constraint, i = pair.constraint, pair.next_index
        else:
            constraint, i = _single(text, mentions[i]), i + 1
        found.setdefault(constraint.key, constraint)
    if text is not written:
        return [c.model_copy(update={"text": written[c.start : c.end]}) for c in found.values()]
    return list(found.values())
