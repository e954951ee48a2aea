"""Each constraint bound to the quantity, year and sign the question names.

``tests/data/constraints/bound_phrasings.tsv`` holds hand-checked phrasings with the label,
year and sign written down next to each; hypothesis generates phrasings × labels ×
currencies × signs and checks the parser and the binding give back what was put in; the
signed filter is checked against the sign policy written out here.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.lexicon.function_words import ASKED_NAME_STOPS
from osrag.lexicon.keys import label_alternatives
from osrag.lexicon.label_roles import TAX_INCLUSIONS
from osrag.lexicon.links import OWED_ALONE, OWED_NAME
from osrag.lexicon.profiles import builtin_vocabulary
from osrag.lexicon.signs import is_signed, names_loss, result_families
from osrag.lexicon.words import normalised
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import AllOf, AnyOf, Filter, Match, Nested, Range, Term, Terms
from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import (
    constraint_keys,
    fact_filter,
    price_keys,
    signed_filter,
    thing_priced,
    whole_totals,
)

TABLE = Path(__file__).parents[1] / "data" / "constraints" / "bound_phrasings.tsv"
QUANTITY_NOUNS = builtin_vocabulary().quantity_nouns - ASKED_NAME_STOPS
"""The built-in profiles' quantity nouns but those that are verbs too ("pay")."""
DOCUMENT_NOUNS = builtin_vocabulary().document_nouns
TOTALLED_NOUNS = builtin_vocabulary().totalled_nouns


def _rows() -> list[dict[str, str]]:
    with TABLE.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


ROWS = _rows()


def _expected(row: dict[str, str]) -> list[tuple[Any, ...]]:
    columns = [row[k].split(";") for k in ("op", "bounds", "currency", "label", "year", "signed")]
    return [
        (
            op,
            tuple(int(b) for b in bounds.split(",")),
            currency,
            None if label == "-" else label,
            None if year == "-" else int(year),
            signed == "yes",
        )
        for op, bounds, currency, label, year, signed in zip(*columns, strict=True)
    ]


def _bound(text: str) -> list[tuple[Any, ...]]:
    return [
        (c.op, c.bounds, c.currency, c.label, c.year, c.signed)
        for c in analyze_query(text).constraints
    ]


def test_the_table_has_sixty_bound_phrasings_and_role_free_ones() -> None:
    bound = [r for r in ROWS if any(label != "-" for label in r["label"].split(";"))]
    assert len(bound) >= 60
    assert len(ROWS) - len(bound) >= 8
    assert len({r["phrase"] for r in ROWS}) == len(ROWS), "a phrase is listed twice"
    assert {"yes", "no"} <= {s for r in ROWS for s in r["signed"].split(";")}
    assert {"USD", "EUR", "GBP", "JPY"} <= {c for r in ROWS for c in r["currency"].split(";")}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["phrase"])
def test_every_hand_checked_phrasing_binds_as_written_down(row: dict[str, str]) -> None:
    assert _bound(row["phrase"]) == _expected(row), row.get("note")


# --------------------------------------------------------------------------- properties

LABELS = st.sampled_from(
    [
        "deductible", "limit", "premium", "revenue", "net income", "net loss", "total assets",
        "operating income", "operating loss", "cost of revenue", "gross profit",
        "income before income taxes", "aggregate limit", "death benefit",
        "personal property coverage", "interest expense", "self-insured retention",
        "net cash provided by operating activities", "property, plant and equipment, net",
        "research and development", "stock-based compensation", "loss of use coverage",
    ]
)  # fmt: skip
OPENERS = st.sampled_from(["", "companies whose ", "which reports show ", "policies with a ",
                           "firms reporting ", "show me ", "list the "])  # fmt: skip
