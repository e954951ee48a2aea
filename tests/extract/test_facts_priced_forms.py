"""Forms of a price list, a quote or a bill whose amounts the sentence around them leaves
unnamed: an amount in brackets restating the share or count before it, an item line that
extends a count by a rate, a price that opens its paragraph under the heading naming what
it prices.

Built for the forms, not for any file: each text here is made up."""

from __future__ import annotations

import re

import pytest
from extracted import CONFIG, labels
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.extract.facts.sections import _sentence_ended
from osrag.loaders.html import load_html


@pytest.mark.parametrize(
    ("text", "amount", "label"),
    [
        ("A deposit of 30% ($6,592.50) is due on signing.", "$6,592.50", "deposit"),
        ("The Client pays a retainer of 50% (£1,250) on acceptance.", "£1,250", "retainer"),
        ("Members receive a discount of 10 percent ($120.00) on renewal.", "$120.00", "discount"),
        ("Retention 5% (€2,400)", "€2,400", "Retention"),
        ("A late charge of 1.5 per cent (€36.00) applies after 30 days.", "€36.00", "late charge"),
    ],
)
def test_an_amount_restating_the_share_before_it_is_the_noun_phrases(
    text: str, amount: str, label: str
) -> None:
    assert dict(labels(text))[amount] == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # a share of something named: the share's own name, as before
        ("Travel costs may not exceed 15% of the award ($3,000).", "Travel costs"),
        # a restated count that the sentence already names keeps its name
        ("The deposit of 2 months ($3,000) is due.", "deposit"),
        ("They paid 2 instalments ($600) in May.", "instalments"),
        # a restatement of a rate's figure names nothing
        ("Rent is $45.00 per rentable square foot ($159,750.00).", "Rent"),
    ],
)
def test_a_restatement_the_sentence_already_reads_keeps_its_label(text: str, label: str) -> None:
    assert labels(text)[-1][1] == label


@pytest.mark.parametrize(
    "text",
    [
        "About 30% ($6,592.50) went unpaid.",
        "Of the total, 30% ($6,592.50) went unpaid.",
    ],
)
def test_a_restatement_with_no_name_before_its_share_stays_unlabelled(text: str) -> None:
    assert labels(text)[-1][1] is None


def test_a_restated_share_after_a_change_is_the_change() -> None:
    assert labels("Revenue grew 5% ($2.1 million) in 2019.") == [
        ("$2.1 million", "increase in Revenue")
    ]


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        ("Storage in transit, 30 days at $45.00 per day: $1,350.00", "Storage in transit", "day"),
        ("Labour — 3 hours at $95/hour = $285.00", "Labour", "hour"),
        ("- Accommodation: 2 nights @ €120 per night: €240", "Accommodation", "night"),
        ("Boarding (5 nights x $48.00) ... $240.00", "Boarding", "night"),
        ("**Crane hire** — two days at $1,100 per day: $2,200", "Crane hire", "day"),
        (
            "Tuition – undergraduate, 15 credit hours at $390.00 per credit hour: $5,850.00",
            "Tuition — undergraduate",
            "credit hour",
        ),
        # the item's number in a column of its own before the name
        (" 3     Garden clearance, 4 hours @ £28.00        £112.00", "Garden clearance", "hour"),
        ("12\tTowing, 2 miles x $4.50\t$9.00", "Towing", "mile"),
    ],
)
def test_an_item_lines_rate_and_extended_total_take_the_items_name(
    text: str, label: str, unit: str | None
) -> None:
    rate, total = extract_values(text, CONFIG).facts
    assert (rate.label, total.label) == (label, label)
    assert (rate.period_unit, total.period_unit) == (unit, None)
    assert rate.source == total.source == "key"


@pytest.mark.parametrize(
    "text",
    [
        # no item named before the count
        "30 days at $45.00 per day: $1,350.00",
        # a sentence, not an item's name
        "We charge for storage, 30 days at $45.00 per day: $1,350.00",
        # a third amount on the line: not one count, one rate and one total
        "Storage, 30 days at $45.00 per day: $1,350.00 (deposit $200.00)",
        # no separator between the rate and the total: a list of prices
        "Storage, 30 days at $45.00 per day or $1,200.00 per month",
    ],
)
def test_a_line_that_is_no_item_line_names_no_item(text: str) -> None:
    assert "Storage" not in {label for _, label in labels(text)}


def test_an_item_lines_total_in_brackets_is_a_deduction_of_the_item() -> None:
    rate, total = extract_values("Buyer's premium, 3 lots @ $15.00      ($45.00)", CONFIG).facts
    assert (rate.label, total.label) == ("Buyer's premium", "Buyer's premium")
    assert (rate.value, total.value) == (1500, 4500)
    # a bracket that closes no total of the line: no item line
    assert "Buyer's premium" not in dict(
        (label, raw) for raw, label in labels("Buyer's premium, 3 lots @ $15.00   $45.00)")
    )


