"""Amount facts outside tables: headings, key–value lines, prose — label, period, sign."""

from __future__ import annotations

import pytest

from osrag.extract import extract_values
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact

CONFIG = ExtractionConfig()


def facts(text: str) -> list[AmountFact]:
    return extract_values(text, CONFIG).facts


KEY_VALUE = [
    ("Deductible: $500", "Deductible"),
    ("- Deductible: $500", "Deductible"),
    ("* Annual premium: $450 per year", "Annual premium"),
    ("**Deductible:** $500", "Deductible"),
    ("Each occurrence limit $1,000,000", "Each occurrence limit"),
    ("Deductible $500 per claim", "Deductible"),
    ("Annual premium ..... $450", "Annual premium"),
    ("Annual premium …… $450", "Annual premium"),
    ("Limit of liability — $1,000,000", "Limit of liability"),
    ("1. Medical payments: $5,000 each person", "Medical payments"),
    ("“Deductible” means $500 for each claim.", "Deductible"),
    (
        "Homeowners, condominium or renters liability: $500,000.",
        "Homeowners, condominium or renters liability",
    ),
    ("Deductible (per claim): $500", "Deductible (per claim)"),
    # a parenthesis explains a short key and is not counted among its words (a year of a
    # term it names is the fact's part of the period, no word of its label)
    (
        "Sum released by this amendment (lease year 2) $48,500",
        "Sum released by this amendment",
    ),
    (
        "Portion of the first installment (contract year 1) $12,000",
        "Portion of the first installment",
    ),
    (
        "Portion of the first installment (see schedule B) $12,000",
        "Portion of the first installment (see schedule B)",
    ),
]


@pytest.mark.parametrize(("line", "label"), KEY_VALUE, ids=[k for k, _ in KEY_VALUE])
def test_key_value_lines_label_the_amount_with_their_key(line: str, label: str) -> None:
    (fact,) = facts(line + "\n")
    assert (fact.label, fact.source) == (label, "key")


def test_a_long_line_before_an_amount_is_no_short_key_even_with_a_parenthesis() -> None:
    (fact,) = facts("Payment made by the tenant to the owner in full (year 1) $9,000\n")
    assert fact.source != "key"


def test_later_amounts_on_a_key_line_take_the_key_unless_they_name_their_own() -> None:
    got = facts("Deductible: $500 for wind, $250 for other perils\n")
    assert [(f.raw, f.label) for f in got] == [("$500", "Deductible"), ("$250", "Deductible")]


PROSE = [
    ("The policy has a deductible of $500.", "deductible", None),
    ("A $500 deductible applies to each claim.", "deductible", None),
    ("Revenue rose to $5.2 million in 2019.", "Revenue", 2019),
    ("Revenue increased 12% to $5.2 million in fiscal 2019.", "Revenue", 2019),
    ("We reported a net loss of $3.1 million for 2019.", "net loss", 2019),
    ("Total revenues were $5.2 million in 2018.", "Total revenues", 2018),
    ("It comes with a limit of liability of $1,000,000.", "limit of liability", None),
    ("Premiums of $450 per year are due in advance.", "Premiums", None),
    ("In 2019, revenue was $5.2 million.", "revenue", 2019),
    ("We generated $5.2 million in revenue during 2019.", "revenue", 2019),
    ("We recorded $1.2 million of impairment charges.", "impairment charges", None),
    ("Our net loss for the year ended December 31, 2019 was $3.1 million.", "net loss", 2019),
    ("Revenue for fiscal 2019 totaled $5.2 million.", "Revenue", 2019),
    ("Proceeds from the sale of assets were $5 million.", "Proceeds from the sale of assets", None),
    ("The umbrella has one limit: **$1 million** per occurrence.", "limit", None),
    ("The maximum exposure at 31 March 2019 was £59.1m.", "maximum exposure", 2019),
]


def test_an_amount_after_due_to_is_not_the_quantity_that_rose() -> None:
    """ "Revenue increased $616 million due to a $639 million increase in revenue from …":
    "due to" starts a cause, not the figure revenue rose to."""
    got = facts("Revenue increased $616 million due to a $639 million increase in revenue.")
    assert "Revenue" not in {f.label for f in got}
    rose = facts("Net sales rose by $3 million to $40 million in 2019.")
    assert [(f.raw, f.label) for f in rose] == [
        ("$3 million", "increase in Net sales"),  # the change, never the quantity
        ("$40 million", "Net sales"),
    ]


