"""Scope questions from the TAT-QA (dev) tables — a quarter's, a segment's, a region's or an
adjusted figure — and which documents hold each one's answer.

    .venv/bin/python benchmarks/tatqa_scopes.py [--dataset …]

``benchmarks/tatqa_analyst.py`` writes these questions into ``analyst_queries.jsonl`` after
the plain ones, each with a ``scope`` field (``quarter``, ``segment``, ``region``,
``adjusted``), the ``part`` it names ("Q4", "Americas", "Transportation Solutions",
"adjusted") and an id of its own (``tqs-…``), and every table's figures as read for them
in ``analyst_scope_tables.jsonl``; the plain questions are untouched. Run alone, this
module prints the counts, the questions, and the plain questions a document holds only
through a segment's or a region's cell (:func:`plain_held_by_parts`: a gold error of the
plain rules, which read a segment's table labelled "Revenues" as the company's).

The gold is the dataset's own, read with the plain questions' machinery
(:mod:`tatqa_analyst`: its label normalisation, value cells, annotated scales, currency
rule, sign policy, round thresholds and holder test); nothing here imports osrag. A
question names a **part** of a company's figures, a subject and a round threshold —
"fourth-quarter revenue over $100 million in 2019", "Americas revenue under $500
million", "Transportation Solutions segment revenue above $5 billion", "adjusted EBITDA
above $50 million" — and a document **holds** it when a cell of its table that is *that
part's* figure for the subject meets it (in the named year, else in any). The company's
total, another part's figure, another quarter's, the year's total or the GAAP line never
holds it; those are the figures a wrong reading would take.

Reading a table (each table's figures, and the cells left out with the reason, are in
``analyst_scope_tables.jsonl``):

* **Rows.** A row with a value cell (:func:`tatqa_analyst.cell_value`) after its first, or
  a labelled row of percentages and dashes, is a data row. A row without one is a header
  row when it has text after its first cell, a period row when its first cell alone names
  a year ("2019", "2018:"), else a group row ("Americas:", "Net sales:"; also a single cell
  written in a later column right above data rows: "Cloud and License Revenues:"). A
  header row after a data row starts a new block (a second year's quarters under the
  first's).
* **Columns.** A header cell left empty takes the text of the nearest filled cell to its
  left in the same row, except in the block's last header row (a spanning "Fiscal Year
  2018" over "Net Sales | % of Total"). A column's year is the one year its header names;
  else the one year its block names (a "Fiscal 2019" over four quarters); else the year of
  the period row above. A column whose header says change, variance, %, "over" or "to"
  holds no figure, nor one whose header names a quantity other than the row's subject
  ("Income from vessel operations" beside "Revenues", "Acquisitions" beside balances).
* **Quarter** (:data:`QUARTER_WORDS`). A column whose header names a quarter: "Q4 2019",
  "4Q19", "Fourth Quarter", or the ordinal alone when at least three columns of the block
  have one ("First | Second | Third | Fourth" under "Fiscal 2019"). A column headed by a
  date under "Quarters ended" or "Three months ended" is the quarter ended that date and is
  asked by its date ("the quarter ended July 27, 2019"): which fiscal quarter it is the
  table does not say. A column of the block that names no quarter ("Total") is the year's.
  No dev table names a segment or a region in a column over rows of a subject, so columns
  carry quarters only.
* **Region** (:data:`REGIONS`). A row whose label, without "Total", footnote marks and a
  colon, is a geography of the list: "Americas", "United States", "APAC" (= Asia
  Pacific). "Other", "Rest of world", "Foreign", "Domestic", "International" and reconciling
  lines (:data:`NOT_A_PART`) are not asked about.
* **Segment.** A row whose label the context's text calls a segment ("our modules
  segment"); or a row of a table that says its rows are segments (a header, a group or
  the sentence introducing the table says "by segment", "reportable segment", "segment
  assets", "allocated to segments"), its columns being years, above its first total row
  and naming no subject; or a row :data:`SEGMENTS_READ_BY_HAND` lists. A label "Total
  Marine Services segment revenue" is that segment's revenue.
* **Groups.** When a block's groups are closed by "Total <group>" rows, a group that is a
  region or (in a table of segments) a segment is a part, its "Total …" row the part's
  figure, and the rows inside it the part's own lines (end markets, not asked) unless a
  row is a region itself (a country inside "Americas:").
* **A part's table.** A table under a section heading that names one segment or one region
  (its first paragraph, a short line: "Consumer Cyber Safety segment", "North America", or
  a name the text calls a segment in full or by its initials: "Cubic Mission Solutions" …
  "our CMS operating segment"), or one :data:`SEGMENT_TABLES` lists, is that part's: every
  row naming a subject is the part's figure (an adjusted row there has two scopes).
* **Subject of a part's row.** Its label when it names one; else the group above it ("Net
  sales:"); else its columns' header ("Fiscal 2019 Net Sales"); else the top-left cell
  ("OPERATING REVENUES"); else the sentence introducing the table ("net sales by
  reportable segment", "sales information by geographic area", "segment assets"). A group
  or header naming revenue with other words first ("Cloud and License Revenues:", a product
  line) names none: its rows are not read. :data:`PART_SUBJECTS` adds what only parts
  have (segment assets, long-lived assets) to :data:`tatqa_analyst.SUBJECTS`.
* **Adjusted** (:data:`ADJUSTED`). A row labelled "Adjusted EBITDA", "Adjusted operating
  income (non-GAAP)", "Non-GAAP operating income", "Non-GAAP net income", "Adjusted gross
  margin" (in dollars), "Operating (non-GAAP) interest expense": the adjusted figure
  (adjusted and non-GAAP are one scope). Its GAAP line in the same table ("Operating
  income (GAAP)", "Gross profit", "Interest expense") is the company's figure it must not
  be taken for. Other qualifiers ("Adjusted operating income (tax effected)", "Underlying
  EBITDA") are not read.
* **Company figures.** A row naming a subject outside any part, a "Total" row or a row
  with no label is the company's figure (of the table's subject).
* **Two scopes at once** (a segment's quarter, a segment's adjusted figure) are not asked;
  the cells are recorded and left out.
* **Scale, currency, signs** as the plain questions read them: a table with no
  determinable scale, or a dollar that may not be the US dollar, leaves its documents
  **unjudged** for the questions its parts answer; a context naming another currency holds
  no "$" question; a loss is asked with its sign words ("net loss in Q2 below $1
  million"); "under" is never asked of an income line with a negative value; a row of both
  signs under a balance or expense leaves its document unjudged.

Asking:

* **Parts asked.** Every part and subject with a figure in a judged dollar table, in each
  year it has one and in any year (a quarter: its years first).
* **Thresholds.** Round numbers of :data:`tatqa_analyst.LADDER`: the steps nearest the 25th,
  50th and 75th percentile of the part's values (as the plain questions), then, between
  each of the part's figures and each other figure of the subject in the part's documents
  — the part's own in another document or year, the company's total, another part's,
  another quarter's, the GAAP line — the step nearest their midpoint (in log), those nearest
  the part's median first. "over" for each, "under" where the sign policy allows.
* **Kept.** A question with a holder and at least one of those figures that does **not**
  meet it (another document's figure for the part, or the figure of a part's document a
  wrong reading would take), so each question has holders and non-holders; held by more
  than half the corpus: dropped. Of a part, subject, period, op and sign, two questions
  with the same holders are one (as the plain questions), and of a part and subject at
  most :data:`PER_PART` are kept (one of each period, op and sign first), so that one
  table's many parts do not outweigh the rest. Each count is in the summary.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tatqa_analyst as analyst

Kind = Literal["quarter", "segment", "region", "adjusted"]
KINDS: tuple[Kind, ...] = ("quarter", "segment", "region", "adjusted")


# --------------------------------------------------------------------------- vocabulary


@dataclass(frozen=True)
class Region:
    """A geography a question may name: how it is said and the labels that mean it."""

    name: str
    said: str
    """How a question says it after "in": "the Americas", "EMEA"."""
    labels: tuple[str, ...]


REGIONS: tuple[Region, ...] = (
    Region("Americas", "the Americas", ("americas", "the americas")),
    Region("North America", "North America", ("north america",)),
    Region("Latin America", "Latin America", ("latin america",)),
    Region("EMEA", "EMEA", ("emea", "europe middle east and africa")),
    Region("Europe", "Europe", ("europe",)),
    Region("Asia Pacific", "Asia Pacific", ("asia pacific", "apac", "asia pacific region")),
    Region("Asia Pacific and Japan", "Asia Pacific and Japan", ("apj", "asia pacific and japan")),
    Region("United States", "the United States", ("united states", "u s", "us", "usa",
        "united states of america")),
    Region("Canada", "Canada", ("canada",)),
    Region("Mexico", "Mexico", ("mexico",)),
    Region("United Kingdom", "the United Kingdom", ("united kingdom", "uk")),
    Region("Germany", "Germany", ("germany",)),
    Region("China", "China", ("china", "mainland china", "mainland china excluding hong kong",
        "prc")),
    Region("Japan", "Japan", ("japan",)),
    Region("Taiwan", "Taiwan", ("taiwan",)),
    Region("Korea", "Korea", ("korea", "south korea")),
    Region("Hong Kong", "Hong Kong", ("hong kong",)),
    Region("Malaysia", "Malaysia", ("malaysia",)),
    Region("Romania", "Romania", ("romania",)),
    Region("Australia", "Australia", ("australia",)),
    Region("India", "India", ("india",)),
    Region("Philippines", "the Philippines", ("the philippines", "philippines")),
    Region("Costa Rica", "Costa Rica", ("costa rica",)),
    Region("El Salvador", "El Salvador", ("el salvador",)),
    Region("Southeast Asia", "Southeast Asia", ("southeast asia",)),
)  # fmt: skip
"""The geographies the dev tables' rows and columns name, one entry each; "APAC" and "Asia
Pacific" are one region, "APJ" (with Japan) another."""

