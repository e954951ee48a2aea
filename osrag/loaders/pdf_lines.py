"""A PDF page's words grouped into visible lines and runs (the first step of the PDF loader).

PDFium's text (one call) gives the characters and its line breaks; (loose) boxes are
read for the first and last character of each word only (two calls a word, not one
a character). A word counts when the centre of its first character lies inside the
visible page. Within a line, words join into one :class:`Run` while the gap between
them stays small (see :data:`GAP_UNIT_MIN` and :data:`MAX_BACKSTEP`); a wider gap starts
the next run (a table cell). Coordinates are display coordinates: origin top left, y down.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SOFT_HYPHENS = ("\ufffe", "\x02")
"""What PDFium puts at the end of a word it hyphenated at a line end (U+FFFE, or STX)."""
JOIN_MARK = "\x02"
"""Ends a line whose last word continues on the next one: the page writer joins the two
halves and drops the mark (a control character, so never text of the document)."""
GAP_UNIT_MIN = 4.0
"""Points: the smallest unit word gaps are measured in. A gap up to one unit — the run's
character height, or this for tinier text — joins two words into one run."""
MAX_BACKSTEP = 2.0
"""Units a word may start to the left of the previous word's end and still continue its
run (overlapping or kerned boxes); further left is a new run."""
NO_EXTENT = 1e9
"""Start value of a line's top (and, negated, bottom) before its first word is placed."""

_PDFIUM_LINE = re.compile(r"[^\r\n]+")
_PDF_WORD = re.compile(r"[^\s\x00]+")

Box = tuple[float, float, float, float]
"""A character box: left, right, bottom, top in user space."""
ToDisplay = Callable[[float, float, float, float], Box]
"""User-space ``(left, right, bottom, top)`` to display ``(x0, x1, top, bottom)``."""


@dataclass(slots=True)
class Run:
    """Characters of one line with no wide gap between them (a table cell, or a whole line)."""

    x0: float
    x1: float
    text: str
    size: float = 0.0
    """Height of the run's (loose) character boxes: proportional to the font size."""


@dataclass(slots=True)
class Line:
    """One visible line of a page, in display coordinates (origin top left, y down)."""

    runs: list[Run]
    top: float
    bottom: float
    size: float
    text: str = ""
    heading: int = 0
    """A heading's level (from the outline or the font size); 0 for body text."""
    heading_text: str = ""
    before: list[tuple[int, str]] = field(default_factory=list)
    """Headings to write before this line (outline entries that do not replace it)."""

    @property
    def x0(self) -> float:
        return self.runs[0].x0

    @property
    def x1(self) -> float:
        return self.runs[-1].x1


@dataclass(slots=True)
class Page:
    number: int
    height: float
    lines: list[Line]
    chars: int
    before: list[tuple[int, str]] = field(default_factory=list)
    """Headings to write at the top of the page (bookmarks that match no line)."""


def page_lines(
    raw: Any, textpage: Any, count: int, visible: Box, to_display: ToDisplay
) -> list[Line]:
    """Group the page's words into visible lines and runs (split at wide gaps)."""
    vl, vb, vr, vt = visible
    text = _page_text(raw, textpage, count)
    box = _box_reader(raw, textpage)
    lines: list[Line] = []
    for line_match in _PDFIUM_LINE.finditer(text):
        builder = _LineBuilder()
        for word in _PDF_WORD.finditer(text, line_match.start(), line_match.end()):
            a, b = word.start(), word.end() - 1
            first = box(a)
            if first is None:
                continue
            cx, cy = (first[0] + first[1]) / 2, (first[2] + first[3]) / 2
            if not (vl <= cx <= vr and vb <= cy <= vt):
                continue  # outside the visible page: printers' marks, off-page text
            last = (box(b) if b > a else first) or first
            builder.add(word.group(), to_display(*first), to_display(*last))
        line = builder.line()
        if line is not None:
            lines.append(line)
    return lines


def _page_text(raw: Any, textpage: Any, count: int) -> str:
    """The page's characters; those PDFium cannot decode in one call read one by one."""
    text: str = textpage.get_text_range(0, count)
    if len(text) != count:
        codes = (raw.FPDFText_GetUnicode(textpage, i) for i in range(count))
        text = "".join(chr(c) if 0 < c < 0x110000 else "\ufffd" for c in codes)
    return text


def _box_reader(raw: Any, textpage: Any) -> Callable[[int], Box | None]:
    """Character index → its loose box (None when PDFium has none), one buffer reused."""
    rect = raw.FS_RECTF()
    get_box = raw.FPDFText_GetLooseCharBox
    pointer = ctypes.byref(rect)

    def box(i: int) -> Box | None:
        # the loose box spans the font's ascent to descent: lines of one font have
        # equal heights whatever their letters, so gaps between lines compare
        if not get_box(textpage, i, pointer):
            return None
        return rect.left, rect.right, rect.bottom, rect.top

    return box


class _LineBuilder:
    """The runs of one PDFium line, built word by word."""

    __slots__ = ("bottom", "carry", "run_x0", "run_x1", "runs", "size", "top", "words")

    def __init__(self) -> None:
        self.runs: list[Run] = []
        self.words: list[str] = []
        self.run_x0 = self.run_x1 = self.size = 0.0
        self.top, self.bottom = NO_EXTENT, -NO_EXTENT
        self.carry = ""
        """The first half of a word PDFium hyphenated at the end of its previous line."""

    def add(self, chunk: str, first: Box, last: Box) -> None:
        """One word, with the display boxes of its first and last characters."""
        x0, _, y0, y1 = first
        _, x1, z0, z1 = last
        words = self.words
        if self.carry:  # the rest of a word PDFium hyphenated at a line end
            words[-1] = self.carry + chunk
            self.carry = ""
            self.run_x1 = max(self.run_x1, x1)
        elif words and self._continues(x0):
            if len(words) == 1:  # a bullet or a symbol: the next word's height
                self.size = min(self.size, abs(y1 - y0), abs(z1 - z0))
            words.append(chunk)
            self.run_x1 = max(self.run_x1, x1)
        else:
            self._close_run()
            # the box height, not the font size (PDFs that scale text by its matrix
            # report a font size of 1 for every line); of the word's first and last
            # characters the smaller (a bullet's box is taller)
            self.size = min(abs(y1 - y0), abs(z1 - z0))
            self.words, self.run_x0, self.run_x1 = [chunk], x0, max(x0, x1)
        self.top = min(self.top, y0, z0)
        self.bottom = max(self.bottom, y1, z1)
        if self.words[-1].endswith(SOFT_HYPHENS):
            self.carry = self.words[-1][:-1]  # the next word (next visual line) continues it
        else:
            self.words[-1] = self.words[-1].replace("\ufffe", "").replace(JOIN_MARK, "")

    def _continues(self, x0: float) -> bool:
        gap, unit = x0 - self.run_x1, max(self.size, GAP_UNIT_MIN)
        return -MAX_BACKSTEP * unit <= gap <= unit

    def _close_run(self) -> None:
        if self.words:
            self.runs.append(Run(self.run_x0, self.run_x1, " ".join(self.words), self.size))

    def line(self) -> Line | None:
        """The finished line (None when no word of it was visible)."""
        if self.carry:  # hyphenated across PDFium lines: joined when written
            self.words[-1] = self.carry + JOIN_MARK
        self._close_run()
        if not self.runs:
            return None
        longest = max(self.runs, key=lambda r: len(r.text))
        line = Line(self.runs, self.top, self.bottom, longest.size)
        line.text = " ".join(r.text for r in self.runs)
        return line
