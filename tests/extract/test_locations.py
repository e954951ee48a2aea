"""The span → pages/elements map: checked against a brute-force reading of the same map."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.schema.locations import LocationMap, unit_ranges, units_in_span


@st.composite
def maps_and_spans(draw: st.DrawFn) -> tuple[LocationMap, int, int]:
    """A map of 0–12 units with gaps between them, and any span over its text."""
    count = draw(st.integers(0, 12))
    starts, ends, numbers = [], [], []
    position = 0
    number = draw(st.integers(0, 3))
    for _ in range(count):
        position += draw(st.integers(0, 4))  # text that belongs to no unit
        length = draw(st.integers(0, 30))
        starts.append(position)
        ends.append(position + length)
        numbers.append(number)
        position += length
        number += draw(st.integers(1, 3))
    total = position + draw(st.integers(0, 5))
    a = draw(st.integers(0, total))
    b = draw(st.integers(a, total))
    return LocationMap("page", tuple(numbers), tuple(starts), tuple(ends)), a, b


@given(maps_and_spans())
def test_units_in_span_are_the_units_sharing_a_character_with_it(
    case: tuple[LocationMap, int, int],
) -> None:
    locations, a, b = case
    expected = [
        n
        for n, s, e in zip(locations.numbers, locations.starts, locations.ends, strict=True)
        if any(s <= i < e for i in range(a, b))
    ]
    assert units_in_span(locations, a, b) == expected


@given(maps_and_spans())
def test_unit_ranges_are_the_span_cut_at_unit_bounds_in_unit_offsets(
    case: tuple[LocationMap, int, int],
) -> None:
    locations, a, b = case
    ranges = unit_ranges(locations, a, b)
    assert [n for n, _, _ in ranges] == units_in_span(locations, a, b)
    by_number = dict(zip(locations.numbers, locations.starts, strict=True))
    covered = set()
    for number, x, y in ranges:
        start = by_number[number]
        assert 0 <= x < y
        covered |= set(range(start + x, start + y))
    inside = {
        i
        for s, e in zip(locations.starts, locations.ends, strict=True)
        for i in range(s, e)
        if a <= i < b
    }
    assert covered == inside


def test_no_map_or_an_empty_span_touches_nothing() -> None:
    pages = LocationMap("page", (1, 2), (0, 10), (8, 20))
    assert units_in_span(None, 0, 5) == []
    assert units_in_span(pages, 4, 4) == []
    assert units_in_span(pages, 8, 10) == []  # only the gap between the pages
    assert units_in_span(pages, 7, 11) == [1, 2]


def test_overlapping_units_are_refused() -> None:
    with pytest.raises(ValueError, match="overlaps"):
        LocationMap("page", (1, 2), (0, 5), (6, 9))
