"""The question binds what users ask: how often, whose, which part of the year, in what kind
of document, a bound written negative, a period no year has — and says how it read them.

Each case is a question as a user writes it, with what the reading must give written down
next to it; the filters are evaluated on stored facts in Python (:mod:`fact_eval`).
"""

from __future__ import annotations

import logging

import pytest
from fact_eval import passes
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from osrag.errors import QueryError
from osrag.lexicon.keys import label_keys
from osrag.schema.filters import AmountFilter, Match, Nested
from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import fact_filter, named_keys
from osrag.search.query import plan_query


def _one(text: str):  # type: ignore[no-untyped-def]
    (c,) = analyze_query(text).constraints
    return c


def _fact(label_keys: list[str], value: int, **fields: object) -> dict[str, object]:
    return {
        "label_keys": label_keys, "value": value, "magnitude": abs(value), "currency": "USD",
        "scope": "own", "period_part": "full", "period_unit": None, "year": None, **fields,
    }  # fmt: skip


# --------------------------------------------------------------------------- negative bounds


@pytest.mark.parametrize(
    ("text", "op", "bounds"),
    [
        ("net income under -$5 million", "lt", (-500_000_000,)),
        ("revenue over $-5", "gt", (-500,)),
        ("net income of at least -$2 million", "gte", (-200_000_000,)),
        ("operating income between -$5M and $5M", "between", (-500_000_000, 500_000_000)),
        ("net income over $(3) million", "gt", (-300_000_000,)),
    ],
)
def test_a_bound_written_negative_is_read_as_written(
    text: str, op: str, bounds: tuple[int, ...]
) -> None:
    c = _one(text)
    assert (c.op, c.bounds, c.written_signed, c.signed) == (op, bounds, True, True)


def test_a_negative_bound_compares_the_signed_value_on_every_step() -> None:
    c = _one("net income under -$5 million")
    node = fact_filter(c)
    keys = ["net income"]
    assert passes(node, _fact(keys, -600_000_000))
    assert not passes(node, _fact(keys, -400_000_000))
    assert not passes(node, _fact(keys, 600_000_000))  # never its magnitude
    (amount,) = [f for f in plan_query("net income under -$5 million").filters
                 if isinstance(f, AmountFilter)]  # fmt: skip
    relaxed = amount.role_free  # any amount of the chunk, still below -$5 million
    assert passes(relaxed, _fact(["other"], -600_000_000))
    assert not passes(relaxed, _fact(["other"], 600_000_000))
    revenue = _one("revenue over $-5")
    assert passes(fact_filter(revenue), _fact(["revenue"], 0))
    assert not passes(fact_filter(revenue), _fact(["revenue"], -600))


def test_an_exact_amount_written_negative_names_its_magnitude() -> None:
    c = _one("refund of -$500")
    assert (c.op, c.bounds, c.written_signed) == ("eq", (50_000,), False)


# --------------------------------------------------------------------------- impossible periods


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Q5 revenue over $5 million", "'Q5'"),
        ("revenue in 5Q19 over $5 million", "'5Q19'"),
        ("revenue in the fifth quarter over $5 million", "'fifth quarter'"),
        ("revenue in H3 2019 over $5 million", "'H3'"),
        ("revenue in month 13 over $5", "'month 13'"),
        ("revenue in 13/2019 over $5", "'13/2019'"),
    ],
)
def test_a_period_no_year_has_is_refused_naming_it(text: str, named: str) -> None:
    with pytest.raises(QueryError) as raised:
        analyze_query(text)
    assert named in str(raised.value) and "no period of a year" in str(raised.value)


@pytest.mark.parametrize(
    "text",
    ["Q4 revenue over $5 million", "revenue in 12/2019 over $5", "revenue in H2 2019 over $5"],
)
def test_a_period_a_year_has_is_not_refused(text: str) -> None:
    assert analyze_query(text).constraints


# --------------------------------------------------------------------------- how often


