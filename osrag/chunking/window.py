"""The embedder's window: what a chunk's embedded text costs, and how much body fits.

Rule: the embedder receives ``prefix + chunk.text`` — ``text`` being ``breadcrumb +
"\\n" + body``, or ``body`` alone without a breadcrumb — and adds its special tokens
(``[CLS]``/``[SEP]``). A chunk's *embedder tokens* are therefore

    ``count(prefix + text) + special_tokens``

in the embedder's own tokenizer, and the tokens past ``window.tokens`` are the ones
the embedder cuts off (``tokens_lost``). With ``window.fit`` the chunker counts bodies
in the embedder's tokenizer and bounds each body by :func:`body_budget`: the window
less the special tokens, the prefix and the breadcrumb line (never more than
``max_tokens``, never less than one token). For a BERT tokenizer, which splits on
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

from osrag.chunking.tokenizers import Tokenizer, get_tokenizer
from osrag.models import Chunk, ChunkingConfig, EmbedWindow

__all__ = [
    "annotate",
    "body_budget",
    "embed_text",
    "embed_window",
    "fit_config",
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


class Budgets:
    """:func:`body_budget` per breadcrumb, counted once each (one document's sections
    share a few breadcrumbs)."""

    __slots__ = ("_cache", "max_tokens", "tokenizer", "window")

    def __init__(self, config: ChunkingConfig, tokenizer: Tokenizer) -> None:
        self.window = config.window if config.window is not None and config.window.fit else None
        self.tokenizer = tokenizer
        self.max_tokens = config.max_tokens
        self._cache: dict[str, int] = {}

    def __call__(self, crumb: str, bound: int | None = None) -> int:
        """The body bound of a chunk under ``crumb`` (``bound``: the strategy's own limit,
        ``max_tokens`` by default)."""
        limit = self.max_tokens if bound is None else bound
        if self.window is None:
            return limit
        key = f"{limit}\x00{crumb}"
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = body_budget(self.window, self.tokenizer, crumb, limit)
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
            head = heads.get(chunk.breadcrumb)
            if head is None:
                line = window.prefix + (chunk.breadcrumb + "\n" if chunk.breadcrumb else "")
                head = heads[chunk.breadcrumb] = tokenizer.count(line) if line else 0
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
