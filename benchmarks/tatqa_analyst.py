"""Analyst questions from the TAT-QA (dev) tables, and which documents hold each one's answer.

    .venv/bin/python benchmarks/tatqa_analyst.py [--out benchmarks/results/tatqa]

Writes ``analyst_queries.jsonl`` (the questions, in the format ``osrag eval`` reads, each
with its ``holders``; ``relevant`` is the same list), ``analyst_holders.qrels`` (the holder
gold as TREC qrels, for ``osrag eval --holders``) and ``analyst_tables.jsonl`` (every
table as read: its scale, its currency, its periods, and why it or a row was left out).
``benchmarks/tatqa_corpus.py`` calls it when it converts the dataset, so the questions
always match the corpus beside them.

Beside these plain questions the same files hold the **scope questions** of
``benchmarks/tatqa_scopes.py`` — a quarter's, a segment's, a region's or an adjusted figure
("fourth-quarter revenue over $100 million in 2019", "Americas revenue under $500
million", "adjusted EBITDA above $50 million") — each with a ``scope`` field and an id of
its own (``tqs-…``), and ``analyst_scope_tables.jsonl`` (every table's figures as read for
them). The plain questions below are unchanged by them: their ids, text and gold.

The gold is the dataset's own: nothing here imports osrag, its extraction, its constraint
parser or its filter. A question names a line item, a round threshold and sometimes a
period — "companies whose revenue exceeded $500 million in 2019", "net loss under $20
million", "which reports show total assets between $1 billion and $5 billion" — and a
document **holds** it when its table has a row with that label whose value, read from the
cell and scaled by the table's annotated scale, meets the constraint (for the period when
one is named; for any of the table's periods when none is).

Rules, each one counted in the summary:

* **Label.** A row's label is its first cell, normalised by :func:`normalise` (case,
  punctuation, ``&`` → and, footnote markers such as ``(1)``, ``[2]``, ``*``, a trailing
  digit glued to a word, a trailing "in thousands"). A question's subject is one entry of
  :data:`SUBJECTS`: a canonical name and the small list of normalised labels taken to
  mean it ("net sales" is revenue, "cost of sales" is cost of revenue). Rows whose label is
  in no entry are never asked about.
* **Value cell.** A cell is a value when it is one number — ``$ 1,452.4``, ``(470,166)``,
  ``-5`` — not a percentage and not a bare year; parentheses or a minus make it negative.
* **Periods.** The header rows are the rows above the first row with a value in a column
  after the first. A column's period is the one year (19xx/20xx) its header cells name —
  "2019", "Fiscal 2019", "December 31, 2019", "2019 (1)" — when they name exactly one and
  do not say change, variance, increase or %. With period columns, only they are value
  columns (a "% Change" column holds no line item); without, every column whose header says
  none of change, %, per share, shares, rate, number, years.
* **Scale** (the dataset's annotations): the questions on the same context whose answer comes
  from the table (``answer_from`` ``table``, else ``table-text``) carry ``scale``; the
  table's scale is the one of thousand / million / billion they give when they give exactly
  one (an empty scale is what annotators give to years, counts and per-share answers, and is
  not evidence of units). None given, or two different ones, or a caption in the table's
  own header cells naming another scale: the scale is not determinable and the table is
  left out (its documents are **unjudged** for every question whose label its table has,
  listed apart so a metric can leave them out rather than count a guess).
* **Tables that cannot be judged** (their documents unjudged, the reason recorded): no
  determinable scale (above); quarterly columns ("First Quarter", "Three months ended")
  with no annual period; columns of changes with no period; Australian reporting
  conventions ("$'000", "$ MILLION" over F19, NPAT), where the dollar may not be the US
  dollar.
* **Rows that are not the line item** (dropped, the reason recorded): in a tax table
  (deferred tax assets and liabilities, a rate reconciliation) only the tax subjects are
  read — its "Deferred revenue" row is a tax effect; in an allocation table (expense lines,
  no revenue, and stock-based compensation or depreciation among the rows or in the
  paragraph introducing the table) only the allocated quantity is read — its "Research and
  development" row is compensation; a table about discontinued operations, assets held for
  sale or an acquisition's purchase price is not the company's and holds nothing; and
  :data:`NOT_THE_LINE_ITEM` lists the rows read by hand that the rules miss.
* **Currency.** TAT-QA does not annotate it. A context whose table or paragraphs name a
  currency other than the US dollar (£, €, ¥, RMB, sterling, euro, yen, HK$, A$, S$, C$,
  NT$, R$, or a code other than USD) is taken as reported in that currency: it holds no
  "$" question (a £500 million revenue is not "$500 million").
* **Signs.** :data:`SUBJECTS` marks each subject ``signed`` (an income line: net income,
  operating income, …; the value as written, a negative cell a loss) or ``magnitude`` (a
  balance or an expense: filings write deductions and outflows in parentheses — ``Interest
  expense (1,234)`` is an expense of 1,234 —, so the value is the number without its sign).
  A row with values of both signs under a ``magnitude`` subject, or under a loss label ("Net
  loss"), is ambiguous: its document is unjudged for that subject.
* **Sign words.** "net loss under $20 million" asks for a loss (a negative value under a
  ``signed`` income label such as "Net income (loss)", or any value under a loss label such
  as "Net loss", read as a loss of that size) whose size is under $20 million; "net income
  over $100 million" asks for a positive value over $100 million (a loss never meets it).
  "net income under $X" is never asked: whether a loss is "net income under $X" is a matter
  of reading, not of the data. For the same reason an "under" question on a ``signed``
  subject without a sign word is asked only when none of the values it covers is negative.
* **Subjects and periods asked.** A subject is asked about when at least three judged
  documents in dollars have it; a period when at least three of them have a value for it.
* **Thresholds.** Round numbers only — 1, 2 and 5 × 10ⁿ dollars (``$20 million``, ``$5
  billion``, ``$500,000``) — chosen near the values the subject's documents hold (the
  ladder steps nearest the 25th, 50th and 75th percentile), so that the number of holders
  varies from one to many; ranges are ``between $1 billion and $5 billion`` and ``between
  $500 million and $1 billion``. Questions with no holder, or holding in more than half of
  the corpus, are dropped (counted); two questions of a subject and period with the same op
  and the same holders are one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from _paths import CORPORA

SCALE_EXPONENTS = {"thousand": 3, "million": 6, "billion": 9}
Op = Literal["gt", "gte", "lt", "between"]
Sign = Literal["loss"]


# --------------------------------------------------------------------------- subjects


@dataclass(frozen=True)
class Subject:
    """A line item a question may name: its canonical name, the normalised row labels that
    mean it, how its sign is read, and the labels that state a loss."""

    name: str
    labels: tuple[str, ...]
    kind: Literal["signed", "magnitude"] = "magnitude"
    loss_labels: tuple[str, ...] = ()
    loss_name: str | None = None
    """The name of the loss ("net loss"): sign-word questions are asked under it."""


SUBJECTS: tuple[Subject, ...] = (
    Subject("revenue", ("revenue", "revenues", "total revenue", "total revenues", "net revenue",
        "net revenues", "total net revenue", "total net revenues", "net sales",
        "total net sales", "sales", "total sales", "operating revenue", "operating revenues")),
    Subject("net income", ("net income", "net income loss", "net loss income", "net earnings",
        "net earnings loss", "net loss earnings"), "signed", ("net loss",), "net loss"),
    Subject("operating income", ("operating income", "operating income loss",
        "operating loss income", "income from operations", "income loss from operations",
        "operating profit", "operating income gaap"), "signed",
        ("operating loss", "loss from operations"), "operating loss"),
    Subject("income before income taxes", ("income before income taxes",
        "income loss before income taxes", "income from continuing operations before income taxes",
        "income before taxes"), "signed", ("loss before income taxes",), "pre-tax loss"),
    Subject("gross profit", ("gross profit",), "signed"),
    Subject("EBITDA", ("ebitda",), "signed"),
    Subject("adjusted EBITDA", ("adjusted ebitda",), "signed"),
    Subject("cost of revenue", ("cost of revenue", "cost of revenues", "total cost of revenue",
        "total cost of revenues", "total costs of revenues", "cost of sales",
        "cost of goods sold", "total cost of goods sold")),
    Subject("operating expenses", ("operating expenses", "total operating expenses",
        "total operating expense")),
    Subject("research and development expense", ("research and development",
        "research and development expense", "research and development expenses")),
    Subject("SG&A expense", ("selling general and administrative",
        "selling general and administrative expense",
        "selling general and administrative expenses")),
    Subject("interest expense", ("interest expense",)),
    Subject("interest income", ("interest income",)),
    Subject("income tax expense", ("income tax expense", "provision for income taxes",
        "income tax provision", "provision for income tax", "total income tax expense")),
    Subject("stock-based compensation", ("stock based compensation", "share based compensation",
        "stock based compensation expense", "total stock based compensation expense")),
    Subject("depreciation and amortization", ("depreciation and amortization",
        "depreciation and amortisation")),
    Subject("total assets", ("total assets",)),
    Subject("total liabilities", ("total liabilities",)),
    Subject("total current assets", ("total current assets",)),
    Subject("total current liabilities", ("total current liabilities",)),
    Subject("cash and cash equivalents", ("cash and cash equivalents", "cash and equivalents")),
    Subject("inventories", ("inventories", "inventory", "inventories net", "inventory net",
        "total inventories")),
    Subject("accounts receivable", ("accounts receivable", "accounts receivable net",
        "trade receivables", "trade receivables net", "trade accounts receivable",
        "total accounts receivable net",
        "accounts receivable net of allowance for doubtful accounts")),
    Subject("accounts payable", ("accounts payable", "trade accounts payable")),
    Subject("goodwill", ("goodwill",)),
    Subject("deferred revenue", ("deferred revenue",)),
    Subject("other current assets", ("other current assets",)),
    Subject("property, plant and equipment, net", ("property plant and equipment net",
        "property and equipment net", "net property plant and equipment",
        "total property plant and equipment net")),
    Subject("long-term debt", ("long term debt",)),
    Subject("total debt", ("total debt",)),
    Subject("total equity", ("total equity", "total stockholders equity",
        "total shareholders equity"), "signed"),
    Subject("retained earnings", ("retained earnings",), "signed"),
    Subject("total deferred tax assets", ("total deferred tax assets",)),
    Subject("total deferred tax liabilities", ("total deferred tax liabilities",)),
    Subject("net deferred tax assets", ("net deferred tax assets", "total net deferred tax assets"),
        "signed"),
    Subject("valuation allowance", ("valuation allowance", "less valuation allowance")),
    Subject("net cash provided by operating activities", (
        "net cash provided by operating activities", "cash provided by operating activities",
        "net cash from operating activities"), "signed"),
    Subject("net cash used in investing activities", ("net cash used in investing activities",)),
)  # fmt: skip
"""The subjects questions may name. Equivalence is the table's, written by hand from the
labels the dev tables use; a label in two subjects would be a bug (a test checks)."""

BY_LABEL: dict[str, tuple[Subject, bool]] = {
    **{label: (s, False) for s in SUBJECTS for label in s.labels},
    **{label: (s, True) for s in SUBJECTS for label in s.loss_labels},
}
"""normalised label → (subject, whether the label states a loss)."""


def normalise(label: str) -> str:
    """A row label as :data:`SUBJECTS` writes it: lower case, ``&`` → and, footnote markers
    and a trailing "in thousands" dropped, punctuation → spaces, spaces collapsed."""
    text = label.lower().replace("&", " and ")
    text = re.sub(r"\((?:\d+|[a-z]|[ivx]+)\)|\[\d+\]|\*+", " ", text)
    text = re.sub(r"(?<=[a-z])\d$", "", text.strip())
    text = re.sub(r"[^a-z0-9]+", " ", text)
    text = re.sub(r"\s+in (?:thousands|millions|billions)$", "", " ".join(text.split()))
    return " ".join(text.split())


# --------------------------------------------------------------------------- cells

_NUMBER = re.compile(
    r"\s*[$€£]?\s*(?P<open>\()?\s*[$€£]?\s*(?P<minus>[-−–])?\s*[$€£]?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<close>\))?\s*"
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def cell_value(text: str) -> Decimal | None:
    """The signed number a cell states, or None (empty, a dash, text, a percentage, a year,
    unbalanced parentheses)."""
    match = _NUMBER.fullmatch(text)
    if match is None or bool(match.group("open")) != bool(match.group("close")):
        return None
    number = match.group("num")
    if re.fullmatch(r"(?:19|20)\d\d", number) and not re.search(r"[$€£(\-−–]", text):
        return None  # a bare year is a period, not an amount
    value = Decimal(number.replace(",", ""))
    return -value if match.group("open") or match.group("minus") else value


# --------------------------------------------------------------------------- tables

_NOT_A_VALUE_COLUMN = re.compile(
    r"(?i)change|variance|increase|decrease|%|percent|per share|\bshares\b|\brate\b|"
    r"number|\byears?\b(?!\s+ended)"
)
_CHANGE = re.compile(r"(?i)change|variance|increase|decrease|%|percent|\bvs\.?\b|\bto\b")
_QUARTERLY = re.compile(r"(?i)quarter|three months|six months|nine months|\bQ[1-4]\b|\bfirst\b")
_OTHER_CURRENCY = re.compile(
    r"£|€|¥|\bRMB\b|\bsterling\b|\beuros?\b|\byen\b|\bpounds?\b|(?:HK|A|S|C|NT|R)\$|"
    r"\b(?:GBP|EUR|JPY|CNY|AUD|CAD|INR|SGD|HKD|CHF|SEK|DKK|NOK|ZAR|BRL)\b|\brupees?\b"
)
_UNSURE_DOLLAR = re.compile(r"\$\s?['’]000|\$\s?MILLION\b|\bNPAT\b|\bF(?:Y)?\d\d\b")
"""Australian reporting conventions ("$'000", "$ MILLION" over F19/F18, NPAT): the dollar
may not be the US dollar, and TAT-QA does not say."""
_CAPTION = {
    3: re.compile(r"(?i)\bthousands?\b|['’]000"),
    6: re.compile(r"(?i)\bmillions?\b|\$\s?m\b"),
    9: re.compile(r"(?i)\bbillions?\b|\$\s?bn\b"),
}
_TAX_TABLE = re.compile(r"deferred (?:income )?tax|valuation allowance|statutory|tax rate")
_NOT_THE_COMPANY = re.compile(
    r"discontinued operations|held for sale|consideration|assets acquired|purchase price"
)
_ALLOCATION_TOPIC = re.compile(r"(?i)(?:stock|share|equity)[- ]based compensation|depreciation")
TAX_SUBJECTS = frozenset({"total deferred tax assets", "total deferred tax liabilities",
    "net deferred tax assets", "valuation allowance", "income tax expense"})  # fmt: skip
"""What a tax table (deferred tax assets and liabilities, a rate reconciliation) is about: its
other rows ("Deferred revenue", "Stock-based compensation", "Inventories") are the tax
effects of those items, not the items."""
ALLOCATED = frozenset({"stock-based compensation", "depreciation and amortization"})
EXPENSE_LINES = frozenset({"cost of revenue", "research and development expense",
    "SG&A expense", "operating expenses"})  # fmt: skip
"""An allocation table states how much of one quantity (stock-based compensation,
depreciation) each expense line carries: "Research and development 4,804" above "Total
stock-based compensation expense 32,137" is compensation, not the R&D expense."""
NOT_THE_LINE_ITEM: dict[tuple[str, str], str] = {
    ("tatqa-61b146df", "stock-based compensation"): "the compensation added back to gross "
    "profit in an adjusted gross margin: the part in cost of revenue, not the company's",
}
"""Rows read by hand that the rules above do not catch."""


