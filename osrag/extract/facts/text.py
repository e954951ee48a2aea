"""What an amount written outside a table measures: a heading, a key–value line, prose.

Read from the amount's line and sentence, in this order (the first that applies):

0. **An item of a table's cell** (source ``table``): in a row of a Markdown table or of a
   table as the loaders write it, an amount a short key names in its own item of a cell
   (``Each occurrence $4,000,000; Aggregate $4,000,000`` under "Limits") is labelled
   ``Row — Column — Key`` (:func:`_item_label`); any other amount in a Markdown table's
   cell, its row and column (:func:`_pipe_row_place`).

1. **Heading** (a Markdown ``#`` line): source ``heading``; the label is the key when the
   heading is written ``Key: $500`` / ``Key — $500``, else none.
2. **An item line** (source ``key``): a line naming an item, a count, a rate and the
   extended total ("Storage in transit, 30 days at $45.00 per day: $1,350.00"): both
   amounts take the item's name (:mod:`osrag.extract.facts.items`).
3. **Key–value** (source ``key``): the line before the amount is a key and a separator —
   ``Deductible: $500``, ``- Deductible: $500``, ``**Annual premium:** $450``, ``Annual
   premium ..... $450``, ``Limit — $1,000,000``, ``Deductible = $500`` — or a short key with
   nothing after the amount but a qualifier (``Each occurrence limit $1,000,000``,
   ``Deductible $500 per claim``), also as an item of a list that semicolons part (``Each
   occurrence $1,000,000; General aggregate $2,000,000; Med exp (any one person) $5,000``:
   the short key after a semicolon; a list wrapped over lines is read as one); or a
   definition (``“Deductible” means $500``). Later
   amounts on a key's line take the key unless the prose rule names their own quantity.
4. **Prose** (source ``prose``): the noun phrase the sentence states the amount of —
   through its link ("a deductible **of** $500", "total revenues **were** $5.2 million",
   "coverage **in an amount not less than** $2,000,000"), right after it ("a $500
   deductible", "$5.2 million in revenue"), a defined term ("(the "Loan")"), a change
   ("revenue **increased** $0.3 million": the increase), a list's item after a colon —
   read by :mod:`osrag.extract.facts.prose`, which states its rules. A sentence wrapped
   over lines is read as one (a line break inside a paragraph is a space). The same
   quantity restated for a comparison — ``compared with $4.8 million``, ``from $4.8
   million``, ``(2018: £56.5m)``, ``$5.2 million and $4.8 million … respectively`` —
   takes the label of the amount it is compared with, in the same sentence. An amount
   still unlabelled takes its section heading when the heading names a quantity
   (:mod:`osrag.extract.facts.sections`, applied by :mod:`~osrag.extract.facts.build`).
   No label where the sentence names none; never guessed.

An amount in brackets right after a share or a count it restates ("A deposit of 30%
**($6,592.50)** is due", "Retention 5% **(€2,400)**") that 3 and 4 leave unlabelled is
read again as if the share were not written: the deposit's, the retention's — from the
words before it only (a clause after it names no share: "About 30% ($6,592.50) went
unpaid" stays unlabelled).

**Period** (prose and key): a year stated in the amount's own clause (the comma-separated
part of its sentence; ``in 2019``, ``fiscal 2019``, ``December 31, 2019``, ``Q3 2019``) — the
one right after the amount first, else the nearest before it in the clause, else an
introductory clause of the sentence that states a year and no amount (``In 2019, revenue
was $5.2 million``); ``$5.2 million and $4.8 million in 2019 and 2018, respectively`` pairs
them in order; ``(2018: £56.5m)`` is 2018. A heading's amount has no period.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from osrag.extract.facts.items import ItemPlace, item_of_line
from osrag.extract.facts.labels import clean_label
from osrag.extract.facts.periods import split_period
from osrag.extract.facts.prose import prose_label
from osrag.extract.facts.table import loader_header
from osrag.extract.marks import LIST_BULLET, SHARE
from osrag.extract.money import may_state_money
from osrag.lexicon.bounds import CELL_CHARS, shorten
from osrag.lexicon.function_words import (
    ALL_PREPOSITIONS,
    BOUNDARY_WORDS,
    CARDINALS,
    DETERMINERS,
    HEDGES,
    PRONOUNS,
    SENTENCE_VERBS,
    USUALLY,
)
from osrag.lexicon.keys import COLUMN_JOIN, qualifies_nothing
from osrag.lexicon.label_roles import CHARGE_LIMITS, NOTE_LEADS
from osrag.lexicon.links import STATED_LINK, alternation
from osrag.lexicon.periods import (
    DAY,
    MAY_NAME_A_YEAR,
    MONTH,
    PERIOD_UNITS,
    RATE_INTRO,
    RATE_UNITS,
    STATED_PERIOD,
    YEAR_WRITTEN,
    period_written,
    stated_year,
)
from osrag.lexicon.quantities import is_quantity_noun

__all__ = ["TextPlace", "read_text_place"]

_ATX_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")
_VALUE_LEADS = (
    alternation(
        HEDGES
        | USUALLY
        | CHARGE_LIMITS
        | {"up to", "of", "at", "approx.", "about", "from", "between"}
    ).replace(r"\ ", r"\s+")
    + r"|max\.?|min\.?"
)
"""Words that may open a key's value before its amount ("Repair: **between** $350 and $800",
"Cutout: **typically** $350–$800", "Cover: **up to** $2,000", "Charge: **minimum** $50"):
the hedges, the usual, a charge's limits, a range's opening."""
_KEY_SEPARATOR = re.compile(
    r"^(?P<key>.{1,80}?)[ \t]*(?::|\.{2,}|…+|[ \t][-–—]{1,2}|=|\|)[ \t]*"
    rf"(?P<lead>(?:(?:{_VALUE_LEADS}|per\s+\w+)\s+)*)$",
    re.IGNORECASE,
)
_KEY_PREFIX = re.compile(r"(?P<key>[^:\n]{1,80}?)[ \t]*(?::|\.{2,}|…+|[ \t][-–—]{1,2}|=)[ \t]")
"""The key at the start of a key–value line (its later amounts take it)."""
_DEFINITION = re.compile(
    r"^\s*(?:the\s+term\s+)?[\"“]?(?P<key>[^\"”\n]{1,60}?)[\"”]?\s+"
    r"(?:means|shall\s+mean|is\s+defined\s+as|refers\s+to)\b(?P<rest>[^.;]*)$",
    re.IGNORECASE,
)
_QUALIFIER_AFTER = re.compile(
    r"(?i)^\s*(?:" + RATE_INTRO + r"\s+[\w-]+(?:\s+[\w-]+)?|annually|monthly|yearly|"
    r"/\s*[\w-]+|\([^)]{0,60}\)|aggregate|in\s+(?:total|aggregate))?\s*[;,]?\s*$"
)
_DESCRIBED_AT_END = re.compile(r"\s(?![a-z]+ed\s)[\w'’-]+\s+at[ \t]+$")
"""The description of a key's value ends in *at* right before the amount (a participle
before it, "estimated at", "billed at", is the prose's to read)."""


