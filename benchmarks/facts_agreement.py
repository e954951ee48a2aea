"""Amount facts against gold osrag did not produce: TAT-QA's own tables and annotations.

    .venv/bin/python benchmarks/facts_agreement.py [--out benchmarks/results/facts_agreement]
        [--dataset F] [--json F] [--disagreements N]

The documents are the TAT-QA dev contexts converted as ``benchmarks/tatqa_corpus.py``
converts them (the paragraphs, and the table as a Markdown pipe table), written to
``<out>/corpus``, loaded as ``osrag ingest`` loads them and extracted with the ingest
code (:func:`osrag.extract.extract_values`, whose ``facts`` are what a chunk stores).
The **gold** is read here from the dataset's raw JSON table cells, the questions'
annotated ``scale`` and the paragraphs — nothing of osrag reads it. A gold cell is
matched to the fact whose evidence span overlaps the cell's text in the document (the
conversion knows where it wrote every cell).

**Gold money cells.** The header rows of a table are the rows above the first row with
a number (not a bare year, not a percentage) after its first cell. Below them, a cell
of column ≥ 1 is a gold money cell when

* it is one number — ``$ 1,452.4``, ``(470,166)``, ``-5``, ``$(3.1)`` — not a
  percentage, not a bare year (19xx/20xx without grouping, sign or parenthesis);
* its currency is stated: a currency sign in the cell, in its row or in its column, or
  the context (table and paragraphs) names one in a caption ("$ in millions", "in
  thousands of dollars", "$'000", "€m");
* nothing says it is not money: its row label, its column's header cells and the
  label-only row above it name no percentage, ratio, rate, margin, price, per-share or
  per-unit figure ("per"), count (shares, employees, number, units, days, months,
  years, customers), tonnes or a note reference column (``Note``) (:data:`_NOT_MONEY`),
  and at most half of its column's cells are percentages (none, in a column headed
  "change": its bare numbers are percentage changes too).

**Gold label.** The row label (the row's first cell), cleaned of what is not part of a
name: footnote markers (``(1)``, ``(a)``, ``[2]``, ``*``, a digit glued to the end of
a lower-case word), a unit caption in parentheses (``(in millions)``, ``($)``), a
trailing colon. A row whose label is a period (``2019``, ``Balance at December 31,
2018``) is labelled by its column header instead (the table's rows are its periods).
Both sides are then **normalised**: casefold, ``&`` → ``and``, every run of characters
that is not a letter or digit → one space.

**Label agreement** (what counts, fairly): the fact's label, normalised, equals the gold
label; or the fact's label is the gold label joined with what the table itself writes
around the cell by osrag's documented joins —

* ``Row — Qualifier`` (a column join): every qualifier's words occur in the cell's
  column header (its header cells, and a merged header cell written to the left of an
  empty one in the same header row);
* ``Group: Row`` (a group join): the group is a label-only row above the cell's row, or
  the table's top-left header cell;
* a **context join**, the words around the table instead of the table: a ``Group:`` whose
  every word occurs in the context's paragraphs (``Stock-based compensation expense:``
  over a table the text introduces as its allocation), or a qualifier naming whose
  figures the table holds when a paragraph says so — ``Discontinued operations`` (the
  text says discontinued, held for sale or disposal group), ``Acquired business``
  (acquired, acquisition, purchase price), ``Pro forma`` (pro forma), or a qualifier a
  paragraph writes as a phrase (a heading ``Consumer Cyber Safety segment``). Counted
  apart.

A qualifier or group the table does not write there is a disagreement. ``label exact``
counts only the first case.

**Gold period.** The column's period: of the header cells of the cell's column, the
lowest that names one year (a merged header cell left of an empty one counts for the
empty one; a year letter-spaced by a PDF, ``2 0 1 8``, is a year; a fiscal year written
in two digits, ``F19`` or ``FY19``, is 20xx); else the table's
title — a header row with a single cell after the first, or a top-left cell that is a
date, naming one year (``December 31, 2019`` over ``Level 1 | Level 2 | Total``); else a
row label that ends with the date it is stated at (``Balance payable as at June 30,
2017``, ``Reassignment on April 1, 2019``); else a label-only row above that is a year
(``2019:`` over quarters); else the row label when it is a period. A column naming a span
of two years (``2017/2018``, ``2021-2022``) is not judged for its period (which year
names it is a filer's convention). **Period agreement**: the fact's ``year`` is that year
(``year``); ``period text``: the fact's ``period``, normalised, occurs in the gold
header text, normalised (``2019`` in ``2019 (1)``, ``June 30, 2019`` in ``Estimated at
June 30, 2019``). Cells without a gold period count for ``no year where the table names
none`` (the fact has no year) instead.

**Scope split.** A fact says what, whose and when apart: its label is what is measured,
and a part of the company or of the year the row or the column names is its ``scope`` /
``period_part``, not words of the label. A label also **agrees by a scope split** when it is
the gold label (or a documented join) without the words this script calls scope words — a
geography of :data:`tatqa_scopes.REGIONS`, a quarter or a part of the year (``First
Quarter``, ``Q4``, ``Three months``, ``Full Year``), ``adjusted``, ``non-GAAP``,
``GAAP``, ``as reported``, discontinued operations, acquired, assumed, segment, the
geographies named relative to the company — or, for a part of the company, without the
words of the part's name the fact states (and a "Total" before it: the name is a scope, not
a word of the label, so the split loses nothing); a row left empty by them is named by its
column, its group, a "Total …" row of the table or the paragraphs (``APAC`` under ``Net
Sales`` → ``Net Sales``; ``Net sales: United States`` → ``Net sales``; ``Food Care`` in a
table the paragraphs call assets by segment → ``Assets``). Counted apart.

**Scope and period part**, where the table itself says them (the dataset's own cells):

* **period part**: the column's header names a quarter (``Q4 2019``, ``4Q19``, ``Fourth
  Quarter``; a quarter's ordinal alone when three or more header cells of its row are
  ordinals) → ``q1``…``q4``; another part of a year (``Three months``, ``Nine months ended``,
  ``26 weeks``, ``Quarter ended``) → ``part``; else ``full``. Agreement: the fact's
  ``period_part``;
* **region**: the row label, the column header or the group row is one geography of
  :data:`tatqa_scopes.REGIONS` (``Americas``, ``APAC``, ``United States``) → the fact's
  ``scope`` is ``region`` and its ``scope_name`` one of that region's names;
* **the scope reading's parts**: where :func:`tatqa_scopes.read_scopes` (the scope
  questions' gold: its rules, and the tables it reads by hand) reads a cell as a segment's,
  a region's or an adjusted figure → the fact's ``scope`` is that (a segment named by a
  geography is read as a ``region``, as both sides of osrag read it) and its
  ``scope_name`` the part's name (one of a region's names);
* **own where the table names no part**: the row, the column header, the group row and
  the top-left cell name no geography and none of segment, division, discontinued, held
  for sale, pro forma, acquired, acquisition, parent, adjusted, non-GAAP, underlying,
  normalized, deferred tax, tax effect, compensation, depreciation, amortization,
  includes, domestic, foreign, international, overseas; no row of the table names a
  deferred tax balance; no short paragraph (a heading) names a segment or a geography; and
  the paragraphs name no discontinued operations, purchase price, pro forma, parent
  company, compensation expense, depreciation and amortization, segments or a split "by"
  geography → the fact's ``scope`` is ``own`` (a scope read where none is written is
  wrong).

**Sign agreement.** Gold negative: the cell is written with parentheses or a minus.
Cells whose row label or column header says ``loss``/``losses``/``deficit`` are counted
apart (the sign policy turns a loss negative however it is written: the share of them
stored negative is reported, not judged). Zero cells are not counted.

**Value agreement.** The expected magnitude is the number × the table's scale × 100
(cents): the scale is the one the questions answered from the table annotate
(thousand, million, billion; one given, else none decidable) and it counts only when the
document states it as a caption before the table's end ("(in thousands)", "$ in
millions", "thousands of dollars", "$'000", "$m", "RMB'million" — a scale word in a
sentence is not a caption); a table with no scale annotated and no scale word anywhere
in the document is read at face value. Other cells: value not judged (counted apart).

**Prose** (the dataset annotates answers, not every amount): each ``span`` /
``multi-span`` answer from the text that is an amount with a currency sign (``$5.2
million``, ``$88,848``), found in one of its ``rel_paragraphs``, is a gold prose amount:
coverage (a fact overlaps it), value (its scale word × the number, where that agrees with
the annotated scale), whether the fact has a label, whether every word of that label
(casefolded, a plural ``s`` dropped) occurs in the question — a proxy: the question names
the quantity — and the fact's year against the one year the question names, when it names
exactly one.

Prints a table and writes ``<out>/facts_agreement.json`` (``--json`` elsewhere), with
every disagreement listed by category.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tatqa_scopes
from tatqa_corpus import DATASET, Rendered, html, render

from osrag.extract import extract_values
from osrag.loaders.corpus import load_corpus
from osrag.models import Document, ExtractionConfig
from osrag.schema.facts import AmountFact

SCALE_EXPONENTS = {"thousand": 3, "million": 6, "billion": 9}

# --------------------------------------------------------------------------- gold cells

_NUMBER = re.compile(
    r"\s*(?P<s1>[$€£¥])?\s*(?P<open>\()?\s*(?P<s2>[$€£¥])?\s*(?P<minus>[-−–])?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<close>\))?\s*"
)
_BARE_YEAR = re.compile(r"\s*(?:19|20)\d\d\s*")
_YEAR = re.compile(r"(?<![\d,.])(?:19|20)\d\d(?![\d]|,\d)")
_SIGN = re.compile(r"[$€£¥]|\b(?:US|A|S|C|HK|NT)\$|\b(?:USD|EUR|GBP|RMB|JPY)\b")
_CURRENCY_CAPTION = re.compile(
    r"(?i)[$€£]\s*(?:in\s+)?(?:thousands|millions|billions)"
    r"|in\s+(?:thousands|millions|billions)\s+of\s+(?:[\w.]+\s+)?(?:dollars|euros|pounds|[$€£])"
    r"|[$€£]\s?['’]?000|[$€£]\s?(?:m|bn|million|billion)\b|\b(?:US|A|S|C|HK)\$\s?(?:m|bn|['’]?000)"
    r"|\b(?:USD|EUR|GBP|RMB)\s*(?:['’]?000|m|million|thousands?)\b"
)
"""A caption that names a currency ("$ in millions", "in thousands of dollars", "€m")."""
_NOT_MONEY = re.compile(
    r"(?i)%|\bpercent|\bper[\s-]+(?:\w+\s+){0,2}share\b|\beps\b|\bper\s+(?:unit|ads|ton|"
    r"barrel|hour|day|month)\b|\bprice per\b|\bratio\b|\brates?\b|\bshares\b|\bunits\b|"
    r"\bemployees\b|\bheadcount\b|\bnumber of\b|\bdays\b|\bmonths\b|\(in years\)|"
    r"\byears?\)|^\s*notes?\s*$|\bper\b|\bprices?\b|\bnumber\b|\btonnes?\b|\bmargin\b|"
    r"\bbasis points\b|\bcustomers\b|\bstores\b|\bsubscribers\b"
)
"""Words of a row label, a column header or a group row that say its figures are not
money amounts."""
_FOOTNOTE = re.compile(
    r"(?:\s*\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)|\s*\[\d{1,2}\]|\s*[*†‡]+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+|(?<=[a-z])\d)$"
)
_UNIT_PAREN = re.compile(
    r"(?i)\s*\((?:in\s+)?(?:[$€£]|[a-z]{1,2}\$|usd|eur|gbp|dollars|euros)?\s*(?:in\s+)?(?:thousands?|millions?|"
    r"billions?|['’]?000s?|m|bn)?(?:\s+of\s+[\w.$ ]+)?\)|\s*\([$€£]\)"
)
_LOSS = re.compile(r"(?i)\b(?:loss|losses|deficit)\b")
_PERIOD_LABEL = re.compile(
    r"(?i)^\s*(?:(?:balances?|balance)\s*,?\s*(?:at|as\s+of)?|as\s+(?:of|at)|at|"
    r"(?:fiscal\s+)?(?:year|years)\s+ended|fiscal|fy)?\s*"
    r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+|"
    r"\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+)?"
    r"(?:19|20)\d\d\s*:?\s*$"
)
"""A row label that is a period: ``2019``, ``Fiscal 2019``, ``Balance at December 31, 2018``."""
_DATED_ROW = re.compile(
    r"(?i)\b(?:as\s+(?:at|of)|at|on|ended|ending)\s+(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
    r"nov|dec)[a-z]*\.?\s+\d{1,2},?\s+|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|"
    r"dec)[a-z]*,?\s+)?(?P<year>(?:19|20)\d\d)\s*:?\s*$"
)
"""A row label ending in the date it is stated at: ``Balance payable as at June 30, 2017``."""


def norm(text: str | None) -> str:
    """Casefold, ``&`` → and, every run of non-alphanumerics → one space."""
    text = (text or "").casefold().replace("&", " and ")
    return " ".join(re.sub(r"[^\w]+|_", " ", text).split())


def gold_label(raw: str) -> str:
    """A row label without footnote markers, unit captions in parentheses and a trailing
    colon (none of them part of the name)."""
    label = " ".join(raw.split())
    for _ in range(3):
        before = label
        label = label.rstrip(" :")
        label = _FOOTNOTE.sub("", label)
        label = _UNIT_PAREN.sub("", label)
        if label == before:
            break
    return label.strip()


def cell_number(text: str) -> re.Match[str] | None:
    """The cell as one number (not a percentage, not a bare year), or None."""
    match = _NUMBER.fullmatch(text)
    if match is None or bool(match.group("open")) != bool(match.group("close")):
        return None
    if _BARE_YEAR.fullmatch(text):
        return None
    return match


@dataclass
class GoldCell:
    doc_id: str
    row: int
    column: int
    text: str
    span: tuple[int, int]
    label: str
    """The gold label (cleaned, not normalised)."""
    header: str
    """The column's header text (its header cells, merged ones included), for qualifiers."""
    groups: list[str]
    """Label-only rows above the cell's row (nearest first) and the top-left header cell."""
    year: int | None
    period_text: str | None
    negative: bool
    zero: bool
    expected: int | None
    """Expected magnitude in cents, or None when the value is not judged."""
    label_from: str = "row"
    """``row``; ``column`` when the row label is a period (the column names the quantity)."""
    year_span: bool = False
    """The column names a span of two years (``2017/2018``): its period is not judged."""
    paragraphs: str = ""
    """The context's paragraphs (normalised), for the context joins."""
    part: str = "full"
    """The part of the year the column names (module docstring, scope and period part)."""
    region: str | None = None
    """The geography the row, column or group names (its name in tatqa_scopes.REGIONS)."""
    names_no_part: bool = False
    """The table names no part around the cell: its fact must be the document's own."""
    totals: str = ""
    """The words of the table's "Total …" rows (what a row of parts sums)."""
    reading: tuple[str, str] | None = None
    """The scope reading's part of the cell (:func:`tatqa_scopes.read_scopes`): ``(kind,
    name)`` of a segment's, a region's or an adjusted figure; None where it reads the
    company's or reads nothing."""