_REGION_BY_LABEL = {label: r for r in REGIONS for label in r.labels}

NOT_A_PART = re.compile(
    r"^(?:other\b.*|all other|rest of (?:the )?world|corporate.*|unallocated.*|eliminations?\b.*"
    r"|.*\beliminations?$|inter ?segment.*|intersegment.*|foreign|domestic|international"
    r"|total.*|consolidated.*|segments?)$"
)
"""Reconciling lines and catch-alls: never a part a question names."""

PART_SUBJECTS: tuple[analyst.Subject, ...] = (
    analyst.Subject("assets", ("segment assets", "assets allocated to segments",
        "total segment assets")),
    analyst.Subject("long-lived assets", ("long lived assets",)),
)  # fmt: skip
"""Quantities only parts have: a segment's assets are not "total assets"."""

ADJUSTED: tuple[tuple[analyst.Subject, str, tuple[str, ...]], ...] = (
    (analyst.Subject("adjusted EBITDA", ("adjusted ebitda", "non gaap ebitda"), "signed"),
     "EBITDA", ("adjusted EBITDA",)),
    (analyst.Subject("adjusted operating income", ("adjusted operating income",
        "adjusted operating income non gaap", "non gaap operating income",
        "operating income non gaap"), "signed"),
     "operating income", ("adjusted operating income", "non-GAAP operating income")),
    (analyst.Subject("adjusted net income", ("adjusted net income", "non gaap net income",
        "net income non gaap", "adjusted net income non gaap"), "signed"),
     "net income", ("adjusted net income", "non-GAAP net income")),
    (analyst.Subject("adjusted gross margin", ("adjusted gross margin", "adjusted gross profit",
        "non gaap gross margin", "non gaap gross profit"), "signed"),
     "gross profit", ("adjusted gross margin", "adjusted gross profit")),
    (analyst.Subject("adjusted interest expense", ("operating non gaap interest expense",
        "non gaap interest expense", "adjusted interest expense")),
     "interest expense", ("non-GAAP interest expense", "adjusted interest expense")),
)  # fmt: skip
"""The adjusted (non-GAAP) figures: the subject, its GAAP line (the figure that must not hold
it) and how questions name it."""

_ADJUSTED_BY_LABEL = {label: s for s, _, _ in ADJUSTED for label in s.labels}
_GAAP_OF = {s.name: gaap for s, gaap, _ in ADJUSTED}
_SAID = {s.name: said for s, _, said in ADJUSTED}

_SUBJECT_BY_LABEL: dict[str, tuple[analyst.Subject, bool]] = {
    **{label: (s, False) for s in analyst.SUBJECTS for label in s.labels},
    **{label: (s, True) for s in analyst.SUBJECTS for label in s.loss_labels},
}
_PART_SUBJECT_BY_LABEL = {label: s for s in PART_SUBJECTS for label in s.labels}
_SUBJECTS_BY_NAME = {
    s.name: s for s in (*analyst.SUBJECTS, *PART_SUBJECTS, *(a for a, _, _ in ADJUSTED))
}

QUARTER_WORDS: dict[int, tuple[str, ...]] = {
    1: ("first", "1st"),
    2: ("second", "2nd"),
    3: ("third", "3rd"),
    4: ("fourth", "4th"),
}
"""The ordinal words of a quarter column ("First Quarter", "Fourth")."""

