"""The filters of a search, typed: what a chunk must meet, before any engine's syntax.

Every filter is a tree of the primitive constraints :class:`Term`, :class:`Terms`,
:class:`Range`, :class:`Exists`, :class:`NotExists`, :class:`MatchNone` and
:class:`Match` (analysed words), negated by :class:`Not`, joined by :class:`AnyOf` /
:class:`AllOf`, and scoped to one object of a nested field by :class:`Nested`. A compiler
that handles these eleven node types handles every filter
(:mod:`osrag.engines.rest.compiler` writes them as query DSL, the embedded engine as
tantivy queries).

A search's filters come in three groups, kept apart so that the one policy that may drop a
filter can only drop the droppable ones:

* :class:`AmountFilter` s, the only droppable filters (the zero-candidate fallback drops
  all of them together: a second plan, built by the Searcher);
* the access guards :class:`TenantGuard`, :class:`AclGuard`, :class:`AsOfGuard`, never
  dropped; a guard says what it means through its ``filter()``;
* :class:`NamedFilter` s: other named filters (category, identifiers, dates).

Frozen slotted dataclasses, not pydantic models: a filter is built on every search and
never crosses a file or HTTP edge, so it needs no validation beyond the few invariants
checked in ``__post_init__``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

from osrag.errors import QueryError
from osrag.schema.constraints import AmountConstraint

FieldValue = str | int | float | bool
"""A value a term filter compares with (a keyword, a long, a date as ISO text …)."""
Bound = int | float | str
"""A range bound: a number, or an ISO date."""


@dataclass(frozen=True, slots=True)
class Term:
    """``field`` holds ``value`` (one of its values). With ``boost``: a scoring clause."""

    field: str
    value: FieldValue
    boost: float | None = None


@dataclass(frozen=True, slots=True)
class Terms:
    """``field`` holds one of ``values``."""

    field: str
    values: tuple[FieldValue, ...]
    boost: float | None = None


@dataclass(frozen=True, slots=True)
class Range:
    """One value of ``field`` lies within every given bound (``gt``/``gte``/``lt``/``lte``)."""

    field: str
    gt: Bound | None = None
    gte: Bound | None = None
    lt: Bound | None = None
    lte: Bound | None = None
    boost: float | None = None

    def __post_init__(self) -> None:
        if self.gt is None and self.gte is None and self.lt is None and self.lte is None:
            raise QueryError(f"range on {self.field!r}: give at least one bound")

    def bounds(self) -> dict[str, Bound]:
        """The given bounds, in the order ``gt``, ``gte``, ``lt``, ``lte``."""
        found = (("gt", self.gt), ("gte", self.gte), ("lt", self.lt), ("lte", self.lte))
        return {name: value for name, value in found if value is not None}


@dataclass(frozen=True, slots=True)
class Exists:
    """``field`` has a value."""

    field: str


@dataclass(frozen=True, slots=True)
class NotExists:
    """``field`` has no value (missing or empty)."""

    field: str


@dataclass(frozen=True, slots=True)
class MatchNone:
    """No chunk passes."""


@dataclass(frozen=True, slots=True)
class Match:
    """The text ``field``, analysed as it was indexed, holds the words of ``text``: every
    one (``operator="and"``), at least one (``"or"``), or every one in order, next to each
    other (``"phrase"``; the embedded index keeps positions only for the text fields of
    nested objects, and refuses a phrase elsewhere). A text with no term left after
    analysis (only stop words) matches nothing."""

    field: str
    text: str
    operator: Literal["and", "or", "phrase"] = "and"


@dataclass(frozen=True, slots=True)
class Nested:
    """ONE object of the nested field ``path`` meets ``item`` — every condition of it on
    the same object (``facts``: one amount fact meets label, value, currency and year at
    once). ``item`` names the object's fields by their full path (``facts.label``); it
    holds no other :class:`Nested`."""

    path: str
    item: Filter


@dataclass(frozen=True, slots=True)
class Not:
    """``item`` does not hold."""

    item: Filter


@dataclass(frozen=True, slots=True)
class AnyOf:
    """At least one of ``items`` holds."""

    items: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class AllOf:
    """Every one of ``items`` holds."""

    items: tuple[Filter, ...]


Filter = (
    Term | Terms | Range | Exists | NotExists | MatchNone | Match | Nested | Not | AnyOf | AllOf
)
"""A constraint tree; the eleven node types a compiler handles."""
Scored = Term | Terms | Range
"""A constraint usable as a constant-score boost (its ``boost`` set)."""


def present_or_missing(present: Filter, field_name: str) -> AnyOf:
    """``present``, or ``field_name`` missing: a document that says nothing is not excluded."""
    return AnyOf((present, NotExists(field_name)))


@dataclass(frozen=True, slots=True)
class TenantGuard:
    """The caller's tenant: its documents; without one, only documents without a tenant."""

    tenant: str | None
    name: str = field(default="tenant", init=False)

    def filter(self) -> Filter:
        return Term("tenant", self.tenant) if self.tenant is not None else NotExists("tenant")


@dataclass(frozen=True, slots=True)
class AclGuard:
    """Documents without an ACL, and those whose ACL names one of the caller's groups."""

    groups: tuple[str, ...]
    """Sorted, distinct; empty: only documents without an ACL."""
    name: str = field(default="acl", init=False)

    def filter(self) -> Filter:
        present: Filter = Terms("acl", self.groups) if self.groups else MatchNone()
        return present_or_missing(present, "acl")


