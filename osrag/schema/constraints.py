"""An amount constraint: what a query says an amount must be, and the filter that says it.

A constraint is an operator, bounds in integer minor units and a currency (a bound the
question writes negative — "net income under -$5 million" — is kept negative, and the
signed value is compared with it as written: ``written_signed``):

======= ====================== ======================================================
op      bounds                 a chunk passes when it holds an amount ``a`` with …
======= ====================== ======================================================
eq      ``(v,)``               ``a == v``
gt      ``(v,)``               ``a > v``
gte     ``(v,)``               ``a >= v``
lt      ``(v,)``               ``a < v``
lte     ``(v,)``               ``a <= v``
between ``(low, high)``        ``low <= a <= high`` (both ends included)
in      ``(v1, v2, …)``        ``a`` is one of them
======= ====================== ======================================================

A constraint may be **bound** to the quantity the question names (``label``: "deductible
under $1,000" constrains a deductible), to the year it names (``year``) and to the sign of
a result (``signed``: income, earnings, profit and their losses): a chunk then passes only
when ONE of its amount facts (:mod:`osrag.schema.facts`) meets label, value, currency and
year at once. Without a label it is **role-free**: any amount of the chunk in the currency.
Where each becomes a filter: :func:`osrag.schema.filters.amount_filter` (role-free, any
currency, ranges included) and :mod:`osrag.search.fact_filters` (bound).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from osrag.currencies import LONG_MAX, MINOR_UNIT_EXPONENTS
from osrag.lexicon.bounds import LABEL_CHARS, shorten
from osrag.schema.facts import FactScope, PeriodPart, PeriodUnit

ConstraintOp = Literal["eq", "gt", "gte", "lt", "lte", "between", "in"]

SYMBOLS: dict[str, str] = {"eq": "=", "gt": ">", "gte": "≥", "lt": "<", "lte": "≤"}

APPROXIMATE_BAND_PERCENT = 10
"""An approximate amount ("about $500K") is the band ±10 % around it, both ends included."""


def display(currency: str, minor_units: int) -> str:
    """``USD 500,000.00``: minor units as the currency writes them."""
    exponent = MINOR_UNIT_EXPONENTS.get(currency, 2)
    major = Decimal(minor_units).scaleb(-exponent)
    return f"{currency} {major:,.{exponent}f}"


def approximate_band(minor_units: int) -> tuple[int, int]:
    """``(low, high)`` of the ±10 % band, in integers: low rounded down, high up, capped."""
    low = minor_units * (100 - APPROXIMATE_BAND_PERCENT) // 100
    high = -(-minor_units * (100 + APPROXIMATE_BAND_PERCENT) // 100)
    return low, min(high, LONG_MAX)


class AmountConstraint(BaseModel):
    """One amount condition a chunk must meet (several are all required)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: ConstraintOp
    currency: str
    bounds: tuple[int, ...] = Field(description="minor units; see the table in the module")
    text: str = Field(default="", description="the phrase that states it, as written")
    start: int = Field(default=0, ge=0, description="where the phrase starts in the query")
    end: int = Field(default=0, ge=0, description="where it ends (exclusive)")
    approximate: bool = Field(
        default=False, description="stated as approximate ('about $500K'): a ±10 % band"
    )
    label: str | None = Field(
        default=None,
        description="the quantity the question names ('deductible', 'net income'): one "
        "fact with a matching label must meet the constraint; None: any amount (role-free)",
    )
    named: str | None = Field(
        default=None,
        description="the quantity's name as the question wrote it, when words of it were "
        "read as a scope, a part of the year or a period unit ('monthly rent', 'Americas "
        "segment revenue'): a fact whose label holds that name is the figure too",
    )
    total_of: str | None = Field(
        default=None,
        description="the kind of document whose own total the question asks for, when it "
        "names the kind alone ('bid' in 'contractor bids over $20,000'; the label is then "
        "'total'): a fact whose label names a total of such a document (a profile's "
        "total_names) must meet the constraint",
    )
    context: str | None = Field(
        default=None,
        description="words naming the kind of document the quantity is in ('umbrella' in "
        "'umbrella policies with limits over $500,000'): they rank documents of that kind "
        "first and exclude none (bound constraints only)",
    )
    year: int | None = Field(
        default=None, description="the period the question names ('in 2019'), as a year"
    )
    signed: bool = Field(
        default=False,
        description="compare the signed value (a result that can be a loss: income, "
        "earnings, profit) instead of the magnitude",
    )
    quarter: int | None = Field(
        default=None,
        ge=1,
        le=4,
        description="the quarter of the year the question names ('Q4 2019', 'the fourth "
        "quarter'): a fact of that quarter's column, never the year's",
    )
    scope: FactScope = Field(
        default="own",
        description="whose figure the question asks for: the document's own ('own', the "
        "default) or the part, business or kind of figure it names ('segment', 'adjusted', "
        "…; osrag.schema.facts.FactScope) — bound constraints only",
    )
    scope_name: str | None = Field(
        default=None,
        description="the part the question names for a segment, region or product scope "
        "('americas'), normalised as a fact's scope name is",
    )
    period_part: PeriodPart = Field(
        default="full",
        description="the part of the period the question asks for: the whole period ('full', "
        "the default), a quarter, a half, a year of a multi-year term ('y1') — bound "
        "constraints only",
    )
    period_unit: PeriodUnit | None = Field(
        default=None,
        description="how often the asked amount recurs ('weekly wage': 'week'); None: any",
    )

    @model_validator(mode="after")
    def _bounds_fit(self) -> AmountConstraint:
        if self.currency not in MINOR_UNIT_EXPONENTS:
            raise ValueError(f"currency {self.currency!r} is not one osrag knows")
        if any(not -LONG_MAX <= b <= LONG_MAX for b in self.bounds):
            raise ValueError(f"bounds {self.bounds}: each must be within ±{LONG_MAX}")
        wanted = {"between": 2, "in": None}.get(self.op, 1)
        if wanted is None and len(self.bounds) < 2:
            raise ValueError("op 'in' needs two or more values")
        if wanted is not None and len(self.bounds) != wanted:
            raise ValueError(f"op {self.op!r} needs {wanted} bound(s), not {len(self.bounds)}")
        if self.op == "between" and self.bounds[0] > self.bounds[1]:
            raise ValueError(f"between: low {self.bounds[0]} is above high {self.bounds[1]}")
        return self

    @property
    def written_signed(self) -> bool:
        """A bound is written negative ("under -$5 million"): the signed value is compared
        with the bounds as written, whatever the quantity."""
        return any(b < 0 for b in self.bounds)

    @property
    def is_range(self) -> bool:
        return self.op not in ("eq", "in")

    @property
    def key(self) -> tuple[object, ...]:
        """What makes two constraints the same condition (the phrase aside)."""
        return (
            self.op,
            self.currency,
            self.bounds,
            self.label,
            self.named,
            self.total_of,
            self.context,
            self.year,
            self.signed,
            self.quarter,
            self.scope,
            self.scope_name,
            self.period_part,
            self.period_unit,
        )

    @property
    def is_bound(self) -> bool:
        """Bound to a quantity, a year, a sign, a scope or a part or unit of time: one
        amount fact must meet all of it."""
        return (
            self.label is not None
            or self.year is not None
            or self.signed
            or self.scope != "own"
            or self.period_part != "full"
            or self.period_unit is not None
        )

    def role_free(self) -> AmountConstraint:
        """The same amounts without the quantity, year, sign, scope and time: any amount
        of a chunk."""
        if not self.is_bound:
            return self
        return self.model_copy(
            update={
                "label": None,
                "named": None,
                "total_of": None,
                "context": None,
                "year": None,
                "signed": False,
                "quarter": None,
                "scope": "own",
                "scope_name": None,
                "period_part": "full",
                "period_unit": None,
            }
        )

    def describe(self) -> str:
        """``amount > USD 500,000.00`` (role-free), ``deductible < USD 1,000.00``,
        ``net income > USD 100,000,000.00 in 2019 (signed)``, ``limits > USD 500,000.00
        (umbrella)`` — for ``--explain`` and logs."""
        shown = [display(self.currency, b) for b in self.bounds]
        subject = shorten(self.label, LABEL_CHARS) if self.label else "amount"
        if self.total_of is not None:
            subject = f"{self.total_of} total"
        if self.op == "between":
            text = f"{subject} between {shown[0]} and {shown[1]}"
        elif self.op == "in":
            text = f"{subject} in {{{', '.join(shown)}}}"
        else:
            text = f"{subject} {SYMBOLS[self.op]} {shown[0]}"
        if self.period_part != "full":
            text += f" ({self.period_part})"
        if self.period_unit is not None:
            text += f" per {self.period_unit}"
        if self.year is not None:
            text += f" in {self.year}"
        if self.scope != "own":
            text += f" [{self.scope}{': ' + self.scope_name if self.scope_name else ''}]"
        if self.context is not None:
            text += f" ({self.context})"
        if self.signed:
            text += " (signed)"
        return text + (" (approximate: ±10 %)" if self.approximate else "")
