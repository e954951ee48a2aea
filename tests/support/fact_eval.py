"""A typed filter evaluated on one stored fact, in Python: whether the fact passes.

The question side compiles a bound constraint to one nested filter on the chunk's facts
(:func:`osrag.search.fact_filters.fact_filter`); the engines compile that to their own
queries. The profiles' examples (``tests/lexicon/test_profile_examples.py``) check what
binds without an engine: this module reads the same tree against a fact's stored shape
(:meth:`osrag.schema.facts.AmountFact.source_dict`) as the engines do — a term holds when
one of the field's values equals it, a range when one value lies within every bound, a
missing field holds nothing. ``tests/engines`` checks the engines agree with each other
on the same trees. A text match (the breadcrumb a qualifier of the kind of document is
asked in) is read on the words of the fact's chunk's breadcrumb, as an ``and`` or an
``or`` match as the node says.
"""

from __future__ import annotations

import re
from typing import Any

from osrag.schema.filters import (
    AllOf,
    AnyOf,
    Exists,
    Filter,
    Match,
    MatchNone,
    Nested,
    Not,
    NotExists,
    Range,
    Term,
    Terms,
)

FACTS = "facts."


def _values(fact: dict[str, Any], field: str) -> list[Any]:
    value = fact.get(field.removeprefix(FACTS))
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _in_range(node: Range, value: Any) -> bool:
    return all(
        (
            (node.gt is None or value > node.gt),
            (node.gte is None or value >= node.gte),
            (node.lt is None or value < node.lt),
            (node.lte is None or value <= node.lte),
        )
    )


def passes(node: Filter, fact: dict[str, Any], breadcrumb: str = "") -> bool:
    """Whether the stored ``fact`` meets ``node`` (a nested filter on facts is read as a
    condition on this one fact), in a chunk whose breadcrumb is ``breadcrumb``."""
    if isinstance(node, Nested):
        return passes(node.item, fact, breadcrumb)
    if isinstance(node, AllOf):
        return all(passes(item, fact, breadcrumb) for item in node.items)
    if isinstance(node, AnyOf):
        return any(passes(item, fact, breadcrumb) for item in node.items)
    if isinstance(node, Not):
        return not passes(node.item, fact, breadcrumb)
    if isinstance(node, Term):
        return node.value in _values(fact, node.field)
    if isinstance(node, Terms):
        return bool(set(node.values) & set(_values(fact, node.field)))
    if isinstance(node, Range):
        return any(_in_range(node, v) for v in _values(fact, node.field))
    if isinstance(node, Exists):
        return bool(_values(fact, node.field))
    if isinstance(node, NotExists):
        return not _values(fact, node.field)
    if isinstance(node, MatchNone):
        return False
    if isinstance(node, Match):
        if node.field.startswith(FACTS):
            raise AssertionError(f"a text match is no condition on a fact's fields: {node!r}")
        words = set(re.findall(r"\w+", breadcrumb.casefold()))
        asked = set(re.findall(r"\w+", node.text.casefold()))
        return bool(asked & words) if node.operator == "or" else asked <= words
    raise AssertionError(f"not a filter: {node!r}")
