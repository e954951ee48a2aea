"""What every loader returns (:class:`Extracted`) or raises (:class:`UnreadableFile`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from osrag.schema.locations import LocationMap

__all__ = ["PROPERTY_KEYS", "Extracted", "MissingExtra", "UnreadableFile", "split_list"]


@dataclass(frozen=True, slots=True)
class Extracted:
    """A file's text in the form the structural chunker reads, and where it came from."""

    text: str
    format: Literal["markdown", "text"]
    """``markdown`` when the loader wrote headings; ``text`` lets the plain-text outline
    (numbered and upper-case headings) find the structure instead."""
    locations: LocationMap
    title: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    """Document properties in the front-matter vocabulary (``id``, ``category``,
    ``tenant``, ``acl``, ``effective_from``, ``superseded_on``, others → ``meta``)."""


class UnreadableFile(Exception):
    """A file (or one page of it) that cannot be read; the rest of the corpus continues."""

    def __init__(self, reason: str, page: int | None = None) -> None:
        self.reason = reason
        self.page = page
        super().__init__(f"page {page}: {reason}" if page is not None else reason)


class MissingExtra(UnreadableFile):
    """The library a format needs is not installed."""

    def __init__(self, what: str, extra: str) -> None:
        super().__init__(f"reading {what} needs the '{extra}' extra: pip install 'osrag[{extra}]'")


# Property names a loader reads from a file's own metadata (PDF Info dictionary, DOCX
# custom properties, HTML <meta name=…>), the same keys as YAML front matter.
PROPERTY_KEYS = ("id", "title", "category", "tenant", "acl", "effective_from", "superseded_on")


def split_list(value: str) -> list[str]:
    """``"agents, underwriters"`` → ``["agents", "underwriters"]`` (a property's list value)."""
    return [part.strip() for part in value.replace(";", ",").split(",") if part.strip()]
