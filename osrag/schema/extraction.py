"""What decides the structured values taken out of text; part of the generation digest."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_validator,
)

from osrag.currencies import MINOR_UNIT_EXPONENTS
from osrag.errors import ConfigError
from osrag.lexicon.profiles import Profile, vocabulary_with

EXTRACTION_VERSION = "money@12,facts@53,dates@1,identifiers@1"
"""Bump the part that changes whenever ``osrag/extract`` changes what it extracts.

It goes into the index-generation digest (with the :class:`ExtractionConfig`
values), so changed extraction builds a new generation instead of silently
reusing chunk ids whose ``amounts`` were computed by older rules. The digest of the
family profiles in use is added to it (:attr:`ExtractionConfig.version`).
"""

DEFAULT_IDENTIFIER_PATTERN = r"[A-Z](?<!\w[A-Z])[A-Z]{1,4}-\d{3,}(?:-\d+)*\b"
r"""Policy-number-like identifiers (``UMB-300000``, ``POL-30000-7``):
``\b[A-Z]{2,5}-\d{3,}(?:-\d+)*\b``, written to start with a character class so the regex
engine skips to capitals (3x faster)."""


class ExtractionConfig(BaseModel):
    """What decides which structured values are taken out of text. Part of the generation digest."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default_currency: str = Field(
        default="USD",
        description="ISO 4217 code whose amounts go to the `amounts` long field; "
        "a bare `$`/'dollars' means this currency when it is a dollar currency, else USD",
    )
    identifier_patterns: list[str] = Field(
        default_factory=lambda: [DEFAULT_IDENTIFIER_PATTERN],
        description="regular expressions (Python `re`); each match is upper-cased",
    )
    date_order: Literal["MDY", "DMY"] = Field(
        default="MDY",
        description="how to read an all-numeric slash date such as 01/15/2024",
    )
    profiles: tuple[Profile, ...] = Field(
        default=(),
        description="a team's own family profiles, read with the built-in ones "
        "(osrag.lexicon.profiles; the `profiles` setting): stored with the generation, so a "
        "search reads questions with the words the index was built with",
    )

    @field_validator("default_currency")
    @classmethod
    def _known_currency(cls, value: str) -> str:
        code = value.strip().upper()
        if code not in MINOR_UNIT_EXPONENTS:
            known = ", ".join(sorted(MINOR_UNIT_EXPONENTS))
            raise ConfigError(
                f"default_currency: {value!r} is not a currency osrag knows ({known})"
            )
        return code

    @field_validator("identifier_patterns")
    @classmethod
    def _compilable(cls, patterns: list[str]) -> list[str]:
        import re

        for i, pattern in enumerate(patterns):
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                message = f"identifier_patterns[{i}]: {pattern!r} is not a regex: {exc}"
                raise ConfigError(message) from None
            if compiled.match(""):
                raise ConfigError(f"identifier_patterns[{i}]: {pattern!r} matches the empty string")
        return patterns

    @computed_field  # type: ignore[prop-decorator]
    @property
    def version(self) -> str:
        """``money@N,facts@N,dates@N,identifiers@N,profiles@<digest>``: the extraction
        code's behaviour version, and the digest of every family profile in use (the
        built-in ones and :attr:`profiles`): a changed profile is a new version."""
        return f"{EXTRACTION_VERSION},profiles@{vocabulary_with(self.profiles).digest}"
