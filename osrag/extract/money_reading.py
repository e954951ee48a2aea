"""Every amount a text states, read once the way the document side reads it: the plain
scan (:func:`~osrag.extract.money.scan_money`), table cells read under the caption that
scales them (:mod:`osrag.extract.tables`: "$ 831.7" in a table "in millions" is
$831,700,000), and the key–value figures written in cents below a line that declares the
currency (:mod:`osrag.extract.declared`).

The ingester reads a document's amounts here before their facts are built
(:mod:`osrag.extract.enrich`); a search reads a hit's text here to see which of its
amounts meet the question's (:mod:`osrag.search.beside`) — one reader for both sides.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from osrag.extract.declared import declared_line_amounts
from osrag.extract.money import MoneyMention, RejectedMoney, scan_money
from osrag.extract.tables import CellAmount, table_cells


@dataclass(frozen=True)
class MoneyReading:
    """The amounts of one text, sorted and non-overlapping, with the table cells they
    were read from and what the scan rejected."""

    mentions: list[MoneyMention] = field(default_factory=list)
    cells: list[CellAmount] = field(default_factory=list)
    rejected: list[RejectedMoney] = field(default_factory=list)


def read_money(text: str, default_currency: str = "USD", *, start: int = 0) -> MoneyReading:
    """Every amount of ``text[start:]`` (spans index ``text``; see the module docstring)."""
    scan = scan_money(text, default_currency, pos=start)
    cells = table_cells(text, default_currency, pos=start)
    money = scan.mentions
    if cells:
        money = merge_table_amounts(money, [c.mention for c in cells])
    declared = declared_line_amounts(text, default_currency, pos=start)
    if declared:
        ends = [m.end for m in money]
        fresh = [d for d in declared if not overlapping(money, ends, d.start, d.end)]
        money = sorted([*money, *fresh], key=lambda m: m.start)
    return MoneyReading(money, cells, scan.rejected)


def merge_table_amounts(
    mentions: list[MoneyMention], cells: list[MoneyMention]
) -> list[MoneyMention]:
    """``mentions`` with every one that overlaps a table cell's amount replaced by it.

    The cell reading knows the caption and the parentheses; the plain scan read
    ``$ 831.7`` of a table "in millions" as $831.70. Both lists are sorted and
    non-overlapping; so is the result.
    """
    cell_ends = [c.end for c in cells]
    kept = [m for m in mentions if not overlapping(cells, cell_ends, m.start, m.end)]
    return sorted([*kept, *cells], key=lambda m: m.start)


class _Spanned(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


M = TypeVar("M", bound=_Spanned)


def overlapping(mentions: Sequence[M], ends: list[int], start: int, end: int) -> Sequence[M]:
    """Mentions (sorted, non-overlapping; ``ends`` their ends) that overlap
    ``[start, end)``."""
    lo = bisect.bisect_right(ends, start)
    hi = lo
    while hi < len(mentions) and mentions[hi].start < end:
        hi += 1
    return mentions[lo:hi]
