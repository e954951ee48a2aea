"""Dates in text → ISO dates, with the numeric locale rule."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.extract.dates import extract_dates, parse_date

JAN_15 = dt.date(2024, 1, 15)


@pytest.mark.parametrize(
    "text",
    [
        "January 15, 2024",
        "january 15 2024",
        "JANUARY 15, 2024",
        "Jan 15, 2024",
        "Jan. 15, 2024",
        "January 15th, 2024",
        "15 January 2024",
        "15 Jan 2024",
        "15th of January, 2024",
        "15th day of January, 2024",
        "2024-01-15",
        "2024/01/15",
        "01/15/2024",
        "1/15/2024",
        "15.01.2024",
    ],
)
def test_supported_date_forms_give_the_iso_date(text: str) -> None:
    assert parse_date(text) == JAN_15
    [mention] = extract_dates(f"effective {text}; renewed later")
    assert (mention.raw, mention.date) == (text, JAN_15)


def test_the_iso_date_part_of_a_timestamp_is_a_date() -> None:
    [mention] = extract_dates("at 2024-01-15T10:00:00Z the policy")
    assert (mention.raw, mention.date) == ("2024-01-15", JAN_15)


def test_slash_dates_follow_the_configured_order_and_are_never_reinterpreted() -> None:
    assert parse_date("01/02/2024") == dt.date(2024, 1, 2)
    assert parse_date("01/02/2024", "DMY") == dt.date(2024, 2, 1)
    assert parse_date("15/01/2024", "DMY") == JAN_15
    assert parse_date("15/01/2024") is None  # month 15 under MDY: dropped, not swapped
    assert parse_date("01/15/2024", "DMY") is None


@pytest.mark.parametrize(
    "text",
    [
        "February 30, 2024",
        "2023-02-29",
        "1/15/24",
        "January 2024",
        "2024",
        "Section 3.2",
        "version 2.19.6",
        "v2024-01-15",
        "2024-01-155",
        "12024-01-15",
        "UMB-2024-01-15",
        "Mayday 15, 2024",
        "13.13.2024",
        "call 555-300-0000",
    ],
)
def test_not_dates_give_nothing(text: str) -> None:
    assert extract_dates(text) == []


@given(
    st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(9999, 12, 31)),
    st.sampled_from(["MDY", "DMY"]),
)
def test_every_supported_form_round_trips(day: dt.date, order: str) -> None:
    month_name = day.strftime("%B")
    slash = (
        f"{day.month:02d}/{day.day:02d}/{day.year}"
        if order == "MDY"
        else f"{day.day:02d}/{day.month:02d}/{day.year}"
    )
    for text in (
        day.isoformat(),
        f"{month_name} {day.day}, {day.year}",
        f"{day.day} {month_name[:3]} {day.year}",
        f"{day.day:02d}.{day.month:02d}.{day.year}",
        slash,
    ):
        [mention] = extract_dates(f"from {text} on", order)  # type: ignore[arg-type]
        assert mention.date == day, text
        assert mention.raw == text


def test_dates_are_found_in_order_with_their_spans() -> None:
    text = "From June 1, 2012 to 2013-06-01 and 31st December 2018."
    found = extract_dates(text)
    assert [d.date.isoformat() for d in found] == ["2012-06-01", "2013-06-01", "2018-12-31"]
    assert all(text[d.start : d.end] == d.raw for d in found)


_PIECES = st.sampled_from(
    ["January", "jan", "Sept.", "May", "March", "Mar.", "marine", "Dec", "15", "1", "31st", "2nd",
     "2024", "1999", "12345", ",", ".", " ", "  ", "\n", "\t", "-", "/", "x", "Section", "of"]
)  # fmt: skip


@settings(max_examples=3000)
@given(st.lists(_PIECES, max_size=14), st.integers(0, 5))
def test_month_first_scan_finds_exactly_what_the_pattern_finds(parts: list[str], pos: int) -> None:
    from osrag.extract.dates import _MONTH_FIRST, _month_first

    text = "".join(parts)
    pos = min(pos, len(text))
    expected = [(m.start(), m.end()) for m in _MONTH_FIRST.finditer(text, pos)]
    assert [(m.start(), m.end()) for m in _month_first(text, pos)] == expected


@pytest.mark.corpus
def test_the_fast_scans_agree_with_the_full_ones_on_every_corpus_text(corpora: Path) -> None:
    """Month-first dates found from their day and year, and the money pre-check that
    skips texts without a currency sign, code or noun, lose nothing on real text."""
    import osrag.extract.money as money
    from osrag.extract.dates import _MONTH_FIRST, _month_first
    from osrag.loaders.corpus import load_corpus
    from osrag.models import Document

    texts = [
        d.text
        for source in (
            "opensearch-docs",
            "cuad-contracts/contracts",
            "cranfield/derived/corpus.jsonl",
        )
        for d in load_corpus(corpora / source)
        if isinstance(d, Document)
    ]
    skipped = 0
    for text in texts:
        assert [m.span() for m in _month_first(text, 0)] == [
            m.span() for m in _MONTH_FIRST.finditer(text)
        ]
        if not money.may_state_money(text):
            skipped += 1
            full = money.full_scan(text)
            assert not full.mentions and not full.rejected, full
    assert skipped > len(texts) / 2  # the pre-check earns its keep