LINKS = st.sampled_from(["", "of ", "was ", "is ", "that was ", "that exceeded "])
CURRENCIES = st.sampled_from([("$", "USD"), ("€", "EUR"), ("£", "GBP"), ("¥", "JPY")])
YEARS = st.sampled_from(["", " in 2019", " for 2018", " for fiscal 2021", " in FY2017"])
COMPARISONS = st.sampled_from(
    [("over", "gt"), ("under", "lt"), ("at least", "gte"), ("no more than", "lte"),
     ("above", "gt"), ("below", "lt"), ("more than", "gt"), ("less than", "lt")]
)  # fmt: skip
MINOR = {"USD": 100, "EUR": 100, "GBP": 100, "JPY": 1}


def _year(suffix: str) -> int | None:
    digits = "".join(ch for ch in suffix if ch.isdigit())
    return int(digits) if digits else None


@settings(max_examples=400, deadline=None)
@given(
    opener=OPENERS,
    label=LABELS,
    link=LINKS,
    comparison=COMPARISONS,
    currency=CURRENCIES,
    whole=st.integers(1, 999_999),
    year=YEARS,
)
def test_a_quantity_before_a_comparison_binds_with_its_year_and_sign(
    opener: str,
    label: str,
    link: str,
    comparison: tuple[str, str],
    currency: tuple[str, str],
    whole: int,
    year: str,
) -> None:
    words, op = comparison
    if link == "that exceeded ":
        words, op = "", "gt"  # the verb is the comparison: "that exceeded $5"
    sign, code = currency
    amount = f"{sign}{whole:,}"
    text = f"{opener}{label} {link}{words} {amount}{year}".replace("  ", " ")
    (c,) = analyze_query(text).constraints
    assert (c.op, c.currency, c.bounds) == (op, code, (whole * MINOR[code],)), text
    assert c.label == label, text
    assert c.year == _year(year), text
    assert c.signed == is_signed(label), text


@settings(max_examples=200, deadline=None)
@given(
    noun=st.sampled_from(sorted(QUANTITY_NOUNS - {"cost"})),
    currency=CURRENCIES,
    whole=st.integers(1, 99_999),
    article=st.sampled_from(["", "a ", "the "]),
)
def test_a_quantity_noun_after_an_amount_binds_and_another_noun_does_not(
    noun: str, currency: tuple[str, str], whole: int, article: str
) -> None:
    sign, _code = currency
    (c,) = analyze_query(f"{article}{sign}{whole:,} {noun}").constraints
    # a balance named alone, and "due" where the phrase ends, are what is left to pay
    owed = noun in OWED_ALONE or noun == "due"
    assert c.label == (OWED_NAME if owed else noun) and c.op == "eq"
    (free,) = analyze_query(f"{article}{sign}{whole:,} umbrella policy").constraints
    assert free.label is None and free.year is None and not free.signed


@settings(max_examples=200, deadline=None)
@given(
    noun=st.sampled_from(sorted(DOCUMENT_NOUNS - TOTALLED_NOUNS)),
    comparison=COMPARISONS,
    whole=st.integers(1, 99_999),
)
def test_a_phrase_ending_in_what_holds_the_amount_stays_role_free(
    noun: str, comparison: tuple[str, str], whole: int
) -> None:
    (c,) = analyze_query(f"the {noun} {comparison[0]} ${whole:,}").constraints
    assert c.label is None and c.op == comparison[1]


@settings(max_examples=200, deadline=None)
@given(
    noun=st.sampled_from(sorted(TOTALLED_NOUNS)),
    plural=st.booleans(),
    qualifier=st.sampled_from(["", "contractor ", "binding moving ", "vendor "]),
    comparison=COMPARISONS,
    whole=st.integers(1, 99_999),
)
def test_a_kind_of_document_named_alone_asks_for_its_total(
    noun: str, plural: bool, qualifier: str, comparison: tuple[str, str], whole: int
) -> None:
    """A totalled noun alone ("contractor bids over $20,000") asks for the document's
    total: the label "total", ``total_of`` the noun, the words before it the kind's
    qualifier (context), and every name a profile gives such a total among the keys —
    none of a deposit's or a subtotal's."""
    kind = f"{qualifier}{noun}{'s' if plural else ''}"
    (c,) = analyze_query(f"{kind} {comparison[0]} ${whole:,}").constraints
    assert (c.label, c.total_of, c.op) == ("total", noun, comparison[1])
    assert c.context == (qualifier.strip() or None)
    keys = set(constraint_keys(c))
    assert {"total", "grand total", f"{noun} total", f"total {noun}"} <= keys
    assert not keys & {"deposit", "subtotal", "sales tax", "tax"}
    # a bill's total is its total due; an offer's (a bid, a quote) has nothing due yet
    assert ("amount payable" in keys) == (noun in {"invoice", "bill", "statement", "receipt"})