@dataclass
class Context:
    doc_id: str
    rows: list[list[str]]
    header_rows: int
    scale: int | None
    """The exponent the value is judged with (None: not judged)."""
    currency_caption: bool
    cells: list[GoldCell] = field(default_factory=list)


def _grid(rows: list[list[str]]) -> list[list[str]]:
    width = max(len(r) for r in rows)
    return [[*r, *[""] * (width - len(r))] for r in rows]


def _header_rows(grid: list[list[str]]) -> int:
    for r, row in enumerate(grid):
        if any(cell_number(c) for c in row[1:]):
            return r
    return len(grid)


def _column_header(grid: list[list[str]], header_rows: range, c: int) -> list[str]:
    """Column ``c``'s header cells, top to bottom; an empty cell takes a merged header cell
    written to its left in the same row (only across empty cells)."""
    out = []
    for r in header_rows:
        text = grid[r][c].strip()
        if not text:
            left = c - 1
            while left >= 1 and not grid[r][left].strip():
                left -= 1
            text = grid[r][left].strip() if left >= 1 else ""
        if text:
            out.append(text)
    return out


def _scale(context: dict[str, Any], text: str, table_end: int) -> tuple[int | None, str]:
    """The exponent a table's values are judged with, and why (module docstring)."""
    given = {
        q["scale"]
        for q in context["questions"]
        if "table" in q["answer_from"] and q["scale"] in SCALE_EXPONENTS
    }
    stated = {
        e
        for e, p in _STATED.items()
        if any(p.search(line) for line in text[:table_end].split("\n"))  # before the end
    }
    if len(given) == 1:
        exponent = SCALE_EXPONENTS[next(iter(given))]
        if exponent in stated:
            return exponent, "annotated and stated"
        return None, "annotated, not stated in the document"
    if len(given) > 1:
        return None, "conflicting annotations"
    if not _ANY_SCALE.search(text):
        return 0, "no scale annotated or written"
    return None, "a scale is written, none annotated"


