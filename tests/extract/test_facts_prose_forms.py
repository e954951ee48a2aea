"""Forms of running text whose amounts name their quantity in a way the sentence alone
does not show in one place: a time qualifier before the name, a defined term on the line
the sentence wraps onto, a numbered clause's run-in caption, a known quantity after its
modifiers, a form line's checkbox.

Built for the forms, not for any file: each sentence here is made up."""

from __future__ import annotations

import pytest
from extracted import CONFIG, labels

from osrag.extract import extract_values


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "The Licensee shall pay the then-current license fee, which is presently $2,400.",
            "license fee",
        ),
        ("Members renew at the then applicable membership dues of $180.", "membership dues"),
        ("The Dealer owes the then-prevailing service charge, currently $75.", "service charge"),
    ],
)
def test_a_then_time_qualifier_is_no_word_of_the_name(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


def test_current_without_then_stays_part_of_the_name() -> None:
    assert labels("Current liabilities were $4.2 million at year end.") == [
        ("$4.2 million", "Current liabilities")
    ]


def test_a_defined_term_on_the_line_the_sentence_wraps_onto_names_the_amount() -> None:
    text = (
        "The Distributor shall order goods worth at least $80,000 in each quarter\n"
        '(the "Quarterly Order Floor"). Orders beyond it earn a rebate.\n'
    )
    assert labels(text) == [("$80,000", "Quarterly Order Floor")]


def test_a_name_after_the_amount_is_not_read_from_the_next_line() -> None:
    text = "Paid to: Lakeside Savings ****1234 $2,310.40\nOvertime rate: $41.00\n"
    got = dict(labels(text))
    assert got["$2,310.40"] != "Overtime rate"
    assert got["$41.00"] == "Overtime rate"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("4. Rent. The Tenant will pay $1,150 per month, in advance.\n", "Rent"),
        ("2. **Security Deposit.** The Guest pays $300 on arrival.\n", "Security Deposit"),
        ("(c) Cleaning fee: The Renter pays $60 at checkout.\n", "Cleaning fee"),
        ("**Late fee.** Any payment after the 5th costs $40.\n", "Late fee"),
    ],
)
def test_a_clause_caption_labels_the_unlabelled_amount_of_its_first_sentence(
    text: str, label: str
) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


def test_a_clause_caption_labels_no_amount_of_a_later_sentence() -> None:
    text = (
        "7. Prior Obligations. Annex B lists the open orders of the Seller. The Buyer "
        "takes none of them over unless they exceed by more than $10,000 the receivables.\n"
    )
    assert labels(text) == [("$10,000", None)]


def test_a_clause_caption_labels_nothing_when_the_clause_states_two_amounts() -> None:
    text = "5. Deposit. On signing the Tenant pays $900 and the Guarantor $450.\n"
    assert [lbl for _, lbl in labels(text)] == [None, None]


def test_a_clause_caption_that_names_no_quantity_labels_nothing() -> None:
    assert labels("3. Utilities. A flat $70 per month covers water and power.\n") == [("$70", None)]


