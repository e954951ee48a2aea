"""The constraint parser: a differential table of hand-checked phrasings, property tests
over phrasing × format × currency, no range without a comparison word, linear cost."""

from __future__ import annotations

import csv
import gc
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.engines.rest.compiler import compile_filter
from osrag.errors import QueryError
from osrag.schema.constraints import AmountConstraint, approximate_band
from osrag.schema.filters import AmountFilter
from osrag.search.analysis import analyze_query
from osrag.search.query import build_query, plan_query

TABLE = Path(__file__).parents[1] / "data" / "constraints" / "phrasings.tsv"


def _rows() -> list[dict[str, str]]:
    with TABLE.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


ROWS = _rows()


def _expected(row: dict[str, str]) -> list[tuple[str, str, tuple[int, ...]]]:
    if row["op"] == "none":
        return []
    ops, bounds, currencies = (row[k].split(";") for k in ("op", "bounds", "currency"))
    return [
        (op, cur, tuple(int(b) for b in bs.split(",")))
        for op, bs, cur in zip(ops, bounds, currencies, strict=True)
    ]


def test_the_table_is_big_enough_and_well_formed() -> None:
    assert len(ROWS) >= 100
    assert len({r["phrase"] for r in ROWS}) == len(ROWS), "a phrase is listed twice"
    ops = {op for r in ROWS for op in r["op"].split(";")}
    assert ops == {"eq", "gt", "gte", "lt", "lte", "between", "in", "none"}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["phrase"])
def test_every_hand_checked_phrasing_parses_as_written_down(row: dict[str, str]) -> None:
    got = analyze_query(row["phrase"]).constraints
    assert [(c.op, c.currency, c.bounds) for c in got] == _expected(row)
    for c in got:
        assert c.approximate == ("approximate" in (row["note"] or ""))
        assert row["phrase"][c.start : c.end] == c.text


# --------------------------------------------------------------------------- properties

CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP", "USD ": "USD", "EUR ": "EUR"}
PHRASES: dict[str, tuple[str, str]] = {
    # op → (before, after) around the amount
    "gt": ("more than ", ""),
    "gte": ("at least ", ""),
    "lt": ("under ", ""),
    "lte": ("no more than ", ""),
    "gte+": ("", " or more"),
    "lte+": ("", " or less"),
    "eq": ("a limit of ", " per claim"),
}


def _written(dollars: int, style: str) -> tuple[str, int]:
    """An amount of whole units in one of osrag's formats, and its value in units."""
    if style == "grouped":
        return f"{dollars:,}", dollars
    if style == "plain":
        return str(dollars), dollars
    if style == "K":
        return f"{dollars}K", dollars * 1000
    return f"{dollars} million", dollars * 1_000_000


@settings(max_examples=300, deadline=None)
@given(
    dollars=st.integers(min_value=1, max_value=999_999),
    style=st.sampled_from(["grouped", "plain", "K", "million"]),
    sign=st.sampled_from(sorted(CURRENCIES)),
    op=st.sampled_from(sorted(PHRASES)),
    context=st.sampled_from(["umbrella policies with ", "", "which cyber covers have "]),
)
def test_phrasing_format_and_currency_give_the_stated_constraint(
    dollars: int, style: str, sign: str, op: str, context: str
) -> None:
    number, units = _written(dollars, style)
    before, after = PHRASES[op]
    text = f"{context}{before}{sign}{number}{after}"
    [got] = analyze_query(text).constraints
    assert (got.op, got.currency, got.bounds) == (op.rstrip("+"), CURRENCIES[sign], (units * 100,))
    assert not got.approximate


@settings(max_examples=200, deadline=None)
@given(
    dollars=st.integers(min_value=10, max_value=999_999),  # "$5/mo": a fraction
    unit=st.sampled_from(["a day", "per month", "a year", "each week", "per hour", "/hr", "/mo",
                          "a ticket", "per signature", "per square foot", "each copy", "/page"]),
    tail=st.sampled_from(sorted({"or less": "lte", "or under": "lte", "or more": "gte",
                                 "and up": "gte", "or higher": "gte"}.items())),
    context=st.sampled_from(["storage at ", "rooms for ", "a wage of ", ""]),
)  # fmt: skip
def test_a_comparison_after_the_amounts_period_unit_is_the_amounts(
    dollars: int, unit: str, tail: tuple[str, str], context: str
) -> None:
    # "$50 a day or less", "£2.50 a ticket or less": the comparison follows the unit (of a
    # period or of anything priced by it), and still bounds the amount
    words, op = tail
    space = "" if unit.startswith("/") else " "
    [got] = analyze_query(f"{context}${dollars:,}{space}{unit} {words}").constraints
    assert (got.op, got.bounds) == (op, (dollars * 100,))


