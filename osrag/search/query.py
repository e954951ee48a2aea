"""``QuerySpec`` → :class:`AnalyzedQuery` → :class:`~osrag.schema.plan.SearchPlan`, and
:func:`build_query`, the OpenSearch request body of it. Pure: no client, no I/O.

The rule: a stated amount is a **constraint**, not a hint, on the quantity the question
names. Every amount constraint the query text states (:mod:`osrag.search.constraint_parser`),
bound to the quantity, year and sign it names (:mod:`osrag.search.binding`), becomes one
typed filter (:class:`~osrag.schema.filters.AmountFilter`), which the REST compiler writes
as one clause inside ``bool.filter``:

* **bound** ("deductible under $1,000"): one ``nested`` filter on the amount facts — one
  fact must meet label, value, currency and year at once (:mod:`osrag.search.fact_filters`);
* **role-free** ("the $300,000 umbrella policy", "over $500,000"): any amount of the
  chunk — ``$300K`` (``$0.3M``, ``USD 300,000``: all 30,000,000 cents) is ``{"term":
  {"amounts": 30000000}}``, ``over $500,000`` is ``{"range": {"amounts": {"gt":
  50000000}}}``, ``$1M–$2M`` a ``range`` with ``gte``/``lte``, ``$300K or $3M`` a
  ``terms``; in another currency an exact amount filters the ``money`` keyword
  (``EUR:30000000``) and a comparison the facts of that currency
  (:func:`~osrag.schema.filters.amount_filter`).

The words go to a ``match`` on ``text`` (BM25, the index's own analyzer). Several
constraints are all required of one chunk.

The user's text only ever goes into ``match`` queries — never ``query_string``
— so OpenSearch query syntax in it (``"``, ``:``, ``*``, ``AND``, ``\\``) is
searched literally and cannot inject anything.

Only amount filters are *droppable*, down a ladder (:data:`AMOUNT_STEPS`), one step each
time the filters leave zero candidates: **bound** → **narrowed** (a named quantity's first
word read as the kind of document it is in: "umbrella premium" → a premium in an umbrella
policy) → **worded** (only when a search matched labels holding more than half of the
named quantity's naming words, no other way: "termite inspections" → "Termite /
wood-destroying insect inspection"; :mod:`osrag.search.meaning`) → **per-unit** (only
when a bound constraint says how often: "movers charging
over $150 an hour" → any fact over $150 that states "per hour", whatever its label) →
**role-free** (every constraint on any amount: no fact carries a matching label) →
**none** (no amount filter: ``fallback: true``; the dropped constraints then
become constant-score boosts, ``ambiguous_amount_boost``, so chunks meeting some of them
rank first). Each step relaxes every constraint together, in every leg. Tenant, ACL and
date filters are never dropped.

Scoring note: inside the filtered candidate set BM25 uses the index's own term
statistics (OpenSearch's behaviour), not statistics recomputed over the
candidate set as the reference lab does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from osrag.engines.mapping import ENGLISH_STOP_WORDS, VECTOR_FIELD
from osrag.engines.rest import compiler
from osrag.errors import QueryError
from osrag.lexicon.profiles import profiles_in_use
from osrag.lexicon.quantities import synonyms_of
from osrag.models import (
    AmountStatus,
    AmountStep,
    ExtractionConfig,
    LabelMatches,
    Money,
    QuerySpec,
)
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import (
    AclGuard,
    AmountFilter,
    AsOfGuard,
    Filter,
    FilterItem,
    Guard,
    NamedFilter,
    Range,
    Scored,
    TenantGuard,
    Terms,
    amount_boost,
    amount_filter,
)
from osrag.schema.plan import Fusion, Highlight, Mode, SearchPlan, Source, TextLeg, VectorLeg
from osrag.schema.search import k_for_size
from osrag.search.analysis import analyze_query_cached
from osrag.search.asked import asked_at, name_note
from osrag.search.fact_filters import (
    constraint_keys,
    fact_filter,
    narrowed_filter,
    per_unit_filter,
)
from osrag.search.passages.records import CONTEXT_FIELDS
from osrag.search.subject import (
    BESIDE_STEPS,
    SUBJECT_STEPS,
    scope_words,
    subject_words,
    unheld_words,
)

SOURCE_EXCLUDES = ["text", VECTOR_FIELD]
"""``text`` repeats breadcrumb and body (results show ``body``); nobody reads the vector."""
WORD = re.compile(r"\w+")
ALWAYS_RETURNED = ("chunk_id", "doc_id", "span", "chunk_index")


@dataclass(frozen=True)
class AnalyzedQuery:
    """A spec after analysis: the words to match and every filter, typed and named —
    the amount filters first, then the access guards, then the rest
    (:mod:`osrag.schema.filters`). :func:`search_plan` makes it a
    :class:`~osrag.schema.plan.SearchPlan`; each engine compiles that."""

    spec: QuerySpec
    match_text: str
    amount: Money | None
    amount_status: AmountStatus
    filters: tuple[FilterItem, ...] = ()
    stated: list[Money] = field(default_factory=list)
    """Every distinct amount the text states."""
    default_currency: str = "USD"
    constraints: list[AmountConstraint] = field(default_factory=list)
    """The amount constraints that filter (empty when the amount filter is off)."""
    amount_notes: list[str] = field(default_factory=list)
    no_terms: Literal["all", "none"] = "none"
    """What the text leg does when the analysed match text has no terms: ``all`` once
    the amount's words were taken out (the filters alone rank), else ``none``."""
    asked: dict[AmountStep, list[str]] = field(default_factory=dict)
    """What each step of the amount ladder asks of a fact, one line per amount filter
    (:mod:`osrag.search.asked`)."""
    label_matches: tuple[LabelMatches, ...] = ()
    """The labels of the index each named quantity matched, and how
    (:mod:`osrag.search.meaning`; empty before a searcher matched them)."""

    def kept(
        self, *, drop_amount: bool = False, step: AmountStep | None = None
    ) -> tuple[FilterItem, ...]:
        """The filters a search applies at a step of the amount ladder: every one as
        stated (``bound``, the default), a named quantity narrowed (``narrowed``), a named
        quantity asked on the labels holding most of its words and every other amount
        filter role-free (``worded``), a constraint that says how often on any fact of its
        unit and every other amount filter role-free (``per-unit``), every amount filter
        role-free (``role-free``), or
        all but the amount filters (``none``; ``drop_amount`` says the same)."""
        if drop_amount or step == "none":
            return tuple(f for f in self.filters if not isinstance(f, AmountFilter))
        if step == "per-unit":
            return self._at(lambda f: f.per_unit, others_free=True)
        if step == "worded":
            return self._at(lambda f: f.worded, others_free=True)
        if step == "role-free":
            return self._at(lambda f: None, others_free=True)
        if step == "narrowed":
            return self._at(lambda f: f.narrowed, others_free=False)
        return self.filters

    def _at(
        self,
        form: Callable[[AmountFilter], tuple[AmountConstraint, Filter] | None],
        *,
        others_free: bool,
    ) -> tuple[FilterItem, ...]:
        """The filters with each amount filter in the step's ``form`` where it has one;
        the other bound ones role-free (``others_free``) or as stated."""
        kept: list[FilterItem] = []
        for f in self.filters:
            found = form(f) if isinstance(f, AmountFilter) else None
            if isinstance(f, AmountFilter) and found is not None:
                kept.append(AmountFilter(found[0], found[1], relaxed=f.relaxed))
            elif isinstance(f, AmountFilter) and others_free and f.relaxed is not None:
                kept.append(AmountFilter(f.constraint.role_free(), f.role_free))
            else:
                kept.append(f)
        return tuple(kept)

    @property
    def has_amount_filter(self) -> bool:
        return any(isinstance(f, AmountFilter) for f in self.filters)

    @property
    def amount_steps(self) -> tuple[AmountStep, ...]:
        """The steps of the amount ladder this query may take, in order: ``bound``,
        ``narrowed``, ``worded``, ``per-unit``, ``role-free``, ``none`` — without ``bound``
        when no constraint is bound, without ``narrowed`` when no label can be narrowed,
        without ``worded`` when no label holds most of a named quantity's words (or no
        search matched labels yet), without ``per-unit`` when no named quantity is asked at
        a period unit, none at all without an amount filter."""
        amounts = [f for f in self.filters if isinstance(f, AmountFilter)]
        if not amounts:
            return ()
        steps: list[AmountStep] = []
        if any(f.relaxed is not None for f in amounts):
            steps.append("bound")
        if any(f.narrowed is not None for f in amounts):
            steps.append("narrowed")
        if any(f.worded is not None for f in amounts):
            steps.append("worded")
        if any(f.per_unit is not None for f in amounts):
            steps.append("per-unit")
        return (*steps, "role-free", "none")