@pytest.mark.parametrize(
    ("question", "noun", "context"),
    [
        ("endorsement agreements paying more than $400,000 in total", "agreement", "endorsement"),
        ("sponsorship agreements worth over $50,000 all told", "agreement", "sponsorship"),
        ("licence contracts costing under $20,000 in all", "contract", "licence"),
        ("framework agreements over €1 million altogether", "agreement", "framework"),
    ],
)
def test_a_whole_said_after_the_amount_asks_the_kinds_total(
    question: str, noun: str, context: str
) -> None:
    """ "in total", "all told", "in all", "altogether" after the amount say the figure is a
    whole: the total of the kind of document named before it — through a verb of pricing
    or none —, a kind no profile totals too ("agreements": the names of any kind's
    total), never one of its parts."""
    (c,) = analyze_query(question).constraints
    assert (c.label, c.total_of, c.context) == ("total", noun, context)
    keys = set(constraint_keys(c))
    assert {"total", "grand total", f"{noun} total", f"total {noun}"} <= keys
    assert not keys & {"payment", "fee", "deposit", "installment"}


@pytest.mark.parametrize(
    ("question", "label"),
    [
        # a quantity named before the whole keeps its name
        ("royalties of more than $5,000 in total", "royalties"),
        ("license fees over $20,000 in total", "license fees"),
        # no whole said: a kind no profile totals names no quantity, a verb that needs
        # its object none either
        ("endorsement agreements paying more than $400,000", None),
        ("framework agreements over €1 million", None),
    ],
)
def test_a_whole_said_after_a_named_quantity_or_none_said_changes_nothing(
    question: str, label: str | None
) -> None:
    (c,) = analyze_query(question).constraints
    assert c.label == label and c.total_of is None


