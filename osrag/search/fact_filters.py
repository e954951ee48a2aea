"""A bound amount constraint as ONE nested filter on the chunk's amount facts. Pure.

"deductible under $1,000" passes a chunk when one of its facts (:mod:`osrag.schema.facts`)
meets every condition at once — one :class:`~osrag.schema.filters.Nested` filter on
``facts`` holding, in this order:

* **value**: ``magnitude`` compared as the constraint says — or, for a result that can be
  a loss (``signed``), the signed ``value`` on the side the label names: "net income
  above $100M" is ``value > 100M`` (a loss never passes); "net loss under $20M" is
  ``-20M < value < 0``; "net loss over $5M" ``value < -5M``; "net income under $20M"
  ``0 < value < 20M``; "net loss of $3.1M" ``value = -3.1M``; a bound written negative
  ("net income under -$5 million") compares the signed value with it as written
  (``value < -5M``);
* **currency**: the constraint's (any currency: every fact has its own);
* **year**: the year the question names, when it names one;
* **what, whose and when** (:func:`what_filter`): the label — the key of the asked name,
  or of one of its alternatives (:func:`constraint_keys`: the name at the head of what
  the fact measures, :mod:`osrag.lexicon.keys`; a profile's synonyms), among the fact's
  ``label_keys``: a ``Term``, or ``Terms`` for several —, the scope (the document's own
  unless the question names a part, a business or a kind of figure; a part named by its
  name — "Americas segment revenue" — is that name's segment, region or product line,
  however the document calls the part), the part of the period (the whole period unless
  the question names a quarter, a half or a year of a term: "revenue in Q4 2019" asks
  that quarter's period part; the whole period takes a rate stated for one year of a
  term too, never a year's share of it) and the period unit (when the question says how
  often: "weekly wage"; a year's figure is one a document states for a year too: "property
  taxes $7,812 (2023)" is a yearly amount; a rate's unit that is no period, "per night",
  "per person", is one of that unit or of none, never of another). When the question's
  name held the words that say whose or when ("**monthly** rent", "**adjusted** EBITDA":
  ``named``), a fact whose label holds that whole name (:func:`named_keys`) is the figure
  as well, whatever its fields say — the label itself states it —, unless the amount
  states another period unit than the one asked ("monthly base rent … ($21.00 per square
  foot per year)"). A name a
  profile knows whole that says how often ("**hourly** rate", "**hourly** wage":
  :func:`unit_read_out`) is also the rest of it at that unit: "Regular — Rate per hour",
  a rate beside its row's hours, is an hourly rate.

The kind of document a question names is no condition when a profile names it — "invoices",
"statements", "agreements", "policies" are document nouns, which never become the
constraint's context: any document passes, whatever its heading calls it, and the words rank
it. A word that qualifies the kind ("umbrella" in "umbrella policies with limits over
$500,000": the constraint's ``context``) is asked where a document says what holds the
figure — the chunk's breadcrumb or the fact's label keys (:func:`where_named`) — and, when
no chunk says it, only ranks: the amount ladder's narrowed step (:func:`narrowed_filter`),
which passes the quantity as named in a document of any name ("vehicle purchases with a
vehicle price" → the "Vehicle price" of a "Buyer's Order").

A name whose head names no quantity, no document and no figure names **the thing priced**
(:func:`thing_priced`: "dental crowns", "termite treatment", "wedding"): it is asked by its
own keys and by what a label calls its price ("treatment fee", "crown price":
:func:`price_keys`), or as a price (a label headed by a fee, charge, cost, price or rate)
in a chunk whose breadcrumb names the thing ("Wedding collections › Collections":
"Heirloom — Price"); at the narrowed step, any figure under such a heading too.

:func:`label_filter` takes the keys as a list, so keys found another way (labels matched
by meaning) join the same filter.

In JSON, as the REST engines receive it (``"deductible under $1,000"``)::

    {"nested": {"path": "facts", "query": {"bool": {"filter": [
        {"term": {"facts.label_keys": "deductible"}},
        {"range": {"facts.magnitude": {"lt": 100000}}},
        {"term": {"facts.currency": "USD"}},
        {"term": {"facts.scope": "own"}},
        {"bool": {"should": [
            {"term": {"facts.period_part": "full"}},
            {"bool": {"filter": [{"terms": {"facts.period_part": ["y1", …, "y10"]}},
                                 {"exists": {"field": "facts.period_unit"}}]}}],
          "minimum_should_match": 1}}]}}}}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from osrag.engines.mapping import ENGLISH_STOP_WORDS
from osrag.lexicon.keys import asked_key, asked_keys, label_alternatives, narrowed
from osrag.lexicon.label_roles import (
    FIGURE_WORDS,
    GENERIC_HEADS,
    INSIDE_A_NAME,
    MONEY_HEADS,
    PAID_HEADS,
    SALES_TAXES,
    TAX_INCLUSIONS,
)
from osrag.lexicon.links import owed_alone
from osrag.lexicon.periods import (
    PERIOD_UNITS,
    RATE_UNITS,
    TERM_YEARS,
    UNIT_ADVERBS,
    period_units_in,
)
from osrag.lexicon.profiles import vocabulary
from osrag.lexicon.quantities import is_document_noun, is_quantity_noun, synonyms_of
from osrag.lexicon.scopes import PARTS
from osrag.lexicon.signs import names_loss
from osrag.lexicon.words import (
    hyphenated,
    name_words,
    normalised,
    other_number,
    person_of,
)
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import (
    FACTS,
    AllOf,
    AnyOf,
    Exists,
    Filter,
    Match,
    MatchNone,
    Nested,
    NotExists,
    Range,
    Term,
    Terms,
)

LABEL = f"{FACTS}.label"
LABEL_KEYS = f"{FACTS}.label_keys"
VALUE = f"{FACTS}.value"
MAGNITUDE = f"{FACTS}.magnitude"
RANGE_END = f"{FACTS}.range_end"
CURRENCY = f"{FACTS}.currency"
YEAR = f"{FACTS}.year"
SCOPE = f"{FACTS}.scope"
SCOPE_NAME = f"{FACTS}.scope_name"
PERIOD_PART = f"{FACTS}.period_part"
PERIOD_UNIT = f"{FACTS}.period_unit"
BREADCRUMB = "breadcrumb"


def label_filter(keys: Sequence[str]) -> Filter:
    """A fact's label keys hold one of ``keys`` (:func:`constraint_keys`, and any a caller
    adds: labels matched another way)."""
    keys = sorted(dict.fromkeys(keys))
    if not keys:
        return MatchNone()
    return Term(LABEL_KEYS, keys[0]) if len(keys) == 1 else Terms(LABEL_KEYS, tuple(keys))


def constraint_keys(c: AmountConstraint) -> tuple[str, ...]:
    """The keys a fact's label must hold one of to be the quantity ``c`` names
    (:func:`~osrag.lexicon.keys.asked_keys` of its label: the name at the head of what the
    fact measures, its other number, its synonyms in the profiles in use); for a result
    asked on its positive side ("operating income above $1 billion"), not the names of its
    loss; for a document's own total, every name a profile gives it and every name of a
    whole (:func:`whole_totals`). () without a label."""
    if c.total_of is not None:  # a document's own total: any name a profile gives it
        names = vocabulary().totals_of(c.total_of, stated=True)
        whole = _whole_total_keys(vocabulary().totalled_nouns)
        return tuple(dict.fromkeys([*(k for n in names for k in asked_keys(n)), *whole]))
    if c.label is None:
        return ()
    gains_only = c.signed and not c.written_signed and not names_loss(c.label)
    keys = asked_keys(c.label, gains_only=gains_only)
    alone = owed_alone(c.named)
    if alone is not None:
        # "a balance under $2,000": what is left to pay by the names that say "balance"
        # ("Balance due", "Balance owing", "New balance"), never another name of the total
        # due ("Amount payable" of a royalty statement is what its reader is paid)
        keys = tuple(k for k in keys if alone in k.split(" "))
    thing = thing_priced(c)
    if thing is None:
        return keys
    return tuple(sorted({*keys, *price_keys(thing)}))


def whole_totals(kinds: Iterable[str]) -> tuple[str, ...]:
    """The names a label gives a document's whole figure, whatever kind of document it is:
    the total word with a kind of document (``kinds``: "Total quotation", "Estimate total"
    — a quote's total named as a quotation's or an estimate's is still its total) or with
    what the figure prices ("Total price", "Cost total"), in either order, and the total
    that says it holds a tax ("Total including VAT", "Total incl. GST"). Never a part of
    the whole: a subtotal, a tax, what was paid, a total that leaves the tax out."""
    heads = sorted({*(normalised(k) for k in kinds if normalised(k)), *MONEY_HEADS})
    named = [name for head in heads for name in (f"total {head}", f"{head} total")]
    taxed = [f"total {i} {t}" for i in sorted(TAX_INCLUSIONS) for t in sorted(SALES_TAXES)]
    return tuple(dict.fromkeys([*named, *taxed]))


@cache
def _whole_total_keys(kinds: frozenset[str]) -> tuple[str, ...]:
    """The asked keys of :func:`whole_totals` for the profiles' kinds, read once per set of
    kinds (a search naming a kind of document asks them every time)."""
    return tuple(map(asked_key, whole_totals(kinds)))


def _name_parts(label: str, start: int = 1) -> tuple[list[str], list[bool], int]:
    """``label``'s words (:func:`~osrag.lexicon.words.normalised`), whether a hyphen joins
    each to the one before ("add-on fees": no complement starts at "on"), and where its
    first complement starts at ``start`` or after — a word of
    :data:`~osrag.lexicon.label_roles.INSIDE_A_NAME` no hyphen joins; the word count when
    there is none."""
    words = normalised(label).split(" ")
    joined = hyphenated(label)
    if len(joined) != len(words):
        joined = [False] * len(words)
    cut = next(
        (
            i
            for i in range(max(start, 1), len(words))
            if words[i] in INSIDE_A_NAME and not joined[i]
        ),
        len(words),
    )
    return words, joined, cut


def thing_priced(c: AmountConstraint) -> str | None:
    """The thing ``c``'s name says is priced — its words (:func:`~osrag.lexicon.words.
    normalised`) up to a complement — when its head names no quantity, no document and no
    figure of a profile in use: "dental crowns", "termite treatment", "wedding", "bounced
    check", "RV storage" (a question puts a figure on a thing to ask what it costs); None
    for a quantity ("late fee", "deductible", "net income"), a document's own total, and a
    figure asked of a part (a scope other than the document's own)."""
    if c.label is None or c.total_of is not None or c.scope != "own":
        return None
    words, _, cut = _name_parts(c.label)
    words = words[:cut]
    head = words[-1] if words else ""
    named = head in PAID_HEADS | FIGURE_WORDS | GENERIC_HEADS or synonyms_of(c.label)
    if not head or named or is_quantity_noun(head) or is_document_noun(head):
        return None
    return " ".join(words)


def price_keys(thing: str) -> tuple[str, ...]:
    """The keys of what a label calls the price of ``thing``: the thing with each last word
    that says it is paid for (:data:`~osrag.lexicon.label_roles.PAID_HEADS`: "treatment"
    → "treatment fee", "treatment price", "treatment charge" …), as a fee schedule heads
    it ("Total treatment fee")."""
    return tuple(sorted({asked_key(f"{thing} {head}") for head in PAID_HEADS}))


def named_keys(c: AmountConstraint) -> tuple[str, ...]:
    """The keys of a label that says itself whose or when the figure is: the name as the
    question wrote it (``c.named``: "monthly rent"), the words read out of it before each
    of the label's alternatives ("monthly base rent"; an alternative that says them itself,
    "hourly rate" for "hourly pay"), and for a unit the question wrote after the amount
    ("premium under $500 **a year**") the label's alternatives with the unit's adjective or
    after "per" ("annual premium", "premium per year"). () when there is none."""
    label = normalised(c.label) if c.label is not None else ""
    names: list[str] = []
    if c.named is not None:
        written = normalised(c.named)
        names.append(written)
        words, label_words = written.split(), label.split()
        lead = " ".join(w for w in words if w not in label_words)
        if label and lead and [w for w in words if w in label_words] == label_words:
            # the words read out lead each alternative wherever the question wrote them:
            # "HOA quarterly dues" is "quarterly HOA dues", "quarterly assessment"
            for alt in label_alternatives(label, every=True):
                names.append(alt if alt.startswith(lead + " ") else f"{lead} {alt}")
    elif c.period_unit is not None and label:
        adjectives = [w for w, unit in PERIOD_UNITS.items() if unit == c.period_unit]
        adjectives = [w for w in adjectives if w in UNIT_ADVERBS and not w.endswith("ly")] or [
            w for w in adjectives if w in UNIT_ADVERBS
        ]
        for alt in label_alternatives(label, every=True):
            names += [f"{adjective} {alt}" for adjective in adjectives]
            names.append(f"{alt} per {c.period_unit}")
    return tuple(dict.fromkeys(k for n in names for k in asked_keys(n, synonyms=False)))


def magnitude_filter(c: AmountConstraint) -> Filter:
    """The fact's magnitude as the constraint's operator and bounds say; for an end of a
    range ("$149–$289"), the other end's too: a range meets a constraint only where all of
    it does (:attr:`~osrag.schema.facts.AmountFact.range_end`)."""
    other = _compared(RANGE_END, c)
    return AllOf((_compared(MAGNITUDE, c), AnyOf((NotExists(RANGE_END), other))))


def _compared(field: str, c: AmountConstraint) -> Filter:
    """``field`` as the constraint's operator and bounds say."""
    b = c.bounds
    if c.op == "eq":
        return Term(field, b[0])
    if c.op == "in":
        return Terms(field, tuple(b))
    if c.op == "between":
        return Range(field, gte=b[0], lte=b[1])
    return Range(field, **{c.op: b[0]})


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


def written_filter(c: AmountConstraint) -> Filter:
    """The fact's signed value compared with the bounds as written (a bound written
    negative: "net income under -$5 million" is ``value < -5M``)."""
    b = c.bounds
    if c.op == "eq":
        return Term(VALUE, b[0])
    if c.op == "in":
        return Terms(VALUE, tuple(b))
    if c.op == "between":
        return Range(VALUE, gte=b[0], lte=b[1])
    return Range(VALUE, **{c.op: b[0]})


def _value_filters(c: AmountConstraint) -> tuple[Filter, ...]:
    """:func:`_value_filter`'s conditions, each one of the fact's filters."""
    found = _value_filter(c)
    return found.items if isinstance(found, AllOf) else (found,)


def _value_filter(c: AmountConstraint) -> Filter:
    if c.written_signed:
        return written_filter(c)
    if c.signed:
        return signed_filter(c, c.label is not None and names_loss(c.label))
    return magnitude_filter(c)


def _unit_filter(unit: str) -> Filter:
    """How often the fact recurs: ``unit``; for a year, also a figure a document states for
    one year without a unit (its year set: "Property taxes $7,812 (2023)"); for a rate's
    unit that is no period (:data:`~osrag.lexicon.periods.RATE_UNITS`: "per night", "per
    person"), also a figure that states no unit — a limit "any one person" is per person
    without saying "per" —, never one of another unit ("$400 per room per day")."""
    if unit in RATE_UNITS.values():
        return AnyOf((Term(PERIOD_UNIT, unit), NotExists(PERIOD_UNIT)))
    if unit != "year":
        return Term(PERIOD_UNIT, unit)
    return AnyOf((Term(PERIOD_UNIT, unit), AllOf((Exists(YEAR), NotExists(PERIOD_UNIT)))))


def _part_filter(part: str) -> Filter:
    """The part of the period asked: ``part``; for the whole period, also a rate stated for
    one year of a term (a period unit beside it: "Year 2 rent $2,100 a month" is a rent, as
    any of a schedule's is) — never a year's share of the term's whole ("Year 1 funding")."""
    if part != "full":
        return Term(PERIOD_PART, part)
    return AnyOf(
        (Term(PERIOD_PART, part), AllOf((Terms(PERIOD_PART, TERM_YEARS), Exists(PERIOD_UNIT))))
    )


def unit_read_out(c: AmountConstraint) -> AmountConstraint | None:
    """``c`` with the unit word of its name read out ("hourly rate" → a rate, per hour),
    when the name was kept whole — a name a profile knows ("hourly rate", "hourly wage"
    are its names of a wage), so no unit was read out of it — and says one unit of a
    quantity that recurs; else None."""
    if c.label is None or c.period_unit is not None or c.named is not None:
        return None
    found = period_units_in(c.label)
    if len(found) != 1:
        return None
    unit, start, end = found[0]
    rest = " ".join(f"{c.label[:start]} {c.label[end:]}".split())
    if not name_words(rest) or not vocabulary().recurring(rest):
        return None
    return c.model_copy(update={"label": rest, "period_unit": unit})


def what_filter(c: AmountConstraint, extra_keys: Sequence[str] = ()) -> Filter:
    """What, whose and when of one fact (the module docstring): the label keys
    (:func:`constraint_keys` and ``extra_keys``), the scope, the part of the year, the
    period unit — or, when the question's name held those words (``c.named``), a label
    holding that whole name; for a name kept whole that says how often, also the rest of
    it at that unit (:func:`unit_read_out`)."""
    found = _what_filter(c, extra_keys)
    read_out = unit_read_out(c)
    return found if read_out is None else AnyOf((found, _what_filter(read_out)))


def _what_filter(c: AmountConstraint, extra_keys: Sequence[str] = ()) -> Filter:
    items: list[Filter] = []
    if c.label is not None or extra_keys:
        items.append(label_filter([*constraint_keys(c), *extra_keys]))
    # a line of an itemised document is its own figure of what its label names ("Diagnostic
    # fee | 1.0 | $129.00" is the diagnostic fee), though no part of the document's total —
    # and never a total ("IV start kit — Total" under a "Total" column is a line's)
    lines = c.label is not None and c.total_of is None and "total" not in name_words(c.label)
    items += _whose_part(c, lines=lines)
    if c.period_unit is not None:
        items.append(_unit_filter(c.period_unit))
    fields = items[0] if len(items) == 1 else AllOf(tuple(items))
    named = named_keys(c)
    if not named:
        return fields
    if c.period_unit is None:
        return AnyOf((fields, label_filter(named)))
    # the label states how often, unless the amount itself says otherwise: "monthly base
    # rent … ($21.00 per rentable square foot per year)" is no monthly figure
    stated = AnyOf((NotExists(PERIOD_UNIT), Term(PERIOD_UNIT, c.period_unit)))
    return AnyOf((fields, AllOf((label_filter(named), stated))))


def _whose_part(c: AmountConstraint, lines: bool = False) -> list[Filter]:
    """Whose figure (the scope) and which part of the period, as ``c`` asks them.
    ``lines``: the document's own figure may be one of its lines (``line_item``)."""
    items: list[Filter] = []
    if c.scope_name is not None and c.scope in PARTS:
        # a part named by its name: whatever the document calls it (a segment, a region)
        items += [Terms(SCOPE, tuple(sorted(PARTS))), Term(SCOPE_NAME, c.scope_name)]
    elif lines and c.scope == "own" and c.scope_name is None:
        items.append(Terms(SCOPE, ("line_item", "own")))
    else:
        items.append(Term(SCOPE, c.scope))
        if c.scope_name is not None:
            items.append(Term(SCOPE_NAME, c.scope_name))
    items.append(_part_filter(f"q{c.quarter}" if c.quarter is not None else c.period_part))
    return items


def _one_fact(c: AmountConstraint, extra_keys: Sequence[str] = ()) -> Nested:
    what = what_filter(c, extra_keys)
    whats = list(what.items) if isinstance(what, AllOf) else [what]
    items: list[Filter] = [*whats[:1], *_value_filters(c), Term(CURRENCY, c.currency)]
    if c.year is not None:
        items.append(Term(YEAR, c.year))
    items += whats[1:]
    return Nested(FACTS, AllOf(tuple(items)))


def breadcrumb_says(words: str) -> Filter:
    """The chunk's breadcrumb holds each of ``words`` in either number ("purchase orders"
    is said by "Purchase Order No. 7734", "add-on" by "Add-ons"), the stop words of the
    ``english`` analyzer left out: the same chunks whether the generation's text is
    analysed with stemming (``english``, where both numbers are one term and stop words
    none) or without (``standard``, an Elasticsearch node without ``analysis-common``,
    where "orders" is no "order"). Only stop words: the words as one match (which holds
    no term in a stemmed generation, and so says nothing)."""
    kept = dict.fromkeys(w for w in name_words(words) if w not in ENGLISH_STOP_WORDS)
    if not kept:
        return Match(BREADCRUMB, words, "and")
    each = [Match(BREADCRUMB, " ".join(dict.fromkeys((w, other_number(w)))), "or") for w in kept]
    return each[0] if len(each) == 1 else AllOf(tuple(each))


def where_named(one: Nested, words: str) -> Filter:
    """The fact of ``one`` in a chunk that says ``words`` where a document says what holds
    a figure: its breadcrumb (title and headings: "Acme Umbrella Plus › Limits":
    :func:`breadcrumb_says`), or the same fact's label keys (a table's row or group:
    "Umbrella — Limit" holds "umbrella"). Label keys, never the label's text."""
    assert isinstance(one.item, AllOf)
    keys = asked_keys(words, synonyms=False)
    in_keys = Nested(FACTS, AllOf((label_filter(keys), *one.item.items)))
    return AnyOf((AllOf((one, breadcrumb_says(words))), in_keys))


def priced_under(c: AmountConstraint, keys: Sequence[str], under: str | None = None) -> Filter:
    """One fact meeting ``c``'s value, currency, year, scope (a line of an itemised
    document too), part of the period and unit, whatever its name: its label keys holding
    one of ``keys`` (any label for none), and with ``under``, in a chunk whose breadcrumb
    says those words (:func:`breadcrumb_says`) — the heading a price list writes the thing
    priced in ("Wedding collections › Collections": "Heirloom — Price")."""
    free = c.model_copy(
        update={"label": None, "named": None, "context": None, "total_of": None, "signed": False}
    )
    items: list[Filter] = [label_filter(keys)] if keys else []
    items += [*_value_filters(free), Term(CURRENCY, free.currency)]
    if free.year is not None:
        items.append(Term(YEAR, free.year))
    items += _whose_part(free, lines=True)
    if free.period_unit is not None:
        items.append(_unit_filter(free.period_unit))
    one = Nested(FACTS, AllOf(tuple(items)))
    return one if under is None else AllOf((one, breadcrumb_says(under)))


def fact_filter(c: AmountConstraint, extra_keys: Sequence[str] = ()) -> Filter:
    """The bound constraint ``c`` as one nested filter (see the module docstring):
    ``extra_keys`` are label keys found another way, asked beside the constraint's own; with
    a qualifier of the kind of document (``c.context``: "umbrella" of "umbrella policies"),
    where a document says what holds the figure (:func:`where_named`). A document's total
    asked by a qualified kind (``c.total_of``: "audio-visual estimate") passes too where a
    label says the kind whole, whatever the document says of it."""
    thing = thing_priced(c)
    found = _stated_fact(c, extra_keys)
    if thing is None:
        return found
    # a price under a heading naming the thing ("Termite treatment › Options": "Bait
    # stations — Price"), wherever the document names it there rather than in the label
    under = priced_under(c, tuple(sorted(PAID_HEADS)), thing)
    if c.context is not None:
        under = AllOf((under, breadcrumb_says(c.context)))
    return AnyOf((found, under))


def _stated_fact(c: AmountConstraint, extra_keys: Sequence[str] = ()) -> Filter:
    """:func:`fact_filter` of ``c`` as its label, context and total say, without the
    alternatives of a thing priced."""
    if c.context is None:
        return _one_fact(c, extra_keys)
    if c.total_of is None or c.named is None:
        return where_named(_one_fact(c, extra_keys), c.context)
    # a kind of document named alone that a label says whole ("in-house audio-visual
    # estimate" for "an audio-visual estimate") is that figure, wherever it stands; its
    # total, where a document says the qualifier
    total = _one_fact(c.model_copy(update={"named": None}), extra_keys)
    as_named = c.model_copy(
        update={"label": c.named, "named": None, "total_of": None, "context": None}
    )
    return AnyOf((where_named(total, c.context), _one_fact(as_named)))


def narrowed_constraint(c: AmountConstraint) -> AmountConstraint | None:
    """The constraint of the amount ladder's narrowed step: ``c`` with its label's first
    word read as the kind of document it is in ("umbrella premium" → a premium, in an
    umbrella policy: :func:`~osrag.lexicon.keys.narrowed`; a first word naming the profile
    the rest is a quantity of, "insurance deductible", only ranks), the question's own
    qualifier of the kind only ranking; or, when the label cannot be narrowed, ``c`` whose qualifier
    only ranks ("umbrella policies with limits" → any limit, the umbrella policies first);
    or, for a year of a term, any figure of that year ("first-year funding" → any amount
    of a term's first year); None when there is none of these."""
    found = narrowed(c.label) if c.label is not None else None
    if found is not None:
        rest, first = found
        if {first, other_number(first)} & set(vocabulary().profiles_of(rest)):
            # the first word names the family the quantity is of ("insurance deductible" is
            # the insurance profile's deductible, "loan principal" the loans'): it says
            # nothing of what holds the figure, and like the question's qualifier only ranks
            return c.model_copy(update={"label": rest, "named": None, "context": None})
        return c.model_copy(update={"label": rest, "named": None, "context": first})
    if c.context is not None:
        return c.model_copy(update={"context": None})
    if c.period_part in TERM_YEARS and c.label is not None:
        # "first-year funding": any share of the term's first year, whatever its name —
        # a year of a term is said only where a document divides one
        return c.model_copy(update={"label": None, "named": None, "signed": False})
    return None


def narrowed_keys(c: AmountConstraint) -> tuple[str, ...]:
    """The keys the narrowed step asks for besides those of ``c``'s name (``c`` narrowed
    already): a name whose head is a standing held by a person, by its person
    (:func:`~osrag.lexicon.words.person_of`: "add-on sponsorships" narrowed to
    "sponsorships" asks "sponsor" too, which "Lanyard sponsor — $8,000" in the add-ons
    section holds). Only where the question's first word is asked where the document says
    what holds the figure: bound, a "scholarship" is no "Postdoctoral scholar" line."""
    keys = constraint_keys(c)
    found: list[str] = []
    for key in keys:
        words = key.split(" ")
        person = person_of(words[-1])
        if person is not None:
            found.append(" ".join([*words[:-1], person]))
    return tuple(k for k in dict.fromkeys(found) if k not in keys)


def kind_free(c: AmountConstraint) -> AmountConstraint | None:
    """``c`` as named, its qualifier of the kind of document only ranking, when the narrowed
    step reads ``c``'s label otherwise (:func:`narrowed_constraint` narrowed the label):
    "vehicle purchases with a vehicle price" → any vehicle price, in whatever a document
    calls itself ("Buyer's Order"). None when ``c`` has no such qualifier, or when the
    narrowed step is this already."""
    if c.context is None or c.label is None or narrowed(c.label) is None:
        return None
    return c.model_copy(update={"context": None})


def qualifier_free(c: AmountConstraint) -> AmountConstraint | None:
    """``c`` as the rest of its name, in any document, when the narrowed step reads its
    first word as the kind of document and the rest is a compound name itself — two words
    or more that a hyphen does not join, before any complement ("warranties for a fridge"
    is one): "pre-employment background checks" → any background check, "temp-to-perm
    transfer fees" → any transfer fee (a qualifier of the thing a price list need not
    repeat: its rows say "Background check"). Never a rest of one word: "umbrella premium"
    is no premium of any policy, "termite treatment" no treatment of any kind. None
    otherwise."""
    found = narrowed(c.label) if c.label is not None else None
    if found is None or c.label is None or c.total_of is not None:
        return None
    rest, first = found
    if synonyms_of(c.label):  # a broader quantity where the first word is said
        return None
    start = len(first.split(" "))
    _, joined, cut = _name_parts(c.label, start + 1)
    if sum(1 for j in joined[start:cut] if not j) < 2:  # the rest's own words, before a complement
        return None
    return c.model_copy(update={"label": rest, "named": None, "context": None})


def inner_free(c: AmountConstraint) -> tuple[AmountConstraint, ...]:
    """``c`` with one inner word of its name read where a document says what holds the
    figure, as :func:`narrowed_constraint` reads its first: "full day tattoo session" → a full
    day session where a document says "tattoo" (its title, "Iron Lotus Tattoo Co."; its rows
    say "Full-day session"). A word a document says once, in its heading, and not in each
    line. Only in a name of three words or more before any complement, never its first word
    (the narrowed step's), its head, a word a hyphen joins to another, a function word or a
    figure; none for a name a profile knows (its words belong together). Empty otherwise."""
    if c.label is None or c.total_of is not None or synonyms_of(c.label):
        return ()
    words, joined, cut = _name_parts(c.label)
    found: list[AmountConstraint] = []
    for i in range(1, cut - 1):
        word = words[i]
        if joined[i] or joined[i + 1] or word in ENGLISH_STOP_WORDS or not word.isalpha():
            continue
        rest = " ".join(words[:i] + words[i + 1 :])
        found.append(c.model_copy(update={"label": rest, "named": None, "context": word}))
    return tuple(found)


def profiled_head(c: AmountConstraint) -> tuple[AmountConstraint, ...]:
    """``c`` as the longest last words of its name that a profile in use names, where a
    document says one of its other words, when the name whole is in no profile: "painting
    contractor deposit" → a deposit where a document says "painting" or "contractor";
    "investigation invoice balance due" → a balance due (a total due) where one says
    "investigation" or "invoice"; "sales tax on furniture order" → a sales tax where one
    says "furniture" or "order". The words before a known quantity, and a complement after
    it, say whose document or which thing (a trade, the kind of document, what is
    taxed), words a bill writes once in its heading and never on its lines ("Deposit
    (40%) due on signing", "BALANCE DUE"). Each other word is read where
    :func:`where_named` reads a kind's: the breadcrumb or the fact's label keys. Never a
    name the profiles know whole (its words belong together), a name of one word, or
    other words that are all function words or figures. Empty otherwise."""
    if c.label is None or c.total_of is not None or synonyms_of(c.label):
        return ()
    words, joined, cut = _name_parts(c.label)
    ends = dict.fromkeys((len(words), cut))  # the whole tail ("balance due"), then before a
    spans = [(start, end) for end in ends for start in range(0 if end < len(words) else 1, end)]
    for start, end in spans:  # complement ("sales tax" of "sales tax on furniture order")
        if joined[start]:
            continue  # "add-on fee": a hyphen joins the tail's first word to the one before
        tail = " ".join(words[start:end])
        if not synonyms_of(tail):
            continue
        others = [
            w
            for w in (*words[:start], *words[end + 1 :])
            if w.isalpha() and w not in ENGLISH_STOP_WORDS
        ]
        return tuple(
            c.model_copy(update={"label": tail, "named": None, "context": word})
            for word in dict.fromkeys(others)
        )
    return ()


def kind_at_unit(c: AmountConstraint) -> AmountConstraint | None:
    """The kind a question asks a figure at a unit of, read loosely: the per-unit step's
    constraint (:func:`per_unit_constraint`) whose ``context`` is the head of the kind the
    question names — its qualifier of the kind of document ("home warranty plans costing
    more than $50 a month" → a warranty's monthly figure), else its name when that names a
    thing, no quantity ("home warranties under $600 a year" → any yearly figure of a
    warranty; "monthly rent under $2,000" names a quantity: none). None when there is no
    per-unit step for ``c``, or no kind to ask."""
    free = per_unit_constraint(c)
    words = name_words(c.context or c.label or "")
    if free is None or not words:
        return None
    if c.context is None and is_quantity_noun(words[-1]):
        return None
    return free.model_copy(update={"context": words[-1]})


def _kind_at_unit_filter(c: AmountConstraint) -> Filter | None:
    """:func:`kind_at_unit` as a filter: a fact at the unit asked, of any label, where a
    document says the head of the kind (:func:`where_named`)."""
    kind = kind_at_unit(c)
    found = per_unit_filter(c)
    if kind is None or kind.context is None or found is None or not isinstance(found[1], Nested):
        return None
    return where_named(found[1], kind.context)


def narrowed_filter(
    c: AmountConstraint, extra_keys: Sequence[str] = ()
) -> tuple[AmountConstraint, Filter] | None:
    """The narrowed step (:func:`_narrowed_filter`); for a quantity asked at a unit, also
    a fact at that unit where a document says the head of the kind the question names
    (:func:`kind_at_unit`): the kind read where it is said, its figure at the unit asked,
    before any figure at that unit of any document (the per-unit step)."""
    found = _narrowed_filter(c, extra_keys)
    at_unit = _kind_at_unit_filter(c)
    if at_unit is None:
        return found
    if found is None:
        kind = kind_at_unit(c)
        assert kind is not None
        return kind, at_unit
    return found[0], AnyOf((found[1], at_unit))


def _narrowed_filter(
    c: AmountConstraint, extra_keys: Sequence[str] = ()
) -> tuple[AmountConstraint, Filter] | None:
    """The amount ladder's narrowed step for ``c`` (:func:`narrowed_constraint`): a label's
    first word read where a document says what holds the figure — its breadcrumb or the
    fact's label keys, never the label's text ("setup fee" is no "Cleaning fee" of a setup)
    —, or the question's qualifier of the kind left to rank (with
    :func:`narrowed_keys`). The kind a question names ranks and never excludes: when the
    label is narrowed and the question qualifies the kind, a fact of the quantity as named
    (with ``extra_keys``, found another way) passes too, in any document
    (:func:`kind_free`); and when the rest of the name is a compound name itself, a fact of
    the rest, in any document (:func:`qualifier_free`: a qualifier a price list need not
    repeat); and the name without one inner word, where a document says that word
    (:func:`inner_free`). None when there is none of these."""
    narrower = narrowed_constraint(c)
    thing = thing_priced(c)
    if narrower is None and thing is None:
        return None
    found: list[Filter] = []
    if narrower is not None:
        found.append(fact_filter(narrower, extra_keys=narrowed_keys(narrower)))
        as_named = kind_free(c)
        if as_named is not None:
            found.insert(0, fact_filter(as_named, extra_keys))
        rest = qualifier_free(c)
        if rest is not None:
            found.append(fact_filter(rest))
        found += [fact_filter(inner) for inner in inner_free(c)]
        found += [fact_filter(head) for head in profiled_head(c)]
    if thing is not None:
        # any figure under a heading naming the thing priced ("RV storage › Rates":
        # "Annual prepayment"), where no label names it or its price
        found.append(priced_under(c, (), thing))
    if narrower is None:
        narrower = c.model_copy(update={"context": None})
    return narrower, found[0] if len(found) == 1 else AnyOf(tuple(found))


def per_unit_constraint(c: AmountConstraint) -> AmountConstraint | None:
    """The constraint of the amount ladder's per-unit step: ``c`` without its name (label,
    the name as written, the kind of document, a document's total), its period unit kept
    — the one it states ("over $150 an hour") or the one its name says when kept whole
    ("hourly rate": :func:`unit_read_out`); its year, scope and part of the period kept.
    None when ``c`` says no unit, or names no quantity (it asks that of any fact already)."""
    unit = c.period_unit
    if unit is None:
        read_out = unit_read_out(c)
        unit = read_out.period_unit if read_out is not None else None
    names = (c.label, c.named, c.context, c.total_of)
    if unit is None or all(n is None for n in names):
        return None
    return c.model_copy(
        update={
            "label": None,
            "named": None,
            "context": None,
            "total_of": None,
            "signed": False,
            "period_unit": unit,
        }
    )


def per_unit_filter(c: AmountConstraint) -> tuple[AmountConstraint, Filter] | None:
    """The amount ladder's per-unit step for ``c`` (:func:`per_unit_constraint`): one fact,
    of any label, whose value and currency meet ``c`` and which **states** the period unit
    asked — the unit is the only evidence of the quantity left, so neither a year's figure
    without a unit nor, for a rate's unit, a figure of none passes (the bound step's
    :func:`_unit_filter` admits those beside a label). "movers charging over $150 an hour"
    → "Crew and truck (3 movers) … $165.00 per hour", never a $395 flat fee. None when
    there is no such step for ``c``."""
    free = per_unit_constraint(c)
    if free is None or free.period_unit is None:
        return None
    items: list[Filter] = [*_value_filters(free), Term(CURRENCY, free.currency)]
    if free.year is not None:
        items.append(Term(YEAR, free.year))
    items += [*_whose_part(free), Term(PERIOD_UNIT, free.period_unit)]
    return free, Nested(FACTS, AllOf(tuple(items)))
