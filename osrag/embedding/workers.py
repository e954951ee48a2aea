"""Embedding in worker processes: :class:`EmbeddingPool`.

Each worker process holds its own copy of the embedder (sent pickled; the
local-model embedders pickle without their ONNX session and build it in the
worker) and runs single-threaded. A call to :meth:`EmbeddingPool.embed` is cut
into one contiguous slice per worker, balanced by characters, and the slices
are put back in order — the vectors are exactly those of the embedder run in
one process.

Measured on the project's 2-core machine (``benchmarks/embedding.py``, ~128-token
texts, interleaved rounds, wall-clock): 2 processes × 1 thread 34.4 texts/s,
1 process × 1 thread 27.7, 1 process × 2 ONNX Runtime threads 20.2. Two
single-threaded processes beat one process with two threads (1.7×) and one
thread alone (1.24×; the machine is shared with other work, so less than the
2× of two idle cores). Hence :func:`default_workers`: one single-threaded
worker per usable core, at most 4. Starting two workers and loading their
models took 5 s on that (loaded) machine, and each holds ~360 MiB resident
(MiniLM), so a caller should use the pool only for large calls (hundreds of
texts) and embed queries in-process. Workers are started with ``spawn``: a
script that uses the pool needs the usual ``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from osrag.embedding.base import Embedder, Vectors
from osrag.embedding.runtime import require_text
from osrag.errors import ConfigError, EmbeddingError
from osrag.pids import die_with_parent

_worker_embedder: Any = None


def _init_worker(payload: bytes, owner: int) -> None:
    global _worker_embedder
    die_with_parent(owner)
    _worker_embedder = pickle.loads(payload)


def _embed_in_worker(texts: list[str], queries: bool) -> Vectors:
    embedder = _worker_embedder
    return embedder.embed_queries(texts) if queries else embedder.embed(texts)


def default_workers() -> int:
    """Worker processes to use by default: the usable cores, at most 4 (1 means in-process)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def split_evenly(weights: Sequence[int], parts: int) -> list[tuple[int, int]]:
    """Cut ``range(len(weights))`` into at most ``parts`` contiguous slices of similar weight.

    Pure; slices are non-empty, in order, and cover every index exactly once.
    """
    n = len(weights)
    if n == 0:
        return []
    parts = max(1, min(parts, n))
    cost = [max(w, 1) for w in weights]  # an empty text still costs a forward pass
    total = sum(cost)
    bounds = [0]
    running = 0
    for i, c in enumerate(cost):
        running += c
        cut = len(bounds)  # the number of the next cut, 1-based
        if cut < parts and running * parts >= total * cut and n - (i + 1) >= parts - cut:
            bounds.append(i + 1)
    bounds.append(n)
    return list(itertools.pairwise(bounds))


class EmbeddingPool:
    """An :class:`Embedder` that runs another one in ``workers`` processes.

    ``workers=1`` runs in this process (no pool is started). Otherwise the
    pool starts on first use with the ``spawn`` method (no fork of a process
    that may hold ONNX Runtime threads). Use it as a context manager, or call
    :meth:`close`. Calls smaller than ``min_texts_per_worker`` × 2 are sent to
    one worker whole.
    """

    def __init__(
        self, embedder: Embedder, workers: int | None = None, *, min_texts_per_worker: int = 8
    ) -> None:
        self.embedder = embedder
        self.workers = default_workers() if workers is None else workers
        if self.workers < 1:
            raise ConfigError(f"embedder {embedder.id}: workers must be at least 1")
        self.min_texts_per_worker = max(1, min_texts_per_worker)
        self._payload: bytes | None = None
        if self.workers > 1:
            try:
                self._payload = pickle.dumps(embedder)
            except Exception as exc:
                raise ConfigError(
                    f"embedder {embedder.id} cannot be sent to worker processes ({exc}); "
                    "use workers=1"
                ) from exc
        self._executor: ProcessPoolExecutor | None = None

    @property
    def name(self) -> str:
        return self.embedder.name

    @property
    def version(self) -> str:
        return self.embedder.version

    @property
    def id(self) -> str:
        return self.embedder.id

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    @property
    def cache_key(self) -> str:
        from osrag.embedding.batching import cache_key

        return cache_key(self.embedder)

    def __repr__(self) -> str:
        return f"EmbeddingPool({self.embedder!r}, workers={self.workers})"

    def __enter__(self) -> EmbeddingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes (they are started again if used again)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            payload: bytes = self._payload or b""
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(payload, os.getpid()),
            )
        return self._executor

    def _run(self, texts: Sequence[str], queries: bool) -> Vectors:
        items = require_text(texts, self.id)
        if self.workers == 1:
            return self.embedder.embed_queries(items) if queries else self.embedder.embed(items)
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = max(1, min(self.workers, len(items) // self.min_texts_per_worker))
        slices = split_evenly([len(t) for t in items], parts)
        pool = self._pool()
        futures = [pool.submit(_embed_in_worker, items[a:b], queries) for a, b in slices]
        try:
            results = [f.result() for f in futures]
        except EmbeddingError:
            raise
        except Exception as exc:  # a worker died (BrokenProcessPool) or could not load the model
            self.close()
            raise EmbeddingError(f"embedder {self.id}: a worker process failed ({exc})") from exc
        return np.concatenate(results)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The embedder's vectors for ``texts``, computed in the workers."""
        return self._run(texts, queries=False)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """The embedder's query vectors, computed in the workers."""
        return self._run(texts, queries=True)
