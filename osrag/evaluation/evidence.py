"""Evidence recall at a token budget: was the answer in what the reader was shown?

Rule. A question's judged spans (grade > 0) are the parts of its answer as the document
writes them, all of them needed. Within a budget of B tokens (the budget's tokenizer) the
reader is shown either

* **plain hits** — the hits' bodies in rank order, each whole while it fits, the first that
  does not fit cut after the budget's last token, nothing after it; or
* **passages** — the passages of a search with a context (:mod:`osrag.search.passages`),
  which hold at most B tokens by construction.

A judged span is *shown* when a piece shown from its document holds its interval (the
piece's source interval contains ``[start, end)``) and, when the judgment states its text,
the piece's text holds that text (runs of whitespace compared as one space; a table
passage's pieces are its segments, each checked against the passage's whole text). The
question's evidence is found when every judged span is shown;
``evidence_recall@B`` is the share of questions with judged spans whose evidence is found.

The judged spans come from the data set's own annotations, never from osrag (the text
check makes a wrong span claim of the code under test fail rather than count).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from osrag.chunking.tokenizers import Tokenizer
from osrag.evaluation.spans import SpanJudgment
from osrag.models import SearchHit
from osrag.schema.passages import Passage
from osrag.search.passages import ChunkRecord, build_runs


@dataclass(frozen=True, slots=True)
class Shown:
    """A piece of one document the reader was shown: its source interval and its text."""

    doc_id: str
    start: int
    end: int
    text: str


def hit_record(hit: SearchHit) -> ChunkRecord:
    """A hit as the record whose body plain evidence shows."""
    return ChunkRecord(
        chunk_id=hit.chunk_id,
        doc_id=hit.doc_id,
        source_version="",
        chunk_index=hit.chunk_index,
        start=hit.span.start,
        end=hit.span.end,
        body=hit.body,
    )


def plain_shown(hits: Iterable[ChunkRecord], budget: int, tokenizer: Tokenizer) -> list[Shown]:
    """The hits' bodies in rank order within ``budget`` tokens (module rule)."""
    shown: list[Shown] = []
    used = 0
    for hit in hits:
        tokens = tokenizer.intervals(hit.body)
        if used + len(tokens) <= budget:
            shown.append(Shown(hit.doc_id, hit.start, hit.end, hit.body))
            used += len(tokens)
            continue
        room = budget - used
        if room > 0:
            cut = tokens[room - 1][1]
            (run,) = build_runs([hit])
            end = run.source_offset(cut, end=True)
            shown.append(Shown(hit.doc_id, hit.start, end, hit.body[:cut]))
        break
    return shown


def passages_shown(passages: Iterable[Passage]) -> list[Shown]:
    """Each segment of each passage, with its passage's text."""
    return [
        Shown(p.doc_id, segment.start, segment.end, p.text)
        for p in passages
        for segment in p.segments
    ]


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def evidence_found(judged: Sequence[SpanJudgment], shown: Sequence[Shown]) -> bool:
    """Whether every judged span (grade > 0) is shown (module rule); False without any."""
    wanted = [j for j in judged if j.grade > 0]
    if not wanted:
        return False
    texts: dict[int, str] = {}
    for span in wanted:
        found = False
        for i, piece in enumerate(shown):
            if piece.doc_id != span.doc_id or not piece.start <= span.start < span.end <= piece.end:
                continue
            if span.text is not None:
                squeezed = texts.setdefault(i, _squeezed(piece.text))
                if _squeezed(span.text) not in squeezed:
                    continue
            found = True
            break
        if not found:
            return False
    return True


def evidence_recall(found: Mapping[str, bool]) -> float:
    """The share of questions whose evidence was found (0 without questions)."""
    return sum(found.values()) / len(found) if found else 0.0
