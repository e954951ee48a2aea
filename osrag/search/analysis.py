"""Query text → the structured values it states, and the amount constraints.

The rule: a stated amount is a constraint, not a hint. Every amount the query
states becomes an :class:`~osrag.schema.constraints.AmountConstraint` —
exact, a comparison (``over $500,000``), a range (``$1M–$2M``) or a choice
(``$300K or $3M``), as :mod:`osrag.search.constraint_parser` reads it, bound to the
quantity, year and sign the question names where it names one
(:mod:`osrag.search.binding`: "deductible under $1,000" constrains a deductible) — and a
chunk must meet all of them. ``amount_status`` says how many there are (``none``,
``one``, ``several``; ``unrepresentable`` when the only amounts stated cannot
be stored), ``amount`` is the one exact amount when that is all the query
states (kept for callers of the single-amount filter). Repeating the same
amount in two forms (``$300K ($300,000)``) is one constraint. Amounts are
compared by ``(currency, minor units)``; a role-free constraint compares magnitudes, a
bound one the quantity's sign where it is a result (income, and its loss).

Bounded cost: the scan, the constraint parser and the span removal are each
linear in the query's length; a query stating more than ``max_amounts``
amounts (default :data:`MAX_QUERY_AMOUNTS`) is refused with a
:class:`~osrag.errors.QueryError` — first by a cheap count of the figures in it,
before any amount is read, then by the count of amounts read. An amount that
cannot be stored (beyond 2**63 − 1 minor units, ambiguous separators) is not
dropped silently: ``amount_notes`` names it.

``remaining_text`` is the query with every amount, date and identifier span
removed and whitespace tidied, for callers who want to match only the words.

:func:`analyze_query_cached` keeps the last :data:`ANALYSIS_CACHE_SIZE` analyses, keyed by
the text, every extraction setting and ``max_amounts``; it hands each caller a copy whose
lists are its own (their items — constraints, mentions, amounts — are frozen), so a caller
that changes its analysis changes nobody else's.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import OrderedDict
from threading import Lock
from typing import TypeVar

from pydantic import BaseModel, Field

from osrag.errors import QueryError
from osrag.extract.dates import DateMention, extract_dates
from osrag.extract.identifiers import IdentifierMention, extract_identifiers
from osrag.extract.money import MoneyMention, RejectedMoney, ascii_digits, scan_money
from osrag.lexicon.periods import impossible_periods
from osrag.lexicon.profiles import profiles_in_use
from osrag.models import AmountStatus, ExtractionConfig, Money
from osrag.schema.constraints import AmountConstraint
from osrag.search.binding import bind_constraints
from osrag.search.constraint_parser import parse_constraints

T = TypeVar("T")

MAX_QUERY_AMOUNTS = 16
"""Amounts one query may state (a question states one or two; 16 leaves room)."""
FIGURES_PER_AMOUNT = 8
"""The cheap pre-count allows this many runs of digits per allowed amount (dates, years,
identifiers and bare numbers are figures too) before the query is refused unread."""
_DIGIT_RUN = re.compile(r"\d+")


class QueryAnalysis(BaseModel):
    """What :func:`analyze_query` found in a query."""

    text: str
    amounts: list[Money] = Field(
        default_factory=list, description="distinct amounts, in the order first stated"
    )
    amount: Money | None = Field(
        default=None, description="the one exact amount, when that is the only constraint"
    )
    amount_status: AmountStatus = "none"
    constraints: list[AmountConstraint] = Field(
        default_factory=list, description="every amount constraint, in the order stated"
    )
    amount_notes: list[str] = Field(
        default_factory=list, description="amounts written but not usable, and why"
    )
    rejected_money: list[RejectedMoney] = Field(default_factory=list)
    dates: list[dt.date] = Field(default_factory=list, description="distinct dates, in order")
    identifiers: list[str] = Field(default_factory=list, description="distinct, upper-cased")
    remaining_text: str = Field(description="the query without the extracted spans")
    money_mentions: list[MoneyMention] = Field(default_factory=list)
    date_mentions: list[DateMention] = Field(default_factory=list)
    identifier_mentions: list[IdentifierMention] = Field(default_factory=list)


_SPACE = re.compile(r"\s+")
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]])")


def remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the given (possibly overlapping) spans; whitespace collapsed."""
    pieces: list[str] = []
    last = 0
    for start, end in sorted(spans):
        if end <= last:
            continue
        pieces.append(text[last : max(start, last)])
        pieces.append(" ")
        last = end
    pieces.append(text[last:])
    tidy = _EMPTY_BRACKETS.sub(" ", "".join(pieces))
    tidy = _SPACE.sub(" ", tidy).strip()
    return _SPACE_BEFORE_PUNCT.sub(r"\1", tidy)


def _distinct(values: list[T]) -> list[T]:
    return list(dict.fromkeys(values))


def _too_many(count: int, what: str, limit: int) -> QueryError:
    return QueryError(
        f"the query states {what} {count:,}; at most {limit} amounts are read from one query "
        "— split it, or raise max_amounts"
    )


def _refuse_impossible_periods(text: str, constraints: list[AmountConstraint]) -> None:
    """A question stating an amount and a period no year has ("Q5 revenue over $5
    million", "revenue in month 13 over $5") is refused, naming the period: its amount
    bound to nothing, or to any period, would answer another question."""
    if not constraints:
        return
    found = impossible_periods(text, [(c.start, c.end) for c in constraints])
    if found:
        written, why = found[0]
        raise QueryError(
            f"{written!r} is no period of a year ({why}): the amount cannot be bound to it "
            "— ask for a period a year has"
        )


