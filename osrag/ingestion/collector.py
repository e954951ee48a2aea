"""The cyclic garbage collector spared the objects an ingest did not make, and its pace
slowed for the ingest.

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

It also passes over the young generation every :data:`YOUNG_THRESHOLD` new objects
instead of every 700 (the pace is put back at the end). At the default pace a chunk's
facts, still being built, are walked and moved to the older generations again and again
before they are freed by their counts; at the slower pace most of them are gone before
the first walk. The collector stays on: a cycle made during the ingest is freed at the
next walk, at most :data:`YOUNG_THRESHOLD` objects later, so memory stays bounded
however long the ingest.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_THRESHOLD = 50_000
"""New objects between the collector's passes over the young generation during an ingest
(the default: 700)."""


@contextlib.contextmanager
def spared() -> Iterator[None]:
    """Freeze the objects there are now, and slow the young generation's pace, for the
    block (see the module docstring)."""
    young, older, oldest = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), older, oldest)
    try:
        yield
    finally:
        gc.set_threshold(young, older, oldest)
        gc.unfreeze()