@pytest.mark.parametrize(
    ("text", "label", "unit", "named"),
    [
        ("weekly wage under $1,000", "wage", "week", "weekly wage"),
        ("wages under $1,000 a week", "wages", "week", None),
        ("leases with monthly rent under $2,000", "rent", "month", "monthly rent"),
        ("rent per month under $2,000", "rent", "month", "rent per month"),
        ("HOA dues over $400 a month", "HOA dues", "month", None),
        ("stipend of at least $60,000 per annum", "stipend", "year", None),
        ("shift differential over $1 per hour", "shift differential", "hour", None),
        ("hourly pay above $24", "pay", "hour", "hourly pay"),
        ("annual base rent above $150,000", "base rent", "year", "annual base rent"),
        # a period's figure: "annual" names the year, asked by default
        ("companies with annual revenue over $4 billion", "revenue", None, "annual revenue"),
        ("revenue over $5 billion a year", "revenue", None, None),
        # a name a profile knows whole keeps its words
        ("minimum annual purchase commitment above $200,000",
         "minimum annual purchase commitment", None, None),
    ],
)  # fmt: skip
def test_a_unit_in_the_name_or_after_the_amount_is_the_period_unit(
    text: str, label: str, unit: str | None, named: str | None
) -> None:
    c = _one(text)
    assert (c.label, c.period_unit, c.named) == (label, unit, named)


def test_a_label_that_says_the_unit_itself_is_the_figure_for_that_unit() -> None:
    c = _one("premium under $500 a year")
    assert "annual premium" in named_keys(c) and "premium per year" in named_keys(c)
    node = fact_filter(c)
    assert passes(node, _fact(["annual premium", "premium"], 45_000))  # "Annual premium: $450"
    assert passes(node, _fact(["premium"], 45_000, period_unit="year"))
    assert not passes(node, _fact(["premium"], 45_000, period_unit="month"))
    assert not passes(node, _fact(["premium"], 45_000))  # states no period
    # a figure a document states for one year is a yearly one
    assert passes(node, _fact(["premium"], 45_000, year=2023))


