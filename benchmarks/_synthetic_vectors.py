"""A synthetic embedder for load tests: a unit vector per text, from a hash of the text.

    embedder = "python:_synthetic_vectors:embedder"   # with benchmarks/ on sys.path

The vectors carry no meaning (two texts about the same thing are no closer than any
two), so hybrid *ranking* measured with it says nothing; what it is for is the cost of
the ``knn_vector`` leg — 384 float32 dimensions, an HNSW graph (lucene, m 16) to
walk — without spending the shared cores on a real model. Gaussian directions are a
worst case for HNSW (no clusters to exploit), so its vector leg is, if anything,
slower than a real model's would be.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from osrag.embedding.base import NamedEmbedder, Vectors, l2_normalise

DIMENSION = 384


class HashVectors(NamedEmbedder):
    """Deterministic Gaussian unit vectors: the same text always gives the same vector."""

    def __init__(self, dimension: int = DIMENSION) -> None:
        self._name = "synthetic-hash"
        self._version = f"1-{dimension}"
        self._dimension = dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            rows[i] = np.random.default_rng(seed).standard_normal(self.dimension)
        return l2_normalise(rows)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.embed(texts)


def embedder() -> HashVectors:
    """The factory ``python:_synthetic_vectors:embedder`` names."""
    return HashVectors()