@dataclass
class Cell:
    """A value cell of a row whose label names a subject."""

    row: int
    column: int
    text: str
    period: int | None
    value: Decimal
    """The signed number as written, unscaled."""


@dataclass
class Row:
    row: int
    label: str
    subject: str
    loss_label: bool
    cells: list[Cell] = field(default_factory=list)


@dataclass
class Table:
    """One context's table as read for the questions."""

    doc_id: str
    uid: str
    scale: str | None
    """thousand, million or billion, as the annotations give it; None when they do not."""
    scale_note: str
    currency: Literal["USD", "other"] | None
    """``other``: the context names another currency; None: it may not be the US dollar."""
    unjudged: str | None
    """Why the table cannot be judged (no scale, quarterly or change columns, the
    currency); None when it can."""
    header_rows: int
    periods: dict[int, int]
    """column → year."""
    value_columns: list[int]
    rows: list[Row]
    dropped: list[tuple[int, str, str]] = field(default_factory=list)
    """(row, subject, why) of the rows whose label names a subject but which are not read
    as it (a component in a tax or allocation table, a hand-checked exception)."""

    @property
    def judged(self) -> bool:
        return self.unjudged is None


def table_scale(context: dict[str, Any], header_text: str) -> tuple[str | None, str]:
    """The scale the annotations give the table, and how it was decided."""
    for source in ("table", "table-text"):
        given = {
            q["scale"]
            for q in context["questions"]
            if q["answer_from"] == source and q["scale"] in SCALE_EXPONENTS
        }
        if len(given) > 1:
            return None, f"conflicting scales {sorted(given)} on {source} answers"
        if given:
            (scale,) = given
            stated = [e for e, p in _CAPTION.items() if p.search(header_text)]
            if stated and SCALE_EXPONENTS[scale] not in stated:
                return None, f"annotated {scale}, the table's header says otherwise"
            return scale, f"{source} answers"
    return None, "no table answer carries a thousand/million/billion scale"


