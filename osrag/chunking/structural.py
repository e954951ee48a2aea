"""Structural chunks: cut where the document says to cut, carry the breadcrumb.

Rule: the document is cut at its headings (Markdown: :mod:`.markdown`; plain
text: numbered and upper-case headings, :mod:`.plaintext`). A section is the
text between one heading and the next; the heading itself lives in the
breadcrumb ``Title › Section › Subsection`` (the title is not repeated when the
top heading says the same), not in the body. Empty sections are dropped. A heading (and
the title) longer than ``HEADING_CHARS`` (:mod:`osrag.lexicon.bounds`) is cut in the
breadcrumb and the heading path, marked with ``…`` (:func:`~.records.heading_part`); at
most six Markdown levels (fifty numbered plain-text ones of 100 characters) bound a
breadcrumb's length.

- The size bound is ``max_tokens``; with an embedder window that the chunks must fit
  (:mod:`.window`), it is the window's budget under the chunk's breadcrumb, in the
  embedder's tokens.
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
- ``anchor="structure"``: an oversize section is first cut at its anchor paragraphs
  (:mod:`.anchors`), and each run is split by the rule above on its own, so an edit
  inside a long section repacks its own run, not the rest of the section.

Invariant (tested on the shared corpora): every non-blank, non-heading line of
a document lies inside some chunk's span; spans of one document do not
overlap and increase; ``normalize(source[span]) == body``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator

from osrag.chunking.markdown import Outline
from osrag.chunking.normalize import NON_SPACE, PARAGRAPH_BREAK, trim_span
from osrag.chunking.outline import outline
from osrag.chunking.records import heading_part, make_chunk
from osrag.chunking.sentences import CANDIDATE as _SENTENCE_STOP
from osrag.chunking.sentences import is_sentence_end
from osrag.chunking.tokenizers import Tokenizer, TokenPositions
from osrag.chunking.window import Budgets
from osrag.models import BREADCRUMB_SEPARATOR, Chunk, ChunkingConfig, Document

__all__ = ["breadcrumb", "outline", "structural_chunks"]


Piece = tuple[int, int, int, int]
"""``(start, end, token_start, token_end)``."""
Section = tuple[int, int, int, int, list[str]]
"""``(start, end, token_start, token_end, heading_path)``."""


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def breadcrumb(title: str, heading_path: list[str]) -> str:
    """``Title › Section › Subsection``; the title is not repeated by the top heading, and
    a document without a title starts at its first heading; each part as
    :func:`~.records.heading_part` writes it."""
    parts = [title] if title else []
    for i, heading in enumerate(heading_path):
        if not heading or (i == 0 and _same(heading, title)):
            continue
        parts.append(heading)
    return BREADCRUMB_SEPARATOR.join(heading_part(part) for part in parts)


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


def _split_oversize(
    text: str,
    start: int,
    end: int,
    token_start: int,
    token_end: int,
    found: Outline,
    config: ChunkingConfig,
    positions: TokenPositions,
    limit: int,
) -> list[Piece]:
    """Pieces of the oversize section ``[start, end)`` (trimmed), by the module rule.

    Greedy packing, computed one cut at a time: from a piece's first token, the
    window of ``max_tokens`` tokens ends at ``w_end``; the piece ends at the last
    block boundary (blank line outside code/HTML/tables) inside the window. When
    there is none, the block at hand does not fit and is cut inside: at the last
    sentence end inside the window, or — for a sentence that alone does not fit,
    or with ``oversize="fixed"`` — at ``w_end`` itself (fixed windows), until the
    block (or the oversize sentence) ends. The result equals packing whole blocks,
    then whole sentences, then fixed windows, as the rule says (tested against
    that direct implementation), without materialising every block and sentence.
    ``limit`` is the piece bound in tokens (``max_tokens``, or the embedder window's
    budget under this section's breadcrumb).
    """
    by_sentences = config.oversize == "sentences"
    atomic = found.atomic
    atomic_starts = [a for a, _ in atomic]
    blank: list[int] = []  # every blank line: sentence-level cuts inside an oversize block
    block: list[int] = []  # blank lines outside atomic regions: block boundaries
    for m in PARAGRAPH_BREAK.finditer(text, start, end):
        cut = m.start() + 1
        blank.append(cut)
        i = bisect_right(atomic_starts, cut) - 1
        if i < 0 or not atomic[i][0] < cut < atomic[i][1]:
            block.append(cut)

    pieces: list[Piece] = []
    p, tp = start, token_start
    block_first = block_limit = sentence_limit = -1  # the oversize units being cut inside
    while p < end:
        if p >= block_limit:  # at a block start: pack whole blocks
            w_end = positions.window_end(p, limit, end)
            if w_end is None or w_end >= end:  # the rest of the section fits
                pieces.append((p, end, tp, token_end))
                break
            reach = _reach(text, w_end, end)  # cuts up to here leave no token out
            k = bisect_right(block, reach) - 1
            if k >= 0 and block[k] > p:
                p, tp = _cut(text, p, tp, block[k], end, positions, pieces)
                continue
            k += 1  # this block does not fit: cut inside it, up to its end
            block_first, block_limit = p, (block[k] if k < len(block) else end)
            sentence_limit = -1
        w_end = positions.window_end(p, limit, block_limit)
        reach = block_limit if w_end is None else _reach(text, w_end, block_limit)
        if p < sentence_limit:  # inside a sentence that alone does not fit
            cut = sentence_limit if w_end is None or sentence_limit <= reach else w_end
        elif w_end is None or reach >= block_limit:  # the rest of the block fits
            cut = block_limit
        elif not by_sentences:
            cut = w_end
        else:
            last = _last_sentence_end(text, p, reach, block_first, block_limit, blank)
            if last is not None:
                cut = last
            else:
                sentence_limit = _next_sentence_end(text, w_end, block_first, block_limit, blank)
                cut = w_end
        p, tp = _cut(text, p, tp, cut, end, positions, pieces)
    return pieces


def _split_anchored(
    text: str,
    start: int,
    end: int,
    found: Outline,
    config: ChunkingConfig,
    positions: TokenPositions,
    limit: int,
    tokenizer: Tokenizer,
) -> list[Piece]:
    """The oversize section ``[start, end)`` cut at its anchor paragraphs, each run
    split by :func:`_split_oversize` (a run within ``limit`` is one piece)."""
    from osrag.chunking.anchors import anchors, segments

    own = tokenizer.positions(text, start)
    cuts = anchors(text, start, end, found, own, limit, sections=False)
    pieces: list[Piece] = []
    for a, b in segments(start, end, cuts):
        a, b = trim_span(text, a, b)
        if a >= b:
            continue
        ta, tb = positions.position(a), positions.position(b)
        if tb - ta <= limit:
            pieces.append((a, b, ta, tb))
        else:
            pieces += _split_oversize(text, a, b, ta, tb, found, config, positions, limit)
    return pieces


def _reach(text: str, w_end: int, limit: int) -> int:
    """The end of the whitespace after ``w_end`` (a cut up to there adds no token)."""
    m = NON_SPACE.search(text, w_end, limit)
    return limit if m is None else m.start()


def _cut(
    text: str, p: int, tp: int, cut: int, end: int, positions: TokenPositions, pieces: list[Piece]
) -> tuple[int, int]:
    """Close the piece ``[p, cut)`` (trimmed); return where the next one starts."""
    piece_end = cut
    while text[piece_end - 1].isspace():
        piece_end -= 1
    te = positions.position(piece_end)
    pieces.append((p, piece_end, tp, te))
    m = NON_SPACE.search(text, cut, end)
    return (end, te) if m is None else (m.start(), te)


def _last_sentence_end(
    text: str, p: int, reach: int, lo: int, end: int, blank: list[int]
) -> int | None:
    """The last sentence cut in ``(p, reach]`` of the block ``[lo, end)`` (:mod:`.sentences`)."""
    last = None
    for m in _SENTENCE_STOP.finditer(text, p, end):
        stop = m.end()
        if stop > reach:
            break
        if is_sentence_end(text, m, lo):
            last = stop
    k = bisect_right(blank, reach) - 1  # a blank line inside a code block also ends one
    if k >= 0 and blank[k] > p and (last is None or blank[k] > last):
        last = blank[k]
    return last


def _next_sentence_end(text: str, after: int, lo: int, end: int, blank: list[int]) -> int:
    """The first sentence cut after ``after`` in the block ``[lo, end)``, or its end."""
    k = bisect_right(blank, after)
    first = blank[k] if k < len(blank) and blank[k] < end else end
    for m in _SENTENCE_STOP.finditer(text, after, end):
        stop = m.end()
        if stop > first:
            break
        if stop > after and is_sentence_end(text, m, lo):
            return stop
    return first


def structural_chunks(
    doc: Document,
    config: ChunkingConfig,
    tokenizer: Tokenizer,
    positions: TokenPositions | None = None,
) -> list[Chunk]:
    """The ``structural`` strategy (see the module rule)."""
    found, parser = outline(doc)
    positions = positions or tokenizer.positions(doc.text, doc.content_start)
    budgets = Budgets(config, tokenizer)
    limit = budgets(heading_part(doc.title))
    # (start, end, token_start, token_end, heading_path) of each non-empty section,
    # produced lazily so token positions are counted in one left-to-right pass
    sections: Iterator[Section] = _positioned(doc, _sections(doc, found), positions)
    if config.min_tokens > 0:
        sections = _merge_small(sections, config.min_tokens, limit)

    crumbs: dict[tuple[str, ...], tuple[str, list[str]]] = {}
    chunks: list[Chunk] = []
    tokenizer_id = tokenizer.id
    for a, b, ta, tb, path in sections:
        key = tuple(path)
        named = crumbs.get(key)
        if named is None:
            named = crumbs[key] = (breadcrumb(doc.title, path), [heading_part(h) for h in path])
        crumb, heading_path = named
        bound = budgets(crumb)
        if tb - ta <= bound:
            pieces: list[Piece] = [(a, b, ta, tb)]
        elif config.anchor == "structure":
            pieces = _split_anchored(doc.text, a, b, found, config, positions, bound, tokenizer)
        else:
            pieces = _split_oversize(doc.text, a, b, ta, tb, found, config, positions, bound)
        for start, end, token_start, token_end in pieces:
            chunks.append(
                make_chunk(
                    doc,
                    strategy="structural",
                    index=len(chunks),
                    start=start,
                    end=end,
                    breadcrumb=crumb,
                    heading_path=heading_path,
                    token_start=token_start,
                    token_end=token_end,
                    tokenizer=tokenizer_id,
                    parser=parser,
                    shown=budgets.shown(crumb),
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
