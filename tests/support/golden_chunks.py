"""The golden chunk digests: what a fixed selection of the real corpora chunks into, exactly.

Each case is one corpus slice and one chunking configuration; its digest per file is the
SHA-256 over the canonical JSON (sorted keys, dates as ISO days) of every chunk record
the ingester builds from that file (:func:`osrag.chunking.records.chunk_source` of
:func:`osrag.ingestion.pipeline.prepare_chunks`): ids, spans, text, body, amounts,
money, amount evidence, dates, identifiers, token counts. A change to any chunker or
extractor that changes one byte of one record changes that file's digest.

    .venv/bin/python tests/support/golden_chunks.py   # rewrite tests/golden/chunks.json

Rewrite the fixture only for a change that is meant to change chunks (and bump the
version of the stage that changed them); an optimisation must leave it as it is.

The selection was made on the whole corpora (every 8th Markdown file of opensearch-docs,
every 3rd text of cuad-contracts, every real document, the TAT-QA contexts); the fixture
holds the files of that selection that the in-repository slices (``tests/data/corpora``)
kept, and the tests compare those. ``benchmarks/corpus_checks.py`` takes the same
digests over the whole selection in ``../shared/corpora``.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from paths import CORPORA

from osrag.chunking.records import chunk_source
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus, load_file
from osrag.models import ChunkingConfig, Document

HERE = Path(__file__).resolve().parents[1]
FIXTURE = HERE / "golden" / "chunks.json"
sys.path.insert(0, str(HERE.parent / "benchmarks"))

STRUCTURAL = ChunkingConfig()
FIXED = ChunkingConfig(strategy="fixed", size=48, overlap=8)
SENTENCES = ChunkingConfig(strategy="sentences", max_tokens=120, overlap_sentences=1)


def _files(corpora: Path, corpus: str, pattern: str, step: int) -> list[Path]:
    """Every ``step``-th file of a whole corpus, in path order; of a slice (which keeps some
    of those beside files that other tests need), the ones with golden digests."""
    root = corpora / corpus
    files = sorted(p for p in root.rglob(pattern) if p.is_file())
    if corpora != CORPORA:
        return files[::step]
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    named = {
        key.split(":")[0]
        for case, digests in fixture.items()
        if case.startswith(f"{corpus}/")
        for key in digests
    }
    return [p for p in files if p.relative_to(root).as_posix() in named]


def _load(base: Path, paths: list[Path]) -> Iterator[tuple[str, Document]]:
    for path in paths:
        rel = path.relative_to(base).as_posix()
        for item in load_file(path, rel, base=base):
            if isinstance(item, Document):
                yield rel, item


def _opensearch_docs(corpora: Path) -> Iterator[tuple[str, Document]]:
    base = corpora / "opensearch-docs"
    return _load(base, _files(corpora, "opensearch-docs", "*.md", 8))


def _cuad(corpora: Path) -> Iterator[tuple[str, Document]]:
    base = corpora / "cuad-contracts"
    return _load(base, _files(corpora, "cuad-contracts", "*.txt", 3))


def _real_docs(corpora: Path) -> Iterator[tuple[str, Document]]:
    base = corpora / "real-docs"
    files = [p for p in _files(corpora, "real-docs", "*", 1) if p.suffix != ".tsv"]
    return _load(base, [p for p in files if p.name != "README.md"])


def _tatqa(corpora: Path) -> Iterator[tuple[str, Document]]:
    """The first 400 TAT-QA contexts, rendered as the amount benchmarks render them."""
    import tatqa_corpus

    contexts = json.loads((corpora / "tatqa-dev" / "tatqa_dataset_dev.json").read_text("utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for context in contexts[:400]:
            rendered = tatqa_corpus.render(context)
            (base / f"{rendered.doc_id}.md").write_text(rendered.text, encoding="utf-8")
        for item in load_corpus(base):
            if isinstance(item, Document):
                yield item.source_path, item


def _synthetic(corpora: Path) -> Iterator[tuple[str, Document]]:
    """3,000 chunks of the scale benchmark's synthetic policies (seed 7)."""
    import synthetic_corpus

    with tempfile.TemporaryDirectory() as tmp:
        synthetic_corpus.write_corpus(Path(tmp), 3000, seed=7)
        for item in load_corpus(Path(tmp)):
            if isinstance(item, Document):
                yield item.source_path, item


CASES: dict[str, tuple[Callable[[Path], Iterator[tuple[str, Document]]], ChunkingConfig]] = {
    "opensearch-docs/structural": (_opensearch_docs, STRUCTURAL),
    "cuad-contracts/structural": (_cuad, STRUCTURAL),
    "cuad-contracts/fixed": (_cuad, FIXED),
    "cuad-contracts/sentences": (_cuad, SENTENCES),
    "real-docs/structural": (_real_docs, STRUCTURAL),
    "tatqa-dev/structural": (_tatqa, STRUCTURAL),
    "synthetic/structural": (_synthetic, STRUCTURAL),
}
"""Case name → (documents of the slice, chunking configuration)."""


def canonical(record: dict[str, Any]) -> bytes:
    """One chunk record as canonical JSON bytes (sorted keys, dates as ISO days)."""
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=_iso)
    return text.encode("utf-8")


def _iso(value: Any) -> str:
    return str(value.isoformat())


def case_digests(corpora: Path, case: str) -> dict[str, dict[str, Any]]:
    """``{file: {"chunks": n, "sha256": hex}}`` for every document of one case."""
    documents, config = CASES[case]
    out: dict[str, dict[str, Any]] = {}
    for rel, doc in documents(corpora):
        digest = hashlib.sha256()
        chunks = prepare_chunks(doc, config)
        for chunk in chunks:
            digest.update(canonical(chunk_source(chunk)))
            digest.update(b"\n")
        key = rel if doc.source_line is None else f"{rel}:{doc.source_line}"
        out[key] = {"chunks": len(chunks), "sha256": digest.hexdigest()}
    return out


def main() -> None:
    golden = {case: case_digests(CORPORA, case) for case in CASES}
    FIXTURE.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    total = sum(d["chunks"] for files in golden.values() for d in files.values())
    print(f"{FIXTURE}: {sum(len(f) for f in golden.values())} documents, {total} chunks")


if __name__ == "__main__":
    main()
