"""Money in text → ``(currency, minor units)`` as an exact integer.

A stated amount is a constraint, not a hint: osrag stores it as an integer of
minor units (cents for USD) in a ``long`` field and filters on equality. This
module finds the amounts and converts them exactly.

Invariant: every :class:`MoneyMention` has ``text[start:end] == raw``, a
currency from :data:`MINOR_UNIT_EXPONENTS` and ``0 <= minor_units <= 2**63 - 1``
computed with :class:`decimal.Decimal` (never ``float``): ``$0.3M`` is exactly
``30_000_000`` cents. A value that is not a whole number of minor units, is
beyond a ``long`` or has ambiguous separators is never rounded, wrapped or
guessed: :func:`scan_money` reports it in ``rejected`` and
:func:`parse_money` raises :class:`~osrag.errors.ExtractionError`.

What is money (the rule)
------------------------
A number is money only when a currency is written next to it:

* a sign or code before it: ``$300,000``, ``$ 300,000``, ``US$300,000``,
  ``U.S.$5``, ``€300,000``, ``£1,500``, ``¥1``, ``C$``/``A$``/``HK$``…,
  ``USD 300,000``, ``USD300,000``, ``EUR 1.500,00``, ``RMB20,000``, ``Rs. 5,000``, ``₹5``;
* a code, sign or currency word after it: ``300,000 USD``, ``300.000 €``,
  ``300,000 dollars``, ``100 Dollars``, ``5 US dollars``, ``10 euros``,
  ``500 pounds sterling`` (bare "pounds" is a weight, not money). A code or
  word after the figures needs a space (``500USD`` and ``%20SGD`` are not
  money); a sign may be attached (``300€``);
* spelled out with a currency: ``Fifty Thousand Dollars``,
  ``Four Hundred Eighty Thousand and 00/100 Dollars``, ``RMB TWENTY THOUSAND``.

Scales: attached ``k``/``K`` (10³), ``m``/``M`` (10⁶), ``B`` (10⁹); attached or
spaced ``mm``/``MM``, ``mil``, ``mn``, ``mln``, ``thousand``, ``million``, ``bn``,
``bln``, ``billion``, ``trillion`` (any case): ``$300K``, ``$0.3M``, ``$2.5 million``,
``$1.2bn``; ``Mio``/``Mrd``/``Mia`` (capitalised: ``€5,2 Mio.``); ``lakh``/``lac`` (10⁵),
``crore`` (10⁷), ``lakh crore`` (10¹²): ``Rs. 5 lakh``, ``₹2 crore``.

Not money: bare numbers, ``300,000 miles``, ``UMB-300000``, ``15%`` (and
``$15%``), years, phone and section numbers, a number glued to letters
(``$5OO,000`` — OCR noise), malformed grouping (``$1,600,00.00``), and
redactions: a currency sign followed by anything but a digit (``$[*****]``,
``$[●]``, ``$ [***]``, ``US$***``) is never an amount. In code, a single-digit
``$1`` touching a quote, backtick, bracket, brace, ``/`` or ``=`` (``'$2/$1/'``,
``[$1]``, ``awk '{print $1}'``) is a placeholder, not a dollar.

Policies (decided here, tested in ``tests/test_money.py``)
----------------------------------------------------------
* **Dollar sign.** ``$`` and a bare "dollars" mean the configured default
  currency when it is a dollar currency (USD, CAD, AUD, NZD, HKD, SGD), else
  USD. ``US$``/``USD``/"US dollars" are always USD; ``$5,000 CAD`` is CAD.
  ``¥`` is JPY. ``RMB`` is CNY.
* **Separators.** ``1,500.00`` (US), ``1.500,00`` and ``1.500.000`` (continental),
  ``1'500'000`` (Swiss), ``5,00,000`` (Indian) and no-break-space grouping are
  unambiguous.
  ``1,500`` is always fifteen hundred. A single comma with one or two digits
  after it is a decimal comma (``300,50 €``). A lone ``.ddd`` (``1.500``) is
  ambiguous: it is a decimal point when a scale follows (``$14.575 million``)
  or the currency has three minor digits (``KWD 1.250``), thousands grouping
  when the currency is written *after* the number
  (``300.000 €``, the continental placement), and otherwise rejected as
  ambiguous (``$1.500``, ``€300.000``) rather than guessed. Ordinary spaces
  never group digits (tables would merge columns).
* **Negatives.** A minus attached before the amount (``-$500``, ``$-500``,
  ``−€5``) sets ``negative=True``; ``minor_units`` is always the magnitude, and
  the magnitude is what goes into ``amounts``/``money``, so a query for
  ``$500`` matches a document stating ``-$500``. Parentheses are *not* a sign:
  in contracts ``Five Hundred Dollars ($500)`` restates an amount, it does not
  negate it, so ``($500)`` is the positive amount 50000 (and matches too). Only
  the accountant's forms that cannot be a restatement are negative: parentheses
  between the sign and the figures (``$(1.2) million``, ``$ (3.1)``) and a
  parenthesis closed before the scale word (``($3.1) million``).
* **Ranges.** ``$100,000–$300,000`` and ``$100,000 to $300,000`` give two
  mentions. A dash range whose second end has no currency of its own
  (``$100,000–300,000``, ``$1–2 million``, ``100–300 dollars``) gives both ends
  when the second end is not smaller than the first (ranges are written low to
  high; this keeps ``$500 - 20`` from inventing a range); the first end
  borrows the second's scale (``$1–2 million`` is one and two million), also when the
  second end repeats the sign (``$10–$20 million`` is ten and twenty million) unless
  borrowing would put it above the second (``$500–$1 million``: each as written).
  ``to`` without a second currency sign is not read as a range. A hyphen may join
  the figures to a scale word (``a $5-million contract``).
* **Words and figures.** ``Fifty Thousand Dollars ($50,000)`` and
  ``$10,000 (Ten Thousand Dollars)`` are one mention spanning both. If the
  words and the figures disagree, both values are kept as two mentions (the
  document states both; which one governs is a legal question).
* **"in 2020 dollars"** — a year followed by "dollars" after *in*, *constant*,
  *real* or *nominal* is a price basis, not an amount.

Speed: two compiled regular expressions (currency first, figures first) run
once over the whole text, each starting with a character class so the engine
jumps to candidate positions; spelled amounts are found from the few currency
nouns (``str.find``), and Python converts only the matches.
"""

