"""What the extraction makes of a made-up text, as the fact tests compare it."""

from __future__ import annotations

from osrag.extract import extract_values
from osrag.models import ExtractionConfig

CONFIG = ExtractionConfig()


def labels(text: str) -> list[tuple[str, str | None]]:
    """Each amount of ``text`` as written, with the label its fact carries."""
    return [(f.raw, f.label) for f in extract_values(text, CONFIG).facts]