def _as_spec(text_or_spec: str | QuerySpec, overrides: dict[str, Any]) -> QuerySpec:
    if isinstance(text_or_spec, QuerySpec):
        if not overrides:
            return text_or_spec
        return text_or_spec.model_copy(update=k_for_size(overrides))
    return QuerySpec(text=text_or_spec, **overrides)


def exact(amount: Money, text: str = "") -> AmountConstraint:
    """An ``eq`` constraint on one amount."""
    return AmountConstraint(
        op="eq", currency=amount.currency, bounds=(amount.minor_units,), text=text
    )


def access_guards(tenant: str | None, groups: list[str] | None) -> tuple[TenantGuard, AclGuard]:
    """The tenant and ACL guards, built from the caller's arguments alone (fail closed).

    They never depend on what the index is believed to hold, so a document that
    gains a tenant or an ACL is guarded from the moment it is visible:

    * a caller with a tenant sees that tenant's documents; a caller without one sees
      only documents that carry no tenant;
    * a caller sees documents without an ACL, and those whose ACL names one of the
      caller's groups; a caller with no groups sees only documents without an ACL.

    The values are stripped of surrounding spaces, as a document's are when it is read;
    a blank tenant or group (``''``, ``' '``) is refused (:class:`QueryError`): it names
    no scope, and no document carries one.
    """
    if tenant is not None:
        if not isinstance(tenant, str) or not tenant.strip():
            raise QueryError(
                f"tenant {tenant!r} is blank: pass the caller's tenant, or none (then only "
                "documents without a tenant match)"
            )
        tenant = tenant.strip()
    named = []
    for group in groups or []:
        if not isinstance(group, str) or not group.strip():
            raise QueryError(f"ACL group {group!r} is blank: pass the caller's groups")
        named.append(group.strip())
    return TenantGuard(tenant), AclGuard(tuple(sorted(set(named))))