def _caption(word: str, unit: str) -> re.Pattern[str]:
    """A caption of one scale as filings write it: "(in thousands)", "$ in millions",
    "thousands of dollars", "(millions)", "$'000", "€m" — not the word in a sentence."""
    return re.compile(
        rf"(?i:\bin\s+(?:[$€£]\s?|US\$\s?|[A-Z]{{3}}\s)?{word}\b|{word}\s+of\s+(?:[\w.]+\s+)?"
        rf"(?:dollars|euros|pounds)|\(\s*(?:[$€£]\s?)?{word}\s*\)|^\s*{word}\s*$)|{unit}"
    )


_STATED = {
    3: _caption("thousands?", r"[$€£]\s?['’]?000|['’]000s?\b|\b000['’]?s\b|\bin\s+\$?000\b"),
    6: _caption(
        "millions?", r"[$€£]\s?[mM]\b|\b(?:US|A|S|C|HK)\$\s?m\b|\b[A-Z]{3}\s?['’]?m(?:illion)?\b"
    ),
    9: _caption("billions?", r"[$€£]\s?bn\b|\b[A-Z]{3}\s?bn\b"),
}
_ANY_SCALE = re.compile(
    r"(?i)\bthousands?\b|\bmillions?\b|\bbillions?\b|['’]000|[$€£]\s?(?:m|bn)\b"
)


