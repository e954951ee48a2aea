"""The keys of a fact's label: the asked name matches at the head of what the fact measures.

Unit cases from annual reports and insurance schedules (each with what it must and must
not answer), and properties over generated labels: the head of a simple label is a key and
ends every key of it; no key leaves out a listed modifier; "total X" / "net X" have every
key of X; a question's name meets the same label written as a label.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from osrag.lexicon.keys import (
    as_read,
    asked_key,
    asked_key_forms,
    asked_keys,
    label_alternatives,
    label_keys,
    qualifies_nothing,
)
from osrag.lexicon.label_roles import (
    CLIPPED_WORDS,
    COMPLEMENTS,
    GENERIC_HEADS,
    LEVIES,
    MODIFIERS,
    NON_HEAD_STARTS,
    OPTIONAL_LEADS,
    READERS,
    SPECIFYING,
)
from osrag.lexicon.profiles import profiles_in_use, read_profile
from osrag.lexicon.words import key_stem, singular

# (fact label, names it answers, names it must not answer)
CASES: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    # financial: the head, after total / net
    ("Total revenue", ("revenue", "revenues", "total revenue"), ("total revenues net",)),
    ("Net revenues", ("revenue", "net revenue"), ("net sales",)),
    ("Revenue, net", ("revenue",), ("net",)),
    # a part of the whole: a split of a group, a segment, a quarter, a tax effect, a fair value
    # (a table's column naming a part of the company or of the year is no word of a label:
    # the readers store it as the fact's scope and period part, tests/extract)
    ("Net sales: United States", ("united states net sales",), ("net sales", "revenue")),
    ("Income taxes: Current", ("current income taxes",), ("income taxes",)),
    ("Revenue: Total", ("revenue", "total revenue"), ()),
    ("Goodwill: Balance at end of year", ("goodwill",), ()),
    ("Total Marine Services segment revenue", ("segment revenue",), ("revenue", "total revenue")),
    ("Revenues — First — Quarter", (), ("revenue",)),
    ("Premium — 12 months", ("premium",), ()),
    ("Revenue — 52 weeks", ("revenue",), ()),
    ("Deferred tax assets: Stock-based compensation",
     ("stock-based compensation deferred tax asset",),
     ("stock-based compensation", "deferred tax assets")),
    ("Long-term debt — Fair value", ("long-term debt fair value",), ("long-term debt",)),
    ("Stock-based compensation expense: Cost of revenues", (), ("cost of revenue",)),
    ("Includes stock-based compensation of: Cost of services revenue", (),
     ("cost of services revenue", "cost of revenue")),
    # another line item holding the name after other words
    ("Deferred revenue", ("deferred revenue",), ("revenue",)),
    ("Cost of revenues", ("cost of revenue", "cost of revenues"), ("revenue",)),
    ("Net operating loss carryforwards", ("operating loss carryforwards",), ("operating loss",)),
    ("Total deferred tax assets before valuation allowance",
     ("total deferred tax assets before valuation allowance",),
     ("deferred tax assets", "total deferred tax assets", "valuation allowance", "assets")),
    ("Accumulated depreciation and amortization", (),
     ("depreciation and amortization", "amortization")),
    ("Unearned premiums", ("unearned premium",), ("premium",)),
    ("Other income, net", ("other income",), ("income",)),
    ("Total current assets", ("current assets",), ("total assets", "assets")),
    # the name followed by other words
    ("Total assets as reported", ("total assets as reported",), ("total assets", "assets")),
    ("Revenues from data centre services", (), ("revenue",)),
    ("Net losses on sales or disposals of assets", (), ("net loss",)),
    ("Interest expense, interest income and other income, net",
     ("interest expense, interest income and other income",),
     ("interest expense", "interest income", "other income")),
    ("Cash, cash equivalents and restricted cash",
     ("cash, cash equivalents and restricted cash",), ("cash",)),
    ("Receivables, net of allowances and returns", ("receivables",), ("returns",)),
    ("Net income attributable to Acme Corp.", ("net income attributable to Acme Corp",),
     ("net income", "acme corp")),
    ("Typical premium for a frame house", ("premium", "typical premium"), ("frame house",)),
    ("Net income (loss)", ("net income",), ("loss",)),
    ("Income (loss) before income taxes", ("income before income taxes",),
     ("income", "income taxes")),
    ("Net operating loss and credit carryforwards", (), ("operating loss", "credit")),
    ("Provision for income taxes", ("provision for income taxes",), ("income taxes",)),
    # a list is one name
    ("Property, plant and equipment, net", ("property plant and equipment",),
     ("equipment", "plant and equipment")),
    ("Selling, general and administrative", ("selling general and administrative",),
     ("administrative", "general and administrative")),
    ("Total shareholders’ equity", ("shareholders equity", "total shareholders' equity"),
     ("total",)),
    # table parts: a dependent row under its group, a column qualifier
    ("Deferred tax assets: Total", ("deferred tax assets", "total deferred tax assets"),
     ("assets",)),
    ("Income taxes: Current", ("current income taxes",), ("income taxes",)),
    ("Operating income — Total", ("operating income",), ()),
    # insurance: the name last
    ("Each occurrence limit", ("limit", "occurrence limit", "each occurrence limit"),
     ("each",)),
    ("Collision deductible", ("deductible", "collision deductible"), ("collision coverage",)),
    ("Property damage, each accident — Limit",
     ("property damage", "limit", "property damage limit"), ("each accident",)),
    ("Limit of liability", ("limit", "limit of liability"), ("liability",)),
    ("Auto bodily injury — Minimum limit", ("minimum limit",),
     ("bodily injury", "bodily injury limit", "limit")),
    ("Dwelling limit", ("dwelling", "dwelling limit", "limit"), ()),
    ("Premium support tier — Monthly fee", ("premium support", "premium support tier"), ()),
    ("Relocation package", ("relocation", "relocation package"), ()),
    ("Net revenues — Increase/(decrease)", (), ("revenue", "net revenue")),
    ("Revenue: Total — Variance in Dollars", (), ("revenue", "total revenue")),
    ("Revenue: Total — 2019", ("revenue", "total revenue"), ()),
    ("Personal property coverage", ("personal property", "personal property coverage"),
     ("personal",)),
    ("Bodily injury per person", ("bodily injury",), ("person",)),
    ("Basic net income (loss) per common share", (), ("net income", "net loss")),
    ("Adjusted operating income (non-GAAP)", ("adjusted operating income",),
     ("operating income",)),
    # a later complement that specifies leaves the phrase before it the same quantity
    ("price per carton of frozen peas", ("price", "price per carton"), ("carton", "frozen pea")),
    ("Limit of insurance for any one claim", ("limit", "limit of insurance"), ("claim",)),
    ("Fee per hour of on-site support", ("fee", "fee per hour"), ("support", "hour")),
    ("Cost of sales excluding amortisation", ("cost",), ("cost of sales",)),
    # a tail of the core keeps the complement that specifies it
    ("Unit price per dozen", ("unit price", "price", "price per dozen"), ("dozen",)),
    ("Annual fee for each member", ("annual fee", "fee", "fee for each member"), ("member",)),
    # a ratio anywhere in the complement: another quantity than the head's
    ("Net earnings per share of common stock", ("net earnings per share",), ("net earnings",)),
    ("Annual rent for the store per rentable square foot", (), ("annual rent", "rent")),
]  # fmt: skip


@pytest.mark.parametrize(("label", "answers", "refuses"), CASES, ids=[c[0] for c in CASES])
def test_a_label_answers_the_names_at_its_head(
    label: str, answers: tuple[str, ...], refuses: tuple[str, ...]
) -> None:
    keys = set(label_keys(label))
    for name in answers:
        assert asked_key(name) in keys, (label, name, keys)
    for name in refuses:
        assert asked_key(name) not in keys, (label, name, keys)


def test_no_label_has_no_key() -> None:
    assert label_keys(None) == () and label_keys("") == () and label_keys("(1)") == ()


def test_the_question_side_asks_for_synonyms_and_section_words_left_out() -> None:
    # "net sales" is a name of revenue: its key is asked with revenue's
    assert {"revenue", "net sale", "turnover"} <= set(asked_keys("revenue"))
    # "liability" inside a name with two words before it may be left out
    assert "property damage limit" in asked_keys("property damage liability limit")
    assert "personal limit" not in asked_keys("personal liability limit")
    # a result asked on its positive side asks for no loss name
    assert not {"net loss", "loss for the year"} & set(asked_keys("net income", gains_only=True))


# a made-up family: a quantity whose synonyms end in a figure word or a price word
HIRE = read_profile(
    {
        "name": "hire",
        "quantities": [
            {
                "name": "booking total",
                "synonyms": ["total", "total amount", "booking value", "hire sum", "van price"],
            },
            {"name": "skip deposit", "synonyms": ["deposit held", "skip bond amount"]},
        ],
    },
    "hire.toml",
)


def test_a_synonym_alone_in_one_generic_word_or_left_one_word_is_not_asked() -> None:
    with profiles_in_use((HIRE,)):
        asked = set(asked_keys("booking total"))
        # the synonyms whole are asked
        assert {"booking total", "total amount", "booking value", "van price"} <= asked
        # but not an empty head alone ("total", written or left by "total amount"), nor
        # the one word a synonym leaves without its figure or price word ("booking" of
        # "booking value", "van" of "van price", "hire" of "hire sum")
        assert not {"total", "amount", "booking", "van", "hire"} & asked
        # so another document's total is no booking total
        assert not set(label_keys("Trip total")) & asked
        # a synonym left two words without its figure word is still asked
        assert "skip bond" in asked_keys("skip deposit")
        # the question's own name: an empty head it writes, and its own forms, are asked
        assert "total" in asked_keys("total")
        assert "booking" in asked_keys("booking value")


@pytest.mark.parametrize("lead", sorted(OPTIONAL_LEADS))
@pytest.mark.parametrize("figure", ["amount", "value", "sum"])
def test_a_figure_word_after_a_lead_leaves_no_name(lead: str, figure: str) -> None:
    # "total amount" is not asked as a lone "total", "net value" not as "net"
    assert lead not in label_alternatives(f"{lead} {figure}", synonyms=False)
    assert lead not in asked_keys(f"{lead} {figure}", synonyms=False)
    # one word of a name before the figure word still is ("deposit amount")
    assert "deposit" in label_alternatives(f"deposit {figure}", synonyms=False)


@pytest.mark.parametrize(
    ("header", "blank"),
    [
        ("Amount", True),
        ("Values", True),
        ("Total amount", True),
        ("Balances", True),
        ("Amount ($)", True),
        ("Net amount", False),
        ("Carrying amount", False),
        ("Coverage", False),
        ("Total", False),
    ],
)
def test_a_column_of_amounts_alone_qualifies_nothing(header: str, blank: bool) -> None:
    assert qualifies_nothing(header) is blank


@pytest.mark.parametrize("generic", ["coverage", "coverages", "amount", "amounts", "values"])
def test_a_question_name_is_asked_without_a_figure_word_in_either_number(generic: str) -> None:
    """One list of the words that only say "a figure" (FIGURE_WORDS), read in the
    singular on the question side as on the document side."""
    assert "dwelling" in label_alternatives(f"dwelling {generic}", every=True)


@pytest.mark.parametrize(
    ("name", "label"),
    [("kiosk cost", "Standard kiosk"), ("stall price", "Corner stall"), ("tent costs", "Tent")],
)
def test_a_thing_s_cost_or_price_meets_a_label_whose_head_is_the_thing(
    name: str, label: str
) -> None:
    assert set(asked_keys(name)) & set(label_keys(label))


@pytest.mark.parametrize(
    ("name", "label"), [("catering fee", "Catering schedule"), ("kiosk cost", "Kiosk rental")]
)
def test_a_fee_or_a_thing_the_cost_is_not_the_head_of_keeps_its_whole_name(
    name: str, label: str
) -> None:
    assert not set(asked_keys(name)) & set(label_keys(label))


# -------------------------------------------------------------------------- properties

PLAIN = st.sampled_from([
    "revenue", "income", "interest", "tax", "asset", "property", "damage", "occurrence",
    "deductible", "collision", "premium", "cost", "goodwill", "equity", "lease",
    "inventory", "margin", "benefit", "retention", "payment", "compensation", "operating",
    "medical", "dwelling", "contents", "liabilities",
])  # fmt: skip
"""Words that are none of the listed kinds (no modifier, lead, complement, generic head)."""
CASED = PLAIN.flatmap(lambda w: st.sampled_from([w, w.capitalize(), w.upper()]))
SIMPLE = st.lists(CASED, min_size=1, max_size=4).map(" ".join)


def _head(label: str) -> str:
    return singular(label.split()[-1].casefold())


@given(SIMPLE)
def test_the_head_of_a_simple_label_is_a_key_and_ends_every_key(label: str) -> None:
    keys = label_keys(label)
    assert _head(label) in keys
    assert all(k.split()[-1] == _head(label) for k in keys)
    assert asked_key(label) in keys  # a question naming the label as written meets it


@given(SIMPLE, st.sampled_from(sorted(MODIFIERS - {"non", "pro"})), SIMPLE)
def test_no_key_leaves_out_a_modifier(before: str, modifier: str, after: str) -> None:
    label = f"{before} {modifier} {after}"
    for key in label_keys(label):
        assert modifier in key.split(), (label, key)


@given(SIMPLE, st.sampled_from(sorted(GENERIC_HEADS)))
def test_a_generic_last_word_may_be_left_out(name: str, generic: str) -> None:
    keys = set(label_keys(f"{name} {generic}"))
    assert set(label_keys(name)) <= keys and _head(generic) in keys


@given(st.sampled_from(sorted(OPTIONAL_LEADS)), SIMPLE)
def test_total_or_net_x_has_every_key_of_x(lead: str, rest: str) -> None:
    assert set(label_keys(rest)) <= set(label_keys(f"{lead.capitalize()} {rest}"))


@given(SIMPLE, st.sampled_from(sorted(COMPLEMENTS)), SIMPLE)
@example("Tax", "on", "revenue")
@example("payment", "due", "medical")
def test_no_key_is_a_tail_of_a_complement(core: str, word: str, complement: str) -> None:
    keys = label_keys(f"{core} {word} {complement}")
    # the head before a specifying complement is a key, and before the "on" of a levy's
    # base ("Tax on revenue" is a tax), the "with" of what an item comes with, the "to" of
    # holding a booking ("Deposit to hold the slip"); before another, only the whole
    # PLAIN holds no participle, no party and no securing verb: every "with" of PLAIN words
    # names what an item comes with, no "to" holds a booking (both spelled out below)
    levy_base = word == "on" and core.split()[-1].lower() in LEVIES
    comes_with = word == "with"
    assert (_head(core) in keys) == (word in SPECIFYING or levy_base or comes_with)
    assert all(k.split()[-1] == _head(core) or word in k.split() for k in keys)


@pytest.mark.parametrize(
    ("label", "head", "keyed"),
    [
        # an item and what it comes with: the item is a key
        ("Timing belt kit with water pump", "kit", True),
        ("Shrink wrap with vent and door", "wrap", True),
        # a participle before "with", regular or irregular: the name stays whole
        ("Charges associated with travel", "charge", False),
        ("Interest paid with cash", "paid", False),
        ("Interest paid with cash", "interest", False),
        ("Payments made with card", "made", False),
        # a party or account after "with": where the amount stands, the name stays whole
        ("Deposits with banks", "deposit", False),
        ("Balances with banks", "balance", False),
        ("Cash and balances with central banks", "cash", False),
        ("Cash and balances with central banks", "balance", False),
        # "to" and a verb of holding a booking with its object: the payment is a key
        ("Deposit to hold the slip", "deposit", True),
        ("Booking fee to secure your date", "fee", True),
        ("Hire charge to book the hall", "charge", True),
        # "to" before a noun: the name stays whole
        ("Payments to book publishers", "payment", False),
    ],
)
def test_with_and_to_key_the_name_before_them_only_for_an_item_or_a_booking(
    label: str, head: str, keyed: bool
) -> None:
    assert (head in label_keys(label)) == keyed


@given(SIMPLE, st.sampled_from(["(1)", "(loss)", "*", ", net", " (in millions)"]))
def test_footnotes_parentheses_and_a_trailing_clause_change_no_key(label: str, tail: str) -> None:
    assert set(label_keys(label)) <= set(label_keys(f"{label}{tail}"))


def test_the_lists_do_not_overlap() -> None:
    # a word is one kind only, or the rules would contradict each other
    kinds = [
        MODIFIERS,
        OPTIONAL_LEADS,
        GENERIC_HEADS,
        COMPLEMENTS - {"per"},
        NON_HEAD_STARTS - {"per", "of"},
    ]
    for i, a in enumerate(kinds):
        for b in kinds[i + 1 :]:
            assert not a & b, a & b


def test_derived_forms_of_a_key_s_words_share_its_stem() -> None:
    assert key_stem("bridging loan") == key_stem("bridge loan")
    assert key_stem("heating oil") == key_stem("heat oil") != key_stem("heater oil")


@pytest.mark.parametrize(
    ("label", "asked", "answers"),
    [
        ("hull and machinery and cargo insurance", "cargo insurance", False),
        (
            "property damage liability and bodily injury liability cover",
            "bodily injury liability cover",
            True,
        ),
        (
            "property damage liability and bodily injury liability cover",
            "property damage liability cover",
            True,
        ),
        ("net operating loss and credit carryforwards", "credit carryforwards", False),
        ("auto liability and excess liability insurance", "auto liability insurance", True),
        ("auto liability and excess liability insurance", "excess liability insurance", True),
        ("auto liability and excess liability insurance", "liability insurance", True),
        # two one-word modifiers before a head a profile names share it
        ("NC and Mecklenburg sales tax (7.25%) on furnishings", "sales tax", True),
        ("State and local sales tax", "sales tax", True),
        # words that belong together keep their head to themselves
        ("Research and development expenses", "expenses", False),
        ("Cash and cash equivalents", "equivalents", False),
    ],
)
def test_each_member_of_a_coordination_built_alike_names_the_shared_head(
    label: str, asked: str, answers: bool
) -> None:
    assert bool(set(asked_keys(asked)) & set(label_keys(label))) is answers


@pytest.mark.parametrize(
    ("label", "asked", "answers"),
    [
        ("Marine cargo insurance (including war risk coverage)", "war risk insurance", True),
        ("Marine cargo insurance (including war risk coverage)", "marine cargo insurance", True),
        ("Crime policy (including employee theft cover)", "employee theft cover", True),
        ("Long-term debt (including current portion)", "current portion", False),
        ("Net revenue (including freight)", "freight", False),
    ],
)
def test_a_coverage_a_name_says_it_includes_is_a_key_of_it(
    label: str, asked: str, answers: bool
) -> None:
    assert bool(set(asked_keys(asked)) & set(label_keys(label))) is answers


def test_a_row_named_for_a_figure_over_another_quantity_is_whose_it_is() -> None:
    """A coverage's row over a column naming another quantity a profile knows: the fact is
    that quantity (the flood cover's deductible is no cover); over a column its figure is
    another name of (coverage is a limit), the row's own keys stay."""
    deductible = label_keys("Flood cover — Deductible")
    assert "deductible" in deductible and "flood cover deductible" in deductible
    assert not {"cover", "flood cover", "flood"} & set(deductible)
    premium = label_keys("Boiler coverage — Premium")
    assert "premium" in premium and not {"coverage", "boiler coverage"} & set(premium)
    limit = label_keys("Boiler coverage — Limit")
    assert {"boiler coverage", "coverage", "limit"} <= set(limit)
    # a row whose head is no figure word keeps its keys whatever the column names
    assert "goodwill" in label_keys("Goodwill — Carrying amount")
    assert "coverage b" in label_keys("Coverage B — Deductible")


def test_a_line_of_cover_under_its_limits_is_that_cover_limit_and_its_item_only() -> None:
    # "Marine liability" over "Limits": the marine limit, "liability" left out as a
    # question leaves it out; an item of the cell is its own quantity, the row only whose
    keys = label_keys("Marine liability, occurrence — Limits — Each occurrence")
    assert {"marine limit", "each occurrence", "limit"} <= set(keys)
    assert "marine liability" not in keys
    assert set(asked_keys("marine limit")) & set(keys)
    assert "marine limit" in label_keys("Marine liability — Limit")
    # a balance row or a blank amount column is no line of cover
    assert "total limit" not in label_keys("Total liabilities — Limit")
    assert "accrued amount" not in label_keys("Accrued liabilities — Amount")


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("patient share", "your share"),
        ("employee contributions", "your contribution"),
        ("member cost", "your cost"),
        ("tenant share of operating expenses", "your share of operating expense"),
    ],
)
def test_a_name_of_the_reader_is_asked_as_the_document_says_it_to_its_reader(
    name: str, read: str
) -> None:
    keys = asked_keys(name)
    assert read in keys and asked_key(name) in keys
    # the document's own "Your share" holds the key; a label of the thing alone does not
    assert read.split(" of ")[0] in label_keys(read.capitalize())
    assert not set(keys) & {"share", "cost", "contribution"}


