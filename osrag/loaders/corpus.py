"""Read a corpus: files → ``Document``, bad input → ``LoadIssue``.

Rule:

- A corpus is a folder (walked in sorted order of ``/``-separated relative
  paths, version-control folders skipped, symlinked folders not followed) or
  a single file. Formats: ``.md``/``.markdown`` (Markdown), ``.txt`` (plain
  text), ``.jsonl`` (one document per line: ``id`` or BEIR-style ``_id``,
  ``title``, ``text``, metadata fields); ``.pdf``, ``.docx``, ``.html``/``.htm``/
  ``.xhtml`` through :mod:`osrag.loaders`, chosen by the file's bytes (a ``.pdf``
  that is really HTML is read as HTML; one that is neither is refused). Their
  metadata comes from the file's own properties (PDF Info dictionary, DOCX core
  and custom properties, HTML ``<meta name=…>``) under the front-matter keys;
  ``Document.text`` is then the extracted Markdown-like text and
  ``Document.locations`` maps it back to pages or elements.
- YAML front matter (a first line ``---``, closed by ``---`` or ``...``)
  becomes metadata: ``id``, ``title``, ``category``, ``tenant``, ``acl``
  (list), ``effective_from``, ``superseded_on``; other keys are kept under
  ``meta``. Access keys fail closed (:mod:`osrag.loaders.metadata`): ``Tenant``
  or `` ACL `` is the access key, a near-miss (``acls``, ``groups``,
  ``tenant_id``) is an error naming its line. A first ``---`` followed by a
  ``key: value`` line that is never closed is an error for that file (its
  metadata would otherwise become public text); a first ``---`` followed by
  anything else is a thematic break. A ``title`` that is not text (a
  template's ``{TITLE}`` is a YAML mapping) is not used as the title and is
  kept under ``meta``.
- Only regular files inside the corpus folder are opened, each within the
  limits of its :class:`~osrag.loaders.limits.ReadOptions`
  (:mod:`osrag.loaders.files`); under ``require_tenant`` a document without a
  tenant is an issue.
- Document id = front-matter ``id``, else the path relative to the corpus root
  without its extension. Source version = SHA-256 of the file's bytes (of the
  line's bytes for ``.jsonl``). Title = front-matter (or ``.jsonl``) ``title``,
  else the first level-1 heading of a Markdown file, else none (``""``): the
  document id and the file name are never made a title, because the title is
  searched text (a numeric id would match number queries).
- ``Document.text`` is the decoded text (UTF-8, a BOM removed, no newline
  translation); every span indexes into it. ``content_start`` is the offset
  after front matter.

Invariant: one bad file (or ``.jsonl`` line) yields one ``LoadIssue`` naming
the path, the reason and, where known, the line — never an exception — and
the rest of the corpus continues. Empty documents are yielded (they chunk to
nothing; :func:`osrag.chunking.is_empty` tells them apart). Liquid/Jinja tags
are ordinary text.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from io import BufferedReader
from pathlib import Path, PurePosixPath
from typing import Any

from osrag.errors import CorpusError
from osrag.lexicon.words import COMPANY_FORMS
from osrag.loaders import EXTRACTED_SUFFIXES, UnreadableFile, extract, sniff
from osrag.loaders.base import split_list
from osrag.loaders.files import open_corpus_file, read_bounded
from osrag.loaders.front_matter import front_matter
from osrag.loaders.limits import DEFAULT_READ, OverLimit, ReadOptions
from osrag.loaders.metadata import MetadataError, key_line, metadata
from osrag.loaders.seen import SeenIds
from osrag.models import Document, LoadIssue

__all__ = [
    "LOADER_VERSION",
    "SUFFIXES",
    "corpus_base",
    "corpus_files",
    "iter_corpus_files",
    "load_corpus",
    "load_file",
    "load_files",
    "unique_ids",
]

LOADER_VERSION = "osrag-documents@7"
"""What a document's fields mean; part of the generation digest. 2: a document without a
title has none (1 used the id or the file stem, which then became searched text). 3: an
access key in another case (``Tenant:``, ``ACL:``) is the access key — a document whose
``Tenant`` was kept under ``meta`` is public in a generation built by 2, so the files must
be read again, not skipped as unchanged. 4: access values stripped (``tenant: ' a '`` is
``a``); an empty or non-text tenant or ACL refused; date keys in another spelling
(``Effective_From``) are the date keys — a document read by 3 may be public or undated
where 4 scopes or dates it. 5: a plain-text document's first line, when it reads as a
title (a letterhead, a caption: :func:`_first_line_title`), is its title — its chunks,
cut apart, keep saying what document they are of. 6: a letterhead ending with a business's
form and its full stop ("CLEARFLOW SEPTIC SERVICE, INC.") is a title too. 7: an HTML
definition list gives each definition its term ("Minimum charge: $100"), where 6 wrote the
term and its definition as two paragraphs, the amount with no name before it."""

MARKDOWN_SUFFIXES = (".md", ".markdown")
TEXT_SUFFIXES = (".txt",)
JSONL_SUFFIXES = (".jsonl",)
SUFFIXES = MARKDOWN_SUFFIXES + TEXT_SUFFIXES + JSONL_SUFFIXES + EXTRACTED_SUFFIXES
"""File extensions a corpus is made of (compared case-insensitively)."""

_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*\r?$", re.M)


IGNORE_FILE = ".osragignore"
"""Glob patterns, one per line, of files a corpus folder holds but are not documents."""


def ignore_patterns(root: Path) -> list[str]:
    """The patterns of ``root/.osragignore`` (``#`` comments and blank lines skipped).

    A pattern without ``/`` matches a file or folder name anywhere; one with ``/``
    matches the path from the corpus root; a trailing ``/`` matches folders only.
    ``!`` negation is not supported.
    """
    path = Path(root) / IGNORE_FILE
    if not path.is_file():
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path}: cannot read the ignore file ({exc})") from exc
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _ignored(rel: str, patterns: list[str], *, folder: bool = False) -> bool:
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        if pattern.endswith("/"):
            if not folder:
                continue
            pattern = pattern[:-1]
        if "/" in pattern:
            if fnmatch.fnmatchcase(rel, pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False


def corpus_files(root: Path) -> list[str]:
    """The relative paths (``/``-separated, sorted) of the files a corpus load considers.

    Ingest compares this list with the manifest, so a file that exists but
    failed to load is never mistaken for a deleted one. Files matching
    ``.osragignore`` in the corpus root (e.g. a README or the labelled queries
    kept beside the documents) are not part of the corpus.
    """
    return list(iter_corpus_files(root))


def iter_corpus_files(root: Path) -> Iterator[str]:
    """:func:`corpus_files` one at a time, in the same order, holding one folder's listing
    at a time (a corpus of millions of files is never listed in memory).

    Sorting each folder's entries by name, with ``/`` after a folder's name, gives the
    order of sorting the whole relative paths: every path under ``d/`` sorts exactly
    where ``d/`` sorts among its siblings."""
    root = Path(root)
    if root.is_file():
        yield root.name
        return
    if not root.is_dir():
        raise CorpusError(f"{root}: no such file or directory")
    yield from _walk(root, "", ignore_patterns(root))


def _walk(folder: Path, prefix: str, patterns: list[str]) -> Iterator[str]:
    try:
        with os.scandir(folder) as entries:
            listing = list(entries)
    except OSError:
        return  # an unreadable folder is skipped, as os.walk does
    keyed: list[tuple[str, os.DirEntry[str] | None]] = []
    for entry in listing:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)  # symlinked folders are not followed
        except OSError:
            is_dir = False
        rel = prefix + entry.name
        if is_dir:
            if entry.name not in _SKIPPED_DIRS and not _ignored(rel, patterns, folder=True):
                keyed.append((rel + "/", entry))
        elif entry.name.lower().endswith(SUFFIXES) and not _ignored(rel, patterns):
            keyed.append((rel, None))
    keyed.sort(key=lambda pair: pair[0])
    for rel, sub in keyed:
        if sub is None:
            yield rel
        else:
            yield from _walk(Path(sub.path), rel, patterns)


def load_corpus(root: Path, options: ReadOptions = DEFAULT_READ) -> Iterator[Document | LoadIssue]:
    """Every document of the corpus at ``root`` (a folder or one file), in a fixed order.

    Raises :class:`CorpusError` only when ``root`` itself cannot be read.
    """
    root = Path(root)
    base = corpus_base(root)
    return unique_ids(
        item
        for rel in iter_corpus_files(root)
        for item in load_file(base / rel, rel, options, base=base)
    )


def corpus_base(root: Path) -> Path:
    """The folder the relative paths of :func:`corpus_files` start from."""
    return root.parent if root.is_file() else root


def load_files(
    base: Path, rels: list[str], options: ReadOptions = DEFAULT_READ
) -> list[Document | LoadIssue]:
    """The documents of several files, in order (one task of a worker process)."""
    return [item for rel in rels for item in load_file(base / rel, rel, options, base=base)]


def unique_ids(items: Iterable[Document | LoadIssue]) -> Iterator[Document | LoadIssue]:
    """``items`` in order, a second document with an id already seen turned into an issue.
    The ids met are kept off the heap (:class:`osrag.loaders.seen.SeenIds`): memory stays flat."""
    seen = SeenIds()
    try:
        for item in items:
            if isinstance(item, Document):
                where = _where(item)
                first = seen.first(item.doc_id, where)
                if first is not None and first != where:
                    yield LoadIssue(
                        path=item.source_path,
                        line=item.source_line,
                        reason=f"duplicate document id {item.doc_id!r} (first in {first})",
                    )
                    continue
            yield item
    finally:
        seen.close()


def _where(doc: Document) -> str:
    return doc.source_path if doc.source_line is None else f"{doc.source_path}:{doc.source_line}"


def load_file(
    path: Path,
    rel: str | None = None,
    options: ReadOptions = DEFAULT_READ,
    *,
    base: Path | None = None,
) -> Iterator[Document | LoadIssue]:
    """The document(s) of one file; ``rel`` is its path relative to the corpus folder
    ``base`` (by default the folder ``rel`` starts from). Only a regular file inside
    ``base`` is opened (:func:`osrag.loaders.files.open_corpus_file`)."""
    rel = rel or path.name
    if base is None:
        base = path.parents[len(PurePosixPath(rel).parts) - 1]
    try:
        with open_corpus_file(base, path, options) as file:
            if rel.lower().endswith(JSONL_SUFFIXES):
                head = file.peek(1024)[:1024]
                if sniff(head) not in ("pdf", "zip", "ole"):
                    yield from _required(_load_jsonl(file, rel, options), options)
                    return
            data = read_bounded(file, options.max_file_bytes)
    except UnreadableFile as exc:
        yield LoadIssue(path=rel, reason=str(exc))
        return
    yield from _required(_load_bytes(data, rel, options), options)


def _required(
    items: Iterable[Document | LoadIssue], options: ReadOptions
) -> Iterator[Document | LoadIssue]:
    """``items``, a document without a tenant turned into an issue under ``require_tenant``."""
    for item in items:
        if options.require_tenant and isinstance(item, Document) and not item.tenant:
            yield LoadIssue(
                path=item.source_path,
                line=item.source_line,
                reason="no tenant, and the require_tenant setting is on (add a 'tenant' key)",
            )
        else:
            yield item


def _load_bytes(data: bytes, rel: str, options: ReadOptions) -> Iterator[Document | LoadIssue]:
    kind = sniff(data)
    extracted_suffix = rel.lower().endswith(EXTRACTED_SUFFIXES)
    if kind in ("pdf", "zip", "ole") or (kind == "html" and extracted_suffix):
        yield _load_extracted(kind, data, rel, options)
        return
    if extracted_suffix:
        if rel.lower().endswith((".html", ".htm", ".xhtml")):
            yield _load_extracted("html", data, rel, options)  # named HTML, no tags up front
        else:
            yield LoadIssue(path=rel, reason=f"not a PDF, Word or HTML file: {_starts(data)}")
        return
    nul = data.find(b"\x00")
    if nul >= 0:
        yield LoadIssue(
            path=rel,
            line=data.count(b"\n", 0, nul) + 1,
            reason=f"binary file (NUL byte at byte {nul})",
        )
        return
    text = _decode(data, rel)
    if isinstance(text, LoadIssue):
        yield text
        return
    yield _contained(_load_text, rel, 1, text, hashlib.sha256(data).hexdigest(), rel)


def _contained(load: Any, rel: str, line: int | None, *args: Any) -> Document | LoadIssue:
    """``load(*args)``, any failure of it this document's issue: a value no rule foresaw (a
    loader bug, a library's exception) must not stop the rest of the corpus."""
    try:
        item: Document | LoadIssue = load(*args)
    except RecursionError:
        return LoadIssue(path=rel, line=line, reason="nested too deeply to read")
    except Exception as exc:
        return LoadIssue(
            path=rel, line=line, reason=f"could not be read ({type(exc).__name__}: {exc})"
        )
    return item


def _starts(data: bytes) -> str:
    head = data[:16]
    return "the file is empty" if not head else f"it starts with {head!r}"


def _load_extracted(kind: Any, data: bytes, rel: str, options: ReadOptions) -> Document | LoadIssue:
    """A PDF, Word or HTML file through its loader; any failure is this file's issue."""
    try:
        extracted = extract(kind, data, options)
    except UnreadableFile as exc:
        return LoadIssue(path=rel, reason=str(exc))
    except Exception as exc:  # a loader bug or a library failure must not stop a corpus
        return LoadIssue(path=rel, reason=f"could not be read ({type(exc).__name__}: {exc})")
    properties = dict(extracted.properties)
    if isinstance(properties.get("acl"), str):
        properties["acl"] = split_list(properties["acl"])  # "agents, underwriters"
    try:
        doc_id, title, found = metadata(properties)
    except MetadataError as exc:
        return LoadIssue(path=rel, reason=f"document property {exc}")
    return Document(
        doc_id=doc_id or str(PurePosixPath(rel).with_suffix("")),
        source_path=rel,
        source_version=hashlib.sha256(data).hexdigest(),
        title=title or extracted.title or PurePosixPath(rel).stem,
        text=extracted.text,
        format=extracted.format,
        locations=extracted.locations,
        **found,
    )


def _decode(data: bytes, rel: str, first_line: int = 1) -> str | LoadIssue:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return LoadIssue(
            path=rel,
            line=first_line + data.count(b"\n", 0, exc.start),
            reason=f"invalid UTF-8 at byte {exc.start}",
        )
    return text[1:] if text.startswith("\ufeff") else text


def _load_text(text: str, version: str, rel: str) -> Document | LoadIssue:
    markdown = rel.lower().endswith(MARKDOWN_SUFFIXES)
    read = front_matter(text, rel)
    if isinstance(read, LoadIssue):
        return read
    fields, content_start = read
    try:
        doc_id, title, found = metadata(fields)
    except MetadataError as exc:
        return LoadIssue(path=rel, line=key_line(text, content_start, exc.key), reason=str(exc))
    if title is None and markdown:
        h1 = _first_h1(text, content_start)
        title = h1 or None
    elif title is None:
        title = _first_line_title(text, content_start)
    return Document(
        doc_id=doc_id or str(PurePosixPath(rel).with_suffix("")),
        source_path=rel,
        source_version=version,
        title=title or "",
        text=text,
        content_start=content_start,
        format="markdown" if markdown else "text",
        **found,
    )


_TITLE_WORDS = 12
"""The most words a plain-text document's first line may have and be its title."""
_TITLE_CHARS = 100
"""The longest first line (its first part) read as a title."""
_GAP = re.compile(r"[ \t]{2,}|\.{3,}|…")
"""Where a line's first part ends: a gap of spaces or dot leaders before a second column."""
_NOT_A_TITLE = re.compile(
    r"[.,;:]$|[$€£¥]\s?\d|\d\s?(?:€|%)|^[-*•>#|]|^\(?\d+[.)]\s"
    r"|^(?:ARTICLE|Article|SECTION|Section)\s+(?:[IVXLC]+|\d)"
)
"""A line that is no title: one ending as a sentence or a key does, one stating an amount,
a list item, a quote, a table row, a numbered clause or the heading of an article or a
section (the first of a contract's parts, a heading the chunker reads)."""


def _first_line_title(text: str, start: int) -> str | None:
    """The title a plain-text document writes on its first line (its letterhead, its
    caption: "AQUA PRO POOL & SPA REPAIR", "Consulting Agreement"), or None: the line's
    first part (before a gap of spaces or dot leaders), when it has at most
    :data:`_TITLE_WORDS` words, three letters or more, and reads as no sentence, key, amount,
    list item or clause (:data:`_NOT_A_TITLE`)."""
    for line in text[start : start + 4 * _TITLE_CHARS].splitlines():
        if not line.strip():
            continue
        first = _GAP.split(line.strip(), maxsplit=1)[0].strip()
        letters = sum(ch.isalpha() for ch in first)
        if (
            letters < 3
            or len(first) > _TITLE_CHARS
            or len(first.split()) > _TITLE_WORDS
            or _NOT_A_TITLE.search(_without_company_form(first))
        ):
            return None
        return first
    return None


def _without_company_form(line: str) -> str:
    """``line`` without the full stop of a business's form it ends with ("CLEARFLOW SEPTIC
    SERVICE, INC." → "… INC"; :data:`~osrag.lexicon.words.COMPANY_FORMS`): the abbreviation's
    dot ends a name, not a sentence."""
    if not line.endswith("."):
        return line
    last = line[:-1].rsplit(None, 1)[-1].replace(".", "").casefold()
    return line[:-1] if last in COMPANY_FORMS else line


def _first_h1(text: str, start: int) -> str | None:
    """The first top-level ``#`` heading, as the heading scanner finds it."""
    if _H1.search(text, start) is None:  # cheap pre-check: most files have none
        return None
    from osrag.chunking.markdown import scan_markdown

    for heading in scan_markdown(text, start).headings:
        if heading.level == 1 and heading.text:
            return heading.text
    return None


def _load_jsonl(
    file: BufferedReader, rel: str, options: ReadOptions
) -> Iterator[Document | LoadIssue]:
    """One document per line, read line by line (each line at most ``max_file_bytes``)."""
    limit = options.max_file_bytes
    offset = 0
    number = 0
    while raw := file.readline(limit + 1):
        number += 1
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw, offset = raw[3:], 3
        if len(raw) > limit:
            yield LoadIssue(
                path=rel, line=number, reason=str(OverLimit("max_file_bytes", limit, "a line"))
            )
            return
        nul = raw.find(b"\x00")
        if nul >= 0:
            yield LoadIssue(
                path=rel, line=number, reason=f"binary file (NUL byte at byte {offset + nul})"
            )
            return
        offset += len(raw)
        line_bytes = raw[:-1] if raw.endswith(b"\n") else raw
        line_bytes = line_bytes[:-1] if line_bytes.endswith(b"\r") else line_bytes
        if line_bytes.strip():
            yield _contained(_jsonl_record, rel, number, line_bytes, rel, number)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``–``\\uDFFF`` escape: the only way a JSON line's strings can hold a lone
surrogate (checked only on lines that have one)."""


def _lone_surrogate(record: Any) -> bool:
    try:
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _jsonl_record(line_bytes: bytes, rel: str, number: int) -> Document | LoadIssue:
    line = _decode(line_bytes, rel, number)
    if isinstance(line, LoadIssue):
        return line
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        return LoadIssue(path=rel, line=number, reason=f"not valid JSON: {exc.msg}")
    except ValueError as exc:  # an integer of more digits than Python converts
        return LoadIssue(path=rel, line=number, reason=f"a value cannot be read ({exc})")
    except RecursionError:
        return LoadIssue(path=rel, line=number, reason="JSON nested too deeply to read")
    if _SURROGATE_ESCAPE.search(line) and _lone_surrogate(record):
        return LoadIssue(
            path=rel,
            line=number,
            reason="a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without "
            "its pair): not text",
        )
    if not isinstance(record, dict):
        return LoadIssue(
            path=rel, line=number, reason=f"a {type(record).__name__}, not a JSON object"
        )
    text = record.get("text")
    if not isinstance(text, str):
        return LoadIssue(path=rel, line=number, reason="missing 'text' (a string)")
    try:
        doc_id, title, found = metadata(record)
    except MetadataError as exc:
        return LoadIssue(path=rel, line=number, reason=str(exc))
    if doc_id is None:
        return LoadIssue(path=rel, line=number, reason="missing 'id' (or '_id')")
    return Document(
        doc_id=doc_id,
        source_path=rel,
        source_line=number,
        source_version=hashlib.sha256(line_bytes).hexdigest(),
        title=title or "",
        text=text,
        format="text",
        **found,
    )