def read_context(context: dict[str, Any], rendered: Rendered) -> tuple[Context, Counter[str]]:
    """The gold money cells of one context (module docstring), and why other number cells
    are not gold."""
    skipped: Counter[str] = Counter()
    grid = _grid(context["table"]["table"])
    header_rows = _header_rows(grid)
    whole = (
        " ".join(" ".join(r) for r in grid)
        + " "
        + " ".join(p["text"] for p in context["paragraphs"])
    )
    table_end = max((e for _, _, _, e in rendered.cells), default=0)
    scale, _why = _scale(context, rendered.text, table_end)
    out = Context(rendered.doc_id, grid, header_rows, scale, bool(_CURRENCY_CAPTION.search(whole)))
    paragraphs = norm(" ".join(p["text"] for p in context["paragraphs"]))
    parts = {
        (f.row, f.column): (f.part.kind, f.part.name)
        for f in tatqa_scopes.read_scopes(context).figures
        if f.part is not None and f.part.kind in ("segment", "region", "adjusted")
    }
    spans = {(r, c): (s, e) for r, c, s, e in rendered.cells}
    top_left = grid[0][0].strip() if header_rows else ""
    groups: list[str] = []
    block = range(header_rows)  # the header rows the rows below read their columns from
    title = _title_year(grid, block)
    period_row: tuple[int, str] | None = None
    for r in range(len(grid)):
        row = grid[r]
        if r < block.stop and r >= header_rows:
            continue  # a repeated header, read below
        if r > header_rows and _repeats_header(grid, r):
            end = r + 1
            while end < len(grid) and _header_like(grid[end]):
                end += 1
            block = range(r, end)
            title = _title_year(grid, block)
            continue
        if r < header_rows and (not row[0].strip() or r == 0):
            continue
        if not any(x.strip() for x in row[1:]):
            if row[0].strip():
                found = _YEAR.findall(row[0])
                if len(found) == 1 and _PERIOD_LABEL.match(row[0]):
                    period_row = (int(found[0]), row[0])
                else:
                    groups.insert(0, gold_label(row[0]))
            continue
        if r < header_rows:
            continue
        row_signed = any(_SIGN.search(x) for x in row[1:])
        for c in range(1, len(row)):
            match = cell_number(row[c])
            if match is None:
                continue
            header = _column_header(grid, block, c)
            header_text = " ".join(header)
            column_signed = any(_SIGN.search(grid[i][c]) for i in range(len(grid)))
            if not (row_signed or column_signed or out.currency_caption):
                skipped["no currency stated"] += 1
                continue
            if _percent_column(grid, header_rows, c) or any(
                _NOT_MONEY.search(x) for x in [row[0], header_text, *groups[:1]]
            ):
                skipped["not money (%, per share, count, ratio)"] += 1
                continue
            label, label_from = gold_label(row[0]), "row"
            year, period_text = _column_year(header)
            if _PERIOD_LABEL.match(row[0]) and row[0].strip():
                # a table whose rows are its periods: the column names the quantity
                label, label_from = (
                    gold_label(" ".join(x for x in header if not _YEAR.search(x))),
                    "column",
                )
                if year is None:
                    year, period_text = int(_YEAR.findall(row[0])[0]), row[0]
            if year is None and title is not None:
                year, period_text = title
            dated = _DATED_ROW.search(row[0])
            if year is None and dated is not None:  # "Balance payable as at June 30, 2017"
                year, period_text = int(dated.group("year")), dated.group(0)
            if year is None and period_row is not None:
                year, period_text = period_row
            span = year == 0
            if span:  # a span of two years: its period is not judged
                year, period_text = None, None
                skipped["period: a span of two years (not judged)"] += 1
            negative = bool(match.group("open") or match.group("minus"))
            value = Decimal(match.group("num").replace(",", ""))
            expected = None
            if scale is not None:
                cents = value.scaleb(scale + 2)
                expected = int(cents) if cents == cents.to_integral_value() else None
            around = [row[0], *header, *groups[:1], top_left]
            out.cells.append(
                GoldCell(
                    rendered.doc_id,
                    r,
                    c,
                    row[c],
                    spans[(r, c)],
                    label,
                    header_text,
                    groups[:1] or ([top_left] if top_left else []),
                    year,
                    period_text,
                    negative,
                    value == 0,
                    expected,
                    label_from,
                    span,
                    paragraphs,
                    _column_part(grid, block, c, row[0]),
                    next((g for x in around if (g := _region_of(x)) is not None), None),
                    not any(_SCOPE_WORDS.search(norm(x)) or _region_of(x) for x in around)
                    and _SCOPE_TEXT.search(paragraphs) is None
                    and not any(_heads_a_part(p["text"]) for p in context["paragraphs"])
                    and not _DEFERRED_TAX.search(norm(" ".join(x[0] for x in grid))),
                    " ".join(x[0] for x in grid if norm(x[0]).startswith("total ")),
                    parts.get((r, c)),
                )
            )
    return out, skipped


def _column_year(header: list[str]) -> tuple[int | None, str | None]:
    """The lowest header cell naming exactly one year, with its text; (0, text) when it
    names a span of two consecutive years (``2017/2018``, ``2021-2022``: not judged)."""
    for text in reversed(header):
        short = _FISCAL_SHORT.match(text)
        if short is not None:  # "F19", "FY19": a fiscal year in two digits, 20xx
            return 2000 + int(short.group(1)), text
        years = sorted(set(_YEAR.findall(_SPACED.sub(lambda m: m.group().replace(" ", ""), text))))
        if len(years) == 1 and _SPAN.search(text):
            return 0, text
        if len(years) == 1:
            return int(years[0]), text
        if len(years) == 2 and int(years[1]) - int(years[0]) == 1 and _SPAN.search(text):
            return 0, text
    return None, None


_FISCAL_SHORT = re.compile(r"(?i)^\s*fy?\s?'?(\d\d)(?:\s*\(\d{1,2}\))?\s*$")
"""A header naming a fiscal year by two digits (``F19``, ``FY19``, ``F18 (3)``): 20xx (the
dev reports are of 2017–2020)."""
_SPACED = re.compile(r"\b(?:1 9|2 0) \d \d\b")
"""A year letter-spaced by a PDF: ``2 0 1 8``."""
_SPAN = re.compile(r"(?:19|20)\d\d\s*[/-]\s*(?:(?:19|20)?\d\d)\b")


_QUARTER = re.compile(
    r"(?i)\bq([1-4])\b|\b([1-4])q\s*'?\d{2}\b|\b(first|second|third|fourth|1st|2nd|3rd|4th)"
    r"\s+(?:fiscal\s+)?quarter\b"
)
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
_PART = re.compile(
    r"(?i)\b(?:three|six|nine|3|6|9)\s+months\b|\b(?:13|26|39)\s+weeks\b|\bquarters?\s+ended\b"
    r"|\bhalf[- ]year\b|\binterim\b|\byear[- ]to[- ]date\b"
)


def _column_part(grid: list[list[str]], header_rows: range, c: int, label: str) -> str:
    """The part of the year column ``c``'s header names, else its row label (a table whose
    rows are the quarters: module docstring)."""
    for r in reversed(header_rows):
        text = grid[r][c].strip()
        ordinals = sum(1 for x in grid[r][1:] if x.strip().lower() in _ORDINALS)
        if text.lower() in _ORDINALS and ordinals >= 3:
            return f"q{_ORDINALS[text.lower()]}"
        found = _QUARTER.search(text)
        if found is not None:
            n = found.group(1) or found.group(2) or _ORDINALS[found.group(3).lower()]
            return f"q{n}"
        if _PART.search(text):
            return "part"
    found = _QUARTER.fullmatch(label.strip())
    if found is not None:
        n = found.group(1) or found.group(2) or _ORDINALS[found.group(3).lower()]
        return f"q{n}"
    return "full"


def _region_of(text: str) -> str | None:
    """The region (tatqa_scopes.REGIONS) a text names, whole (a trailing colon, "Total"
    and footnote marks aside), or None."""
    name = norm(gold_label(re.sub(r"(?i)^\s*total\s+", "", text)))
    region = tatqa_scopes._REGION_BY_LABEL.get(name)
    return region.name if region is not None else None


