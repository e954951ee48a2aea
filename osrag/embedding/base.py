"""The :class:`Embedder` protocol and the checks every adapter's output goes through.

An embedder turns texts into one vector each. The contract a caller can rely on:

- ``embed(texts)`` returns a C-contiguous ``numpy.float32`` array of shape
  ``(len(texts), dimension)`` whose rows are **L2-normalised** (unit length,
  so a dot product is the cosine similarity). Row ``i`` belongs to
  ``texts[i]``; an empty sequence gives shape ``(0, dimension)``.
- ``embed_queries(texts)`` is the same for query texts. Models trained with a
  query/passage distinction (E5's ``query: `` prefix, instructed models) add
  it there; symmetric models (all-MiniLM-L6-v2, most sentence-transformers
  models) return exactly what ``embed`` returns.
- ``id`` is ``name@version``. It goes into the index generation's digest and
  keys the vector cache: two embedders with the same id must give the same
  vectors for the same text, and anything that changes the vectors (weights,
  tokenizer, truncation length, pooling) must change the version.
- Every failure is an :class:`~osrag.errors.EmbeddingError` whose message
  names the model; a wrong dimension is a
  :class:`~osrag.errors.DimensionMismatchError` naming both dimensions.

Adapters pass whatever their model or service returned through
:func:`checked_vectors`, which validates the shape, rejects NaN, infinity and
all-zero rows, and normalises.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from osrag.errors import DimensionMismatchError, EmbeddingError

Vectors = npt.NDArray[np.float32]
"""A ``(n, dimension)`` float32 array with unit-length rows."""


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit-length float32 vectors of one dimension."""

    @property
    def name(self) -> str:
        """The model's name (``all-MiniLM-L6-v2``, a service's model name…)."""
        ...

    @property
    def version(self) -> str:
        """What distinguishes this model's vectors from another build of the same name."""
        ...

    @property
    def id(self) -> str:
        """``name@version``: part of the generation digest and of the cache key."""
        ...

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors for passages (chunks), one unit-length row per text, in order."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Vectors for queries; the same as :meth:`embed` for a symmetric model."""
        ...


def embedder_id(name: str, version: str) -> str:
    """The ``name@version`` form used for ids."""
    return f"{name}@{version}"


class NamedEmbedder:
    """The identity of an :class:`Embedder` from attributes its subclass sets: ``_name``,
    ``_version`` and ``_dimension`` (None until :meth:`_find_dimension` finds it, for
    models that learn it from a first call).

    A local model also says what it can see, for the chunker to cut chunks that fit
    (:func:`osrag.chunking.window.embed_window`): ``tokenizer_path`` (its
    ``tokenizer.json``), ``max_length`` (the window in tokens, special tokens included)
    and ``passage_prefix`` (text put before every passage). None where unknown (a
    service): chunks are then bounded as without an embedder."""

    _name: str
    _version: str
    _dimension: int | None = None
    tokenizer_path: Path | None = None
    max_length: int | None = None
    passage_prefix: str = ""

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> str:
        return self._version

    @property
    def id(self) -> str:
        return embedder_id(self._name, self._version)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = self._find_dimension()
        return self._dimension

    def _find_dimension(self) -> int:
        raise EmbeddingError(f"embedder {self.id}: its dimension is not known")


def l2_normalise(vectors: npt.NDArray[Any]) -> Vectors:
    """Rows scaled to unit length (float32, C-contiguous). Zero rows stay zero."""
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def checked_vectors(
    raw: Any, *, count: int, model: str, dimension: int | None = None, source: str = ""
) -> Vectors:
    """Validate and normalise what a model or service returned for ``count`` texts.

    ``raw`` may be any array-like of numbers (a numpy array, a list of lists
    from JSON). Raises :class:`EmbeddingError` naming ``model`` (and
    ``source``, e.g. the URL) when it is not a ``(count, d)`` table of finite
    numbers with no all-zero row, and :class:`DimensionMismatchError` when
    ``dimension`` is given and ``d`` differs.
    """
    where = f" ({source})" if source else ""
    try:
        array = np.asarray(raw, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"embedder {model}{where}: the vectors are not a table of numbers ({exc})"
        ) from exc
    if count == 0 and array.size == 0:
        return np.zeros((0, dimension or 0), dtype=np.float32)
    if array.ndim != 2 or array.shape[0] != count:
        raise EmbeddingError(
            f"embedder {model}{where}: expected {count} vectors, got an array of shape "
            f"{array.shape}"
        )
    if dimension is not None:
        check_dimension(array.shape[1], dimension, model=model)
    if not np.isfinite(array).all():
        bad = int(np.flatnonzero(~np.isfinite(array).all(axis=1))[0])
        raise EmbeddingError(f"embedder {model}{where}: vector {bad} holds NaN or infinity")
    norms = np.linalg.norm(array, axis=1)
    if (norms == 0).any():
        bad = int(np.flatnonzero(norms == 0)[0])
        raise EmbeddingError(
            f"embedder {model}{where}: vector {bad} is all zeros and cannot be normalised"
        )
    return l2_normalise(array)


def check_dimension(actual: int, expected: int, *, model: str, what: str = "") -> None:
    """Raise :class:`DimensionMismatchError` naming both dimensions if they differ.

    ``what`` names the side that expects ``expected`` (``generation
    osrag-chunks-3``, ``the vector cache``…); by default "the caller".
    """
    if actual != expected:
        holder = what or "the caller"
        raise DimensionMismatchError(
            f"embedder {model} gives {actual}-dimensional vectors but {holder} expects "
            f"{expected} dimensions",
            expected=expected,
            actual=actual,
        )


def ensure_dimension(embedder: Embedder, expected: int, *, what: str = "") -> None:
    """Check that ``embedder`` produces ``expected``-dimensional vectors (see above)."""
    check_dimension(embedder.dimension, expected, model=embedder.id, what=what)
