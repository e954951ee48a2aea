"""Structured values in text: money (as integer minor units), dates, identifiers.

Pure functions, no I/O. ``text → mentions`` (each with its span), plus the two
places they are used: :func:`enrich_chunks` at ingest and
:func:`osrag.search.analysis.analyze_query` at query time. See each module's docstring for its rule.

Each name below is imported on first use, so a query's analysis (money, dates,
identifiers) does not import what only an ingest needs (tables, enrichment,
collision reports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osrag.exports import lazy_exports

_EXTRACT_EXPORTS: dict[str, str] = {
    "Collision": "osrag.extract.collisions",
    "CollisionReport": "osrag.extract.collisions",
    "canonical_token": "osrag.extract.collisions",
    "collision_report": "osrag.extract.collisions",
    "find_collisions": "osrag.extract.collisions",
    "integer_collisions": "osrag.extract.collisions",
    "DateMention": "osrag.extract.dates",
    "extract_dates": "osrag.extract.dates",
    "parse_date": "osrag.extract.dates",
    "ExtractedValues": "osrag.extract.enrich",
    "enrich_chunks": "osrag.extract.enrich",
    "extract_values": "osrag.extract.enrich",
    "IdentifierMention": "osrag.extract.identifiers",
    "extract_identifiers": "osrag.extract.identifiers",
    "LONG_MAX": "osrag.extract.money",
    "MINOR_UNIT_EXPONENTS": "osrag.extract.money",
    "Money": "osrag.extract.money",
    "MoneyMention": "osrag.extract.money",
    "MoneyScan": "osrag.extract.money",
    "RejectedMoney": "osrag.extract.money",
    "canonicalize_money": "osrag.extract.money",
    "extract_money": "osrag.extract.money",
    "parse_money": "osrag.extract.money",
    "scan_money": "osrag.extract.money",
    "ExtractionConfig": "osrag.models",
}

__all__ = [
    "LONG_MAX",
    "MINOR_UNIT_EXPONENTS",
    "Collision",
    "CollisionReport",
    "DateMention",
    "ExtractedValues",
    "ExtractionConfig",
    "IdentifierMention",
    "Money",
    "MoneyMention",
    "MoneyScan",
    "RejectedMoney",
    "canonical_token",
    "canonicalize_money",
    "collision_report",
    "enrich_chunks",
    "extract_dates",
    "extract_identifiers",
    "extract_money",
    "extract_values",
    "find_collisions",
    "integer_collisions",
    "parse_date",
    "parse_money",
    "scan_money",
]

if TYPE_CHECKING:
    from osrag.extract.collisions import (
        Collision,
        CollisionReport,
        canonical_token,
        collision_report,
        find_collisions,
        integer_collisions,
    )
    from osrag.extract.dates import DateMention, extract_dates, parse_date
    from osrag.extract.enrich import ExtractedValues, enrich_chunks, extract_values
    from osrag.extract.identifiers import IdentifierMention, extract_identifiers
    from osrag.extract.money import (
        LONG_MAX,
        MINOR_UNIT_EXPONENTS,
        Money,
        MoneyMention,
        MoneyScan,
        RejectedMoney,
        canonicalize_money,
        extract_money,
        parse_money,
        scan_money,
    )
    from osrag.models import ExtractionConfig


__getattr__, __dir__ = lazy_exports(__name__, _EXTRACT_EXPORTS, globals())
