"""The text around a table or an amount: what the heading it stands under and the sentence
describing a table say of whose figures they are and of the part of the year.

A table's cells do not say whose figures they are; the words before it often do:

* the **heading** of the section it stands in — the nearest short line above it (a
  Markdown heading, a bold line, a title), within :data:`REACH` characters, that is not a
  sentence — when it names one part of the company and nothing else (``Consumer Cyber
  Safety segment``, ``North America``, ``Asia Pacific region``: that part's figures), a
  part of the year (``Fourth quarter 2023 highlights``: the quarter's), the parts the
  table's rows are (``Revenue by segment``, ``Sales by geographic area``: each row a part,
  of the quantity named before "by"; a longer phrase names its clause's last quantity
  noun: "presents total external revenues by geographic location" → ``revenues``; a
  heading naming only the parts takes the quantity the describing sentence names), or an
  acquired business (``Purchase price allocation``), or expected figures (``2024
  Outlook``, ``Guidance``: forecasts, :data:`~osrag.lexicon.scopes.FORECAST_VERBS`);
* the **sentence describing** the table — the one that introduces it at the end of the
  paragraph right before it ("… as follows:"), else that paragraph's sentence saying "the
  following table" or "the table below" — naming discontinued operations (discontinued,
  held for sale, disposal group), an acquired business (purchase price, assets acquired,
  liabilities assumed, consideration transferred, the acquired company), pro forma
  figures, the parent company alone, the tax effects of temporary differences (a deferred
  tax table: its rows are the tax effects of their items), one part of the company ("the
  results of our Consumer segment"), or the parts its rows are ("revenue by reportable
  segment"). A mention that sets them aside ("excluding discontinued operations",
  "including …") names none;
* the sentence introducing a table as an **allocation** of stock-based compensation,
  depreciation or amortization (:func:`allocated_quantity`);
* a heading naming the statement's own period ("Charges for **this quarter**", "**Current
  month's** charges"): the figures are the period's own, whatever its length — no part of
  a year;
* a heading or describing sentence saying the figures are **quarterly** ("Quarterly
  results", "Selected Quarterly Financial Data", "for each quarter"): a column headed by a
  date is then a quarter's, not the year's.

An amount in prose takes the part of the company or of the year its section's heading names,
or its heading's saying the section's figures are expected (:func:`heading_context`), when
its own sentence names none.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

from osrag.extract.marks import FIGURE_OR_SIGN
from osrag.lexicon.label_roles import ALLOCATED_CHARGE, OPTIONAL_LEADS
from osrag.lexicon.periods import PeriodPart
from osrag.lexicon.quantities import is_quantity_noun
from osrag.lexicon.scopes import (
    PART_KIND_WORDS,
    PART_KINDS,
    PARTS,
    PARTS_BY,
    QUARTERLY,
    SEGMENTS_OF,
    TAX_EFFECTS_OF,
    Scope,
    names_forecast,
    period_part_of,
    read_scope,
    scope_of,
)
from osrag.lexicon.words import phrase_words

__all__ = [
    "REACH",
    "Context",
    "allocated_quantity",
    "heading_above",
    "heading_context",
    "parts_named",
    "table_context",
]

REACH = 1500
"""How far above a table or an amount (characters) its section's heading is looked for."""


@dataclass(frozen=True, slots=True)
class Context:
    """What the text around a table or an amount says of its figures."""

    scope: Scope = "own"
    scope_name: str | None = None
    period_part: PeriodPart | None = None
    parts: Scope | None = None
    """The table's rows are parts of the company of this kind ("Revenue by segment")."""
    quantity: str | None = None
    """The quantity those parts are figures of, when the words say it ("Revenue")."""
    quarterly: bool = False
    """The figures are quarterly: a column headed by a date is a quarter's."""
    offers: str | None = None
    """What each row is one of, when the heading names a range of offers ("Sponsorship
    packages": a row "Gold" is the gold sponsorship package)."""


NONE = Context()