@pytest.mark.parametrize(("sentence", "label", "year"), PROSE, ids=[p for p, _, _ in PROSE])
def test_prose_labels_the_noun_phrase_the_amount_measures(
    sentence: str, label: str, year: int | None
) -> None:
    (fact,) = facts(sentence)
    assert (fact.label, fact.year, fact.source) == (label, year, "prose")


NO_LABEL = [
    "The plan pays up to $250 a day for lost earnings.",  # what it pays for, not a quantity
    "The Company paid $2 million for the acquisition of Foo.",
    "It was $5.",
    "The insured pays the first €1,000 of the loss.",  # "the loss" is not what it measures
    "Calls cost $5 per minute.",
]


@pytest.mark.parametrize("sentence", NO_LABEL)
def test_no_label_where_the_text_does_not_say(sentence: str) -> None:
    (fact,) = facts(sentence)
    assert fact.label is None and fact.value > 0


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("Revenue increased by $0.3 million.", "increase in Revenue"),
        (
            "This was due to an increase in payroll and benefits of $4.1 million.",
            "increase in payroll and benefits",
        ),
        ("a $572 million decrease in Blizzard net bookings", "decrease in Blizzard net bookings"),
    ],
)
def test_an_amount_of_a_change_is_the_change_never_the_quantity(sentence: str, label: str) -> None:
    (fact,) = facts(sentence)
    assert fact.label == label


def test_comparisons_and_lists_restate_the_same_quantity() -> None:
    got = facts(
        "Revenue rose to $5.2 million in 2019, compared with $4.8 million in 2018. "
        "Choose a deductible of $250, $500 or $1,000. "
        "The maximum exposure at 31 March 2019 was £59.1m (2018: £56.5m). "
        "Net sales were $7 million and $6 million in 2019 and 2018, respectively."
    )
    assert [(f.raw, f.label, f.year) for f in got] == [
        ("$5.2 million", "Revenue", 2019),
        ("$4.8 million", "Revenue", 2018),
        ("$250", "deductible", None),
        ("$500", "deductible", None),
        ("$1,000", "deductible", None),
        ("£59.1m", "maximum exposure", 2019),
        ("£56.5m", "maximum exposure", 2018),
        ("$7 million", "Net sales", 2019),
        ("$6 million", "Net sales", 2018),
    ]


@pytest.mark.parametrize(
    ("qualifier", "label"),
    [
        ("in the aggregate", "aggregate"),
        ("in aggregate", "aggregate"),
        ("annual aggregate", "annual aggregate"),
    ],
)
def test_the_later_amount_of_a_pair_qualified_as_the_aggregate_is_the_aggregate(
    qualifier: str, label: str
) -> None:
    got = facts(
        "The Caterer shall keep public liability insurance with limits of not less than "
        f"$500,000 per occurrence and $1,500,000 {qualifier}, naming the Venue as insured."
    )
    assert [(f.raw, f.label) for f in got] == [
        ("$500,000", "public liability insurance"),
        ("$1,500,000", label),
    ]


def test_an_aggregate_after_an_amount_that_names_nothing_names_nothing() -> None:
    got = facts(
        "The policies must carry at least $3 million each claim and $6 million in the aggregate."
    )
    assert [f.label for f in got] == [None, None]


def test_a_heading_amount_is_labelled_only_by_a_key() -> None:
    text = "# $300,000 Umbrella\n\n## Deductible: $500\n\nBody text.\n"
    assert [(f.raw, f.label, f.source) for f in facts(text)] == [
        ("$300,000", None, "heading"),
        ("$500", "Deductible", "heading"),
    ]


def test_an_amount_among_words_in_a_table_cell_takes_its_row_and_column() -> None:
    text = (
        "| Coverage | Limit | Deductible |\n|---|---|---|\n"
        "| Medical payments | $5,000 each person | $250 per claim |\n"
    )
    assert [(f.label, f.source) for f in facts(text)] == [
        ("Medical payments — Limit", "table"),
        ("Medical payments — Deductible", "table"),
    ]


