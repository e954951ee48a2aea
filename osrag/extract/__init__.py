"""Structured values in text: money (as integer minor units), dates, identifiers.

Pure functions, no I/O. ``text → mentions`` (each with its span), plus the two
places they are used: :func:`enrich_chunks` at ingest and
:func:`osrag.search.analysis.analyze_query` at query time. See each module's docstring for its rule.
"""

from __future__ import annotations

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
