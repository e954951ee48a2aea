"""Hits and the chunks around them → passages within a token budget.

Rule, in order:

1. **Every hit first.** Each hit, best first, claims its own chunk's text; the first hit
   that does not fit in what is left of the budget is cut after the last token that
   fits and marked ``truncated`` (as plain hits are cut at a budget), and the hits after
   it are left out: there is no room left for them or for any expansion.
2. **Then the expansion, best hit first.** Each hit's expansion is filled as far as the
   budget allows before the next hit's begins: ``neighbours`` adds the next chunk, then
   the previous one, then the ones after those, up to ``neighbours`` on each side;
   ``section`` adds the chunks of the section enclosing the hit — the hit's heading path
   less its last heading, so a hit that is a whole section gets its parent, and a hit that
   is a piece of a longer section gets that section first (chunks sharing more of the
   hit's headings come first, then the nearer, then the one after) — up to ``reach``
   chunks on each side; ``table`` adds the header row and then the caption of the table
   the hit starts inside or with (:mod:`osrag.search.passages.tables`). A step that does
   not fit stops growth on its side: text is never added beyond a gap.
3. **Merge.** Claims of one document version that overlap, or that only whitespace or a
   restored heading separates, are one region; hits whose regions meet share one passage.
   A passage is ordered by its best hit, and lists every hit whose chunk it holds.
4. **Count exactly.** Steps are admitted on the tokens of the text they add (for a
   tokenizer that splits at whitespace first, as BERT's and the whitespace tokenizer do,
   the tokens of joined text are the sum); the passages' real texts are then counted, and
   if they exceed the budget after all (text joined or cut inside a word), the last steps
   are taken back until they do not. The budget is never exceeded.

Text comes from :mod:`osrag.search.passages.runs`; nothing here reads a file or an index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from osrag.chunking.structural import breadcrumb
from osrag.chunking.tokenizers import Tokenizer
from osrag.schema.documents import Span
from osrag.schema.passages import ContextRequest, Passage, PassageReport
from osrag.search.passages.records import ChunkRecord
from osrag.search.passages.runs import Interval, Run, build_runs
from osrag.search.passages.tables import table_parts

Take = Callable[[Interval], bool]


@dataclass(frozen=True, slots=True)
class _Claim:
    run: int
    a: int
    b: int
    group: int
    """The rank (from 0) of the hit whose passage the text joins."""
    expansion: bool


@dataclass(frozen=True, slots=True)
class _Hit:
    rank: int
    chunk_id: str
    run: int
    position: int


class _Ledger:
    """The claims admitted so far, the text they cover per run, and the tokens it holds."""

    def __init__(self, runs: list[Run], tokenizer: Tokenizer, budget: int) -> None:
        self.runs = runs
        self.tokenizer = tokenizer
        self.budget = budget
        self.claims: list[_Claim] = []
        self.covered: dict[int, list[Interval]] = {}
        self.used = 0

    def cost(self, run: int, a: int, b: int) -> tuple[list[Interval], int]:
        """The run's coverage with ``[a, b)`` added, and the tokens of the text it adds
        (only that text is counted: the work stays within the budget however long the
        document is)."""
        before = self.covered.get(run, [])
        after = _closure(self.runs[run], [*before, (a, b)])
        text = self.runs[run].text
        added = sum(self.tokenizer.count(text[x:y]) for x, y in _subtract(after, before))
        return after, added

    def take(self, claim: _Claim) -> bool:
        """Admit the claim when the text it adds fits what is left of the budget."""
        after, added = self.cost(claim.run, claim.a, claim.b)
        if self.used + added > self.budget:
            return False
        self.claims.append(claim)
        self.covered[claim.run] = after
        self.used += added
        return True

    def force(self, claim: _Claim) -> None:
        """Admit a claim known to fit (a hit cut to what is left of the budget)."""
        after, added = self.cost(claim.run, claim.a, claim.b)
        self.claims.append(claim)
        self.covered[claim.run] = after
        self.used += added


def _closure(run: Run, intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted intervals, those that overlap or that only joints separate merged."""
    merged: list[Interval] = []
    for a, b in sorted(intervals):
        if merged and (a <= merged[-1][1] or run.bridgeable(merged[-1][1], a)):
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _subtract(after: list[Interval], before: list[Interval]) -> list[Interval]:
    """The parts of ``after`` not in ``before`` (``before`` lies inside ``after``)."""
    pieces: list[Interval] = []
    for a, b in after:
        cursor = a
        for x, y in before:
            if y <= cursor or x >= b:
                continue
            if x > cursor:
                pieces.append((cursor, x))
            cursor = max(cursor, y)
        if cursor < b:
            pieces.append((cursor, b))
    return pieces


