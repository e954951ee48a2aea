"""``osrag search --explain``: why a search returned what it did, in a few lines.

Read from the library's own values — the analysed query (:class:`AnalyzedQuery`), the
typed plan of the step of the amount ladder that answered (:class:`SearchPlan`) and the
:class:`SearchResult` — and rendered here, at the CLI's edge; ``--json`` still prints the
result model alone. Four parts::

    query: 1 amount constraint
      'under $1,000'  → deductible < USD 1,000.00 · bound to label 'deductible'
    labels each named quantity matched (111 labels this caller may see; by meaning, cosine ≥
    0.7, where none holds its keys):
      'deductible'  by key: 'Deductibles', 'all-perils deductible', 'collision deductible' and
                    5 more
    amount ladder (a step down while the filters leave no candidate):
      bound      5 candidates  ← answered
      role-free  not needed
      none       not needed
    legs (step bound, up to 10 hits, each leg fetches 10):
      bm25    match "deductible" · amount facts[label_keys=deductible, magnitude<100000,
              currency=USD] · tenant=acme · acl∈{agents} or no acl
      vector  10 nearest to the embedding of "deductible" (384 dimensions) · the same filters
      fusion  rrf in the client (rank constant 60)

The labels part says, for each named quantity, the labels of the index it matched and how
(by its key, by a synonym, by form, by modifier, by meaning with the cosine, by words for
the ladder's worded step —
:mod:`osrag.search.meaning`), or that nothing matched. A bound constraint's label is shown
to ``LABEL_CHARS`` (:mod:`osrag.lexicon.bounds`), a longer one cut and marked with ``…``.
A role-free constraint says why it is one; a step the ladder did not need says so. A filter
is written as the typed tree it is (:mod:`osrag.schema.filters`): ``field=v``, ``field∈{a,
b}``, ``field<v`` (bounds in the stored unit: minor units for money), ``path[…]`` for one
object of a nested field, ``no field`` for a missing value. The request bodies themselves
(OpenSearch DSL) are ``--explain-json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rich.padding import Padding

from osrag.cli.render import plural, visible
from osrag.lexicon.bounds import LABEL_CHARS, shorten
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

if TYPE_CHECKING:
    from rich.console import RenderableType

    from osrag.models import AmountConstraint, LabelMatches, SearchResult
    from osrag.schema.plan import SearchPlan, TextLeg, VectorLeg
    from osrag.search.query import AnalyzedQuery

__all__ = ["Section", "explanation", "filter_text", "renderables"]

ROLE_FREE_WHY = (
    "role-free: no words beside it name the quantity it measures, so any amount of a "
    "chunk may meet it"
)
"""Why a constraint carries no label (:mod:`osrag.search.binding` binds one only to a
noun phrase next to it that names a quantity, not the document holding the amount)."""

GUARDS = frozenset({"tenant", "acl", "as_of"})
"""Filters shown by their condition alone (it names its field)."""

_RANGE_SIGNS = {"gt": ">", "gte": "≥", "lt": "<", "lte": "≤"}


def _value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def filter_text(node: Filter, path: str | None = None) -> str:
    """One filter as compact text (see the module docstring); inside a nested field
    (``path``) its fields are named without the path."""

    def name(field: str) -> str:
        return field.removeprefix(f"{path}.") if path else field

    if isinstance(node, Term):
        return f"{name(node.field)}={_value(node.value)}"
    if isinstance(node, Terms):
        return f"{name(node.field)}∈{{{', '.join(map(_value, node.values))}}}"
    if isinstance(node, Range):
        bounds = node.bounds()
        return ", ".join(f"{name(node.field)}{_RANGE_SIGNS[op]}{v}" for op, v in bounds.items())
    if isinstance(node, Exists):
        return f"{name(node.field)} exists"
    if isinstance(node, NotExists):
        return f"no {name(node.field)}"
    if isinstance(node, MatchNone):
        return "nothing"
    if isinstance(node, Match):
        return f'{name(node.field)} matches "{node.text}" ({node.operator})'
    if isinstance(node, Nested):
        inner = node.item.items if isinstance(node.item, AllOf) else (node.item,)
        parts: list[str] = []
        for item in inner:
            if parts and _range_guard(item, node.path):
                parts[-1] += " (all of a range)"  # the other end of a range meets it too
            else:
                parts.append(_grouped(item, node.path))
        return f"{node.path}[{', '.join(parts)}]"
    if isinstance(node, Not):
        return f"not ({filter_text(node.item, path)})"
    if isinstance(node, AnyOf):
        return " or ".join(_grouped(i, path) for i in node.items)
    return ", ".join(_grouped(i, path) for i in node.items)


def _range_guard(node: Filter, path: str) -> bool:
    """The condition on the other end of a range a fact is an end of: no other end, or one
    that meets the constraint too (:func:`osrag.search.fact_filters.magnitude_filter`)."""
    return (
        isinstance(node, AnyOf)
        and len(node.items) == 2
        and isinstance(node.items[0], NotExists)
        and node.items[0].field == f"{path}.range_end"
    )


def _grouped(node: Filter, path: str | None) -> str:
    """A sub-filter in parentheses where its own joins would read ambiguously."""
    shown = filter_text(node, path)
    return f"({shown})" if isinstance(node, AnyOf | AllOf) and len(node.items) > 1 else shown


class Section(NamedTuple):
    """A heading and its rows (a name and what it says), as ``--explain`` prints them."""

    heading: str
    rows: list[tuple[str, str]]


def _constraint_row(c: AmountConstraint) -> tuple[str, str]:
    """``('under $1,000'``, ``→ deductible < USD 1,000.00 · bound to label 'deductible')``,
    or why it is role-free."""
    said = f"→ {c.describe()}"
    if not c.is_bound:
        return repr(c.text), f"{said} · {ROLE_FREE_WHY}"
    bound = [f"label {shorten(c.label, LABEL_CHARS)!r}"] if c.label is not None else []
    if c.total_of is not None:
        kind = c.named or c.total_of
        bound = [f"{kind!r} names a kind of document: asked for its total"]
    elif c.named is not None:
        bound.append(f"or a label naming {c.named!r} whole")
    if c.scope != "own":
        bound.append(f"scope {c.scope}" + (f" {c.scope_name!r}" if c.scope_name else ""))
    if c.year is not None:
        bound.append(f"year {c.year}")
    if c.quarter is not None:
        bound.append(f"quarter Q{c.quarter}")
    elif c.period_part != "full":
        bound.append(f"part of the year {c.period_part}")
    if c.period_unit is not None:
        bound.append(f"per {c.period_unit}")
    if c.written_signed:
        bound.append("signed value as written")
    elif c.signed:
        bound.append("signed (a loss is below zero)")
    said = f"{said} · bound to {', '.join(bound)}"
    if c.context is not None:
        said += (
            f" · {c.context!r} where a document says what holds the figure (its breadcrumb or"
            " the fact's label keys); when none does, it only ranks (the narrowed step)"
        )
    return repr(c.text), said


def _query(plan: AnalyzedQuery) -> Section:
    if plan.constraints:
        said = plural(len(plan.constraints), "amount constraint")
    elif plan.amount_status == "off":
        said = "the amount filter is off (--no-amount-filter)"
    else:
        said = "no amount constraint"
    rows = [_constraint_row(c) for c in plan.constraints]
    rows += [("note", note) for note in plan.amount_notes]
    return Section(f"query: {said}", rows)


SHOWN_LABELS = 3
"""Labels matched by key or by synonym ``--explain`` names (``--json`` has more, and the
counts)."""


def _shown(labels: list[str], count: int) -> str:
    """The first labels, quoted, with how many more there are."""
    named = labels[:SHOWN_LABELS]
    more = f" and {count - len(named)} more" if count > len(named) else ""
    return ", ".join(repr(label) for label in named) + more


def _label_rows(matches: LabelMatches) -> list[tuple[str, str]]:
    """What one named quantity matched: by key, by synonym, by form, by modifier, by meaning,
    by words for the worded step (see :mod:`osrag.search.meaning`), or a note saying why
    nothing did."""
    found = []
    for by, count in (("key", matches.by_key), ("synonym", matches.by_synonym)):
        if count:
            labels = [m.label for m in matches.matches if m.by == by]
            found.append(f"by {by}: {_shown(labels, count)}")
    for m in matches.matches:
        if m.by == "form":
            found.append(f"by form: {m.label!r} — adds {', '.join(m.keys)}")
        if m.by == "modifier":
            adds = f"adds {', '.join(m.keys)}" if m.keys else "adds no key of its own"
            found.append(f"by modifier: {m.label!r} — {adds}")
        if m.by == "meaning" and m.cosine is not None:
            adds = f"adds {', '.join(m.keys)}" if m.keys else "adds no key of its own"
            found.append(f"by meaning: {m.label!r} ({m.cosine:.2f}) — {adds}")
    if matches.by_words:
        labels = [m.label for m in matches.matches if m.by == "words"]
        found.append(
            f"by words (the worded step only): {_shown(labels, matches.by_words)} — asks "
            f"{', '.join(matches.worded_keys[:SHOWN_LABELS]) or 'no key of its own'}"
        )
    rows = [(repr(matches.name), " · ".join(found) if found else "no label")]
    if matches.note:
        rows.append(("note", matches.note))
    return rows


def _labels(result: SearchResult) -> list[Section]:
    if not result.label_matches:
        return []
    first = result.label_matches[0]
    if first.vocabulary == "none":
        how = ": no label vocabulary, keys alone"
    elif first.vocabulary == "keys":
        how = f" ({plural(first.labels, 'label')} this caller may see; by keys alone)"
    else:
        how = (
            f" ({plural(first.labels, 'label')} this caller may see; by meaning, cosine ≥ "
            f"{first.threshold:g}, where none holds its keys)"
        )
    rows = [row for matches in result.label_matches for row in _label_rows(matches)]
    return [Section(f"labels each named quantity matched{how}:", rows)]


def _ladder(plan: AnalyzedQuery, result: SearchResult) -> list[Section]:
    if not plan.amount_steps:
        return []
    tried = {s.step: s for s in result.amount_steps}
    rows: list[tuple[str, str]] = []
    for step in plan.amount_steps:
        if step not in tried:
            rows.append((step, "not needed"))
            continue
        answered = "  ← answered" if step == result.amount_step else ""
        unsaid = ", no hit saying the subject" if tried[step].unsaid else ""
        rows.append((step, plural(tried[step].candidates, "candidate") + unsaid + answered))
        rows += [("", f"asked: {line}") for line in plan.asked.get(step, [])]
    return [Section("amount ladder (a step down while the filters leave no candidate):", rows)]


def _filters(sent: SearchPlan) -> str:
    shown = []
    for name, node in sent.named_filters():
        text = filter_text(node)
        shown.append(text if text.startswith(name) or name in GUARDS else f"{name} {text}")
    return " · ".join(shown) if shown else "no filter"


def _text_leg(leg: TextLeg) -> str:
    words = f'match "{leg.text}"' if leg.text else "no words: the filters alone rank"
    if leg.text and leg.operator == "and":
        words += " (every word)"
    if leg.minimum_should_match:
        words += f" (at least {leg.minimum_should_match})"
    if leg.text and leg.words_rank:
        words += " (the words rank; the bound filter chooses)"
    boosts = (f"boost {filter_text(b)}" for b in leg.boosts)
    return " · ".join([words, *boosts, *_floor_text(leg.floor)])


def _vector_leg(leg: VectorLeg, embedded: str) -> str:
    nearest = f'{leg.k} nearest to the embedding of "{embedded}" ({len(leg.vector)} dimensions)'
    return " · ".join([nearest, *_floor_text(leg.floor)])


def _fewer(slack: int) -> str:
    """How many words fewer than the best a hit may say, as the subject's row ends."""
    fewer = f" or up to {plural(slack, 'word')} fewer" if slack else ""
    return f"{fewer} (title, headings, body), where any says one"


