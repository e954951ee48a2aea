"""The cheap tests that spare a text the caption and money patterns never turn one away
that the patterns would match (so captions and amounts are found exactly as before), over
every sign, code and noun of the currency table; and that a currency declaration, tried at
each line's start only, is found exactly where a search through every character finds it."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from osrag.currencies import CAPTION_NOUNS, CODES, QUALIFIERS, SIGNS
from osrag.extract.marks import line_matches
from osrag.extract.money import full_scan, may_state_money
from osrag.extract.scale import (
    _DECLARED,
    _IN_SCALE,
    _IN_SCALE_CORE,
    _UNIT,
    _hinted,
    _may_state_unit,
)

PIECES = [
    "in", "In", "IN", " ", "  ", "\n", "thousands", "Millions", "billion", "000", "'000",
    "’", "s", "(", ")", "$", "US$", "U.S. $", "€", "£", "¥", "usd", "EUR", "Gbp", "rmb",
    "dollars", "U.S. dollars", "of", "m", "bn", "mn", "2019", "except per share", "ſ", "K",
    "revenue", ",", ".",
]  # fmt: skip
VOCABULARY = sorted({*SIGNS, *CODES, *(c.lower() for c in CODES), *CAPTION_NOUNS, *QUALIFIERS})
texts = st.lists(st.sampled_from(PIECES + VOCABULARY), max_size=12).map("".join)


@given(texts)
@example("(in ’000s)")  # a quote before the thousands, as filings from the UK write it
@example("in '000s of dollars")
def test_no_in_scale_caption_is_missed_by_its_prefilter(text: str) -> None:
    assert _IN_SCALE.search(text) is None or _IN_SCALE_CORE.search(text) is not None


@given(texts)
def test_no_unit_is_missed_by_its_prefilter(text: str) -> None:
    assert _UNIT.search(text) is None or _may_state_unit(text)


@given(texts)
@example("EUR m")
@example("Rs.bn")
@example("(₩ in millions)")
def test_no_caption_is_missed_by_the_hint(text: str) -> None:
    found = _IN_SCALE.search(text) is not None or _UNIT.search(text) is not None
    assert not found or _hinted(text)


MONEY_PIECES = [
    *PIECES, "5", "0", "12", ",", ".", "-", "–", " to ", "Five", "Thousand", "and 00/100",
    " k", "M", "B", " lakh", " crore", "Mio.", "(", ")", "\n", "%", "'", "’", "Mrs",
]  # fmt: skip
money_texts = st.lists(st.sampled_from(MONEY_PIECES + VOCABULARY), max_size=14).map("".join)


@given(money_texts)
@example("5 million €")
@example("5–6bn ₽")
@example("Rs.5")
def test_no_amount_is_missed_by_the_money_pre_check(text: str) -> None:
    full = full_scan(text)
    assert may_state_money(text) or (not full.mentions and not full.rejected)


DECLARED_PIECES = [
    "All amounts in US dollars.", "amounts", "figures", " are shown in ", "currency: ",
    "Currency = ", "EUR", "GBP", "pounds sterling", "euros", " unless otherwise stated",
    "(", ")", "*", "> ", "- ", "\n", "\n\n", " ", "\t", "$", "abc", ".",
]  # fmt: skip
declared_texts = st.lists(st.sampled_from(DECLARED_PIECES), max_size=12).map("".join)


@given(declared_texts, st.integers(min_value=0, max_value=200))
@example("x\nAll amounts in US dollars.\n", 1)
@example("All amounts\nare shown in GBP\n", 0)
def test_declarations_are_tried_at_line_starts_with_the_same_matches(text: str, at: int) -> None:
    pos = min(at, len(text))
    every = [(m.span(), m.group()) for m in _DECLARED.finditer(text, pos)]
    at_lines = [(m.span(), m.group()) for m in line_matches(_DECLARED, text, pos)]
    assert at_lines == every
