"""Passages: a search's hits expanded into the document's own text, within a token budget.

* :mod:`~osrag.search.passages.records` — the stored fields a passage is built from;
* :mod:`~osrag.search.passages.request` — the one extra request: which chunks, as a typed
  filter under the search's own guards;
* :mod:`~osrag.search.passages.runs` — the text of consecutive chunks put back together
  (overlaps once, gaps as they were);
* :mod:`~osrag.search.passages.tables` — a table's header and caption for a hit inside it;
* :mod:`~osrag.search.passages.assemble` — hits first, then their expansion, best first,
  merged per document region, counted exactly against the budget.
"""

from osrag.search.passages.assemble import assemble_passages
from osrag.search.passages.records import CONTEXT_FIELDS, ChunkRecord
from osrag.search.passages.request import Region, context_plan, region_filter, regions
from osrag.search.passages.runs import Run, build_runs

__all__ = [
    "CONTEXT_FIELDS",
    "ChunkRecord",
    "Region",
    "Run",
    "assemble_passages",
    "build_runs",
    "context_plan",
    "region_filter",
    "regions",
]
