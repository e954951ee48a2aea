"""Plain-text outline: numbered and upper-case section headings of contracts and notes.

Rule: a line is a heading when the whole line (trimmed, at most 100
characters) is one of

- ``ARTICLE IV`` / ``Article 4`` / ``ARTICLE 1 - DEFINITIONS`` → level 1;
- ``Section 2.3 Title`` / ``SECTION 5. TERM`` → level 1 + number of dots;
- a section number followed by an upper-case title: ``1. DEFINITIONS``,
  ``12 EXCUSABLE DELAY.``, ``4.2 Termination of Warranties`` is *not* one (the
  title must be upper case) → level 1 + number of dots (``1.`` is 1, ``1.1`` 2);
- an upper-case line of at least two words, standing between blank lines
  (``EXHIBIT A``, ``GENERAL TERMS``) → level 1 — unless it ends with a figure two
  spaces or more after its words (``NET PAY      1,689.75``, ``TOTAL DUE   $412.00``):
  that is a row of a table aligned with spaces, whose amounts belong to the text.

When a document has ``ARTICLE`` headings, numbered and ``Section`` headings
sit one level below them (``ARTICLE I › 1. DEFINITIONS``).

A line that ends like a table-of-contents entry (dot leaders or a trailing page
number after several spaces) is not a heading. Levels only order the
breadcrumb; a text without such lines is one section, split by paragraphs and
sentences when it is too long.
"""

from __future__ import annotations

import re

from osrag.chunking.markdown import Heading, Outline

__all__ = ["PARSER", "scan_plaintext"]

PARSER = "osrag-plaintext@2"

_MAX_LINE = 100
_ARTICLE = re.compile(r"(?:ARTICLE|Article)\s+(?:[IVXLC]+|[0-9]{1,3})\b\.?(?:\s*[-–—:.]?\s*(.*))?")
_SECTION = re.compile(r"(?:SECTION|Section)\s+([0-9]{1,3}(?:\.[0-9]{1,3})*)\.?(?:\s+(.*))?")
_NUMBERED = re.compile(r"([0-9]{1,3}(?:\.[0-9]{1,3})*)\.?\s+(.+)")
_TOC = re.compile(r"(?:\.\s*){3,}\S*\s*$|\s{2,}[0-9ivx]{1,4}\s*$")
_FIGURE_END = re.compile(r"\s{2,}\S{0,3}\(?\d[\d,]*(?:\.\d+)?\)?$")
"""A figure two spaces or more after the words: a space-aligned table's row."""
_RULE = re.compile(r"\s*[-=_]{3,}\s*$")
_LINE = re.compile(r"^[ \t]*(\S[^\n]*?)[ \t\r]*$", re.M)


def _upper_title(s: str) -> bool:
    letters = [ch for ch in s if ch.isalpha()]
    return len(letters) >= 3 and all(ch.isupper() for ch in letters)


def _heading(line: str, isolated: bool) -> tuple[int, str] | None:
    """``(level, kind)`` of a heading line (kind: article, numbered or caps), else ``None``."""
    if len(line) > _MAX_LINE or _TOC.search(line):
        return None
    m = _ARTICLE.fullmatch(line)
    if m:
        return 1, "article"
    m = _SECTION.fullmatch(line)
    if m and (m.group(2) is None or m.group(2)[:1].isupper()):
        return 1 + m.group(1).count("."), "numbered"
    m = _NUMBERED.fullmatch(line)
    if m:
        title = m.group(2)
        if _upper_title(title) and len(title.split()) <= 12:
            return 1 + m.group(1).rstrip(".").count("."), "numbered"
        return None
    if (
        isolated
        and _upper_title(line)
        and len(line.split()) >= 2
        and not line.endswith(",")
        and not _FIGURE_END.search(line)
    ):
        return 1, "caps"
    return None


def _clean(line: str) -> str:
    """Collapse runs of spaces and drop underline dashes: ``1.   TERM.   ----`` → ``1. TERM.``."""
    return _RULE.sub("", " ".join(line.split())).strip()


def scan_plaintext(text: str, start: int = 0) -> Outline:
    """Headings of ``text[start:]`` by the rule above (no atomic regions in plain text)."""
    found: list[tuple[int, str, str, int, int]] = []
    for m in _LINE.finditer(text, start):
        line = m.group(1)
        if len(line) > _MAX_LINE or not (line[0].isupper() or line[0].isdigit()):
            continue
        a = m.start()
        nl = text.find("\n", m.end())
        end = len(text) if nl < 0 else nl + 1
        heading = _heading(line, _blank_before(text, start, a) and _blank_after(text, end))
        if heading is not None:
            found.append((heading[0], heading[1], _clean(line), a, end))
    shift = 1 if any(kind == "article" for _, kind, _, _, _ in found) else 0
    headings = [
        Heading(level + (shift if kind == "numbered" else 0), title, a, end)
        for level, kind, title, a, end in found
    ]
    return Outline(headings, [])


def _blank_before(text: str, start: int, a: int) -> bool:
    if a <= start:
        return True
    prev = text.rfind("\n", start, a - 1) + 1
    return not text[max(prev, start) : a - 1].strip()


def _blank_after(text: str, end: int) -> bool:
    if end >= len(text):
        return True
    nl = text.find("\n", end)
    return not text[end : len(text) if nl < 0 else nl].strip()
