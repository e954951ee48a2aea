"""What a search asks for at each step of the amount ladder, in words. Pure.

A bound constraint is never turned silently into "any amount". For every constraint the
search says, at each step it may take (:data:`~osrag.search.query.AMOUNT_STEPS`), what it
asks a fact for — the keys of the quantity, whose figure, when, how often — and, once, how
the question's name was read: as a quantity a profile in use names (and under which of
its names), or by its own words when no profile names it ("'setup fee' is in no profile:
asked by its own words"). ``--explain``, the ``--json`` result's ``amount_steps`` and the
search log show the same lines (:class:`~osrag.schema.search.StepCount`).
"""

from __future__ import annotations

from osrag.lexicon.label_roles import PAID_HEADS
from osrag.lexicon.profiles import vocabulary
from osrag.schema.constraints import AmountConstraint
from osrag.search.fact_filters import (
    constraint_keys,
    inner_free,
    kind_at_unit,
    kind_free,
    named_keys,
    narrowed_constraint,
    narrowed_keys,
    per_unit_constraint,
    profiled_head,
    qualifier_free,
    thing_priced,
    unit_read_out,
)

__all__ = ["KEYS_SHOWN", "asked_at", "keys_shown", "name_note"]

KEYS_SHOWN = 6
"""Keys a line lists before it says how many more there are."""


def keys_shown(keys: tuple[str, ...]) -> str:
    """``{a, b, c (+4 more)}``."""
    shown = ", ".join(keys[:KEYS_SHOWN])
    more = len(keys) - KEYS_SHOWN
    return "{" + (f"{shown} (+{more} more)" if more > 0 else shown) + "}"


def _whose_when(c: AmountConstraint) -> list[str]:
    said: list[str] = []
    if c.scope != "own":
        said.append(f"scope {c.scope}" + (f" {c.scope_name!r}" if c.scope_name else ""))
    if c.quarter is not None:
        said.append(f"quarter Q{c.quarter}")
    elif c.period_part != "full":
        said.append(f"part of the year {c.period_part}")
    if c.period_unit is not None:
        said.append(f"per {c.period_unit}")
    if c.year is not None:
        said.append(f"year {c.year}")
    return said


def _bound(c: AmountConstraint, extra: tuple[str, ...] = ()) -> str:
    keys = constraint_keys(c) + extra
    parts = [f"label keys {keys_shown(keys)}"] if c.label is not None else []
    parts += _whose_when(c)
    named = named_keys(c)
    line = f"{c.describe()}: {' · '.join(parts) or 'any label'}"
    article = "an" if (c.total_of or "")[:1] in tuple("aeiou") else "a"
    known = profile_line(c) if c.total_of is None else f"{article} {c.total_of}'s own total"
    if known is not None:
        line += f" ({known})"
    if named:
        line += f"; or a label naming it whole ({keys_shown(named)})"
    read_out = unit_read_out(c)
    if read_out is not None:
        line += (
            f"; or {read_out.label!r} per {read_out.period_unit}"
            f" ({keys_shown(constraint_keys(read_out))})"
        )
    if c.context is not None:
        line += f"; {c.context!r} in the breadcrumb or among the fact's label keys"
    thing = thing_priced(c)
    if thing is not None:
        line += f"; or a {keys_shown(tuple(sorted(PAID_HEADS)))} under a heading naming {thing!r}"
    return line


def asked_at(c: AmountConstraint, step: str) -> str:
    """What the search asks of a fact for ``c`` at ``step`` of the amount ladder."""
    if step == "none":
        return f"{c.role_free().describe()}: no amount filter (a boost)"
    if step in ("role-free", "worded") or not c.is_bound:
        # worded: what the search asks when no label holds the name's words; a search that
        # matched some says their keys instead (osrag.search.meaning.by_words_line)
        return f"{c.role_free().describe()}: any amount of the chunk"
    if step == "per-unit":
        free = per_unit_constraint(c)
        if free is None:  # another constraint says how often: this one is role-free here
            return f"{c.role_free().describe()}: any amount of the chunk"
        said = [s for s in _whose_when(free) if not s.startswith(("per ", "year "))]
        line = f"{free.describe()}: any label · a fact stating per {free.period_unit}"
        return " · ".join([line, *said])
    if step == "narrowed":
        return _narrowed(c)
    return _bound(c)


