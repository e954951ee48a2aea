"""Faults an operator meets, against the real engine: back-pressure, a read-only index,
a query the engine rejects. Each ends with the index and the manifest agreeing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, Delegating
from clirun import osrag
from faultproxy import Pushback, pushing_back
from opensearchpy import OpenSearch

from osrag.backends.opensearch import OpenSearchIndex
from osrag.errors import ClusterError, QueryError
from osrag.index import IngestOptions, current_generation, ingest
from osrag.models import ChunkingConfig
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
        failed_after = time.monotonic() - started
        assert failed_after < 10
        assert "\n" not in str(caught.value)
        print(f"\nread-only index: the ingest failed after {failed_after:.2f} s")
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


_KILLED_AFTER_WRITE = """
import os, signal, sys
from pathlib import Path
from backend_cases import Delegating
from osrag.backends.embedded import EmbeddedIndex
from osrag.backends.opensearch import OpenSearchIndex
from osrag.index import IngestOptions, ingest
from opensearchpy import OpenSearch

kind, where, corpus, alias = sys.argv[1:5]
if kind == "opensearch":
    engine = OpenSearchIndex(OpenSearch(where))
elif kind == "elasticsearch":
    from elasticsearch import Elasticsearch
    from osrag.backends.elasticsearch import ElasticsearchIndex
    engine = ElasticsearchIndex(Elasticsearch(where))
else:
    engine = EmbeddedIndex(where)

class KilledAfterTheBulk(Delegating):
    def write(self, generation, actions):
        outcome = self.inner.write(generation, actions)  # the chunks land in the index ...
        os.kill(os.getpid(), signal.SIGKILL)  # ... and the manifest never hears of them
        return outcome

ingest(Path(corpus), KilledAfterTheBulk(engine), IngestOptions(alias=alias, batch_chunks=10**6))
"""


def _edit_every_file(corpus: Path, old: str, new: str) -> None:
    """Replace ``old`` (or, when absent, the first section heading's line end) by ``new``."""
    for path in sorted(corpus.glob("*.md")):
        text = path.read_text()
        if old in text:
            text = text.replace(old, new)
        else:
            head = text.index("\n## ")
            end = text.index("\n", head + 1)
            text = f"{text[:end]}\n\n{new}\n{text[end:]}"
        path.write_text(text)


def test_an_ingest_killed_after_its_bulk_then_a_second_edit_leaves_no_stale_chunk(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    """The crash-and-edit sequence: a SIGKILL between a bulk write and its manifest record,
    then the same files edited again, then a rerun: the index holds exactly the manifest."""
    import subprocess
    import sys

    corpus = _corpus(tmp_path, copies=1)
    index, alias = backend_case.backend, backend_case.alias
    ingest(corpus, index, IngestOptions(alias=alias))
    _edit_every_file(corpus, "", "The fee is set by edition one.")
    where = backend_case.url if backend_case.kind != "embedded" else str(backend_case.home)
    if backend_case.kind == "embedded":
        where = str(Path(where) / "embedded")
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_AFTER_WRITE, backend_case.kind, where, str(corpus), alias],
        cwd=Path(__file__).parent,
        timeout=300,
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -9, killed.stderr
    _edit_every_file(corpus, "edition one", "edition two")
    started = time.monotonic()
    report = ingest(corpus, index, IngestOptions(alias=alias))
    blocked = time.monotonic() - started
    assert report.errors == [] and report.orphans_deleted > 0
    record = current_generation(index, alias)
    index.refresh(record.name)
    assert (
        index.count(record.name)
        == record.chunks
        == sum(len(r.chunk_ids) for r in backend_case.manifest().documents(record.name))
    )
    hits = Searcher(index, alias, enforce_access=False).search("fee edition", size=500).hits
    assert hits and not any("edition one" in h.body for h in hits)
    assert any("edition two" in h.body for h in hits)
    assert blocked < 120  # the dead owner's lock was broken at once, not after its TTL
    print(f"\n{backend_case.kind}: orphans deleted {report.orphans_deleted}, rerun {blocked:.1f} s")


@pytest.mark.opensearch
def test_a_node_killed_mid_build_leaves_the_alias_and_a_rerun_converges(
    tmp_path: Path, index_prefix: str
) -> None:
    """A dedicated node is SIGKILLed while a new generation is being built: the ingest fails
    with a cluster error, status names the half-built generation and the lock, and after the
    node is back the next ingest completes the build with index = manifest."""
    import os
    import signal

    from osrag import node
    from osrag.generations import status

    port = int(os.environ.get("OSRAG_TEST_FAULT_PORT", "9231"))
    started = node.start(port=port, transport_port=port + 100)
    url = started.url
    corpus = _corpus(tmp_path, copies=3)
    alias = index_prefix
    try:
        index = OpenSearchIndex(OpenSearch(url, timeout=30, max_retries=0))
        first = ingest(corpus, index, IngestOptions(alias=alias))
        fixed = IngestOptions(
            alias=alias, chunking=ChunkingConfig(strategy="fixed", size=20), batch_chunks=50
        )

        class KillTheNode(Delegating):
            writes = 0

            def write(self, generation: str, actions: Any) -> Any:
                KillTheNode.writes += 1
                if KillTheNode.writes == 3:
                    os.kill(node.status(port=port).pid or 0, signal.SIGKILL)
                return self.inner.write(generation, actions)

        with pytest.raises(ClusterError):
            ingest(corpus, KillTheNode(index), fixed)
        node.start(port=port, transport_port=port + 100)  # the same data folder
        index = OpenSearchIndex(OpenSearch(url, timeout=60))
        assert index.alias_target(alias) == first.generation  # readers never saw the build
        found = status(index, alias)
        assert found.building and any("half-built" in p for p in found.problems)
        assert any("lock" in p for p in found.problems)
        done = ingest(corpus, index, fixed)
        assert done.alias_moved and done.generation == found.building[0]
        record = current_generation(index, alias)
        assert index.count(record.name) == record.chunks
        assert not status(index, alias).problems
    finally:
        node.stop(port=port)
