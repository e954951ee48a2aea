"""Ingest on both backends: idempotent re-runs, incremental sync, generations, rollback,
bad input that loses nothing, per-item failures, crashes and concurrent writers.

Every test runs on OpenSearch and on the embedded index (``backend_case``); the
checks go through the ``ChunkIndex`` interface. Tests about one engine itself (a
concrete index named like the alias; a foreign folder) say so in their name.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from backend_cases import ENGLISH_ANALYZER_PARAMS, BackendCase, Delegating
from opensearchpy import OpenSearch
from typer.testing import CliRunner

from osrag.cli import app
from osrag.engines.base import Put, WriteOutcome
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.errors import IndexStateError, LockedError
from osrag.ingestion.ingest import (
    IngestOptions,
    current_generation,
    ingest,
    list_generations,
    rollback,
)
from osrag.ingestion.lock import IngestLock
from osrag.models import ChunkingConfig
from osrag.schema.filters import Filter
from osrag.search.searcher import Searcher

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(DATA, target, ignore=shutil.ignore_patterns("*.jsonl", "EXPECTED.md"))
    return target


def test_first_ingest_then_a_rerun_writes_nothing(corpus: Path, backend_case: BackendCase) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    options = IngestOptions(alias=alias)
    first = ingest(corpus, backend, options)
    assert first.new_generation and first.alias_moved
    assert first.documents == len(list(corpus.glob("*.md")))
    assert first.documents_added == first.documents
    assert first.chunks_written > first.documents
    assert first.errors == []
    assert backend.alias_target(alias) == first.generation
    assert backend.count(alias) == first.chunks_written
    before = backend_case.writes_seen(first.generation)

    second = ingest(corpus, backend, options)
    assert second.generation == first.generation and not second.new_generation
    assert second.documents_unchanged == first.documents
    assert (second.chunks_written, second.chunks_deleted, second.documents_changed) == (0, 0, 0)
    assert backend_case.writes_seen(first.generation) == before  # the index saw zero writes


def test_editing_one_file_rewrites_only_its_chunks_each_at_the_new_version(
    corpus: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    options = IngestOptions(alias=alias)
    first = ingest(corpus, backend, options)
    generation = first.generation
    before_ids = backend_case.chunk_ids(generation, "umb-300k-plus")
    others_before = backend_case.chunk_ids(generation) - before_ids

    path = corpus / "umb-300k-plus.md"
    text = path.read_text()
    assert "## Retention" in text
    path.write_text(text.replace("## Retention", "## Deductible\n\nA new sentence.\n", 1))

    second = ingest(corpus, backend, options)
    assert (second.documents_changed, second.documents_unchanged) == (1, first.documents - 1)
    after_ids = backend_case.chunk_ids(generation, "umb-300k-plus")
    vanished, added = before_ids - after_ids, after_ids - before_ids
    assert vanished and added
    # every chunk of the edited file is written, the kept ids too: the heading inserted
    # above them moved their spans, and each record carries the new source version
    assert second.chunks_written == len(after_ids) and second.chunks_deleted == len(vanished)
    edited = path.read_text()
    versions = set()
    for chunk_id in after_ids:
        stored = backend_case.source(generation, chunk_id)
        versions.add(stored["source_version"])
        start, end = stored["span"]["start"], stored["span"]["end"]
        assert edited[start:end].strip() == stored["body"]
    assert len(versions) == 1 and versions != {
        backend_case.source(generation, c)["source_version"] for c in others_before
    }
    all_after = backend_case.chunk_ids(generation)
    assert all_after - after_ids == others_before  # nobody else touched
    for stale in vanished:
        assert stale not in all_after
    log = backend_case.manifest().changes(generation, "umb-300k-plus")
    assert [c.action for c in log] == ["added", "replaced"]
    assert set(log[-1].old_ids) == before_ids and set(log[-1].new_ids) == after_ids


def test_deleting_a_file_removes_its_chunks_unless_no_prune(
    corpus: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    first = ingest(corpus, backend, IngestOptions(alias=alias))
    doomed = backend_case.chunk_ids(first.generation, "renters-30k")
    assert doomed
    (corpus / "renters-30k.md").unlink()

    kept = ingest(corpus, backend, IngestOptions(alias=alias, prune=False))
    assert kept.documents_removed == 0
    assert backend_case.chunk_ids(first.generation, "renters-30k") == doomed

    pruned = ingest(corpus, backend, IngestOptions(alias=alias))
    assert pruned.documents_removed == 1 and pruned.chunks_deleted == len(doomed)
    assert backend_case.chunk_ids(first.generation, "renters-30k") == set()
    log = backend_case.manifest().changes(first.generation, "renters-30k")
    assert [c.action for c in log][-1] == "deleted"


def test_new_strategy_builds_a_new_generation_and_rollback_returns(
    corpus: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    structural = ingest(corpus, backend, IngestOptions(alias=alias))
    fixed_options = IngestOptions(
        alias=alias, chunking=ChunkingConfig(strategy="fixed", size=40, overlap=8)
    )
    fixed = ingest(corpus, backend, fixed_options)
    assert fixed.new_generation and fixed.alias_moved
    assert fixed.generation != structural.generation
    assert fixed.previous_generation == structural.generation
    assert backend.alias_target(alias) == fixed.generation
    # the old generation is intact
    assert backend.count(structural.generation) == structural.chunks_written
    assert current_generation(backend, alias).config["chunking"]["strategy"] == "fixed"

    before, after = rollback(backend, alias)
    assert (before, after) == (fixed.generation, structural.generation)
    assert backend.alias_target(alias) == structural.generation
    names = {v.record.name: v for v in list_generations(backend, alias)}
    assert names[structural.generation].current and not names[fixed.generation].current

    # the same config again syncs the kept generation and moves the alias without rebuilding
    again = ingest(corpus, backend, fixed_options)
    assert again.generation == fixed.generation and not again.new_generation
    assert again.chunks_written == 0 and again.alias_moved


def test_keep_limits_the_generations_kept(corpus: Path, backend_case: BackendCase) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    names = []
    for size in (30, 40, 50):
        report = ingest(
            corpus,
            backend,
            IngestOptions(
                alias=alias, keep=2, chunking=ChunkingConfig(strategy="fixed", size=size)
            ),
        )
        names.append(report.generation)
    assert backend.generations(alias) == set(names[1:])
    assert [r.name for r in backend_case.manifest().generations()] == names[1:]


def test_bad_files_are_reported_and_lose_nothing(corpus: Path, backend_case: BackendCase) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    first = ingest(corpus, backend, IngestOptions(alias=alias))
    kept_ids = backend_case.chunk_ids(first.generation, "home-2024")
    # a good file becomes unreadable: its stored chunks must survive the next ingest
    (corpus / "home-2024.md").write_bytes(b"---\nid: home-2024\n---\n\xff\xfe broken utf-8")
    (corpus / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (corpus / "bad-front-matter.md").write_text("---\nid: [unclosed\n---\n# Title\n\nBody.\n")
    (corpus / "new-good.md").write_text(
        "---\nid: new-good\ntenant: acme\n---\n# Fresh\n\nA new $42 policy.\n"
    )

    report = ingest(corpus, backend, IngestOptions(alias=alias))
    bad = {issue.path for issue in report.errors}
    assert bad == {"home-2024.md", "binary.md", "bad-front-matter.md"}
    assert all(issue.reason for issue in report.errors)
    assert report.documents_added == 1 and report.documents_removed == 0
    assert backend_case.chunk_ids(first.generation, "home-2024") == kept_ids
    assert backend_case.chunk_ids(first.generation, "new-good")

    args, env = backend_case.cli()
    result = CliRunner().invoke(
        app, ["ingest", str(corpus), "--alias", alias, "--json", *args], env=env
    )
    assert result.exit_code == 3, result.output
    assert '"errors"' in result.output and "binary.md" in result.output


class _Refusing(Delegating):
    """A real engine, with one document's chunks made unacceptable to the real mapping."""

    doc_id = "umb-300k-landlord"

    def write(self, generation: str, actions: Any) -> WriteOutcome:
        poisoned = [
            Put(a.id, {**a.source, "amounts": ["not a number"]})
            if isinstance(a, Put) and a.source["doc_id"] == self.doc_id
            else a
            for a in actions
        ]
        return self.inner.write(generation, poisoned)