SEGMENTS_READ_BY_HAND: dict[str, tuple[tuple[str, ...], str]] = {
    "tatqa-3789d7da": (("Teekay LNG", "Teekay Tankers", "Teekay Parent"), "the sentence "
        "introducing the table: 'revenues … for each of Teekay LNG and Teekay Tankers, and for "
        "Teekay Parent', the group's segments"),
    "tatqa-8749fc7b": (("Data Center Group", "Internet of Things Group", "Mobileye",
        "Programmable Solutions Group", "Client Computing Group"), "goodwill by the company's "
        "operating segments ('reallocated from “all other” to the IOTG operating segment')"),
}  # fmt: skip
"""Rows a table gives as the company's segments without the word segment, read by hand."""

SEGMENT_TABLES: dict[str, tuple[str, str]] = {
    "tatqa-a86d227e": ("Teekay LNG", "its section 'Operating Results – Teekay LNG' and the "
        "sentence introducing it ('compares Teekay LNG's operating results'): one segment's"),
    "tatqa-8db2d2a5": ("Marine Services", "its section 'Marine Services Segment' and its last "
        "row 'Total Marine Services segment revenue'"),
}  # fmt: skip
"""Tables that are one segment's as a whole, read by hand: every row is that segment's. A
table under a heading that names one segment or one region ("Consumer Cyber Safety
segment", "North America") is read so by rule (:func:`heading_part`)."""

_SEGMENT_TABLE_WORDS = re.compile(
    r"(?i)\bby (?:reportable |operating |business )?segments?\b|\breport(?:able|ing) segments?\b"
    r"|\bsegment assets\b|\ballocated (?:to|by) (?:reportable )?segments?\b"
)
"""A header, group row or introducing sentence saying the table's rows are segments."""

_SUBJECT_IN_TEXT: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsegment assets\b|\bassets allocated\b"), "assets"),
    (re.compile(r"\blong lived assets\b"), "long-lived assets"),
    (re.compile(r"\bbefore income taxes\b"), "income before income taxes"),
    (re.compile(r"\bgoodwill\b"), "goodwill"),
    (re.compile(r"\boperating income\b|\bincome from operations\b"), "operating income"),
    (re.compile(r"\b(?:net |operating |total |external )*(?:revenues?|sales)\b"), "revenue"),
)
"""The subject a header, top-left cell or introducing sentence names for a table of parts,
tried in order: the first that matches."""

_PRODUCT_LINE = re.compile(
    r"^(?!(?:net |operating |total |consolidated |external )*(?:revenues?|sales)\b)"
    r".*\b(?:revenues?|sales)\b"
)
"""A group naming revenue with other words first ("cloud and license revenues"): a product
line's revenue, not the company's by part."""


# --------------------------------------------------------------------------- parts


@dataclass(frozen=True)
class Part:
    """What a scope question names besides the subject."""

    kind: Kind
    name: str
    """"Q4", "quarter ended July 27, 2019", "Americas", "Transportation Solutions",
    "adjusted"."""
    quarter: int | None = None
    ended: str | None = None
    """A quarter asked by its end date ("July 27, 2019")."""


@dataclass
class Figure:
    """One value cell read as a part's figure for a subject, or as the company's."""

    row: int
    column: int
    text: str
    value: Decimal
    year: int | None
    subject: str
    label: str
    loss_label: bool
    part: Part | None
    """None: the company's figure (a total, the year's column, the GAAP line)."""


@dataclass
class ScopeTable:
    """One context's table as read for scope questions."""

    doc_id: str
    scale: str | None
    currency: Literal["USD", "other"] | None
    unjudged: str | None
    """Why the table cannot be judged (no scale, a dollar that may not be the US dollar)."""
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Cells or rows left out, and why (two scopes at once, a product line's group)."""
    by_hand: str | None = None
    """Why the table's parts were read by hand (:data:`SEGMENTS_READ_BY_HAND`,
    :data:`SEGMENT_TABLES`), or its heading part."""

    def parts(self) -> set[Part]:
        return {f.part for f in self.figures if f.part is not None}


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_PERIOD_ROW = re.compile(r"(?i)^\s*(?:fiscal\s+(?:year\s+)?)?((?:19|20)\d\d)\s*:?\s*$")
_Q_CODE = re.compile(
    r"(?i)\bQ([1-4])\b(?:\s*(?:FY)?\s*((?:19|20)?\d\d)\b)?|\b([1-4])Q\s*((?:19|20)?\d\d)\b"
)
_ENDED = re.compile(r"(?i)quarters?\s+ended|three\s+months\s+ended")
_DATE = re.compile(
    r"(?i)\b(January|February|March|April|May|June|July|August|September|October|November"
    r"|December)\s+(\d{1,2}),?\s+((?:19|20)\d\d)\b"
)
_CHANGE = re.compile(r"(?i)change|variance|increase|decrease|%|percent|\bvs\.?\b|\bover\b|\bto\b")
_NO_QUANTITY = re.compile(
    r"\b(?:fiscal|years?|ended|ending|end|as|of|at|for|the|and|months?|three|six|nine|twelve"
    r"|weeks?|quarters?|first|second|third|fourth|q[1-4]|[1-4]q\d*|in|thousands?|millions?"
    r"|inthousands|inmillions"
    r"|billions?|dollars?|us|u|s|m|usd|restated|see|notes?|period|unaudited|except|per|share"
    r"|data|total|consolidated|january|february|march|april|may|june|july|august|september"
    r"|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\d+)\b"
)
"""Words of a column header that name a period, a caption or a total, not a quantity."""


def _ordinal(text: str) -> int | None:
    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    found = [q for q, names in QUARTER_WORDS.items() if words & set(names)]
    return found[0] if len(found) == 1 else None


def _full_year(digits: str | None) -> int | None:
    if not digits:
        return None
    return int(digits) if len(digits) == 4 else 2000 + int(digits)


@dataclass
class _Column:
    year: int | None
    skip: bool
    """A column of changes or percentages: it holds no figure."""
    quarter: Part | None
    quantity: str
    """What the header names besides periods and captions ("net sales", "income loss from
    vessel operations"); empty when nothing."""


@dataclass
class _Block:
    """Header rows, and the rows under them up to the next header row after a value row."""

    header: list[int] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)


_NUMBERISH = re.compile(r"[\s$(]*[-—–]*\s*[\d,.]*\s*%?\s*\)?\s*(?:n/?m|n/?a)?\s*", re.I)
"""A cell of a data row that is no value: a percentage, a dash, "n/m"."""