def _readable_subjects(
    labels: Sequence[str], header: str, lead: str
) -> tuple[frozenset[str] | None, str]:
    """The subjects a table's rows may be read as (None: all), and why: none in a table
    about discontinued operations or an acquisition; only the tax subjects in a tax table;
    only the allocated quantity in an allocation table (expense lines, no revenue, and the
    allocated quantity among its rows or in the paragraph that introduces it)."""
    text = " ".join(labels) + " " + normalise(header)
    if _NOT_THE_COMPANY.search(text):
        return frozenset(), "a table of discontinued operations or an acquisition"
    if any(_TAX_TABLE.search(label) for label in labels):
        return TAX_SUBJECTS, "a tax table: the row is a tax effect"
    named = {BY_LABEL[label][0].name for label in labels if label in BY_LABEL}
    allocated = named & ALLOCATED
    expenses_only = bool(named & EXPENSE_LINES) and "revenue" not in named
    if expenses_only and (allocated or _ALLOCATION_TOPIC.search(lead)):
        return frozenset(allocated), "an allocation table: the row is a share of another"
    return None, ""


def lead_text(context: dict[str, Any]) -> str:
    """The paragraphs that introduce the table: a short heading first, the ones that end with
    a colon or say "following table"."""
    paragraphs = [
        p["text"].strip() for p in sorted(context["paragraphs"], key=lambda p: p["order"])
    ]
    picked = [p for p in paragraphs[:1] if len(p) < 60]
    picked += [p for p in paragraphs if p.endswith(":") or "following table" in p.lower()]
    return " ".join(picked)


