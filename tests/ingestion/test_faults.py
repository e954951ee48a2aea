"""Faults an operator meets, against the real engine: back-pressure, a read-only index,
a query the engine rejects. Each ends with the index and the manifest agreeing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, Delegating, open_case
from clirun import osrag
from faultproxy import Pushback, pushing_back
from opensearchpy import OpenSearch

from osrag.engines.mapping import manifest_index, manifest_index_body
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.errors import ClusterError, QueryError
from osrag.ingestion.generations import repair, status
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.models import ChunkingConfig
from osrag.search.searcher import Searcher

INSURANCE = Path(__file__).resolve().parents[2] / "examples" / "insurance"


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
    # CLI argument under the kernel's 128 KiB per argument;
    # letters only: a query with thousands of figures is refused before the engine sees it
    words = " ".join("w" + "".join(chr(97 + int(d)) for d in str(n)) for n in range(10_000))
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
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.ingest import IngestOptions, ingest
from opensearchpy import OpenSearch

kind, where, corpus, alias = sys.argv[1:5]
if kind == "opensearch":
    engine = OpenSearchIndex(OpenSearch(where))
elif kind == "elasticsearch":
    from elasticsearch import Elasticsearch
    from osrag.engines.elasticsearch.index import ElasticsearchIndex
    engine = ElasticsearchIndex(Elasticsearch(where))
elif kind == "embedded":
    engine = EmbeddedIndex(where)
else:
    sys.exit(f"unknown engine kind {kind!r}")

class KilledAfterTheBulk(Delegating):
    def write(self, generation, actions):
        outcome = self.inner.write(generation, actions)  # the chunks land in the index ...
        os.kill(os.getpid(), signal.SIGKILL)  # ... and the manifest never hears of them
        return outcome

fresh = sys.argv[5:] == ["--new-generation"]
options = IngestOptions(alias=alias, batch_chunks=5 if fresh else 10**6, new_generation=fresh)
ingest(Path(corpus), KilledAfterTheBulk(engine), options)
"""


