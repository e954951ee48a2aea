"""The Markdown heading scanner: where a Markdown document may be cut.

Rule: a *heading* is an ATX heading (``#`` … ``######``) or a setext heading
(a paragraph underlined with ``===`` or ``---``) at the **top level** of the
document, exactly as CommonMark defines them. A ``#`` line inside a fenced or
indented code block, an HTML block, a table or a paragraph continuation is not
a heading. Headings nested inside a list item or a block quote are content of
that container, not section cuts (a cut there would split the list or quote).

Invariant (tested on every ``.md`` file of ``shared/corpora/opensearch-docs``
and on generated snippets): ``(line, level, text)`` of every heading found
equals the top-level ``heading_open`` tokens of markdown-it-py
``MarkdownIt("commonmark").enable("table")`` on the same text, with
``text`` the heading's inline content as markdown-it reports it.

Why not a parser library on the hot path: markdown-it-py parses at ≈2–4 MB/s;
pyromark's ranged events alone run at ≈35–50 MB/s and report byte offsets;
markdown-it-pyrs panics on files of this corpus. This scanner only visits the
lines that can open a block (one compiled regex finds them) and jumps over code
blocks, HTML blocks, tables and containers: ≈55–60 MB/s against ≈2 MB/s for
markdown-it-py on the same machine (``benchmarks/chunking.py``), and exact for
headings.

Containers are followed as markdown-it does: a list item or block quote runs
until a line that is outdented (or not quoted) and not a lazy continuation;
whether a line is lazy is decided by scanning the container's inside
recursively (only when such a line occurs). The generated-snippet test mixes
ATX and setext headings, fences, indented code, the seven HTML block kinds,
tables, lists, quotes and reference definitions (150,000 examples agreed when
this was written; the suite runs 3,000).

Known limits (outside the tested subset): a lone ``\\r`` is not a line break
(``\\n`` and ``\\r\\n`` are); a link reference definition is only recognised
when it fits on one line; tabs right after a quote marker are approximated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from osrag.chunking.markdown_lines import (
    EVENT_AT,
    EVENT_NL,
    HTML_BLOCKS,
    REFERENCE,
    TRIM,
    UNDERLINE,
    atx_heading,
    delimiter_columns,
    escaped_split,
    fence,
    fence_close,
    html_kind,
    is_blank,
    is_hr,
    line_indent,
    list_marker,
    outdented_pattern,
)

__all__ = ["PARSER", "Heading", "Outline", "scan_markdown"]

PARSER = "osrag-markdown@1"
"""``name@version`` of this scanner, recorded on every chunk it cut."""


class Heading(NamedTuple):
    """A top-level heading: ``[start, end)`` covers its line(s), newline included."""

    level: int
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Outline:
    """What the scanner found: headings, and regions that must not be cut inside."""

    headings: list[Heading]
    atomic: list[tuple[int, int]]
    """Fenced code blocks, HTML blocks and tables, as ``[start, end)`` offsets."""


def scan_markdown(text: str, start: int = 0) -> Outline:
    """Find the top-level headings of ``text[start:]`` (``start`` must begin a line)."""
    scanner = _Scanner(text, start)
    scanner.run()
    return Outline(scanner.headings, scanner.atomic)


_EMPTY_LINE = re.compile(r"\n[ \t]*\r?(?=\n|\Z)")


class _Scanner:
    """One pass over the lines that can open a block; everything else is jumped over."""

    def __init__(self, text: str, start: int = 0) -> None:
        self.text = text
        self.start = start
        self.end = len(text)
        self.headings: list[Heading] = []
        self.atomic: list[tuple[int, int]] = []
        self.block_end = start
        """Lines before this offset belong to blocks that cannot continue a paragraph."""
        self.container: tuple[str, int, str, int] | None = None
        """The last block when it is a list item or quote: what rebuilds its inside."""
        self.quote_content: list[str] = []
        """The inside of the last block quote (markers removed, lazy lines indented)."""

    # -- line helpers -------------------------------------------------------------
    def _next(self, pos: int) -> int:
        nl = self.text.find("\n", pos)
        return self.end if nl < 0 else nl + 1

    def _prev(self, pos: int) -> int:
        nl = self.text.rfind("\n", self.start, pos - 1)
        return self.start if nl < 0 else nl + 1

    def _line(self, pos: int) -> str:
        nl = self.text.find("\n", pos)
        line = self.text[pos:] if nl < 0 else self.text[pos:nl]
        return line[:-1] if line[-1:] == "\r" else line

    def _line_next(self, pos: int) -> tuple[str, int]:
        """The line at ``pos`` (without its line break) and where the next line starts."""
        nl = self.text.find("\n", pos)
        if nl < 0:
            line, nxt = self.text[pos:], self.end
        else:
            line, nxt = self.text[pos:nl], nl + 1
        return (line[:-1] if line[-1:] == "\r" else line), nxt

    def _next_looks_like_delimiter(self, nxt: int) -> bool:
        """Cheap pre-check before :meth:`_table_at`: can the line at ``nxt`` be a delimiter row?"""
        head = self.text[nxt : nxt + 5].lstrip(" ")
        first = head[:1]
        if first == "|" or first == ":":
            return True
        return first == "-" and head[1:2] in ("|", "-", ":")

    # -- paragraph state ----------------------------------------------------------
    def _paragraph_before(self, pos: int) -> bool:
        """Is a top-level paragraph open on the line just before ``pos``?"""
        while pos > self.block_end:
            prev = self._prev(pos)
            line = self._line(prev)
            if is_blank(line):
                return False
            if line_indent(line)[0] < 4:
                return True
            pos = prev  # an indented line continues a paragraph, else it is code
        return False

    def _paragraph_start(self, pos: int) -> int:
        first = pos
        while pos > self.block_end:
            prev = self._prev(pos)
            line = self._line(prev)
            if is_blank(line):
                break
            if line_indent(line)[0] < 4:
                first = prev
            pos = prev
        return first

    # -- block rules --------------------------------------------------------------
    def _table_at(self, pos: int, base: int = 0) -> int:
        """End of a table whose header row starts at ``pos``, or 0 when there is none.

        ``base`` is the block indent the rows are measured from (a list item's
        content indent when the header would be a lazy line of that item).
        """
        header, nxt = self._line_next(pos)
        if nxt >= self.end or "|" not in header:
            return 0
        hcols, hi = line_indent(header)
        if hcols - base >= 4:
            return 0
        delim = self._line(nxt)
        dcols, di = line_indent(delim)
        if dcols < base or dcols - base >= 4:
            return 0
        count = delimiter_columns(delim[di:])
        if not count:
            return 0
        row = header[hi:].strip(TRIM)
        if "|" not in row:
            return 0
        cells = escaped_split(row)
        if cells and cells[0] == "":
            cells.pop(0)
        if cells and cells[-1] == "":
            cells.pop()
        if len(cells) != count:
            return 0
        pos = self._next(nxt)
        while pos < self.end:
            line, after = self._line_next(pos)
            if self._interrupts(pos, table=False, line=line):
                break
            if not line.strip(TRIM) or line_indent(line)[0] >= 4:
                break
            pos = after
        return pos

    def _interrupts(
        self, pos: int, *, table: bool, lazy_width: int = 0, line: str | None = None
    ) -> bool:
        """Does the line at ``pos`` end a paragraph, table or quote (start a block)?

        ``lazy_width`` > 0: the line is a candidate lazy continuation of a list item
        with that content indent (code-block indentation is then relative to it).
        """
        if line is None:
            line = self._line(pos)
        cols, i = line_indent(line)
        if cols >= 4 and not lazy_width:
            return False
        s = line[i:]
        if not s:
            return False
        c = s[0]
        if table and "|" in s and self._table_at(pos, lazy_width):
            return True
        if c in "`~":
            return fence(s) is not None
        if c == ">":
            return True
        if c in "*-_" and is_hr(s):
            return True
        if c in "-+*0123456789" and list_marker(s) is not None:
            return cols < 4
        if c == "<":
            kind = html_kind(s)
            return 0 < kind < 7
        if c == "#":
            return atx_heading(s) is not None
        return False

    def _html_end(self, pos: int, s_offset: int, kind: int) -> int:
        end_pattern = HTML_BLOCKS[kind - 1][1]
        if end_pattern is None:
            m = _EMPTY_LINE.search(self.text, pos)
            return self.end if m is None else m.start() + 1
        m = end_pattern.search(self.text, s_offset)
        return self.end if m is None else self._next(m.start())

    def _fence_end(self, pos: int, marker: str, length: int) -> int:
        m = fence_close(marker, length).search(self.text, self._next(pos) - 1)
        return self.end if m is None else self._next(m.start() + 1)

    # -- containers ---------------------------------------------------------------
    def _item_end(self, pos: int, line: str, nxt: int, marker_end: int) -> int:
        """First line after the list item opening at ``pos`` (markdown-it's rule)."""
        text = self.text
        end = self.end
        # content indent W: marker, then 1–4 columns of spaces (5+ means code: 1)
        after = line[marker_end:]
        if after[:1] == " " and after[1:2] not in (" ", "\t", ""):
            offset = content_indent = marker_end + 1  # the common "- item" / "1. item"
            k = 1
            empty = False
        else:
            initial = marker_end  # the marker line is indented by spaces only
            offset, k = line_indent(after, initial)
            empty = k >= len(after)
            step = 1 if empty else offset - initial
            content_indent = initial + (1 if step > 4 else step)
            if empty and (nxt >= end or is_blank(self._line(nxt))):
                self.container = None
                return self._next(nxt) if nxt < end else end
        first = "" if empty else " " * max(offset - content_indent, 0) + after[k:]
        self.container = ("item", pos, first, content_indent)
        outdented = outdented_pattern(content_indent)
        lazy_until = -1
        p = nxt
        while p < end:
            m = outdented.search(text, p - 1)
            if m is None:
                return end
            cand = m.start() + 1
            cline, p = self._line_next(cand)
            if is_blank(cline) or line_indent(cline)[0] >= content_indent:
                continue
            if (cand >= 2 and text[cand - 2] == "\n") or is_blank(self._line(self._prev(cand))):
                return cand  # after a blank line, an outdented line ends the item
            if self._interrupts(cand, table=True, lazy_width=content_indent, line=cline):
                return cand
            if cand != lazy_until:  # item lines since the last lazy line: look again
                content = self._item_content(pos, cand, first, content_indent)
                if not _ends_in_paragraph(content):
                    return cand
            lazy_until = p  # a lazy line keeps the paragraph open for the next line
        return end

    def _item_content(self, pos: int, stop: int, first: str, indent: int) -> str:
        lines = [first]
        p = self._next(pos)
        while p < stop:
            line = self._line(p)
            cols, i = line_indent(line)
            if is_blank(line):
                lines.append("")
            elif cols >= indent:
                lines.append(" " * (cols - indent) + line[i:])
            else:  # an earlier lazy line: keep it a paragraph continuation
                lines.append("    " + line[i:])
            p = self._next(p)
        return "\n".join(lines) + "\n"

    def _quote_end(self, pos: int) -> int:
        """First line after the block quote opening at ``pos`` (markdown-it's rule)."""
        content: list[str] = []
        self.container = ("quote", pos, "", 0)
        self.quote_content = content
        last_empty = False
        paragraph_known_open = False
        p = pos
        while p < self.end:
            line = self._line(p)
            if is_blank(line):
                return p
            cols, i = line_indent(line)
            if cols < 4 and line[i] == ">":
                rest = line[i + 1 :]
                if rest[:1] == " ":
                    rest = rest[1:]
                elif rest[:1] == "\t":
                    rest = "  " + rest[1:]  # a tab after ">" counts as 1 space + the rest
                content.append(rest)
                last_empty = is_blank(rest)
                paragraph_known_open = False
            else:
                if last_empty or self._interrupts(p, table=False):
                    return p
                if not paragraph_known_open and not _ends_in_paragraph("\n".join(content) + "\n"):
                    return p
                paragraph_known_open = True
                content.append("    " + line[i:])
            p = self._next(p)
        return self.end

    # -- the pass -----------------------------------------------------------------
    def run(self) -> None:
        text = self.text
        end = self.end
        pos = self.start
        event_at = EVENT_AT.match
        event_nl = EVENT_NL.search
        while pos < end:
            if event_at(text, pos) is None:
                m = event_nl(text, pos)
                if m is None:
                    return
                pos = m.start() + 1
            pos = self._event(pos)

    def _event(self, pos: int) -> int:
        """Handle the line at ``pos``; return where scanning continues."""
        line, nxt = self._line_next(pos)
        s = line.lstrip(" ")
        if not s:
            return nxt
        c = s[0]

        # a table whose header is the (unvisited) line before this delimiter row
        if c in "|-:" and pos > self.block_end:
            prev = self._prev(pos)
            if prev >= self.block_end and EVENT_AT.match(self.text, prev) is None:
                table_end = self._table_at(prev)
                if table_end:
                    return self._block(prev, table_end, atomic=True)
        if "|" in s and nxt < self.end and self._next_looks_like_delimiter(nxt):
            table_end = self._table_at(pos)
            if table_end:
                return self._block(pos, table_end, atomic=True)
        if c == "#":
            atx = atx_heading(s)
            if atx is not None:
                self.headings.append(Heading(atx[0], atx[1], pos, nxt))
                self.block_end = nxt
                self.container = None
            return nxt

        if c in "=-" and UNDERLINE.fullmatch(s) and self._paragraph_before(pos):
            first = self._paragraph_start(pos)
            content = self.text[first : pos - 1].replace("\r\n", "\n")
            if content.endswith("\r"):
                content = content[:-1]
            level = 1 if c == "=" else 2
            self.headings.append(Heading(level, content.strip(TRIM), first, nxt))
            return self._block(first, nxt)
        if c in "`~":
            f = fence(s)
            if f is not None:
                return self._block(pos, self._fence_end(pos, *f), atomic=True)
            return nxt
        if c == ">":
            return self._container(self._quote_end(pos))
        if c in "*-_" and is_hr(s):
            return self._block(pos, nxt)
        if c in "-+*0123456789":
            marker = list_marker(s)
            if marker is not None:
                width, ordered, number = marker
                rest = s[width:]
                empty = is_blank(rest)
                if self._paragraph_before(pos) and (empty or (ordered and number != 1)):
                    return nxt  # cannot interrupt a paragraph: paragraph text
                return self._container(self._item_end(pos, line, nxt, len(line) - len(s) + width))
            return nxt
        if c == "[":
            if REFERENCE.fullmatch(s) and not self._paragraph_before(pos):
                return self._block(pos, nxt)
            return nxt
        if c == "<":
            kind = html_kind(s)
            if kind and (kind < 7 or not self._paragraph_before(pos)):
                start_of_tag = pos + len(line) - len(s)
                return self._block(pos, self._html_end(pos, start_of_tag, kind), atomic=True)
            return nxt
        return nxt

    def _block(self, start: int, end: int, *, atomic: bool = False) -> int:
        if atomic:
            self.atomic.append((start, end))
        self.block_end = end
        self.container = None
        return end

    def _container(self, end: int) -> int:
        """Close a list item or quote (its ``self.container`` is kept for the tail check)."""
        self.block_end = end
        return end


def _ends_in_paragraph(content: str) -> bool:
    """Is a paragraph still open at the end of ``content`` (a container's inside)?

    When the content ends inside a nested list item or quote, the answer is that
    container's: a lazy line continues the innermost open paragraph.
    """
    scanner = _Scanner(content)
    scanner.run()
    end = len(content)
    if scanner.block_end >= end and scanner.container is not None:
        kind, pos, first, indent = scanner.container
        if kind == "item":
            return _ends_in_paragraph(scanner._item_content(pos, end, first, indent))
        return _ends_in_paragraph("\n".join(scanner.quote_content) + "\n")
    return scanner._paragraph_before(end)