def _priced_item_key(text: str, at: int, before: str) -> str | None:
    """The key of the line of the amount at ``at`` whose value describes what it prices by
    *at* ("Crew and truck: 3 movers + 26 ft truck at $165.00 per hour"): no remark
    ("Note: …"), no sentence (a pronoun, a verb) in the description, no table's row (a
    column joined to it)."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    key = line_key(text, at)
    if (
        key is None
        or COLUMN_JOIN in text[line_start : line_end if line_end >= 0 else len(text)]
        or NOTE_LEADS & set(key.lower().split())
    ):
        return None
    words = {w.lower() for w in _WORD.findall(text[line_start:at])}
    return None if words & (PRONOUNS | SENTENCE_VERBS) else key


_QUALIFIED_KEY = re.compile(r"(?P<name>[^,]{1,60}),[ \t]+(?:[a-z][a-z]*(?:ed|able|ible)|due)\s")
"""A key's name, then a comma and a participle's clause qualifying it ("Gate deposit,
refunded when the fob is returned", "Pet fee, payable with the first month's rent")."""
_PARENTHESIS = re.compile(r"\([^()]*\)")
_MONTH_AND_DAY = re.compile(
    rf"(?i)\b(?:(?-i:(?=[A-Z])){MONTH}\s+{DAY}|{DAY}\s+(?-i:(?=[A-Z])){MONTH})\b"
)
"""A date of a month and a day, its month capitalised ("May 1", "1 May")."""
_WORD = re.compile(r"[A-Za-z][\w'’&/-]*")

_COMPARED = re.compile(
    r"(?i)(?:compared\s+(?:with|to)|as\s+compared\s+(?:with|to)|versus|vs\.?|"
    r"(?:up|down)?\s*from|against|and)\s+(?:approximately\s+|about\s+)?$"
)
_PRIOR_YEAR = re.compile(rf"(?i)\(\s*(?P<period>{YEAR_WRITTEN})\s*:\s*$")
"""A prior year's figure in parentheses: ``(2018: £56.5m)``, ``(FY18: $4.1m)``."""
_SENTENCE_OR_CLAUSE_END = re.compile(r"[.!?](?=\s+[A-Z(“\"])|[;\n]")
_CLAUSE_SPLIT = re.compile(r",(?!\s*(?:19|20)\d\d)|\s[–—]\s|\(|\)")
_LAST_SENTENCE_END = re.compile(r".*(?:[.!?](?=\s+[A-Z(“\"])|;)", re.S)
"""Up to the last sentence boundary (one match instead of a loop over them all)."""
_LAST_CLAUSE_SPLIT = re.compile(r".*(?:,(?!\s*(?:19|20)\d\d)|\s[–—]\s|\(|\))", re.S)


@dataclass(frozen=True, slots=True)
class TextPlace:
    """What an amount outside a table measures, and where its label came from."""

    source: str
    label: str | None
    period: str | None
    year: int | None
    inherits: bool = False
    """The label is the previous amount's in the sentence (a comparison, a restatement)."""
    read_after: bool = False
    """The label was read after the amount ("$128,000 – $156,000 **base**"): a list's
    later amount takes the earlier one's label instead."""
    item: ItemPlace | None = None
    """The amount is an item line's rate or extended total (the count's unit is read)."""


def read_text_place(text: str, start: int, end: int, amounts_before: int) -> TextPlace:
    """The place of the amount ``text[start:end]``; ``amounts_before``: how many amounts
    stand earlier in its sentence (a comparison refers to one of them)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    # every rule reads a bounded window around the amount: a long paragraph costs no more
    window_start = max(line_start, start - _WINDOW)
    whole_line = window_start == line_start  # a key or a cell needs its line's start
    before = _unmarked_end(text[window_start:start])
    after = _unmarked_start(text[end : min(line_end, end + _WINDOW)])
    if whole_line and before.lstrip().startswith("|"):
        return _pipe_row_place(text, line_start, before, after)
    if " — " in text[line_start:start]:
        item = _loader_row_item(text, line_start, start, after)
        if item is not None:
            return TextPlace("table", item, None, None)
    heading = _ATX_HEADING.match(before) if whole_line else None
    if heading is not None:
        return TextPlace("heading", _key_of(before[heading.end() :], after), None, None)
    period, year = _period(text, start, end, window_start, min(line_end, end + _WINDOW))
    prior = _PRIOR_YEAR.search(before, max(0, len(before) - 16))
    if prior is not None and amounts_before:
        return TextPlace("prose", None, prior["period"], stated_year(prior), inherits=True)
    if whole_line:
        line_item = item_of_line(text[line_start:line_end], start - line_start)
        if line_item is not None:
            return TextPlace("key", line_item.name, period, year, item=line_item)
    place = _key_or_prose(text, line_start, line_end, before, after, whole_line, amounts_before)
    if place.label is None and not place.inherits and whole_line:
        wrapped = _wrapped_key(text, line_start)
        if wrapped is not None:
            return TextPlace("key", wrapped, period, year)
    place = TextPlace(place.source, place.label, period, year, place.inherits, place.read_after)
    restated = _RESTATED.search(before, max(0, len(before) - 60))
    if place.inherits or restated is None:
        return place
    if place.label is not None and restated["measure"] is None:
        return place
    closed = _CLOSED.match(after)
    if closed is None:
        return place
    # "A deposit of 30% ($6,592.50) is due": the amount restates the share before it — it
    # is the deposit's, read as if the share were not written; so is a measure of another
    # figure ("a cancellation charge of two weeks' rent ($900.00)": the charge, not rent)
    unwritten = _key_or_prose(
        text, line_start, line_end, before[: restated.start()].rstrip() + " ",
        after[closed.end() :], whole_line, amounts_before,
    )  # fmt: skip
    if unwritten.label is None or unwritten.read_after:
        return place  # a name after the amount ("went unpaid") is not the share's phrase
    return TextPlace(unwritten.source, unwritten.label, period, year, False, unwritten.read_after)


_MEASURE_UNITS = frozenset(PERIOD_UNITS.values()) - frozenset(RATE_UNITS.values())
"""The units of time a measure of another figure counts ("one **month**'s rent")."""
_RESTATED = re.compile(
    rf"(?i)(?<![\w.,$€£¥₹])(?:{SHARE}|"
    r"\d[\d,]*(?:\.\d+)?(?:\s+[a-z][\w'’-]*){1,2}|"
    rf"(?P<measure>(?:an?|one|{alternation(CARDINALS)}|\d+)\s+(?:{alternation(_MEASURE_UNITS)})"
    r"s?['’]s?(?:\s+[a-z][\w'’-]*){1,3}))\s*\(\s*$"
)
"""A share (``30%``, ``10 percent``), a count (``3 nights``) or a measure of another
figure (``one month's contract price``, ``two weeks' rent``) and the parenthesis that
opens the amount restating it."""
_CLOSED = re.compile(r"\s*\)")


def _key_or_prose(
    text: str,
    line_start: int,
    line_end: int,
    before: str,
    after: str,
    whole_line: bool,
    amounts_before: int,
) -> TextPlace:
    """The key–value (3) or prose (4) reading of the amount between ``before`` and
    ``after`` (module docstring); its period is the caller's."""
    key = _key_of(before, after) if whole_line and len(before) <= _KEY_LINE else None
    if key is not None:
        return TextPlace("key", key, None, None)
    at = line_start + len(before)  # the amount's start (``before`` may grow below)
    if whole_line:
        before = _paragraph_before(text, line_start, before)
    item = _list_item_key(before, after)
    if item is not None:
        return TextPlace("key", item, None, None)
    clause = _clause_before(before)
    label, read_after = prose_label(clause, after, amounts_before, _wrapped(text, after, line_end))
    if label is None and whole_line and _DESCRIBED_AT_END.search(before) is not None:
        key = _priced_item_key(text, at, before)
        if key is not None:
            return TextPlace("key", key, None, None)
    if label is None and amounts_before and _COMPARED.search(clause, max(0, len(clause) - 40)):
        return TextPlace("prose", None, None, None, inherits=True)
    return TextPlace("prose", label, None, None, read_after=read_after)


_WINDOW = 300
"""Characters either side of an amount that its rules read (a sentence's worth)."""


def _wrapped_key(text: str, line_start: int) -> str | None:
    """The key of the line above when the amount's line is its wrapped continuation: the
    amount's line is indented, and the line right above starts at the margin with a key and
    its colon, then a description and no amount of its own ("Carpet: Wiltshire Twist 50oz,
    80% wool" over "  34.0 m² @ £27.99 per m² ..... £951.66": the carpet's rate and price),
    as fixed-width quotes and invoices wrap a long item."""
    if line_start < 2 or text[line_start] not in " \t" or text[line_start - 1] != "\n":
        return None
    line_end = text.find("\n", line_start)
    if _ITEM_COLUMNS.search(text[line_start : None if line_end < 0 else line_end].strip()) is None:
        return None  # a sentence wrapped under a line, not an item's figures
    above_start = text.rfind("\n", 0, line_start - 1) + 1
    above = text[above_start : line_start - 1]
    if not above.strip() or above[0] in " \t" or may_state_money(above):
        return None
    found = _KEY_PREFIX.match(above)
    if found is None or ":" not in found.group(0)[len(found.group("key")) :]:
        return None
    key = found.group("key")
    return _clean_key(key) if _may_be_key(key, separated=True) else None


_ITEM_COLUMNS = re.compile(r"\.{3,}|…|[ \t]{2,}|\s@\s")
"""What sets an item line's figures in columns: dot leaders, a gap of spaces, an ``@``."""


_KEY_LINE = 160
"""The longest line prefix that can still be a key and its separator."""


_BLOCK_START = re.compile(r"\n(?=[ \t]*(?:\n|#|\||>|[-*+•◦▪][ \t]|\d{1,2}[.)][ \t]))")
"""A line break before a line that opens a block — a blank line, a heading, a table row,
a quote, a list item: the lines before it are not the sentence of an amount after it."""
_OWN_LINE = re.compile(r"[ \t]*(?:#|\|)")
"""A heading or a table row: a line that is never part of a sentence after it."""


def _paragraph_before(text: str, line_start: int, before: str) -> str:
    """``before`` (the amount's line up to it) with the earlier lines of its paragraph in
    front, line breaks read as spaces: a sentence wrapped over lines ("a self-insured
    retention of\n$500 applies") reads as one. The paragraph starts after a blank line or
    a heading or table row, or at a list item or a quote (a wrapped item is one)."""
    if line_start == 0 or _BLOCK_START.match(text, line_start - 1):
        return before
    start = max(0, line_start - _WINDOW)
    last = None
    for block in _BLOCK_START.finditer(text, start, line_start):
        last = block
    if last is not None or start == 0:
        start = last.end() if last is not None else 0  # the block's first line
        if _OWN_LINE.match(text, start) or not text[start : text.find("\n", start)].strip():
            start = text.find("\n", start) + 1  # a heading, a table row, a blank line
    joined = " ".join(text[start:line_start].split())
    return f"{joined} {before}" if joined else before


def _wrapped(text: str, after: str, line_end: int) -> str:
    """``after`` (the rest of the amount's line) with the next line when the sentence
    wraps onto it — no blank line, heading, table row or list item starts there: "at least
    $250,000 in each contract year⏎(the "Minimum Annual Purchase Commitment")"."""
    if len(after) >= _WINDOW or line_end >= len(text) or _BLOCK_START.match(text, line_end):
        return after
    following = text[line_end + 1 : line_end + 1 + _WINDOW - len(after)]
    cut = following.find("\n")
    return f"{after} {following[:cut] if cut >= 0 else following}"


def _unmarked_end(before: str) -> str:
    """``before`` without the Markdown emphasis that opens the amount (``**$3M**``)."""
    stripped = before.rstrip()
    return stripped.rstrip("*_`") if stripped.endswith(("*", "_", "`")) else before


def _unmarked_start(after: str) -> str:
    return after.lstrip("*_`") if after.startswith(("*", "_", "`")) else after


def _pipe_row_place(text: str, line_start: int, before: str, after: str = "") -> TextPlace:
    """An amount written among words in a Markdown table's cell (``| Medical payments |
    $5,000 each person |``): the row's first cell is its label, the column's header
    qualifies it or names its period (:mod:`osrag.extract.facts.table`'s rule) — unless
    the cell's own words name the quantity beside the amount (``| Collision | Actual cash
    value less $500 deductible |`` under "Limit": the collision deductible), or state a
    condition the amount is the size of (``| Delivery | Free on orders over $250 |``:
    orders, no delivery charge)."""
    cells = before.lstrip().removeprefix("|").split("|")
    column = len(cells) - 1
    if column == 0:
        return TextPlace("table", None, None, None)
    label = clean_label(cells[0])
    header = _pipe_header(text, line_start, column)
    found, rest = split_period(header) if header else (None, "")
    qualifier = clean_label(rest) if rest and not qualifies_nothing(rest) else None
    condition = _CELL_CONDITION.search(cells[-1])
    if condition is not None:  # the size of what the condition names: not the row's
        return TextPlace("table", clean_label(condition.group("noun")), None, None)
    cell_after = after.split("|", 1)[0]
    item = _item_label(cells[0], header, cells[-1].rpartition(";")[2], cell_after)
    if item is not None:
        return TextPlace("table", item, None, None)
    named = _cell_quantity(cells[-1], cell_after)
    if named is not None:
        qualifier = named
    if qualifier is not None and label is not None:
        label = f"{label}{COLUMN_JOIN}{qualifier}"
    period, year = found if found else (None, None)
    return TextPlace("table", label, period, year)


def _loader_row_item(text: str, line_start: int, start: int, after: str) -> str | None:
    """The label of an amount a short key names inside a cell of a loader table's row
    ("Umbrella liability — Policy number: UMB 1; Limits: Each occurrence $5,000,000;
    Aggregate $5,000,000"; :func:`_item_label`): the column is the item's own header, or
    the last one written before it in the row (a cell holding several items)."""
    header = loader_header(text, line_start)
    if header is None:
        return None
    line = text[line_start:start]
    cells_at = min((i for i in (line.find(": "), line.find("; ")) if i >= 0), default=len(line))
    cut = line.rfind(" — ", 0, cells_at)
    if cut <= 0:
        return None
    items = line[cut + 3 :].split("; ")
    words, column = items[-1], None
    for back, earlier in enumerate(reversed(items)):
        name, colon, value = earlier.partition(": ")
        if colon and name.strip() in header:
            column = name.strip()
            if back == 0:
                words = value
            break
    return _item_label(line[:cut], column, words, after)


def _item_label(row: str, column: str | None, words: str, after: str) -> str | None:
    """An amount a short key names in its own item of a table cell — a limits box that
    stacks "Each occurrence $5,000,000; Aggregate $5,000,000" in one cell: the key
    (``words``, right before the amount, the amount ending the item), qualified by the
    row's label and the column's header ("Umbrella liability — Limits — Each
    occurrence"); None when the words before the amount are no short key."""
    words = words.strip().removesuffix(":").strip()
    if not words or not _ITEM_END.match(after) or not _a_short_key(words):
        return None
    key = _clean_key(words)
    label = clean_label(row)
    if key is None or label is None:
        return None
    qualifier = clean_label(column) if column and not qualifies_nothing(column) else None
    parts = [label, qualifier, key] if qualifier != key else [label, key]
    return COLUMN_JOIN.join(part for part in parts if part)


_CELL_NOUN_AFTER = re.compile(r"\s*([A-Za-z][\w-]*)")
_CELL_NOUN_BEFORE = re.compile(r"([A-Za-z][\w-]*)(?:\s+of|\s*:)?\s*$")


def _cell_quantity(cell_before: str, cell_after: str) -> str | None:
    """The quantity noun a worded cell writes right beside its amount — after it ("$500
    **deductible**") or before it ("**Deductible** of $500", "Deposit: $50") — when the cell
    says more than the amount; None when the words beside it name no quantity."""
    if not (cell_before.strip() or cell_after.strip()):
        return None
    for found in (_CELL_NOUN_AFTER.match(cell_after), _CELL_NOUN_BEFORE.search(cell_before)):
        if found is not None and is_quantity_noun(found.group(1)):
            return clean_label(found.group(1))
    return None


_CELL_CONDITION = re.compile(
    r"(?i)\b(?:on|for|to|with)\s+(?:(?:all|any|each|every|the)\s+)?(?P<noun>[a-z][\w-]*)\s+"
    r"(?:of|over|above|exceeding|under|below|from)\s*$"
)
"""A condition a worded cell states before its amount ("Included **on releases of**
$250.00 or more", "Free **for orders over** $500"): the amount is the size of the thing
the condition names, not the row's quantity."""


def _pipe_header(text: str, line_start: int, column: int) -> str | None:
    """The text of column ``column`` in the first line of the pipe table holding
    ``line_start`` (its header row), or None; the cell to ``CELL_CHARS``
    (:mod:`osrag.lexicon.bounds`)."""
    start = _table_start(text, line_start)
    if start == line_start:
        return None
    first = _header_cells(text, start)
    return shorten(first[column], CELL_CHARS) if column < len(first) else None


_STARTS: dict[tuple[str, int], int] = {}
"""Rows whose table start is known: a row's answer is its previous row's."""


def _table_start(text: str, line_start: int) -> int:
    """Where the pipe table holding the line at ``line_start`` starts. Walked back row by
    row until a row whose answer is known, and every row passed remembers it, so a table
    is walked once however its rows are asked (a text's hash is computed once); no
    recursion, whatever the table's length."""
    passed: list[int] = []
    start = line_start
    while (text, start) not in _STARTS:
        if start == 0:
            break
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text[previous:start].lstrip().startswith("|"):
            break
        passed.append(start)
        start = previous
    found = _STARTS.get((text, start), start)
    if len(_STARTS) > 1 << 12:
        _STARTS.clear()
    for row in passed:
        _STARTS[(text, row)] = found
    _STARTS[(text, start)] = found
    return found


@functools.lru_cache(maxsize=1 << 8)
def _header_cells(text: str, start: int) -> list[str]:
    end = text.find("\n", start)
    return [
        c.strip()
        for c in text[start : end if end >= 0 else len(text)].strip().strip("|").split("|")
    ]


def line_key(text: str, start: int) -> str | None:
    """The key of the key–value line holding ``start`` (for later amounts on it), or None."""
    line_start = text.rfind("\n", 0, start) + 1
    match = _KEY_PREFIX.match(LIST_BULLET.sub("", text[line_start:start]))
    if match is None or not _may_be_key(match.group("key"), separated=True):
        return None
    return _clean_key(match.group("key"))


@functools.lru_cache(maxsize=1 << 12)
def _key_of(before: str, after: str) -> str | None:
    stripped = LIST_BULLET.sub("", _LINE_BEFORE.sub("", before))
    if not stripped.strip():
        return None
    match = _KEY_SEPARATOR.match(stripped)
    if match is not None and _may_be_key(match.group("key"), separated=True):
        return _clean_key(match.group("key"))
    qualified = _QUALIFIED_KEY.match(match.group("key")) if match is not None else None
    if qualified is not None and _a_short_key(qualified.group("name")):
        # "Key card deposit, refunded when the card is returned: $40.00": the key is the
        # name; the clause after its comma says when or how, no word of it
        return _clean_key(qualified.group("name"))
    definition = _DEFINITION.match(stripped)
    if definition is not None and len(definition.group("rest").split()) <= 8:
        return _clean_key(definition.group("key"))
    if _QUALIFIER_AFTER.match(after) and _a_short_key(stripped):
        return _clean_key(stripped)
    return None


_SENTENCE_MARK = re.compile(r"(?<!\b[A-Z])\.\s|[;!?,]\s")
"""A mark that ends a sentence or a clause inside a text — not an initial's full stop
("E.L. each accident": an employer's liability limit)."""


def _a_short_key(text: str) -> bool:
    """``text`` may be a key written right before its amount with no separator: one to six
    words, capitalised, no sentence mark, link or verb in it, not ending in a function
    word ("Each occurrence limit", "General aggregate"). A parenthesis explains the key and
    is not counted among its words ("Amount of this action (budget year 1)", "Med exp (any
    one person)")."""
    words = _PARENTHESIS.sub(" ", text).split()
    return (
        1 <= len(words) <= 6
        and text.lstrip()[:1].isupper()
        and not _SENTENCE_MARK.search(text)
        and words[-1].lower() not in BOUNDARY_WORDS
        and words[-1].lower() not in DETERMINERS
        and words[-1].lower() not in ALL_PREPOSITIONS
        and _may_be_key(text)
        and STATED_LINK.search(text) is None
    )


def _list_item_key(before: str, after: str) -> str | None:
    """The key of an amount in a list of keys and amounts that semicolons part ("Each
    occurrence $1,000,000; **General aggregate** $2,000,000; **Med exp (any one person)**
    $5,000"): the short key after the last semicolon, when the item ends at the amount (a
    qualifier allowed) — a limits box, a schedule run into one paragraph."""
    cut = before.rfind(";")
    if cut < 0 or not _ITEM_END.match(after):
        return None
    item = before[cut + 1 :].strip()
    return _clean_key(item) if _a_short_key(item) else None


_ITEM_END = re.compile(
    r"(?i)^\s*(?:" + RATE_INTRO + r"\s+[\w-]+(?:\s+[\w-]+)?|\([^)]{0,60}\))?\s*(?:;|\.?\s*$)"
)
"""What may follow the amount of a list's item: a qualifier, then the next item's
semicolon or the end of the line."""


_LINE_BEFORE = re.compile(
    r"^.*(?:(?<=[a-z0-9)])\.\s+|\S:\s+(?:[$€£¥₹]?\d[\d,.]*%?|\w+)\s+(?:[A-Za-z]+\s+)?"
    r"(?=[A-Z]\w*(?:\s+\w+){0,5}\s*:))"
)
"""What stands on a key's line before it: an earlier sentence ("… of each month. Total
for the policy term: $198.00") or an earlier key and its value ("Number of payments: 60
Amount of payments: $533.75")."""


def _may_be_key(key: str, *, separated: bool = False) -> bool:
    """A key is a name, not a sentence: at most ten words, its parentheses closed, no
    amount and no verb of a sentence in it (a parenthesis may explain it: "FINANCE CHARGE
    (the dollar amount the credit will cost you)"). ``separated``: a separator ends the
    key (a colon, a dot leader), so "paid" after a noun is the participle that qualifies it
    ("Amount paid: $500", "Deposit paid 2 October 2026 ..... £400.00"), no verb."""
    if key.count("(") != key.count(")"):
        return False
    key = _PARENTHESIS.sub(" ", key)
    if len(key.split()) > 10:
        return False
    key = _MONTH_AND_DAY.sub(" ", key)  # "May 1 – October 31": a date, no modal verb
    if _MONEY_BETWEEN.search(key):
        return False
    words = [w.lower() for w in _WORD.findall(key)]
    return not any(
        w in SENTENCE_VERBS and not (separated and _a_participle(words, i))
        for i, w in enumerate(words)
    )


def _a_participle(words: list[str], i: int) -> bool:
    """``words[i]`` is "paid" right after a word that is no pronoun ("Amount **paid**",
    not "We **paid**")."""
    return words[i] == "paid" and i > 0 and words[i - 1] not in PRONOUNS


def _clean_key(key: str) -> str | None:
    label = clean_label(key)
    if label is None or len(label) > 80 or _WORD.search(label) is None:
        return None
    return label


def _clause_before(before: str) -> str:
    """The part of the sentence before the amount, from the last clause boundary (a full
    stop that ends an abbreviation — "U.S. federal", "Inc. and" — is none)."""
    cut = max(before.rfind("; "), before.rfind("? "), before.rfind("! "))
    while cut > 0 and before[cut] == ";" and _LATER_ALTERNATIVE.match(before, cut + 1):
        # "the lesser of: the fees paid …; or $500,000": one clause of alternatives
        lead = _ALTERNATIVES.search(before, max(0, cut - 400), cut)
        if lead is None:
            break
        cut = max(before.rfind("; ", 0, lead.start()), before.rfind(". ", 0, lead.start()))
    stop = before.rfind(". ")
    while stop > cut and _ABBREVIATION.search(before, max(0, stop - 4), stop + 1):
        stop = before.rfind(". ", 0, stop)
    cut = max(cut, stop)
    return before[cut + 1 :] if cut >= 0 else before


_LATER_ALTERNATIVE = re.compile(r"(?i)\s*(?:or|and)\s+(?:\(?[a-z\d]{1,3}\)\s*)?[^;]*$")
_ALTERNATIVES = re.compile(r"(?i)\bthe\s+(?:lesser|greater|higher|lower)\s+of\b[^;.]*$")
"""A semicolon that separates the alternatives of "the lesser of …; or …", not clauses."""
_ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b(?:No|Co|Mr|Ms|Dr|vs|St|Inc))\.$")
"""A full stop that ends an abbreviation: after a capital letter ("U.S."), or a short
title or company word."""


