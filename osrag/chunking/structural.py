"""Structural chunks: cut where the document says to cut, carry the breadcrumb.

Rule: the document is cut at its headings (Markdown: :mod:`.markdown`; plain
text: numbered and upper-case headings, :mod:`.plaintext`). A section is the
text between one heading and the next; the heading itself lives in the
breadcrumb ``Title › Section › Subsection`` (the title is not repeated when the
top heading says the same), not in the body. Empty sections are dropped.

- A section within ``max_tokens`` is one chunk, whatever it holds: tables,
  code blocks and lists are never cut.
- A section over ``max_tokens`` is split inside itself and every piece keeps
  the section's breadcrumb: first into blocks at blank lines (never inside a
  fenced code block, HTML block or table), packed greedily up to
  ``max_tokens``; a single block still over the limit is split by the
  ``oversize`` rule — whole sentences (:mod:`.sentences`) or fixed windows
  (:mod:`.fixed`).
- ``min_tokens`` (default 0: never) merges a section smaller than it into the
  next one when both fit in ``max_tokens``; the merged chunk's breadcrumb is
  the heading path the two share. This is a strict merge threshold. The
  parameter trap from the notes: Spring AI's ``withMinChunkSizeChars(150)``
  is the minimum length considered *while seeking a boundary*, not a minimum
  chunk length, so setting ``min_tokens`` to "the same number" does not
  reproduce that splitter — and small sections are kept by default, because a
  short rule under its own heading is exactly what retrieval should find.

Invariant (tested on the shared corpora): every non-blank, non-heading line of
a document lies inside some chunk's span; spans of one document do not
overlap and increase; ``normalize(source[span]) == body``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import pairwise

from osrag.chunking.markdown import PARSER as MARKDOWN_PARSER
from osrag.chunking.markdown import Outline, scan_markdown
from osrag.chunking.normalize import trim_span
from osrag.chunking.plaintext import PARSER as PLAINTEXT_PARSER
from osrag.chunking.plaintext import scan_plaintext
from osrag.chunking.records import make_chunk
from osrag.chunking.sentences import split_by_sentences, split_fixed
from osrag.chunking.tokenizers import Tokenizer, TokenPositions
from osrag.models import BREADCRUMB_SEPARATOR, Chunk, ChunkingConfig, Document

__all__ = ["breadcrumb", "outline", "structural_chunks"]

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")

Piece = tuple[int, int, int, int]
"""``(start, end, token_start, token_end)``."""
Section = tuple[int, int, int, int, list[str]]
"""``(start, end, token_start, token_end, heading_path)``."""


def outline(doc: Document) -> tuple[Outline, str]:
    """The document's headings and uncuttable regions, and the parser that found them."""
    if doc.format == "markdown":
        return scan_markdown(doc.text, doc.content_start), MARKDOWN_PARSER
    return scan_plaintext(doc.text, doc.content_start), PLAINTEXT_PARSER


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def breadcrumb(title: str, heading_path: list[str]) -> str:
    """``Title › Section › Subsection``; the title is not repeated by the top heading."""
    parts = [title]
    for i, heading in enumerate(heading_path):
        if not heading or (i == 0 and _same(heading, title)):
            continue
        parts.append(heading)
    return BREADCRUMB_SEPARATOR.join(parts)


def _sections(doc: Document, found: Outline) -> list[tuple[int, int, list[str]]]:
    """``(start, end, heading_path)`` of the text under each heading (and before the first)."""
    sections: list[tuple[int, int, list[str]]] = []
    stack: list[tuple[int, str]] = []
    path: list[str] = []
    start = doc.content_start
    for heading in found.headings:
        sections.append((start, heading.start, path))
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.text))
        path = [text for _, text in stack]
        start = heading.end
    sections.append((start, len(doc.text), path))
    return sections


