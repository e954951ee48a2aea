"""The marks of text that several readers of one stage look for: a list bullet, a Markdown
heading's hashes, a figure or a currency sign, a year, a digit, the Indian *lakh*, every
currency sign. One definition each, so the readers that share a mark cannot drift apart."""

from __future__ import annotations

import re

from osrag.extract.money.patterns import sign_pattern

__all__ = [
    "DIGIT",
    "FIGURE_OR_SIGN",
    "LAKH",
    "LIST_BULLET",
    "MARKDOWN_HEADING",
    "SIGN",
    "YEAR_FIGURE",
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