def test_a_count_that_opens_its_line_after_an_item_number_is_no_item_name() -> None:
    # " 4     2 @ $15.00   $30.00": the number, then the count — no name before it
    assert not [label for _, label in labels(" 4     2 @ $15.00      $30.00") if label]


@pytest.mark.parametrize(
    ("text", "amount", "label"),
    [
        ("## Individual tickets\n\n$350 per person.\n", "$350", "Individual tickets"),
        (
            "Monthly membership\n\n£45 per month, payable by direct debit.\n",
            "£45",
            "Monthly membership",
        ),
        (
            "# Club\n\n## Season pass\n\n$1,200 for the season, due in two instalments.\n",
            "$1,200",
            "Season pass",
        ),
        ("### Day pass\n$25 (incl. VAT).\n", "$25", "Day pass"),
        (
            "## Season pass\n\nValid for all home games. $1,200 for the season.\n",
            "$1,200",
            "Season pass",
        ),
        ("**Family ticket**\n\n- €90 per family of four\n", "€90", "Family ticket"),
    ],
)
def test_a_price_that_opens_its_paragraph_takes_the_heading_naming_what_it_prices(
    text: str, amount: str, label: str
) -> None:
    assert dict(labels(text))[amount] == label


def test_the_alternative_after_a_headed_price_takes_its_label() -> None:
    text = "## Individual tickets\n\n$350 per person or $600 per couple.\n"
    assert labels(text) == [("$350", "Individual tickets"), ("$600", "Individual tickets")]


@pytest.mark.parametrize(
    "text",
    [
        # a generic section title names nothing priced
        "## Payment\n\n$350 per person.\n",
        "## Fees\n\n$350 per person.\n\n$20 per child.\n",
        "## Summary\n\n$350 per person.\n",
        "## Payment terms\n\n$1,200 for the season.\n",
        "## Notes\n\n$45 per month.\n",
        # the nearest heading is another one
        "## Season pass\n\n### Parking\n\nSpaces are limited\n\n$1,200 for the season.\n",
        # the amount does not open its sentence
        "## Season pass\n\nPrices start at\n$1,200 for the season.\n",
        # a status line, not a name
        "Active · Price reduced\n\n$649,900 — reduced from $675,000 on April 3\n",
        # what follows the amount is a clause, not a price's qualifiers
        "## Season pass\n\n$1,200 was raised by the supporters' club.\n",
        # a heading that is a sentence or a question
        "## What's included\n\n$350 per person.\n",
        "## How much is it?\n\n$350 per person.\n",
    ],
)
def test_no_heading_label_without_a_heading_naming_a_thing_right_above(text: str) -> None:
    assert labels(text)[0][1] is None


def test_a_label_the_sentence_gives_wins_over_the_heading() -> None:
    text = "## Season pass\n\nThe deposit is $200.\n"
    assert labels(text) == [("$200", "deposit")]


def test_the_heading_of_an_html_page_labels_the_price_under_it() -> None:
    page = b"<h1>Club</h1><h2>Season pass</h2><p>$1,200 for the season.</p>"
    text = load_html(page).text
    assert labels(text) == [("$1,200", "Season pass")]


def test_a_plain_texts_heading_line_labels_the_price_under_it() -> None:
    text = "SEASON PASS\n\n$1,200 for the season, due in two instalments.\n"
    facts = extract_values(text, CONFIG, text_format="text").facts
    assert [(f.raw, f.label, f.source) for f in facts] == [("$1,200", "SEASON PASS", "heading")]


@pytest.mark.parametrize(
    ("text", "amount", "label"),
    [
        ("Amount paid ........ $500.00", "$500.00", "Amount paid"),
        ("Deposit paid 2 October 2026 ........ £400.00", "£400.00", "Deposit paid 2 October 2026"),
        ("Tax paid: €36.00", "€36.00", "Tax paid"),
        ("Premium paid to date: $1,250.00", "$1,250.00", "Premium paid to date"),
    ],
)
def test_paid_after_a_noun_in_a_separated_key_is_its_participle(
    text: str, amount: str, label: str
) -> None:
    assert dict(labels(text))[amount] == label


@pytest.mark.parametrize("text", ["We paid: $20.00 to the vendor.", "They paid ..... $45.00"])
def test_paid_after_a_pronoun_is_a_verb_and_no_key(text: str) -> None:
    assert labels(text)[-1][1] is None


