"""Write a document's extracted structure as Markdown-like text, with its location map.

Rule: every loader hands its blocks to one :class:`TextWriter`, which writes
the text the structural chunker already understands:

- a heading of level ``n`` is one line ``#``×n + space + the heading text (levels
  clamped to 1–6), so breadcrumbs come from the document's own structure;
- a paragraph, list item or table is a *block*; blocks are separated by one
  blank line, lines inside a block by ``\\n``; a list item keeps its marker
  (``- ``) and nesting (two spaces a level), and the items of one list follow
  each other line by line (one block), so lists stay intact;
- a table is one block, one line per row (:func:`table_lines`): the header
  row as its cells joined by `` | ``, then each data row with its header
  context — ``Umbrella — Limit: $300,000; Deductible: $1,000`` — so a row cut
  away from its table by an oversize split still says what its amounts are,
  and the amount is in the same chunk as the words that name it;
- text is escaped so it cannot become Markdown structure it was not: a line
  that would open an ATX heading, a setext underline, a code fence or an HTML
  block gets a leading backslash (``\\# of items``), so the only headings
  are the ones the loader wrote.

Each block is written while a *unit* is open (a PDF page, a DOCX/HTML
element); the writer records the ``[start, end)`` of each unit's text, which
becomes the :class:`~osrag.schema.locations.LocationMap` (offsets in code points of
the extracted text).

Why Markdown rather than a second chunker: headings, tables kept whole,
sentence splitting and the span invariant all come from the chunker that is
already tested on three corpora; a loader only has to say what is a heading,
a paragraph and a table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from osrag.loaders.limits import OverLimit
from osrag.schema.locations import LocationMap

__all__ = ["TextWriter", "clean_inline", "escape_line", "table_lines"]

# A line the Markdown scanner would read as structure: an ATX heading, a setext
# underline or thematic break, a code fence, an HTML block, a block quote.
_STRUCTURAL = re.compile(r" {0,3}(?:#|=+\s*$|-+\s*$|`{3}|~{3}|<|>)")
_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_STRAY_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff\ufffe\uffff\u200b]")


def clean_inline(text: str) -> str:
    """One line of text: control characters dropped, runs of spaces collapsed, trimmed."""
    text = _STRAY_CONTROL.sub("", text.replace("\r", " ").replace("\n", " "))
    return _SPACES.sub(" ", text).strip()


def escape_line(line: str) -> str:
    """``line`` with a leading backslash when it would otherwise be Markdown structure."""
    return "\\" + line.lstrip() if _STRUCTURAL.match(line) else line


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """A table as lines: header cells joined by `` | ``, then each row with its header context.

    ``rows`` are cell texts, merged cells already repeated into each grid column
    they cover. The first row is the header when the table has at least two rows
    and two columns; a data row is written ``first cell — Header: cell; …``, a cell
    that repeats its left neighbour (a merged cell) or is empty is left out, and a
    row whose first cell is empty starts with its first named cell. Tables of one
    row or one column are written as rows of cells joined by `` | ``.
    """
    cleaned = [[clean_inline(c) for c in row] for row in rows]
    rows = [row for row in cleaned if any(row)]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    if len(rows) < 2 or width < 2:
        return [" | ".join(_dedupe(row)) for row in rows]
    header = [*rows[0], *[""] * (width - len(rows[0]))]
    lines = [" | ".join(_dedupe(header))]
    for cells in rows[1:]:
        row = [*cells, *[""] * (width - len(cells))]
        label = row[0]
        parts: list[str] = []
        for i in range(1, width):
            cell = row[i]
            if not cell or (cell == row[i - 1] and header[i] == header[i - 1]):
                continue
            name = header[i]
            parts.append(f"{name}: {cell}" if name and name != cell else cell)
        if label and parts:
            lines.append(f"{label} — {'; '.join(parts)}")
        elif parts:
            lines.append("; ".join(parts))
        elif label:
            lines.append(label)
    return lines


def _dedupe(cells: Sequence[str]) -> list[str]:
    """Cells without empty ones and without a merged cell's repeats."""
    out: list[str] = []
    for cell in cells:
        if cell and (not out or out[-1] != cell):
            out.append(cell)
    return out


class TextWriter:
    """Accumulates headings and blocks; :meth:`finish` gives the text and the location map."""

    def __init__(self, unit: Literal["page", "element"], max_chars: int | None = None) -> None:
        self.unit = unit
        self.max_chars = max_chars
        """Characters of text written at most (:class:`~osrag.loaders.limits.OverLimit` past it)."""
        self._parts: list[str] = []
        self._length = 0
        self._numbers: list[int] = []
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._open: int | None = None
        self._open_start = -1
        self._open_end = -1
        self.headings = 0
        self._last_kind = ""

    # ------------------------------------------------------------------ units

    def open_unit(self, number: int) -> None:
        """Text written from now on belongs to unit ``number`` (closing the open one)."""
        self.close_unit()
        self._open = number
        self._open_start = self._open_end = -1

    def close_unit(self) -> None:
        if self._open is not None and self._open_start >= 0:
            self._numbers.append(self._open)
            self._starts.append(self._open_start)
            self._ends.append(self._open_end)
        self._open = None

    # ------------------------------------------------------------------ writing

    def _write(self, text: str, kind: str = "block") -> None:
        """Write one block after a blank line (a list item right after another: a newline)."""
        if self._length:
            separator = "\n" if kind == "list" and self._last_kind == "list" else "\n\n"
            self._parts.append(separator)
            self._length += len(separator)
        self._last_kind = kind
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        if self.max_chars is not None and self._length > self.max_chars:
            raise OverLimit("max_text_chars", self.max_chars, "the extracted text:")
        if self._open is not None:
            if self._open_start < 0:
                self._open_start = start
            self._open_end = self._length

    def heading(self, level: int, text: str) -> bool:
        """Write a heading line; ``False`` (nothing written) when ``text`` is blank."""
        text = clean_inline(text)
        if not text:
            return False
        self._write("#" * min(max(level, 1), 6) + " " + text.replace("#", "\\#"))
        self.headings += 1
        return True

    def block(self, lines: Sequence[str]) -> bool:
        """Write a paragraph (its lines kept as lines); ``False`` when it is blank."""
        kept = [escape_line(s) for s in (clean_inline(line) for line in lines) if s]
        if not kept:
            return False
        self._write("\n".join(kept))
        return True

    def list_item(self, text: str, depth: int = 0, marker: str = "-") -> bool:
        text = clean_inline(text)
        if not text:
            return False
        self._write("  " * depth + f"{marker} " + text, "list")
        return True

    def table(self, rows: Sequence[Sequence[str]]) -> bool:
        lines = table_lines(rows)
        if not lines:
            return False
        self._write("\n".join(escape_line(line) for line in lines))
        return True

    @property
    def length(self) -> int:
        return self._length

    def finish(self, loader: str, units_total: int = 0) -> tuple[str, LocationMap]:
        self.close_unit()
        text = "".join(self._parts)
        if text:
            text += "\n"
        return text, LocationMap(
            unit=self.unit,
            numbers=tuple(self._numbers),
            starts=tuple(self._starts),
            ends=tuple(self._ends),
            loader=loader,
            units_total=units_total,
        )