def _columns(grid: list[list[str]], header_rows: int) -> tuple[dict[int, int], list[int], str]:
    """(column → year, the value columns, the header text)."""
    width = len(grid[0])
    periods: dict[int, int] = {}
    headers: dict[int, str] = {}
    for c in range(1, width):
        text = " ".join(grid[r][c] for r in range(header_rows) if grid[r][c].strip())
        headers[c] = text
        years = set(_YEAR.findall(text))
        if len(years) == 1 and not _CHANGE.search(text):
            periods[c] = int(years.pop())
    if periods:
        value_columns = sorted(periods)
    else:
        value_columns = [c for c in range(1, width) if not _NOT_A_VALUE_COLUMN.search(headers[c])]
    header_text = " ".join(" ".join(grid[r]) for r in range(header_rows)) + " " + grid[0][0]
    return periods, value_columns, header_text


def read_table(context: dict[str, Any]) -> Table:
    """The rows of ``context``'s table whose label names a subject, with their value cells."""
    rows: list[list[str]] = context["table"]["table"]
    width = max(len(r) for r in rows)
    grid = [[*r, *[""] * (width - len(r))] for r in rows]
    header_rows = 0
    for r in grid:
        if any(cell_value(c) is not None for c in r[1:]):
            break
        header_rows += 1
    periods, value_columns, header_text = _columns(grid, header_rows)
    scale, note = table_scale(context, header_text)
    whole = (
        " ".join(" ".join(r) for r in rows)
        + " "
        + " ".join(p["text"] for p in context["paragraphs"])
    )
    currency: Literal["USD", "other"] | None = "USD"
    if _OTHER_CURRENCY.search(whole):
        currency = "other"
    elif _UNSURE_DOLLAR.search(whole):
        currency = None
    unjudged = None
    if scale is None:
        unjudged = "scale: " + note
    elif _QUARTERLY.search(header_text):
        unjudged = "quarterly columns: no annual period"
    elif not periods and _CHANGE.search(header_text):
        unjudged = "columns of changes without periods"
    elif currency is None:
        unjudged = "currency: a dollar that may not be the US dollar"
    doc_id = "tatqa-" + context["table"]["uid"][:8]
    table = Table(
        doc_id, context["table"]["uid"], scale, note, currency, unjudged,
        header_rows, periods, value_columns, [],
    )  # fmt: skip
    labels = [normalise(row[0]) for row in grid]
    readable, why = _readable_subjects(labels[header_rows:], header_text, lead_text(context))
    for r in range(header_rows, len(grid)):
        if labels[r] not in BY_LABEL:
            continue
        subject, loss = BY_LABEL[labels[r]]
        if readable is not None and subject.name not in readable:
            # a component of another quantity (a deferred tax asset, an allocation)
            table.dropped.append((r, subject.name, why))
            continue
        if (doc_id, subject.name) in NOT_THE_LINE_ITEM:
            table.dropped.append((r, subject.name, NOT_THE_LINE_ITEM[doc_id, subject.name]))
            continue
        row = Row(r, grid[r][0], subject.name, loss)
        for c in value_columns:
            value = cell_value(grid[r][c])
            if value is not None:
                row.cells.append(Cell(r, c, grid[r][c], periods.get(c), value))
        if row.cells:
            table.rows.append(row)
    return table