def _period(
    text: str, start: int, end: int, line_start: int, line_end: int
) -> tuple[str | None, int | None]:
    """The year stated in the amount's clause (module docstring)."""
    if MAY_NAME_A_YEAR.search(text, line_start, line_end) is None:
        return None, None  # most amounts: no year anywhere near
    last = _LAST_SENTENCE_END.match(text, line_start, start)
    sentence_start = last.end() if last else line_start
    stop = _SENTENCE_OR_CLAUSE_END.search(text, end, line_end)
    sentence_end = stop.start() if stop else line_end
    last = _LAST_CLAUSE_SPLIT.match(text, sentence_start, start)
    clause_start = last.end() if last else sentence_start
    split = _CLAUSE_SPLIT.search(text, end, sentence_end)
    clause_end = split.start() if split else sentence_end
    own = _YEAR_AFTER.match(text, end, line_end)
    if own is not None:
        return " ".join(own["written"].split()), stated_year(own)
    paired = _respectively(text, start, end, sentence_start, sentence_end)
    if paired is not None:
        return paired
    years = list(STATED_PERIOD.finditer(text, clause_start, clause_end))
    after = [y for y in years if y.start("period") >= end]
    before = [y for y in years if y.end() <= start]
    if after and not _MONEY_BETWEEN.search(text, end, after[0].start("period")):
        return period_written(after[0])
    if before:
        return period_written(before[-1])
    intro = text[sentence_start:clause_start]
    intro_years = list(STATED_PERIOD.finditer(intro))
    if intro_years and not _MONEY_BETWEEN.search(intro):
        return period_written(intro_years[-1])
    return None, None