_INTRODUCES = re.compile(r"(?i)(?:as\s+follows|the\s+following|by\s+line\s+item|:)\s*[.:]?\s*$")
_LAST_SENTENCE = re.compile(r"(?s)(?:^|[.!?]\s)([^.!?]*)$")
_DESCRIBES = re.compile(
    r"(?i)\b(?:the\s+following\s+(?:table|schedule|summary)|the\s+table\s+below|"
    r"(?:is|are)\s+(?:as\s+follows|set\s+out\s+below|presented\s+below))"
)
_SENTENCES = re.compile(r"[^.!?]+(?:[.!?](?=\s|$)|$)")
_ENTITIES: tuple[tuple[Scope, re.Pattern[str]], ...] = (
    ("discontinued", re.compile(r"(?i)\bdiscontinued\b|\bheld\s+for\s+sale\b|\bdisposal\s+group")),
    (
        "acquired",
        re.compile(
            r"(?i)\bpurchase\s+price\b|\b(?:assets|net\s+assets)\s+acquired\b|"
            r"\bliabilities\s+assumed\b|\bconsideration\s+transferred\b|"
            r"\bacquired\s+(?:business|compan|entit|subsidiar)"
        ),
    ),
    ("pro_forma", re.compile(r"(?i)\bpro\s+forma\b")),
    ("parent", re.compile(r"(?i)\bparent\s+(?:entity|company)\b|\bregistrant\b(?=.*\bparent\b)")),
    ("tax_effect", TAX_EFFECTS_OF),
)
"""Whose figures a describing sentence (or a heading) says a table holds, by its words."""
_BESIDE = re.compile(
    r"(?i)\b(?:exclud\w*|includ\w*|except|other\s+than|without|net\s+of|less|before|"
    r"from\s+continuing)\W+(?:\w+\W+){0,2}$"
)
_LINE_MARKUP = re.compile(r"^[#>*_\s]+|[*_\s]+$")
_MARKED_START, _MARKED_END = ("#", ">", "*", "_"), ("*", "_")
"""The first and last characters of a stripped line :data:`_LINE_MARKUP` can take off."""


def allocated_quantity(text: str, table_start: int) -> str | None:
    """The quantity the sentence right before a table says the table spreads over lines:
    ``The Company recognized … of stock-based compensation expense … as follows:`` →
    ``Stock-based compensation expense`` — stock-based compensation, depreciation and
    amortization are charged to cost of revenue, research and development … and a table
    of them is that charge, not those lines. Only a sentence that ends by introducing the
    table (``as follows``, ``the following``, a colon) and names one of them counts."""
    before = text[max(0, table_start - 600) : table_start].rstrip()
    paragraph = before.rsplit("\n\n", 1)[-1].strip()
    if not paragraph or "|" in paragraph or _INTRODUCES.search(paragraph) is None:
        return None
    sentence = _LAST_SENTENCE.search(paragraph)
    found = ALLOCATED_CHARGE.search(sentence.group(1) if sentence else paragraph)
    if found is None:
        return None
    name = " ".join(found.group(0).split())
    return name[:1].upper() + name[1:]


_OFFERS = re.compile(
    r"(?P<what>[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,2}) (?P<kind>packages|tiers)", re.I
)
"""A heading naming a range of offers ("Sponsorship packages", "Support tiers"): the
table's rows are its instances."""


_OWN_PERIOD = re.compile(
    r"(?i)\b(?:this|current)\s+(?:billing\s+|pay\s+|statement\s+)?"
    r"(?:quarter|month|week|period|cycle)\b"
)
"""A heading naming the statement's own period ("Charges for this quarter", "Current month's
charges", "This billing period"): a bill's or a statement's period is its whole, whatever
its length — the figures under it are the period's own, no part of a year."""


def _heading(before: str) -> str | None:
    """The nearest short line above (module docstring): a heading, not a sentence."""
    return _heading_in(before, max(0, len(before) - REACH), len(before))


def _heading_in(text: str, start: int, end: int) -> str | None:
    """:func:`_heading` of ``text[start:end]``, its paragraphs read back from ``end`` one
    at a time until one is a heading (most amounts: the first or the second), none of them
    copied before it is read."""
    found = _heading_at(text, start, end)
    return found[1] if found is not None else None


