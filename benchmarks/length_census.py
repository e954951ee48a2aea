"""How long the real things are: labels, keys, headings, breadcrumbs, table cells, stored terms.

The length bounds of :mod:`osrag.lexicon.bounds` are chosen well above what real documents
hold; this census says what they hold. It reads every document of the real corpora in
``../shared/corpora`` (all of opensearch-docs, cuad-contracts and real-docs, the 278
TAT-QA contexts rendered as the amount benchmarks render them, Cranfield's 1,400
abstracts) and of the families set (``benchmarks/data/families/documents``), cuts each
with the default structural chunking, extracts its facts, and measures:

* **label** — a fact's label (characters; words);
* **keys** — a fact's ``label_keys``: how many, the longest (characters, words);
* **heading** — a heading of a breadcrumb (characters), the breadcrumb (characters, and
  the default embedder's tokens of the breadcrumb line);
* **cell**, **header** — a table cell (characters), a header cell (a cell above a table's
  first figures; a loader table's column names);
* **scope_name**, **period** — the stored keyword fields (characters);
* **cut** — what the bounds of this checkout cut (:func:`osrag.chunking.records.cuts`:
  labels, chunks with a heading cut; a breadcrumb shortened in the default embedder's
  window): zero on real documents.

    python benchmarks/length_census.py
    python benchmarks/length_census.py --only families,tatqa-dev

Prints a table (the longest of each, and where), writes
``benchmarks/results/length_census.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _paths import CORPORA, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

from osrag.chunking.records import cuts
from osrag.chunking.tokenizers import get_tokenizer
from osrag.chunking.window import shown_breadcrumb
from osrag.extract.tables import find_tables
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document, EmbedWindow

RESULTS = ROOT / "benchmarks" / "results" / "length_census.json"
FAMILIES = ROOT / "benchmarks" / "data" / "families" / "documents"


def _loaded(folder: Path) -> Iterator[Document]:
    for item in load_corpus(folder):
        if isinstance(item, Document):
            yield item


def _tatqa() -> Iterator[Document]:
    import tatqa_corpus

    contexts = json.loads((CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json").read_text("utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for context in contexts:
            rendered = tatqa_corpus.render(context)
            (base / f"{rendered.doc_id}.md").write_text(rendered.text, encoding="utf-8")
        yield from _loaded(base)


SETS = {
    "opensearch-docs": lambda: _loaded(CORPORA / "opensearch-docs"),
    "cuad-contracts": lambda: _loaded(CORPORA / "cuad-contracts" / "contracts"),
    "real-docs": lambda: (
        d for d in _loaded(CORPORA / "real-docs") if d.source_path != "README.md"
    ),
    "tatqa-dev": _tatqa,
    "cranfield": lambda: _loaded(CORPORA / "cranfield" / "derived" / "corpus.jsonl"),
    "families": lambda: _loaded(FAMILIES),
}
"""Name → the documents of one set."""


@dataclass
class Longest:
    """The longest value of one measure, and where it was."""

    value: int = 0
    where: str = ""
    example: str = ""
    count: int = 0

    def see(self, value: int, where: str, example: str) -> None:
        self.count += 1
        if value > self.value:
            self.value, self.where, self.example = value, where, example[:160]


@dataclass
class Census:
    measures: dict[str, Longest] = field(default_factory=dict)
    cut: dict[str, int] = field(default_factory=dict)

    def see(self, name: str, value: int, where: str, example: str) -> None:
        self.measures.setdefault(name, Longest()).see(value, where, example)

    def count(self, name: str, n: int = 1) -> None:
        self.cut[name] = self.cut.get(name, 0) + n  # every kind shown, zero included


def _cells(doc: Document, census: Census, where: str) -> None:
    for table, _ in find_tables(doc.text, doc.content_start, captions=False):
        first_value = next(
            (r for r, (_, cells) in enumerate(table.rows) if any(_figure(c.text) for c in cells)),
            len(table.rows),
        )
        for r, (label, cells) in enumerate(table.rows):
            census.see("cell (chars)", len(label), where, label)
            for cell in cells:
                census.see("cell (chars)", len(cell.text), where, cell.text)
                if r < first_value:
                    census.see("header cell (chars)", len(cell.text), where, cell.text)
                if cell.column and not table.pipe:
                    census.see("header cell (chars)", len(cell.column), where, cell.column)


def _figure(text: str) -> bool:
    return any(ch.isdigit() for ch in text) and len(text) < 40


def _chunks(doc: Document, census: Census, where: str, window: EmbedWindow) -> None:
    tokenizer = get_tokenizer(window.tokenizer)
    for chunk in prepare_chunks(doc, ChunkingConfig()):
        for heading in chunk.heading_path:
            census.see("heading (chars)", len(heading), where, heading)
        census.see("breadcrumb (chars)", len(chunk.breadcrumb), where, chunk.breadcrumb)
        if chunk.breadcrumb:
            tokens = tokenizer.count(chunk.breadcrumb + "\n")
            census.see("breadcrumb (tokens)", tokens, where, chunk.breadcrumb)
            shown = shown_breadcrumb(chunk.breadcrumb, window, tokenizer)
            census.count("breadcrumbs shortened in the window", int(shown != chunk.breadcrumb))
        labels, heading, _ = cuts(chunk)
        census.count("labels cut", labels)
        census.count("chunks with a heading cut", heading)
        for fact in chunk.facts:
            stored = fact.source_dict()
            label = fact.label or ""
            if label:
                census.see("label (chars)", len(label), where, label)
                census.see("label (words)", len(label.split()), where, label)
            keys = stored["label_keys"]
            census.see("keys per fact", len(keys), where, label)
            census.see("key chars per fact", sum(map(len, keys)), where, label)
            for key in keys:
                census.see("key (chars)", len(key), where, key)
                census.see("key (words)", len(key.split()), where, key)
            for name in ("scope_name", "period"):
                value = stored.get(name) or ""
                if value:
                    census.see(f"{name} (chars)", len(value), where, value)


def run(names: list[str]) -> dict[str, Any]:
    from osrag.chunking import embed_window
    from osrag.embedding import default_embedder

    window = embed_window(default_embedder())
    assert window is not None
    out: dict[str, Any] = {}
    for name in names:
        census = Census()
        started = time.perf_counter()
        documents = 0
        for doc in SETS[name]():
            documents += 1
            where = doc.source_path + (f":{doc.source_line}" if doc.source_line else "")
            _cells(doc, census, where)
            _chunks(doc, census, where, window)
        out[name] = {
            "documents": documents,
            "seconds": round(time.perf_counter() - started, 1),
            "longest": {k: vars(v) for k, v in sorted(census.measures.items())},
            "cut": census.cut,
        }
        print(f"\n{name}: {documents} documents", flush=True)
        for measure, longest in sorted(census.measures.items()):
            shown = f"{longest.where[:60]}  {longest.example[:70]!r}"
            print(f"  {measure:<22} {longest.value:>7,}  {shown}")
        for what, n in sorted(census.cut.items()):
            print(f"  {what:<22} {n:>7,}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated sets: " + ", ".join(SETS))
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(SETS)
    results = run(names)
    overall: dict[str, Any] = {}
    for name, found in results.items():
        for measure, longest in found["longest"].items():
            if longest["value"] > overall.get(measure, {}).get("value", -1):
                overall[measure] = {"value": longest["value"], "set": name,
                                    "where": longest["where"]}  # fmt: skip
    print("\nlongest over every set")
    for measure, longest in sorted(overall.items()):
        print(f"  {measure:<22} {longest['value']:>7,}  {longest['set']}: {longest['where'][:60]}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    if len(names) < len(SETS) and RESULTS.exists():
        results = json.loads(RESULTS.read_text())["sets"] | results
    RESULTS.write_text(json.dumps({"sets": results, "longest": overall}, indent=1) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
