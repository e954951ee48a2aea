"""The bulk-writer threads of an ingest: a bounded queue, the first failure stops them all."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class WriterThreads(Generic[T]):
    """``count`` threads running ``work`` on the items put, through a queue of about
    ``count`` items (so memory stays bounded); the first failure stops them all and is
    raised to the producer by the next :meth:`put` or :meth:`check`."""

    def __init__(self, count: int, work: Callable[[T], None]) -> None:
        self._queue: queue.Queue[T | None] = queue.Queue(maxsize=max(2, count))
        self._work = work
        self.failure: BaseException | None = None
        self._threads = [
            threading.Thread(target=self._loop, name=f"osrag-writer-{n}", daemon=True)
            for n in range(max(1, count))
        ]
        for thread in self._threads:
            thread.start()

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self.failure is not None:
                continue  # drain: the producer re-raises
            try:
                self._work(item)
            except BaseException as exc:
                self.failure = exc

    def put(self, batch: T) -> None:
        self.check()
        while any(t.is_alive() for t in self._threads):
            try:
                self._queue.put(batch, timeout=0.5)
                return
            except queue.Full:
                self.check()

    def check(self) -> None:
        if self.failure is not None:
            raise self.failure

    def close(self) -> None:
        for _ in self._threads:
            while any(t.is_alive() for t in self._threads):
                try:
                    self._queue.put(None, timeout=0.5)
                    break
                except queue.Full:
                    continue
        for thread in self._threads:
            thread.join()
