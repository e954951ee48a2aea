"""The embedder's window: what a chunk's embedded text costs, and how much body fits.

Rule: the embedder receives ``prefix + chunk.text`` — ``text`` being ``breadcrumb +
"\\n" + body``, or ``body`` alone without a breadcrumb — and adds its special tokens
(``[CLS]``/``[SEP]``). A chunk's *embedder tokens* are therefore

    ``count(prefix + text) + special_tokens``

in the embedder's own tokenizer, and the tokens past ``window.tokens`` are the ones
the embedder cuts off (``tokens_lost``). With ``window.fit`` the chunker counts bodies
in the embedder's tokenizer and bounds each body by :func:`body_budget`: the window
less the special tokens, the prefix and the breadcrumb line (never more than
``max_tokens``, never less than one token). The breadcrumb line may take at most
``BREADCRUMB_SHARE`` of the window left after the special tokens and the prefix
(:mod:`osrag.lexicon.bounds`; half): a longer breadcrumb is shortened in ``text`` by
:func:`shown_breadcrumb` — its longest beginning that fits with ``…`` after it, cut back
to a space in its second half — so the body always keeps the rest of the window; the
chunk's ``breadcrumb`` field and its ``body`` stay whole. For a BERT tokenizer, which splits on
whitespace before anything else, ``count(crumb + "\\n" + body) == count(crumb) +
count(body)``, so a body within its budget gives an embedded text within the window;
:func:`annotate` counts the real embedded text of every chunk anyway, so a tokenizer
for which this does not hold is reported (``tokens_lost``), never silent.

:func:`embed_window` reads the window of an embedder (its ``tokenizer_path``,
``max_length`` and ``passage_prefix``; see :class:`osrag.embedding.base.NamedEmbedder`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from osrag.chunking.records import text_breadcrumb
from osrag.chunking.tokenizers import Tokenizer, get_tokenizer
from osrag.lexicon.bounds import BREADCRUMB_SHARE, ELLIPSIS
from osrag.models import Chunk, ChunkingConfig, EmbedWindow

__all__ = [
    "annotate",
    "body_budget",
    "embed_text",
    "embed_window",
    "fit_config",
    "shown_breadcrumb",
    "tokenizer_spec",
]


def embed_text(chunk: Chunk, window: EmbedWindow) -> str:
    """What the embedder receives for ``chunk`` (before its special tokens)."""
    return window.prefix + chunk.text if window.prefix else chunk.text


def body_budget(window: EmbedWindow, tokenizer: Tokenizer, crumb: str, max_tokens: int) -> int:
    """The largest body, in ``tokenizer``'s tokens, whose embedded text fits the window."""
    head = window.prefix + (crumb + "\n" if crumb else "")
    used = window.special_tokens + (tokenizer.count(head) if head else 0)
    return max(1, min(max_tokens, window.tokens - used))


def shown_breadcrumb(crumb: str, window: EmbedWindow, tokenizer: Tokenizer) -> str:
    """``crumb`` as the embedded text holds it: whole when its line (``crumb + "\n"``)
    takes at most ``BREADCRUMB_SHARE`` of the window left after the special tokens and
    the prefix, else its longest beginning whose line fits with :data:`ELLIPSIS` after it
    (cut back to a space in its second half when that still fits), then the mark."""
    prefix = tokenizer.count(window.prefix) if window.prefix else 0
    budget = int((window.tokens - window.special_tokens - prefix) * BREADCRUMB_SHARE)
    if not crumb or tokenizer.count(crumb + "\n") <= budget:
        return crumb

    def fits(n: int) -> bool:
        return tokenizer.count(crumb[:n].rstrip() + ELLIPSIS + "\n") <= budget

    low, high = 0, len(crumb)  # the longest fitting beginning, by bisection
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    space = crumb.rfind(" ", 0, low)
    if space >= low // 2 and space > 0 and fits(space):
        low = space
    return crumb[:low].rstrip() + ELLIPSIS


class Budgets:
    """:func:`body_budget` per breadcrumb, counted once each (one document's sections
    share a few breadcrumbs), and the breadcrumb as the text holds it
    (:func:`shown_breadcrumb`)."""

    __slots__ = ("_cache", "_shown", "max_tokens", "tokenizer", "window")

    def __init__(self, config: ChunkingConfig, tokenizer: Tokenizer) -> None:
        self.window = config.window if config.window is not None and config.window.fit else None
        self.tokenizer = tokenizer
        self.max_tokens = config.max_tokens
        self._cache: dict[str, int] = {}
        self._shown: dict[str, str] = {}

    def shown(self, crumb: str) -> str:
        """``crumb`` as the chunk's text holds it (itself without a window to fit)."""
        if self.window is None:
            return crumb
        found = self._shown.get(crumb)
        if found is None:
            found = self._shown[crumb] = shown_breadcrumb(crumb, self.window, self.tokenizer)
        return found

    def __call__(self, crumb: str, bound: int | None = None) -> int:
        """The body bound of a chunk under ``crumb`` (``bound``: the strategy's own limit,
        ``max_tokens`` by default)."""
        limit = self.max_tokens if bound is None else bound
        if self.window is None:
            return limit
        key = f"{limit}\x00{crumb}"
        found = self._cache.get(key)
        if found is None:
            shown = self.shown(crumb)
            found = self._cache[key] = body_budget(self.window, self.tokenizer, shown, limit)
        return found


