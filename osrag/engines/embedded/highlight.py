"""Highlight fragments for the embedded backend, shaped like OpenSearch's unified highlighter.

Rule: the field's text is cut into passages — sentences (after ``. ! ?`` and at
line breaks), a sentence longer than ``fragment_size`` cut again at the last
space before the limit. A passage scores one point per matching token (a token
whose analysed term is one of the query's terms for this field). The best
``number_of_fragments`` passages with at least one match are returned in the
order they appear in the text, each matching token wrapped in the tags.

Invariant: every fragment is a substring of the text once the tags are
removed; no fragment is returned when no term matches (as OpenSearch, which
omits the field). Which sentences OpenSearch picks can differ — its passage
scorer is BM25-like — so fragments are for display; they never affect ranking.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from osrag.engines.embedded.analyzers import Analyzer

_SENTENCE = re.compile(r"[^\n]*?(?:[.!?]+(?=\s)|\n|$)")


def _passages(text: str, fragment_size: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in _SENTENCE.finditer(text):
        start, end = match.start(), match.end()
        while end - start > fragment_size:
            cut = text.rfind(" ", start + 1, start + fragment_size)
            cut = cut if cut > start else start + fragment_size
            spans.append((start, cut))
            start = cut
        if text[start:end].strip():
            spans.append((start, end))
    return spans


def highlight(
    text: str,
    analyzer: Analyzer,
    terms: Collection[str],
    *,
    number_of_fragments: int = 5,
    fragment_size: int = 100,
    pre_tag: str = "<em>",
    post_tag: str = "</em>",
) -> list[str]:
    """The best fragments of ``text`` with the tokens of ``terms`` wrapped in the tags."""
    if not text or not terms or number_of_fragments <= 0:
        return []
    wanted = set(terms)
    matches = [(t.start, t.end) for t in analyzer.tokens(text) if t.term in wanted]
    if not matches:
        return []
    scored: list[tuple[int, int, int, int]] = []  # (-score, position, start, end)
    for position, (start, end) in enumerate(_passages(text, max(fragment_size, 1))):
        inside = sum(1 for s, e in matches if s >= start and e <= end)
        if inside:
            scored.append((-inside, position, start, end))
    best = sorted(sorted(scored)[:number_of_fragments], key=lambda item: item[1])
    fragments = []
    for _score, _position, start, end in best:
        pieces, cursor = [], start
        for s, e in matches:
            if s >= start and e <= end:
                pieces += [text[cursor:s], pre_tag, text[s:e], post_tag]
                cursor = e
        pieces.append(text[cursor:end])
        fragments.append("".join(pieces).strip())
    return fragments