def _floor_text(floor: float | None) -> list[str]:
    """A leg's floor, as the client applies it (nothing without one)."""
    return [] if floor is None else [f"the hits scoring at least {floor:g} of its best"]


def _legs(plan: AnalyzedQuery, sent: SearchPlan, result: SearchResult) -> Section:
    shape = [f"step {result.amount_step}"] if result.amount_step else []
    shape.append(f"up to {plural(sent.size, 'hit')}")
    if sent.mode == "hybrid" or sent.collapse:
        shape.append(f"each leg fetches {sent.depth}")
    if sent.collapse:
        shape.append("one per document")
    rows = []
    filters = _filters(sent)
    if sent.text is not None:
        rows.append(("bm25", f"{_text_leg(sent.text)} · {filters}"))
    if sent.vector is not None:
        same = "the same filters" if sent.text is not None else filters
        rows.append(
            ("vector", f"{_vector_leg(sent.vector, plan.match_text or plan.spec.text)} · {same}")
        )
    if sent.mode == "hybrid":
        where = "on the engine" if (result.fusion or "").startswith("server") else "in the client"
        rows.append(
            ("fusion", f"{sent.fusion.method} {where} (rank constant {sent.fusion.rank_constant})")
        )
    if sent.subject:
        said = ", ".join(f'"{w}"' for w in sent.subject)
        rows.append(("subject", f"the hits saying the most of {said}{_fewer(sent.subject_slack)}"))
        fewer = (
            f" or up to {plural(sent.subject_slack, 'word')} fewer" if sent.subject_slack else ""
        )
        if sent.words_beside:
            beside = f"of those, the most of them{fewer} beside an amount in range"
            rows.append(("beside", f"{beside}, where any has one"))
    return Section(f"legs ({', '.join(shape)}):", rows)


def explanation(plan: AnalyzedQuery, sent: SearchPlan, result: SearchResult) -> list[Section]:
    """The compact explanation of one search (see the module docstring): the constraints
    the query states, the amount ladder and the legs ``sent`` — the typed plan of the step
    that answered. Plain text; :func:`renderables` lays it out for the terminal."""
    return [_query(plan), *_labels(result), *_ladder(plan, result), _legs(plan, sent, result)]


def renderables(sections: list[Section]) -> list[RenderableType]:
    """Each heading on its line, its rows under it in two columns (a row's text wraps in
    its own column); every value escaped for the terminal (:func:`printable`)."""
    from rich.table import Table
    from rich.text import Text

    shown: list[RenderableType] = []
    for section in sections:
        shown.append(Text(visible(section.heading)))
        if not section.rows:
            continue
        grid = Table.grid(padding=(0, 2, 0, 0), pad_edge=False)
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for name, said in section.rows:
            grid.add_row(Text(visible(name)), Text(visible(said)))
        shown.append(Padding(grid, (0, 0, 0, 2), expand=False))
    return shown