@settings(max_examples=200, deadline=None)
@given(
    low=st.integers(min_value=1, max_value=10**6),
    span=st.integers(min_value=0, max_value=10**6),
    sign=st.sampled_from(["$", "€", "USD "]),
    form=st.sampled_from(["between {a} and {b}", "from {a} to {b}", "{a} to {b}", "{a}–{b}"]),
)
def test_ranges_give_between_with_both_ends(low: int, span: int, sign: str, form: str) -> None:
    high = low + span
    text = "policies " + form.format(a=f"{sign}{low:,}", b=f"{sign}{high:,}")
    got = analyze_query(text).constraints
    if low == high and form in ("{a} to {b}", "{a}–{b}"):
        assert [c.op for c in got] == ["between"]
    [only] = got
    assert (only.op, only.bounds) == ("between", (low * 100, high * 100))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(min_value=1, max_value=10**7), min_size=2, max_size=4, unique=True)
)
def test_a_choice_of_amounts_is_one_in_constraint(values: list[int]) -> None:
    written = [f"${v:,}" for v in values]
    text = "umbrella with " + ", ".join(written[:-1]) + " or " + written[-1]
    [got] = analyze_query(text).constraints
    assert (got.op, got.bounds) == ("in", tuple(sorted(v * 100 for v in values)))


