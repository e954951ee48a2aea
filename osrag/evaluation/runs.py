"""Runs: what a configuration retrieved for each query, and the TREC run files that
trec_eval, pytrec_eval, ir_measures and ranx read.

A run keeps the chunk hits in rank order (``RunHit``: chunk id, document id, score,
source span). The **document run** is the first hit of each document (its best chunk:
rank and score); the **chunk run** lists the hits themselves. Lines are
``qid Q0 docno rank score tag``, the score written exactly (``repr`` of the float the
engine returned), so two runs of the same index are byte-identical and a tool that
re-sorts by score sees osrag's order: ties are broken by descending id in every
request (:data:`osrag.engines.rest.compiler.TIE_BREAK_SORT`) — trec_eval's own tie-break.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from osrag.errors import InputError, StorageError
from osrag.writes import writing

RunLevel = Literal["document", "chunk"]


@dataclass(frozen=True, slots=True)
class RunHit:
    """One retrieved chunk."""

    chunk_id: str
    doc_id: str
    score: float
    start: int
    end: int


Run = dict[str, list[RunHit]]
"""Query id → hits in rank order."""


def document_hits(hits: Iterable[RunHit]) -> list[RunHit]:
    """The first (best-ranked) hit of each document, in rank order."""
    best: dict[str, RunHit] = {}
    for hit in hits:
        best.setdefault(hit.doc_id, hit)
    return list(best.values())


def ranking(hits: Iterable[RunHit]) -> list[str]:
    """The document ids in rank order (first occurrence keeps the rank)."""
    return [hit.doc_id for hit in document_hits(hits)]


def _tag(name: str) -> str:
    return "_".join(name.split()) or "osrag"


def run_lines(run: Run, *, tag: str, level: RunLevel = "document") -> Iterable[str]:
    """The lines of a TREC run, queries in the run's order."""
    if level not in ("document", "chunk"):
        raise InputError(f"run level {level!r}: expected document or chunk")
    tag = _tag(tag)
    for qid, hits in run.items():
        listed: Sequence[RunHit] = document_hits(hits) if level == "document" else hits
        for rank, hit in enumerate(listed, 1):
            docno = hit.doc_id if level == "document" else hit.chunk_id
            if not docno or any(c.isspace() for c in docno) or any(c.isspace() for c in qid):
                raise InputError(
                    f"query {qid!r}, document {docno!r}: a TREC run cannot hold an id with "
                    "white space"
                )
            yield f"{qid} Q0 {docno} {rank} {hit.score!r} {tag}\n"


def write_trec_run(
    target: Path | IO[str], run: Run, *, tag: str, level: RunLevel = "document"
) -> None:
    """Write ``run`` as a TREC run file (see the module docstring); a path is written
    whole, never through a link (:func:`osrag.writes.writing`)."""
    if isinstance(target, Path):
        try:
            with writing(target, newline="\n") as handle:
                handle.writelines(run_lines(run, tag=tag, level=level))
        except OSError as exc:
            raise StorageError(f"{target}: cannot write the run ({exc.strerror or exc})") from None
    else:
        target.writelines(run_lines(run, tag=tag, level=level))


def read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    """Query id → document id → score, as trec_eval reads a run (rank and tag ignored)."""
    run: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                raise InputError(f"{path}:{line_no}: expected qid Q0 docno rank score tag")
            qid, _q0, docno, _rank, score, _tag_name = parts
            try:
                run.setdefault(qid, {})[docno] = float(score)
            except ValueError:
                raise InputError(f"{path}:{line_no}: score {score!r} is not a number") from None
    return run
