"""Worker processes for the CPU-bound stages of an ingest, with bounded memory and a fixed order.

:class:`Workers` runs a function over a stream of items in ``count`` processes
and yields the results **in the order of the items**, whatever order the
processes finish in, with at most ``window`` items in flight — so memory stays
flat whatever the corpus size, and the output is the same for any ``count``
(the function must be pure: loading a file, cutting a document).

* ``count ≤ 1``, or a stream shorter than ``pool_after`` items: everything
  runs in this process (a pool costs ~0.3 s to start and the items cross
  process boundaries).
* One pool serves every stream of an ingest (loading files and preparing
  documents), started on first use. It is a ``forkserver`` pool: workers are
  forked from a clean server process, never from this one, which runs the
  bulk-writer threads.

* Workers die with the process that started them: each one exits within
  about a second of that process's death, even a SIGKILL that runs no clean-up
  (:func:`osrag.pids.die_with_parent`), so no worker, fork server or resource tracker
  outlives a killed ingest.

Why not ``Executor.map``: it submits the whole input up front (memory grows
with the corpus); ``imap`` of :mod:`multiprocessing` bounds nothing either.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from types import TracebackType
from typing import TypeVar

from osrag.pids import die_with_parent

T = TypeVar("T")
R = TypeVar("R")

POOL_AFTER = 32
"""Items handled in this process before a pool is worth its start-up (~0.3 s)."""
WINDOW_PER_WORKER = 8
"""Items in flight per worker: bounds memory whatever the corpus size."""
PRELOAD = ("osrag.ingestion.pipeline",)
"""Modules the fork server imports once, so every worker starts with them loaded."""


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def ordered(
    submit: Callable[[T], Future[R]],
    items: Iterable[T],
    window: int,
) -> Iterator[R]:
    """``submit(item).result()`` for every item, in order, at most ``window`` submitted and
    not yet yielded. The core of :meth:`Workers.map`, for any executor."""
    pending: deque[Future[R]] = deque()
    try:
        for item in items:
            pending.append(submit(item))
            while len(pending) >= max(1, window):
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


class Workers:
    """A lazily started pool of ``count`` processes (see the module docstring)."""

    def __init__(
        self,
        count: int,
        *,
        pool_after: int = POOL_AFTER,
        window_per_worker: int = WINDOW_PER_WORKER,
        executor: Callable[[int], Executor] | None = None,
    ) -> None:
        self.count = max(1, count)
        self.pool_after = pool_after
        self.window = self.count * max(1, window_per_worker)
        self._make = executor or _process_pool
        self._pool: Executor | None = None

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn(item)`` for every item, in order (inline for the first ``pool_after``)."""
        iterator = iter(items)
        if self.count <= 1:
            yield from map(fn, iterator)
            return
        for _ in range(self.pool_after):
            try:
                item = next(iterator)
            except StopIteration:
                return
            yield fn(item)
        pool = self._started()
        yield from ordered(lambda item: pool.submit(fn, item), iterator, self.window)

    def _started(self) -> Executor:
        if self._pool is None:
            self._pool = self._make(self.count)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _process_pool(count: int) -> Executor:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return ProcessPoolExecutor(
        max_workers=count,
        mp_context=context,
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
