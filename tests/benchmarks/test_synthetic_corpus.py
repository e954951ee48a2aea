"""The synthetic corpus of the scale benchmark: deterministic, any size, and exactly what
osrag's own chunker and extractors find in it (so a benchmark's chunk count is known)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
synthetic = importlib.import_module("synthetic_corpus")


def test_same_seed_same_bytes_and_a_small_corpus_is_the_start_of_a_big_one() -> None:
    small = [p.text for p in synthetic.policies(3, 400)]
    again = [p.text for p in synthetic.policies(3, 400)]
    big = [p.text for p in synthetic.policies(3, 4000)]
    other = [p.text for p in synthetic.policies(4, 400)]
    assert small == again
    assert small[:-1] == big[: len(small) - 1]  # the last one of the small corpus is cut short
    assert small[0] != other[0]
    assert sum(p.chunks for p in synthetic.policies(3, 4000)) == 4000


def test_every_chunk_and_amount_is_what_osrag_finds(tmp_path: Path) -> None:
    written = synthetic.write_corpus(tmp_path, 1500, seed=9)
    assert written.chunks == 1500
    expected = {p.doc_id: p for p in synthetic.policies(9, 1500)}
    docs = [d for d in load_corpus(tmp_path) if isinstance(d, Document)]
    assert [d.doc_id for d in docs] == sorted(expected)  # CORPUS.json is ignored
    formats: set[str] = set()
    dated = identified = 0
    for doc in docs:
        chunks = prepare_chunks(doc, ChunkingConfig())
        sections = expected[doc.doc_id].sections
        assert len(chunks) == len(sections), doc.doc_id
        for chunk, section in zip(chunks, sections, strict=True):
            assert set(chunk.money) == section.money, (doc.doc_id, chunk.breadcrumb)
            formats.update(t.split(":")[0] for t in chunk.money)
        dated += sum(bool(c.dates) for c in chunks)
        identified += sum(bool(c.identifiers) for c in chunks)
    assert formats == {"USD", "EUR", "GBP"}
    assert dated > 150 and identified > 150  # dates and policy numbers in one chunk in ten


def test_every_amount_format_is_written() -> None:
    import random

    rng = random.Random(1)
    seen = {synthetic.write_amount(rng, d).text for d in synthetic.LIMITS for _ in range(60)}
    samples = ["$300,000", "$300K", "$0.3M", "$2.5 million", "USD 300,000", "US$300,000"]
    samples += ["300,000 dollars", "€300,000", "300.000 €", "£300,000", "$300,000.00"]
    samples += ["Fifty Thousand Dollars ($50,000)", "EUR 300.000,00", "$0.3bn"]
    assert set(samples) <= seen
    odd = {synthetic.odd_amount(rng).text for _ in range(200)}
    assert any(t.startswith("-$") for t in odd) and any("–" in t for t in odd)
    assert any("." in t and t.startswith("$") for t in odd)
