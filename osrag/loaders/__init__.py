"""Loaders for PDF, Word (.docx) and HTML, chosen by what a file *is*, not what it is called.

Rule (:func:`sniff`, on the first bytes):

- ``%PDF-`` in the first 1,024 bytes (the PDF specification allows bytes
  before the header) → PDF;
- a zip archive (``PK\\x03\\x04``) → Word, if it holds ``word/document.xml``
  (anything else — a spreadsheet, an OpenDocument file — is refused by name);
- an OLE compound file (``D0 CF 11 E0``) → refused: a legacy ``.doc`` or a
  password-protected Office file, neither supported;
- HTML by the WHATWG MIME-sniffing patterns: after a byte-order mark and
  whitespace, ``<!DOCTYPE HTML``, ``<HTML``, ``<HEAD``, ``<BODY``, ``<TITLE``,
  ``<TABLE``, ``<DIV``, ``<P``, ``<H1``, ``<SCRIPT``, ``<STYLE``, ``<!--`` …
  followed by a space or ``>`` (any case); or an XML declaration with an
  ``<html`` element in the first 2 KB (XHTML).

:func:`osrag.loaders.corpus.load_file` reads a file in the format sniffed —
``report.pdf`` that is really a web page is read as HTML — and refuses a
file whose name promises PDF, Word or HTML but whose bytes are none of them.
Markdown and text files are never sniffed as HTML (HTML is valid Markdown).

Each loader returns an :class:`~osrag.loaders.base.Extracted` (Markdown-like
text, a :class:`~osrag.schema.locations.LocationMap`, title, properties) or raises
:class:`~osrag.loaders.base.UnreadableFile` naming the page where there is one.
A loader whose library is missing says which extra to install.
"""

from __future__ import annotations

import re
from typing import Literal

from osrag.loaders.base import Extracted, MissingExtra, UnreadableFile
from osrag.loaders.limits import DEFAULT_READ, OverLimit, ReadOptions

__all__ = [
    "EXTRACTED_SUFFIXES",
    "LOADERS",
    "Extracted",
    "Kind",
    "MissingExtra",
    "OverLimit",
    "ReadOptions",
    "UnreadableFile",
    "extract",
    "sniff",
]

Kind = Literal["pdf", "docx", "html", "zip", "ole"]

EXTRACTED_SUFFIXES = (".pdf", ".docx", ".html", ".htm", ".xhtml")
"""File extensions read by a loader here (compared case-insensitively)."""

LOADERS = ("osrag-pdf@4", "osrag-docx@1", "osrag-html@2")
"""``name@version`` of each loader: part of the generation digest (a changed loader
extracts different text from the same bytes, so documents must be read again)."""

_HTML_START = re.compile(
    rb"\s*(?:<!doctype\s+html|<html|<head|<body|<script|<iframe|<h1|<div|<font|<table|<a"
    rb"|<style|<title|<b|<br|<p|<!--)(?=[\s>])",
    re.I,
)
_XHTML = re.compile(rb"\s*<\?xml[^>]*\?>.*?<html[\s>]", re.I | re.S)
_PDF_MAGIC = b"%PDF-"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def sniff(data: bytes) -> Kind | None:
    """What the bytes are (see the module rule); ``None`` when none of these."""
    if _PDF_MAGIC in data[:1024]:
        return "pdf"
    if data.startswith(_ZIP_MAGIC):
        return "zip"
    if data.startswith(_OLE_MAGIC):
        return "ole"
    head = data[:2048]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16-le" if head.startswith(b"\xff\xfe") else "utf-16-be"
        head = head[2:].decode(codec, errors="ignore").encode("utf-8")
    if _HTML_START.match(head) or _XHTML.match(head):
        return "html"
    return None


def extract(kind: Kind, data: bytes, options: ReadOptions = DEFAULT_READ) -> Extracted:
    """Read ``data`` as ``kind`` (from :func:`sniff`), within the limits of ``options``."""
    if kind == "pdf":
        from osrag.loaders.pdf import load_pdf

        return load_pdf(data, options)
    if kind == "zip":
        from osrag.loaders.docx import load_docx

        return load_docx(data, options)
    if kind == "html":
        from osrag.loaders.html import load_html

        return load_html(data, options)
    raise UnreadableFile(
        "an OLE compound file: a legacy Word .doc or a password-protected Office "
        "document; neither is supported (save it as .docx without a password)"
    )
