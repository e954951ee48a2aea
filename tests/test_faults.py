"""Faults an operator meets, against the real engine: back-pressure, a read-only index,
a query the engine rejects. Each ends with the index and the manifest agreeing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from backend_cases import BackendCase
from clirun import osrag
from faultproxy import Pushback, pushing_back
from opensearchpy import OpenSearch

from osrag.backends.opensearch import OpenSearchIndex
from osrag.errors import ClusterError, QueryError
from osrag.index import IngestOptions, current_generation, ingest
from osrag.search import Searcher

INSURANCE = Path(__file__).resolve().parents[1] / "examples" / "insurance"


def _corpus(tmp_path: Path, copies: int = 4) -> Path:
    """The sample policies, several times over (enough for many bulk requests)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(copies):
        for source in sorted(INSURANCE.glob("*.md")):
            if source.name == "README.md":
                continue
            text = source.read_text()
            (corpus / f"{source.stem}-{n}.md").write_text(text.replace("id: ", f"id: c{n}-", 1))
    return corpus


def _agree(backend: OpenSearchIndex, alias: str) -> int:
    record = current_generation(backend, alias)
    backend.refresh(record.name)
    in_index = backend.count(record.name)
    assert in_index == record.chunks, f"index {in_index} vs manifest {record.chunks}"
    return in_index


@pytest.mark.opensearch
def test_back_pressure_is_retried_counted_and_loses_nothing(
    opensearch_url: str, index_prefix: str, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path, copies=2)
    pushback = Pushback(reject_every=3, throttle_items=5)
    with pushing_back(opensearch_url, pushback) as url:
        backend = OpenSearchIndex(OpenSearch(url, timeout=60), bulk_backoff=0.05)
        options = IngestOptions(alias=index_prefix, batch_chunks=40)
        report = ingest(corpus, backend, options)
    assert pushback.rejected_requests > 0 and pushback.throttled_items > 0
    assert report.errors == []
    chunk_items = [key for key in pushback.seen if "#" in key and "::" not in key]
    assert chunk_items and report.throttled >= len(chunk_items)
    assert report.bulk_retries > 0
    direct = OpenSearchIndex(OpenSearch(opensearch_url, timeout=60))
    assert _agree(direct, index_prefix) == report.chunks_written


@pytest.mark.opensearch
def test_a_read_only_index_fails_at_once_in_one_line_and_a_rerun_converges(
    os_client: OpenSearch, opensearch_url: str, index_prefix: str, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path, copies=1)
    backend = OpenSearchIndex(os_client)
    ingest(corpus, backend, IngestOptions(alias=index_prefix))
    generation = current_generation(backend, index_prefix).name
    before = backend.count(generation)
    os_client.indices.put_settings(
        index=generation, body={"index.blocks.read_only_allow_delete": True}
    )
    try:
        for path in sorted(corpus.glob("*.md"))[:5]:
            path.write_text(path.read_text() + "\n\nA new closing paragraph.\n")
        started = time.monotonic()
        with pytest.raises(ClusterError, match=f"index {generation} is read-only") as caught:
            ingest(corpus, backend, IngestOptions(alias=index_prefix))
        assert time.monotonic() - started < 10
        assert "\n" not in str(caught.value)
        result = osrag(
            "ingest", str(corpus), "--alias", index_prefix, "--backend", "opensearch",
            env={"OSRAG_URL": opensearch_url},
        )  # fmt: skip
        assert result.returncode == 4, result.stderr
        assert "read-only" in result.stderr and result.stderr.count("error") == 1
        assert backend.count(generation) == before  # nothing stored was lost
    finally:
        os_client.indices.put_settings(
            index=generation, body={"index.blocks.read_only_allow_delete": None}
        )
    report = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    assert report.documents_changed == 5 and report.errors == []
    _agree(backend, index_prefix)


def test_a_query_the_engine_rejects_is_a_query_error(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    ingest(INSURANCE, backend_case.backend, IngestOptions(alias=backend_case.alias))
    # more terms than any engine here takes: OpenSearch 1024, Elasticsearch 8 derives its
    # limit from heap and search threads (8192 on the 512m test node); short words keep the
    # CLI argument under the kernel's 128 KiB per argument
    words = " ".join(f"w{n:x}" for n in range(10_000))
    with pytest.raises(QueryError, match="more terms than"):
        Searcher(backend_case.backend, backend_case.alias, enforce_access=False).search(words)
    args, env = backend_case.cli()
    result = osrag(
        "search", words, "--tenant", "acme", "--alias", backend_case.alias, *args, env=env
    )
    assert result.returncode == 8, result.stderr
    assert "shorten it" in result.stderr and "Traceback" not in result.stderr