def _counts(tokenizer: Tokenizer, texts: list[str]) -> list[int]:
    batch = getattr(tokenizer, "counts", None)
    if batch is not None:
        return list(batch(texts))
    return [tokenizer.count(t) for t in texts]


def _whole_words(text: str, chunk: Chunk) -> bool:
    """Does the chunk's span start and end at whitespace (or the text's ends)?"""
    start, end = chunk.span.start, chunk.span.end
    return (start == 0 or text[start - 1].isspace()) and (end == len(text) or text[end].isspace())


def annotate(
    chunks: list[Chunk], window: EmbedWindow | None, text: str | None = None
) -> list[Chunk]:
    """Set each chunk's ``embedder_tokens`` and ``tokens_lost`` (in place; the chunks are
    fresh from the chunker). Without a window, nothing changes.

    Each embedded text is tokenised again, except — given the document ``text`` — a chunk
    counted by the embedder's own tokenizer, when that tokenizer splits at whitespace
    first (BERT) and the chunk's span starts and ends at whitespace: its body then has
    exactly the ``tokens`` the chunker counted where it lay, and only the breadcrumb
    line is counted (once per breadcrumb). A chunk cut inside a word is always counted
    again (its first sub-word may count differently alone)."""
    if window is None or not chunks:
        return chunks
    tokenizer = get_tokenizer(window.tokenizer)
    additive = (
        text is not None
        and bool(getattr(tokenizer, "splits_on_whitespace", False))
        and chunks[0].tokenizer == tokenizer.id
    )
    heads: dict[str, int] = {}
    counts: list[int] = [-1] * len(chunks)
    again: list[int] = []
    for i, chunk in enumerate(chunks):
        if additive and _whole_words(text, chunk):  # type: ignore[arg-type]
            crumb = text_breadcrumb(chunk)
            head = heads.get(crumb)
            if head is None:
                line = window.prefix + (crumb + "\n" if crumb else "")
                head = heads[crumb] = tokenizer.count(line) if line else 0
            counts[i] = head + chunk.tokens
        else:
            again.append(i)
    if again:
        found = _counts(tokenizer, [embed_text(chunks[i], window) for i in again])
        for i, count in zip(again, found, strict=True):
            counts[i] = count
    for chunk, count in zip(chunks, counts, strict=True):
        total = count + window.special_tokens
        chunk.embedder_tokens = total
        chunk.tokens_lost = max(0, total - window.tokens)
    return chunks


@lru_cache(maxsize=16)
def tokenizer_spec(path: Path) -> str:
    """The :func:`get_tokenizer` name of a ``tokenizer.json``: ``minilm-wordpiece`` for the
    default model's file (the same id as ``--tokenizer minilm-wordpiece``), else
    ``file:PATH``."""
    found = get_tokenizer(f"file:{path}")
    return "minilm-wordpiece" if found.name == "minilm-wordpiece" else f"file:{path}"


def embed_window(embedder: Any, *, fit: bool = True) -> EmbedWindow | None:
    """The window of ``embedder``, or None when it does not say (a service, a callable)."""
    path = getattr(embedder, "tokenizer_path", None)
    length = getattr(embedder, "max_length", None)
    if path is None or not isinstance(length, int):
        return None
    spec = tokenizer_spec(Path(path))
    tokenizer = get_tokenizer(spec)
    special = getattr(tokenizer, "special_tokens", None)
    return EmbedWindow(
        tokenizer=spec,
        tokens=length,
        special_tokens=int(special()) if special is not None else 2,
        prefix=str(getattr(embedder, "passage_prefix", "") or ""),
        fit=fit,
    )


def fit_config(config: ChunkingConfig, window: EmbedWindow | None) -> ChunkingConfig:
    """``config`` with the embedder's window: counted always, and with ``window.fit`` the
    chunks are counted and bounded in the embedder's tokenizer."""
    if window is None:
        return config
    update: dict[str, Any] = {"window": window}
    if window.fit:
        update["tokenizer"] = window.tokenizer
    return config.model_copy(update=update)