def assemble_passages(
    hits: Sequence[ChunkRecord | str],
    chunks: Iterable[ChunkRecord],
    request: ContextRequest,
    tokenizer: Tokenizer,
) -> tuple[list[Passage], PassageReport]:
    """The passages of ranked ``hits`` (records, or chunk ids to find among ``chunks``)
    from ``chunks`` (the hits' own and those around them), by the module rule."""
    records: dict[str, ChunkRecord] = {}
    for chunk in chunks:
        records.setdefault(chunk.chunk_id, chunk)
    for hit in hits:
        if isinstance(hit, ChunkRecord):
            records.setdefault(hit.chunk_id, hit)
    runs = build_runs(records.values())
    where = {c.chunk_id: (r, i) for r, run in enumerate(runs) for i, c in enumerate(run.chunks)}
    report = PassageReport(kind=request.kind, budget=request.budget, tokenizer=tokenizer.id)
    located: list[_Hit] = []
    for rank, hit in enumerate(hits):
        chunk_id = hit.chunk_id if isinstance(hit, ChunkRecord) else hit
        if chunk_id in where:
            located.append(_Hit(rank, chunk_id, *where[chunk_id]))
        else:
            report.missing.append(chunk_id)
    ledger = _Ledger(runs, tokenizer, request.budget)
    truncated = _place_hits(ledger, located)
    cut = _expand(ledger, [h for h in located if h.rank not in truncated], request)
    passages = _settle(ledger, located, cut)
    covered = {h for p in passages for h in p.hits}
    report.left_out = [h.chunk_id for h in located if h.chunk_id not in covered]
    report.truncated = [h.chunk_id for h in located if h.rank in truncated]
    report.expansion_cut = [h.chunk_id for h in located if h.rank in cut and h.chunk_id in covered]
    report.tokens = sum(p.tokens for p in passages)
    return passages, report


def _place_hits(ledger: _Ledger, hits: list[_Hit]) -> set[int]:
    """Rule 1; the ranks of hits cut to fit."""
    for hit in hits:
        a, b = ledger.runs[hit.run].places[hit.position]
        if ledger.take(_Claim(hit.run, a, b, hit.rank, expansion=False)):
            continue
        end = _longest_prefix(ledger, hit.run, a, b)
        if end is None:
            return set()
        ledger.force(_Claim(hit.run, a, end, hit.rank, expansion=False))
        return {hit.rank}  # no room is left for the hits after it
    return set()


def _longest_prefix(ledger: _Ledger, run_no: int, a: int, b: int) -> int | None:
    """The end of the longest prefix of ``text[a:b]``, cut after a token, whose text fits
    what is left of the budget (None: not even its first token fits)."""
    run = ledger.runs[run_no]
    room = ledger.budget - ledger.used
    ends = [end for _, end in ledger.tokenizer.intervals(run.text, a, b)[:room]]
    lo, hi, best = 0, min(len(ends), room) - 1, None
    while lo <= hi:  # the cost grows with the prefix: the last end that fits
        mid = (lo + hi) // 2
        if ledger.used + ledger.cost(run_no, a, ends[mid])[1] <= ledger.budget:
            best, lo = ends[mid], mid + 1
        else:
            hi = mid - 1
    return best


def _expand(ledger: _Ledger, hits: list[_Hit], request: ContextRequest) -> set[int]:
    """Rule 2, best hit first; the ranks of hits whose expansion the budget cut short."""
    placed = {c.group for c in ledger.claims}
    cut: set[int] = set()
    limit = len(hits) if request.hits is None else request.hits
    for hit in hits:
        if hit.rank not in placed or hit.rank >= limit:
            continue
        run = ledger.runs[hit.run]

        def take(part: Interval, hit: _Hit = hit) -> bool:
            return ledger.take(_Claim(hit.run, part[0], part[1], hit.rank, expansion=True))

        if request.kind == "neighbours":
            complete = _grow_neighbours(run, hit.position, request.neighbours, take)
        elif request.kind == "section":
            complete = _grow_section(run, hit.position, request.reach, take)
        else:
            complete = all(take(part) for part in table_parts(run, hit.position))
        if not complete:
            cut.add(hit.rank)
    return cut


def _grow_neighbours(run: Run, j: int, n: int, take: Take) -> bool:
    """The next chunk, the previous one, the ones after those…, up to ``n`` chunk indexes
    away; each side stops at the first that does not fit."""
    open_side = {1: True, -1: True}
    complete = True
    index = run.chunks[j].chunk_index
    for distance in range(1, n + 1):
        for side in (1, -1):
            k = j + side * distance
            if not open_side[side] or not 0 <= k < len(run.chunks):
                continue
            if abs(run.chunks[k].chunk_index - index) > n:  # past a chunk not read
                open_side[side] = False
                continue
            if not take(run.places[k]):
                open_side[side] = False
                complete = False
    return complete


