"""The thing priced, named by the question instead of a quantity, end to end on OpenSearch,
Elasticsearch and the embedded index (bm25): "veneers costing more than $900" is the
veneers' price, "kayak hire paid weekly for under $200" the hire's weekly figure, "a
seminar over $400" the price a course list writes under a "Seminar" heading.

What each query must return is written next to it, read from the documents by hand.
"""

from __future__ import annotations

import pytest
from backend_cases import (
    BackendCase,
    ingested_fixture,
    step_and_documents,
)

DOCUMENTS = {
    # a clinic's fee schedule: the veneer is a row, its fee a column; a whitening under $900
    "lindenvale-clinic": "# Lindenvale Dental Clinic — Fee schedule\n\n"
    "| Procedure | Clinic fee | Plan pays |\n|---|---:|---:|\n"
    "| Composite veneer | $1,040.00 | $520.00 |\n| Whitening tray | $380.00 | $0.00 |\n",
    # a veneer under $900, in another clinic's list
    "orchard-dental": "# Orchard Dental price list\n\n- Composite veneer: $860.00\n"
    "- Night guard: $410.00\n",
    # a course list whose heading names what is priced; the rows name only the tiers
    "riverside-academy": "# Riverside Academy\n\n## Weekend seminar\n\n"
    "| Tier | Price |\n|---|---:|\n| Standard | $450 |\n| Student | $210 |\n\n"
    "## Library\n\n- Late return charge: $2\n",
    # a hire shop's rates under a heading naming the hire, the week's rate a line
    "bayside-hire": "# Bayside Outdoors\n\n## Kayak hire\n\n- Day rate: $45 per day\n"
    "- Weekly rate: $180 per week\n\n## Bike hire\n\n- Weekly rate: $240 per week\n",
}


documents = ingested_fixture(DOCUMENTS, "things-priced")


ANSWERS = {
    # the subject of "costing" is what is priced: Lindenvale's $1,040 veneer fee, at the
    # narrowed step (no label says "dental veneer"; the clinic's title says "dental") —
    # never the $520 the plan pays, nor Orchard's $860 veneer
    "dental veneers costing more than $900": ("narrowed", {"lindenvale-clinic"}),
    # "priced at" the same
    "composite veneers priced at $1,000 or more": ("bound", {"lindenvale-clinic"}),
    # a price under the heading that names the thing: the seminar's $450 tier, not the
    # $210 one, nor the library's charge
    "weekend seminars over $400": ("bound", {"riverside-academy"}),
    # paid how often, said by an adverb after the verb: the kayak's weekly rate only, not
    # the bike's $240 weekly rate nor the $45 day rate
    "kayak hire paid weekly for under $200": ("bound", {"bayside-hire"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_the_thing_a_question_prices_is_what_its_figure_is_asked_of(
    documents: BackendCase, text: str
) -> None:
    assert step_and_documents(documents, text) == ANSWERS[text]