def _blocks(
    text: str, start: int, end: int, atomic: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Trimmed blank-line-separated blocks of ``[start, end)``, never cutting an atomic region."""
    starts = [a for a, _ in atomic]
    cuts = [start]
    for m in _BLANK_LINE.finditer(text, start, end):
        cut = m.start() + 1
        i = bisect_right(starts, cut) - 1
        if i >= 0 and atomic[i][0] < cut < atomic[i][1]:
            continue
        cuts.append(cut)
    cuts.append(end)
    blocks = []
    for a, b in pairwise(cuts):
        a, b = trim_span(text, a, b)
        if a < b:
            blocks.append((a, b))
    return blocks


def _split_oversize(
    doc: Document,
    start: int,
    end: int,
    found: Outline,
    config: ChunkingConfig,
    tokenizer: Tokenizer,
    positions: TokenPositions,
) -> list[Piece]:
    text = doc.text
    limit = config.max_tokens
    pieces: list[Piece] = []
    run: Piece | None = None
    for a, b in _blocks(text, start, end, found.atomic):
        ta, tb = positions.position(a), positions.position(b)
        if run is not None and tb - run[2] <= limit:
            run = (run[0], b, run[2], tb)
            continue
        if run is not None:
            pieces.append(run)
            run = None
        if tb - ta <= limit:
            run = (a, b, ta, tb)
        elif config.oversize == "sentences":
            pieces.extend(split_by_sentences(text, a, b, positions, tokenizer, limit))
        else:
            pieces.extend(split_fixed(text, a, b, ta, tokenizer, limit))
    if run is not None:
        pieces.append(run)
    return pieces


def structural_chunks(
    doc: Document,
    config: ChunkingConfig,
    tokenizer: Tokenizer,
    positions: TokenPositions | None = None,
) -> list[Chunk]:
    """The ``structural`` strategy (see the module rule)."""
    found, parser = outline(doc)
    positions = positions or tokenizer.positions(doc.text, doc.content_start)
    limit = config.max_tokens
    # (start, end, token_start, token_end, heading_path) of each non-empty section,
    # produced lazily so token positions are counted in one left-to-right pass
    sections: Iterator[Section] = _positioned(doc, _sections(doc, found), positions)
    if config.min_tokens > 0:
        sections = _merge_small(sections, config.min_tokens, limit)

    crumbs: dict[tuple[str, ...], str] = {}
    chunks: list[Chunk] = []
    tokenizer_id = tokenizer.id
    for a, b, ta, tb, path in sections:
        key = tuple(path)
        crumb = crumbs.get(key)
        if crumb is None:
            crumb = crumbs[key] = breadcrumb(doc.title, path)
        if tb - ta <= limit:
            pieces: list[Piece] = [(a, b, ta, tb)]
        else:
            pieces = _split_oversize(doc, a, b, found, config, tokenizer, positions)
        for start, end, token_start, token_end in pieces:
            chunks.append(
                make_chunk(
                    doc,
                    strategy="structural",
                    index=len(chunks),
                    start=start,
                    end=end,
                    breadcrumb=crumb,
                    heading_path=path,
                    token_start=token_start,
                    token_end=token_end,
                    tokenizer=tokenizer_id,
                    parser=parser,
                )
            )
    return chunks


def _positioned(
    doc: Document, sections: list[tuple[int, int, list[str]]], positions: TokenPositions
) -> Iterator[Section]:
    for s, e, path in sections:
        a, b = trim_span(doc.text, s, e)
        if a < b:
            yield a, b, positions.position(a), positions.position(b), path


def _merge_small(sections: Iterator[Section], min_tokens: int, limit: int) -> Iterator[Section]:
    """Merge each section under ``min_tokens`` into the next one when both fit in ``limit``."""
    carry: Section | None = None
    for section in sections:
        if carry is not None:
            a, _, ta, _, path = carry
            _, b, _, tb, next_path = section
            if tb - ta <= limit:
                shared: list[str] = []
                for x, y in zip(path, next_path, strict=False):
                    if x != y:
                        break
                    shared.append(x)
                section = (a, b, ta, tb, shared)
            else:
                yield carry
            carry = None
        if section[3] - section[2] < min_tokens:
            carry = section
        else:
            yield section
    if carry is not None:
        yield carry