_YEAR_AFTER = re.compile(rf"(?i)\s*\(\s*(?P<written>{YEAR_WRITTEN})\s*\)")
"""A year in parentheses right after the amount: ``$450 (2019)``, ``$450 (FY19)``."""


def _respectively(
    text: str, start: int, end: int, sentence_start: int, sentence_end: int
) -> tuple[str | None, int | None] | None:
    """``$5.2 million and $4.8 million in 2019 and 2018, respectively``: the i-th amount
    of the sentence takes the i-th year written after the last of them — or, when none
    is written after them, the i-th of the years written before the first ("As of
    December 31, 2019 and 2018, total assets were $5.2 million and $4.1 million,
    respectively"). The counts must agree."""
    sentence = text[sentence_start:sentence_end]
    if "respectively" not in sentence:
        return None
    amounts = list(_MONEY_BETWEEN.finditer(text, sentence_start, sentence_end))
    if len(amounts) < 2:
        return None
    index = sum(1 for a in amounts if a.start() < start and a.end() <= end)
    years = list(STATED_PERIOD.finditer(text, amounts[-1].end(), sentence_end))
    if not years:
        years = list(STATED_PERIOD.finditer(text, sentence_start, amounts[0].start()))
    if len(years) != len(amounts) or index >= len(years):
        return None
    return period_written(years[index])


_MONEY_BETWEEN = re.compile(
    r"[$€£¥₹]\s?\(?\d[\d,.]*\)?(?:\s?(?:million|billion|thousand|m|bn|k)\b)?"
    r"|\d[\d,.]*\s?(?:million|billion|thousand)\b"
)
"""Figures written as money, roughly (to count the amounts of a sentence)."""