from __future__ import annotations

import bisect
import functools

from pydantic import BaseModel, ConfigDict, Field

from osrag.currencies import LONG_MAX, MINOR_UNIT_EXPONENTS
from osrag.errors import ExtractionError
from osrag.extract.money_candidates import (
    _apply_signs,
    _Candidate,
    _non_overlapping,
    _prefixed,
    _resolve,
    _spelled,
    _suffixed,
)
from osrag.extract.money_patterns import (
    _CLOSE_PAREN,
    _CODE_SET,
    _NOUN_STEMS,
    _OPEN_PAREN,
    _PAREN_SPELLED,
    _PREFIXED,
    _RUPEES,
    _SIGN_CHARS,
    _SIGNED_FIGURES,
    _SUFFIXED,
    _UPPER_RUN,
    CODE_ALIASES,
    DOLLAR,
    DOLLAR_CURRENCIES,
    QUALIFIED_DOLLARS,
    SCALES,
    SUFFIX_SYMBOLS,
    SYMBOLS,
    MoneyForm,
)
from osrag.extract.money_values import (
    _minor_units,
    _spelled_value,
    _Unrepresentable,
    dollar_currency,
    minor_unit_exponent,
)
from osrag.models import Money

__all__ = [
    "CODE_ALIASES",
    "DOLLAR",
    "DOLLAR_CURRENCIES",
    "LONG_MAX",
    "MINOR_UNIT_EXPONENTS",
    "QUALIFIED_DOLLARS",
    "SCALES",
    "SUFFIX_SYMBOLS",
    "SYMBOLS",
    "Money",
    "MoneyForm",
    "MoneyMention",
    "MoneyScan",
    "RejectedMoney",
    "canonicalize_money",
    "dollar_currency",
    "extract_money",
    "full_scan",
    "may_state_money",
    "minor_unit_exponent",
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


def may_state_money(text: str, pos: int = 0) -> bool:
    """False only when ``text[pos:]`` cannot hold an amount: no currency sign next to
    figures, no currency code (upper-case, three letters) and no currency noun.

    Every amount the scanner accepts is anchored on one of those, and most
    prose has none — a ``$`` in shell code is not next to figures — so this
    cheap test spares most texts the full scan.
    """
    if any(sign in text for sign in _SIGN_CHARS) and _SIGNED_FIGURES.search(text, pos):
        return True
    if "Rs" in text and _RUPEES.search(text, pos):
        return True
    lowered = text.lower()
    if any(stem in lowered for stem in _NOUN_STEMS):
        return True
    for run in _UPPER_RUN.findall(text, pos):
        if any(run[i : i + 3] in _CODE_SET for i in range(len(run) - 2)):
            return True
    return False


def scan_money(text: str, default_currency: str = "USD", *, pos: int = 0) -> MoneyScan:
    """Every amount in ``text[pos:]``, with spans into ``text``, plus what was rejected.

    Mentions are sorted by ``start`` and never overlap.
    """
    if not may_state_money(text, pos):
        return MoneyScan()
    return full_scan(text, default_currency, pos=pos)


_Resolved = list[tuple[_Candidate, int]]
"""Candidates with their minor units, in text order."""


def full_scan(text: str, default_currency: str = "USD", *, pos: int = 0) -> MoneyScan:
    """:func:`scan_money` without the pre-check (the tests hold the two equal).

    1. figures with a currency before or after them; 2. spelled amounts, one mention with
    the figures they restate; 3. one sorted, non-overlapping list, figures winning over
    spelled look-alikes.
    """
    dollar = _dollar(default_currency)
    rejected: list[RejectedMoney] = []
    raw_figures = [c for m in _PREFIXED.finditer(text, pos) for c in _prefixed(m, text, dollar)]
    raw_figures += [c for m in _SUFFIXED.finditer(text, pos) for c in _suffixed(m, text, dollar)]
    figures_only = _non_overlapping(raw_figures)
    _apply_signs(figures_only, text)
    figures = _resolved(figures_only, text, rejected)
    spelled = _resolved(_spelled(text, pos, dollar), text, rejected)
    absorbed = _absorb_figures(spelled, figures, text)
    _restated_in_words(figures, absorbed, text)
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
        for c, units in _merged(figures, absorbed, spelled)
    ]
    rejected.sort(key=lambda r: r.start)
    return MoneyScan(mentions=mentions, rejected=rejected)