WORDS = st.sampled_from(
    ["umbrella", "limit", "of", "the", "revenue", "in", "2019", "over", "under", "$500",
     "€1M", "between", "and", "net", "loss", "deductible", ",", "policy", "with", "FY20",
     "at least", "$2,000", "or", "more", "a", "UMB-1", "income", "$3M"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(words=st.lists(WORDS, max_size=14))
def test_binding_never_changes_what_the_parser_read(words: list[str]) -> None:
    """Binding adds a label, a year and a sign; the operator, bounds, currency and phrase
    are the parser's. A year is bound only with a label; a label is never empty."""
    from osrag.extract.money import scan_money
    from osrag.search.constraint_parser import parse_constraints

    text = " ".join(words)
    parsed = parse_constraints(text, scan_money(text, "USD").mentions)
    bound = analyze_query(text).constraints
    assert [(*c.key[:3], c.text, c.start, c.end) for c in bound] == [
        (*c.key[:3], c.text, c.start, c.end) for c in parsed
    ]
    for c in bound:
        assert c.label is None or normalised(c.label), text
        assert c.year is None or c.label is not None, text
        assert not c.signed or (c.label is not None and is_signed(c.label)), text


# --------------------------------------------------------------------------- the sign policy


def _passes(node: Filter, value: int) -> bool:
    """Whether a fact with this signed ``value`` meets ``node`` (value conditions only)."""
    if isinstance(node, Term):
        return value == node.value
    if isinstance(node, Terms):
        return value in node.values
    if isinstance(node, Range):
        b = node.bounds()
        return all(
            {"gt": value > v, "gte": value >= v, "lt": value < v, "lte": value <= v}[k]
            for k, v in b.items()
            if isinstance(v, int)
        )
    raise AssertionError(f"not a value condition: {node!r}")


def _meets(c: AmountConstraint, magnitude: int) -> bool:
    b = c.bounds
    return {
        "eq": magnitude == b[0],
        "in": magnitude in b,
        "between": b[0] <= magnitude <= b[-1],
        "gt": magnitude > b[0],
        "gte": magnitude >= b[0],
        "lt": magnitude < b[0],
        "lte": magnitude <= b[0],
    }[c.op]


signed_constraints = (
    st.builds(
        AmountConstraint,
        op=st.sampled_from(["eq", "gt", "gte", "lt", "lte"]),
        currency=st.just("USD"),
        bounds=st.tuples(st.integers(0, 10**9)),
    )
    | st.builds(
        AmountConstraint,
        op=st.just("between"),
        currency=st.just("USD"),
        bounds=st.tuples(st.integers(0, 10**6), st.integers(10**6, 10**9)),
    )
    | st.builds(
        AmountConstraint,
        op=st.just("in"),
        currency=st.just("USD"),
        bounds=st.lists(st.integers(0, 10**9), min_size=2, max_size=4, unique=True).map(
            lambda v: tuple(sorted(v))
        ),
    )
)


@settings(max_examples=500, deadline=None)
@given(c=signed_constraints, negative=st.booleans(), value=st.integers(-(10**9), 10**9))
def test_a_result_is_compared_on_the_side_its_label_names(
    c: AmountConstraint, negative: bool, value: int
) -> None:
    """The policy: an exact amount of a loss is its negative value, of another result its
    value; a comparison or range of a loss holds for a negative value whose magnitude meets
    it, of another result for a positive one (zero is on neither side)."""
    if c.op in ("eq", "in"):
        expected = value in {-v if negative else v for v in c.bounds}
    else:
        side = value < 0 if negative else value > 0
        expected = side and _meets(c, abs(value))
    assert _passes(signed_filter(c, negative), value) == expected, (c.op, c.bounds, value)


def test_loss_labels_name_the_negative_side_of_their_family() -> None:
    for family in result_families():
        losses = [name for name in family if names_loss(name)]
        gains = [name for name in family if not names_loss(name)]
        assert losses and gains, family
        for name in family:
            assert is_signed(name)
            assert set(label_alternatives(losses[0])) & set(label_alternatives(gains[0]))
    assert not names_loss("net income (loss)") and is_signed("net income (loss)")
    assert names_loss("loss before income taxes") and is_signed("loss before income taxes")
    assert not is_signed("loss of use") and not is_signed("deductible")


def test_a_label_matches_without_its_generic_or_section_word() -> None:
    # (with the other names the insurance profile gives the quantity)
    # a phrase holding another matches nothing more: the shorter name stands for both
    assert label_alternatives("personal property coverage") == (
        "personal property", "personal properties", "coverage c", "contents",
    )  # fmt: skip
    # the section a schedule lists the line under, when two words or more are left
    assert label_alternatives("property damage liability") == (
        "property damage", "property damages",
    )  # fmt: skip
    assert label_alternatives("personal liability") == (
        "personal liability", "personal liabilities", "coverage e",
    )  # fmt: skip


def test_a_bound_constraint_is_one_nested_filter_of_label_value_currency_year_and_scope() -> None:
    (c,) = analyze_query("net loss under $20 million in 2019").constraints
    node = fact_filter(c)
    assert isinstance(node, Nested) and node.path == "facts"
    assert isinstance(node.item, AllOf)
    label, value, currency, year, scope, part = node.item.items
    # the document's own figure for the whole period, unless the question names another —
    # or one of its lines, whose label names the quantity as well
    assert scope == Terms("facts.scope", ("line_item", "own"))
    # the whole period, or a rate stated for one year of a term
    assert isinstance(part, AnyOf) and part.items[0] == Term("facts.period_part", "full")
    assert isinstance(label, Terms) and label.field == "facts.label_keys"
    assert {"net income", "net loss", "net earning"} <= set(label.values)
    assert value == Range("facts.value", gt=-2_000_000_000, lt=0)
    assert currency == Term("facts.currency", "USD") and year == Term("facts.year", 2019)
    (deductible,) = analyze_query("deductible under $1,000").constraints
    node = fact_filter(deductible)
    assert isinstance(node, Nested) and isinstance(node.item, AllOf)
    assert Range("facts.magnitude", lt=100_000) in node.item.items


@pytest.mark.parametrize(
    ("text", "label", "context"),
    [
        ("umbrella policies with limits over $500,000", "limits", "umbrella"),
        ("home insurance with personal liability of at least $500,000", "personal liability",
         "home insurance"),
        ("auto policies with bodily injury limits of $100,000 or more", "bodily injury limits",
         "auto"),
        ("umbrella with a self-insured retention under $1,000", "self-insured retention",
         "umbrella"),
        ("companies whose revenue exceeded $500 million", "revenue", None),
        ("policies with a deductible under $1,000", "deductible", None),
        ("which reports show total assets between $1 billion and $5 billion", "total assets",
         None),
        # the head before "with" names the holder: a document noun or a quantity named whole
        ("homes with an asking price under $500,000", "asking price", None),
        # a lone noun before "with" is the holder too when no profile knows it
        ("leases with monthly rent under $2,000", "rent", None),
        ("receipts with a grand total over $50", "grand total", None),
        ("timesheets with overtime pay over $300", "overtime pay", None),
        ("loans with a monthly payment under $2,000", "payment", None),
        ("bridge loans with a monthly payment under $2,000", "payment", "bridge"),
        # a qualifier the name says already is no further condition
        ("franchise agreements with an initial franchise fee under $30,000",
         "initial franchise fee", None),
        ("umbrella policies with an umbrella premium under $900", "umbrella premium", None),
    ],
)  # fmt: skip
def test_the_kind_of_document_before_with_is_the_context(
    text: str, label: str, context: str | None
) -> None:
    (c,) = analyze_query(text).constraints
    assert (c.label, c.context) == (label, context)


def test_a_label_of_a_document_kind_and_a_quantity_narrows_on_the_ladder() -> None:
    from osrag.search.fact_filters import narrowed_constraint

    (c,) = analyze_query("umbrella premium under $200 a year").constraints
    narrower = narrowed_constraint(c)
    assert narrower is not None and (narrower.label, narrower.context) == ("premium", "umbrella")
    for whole in ("total assets over $1 billion", "net income above $5 million",
                  "deductible under $500", "cost of revenue under $1 million"):  # fmt: skip
        (c,) = analyze_query(whole).constraints
        assert narrowed_constraint(c) is None, whole


@pytest.mark.parametrize(
    ("text", "label", "context"),
    [
        ("add-on workshops over $2,000", "workshops", "add on"),
        ("in-kind prizes valued over $1,000", "prizes", "in kind"),
        ("out-of-state tuition under $9,000", "tuition", "out of state"),
        ("state-of-the-art lab fit-out fee over $20,000", "lab fit out fee", "state of the art"),
    ],
)
def test_a_hyphenated_first_word_narrows_as_one(text: str, label: str, context: str) -> None:
    from osrag.search.fact_filters import narrowed_constraint

    (c,) = analyze_query(text).constraints
    narrower = narrowed_constraint(c)
    assert narrower is not None and (narrower.label, narrower.context) == (label, context)


def test_a_narrowed_standing_is_asked_by_its_person_too() -> None:
    from osrag.search.fact_filters import narrowed_constraint, narrowed_filter, narrowed_keys

    (c,) = analyze_query("corner memberships over $300").constraints
    narrower = narrowed_constraint(c)
    assert narrower is not None and narrowed_keys(narrower) == ("member",)
    found = narrowed_filter(c)
    assert found is not None and "'member'" in repr(found[1])
    # bound, the name is asked by its own words only
    assert "'member'" not in repr(fact_filter(c)) and "member" not in constraint_keys(c)
    (plain,) = analyze_query("corner booths over $300").constraints
    narrower = narrowed_constraint(plain)
    assert narrower is not None and narrowed_keys(narrower) == ()


def test_a_name_that_is_one_compound_is_not_narrowed() -> None:
    from osrag.search.fact_filters import narrowed_constraint

    (c,) = analyze_query("set-up under $300").constraints
    assert c.label is not None and narrowed_constraint(c) is None


def test_a_bound_name_asks_for_no_generic_word_its_synonyms_hold_alone() -> None:
    from osrag.lexicon.profiles import profiles_in_use, read_profile

    hire = read_profile(
        {
            "name": "hire",
            "quantity_nouns": ["total"],
            "quantities": [
                {
                    "name": "charter total",
                    "synonyms": ["total", "total amount", "charter value", "grand total"],
                }
            ],
        },
        "hire.toml",
    )
    with profiles_in_use((hire,)):
        (c,) = analyze_query("charters with a charter total under $900").constraints
        keys = constraint_keys(c)
        assert c.label is not None and "charter total" in keys and "grand total" in keys
        # a lone "total" (any document's), and "charter" of "charter value", are not it
        assert "total" not in keys and "charter" not in keys
        assert "'total'" not in repr(fact_filter(c))
        # the question that names the total alone asks for any total
        (alone,) = analyze_query("charters with a total under $900").constraints
        assert "total" in constraint_keys(alone)


def test_the_breadcrumb_is_asked_each_word_of_the_kind_in_either_number() -> None:
    from osrag.search.fact_filters import breadcrumb_says

    # "Sailing Charters" or "Sailing charter": the same chunks whether the engine stems
    assert breadcrumb_says("sailing charters") == AllOf(
        (
            Match("breadcrumb", "sailing sailings", "or"),
            Match("breadcrumb", "charters charter", "or"),
        )
    )
    # a hyphen breaks words as the analyzers do; their stop words ask nothing ("Drop-ins")
    assert breadcrumb_says("drop-in") == Match("breadcrumb", "drop drops", "or")
    # stop words alone: the words as written (a stemmed index holds no term of them)
    assert breadcrumb_says("on the") == Match("breadcrumb", "on the", "and")


def test_a_kind_qualifier_is_asked_in_the_breadcrumb_or_the_label_keys() -> None:
    (c,) = analyze_query("bridge loans with a monthly payment under $2,000").constraints
    assert c.context == "bridge"
    node = fact_filter(c)
    assert isinstance(node, AnyOf)
    in_breadcrumb, in_keys = node.items
    assert isinstance(in_breadcrumb, AllOf) and in_breadcrumb.items[1] == Match(
        "breadcrumb", "bridge bridges", "or"
    )
    assert isinstance(in_keys, Nested) and isinstance(in_keys.item, AllOf)
    assert in_keys.item.items[0] == Term("facts.label_keys", "bridge")


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        # a verb that prices its subject: the subject is the thing priced, and the name
        ("veneers costing more than $900", "veneers", None),
        ("ski lessons costing under $80 an hour", "ski lessons", "hour"),
        ("bridal alterations priced at $300 or more", "bridal alterations", None),
        # a document noun before the verb holds the figure: the verb's own noun is the name
        ("quotes costing more than $900", "cost", None),
        # a participle of paying and an adverb of its period: the thing, and how often
        ("boat moorings paid monthly for under $400", "boat moorings", "month"),
        ("gym memberships billed annually at over $500", "gym memberships", "year"),
    ],
)
def test_a_thing_priced_by_a_verb_or_paid_every_period_is_the_name(
    text: str, label: str, unit: str | None
) -> None:
    (c,) = analyze_query(text).constraints
    assert (c.label, c.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("veneers costing more than $900", "veneers"),
        ("kayak hire over $150", "kayak hire"),
        ("warranties for a dishwasher under $90", "warranties"),
        # a quantity, a figure word, a document noun, or a compound's part: no thing
        ("late fee over $25", None),
        ("add-on fees over $500", None),
        ("deductible under $1,000", None),
        ("flood policy over $500,000", None),
    ],
)
def test_a_name_whose_head_names_no_quantity_is_a_thing_priced(
    text: str, thing: str | None
) -> None:
    (c,) = analyze_query(text).constraints
    assert thing_priced(c) == thing