def _kinds(grid: list[list[str]], values: list[list[int]]) -> list[str]:
    """Each row's kind: ``value`` (a labelled row of values, percentages or dashes),
    ``header``, ``period``, ``group`` or ``empty``."""
    kinds = []
    for r, row in enumerate(grid):
        filled = [c for c, cell in enumerate(row) if cell.strip()]
        following = r + 1 < len(grid) and bool(values[r + 1])
        data = (
            bool(row[0].strip())
            and len(filled) > 1
            and all(_NUMBERISH.fullmatch(row[c]) and not _YEAR.search(row[c]) for c in filled[1:])
        )
        if values[r] or data:
            kinds.append("value")
        elif not filled:
            kinds.append("empty")
        elif filled == [0]:
            kinds.append("period" if _PERIOD_ROW.match(row[0]) else "group")
        elif len(filled) == 1 and following and not _YEAR.search(row[filled[0]]):
            kinds.append("group")  # a group label written in a later column
        else:
            kinds.append("header")
    return kinds


def _blocks(kinds: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    for r, kind in enumerate(kinds):
        if kind == "empty":
            continue
        if not blocks or (kind == "header" and any(kinds[x] == "value" for x in blocks[-1].rows)):
            blocks.append(_Block())
        (blocks[-1].header if kind == "header" else blocks[-1].rows).append(r)
    return blocks


def _block_columns(grid: list[list[str]], rows: list[int], width: int) -> dict[int, _Column]:
    """The columns of one header block: each one's year, quarter and quantity."""
    filled: list[list[str]] = []
    for i, r in enumerate(rows):
        cells = list(grid[r])
        if i < len(rows) - 1:  # a spanning cell is written in the first column it spans
            for c in range(2, width):
                if not cells[c].strip() and cells[c - 1].strip():
                    cells[c] = cells[c - 1]
        filled.append(cells)
    block_text = " ".join(" ".join(grid[r]) for r in rows)
    block_years = set(_YEAR.findall(block_text))
    texts = {c: " ".join(f[c] for f in filled if f[c].strip()) for c in range(1, width)}
    own = {c: " ".join(grid[r][c] for r in rows if grid[r][c].strip()) for c in range(1, width)}
    ordinals = {c: _ordinal(own[c]) for c in texts}
    by_ordinal = sum(q is not None for q in ordinals.values()) >= 3
    ended = bool(_ENDED.search(block_text))
    out: dict[int, _Column] = {}
    for c, text in texts.items():
        years = set(_YEAR.findall(text))
        year = int(years.pop()) if len(years) == 1 else None
        if year is None and not years and len(block_years) == 1:
            year = int(next(iter(block_years)))
        quarter: Part | None = None
        code = _Q_CODE.search(own[c])
        date = _DATE.search(own[c])
        if code:
            n = int(code.group(1) or code.group(3))
            year = _full_year(code.group(2) or code.group(4)) or year
            quarter = Part("quarter", f"Q{n}", quarter=n)
        elif ended and date:
            when = f"{date.group(1).title()} {int(date.group(2))}, {date.group(3)}"
            quarter = Part("quarter", f"quarter ended {when}", ended=when)
            year = int(date.group(3))
        elif ordinals[c] is not None and (by_ordinal or "quarter" in own[c].lower()):
            n = ordinals[c] or 0
            quarter = Part("quarter", f"Q{n}", quarter=n)
        skip = bool(_CHANGE.search(text)) and quarter is None
        quantity = " ".join(_NO_QUANTITY.sub(" ", analyst.normalise(text)).split())
        out[c] = _Column(year, skip, quarter, quantity)
    return out


def _subject_in(text: str) -> str | None:
    """The subject a header, top-left cell or sentence names (:data:`_SUBJECT_IN_TEXT`)."""
    words = analyst.normalise(text)
    for pattern, subject in _SUBJECT_IN_TEXT:
        if pattern.search(words):
            return subject
    return None


def _product_line(text: str) -> bool:
    """A short text (a group, a header) naming a product line's revenue."""
    return bool(_PRODUCT_LINE.match(re.sub(r"\s+by\s+.*$", "", analyst.normalise(text))))


def _label_subject(label: str) -> tuple[analyst.Subject | None, bool]:
    """The subject a normalised row label names (a plain subject, an adjusted one, a
    part's), and whether it states a loss."""
    if label in _ADJUSTED_BY_LABEL:
        return _ADJUSTED_BY_LABEL[label], False
    if label in _SUBJECT_BY_LABEL:
        return _SUBJECT_BY_LABEL[label]
    if label in _PART_SUBJECT_BY_LABEL:
        return _PART_SUBJECT_BY_LABEL[label], False
    return None, False


def _bare(label: str) -> str:
    """A row label as a part's name: normalised, without "total" and a trailing "segment"."""
    words = re.sub(r"^total\s+", "", analyst.normalise(label))
    return re.sub(r"\s+(?:reportable\s+)?segments?$", "", words)


def _titled(label: str) -> str:
    """A label as a name: its own words, without "Total", footnote marks and a colon."""
    text = re.sub(r"\((?:\d+|[a-z])\)|\[\d+\]|\*+", " ", label)
    text = re.sub(r"(?i)^\s*total\s+", "", text)
    text = re.sub(r"(?i)\s+(?:reportable\s+)?segments?\b.*$", "", text)
    return " ".join(text.replace(":", " ").rstrip(" .").split())


@dataclass
class _Context:
    """What a table's rows are read against: the context's words, the sentence introducing
    the table, the segments read by hand, the segment whose table it is."""

    text: str
    lead: str
    by_hand: dict[str, str]
    whole: Part | None


def _part_of(label: str, context: _Context, listed: bool) -> Part | None:
    """The region or segment a row label names (module docstring), or None; ``listed``: the
    table says this row is one of its segments."""
    name = _bare(label)
    if not name or NOT_A_PART.match(name) or _YEAR.search(name):
        return None
    region = _REGION_BY_LABEL.get(name)
    if region is not None:
        return Part("region", region.name)
    if name in context.by_hand:
        return Part("segment", context.by_hand[name])
    named = re.search(
        rf"\b{re.escape(name)} (?:reportable |operating |business )?segment\b", context.text
    )
    if named or (listed and _label_subject(name)[0] is None):
        return Part("segment", _titled(label))
    return None


def heading_part(context: dict[str, Any]) -> Part | None:
    """The segment or region a table's section heading names — its first paragraph, a short
    line that is no sentence: "Consumer Cyber Safety segment", "North America", or a name
    the text calls a segment, in full or by its initials ("Cubic Mission Solutions" … "our
    CMS operating segment") — or None."""
    paragraphs = sorted(context["paragraphs"], key=lambda p: p["order"])
    if not paragraphs:
        return None
    heading = " ".join(paragraphs[0]["text"].split())
    if len(heading) > 60 or heading.endswith((".", ":")):
        return None
    region = _REGION_BY_LABEL.get(analyst.normalise(heading))
    if region is not None:
        return Part("region", region.name)
    named = re.fullmatch(r"(?i)(.+?)\s+(?:reportable\s+|operating\s+|business\s+)?segment", heading)
    if named and not NOT_A_PART.match(analyst.normalise(named.group(1))):
        return Part("segment", named.group(1).strip())
    if NOT_A_PART.match(analyst.normalise(heading)):
        return None
    words = re.findall(r"[A-Za-z]+", heading)
    initials = "".join(w[0] for w in words) if len(words) > 1 else ""
    text = " ".join(p["text"] for p in paragraphs[1:])
    for name in filter(None, (r"\s+".join(map(re.escape, heading.split())), initials)):
        if re.search(rf"(?i)\b{name}\s+(?:reportable\s+|operating\s+|business\s+)?segment\b", text):
            return Part("segment", heading)
    return None


def read_scopes(context: dict[str, Any]) -> ScopeTable:
    """The figures of ``context``'s table that are a part's or the company's (module
    docstring)."""
    plain = analyst.read_table(context)
    unjudged = None
    if plain.scale is None:
        unjudged = "scale: " + plain.scale_note
    elif plain.currency is None:
        unjudged = "currency: a dollar that may not be the US dollar"
    table = ScopeTable(plain.doc_id, plain.scale, plain.currency, unjudged)
    rows: list[list[str]] = context["table"]["table"]
    width = max(len(r) for r in rows)
    grid = [[*r, *[""] * (width - len(r))] for r in rows]
    by_hand = SEGMENT_TABLES.get(plain.doc_id)
    whole = Part("segment", by_hand[0]) if by_hand else heading_part(context)
    listed = SEGMENTS_READ_BY_HAND.get(plain.doc_id)
    if by_hand or listed:
        table.by_hand = (by_hand or listed or ("", ""))[1]
    elif whole is not None:
        table.by_hand = f"the section heading names the {whole.kind} {whole.name}"
    about = _Context(
        analyst.normalise(
            " ".join(p["text"] for p in context["paragraphs"]) + " " + " ".join(map(" ".join, rows))
        ),
        analyst.lead_text(context),
        {analyst.normalise(n): n for n in SEGMENTS_READ_BY_HAND.get(plain.doc_id, ((), ""))[0]},
        whole,
    )
    values = [
        [c for c in range(1, width) if analyst.cell_value(grid[r][c]) is not None]
        for r in range(len(grid))
    ]
    kinds = _kinds(grid, values)
    for block in _blocks(kinds):
        _read_block(table, grid, kinds, block, _block_columns(grid, block.header, width), about)
    return table


def _read_block(
    table: ScopeTable,
    grid: list[list[str]],
    kinds: list[str],
    block: _Block,
    columns: dict[int, _Column],
    about: _Context,
) -> None:
    """The figures of one block's value rows (module docstring)."""
    value_rows = [r for r in block.rows if kinds[r] == "value"]
    groups = [r for r in block.rows if kinds[r] == "group"]
    top_left = " ".join(grid[r][0] for r in block.header + groups[:1] if r < min(value_rows or [0]))
    header_text = top_left + " " + " ".join(c.quantity for c in columns.values())
    says = _SEGMENT_TABLE_WORDS.search(about.lead) or _SEGMENT_TABLE_WORDS.search(
        header_text + " " + " ".join(grid[r][0] for r in groups)
    )
    grouped = any(
        analyst.normalise(grid[r][0]).startswith("total ")
        and any(_bare(_label(grid[g])) == _bare(grid[r][0]) for g in groups if g < r)
        for r in value_rows
    )
    first_total = next(
        (r for r in value_rows if re.match(r"total\b|$", analyst.normalise(grid[r][0]))), None
    )
    group, group_part, period = "", None, None
    for r in block.rows:
        label = _label(grid[r]) if kinds[r] == "group" else grid[r][0]
        if kinds[r] == "period":
            found = _PERIOD_ROW.match(label)
            period = int(found.group(1)) if found else period
            continue
        if kinds[r] == "group":
            group, group_part = label, None
            if grouped:
                group_part = _part_of(label, about, bool(says))
            continue
        words = analyst.normalise(label)
        subject, loss = _label_subject(words)
        listed = (
            bool(says)
            and not grouped
            and any(c.year for c in columns.values())
            and (first_total is None or r < first_total)
        )
        part = None if words.startswith("total") else _part_of(label, about, listed)
        embedded = re.match(r"^(?:total )?(.+?) segment (.+)$", words)
        if part is None and subject is None and embedded:
            named = _subject_in(embedded.group(2))
            if named is not None and not NOT_A_PART.match(embedded.group(1)):
                part, subject = Part("segment", _titled(label)), _SUBJECTS_BY_NAME[named]
        if about.whole is not None:
            if subject is None:
                continue
            part = about.whole
        elif part is None and group_part is not None:
            if words.startswith("total") and _bare(label) == _bare(group):
                part = group_part
            else:
                continue  # a line inside a part's group (an end market), not asked
        if subject is None:
            if part is None and not re.match(r"total\b|$", words):
                continue
            named = _subject_in(words) if part is None else None
            named = named or _table_subject(group, top_left, about.lead, columns)
            if named is None:
                if part is not None and (_product_line(group) or _product_line(header_text)):
                    table.notes.append(f"row {r}: a product line's group: {label!r}")
                continue
            subject = _SUBJECTS_BY_NAME[named]
        if subject.name in _GAAP_OF:
            if part is not None:
                table.notes.append(f"row {r}: two scopes at once: {label!r}")
                continue
            part = Part("adjusted", "adjusted")
        _add(table, grid, r, columns, subject, loss, part, period, label)


def _label(row: list[str]) -> str:
    """A row's label: its first cell, or the one cell a group row writes later."""
    return row[0] if row[0].strip() else next((c for c in row if c.strip()), "")


def _group_subject(group: str) -> str | None:
    """The subject a group row names as the whole of its words ("Net sales:", "Revenue:",
    "Net revenues by geographical region of shipment", "Long-lived assets:")."""
    words = re.sub(r"\s+by\s+.*$", "", analyst.normalise(group))
    subject, _ = _label_subject(words)
    return None if subject is None else subject.name


def _table_subject(group: str, top_left: str, lead: str, columns: dict[int, _Column]) -> str | None:
    """The subject of a table of parts: its group, its columns' header, its top-left cell,
    or the sentence introducing it (module docstring); None for a product line's."""
    if group.strip():
        if _product_line(group):
            return None
        named = _group_subject(group)
        if named is not None:
            return named
    quantities = [c.quantity for c in columns.values() if not c.skip and c.quantity]
    if any(_product_line(q) for q in quantities) or _product_line(top_left):
        return None
    headers = {_subject_in(q) for q in quantities} - {None}
    if len(headers) == 1:
        return headers.pop()
    for source in (top_left, lead):
        named = _subject_in(source)
        if named is not None:
            return named
    return None


def _add(
    table: ScopeTable,
    grid: list[list[str]],
    r: int,
    columns: dict[int, _Column],
    subject: analyst.Subject,
    loss: bool,
    part: Part | None,
    period: int | None,
    label: str,
) -> None:
    """The row's value cells as figures: a quarter column's are that quarter's; a column
    whose header names another quantity ("Income from vessel operations") holds none."""
    for c, column in columns.items():
        value = analyst.cell_value(grid[r][c])
        if value is None or column.skip:
            continue
        if column.quantity and _subject_in(column.quantity) != subject.name:
            continue
        scope = part
        if column.quarter is not None:
            if part is not None:
                table.notes.append(f"row {r}: two scopes at once: {label!r}")
                continue
            scope = column.quarter
        year = column.year if column.year is not None else period
        table.figures.append(
            Figure(r, c, grid[r][c], value, year, subject.name, label, loss, scope)
        )


# --------------------------------------------------------------------------- questions


@dataclass(frozen=True)
class Key:
    part: Part
    subject: str


def _views(
    tables: Sequence[ScopeTable], key: Key, *, distractors: bool = False
) -> list[analyst.Table]:
    """The tables as :mod:`tatqa_analyst` reads them, with only ``key``'s figures (or, with
    ``distractors``, only the figures of the same tables a wrong reading would take for
    them: the subject's — or the GAAP line's — company figures and other parts)."""
    out: list[analyst.Table] = []
    gaap = _GAAP_OF.get(key.subject)
    for t in tables:
        if key.part not in t.parts():
            continue
        mine = [f for f in t.figures if f.part == key.part and f.subject == key.subject]
        if not mine:
            continue
        if distractors:
            picked = [
                f for f in t.figures
                if f.part != key.part and f.subject in (key.subject, gaap)
                and (f.part is None or f.part.kind == key.part.kind or gaap is not None)
            ]  # fmt: skip
        else:
            picked = mine
        rows: dict[int, analyst.Row] = {}
        for f in picked:
            row = rows.setdefault(f.row, analyst.Row(f.row, f.label, key.subject, f.loss_label))
            row.cells.append(analyst.Cell(f.row, f.column, f.text, f.year, f.value))
        out.append(
            analyst.Table(
                t.doc_id, t.doc_id, t.scale, "", t.currency, t.unjudged, 0, {}, [],
                list(rows.values()),
            )
        )  # fmt: skip
    return out


def _usable(views: Sequence[analyst.Table]) -> list[analyst.Table]:
    return [v for v in views if v.judged and v.currency == "USD"]


@dataclass
class ScopeQuestion:
    question: analyst.Question
    kind: Kind
    part: Part

    def record(self) -> dict[str, Any]:
        out = self.question.record()
        out["scope"] = self.kind
        out["part"] = self.part.name
        if self.part.quarter is not None:
            out["quarter"] = self.part.quarter
        if self.part.ended is not None:
            out["quarter_ended"] = self.part.ended
        return out


@dataclass
class ScopeSummary:
    tables_with_parts: Counter[str] = field(default_factory=Counter)
    """scope kind → tables with a figure of that kind."""
    keys: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    dropped_no_holder: int = 0
    dropped_most: int = 0
    dropped_all_meet: int = 0
    dropped_same: int = 0
    dropped_over_cap: int = 0
    questions: Counter[str] = field(default_factory=Counter)
    holders: list[int] = field(default_factory=list)
    with_unjudged: int = 0
    not_asked: Counter[str] = field(default_factory=Counter)


def questions(
    contexts: Iterable[dict[str, Any]], *, most: float = 0.5
) -> tuple[list[ScopeQuestion], ScopeSummary, list[ScopeTable]]:
    """Every scope question the tables support (module docstring), the counts, the tables."""
    tables = [read_scopes(c) for c in contexts]
    summary = ScopeSummary()
    for kind in KINDS:
        summary.tables_with_parts[kind] = sum(
            any(p.kind == kind for p in t.parts()) for t in tables
        )
    summary.not_asked = Counter(note.split(": ")[1] for t in tables for note in t.notes)
    keys = sorted(
        {Key(f.part, f.subject) for t in tables for f in t.figures if f.part is not None},
        key=lambda k: (KINDS.index(k.part.kind), k.part.name, k.subject),
    )
    out: list[ScopeQuestion] = []
    for key in keys:
        summary.keys[key.part.kind] += 1
        found = list(_key_questions(tables, key, summary, most=most))
        summary.dropped_over_cap += max(0, len(found) - PER_PART)
        out += _spread(found)[:PER_PART]
    for q in out:
        summary.questions[q.kind] += 1
    summary.holders = [len(q.question.holders) for q in out]
    summary.with_unjudged = sum(bool(q.question.unjudged) for q in out)
    return out, summary, tables


PER_PART = 4
"""At most this many questions of one part and subject, so that one table's many parts do
not outweigh the rest (chosen by :func:`_spread`)."""


def _key_questions(
    tables: Sequence[ScopeTable], key: Key, summary: ScopeSummary, *, most: float
) -> Iterator[ScopeQuestion]:
    """The questions of one part and subject, in the order the module docstring gives:
    each period (a quarter's years first, then any year; else any year, then each year),
    each sign, each threshold; of a period, op and sign, one question per set of holders."""
    subject = _SUBJECTS_BY_NAME[key.subject]
    views = _views(tables, key)
    others = _usable(_views(tables, key, distractors=True))
    usable = _usable(views)
    if not usable:
        return
    years: list[int | None] = sorted(
        {c.period for v in usable for r in v.rows for c in r.cells if c.period is not None},
        reverse=True,
    )
    periods: list[int | None] = [None, *years]
    if key.part.ended:
        periods = [None]
    elif key.part.kind == "quarter":
        periods = [*years, None]
    seen: set[tuple[int | None, str, str | None, tuple[str, ...]]] = set()
    for period in periods:
        for sign in _signs(subject):
            for constraint in _constraints(usable, others, subject, period, sign):
                summary.candidates += 1
                held, unjudged = analyst.holders(views, subject, period, constraint)
                if not held:
                    summary.dropped_no_holder += 1
                    continue
                if len(held) > most * len(tables):
                    summary.dropped_most += 1
                    continue
                if not _separates(usable, others, subject, period, constraint):
                    summary.dropped_all_meet += 1
                    continue
                ident = (period, constraint.op, constraint.sign, tuple(held))
                if ident in seen:
                    summary.dropped_same += 1
                    continue
                seen.add(ident)
                yield _question(key, subject, period, constraint, held, unjudged, views)


def _spread(found: Sequence[ScopeQuestion]) -> list[ScopeQuestion]:
    """The questions in the order that varies most: first one of each period, op and sign
    (in their order), then the rest."""
    firsts: dict[tuple[int | None, str, str | None], ScopeQuestion] = {}
    for q in found:
        firsts.setdefault((q.question.period, q.question.op, q.question.sign), q)
    first = list(firsts.values())
    return first + [q for q in found if q not in first]


def _signs(subject: analyst.Subject) -> list[analyst.Sign | None]:
    return [None] if subject.loss_name is None else [None, "loss"]


def _values(
    views: Sequence[analyst.Table], subject: analyst.Subject, period: int | None, sign: Any
) -> list[Decimal]:
    out: list[Decimal] = []
    for view in views:
        out += [v for _, v in analyst.readings(view, subject, period, sign) or []]
    return out


def _constraints(
    usable: Sequence[analyst.Table],
    others: Sequence[analyst.Table],
    subject: analyst.Subject,
    period: int | None,
    sign: analyst.Sign | None,
) -> Iterator[analyst.Constraint]:
    """Round constraints near the part's values, then between each of them and each other
    figure of its documents (nearest the part's median first)."""
    mine = _values(usable, subject, period, sign)
    if not mine:
        return
    theirs = _values(others, subject, period, sign)
    steps = list(analyst.quantile_steps(mine))
    between: set[int] = set()
    for a in set(mine):
        for b in {*mine, *theirs} - {a}:
            low, high = sorted((float(a), float(b)))
            if high <= 0:
                continue
            middle = math.sqrt(max(low, high / 100, 1.0) * high)
            inside = [s for s in analyst.LADDER if low < s < high]
            if inside:
                between.add(min(inside, key=lambda s: abs(math.log10(s / middle))))
    median = float(statistics.median(mine)) or 1.0
    steps += sorted(between - set(steps), key=lambda s: (abs(math.log10(s / abs(median))), s))
    under = (
        sign == "loss"
        or subject.kind == "magnitude"
        or (subject.loss_name is None and not any(v < 0 for v in mine))
    )
    for step in steps:
        yield analyst.Constraint("gt", step, sign=sign)
        if under:
            yield analyst.Constraint("lt", step, sign=sign)


def _separates(
    usable: Sequence[analyst.Table],
    others: Sequence[analyst.Table],
    subject: analyst.Subject,
    period: int | None,
    constraint: analyst.Constraint,
) -> bool:
    """Some figure of the part's documents — the part's own elsewhere, or one a wrong
    reading would take — does not meet the question."""
    figures = _values(usable, subject, period, constraint.sign)
    figures += _values(others, subject, period, constraint.sign)
    return any(not constraint.meets(v) for v in figures)


# --------------------------------------------------------------------------- phrasing


_ORDINAL_WORD = {1: "first", 2: "second", 3: "third", 4: "fourth"}

_QUARTER_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": (
        "{o}-quarter {s} over {x}{p}",
        "{s} in Q{n}{py} above {x}",
        "companies whose {s} for the {o} quarter{pof} exceeded {x}",
        "{qq}{s} above {x}",
    ),
    "lt": (
        "{o}-quarter {s} under {x}{p}",
        "{s} in Q{n}{py} below {x}",
        "{qq}{s} under {x}",
    ),
}
_ENDED_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": ("{s} for the quarter ended {d} above {x}", "{s} in the quarter ended {d} over {x}"),
    "lt": ("{s} for the quarter ended {d} under {x}", "{s} in the quarter ended {d} below {x}"),
}
_REGION_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": (
        "{r} {s} over {x}{p}",
        "companies whose {r} {s} exceeded {x}{p}",
        "{s} in {rs} above {x}{p}",
    ),
    "lt": ("{r} {s} under {x}{p}", "{s} in {rs} below {x}{p}"),
}
_SEGMENT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": (
        "{g} segment {s} above {x}{p}",
        "companies whose {g} segment {s} exceeded {x}{p}",
        "{s} of the {g} segment over {x}{p}",
    ),
    "lt": ("{g} segment {s} under {x}{p}", "{s} of the {g} segment below {x}{p}"),
}
_ADJUSTED_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": (
        "{s} above {x}{p}",
        "companies whose {s} exceeded {x}{p}",
        "which reports show {s} of more than {x}{p}",
    ),
    "lt": ("{s} under {x}{p}", "companies with {s} below {x}{p}"),
}


