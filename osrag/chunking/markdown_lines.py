"""The tests the Markdown scanner applies to one line: may it open a block, and which.

CommonMark's block starts — indentation, blank lines, thematic breaks, list markers,
fences, ATX headings, the seven HTML block kinds, table delimiter rows — as pure
functions and compiled patterns; :mod:`osrag.chunking.markdown` walks the document
with them.
"""

from __future__ import annotations

import re
from functools import lru_cache

# What CommonMark (and JavaScript's ``trim``) strips around inline content.
TRIM = "\t\n\x0b\x0c\r \xa0\u1680\u202f\u205f\u3000\u2028\u2029" + "".join(
    chr(c) for c in range(0x2000, 0x200B)
)

# A line that may open a block: up to three spaces, then a character that can
# start an ATX heading, fence, HTML block, quote, list item, thematic break,
# setext underline, table row or link reference definition.
OPENER = r" {0,3}(?=[#`~<>*+\-_=|:\[0-9])"
EVENT_AT = re.compile(OPENER)
EVENT_NL = re.compile("\n" + OPENER)

UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")
ORDERED = re.compile(r"([0-9]{1,9})([.)])(?=[ \t]|$)")
FENCE = re.compile(r"(`{3,}|~{3,})(.*)", re.S)
DELIMITER_CELL = re.compile(r":?-+:?")
REFERENCE = re.compile(
    r"\[(?:[^\\\[\]]|\\.){1,999}\]:[ \t]*(?:<[^<>\n]*>|[^\s<][^\s]*)"
    r"(?:[ \t]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t]*"
)

BLOCK_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|"
    "details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|"
    "h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|"
    "noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|"
    "thead|title|tr|track|ul"
)
ATTRIBUTE = (
    r"(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*"
    r"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)"
)
OPEN_TAG = r"<[A-Za-z][A-Za-z0-9\-]*" + ATTRIBUTE + r"*\s*\/?>"
CLOSE_TAG = r"<\/[A-Za-z][A-Za-z0-9\-]*\s*>"
# (start, end or None for "ends before a blank line", may interrupt a paragraph)
HTML_BLOCKS: tuple[tuple[re.Pattern[str], re.Pattern[str] | None, bool], ...] = (
    (
        re.compile(r"<(?a:script|pre|style|textarea)(?=\s|>|$)", re.I),
        re.compile(r"</(?a:script|pre|style|textarea)>", re.I),
        True,
    ),
    (re.compile(r"<!--"), re.compile(r"-->"), True),
    (re.compile(r"<\?"), re.compile(r"\?>"), True),
    (re.compile(r"<![A-Za-z]"), re.compile(r">"), True),
    (re.compile(r"<!\[CDATA\["), re.compile(r"\]\]>"), True),
    (re.compile(r"</?(?a:" + BLOCK_NAMES + r")(?=\s|/?>|$)", re.I), None, True),
    (re.compile(r"(?:" + OPEN_TAG + "|" + CLOSE_TAG + r")\s*$"), None, False),
)


def line_indent(line: str, column: int = 0) -> tuple[int, int]:
    """The column after the leading indentation of ``line`` when it starts at ``column``
    (tabs to the next multiple of 4), and the indentation's length in characters."""
    cols = column
    i = 0
    for ch in line:
        if ch == " ":
            cols += 1
        elif ch == "\t":
            cols += 4 - cols % 4
        else:
            break
        i += 1
    return cols, i


def is_blank(line: str) -> bool:
    return not line.strip(" \t")


def is_hr(s: str) -> bool:
    marker = s[0]
    if marker not in "*-_":
        return False
    count = 0
    for ch in s:
        if ch == marker:
            count += 1
        elif ch not in " \t":
            return False
    return count >= 3


def list_marker(s: str) -> tuple[int, bool, int] | None:
    """``(width, ordered, start number)`` of a list marker opening ``s``, else ``None``."""
    c = s[0]
    if c in "-+*":
        if len(s) == 1 or s[1] in " \t":
            return 1, False, 0
        return None
    if "0" <= c <= "9":
        m = ORDERED.match(s)
        if m:
            return m.end(), True, int(m.group(1))
    return None


def fence(s: str) -> tuple[str, int] | None:
    m = FENCE.match(s)
    if not m:
        return None
    marks = m.group(1)
    if marks[0] == "`" and "`" in m.group(2):
        return None
    return marks[0], len(marks)


def atx_heading(s: str) -> tuple[int, str] | None:
    level = len(s) - len(s.lstrip("#"))
    if level == 0 or level > 6 or (level < len(s) and s[level] not in " \t"):
        return None
    end = len(s.rstrip(" \t"))
    if end <= level:
        return level, ""
    tail = end
    while tail > level and s[tail - 1] == "#":
        tail -= 1
    if tail > level and s[tail - 1] in " \t":
        end = tail
    return level, s[level:end].strip(TRIM)


def html_kind(s: str) -> int:
    """CommonMark HTML block kind 1–7 opening ``s``, or 0."""
    for kind, (opener, _end, _interrupts) in enumerate(HTML_BLOCKS, 1):
        if opener.match(s):
            return kind
    return 0


def escaped_split(s: str) -> list[str]:
    """Split a table row on ``|`` that is not backslash-escaped (as markdown-it does)."""
    if "\\" not in s:
        return s.split("|")
    cells: list[str] = []
    current: list[str] = []
    escaped = False
    for ch in s:
        if ch == "|" and not escaped:
            cells.append("".join(current))
            current = []
        elif ch == "|":
            current[-1] = "|"
        else:
            current.append(ch)
        escaped = ch == "\\"
    cells.append("".join(current))
    return cells


def delimiter_columns(s: str) -> int:
    """Column count of a table delimiter row ``s`` (after indentation), else 0."""
    if len(s) < 2 or s[0] not in "|-:" or (s[1] not in "|-: \t") or (s[0] == "-" and s[1] in " \t"):
        return 0
    if s.strip("|-: \t"):
        return 0
    cells = s.split("|")
    count = 0
    last = len(cells) - 1
    for i, cell in enumerate(cells):
        t = cell.strip(TRIM)
        if not t:
            if i == 0 or i == last:
                continue
            return 0
        if not DELIMITER_CELL.fullmatch(t):
            return 0
        count += 1
    return count


@lru_cache(maxsize=64)
def fence_close(marker: str, length: int) -> re.Pattern[str]:
    return re.compile("\n {0,3}" + re.escape(marker) + "{" + str(length) + r",}[ \t]*\r?(?=\n|\Z)")


@lru_cache(maxsize=64)
def outdented_pattern(width: int) -> re.Pattern[str]:
    """A line indented by fewer than ``width`` spaces that is not blank (tabs are checked)."""
    return re.compile("\n {0," + str(max(width - 1, 0)) + r"}(?=[^ \r\n])")