# --------------------------------------------------------------------------- questions


@dataclass(frozen=True)
class Constraint:
    """What a question asks of the subject's value, in US dollars (never scaled cents)."""

    op: Op
    low: int
    high: int | None = None
    sign: Sign | None = None
    """``loss``: a loss of that size ("net loss under $20 million"); None: the value as
    :func:`readings` reads it (signed for income lines: "net income over $100 million")."""

    def meets(self, dollars: Decimal) -> bool:
        """``dollars`` (already read as the question reads the subject: a loss's size for a
        loss question) meets the bound."""
        if self.op == "gt":
            return dollars > self.low
        if self.op == "gte":
            return dollars >= self.low
        if self.op == "lt":
            return dollars < self.low
        assert self.high is not None
        return self.low <= dollars <= self.high


def readings(
    table: Table, subject: Subject, period: int | None, sign: Sign | None
) -> list[tuple[Cell, Decimal]] | None:
    """The cells of ``subject`` in ``table`` (for ``period``, else every period) with their
    values in dollars as a question with ``sign`` reads them (a loss question: the loss's
    size; cells that are not a loss are left out) — or None when the table cannot be judged
    for the subject (a row with both signs under a magnitude subject or a loss label)."""
    assert table.scale is not None
    exponent = SCALE_EXPONENTS[table.scale]
    out: list[tuple[Cell, Decimal]] = []
    for row in table.rows:
        if row.subject != subject.name:
            continue
        signs = {c.value < 0 for c in row.cells if c.value != 0}
        if len(signs) > 1 and (row.loss_label or subject.kind == "magnitude"):
            return None
        for cell in row.cells:
            if period is not None and cell.period != period:
                continue
            dollars = cell.value.scaleb(exponent)
            if row.loss_label:
                # "Net loss: (6,619)" and "Net loss: 6,619" state the same loss
                out.append((cell, abs(dollars) if sign == "loss" else -abs(dollars)))
            elif subject.kind == "magnitude":
                out.append((cell, abs(dollars)))
            elif sign != "loss":
                out.append((cell, dollars))
            elif dollars < 0:
                out.append((cell, -dollars))
    return out


