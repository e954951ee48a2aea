"""Ingest against a real node: idempotent re-runs, incremental sync, generations, rollback,
bad input that loses nothing, per-item failures, crashes and concurrent writers."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch
from typer.testing import CliRunner

from osrag.backends.base import IndexOp, WriteOp, WriteOutcome
from osrag.backends.opensearch import OpenSearchBackend
from osrag.cli import app
from osrag.errors import IndexStateError, LockedError
from osrag.index import IngestOptions, current_generation, ingest, list_generations, rollback
from osrag.models import ChunkingConfig

DATA = Path(__file__).resolve().parent / "data" / "insurance"
pytestmark = pytest.mark.opensearch


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(DATA, target, ignore=shutil.ignore_patterns("*.jsonl", "EXPECTED.md"))
    return target


@pytest.fixture
def backend(os_client: OpenSearch) -> OpenSearchBackend:
    return OpenSearchBackend(os_client)


def _indexing(os_client: OpenSearch, index: str) -> tuple[int, int]:
    stats = os_client.indices.stats(index=index, metric="indexing")["_all"]["primaries"]["indexing"]
    return int(stats["index_total"]), int(stats["delete_total"])


def _ids(os_client: OpenSearch, index: str, doc_id: str | None = None) -> set[str]:
    os_client.indices.refresh(index=index)
    query: dict[str, Any] = {"term": {"doc_id": doc_id}} if doc_id else {"match_all": {}}
    hits = os_client.search(index=index, body={"query": query, "size": 1000, "_source": False})
    return {h["_id"] for h in hits["hits"]["hits"]}


def test_first_ingest_then_a_rerun_writes_nothing(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    options = IngestOptions(alias=index_prefix)
    first = ingest(corpus, backend, options)
    assert first.new_generation and first.alias_moved
    assert first.documents == len(list(corpus.glob("*.md")))
    assert first.documents_added == first.documents
    assert first.chunks_written > first.documents
    assert first.errors == []
    assert backend.alias_target(index_prefix) == first.generation
    assert os_client.count(index=index_prefix)["count"] == first.chunks_written
    before = _indexing(os_client, first.generation)

    second = ingest(corpus, backend, options)
    assert second.generation == first.generation and not second.new_generation
    assert second.documents_unchanged == first.documents
    assert (second.chunks_written, second.chunks_deleted, second.documents_changed) == (0, 0, 0)
    assert _indexing(os_client, first.generation) == before  # the index saw zero writes


def test_editing_one_file_rewrites_only_its_changed_chunks(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    options = IngestOptions(alias=index_prefix)
    first = ingest(corpus, backend, options)
    generation = first.generation
    before_ids = _ids(os_client, generation, "umb-300k-plus")
    others_before = _ids(os_client, generation) - before_ids

    path = corpus / "umb-300k-plus.md"
    text = path.read_text()
    assert "## Retention" in text
    path.write_text(text.replace("## Retention", "## Deductible\n\nA new sentence.\n", 1))

    second = ingest(corpus, backend, options)
    assert (second.documents_changed, second.documents_unchanged) == (1, first.documents - 1)
    after_ids = _ids(os_client, generation, "umb-300k-plus")
    vanished, added = before_ids - after_ids, after_ids - before_ids
    assert vanished and added
    assert second.chunks_written == len(added) and second.chunks_deleted == len(vanished)
    assert _ids(os_client, generation) - after_ids == others_before  # nobody else touched
    for stale in vanished:
        assert not os_client.exists(index=generation, id=stale)
    log = backend.list_changes(index_prefix, generation, "umb-300k-plus")
    assert [c.action for c in log] == ["added", "replaced"]
    assert set(log[-1].old_ids) == before_ids and set(log[-1].new_ids) == after_ids


def test_deleting_a_file_removes_its_chunks_unless_no_prune(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    first = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    doomed = _ids(os_client, first.generation, "renters-30k")
    assert doomed
    (corpus / "renters-30k.md").unlink()

    kept = ingest(corpus, backend, IngestOptions(alias=index_prefix, prune=False))
    assert (
        kept.documents_removed == 0 and _ids(os_client, first.generation, "renters-30k") == doomed
    )

    pruned = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    assert pruned.documents_removed == 1 and pruned.chunks_deleted == len(doomed)
    assert _ids(os_client, first.generation, "renters-30k") == set()
    assert [c.action for c in backend.list_changes(index_prefix, first.generation, "renters-30k")][
        -1
    ] == "deleted"


def test_new_strategy_builds_a_new_generation_and_rollback_returns(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    structural = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    fixed_options = IngestOptions(
        alias=index_prefix, chunking=ChunkingConfig(strategy="fixed", size=40, overlap=8)
    )
    fixed = ingest(corpus, backend, fixed_options)
    assert fixed.new_generation and fixed.alias_moved
    assert fixed.generation != structural.generation
    assert fixed.previous_generation == structural.generation
    assert backend.alias_target(index_prefix) == fixed.generation
    # the old generation is intact
    assert os_client.count(index=structural.generation)["count"] == structural.chunks_written
    assert current_generation(backend, index_prefix).config["chunking"]["strategy"] == "fixed"

    before, after = rollback(backend, index_prefix)
    assert (before, after) == (fixed.generation, structural.generation)
    assert backend.alias_target(index_prefix) == structural.generation
    names = {v.record.name: v for v in list_generations(backend, index_prefix)}
    assert names[structural.generation].current and not names[fixed.generation].current

    # the same config again syncs the kept generation and moves the alias without rebuilding
    again = ingest(corpus, backend, fixed_options)
    assert again.generation == fixed.generation and not again.new_generation
    assert again.chunks_written == 0 and again.alias_moved


def test_keep_limits_the_generations_kept(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    names = []
    for size in (30, 40, 50):
        report = ingest(
            corpus,
            backend,
            IngestOptions(
                alias=index_prefix, keep=2, chunking=ChunkingConfig(strategy="fixed", size=size)
            ),
        )
        names.append(report.generation)
    assert not os_client.indices.exists(index=names[0])
    assert os_client.indices.exists(index=names[1]) and os_client.indices.exists(index=names[2])
    assert [r.name for r in backend.list_generations(index_prefix)] == names[1:]


def test_bad_files_are_reported_and_lose_nothing(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    first = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    kept_ids = _ids(os_client, first.generation, "home-2024")
    # a good file becomes unreadable: its stored chunks must survive the next ingest
    (corpus / "home-2024.md").write_bytes(b"---\nid: home-2024\n---\n\xff\xfe broken utf-8")
    (corpus / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (corpus / "bad-front-matter.md").write_text("---\nid: [unclosed\n---\n# Title\n\nBody.\n")
    (corpus / "new-good.md").write_text(
        "---\nid: new-good\ntenant: acme\n---\n# Fresh\n\nA new $42 policy.\n"
    )

    report = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    bad = {issue.path for issue in report.errors}
    assert bad == {"home-2024.md", "binary.md", "bad-front-matter.md"}
    assert all(issue.reason for issue in report.errors)
    assert report.documents_added == 1 and report.documents_removed == 0
    assert _ids(os_client, first.generation, "home-2024") == kept_ids
    assert _ids(os_client, first.generation, "new-good")

    runner = CliRunner()
    result = runner.invoke(
        app,
        ["ingest", str(corpus), "--alias", index_prefix, "--json", "--backend", "opensearch"],
        env={"OSRAG_URL": _url(os_client)},
    )
    assert result.exit_code == 3, result.output
    assert '"errors"' in result.output and "binary.md" in result.output


def _url(os_client: OpenSearch) -> str:
    host = os_client.transport.hosts[0]
    return f"http://{host['host']}:{host['port']}"


class _RefusingBackend(OpenSearchBackend):
    """The real backend, with one chunk made unacceptable to the real mapping."""

    def __init__(self, client: OpenSearch, doc_id: str) -> None:
        super().__init__(client)
        self.doc_id = doc_id

    @staticmethod
    def _poison(action: dict[str, Any]) -> dict[str, Any]:
        action["_source"]["amounts"] = ["not a number"]
        return action

    def _action(self, op: WriteOp) -> dict[str, Any]:  # type: ignore[override]
        action = OpenSearchBackend._action(op)
        if isinstance(op, IndexOp) and op.chunk.doc_id == self.doc_id:
            return self._poison(action)
        return action


def test_refused_chunks_are_reported_with_their_document_and_retried_next_time(
    corpus: Path, os_client: OpenSearch, index_prefix: str
) -> None:
    refusing = _RefusingBackend(os_client, "umb-300k-landlord")
    report = ingest(corpus, refusing, IngestOptions(alias=index_prefix))
    assert len(report.errors) == 1
    issue = report.errors[0]
    assert issue.path == "umb-300k-landlord.md" and "umb-300k-landlord" in issue.reason
    assert "mapper_parsing_exception" in issue.reason or "parse" in issue.reason

    healthy = OpenSearchBackend(os_client)
    retry = ingest(corpus, healthy, IngestOptions(alias=index_prefix))
    assert retry.documents_added == 1 and retry.errors == []
    assert _ids(os_client, report.generation, "umb-300k-landlord")


class _CrashingBackend(OpenSearchBackend):
    def __init__(self, client: OpenSearch, after: int) -> None:
        super().__init__(client)
        self.after = after

    def write(self, ops: Any) -> WriteOutcome:
        self.after -= 1
        if self.after < 0:
            raise RuntimeError("simulated crash mid-build")
        return super().write(ops)


def test_a_crash_mid_build_leaves_the_alias_and_a_rerun_completes(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    first = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    small_batches = IngestOptions(
        alias=index_prefix, chunking=ChunkingConfig(strategy="fixed", size=20), batch_chunks=5
    )
    with pytest.raises(RuntimeError, match="simulated crash"):
        ingest(corpus, _CrashingBackend(os_client, after=2), small_batches)
    assert backend.alias_target(index_prefix) == first.generation  # readers never saw it
    building = [r for r in backend.list_generations(index_prefix) if r.state == "building"]
    assert len(building) == 1

    done = ingest(corpus, backend, small_batches)
    assert done.generation == building[0].name and done.alias_moved
    assert done.documents_unchanged > 0  # the documents written before the crash were kept
    assert (
        os_client.count(index=index_prefix)["count"]
        == current_generation(backend, index_prefix).chunks
    )


def test_two_concurrent_ingests_never_interleave(
    corpus: Path, os_client: OpenSearch, index_prefix: str
) -> None:
    results: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    def run(name: str) -> None:
        backend = OpenSearchBackend(OpenSearch(_url(os_client)))
        barrier.wait()
        try:
            results[name] = ingest(corpus, backend, IngestOptions(alias=index_prefix))
        except LockedError as exc:
            results[name] = exc

    threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    outcomes = sorted(type(r).__name__ for r in results.values())
    assert outcomes in (["IngestReport", "LockedError"], ["IngestReport", "IngestReport"])
    locked = [r for r in results.values() if isinstance(r, LockedError)]
    if locked:
        assert "another ingest holds the lock" in str(locked[0])
    backend = OpenSearchBackend(os_client)
    record = current_generation(backend, index_prefix)
    assert os_client.count(index=index_prefix)["count"] == record.chunks
    assert len(backend.list_generations(index_prefix)) == 1


def test_a_waiting_ingest_gets_the_lock_when_it_is_released(
    corpus: Path, backend: OpenSearchBackend, index_prefix: str
) -> None:
    import datetime as dt

    holder = "someone-else"
    assert backend.try_lock(index_prefix, holder, dt.timedelta(minutes=5)) is None
    with pytest.raises(LockedError, match="someone-else"):
        ingest(corpus, backend, IngestOptions(alias=index_prefix))
    timer = threading.Timer(1.0, backend.release_lock, args=(index_prefix, holder))
    timer.start()
    report = ingest(corpus, backend, IngestOptions(alias=index_prefix, lock_wait=20))
    assert report.documents > 0
    # a stale lock is taken over
    assert backend.try_lock(index_prefix, holder, dt.timedelta(seconds=-1)) is None
    assert ingest(corpus, backend, IngestOptions(alias=index_prefix)).documents_unchanged > 0


def test_dry_run_reports_without_writing(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    dry = ingest(corpus, backend, IngestOptions(alias=index_prefix, dry_run=True))
    assert dry.dry_run and dry.documents_added == dry.documents and dry.chunks_written > 0
    assert backend.alias_target(index_prefix) is None
    assert not os_client.indices.exists(index=dry.generation)
    real = ingest(corpus, backend, IngestOptions(alias=index_prefix))
    assert real.chunks_written == dry.chunks_written


def test_an_alias_that_is_a_plain_index_is_refused(
    corpus: Path, backend: OpenSearchBackend, os_client: OpenSearch, index_prefix: str
) -> None:
    os_client.indices.create(index=index_prefix)
    with pytest.raises(IndexStateError, match="concrete index"):
        ingest(corpus, backend, IngestOptions(alias=index_prefix))
