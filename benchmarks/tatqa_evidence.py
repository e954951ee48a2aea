"""TAT-QA (dev) → questions whose answer is written in the document, with where it is written.

    .venv/bin/python benchmarks/tatqa_evidence.py [--out benchmarks/results/tatqa]

(``benchmarks/tatqa_corpus.py`` writes the same files as part of the conversion.)

For evidence recall at a token budget (``osrag eval --context``, docs/passages.md): every
question whose answer is one or several spans of the context (``answer_type`` ``span`` or
``multi-span``; arithmetic and counts are left out: their answer is not written anywhere),
located in the corpus ``tatqa_render.render`` writes:

* an answer from the **text** (``answer_from: text``) is found in the question's
  ``rel_paragraphs`` — whitespace runs matching any whitespace, then ignoring case; the
  first occurrence;
* an answer from the **table** (``table``) is the table cell whose text is the answer
  (the first such cell, row by row; a cell that only contains it, when none equals it);
* a ``table-text`` answer is looked for in its paragraphs first, then in the cells.

Writes ``evidence_queries.jsonl`` (``{"id", "query", "relevant": {doc: 1}, "note":
"text"|"table"}``: where the answer was found) and ``evidence_spans.jsonl`` (one span
judgment per answer part, ``{"query_id", "doc_id", "start", "end", "grade", "text"}`` —
``text`` the answer as the document writes it, so a metric can check the text it was
shown, not only the offsets). A question counts as answered only when every part is
shown. An answer that cannot be placed drops its question (counted in the summary). Only
the dataset's annotations decide; nothing is hand-picked, and osrag's own code is not used.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tatqa_render import DATASET, Rendered, render


@dataclass
class Evidence:
    """One question and where each part of its answer is written."""

    query_id: str
    doc_id: str
    question: str
    source: str
    """``text`` when every part was found in a paragraph, else ``table``."""
    parts: list[tuple[int, int, str]] = field(default_factory=list)
    """``(start, end, text)`` of each answer part in the rendered document."""


@dataclass
class Summary:
    questions: int = 0
    placed: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    unplaced: int = 0


def _pattern(answer: str) -> re.Pattern[str]:
    words = answer.split()
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def _in_paragraphs(
    rendered: Rendered, orders: list[Any], answer: str
) -> tuple[int, int, str] | None:
    """The first occurrence of ``answer`` in the given paragraphs (case, then no case)."""
    pattern = _pattern(answer)
    blind = re.compile(pattern.pattern, re.IGNORECASE)
    for matcher in (pattern, blind):
        for order in orders:
            where = rendered.paragraphs.get(int(order))
            if where is None:
                continue
            found = matcher.search(rendered.text, where[0], where[1])
            if found is not None:
                return found.start(), found.end(), found.group(0)
    return None


def _in_cells(rendered: Rendered, answer: str) -> tuple[int, int, str] | None:
    """The first cell whose text is the answer, else the first that contains it."""
    wanted = " ".join(answer.replace("|", "\\|").split())
    if not wanted:
        return None
    cells = [(start, end, rendered.text[start:end]) for _, _, start, end in rendered.cells]
    for start, end, text in cells:
        if text == wanted:
            return start, end, text
    for start, _, text in cells:
        at = text.find(wanted)
        if at >= 0:
            return start + at, start + at + len(wanted), wanted
    return None


def _place(
    rendered: Rendered, q: dict[str, Any], answer: str
) -> tuple[tuple[int, int, str], str] | None:
    orders = list(q.get("rel_paragraphs") or [])
    if q["answer_from"] in ("text", "table-text"):
        found = _in_paragraphs(rendered, orders, answer)
        if found is not None:
            return found, "text"
    if q["answer_from"] in ("table", "table-text"):
        found = _in_cells(rendered, answer)
        if found is not None:
            return found, "table"
    return None


def evidence(context: dict[str, Any], summary: Summary) -> list[Evidence]:
    """The placed questions of one context."""
    rendered = render(context)
    found: list[Evidence] = []
    for q in context["questions"]:
        if q["answer_type"] not in ("span", "multi-span"):
            continue
        summary.questions += 1
        answers = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
        placed = [_place(rendered, q, str(a)) for a in answers if str(a).strip()]
        if not placed or any(p is None for p in placed):
            summary.unplaced += 1
            continue
        parts = [p[0] for p in placed if p is not None]
        source = "text" if all(p[1] == "text" for p in placed if p is not None) else "table"
        found.append(Evidence(q["uid"], rendered.doc_id, q["question"], source, parts))
        summary.placed += 1
        summary.by_source[source] = summary.by_source.get(source, 0) + 1
    return found


def write_evidence(contexts: list[dict[str, Any]], out: Path) -> Summary:
    """``evidence_queries.jsonl`` and ``evidence_spans.jsonl`` of every context in ``out``."""
    summary = Summary()
    items = [e for context in contexts for e in evidence(context, summary)]
    out.mkdir(parents=True, exist_ok=True)
    with (out / "evidence_queries.jsonl").open("w", encoding="utf-8") as f:
        for e in items:
            line = {"id": e.query_id, "query": e.question, "relevant": {e.doc_id: 1}}
            f.write(json.dumps(line | {"note": e.source}, ensure_ascii=False) + "\n")
    with (out / "evidence_spans.jsonl").open("w", encoding="utf-8") as f:
        for e in items:
            for start, end, text in e.parts:
                span = {"query_id": e.query_id, "doc_id": e.doc_id, "start": start, "end": end}
                f.write(json.dumps(span | {"grade": 1, "text": text}, ensure_ascii=False) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/tatqa"))
    args = parser.parse_args(argv)
    contexts = json.loads(args.dataset.read_text(encoding="utf-8"))
    summary = write_evidence(contexts, args.out)
    print(
        f"{summary.placed} of {summary.questions} span questions placed {summary.by_source} "
        f"({summary.unplaced} not found where the annotations say) → "
        f"{args.out / 'evidence_queries.jsonl'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
