"""Money in text → ``(currency, minor units)`` as an exact integer: the mentions and the
functions that find them.

A stated amount is a constraint, not a hint: osrag stores it as an integer of minor
units (cents for USD) in a ``long`` field and filters on equality. What is written as
money is in :mod:`osrag.extract.money.patterns`, how a match is read (currency, sign,
ranges) in :mod:`osrag.extract.money.candidates`, what its figures are worth
(digits, separators, scales) in :mod:`osrag.extract.money.values`; this module puts
them together.

Invariant: every :class:`MoneyMention` has ``text[start:end] == raw``, a currency from
:data:`~osrag.currencies.MINOR_UNIT_EXPONENTS` and ``0 <= minor_units <= 2**63 - 1``
computed with :class:`decimal.Decimal` (never ``float``). A value that is not a whole
number of minor units, is beyond a ``long`` or has ambiguous separators is never
rounded, wrapped or guessed: :func:`scan_money` reports it in ``rejected`` and
:func:`parse_money` raises :class:`~osrag.errors.ExtractionError`.

**Signs.** ``minor_units`` is always the magnitude and ``negative`` says whether the
amount was written negative; the magnitude is what goes into ``amounts``/``money``, so a
query for ``$500`` matches a document stating ``-$500``.

**Words and figures** (applied here, after the candidates are converted).
``Fifty Thousand Dollars ($50,000)`` and ``$10,000 (Ten Thousand Dollars)`` are one
mention spanning both. If the words and the figures disagree, both values are kept as
two mentions (the document states both; which one governs is a legal question). Where a
spelled amount and figures overlap otherwise, the figures win.

Speed: two compiled regular expressions (currency first, figures first) run once over
the whole text; spelled amounts are found from the few currency nouns (``str.find``),
and Python converts only the matches.
"""

from __future__ import annotations

import bisect
import functools

from pydantic import BaseModel, ConfigDict, Field

from osrag.currencies import LONG_MAX, dollar_currency
from osrag.errors import ExtractionError
from osrag.extract.money.candidates import (
    Candidate,
    apply_signs,
    non_overlapping,
    prefixed,
    resolve,
    spelled,
    suffixed,
)
from osrag.extract.money.patterns import (
    CLOSE_PAREN,
    OPEN_PAREN,
    PAREN_SPELLED,
    PREFIXED,
    SUFFIXED,
    MoneyForm,
    may_state_money,
)
from osrag.extract.money.values import Unrepresentable, ascii_digits, minor_units, spelled_value
from osrag.models import Money

__all__ = [
    "MoneyMention",
    "MoneyScan",
    "RejectedMoney",
    "canonicalize_money",
    "extract_money",
    "full_scan",
    "parse_money",
    "scan_money",
]


