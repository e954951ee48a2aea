"""The cyclic garbage collector spared the objects an ingest did not make.

An ingest allocates millions of short-lived containers (chunks, mentions, facts, their
stored dicts), and every so often Python's collector walks the whole heap (its oldest
generation) for cycles: the modules, the lexicon's tables, the clients — tens of thousands
of objects that live as long as the process and are never garbage. Amount facts make an
ingest allocate about three times as many containers, so the walks come about three
times as often; on the synthetic policies they were about a fifth of the CPU of an ingest
with facts (``docs/scale.md`` has the measurements).

:func:`spared` moves every object that exists when an ingest starts into the collector's
permanent generation (:func:`gc.freeze`), and back when it ends (:func:`gc.unfreeze`):
the walks then see only what the ingest made. Nothing is collected that would not have
been: a cycle among the frozen objects waits for the next walk after the ingest.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def spared() -> Iterator[None]:
    """Freeze the objects there are now for the block (see the module docstring)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