@given(
    first=st.sampled_from(sorted(READERS)),
    rest=st.sampled_from(["share", "balance", "contribution", "deposit", "portion"]),
)
def test_every_reader_is_asked_by_your_and_no_other_party_is(first: str, rest: str) -> None:
    assert as_read(f"{first} {rest}") == f"your {rest}"
    assert as_read(f"{first}s {rest}") == f"your {rest}"  # "members share" in the plural
    for party in ("employer", "insured", "plan", "landlord", "provider"):
        assert as_read(f"{party} {rest}") is None
        assert f"your {rest}" not in asked_keys(f"{party} {rest}")
    assert as_read(first) is None  # the person alone names no figure


@pytest.mark.parametrize(
    ("asked", "label"),
    [
        ("admin fee", "Administration fee (15%)"),
        ("admin fees", "Traffic school administrative fee"),
        ("mgmt fee", "Management fee"),
        ("annual maint charge", "Annual maintenance charge"),
    ],
)
def test_a_clipped_word_is_asked_written_out(asked: str, label: str) -> None:
    assert set(asked_keys(asked)) & set(label_keys(label))


@given(st.sampled_from(sorted(CLIPPED_WORDS)), st.sampled_from(["fee", "charge", "cost"]))
def test_every_written_out_form_of_a_clipped_word_is_asked(clipped: str, head: str) -> None:
    asked = set(asked_keys(f"{clipped} {head}"))
    assert f"{clipped} {head}" in asked
    assert {f"{full} {head}" for full in CLIPPED_WORDS[clipped]} <= asked


@pytest.mark.parametrize(
    ("name", "forms"),
    [
        ("dwelling limit", ("dwelling limit", "dwelling")),
        # access bought is asked as the thing it gives access to
        ("hot desk memberships", ("hot desk membership", "hot desk")),
        ("streaming subscription", ("streaming subscription", "streaming")),
        # alone it is the name
        ("membership", ("membership",)),
    ],
)
def test_a_question_s_name_is_asked_without_a_head_that_names_only_its_kind(
    name: str, forms: tuple[str, ...]
) -> None:
    assert asked_key_forms(name) == forms
