"""A document's outline: its headings and the regions never cut inside, found by the
scanner of its format (Markdown: :mod:`.markdown`; plain text: :mod:`.plaintext`)."""

from __future__ import annotations

from osrag.chunking.markdown import PARSER as MARKDOWN_PARSER
from osrag.chunking.markdown import Outline, scan_markdown
from osrag.chunking.plaintext import PARSER as PLAINTEXT_PARSER
from osrag.chunking.plaintext import scan_plaintext
from osrag.models import Document

__all__ = ["outline"]


def outline(doc: Document) -> tuple[Outline, str]:
    """The document's headings and uncuttable regions, and the parser that found them."""
    if doc.format == "markdown":
        return scan_markdown(doc.text, doc.content_start), MARKDOWN_PARSER
    return scan_plaintext(doc.text, doc.content_start), PLAINTEXT_PARSER