WORDS = st.sampled_from(
    ["umbrella", "policy", "limit", "of", "the", "and", "per", "claim", "with", "for", "2024",
     "cover", "a", "deductible", "$300,000", "$5K", "€1,000", "USD 250", "100 dollars", "or",
     "in", "to", "-", "(", ")", ",", "miles", "500", "UMB-300000", "term", "2M"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(words=st.lists(WORDS, max_size=12))
def test_text_without_comparison_words_never_yields_a_comparison(words: list[str]) -> None:
    """No comparison word, no range or comparison. Ranges need a range shape
    ("X to Y", "X–Y") and choices an "or" between amounts, so those are checked
    against the text itself."""
    text = " ".join(words)
    for c in analyze_query(text).constraints:
        assert c.op in ("eq", "in", "between"), text
        if c.op == "in":
            assert " or " in c.text, text
        if c.op == "between":
            assert " to " in c.text or "-" in c.text, text


@settings(max_examples=200, deadline=None)
@given(units=st.integers(min_value=0, max_value=2**63 - 1))
def test_the_approximate_band_holds_the_amount_and_ten_percent(units: int) -> None:
    low, high = approximate_band(units)
    assert low <= units <= high <= 2**63 - 1
    # ±10 %, each end rounded outwards to a whole minor unit
    assert 10 * (units - low) < units + 10
    assert high == 2**63 - 1 or 10 * (high - units) < units + 10
    assert 10 * (units - low) >= units - 9 and (high == 2**63 - 1 or 10 * (high - units) >= units)


# --------------------------------------------------------------------------- filters


def _amount_filters(text: str, **overrides: object) -> list[dict[str, object]]:
    """The amount filters of the request body (before the guards)."""
    plan = plan_query(text, **overrides)  # type: ignore[arg-type]
    body = build_query(plan.spec)["query"]["bool"].get("filter", [])
    return body[: sum(isinstance(f, AmountFilter) for f in plan.filters)]


def test_each_operator_compiles_to_one_filter_on_the_long_field() -> None:
    assert _amount_filters("over $500,000") == [{"range": {"amounts": {"gt": 50_000_000}}}]
    assert _amount_filters("$500K or more") == [{"range": {"amounts": {"gte": 50_000_000}}}]
    assert _amount_filters("under $5") == [{"range": {"amounts": {"lt": 500}}}]
    assert _amount_filters("up to $5") == [{"range": {"amounts": {"lte": 500}}}]
    assert _amount_filters("$1M–$2M") == [
        {"range": {"amounts": {"gte": 100_000_000, "lte": 200_000_000}}}
    ]
    assert _amount_filters("$300K or $3M") == [{"terms": {"amounts": [30_000_000, 300_000_000]}}]
    assert _amount_filters("€300K or €3M") == [
        {"terms": {"money": ["EUR:30000000", "EUR:300000000"]}}
    ]
    assert _amount_filters("over $1M and under $5M") == [
        {"range": {"amounts": {"gt": 100_000_000}}},
        {"range": {"amounts": {"lt": 500_000_000}}},
    ]
    assert _amount_filters("over $1M", amount_filter=False) == []


def test_the_filters_sit_in_bool_filter_and_in_the_knn_filter() -> None:
    from osrag.search.query import search_bodies

    plan = plan_query("the umbrella policies over $500,000", tenant="acme", mode="hybrid")
    lexical, knn, _count = search_bodies(plan, vector=[0.1, 0.2])
    clause = {"range": {"amounts": {"gt": 50_000_000}}}
    assert clause in lexical["query"]["bool"]["filter"]
    assert clause in knn["query"]["knn"]["vector"]["filter"]["bool"]["filter"]
    assert build_query("the policies over $500,000")["query"]["bool"]["filter"][0] == clause
    bound = plan_query("umbrella limits over $500,000", mode="hybrid")
    lexical, knn, _count = search_bodies(bound, vector=[0.1, 0.2])
    (nested,) = [f for f in lexical["query"]["bool"]["filter"] if "nested" in f]
    assert nested in knn["query"]["knn"]["vector"]["filter"]["bool"]["filter"]
    assert {"range": {"facts.magnitude": {"gt": 50_000_000}}} in json_filters(nested)


def json_filters(nested: dict[str, Any]) -> list[Any]:
    found: list[Any] = nested["nested"]["query"]["bool"]["filter"]
    return found


def test_a_range_in_another_currency_filters_that_currency_s_facts() -> None:
    """The refusal is gone: a comparison in euros is a fact in euros meeting it."""
    plan = plan_query("the travel policies over €50,000")
    (amount,) = [f for f in plan.filters if isinstance(f, AmountFilter)]
    assert amount.constraint.label is None
    assert "facts.currency" in json.dumps(compile_filter(amount.filter))
    assert plan_query("travel cover over €50,000", amount_filter=False).amount_status == "off"


def test_explicit_constraints_override_the_text() -> None:
    mine = AmountConstraint(op="between", currency="USD", bounds=(1, 2))
    plan = plan_query("umbrella $300K", constraints=[mine])
    assert plan.amount_status == "explicit" and plan.constraints == [mine]


def test_the_single_amount_fields_stay_for_existing_callers() -> None:
    one = plan_query("umbrella $300K")
    assert one.amount_status == "one" and one.amount is not None
    ranged = plan_query("umbrella over $300K")
    assert ranged.amount_status == "one" and ranged.amount is None  # not an exact amount


# --------------------------------------------------------------------------- bounded cost


def _seconds(text: str) -> float:
    """The best of five runs, the garbage collector paused: the algorithm's cost, not the
    machine's noise (a quadratic step shows as 256x for 16x the amounts)."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            started = time.perf_counter()
            analyze_query(text, max_amounts=10**6)
            best = min(best, time.perf_counter() - started)
    finally:
        gc.enable()
    return best


def test_analysis_is_linear_in_the_number_of_amounts() -> None:
    # 16x the amounts: linear work takes ~16x, a quadratic step ~256x; the bound between
    # them leaves room for a loaded machine's noise without letting a quadratic pass
    small = " ".join(f"over ${i},000" for i in range(1, 1000))
    large = " ".join(f"over ${i},000" for i in range(1, 16000))
    _seconds(small)  # warm the compiled patterns
    ratio = _seconds(large) / _seconds(small)
    assert ratio <= 64.0, f"16x the amounts took {ratio:.1f}x the time"


def test_a_query_with_too_many_amounts_is_refused_before_the_work_grows() -> None:
    text = " ".join(f"${i},000" for i in range(1, 4000))
    started = time.perf_counter()
    with pytest.raises(QueryError, match="at most 16 amounts"):
        build_query(text)
    assert time.perf_counter() - started < 0.5
    seventeen = " ".join(f"${i}" for i in range(1, 18))
    with pytest.raises(QueryError, match="amounts: 17"):
        analyze_query(seventeen)
    assert len(analyze_query(seventeen, max_amounts=17).constraints) == 17
    assert len(plan_query(seventeen, max_amounts=17).constraints) == 17


def test_a_constraint_lets_a_text_of_stop_words_match_every_candidate() -> None:
    # the words left once the amount is removed may all be stop words: the engine's
    # default (zero_terms_query none) would match nothing although the filter has
    # candidates; with a constraint the match then matches all and the filter decides
    match = build_query("Is it the one over $5m?")["query"]["bool"]["must"][0]["match"]["text"]
    assert "zero_terms_query" not in match  # "one" is a term: the words still rank
    match = build_query("Is it the over $5m?")["query"]["bool"]["must"][0]["match"]["text"]
    assert match["query"].startswith("Is it the") and "5" not in match["query"]
    assert match["zero_terms_query"] == "all"
    # without a constraint, or with the amount filter off, the default stays
    for plain in (build_query("What was the?"), build_query("the $5m", amount_filter=False)):
        assert "zero_terms_query" not in plain["query"]["bool"]["must"][0]["match"]["text"]