def test_a_known_name_that_says_how_often_is_also_its_rest_at_that_unit() -> None:
    c = _one("pay stubs with an hourly rate under $25")
    assert (c.label, c.period_unit) == ("hourly rate", None)  # a compensation profile name
    node = fact_filter(c)
    assert passes(node, _fact(["hourly rate", "rate"], 2_240))  # "Hourly rate: $22.40"
    # "Regular — Rate per hour": a rate beside its row's hours
    per_hour = ["regular", "rate", "regular rate", "rate per hour"]
    assert passes(node, _fact(per_hour, 2_240, period_unit="hour"))
    assert not passes(node, _fact(["rate"], 2_240))  # a rate of no stated unit
    assert not passes(node, _fact(["rate"], 2_240, period_unit="day"))
    assert not passes(node, _fact(per_hour, 2_900, period_unit="hour"))  # over the bound


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("suites under $250 per night", "suites", "night"),
        ("lodging rate below $180 a night", "lodging rate", "night"),
        ("banquet packages over $95 per guest", "banquet packages", "person"),
        ("catering under $60 per head", "catering", "person"),
        ("course fees above $500 per credit hour", "course fees", "credit hour"),
        ("mileage charge over $0.40 per mile", "mileage charge", "mile"),
    ],
)  # fmt: skip
def test_a_rate_unit_after_the_amount_or_in_the_name_is_the_constraints_unit(
    text: str, label: str, unit: str
) -> None:
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("VPN licences under $6 per user per month", "VPN licences", "month"),
        ("mooring fees above $2 per foot per night", "mooring fees", "night"),
        ("warehouse space over $9 per square foot a year", "warehouse space", "year"),
        ("seminar fees below $80 per person per day", "seminar fees", "person"),
        ("excavator hire at $300 per machine", "excavator hire", None),
    ],
)  # fmt: skip
def test_a_unit_of_sale_before_the_period_leaves_the_period_the_constraints_unit(
    text: str, label: str, unit: str | None
) -> None:
    # a unit of sale is no period ("per user", "per foot"); the period after it is the
    # rate's; a unit of the table said first stays the unit
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("surveyors charging less than $350 per site visit", "site visit", "visit"),
        ("couriers charging over $2 per extra mile", "extra mile", "mile"),
        ("locksmiths charging $15 to $25 per additional key", "additional key", None),
        ("clinics that charge under $120 for an initial assessment", "initial assessment", None),
        ("electricians charging more than $90 an hour for call-out work", "call-out work", "hour"),
        ("kennels billing $30 a night for boarding", "boarding", "night"),
        ("labs charging $18 a sample for a nitrate test", "nitrate test", None),
        ("agencies charging $30 or less per page", "charge", "page"),
        ("plumbers charging over $95 per hour", "charge", "hour"),
        ("vendors charging under $9 per seat per month", "charge", "month"),
        ("landlords charging $3 per square foot a year", "charge", "year"),
    ],
)  # fmt: skip
def test_a_verb_of_pricing_asks_the_thing_it_prices_after_for_or_per(
    text: str, label: str, unit: str | None
) -> None:
    # the thing priced written after the figure ("for" it, "per" one of it) is the name,
    # at the unit the price is counted by; a unit alone after "per" ("per page", "per
    # hour", "per seat per month") only counts the price: the verb's own figure, as before
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("contractors charging over $50 per hour worked", "charge", "hour"),
        ("tutors charging $40 per hour of tuition", "charge", "hour"),
        ("movers charging $150 per hour plus travel", "charge", "hour"),
        ("vendors charging $9 per seat monthly", "charge", "month"),
        ("engineers charging over $400 per site visit", "site visit", "visit"),
        ("preparers charging $60 per additional state return", "additional state return", None),
    ],
)  # fmt: skip
def test_a_unit_after_per_is_no_thing_priced_whatever_words_follow_it(
    text: str, label: str, unit: str | None
) -> None:
    # "per hour worked", "per hour of tuition": the unit the price is counted by, then
    # words about it; "per seat monthly": a unit of sale and its period said as an adverb
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("hotels charging $150 a night for a week", "charge", "night"),
        ("gyms charging $40 a month for a year", "charge", "month"),
        ("garages charging $80 per hour for the first hour", "charge", "hour"),
        ("nannies charging $20 an hour for two children", "charge", "hour"),
        ("shops charging $150 an hour for labor", "labor", "hour"),
        ("labs charging $22 a sample for a nitrate test", "nitrate test", None),
        ("funeral homes charging under $1,000 for embalming", "embalming", None),
    ],
)  # fmt: skip
def test_a_duration_or_a_count_after_for_is_no_thing_priced(
    text: str, label: str, unit: str | None
) -> None:
    # "for a week", "for the first hour", "for two children": how long or how many the
    # price is for, not what it buys; the verb's own figure is asked
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label", "total_of"),
    [
        ("sofa reupholstery quotes over $1,200 for labor", "labor", None),
        ("invoices under $300 for parts", "parts", None),
        ("roofing quotes over $8,000 for the job", "total", "quote"),
        ("moving estimates under $5,000 for the move", "total", "estimate"),
        ("catering quotes above $3,000 for the wedding", "total", "quote"),
        ("estimates over $1,000 for two rooms", "total", "estimate"),
        ("quotes over $900 for a week", "total", "quote"),
    ],
)  # fmt: skip
def test_a_kinds_figure_for_a_thing_is_that_things(
    text: str, label: str, total_of: str | None
) -> None:
    # "quotes over $1,200 for labor": the labor's figure in the quotes; the whole job, the
    # occasion, a count or a duration after "for" leave the kind's total asked
    c = _one(text)
    assert (c.label, c.total_of) == (label, total_of)


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("contracts with repairs billed at $85 an hour or more", "repairs", "hour"),
        ("design work quoted at under $90 an hour", "design work", "hour"),
        ("extra gallons charged at less than $0.40", "extra gallons", None),
        ("movers billed at over $150 an hour", "charge", "hour"),
        ("customers charged over $100", "charge", None),
        ("electricians invoiced at more than $90 an hour", "charge", "hour"),
    ],
)  # fmt: skip
def test_a_passive_verb_of_pricing_prices_its_subject(
    text: str, label: str, unit: str | None
) -> None:
    # "repairs billed at $85 an hour": the repairs' rate; after who does the work or who
    # pays ("movers billed", "customers charged") the verb's own charge
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("tailors charging more than $80 to bustle a wedding dress", "wedding dress bustle", None),
        ("installers charging under $5 a square foot to lay the floor", "floor lay", None),
        ("haulers charging $35 or less to dispose of an appliance", "appliance dispose", None),
        ("valeters charging under £60 to clean a car", "car clean", None),
        ("garages charging over $90 to do a wheel alignment", "wheel alignment", None),
        ("movers charging over $150 an hour", "charge", "hour"),
    ],
)  # fmt: skip
def test_the_work_after_to_is_the_thing_priced(text: str, label: str, unit: str | None) -> None:
    # "charging $80 to bustle a wedding dress": the work a verb and its object name is
    # what the price buys, the object first as a noun compound; a light verb ("to do")
    # names no work, its object does
    c = _one(text)
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    "text",
    [
        "lawyers who charge clients over $300 an hour",
        "lawyers charging clients over $300 an hour",
        "clinics billing patients more than $200 a visit",
        "landlords that charge tenants under $50 a month",
    ],
)
def test_the_people_billed_are_no_thing_priced(text: str) -> None:
    # the object of a verb of pricing that names who pays ("charge clients") is not the
    # quantity: the verb's own figure is
    assert _one(text).label == "charge"


