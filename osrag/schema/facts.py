"""Amount facts: what one money mention measures, stored so a filter can ask for it.

A fact is one amount as the document states it: a signed value in minor units, its
currency, **what** it measures (the label: a table row, a key, the noun phrase it belongs
to), **whose** figure it is (the scope: the document's own, or a segment's, an acquired
business's, a line item's …), **when** (the period and the year it names, the part of the
year it covers, how often it recurs), and the evidence it was read from. A chunk
carries the facts of every amount in its span; the engines store them in one nested
field, so a filter can require that ONE fact meets label, value, currency, scope and
period at once ("deductible under $1,000" constrains a deductible, not any number in the chunk).

Signs (one policy, docs/amounts.md): parentheses or a minus make a value negative; a
loss is a negative result however it is written — a figure under a label that names a
loss and not its counterpart ("Net loss", "Operating loss", prose "a net loss of $3.1
million") is stored negative, and never flipped twice; every other figure keeps the sign
it is written with. ``magnitude`` is what a constraint compares unless the quantity it
names is a result that can go either way (income, earnings, profit, loss).

A frozen slotted dataclass, not a pydantic model: facts are built for every amount on
the ingest hot path and never cross an edge unvalidated (:meth:`AmountFact.source_dict`
is their one stored shape).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from osrag.lexicon.bounds import TERM_CHARS, shorten
from osrag.lexicon.keys import label_keys
from osrag.lexicon.periods import PeriodPart as PeriodPart
from osrag.lexicon.periods import PeriodUnit as PeriodUnit
from osrag.lexicon.scopes import Scope

FactSource = Literal["table", "key", "prose", "heading"]
"""Where the label came from: a table cell's row (and column), a key of key–value text,
the noun phrase in prose, or no label at all for an amount in a heading (``heading``)."""

FactScope = Scope
"""Whose figure a fact is. ``own``: the document's own figure for its subject (the
company's, the policy's, the invoice's) — what a question asks for unless it names
another; ``segment`` / ``region`` / ``product``: a part of the company (named in
``scope_name``); ``discontinued``: discontinued operations or assets held for sale;
``acquired``: an acquired business (a purchase-price allocation); ``pro_forma``: pro
forma figures; ``parent``: the parent entity alone; ``tax_effect``: the tax effect of an
item (a deferred tax balance's component); ``allocated``: an allocated charge's share of
an expense line; ``adjusted``: a non-GAAP adjusted figure; ``line_item``: a line of a
document whose total is the document's figure (an invoice's or an order's lines);
``forecast``: a figure expected, not reported (an outlook, guidance, a projection, a
budget)."""


@dataclass(frozen=True, slots=True)
class AmountFact:
    """One amount and what it measures (see the module docstring)."""

    currency: str
    """ISO 4217 code."""
    value: int
    """Signed minor units: the amount as a result (a loss is negative)."""
    label: str | None
    """What the text says the amount measures, as written (white space collapsed); None
    where the text does not say. Never guessed."""
    period: str | None
    """The period as written ("2019", "Fiscal 2019", "December 31, 2019"), or None."""
    year: int | None
    """The year ``period`` names (the filterable part), or None."""
    source: FactSource
    raw: str
    """The figures as written (``(3.1)``, ``$500``)."""
    start: int
    """``[start, end)`` of ``raw`` in the document text (code points)."""
    end: int
    scale: int = 0
    """Power of ten a caption multiplied the written figures by (0: none)."""
    caption: str | None = None
    """The caption that scaled the figures, when one did."""
    scope: FactScope = "own"
    """Whose figure it is (:data:`FactScope`)."""
    scope_name: str | None = None
    """The part's name for a ``segment``, ``region`` or ``product`` scope, read by the one
    normaliser ("americas", "consumer cyber safety"), else None."""
    period_part: PeriodPart = "full"
    """The part of the period the figure covers (:data:`PeriodPart`): of the year, or one
    year of a multi-year term."""
    period_unit: PeriodUnit | None = None
    """How often the amount recurs, or the unit a rate is priced by (:data:`PeriodUnit`:
    "per week", "per night", "per person"), None for a one-off figure or a total."""
    range_end: int | None = None
    """The magnitude (minor units) of the other end of the range the amount is one end of
    ("$149–$289": 28900 on the fact of $149, 14900 on that of $289), None for an amount
    that is no range's end. A range meets a constraint only where both its ends do."""

    @property
    def magnitude(self) -> int:
        return abs(self.value)

    def source_dict(self) -> dict[str, Any]:
        """The stored shape (one object of a chunk's nested ``facts`` field); its keyword
        fields within their bounds (:mod:`osrag.lexicon.bounds`: the keys, and ``period``
        and ``scope_name`` to ``TERM_CHARS``, marked when cut)."""
        stored = {
            "currency": self.currency,
            "value": self.value,
            "magnitude": self.magnitude,
            "label": self.label,
            "label_keys": list(label_keys(self.label)),
            "period": _term(self.period),
            "year": self.year,
            "source": self.source,
            "raw": self.raw,
            "span": [self.start, self.end],
            "scale": self.scale,
            "caption": self.caption,
            "scope": self.scope,
            "scope_name": _term(self.scope_name),
            "period_part": self.period_part,
            "period_unit": self.period_unit,
        }
        if self.range_end is not None:  # only an end of a range says it
            stored["range_end"] = self.range_end
        return stored

    @classmethod
    def from_source(cls, stored: dict[str, Any]) -> AmountFact:
        """The fact back from :meth:`source_dict` (``magnitude`` is derived, not read)."""
        start, end = stored["span"]
        return cls(
            currency=stored["currency"],
            value=int(stored["value"]),
            label=stored.get("label"),
            period=stored.get("period"),
            year=stored.get("year"),
            source=stored["source"],
            raw=stored["raw"],
            start=int(start),
            end=int(end),
            scale=int(stored.get("scale") or 0),
            caption=stored.get("caption"),
            scope=stored.get("scope") or "own",
            scope_name=stored.get("scope_name"),
            period_part=stored.get("period_part") or "full",
            period_unit=stored.get("period_unit"),
            range_end=stored.get("range_end"),
        )


def _term(value: str | None) -> str | None:
    """A keyword value within ``TERM_CHARS``."""
    return value if value is None or len(value) <= TERM_CHARS else shorten(value, TERM_CHARS)