def holders(
    tables: Sequence[Table],
    subject: Subject,
    period: int | None,
    constraint: Constraint,
) -> tuple[dict[str, list[Cell]], list[str]]:
    """(each document holding the question → the cells that make it hold, the documents the
    question cannot be judged on)."""
    held: dict[str, list[Cell]] = {}
    unjudged: list[str] = []
    for table in tables:
        rows = [r for r in table.rows if r.subject == subject.name]
        if not rows or table.currency == "other":
            continue  # a table in another currency holds no dollar amount
        if not table.judged:
            if any(period is None or c.period == period for r in rows for c in r.cells):
                unjudged.append(table.doc_id)
            continue
        values = readings(table, subject, period, constraint.sign)
        if values is None:
            unjudged.append(table.doc_id)
            continue
        meeting = [cell for cell, dollars in values if constraint.meets(dollars)]
        if meeting:
            held[table.doc_id] = meeting
    return dict(sorted(held.items())), sorted(unjudged)


LADDER: tuple[int, ...] = tuple(m * 10**n for n in range(3, 12) for m in (1, 2, 5))
"""Round thresholds in dollars: $1,000, $2,000, $5,000, …, $500 billion."""
RANGES: tuple[tuple[int, int], ...] = tuple(
    pair for n in range(3, 12) for pair in ((10**n, 5 * 10**n), (5 * 10**n, 10 ** (n + 1)))
)
"""``between $1 billion and $5 billion``, ``between $500 million and $1 billion``, …"""


def dollars_words(amount: int) -> str:
    """``$500 million``, ``$1 billion``, ``$2.5 billion``, ``$500,000``: how analysts say it."""
    for exponent, word in ((9, "billion"), (6, "million")):
        if amount >= 10**exponent:
            scaled = Decimal(amount).scaleb(-exponent).normalize()
            return f"${scaled:f} {word}"
    return f"${amount:,}"


_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": (
        "companies whose {s} exceeded {x}{p}",
        "{s} over {x}{p}",
        "which reports show {s} above {x}{p}",
        "companies with {s} of more than {x}{p}",
        "firms reporting {s} greater than {x}{p}",
    ),
    "gte": (
        "{s} of at least {x}{p}",
        "companies with {s} of {x} or more{p}",
        "which companies had at least {x} of {s}{p}",
    ),
    "lt": (
        "{s} under {x}{p}",
        "companies whose {s} was below {x}{p}",
        "reports with {s} of less than {x}{p}",
    ),
    "between": (
        "which reports show {s} between {x} and {y}{p}",
        "{s} between {x} and {y}{p}",
        "companies with {s} in the range {x} to {y}{p}",
    ),
}
_LOSS_TEMPLATES: dict[str, tuple[str, ...]] = {
    "gt": ("companies that reported a {s} of more than {x}{p}", "{s} over {x}{p}"),
    "gte": ("{s} of at least {x}{p}",),
    "lt": ("{s} under {x}{p}", "companies with a {s} below {x}{p}"),
    "between": ("{s} between {x} and {y}{p}", "which companies had a {s} between {x} and {y}{p}"),
}
PERIOD_WORDS = (" in {y}", " for {y}", " in {y}")


@dataclass
class Question:
    id: str
    query: str
    subject: str
    period: int | None
    op: Op
    low: int
    high: int | None
    sign: Sign | None
    holders: list[str]
    unjudged: list[str]
    evidence: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """holder → the cells that make it one (row, column, text, period, scale)."""

    def record(self) -> dict[str, Any]:
        """The line ``osrag eval`` reads: ``relevant`` and ``holders`` are the same documents
        (the question asks for them, and only they hold the asked quantity)."""
        return {
            "id": self.id,
            "query": self.query,
            "relevant": self.holders,
            "holders": self.holders,
            "unjudged": self.unjudged,
            "constraint": {
                "subject": self.subject,
                "period": self.period,
                "op": self.op,
                "low": self.low,
                "high": self.high,
                "sign": self.sign,
                "currency": "USD",
            },
            "evidence": self.evidence,
        }


def pick(options: Sequence[str], key: str) -> str:
    """One of ``options``, the same for the same key on every run."""
    digest = hashlib.sha256(key.encode()).digest()
    return options[digest[0] % len(options)]


def _phrase(subject: Subject, period: int | None, c: Constraint, key: str) -> str:
    name = subject.loss_name if c.sign == "loss" else subject.name
    assert name is not None
    templates = (_LOSS_TEMPLATES if c.sign == "loss" else _TEMPLATES)[c.op]
    when = pick(PERIOD_WORDS, key + "p").format(y=period) if period else ""
    high = dollars_words(c.high) if c.high is not None else ""
    return pick(templates, key).format(s=name, x=dollars_words(c.low), y=high, p=when)