def test_refused_chunks_are_reported_with_their_document_and_retried_next_time(
    corpus: Path, backend_case: BackendCase
) -> None:
    alias = backend_case.alias
    refusing = _Refusing(backend_case.build())
    report = ingest(corpus, refusing, IngestOptions(alias=alias))
    refusing.close()
    assert len(report.errors) == 1
    issue = report.errors[0]
    assert issue.path == "umb-300k-landlord.md" and "umb-300k-landlord" in issue.reason
    assert "mapper_parsing_exception" in issue.reason or "parse" in issue.reason

    healthy = backend_case.build()
    retry = ingest(corpus, healthy, IngestOptions(alias=alias))
    assert retry.documents_added == 1 and retry.errors == []
    assert backend_case.chunk_ids(report.generation, "umb-300k-landlord")


class _Crashing(Delegating):
    """A real engine that dies (raises) at its ``after``-th bulk write."""

    def __init__(self, inner: Any, after: int) -> None:
        super().__init__(inner)
        self.remaining = after

    def write(self, generation: str, actions: Any) -> WriteOutcome:
        self.remaining -= 1
        if self.remaining < 0:
            raise RuntimeError("simulated crash mid-build")
        return self.inner.write(generation, actions)


def test_a_crash_mid_build_leaves_the_alias_and_a_rerun_completes(
    corpus: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    first = ingest(corpus, backend, IngestOptions(alias=alias))
    small_batches = IngestOptions(
        alias=alias, chunking=ChunkingConfig(strategy="fixed", size=20), batch_chunks=5
    )
    with pytest.raises(RuntimeError, match="simulated crash"):
        ingest(corpus, _Crashing(backend_case.build(), after=2), small_batches)
    assert backend.alias_target(alias) == first.generation  # readers never saw it
    building = [r for r in backend_case.manifest().generations() if r.state == "building"]
    assert len(building) == 1

    done = ingest(corpus, backend, small_batches)
    assert done.generation == building[0].name and done.alias_moved
    assert done.documents_unchanged > 0  # the documents written before the crash were kept
    assert backend.count(alias) == current_generation(backend, alias).chunks


def test_two_concurrent_ingests_never_interleave(corpus: Path, backend_case: BackendCase) -> None:
    alias = backend_case.alias
    results: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    def run(name: str) -> None:
        backend = backend_case.build()
        barrier.wait()
        try:
            results[name] = ingest(corpus, backend, IngestOptions(alias=alias))
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
    backend = backend_case.backend
    record = current_generation(backend, alias)
    assert backend.count(alias) == record.chunks
    assert len(backend_case.manifest().generations()) == 1


def test_a_waiting_ingest_gets_the_lock_when_it_is_released(
    corpus: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    other = IngestLock(backend.records(alias), alias)
    other.__enter__()  # another live ingest of this process
    with pytest.raises(LockedError, match="another ingest holds the lock"):
        ingest(corpus, backend, IngestOptions(alias=alias))
    timer = threading.Timer(1.0, other.__exit__, args=(None, None, None))
    timer.start()
    report = ingest(corpus, backend, IngestOptions(alias=alias, lock_wait=20))
    assert report.documents > 0 and report.lock_wait_seconds >= 0.5
    assert report.seconds < report.lock_wait_seconds + 60


def test_dry_run_prints_the_plan_without_writing(corpus: Path, backend_case: BackendCase) -> None:
    import json

    backend, alias = backend_case.backend, backend_case.alias
    args, env = backend_case.cli()
    result = CliRunner().invoke(
        app, ["ingest", str(corpus), "--alias", alias, "--dry-run", "--json", *args], env=env
    )
    assert result.exit_code == 0, result.output
    dry = json.loads(result.stdout)  # the plan osrag plan prints
    assert dry["current_generation"] is None and dry["new_generation"]
    assert dry["documents"]["new"] > 0 and dry["documents"]["removed"] == 0
    assert dry["chunks"]["to_write"] > 0
    assert backend.alias_target(alias) is None
    assert backend.generations(alias) == set()
    real = ingest(corpus, backend, IngestOptions(alias=alias))
    assert real.chunks_written == dry["chunks"]["to_write"]
    assert real.documents_added == dry["documents"]["new"]


@pytest.mark.opensearch
def test_opensearch_an_alias_that_is_a_plain_index_is_refused(
    corpus: Path, os_client: OpenSearch, index_prefix: str
) -> None:
    os_client.indices.create(index=index_prefix)
    with pytest.raises(IndexStateError, match="concrete index"):
        ingest(corpus, OpenSearchIndex(os_client), IngestOptions(alias=index_prefix))


def test_embedded_an_alias_that_is_a_foreign_folder_is_refused(
    corpus: Path, tmp_path: Path
) -> None:
    root = tmp_path / "index"
    (root / "osrag-chunks").mkdir(parents=True)
    (root / "osrag-chunks" / "notes.txt").write_text("somebody else's files")
    with pytest.raises(IndexStateError, match="not an osrag embedded index") as caught:
        ingest(corpus, EmbeddedIndex(root), IngestOptions(alias="osrag-chunks"))
    assert str(root / "osrag-chunks") in str(caught.value)
    assert (root / "osrag-chunks" / "notes.txt").read_text() == "somebody else's files"


def test_index_commands_print_the_same_json_shape_on_both_backends(
    corpus: Path, backend_case: BackendCase
) -> None:
    import json

    from osrag.ingestion.generations import GenerationView, IndexStatus

    alias = backend_case.alias
    first = ingest(corpus, backend_case.backend, IngestOptions(alias=alias))
    args, env = backend_case.cli()
    runner = CliRunner()
    status = runner.invoke(app, ["index", "status", "--alias", alias, "--json", *args], env=env)
    assert status.exit_code == 0, status.output
    found = IndexStatus.model_validate_json(status.stdout)
    assert found.generation is not None and found.consistent
    assert (found.generation.name, found.chunks_in_index) == (
        first.generation,
        first.chunks_written,
    )
    listed = runner.invoke(app, ["index", "list", "--alias", alias, "--json", *args], env=env)
    assert listed.exit_code == 0, listed.output
    [view] = [GenerationView.model_validate(v) for v in json.loads(listed.stdout)]
    assert view.current and view.record.name == first.generation


def test_days_far_from_now_are_stored_and_filtered(corpus: Path, backend_case: BackendCase) -> None:
    import datetime as dt

    from osrag.search.searcher import Searcher

    (corpus / "far-future.md").write_text(
        "---\nid: far-future\neffective_from: 2999-01-01\n---\n# Far future umbrella\n\n"
        "An umbrella policy in force from 2999 that names the year 4322 and 1066-10-14.\n"
    )
    report = ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    assert report.errors == []
    searcher = Searcher(backend_case.backend, backend_case.alias, enforce_access=False)

    def docs(day: dt.date) -> set[str]:
        hits = searcher.search("umbrella policy", as_of=day, tenant=None, k=100).hits
        return {h.doc_id for h in hits}

    assert "far-future" not in docs(dt.date(2024, 1, 1))
    assert "far-future" in docs(dt.date(3000, 1, 1))


@pytest.mark.parametrize("backend_case", ENGLISH_ANALYZER_PARAMS, indirect=True)
def test_the_analyzer_is_part_of_the_generation(corpus: Path, backend_case: BackendCase) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    english = ingest(corpus, backend, IngestOptions(alias=alias))
    standard = ingest(corpus, backend, IngestOptions(alias=alias, analyzer="standard"))
    assert standard.new_generation and standard.generation != english.generation
    searcher = Searcher(backend, alias, enforce_access=False)

    # "policies" meets "policy" only through the English stemmer
    def words(hit: Any) -> str:
        return f"{hit.breadcrumb} {hit.body}".lower()

    unstemmed = searcher.search("policies", amount_filter=False, k=50)
    assert all("policies" in words(h) for h in unstemmed.hits)
    rollback(backend, alias)
    stemmed = Searcher(backend, alias, enforce_access=False).search(
        "policies", amount_filter=False, k=50
    )
    assert any("policies" not in words(h) and "policy" in words(h) for h in stemmed.hits)


def test_worker_processes_prepare_the_same_chunks_in_the_same_order(corpus: Path) -> None:
    from osrag.ingestion.pipeline import prepare_stream
    from osrag.loaders.corpus import load_corpus
    from osrag.models import Document

    docs = [d for d in load_corpus(corpus) if isinstance(d, Document)]
    config = ChunkingConfig(strategy="fixed", size=25, overlap=5)
    inline = list(prepare_stream(docs, config, workers=1))
    pooled = list(prepare_stream(docs, config, workers=2, pool_after=0))
    assert [d.doc_id for d, _ in pooled] == [d.doc_id for d in docs]
    assert [chunks for _, chunks in pooled] == [chunks for _, chunks in inline]
    assert any(c.amounts for _, chunks in pooled for c in chunks)  # extraction ran in the workers


def test_many_batches_are_written_completely(corpus: Path, backend_case: BackendCase) -> None:
    """Small batches: every writer thread the backend allows is busy, nothing is lost."""
    backend, alias = backend_case.backend, backend_case.alias
    options = IngestOptions(
        alias=alias, chunking=ChunkingConfig(strategy="fixed", size=12, overlap=4), batch_chunks=7
    )
    report = ingest(corpus, backend, options)
    assert report.errors == [] and report.chunks_written > 70
    assert backend.count(report.generation) == report.chunks_written
    assert current_generation(backend, alias).chunks == report.chunks_written


class _CountThatLies(Delegating):
    """A real engine whose count is off by one: the kind of disagreement a swap must catch."""

    def count(self, target: str, filter: Filter | None = None) -> int:
        return self.inner.count(target, filter) + 1


def test_a_generation_whose_count_disagrees_is_never_swapped_in(
    corpus: Path, backend_case: BackendCase
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    first = ingest(corpus, backend, IngestOptions(alias=alias))
    fixed = IngestOptions(alias=alias, chunking=ChunkingConfig(strategy="fixed", size=30))
    with pytest.raises(IndexStateError, match="manifest lists"):
        ingest(corpus, _CountThatLies(backend_case.build()), fixed)
    assert backend.alias_target(alias) == first.generation  # the alias did not move
    building = [r for r in backend_case.manifest().generations() if r.state == "building"]
    assert len(building) == 1  # left for the next ingest to complete
    done = ingest(corpus, backend, fixed)
    assert done.generation == building[0].name and done.alias_moved


def test_a_metadata_only_edit_rewrites_the_chunks_so_access_follows_it(
    corpus: Path, backend_case: BackendCase
) -> None:
    """Chunk ids cover the text, not the ACL: narrowing an ACL in front matter alone must
    still reach every stored chunk, or the old readers keep reading."""
    backend, alias = backend_case.backend, backend_case.alias
    path = corpus / "umb-300k-plus.md"
    text = path.read_text()
    assert "acl: [agents]" in text
    first = ingest(corpus, backend, IngestOptions(alias=alias))
    ids = backend_case.chunk_ids(first.generation, "umb-300k-plus")
    path.write_text(text.replace("acl: [agents]", "acl: [underwriters]"))
    again = ingest(corpus, backend, IngestOptions(alias=alias))
    assert again.documents_changed == 1 and again.chunks_written == len(ids)
    assert backend_case.chunk_ids(first.generation, "umb-300k-plus") == ids  # same ids
    for chunk_id in ids:
        assert backend_case.source(first.generation, chunk_id)["acl"] == ["underwriters"]
    agents = Searcher(backend, alias).search("umbrella", tenant="acme", acl=["agents"], k=50)
    assert "umb-300k-plus" not in {h.doc_id for h in agents.hits}


def test_a_document_id_is_never_searched_text(backend_case: BackendCase, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    records = [
        {"_id": "4242", "text": "wing flutter at supersonic speeds"},
        {"_id": "4343", "title": "", "text": "heat transfer in slabs"},
        {"_id": "7", "title": "Report 4343", "text": "the 4242 cycle"},
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records))
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    searcher = Searcher(backend_case.backend, backend_case.alias, enforce_access=False)
    for number in ("4242", "4343"):
        found = searcher.search(number, highlight=False)
        assert [hit.doc_id for hit in found.hits] == ["7"]  # its text or title; not an id