def test_a_text_label_wins_over_the_clause_caption() -> None:
    text = "6. Charges. The Tenant shall pay a key fee of $25 on signing.\n"
    assert labels(text) == [("$25", "key fee")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "Delivery: ex works; projected freight $180.00, billed with the goods.",
            "freight",  # "projected": a forecast's scope, no word of the label
        ),
        ("We add a handling fee $12 to each order.", "handling fee"),
    ],
)
def test_a_known_quantity_right_before_the_amount_names_it(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize("text", ["Tickets cost $5 at the door.", "Parking costs $12 a day."])
def test_a_quantity_noun_read_as_a_verb_before_the_amount_names_nothing(text: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [None]


@pytest.mark.parametrize("mark", ["[ ]", "[x]", "☐"])
def test_a_form_lines_checkbox_is_no_word_of_its_label(mark: str) -> None:
    text = f"{mark} Corner table for eight ........................ $240\n"
    assert labels(text) == [("$240", "Corner table for eight")]


def test_a_coverage_named_before_the_short_read_is_read_whole() -> None:
    text = (
        "The Carrier shall keep employer's liability insurance with a limit of liability "
        "of Two Million Dollars ($2,000,000) for each accident."
    )
    assert [lbl for _, lbl in labels(text)] == ["employer's liability insurance"]


def test_a_long_coverage_with_its_parenthesis_and_perils_is_read_whole() -> None:
    text = (
        "The Agent shall carry commercial general liability and excess liability insurance "
        "(including completed operations coverage) for bodily injury, property damage and "
        "advertising injury in an amount not less than $3,000,000 per occurrence."
    )
    assert [lbl for _, lbl in labels(text)] == [
        "commercial general liability and excess liability insurance"
        " (including completed operations coverage)"
    ]


def test_a_quantity_noun_whose_clause_goes_on_after_the_amount_names_nothing() -> None:
    assert labels("Shipping $40 was refunded after the return.") == [("$40", None)]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "IN NO EVENT SHALL THE TOTAL LIABILITY OF THE LICENSOR EXCEED $75,000.",
            "total liability of the licensor",
        ),
        (
            "THE VENDOR'S AGGREGATE LIABILITY IS EXPRESSLY LIMITED TO $40,000.",
            "aggregate liability limit",
        ),
    ],
)
def test_a_sentence_in_capitals_is_read_as_text(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


def test_an_adverb_of_reference_after_the_name_is_no_word_of_it() -> None:
    text = "The Agent's commission hereunder is limited to $8,000."
    assert [lbl for _, lbl in labels(text)] == ["commission limit"]


@pytest.mark.parametrize(
    "text",
    [
        "The Seller's liability is limited to the lesser of: the price paid for the goods; "
        "or $60,000.",
        "The Seller's liability is limited to the lesser of (a) the price paid for the goods "
        "or (b) $60,000.",
    ],
)
def test_the_later_alternative_of_the_lesser_of_is_named_as_the_limit(text: str) -> None:
    assert [lbl for _, lbl in labels(text)] == ["liability limit"]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The balance due on closing is $4,000.", "balance due on closing"),
        ("The fee payable upon signing is $300.", "fee payable upon signing"),
        ("THE BALANCE DUE UPON MATURITY IS $9,100.", "balance due upon maturity"),
    ],
)
def test_an_adjective_after_its_noun_keeps_its_complement_in_the_name(
    text: str, label: str
) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "The Carrier shall keep marine cargo insurance (including war risk coverage) "
            "in an amount not less than $3,000,000 per shipment.",
            "marine cargo insurance (including war risk coverage)",
        ),
        (
            "The Vendor shall carry crime insurance, including employee theft coverage, "
            "with limits of not less than $750,000.",
            "crime insurance (including employee theft coverage)",
        ),
        ("Net sales for fiscal 2019 (including Acme sales) were $5 million.", "Net sales"),
    ],
)
def test_a_coverage_set_off_as_included_stays_in_the_name(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "If the charges for extra repairs to be performed by the Contractor do not "
            "exceed $400.00 in any month, no approval is needed.",
            "charges for extra repairs",
        ),
        (
            "The fees of outside counsel being paid by the Tenant shall not exceed $9,000.",
            "fees of outside counsel",
        ),
        # the passive's agent without its participle is read as before
        ("Expenses incurred by the Executive shall not exceed $10,000.",
         "Expenses incurred by the Executive"),
    ],
)  # fmt: skip
def test_a_passives_agent_is_no_subject_the_noun_before_the_passive_is(
    text: str, label: str
) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The Investor shall provide to Borrower up to $3,000,000 of bridge funding.",
         "bridge funding"),
        ("The Lender will advance to the Borrower up to $2,000,000.", None),
        ("The Company will pay to Consultant up to $4,500 each month.", None),
        # a preposition after a name still joins it
        ("Payments to suppliers were $3 million.", "Payments to suppliers"),
    ],
)  # fmt: skip
def test_a_verbs_recipient_names_no_amount(text: str, label: str | None) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    "text",
    [
        "Water damage to the floors (exceeding $2,500) is excluded.",
        "The pool (totaling $80,000) is paid in March.",
        "Pests and rot (except up to $5,000 when caused by a covered leak) are excluded.",
        "Coverage is limited to $50,000 for flood (excluding $5,000 for sewer backup).",
    ],
)
def test_a_parenthesis_opening_with_a_verb_form_or_a_preposition_names_nothing(
    text: str,
) -> None:
    assert labels(text)[-1][1] is None


