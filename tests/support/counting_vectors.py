"""An embedder that records every text it is asked for: hash vectors, no model.

Tests of reuse count its calls (a text read back from an index or a cache is never
asked for). ``python:counting_vectors:embedder`` names it on the command line (this
folder is on ``sys.path`` in the tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from osrag.embedding.base import NamedEmbedder, Vectors, l2_normalise


class CountingVectors(NamedEmbedder):
    """Deterministic unit vectors from a hash of each text; ``asked`` lists every text."""

    def __init__(self, name: str = "counting-hash", dimension: int = 24) -> None:
        self._name = name
        self._version = f"1-{dimension}"
        self._dimension = dimension
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.asked += texts
        rows = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            rows[i] = np.random.default_rng(seed).standard_normal(self.dimension)
        return l2_normalise(rows)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.embed(texts)


def embedder() -> CountingVectors:
    """The factory ``python:counting_vectors:embedder`` names."""
    return CountingVectors()
