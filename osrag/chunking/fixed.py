"""Fixed windows: cut every ``w`` tokens, step ``w − o``, structure-blind.

Rule (DESIGN.md, exact): tokens ``t[0..L)``, window ``w >= 1``, overlap ``o``
clamped to ``[0, w − 1]``; windows start at ``0, s, 2s, …`` with ``s = w − o``;
stop after the first window that reaches ``L``; the last window may be shorter.
So the count is ``1`` if ``L <= w`` else ``ceil((L − o) / (w − o))``, neighbours
share exactly ``o`` tokens, no trailing window is redundant, and an empty
document gives no window. Storage multiplier ≈ ``w / (w − o)``.

A window's span runs from its first token's start to its last token's end, so
its body keeps the source's own line breaks. The breadcrumb is the document
title: fixed windows do not know the structure (Markdown markers stay in the
body — the honest cost of cutting on token count).

With an embedder window that chunks must fit (:mod:`.window`), ``w`` is at most the
window's budget under the title breadcrumb, in the embedder's tokens.

With ``anchor="structure"`` the rule applies between anchors (section starts and
anchor paragraphs, :mod:`.anchors`): windows restart at each, so an edit moves the
windows of its own run only. Token spans still count from the content start.

Invariant (tested with hypothesis): the windows cover every token, and
``normalize(source[span])`` is the body.
"""

from __future__ import annotations

from osrag.chunking.records import heading_part, make_chunk
from osrag.chunking.tokenizers import Tokenizer
from osrag.chunking.window import Budgets
from osrag.models import Chunk, ChunkingConfig, Document

__all__ = ["PARSER", "fixed_chunks", "fixed_windows"]

PARSER = "none@1"
"""Fixed windows parse no structure; the record says so."""


def fixed_windows(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Token intervals ``[i, j)`` of the windows over ``length`` tokens."""
    size = max(size, 1)
    overlap = min(max(overlap, 0), size - 1)
    step = size - overlap
    windows: list[tuple[int, int]] = []
    start = 0
    while start < length:
        windows.append((start, min(start + size, length)))
        if start + size >= length:
            break
        start += step
    return windows


def fixed_chunks(
    doc: Document,
    config: ChunkingConfig,
    tokenizer: Tokenizer,
    *,
    start: int | None = None,
    end: int | None = None,
) -> list[Chunk]:
    """Fixed windows over ``doc`` (or over ``[start, end)`` of its text)."""
    lo = doc.content_start if start is None else start
    hi = len(doc.text) if end is None else end
    budgets = Budgets(config, tokenizer)
    crumb = heading_part(doc.title)
    size = budgets(crumb, config.size)
    runs = [(lo, hi)]
    if config.anchor == "structure":
        from osrag.chunking.anchors import anchors, segments
        from osrag.chunking.outline import outline

        found, _ = outline(doc)
        own = tokenizer.positions(doc.text, lo)
        runs = segments(lo, hi, anchors(doc.text, lo, hi, found, own, size, sections=True))
    positions = tokenizer.positions(doc.text, lo)
    chunks: list[Chunk] = []
    for run_start, run_end in runs:
        first, length = positions.position(run_start), positions.position(run_end)
        windows = fixed_windows(length - first, size, config.overlap)
        spans = tokenizer.spans(doc.text, run_start, run_end, windows)
        for (i, j), (a, b) in zip(windows, spans, strict=True):
            chunks.append(
                make_chunk(
                    doc,
                    strategy="fixed",
                    index=len(chunks),
                    start=a,
                    end=b,
                    breadcrumb=crumb,
                    heading_path=[],
                    token_start=first + i,
                    token_end=first + j,
                    tokenizer=tokenizer.id,
                    parser=PARSER,
                    shown=budgets.shown(crumb),
                )
            )
    return chunks