AMOUNT_STEPS: tuple[AmountStep, ...] = (
    "bound",
    "narrowed",
    "worded",
    "per-unit",
    "role-free",
    "none",
)
"""The amount ladder, in order (see the module docstring)."""


def typed_amount_filter(constraint: AmountConstraint, default_currency: str) -> AmountFilter:
    """The filter of one constraint: bound (one fact), with its narrowed form, its
    per-unit form and its role-free relaxation; or role-free."""
    if constraint.is_bound:
        relaxed = amount_filter(constraint.role_free(), default_currency)
        narrowed = narrowed_filter(constraint)
        per_unit = per_unit_filter(constraint)
        return AmountFilter(constraint, fact_filter(constraint), relaxed, narrowed, per_unit)
    return AmountFilter(constraint, amount_filter(constraint, default_currency))


def _typed_filters(
    spec: QuerySpec, constraints: list[AmountConstraint], default_currency: str
) -> list[FilterItem]:
    items: list[FilterItem] = [typed_amount_filter(c, default_currency) for c in constraints]
    if not spec.unrestricted:
        items += access_guards(spec.tenant, spec.acl)
    if spec.as_of is not None:
        items.append(AsOfGuard(spec.as_of))
    if spec.category:
        items.append(NamedFilter("category", Terms("category", tuple(spec.category))))
    if spec.identifiers:
        wanted = tuple(sorted({i.upper() for i in spec.identifiers}))
        items.append(NamedFilter("identifiers", Terms("identifiers", wanted)))
    if spec.dates_from is not None or spec.dates_to is not None:
        low = spec.dates_from.isoformat() if spec.dates_from is not None else None
        high = spec.dates_to.isoformat() if spec.dates_to is not None else None
        items.append(NamedFilter("dates", Range("dates", gte=low, lte=high)))
    return items


