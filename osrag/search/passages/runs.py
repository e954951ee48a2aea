"""A document's own text, put back together from the chunks the index holds.

Rule: the chunks of one document version with consecutive chunk indexes form a
:class:`Run`; its ``text`` is their bodies in order, each source character once:

* two chunks that **overlap** (fixed windows, sentence overlap) are joined where their
  spans say: the source overlap ``[next.start, previous.end)`` is found in the next body
  and only what follows it is appended. A body is ``source[span]`` with ``\\r\\n`` read
  as ``\\n``, so in a CRLF source the overlap is up to one code point per line break
  shorter in the body than in the span; the length is checked by matching the text (the
  previous body must end with the next body's first ``k`` characters). A pair that does
  not match is not joined: the next chunk starts a run of its own.
* two chunks that **do not overlap** are joined by what lay between them, which the index
  does not store: when the next chunk's heading path names headings the previous one's
  does not (it opens a section), those headings, each its own paragraph (their text,
  without Markdown's ``#`` marks); else the whitespace by its length — none for chunks
  that touch; for one character, a line break after a whole table row (``| … |``) or
  before a list item, else a space; a blank line for more (in a CRLF source a
  line break is two code points: two are one line break).
* a gap in the chunk indexes (a chunk the caller may not see, or one not read) ends the
  run — unless the chunks on either side of it overlap, so that their own text covers it:
  text is never invented for, or borrowed from, a chunk that is not there.

Each chunk's place in ``text`` is kept, so an offset of ``text`` maps back to an offset
of the source (:meth:`Run.source_offset`): exactly, unless a chunk mixes ``\\r\\n`` and
``\\n`` line breaks, where the count of line breaks before the offset is interpolated.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from osrag.search.passages.records import ChunkRecord

Interval = tuple[int, int]

_NEAR = 2000
"""Code points either side of a gap whose whole lines say how wide a table row is."""
_LIST_MARKER = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")
"""A line that is a list item: a single code point before it is a line break."""


@dataclass(slots=True)
class Run:
    """Chunks of one document version with consecutive indexes, and their joined text."""

    doc_id: str
    source_version: str
    chunks: list[ChunkRecord] = field(default_factory=list)
    text: str = ""
    places: list[Interval] = field(default_factory=list)
    """Where each chunk's body lies in ``text``."""
    joints: list[Interval] = field(default_factory=list)
    """What stands in ``text`` for the source between chunk ``i - 1`` and chunk ``i``
    (``joints[0]`` is empty; an overlap's joint is empty)."""
    source_end: int = 0
    """The end of the source the run covers."""
    crlf: bool = False
    """Some chunk's span holds ``\\r\\n`` line breaks."""
    tables: list[Interval] | None = None
    """Where the tables of ``text`` lie, once asked (:mod:`.tables`)."""

    def position(self, chunk_id: str) -> int | None:
        for i, chunk in enumerate(self.chunks):
            if chunk.chunk_id == chunk_id:
                return i
        return None

    def source_offset(self, offset: int, *, end: bool = False) -> int:
        """The source offset of ``text[offset]`` (``end``: of the end of a slice ending
        there). An offset between two chunks maps to the next chunk's start, or as an end
        to the previous chunk's end."""
        for i, (a, b) in enumerate(self.places):
            if a <= offset < b or (end and a < offset <= b) or (a == b == offset):
                return _in_chunk(self.chunks[i], offset - a)
            if offset < a:  # in the joint before chunk i
                return self.chunks[i - 1].end if end and i else self.chunks[i].start
        return self.source_end

    def positions_in(self, a: int, b: int) -> list[int]:
        """Positions of the chunks whose body meets ``text[a:b]``."""
        return [i for i, (p, q) in enumerate(self.places) if p < b and a < q]

    def bridgeable(self, b: int, a: int) -> bool:
        """Whether ``text[b:a]`` holds nothing but whitespace and one joint's words: two
        pieces of text around it belong together."""
        if a <= b:
            return True
        gap = self.text[b:a]
        stripped = gap.strip()
        if not stripped:
            return True
        first = b + (len(gap) - len(gap.lstrip()))
        last = a - (len(gap) - len(gap.rstrip()))
        return any(ja <= first and last <= jb for ja, jb in self.joints)


def _in_chunk(chunk: ChunkRecord, local: int) -> int:
    """The source offset of ``chunk.body[local]``."""
    removed = chunk.line_breaks_removed
    if removed <= 0:
        return min(chunk.start + local, chunk.end)
    breaks = chunk.body.count("\n")
    before = chunk.body.count("\n", 0, local)
    extra = before if removed == breaks else round(removed * before / breaks) if breaks else 0
    return min(chunk.start + local + extra, chunk.end)