def quantile_steps(values: Sequence[Decimal]) -> list[int]:
    """The ladder steps nearest (in log) the 25th, 50th and 75th percentile of ``values``."""
    positive = sorted(float(v) for v in values if v > 0)
    if not positive:
        return []
    if len(positive) == 1:
        marks = positive
    else:
        marks = [float(q) for q in statistics.quantiles(positive, n=4, method="inclusive")]
    steps: list[int] = []
    for mark in marks:
        best = min(LADDER, key=lambda step: abs(_log(step) - _log(mark)))
        if best not in steps:
            steps.append(best)
    return steps


def _log(x: float) -> float:
    import math

    return math.log10(max(x, 1.0))


def evidence_cells(table: Table, cells: Sequence[Cell]) -> list[dict[str, Any]]:
    return [
        {"row": c.row, "column": c.column, "cell": c.text, "period": c.period,
         "scale": table.scale}
        for c in cells
    ]  # fmt: skip


@dataclass
class Summary:
    tables: int = 0
    judged: int = 0
    not_usd: int = 0
    scale_notes: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    dropped_empty: int = 0
    dropped_most: int = 0
    dropped_same: int = 0
    questions: int = 0
    holders: list[int] = field(default_factory=list)
    with_unjudged: int = 0


def questions(
    tables: Sequence[Table],
    *,
    most: float = 0.5,
    min_documents: int = 3,
    corpus_size: int | None = None,
) -> tuple[list[Question], Summary]:
    """Every question the tables support (see the module docstring), and the counts."""
    summary = Summary(tables=len(tables))
    summary.judged = sum(t.judged for t in tables)
    summary.not_usd = sum(t.currency == "other" for t in tables)
    summary.scale_notes = Counter(
        t.unjudged or "judged; scale from " + t.scale_note for t in tables
    )
    size = corpus_size or len(tables)
    out: list[Question] = []
    seen: set[tuple[str, int | None, str, str | None, tuple[str, ...]]] = set()
    usable = [t for t in tables if t.judged and t.currency == "USD"]
    for subject in SUBJECTS:
        having = [t for t in usable if any(r.subject == subject.name for r in t.rows)]
        by_period = Counter(
            c.period for t in having
            for c in {c.period: c for r in t.rows if r.subject == subject.name
                      for c in r.cells if c.period is not None}.values()
        )  # fmt: skip
        periods = sorted((p for p, n in by_period.items() if n >= min_documents), reverse=True)
        if len(having) < min_documents:
            continue
        for period in [None, *periods]:
            for sign in _signs(subject):
                for constraint in _constraints(having, subject, period, sign):
                    summary.candidates += 1
                    held, unjudged = holders(tables, subject, period, constraint)
                    if not held:
                        summary.dropped_empty += 1
                        continue
                    if len(held) > most * size:
                        summary.dropped_most += 1
                        continue
                    key = (subject.name, period, constraint.op, constraint.sign, tuple(held))
                    if key in seen:
                        summary.dropped_same += 1
                        continue
                    seen.add(key)
                    out.append(_question(subject, period, constraint, held, unjudged, tables))
    summary.questions = len(out)
    summary.holders = [len(q.holders) for q in out]
    summary.with_unjudged = sum(bool(q.unjudged) for q in out)
    return out, summary


def _signs(subject: Subject) -> list[Sign | None]:
    if subject.loss_name is None:
        return [None]
    return [None, "loss"]