def phrase(part: Part, subject: analyst.Subject, period: int | None, c: analyst.Constraint,
           key: str) -> str:  # fmt: skip
    """The question, as an analyst asks it (the template picked by ``key``, every run the
    same)."""
    name = (subject.loss_name if c.sign == "loss" else None) or subject.name
    x = analyst.dollars_words(c.low)
    p = analyst.pick(analyst.PERIOD_WORDS, key + "p").format(y=period) if period else ""
    if part.kind == "quarter" and part.ended:
        return analyst.pick(_ENDED_TEMPLATES[c.op], key).format(s=name, d=part.ended, x=x)
    if part.kind == "quarter":
        n = part.quarter or 0
        qq = f"{n}Q{str(period)[2:]} " if period else f"Q{n} "
        return analyst.pick(_QUARTER_TEMPLATES[c.op], key).format(
            o=_ORDINAL_WORD[n], s=name, x=x, p=p, n=n, qq=qq,
            py=f" {period}" if period else "", pof=f" of {period}" if period else "",
        )  # fmt: skip
    if part.kind == "region":
        region = next(r for r in REGIONS if r.name == part.name)
        return analyst.pick(_REGION_TEMPLATES[c.op], key).format(
            r=region.name, rs=region.said, s=name, x=x, p=p
        )
    if part.kind == "segment":
        return analyst.pick(_SEGMENT_TEMPLATES[c.op], key).format(g=part.name, s=name, x=x, p=p)
    said = analyst.pick(_SAID[subject.name], key + "s")
    return analyst.pick(_ADJUSTED_TEMPLATES[c.op], key).format(s=said, x=x, p=p)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _question(
    key: Key,
    subject: analyst.Subject,
    period: int | None,
    c: analyst.Constraint,
    held: dict[str, list[analyst.Cell]],
    unjudged: list[str],
    views: Sequence[analyst.Table],
) -> ScopeQuestion:
    name = (subject.loss_name if c.sign == "loss" else None) or subject.name
    part = key.part
    what = _slug(name).removeprefix("adjusted-") if part.kind == "adjusted" else _slug(name)
    where = "" if part.kind == "adjusted" else _slug(part.name) + "-"
    qid = f"tqs-{part.kind}-{where}{what}-{period or 'any'}-{c.op}-{c.low}"
    by_doc = {v.doc_id: v for v in views}
    question = analyst.Question(
        id=qid,
        query=phrase(part, subject, period, c, qid),
        subject=subject.name,
        period=period,
        op=c.op,
        low=c.low,
        high=c.high,
        sign=c.sign,
        holders=list(held),
        unjudged=unjudged,
        evidence={d: analyst.evidence_cells(by_doc[d], cells) for d, cells in held.items()},
    )
    return ScopeQuestion(question, part.kind, part)