@pytest.mark.parametrize(
    ("text", "amount", "label"),
    [
        (
            "A deposit of 75% of the low estimate, $3,442.50, is due before treatment.",
            "$3,442.50",
            "deposit",
        ),
        (
            "The retainer is 10 percent of the contract price, $1,200, payable now.",
            "$1,200",
            "retainer",
        ),
        (
            "We ask a deposit equal to 50% of the quoted total, £640.00, on booking.",
            "£640.00",
            "deposit",
        ),
    ],
)
def test_an_amount_restating_a_share_after_a_comma_is_the_noun_phrases(
    text: str, amount: str, label: str
) -> None:
    """The comma's apposition reads as the bracket's does: the share's figure, named as the
    share is — not what the share is of."""
    assert dict(labels(text))[amount] == label


def test_a_share_restated_after_a_comma_with_no_name_before_it_stays_unlabelled() -> None:
    assert labels("About 30% of the total, $6,592.50, went unpaid.")[-1][1] is None


@pytest.mark.parametrize(
    "text",
    [
        "| Instalment | Amount |\n|---|---:|\n| 1 April 2026 | £161.08 |\n| 1 May 2026 | £160.97 |",
        # as the PDF and Word loaders write a table: a header line, then "row — column: cell"
        "Instalment | Amount\n1 April 2026 — Amount: £161.08\n1 May 2026 — Amount: £160.97",
    ],
)
def test_dated_rows_under_a_stub_header_naming_a_quantity_are_that_quantity(text: str) -> None:
    facts = extract_values(text, CONFIG).facts
    assert [(f.label, f.period) for f in facts] == [
        ("Instalment", "1 April 2026"),
        ("Instalment", "1 May 2026"),
    ]


@pytest.mark.parametrize("stub", ["Date", "Due date", ""])
def test_dated_rows_under_a_stub_naming_no_quantity_stay_unlabelled(stub: str) -> None:
    text = f"| {stub} | Amount |\n|---|---:|\n| 1 March 2026 | $500.00 |\n| 1 June 2026 | $500.00 |"
    assert [f.label for f in extract_values(text, CONFIG).facts] == [None, None]


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        (
            "The Distributor shall pay to the Brand the sum of $260,000, as set out below.",
            "$260,000",
        ),
        ("The Agency has received the aggregate sum of $18,450 to date.", "$18,450"),
        ("Client agrees to pay the entire sum of $96,000 over the engagement.", "$96,000"),
        (
            "Sponsor shall pay the Club the sum of Seventy Thousand Dollars ($70,000).",
            "Seventy Thousand Dollars ($70,000)",
        ),
    ],
)
def test_a_figure_stated_as_a_whole_and_named_no_other_way_is_the_total(
    text: str, amount: str
) -> None:
    assert dict(labels(text))[amount] == "total"


@pytest.mark.parametrize(
    ("text", "amount", "label"),
    [
        # a name after the figure names it, whole or not
        (
            "The Partner shall spend a total of $2,000,000 in media advertising.",
            "$2,000,000",
            "media advertising",
        ),
        # a name before the link names it
        ("Net revenue was a total of $8.4 million.", "$8.4 million", "Net revenue"),
        # a unit after it: a payment that recurs, no whole
        ("The Licensee pays the sum of $750 per month.", "$750", None),
        # an empty head that says no whole
        ("The Buyer shall pay the amount of $3,500 on delivery.", "$3,500", None),
        ("A maximum sum of $10,000 may be claimed.", "$10,000", None),
        ("The Client pays an additional sum of $650.", "$650", None),
        # "a total of" sums the figures just before it: no document's total
        ("We estimate the work at £4,200 plus VAT (£840), a total of £5,040.", "£5,040", None),
    ],
)
def test_a_whole_is_no_total_where_the_sentence_names_it_or_it_recurs(
    text: str, amount: str, label: str | None
) -> None:
    assert dict(labels(text))[amount] == label


@pytest.mark.parametrize(
    ("text", "label", "unit"),
    [
        # indented under the bill's heading
        ("Services\n    Window cleaning, 4 hours @ $30.00 per hour ........ $120.00\n",
         "Window cleaning", "hour"),
        # a date column opens the line
        ("  14 Mar  Dog walking, 5 walks @ £12.00 ........ £60.00\n", "Dog walking", None),
        ("03/11 – Garden tidy, 2 visits @ €40.00 ... €80.00\n", "Garden tidy", "visit"),
        # a qualifier with a figure after a comma, a gloss in brackets
        ("Guitar lessons, 30 minutes, 6 lessons @ $25.00 .... $150.00\n",
         "Guitar lessons, 30 minutes", "lesson"),
        ("Apostille (legalisation), 3 documents @ £20.00 ..... £60.00\n",
         "Apostille (legalisation)", None),
    ],
)  # fmt: skip
def test_an_item_line_indented_dated_or_qualified_takes_the_items_name(
    text: str, label: str, unit: str | None
) -> None:
    rate, total = extract_values(text, CONFIG).facts
    assert (rate.label, total.label) == (label, label)
    assert (rate.period_unit, total.period_unit) == (unit, None)