def _constraints(
    having: Sequence[Table], subject: Subject, period: int | None, sign: Sign | None
) -> Iterator[Constraint]:
    """Round constraints near the values ``having`` hold for ``subject`` and ``period``."""
    values: list[Decimal] = []
    for table in having:
        values += [v for _, v in readings(table, subject, period, sign) or []]
    if not values:
        return
    steps = quantile_steps(values)
    # "net income under $X", or "gross profit under $X" where some gross profit is negative:
    # whether a loss meets it is a matter of reading, so it is never asked
    under = (
        sign == "loss"
        or subject.kind == "magnitude"
        or (subject.loss_name is None and not any(v < 0 for v in values))
    )
    for i, step in enumerate(steps):
        op: Op = "gte" if i == len(steps) - 1 and len(steps) > 1 else "gt"
        yield Constraint(op, step, sign=sign)
        if under:
            yield Constraint("lt", step, sign=sign)
    positive = sorted(v for v in values if v > 0)
    if positive:
        median = positive[len(positive) // 2]
        for low, high in RANGES:
            if low <= median <= high:
                yield Constraint("between", low, high, sign=sign)


def _question(
    subject: Subject,
    period: int | None,
    c: Constraint,
    held: dict[str, list[Cell]],
    unjudged: list[str],
    tables: Sequence[Table],
) -> Question:
    name = subject.loss_name if c.sign == "loss" else subject.name
    slug = re.sub(r"[^a-z0-9]+", "-", (name or subject.name).lower()).strip("-")
    qid = f"a-{slug}-{period or 'any'}-{c.op}-{c.low}" + (f"-{c.high}" if c.high else "")
    by_doc = {t.doc_id: t for t in tables}
    return Question(
        id=qid,
        query=_phrase(subject, period, c, qid),
        subject=subject.name,
        period=period,
        op=c.op,
        low=c.low,
        high=c.high,
        sign=c.sign,
        holders=list(held),
        unjudged=unjudged,
        evidence={d: evidence_cells(by_doc[d], cells) for d, cells in held.items()},
    )


def subject_named(name: str) -> Subject:
    return next(s for s in SUBJECTS if s.name == name)


# --------------------------------------------------------------------------- files


def read_tables(contexts: Iterable[dict[str, Any]]) -> list[Table]:
    return [read_table(c) for c in contexts]


def write(
    out: Path,
    tables: Sequence[Table],
    found: Sequence[Question],
    scoped: Sequence[Any] = (),
    scope_tables: Sequence[Any] = (),
) -> None:
    """``analyst_queries.jsonl``, ``analyst_holders.qrels`` (the same holders as TREC qrels,
    for ``osrag eval --holders``) and ``analyst_tables.jsonl`` in ``out``; the scope
    questions (:class:`tatqa_scopes.ScopeQuestion`) after the plain ones, and their tables
    in ``analyst_scope_tables.jsonl``."""
    out.mkdir(parents=True, exist_ok=True)
    records = [q.record() for q in found] + [q.record() for q in scoped]
    with (out / "analyst_queries.jsonl").open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")
    with (out / "analyst_holders.qrels").open("w", encoding="utf-8") as f:
        for record in records:  # TREC qrels for --holders: 1 holds, -1 cannot be judged
            f.writelines(f"{record['id']} 0 {doc} 1\n" for doc in record["holders"])
            f.writelines(f"{record['id']} 0 {doc} -1\n" for doc in record["unjudged"])
    if scope_tables:
        import tatqa_scopes

        with (out / "analyst_scope_tables.jsonl").open("w", encoding="utf-8") as f:
            for t in scope_tables:
                f.write(json.dumps(tatqa_scopes.table_record(t), default=str) + "\n")
    with (out / "analyst_tables.jsonl").open("w", encoding="utf-8") as f:
        for t in tables:
            record = asdict(t)
            record["rows"] = [
                {"row": r.row, "label": r.label, "subject": r.subject, "loss_label": r.loss_label,
                 "cells": [[c.column, c.text, c.period] for c in r.cells]}
                for r in t.rows
            ]  # fmt: skip
            record["dropped"] = [
                {"row": row, "subject": subject, "why": why} for row, subject, why in t.dropped
            ]
            f.write(json.dumps(record, default=str) + "\n")


def describe(summary: Summary) -> dict[str, Any]:
    """The counts a reader needs to trust the questions."""
    sizes = sorted(summary.holders)
    buckets = Counter(
        "1" if n == 1 else "2-3" if n <= 3 else "4-7" if n <= 7 else "8-15" if n <= 15 else "16+"
        for n in sizes
    )
    return {
        "tables": summary.tables,
        "tables_judged": summary.judged,
        "tables_unjudged": summary.tables - summary.judged,
        "tables_in_another_currency": summary.not_usd,
        "tables_by_reason": dict(summary.scale_notes.most_common()),
        "candidate_questions": summary.candidates,
        "dropped_no_holder": summary.dropped_empty,
        "dropped_most_of_corpus": summary.dropped_most,
        "dropped_same_holders": summary.dropped_same,
        "questions": summary.questions,
        "questions_with_unjudged_documents": summary.with_unjudged,
        "holders_min": sizes[0] if sizes else 0,
        "holders_median": statistics.median(sizes) if sizes else 0,
        "holders_max": sizes[-1] if sizes else 0,
        "holders_histogram": {k: buckets[k] for k in ("1", "2-3", "4-7", "8-15", "16+")},
    }


def write_questions(contexts: Sequence[dict[str, Any]], out: Path) -> dict[str, Any]:
    """The plain and the scope questions of ``contexts`` written to ``out``; the summary of
    both (the scope questions' counts under ``scope_…`` keys)."""
    import tatqa_scopes  # it reads tables with this module: imported here, not above

    tables = read_tables(contexts)
    found, summary = questions(tables)
    scoped, scope_summary, scope_tables = tatqa_scopes.questions(contexts)
    write(out, tables, found, scoped, scope_tables)
    held_by_parts = tatqa_scopes.plain_held_by_parts(found, scope_tables)
    return describe(summary) | tatqa_scopes.describe(scope_summary, held_by_parts)


def generate(dataset: Path, out: Path) -> dict[str, Any]:
    """Read ``dataset``, write the questions and tables to ``out``; the summary."""
    return write_questions(json.loads(dataset.read_text(encoding="utf-8")), out)


DATASET = CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json"
"""The whole dev split, in the shared corpora beside the checkout (``benchmarks/_paths.py``)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/tatqa"))
    args = parser.parse_args(argv)
    print(json.dumps(generate(args.dataset, args.out), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
