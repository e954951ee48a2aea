"""Span judgments: which characters of a document answer a query — judgments that
survive re-chunking, because they are stated in the source, not in chunks.

A span judgment is ``(query_id, doc_id, start, end, grade)``: the half-open interval
``[start, end)`` in code points of the document's decoded source text — the same
coordinates as every chunk's span (``Document.text``, front matter included). Files:
JSON Lines ``{"query_id", "doc_id", "start", "end", "grade"}`` (``grade`` defaults to 1;
``qid``/``query-id`` are accepted for ``query_id``; an optional ``text``, the judged text as
the document writes it, lets evidence recall check the text it was shown) or five
white-space separated columns ``query_id doc_id start end grade`` (a header line is
skipped).

Metrics over the top k **hits** (chunks, in rank order), per query with judged spans:

* the **judged characters** J: the union of the spans with grade > 0 (per document,
  overlapping spans merged, so a character counts once);
* the **retrieved characters** R_k: the union of the top-k hits' spans (overlapping
  chunks of one document merged — overlap is not counted twice);
* ``span_recall@k`` = |J ∩ R_k| / |J| — the share of the judged text the reader was shown;
* ``span_precision@k`` = |J ∩ R_k| / |R_k| — the share of what was shown that is
  judged relevant (0 when nothing was retrieved).

:func:`passages_to_spans` turns document-level judgments with a highlighted passage
(its text) into span judgments by finding the passage in the document's source: first
exactly, then with any run of white space matching any other; the first occurrence wins
and further ones are counted.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from osrag.errors import InputError, StorageError
from osrag.evaluation.inputs import json_objects, numbered_lines
from osrag.models import Document
from osrag.writes import writing

Interval = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SpanJudgment:
    query_id: str
    doc_id: str
    start: int
    end: int
    grade: int = 1
    text: str | None = None
    """The judged text as the document writes it, when the judgments give it (``text``)."""


# --------------------------------------------------------------------------- interval arithmetic


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, disjoint, non-touching intervals covering the same points (empty dropped)."""
    merged: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def length(intervals: Iterable[Interval]) -> int:
    """Points covered (the intervals are merged first)."""
    return sum(end - start for start, end in merge(intervals))


def intersection_length(a: Iterable[Interval], b: Iterable[Interval]) -> int:
    """Points covered by both unions."""
    left, right = merge(a), merge(b)
    i = j = total = 0
    while i < len(left) and j < len(right):
        start = max(left[i][0], right[j][0])
        end = min(left[i][1], right[j][1])
        if end > start:
            total += end - start
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return total


# --------------------------------------------------------------------------- metrics


def span_metrics(
    hits: Sequence[tuple[str, int, int]], judged: Sequence[SpanJudgment], ks: Sequence[int]
) -> dict[str, float]:
    """``span_recall@k`` and ``span_precision@k`` of ranked hits ``(doc_id, start, end)``."""
    relevant: dict[str, list[Interval]] = defaultdict(list)
    for span in judged:
        if span.grade > 0:
            relevant[span.doc_id].append((span.start, span.end))
    judged_chars = sum(length(spans) for spans in relevant.values())
    metrics: dict[str, float] = {}
    for k in ks:
        shown: dict[str, list[Interval]] = defaultdict(list)
        for doc, start, end in hits[:k]:
            shown[doc].append((start, end))
        shown_chars = sum(length(spans) for spans in shown.values())
        both = sum(
            intersection_length(spans, relevant[doc])
            for doc, spans in shown.items()
            if doc in relevant
        )
        metrics[f"span_recall@{k}"] = both / judged_chars if judged_chars else 0.0
        metrics[f"span_precision@{k}"] = both / shown_chars if shown_chars else 0.0
    return metrics


# --------------------------------------------------------------------------- files


