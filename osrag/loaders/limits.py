"""What one corpus file may cost, and how the corpus walk treats links: :class:`ReadOptions`.

Rule: every limit is a number of bytes, pages or characters that a file is
checked against *while* it is read, so crossing it costs at most about the
limit, never the whole file. A file over a limit is refused with
:class:`OverLimit`, whose message names the setting it crossed; the ingest
reports it like any unreadable file and keeps the document's previous version.

Defaults (settings of the same name, ``OSRAG_<NAME>`` in the environment):

- ``max_file_bytes`` (128 MiB): bytes read from one file (a ``.jsonl`` file is
  read line by line; each line is held to this limit);
- ``max_docx_unzipped_bytes`` (256 MiB): what all parts of one ``.docx`` inflate to;
- ``max_docx_xml_bytes`` (64 MiB): the size of its ``word/document.xml``;
- ``max_pdf_pages`` (5,000): pages of one PDF;
- ``max_html_bytes`` (8 MiB): bytes of one HTML page (parsing and walking a page peaks at
  about 20 times its size);
- ``max_text_chars`` (32,000,000): characters of text extracted from one PDF,
  Word or HTML file.

``follow_symlinks`` (off): a symlinked file whose target lies outside the corpus
folder is read (it is still refused unless it is a regular file).
``require_tenant`` (off): a document without a tenant is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from osrag.loaders.base import UnreadableFile

__all__ = ["DEFAULT_READ", "LIMIT_FIELDS", "OverLimit", "ReadOptions"]

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How a corpus is read: the per-file limits, the link rule and ``require_tenant``."""

    max_file_bytes: int = 128 * MIB
    max_docx_unzipped_bytes: int = 256 * MIB
    max_docx_xml_bytes: int = 64 * MIB
    max_pdf_pages: int = 5_000
    max_html_bytes: int = 8 * MIB
    max_text_chars: int = 32_000_000
    follow_symlinks: bool = False
    require_tenant: bool = False


DEFAULT_READ = ReadOptions()

LIMIT_FIELDS = (
    "max_file_bytes",
    "max_docx_unzipped_bytes",
    "max_docx_xml_bytes",
    "max_pdf_pages",
    "max_html_bytes",
    "max_text_chars",
)
"""The settings that bound one file's cost."""

_UNITS = {
    "max_file_bytes": "bytes",
    "max_docx_unzipped_bytes": "bytes",
    "max_docx_xml_bytes": "bytes",
    "max_pdf_pages": "pages",
    "max_html_bytes": "bytes",
    "max_text_chars": "characters",
}


class OverLimit(UnreadableFile):
    """A file that crossed one of the :class:`ReadOptions` limits (``limit`` names it)."""

    def __init__(self, limit: str, value: int, what: str = "") -> None:
        self.limit = limit
        self.value = value
        unit = _UNITS.get(limit, "")
        subject = f"{what} " if what else ""
        super().__init__(
            f"{subject}over the {limit} limit ({value:,} {unit}; raise the {limit} setting "
            "to read it)"
        )