def test_a_parenthesis_opening_with_a_name_still_names_its_amount() -> None:
    assert labels("Funding (total grant funding $6,270,000) is committed.") == [
        ("$6,270,000", "total grant funding")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "A bonus in respect of the 2019 plan currently estimated to be valued at £12,400 "
        "is payable.",
        "A late fee applies while the invoice remains unpaid, not to exceed $90.00.",
    ],
)
def test_a_predicate_or_a_participle_with_its_adverb_names_nothing(text: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [None]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "a $48 million decrease in Western unit net bookings primarily driven by "
            "weaker demand.",
            "decrease in Western unit net bookings",
        ),
        (
            "a $12 million increase in Eastern subscription revenues largely due to price.",
            "increase in Eastern subscription revenues",
        ),
        (
            "Property insurance with $500,000 for each loss and $900,000 annual aggregate "
            "providing: flood cover.",
            "annual aggregate",
        ),
        ("The Group received $5 million in royalties relating to the patent.", "royalties"),
    ],
)
def test_a_name_after_the_amount_ends_before_an_adverb_or_a_participles_clause(
    text: str, label: str
) -> None:
    assert labels(text)[-1][1] == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "The Group has issued letters of credit in respect of warehouse leases and "
            "vehicle finance agreements amounting to $840,000.",
            "letters of credit",
        ),
        (
            "The Group has issued guarantees in respect of leases amounting to $84,000.",
            "guarantees in respect of leases",
        ),
        (
            "The Group holds security deposits in respect of office and warehouse leases "
            "in the capital amounting to $52,000.",
            "security deposits",
        ),
    ],
)
def test_a_name_cut_short_ends_before_a_complex_preposition(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "Gross margin on consulting work, which is reported within the services "
            "line, was $48 million.",
            "Gross margin on consulting work",
        ),
        (
            "Total freight expense, the figure the auditors use to test the logistics "
            "accounts, rose to $9.1 million.",
            "Total freight expense",
        ),
    ],
)
def test_a_long_parenthetical_between_the_subject_and_its_verb_is_read_past(
    text: str, label: str
) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Travel costs may not exceed 15% of the award ($3,000).", "Travel costs"),
        ("Hurricane deductible: 5% of the dwelling limit ($16,500).", "Hurricane deductible"),
        ("The broker's commission is 3 percent of the sale price ($27,000).", "commission"),
        # a share with nothing before it is of what it is a share of
        ("40% of the award ($1,200) is paid on signing.", "award"),
    ],
)
def test_a_shares_figure_in_parentheses_is_named_as_the_share_is(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("This amounts to a special payout of $4.2 million to the holders.", "special payout"),
        # "that" may open a clause: a plural after it is a noun
        ("It is likely that increases in warranty reserves of up to $90,000 will follow.",
         "increases in warranty reserves"),
    ],
)  # fmt: skip
def test_a_word_in_s_after_this_is_a_verb(text: str, label: str) -> None:
    assert labels(text)[0][1] == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Theft cover is $20,000 per claim and glass repairs are $800 per pane.",
         "glass repairs"),
        ("Rent is $2,000 per month and the security deposit is $4,000.", "security deposit"),
        # a coordination inside a name is kept
        ("Fees and costs were $5,000.", "Fees and costs"),
    ],
)  # fmt: skip
def test_a_rates_unit_is_no_part_of_the_next_clauses_subject(text: str, label: str) -> None:
    assert labels(text)[-1][1] == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "The Carrier shall maintain cargo liability insurance covering owned, leased "
            "and hired trailers in the amount of $750,000.",
            "cargo liability insurance",
        ),
        (
            "The Lessee shall carry property insurance covering the warehouse in an amount "
            "not less than $2,000,000.",
            "property insurance",
        ),
        ("Operating income excluding the charge was $5 million.", "Operating income"),
        # an -ing word inside the name stays in it
        ("Net cash from operating activities was $7 million.",
         "Net cash from operating activities"),
    ],
)  # fmt: skip
def test_a_participles_object_is_no_name_the_noun_it_follows_is(text: str, label: str) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "raw", "label"),
    [
        ("- Members who renew late pay a $20.00\n  reinstatement fee.\n", "$20.00",
         "reinstatement fee"),
        ("Guests who cancel late pay a £35\nno-show charge.\n", "£35", "no-show charge"),
    ],
)  # fmt: skip
def test_a_name_after_an_amount_wrapped_onto_the_next_line_is_read(
    text: str, raw: str, label: str
) -> None:
    assert (raw, label) in labels(text)


