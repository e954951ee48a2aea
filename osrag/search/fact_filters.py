"""A bound amount constraint as ONE nested filter on the chunk's amount facts. Pure.

"deductible under $1,000" passes a chunk when one of its facts (:mod:`osrag.schema.facts`)
meets every condition at once — one :class:`~osrag.schema.filters.Nested` filter on
``facts`` holding, in this order:

* **label**: the key of the label, or of one of its alternatives
  (:func:`~osrag.lexicon.keys.asked_keys`), among the fact's ``label_keys`` — the
  asked name at the head of what the fact measures (:mod:`osrag.lexicon.keys`:
  "revenue" is "Total revenue", not "Deferred revenue" nor "Cost of revenues"); a
  ``Term``, or ``Terms`` for several;
* **value**: ``magnitude`` compared as the constraint says — or, for a result that can be
  a loss (``signed``), the signed ``value`` on the side the label names: "net income
  above $100M" is ``value > 100M`` (a loss never passes); "net loss under $20M" is
  ``-20M < value < 0``; "net loss over $5M" ``value < -5M``; "net income under $20M"
  ``0 < value < 20M``; "net loss of $3.1M" ``value = -3.1M``;
* **currency**: the constraint's (any currency: every fact has its own);
* **year**: the year the question names, when it names one;
* **scope**: whose figure — the document's own unless the question names a part, a
  business or a kind of figure (``scope``, and ``scope_name`` for a named part);
* **period part**: the whole period unless the question names a quarter or a half;
* **period unit**: how often the amount recurs, when the question says ("weekly wage").

A constraint with a **context** (the kind of document the question names: "umbrella" in
"umbrella policies with limits over $500,000") also needs the context's words — in the
same fact's label, or in the chunk's breadcrumb (the document's title and headings).

In JSON, as the REST engines receive it (``"deductible under $1,000"``)::

    {"nested": {"path": "facts", "query": {"bool": {"filter": [
        {"term": {"facts.label_keys": "deductible"}},
        {"range": {"facts.magnitude": {"lt": 100000}}},
        {"term": {"facts.currency": "USD"}},
        {"term": {"facts.scope": "own"}},
        {"term": {"facts.period_part": "full"}}]}}}}
"""

from __future__ import annotations

from collections.abc import Sequence

from osrag.lexicon.keys import asked_keys, narrowed
from osrag.lexicon.signs import names_loss
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import (
    FACTS,
    AllOf,
    AnyOf,
    Filter,
    Match,
    MatchNone,
    Nested,
    Range,
    Term,
    Terms,
)

LABEL = f"{FACTS}.label"
LABEL_KEYS = f"{FACTS}.label_keys"
VALUE = f"{FACTS}.value"
MAGNITUDE = f"{FACTS}.magnitude"
CURRENCY = f"{FACTS}.currency"
YEAR = f"{FACTS}.year"
SCOPE = f"{FACTS}.scope"
SCOPE_NAME = f"{FACTS}.scope_name"
PERIOD_PART = f"{FACTS}.period_part"
PERIOD_UNIT = f"{FACTS}.period_unit"
BREADCRUMB = "breadcrumb"


def label_filter(
    label: str,
    *,
    gains_only: bool = False,
    quarter: int | None = None,
    extra_keys: Sequence[str] = (),
) -> Filter:
    """A fact's label keys hold the key of ``label`` or of one of its alternatives
    (:func:`~osrag.lexicon.keys.asked_keys`: the asked name at the head of what the
    fact measures); ``gains_only``: not the alternatives that name a loss (a result asked
    on its positive side: "operating income above $1 billion" is no "Operating loss");
    ``quarter``: the keys of that quarter's figure ("revenue q4",
    :func:`~osrag.lexicon.keys.quarter_keys`), never the year's; ``extra_keys``: the keys
    of labels matched by meaning (:mod:`osrag.search.meaning`), asked beside them."""
    asked = asked_keys(label, gains_only=gains_only)
    keys = asked + tuple(sorted(set(extra_keys) - set(asked)))
    if quarter is not None:
        keys = tuple(f"{key} q{quarter}" for key in keys)
    if not keys:
        return MatchNone()
    return Term(LABEL_KEYS, keys[0]) if len(keys) == 1 else Terms(LABEL_KEYS, keys)