def test_the_thing_priced_after_per_is_asked_by_its_price_never_another_charge() -> None:
    # "surveyors charging … per site visit": a site visit's fee passes; another
    # document's "charge" at the same unit no longer does
    node = fact_filter(_one("surveyors charging less than $350 per site visit"))
    visit = _fact(list(label_keys("Site visit fee")), 30_000, period_unit="visit")
    other = _fact(list(label_keys("Charge")), 30_000, period_unit="visit")
    assert passes(node, visit)
    assert not passes(node, other)


def test_a_rate_unit_asked_passes_that_unit_or_none_never_another() -> None:
    node = fact_filter(_one("suites under $250 per night"))
    assert passes(node, _fact(["suite"], 21_900, period_unit="night"))
    assert passes(node, _fact(["suite"], 21_900))  # a tariff that states no unit
    assert not passes(node, _fact(["suite"], 21_900, period_unit="day"))
    assert not passes(node, _fact(["suite"], 21_900, period_unit="person"))
    assert not passes(node, _fact(["suite"], 31_900, period_unit="night"))  # over


# --------------------------------------------------------------------------- whose and when


@pytest.mark.parametrize(
    ("text", "label", "scope", "name", "part"),
    [
        ("Americas segment revenue over $1 billion", "revenue", "region", "americas", "full"),
        ("EMEA revenue under $2 billion", "revenue", "region", "emea", "full"),
        ("Retail segment revenue over $1 billion", "revenue", "segment", "retail", "full"),
        ("adjusted EBITDA above $50 million", "EBITDA", "adjusted", None, "full"),
        ("line items over $500", None, "line_item", None, "full"),
        ("fourth-quarter revenue above $250 million", "revenue", "own", None, "q4"),
        ("revenue in H1 2019 over $5 million", "revenue", "own", None, "h1"),
        ("second-half net income over $5 million", "net income", "own", None, "h2"),
        ("revenue guidance above $4 billion", "revenue", "forecast", None, "full"),
        ("projected net sales over $5 million", "net sales", "forecast", None, "full"),
        ("budgeted costs under $20,000", "costs", "forecast", None, "full"),
        ("first-year funding over $150,000", "funding", "own", None, "y1"),
        ("Year 2 stipend above $30,000", "stipend", "own", None, "y2"),
        ("budget year 3 costs under $40,000", "costs", "own", None, "y3"),
        ("total funding over $400,000", "total funding", "own", None, "full"),
    ],
)
def test_a_scope_and_a_part_of_the_year_the_question_names_are_bound(
    text: str, label: str | None, scope: str, name: str | None, part: str
) -> None:
    c = _one(text)
    assert (c.label, c.scope, c.scope_name, c.period_part) == (label, scope, name, part)
    assert c.is_bound


def test_a_part_named_by_its_name_is_that_part_whatever_a_document_calls_it() -> None:
    node = fact_filter(_one("Americas segment revenue over $1 billion"))
    for scope in ("segment", "region", "product"):
        assert passes(node, _fact(["revenue"], 200_000_000_000, scope=scope, scope_name="americas"))
    assert not passes(node, _fact(["revenue"], 200_000_000_000))  # the company's own
    # a label that names the part itself: today's facts, before the scope is stored
    assert passes(node, _fact(["america segment revenue"], 200_000_000_000))


def test_a_forecast_is_taken_only_by_a_question_that_names_one() -> None:
    plain = fact_filter(_one("companies with revenue over $4 billion"))
    guided = fact_filter(_one("revenue guidance above $4 billion"))
    expected = _fact(["revenue"], 430_000_000_000, scope="forecast")
    reported = _fact(["revenue"], 430_000_000_000)
    assert passes(guided, expected) and not passes(guided, reported)
    assert passes(plain, reported) and not passes(plain, expected)