_SCOPE_WORDS = re.compile(
    r"\b(?:segments?|divisions?|discontinued|held for sale|pro forma|acquired|acquisitions?|"
    r"parent|adjusted|non gaap|underlying|normali[sz]ed|deferred tax|tax effects?|"
    r"compensation|depreciation|amortization|includes|included|domestic|foreign|"
    r"international|overseas)\b"
)
_SCOPE_TEXT = re.compile(
    r"\bdiscontinued\b|\bpurchase price\b|\bpro forma\b|\bparent company\b|"
    r"\bcompensation expense\b|\bdepreciation and amortization\b|\bsegments?\b|"
    r"\bby (?:geographic|region|country)"
)


_DEFERRED_TAX = re.compile(r"\bdeferred (?:income )?tax")
"""A table of deferred tax balances: its rows are the tax effects of items."""


def _heads_a_part(paragraph: str) -> bool:
    """A short paragraph (a heading) naming a segment or a geography."""
    words = norm(paragraph).split()
    if not words or len(words) > 8:
        return False
    text = " ".join(words)
    return "segment" in words or any(
        re.search(rf"\b{re.escape(label)}\b", text) for label in tatqa_scopes._REGION_BY_LABEL
    )


_SPLIT_WORDS = re.compile(
    r"\b(?:q[1-4]|[1-4]q\s*\d{2}|(?:first|second|third|fourth|1st|2nd|3rd|4th)(?:\s+fiscal)?"
    r"\s+quarter|quarter|full\s+year|(?:three|six|nine|twelve)\s+months(?:\s+ended)?"
    r"|adjusted|non\s+gaap|gaap|as\s+reported|underlying|normali[sz]ed"
    r"|(?:from\s+|of\s+)?discontinued\s+operations?|held\s+for\s+sale|acquired|assumed"
    r"|segments?|domestic|foreign|international|overseas)\b"
)
"""The words a scope split takes out of a label: parts of the year, adjusted, GAAP,
discontinued operations, the geographies named relative to the company."""


def _without_scope(text: str) -> str:
    """``text`` normalised, without the scope words of a split (module docstring)."""
    name = norm(text)
    for label in sorted(tatqa_scopes._REGION_BY_LABEL, key=len, reverse=True):
        name = re.sub(rf"\b{re.escape(label)}\b", " ", name)
    return " ".join(_SPLIT_WORDS.sub(" ", name).split())


def _header_like(row: list[str]) -> bool:
    """No number after the first cell, and some cell after it written (not a dash)."""
    rest = [x.strip() for x in row[1:]]
    return not any(cell_number(x) for x in rest) and any(
        x and not re.fullmatch(r"[-–—]+|[$€£]\s*[-–—]+|nil|n/?a", x, re.I) for x in rest
    )


def _repeats_header(grid: list[list[str]], r: int) -> bool:
    """A row below the figures that repeats the header: header-like, naming a year."""
    return _header_like(grid[r]) and any(_YEAR.search(x) for x in grid[r][1:])


def _title_year(grid: list[list[str]], header_rows: range) -> tuple[int, str] | None:
    """A header row with one cell after the first, naming one year, or a top-left cell
    naming one: the title of the whole table (``As of December 31, 2019`` over ``Level 1 |
    Level 2 | Total``)."""
    if header_rows and _PERIOD_LABEL.match(grid[header_rows.start][0]):
        year, text = _column_year([grid[header_rows.start][0]])
        if year:
            return year, text or ""
    for r in reversed(header_rows):
        cells = [x for x in grid[r][1:] if x.strip()]
        if len(cells) == 1 and len(grid[r]) > 2:
            year, text = _column_year(cells)
            if year:
                return year, text or ""
    return None


def _percent_column(grid: list[list[str]], header_rows: int, c: int) -> bool:
    """A column whose values are mostly percentages: its bare numbers are percentages too."""
    cells = [grid[r][c] for r in range(header_rows, len(grid)) if grid[r][c].strip()]
    percents = sum("%" in x for x in cells)
    change = any(re.search(r"(?i)change", grid[r][c]) for r in range(header_rows))
    return percents * 2 >= len(cells) > 0 or (change and percents > 0)


# --------------------------------------------------------------------------- judging

COLUMN_JOIN = " — "
GROUP_JOIN = ": "


SCOPES = {
    "discontinued operations": re.compile(r"\bdiscontinued\b|\bheld for sale\b|\bdisposal group\b"),
    "acquired business": re.compile(r"\bacquired\b|\bacquisitions?\b|\bpurchase price\b"),
    "pro forma": re.compile(r"\bpro forma\b"),
}
"""The context joins' qualifiers, each with the words a paragraph names it by."""


def context_join(part: str, cell: GoldCell) -> bool:
    """Whether a qualifier or a group is one the context's paragraphs write (module
    docstring)."""
    name = norm(part)
    scope = SCOPES.get(name)
    if scope is not None:
        return scope.search(cell.paragraphs) is not None
    words = name.split()  # the group's words, in order, as a phrase of the paragraphs
    phrase = r"\s+".join(rf"{re.escape(w)}s?" for w in words)
    return bool(words) and re.search(rf"\b{phrase}\b", cell.paragraphs) is not None


def label_agrees(fact_label: str | None, cell: GoldCell) -> tuple[bool, bool]:
    """(exact, by the documented joins) — module docstring."""
    got, want = norm(fact_label), norm(cell.label)
    if got == want:
        return True, True
    if fact_label is None:
        return False, False
    row, *qualifiers = fact_label.split(COLUMN_JOIN)
    header_words = set(norm(cell.header).split())
    if not want:  # no row label: the column's header alone names the quantity, or nothing
        return False, set(got.split()) <= header_words
    in_header = [set(norm(q).split()) <= header_words for q in qualifiers]
    scoped = [context_join(q, cell) for q in qualifiers]
    if not all(h or c for h, c in zip(in_header, scoped, strict=True)):
        return False, False
    if norm(row) == want:
        return False, True
    group, colon, rest = row.rpartition(GROUP_JOIN)
    if colon and norm(rest) == want and cell.groups and norm(group) == norm(cell.groups[0]):
        return False, True
    if colon and norm(rest) == want and context_join(group, cell):
        return False, True
    return False, False