def _narrowed(c: AmountConstraint) -> str:
    """What the narrowed step asks of a fact for ``c``."""
    at_unit = kind_at_unit(c)
    unit_line = (
        f"any label · a fact stating per {at_unit.period_unit}, {at_unit.context!r} in the"
        " breadcrumb or among the fact's label keys"
        if at_unit is not None
        else None
    )
    thing = thing_priced(c)
    under = f"; or any amount under a heading naming {thing!r}" if thing is not None else ""
    narrower = narrowed_constraint(c)
    if narrower is None:
        if unit_line:
            return f"{c.describe()}: {unit_line}{under}"
        return (_bound(c) if thing is None else f"{c.describe()}: any label") + under
    line = _narrowed_line(c, narrower)
    return (f"{line}; or {unit_line}" if unit_line else line) + under


def _narrowed_line(c: AmountConstraint, narrower: AmountConstraint) -> str:
    """The narrowed step's reading of the name of ``c`` (``narrower``), in words."""
    line = _bound(narrower, narrowed_keys(narrower))
    if c.context is not None and narrower.context != c.context:
        line += f"; {c.context!r} ranks, excludes nothing"
    as_named = kind_free(c)
    if as_named is not None:
        line += f"; or {_bound(as_named)}, in any document"
    rest = qualifier_free(c)
    if rest is not None:
        line += f"; or {_bound(rest)}, in any document ({narrower.context!r} unsaid)"
    for inner in inner_free(c):
        line += f"; or {_bound(inner)}"
    heads = profiled_head(c)
    if heads:
        said = " or ".join(repr(h.context) for h in heads)
        head = _bound(heads[0].model_copy(update={"context": None}))
        line += f"; or {head}, where {said} is said"
    return line


def name_note(c: AmountConstraint) -> str | None:
    """What a search says of the question's name of ``c`` beside its results: that no
    profile in use names the quantity, so it is asked by its own words; or how its words
    were read (a unit, a scope, a part of the year read out of it). None when the name is a
    profile's quantity read as written (:func:`asked_at` lists the names it is asked by)."""
    if c.label is None and c.named is None:
        return None
    said: list[str] = []
    if c.total_of is not None:
        kind = c.named or " ".join(filter(None, (c.context, c.total_of)))
        return f"{kind!r} names a kind of document: asked for its total"
    if c.named is not None:
        whose_when = [s for s in _whose_when(c) if not s.startswith("year ")]
        said.append(
            f"{c.named!r} read as {c.label or 'any quantity'!r}"
            + (f" ({' · '.join(whose_when)})" if whose_when else "")
        )
    if c.label is not None and not vocabulary().synonyms_of(c.label):
        said.append(f"{c.label!r} is in no profile: asked by its own words")
    return "; ".join(said) or None


def profile_line(c: AmountConstraint) -> str | None:
    """Which profile names the quantity of ``c`` and under which other names it is asked
    (None without a label, or when no profile names it)."""
    if c.label is None:
        return None
    v = vocabulary()
    group = v.synonyms_of(c.label)
    if not group:
        return None
    owners = ", ".join(v.profiles_of(c.label))
    profiles = f"the {owners} profile" + ("s" if "," in owners else "")
    others = tuple(name for name in group if name.casefold() != c.label.casefold())
    head = (
        f"{c.label!r} is a quantity of {profiles}"
        if group[0].casefold() == c.label.casefold()
        else f"{c.label!r} is {group[0]!r} in {profiles}"
    )
    return head + (f", also named {keys_shown(others)}" if others else "")