def test_a_term_years_share_answers_only_a_question_naming_that_year() -> None:
    """A year's share of a term's whole ("Year 1 funding") is no answer to a question naming
    no year, as a quarter's figure is none to the year's; a rate stated for one year of a
    term (a unit beside it: "Year 2 rent $2,100 a month") is that rate, as any of a
    schedule's is."""
    plain = fact_filter(_one("funding under $200,000"))
    first = fact_filter(_one("first-year funding under $200,000"))
    share = _fact(["funding"], 16_400_000, period_part="y1")
    whole = _fact(["funding"], 16_400_000)
    assert passes(first, share) and not passes(first, whole)
    assert passes(plain, whole) and not passes(plain, share)
    rent = fact_filter(_one("rent under $2,500"))
    assert passes(rent, _fact(["rent"], 210_000, period_part="y2", period_unit="month"))


def test_a_term_year_the_label_cannot_bind_narrows_to_any_figure_of_that_year() -> None:
    query = plan_query("first-year funding over $150,000")
    (amount,) = [f for f in query.filters if isinstance(f, AmountFilter)]
    assert amount.narrowed is not None
    narrower, node = amount.narrowed
    assert narrower.label is None and narrower.period_part == "y1"
    assert passes(node, _fact(["amount of this action"], 16_400_200, period_part="y1"))
    assert not passes(node, _fact(["total amount awarded"], 49_872_100))


# --------------------------------------------------------------------------- in what


def test_a_document_kind_ranks_and_excludes_nothing() -> None:
    c = _one("invoices with an amount payable over $4,000")
    assert c.label == "amount payable"  # "invoices" names what holds it: a document noun
    # a lone plural no profile lists names the holder too: no condition, its word ranks
    assert _one("leases with a late fee of $75 or more").context is None
    assert "leases" in plan_query("leases with a late fee of $75 or more").match_text
    node = fact_filter(c)
    assert isinstance(node, Nested)
    assert "Match" not in repr(node)  # no text condition: the kind is in the words matched
    assert passes(node, _fact(["total due"], 402_530))  # a statement's total due passes
    plan = plan_query("invoices with an amount payable over $4,000")
    assert "invoices" in plan.match_text


def test_the_narrowed_step_reads_the_first_word_as_a_key_or_in_the_breadcrumb() -> None:
    (amount,) = [f for f in plan_query("umbrella premium under $200").filters
                 if isinstance(f, AmountFilter)]  # fmt: skip
    assert amount.narrowed is not None
    narrower, node = amount.narrowed
    assert narrower.label == "premium"
    assert Match("breadcrumb", "umbrella umbrellas", "or") in _walk(node)  # either number
    assert not any(isinstance(n, Match) and n.field == "facts.label" for n in _walk(node))
    # "setup fee" never narrows to any fee: the first word must stand somewhere
    (fee,) = [f for f in plan_query("setup fee under $500").filters if isinstance(f, AmountFilter)]
    assert fee.narrowed is not None
    assert not passes(fee.narrowed[1].items[1], _fact(["cleaning fee", "fee"], 12_000))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "label", "kind"),
    [
        ("vehicle purchases with a vehicle price over $25,000", "vehicle price", "purchases"),
        ("service agreements with a labor rate under $100 per hour", "labor rate", "service"),
        ("wedding contracts with a venue fee under $4,000", "venue fee", "wedding"),
    ],
)
def test_the_narrowed_step_passes_the_quantity_as_named_in_a_document_of_another_name(
    text: str, label: str, kind: str
) -> None:
    c = _one(text)
    assert (c.label, c.context) == (label, kind)
    (amount,) = [f for f in plan_query(text).filters if isinstance(f, AmountFilter)]
    assert amount.narrowed is not None
    value = c.bounds[0] + (1 if c.op == "gt" else -1)
    fact = _fact(list(label_keys(label.capitalize())), value, period_unit=c.period_unit)
    # bound, the kind must stand where the document says what holds the figure; a
    # "Buyer's Order" never says "purchases": the narrowed step passes its vehicle price
    assert not passes(amount.filter, fact, "Ridgeway Motors › Terms")
    assert passes(amount.narrowed[1], fact, "Ridgeway Motors › Terms")
    # the quantity as named still decides: another figure of the document is no holder
    other = _fact(list(label_keys("Trade-in allowance")), value, period_unit=c.period_unit)
    assert not passes(amount.narrowed[1], other, "Ridgeway Motors › Terms")
    assert "in any document" in plan_query(text).asked["narrowed"][0]


