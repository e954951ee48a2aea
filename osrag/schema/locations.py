"""Where extracted text came from in the original: pages of a PDF, elements of DOCX and HTML.

A loader that extracts text from a PDF, Word or HTML file (:mod:`osrag.loaders`)
returns, beside the text, a :class:`LocationMap`: for each *unit* of the
original — a PDF page (numbered from 1), or a DOCX/HTML block element
(paragraph, heading, list item, table; numbered from 0 in document order) —
the half-open interval ``[start, end)`` of the extracted text it produced.

Rule: units are listed in text order and do not overlap (``end`` of one ≤
``start`` of the next); text between units (the blank lines the loader puts
between blocks) belongs to none. A chunk's span ``[a, b)`` *touches* a unit
when the two intervals share a character; :func:`units_in_span` gives the
numbers of the units a span touches, in order, each once. An empty span
touches nothing.

Coordinates: offsets are Unicode code points of the extracted text
(:data:`EXTRACTED_COORDINATES`), the same string every chunk span indexes.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Literal

__all__ = ["EXTRACTED_COORDINATES", "LocationMap", "unit_ranges", "units_in_span"]

EXTRACTED_COORDINATES = "unicode-code-points-of-extracted-text"
"""The coordinate system of spans into text a loader extracted from PDF, DOCX or HTML."""


@dataclass(frozen=True, slots=True)
class LocationMap:
    """Unit numbers and their ``[start, end)`` intervals in the extracted text."""

    unit: Literal["page", "element"]
    numbers: tuple[int, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    loader: str = ""
    """``name@version`` of the loader and the library it read the file with."""
    units_total: int = 0
    """Units in the original (pages of the PDF), including ones that gave no text."""

    def __post_init__(self) -> None:
        if not (len(self.numbers) == len(self.starts) == len(self.ends)):
            raise ValueError("a location map needs one start and one end per unit")
        previous_end = 0
        for start, end in zip(self.starts, self.ends, strict=True):
            if start < previous_end or end < start:
                raise ValueError(f"unit interval [{start}, {end}) overlaps or is reversed")
            previous_end = end

    @property
    def coordinates(self) -> str:
        return EXTRACTED_COORDINATES


def units_in_span(locations: LocationMap | None, start: int, end: int) -> list[int]:
    """Numbers of the units whose interval shares a character with ``[start, end)``."""
    if locations is None or start >= end:
        return []
    # units whose end is after start, and whose start is before end
    first = bisect_right(locations.ends, start)
    last = bisect_left(locations.starts, end)
    seen: list[int] = []
    for k in range(first, last):
        if locations.starts[k] < locations.ends[k]:
            number = locations.numbers[k]
            if number not in seen:
                seen.append(number)
    return seen


def unit_ranges(locations: LocationMap | None, start: int, end: int) -> list[tuple[int, int, int]]:
    """``(unit, a, b)`` for each unit the span touches: ``[a, b)`` is the part of the span
    inside that unit, as offsets from the unit's own start (e.g. characters of page 4)."""
    if locations is None or start >= end:
        return []
    first = bisect_right(locations.ends, start)
    last = bisect_left(locations.starts, end)
    found: list[tuple[int, int, int]] = []
    for k in range(first, last):
        s, e = locations.starts[k], locations.ends[k]
        if s < e:
            found.append((locations.numbers[k], max(start, s) - s, min(end, e) - s))
    return found
