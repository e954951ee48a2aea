"""Forms whose amount the document names, though not right before it: a measure of another
figure restated in brackets, a key qualified after a comma, a subject qualified by *with*
or *without*, a thing priced by *at*, a key whose value describes what it prices, a gloss
of validity in a row's name, a date of May in a key.

Built for the forms, not for any file: each text here is made up."""

from __future__ import annotations

import pytest
from extracted import labels


@pytest.mark.parametrize(
    ("text", "amount", "label"),
    [
        (
            "If the lease ends early, the tenant pays a cancellation charge of two weeks' "
            "rent ($900.00).",
            "$900.00",
            "cancellation charge",
        ),
        (
            "The member owes an exit fee of one month's dues ($85.00) on leaving.",
            "$85.00",
            "exit fee",
        ),
        (
            "A security deposit of a week's rent (£240) secures the room.",
            "£240",
            "security deposit",
        ),
    ],
)
def test_an_amount_restating_a_measure_of_another_figure_is_the_noun_phrases(
    text: str, amount: str, label: str
) -> None:
    assert dict(labels(text))[amount] == label


def test_a_measure_of_another_figure_the_sentence_names_alone_keeps_its_name() -> None:
    # no name before the measure: the figure is the measure's own
    assert labels("The notice period costs one month's rent ($1,500).")[-1][1] == "rent"


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("• Gate fob deposit, refunded when the fob is returned: $25.00", "Gate fob deposit"),
        ("- Pet fee, payable while the pet is in residence: $300", "Pet fee"),
        ("Late fee, charged when rent is received after the 5th: $50.00", "Late fee"),
    ],
)
def test_a_key_qualified_after_a_comma_by_a_participles_clause_is_the_name(
    line: str, label: str
) -> None:
    assert labels(line) == [(line.rsplit(": ", 1)[1], label)]


def test_a_key_whose_qualifier_holds_no_sentence_stays_whole() -> None:
    line = "Cleaning deposit, due at signing: $150"
    assert labels(line) == [("$150", "Cleaning deposit, due at signing")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("A late cancellation without 48 hours' notice is charged at $40.00.", "late cancellation"),
        ("A late cancellation without notice is charged at $40.00.", "late cancellation"),
        ("The basic plan with ads is $6.99 a month.", "basic plan"),
        ("Spare keys without a key tag are billed at $12.00 each.", "Spare keys"),
    ],
)
def test_a_subject_qualified_by_with_or_without_is_named_by_its_noun(text: str, label: str) -> None:
    assert labels(text)[-1][1] == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "Your first session is a full assessment at $120.00; later ones are shorter.",
            "full assessment",
        ),
        ("We offer a trial lesson at $30.00.", "trial lesson"),
        ("Tenants may rent a parking space at $75 per month.", "parking space"),
    ],
)
def test_a_thing_named_with_its_article_and_priced_by_at_labels_the_amount(
    text: str, label: str
) -> None:
    assert labels(text)[0][1] == label


def test_a_thing_after_a_preposition_is_no_price_by_at() -> None:
    # the object of "on" is no thing priced: the work carried out is
    assert labels("Extra work is carried out on a written order at £32.00 per hour.")[0][1] is None


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("Crew and van: 2 porters + 16 ft van at $120.00 per hour, 3-hour minimum", "Crew and van"),
        ("Labour: two technicians at $95 per hour", "Labour"),
    ],
)
def test_a_key_whose_value_describes_what_it_prices_by_at_labels_the_amount(
    line: str, label: str
) -> None:
    assert labels(line)[0][1] == label


@pytest.mark.parametrize(
    "line",
    [
        # a remark, a sentence, a participle before "at" (the prose's) name no key's value
        "Note: we bill all work at $95 per hour",
        "Next service: 60,000-mile service, estimated at $249.00.",
    ],
)
def test_a_remark_or_a_participles_price_is_no_keys_value(line: str) -> None:
    assert labels(line)[0][1] is None


def test_a_table_rows_description_priced_by_at_keeps_the_rows_name() -> None:
    text = (
        "Item | Amount\nBike hire, 3 days at €15.00 per day — Amount: €45.00\n"
        "Helmet — Amount: €5.00"
    )
    assert labels(text)[0] == ("€15.00", "Bike hire")


def test_a_part_of_the_year_in_a_rows_bracket_glosses_its_name() -> None:
    text = (
        "Pass | Price\n10-visit pass (valid 3 months) — Price: €110.00\n"
        "20-visit pass (valid 6 months) — Price: €200.00"
    )
    assert [label for _, label in labels(text)] == [
        "10-visit pass (valid 3 months) — Price",
        "20-visit pass (valid 6 months) — Price",
    ]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "Package | Rate\nSummer mooring, May 1 – September 30 — Rate: $40.00 per foot",
            "Summer mooring, May 1 – September 30 — Rate",
        ),
        (
            "Option | Amount\n1 May 2026 to 1 January 2027 (9 payments) — Amount: £133.33 each",
            "1 May 2026 to 1 January 2027 (9 payments) — Amount",
        ),
    ],
)
def test_a_date_in_may_in_a_key_is_no_modal_verb(text: str, label: str) -> None:
    assert labels(text)[0][1] == label