class MoneyMention(BaseModel):
    """One amount found in a text; ``text[start:end] == raw`` (code-point offsets)."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    raw: str
    currency: str
    minor_units: int = Field(ge=0, le=LONG_MAX)
    negative: bool = False
    form: MoneyForm = "symbol"
    scale: int = Field(default=0, ge=0)
    """Power of ten a table caption multiplied the written figures by (0: none)."""
    caption: str | None = None
    """The caption that scaled the amount ("(in millions, except per share data)")."""

    @property
    def money(self) -> Money:
        return Money(currency=self.currency, minor_units=self.minor_units)


class RejectedMoney(BaseModel):
    """Something written as money that cannot be stored exactly; reported, never guessed."""

    model_config = ConfigDict(frozen=True)

    start: int
    end: int
    raw: str
    reason: str


class MoneyScan(BaseModel):
    """Everything :func:`scan_money` saw: the amounts and the rejected look-alikes."""

    mentions: list[MoneyMention] = Field(default_factory=list)
    rejected: list[RejectedMoney] = Field(default_factory=list)


@functools.lru_cache(maxsize=64)
def _dollar(default_currency: str) -> str:
    return dollar_currency(default_currency)


def scan_money(text: str, default_currency: str = "USD", *, pos: int = 0) -> MoneyScan:
    """Every amount in ``text[pos:]``, with spans into ``text``, plus what was rejected.

    Mentions are sorted by ``start`` and never overlap.
    """
    read = ascii_digits(text)
    if not may_state_money(read, pos):
        return MoneyScan()
    return _scan(text, read, default_currency, pos)


def full_scan(text: str, default_currency: str = "USD", *, pos: int = 0) -> MoneyScan:
    """:func:`scan_money` without the pre-check (the tests hold the two equal)."""
    return _scan(text, ascii_digits(text), default_currency, pos)


_Resolved = list[tuple[Candidate, int]]
"""Candidates with their minor units, in text order."""


def _scan(text: str, read: str, default_currency: str, pos: int) -> MoneyScan:
    """The amounts of ``read`` (``text`` with its digits in ASCII, offsets unchanged),
    their ``raw`` taken from ``text``.

    1. figures with a currency before or after them; 2. spelled amounts, one mention with
    the figures they restate; 3. one sorted, non-overlapping list, figures winning over
    spelled look-alikes.
    """
    dollar = _dollar(default_currency)
    rejected: list[RejectedMoney] = []
    raw_figures = [c for m in PREFIXED.finditer(read, pos) for c in prefixed(m, read, dollar)]
    raw_figures += [c for m in SUFFIXED.finditer(read, pos) for c in suffixed(m, read, dollar)]
    figures_only = non_overlapping(raw_figures)
    apply_signs(figures_only, read)
    figures = _resolved(figures_only, text, rejected)
    words = _resolved(spelled(read, pos, dollar), text, rejected)
    absorbed = _absorb_figures(words, figures, read)
    _restated_in_words(figures, absorbed, read)
    mentions = [
        MoneyMention(
            start=c.start,
            end=c.end,
            raw=text[c.start : c.end],
            currency=c.currency,
            minor_units=units,
            negative=c.negative,
            form=c.form,
        )
        for c, units in _merged(figures, absorbed, words)
    ]
    rejected.sort(key=lambda r: r.start)
    return MoneyScan(mentions=mentions, rejected=rejected)


def _resolved(candidates: list[Candidate], text: str, rejected: list[RejectedMoney]) -> _Resolved:
    """Each candidate with its minor units; one that cannot be stored exactly goes to
    ``rejected`` with the reason."""
    out = []
    for candidate in candidates:
        try:
            out.append((candidate, resolve(candidate)))
        except (Unrepresentable, ExtractionError) as exc:
            rejected.append(
                RejectedMoney(
                    start=candidate.start,
                    end=candidate.end,
                    raw=text[candidate.start : candidate.end],
                    reason=str(exc),
                )
            )
    return out


def _absorb_figures(spelled: _Resolved, figures: _Resolved, text: str) -> set[int]:
    """ "Fifty Thousand Dollars ($50,000)": each spelled amount followed by figures of the
    same value in parentheses spans them (and takes their currency); the indexes of the
    figures so absorbed."""
    figure_starts = [c.start for c, _ in figures]
    absorbed: set[int] = set()
    for candidate, units in spelled:
        paren = OPEN_PAREN.match(text, candidate.end)
        if paren:
            i = bisect.bisect_left(figure_starts, paren.end())
            if i < len(figures) and figure_starts[i] == paren.end() and figures[i][1] == units:
                figure = figures[i][0]
                close = CLOSE_PAREN.match(text, figure.end)
                candidate.end = close.end() if close else figure.end
                candidate.currency = figure.currency
                absorbed.add(i)
    return absorbed


def _restated_in_words(figures: _Resolved, absorbed: set[int], text: str) -> None:
    """ "$10,000 (Ten Thousand Dollars)": the words in parentheses restate the figures,
    which then span them."""
    for i, (figure, units) in enumerate(figures):
        paren = None if i in absorbed else PAREN_SPELLED.match(text, figure.end)
        value = spelled_value(paren.group("words")) if paren else None
        if paren is None or value is None:
            continue
        cents = paren.group("cents")
        try:
            restated = minor_units(f"{value}.{cents}" if cents else str(value), 0, figure.currency)
        except Unrepresentable:
            continue
        if restated == units:
            figure.end, figure.form = paren.end(), "spelled"


def _merged(figures: _Resolved, absorbed: set[int], spelled: _Resolved) -> _Resolved:
    """One sorted, non-overlapping list; figures win over spelled look-alikes."""
    chosen: _Resolved = []
    for i, (figure, units) in enumerate(figures):  # figures are sorted by start
        if i not in absorbed and not (chosen and figure.start < chosen[-1][0].end):
            chosen.append((figure, units))
    starts = [c.start for c, _ in chosen]
    ends = [c.end for c, _ in chosen]
    for candidate, units in spelled:
        i = bisect.bisect_right(ends, candidate.start)
        if i < len(starts) and starts[i] < candidate.end:
            continue
        chosen.insert(i, (candidate, units))
        starts.insert(i, candidate.start)
        ends.insert(i, candidate.end)
    return chosen


def extract_money(text: str, default_currency: str = "USD") -> list[MoneyMention]:
    """Every amount in ``text``, in order; unrepresentable look-alikes are skipped.

    Use :func:`scan_money` to see what was skipped and why.
    """
    return scan_money(text, default_currency).mentions


def parse_money(text: str, default_currency: str = "USD") -> Money | None:
    """``text`` as exactly one amount (surrounding whitespace ignored), or ``None``.

    ``"$0.3M"`` → ``Money(currency="USD", minor_units=30000000)``. Raises
    :class:`~osrag.errors.ExtractionError` (with the raw text) for an amount
    that cannot be stored exactly: beyond a ``long``, a fraction of a minor
    unit, or ambiguous separators. A leading minus is accepted; the sign is not
    part of :class:`Money` (see :attr:`MoneyMention.negative`).
    """
    stripped = text.strip()
    if not stripped:
        return None
    scan = scan_money(stripped, default_currency)
    for problem in scan.rejected:
        if problem.start == 0 and problem.end == len(stripped):
            raise ExtractionError(f"{stripped!r}: {problem.reason}")
    if len(scan.mentions) == 1:
        mention = scan.mentions[0]
        if mention.start == 0 and mention.end == len(stripped):
            return mention.money
    return None


def canonicalize_money(text: str, default_currency: str = "USD") -> str:
    """Replace every amount with ``money:<minor units>`` — the **evaluation baseline only**.

    This is the reference's broken approach, kept so the evaluation can show
    it side by side: ``money:30000000`` ($300,000) is a substring of
    ``money:300000000`` ($3,000,000), so BM25-style matching on these tokens
    confuses amounts ten times apart. osrag never uses it by default; it stores
    integers and filters on them (see :mod:`osrag.extract.collisions`).
    """
    pieces: list[str] = []
    last = 0
    for mention in extract_money(text, default_currency):
        pieces.append(text[last : mention.start])
        pieces.append(f"money:{mention.minor_units}")
        last = mention.end
    pieces.append(text[last:])
    return "".join(pieces)