@dataclass(frozen=True, slots=True)
class AsOfGuard:
    """Documents in force on ``day``: effective by then (or undated), not yet superseded."""

    day: dt.date
    name: str = field(default="as_of", init=False)

    def filter(self) -> Filter:
        day = self.day.isoformat()
        return AllOf(
            (
                present_or_missing(Range("effective_from", lte=day), "effective_from"),
                present_or_missing(Range("superseded_on", gt=day), "superseded_on"),
            )
        )


Guard = TenantGuard | AclGuard | AsOfGuard


@dataclass(frozen=True, slots=True)
class AmountFilter:
    """One amount constraint and the filter it compiles to.

    ``filter``: as stated — for a bound constraint one fact of the nested ``facts`` field
    (:mod:`osrag.search.fact_filters`), for a role-free one any amount of the chunk
    (:func:`amount_filter`). ``relaxed``: the role-free filter the fallback ladder's
    role-free step applies instead (None: the constraint is role-free already, ``filter``
    is it). ``narrowed``: the constraint and filter of the ladder's narrowed step — the
    quantity named with its first word read as context (None: nothing to narrow).
    ``per_unit``: the constraint and filter of the ladder's per-unit step — value, currency
    and the period unit asked, on a fact of any label (None: the constraint says no unit,
    or names no quantity to free). ``worded``: the constraint and filter of the ladder's
    worded step — a fact of a label holding most of the asked name's words
    (:mod:`osrag.search.meaning`; None: no such label, or no search matched them yet);
    ``worded_keys`` the keys of those labels it asks, whose words the step's filter holds."""

    constraint: AmountConstraint
    filter: Filter
    relaxed: Filter | None = None
    narrowed: tuple[AmountConstraint, Filter] | None = None
    per_unit: tuple[AmountConstraint, Filter] | None = None
    worded: tuple[AmountConstraint, Filter] | None = None
    worded_keys: tuple[str, ...] = ()
    name: str = field(default="amount", init=False)

    @property
    def role_free(self) -> Filter:
        """The filter of the role-free step: ``relaxed``, or ``filter`` when there is none."""
        return self.filter if self.relaxed is None else self.relaxed


@dataclass(frozen=True, slots=True)
class NamedFilter:
    """Another filter the result names (``category``, ``identifiers``, ``dates``)."""

    name: str
    filter: Filter


FilterItem = AmountFilter | Guard | NamedFilter
"""One filter of a search, with the name a result shows it by: an amount filter
(droppable), a guard, or another named filter."""


FACTS = "facts"
"""The nested field of amount facts (:mod:`osrag.schema.facts`)."""


def _compared(
    field_name: str, op: str, b: tuple[int, ...] | tuple[str, ...], boost: float | None
) -> Scored:
    """``field_name`` compared as a constraint's ``op`` with bounds ``b`` says."""
    if op == "eq":
        return Term(field_name, b[0], boost)
    if op == "in":
        return Terms(field_name, tuple(b), boost)
    if op == "between":
        return Range(field_name, gte=b[0], lte=b[1], boost=boost)
    if op == "gt":
        return Range(field_name, gt=b[0], boost=boost)
    if op == "gte":
        return Range(field_name, gte=b[0], boost=boost)
    if op == "lt":
        return Range(field_name, lt=b[0], boost=boost)
    return Range(field_name, lte=b[0], boost=boost)


def amount_filter(constraint: AmountConstraint, default_currency: str) -> Filter:
    """The constraint as a **role-free** filter — any amount of a chunk, whatever it
    measures, in the constraint's currency (its label, year and sign are not read):

    * the default currency: ``Term``/``Terms``/``Range`` on the ``long`` field ``amounts``
      (the magnitudes of the chunk's default-currency amounts);
    * another currency, exact (``eq``/``in``): ``Term``/``Terms`` on the ``money`` keyword
      (``EUR:30000000``);
    * another currency, a comparison or range: one fact of the nested ``facts`` field in
      that currency whose ``magnitude`` meets it.

    The three read the same amounts: every amount of a chunk is a fact, and its magnitude
    is in ``amounts`` (default currency) and in ``money`` (every currency) too. A bound
    written negative ("over -$5 million") compares the signed ``value`` of one fact in the
    currency, as written."""
    b = constraint.bounds
    if constraint.written_signed:
        return Nested(
            FACTS,
            AllOf(
                (
                    Term(f"{FACTS}.currency", constraint.currency),
                    _compared(f"{FACTS}.value", constraint.op, b, None),
                )
            ),
        )
    if constraint.currency == default_currency:
        return _compared("amounts", constraint.op, b, None)
    if not constraint.is_range:
        tokens = tuple(f"{constraint.currency}:{v}" for v in b)
        return _compared("money", constraint.op, tokens, None)
    return Nested(
        FACTS,
        AllOf(
            (
                Term(f"{FACTS}.currency", constraint.currency),
                _compared(f"{FACTS}.magnitude", constraint.op, b, None),
            )
        ),
    )


def amount_boost(
    constraint: AmountConstraint, default_currency: str, boost: float
) -> Scored | None:
    """The role-free constraint as a constant-score clause (a dropped constraint still
    ranks a chunk meeting it first), where it is one field's condition: every constraint
    but a comparison in another currency or a bound written negative (a nested condition;
    None)."""
    b = constraint.bounds
    if constraint.written_signed:
        return None
    if constraint.currency == default_currency:
        return _compared("amounts", constraint.op, b, boost)
    if constraint.is_range:
        return None
    tokens = tuple(f"{constraint.currency}:{v}" for v in b)
    return _compared("money", constraint.op, tokens, boost)