_KINDS = st.sampled_from(["phone", "service", "vehicle", "wedding", "umbrella", "maintenance"])
_NAMES = st.sampled_from(
    ["contract price", "labor rate", "setup fee", "venue fee", "vehicle price", "base charge"]
)


@given(kind=_KINDS, name=_NAMES, amount=st.integers(min_value=1, max_value=90_000))
@settings(max_examples=60, deadline=None)
def test_the_kind_a_question_names_never_excludes_a_holder_of_the_named_quantity(
    kind: str, name: str, amount: int
) -> None:
    text = f"{kind} agreements with a {name} over ${amount:,}"
    c = _one(text)
    assume(c.label == name and c.context == kind)
    (f,) = [f for f in plan_query(text).filters if isinstance(f, AmountFilter)]
    holder = _fact(list(label_keys(name.capitalize())), (amount + 1) * 100)
    crumb = "Agreement › Price and payment"  # the kind said nowhere
    steps = [f.filter] + ([f.narrowed[1]] if f.narrowed is not None else [])
    # some step before the role-free one passes the holder, whatever the document is called
    assert any(passes(node, holder, crumb) for node in steps)
    below = _fact(list(label_keys(name.capitalize())), amount * 100)
    assert not any(passes(node, below, crumb) for node in steps)


def test_a_past_tense_of_paying_after_who_paid_names_the_figure() -> None:
    c = _one("EOBs where the plan paid more than $1,000")
    assert (c.label, c.op, c.context) == ("plan paid", "gt", None)
    node = fact_filter(c)
    assert passes(node, _fact(list(label_keys("Amount plan paid")), 101_920))
    assert passes(node, _fact(list(label_keys("Plan paid")), 100_100))
    assert not passes(node, _fact(list(label_keys("Plan paid")), 78_240))
    assert not passes(node, _fact(list(label_keys("What you owe the provider")), 168_680))
    assert _one("claims where the insurer paid over $5,000").label == "insurer paid"
    # the things asked for before it, in the plural, hold the figure: no name
    assert _one("policies paid over $5,000").label is None
    assert _one("policies that paid over $5,000").label is None


def _walk(node: object) -> list[object]:
    found = [node]
    for child in getattr(node, "items", ()) or ():
        found += _walk(child)
    inner = getattr(node, "item", None)
    return found + (_walk(inner) if inner is not None else [])


# --------------------------------------------------------------------------- forms of language


@pytest.mark.parametrize(
    ("text", "label", "op"),
    [
        ("promissory notes with a principal of exactly $85,000", "principal", "eq"),
        ("pay stubs with gross pay over $2,000", "gross pay", "gt"),
        ("net pay under $1,800", "net pay", "lt"),
        ("liability capped at $500,000 or less", "liability cap", "lte"),
        ("in-kind contribution valued over $10,000", "in-kind contribution", "gt"),
        ("employer's liability insurance of $1 million", "employer's liability insurance", "eq"),
        ("the policy's deductible under $500", "deductible", "lt"),
    ],
)
def test_the_forms_of_a_question_bind_their_quantity(text: str, label: str, op: str) -> None:
    c = _one(text)
    assert (c.label, c.op) == (label, op)


@pytest.mark.parametrize(
    "text",
    [
        "policies that pay over $500",
        "companies pay over $5",
        "endorsement agreements paying more than $400,000",
    ],
)
def test_a_verb_of_giving_is_no_quantity(text: str) -> None:
    assert _one(text).label is None


def test_a_verb_of_giving_with_a_whole_after_the_amount_asks_the_kinds_total() -> None:
    c = _one("endorsement agreements paying more than $400,000 in total")
    assert (c.label, c.total_of) == ("total", "agreement")


# --------------------------------------------------------------------------- never silent


def test_a_quantity_no_profile_names_is_said_and_asked_by_its_own_words() -> None:
    plan = plan_query("setup fee over $400")
    assert "'setup fee' is in no profile: asked by its own words" in plan.amount_notes
    assert plan.asked["bound"] == ["setup fee > USD 400.00: label keys {setup fee}"]
    assert plan.asked["role-free"] == ["amount > USD 400.00: any amount of the chunk"]