def _integer(value: object, name: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError(f"{where}: `{name}` must be an integer, not {value!r}")
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{where}: `{name}` must be an integer, not {value!r}") from None


def _judgment(
    qid: object, doc: object, start: object, end: object, grade: object, where: str
) -> SpanJudgment:
    if qid is None or doc is None:
        raise InputError(f"{where}: needs `query_id` and `doc_id`")
    a, b = _integer(start, "start", where), _integer(end, "end", where)
    if not 0 <= a < b:
        raise InputError(f"{where}: the span [{a}, {b}) is empty or negative")
    return SpanJudgment(str(qid), str(doc), a, b, _integer(grade, "grade", where))


def read_span_qrels(path: Path) -> dict[str, list[SpanJudgment]]:
    """Query id → its span judgments (see the module docstring for the formats)."""
    found: dict[str, list[SpanJudgment]] = {}
    for line_no, line in numbered_lines(path):
        if not line.strip():
            continue
        where = f"{path}:{line_no}"
        if line.lstrip().startswith("{"):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not JSON ({exc.msg})") from None
            qid = record.get("query_id", record.get("qid", record.get("query-id")))
            span = _judgment(
                qid,
                record.get("doc_id"),
                record.get("start"),
                record.get("end"),
                record.get("grade", 1),
                where,
            )
            text = record.get("text")
            if text is not None:
                if not isinstance(text, str):
                    raise InputError(f"{where}: `text` must be a string, not {text!r}")
                span = dataclasses.replace(span, text=text)
        else:
            parts = line.split()
            if len(parts) != 5:
                raise InputError(f"{where}: expected query_id doc_id start end grade")
            if not found and not parts[2].lstrip("-").isdigit():
                continue  # a header
            span = _judgment(parts[0], parts[1], parts[2], parts[3], parts[4], where)
        found.setdefault(span.query_id, []).append(span)
    if not found:
        raise InputError(f"{path}: no span judgments")
    return found


def write_span_qrels(path: Path, spans: Iterable[SpanJudgment]) -> int:
    """JSON Lines, one judgment a line; returns how many were written. The file is
    written whole, never through a link (:func:`osrag.writes.writing`)."""
    try:
        return _write_spans(path, spans)
    except OSError as exc:
        raise StorageError(f"{path}: cannot write ({exc.strerror or exc})") from None


def _write_spans(path: Path, spans: Iterable[SpanJudgment]) -> int:
    count = 0
    with writing(path) as handle:
        for span in spans:
            record = {
                "query_id": span.query_id,
                "doc_id": span.doc_id,
                "start": span.start,
                "end": span.end,
                "grade": span.grade,
            }
            if span.text is not None:
                record["text"] = span.text
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


# --------------------------------------------------------------------------- passages → spans


@dataclass
class PassageSpans:
    """What :func:`passages_to_spans` found, and what it could not place."""

    spans: list[SpanJudgment] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """``file:line: why`` for each passage not found (its document, or its text)."""
    repeated: int = 0
    """Passages found more than once in their document (the first occurrence is used)."""


def find_passage(text: str, passage: str) -> tuple[Interval | None, int]:
    """Where ``passage`` occurs in ``text`` (exactly, else white space matching any white
    space), and how many times; ``(None, 0)`` when it does not."""
    words = passage.split()
    if not words:
        return None, 0
    start = text.find(passage)
    if start >= 0:
        return (start, start + len(passage)), text.count(passage)
    pattern = re.compile(r"\s+".join(re.escape(word) for word in words))
    matches = list(pattern.finditer(text))
    if not matches:
        return None, 0
    return (matches[0].start(), matches[0].end()), len(matches)


def passages_to_spans(
    path: Path, documents: dict[str, Document], grades: dict[str, dict[str, int]] | None = None
) -> PassageSpans:
    """Read ``{"query_id", "doc_id", "passage", "grade"?}`` lines and place each passage.

    The grade is the line's, else the document-level grade in ``grades`` (qrels),
    else 1.
    """
    result = PassageSpans()
    for _line_no, where, record in json_objects(path):
        qid = record.get("query_id", record.get("qid"))
        doc_id, passage = record.get("doc_id"), record.get("passage")
        if qid is None or doc_id is None or not isinstance(passage, str):
            raise InputError(f"{where}: needs `query_id`, `doc_id` and `passage` (text)")
        qid, doc_id = str(qid), str(doc_id)
        document = documents.get(doc_id)
        if document is None:
            result.missing.append(f"{where}: no document {doc_id!r} in the corpus")
            continue
        found, times = find_passage(document.text, passage)
        if found is None:
            result.missing.append(f"{where}: the passage is not in {doc_id!r}")
            continue
        result.repeated += int(times > 1)
        grade = record.get("grade")
        if grade is None:
            grade = (grades or {}).get(qid, {}).get(doc_id, 1)
        result.spans.append(
            SpanJudgment(qid, doc_id, found[0], found[1], _integer(grade, "grade", where))
        )
    return result