@pytest.mark.parametrize(
    "text",
    [
        "    5 nights @ $52.00 .... $260.00\n",  # indented, still no item named
        "  14 Mar  5 walks @ £12.00 .... £60.00\n",  # a date, then the count: no item
    ],
)
def test_an_indented_or_dated_line_that_opens_with_its_count_names_no_item(text: str) -> None:
    assert all(label is None for _, label in labels(text))


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # the rate and the total in columns, a gap between them
        ("Gutter clearing, rear                  2 @ $35.00     $70.00\n", "Gutter clearing, rear"),
        ("Chimney sweep\t1 @ £65.00\t£65.00\n", "Chimney sweep"),
        # a gloss in brackets is no word of the name's length
        ("Window cleaning (inside and out, all floors, skylights)   3 @ $40.00   $120.00\n",
         "Window cleaning (inside and out, all floors, skylights)"),
        # the kind of charge before a colon, then the item
        ("Labour: boiler service and flue check, 1.5 hrs @ £60.00/hr ...... £90.00\n",
         "Labour — boiler service and flue check"),
        ("Materials: copper pipe, 6 m @ £9.50 ................ £57.00\n",
         "Materials — copper pipe"),
        # figures of a range in a qualifier count no words; their dash is the range's
        ("Dog walking, Mon 3 - Fri 7, 5 walks @ $15.00 ....... $75.00\n",
         "Dog walking, Mon 3 - Fri 7"),
    ],
)  # fmt: skip
def test_an_item_line_in_columns_glossed_or_under_a_kind_takes_the_items_name(
    text: str, label: str
) -> None:
    rate, total = extract_values(text, CONFIG).facts
    assert (rate.label, total.label) == (label, label)


@pytest.mark.parametrize(
    "text",
    [
        "Note: see terms, 2 copies @ $5 ..... $10\n",
        "Attn: accounts, 3 boxes @ $4.00 ..... $12.00\n",
        "Ref: spring order, 2 crates @ $9.00 ..... $18.00\n",
    ],
)
def test_a_note_or_reference_before_a_colon_is_no_kind_of_charge(text: str) -> None:
    assert all(f.label is None for f in extract_values(text, CONFIG).facts)


@pytest.mark.parametrize(
    ("text", "rate_unit", "total_unit"),
    [
        # the count is of a unit: the rate is priced by it, the total sums it
        ("Pet sitting, 2 nights @ $60.00 .... $120.00\n", "night", None),
        ("Scaffold hire, 3 weeks @ £80.00 .... £240.00\n", "week", None),
        ("Courier mileage, 40 extra miles @ $0.60 .... $24.00\n", "mile", None),
        ("Weekly coaching, 4 sessions @ $45.00 ..... $180.00\n", "session", None),
        # a unit written after the rate is the rate's, whatever the count counts
        ("Car hire, 3 days @ $40 per week .... $120\n", "week", None),
        ("Catering, 2 days @ $45 per person .... $90\n", "person", None),
        # a count of no unit leaves the label's unit to both
        ("Monthly support fee, 12 users @ $45.00 ....... $540.00\n", "month", "month"),
        ("Site hoarding, 4 panels @ $20.00 ...... $80.00\n", None, None),
    ],
)
def test_an_item_lines_count_of_a_unit_prices_its_rate_by_that_unit(
    text: str, rate_unit: str | None, total_unit: str | None
) -> None:
    rate, total = extract_values(text, CONFIG).facts
    assert (rate.period_unit, total.period_unit) == (rate_unit, total_unit)


_REFERENCE_SENTENCE_END = re.compile(r"(?<![A-Z])[.!?][\"”’)]*$")
"""The end of a sentence before an amount on its line, as a pattern searched over the whole
line: the reference the end-first reading is checked against."""


@given(st.text(alphabet='aZ .!?"”’)(xJ\t', max_size=30))
def test_a_sentence_ends_before_the_amount_as_the_reference_pattern_says(before: str) -> None:
    assert _sentence_ended(before) == (_REFERENCE_SENTENCE_END.search(before) is not None)


def test_a_price_on_a_long_line_of_prices_is_read_like_one_on_a_short_line() -> None:
    """One line of 3,000 items ("Item 7 costs $8.") gives each amount its fact, as a line
    of three does: the sentence test before each amount reads the line from its end."""
    short = " ".join(f"Item {n} costs ${n + 1}." for n in range(3))
    long = " ".join(f"Item {n} costs ${n + 1}." for n in range(3_000))
    short_facts = extract_values(f"# Ledger\n\n{short}\n", CONFIG).facts
    long_facts = extract_values(f"# Ledger\n\n{long}\n", CONFIG).facts
    assert len(long_facts) == 3_000
    assert [f.label for f in long_facts[:3]] == [f.label for f in short_facts]