# --------------------------------------------------------------------------- checks and files

SCOPE_ID = "tqs-"
"""The prefix of a scope question's id (a plain question's is ``a-``)."""


def is_scope(question_id: str) -> bool:
    return question_id.startswith(SCOPE_ID)


def kinds_of(queries: Path) -> dict[str, str]:
    """Scope question id → its kind, from an ``analyst_queries.jsonl``."""
    records = map(json.loads, filter(None, queries.read_text(encoding="utf-8").splitlines()))
    return {r["id"]: r["scope"] for r in records if "scope" in r}


def by_scope(row: dict[str, Any], kinds: dict[str, str]) -> dict[str, dict[str, Any]]:
    """One measured mode's quantity precision per scope kind: the mean of its queries'
    values (as the whole set's is the mean of all), and the median share of the index their
    amount filters leave."""
    out: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        qids = [q for q in row["per_query"] if kinds.get(q) == kind]
        shares = [
            row["selectivity_per_query"][q]["documents"]
            for q in qids
            if q in row["selectivity_per_query"]
        ]
        out[kind] = {
            "queries": len(qids),
            **{
                f"quantity_precision@{k}": statistics.fmean(
                    row["per_query"][q][f"quantity_precision@{k}"] for q in qids
                ) if qids else None
                for k in (5, 10)
            },
            "selectivity_median": statistics.median(shares) if shares else None,
        }  # fmt: skip
    return out


