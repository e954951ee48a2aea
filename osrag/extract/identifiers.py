"""Identifiers (policy numbers, contract codes) in text → normalised strings.

The rule: an identifier is a match of one of the configured regular
expressions (:attr:`osrag.models.ExtractionConfig.identifier_patterns`;
default :data:`~osrag.models.DEFAULT_IDENTIFIER_PATTERN`, policy-number-like
``UMB-300000`` or ``POL-30000-7``: two to five capitals, a hyphen, three or
more digits, then any ``-digits`` groups such as a check digit). The
value is the match upper-cased, so a keyword filter on ``identifiers`` is
exact and case-blind. Patterns are case-sensitive as written; write
``(?i:...)`` to accept lower case (the default does not, so ``mid-2024`` is
not an identifier). For speed, start a pattern with a character class rather
than ``\b`` (the regex engine can then skip to candidate characters).

Invariant: every :class:`IdentifierMention` has ``text[start:end] == raw`` and
``value == raw.upper()``. When patterns overlap, the earliest (then longest)
match wins; mentions never overlap.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from osrag.errors import ConfigError
from osrag.models import DEFAULT_IDENTIFIER_PATTERN


class IdentifierMention(BaseModel):
    """One identifier found in a text; ``text[start:end] == raw`` (code-point offsets)."""

    model_config = ConfigDict(frozen=True)

    start: int
    end: int
    raw: str
    value: str


@functools.lru_cache(maxsize=32)
def compile_patterns(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Compile once per distinct pattern list; a bad pattern is a :class:`ConfigError`."""
    compiled = []
    for i, pattern in enumerate(patterns):
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            message = f"identifier_patterns[{i}]: {pattern!r} is not a regex: {exc}"
            raise ConfigError(message) from None
    return tuple(compiled)


def extract_identifiers(
    text: str, patterns: Sequence[str] = (DEFAULT_IDENTIFIER_PATTERN,), *, pos: int = 0
) -> list[IdentifierMention]:
    """Every identifier in ``text[pos:]``, in order, with spans into ``text``."""
    matches = [
        (m.start(), m.end())
        for compiled in compile_patterns(tuple(patterns))
        for m in compiled.finditer(text, pos)
        if m.end() > m.start()
    ]
    found: list[IdentifierMention] = []
    for start, end in sorted(matches, key=lambda se: (se[0], -se[1])):
        if found and start < found[-1].end:
            continue
        raw = text[start:end]
        found.append(IdentifierMention(start=start, end=end, raw=raw, value=raw.upper()))
    return found
