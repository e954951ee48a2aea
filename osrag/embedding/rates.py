"""How fast an embedder embeds on this machine: measured once, stored beside the vector
cache, read by every change plan.

Rule: ``embed_rates.json`` in the vector cache's folder
(:func:`~osrag.embedding.cache.default_cache_path`) maps an embedder's cache key (its
``name@version``, and for a service its endpoint) to one :class:`EmbedRate`: texts and
embedder tokens per second **in one process**, measured on real chunk texts after a
warm-up call (the model's load is not counted), with when and on how many texts. A plan
multiplies it by the embedding worker processes an ingest would use. A rate measured on
another machine is another file: the rates are this machine's.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from osrag.embedding.cache import default_cache_path
from osrag.errors import UnsafeFileError
from osrag.writes import read_own, write_file

__all__ = ["EmbedRate", "load_rate", "measure_rate", "rates_path", "store_rate"]

WARM_UP = 2
"""Texts embedded before the clock starts (the first call loads the model)."""


@dataclass(frozen=True)
class EmbedRate:
    texts_per_second: float
    tokens_per_second: float
    texts: int
    """Texts the measurement embedded."""
    measured_at: str
    """ISO date and time of the measurement (UTC)."""

    def describe(self) -> str:
        return f"measured on this machine {self.measured_at[:16]} UTC over {self.texts} texts"


def rates_path() -> Path:
    """``embed_rates.json`` beside the vector cache."""
    return default_cache_path().parent / "embed_rates.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_own(path).decode("utf-8"))
    except (OSError, ValueError, UnsafeFileError):
        return {}
    return data if isinstance(data, dict) else {}


def load_rate(key: str, path: Path | None = None) -> EmbedRate | None:
    """The stored rate of the embedder keyed ``key``, or None (none stored, or unreadable)."""
    found = _read(path or rates_path()).get(key)
    if not isinstance(found, dict):
        return None
    try:
        return EmbedRate(**found)
    except TypeError:
        return None


def store_rate(key: str, rate: EmbedRate, path: Path | None = None) -> None:
    """Record ``rate`` for ``key`` (the file written whole, never through a link:
    :mod:`osrag.writes`)."""
    path = path or rates_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read(path)
    data[key] = asdict(rate)
    write_file(path, json.dumps(data, indent=1, sort_keys=True))


def measure_rate(embedder: Any, texts: Sequence[str], tokens: Sequence[int]) -> EmbedRate:
    """Embed ``texts`` (whose embedder tokens are ``tokens``) once, timing all but the
    warm-up, in this process."""
    texts, tokens = list(texts), list(tokens)
    warm = min(WARM_UP, max(0, len(texts) - 1))
    embedder.embed(texts[:warm] or ["warm-up"])
    timed, timed_tokens = texts[warm:], tokens[warm:]
    started = time.perf_counter()
    embedder.embed(timed)
    seconds = max(time.perf_counter() - started, 1e-9)
    return EmbedRate(
        texts_per_second=round(len(timed) / seconds, 3),
        tokens_per_second=round(sum(timed_tokens) / seconds, 1),
        texts=len(timed),
        measured_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )
