"""How many chunks an edit changes: the share of a document's chunks whose text is new
after one paragraph is changed, a section inserted, a table row added, or the chunk size
moved by 10 % / 25 %, for each chunking strategy.

    python benchmarks/edit_stability.py [--corpus opensearch-docs --corpus cuad-contracts]
                                        [--limit N]

A changed chunk text is a vector to embed again (:mod:`osrag.ingestion.reuse` reuses a
vector when its document still holds the same text), so this is what an edit costs in
embedding. Each edit is made near the top of every document that has the place for it
(the first prose paragraph; after the first paragraph; the first Markdown table), where
a cut that cascades changes the most; the chunk-size changes apply to every document.

Columns: ``changed`` is the share of the edited documents' new chunks whose text the
old version did not hold; ``after edit`` the same share among chunks that start after
the edited place — near zero when boundaries move little, near one when an edit near the
top cascades through every later chunk. Each strategy runs at its defaults, and with
``anchor`` (windows restarted at paragraph boundaries, :mod:`osrag.chunking.anchors`)
where the strategy has it. Prints a table and writes
``benchmarks/results/edit_stability.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _paths import CORPORA, ROOT

from osrag.chunking import chunk_document
from osrag.chunking.structural import outline
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document

RESULTS = ROOT / "benchmarks" / "results" / "edit_stability.json"
SENTENCE = " This sentence was added to the paragraph by an edit of the document."
SECTION_MD = (
    "## An inserted section\n\nThis section was inserted by an edit. It holds two short "
    "paragraphs of prose, about as long as a real one, so that it moves every later "
    "token of the document by some sixty tokens.\n\nA second paragraph follows, with "
    "another sentence or two about nothing in particular, written to shift the text.\n\n"
)
SECTION_TEXT = SECTION_MD.replace("## An inserted section", "INSERTED SECTION")
_PARAGRAPH = re.compile(r"(?:^|\n\n)([A-Za-z][^\n]{40,}(?:\n[^\n]+)*)")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}.*\|.*$", re.M)

Edit = Callable[[Document], tuple[str, int] | None]
"""A document → (its edited text, where the edit starts), or None: no place for it."""


def edit_paragraph(doc: Document) -> tuple[str, int] | None:
    for match in _PARAGRAPH.finditer(doc.text, doc.content_start):
        body = match.group(1)
        if body.startswith(("|", "#", "-", "*", ">")) or len(body.split()) < 8:
            continue
        end = match.end(1)
        return doc.text[:end] + SENTENCE + doc.text[end:], match.start(1)
    return None


def insert_section(doc: Document) -> tuple[str, int] | None:
    """A new section before the document's second heading (between two sections), or
    after its first paragraph when it has fewer headings."""
    headings = outline(doc)[0].headings
    if len(headings) >= 2:
        at = headings[1].start
        if doc.format == "markdown":  # a sibling of the section it precedes
            level = "#" * headings[1].level
            section = SECTION_MD.replace("##", level, 1)
            return doc.text[:at] + section + doc.text[at:], at
    else:
        found = _PARAGRAPH.search(doc.text, doc.content_start)
        if found is None:
            return None
        after = doc.text[found.end(1) : found.end(1) + 2] == "\n\n"
        at = found.end(1) + 2 if after else found.end(1)
    section = SECTION_MD if doc.format == "markdown" else SECTION_TEXT
    return doc.text[:at] + section + doc.text[at:], at


def add_table_row(doc: Document) -> tuple[str, int] | None:
    if doc.format != "markdown":
        return None
    separator = _TABLE_SEPARATOR.search(doc.text, doc.content_start)
    if separator is None:
        return None
    row_start = separator.end() + 1
    row_end = doc.text.find("\n", row_start)
    row_end = len(doc.text) if row_end < 0 else row_end
    row = doc.text[row_start:row_end]
    if not row.strip().startswith("|"):
        return None
    cells = [c for c in row.split("|")]
    added = "|".join(cell if not cell.strip() else " added cell " for cell in cells)
    return doc.text[:row_end] + "\n" + added + doc.text[row_end:], row_end + 1


EDITS: dict[str, Edit] = {
    "paragraph changed": edit_paragraph,
    "section inserted": insert_section,
    "table row added": add_table_row,
}


def configs(anchor: bool) -> dict[str, ChunkingConfig]:
    extra: dict[str, Any] = {"anchor": "structure"} if anchor else {}
    return {
        "fixed": ChunkingConfig(strategy="fixed", **extra),
        "structural": ChunkingConfig(strategy="structural", **extra),
        "sentences": ChunkingConfig(strategy="sentences", **extra),
    }


def resized(config: ChunkingConfig, factor: float) -> ChunkingConfig:
    if config.strategy == "fixed":
        return config.model_copy(update={"size": round(config.size * factor)})
    return config.model_copy(update={"max_tokens": round(config.max_tokens * factor)})


def edited(doc: Document, text: str) -> Document:
    version = hashlib.sha256(text.encode()).hexdigest()
    return doc.model_copy(update={"text": text, "source_version": version})


def compare(old: list[Any], new: list[Any], at: int | None, counts: dict[str, int]) -> None:
    before = Counter(c.text for c in old)
    for chunk in new:
        fresh = before[chunk.text] <= 0
        if not fresh:
            before[chunk.text] -= 1
        counts["chunks"] += 1
        counts["changed"] += fresh
        if at is not None and chunk.span.start > at:
            counts["after"] += 1
            counts["after_changed"] += fresh


def documents(corpus: Path, limit: int | None) -> Iterator[Document]:
    n = 0
    for item in load_corpus(corpus):
        if isinstance(item, Document):
            yield item
            n += 1
            if limit is not None and n >= limit:
                return


def measure(docs: list[Document], config: ChunkingConfig) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    base = {doc.doc_id: chunk_document(doc, config) for doc in docs}
    for name, edit in EDITS.items():
        counts: Counter[str] = Counter()
        for doc in docs:
            change = edit(doc)
            if change is None:
                continue
            counts["documents"] += 1
            compare(
                base[doc.doc_id], chunk_document(edited(doc, change[0]), config), change[1], counts
            )
        rows[name] = _shares(counts)
    for factor in (1.10, 1.25):
        counts = Counter()
        other = resized(config, factor)
        for doc in docs:
            counts["documents"] += 1
            compare(base[doc.doc_id], chunk_document(doc, other), None, counts)
        rows[f"size +{round((factor - 1) * 100)} %"] = _shares(counts)
    return rows


def _shares(counts: Counter[str]) -> dict[str, float]:
    return {
        "documents": counts["documents"],
        "chunks": counts["chunks"],
        "changed": round(counts["changed"] / counts["chunks"], 3) if counts["chunks"] else 0.0,
        "after_edit": (
            round(counts["after_changed"] / counts["after"], 3) if counts["after"] else None
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", help="corpus folder name or path")
    parser.add_argument("--limit", type=int, default=None, help="documents per corpus")
    parser.add_argument("--no-anchor", action="store_true", help="only the default cuts")
    args = parser.parse_args()
    names = args.corpus or ["opensearch-docs", "cuad-contracts"]
    results: dict[str, Any] = {}
    for name in names:
        path = Path(name) if Path(name).exists() else CORPORA / name
        if (path / "contracts").is_dir():
            path = path / "contracts"
        docs = list(documents(path, args.limit))
        results[name] = {"documents": len(docs)}
        variants = [("default", False)] + ([] if args.no_anchor else [("anchored", True)])
        for label, anchor in variants:
            for strategy, config in configs(anchor).items():
                started = time.perf_counter()
                rows = measure(docs, config)
                results[name][f"{strategy} {label}"] = rows
                print(
                    f"{name} {strategy} {label}: {time.perf_counter() - started:.1f} s", flush=True
                )
    print()
    print("| corpus | strategy | cuts | edit | documents | chunks | changed | after edit |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
    for name, by in results.items():
        for key, rows in by.items():
            if key == "documents":
                continue
            strategy, label = key.split(" ")
            for edit, row in rows.items():
                after = "—" if row["after_edit"] is None else f"{row['after_edit']:.3f}"
                print(
                    f"| {name} | {strategy} | {label} | {edit} | {row['documents']} | "
                    f"{row['chunks']} | {row['changed']:.3f} | {after} |"
                )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