def add_by_scope(measured: dict[str, dict[str, Any]], work: Path) -> None:
    """Each mode's row of the ``tatqa-scope`` set gains ``by_scope`` (:func:`by_scope`);
    ``work`` holds the converted questions."""
    kinds = kinds_of(work / "analyst_queries.jsonl")
    for row in measured.values():
        row["by_scope"] = by_scope(row, kinds)


def by_scope_table(engines: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The per-kind rows as a Markdown table."""
    lines = [
        "| engine | mode | scope | queries | QP@5 | QP@10 | selectivity median |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for engine, modes in engines.items():
        for mode, row in modes.items():
            for kind, m in row["by_scope"].items():
                if not m["queries"]:
                    continue
                share = m["selectivity_median"]
                lines.append(
                    f"| {engine} | {mode} | {kind} | {m['queries']} "
                    f"| {m['quantity_precision@5']:.3f} | {m['quantity_precision@10']:.3f} "
                    f"| {'—' if share is None else f'{share:.1%}'} |"
                )
    return "\n".join(lines)


def part_cells(tables: Iterable[ScopeTable]) -> dict[str, set[tuple[int, int]]]:
    """document → the (row, column) of every cell read as a segment's or a region's figure
    (a part of the company, which a plain question about the company never asks)."""
    out: dict[str, set[tuple[int, int]]] = {}
    for t in tables:
        cells = {
            (f.row, f.column)
            for f in t.figures
            if f.part is not None and f.part.kind in ("segment", "region")
        }
        if cells:
            out[t.doc_id] = cells
    return out


def plain_held_by_parts(
    plain: Iterable[analyst.Question], tables: Iterable[ScopeTable]
) -> list[dict[str, Any]]:
    """The plain questions a document holds only through a segment's or a region's cell —
    the plain rules' gold error this module's parts make visible — with those documents."""
    parts = part_cells(tables)
    out = []
    for q in plain:
        wrong = [
            doc
            for doc, cells in q.evidence.items()
            if cells and all((c["row"], c["column"]) in parts.get(doc, set()) for c in cells)
        ]
        if wrong:
            out.append({"id": q.id, "query": q.query, "documents": wrong,
                        "holders": len(q.holders)})  # fmt: skip
    return out


def table_record(t: ScopeTable) -> dict[str, Any]:
    """One line of ``analyst_scope_tables.jsonl``: the table's figures as read."""
    return {
        "doc_id": t.doc_id,
        "scale": t.scale,
        "currency": t.currency,
        "unjudged": t.unjudged,
        "figures": [
            [f.row, f.column, f.text, f.year, f.subject,
             None if f.part is None else f"{f.part.kind}: {f.part.name}"]
            for f in t.figures
        ],
        "notes": t.notes,
        "read_by_hand": t.by_hand,
    }  # fmt: skip


def describe(summary: ScopeSummary, held_by_parts: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The counts a reader needs to trust the scope questions."""
    sizes = sorted(summary.holders)
    return {
        "scope_questions": sum(summary.questions.values()),
        "scope_questions_by_kind": {k: summary.questions[k] for k in KINDS},
        "scope_tables_by_kind": {k: summary.tables_with_parts[k] for k in KINDS},
        "scope_parts_by_kind": {k: summary.keys[k] for k in KINDS},
        "scope_candidate_questions": summary.candidates,
        "scope_dropped_no_holder": summary.dropped_no_holder,
        "scope_dropped_most_of_corpus": summary.dropped_most,
        "scope_dropped_no_figure_outside": summary.dropped_all_meet,
        "scope_dropped_same_holders": summary.dropped_same,
        "scope_dropped_over_the_cap_per_part": summary.dropped_over_cap,
        "scope_questions_with_unjudged_documents": summary.with_unjudged,
        "scope_holders_median": statistics.median(sizes) if sizes else 0,
        "scope_holders_max": sizes[-1] if sizes else 0,
        "scope_cells_not_asked": dict(summary.not_asked),
        "plain_questions_held_only_by_a_part": len(held_by_parts),
        "plain_holders_only_by_a_part": sum(len(q["documents"]) for q in held_by_parts),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=analyst.DATASET)
    args = parser.parse_args(argv)
    contexts = json.loads(args.dataset.read_text(encoding="utf-8"))
    found, summary, tables = questions(contexts)
    plain, _ = analyst.questions(analyst.read_tables(contexts))
    wrong = plain_held_by_parts(plain, tables)
    print(json.dumps(describe(summary, wrong), indent=2))
    print("\nplain questions a document holds only through a segment's or a region's cell:")
    for q in wrong:
        print(f"  {q['id']}  {q['query']!r}: {', '.join(q['documents'])} of {q['holders']}")
    print("\nscope questions:")
    for q in found:
        print(f"  {q.question.id}  {q.question.query!r}: {', '.join(q.question.holders)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