def split_agrees(fact: AmountFact, cell: GoldCell) -> bool:
    """Whether a fact stating a scope or a part of the year agrees by a scope split: its
    label (its column qualifiers too) is the gold's, the scope words taken out; a row left
    empty by them is named by its column or its group (module docstring)."""
    if (fact.scope == "own" and fact.period_part == "full") or not fact.label:
        return False
    row, *qualifiers = fact.label.split(COLUMN_JOIN)
    header_words = set(_without_scope(cell.header).split())
    if any(not set(_without_scope(q).split()) <= header_words for q in qualifiers):
        return False
    want, got = _without_scope(cell.label), _without_scope(row)
    around = {
        w
        for text in (cell.header, *cell.groups, cell.totals, cell.paragraphs)
        for w in _without_scope(text).split()
    }
    if want:
        _, colon, rest = row.rpartition(GROUP_JOIN)
        if got == want or (bool(colon) and _without_scope(rest) == want):
            return True
        # a part's name taken out whole ("Total Marine Services segment revenue"; "JPKO"
        # under "Net Sales", named by the column), what is left named around the cell
        named = set(norm(fact.scope_name).split())
        left = [w for w in want.split() if w not in named and w != "total"]
        if not named or len(left) == len(want.split()):
            return False
        kept = [w for w in got.split() if w != "total"]
        return left == kept or (not left and set(got.split()) <= around)
    return bool(got) and set(got.replace(GROUP_JOIN.strip(), " ").split()) <= around


def by_context(fact_label: str, cell: GoldCell) -> bool:
    """Whether a label agrees only by a context join."""
    row, *qualifiers = fact_label.split(COLUMN_JOIN)
    group, colon, _ = row.rpartition(GROUP_JOIN)
    header_words = set(norm(cell.header).split())
    if any(not set(norm(q).split()) <= header_words for q in qualifiers):
        return True
    return bool(colon) and not (cell.groups and norm(group) == norm(cell.groups[0]))


def _category(fact: AmountFact | None, cell: GoldCell) -> str:
    """Why a label disagrees, for the listing."""
    if fact is None:
        return "no fact"
    if fact.label is None:
        return "no label"
    got, want = norm(fact.label), norm(cell.label)
    row = norm(fact.label.split(COLUMN_JOIN)[0])
    if row == want or row.endswith(" " + want):
        return "qualifier or group not in the table"
    if want and want in got:
        return "extra words"
    if got and got in want:
        return "words missing"
    return "other label"


Locate = Callable[[GoldCell], "AmountFact | None"]


def by_span(facts: dict[str, list[AmountFact]]) -> Locate:
    """The fact whose evidence overlaps the cell's text (a Markdown document: the
    conversion knows where it wrote every cell)."""

    def locate(cell: GoldCell) -> AmountFact | None:
        start, end = cell.span
        return next(
            (f for f in facts.get(cell.doc_id, []) if f.start < end and start < f.end), None
        )

    return locate


def by_row_line(
    contexts: list[Context], texts: dict[str, str], facts: dict[str, list[AmountFact]]
) -> Locate:
    """For a document the HTML loader rewrote: the row's line is the one the loader
    starts with the row label and `` — `` (the n-th such line for the n-th row of that
    label); on it, the cells' figures are matched to the facts' in order."""
    found: dict[tuple[str, int, int], AmountFact] = {}
    for context in contexts:
        text = texts.get(context.doc_id, "")
        doc_facts = facts.get(context.doc_id, [])
        seen: Counter[str] = Counter()
        by_row: dict[int, list[GoldCell]] = {}
        for cell in context.cells:
            by_row.setdefault(cell.row, []).append(cell)
        for r, row in enumerate(context.rows):
            label = " ".join(row[0].split())
            if not any(x.strip() for x in row[1:]):
                continue
            first = next(" ".join(x.split()) for x in row[1:] if x.strip())
            nth = seen[label or first]
            seen[label or first] += 1
            if r not in by_row:
                continue
            if label:
                line = rf"(?m)^{re.escape(label)} — "
            else:  # a row with no label: the loader writes its cells alone
                line = rf"(?m)^(?!.* — )(?=(?:.*?(?:: |; ))?{re.escape(first)}(?:;|$))"
            starts = [m.start() for m in re.finditer(line, text)]
            if nth >= len(starts):
                continue
            line_end = text.find("\n", starts[nth])
            line_end = len(text) if line_end < 0 else line_end
            on_line = [f for f in doc_facts if starts[nth] <= f.start < line_end]
            for cell in by_row[r]:
                figures = _digits(cell.text)
                fact = next((f for f in on_line if _digits(f.raw) == figures), None)
                if fact is not None:
                    on_line.remove(fact)
                    found[(cell.doc_id, cell.row, cell.column)] = fact

    def locate(cell: GoldCell) -> AmountFact | None:
        return found.get((cell.doc_id, cell.row, cell.column))

    return locate


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def judge(contexts: list[Context], locate: Locate) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    disagreements: dict[str, list[dict[str, Any]]] = {}

    def note(kind: str, cell: GoldCell, fact: AmountFact | None, **extra: Any) -> None:
        disagreements.setdefault(kind, []).append(
            {
                "doc": cell.doc_id,
                "cell": [cell.row, cell.column],
                "text": cell.text,
                "gold_label": cell.label,
                "header": cell.header,
                "gold_year": cell.year,
                "label": fact.label if fact else None,
                "period": fact.period if fact else None,
                "year": fact.year if fact else None,
                "value": fact.value if fact else None,
                **extra,
            }
        )

    for context in contexts:
        for cell in context.cells:
            fact = locate(cell)
            counts["cells"] += 1
            counts["with fact"] += fact is not None
            if fact is None:
                note("coverage: no fact", cell, None)
                continue
            exact, joined = label_agrees(fact.label, cell)
            split = not joined and split_agrees(fact, cell)
            counts["label exact"] += exact
            counts["label"] += joined or split
            counts["label by a scope split"] += split
            if joined and not exact and fact.label:
                counts["label with a column qualifier"] += COLUMN_JOIN in fact.label
                counts["label with its group"] += GROUP_JOIN in fact.label.split(COLUMN_JOIN)[0]
                counts["label by a context join"] += by_context(fact.label, cell)
            if not (joined or split):
                note(f"label: {_category(fact, cell)}", cell, fact)
            _judge_scope(counts, note, cell, fact)
            if cell.year is not None:
                counts["with year"] += 1
                counts["year"] += fact.year == cell.year
                in_header = bool(fact.period) and norm(fact.period) in norm(cell.period_text)
                counts["period text"] += in_header
                if fact.year != cell.year:
                    note("period: year differs" if fact.year else "period: none", cell, fact)
            elif not cell.year_span:
                counts["without year"] += 1
                counts["no year"] += fact.year is None
                if fact.year is not None:
                    note("period: a year where the table names none", cell, fact)
            if not cell.zero and _LOSS.search(f"{cell.label} {cell.header}"):
                counts["loss labels"] += 1  # the sign policy decides: counted apart
                counts["loss labels negative"] += fact.value < 0
            elif not cell.zero:
                counts["signed"] += 1
                ok = (fact.value < 0) == cell.negative
                counts["sign"] += ok
                if not ok:
                    note("sign", cell, fact)
            if cell.expected is not None:
                counts["valued"] += 1
                ok = fact.magnitude == cell.expected
                counts["value"] += ok
                if not ok:
                    note("value", cell, fact, expected=cell.expected)
            else:
                counts["value not judged"] += 1
    return {"counts": dict(counts), "disagreements": disagreements}


