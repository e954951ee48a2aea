"""A change re-embeds only the texts it changes, on every engine, and its plan says so first.

The vectors a new generation reuses are read back from the generation it replaces (the
local vector cache is emptied before every apply here, as on a search service that did
not build the index). The embedder counts what it is asked for; which texts changed is
computed apart, by cutting the corpus before and after with the chunker alone.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from backend_cases import BackendCase
from counting_vectors import CountingVectors

import osrag.schema.extraction as extraction
from osrag.ingestion.change_plan import Caller, plan_change
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document, IngestReport
from osrag.schema.change_plan import ChangePlan


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private vector cache (emptied by :func:`forget`)."""
    folder = tmp_path / "vector-cache"
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(folder))
    return folder


def forget(cache: Path) -> None:
    shutil.rmtree(cache, ignore_errors=True)


def texts(corpus: Path, chunking: ChunkingConfig) -> dict[str, Counter[str]]:
    """Each document's chunk texts, cut by the chunker alone."""
    found: dict[str, Counter[str]] = {}
    for doc in load_corpus(corpus):
        if isinstance(doc, Document):
            found[doc.doc_id] = Counter(c.text for c in prepare_chunks(doc, chunking))
    return found


def chunks_asked(
    asked: list[str], report: IngestReport, now: dict[str, Counter[str]]
) -> Counter[str]:
    """The chunk texts among what the embedder was asked for; the rest are the label
    vocabulary's texts, as many as the report says it embedded."""
    chunk_texts = set().union(*map(set, now.values()))
    labels = [t for t in asked if t not in chunk_texts]
    vocabulary = report.label_vocabulary
    assert len(labels) == (vocabulary.vectors_embedded if vocabulary is not None else 0)
    return Counter(t for t in asked if t in chunk_texts)


def new_texts(before: dict[str, Counter[str]], after: dict[str, Counter[str]]) -> Counter[str]:
    """The texts of ``after`` that its document did not hold ``before``, once each."""
    distinct: Counter[str] = Counter()
    for doc_id, now in after.items():
        for text in now:
            if text not in before.get(doc_id, Counter()):
                distinct[text] = 1
    return distinct


def plan_then_apply(
    corpus: Path, backend: object, options: IngestOptions, cache: Path
) -> tuple[ChangePlan, IngestReport]:
    forget(cache)
    plan = plan_change(corpus, backend, options, caller=Caller(unrestricted=True), calibrate=False)  # type: ignore[arg-type]
    report = ingest(corpus, backend, options)  # type: ignore[arg-type]
    return plan, report


def assert_predicted(plan: ChangePlan, report: IngestReport) -> None:
    assert plan.vectors is not None
    assert plan.vectors.from_generation == report.vectors_from_generation
    assert plan.vectors.from_cache == report.vectors_reused
    assert plan.vectors.to_embed == report.chunks_embedded
    assert plan.chunks.to_write == report.chunks_written
    assert plan.chunks.to_delete == report.chunks_deleted
    assert plan.documents.new == report.documents_added or plan.new_generation
    assert plan.generation == report.generation


def slice_copy(corpora: Path, name: str, tmp_path: Path) -> Path:
    source = corpora / name
    if (source / "contracts").is_dir():
        source = source / "contracts"
    return Path(shutil.copytree(source, tmp_path / name))