def test_a_thing_priced_is_asked_by_its_price_names_too() -> None:
    (c,) = analyze_query("kayak hire over $150").constraints
    keys = set(constraint_keys(c))
    assert {"kayak hire", "kayak hire fee", "kayak hire price", "kayak hire rate"} <= keys
    assert price_keys("veneers") == (
        "veneer charge",
        "veneer cost",
        "veneer fee",
        "veneer price",
        "veneer rate",
    )


@settings(max_examples=100, deadline=None)
@given(kinds=st.sets(st.sampled_from(sorted(TOTALLED_NOUNS)), max_size=6))
def test_the_names_of_a_whole_total_each_say_total_and_no_part(kinds: set[str]) -> None:
    """Every name of a document's whole figure says "total" with a kind of document, with
    what it prices, or with a tax it holds — each kind in both orders ("total quote",
    "quote total") — and never names a part: a subtotal, a tax alone, what was paid, a
    total that leaves the tax out."""
    names = whole_totals(kinds)
    assert len(names) == len(set(names))
    for name in names:
        words = name.split(" ")
        assert "total" in words
        assert not {"subtotal", "paid", "excluding", "excl", "net", "line"} & set(words)
        assert words[-1] not in {"tax", "vat", "gst"} or words[1] in TAX_INCLUSIONS
    for kind in kinds:
        assert {f"total {kind}", f"{kind} total"} <= set(names)