def _judge_scope(
    counts: Counter[str],
    note: Callable[..., None],
    cell: GoldCell,
    fact: AmountFact,
) -> None:
    """Period part and scope against what the table writes (module docstring)."""
    kind = "part named" if cell.part != "full" else "part none"
    counts[f"with {kind}"] += 1
    ok = fact.period_part == cell.part
    counts[kind] += ok
    if not ok:
        note(f"period part: {cell.part} read {fact.period_part}", cell, fact)
    if cell.reading is not None:
        kind, name = cell.reading
        counts[f"with reading {kind}"] += 1
        names = {norm(name)} | {
            norm(n) for r in tatqa_scopes.REGIONS if r.name == name for n in r.labels
        }
        ok = (
            fact.scope == "adjusted"
            if kind == "adjusted"
            else (fact.scope in ("segment", "region") and norm(fact.scope_name) in names)
        )
        counts[f"reading {kind}"] += ok
        if not ok:
            note(
                f"scope: the reading's {kind} not read",
                cell,
                fact,
                scope=[fact.scope, fact.scope_name],
            )
    if cell.region is not None:
        counts["with region"] += 1
        names = {norm(n) for r in tatqa_scopes.REGIONS if r.name == cell.region for n in r.labels}
        ok = fact.scope == "region" and norm(fact.scope_name) in names | {norm(cell.region)}
        counts["region"] += ok
        if not ok:
            note("scope: region not read", cell, fact, scope=[fact.scope, fact.scope_name])
    elif cell.names_no_part:
        counts["with no part"] += 1
        counts["own"] += fact.scope == "own"
        if fact.scope != "own":
            note(
                "scope: a part where none is named", cell, fact, scope=[fact.scope, fact.scope_name]
            )


def rate(counts: dict[str, int], hit: str, total: str) -> float | None:
    return counts.get(hit, 0) / counts[total] if counts.get(total) else None


def summary(counts: dict[str, int]) -> dict[str, Any]:
    return {
        "gold_cells": counts.get("cells", 0),
        "coverage": rate(counts, "with fact", "cells"),
        "label": rate(counts, "label", "with fact"),
        "label_exact": rate(counts, "label exact", "with fact"),
        "cells_with_year": counts.get("with year", 0),
        "year": rate(counts, "year", "with year"),
        "period_text": rate(counts, "period text", "with year"),
        "cells_without_year": counts.get("without year", 0),
        "no_year": rate(counts, "no year", "without year"),
        "sign": rate(counts, "sign", "signed"),
        "cells_valued": counts.get("valued", 0),
        "value": rate(counts, "value", "valued"),
        "cells_part_named": counts.get("with part named", 0),
        "period_part_named": rate(counts, "part named", "with part named"),
        "cells_part_none": counts.get("with part none", 0),
        "period_part_full": rate(counts, "part none", "with part none"),
        "cells_region": counts.get("with region", 0),
        "scope_region": rate(counts, "region", "with region"),
        "cells_no_part": counts.get("with no part", 0),
        "scope_own": rate(counts, "own", "with no part"),
        **{
            f"cells_reading_{kind}": counts.get(f"with reading {kind}", 0)
            for kind in ("segment", "region", "adjusted")
        },
        **{
            f"scope_reading_{kind}": rate(counts, f"reading {kind}", f"with reading {kind}")
            for kind in ("segment", "region", "adjusted")
        },
    }


# --------------------------------------------------------------------------- prose


def prose(
    contexts: list[dict[str, Any]],
    rendered: dict[str, Rendered],
    facts: dict[str, list[AmountFact]],
) -> dict[str, Any]:
    """The annotated prose amounts (module docstring): coverage, value, label, year."""
    counts: Counter[str] = Counter()
    for context in contexts:
        doc = rendered["tatqa-" + context["table"]["uid"][:8]]
        doc_facts = facts.get(doc.doc_id, [])
        for q in context["questions"]:
            if q["answer_type"] not in ("span", "multi-span") or q["answer_from"] != "text":
                continue
            answers = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
            for answer in map(str, answers):
                _prose_answer(counts, doc, doc_facts, q, answer.strip())
    return {
        "amounts": counts["amounts"],
        "with_fact": counts["with fact"],
        "labelled_count": counts["labelled"],
        "coverage": rate(counts, "with fact", "amounts"),
        "labelled": rate(counts, "labelled", "with fact"),
        "label_in_question": rate(counts, "label in question", "labelled"),
        "valued": counts["valued"],
        "value": rate(counts, "value", "valued"),
        "with_year": counts["with year"],
        "year": rate(counts, "year", "with year"),
    }


_PROSE_AMOUNT = re.compile(
    r"(?P<sign>[$€£])\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s*(?P<word>thousand|million|billion))?"
)


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _prose_answer(
    counts: Counter[str], doc: Rendered, doc_facts: list[AmountFact], q: dict[str, Any], answer: str
) -> None:
    """One annotated prose answer: an amount with a currency sign (and a scale word)."""
    match = _PROSE_AMOUNT.fullmatch(answer)
    if match is None:
        return
    for order in q["rel_paragraphs"]:
        start, end = doc.paragraphs.get(int(order), (0, 0))
        at = doc.text.find(answer, start, end)
        if at >= 0:
            break
    else:
        return
    counts["amounts"] += 1
    stop = at + len(answer)
    fact = next((f for f in doc_facts if f.start < stop and at < f.end), None)
    if fact is None:
        return
    counts["with fact"] += 1
    if fact.label is not None:
        counts["labelled"] += 1
        asked = {_stem(w) for w in norm(q["question"]).split()}
        counts["label in question"] += all(_stem(w) in asked for w in norm(fact.label).split())
    word = (match.group("word") or "").lower()
    if SCALE_EXPONENTS.get(word, 0) == SCALE_EXPONENTS.get(q["scale"], 0):
        counts["valued"] += 1
        value = Decimal(match.group("num").replace(",", "")).scaleb(
            SCALE_EXPONENTS.get(word, 0) + 2
        )
        counts["value"] += fact.magnitude == int(value)
    years = set(_YEAR.findall(q["question"]))
    if len(years) == 1:
        counts["with year"] += 1
        counts["year"] += fact.year == int(years.pop())