@pytest.mark.parametrize(
    "text",
    [
        "Card ending 4471 $1,689.75\nHourly rate: $24.50\n",  # the next line is a key
        "You may exclude up to $2,000\nof eligible tuition assistance.\n",  # a complement
        "The fee is $40\nWeekly classes start in May.\n",  # a new sentence
    ],
)
def test_a_next_line_that_is_no_wrapped_name_names_nothing(text: str) -> None:
    first = labels(text)[0]
    assert first[1] is None or first[1] not in {"Hourly rate", "eligible tuition assistance"}
    assert "Weekly classes" not in {label for _, label in labels(text)}


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        # a participle of pricing with no verb of being: the phrase it follows
        ("Repairs are quoted separately, with parts billed at $60 per hour and disposal at cost.",
         "parts", "hour"),
        ("We expect three follow-up meetings during design, billed at $300.00 per meeting.",
         "follow-up meetings", None),
        ("Overtime, charged at £40.00 per hour, applies after six.", "Overtime", "hour"),
        ("Callouts outside office hours are invoiced at €90 each.",
         "Callouts outside office hours", None),
        ("The initial survey, quoted at $450, covers one visit.", "initial survey", None),
    ],
)  # fmt: skip
def test_a_participle_of_pricing_names_the_phrase_before_it(
    text: str, label: str, unit: str | None
) -> None:
    (found,) = extract_values(text, CONFIG).facts
    assert (found.label, found.period_unit) == (label, unit)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Repairs not covered by a manufacturer's warranty are billed at $85.00.", "Repairs"),
        ("Repairs not covered by the warranty are billed at $85.00 per hour.", "Repairs"),
        ("Damage caused by the tenant's guests will be charged at $75 per hour.", "Damage"),
        ("Parts supplied by the customer are fitted at $40.", "Parts supplied by the customer"),
    ],
)  # fmt: skip
def test_a_noun_and_the_participles_clause_after_it_name_the_figure(text: str, label: str) -> None:
    # a relative clause without its "that are" ("Repairs [that are] not covered by a
    # manufacturer's warranty"): its agent, determined by an article or a possessive, is no
    # name; the noun before the participle is
    (found,) = extract_values(text, CONFIG).facts
    assert found.label == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # a limit that names no cover is the cover's that *with* joins it to
        (
            "Tenant shall carry umbrella insurance with a combined single limit of $2,000,000.",
            "umbrella insurance",
        ),
        (
            "Tenant shall carry employer's liability insurance with a limit of $500,000.",
            "employer's liability insurance",
        ),
        # a coverage that names its cover is the name, whatever *with* follows
        (
            "The Licensee shall keep the vessel insured throughout the season with liability "
            "coverage of not less than $300,000.00, naming the Marina.",
            "liability coverage",
        ),
        (
            "Vendor shall carry a policy with bodily injury limits of $1,000,000.",
            "bodily injury limits",
        ),
    ],
)
def test_a_coverage_that_names_its_cover_is_never_the_noun_before_with(
    text: str, label: str
) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


@pytest.mark.parametrize(
    ("text", "raw", "label"),
    [
        ("A 30% deposit is due on acceptance ($2,082.00 for the Better option).",
         "$2,082.00", "deposit"),
        ("A 50% deposit is required to book (£600 for a double room).", "£600", "deposit"),
        ("A 10% retainage will be held from each payment (€4,200 on this contract).",
         "€4,200", "retainage"),
    ],
)  # fmt: skip
def test_a_share_named_as_its_clauses_subject_names_the_figure_a_parenthesis_restates(
    text: str, raw: str, label: str
) -> None:
    assert (raw, label) in labels(text)


def test_a_share_of_a_thing_is_not_read_as_the_shares_name() -> None:
    assert ("$1,000", "of the price") not in labels("25% of the price is due on signing ($1,000).")
