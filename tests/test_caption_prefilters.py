"""The cheap tests that spare a text the caption patterns never turn one away that the
patterns would match (so captions are found exactly as before)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from osrag.extract.scale import _IN_SCALE, _IN_SCALE_CORE, _UNIT, _may_state_unit

PIECES = [
    "in", "In", "IN", " ", "  ", "\n", "thousands", "Millions", "billion", "000", "'000",
    "’", "s", "(", ")", "$", "US$", "U.S. $", "€", "£", "¥", "usd", "EUR", "Gbp", "rmb",
    "dollars", "U.S. dollars", "of", "m", "bn", "mn", "2019", "except per share", "ſ", "K",
    "revenue", ",", ".",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@given(texts)
@example("(in ’000s)")  # a quote before the thousands, as filings from the UK write it
@example("in '000s of dollars")
def test_no_in_scale_caption_is_missed_by_its_prefilter(text: str) -> None:
    assert _IN_SCALE.search(text) is None or _IN_SCALE_CORE.search(text) is not None


@given(texts)
def test_no_unit_is_missed_by_its_prefilter(text: str) -> None:
    assert _UNIT.search(text) is None or _may_state_unit(text)