# --------------------------------------------------------------------------- run


def extracted(root: Path) -> dict[str, tuple[str, list[AmountFact]]]:
    """doc id → (text, facts), read as ingest reads them."""
    config = ExtractionConfig()
    out: dict[str, tuple[str, list[AmountFact]]] = {}
    for doc in load_corpus(root):
        if isinstance(doc, Document):
            values = extract_values(doc.text, config, start=doc.content_start)
            out[Path(doc.source_path).stem] = (doc.text, values.facts)
    return out


def run(dataset: Path, out: Path, form: str = "markdown") -> dict[str, Any]:
    """Convert, extract and judge; ``form="html"``: the documents are written as HTML and
    read by the HTML loader, which writes tables its own way (``label — Header: cell``
    lines): cells are then matched on their row's line (:func:`by_row_line`)."""
    contexts = json.loads(dataset.read_text(encoding="utf-8"))
    corpus = out / f"corpus-{form}"
    corpus.mkdir(parents=True, exist_ok=True)
    rendered: dict[str, Rendered] = {}
    gold: list[Context] = []
    skipped: Counter[str] = Counter()
    for context in contexts:
        doc = render(context)
        rendered[doc.doc_id] = doc
        if form == "html":
            (corpus / f"{doc.doc_id}.html").write_text(html(context), encoding="utf-8")
        else:
            (corpus / f"{doc.doc_id}.md").write_text(doc.text, encoding="utf-8")
        found, why = read_context(context, doc)
        gold.append(found)
        skipped.update(why)
    read = extracted(corpus)
    facts = {doc_id: f for doc_id, (_, f) in read.items()}
    if form == "html":
        result = judge(gold, by_row_line(gold, {d: t for d, (t, _) in read.items()}, facts))
        return {
            "dataset": dataset.name,
            "form": form,
            "documents": len(contexts),
            "tables": summary(result["counts"]),
            "counts": result["counts"],
            "number_cells_not_gold": dict(skipped),
            "disagreements": {k: v for k, v in sorted(result["disagreements"].items())},
        }
    for doc_id, (text, _) in read.items():
        if text != rendered[doc_id].text:
            raise SystemExit(f"{doc_id}: the loaded text differs from the written one")
    result = judge(gold, by_span(facts))
    return {
        "dataset": dataset.name,
        "form": form,
        "documents": len(contexts),
        "tables": summary(result["counts"]),
        "counts": result["counts"],
        "number_cells_not_gold": dict(skipped),
        "prose": prose(contexts, rendered, facts),
        "disagreements": {k: v for k, v in sorted(result["disagreements"].items())},
    }


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _prose_lines(p: dict[str, Any]) -> list[str]:
    return [
        f"| prose: coverage | {p['amounts']} | {_pct(p['coverage'])} |",
        f"| prose: has a label | {p['with_fact']} | {_pct(p['labelled'])} |",
        f"| prose: label's words in the question | {p['labelled_count']} | "
        f"{_pct(p['label_in_question'])} |",
        f"| prose: value | {p['valued']} | {_pct(p['value'])} |",
        f"| prose: year (question names one) | {p['with_year']} | {_pct(p['year'])} |",
    ]


def report(result: dict[str, Any], listed: int) -> str:
    t, c = result["tables"], result["counts"]
    p = result.get("prose")
    lines = [
        f"TAT-QA {result['dataset']}: {result['documents']} documents, "
        f"{t['gold_cells']} gold money cells ({result['form']})",
        "",
        "| measure | over | agreement |",
        "| --- | ---: | ---: |",
        f"| coverage (a fact at the cell) | {t['gold_cells']} | {_pct(t['coverage'])} |",
        f"| label (row, or its documented joins) | {c.get('with fact', 0)} | {_pct(t['label'])} |",
        f"| label exact | {c.get('with fact', 0)} | {_pct(t['label_exact'])} |",
        f"| (agreeing with a column qualifier / with its group / by a context join / by a "
        f"scope split) | {c.get('with fact', 0)} | {c.get('label with a column qualifier', 0)}"
        f" / {c.get('label with its group', 0)} / {c.get('label by a context join', 0)} / "
        f"{c.get('label by a scope split', 0)} |",
        f"| year (period) | {t['cells_with_year']} | {_pct(t['year'])} |",
        f"| period text in the header | {t['cells_with_year']} | {_pct(t['period_text'])} |",
        f"| no year where the table names none | {t['cells_without_year']} | "
        f"{_pct(t['no_year'])} |",
        f"| sign | {c.get('signed', 0)} | {_pct(t['sign'])} |",
        f"| (loss-word labels stored negative) | {c.get('loss labels', 0)} | "
        f"{_pct(rate(c, 'loss labels negative', 'loss labels'))} |",
        f"| value (scale stated) | {t['cells_valued']} | {_pct(t['value'])} |",
        f"| period part: the column's quarter or part | {t['cells_part_named']} | "
        f"{_pct(t['period_part_named'])} |",
        f"| period part: full where the column names none | {t['cells_part_none']} | "
        f"{_pct(t['period_part_full'])} |",
        f"| scope: region where the row, column or group is one | {t['cells_region']} | "
        f"{_pct(t['scope_region'])} |",
        f"| scope: own where the table names no part | {t['cells_no_part']} | "
        f"{_pct(t['scope_own'])} |",
        *(
            f"| scope: the scope reading's {kind} (tatqa_scopes) | {t[f'cells_reading_{kind}']}"
            f" | {_pct(t[f'scope_reading_{kind}'])} |"
            for kind in ("segment", "region", "adjusted")
        ),
        *(_prose_lines(p) if p else []),
        "",
        "number cells not gold: "
        + ", ".join(f"{k} {v}" for k, v in sorted(result["number_cells_not_gold"].items())),
        "",
        "| disagreement | cells |",
        "| --- | ---: |",
        *(f"| {k} | {len(v)} |" for k, v in result["disagreements"].items()),
    ]
    for kind, items in result["disagreements"].items():
        for item in items[:listed]:
            lines.append(f"  {kind}: {json.dumps(item, ensure_ascii=False)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/facts_agreement"))
    parser.add_argument("--json", type=Path, help="where to write the JSON result")
    parser.add_argument(
        "--disagreements", type=int, default=0, help="list up to N cells of each kind"
    )
    parser.add_argument(
        "--form",
        choices=["markdown", "html"],
        default="markdown",
        help="documents as Markdown pipe tables, or as HTML read by the HTML loader",
    )
    args = parser.parse_args(argv)
    result = run(args.dataset, args.out, args.form)
    print(report(result, args.disagreements))
    suffix = "" if args.form == "markdown" else f"-{args.form}"
    target = args.json or Path(f"benchmarks/results/facts_agreement{suffix}.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