@pytest.mark.parametrize("noun", ["quote", "estimate", "invoice", "order", "booking"])
def test_a_documents_total_is_asked_by_every_name_of_a_whole(noun: str) -> None:
    """A kind named alone asks its total under any kind's name ("Total quotation" on a
    quote, "Estimate total" on an order), as the price or cost it totals, and as the total
    that holds the tax; a subtotal, a line's total, a total paid, a total tax and a total
    before tax are never asked."""
    (c,) = analyze_query(f"kitchen fitting {noun}s over $4,000").constraints
    assert c.total_of == noun
    keys = set(constraint_keys(c))
    wanted = {"total quotation", "estimate total", "total price", "total cost"}
    assert wanted | {"total including vat", "total incl gst", "total with sale tax"} <= keys
    never = {"subtotal", "line total", "total paid", "total tax", "total excluding vat"}
    assert not keys & never


@pytest.mark.parametrize(
    ("question", "noun", "context"),
    [
        ("gutter cleaning quotes above $900 total", "quote", "gutter cleaning"),
        ("estimates over $2,000 total", "estimate", None),
        ("catering invoices under €450 total", "invoice", "catering"),
    ],
)
def test_a_total_word_after_the_amount_asks_the_named_kinds_total(
    question: str, noun: str, context: str | None
) -> None:
    """ "quotes above $900 total": the total word after the amount says the figure is the
    whole of the kind of document named before it — its own total, the kind's qualifier
    its context."""
    (c,) = analyze_query(question).constraints
    assert (c.label, c.total_of, c.context) == ("total", noun, context)


def test_a_total_word_after_a_kind_no_profile_totals_stays_a_total() -> None:
    """A document noun no profile totals ("policies") keeps the bare total it said."""
    (c,) = analyze_query("flood policies above $900 total").constraints
    assert c.label == "total" and c.total_of is None
