"""How often an item's rate recurs when the line says it by what its count counts: a rate's
row whose name says in brackets what its count counts ("Copy editing (hours)"), and an
allowance set after an item's colon before its count ("Mileage: 200 miles included, 50
extra miles @ …").

Built for the forms, not for any file: each text here is made up."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.extract.facts.units import period_unit
from osrag.lexicon.periods import PERIOD_UNITS, UNIT_ADVERBS
from osrag.models import ExtractionConfig

CONFIG = ExtractionConfig()


def units(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(f.raw, f.label, f.period_unit) for f in extract_values(text, CONFIG).facts]


INVOICE = """| Item | Qty | Unit price | Amount |
|---|---:|---:|---:|
| Copy editing (hours) | 3 | $60.00 | $180.00 |
| Venue hire (days) | 2 | $400.00 | $800.00 |
| Courier (each) | 1 | $25.00 | $25.00 |
"""


def test_a_rate_whose_row_says_in_brackets_what_it_counts_is_priced_by_that_unit() -> None:
    found = {raw: unit for raw, _, unit in units(INVOICE)}
    assert found["$60.00"] == "hour"
    assert found["$400.00"] == "day"
    # the extended total sums the count: no unit
    assert found["$180.00"] is None
    assert found["$800.00"] is None
    # a bracket naming no unit gives none
    assert found["$25.00"] is None


COUNTED = sorted(w for w in PERIOD_UNITS if w.isalpha() and w not in UNIT_ADVERBS)


@given(
    name=st.sampled_from(["Site supervision", "Room hire", "Proofreading", "Hull cleaning"]),
    word=st.sampled_from(COUNTED),
    column=st.sampled_from(["Rate", "Unit price", "Unit cost", "Price each"]),
)
def test_a_counted_gloss_prices_a_rate_and_never_its_total(
    name: str, word: str, column: str
) -> None:
    assert period_unit("", 0, f"{name} ({word}) — {column}") == PERIOD_UNITS[word]
    assert period_unit("", 0, f"{name} ({word})") is None
    assert period_unit("", 0, f"{name} ({word}) — Amount") is None


@pytest.mark.parametrize(
    ("line", "unit"),
    [
        ("Mileage: 200 miles included, 50 extra miles @ $0.30 ...... $15.00", "mile"),
        ("Parking: 2 nights free, 3 nights @ $12.00 ...... $36.00", "night"),
        ("Lessons: 4 lessons prepaid, 2 further lessons @ $40.00 ...... $80.00", "lesson"),
    ],
)
def test_an_allowance_after_an_items_colon_leaves_its_name_and_counts_its_unit(
    line: str, unit: str
) -> None:
    (_, label, rate_unit), (_, total_label, total_unit) = units(line)
    assert label == total_label == line.split(":")[0]
    assert rate_unit == unit
    assert total_unit is None


QUOTE = """| Item | Basis | Amount |
|---|---|---:|
| Skipper | 7 days × $250.00 | $1,750.00 |
| Guide | 2 hours @ $85 | $170.00 |
| Cabin | 3 nights at $40 per week | $120.00 |
| Permit | 4 × $12.00 | $48.00 |
| Tour | 2 adults x $95 | $190.00 |
"""


def test_a_count_of_units_before_a_rate_in_its_cell_prices_the_rate_by_that_unit() -> None:
    found = {raw: unit for raw, _, unit in units(QUOTE)}
    assert found["$250.00"] == "day"
    assert found["$85"] == "hour"
    # a unit written after the rate is its own
    assert found["$40"] == "week"
    # a count of nothing, or of no unit the vocabulary knows: none
    assert found["$12.00"] is None
    assert found["$95"] is None
    # the extended totals sum the count
    assert found["$1,750.00"] is None and found["$170.00"] is None


def test_a_period_s_rate_in_a_label_names_its_unit() -> None:
    assert units("The crane day rate is $3,600 (with operator).")[0][2] == "day"


FIXED_WIDTH = """ITEM                                          QTY      RATE        AMOUNT
---------------------------------------------------------------------------
Copyediting, annual report (hours)           18.5    $60.00     $1,110.00
Design, annual general meeting slides           1   $400.00       $400.00
Annual subscription, style guide                1   $120.00       $120.00
"""


def test_a_thing_named_by_a_period_s_adjective_states_no_recurrence() -> None:
    found = {raw: unit for raw, _, unit in units(FIXED_WIDTH)}
    # the annual report is what was edited: the rate is an hour's (its count's), the total none
    assert found["$60.00"] == "hour"
    assert found["$1,110.00"] is None
    assert found["$400.00"] is None
    # an annual subscription does recur yearly
    assert found["$120.00"] == "year"


RATE_TABLE = """| Equipment | 4 Hours | Day | Week | 4 Weeks | Month |
|---|---|---|---|---|---|
| Mini excavator, 3.5 ton | $225 | $325 | $1,150 | $2,900 | $3,100 |
"""


def test_a_rate_table_s_column_named_by_a_period_prices_its_rates_by_it() -> None:
    found = {raw: (label, unit) for raw, label, unit in units(RATE_TABLE)}
    assert found["$325"] == ("Mini excavator, 3.5 ton — Day", "day")
    assert found["$1,150"] == ("Mini excavator, 3.5 ton — Week", "week")
    assert found["$3,100"] == ("Mini excavator, 3.5 ton — Month", "month")
    # a multiple of a period is no unit
    assert found["$225"][1] is None and found["$2,900"][1] is None
