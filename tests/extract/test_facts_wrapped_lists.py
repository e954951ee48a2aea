"""Prose forms of insurance documents: a loss that is not a result, a sentence wrapped over
lines, a list of named amounts after a colon, a limit written as a verb, a section heading
that names the quantity, and the verb after a noun (never part of a label)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.extract.facts.sections import names_a_quantity
from osrag.models import ExtractionConfig
from osrag.schema.facts import AmountFact

CONFIG = ExtractionConfig()


def facts(text: str) -> list[AmountFact]:
    return extract_values(text, CONFIG).facts


def labels(text: str) -> list[tuple[str, str | None, int]]:
    return [(f.raw, f.label, f.value) for f in facts(text)]


# -- a loss that is not a result keeps the sign as written -----------------------------


def test_loss_of_use_coverage_in_a_table_row_is_a_positive_limit() -> None:
    text = (
        "| Coverage | Essential | Preferred |\n| --- | --- | --- |\n"
        "| D — Loss of use | $60,000 | $90,000 |\n| Net loss | $1,000 | (2,000) |\n"
    )
    assert labels(text) == [
        ("$60,000", "D — Loss of use — Essential", 6_000_000),
        ("$90,000", "D — Loss of use — Preferred", 9_000_000),
        ("$1,000", "Net loss — Essential", -100_000),  # a loss result: negative
        ("(2,000)", "Net loss — Preferred", -200_000),  # never flipped twice
    ]


def test_loss_of_use_as_a_key_is_positive() -> None:
    assert labels("- Loss of use: $22,500.\n") == [("$22,500", "Loss of use", 2_250_000)]


# -- a sentence wrapped over lines reads as one ------------------------------------------

WORDS = st.sampled_from([" ", "\n", "  \n", "\n  ", " \t"])


@settings(max_examples=60, deadline=None)
@given(a=WORDS, b=WORDS, c=WORDS, d=WORDS)
def test_a_line_break_inside_a_sentence_does_not_break_the_noun_phrase(
    a: str, b: str, c: str, d: str
) -> None:
    text = f"Where no policy applies, a{a}self-insured{b}retention{c}of{d}$500 applies per claim.\n"
    (fact,) = facts(text)
    assert (fact.label, fact.value, fact.source) == ("self-insured retention", 50_000, "prose")


def test_a_blank_line_or_a_list_item_before_the_amount_starts_a_new_paragraph() -> None:
    # the words before the break belong to another block: they do not label the amount
    assert labels("A retention of\n\n$500 applies.\n")[0][1] is None
    assert labels("- a retention of\n- $500 applies.\n")[0][1] is None


# -- a list of named amounts after a colon -----------------------------------------------

ITEMS = st.lists(
    st.sampled_from(["jewelry theft", "firearms", "cash", "silverware", "business property"]),
    min_size=1,
    max_size=4,
    unique=True,
)


@settings(max_examples=60, deadline=None)
@given(items=ITEMS, values=st.lists(st.integers(1, 9_999), min_size=4, max_size=4), nl=WORDS)
def test_each_amount_of_a_list_after_a_colon_is_labelled_by_its_item(
    items: list[str], values: list[int], nl: str
) -> None:
    parts = [
        f"{item}{nl if i == len(items) - 1 else ' '}${v:,}"
        for i, (item, v) in enumerate(zip(items, values, strict=False))
    ]
    listed = ", ".join(parts[:-1]) + (", and " if len(parts) > 1 else "") + parts[-1]
    got = facts(f"Special limits inside Coverage C: {listed}.\n")
    assert [(f.label, f.value) for f in got] == [
        (f"Special limits inside Coverage C: {item}", v * 100)
        for item, v in zip(items, values, strict=False)
    ]


def test_the_insurance_special_limits_sentence() -> None:
    text = (
        "Special limits inside Coverage C: jewelry theft $2,500, firearms $2,500, cash\n"
        "$300, and business property at home $5,000.\n"
    )
    assert [f.label for f in facts(text)] == [
        "Special limits inside Coverage C: jewelry theft",
        "Special limits inside Coverage C: firearms",
        "Special limits inside Coverage C: cash",
        "Special limits inside Coverage C: business property at home",
    ]


def test_a_key_then_an_amount_for_something_is_labelled_by_the_key() -> None:
    text = "- Jewelry, watches and furs: $5,000 for theft; schedule items above that.\n"
    assert labels(text) == [("$5,000", "Jewelry, watches and furs", 500_000)]


def test_a_sentence_before_the_colon_is_no_group_and_a_pronoun_no_item() -> None:
    assert [f.label for f in facts("We pay the following: jewelry $1,500.\n")] == ["jewelry"]
    assert [f.label for f in facts("Note: we paid $500 for it.\n")] == [None]


# -- a limit written as a verb; the section heading ---------------------------------------


def test_limited_to_an_amount_is_a_limit_of_what_the_sentence_limits() -> None:
    got = facts("Umbrella coverage is limited to $0.3M per occurrence.\n")
    assert [(f.label, f.value) for f in got] == [("Umbrella coverage limit", 30_000_000)]
    alone = facts("Limited to $0.3M per occurrence.\n")
    assert [(f.label, f.value) for f in alone] == [("limit", 30_000_000)]


def test_an_unlabelled_amount_takes_its_section_heading_when_it_names_a_quantity() -> None:
    text = (
        "# Umbrella\n\n## Limits\n\nUmbrella coverage pays no more than USD 300,000 for any "
        "one occurrence.\n\n## Coverage\n\nThe tower provides $300 million each occurrence.\n"
        "\n## Retention\n\nThe insured pays the first $500 of each claim.\n"
        "\n## Premiums\n\nThe premium is $185 a year; each extra car adds $45.\n"
        "\n## Rates\n\nPremium is rated at 12 cents per $100.\n"
    )
    assert [(f.raw, f.label, f.source) for f in facts(text)] == [
        ("USD 300,000", "Limits", "heading"),
        ("$300 million", None, "prose"),  # "Coverage" names no quantity
        ("$500", "Retention", "heading"),
        ("$185", "premium", "prose"),  # the sentence's own label
        ("$45", None, "prose"),  # two figures in the section: which is the premium?
        ("$100", None, "prose"),  # per $100: a unit of the rate, not the rate
    ]


HEADINGS = {
    "Limits": "Limits",
    "Limits of liability": "Limits of liability",
    "Annual premium": "Annual premium",
    "Deductibles": "Deductibles",
    "**Retention**": "Retention",
    "Coverage": None,
    "Exclusions": None,
    "Deductibles and limits": None,  # two quantities: which one would be a guess
    "Claims": None,
    "Limits for 2019": None,  # a figure in it
    "What the policy pays": None,
    "Overview of premium changes": None,  # the head noun is "changes"… of premium: no
    "Late Fee Schedule": "Late Fee",  # a list of fees names its figures as fees
    "Schedule of Charges": "Charges",
    "Price List": "Price",
    "Schedule": None,
    "Delivery Schedule": None,  # a list of deliveries: no quantity
}


def test_which_headings_name_a_quantity() -> None:
    assert {h: names_a_quantity(h) for h in HEADINGS} == HEADINGS


PLAIN = (
    "MAINTENANCE AGREEMENT\n\n1. SCOPE\n\nThe Contractor services the boilers.\n\n"
    "EXHIBIT B\n\nSERVICE CHARGE SCHEDULE\n\nThe Owner pays the following charge:\n\n"
    "     o MONTHLY   $2,150   x QUARTERLY\n\nGENERAL TERMS\n\nOn signing, the Owner pays $300.\n"
)


def test_a_plain_texts_heading_line_labels_the_one_amount_of_its_section() -> None:
    got = extract_values(PLAIN, CONFIG, text_format="text").facts
    assert [(f.raw, f.label, f.source) for f in got] == [
        ("$2,150", "SERVICE CHARGE", "heading"),
        ("$300", None, "prose"),  # "GENERAL TERMS" names no quantity
    ]


def test_an_upper_case_line_of_markdown_is_no_heading_of_its_amounts() -> None:
    got = extract_values(PLAIN, CONFIG).facts
    assert [f.label for f in got] == [None, None]


def test_a_plain_texts_numbered_heading_is_read_without_its_number() -> None:
    text = "7. LATE CHARGES\n\nAny payment after the tenth adds $45.\n"
    got = extract_values(text, CONFIG, text_format="text").facts
    assert [(f.label, f.source) for f in got] == [("LATE CHARGES", "heading")]


# -- the verb after the noun ---------------------------------------------------------------


def test_a_label_never_takes_the_verb_after_the_noun() -> None:
    assert [f.label for f in facts("The $1,000 deductible reduces the claim payment.\n")] == [
        "deductible"
    ]
    assert [f.label for f in facts("A $500 premium discount saves your household.\n")] == [
        "premium discount"
    ]
    assert [f.label for f in facts("The $2 million charge reflects a write-down.\n")] == ["charge"]


def test_a_time_phrase_before_the_link_never_runs_over_a_clause_comma() -> None:
    # the year of an earlier clause is not the label, on one line or wrapped
    for wrap in (" ", "\n"):
        text = (
            f"A 35-year-old non-smoker, born in 1989, applying for a{wrap}"
            "$500,000 face amount, pays an annual premium of $1,000.50.\n"
        )
        assert [(f.raw, f.label) for f in facts(text)] == [
            ("$500,000", "face amount"),
            ("$1,000.50", "annual premium"),
        ]
    # a date's own commas are part of the time phrase
    text = (
        "The total intrinsic value of options exercised during the fiscal years ended "
        "September 30, 2019, 2018, and 2017 was $11.1 million.\n"
    )
    assert [f.label for f in facts(text)] == ["total intrinsic value of options exercised"]


def test_a_time_phrase_may_hold_parentheses_and_a_compared_phrase_drops_its_preposition() -> None:
    text = (
        "Pinnacle Foods net sales for fiscal 2019 (reflecting 213 days of ownership) were "
        "$1.73 billion.\n"
    )
    assert [f.label for f in facts(text)] == ["Pinnacle Foods net sales"]
    text = (
        "Gross profit in the fiscal year ended March 31, 2019 was $482.9 million, compared "
        "to gross profit of $318.9 million in the prior year.\n"
    )
    assert [f.label for f in facts(text)] == ["Gross profit", "gross profit"]


# -- an item wrapped under its key in a fixed-width quote ------------------------------


def test_an_item_line_wrapped_under_its_key_is_that_keys() -> None:
    """A fixed-width quote wraps a long item: the key and its description on one line, the
    quantity, the rate and the extended price indented on the next. Both figures are the
    key's; a sentence wrapped under a key line is read as prose ("the fitter's visit was
    charged at": the visit), and a line at the margin
    is no continuation."""
    text = (
        "QUOTATION 5521\n\n"
        "Tiles: porcelain 60 x 60, matt grey, 10% waste\n"
        "  22.0 m² @ £31.50 per m² ......... £693.00\n"
        "Adhesive: flexible, grey\n"
        "  6 bags @ £18.00 .................. £108.00\n"
        "Note: the fitter's visit\n"
        "  was charged at £45.00 as agreed.\n"
        "Grout: epoxy\n"
        "Delivery ........................... £25.00\n"
    )
    assert [(raw, label) for raw, label, _ in labels(text)] == [
        ("£31.50", "Tiles"),
        ("£693.00", "Tiles"),
        ("£18.00", "Adhesive"),
        ("£108.00", "Adhesive"),
        ("£45.00", "visit"),  # the wrapped sentence, read as prose
        ("£25.00", "Delivery"),
    ]