def _status(constraints: list[AmountConstraint], rejected: list[RejectedMoney]) -> AmountStatus:
    if len(constraints) > 1:
        return "several"
    if constraints:
        return "one"
    return "unrepresentable" if rejected else "none"


def analyze_query(
    text: str, config: ExtractionConfig | None = None, *, max_amounts: int = MAX_QUERY_AMOUNTS
) -> QueryAnalysis:
    """The amounts, dates and identifiers ``text`` states, and its amount constraints.

    Unrepresentable amounts (beyond a ``long``, ambiguous separators) are not
    constraints; they stay in ``remaining_text`` and are named in ``amount_notes``.
    Raises :class:`~osrag.errors.QueryError` for more than ``max_amounts`` amounts.
    """
    config = config or ExtractionConfig()
    figures = sum(1 for _ in _DIGIT_RUN.finditer(text))
    if figures > max_amounts * FIGURES_PER_AMOUNT:
        raise _too_many(figures, "figures (runs of digits):", max_amounts)
    scan = scan_money(text, config.default_currency)
    money = scan.mentions
    if len(money) + len(scan.rejected) > max_amounts:
        raise _too_many(len(money) + len(scan.rejected), "amounts:", max_amounts)
    with profiles_in_use(config.profiles):
        constraints = bind_constraints(ascii_digits(text), parse_constraints(text, money))
    _refuse_impossible_periods(ascii_digits(text), constraints)
    dates = extract_dates(text, config.date_order)
    identifiers = extract_identifiers(text, config.identifier_patterns)
    amounts = _distinct([m.money for m in money])
    status = _status(constraints, scan.rejected)
    single = constraints[0] if status == "one" and constraints[0].op == "eq" else None
    if single is not None and single.written_signed:
        single = None  # "-$5 million" is no amount a chunk holds: a bound on a signed value
    notes = [f"{r.raw!r} is not an amount filter: {r.reason}" for r in scan.rejected]
    spans = [(c.start, c.end) for c in constraints]
    spans += [(m.start, m.end) for m in money]
    spans += [(d.start, d.end) for d in dates]
    spans += [(i.start, i.end) for i in identifiers]
    return QueryAnalysis(
        text=text,
        amounts=amounts,
        amount=Money(currency=single.currency, minor_units=single.bounds[0]) if single else None,
        amount_status=status,
        constraints=constraints,
        amount_notes=notes,
        rejected_money=scan.rejected,
        dates=_distinct([d.date for d in dates]),
        identifiers=_distinct([i.value for i in identifiers]),
        remaining_text=remove_spans(text, spans),
        money_mentions=money,
        date_mentions=dates,
        identifier_mentions=identifiers,
    )


ANALYSIS_CACHE_SIZE = 1024
"""Query analyses :func:`analyze_query_cached` keeps (least recently used dropped first)."""

AnalysisKey = tuple[str, str, tuple[str, ...], str, str, int]


class AnalysisCache:
    """A bounded LRU of :class:`QueryAnalysis` values, keyed by text, extraction settings
    and ``max_amounts``. Stored values are never handed out: :meth:`get` returns a copy.
    Thread-safe (the async searcher plans on the event loop and in worker threads)."""

    def __init__(self, size: int = ANALYSIS_CACHE_SIZE) -> None:
        if size < 1:
            raise ValueError(f"analysis cache size must be at least 1, not {size}")
        self.size = size
        self._entries: OrderedDict[AnalysisKey, QueryAnalysis] = OrderedDict()
        self._lock = Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def analyze(self, text: str, config: ExtractionConfig, max_amounts: int) -> QueryAnalysis:
        """:func:`analyze_query`'s result for these arguments: a copy of the cached one, or
        computed and cached. A refused query (``QueryError``) is not cached."""
        key = (
            text,
            config.default_currency,
            tuple(config.identifier_patterns),
            config.date_order,
            config.version,  # the family profiles in use
            max_amounts,
        )
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
        if found is None:
            found = analyze_query(text, config, max_amounts=max_amounts)
            with self._lock:
                self._entries[key] = found
                self._entries.move_to_end(key)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
        return _copied(found)


_LIST_FIELDS = tuple(
    name for name, info in QueryAnalysis.model_fields.items() if info.default_factory is list
)


def _copied(analysis: QueryAnalysis) -> QueryAnalysis:
    """``analysis`` with lists of its own: every item in them is immutable (frozen models,
    dates, strings), so this is a full copy at a fraction of ``deepcopy``'s cost."""
    return analysis.model_copy(
        update={name: list(getattr(analysis, name)) for name in _LIST_FIELDS}
    )


QUERY_ANALYSES = AnalysisCache()
"""The process's cache of query analyses (:func:`analyze_query_cached`)."""


def analyze_query_cached(
    text: str, config: ExtractionConfig | None = None, *, max_amounts: int = MAX_QUERY_AMOUNTS
) -> QueryAnalysis:
    """:func:`analyze_query`, through :data:`QUERY_ANALYSES` (the same value, a fresh copy)."""
    return QUERY_ANALYSES.analyze(text, config or ExtractionConfig(), max_amounts)
