"""The marks of text that several readers of one stage look for: a list bullet, a Markdown
heading's hashes, a figure or a currency sign, a year, a digit, the Indian *lakh*, every
currency sign, where a sentence before an amount starts. One definition each, so the
readers that share a mark cannot drift apart. And the one way the readers find a pattern
that holds a whole line (:func:`line_matches`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from osrag.extract.money.patterns import sign_pattern

__all__ = [
    "DIGIT",
    "FIGURE_OR_SIGN",
    "LAKH",
    "LIST_BULLET",
    "MARKDOWN_HEADING",
    "SHARE",
    "SIGN",
    "YEAR_FIGURE",
    "line_matches",
    "sentence_before",
]

#: A list item's bullet at a line's start: ``-``, ``•``, ``1.``, ``a)``, ``(iv)``.
LIST_BULLET = re.compile(r"^\s*(?:[-*+•◦▪]|\d{1,2}[.)]|\(?[a-z]\)|\([ivx]{1,4}\))\s+")
#: The hashes that open a Markdown heading.
MARKDOWN_HEADING = re.compile(r"#{1,6}\s")
#: A digit or a currency sign: a line that may state an amount.
FIGURE_OR_SIGN = re.compile(r"\d|[$€£¥₹]")
#: A year of the last two centuries inside other text.
YEAR_FIGURE = re.compile(r"(?:19|20)\d\d")
#: Any digit.
DIGIT = re.compile(r"\d")
#: The Indian unit of a hundred thousand (``Rs. 5 lacs``).
LAKH = re.compile(r"\blacs?\b")
#: The pattern of every sign of the currency table (``$``, ``US$``, ``€``, ``Rs.``…).
SIGN = sign_pattern(spaced=True)
#: The pattern of a share written as a figure: ``30%``, ``7.25 %``, ``10 percent``, ``5 per
#: cent`` (case-insensitive where it is used).
SHARE = r"\d[\d,]*(?:\.\d+)?\s*(?:%|percent\b|per\s+cent\b)"


_SENTENCE_START = re.compile(r".*(?:[.;:!?](?=\s)|\n\s*\n)", re.S)
"""The last stop before an amount: a full stop, a semicolon, a colon (a key's), a question
or an exclamation mark before a space, or a blank line (a line break inside a paragraph
does not end a sentence)."""


def sentence_before(text: str, start: int, reach: int) -> str:
    """The text of the sentence before ``text[start]``, from its last stop
    (:data:`_SENTENCE_START`), at most ``reach`` characters back."""
    window = text[max(0, start - reach) : start]
    cut = _SENTENCE_START.match(window)
    return window[cut.end() if cut else 0 :]


def line_matches(pattern: re.Pattern[str], text: str, pos: int = 0) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, pos)`` for a pattern that starts with ``^`` (multi-line):
    the same matches, in order, tried at each line's start only — the regular expression
    engine would try (and fail) at every character between."""
    start = pos if pos == 0 or text[pos - 1] == "\n" else _next_line(text, pos)
    while start >= 0:
        match = pattern.match(text, start)
        if match is None:
            start = _next_line(text, start)
            continue
        yield match
        end = match.end()
        start = end if end > start and text[end - 1] == "\n" else _next_line(text, end)


def _next_line(text: str, at: int) -> int:
    """Where the first line after ``text[at]`` starts; -1 past the last."""
    newline = text.find("\n", at)
    return -1 if newline < 0 else newline + 1
