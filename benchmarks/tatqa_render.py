"""A TAT-QA context as one Markdown document: its paragraphs, and its table after the
paragraph that introduces it, with where each cell and paragraph was written.

``benchmarks/tatqa_corpus.py`` writes the corpus with it and ``benchmarks/tatqa_evidence.py``
finds the evidence spans in what it wrote; both read the dataset at :data:`DATASET`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from _paths import CORPORA

DATASET = CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json"


@dataclass
class Rendered:
    doc_id: str
    text: str
    cells: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(row, column, start, end) of each cell's text in ``text``."""
    paragraphs: dict[int, tuple[int, int]] = field(default_factory=dict)


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def render(context: dict[str, Any]) -> Rendered:
    """One context as Markdown, with the offsets of its cells and paragraphs."""
    doc_id = "tatqa-" + context["table"]["uid"][:8]
    paragraphs = sorted(context["paragraphs"], key=lambda p: p["order"])
    rows = context["table"]["table"]
    colon = [i for i, p in enumerate(paragraphs) if p["text"].rstrip().endswith(":")]
    told = [i for i, p in enumerate(paragraphs) if _introduces(p["text"])]
    lead = (colon or told or [None])[0]
    at = len(paragraphs) - 1 if lead is None else lead
    out = Rendered(doc_id, "")
    parts: list[str] = []

    def add(piece: str) -> int:
        start = sum(len(p) for p in parts)
        parts.append(piece)
        return start

    for i, paragraph in enumerate(paragraphs):
        text = " ".join(paragraph["text"].split())
        start = add(text)
        out.paragraphs[int(paragraph["order"])] = (start, start + len(text))
        add("\n\n")
        if i == at:
            _table(rows, add, out)
    if not paragraphs:
        _table(rows, add, out)
    out.text = "".join(parts)
    return out


_INTRODUCES = re.compile(
    r"(?i)\bfollowing\s+(?:table|summar\w*|sets|presents|shows)\b"
    r"|\bas follows\b|\btable below\b|\bbelow\b.*:"
)


def _introduces(paragraph: str) -> bool:
    """A paragraph that introduces the table: "…as follows (in thousands):"."""
    return _INTRODUCES.search(paragraph) is not None


def _table(rows: list[list[str]], add: Any, out: Rendered) -> None:
    width = max(len(r) for r in rows)
    for r, row in enumerate(rows):
        cells = [_cell(c) for c in [*row, *[""] * (width - len(row))]]
        add("|")
        for c, cell in enumerate(cells):
            add(" ")
            start = add(cell)
            out.cells.append((r, c, start, start + len(cell)))
            add(" |")
        add("\n")
        if r == 0:
            add("|" + "---|" * width + "\n")
    add("\n")