def heading_above(text: str, position: int) -> tuple[int, str] | None:
    """The nearest heading above ``position`` and where its paragraph starts: a Markdown
    heading line of the amount's own block, else the heading its section's paragraphs
    read back to (:func:`_heading_in`, within :data:`REACH`); None when none stands
    there."""
    start = max(0, position - REACH)
    cut = text.rfind("\n\n", start, position)
    own = None
    for found in _OWN_HEADING.finditer(text, cut + 2 if cut >= 0 else start, position):
        own = found  # the last one: the nearest
    if own is not None:
        return own.start(), own.group("title")
    return _heading_at(text, start, cut) if cut >= 0 else None


_OWN_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+(?P<title>[^\n]*?)[ \t#]*\n")
"""The last Markdown heading line of a block that runs on into its text with no blank
line ("## Season pass⏎$1,200 for the season")."""


def _heading_at(text: str, start: int, end: int) -> tuple[int, str] | None:
    """:func:`_heading_in`, with where the heading's paragraph starts."""
    first = False
    while not first:
        cut = text.rfind("\n\n", start, end)
        first = cut < 0
        at = start if first else cut + 2
        paragraph = text[at:end]
        end = cut
        # a run of three line breaks leaves its odd one at this paragraph's end rather
        # than at the next one's start, as a split from the left would: stripped alike
        line = paragraph.strip()
        if line[:1] in _MARKED_START or line[-1:] in _MARKED_END:  # else nothing to take off
            line = _LINE_MARKUP.sub("", line)
        if not line or "\n" in line or "|" in line or " — " in line:
            continue
        if len(line.split()) > 8 or line.endswith((".", ";", ",")):
            continue
        if line.startswith("(") and line.endswith(")"):
            continue  # a caption, "(in millions)"
        return at, line
    return None


def _one_part(words: str) -> Context | None:
    """The one part of the company ``words`` name (another part named beside it: none)."""
    reading = read_scope(words.split())
    if reading.scope not in PARTS or reading.scope_name is None:
        return None
    if read_scope(reading.what).scope in PARTS:
        return None  # "Americas, EMEA and Asia Pacific": no one part
    return Context(reading.scope, reading.scope_name)


def parts_named(text: str) -> Context | None:
    """The kind of part a table's top-left header or title names (``Reporting Segment``,
    ``Geographic area``; ``Segment Assets``: segments, of assets), or None."""
    words = phrase_words(text)
    if " ".join(words) in PART_KINDS:
        return Context(parts=PART_KINDS[" ".join(words)])
    of = SEGMENTS_OF.search(text)
    if of is not None:
        return Context(parts="segment", quantity=of.group("quantity"))
    kinds = {PART_KIND_WORDS[w] for w in words if w in PART_KIND_WORDS}
    if len(kinds) == 1 and len(words) <= 3:
        return Context(parts=kinds.pop())
    return None


def _parts(words: str) -> Context | None:
    """The parts a table's rows are ("Revenue by segment" → segments, of revenue: the
    quantity is the few words before "by", when they are words only)."""
    of = SEGMENTS_OF.search(words)
    if of is not None:
        return Context(parts="segment", quantity=of.group("quantity"))
    for kind, pattern in PARTS_BY:
        found = pattern.search(words)
        if found is not None:
            before = words[: found.start()].split()
            by = found.group(0).lower().startswith("by")
            named = 0 < len(before) <= 4 and by
            quantity = (
                " ".join(before) if named and _WORDS_ONLY.fullmatch(" ".join(before)) else None
            )
            if quantity is None and by:
                quantity = _quantity_before(before)
            return Context(parts=kind, quantity=quantity)
    return None


def _quantity_before(before: list[str]) -> str | None:
    """The quantity a longer sentence names before "by": the last quantity noun of its
    clause with the leads summing or netting it ("The following table presents total
    external revenues by geographic location" → ``revenues``; "a disaggregation of revenue
    from contracts with customers by delivery location" → ``revenue``; "sales information
    by geographic area" → ``sales``), or None when the clause names none."""
    clause = " ".join(before).rsplit(",", 1)[-1].split()
    for end in range(len(clause) - 1, -1, -1):
        if _WORDS_ONLY.fullmatch(clause[end]) and is_quantity_noun(clause[end]):
            break
    else:
        return None
    start = end
    while (
        start > 0
        and (is_quantity_noun(clause[start - 1]) or clause[start - 1].lower() in OPTIONAL_LEADS)
        and clause[start - 1].lower() != "total"
    ):
        start -= 1
    return " ".join(clause[start : end + 1])


_WORDS_ONLY = re.compile(r"[^\W\d_][\w&'’ -]*")


@functools.lru_cache(maxsize=1 << 12)
def _of_heading(line: str) -> Context | None:
    """What a heading says of the figures under it (module docstring)."""
    offers = _OFFERS.fullmatch(line.strip())
    if offers is not None:
        return Context(offers=f"{offers.group('what')} {offers.group('kind').lower()[:-1]}")
    if FIGURE_OR_SIGN.search(line) is None:
        what, scope, name, _ = scope_of(line)
        if scope in PARTS and name is not None and not what:
            return Context(scope, name)
        if scope == "forecast" and names_forecast(line.split()):
            return Context(scope)  # "2024 Outlook", "Fiscal 2025 guidance"
    parts = _parts(line)
    if parts is not None:
        return parts
    for scope, pattern in _ENTITIES[:2]:  # "Purchase price allocation", "Discontinued …"
        if pattern.search(line):
            return Context(scope)
    part = period_part_of(line.split())
    if part is not None and part != "full" and _OWN_PERIOD.search(line) is None:
        return Context(period_part=part)
    if QUARTERLY.search(line):
        return Context(quarterly=True)
    return None


def _describing(paragraph: str) -> str:
    sentences = [m.group(0).strip() for m in _SENTENCES.finditer(paragraph)]
    if _INTRODUCES.search(paragraph) is not None and sentences:
        return sentences[-1]
    return next((s for s in sentences if _DESCRIBES.search(s)), "")


def _of_sentence(describing: str) -> Context | None:
    """What the sentence describing a table says of its figures (module docstring)."""
    for scope, pattern in _ENTITIES:
        for found in pattern.finditer(describing):
            if _BESIDE.search(describing[: found.start()]) is None:
                return Context(scope)
    parts = _parts(describing)
    if parts is not None:
        return parts
    one = _one_part(describing)
    if one is not None:
        return one
    return Context(quarterly=True) if QUARTERLY.search(describing) else None


def table_context(text: str, table_start: int) -> Context:
    """What the heading above a table and the sentence describing it say of its figures
    (module docstring); :data:`NONE` when they say nothing."""
    before = text[max(0, table_start - REACH) : table_start].rstrip()
    paragraph = before.rsplit("\n\n", 1)[-1].strip()
    if not paragraph or "|" in paragraph:
        return NONE
    heading = _heading(before)
    found = _of_heading(heading) if heading is not None else None
    described = _of_sentence(_describing(paragraph))
    if found is not None and (found.scope != "own" or found.parts is not None):
        if found.quantity is None and described is not None and described.quantity:
            return dataclasses.replace(found, quantity=described.quantity)  # "… revenues by"
        return found
    if described is None:
        return found or NONE
    if found is not None and found.period_part is not None:  # a quarter's table of parts
        return Context(described.scope, described.scope_name, found.period_part, described.parts)
    return described


def heading_context(text: str, position: int) -> Context:
    """The part of the company or of the year the heading of the section holding
    ``position`` names (:data:`NONE` when it names neither)."""
    start = max(0, position - REACH)
    cut = text.rfind("\n\n", start, position)
    heading = _heading_in(text, start, cut) if cut >= 0 else None
    found = _of_heading(heading) if heading is not None else None
    if found is None or (
        found.scope not in PARTS and found.scope != "forecast" and found.period_part is None
    ):
        return NONE
    return Context(found.scope, found.scope_name, found.period_part)