def test_a_cell_that_names_its_quantity_beside_the_amount_says_what_it_holds() -> None:
    text = (
        "| Cover | Limit | Notes |\n|---|---|---|\n"
        "| Windscreen | Repair cost less a $75 excess | none |\n"
        "| Theft | Market value less $400 deductible | none |\n"
        "| Storage | Deposit of $60 at the depot | none |\n"
        "| Towing | $150 each tow | none |\n"
    )
    assert [(f.raw, f.label) for f in facts(text)] == [
        ("$75", "Windscreen — excess"),  # the noun after the amount, over the column
        ("$400", "Theft — deductible"),
        ("$60", "Storage — Deposit"),
        ("$150", "Towing — Limit"),  # "each tow" names no quantity: the column's
    ]


def test_a_cell_that_states_a_condition_gives_the_amount_to_what_it_names() -> None:
    text = (
        "| Term | Detail |\n|---|---|\n"
        "| Shipping | Free on orders over $500 within the county |\n"
        "| Installation | Waived for contracts of $2,000 or more |\n"
        "| Handling | $35 per pallet |\n"
    )
    assert [(f.raw, f.label) for f in facts(text)] == [
        ("$500", "orders"),  # the size of the orders, no shipping charge
        ("$2,000", "contracts"),
        ("$35", "Handling — Detail"),
    ]


def test_an_amount_written_per_share_measures_the_ratio_not_the_whole() -> None:
    text = (
        "Net earnings were $42.6 million, or $1.15 per diluted share, compared with "
        "$38.2 million, or $1.02 a share, a year earlier. Basic earnings per share were "
        "$1.17, compared with $1.04."
    )
    assert [(f.raw, f.label) for f in facts(text)] == [
        ("$42.6 million", "Net earnings"),
        ("$1.15", "Net earnings per diluted share"),
        ("$38.2 million", "Net earnings"),  # the restated whole, not the ratio before it
        ("$1.02", "Net earnings per share"),
        ("$1.17", "Basic earnings per share"),  # a label that names its ratio: as written
        ("$1.04", "Basic earnings per share"),
    ]


def test_a_price_per_share_is_the_price() -> None:
    text = "The exercise price is $4.25 per share."
    assert [(f.raw, f.label) for f in facts(text)] == [("$4.25", "exercise price")]


SIGNS = [
    ("We reported a net loss of $3.1 million.", -310_000_000),
    ("Net loss was $(3.1) million.", -310_000_000),  # negative as written: not flipped back
    ("Operating loss was -$2 million.", -200_000_000),
    ("Net income (loss) was $(6.6) million.", -660_000_000),
    ("Net income (loss) was $7 million.", 700_000_000),
    ("Net income was $7 million.", 700_000_000),
    ("A net operating loss carryforward of $12 million remains.", 1_200_000_000),
]


@pytest.mark.parametrize(("sentence", "value"), SIGNS, ids=[s for s, _ in SIGNS])
def test_prose_signs_follow_the_one_policy(sentence: str, value: int) -> None:
    (fact,) = facts(sentence)
    assert fact.value == value


def test_a_caption_never_scales_prose_under_it() -> None:
    text = "## Notes (in thousands)\n\nRevenue was $250 in the quarter.\n"
    (fact,) = facts(text)
    assert (fact.value, fact.scale, fact.label) == (25_000, 0, "Revenue")


def test_chunks_carry_the_facts_of_their_span_and_of_their_breadcrumb() -> None:
    from osrag.chunking import chunk_document
    from osrag.extract import enrich_chunks
    from osrag.models import ChunkingConfig, Document

    text = (
        "# Umbrella policy\n\n## Deductible: $500\n\n"
        + "The deductible applies to every claim under the policy. " * 30
        + "\n\nA limit of $1,000,000 applies to each occurrence.\n"
    )
    doc = Document(doc_id="d", source_path="d.md", source_version="1", title="t", text=text)
    chunks = enrich_chunks(doc, chunk_document(doc, ChunkingConfig(size=64, overlap=0)))
    with_limit = [c for c in chunks if "$1,000,000" in c.body]
    assert with_limit
    for chunk in with_limit:
        described = [(f.raw, f.label, f.source) for f in chunk.facts]
        assert ("$1,000,000", "limit", "prose") in described
        assert ("$500", "Deductible", "heading") in described  # from the breadcrumb
        heading_fact = next(f for f in chunk.facts if f.source == "heading")
        assert text[heading_fact.start : heading_fact.end] == "$500"
        assert set(chunk.money) == {f"{f.currency}:{f.magnitude}" for f in chunk.facts}