def _shared(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _grow_section(run: Run, j: int, reach: int, take: Take) -> bool:
    """The chunks of the enclosing section around chunk ``j``, best first (module rule)."""
    path = run.chunks[j].heading_path
    parent = path[:-1]

    def inside(k: int) -> bool:
        return (
            0 <= k < len(run.chunks)
            and abs(k - j) <= reach
            and run.chunks[k].heading_path[: len(parent)] == parent
        )

    lo = hi = j
    blocked = {1: False, -1: False}
    complete = True
    while True:
        candidates = [
            ((_shared(run.chunks[k].heading_path, path), -abs(k - j), side), side, k)
            for side, k in ((1, hi + 1), (-1, lo - 1))
            if not blocked[side] and inside(k)
        ]
        if not candidates:
            return complete
        _, side, k = max(candidates)
        if take(run.places[k]):
            lo, hi = min(lo, k), max(hi, k)
        else:
            blocked[side] = True
            complete = False


def _settle(ledger: _Ledger, hits: list[_Hit], cut: set[int]) -> list[Passage]:
    """Rule 3 and 4: the passages of the admitted claims, counted exactly, with the last
    steps taken back while they exceed the budget."""
    while True:
        passages = _passages(ledger.runs, ledger.claims, hits, ledger.tokenizer)
        if sum(p.tokens for p in passages) <= ledger.budget or not ledger.claims:
            return passages
        expansions = [i for i, c in enumerate(ledger.claims) if c.expansion]
        dropped = ledger.claims.pop(expansions[-1] if expansions else -1)
        if dropped.expansion:
            cut.add(dropped.group)


def _passages(
    runs: list[Run], claims: list[_Claim], hits: list[_Hit], tokenizer: Tokenizer
) -> list[Passage]:
    """Claims → passages: regions merged per run, hits whose regions meet grouped."""
    parent: dict[int, int] = {}

    def root(g: int) -> int:
        while parent.setdefault(g, g) != g:
            g = parent[g]
        return g

    regions: dict[int, list[tuple[Interval, int]]] = {}  # run → (region, group)
    for run_no in sorted({c.run for c in claims}):
        run = runs[run_no]
        own = sorted((c.a, c.b, c.group) for c in claims if c.run == run_no)
        merged: list[tuple[Interval, int]] = []
        for a, b, group in own:
            if merged and (a <= merged[-1][0][1] or run.bridgeable(merged[-1][0][1], a)):
                (x, y), other = merged[-1]
                parent[root(group)] = root(other)
                merged[-1] = ((x, max(y, b)), other)
            else:
                merged.append(((a, b), group))
        regions[run_no] = merged
    grouped: dict[tuple[int, int], list[Interval]] = {}
    for run_no, merged in regions.items():
        for interval, group in merged:
            grouped.setdefault((run_no, root(group)), []).append(interval)
    passages = [
        _passage(runs[run_no], sorted(segments), hits, run_no, tokenizer)
        for (run_no, _), segments in grouped.items()
    ]
    passages.sort(key=lambda p: p.rank)
    return passages


def _holding(segments: list[Interval], place: Interval) -> Interval | None:
    """The segment in which the chunk at ``place`` starts."""
    for a, b in segments:
        if a <= place[0] < b or a == place[0] == b:
            return a, b
    return None


def _passage(
    run: Run, segments: list[Interval], hits: list[_Hit], run_no: int, tokenizer: Tokenizer
) -> Passage:
    text = "\n".join(run.text[a:b] for a, b in segments)
    positions = sorted({i for a, b in segments for i in run.positions_in(a, b)})
    chunks = [run.chunks[i] for i in positions]
    inside: list[_Hit] = []
    truncated = False
    for hit in hits:
        place = run.places[hit.position] if hit.run == run_no else None
        segment = _holding(segments, place) if place is not None else None
        if place is not None and segment is not None:
            inside.append(hit)
            truncated = truncated or place[1] > segment[1]
    spans = [Span(run.source_offset(a), run.source_offset(b, end=True)) for a, b in segments]
    first = chunks[0] if chunks else run.chunks[0]
    paths = [c.heading_path for c in chunks] or [first.heading_path]
    shared = min(_shared(paths[0], p) for p in paths)
    crumb = (
        first.breadcrumb
        if all(p == paths[0] for p in paths)
        else breadcrumb(first.title, list(paths[0][:shared]))
    )
    return Passage(
        doc_id=run.doc_id,
        source_version=run.source_version,
        text=text,
        span=Span(spans[0].start, spans[-1].end),
        segments=spans,
        breadcrumb=crumb,
        pages=sorted({p for c in chunks for p in c.pages}),
        hits=[h.chunk_id for h in inside],
        chunks=[c.chunk_id for c in chunks],
        rank=min((h.rank for h in inside), default=len(hits)) + 1,
        tokens=tokenizer.count(text),
        truncated=truncated,
    )