def edit_one_paragraph(corpus: Path) -> str:
    """Append a sentence to a paragraph in the middle of the longest Markdown file; its
    relative path."""
    path = max(corpus.rglob("*.md"), key=lambda p: p.stat().st_size)
    lines = path.read_text(encoding="utf-8").split("\n")
    prose = [
        i
        for i, line in enumerate(lines)
        if len(line) > 60 and line[0].isalpha() and not line.startswith(("|", "#"))
    ]
    middle = prose[len(prose) // 2]
    lines[middle] += " This sentence was added by an edit."
    path.write_text("\n".join(lines), encoding="utf-8")
    return path.relative_to(corpus).as_posix()


def test_a_one_document_edit_embeds_only_its_changed_chunks(
    backend_case: BackendCase, corpora: Path, tmp_path: Path, cache_dir: Path
) -> None:
    corpus = slice_copy(corpora, "opensearch-docs", tmp_path)
    embedder = CountingVectors()
    options = IngestOptions(alias=backend_case.alias, embedder=embedder, embed_workers=1)
    first = ingest(corpus, backend_case.backend, options)
    before = texts(corpus, options.chunking)
    assert first.chunks_embedded == len(chunks_asked(embedder.asked, first, before)) > 100
    edit_one_paragraph(corpus)
    after = texts(corpus, options.chunking)
    changed = [d for d in after if after[d] != before[d]]
    assert len(changed) == 1
    embedder.asked.clear()
    plan, report = plan_then_apply(corpus, backend_case.backend, options, cache_dir)
    expected = new_texts(before, after)
    assert 0 < len(expected) < 5
    assert chunks_asked(embedder.asked, report, after) == expected
    kept = sum((after[changed[0]] & before[changed[0]]).values())
    assert report.vectors_from_generation == kept > 0
    assert_predicted(plan, report)
    assert not plan.new_generation
    assert plan.documents.changed == 1 and plan.documents.unchanged == len(after) - 1


def _extraction_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new extraction version, as a release that changes the extractors has."""
    bumped = extraction.EXTRACTION_VERSION + ",test@2"
    monkeypatch.setattr(extraction, "EXTRACTION_VERSION", bumped)


CHANGES = ["chunk-size", "strategy", "extraction-version", "embedder"]


@pytest.mark.parametrize("corpus_name", ["opensearch-docs", "cuad-contracts"])
@pytest.mark.parametrize("change", CHANGES)
def test_the_plan_predicts_what_the_apply_reuses(
    change: str,
    corpus_name: str,
    backend_case: BackendCase,
    corpora: Path,
    tmp_path: Path,
    cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus = slice_copy(corpora, corpus_name, tmp_path)
    embedder = CountingVectors()
    base = IngestOptions(alias=backend_case.alias, embedder=embedder, embed_workers=1)
    ingest(corpus, backend_case.backend, base)
    before = texts(corpus, base.chunking)
    options = base
    if change == "chunk-size":
        options = IngestOptions(
            alias=base.alias,
            embedder=embedder,
            embed_workers=1,
            chunking=ChunkingConfig(max_tokens=300),
        )
    elif change == "strategy":
        options = IngestOptions(
            alias=base.alias,
            embedder=embedder,
            embed_workers=1,
            chunking=ChunkingConfig(strategy="sentences", max_tokens=200),
        )
    elif change == "extraction-version":
        _extraction_version(monkeypatch)
    else:
        embedder = CountingVectors(name="another-model")
        options = IngestOptions(alias=base.alias, embedder=embedder, embed_workers=1)
    embedder.asked.clear()
    plan, report = plan_then_apply(corpus, backend_case.backend, options, cache_dir)
    assert plan.new_generation and report.alias_moved
    assert_predicted(plan, report)
    after = texts(corpus, options.chunking)
    asked = chunks_asked(embedder.asked, report, after)
    if change == "embedder":
        assert report.vectors_from_generation == 0
        assert asked == Counter(set().union(*map(set, after.values())))
    else:
        assert asked == new_texts(before, after)
    if change == "extraction-version":  # the chunks' vectors and the labels' read back
        assert embedder.asked == [] and plan.vectors is not None
        assert report.label_vocabulary is not None
        assert report.label_vocabulary.vectors_from_generation == report.label_vocabulary.labels
        assert plan.vectors.from_generation == plan.chunks.after == report.chunks_written
        assert any(s.setting == "versions.extractors" for s in plan.settings)
    if change == "chunk-size":
        assert any(s.setting == "chunking.max_tokens" for s in plan.settings)
        assert report.vectors_from_generation > 0 and report.chunks_embedded < plan.chunks.after
