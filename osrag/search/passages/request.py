"""The one extra request a search with a context sends: which chunks, as a typed filter.

Rule: the chunks around every hit are read in **one** filter-only search of the
generation that answered, as a typed plan each engine compiles through
:meth:`~osrag.engines.base.ChunkIndex.search` — nothing here knows an engine. For each
hit (in document version ``doc_id`` + ``source_version``, chunk index ``j``):

* ``neighbours``: chunk indexes ``[j − n, j + n]``;
* ``section``: ``[j − reach, j + reach]`` among chunks whose heading path holds every
  heading of the hit's parent section (each a ``term`` on the ``heading_path`` keyword;
  that the path *starts* with them is checked on the chunks that come back);
* ``table``: ``[j − reach, j]``, only for a hit whose first line may be a table's (a cell
  border ``|``, or a loaders' row): the header and caption lie before it; other hits need
  nothing.

Only what the budget can use is read: when the hits' own text fills the budget nothing is
(no request at all); else the neighbours and section ranges are cut to twice the chunks
the room left would hold at the hits' median size (:func:`usable_chunks`).

Ranges of one version that overlap or touch are merged; the filter is
``AnyOf(AllOf(Term doc_id, Term source_version, Range chunk_index[, Term heading_path…]) …)``.
The plan carries the search's own **guards** (tenant, ACL, as-of), unchanged: a chunk the
caller may not see is never read, whatever its document. The amount and other chunk-level
filters of the search are not applied: a hit's neighbour need not hold the hit's amount.
No request at all when no hit needs one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from osrag.schema.filters import AllOf, AnyOf, Filter, NamedFilter, Range, Term
from osrag.schema.passages import ContextRequest
from osrag.schema.plan import SearchPlan, Source, TextLeg
from osrag.search.passages.records import CONTEXT_FIELDS, ChunkRecord

MAX_CHUNKS = 10_000
"""The most chunks one request reads (OpenSearch's ``index.max_result_window``)."""


@dataclass(frozen=True, slots=True)
class Region:
    """Chunk indexes ``[lo, hi]`` of one document version (under ``headings``)."""

    doc_id: str
    source_version: str
    lo: int
    hi: int
    headings: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1


def starts_in_table(body: str) -> bool:
    """Whether a chunk's text may open inside a table, so that the table's header and
    caption lie before it: its first line holds a cell border (``|``, a pipe row or a piece
    of one cut where the chunk begins) or a loaders' row (``label — Header: value; …``)."""
    first = body.lstrip().partition("\n")[0]
    return "|" in first or " — " in first or "; " in first


def regions(
    hits: Sequence[ChunkRecord], request: ContextRequest, usable: int | None = None
) -> list[Region]:
    """The chunk ranges the expansion of ``hits`` (best first) reads, merged, at most
    :data:`MAX_CHUNKS` chunks (the best hits' first). ``usable``: chunks on each side of a
    hit the budget can use (:func:`usable_chunks`; 0: none, nothing is read)."""
    limit = len(hits) if request.hits is None else request.hits
    side = request.reach if usable is None else min(request.reach, usable)
    if usable == 0:
        return []
    wanted: list[Region] = []
    for hit in hits[:limit]:
        j = hit.chunk_index
        headings: tuple[str, ...] = ()
        if request.kind == "neighbours":
            n = request.neighbours if usable is None else min(request.neighbours, usable)
            if n == 0:
                continue
            lo, hi = j - n, j + n
        elif request.kind == "section":
            lo, hi, headings = j - side, j + side, hit.heading_path[:-1]
        elif starts_in_table(hit.body):
            lo, hi = j - request.reach, j
        else:
            continue
        wanted.append(Region(hit.doc_id, hit.source_version, max(lo, 0), hi, headings))
    return _merged(_within(wanted))


def usable_chunks(sizes: Sequence[int], budget: int) -> int:
    """How many chunks on each side of a hit the budget can use, read from the hits' own
    sizes in the budget's tokens: none when the hits fill it, else twice the room they
    leave over their median size (at least one). A neighbourhood of chunks much shorter
    than its hits may hold more: the expansion then stops at what was read."""
    room = budget - sum(sizes)
    if not sizes or room <= 0:
        return 0 if sizes else 1
    typical = max(sorted(sizes)[len(sizes) // 2], 1)
    return max(1, -(-2 * room // typical))


def _within(wanted: list[Region]) -> list[Region]:
    """The first regions whose chunks together stay within :data:`MAX_CHUNKS`."""
    kept: list[Region] = []
    total = 0
    for region in wanted:
        if total + region.size > MAX_CHUNKS:
            break
        kept.append(region)
        total += region.size
    return kept


def _merged(wanted: list[Region]) -> list[Region]:
    """Regions of one version and heading path that overlap or touch, as one."""
    by_key: dict[tuple[str, str, tuple[str, ...]], list[Region]] = {}
    for region in wanted:
        by_key.setdefault((region.doc_id, region.source_version, region.headings), []).append(
            region
        )
    merged: list[Region] = []
    for group in by_key.values():
        group.sort(key=lambda r: r.lo)
        current = group[0]
        for region in group[1:]:
            if region.lo <= current.hi + 1:
                current = Region(
                    current.doc_id,
                    current.source_version,
                    current.lo,
                    max(current.hi, region.hi),
                    current.headings,
                )
            else:
                merged.append(current)
                current = region
        merged.append(current)
    return merged


def region_filter(found: Sequence[Region]) -> Filter:
    """The typed filter that selects the chunks of ``found`` (module rule)."""
    return AnyOf(
        tuple(
            AllOf(
                (
                    Term("doc_id", r.doc_id),
                    Term("source_version", r.source_version),
                    Range("chunk_index", gte=r.lo, lte=r.hi),
                    *(Term("heading_path", h) for h in r.headings),
                )
            )
            for r in found
        )
    )


def context_plan(search: SearchPlan, found: Sequence[Region]) -> SearchPlan | None:
    """The filter-only plan that reads the chunks of ``found`` under the guards of
    ``search`` (the plan whose hits are expanded); None when there is nothing to read."""
    if not found:
        return None
    size = min(MAX_CHUNKS, sum(r.size for r in found))
    return SearchPlan(
        mode="bm25",
        text=TextLeg(""),
        vector=None,
        guards=search.guards,
        filters=(NamedFilter("context", region_filter(found)),),
        size=size,
        depth=size,
        source=Source(includes=CONTEXT_FIELDS),
        count_candidates=False,
    )