def build_runs(records: Iterable[ChunkRecord]) -> list[Run]:
    """The runs of the given chunks, by document version, in chunk-index order (one record
    per chunk index: the first given wins)."""
    by_version: dict[tuple[str, str], dict[int, ChunkRecord]] = defaultdict(dict)
    for record in records:
        by_version[record.version].setdefault(record.chunk_index, record)
    runs: list[Run] = []
    for (doc_id, version), chunks in by_version.items():
        run: Run | None = None
        previous = -2
        for index in sorted(chunks):
            record = chunks[index]
            follows = run is not None and (index == previous + 1 or record.start < run.source_end)
            if run is None or not follows or not _append(run, record):
                run = Run(doc_id, version)
                runs.append(run)
                _start(run, record)
            previous = index
    return runs


def _start(run: Run, record: ChunkRecord) -> None:
    run.chunks.append(record)
    run.text = record.body
    run.places.append((0, len(record.body)))
    run.joints.append((0, 0))
    run.source_end = record.end
    run.crlf = record.line_breaks_removed > 0


def _append(run: Run, record: ChunkRecord) -> bool:
    """Add the next chunk to the run; False when its span does not follow on (it starts
    before the previous chunk, or an overlap's text does not match)."""
    previous = run.chunks[-1]
    if record.start < previous.start:
        return False
    crlf = run.crlf or record.line_breaks_removed > 0
    text = run.text
    if record.start >= run.source_end:
        joint = _joint(previous, record, record.start - run.source_end, crlf, text)
        at = len(text) + len(joint)
        run.joints.append((len(text), at))
        run.text = text + joint + record.body
    else:
        found = _overlap(text, record, run.source_end - record.start)
        if found is None:
            return False
        at, appended = found
        run.joints.append((len(text), len(text)))
        run.text = text + appended
    run.chunks.append(record)
    run.places.append((at, at + len(record.body)))
    run.source_end = max(run.source_end, record.end)
    run.crlf = crlf
    return True


def _overlap(text: str, record: ChunkRecord, length: int) -> tuple[int, str] | None:
    """Where the body of ``record`` starts in ``text`` when the source it shares with the
    run's end is ``length`` code points, and what of the body follows ``text``; None when
    no length the spans allow matches the text."""
    body = record.body
    if record.end - record.start <= length:  # the chunk lies inside what the run holds
        found = text.rfind(body, max(0, len(text) - length - 1))
        return None if found < 0 or not body else (found, "")
    removed = max(record.line_breaks_removed, 0)
    for k in range(min(length, len(body)), max(1, length - removed) - 1, -1):
        if text.endswith(body[:k]):
            return len(text) - k, body[k:]
    return None


def _joint(previous: ChunkRecord, record: ChunkRecord, gap: int, crlf: bool, before: str) -> str:
    """What stands for the ``gap`` source code points between two chunks (module rule);
    ``before`` is the run's text so far."""
    if gap <= 0:
        return ""
    opened = _opened_headings(previous.heading_path, record.heading_path)
    if opened:
        return "\n\n" + "\n\n".join(opened) + "\n\n"
    line_break = 2 if crlf else 1
    if gap > line_break:
        return "\n\n"
    if gap == line_break and _new_line(before, record.body):
        return "\n"
    return " " if gap == 1 else "\n"


def _new_line(before: str, after: str) -> bool:
    """Whether one whitespace character between two chunks is a line break: the text before
    it ends a whole table row (``| … |``, as many cells as the widest whole row near the
    gap), or the text after starts a list item."""
    last = before.rpartition("\n")[2].strip()
    if last.startswith("|"):
        near = before[-_NEAR:].split("\n") + after[:_NEAR].split("\n")  # a piece of a row
        # has fewer borders than the whole row: pieces at either end cannot raise the width
        rows = [
            line.strip()
            for line in near
            if line.strip().startswith("|") and line.strip().endswith("|")
        ]
        widest = max((row.count("|") for row in rows), default=0)
        return last.endswith("|") and last.count("|") >= max(widest, 2)
    return _LIST_MARKER.match(after.partition("\n")[0]) is not None


def _opened_headings(before: tuple[str, ...], after: tuple[str, ...]) -> tuple[str, ...]:
    """The headings ``after`` names beyond the path it shares with ``before``."""
    if before == after:
        return ()
    shared = 0
    for x, y in zip(before, after, strict=False):
        if x != y:
            break
        shared += 1
    return tuple(h for h in after[shared:] if h)