def _no_terms(remaining: str) -> Literal["all", "none"]:
    """``all`` when the text left after the amount has no term the ``english`` analyzer
    keeps (only stop words or punctuation): the filters alone then rank, as with no text;
    otherwise ``none`` (the engine's default, written nowhere)."""
    words = WORD.findall(remaining.lower())
    return "all" if all(w in ENGLISH_STOP_WORDS for w in words) else "none"


def plan_query(
    text_or_spec: str | QuerySpec,
    *,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> AnalyzedQuery:
    """Analyse the text and name every filter. ``overrides`` are :class:`QuerySpec` fields."""
    spec = _as_spec(text_or_spec, overrides)
    config = extraction or ExtractionConfig()
    analysis = analyze_query_cached(spec.text, config, max_amounts=spec.max_amounts)
    constraints: list[AmountConstraint] = []
    status: AmountStatus
    if not spec.amount_filter:
        status = "off"
    elif spec.constraints is not None:
        constraints, status = list(spec.constraints), "explicit"
    elif spec.amount is not None:
        stated = Money(currency=spec.currency or config.default_currency, minor_units=spec.amount)
        constraints, status = [exact(stated)], "explicit"
    else:
        constraints, status = analysis.constraints, analysis.amount_status
    amount = analysis.amount if status == "one" else None
    if (
        status == "explicit"
        and len(constraints) == 1
        and constraints[0].op == "eq"
        and (constraints[0].bounds[0] >= 0)
    ):
        only = constraints[0]
        amount = Money(currency=only.currency, minor_units=only.bounds[0])
    kept = spec.keep_amount_text or not constraints
    match_text = spec.text if kept else analysis.remaining_text
    with profiles_in_use(config.profiles):  # the synonyms a bound constraint asks for
        filters = tuple(_typed_filters(spec, constraints, config.default_currency))
        notes = [note for c in constraints if (note := name_note(c)) is not None]
        asked = {
            step: [asked_at(f.constraint, step) for f in filters if isinstance(f, AmountFilter)]
            for step in AMOUNT_STEPS
        }
    return AnalyzedQuery(
        spec=spec,
        match_text=match_text.strip(),
        amount=amount,
        amount_status=status,
        filters=filters,
        stated=analysis.amounts,  # distinct already (a dict's keys: linear)
        default_currency=config.default_currency,
        constraints=constraints,
        amount_notes=[*analysis.amount_notes, *notes],
        no_terms="none" if kept else _no_terms(match_text),
        asked=asked,
    )


WORDS_CHOOSE_STEPS: tuple[AmountStep, ...] = ("per-unit", "role-free")
"""The amount steps below the bound ones, where the amount no longer names the asked
quantity and the lexical leg's words choose its candidates (not only rank them)."""


def vector_floor(plan: AnalyzedQuery, step: AmountStep | None) -> float | None:
    """The floor of the vector leg at ``step``: at a step where the words choose the
    lexical leg's candidates (:data:`WORDS_CHOOSE_STEPS`), the vector leg keeps the hits
    scoring at least a share of its best, rather than every filtered chunk up to ``k`` —
    ``QuerySpec.vector_floor_per_unit`` at the per-unit step (the asked unit is stated by
    every candidate, and the leg's best hits are those that also mean the asked
    quantity), ``QuerySpec.vector_floor`` at the role-free step (any amount in range);
    None elsewhere, or when the step's floor is off (0)."""
    if step not in WORDS_CHOOSE_STEPS:
        return None
    spec = plan.spec
    floor = spec.vector_floor_per_unit if step == "per-unit" else spec.vector_floor
    return floor if floor > 0 else None


def lexical_floor(plan: AnalyzedQuery, step: AmountStep | None) -> float | None:
    """The floor of the lexical leg at ``step``: at a step where the words choose its
    candidates (:data:`WORDS_CHOOSE_STEPS`) — the amount meets the constraint whatever it
    measures — the leg keeps the hits scoring at least ``QuerySpec.lexical_floor`` of its
    best, not every chunk that shares a word with the question; None elsewhere, or when
    the floor is off (0)."""
    floor = plan.spec.lexical_floor
    return floor if step in WORDS_CHOOSE_STEPS and floor > 0 else None


COLLAPSE_DEPTH = 4
"""Chunks fetched per document wanted when the client collapses a vector or hybrid search."""


def _text_leg(plan: AnalyzedQuery, drop_amount: bool, step: AmountStep | None = None) -> TextLeg:
    spec = plan.spec
    boosts: tuple[Scored, ...] = ()
    if drop_amount and plan.has_amount_filter and spec.ambiguous_amount_boost > 0:
        # The constraints together matched nothing and were dropped: meeting one of them
        # (as integers — no prefix collisions) is still evidence. Constant-score boosts.
        weight = spec.ambiguous_amount_boost
        found = (
            amount_boost(c.role_free(), plan.default_currency, weight) for c in plan.constraints
        )
        boosts = tuple(b for b in found if b is not None)
    return TextLeg(
        text=plan.match_text,
        operator=spec.operator,
        minimum_should_match=spec.minimum_should_match,
        breadcrumb_boost=spec.breadcrumb_boost,
        title_boost=spec.title_boost,
        no_terms=plan.no_terms,
        boosts=boosts,
        # a bound filter chooses, the words rank: a holder naming the quantity by another
        # name, or in a document its heading calls another kind, still comes back
        words_rank=step in (None, "bound", "narrowed", "worded") and _bound_amounts(plan, step),
        floor=lexical_floor(plan, step),
    )


def _bound_amounts(plan: AnalyzedQuery, step: AmountStep | None) -> bool:
    """Whether the amount filters of ``step`` hold a bound constraint."""
    return any(isinstance(f, AmountFilter) and f.relaxed is not None for f in plan.kept(step=step))


def _grouped(
    plan: AnalyzedQuery, step: AmountStep | None
) -> tuple[tuple[AmountFilter, ...], tuple[Guard, ...], tuple[NamedFilter, ...]]:
    amounts: list[AmountFilter] = []
    guards: list[Guard] = []
    named: list[NamedFilter] = []
    for item in plan.kept(step=step):
        if isinstance(item, AmountFilter):
            amounts.append(item)
        elif isinstance(item, NamedFilter):
            named.append(item)
        else:
            guards.append(item)
    return tuple(amounts), tuple(guards), tuple(named)


def search_plan(
    plan: AnalyzedQuery,
    *,
    drop_amount: bool = False,
    vector: Sequence[float] | None = None,
    in_engine: bool = True,
    step: AmountStep | None = None,
) -> SearchPlan:
    """The typed :class:`~osrag.schema.plan.SearchPlan` of an analysed query.

    ``step``: the step of the amount ladder — ``bound`` (the default: every constraint as
    stated), ``narrowed``, ``per-unit`` (:meth:`AnalyzedQuery.kept`), ``role-free``
    (every amount filter on any amount), ``none`` (the fallback
    plan: every amount filter out of every leg together, each constraint a boost
    instead; ``drop_amount`` says the same); the guards stay at every step (they are a
    group of their own). ``vector``: the query's embedding (a vector or hybrid mode needs
    it). ``in_engine``: whether the engine may fuse a hybrid plan."""
    if drop_amount:
        step = "none"
    drop_amount = step == "none"
    spec = plan.spec
    mode: Mode = "bm25" if spec.mode == "auto" else spec.mode
    if mode != "bm25" and vector is None:
        raise QueryError(f"mode {spec.mode!r} needs the query's embedding")
    depth = spec.offset + spec.k
    if spec.collapse and mode != "bm25":  # the client keeps each document's best chunk
        depth *= COLLAPSE_DEPTH
    floor = vector_floor(plan, step) if mode != "bm25" else None
    words_floor = lexical_floor(plan, step) if mode != "vector" else None
    # a floored leg is cut by the client from its first hit: it comes back whole, and the
    # client fuses and pages it
    size, offset = spec.k, spec.offset
    if floor is not None and mode == "vector" and not spec.collapse:
        size, offset = spec.offset + spec.k, 0
    if words_floor is not None and mode == "bm25":
        size, offset = spec.offset + spec.k, 0
    subject = plan_subject(plan, step)
    if subject:  # the caller cuts the ranking by the subject, then pages it
        size, offset = spec.offset + spec.k, 0
    amounts, guards, named = _grouped(plan, step)
    context = CONTEXT_FIELDS if spec.context is not None else ()  # what passages are made of
    if subject:  # what a hit must say a subject word in
        context = (*context, *SUBJECT_FIELDS)
    return SearchPlan(
        mode=mode,
        text=None if mode == "vector" else _text_leg(plan, drop_amount, step),
        vector=(
            VectorLeg(tuple(map(float, vector)), max(depth, 1), floor=floor)
            if vector is not None and mode != "bm25"
            else None
        ),
        guards=guards,
        amounts=amounts,
        filters=named,
        size=size,
        offset=offset,
        depth=depth,
        collapse=spec.collapse,
        highlight=Highlight() if spec.highlight and plan.match_text else None,
        source=(
            Source(includes=tuple(sorted({*ALWAYS_RETURNED, *spec.source_fields, *context})))
            if spec.source_fields is not None
            else Source(excludes=tuple(SOURCE_EXCLUDES))
        ),
        fusion=Fusion(
            spec.fusion,
            spec.rank_constant,
            spec.weights,
            in_engine and not spec.collapse and floor is None and words_floor is None,
        ),
        subject=subject,
        subject_slack=spec.subject_slack,
        words_beside=bool(subject) and step in BESIDE_STEPS,
    )


SUBJECT_FIELDS = ("title", "breadcrumb", "body")
"""The stored fields a hit says its subject words in (:mod:`osrag.search.subject`)."""


def plan_subject(plan: AnalyzedQuery, step: AmountStep | None) -> tuple[str, ...]:
    """The subject words a search at ``step`` cuts its hits by (:func:`subject_words`: the
    hits saying the most of them are kept): at the amount steps whose filter does not hold
    the question's words (:data:`SUBJECT_STEPS`), when the spec asks for the cut — at the
    bound step without the words of a bound quantity's name, which its filter holds
    (:func:`~osrag.search.subject.unheld_words`), at the worded step without the words of
    the labels it asks; empty elsewhere."""
    if not plan.spec.subject_cut or step not in SUBJECT_STEPS or not plan.constraints:
        return ()
    words = subject_words(plan.match_text)
    if step == "bound":  # its filter holds the quantity by its names, and its scope and part
        bound = [c for c in plan.constraints if c.is_bound]
        held = [w for c in bound for w in _held_words(c)]
        scoped = any(c.scope != "own" or c.period_part != "full" for c in bound)
        if scoped:
            held += scope_words(plan.match_text)
        return unheld_words(words, held)
    if step == "worded":  # its filter holds the words of the labels it asks
        keys = [k for f in plan.filters if isinstance(f, AmountFilter) for k in f.worded_keys]
        return unheld_words(words, keys)
    return words


def _held_words(c: AmountConstraint) -> list[str]:
    """The words (or texts whose words) of the name of ``c`` its bound filter holds: a name
    a profile knows, whole (the filter asks it by all the profile's names, so a holder need
    not say the question's: "amount payable" against "Total due"); of any other name, the
    words every key it is asked by says ("building surveys" → building, survey; "day of
    wedding coordinator", also asked as a "day rate", → day)."""
    names = [n for n in (c.label, c.named) if n]
    if any(synonyms_of(n) for n in names):
        return names
    keys = [set(k.split(" ")) for k in constraint_keys(c)]
    return sorted(set.intersection(*keys)) if keys else []


def bool_query(
    plan: AnalyzedQuery, *, drop_amount: bool = False, step: AmountStep | None = None
) -> dict[str, Any]:
    """The ``bool`` query alone (``must`` match, ``should`` boosts, ``filter`` clauses)."""
    typed = search_plan(_as_bm25(plan), drop_amount=drop_amount, step=step)
    return compiler.bool_query(typed)


def candidate_query(
    plan: AnalyzedQuery, *, drop_amount: bool = False, step: AmountStep | None = None
) -> dict[str, Any]:
    """Only the filters: the candidate set BM25 ranks inside."""
    typed = search_plan(_as_bm25(plan), drop_amount=drop_amount, step=step)
    return compiler.candidate_query(typed)


def request_body(
    plan: AnalyzedQuery, *, drop_amount: bool = False, step: AmountStep | None = None
) -> dict[str, Any]:
    """The full ``_search`` body for a plan (at a step of the amount ladder)."""
    typed = search_plan(_as_bm25(plan), drop_amount=drop_amount, step=step)
    return compiler.request_body(typed)


def _as_bm25(plan: AnalyzedQuery) -> AnalyzedQuery:
    """The plan as one lexical request a caller sends with its own search API: no floor
    and no cut by the question's subject (a Searcher's cuts of the hits in the client, which
    no body can ask of the engine)."""
    spec = plan.spec
    if spec.mode in ("bm25", "auto") and not spec.lexical_floor and not spec.subject_cut:
        return plan
    client_free = {"mode": "bm25", "lexical_floor": 0, "subject_cut": False}
    return replace(plan, spec=spec.model_copy(update=client_free))


def search_bodies(
    plan: AnalyzedQuery,
    *,
    drop_amount: bool = False,
    vector: Sequence[float] | None = None,
    pipeline: str | None = None,
    step: AmountStep | None = None,
) -> list[dict[str, Any]]:
    """The bodies of one ``_msearch`` for a plan, the candidate count always last
    (:func:`osrag.engines.rest.compiler.search_bodies` of :func:`search_plan`).

    * ``bm25``: the ranked search, the count (in the same ``_msearch``: no extra round
      trip, see ``docs/scale.md``).
    * ``vector``: the vector leg (:func:`osrag.engines.rest.compiler.knn_clause`), the count.
    * ``hybrid`` with a search ``pipeline`` (OpenSearch's neural-search): one ``hybrid``
      query — it must be the top-level query — holding both legs, the count.
    * ``hybrid`` without one: the lexical leg, the vector leg (each ``from + size``
      deep), the count; :mod:`osrag.search.fusion` fuses them in the client.
    * ``collapse`` in vector or hybrid mode: the client keeps each document's best
      chunk, so the legs are fetched ``COLLAPSE_DEPTH`` times deeper and fused in the
      client (OpenSearch 2.19's ``hybrid`` query does not collapse).

    The same filter list is inside every leg; each step of the amount ladder relaxes every
    amount filter of every leg together.
    """
    typed = search_plan(plan, drop_amount=drop_amount, vector=vector, step=step)
    on_engine = pipeline if typed.fusion.in_engine else None
    return compiler.search_bodies(typed, on_engine)


def build_query(
    text_or_spec: str | QuerySpec,
    *,
    drop_amount: bool = False,
    step: AmountStep | None = None,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """The OpenSearch request body for a query text or :class:`QuerySpec` (at ``step`` of
    the amount ladder: ``bound``, the default, ``narrowed``, ``per-unit``, ``role-free``
    or ``none``).

    >>> body = build_query("umbrella coverage $300K", tenant="acme")
    >>> body["query"]["bool"]["filter"][0]
    {'term': {'amounts': 30000000}}
    >>> bound = build_query("deductible under $1,000")["query"]["bool"]["filter"][0]
    >>> bound["nested"]["query"]["bool"]["filter"][1]
    {'range': {'facts.magnitude': {'lt': 100000}}}
    """
    plan = plan_query(text_or_spec, extraction=extraction, **overrides)
    return request_body(plan, drop_amount=drop_amount, step=step)