def _killed_after_its_first_write(
    case: BackendCase, corpus: Path, tmp_path: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    """A real ingest process SIGKILLed right after its first bulk write."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_AFTER_WRITE,
            case.kind,
            case.location(),
            str(corpus),
            case.alias,
            *flags,
        ],
        # a relative path the child builds by mistake lands in tmp_path, not in the repository
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), *sys.path]),
        },
        timeout=300,
        capture_output=True,
        text=True,
    )


def test_repair_discards_a_half_built_generation_and_status_says_the_truth(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    """A ``--new-generation`` ingest killed mid-build leaves a half-built generation that
    plain ingests never complete (they sync the current one in place): ``repair`` drops
    it with its record, and status has nothing left to report, then or after ingests."""
    corpus = _corpus(tmp_path, copies=1)
    index, alias = backend_case.backend, backend_case.alias
    ingest(corpus, index, IngestOptions(alias=alias))
    current = current_generation(index, alias).name
    killed = _killed_after_its_first_write(backend_case, corpus, tmp_path, "--new-generation")
    assert killed.returncode == -9, killed.stderr
    found = status(index, alias)
    (half,) = found.building
    assert half != current and half in index.generations(alias)
    assert any(half in p and "index repair" in p for p in found.problems), found.problems
    ingest(corpus, index, IngestOptions(alias=alias))  # a plain ingest: in place, not it
    assert status(index, alias).building == [half]
    report = repair(index, alias)
    assert report.generations_discarded == [half] and report.generation == current
    assert half not in index.generations(alias)
    assert half not in {r.name for r in backend_case.manifest().generations()}
    for _ in range(2):
        ingest(corpus, index, IngestOptions(alias=alias))
        after = status(index, alias)
        assert after.building == [] and after.problems == [] and after.consistent, after
    assert index.alias_target(alias) == current
    assert repair(index, alias).generations_discarded == []


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
    corpus = _corpus(tmp_path, copies=1)
    index, alias = backend_case.backend, backend_case.alias
    ingest(corpus, index, IngestOptions(alias=alias))
    _edit_every_file(corpus, "", "The fee is set by edition one.")
    killed = _killed_after_its_first_write(backend_case, corpus, tmp_path)
    assert killed.returncode == -9, killed.stderr
    _edit_every_file(corpus, "edition one", "edition two")
    started = time.monotonic()
    report = ingest(corpus, index, IngestOptions(alias=alias))
    blocked = time.monotonic() - started
    # the chunks the killed ingest wrote are gone: deleted as the ids it announced in the
    # manifest before writing them, or (an ingest from before that) found as orphans
    assert report.errors == [] and report.orphans_deleted + report.chunks_deleted > 0
    record = current_generation(index, alias)
    index.refresh(record.name)
    assert (
        index.count(record.name)
        == record.chunks
        == sum(len(r.chunk_ids) for r in backend_case.manifest().documents(record.name))
    )
    hits = Searcher(index, alias, enforce_access=False).search("fee edition", k=500).hits
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
    from osrag.ingestion.generations import status

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


CLUSTER_PARAMS = [p for p in BACKEND_PARAMS if p != "embedded"]


def _one_shard_unplaced(client: Any, index: str, body: dict[str, Any] | None = None) -> int:
    """Create ``index`` with one primary shard more than the cluster has data nodes, each
    node allowed one: that shard stays unassigned, as one whose node died before any copy
    moved does. Returns the number of shards."""
    nodes = int(client.cluster.health()["number_of_data_nodes"])
    body = dict(body or {})
    body["settings"] = {
        "index": {
            "number_of_shards": nodes + 1,
            "number_of_replicas": 0,
            "routing": {"allocation": {"total_shards_per_node": 1}},
        }
    }
    client.indices.create(index=index, body=body, wait_for_active_shards="0")
    wanted = ["STARTED"] * nodes + ["UNASSIGNED"]
    deadline = time.monotonic() + 60
    while _states(client, index) != wanted:
        assert time.monotonic() < deadline, _states(client, index)
        time.sleep(0.1)
    return nodes + 1


def _states(client: Any, index: str) -> list[str]:
    return sorted(r["state"] for r in client.cat.shards(index=index, format="json"))


@pytest.mark.parametrize("kind", CLUSTER_PARAMS)
def test_a_shard_no_node_holds_fails_the_read_and_never_shrinks_it(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    prefix = request.getfixturevalue("index_prefix" if kind == "opensearch" else "es_index_prefix")
    case = open_case(request, kind, tmp_path, prefix)
    engine: Any = case.backend
    engine.shard_retry_pauses = (0.1, 0.2)
    client = engine.client
    partial = f"{prefix}-partial"
    shards = _one_shard_unplaced(client, partial)
    short = f"only {shards - 1} of {shards} shards"

    # a search and a count some shard did not answer are errors, not smaller answers
    started = time.monotonic()
    with pytest.raises(ClusterError, match=rf"{short} of {partial} answered") as caught:
        engine.msearch(partial, [{"query": {"match_all": {}}}])
    assert "retries" in str(caught.value) and time.monotonic() - started >= 0.3
    with pytest.raises(ClusterError, match=short):
        engine.count(partial)

    # the manifest read by key: a record on the missing shard is an error, never "absent"
    alias = f"{prefix}-records"
    _one_shard_unplaced(client, manifest_index(alias), manifest_index_body())
    with pytest.raises(ClusterError, match="nothing was read as absent"):
        engine.records(alias).get_many("document", [f"doc-{n}" for n in range(100)])
    with pytest.raises(ClusterError, match=rf"nothing was read as absent|{short}"):
        list(engine.records(alias).scan("document"))

    # a shard that comes back while the read retries gives the whole answer
    engine.shard_retry_pauses = (0.5, 1.0, 2.0, 4.0)
    lift = threading.Timer(
        0.2,
        lambda: client.indices.put_settings(
            index=partial, body={"index.routing.allocation.total_shards_per_node": None}
        ),
    )
    lift.start()
    try:
        (answer,) = engine.msearch(partial, [{"query": {"match_all": {}}}])
    finally:
        lift.join()
    assert answer["_shards"]["successful"] == answer["_shards"]["total"] == shards


@pytest.mark.parametrize("kind", CLUSTER_PARAMS)
def test_a_query_that_fails_on_a_shard_is_a_query_error(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Part of an index answering because the query failed on the rest is the query's
    fault (exit 8), reported at once: retrying cannot help."""
    prefix = request.getfixturevalue("index_prefix" if kind == "opensearch" else "es_index_prefix")
    case = open_case(request, kind, tmp_path, prefix)
    engine: Any = case.backend
    client = engine.client
    client.indices.create(
        index=f"{prefix}-a", body={"mappings": {"properties": {"n": {"type": "long"}}}}
    )
    client.indices.create(
        index=f"{prefix}-b", body={"mappings": {"properties": {"n": {"type": "keyword"}}}}
    )
    started = time.monotonic()
    with pytest.raises(QueryError, match="rejected the query"):
        engine.msearch(f"{prefix}-a,{prefix}-b", [{"query": {"term": {"n": "not-a-number"}}}])
    assert time.monotonic() - started < sum(engine.shard_retry_pauses)  # not retried
