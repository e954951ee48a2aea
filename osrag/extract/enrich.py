"""Give every chunk the structured values stated in its source span.

The rule: values are extracted **once per document**, from ``doc.text``
starting at ``doc.content_start`` (front matter is not content), and each
chunk receives every mention whose source span overlaps the chunk's
``span``. So an amount that a fixed window cuts in two (``$300,`` | ``000``)
is still read whole, and given to both neighbours; reading each chunk's body
alone would have lost it or read ``$300``. Values stated in the chunk's
``breadcrumb`` are added too: a heading such as ``## $300,000 umbrella
limit`` scopes its whole section.

Fields written (the only ones changed; chunk ids depend on ``text`` alone, so
enrichment never changes an id):

* ``amounts`` — default-currency amounts in minor units, distinct, ascending
  (the ``long`` field that the amount filter uses; a euro amount never lands
  here when the default is USD);
* ``money`` — every amount as ``CUR:minor`` (``EUR:30000000``), distinct,
  sorted by currency then value (the ``keyword`` field);
* ``dates`` — distinct ISO dates, ascending;
* ``identifiers`` — distinct upper-cased identifiers, sorted;
* ``amount_evidence`` — for each amount in the chunk's span that a table caption scaled
  or a sign made negative, how it was read (:func:`evidence`), in text order; stored in
  ``_source``, not indexed, so a hit can show why ``$831.7`` is $831,700,000;
* ``facts`` — every amount in the chunk's span as an
  :class:`~osrag.schema.facts.AmountFact` (signed value, label, period, evidence;
  :mod:`osrag.extract.facts`), in text order, then those of its breadcrumb's headings
  (source ``heading``): the same amounts as ``money``, one fact per mention.

Table cells are read by :mod:`osrag.extract.tables` (the caption that governs each
cell scales it) and replace the plain scan's reading of the same figures. Below a line that
declares the currency ("All amounts in US dollars."), a key–value line's figure written in
cents is an amount in it too (:mod:`osrag.extract.declared`).

Amounts that cannot be stored exactly are skipped and logged (file, line and
reason) on the ``osrag.extract`` logger, never rounded or wrapped.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import functools
import logging
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, Field, SkipValidation

from osrag.chunking.plaintext import scan_plaintext
from osrag.errors import ExtractionError
from osrag.extract.dates import DateMention, extract_dates
from osrag.extract.facts.build import amount_facts
from osrag.extract.identifiers import IdentifierMention, extract_identifiers
from osrag.extract.marks import DIGIT
from osrag.extract.money import MoneyMention, RejectedMoney, may_state_money
from osrag.extract.money_reading import overlapping, read_money
from osrag.models import BREADCRUMB_SEPARATOR, Chunk, Document, ExtractionConfig
from osrag.schema.facts import AmountFact

log = logging.getLogger("osrag.extract")

TextFormat = Literal["markdown", "text"]
"""How a text marks its sections (:attr:`osrag.models.Document.format`)."""


class ExtractedValues(BaseModel):
    """Every structured value stated in one text, with spans into it."""

    money: list[MoneyMention] = Field(default_factory=list)
    facts: Annotated[list[AmountFact], SkipValidation] = Field(default_factory=list)
    """One fact per amount of ``money``, in the same order (:mod:`osrag.extract.facts`)."""
    rejected_money: list[RejectedMoney] = Field(default_factory=list)
    dates: list[DateMention] = Field(default_factory=list)
    identifiers: list[IdentifierMention] = Field(default_factory=list)


def _may_state_money_or_date(text: str, start: int) -> bool:
    """Every date has a digit; an amount without one is spelled out with a currency noun or
    code (:func:`~osrag.extract.money.may_state_money`); most headings have neither."""
    return DIGIT.search(text, start) is not None or may_state_money(text, start)


def extract_values(
    text: str, config: ExtractionConfig, *, start: int = 0, text_format: TextFormat = "markdown"
) -> ExtractedValues:
    """Money, dates and identifiers in ``text[start:]`` (spans index ``text``).
    ``text_format``: how the text marks its sections (a document's ``format``) — Markdown's
    ``#`` headings, or plain text's numbered and upper-case heading lines, read as the
    chunker reads them (:func:`~osrag.chunking.plaintext.scan_plaintext`): the heading above
    an amount may label it (:mod:`osrag.extract.facts.sections`)."""
    identifiers = extract_identifiers(text, config.identifier_patterns, pos=start)
    if not _may_state_money_or_date(text, start):
        return ExtractedValues(identifiers=identifiers)
    reading = read_money(text, config.default_currency, start=start)
    money, cells = reading.mentions, reading.cells
    return ExtractedValues(
        money=money,
        facts=amount_facts(text, money, cells, headings=_headings(text, start, text_format))
        if money
        else [],
        rejected_money=reading.rejected,
        dates=extract_dates(text, config.date_order, pos=start),
        identifiers=identifiers,
    )


def _headings(text: str, start: int, text_format: TextFormat) -> list[tuple[int, str]] | None:
    """The section headings of a plain text, where each starts and its title; None for
    Markdown (the facts read its ``#`` headings themselves)."""
    if text_format == "markdown":
        return None
    return [(h.start, h.text) for h in scan_plaintext(text, start).headings]


class _Values:
    """The distinct values of some mentions, ready to be written onto a chunk."""

    def __init__(self, default_currency: str) -> None:
        self.default_currency = default_currency
        self.money: set[tuple[str, int]] = set()
        self.dates: set[dt.date] = set()
        self.identifiers: set[str] = set()
        self.evidence: list[dict[str, object]] = []
        self.facts: list[AmountFact] = []

    def add(
        self,
        money: Sequence[MoneyMention],
        facts: Sequence[AmountFact],
        dates: Sequence[DateMention],
        identifiers: Sequence[IdentifierMention],
    ) -> _Values:
        if money:
            self.money.update([(m.currency, m.minor_units) for m in money])
            self.evidence.extend(evidence(m) for m in money if m.scale or m.negative)
            self.facts.extend(facts)
        if dates:
            self.dates.update([d.date for d in dates])
        if identifiers:
            self.identifiers.update([i.value for i in identifiers])
        return self

    def add_values(self, values: _HeadingValues, facts: Sequence[AmountFact]) -> _Values:
        money, dates, identifiers = values
        if money:
            self.money.update(money)
            spans = {(f.start, f.end) for f in self.facts}
            self.facts.extend(f for f in facts if (f.start, f.end) not in spans)
        if dates:
            self.dates.update(dates)
        if identifiers:
            self.identifiers.update(identifiers)
        return self

    def update(self) -> dict[str, object]:
        if not (self.money or self.dates or self.identifiers):  # most chunks: skip four sorts
            return {"amounts": [], "money": [], "dates": [], "identifiers": [], **_NO_EVIDENCE}
        return {
            "amounts": sorted(u for c, u in self.money if c == self.default_currency),
            "money": [f"{c}:{u}" for c, u in sorted(self.money)],
            "dates": sorted(self.dates),
            "identifiers": sorted(self.identifiers),
            "amount_evidence": self.evidence,
            "facts": self.facts,
        }


_NO_EVIDENCE: dict[str, object] = {"amount_evidence": [], "facts": []}


def evidence(mention: MoneyMention) -> dict[str, object]:
    """What a hit shows for an amount that a caption scaled or a sign negated.

    ``minor_units`` is the magnitude (what ``amounts`` holds); ``negative`` the sign
    as written (``(3.1)``, ``-$500``); ``scale`` the power of ten the ``caption``
    multiplied the written figures by (0 when none did).
    """
    return {
        "minor_units": mention.minor_units,
        "currency": mention.currency,
        "text": mention.raw,
        "span": [mention.start, mention.end],
        "scale": mention.scale,
        "caption": mention.caption,
        "negative": mention.negative,
    }


_HeadingValues = tuple[frozenset[tuple[str, int]], frozenset[dt.date], frozenset[str]]
_NO_VALUES: _HeadingValues = (frozenset(), frozenset(), frozenset())


@functools.lru_cache(maxsize=1 << 12)
def _heading_values(
    heading: str, currency: str, patterns: tuple[str, ...], date_order: str
) -> _HeadingValues:
    """The values one heading states. Headings repeat across sections and documents
    ("Example request", "Limits"), so each is read once; no value spans ``›``. Titles and
    many subheadings are unique, so the cache is small (the repeating ones stay in it) and
    a heading that states nothing, most of them, shares one empty answer: memory stays
    flat over a corpus of millions of headings."""
    config = ExtractionConfig(
        default_currency=currency,
        identifier_patterns=list(patterns),
        date_order=date_order,  # type: ignore[arg-type]
    )
    found = extract_values(heading, config)
    if not (found.money or found.dates or found.identifiers):
        return _NO_VALUES
    return (
        frozenset((m.currency, m.minor_units) for m in found.money),
        frozenset(d.date for d in found.dates),
        frozenset(i.value for i in found.identifiers),
    )


@functools.lru_cache(maxsize=1 << 10)
def _heading_facts(heading: str, currency: str) -> tuple[AmountFact, ...]:
    """The facts of the amounts one heading states, their spans into ``heading``: source
    ``heading``, labelled only where the heading is written ``Key: $500``."""
    config = ExtractionConfig(default_currency=currency)
    found = extract_values("# " + heading, config)
    return tuple(
        dataclasses.replace(f, start=f.start - 2, end=f.end - 2, source="heading")
        for f in found.facts
    )


def _breadcrumb_facts(
    doc: Document, chunk: Chunk, heading: str, currency: str, seen: dict[str, list[int]]
) -> list[AmountFact]:
    """A breadcrumb heading's facts, their spans moved to where the heading is written in
    the document (its last occurrence at or before the chunk's start, else its first);
    a heading the text does not hold (a title from a file name) keeps its spans into
    itself. ``seen``: each heading's occurrences, found once per document."""
    facts = _heading_facts(heading, currency)
    if not facts:
        return []
    at = seen.get(heading)
    if at is None:
        at = seen[heading] = _occurrences(doc.text, heading)
    if not at:
        return list(facts)
    i = bisect.bisect_right(at, chunk.span.start)
    base = at[i - 1] if i else at[0]
    return [dataclasses.replace(f, start=f.start + base, end=f.end + base) for f in facts]


def _occurrences(text: str, needle: str) -> list[int]:
    found, i = [], text.find(needle)
    while i >= 0:
        found.append(i)
        i = text.find(needle, i + 1)
    return found


def _stale(chunk: Chunk) -> bool:
    """A chunk that already carries values (enriched before) must have them replaced."""
    return bool(
        chunk.amounts
        or chunk.money
        or chunk.dates
        or chunk.identifiers
        or chunk.amount_evidence
        or chunk.facts
    )


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def enrich_chunks(
    doc: Document, chunks: list[Chunk], config: ExtractionConfig | None = None
) -> list[Chunk]:
    """``chunks`` with ``amounts``, ``money``, ``dates`` and ``identifiers`` set: a copy of
    each chunk that states a value; a chunk that states none (most) is returned as it is,
    its four lists already empty.

    Raises :class:`~osrag.errors.ExtractionError` if a chunk does not belong
    to ``doc`` or its span lies outside ``doc.text``.
    """
    config = config or ExtractionConfig()
    values = extract_values(doc.text, config, start=doc.content_start, text_format=doc.format)
    for problem in values.rejected_money:
        log.info(  # reported, never guessed; `osrag -v …` shows these lines
            "%s:%d: %r is not stored as an amount: %s",
            doc.source_path,
            _line(doc.text, problem.start),
            problem.raw,
            problem.reason,
        )
    money_ends = [m.end for m in values.money]
    facts = values.facts
    seen: dict[str, list[int]] = {}  # where each breadcrumb heading is written
    date_ends = [d.end for d in values.dates]
    identifier_ends = [i.end for i in values.identifiers]
    key = (config.default_currency, tuple(config.identifier_patterns), config.date_order)

    enriched: list[Chunk] = []
    for chunk in chunks:
        if chunk.doc_id != doc.doc_id:
            raise ExtractionError(
                f"{doc.source_path}: chunk {chunk.chunk_id} belongs to {chunk.doc_id!r}, "
                f"not {doc.doc_id!r}"
            )
        start, end = chunk.span.start, chunk.span.end
        if end > len(doc.text):
            raise ExtractionError(
                f"{doc.source_path}: chunk {chunk.chunk_id} span [{start}, {end}) "
                f"is outside the document ({len(doc.text)} code points)"
            )
        lo = bisect.bisect_right(money_ends, start)
        money = overlapping(values.money, money_ends, start, end)
        found = _Values(config.default_currency).add(
            money,
            facts[lo : lo + len(money)],
            overlapping(values.dates, date_ends, start, end),
            overlapping(values.identifiers, identifier_ends, start, end),
        )
        if chunk.breadcrumb:
            for heading in chunk.breadcrumb.split(BREADCRUMB_SEPARATOR):
                heading_values = _heading_values(heading, *key)
                if heading_values[0]:
                    heading_facts = _breadcrumb_facts(doc, chunk, heading, key[0], seen)
                    found.add_values(heading_values, heading_facts)
                else:
                    found.add_values(heading_values, ())
        if found.money or found.dates or found.identifiers or _stale(chunk):
            enriched.append(dataclasses.replace(chunk, **found.update()))  # type: ignore[arg-type]
        else:
            enriched.append(chunk)
    return enriched
