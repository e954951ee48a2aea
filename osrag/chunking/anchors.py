"""Anchored cuts: where windows restart, so that an edit moves few chunk boundaries.

Greedy packing (sentences, the blocks of an oversize section) and fixed windows place
every cut after the previous one: a sentence added near the top of a document moves
every later boundary, and every later chunk's text — and vector — changes
(``benchmarks/edit_stability.py`` measures it). With ``anchor="structure"`` the
windows restart at **anchors**, points fixed by the text around them and not by their
position:

* every **section start** (a heading: Markdown, or the plain-text headings of
  :mod:`.plaintext`), for ``fixed`` and ``sentences`` (``structural`` cuts there
  already);
* the end of every **anchor paragraph**. A paragraph (a block between blank lines, never
  inside a fenced code block, HTML block or table) is an anchor when a hash of its own
  words falls below ``tokens / bound`` — a paragraph of ``tokens`` tokens under a size
  bound of ``bound`` ends a run with that probability, a paragraph as long as the bound
  always does. Runs between anchors then average about one chunk's size, and which
  paragraphs are anchors depends on nothing but their own text: content-defined
  chunking, as LBFS and rsync cut files.

Between two anchors the strategy's own rule applies unchanged (the exact fixed-window
rule, greedy sentence packing, the oversize split), so an edit changes the chunks of its
own run and, at most, the run after it when it creates or removes an anchor; every later
chunk keeps its text. The cost is a shorter last chunk in each run: more chunks than
without anchors (the benchmark reports both).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from itertools import pairwise

from osrag.chunking.markdown import Outline
from osrag.chunking.normalize import PARAGRAPH_BREAK
from osrag.chunking.tokenizers import TokenPositions

__all__ = ["anchors", "is_anchor", "segments"]

_FIXED_POINT = 2**64


def is_anchor(block: str, tokens: int, bound: int) -> bool:
    """Does the paragraph ``block`` of ``tokens`` tokens end a run under ``bound``?"""
    if tokens >= bound:
        return True
    words = " ".join(block.split()).encode("utf-8")
    value = int.from_bytes(hashlib.blake2b(words, digest_size=8).digest(), "big")
    return value * bound < tokens * _FIXED_POINT


def anchors(
    text: str,
    start: int,
    end: int,
    found: Outline,
    positions: TokenPositions,
    bound: int,
    *,
    sections: bool,
) -> list[int]:
    """Offsets in ``(start, end)`` where windows restart (sorted): the end of every anchor
    paragraph, and every heading's start when ``sections``. ``positions`` is read left to
    right (give it one of its own)."""
    atomic = found.atomic
    atomic_starts = [a for a, _ in atomic]
    cuts: set[int] = set()
    if sections:
        cuts.update(h.start for h in found.headings)
    boundaries = [start]
    for m in PARAGRAPH_BREAK.finditer(text, start, end):
        cut = m.start() + 1
        i = bisect_right(atomic_starts, cut) - 1
        if i < 0 or not atomic[i][0] < cut < atomic[i][1]:
            boundaries.append(cut)
    boundaries.append(end)
    for a, b in pairwise(boundaries):
        block = text[a:b]
        if not block.strip():
            continue
        tokens = positions.position(b) - positions.position(a)
        if is_anchor(block, tokens, max(bound, 1)):
            cuts.add(b)
    return sorted(c for c in cuts if start < c < end)


def segments(start: int, end: int, cuts: list[int]) -> list[tuple[int, int]]:
    """``[start, end)`` cut at ``cuts`` (those inside it), as consecutive intervals."""
    inside = [c for c in cuts if start < c < end]
    points = [start, *inside, end]
    return [(a, b) for a, b in pairwise(points) if a < b]