def magnitude_filter(c: AmountConstraint) -> Filter:
    """The fact's magnitude as the constraint's operator and bounds say."""
    b = c.bounds
    if c.op == "eq":
        return Term(MAGNITUDE, b[0])
    if c.op == "in":
        return Terms(MAGNITUDE, tuple(b))
    if c.op == "between":
        return Range(MAGNITUDE, gte=b[0], lte=b[1])
    return Range(MAGNITUDE, **{c.op: b[0]})


def signed_filter(c: AmountConstraint, negative: bool) -> Filter:
    """The fact's signed value: an exact amount is that value (negated for a label that
    names a loss); a comparison or range holds for the values strictly on the label's side
    of zero (below it for a loss) whose magnitude meets it."""
    b = c.bounds
    if c.op == "eq":
        return Term(VALUE, -b[0] if negative else b[0])
    if c.op == "in":
        return Terms(VALUE, tuple(sorted(-v if negative else v for v in b)))
    low, high = {
        "gt": ((">", b[0]), None),
        "gte": ((">=", b[0]), None),
        "lt": (None, ("<", b[0])),
        "lte": (None, ("<=", b[0])),
        "between": ((">=", b[0]), ("<=", b[-1])),
    }[c.op]
    if low is None or low == (">=", 0):
        low = (">", 0)  # strictly on the side: zero is neither a gain nor a loss
    bounds: dict[str, int] = {}
    if not negative:
        bounds["gt" if low[0] == ">" else "gte"] = low[1]
        if high is not None:
            bounds["lt" if high[0] == "<" else "lte"] = high[1]
        return Range(VALUE, **bounds)
    # mirrored: a magnitude above ``low`` is a value below ``-low``
    bounds["lt" if low[0] == ">" else "lte"] = -low[1]
    if high is not None:
        bounds["gt" if high[0] == "<" else "gte"] = -high[1]
    return Range(VALUE, **bounds)


def _value_filter(c: AmountConstraint) -> Filter:
    if c.signed:
        return signed_filter(c, c.label is not None and names_loss(c.label))
    return magnitude_filter(c)


def fact_filter(c: AmountConstraint, *, extra_keys: Sequence[str] = ()) -> Filter:
    """The bound constraint ``c`` as one nested filter (see the module docstring); with a
    context ("umbrella"), the context's words in that fact's label or in the chunk's
    breadcrumb as well. ``extra_keys``: label keys its named quantity matched by meaning
    (:mod:`osrag.search.meaning`), asked for beside its own."""
    items: list[Filter] = []
    if c.label is not None:
        gains_only = c.signed and not names_loss(c.label)
        items.append(
            label_filter(c.label, gains_only=gains_only, quarter=c.quarter, extra_keys=extra_keys)
        )
    items.append(_value_filter(c))
    items.append(Term(CURRENCY, c.currency))
    if c.year is not None:
        items.append(Term(YEAR, c.year))
    items.append(Term(SCOPE, c.scope))
    if c.scope_name is not None:
        items.append(Term(SCOPE_NAME, c.scope_name))
    if c.quarter is None:  # a quarter is still asked by its keys ("revenue q4")
        items.append(Term(PERIOD_PART, c.period_part))
    if c.period_unit is not None:
        items.append(Term(PERIOD_UNIT, c.period_unit))
    one = Nested(FACTS, AllOf(tuple(items)))
    if c.context is None:
        return one
    in_label = Nested(FACTS, AllOf((items[0], Match(LABEL, c.context, "and"), *items[1:])))
    in_breadcrumb = AllOf((one, Match(BREADCRUMB, c.context, "and")))
    return AnyOf((in_breadcrumb, in_label))


def narrowed_constraint(c: AmountConstraint) -> AmountConstraint | None:
    """``c`` with its label's first word moved to its context ("umbrella premium" →
    "premium" in an umbrella policy), or None when the label cannot be narrowed
    (:func:`~osrag.lexicon.keys.narrowed`): the amount ladder's narrowed step."""
    if c.label is None:
        return None
    found = narrowed(c.label)
    if found is None:
        return None
    rest, first = found
    context = first if c.context is None else f"{c.context} {first}"
    return c.model_copy(update={"label": rest, "context": context})
