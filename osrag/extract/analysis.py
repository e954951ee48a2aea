"""Query text → the structured values it states, and which amount constrains it.

The rule (from the reference, where a stated amount is a constraint, not a
hint): a query that states **exactly one distinct amount** gets that amount
as its filter; zero amounts, or two or more different ones
(``between $100,000 and $300,000``, ``$300K or $3M``), give **no** amount
filter, because which one is the constraint is ambiguous (``amount_status``
says which case it was, and a caller can still pass an explicit amount).
Repeating the same amount in two forms (``$300K ($300,000)``) is one amount.
Amounts are compared by ``(currency, minor units)``; the sign is ignored, as
it is at ingest (see :mod:`osrag.extract.money`).

``remaining_text`` is the query with every amount, date and identifier span
removed and whitespace tidied, for callers who want to match only the words.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TypeVar

from pydantic import BaseModel, Field

from osrag.extract.dates import DateMention, extract_dates
from osrag.extract.identifiers import IdentifierMention, extract_identifiers
from osrag.extract.money import MoneyMention, scan_money
from osrag.models import AmountStatus, ExtractionConfig, Money

T = TypeVar("T")


class QueryAnalysis(BaseModel):
    """What :func:`analyze_query` found in a query."""

    text: str
    amounts: list[Money] = Field(
        default_factory=list, description="distinct amounts, in the order first stated"
    )
    amount: Money | None = Field(
        default=None, description="the amount filter: set only when exactly one amount is stated"
    )
    amount_status: AmountStatus = "none"
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


def analyze_query(text: str, config: ExtractionConfig | None = None) -> QueryAnalysis:
    """The amounts, dates and identifiers ``text`` states, and its amount filter (if any).

    Unrepresentable amounts (beyond a ``long``, ambiguous separators) are not
    amounts here either; they stay in ``remaining_text``.
    """
    config = config or ExtractionConfig()
    money = scan_money(text, config.default_currency).mentions
    dates = extract_dates(text, config.date_order)
    identifiers = extract_identifiers(text, config.identifier_patterns)
    amounts = _distinct([m.money for m in money])
    status: AmountStatus = "none" if not amounts else "one" if len(amounts) == 1 else "ambiguous"
    spans = [(m.start, m.end) for m in money]
    spans += [(d.start, d.end) for d in dates]
    spans += [(i.start, i.end) for i in identifiers]
    return QueryAnalysis(
        text=text,
        amounts=amounts,
        amount=amounts[0] if status == "one" else None,
        amount_status=status,
        dates=_distinct([d.date for d in dates]),
        identifiers=_distinct([i.value for i in identifiers]),
        remaining_text=remove_spans(text, spans),
        money_mentions=money,
        date_mentions=dates,
        identifier_mentions=identifiers,
    )