def _resolved(candidates: list[_Candidate], text: str, rejected: list[RejectedMoney]) -> _Resolved:
    """Each candidate with its minor units; one that cannot be stored exactly goes to
    ``rejected`` with the reason."""
    out = []
    for candidate in candidates:
        try:
            out.append((candidate, _resolve(candidate)))
        except (_Unrepresentable, ExtractionError) as exc:
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
        paren = _OPEN_PAREN.match(text, candidate.end)
        if paren:
            i = bisect.bisect_left(figure_starts, paren.end())
            if i < len(figures) and figure_starts[i] == paren.end() and figures[i][1] == units:
                figure = figures[i][0]
                close = _CLOSE_PAREN.match(text, figure.end)
                candidate.end = close.end() if close else figure.end
                candidate.currency = figure.currency
                absorbed.add(i)
    return absorbed


def _restated_in_words(figures: _Resolved, absorbed: set[int], text: str) -> None:
    """ "$10,000 (Ten Thousand Dollars)": the words in parentheses restate the figures,
    which then span them."""
    for i, (figure, units) in enumerate(figures):
        paren = None if i in absorbed else _PAREN_SPELLED.match(text, figure.end)
        value = _spelled_value(paren.group("words")) if paren else None
        if paren is None or value is None:
            continue
        cents = paren.group("cents")
        try:
            restated = _minor_units(f"{value}.{cents}" if cents else str(value), 0, figure.currency)
        except _Unrepresentable:
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
