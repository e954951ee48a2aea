"""One search's expansion, between its hits and its passages: what the Searcher calls.

``Expansion.of(hits, search, request, generation)`` reads the hits' records, decides the
one extra request (:mod:`osrag.search.passages.request`; None when nothing is to be
read) and the tokenizer that counts the budget; the caller sends the request to the
generation that answered — :meth:`~osrag.engines.base.ChunkIndex.search`, or its awaited
form — and ``Expansion.passages(answer)`` assembles the passages. No I/O here: the sync
and the async searcher send the request each their own way.

The budget's tokenizer, unless the request names one: the embedder's, where the generation
was built with an embedder that states its window (its ``tokenizer.json``), else the one
the generation's chunks were counted in (``whitespace`` by default).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from osrag.chunking.tokenizers import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from osrag.schema.passages import ContextRequest, Passage, PassageReport
from osrag.schema.plan import EngineHit, EngineResult, SearchPlan
from osrag.search.passages.assemble import assemble_passages
from osrag.search.passages.records import ChunkRecord
from osrag.search.passages.request import context_plan, regions, usable_chunks


def budget_tokenizer(request: ContextRequest, config: Mapping[str, Any] | None) -> Tokenizer:
    """The tokenizer that counts ``request``'s budget on a generation built with ``config``."""
    if request.tokenizer:
        return get_tokenizer(request.tokenizer)
    chunking = (config or {}).get("chunking") or {}
    window = chunking.get("window") or {}
    return get_tokenizer(window.get("tokenizer") or chunking.get("tokenizer") or DEFAULT_TOKENIZER)


@dataclass
class Expansion:
    """The hits of one search, the request that reads around them, and the budget's counter."""

    request: ContextRequest
    tokenizer: Tokenizer
    hits: list[ChunkRecord | str]
    """Each hit's record, or its chunk id when its stored fields do not make one."""
    plan: SearchPlan | None
    """The one extra request (None: nothing to read)."""
    started: float = field(default_factory=time.perf_counter)

    @classmethod
    def of(
        cls,
        hits: Sequence[EngineHit],
        search: SearchPlan,
        request: ContextRequest,
        config: Mapping[str, Any] | None,
    ) -> Expansion:
        """The expansion of ``hits``, found by ``search`` (whose guards the request keeps),
        on a generation built with ``config``."""
        started = time.perf_counter()
        records: list[ChunkRecord | str] = []
        for hit in hits:
            record = ChunkRecord.from_source(hit.source, hit.chunk_id, hit.doc_id)
            records.append(record if record is not None else hit.chunk_id)
        known = [r for r in records if isinstance(r, ChunkRecord)]
        tokenizer = budget_tokenizer(request, config)
        usable = usable_chunks([tokenizer.count(r.body) for r in known], request.budget)
        plan = context_plan(search, regions(known, request, usable))
        return cls(request, tokenizer, records, plan, started)

    def passages(self, answer: EngineResult | None) -> tuple[list[Passage], PassageReport]:
        """The passages, given the extra request's answer (None when none was sent)."""
        assembling = time.perf_counter()
        read: list[ChunkRecord] = []
        for hit in answer.hits if answer is not None else ():
            record = ChunkRecord.from_source(hit.source, hit.chunk_id, hit.doc_id)
            if record is not None:
                read.append(record)
        passages, report = assemble_passages(self.hits, read, self.request, self.tokenizer)
        report.chunks_read = len(read)
        report.requests = int(self.plan is not None)
        done = time.perf_counter()
        report.took_ms = round((done - self.started) * 1000, 3)
        report.assembly_ms = round((done - assembling) * 1000, 3)
        return passages, report
