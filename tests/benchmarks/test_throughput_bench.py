"""The load-test helpers of the throughput benchmarks: the access front matter osrag reads,
the copies bulked in for 1M chunks, the synthetic vectors, and the request rewrites."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import load_corpus
from osrag.models import ChunkingConfig, Document

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
index_builder = importlib.import_module("throughput_index")
vectors = importlib.import_module("_synthetic_vectors")
caches = importlib.import_module("query_caches")
profile = importlib.import_module("throughput_profile")


def test_the_access_front_matter_reaches_every_chunk(tmp_path: Path) -> None:
    documents = index_builder.write_corpus(tmp_path, 300)
    loaded = [d for d in load_corpus(tmp_path) if isinstance(d, Document)]
    assert len(loaded) == documents
    for doc in loaded:
        number = int(doc.doc_id.rsplit("-", 1)[-1])
        assert doc.tenant == f"tenant-{number % 4}"
        assert doc.acl == [f"group-{number % 3}"]
        for chunk in prepare_chunks(doc, ChunkingConfig()):
            assert (chunk.tenant, chunk.acl) == (doc.tenant, doc.acl)


def test_copies_have_their_own_ids_the_next_tenant_and_their_own_vector() -> None:
    source = {"chunk_id": "abc", "doc_id": "policy-00000006", "tenant": "tenant-2", "text": "x"}
    embedder = vectors.HashVectors()
    first = index_builder.copy_source(source, 1, embedder)
    second = index_builder.copy_source(source, 2, embedder)
    assert (first["chunk_id"], first["doc_id"], first["tenant"]) == (
        "abc.1",
        "policy-00000006.1",
        "tenant-3",
    )
    assert second["tenant"] == "tenant-0"
    assert first["vector"] != second["vector"] and len(first["vector"]) == 384
    assert "vector" not in index_builder.copy_source(source, 1, None)
    assert source["chunk_id"] == "abc"  # the original is left as it was


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=8))
def test_synthetic_vectors_are_unit_length_and_the_same_for_the_same_text(
    texts: list[str],
) -> None:
    embedder = vectors.HashVectors()
    rows = embedder.embed(texts)
    assert rows.shape == (len(texts), 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(rows, embedder.embed_queries(texts))
    for i, text in enumerate(texts):
        for j in range(i):
            assert np.array_equal(rows[i], rows[j]) == (texts[j] == text)


def test_forced_request_cache_touches_headers_only_and_capping_only_hits_bodies() -> None:
    lines = [
        {"search_type": "dfs_query_then_fetch"},
        {"size": 10, "query": {"match_all": {}}, "track_total_hits": True},
        {},
        {"size": 0, "query": {"match_all": {}}, "track_total_hits": True},
    ]
    forced = caches.forced(lines)
    assert forced[0] == {"search_type": "dfs_query_then_fetch", "request_cache": True}
    assert forced[2] == {"request_cache": True}
    assert forced[1] == lines[1] and forced[3] == lines[3]
    capped = profile.capped(lines, 1000)
    assert capped[1]["track_total_hits"] == 1000
    assert capped[3]["track_total_hits"] is True  # the size-0 count stays exact
    assert capped[0] == lines[0] and lines[1]["track_total_hits"] is True