def test_a_profiles_synonym_is_said_with_the_names_it_is_asked_by() -> None:
    plan = plan_query("bills with an amount payable under $600")
    assert not plan.amount_notes  # a profile's quantity, read as written: nothing to warn of
    (bound,) = plan.asked["bound"]
    assert "('amount payable' is 'total due' in the invoices profile, also named {" in bound
    assert "balance due" in bound


def test_a_name_read_as_a_unit_or_a_scope_is_said() -> None:
    assert plan_query("weekly wage under $1,000").amount_notes == [
        "'weekly wage' read as 'wage' (per week)"
    ]
    assert plan_query("EMEA revenue under $2 billion").amount_notes == [
        "'EMEA revenue' read as 'revenue' (scope region 'emea')"
    ]


def test_every_step_down_is_logged_with_what_it_asked(caplog: pytest.LogCaptureFixture) -> None:
    from osrag.search.ladder import Ladder
    from osrag.search.results import Ran

    plan = plan_query("setup fee over $400")
    ladder = Ladder(plan)
    with caplog.at_level(logging.INFO, logger="osrag.search.searcher"):
        assert ladder.after(Ran([], 0, 0, None)) == "narrowed"
    (record,) = caplog.records
    assert (
        "{setup fee}" in record.getMessage() and "'setup' in the breadcrumb" in record.getMessage()
    )
    assert ladder.tried[0].asked == plan.asked["bound"]


# --------------------------------------------------------------------------- the year to date


@pytest.mark.parametrize(
    ("text", "label", "part"),
    [
        ("payslips with gross pay under $2,000", "gross pay", "full"),
        ("current gross pay under $2,000", "gross pay", "full"),
        ("gross pay this period under $2,000", "gross pay", "full"),
        ("net pay for the current pay period over $1,500", "net pay", "full"),
        ("year-to-date gross pay over $30,000", "gross pay", "ytd"),
        ("YTD earnings above $30,000", "earnings", "ytd"),
        ("statements with year to date interest over $50", "interest", "ytd"),
        ("current assets over $5 million", "current assets", "full"),
    ],
)
def test_the_year_to_date_is_asked_by_name_and_the_current_figure_by_default(
    text: str, label: str, part: str
) -> None:
    c = _one(text)
    assert (c.label, c.period_part) == (label, part)
    node = fact_filter(c)
    keys, value = list(label_keys(label)), c.bounds[0] + (1 if c.op == "gt" else -1)
    assert passes(node, _fact(keys, value, period_part=part))
    other = "full" if part == "ytd" else "ytd"
    assert not passes(node, _fact(keys, value, period_part=other))  # the other figure


@pytest.mark.parametrize(
    ("text", "label", "op", "unit"),
    [
        ("storage at $50 a day or less", "storage", "lte", "day"),
        ("base rent of $2,000 per month or more", "base rent", "gte", "month"),
        ("suites at $300 per night or under", "suites", "lte", "night"),
    ],
)
def test_a_unit_between_the_amount_and_a_comparison_after_it_is_the_constraints_unit(
    text: str, label: str, op: str, unit: str
) -> None:
    c = _one(text)
    assert (c.label, c.op, c.period_unit) == (label, op, unit)


@pytest.mark.parametrize(
    ("text", "label", "context"),
    [
        ("renters insurance that covers at least $20,000", "limit", "renters insurance"),
        ("pet plans covering surgery up to at least $4,000", "surgery limit", "pet plans"),
        ("travel policies insuring baggage over $1,500", "baggage limit", "travel policies"),
        ("roadside cover paying more than $200 per tow", "limit", "roadside cover"),
    ],
)
def test_a_verb_of_cover_asks_a_limit_of_its_object_or_of_the_plan(
    text: str, label: str, context: str
) -> None:
    c = _one(text)
    assert (c.label, c.context) == (label, context)


def test_the_limit_a_verb_of_cover_asks_meets_the_coverage_a_document_names() -> None:
    c = _one("boat plans covering towing up to at least $500")
    one = fact_filter(c.model_copy(update={"context": None}))
    assert passes(one, _fact(list(label_keys("Towing limit")), 60000))
    assert not passes(one, _fact(list(label_keys("Towing fee")), 60000))
