"""The one normalisation that relates a chunk's ``body`` to its source span.

Rule: ``normalize(s)`` turns ``\\r\\n`` and lone ``\\r`` into ``\\n`` and strips
leading and trailing whitespace (``str.strip()``); nothing else changes.

Invariant (tested on every chunk of every strategy on the shared corpora):
``chunk.body == normalize(doc.text[chunk.span.start:chunk.span.end])``.
Chunkers choose spans that start and end on non-whitespace (:func:`trim_span`),
so the strip only ever removes line-break differences, never content.
"""

from __future__ import annotations

import re

__all__ = ["NON_SPACE", "PARAGRAPH_BREAK", "normalize", "trim_span"]

#: The first non-whitespace character.
NON_SPACE = re.compile(r"\S")
#: A paragraph break: two line breaks with only spaces between them.
PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")


def normalize(s: str) -> str:
    """Line breaks to ``\\n``, outer whitespace removed."""
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    return s.strip()


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` to its first and last non-whitespace characters.

    An all-whitespace interval collapses to ``(end, end)``. No copy of the
    interval is made (this runs once per chunk).
    """
    m = NON_SPACE.search(text, start, end)
    if m is None:
        return end, end
    start = m.start()
    while text[end - 1].isspace():
        end -= 1
    return start, end
