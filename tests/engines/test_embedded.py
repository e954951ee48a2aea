"""The embedded engine on its own: choosing it, its safety (one writer across processes, a
crash mid-write, corrupt or foreign folders) and its query compiler. Behaviour shared
with OpenSearch is tested on both backends in test_ingest, test_search, test_eval_runs."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from osrag.config import Settings
from osrag.engines import choose_backend, embedded_root
from osrag.engines.embedded.compiler import minimum_should_match
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.errors import ConfigError, IndexStateError, LockedError, QueryError
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest, rollback
from osrag.ingestion.manifest import Manifest
from osrag.models import ChunkingConfig, QuerySpec
from osrag.schema.filters import AsOfGuard, Exists, Filter, NamedFilter, NotExists, Range, Term
from osrag.schema.plan import Source
from osrag.search.query import AnalyzedQuery, plan_query, search_plan
from osrag.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "insurance"
EXAMPLES = ROOT / "examples" / "insurance"
NOTICE = "no cluster URL set; using the embedded index in .osrag — set OSRAG_URL to use a cluster"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(DATA, target, ignore=shutil.ignore_patterns("*.jsonl", "EXPECTED.md"))
    return target


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "index"


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    return env | extra


def _osrag(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "osrag.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --------------------------------------------------------------------------- choosing it


def test_no_url_chooses_the_embedded_index_and_says_so_in_one_line() -> None:
    choice = choose_backend(Settings(url=None), "auto")
    assert (choice.name, choice.root, choice.notice) == ("embedded", Path(".osrag"), NOTICE)


def test_a_url_chooses_the_cluster_and_backend_forces_either() -> None:
    with_url = Settings(url="http://localhost:9200")
    # auto with a URL is whatever engine answers there (tests/engines/test_elasticsearch_engine.py
    # asks the real engines); here only that the answer is used
    for engine in ("opensearch", "elasticsearch"):
        assert choose_backend(with_url, "auto", detect=lambda _s, e=engine: e).name == engine
    assert choose_backend(with_url, "embedded").name == "embedded"
    assert choose_backend(with_url, "embedded").notice is None  # asked for: nothing to explain
    assert choose_backend(Settings(url=None), "opensearch").name == "opensearch"
    with pytest.raises(ConfigError, match="--backend 'lucene'"):
        choose_backend(Settings(), "lucene")


def test_osrag_home_puts_the_index_beside_the_node_files(tmp_path: Path) -> None:
    assert embedded_root(Settings(home=tmp_path)) == tmp_path / "embedded"


def test_the_first_command_works_on_a_fresh_machine_without_a_cluster(tmp_path: Path) -> None:
    env = _clean_env()  # no OSRAG_URL, no OSRAG_HOME: a fresh machine
    ingested = _osrag("ingest", str(EXAMPLES), "--json", cwd=tmp_path, env=env)
    assert ingested.returncode == 0, ingested.stderr
    assert ingested.stderr.count(NOTICE) == 1
    assert '"alias_moved": true' in ingested.stdout
    assert (tmp_path / ".osrag" / "osrag-chunks" / "ALIAS").is_file()

    found = _osrag(
        "search", "umbrella coverage $300,000", "--tenant", "acme", "--acl", "agents",
        "--json", cwd=tmp_path, env=env,
    )  # fmt: skip
    assert found.returncode == 0, found.stderr
    import json

    payload = json.loads(found.stdout)  # stdout is the JSON alone; the notice is on stderr
    assert payload["amount"]["minor_units"] == 30_000_000 and payload["hits"]
    assert all(30_000_000 in hit["amounts"] for hit in payload["hits"])


# --------------------------------------------------------------------------- one writer


@pytest.fixture
def other_process() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def _spawn(code: str, started: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True
    )
    started.append(proc)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_a_second_process_is_refused_the_lock_and_a_killed_owner_is_broken_at_once(
    corpus: Path, root: Path, other_process: list[subprocess.Popen[str]]
) -> None:
    holder = _spawn(
        f"""
        import datetime as dt, time
        from osrag.engines.embedded.index import EmbeddedIndex
        from osrag.ingestion.lock import IngestLock
        index = EmbeddedIndex({str(root)!r})
        records = index.records("osrag-chunks")
        lock = IngestLock(records, "osrag-chunks", ttl=dt.timedelta(seconds=1))
        lock.__enter__()
        print("ready", flush=True)
        time.sleep(120)
        """,
        other_process,
    )
    backend = EmbeddedIndex(root)
    with pytest.raises(LockedError, match=f"pid {holder.pid}"):
        ingest(corpus, backend, IngestOptions(alias="osrag-chunks"))
    # the CLI: one clear line, exit code 6, no traceback (its TTL has passed, it is alive)
    env = _clean_env(OSRAG_HOME=str(_home_of(root)))
    refused = _osrag("ingest", str(corpus), cwd=root.parent, env=env)
    assert refused.returncode == 6
    assert "another ingest holds the lock" in refused.stderr and str(holder.pid) in refused.stderr
    assert "Traceback" not in refused.stderr

    holder.send_signal(signal.SIGKILL)  # no cleanup: its lock record stays behind
    holder.wait(timeout=30)
    started = time.monotonic()
    after = _osrag("ingest", str(corpus), cwd=root.parent, env=env)
    assert after.returncode == 0, after.stderr
    assert time.monotonic() - started < 60  # not the lock's TTL: the owner is known dead
    assert f"pid {holder.pid}" in after.stderr and "no longer running" in after.stderr


def test_a_writer_that_bypasses_the_ingest_lock_is_refused_too(
    corpus: Path, root: Path, other_process: list[subprocess.Popen[str]]
) -> None:
    backend = EmbeddedIndex(root)
    first = ingest(corpus, backend, IngestOptions(alias="osrag-chunks"))
    path = root / "osrag-chunks" / "generations" / first.generation
    _spawn(
        f"""
        import time, tantivy
        writer = tantivy.Index.open({str(path)!r}).writer()
        print("ready", flush=True)
        time.sleep(120)
        """,
        other_process,
    )
    (corpus / "renters-30k.md").write_text("---\nid: renters-30k\n---\n# Renters\n\nNew text.\n")
    with pytest.raises(LockedError, match="another process is writing"):
        ingest(corpus, backend, IngestOptions(alias="osrag-chunks"))


# --------------------------------------------------------------------------- crashes


def test_a_process_killed_mid_build_leaves_the_previous_generation_readable(
    corpus: Path, root: Path
) -> None:
    backend = EmbeddedIndex(root)
    first = ingest(corpus, backend, IngestOptions(alias="osrag-chunks"))
    code = f"""
        import os, signal
        from pathlib import Path
        from osrag.engines.embedded.index import EmbeddedIndex
        from osrag.ingestion.ingest import IngestOptions, ingest
        from osrag.models import ChunkingConfig

        class KilledMidBuild(EmbeddedIndex):
            writes = 0
            def write(self, generation, actions):
                KilledMidBuild.writes += 1
                if KilledMidBuild.writes == 3:
                    os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally
                return super().write(generation, actions)

        options = IngestOptions(
            alias="osrag-chunks", chunking=ChunkingConfig(strategy="fixed", size=20),
            batch_chunks=5,
        )
        ingest(Path({str(corpus)!r}), KilledMidBuild({str(root)!r}), options)
    """
    killed = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], timeout=120)
    assert killed.returncode == -signal.SIGKILL

    reader = EmbeddedIndex(root)  # a fresh process's view
    assert reader.alias_target("osrag-chunks") == first.generation
    result = Searcher(reader, "osrag-chunks", enforce_access=False).search("umbrella $300K")
    assert result.hits and result.index == first.generation
    assert reader.count("osrag-chunks") == first.chunks_written
    manifest = Manifest(reader.records("osrag-chunks"), "osrag-chunks")
    [building] = [r for r in manifest.generations() if r.state == "building"]

    done = ingest(
        corpus,
        reader,
        IngestOptions(
            alias="osrag-chunks", chunking=ChunkingConfig(strategy="fixed", size=20), batch_chunks=5
        ),
    )
    assert done.generation == building.name and done.alias_moved and done.documents_unchanged > 0
    assert reader.count("osrag-chunks") == current_generation(reader, "osrag-chunks").chunks


def test_readers_never_see_the_alias_missing_while_it_moves(corpus: Path, root: Path) -> None:
    backend = EmbeddedIndex(root)
    one = ingest(corpus, backend, IngestOptions(alias="osrag-chunks")).generation
    two = ingest(
        corpus,
        backend,
        IngestOptions(alias="osrag-chunks", chunking=ChunkingConfig(strategy="fixed", size=40)),
    ).generation
    stop = threading.Event()

    def flip() -> None:
        mover = EmbeddedIndex(root)
        while not stop.is_set():
            for target in (one, two):
                mover.move_alias("osrag-chunks", target, mover.alias_target("osrag-chunks"))

    thread = threading.Thread(target=flip)
    thread.start()
    reader = EmbeddedIndex(root)
    try:
        seen = {reader.alias_target("osrag-chunks") for _ in range(3000)}
    finally:
        stop.set()
        thread.join()
    assert seen <= {one, two} and seen


# --------------------------------------------------------------------------- corrupt, foreign


@pytest.fixture
def built(corpus: Path, root: Path) -> tuple[EmbeddedIndex, str, str]:
    backend = EmbeddedIndex(root)
    one = ingest(corpus, backend, IngestOptions(alias="osrag-chunks")).generation
    options = IngestOptions(alias="osrag-chunks", chunking=ChunkingConfig(strategy="fixed"))
    two = ingest(corpus, backend, options).generation
    backend.close()
    return EmbeddedIndex(root), one, two


def test_a_corrupt_record_store_is_a_clear_error_naming_it(
    built: tuple[EmbeddedIndex, str, str], root: Path
) -> None:
    manifest = root / "osrag-chunks" / "records.sqlite"
    manifest.write_bytes(b"this is not a database" * 100)
    for leftover in manifest.parent.glob("records.sqlite-*"):
        leftover.unlink()
    with pytest.raises(IndexStateError, match=str(manifest)):
        current_generation(EmbeddedIndex(root), "osrag-chunks")
    status = _osrag(
        "index", "status", "--backend", "embedded", cwd=root.parent,
        env=_clean_env(OSRAG_HOME=str(_home_of(root))),
    )  # fmt: skip
    assert status.returncode == 5, status.stderr
    assert "records.sqlite" in status.stderr and "Traceback" not in status.stderr


def _home_of(root: Path) -> Path:
    home = root.parent / "home"
    if not home.exists():
        home.mkdir()
        os.symlink(root, home / "embedded")
    return home


def test_a_corrupt_alias_pointer_is_a_clear_error_and_rollback_repairs_it(
    built: tuple[EmbeddedIndex, str, str], root: Path
) -> None:
    backend, one, _two = built
    pointer = root / "osrag-chunks" / "ALIAS"
    pointer.write_text("\x00garbage")
    with pytest.raises(IndexStateError, match=str(pointer)):
        backend.alias_target("osrag-chunks")
    pointer.unlink()  # what an operator does with a pointer that cannot be read
    backend.move_alias("osrag-chunks", one, None)
    assert Searcher(backend, "osrag-chunks", enforce_access=False).search("umbrella").hits


def test_a_corrupt_generation_is_a_clear_error_and_the_previous_one_still_serves(
    built: tuple[EmbeddedIndex, str, str], root: Path
) -> None:
    backend, one, two = built
    meta = root / "osrag-chunks" / "generations" / two / "meta.json"
    meta.write_text("{ not json")
    with pytest.raises(IndexStateError, match=str(meta.parent)):
        Searcher(backend, "osrag-chunks", enforce_access=False).search("umbrella")
    assert rollback(backend, "osrag-chunks") == (two, one)
    assert Searcher(backend, "osrag-chunks", enforce_access=False).search("umbrella").hits


def test_a_folder_from_a_newer_osrag_is_refused(
    built: tuple[EmbeddedIndex, str, str], root: Path
) -> None:
    marker = root / "osrag-chunks" / "OSRAG_EMBEDDED"
    marker.write_text('{"osrag": "embedded-index", "format": 99, "alias": "osrag-chunks"}')
    with pytest.raises(IndexStateError, match="newer osrag"):
        EmbeddedIndex(root).alias_target("osrag-chunks")


def test_a_root_that_is_a_file_is_a_clear_error(tmp_path: Path, corpus: Path) -> None:
    root = tmp_path / "index"
    root.write_text("not a folder")
    with pytest.raises(IndexStateError, match="is a file"):
        ingest(corpus, EmbeddedIndex(root), IngestOptions(alias="osrag-chunks"))


def test_an_alias_that_cannot_be_a_folder_name_is_refused(root: Path) -> None:
    with pytest.raises(ConfigError, match="cannot name a folder"):
        EmbeddedIndex(root).alias_target("../elsewhere")


# --------------------------------------------------------------------------- the compiler


@pytest.mark.parametrize(
    ("optional", "spec", "needed"),
    [
        # the worked examples of OpenSearch's minimum_should_match documentation
        (5, "3", 3),
        (5, "-2", 3),
        (5, "75%", 3),
        (4, "75%", 3),
        (5, "-25%", 4),
        (4, "-25%", 3),
        (3, "3<90%", 3),
        (10, "3<90%", 9),
        (2, "2<-25% 9<-3", 2),
        (8, "2<-25% 9<-3", 6),
        (12, "2<-25% 9<-3", 9),
        (3, "-5", 0),
    ],
)
def test_minimum_should_match_follows_opensearch(optional: int, spec: str, needed: int) -> None:
    assert minimum_should_match(optional, spec) == needed


def test_minimum_should_match_nonsense_is_a_clear_error() -> None:
    with pytest.raises(QueryError, match="minimum_should_match 'most'"):
        minimum_should_match(3, "most")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedIndex:
    backend = EmbeddedIndex(tmp_path_factory.mktemp("small") / "index")
    ingest(DATA, backend, IngestOptions(alias="small"))
    return backend


def _plan(text: str, *filters: Filter) -> AnalyzedQuery:
    plan = plan_query(QuerySpec(text=text, amount_filter=False, unrestricted=True))
    return AnalyzedQuery(
        spec=plan.spec,
        match_text=plan.match_text,
        amount=None,
        amount_status="off",
        filters=tuple(NamedFilter(f"f{i}", f) for i, f in enumerate(filters)),
    )


def _run(index: EmbeddedIndex, plan: AnalyzedQuery) -> tuple[list[dict[str, Any]], int]:
    """The ranked hits and the candidate count, as the Searcher asks for them."""
    (result,) = index.search("small", [search_plan(plan)])
    hits = [{"_id": h.chunk_id, "_score": h.score, "_source": h.source} for h in result.hits]
    return hits, result.candidates


@pytest.mark.parametrize(
    ("clause", "message"),
    [
        (Term("nope", "x"), "no field 'nope'"),
        (Range("tenant", gte="a"), "'tenant' is keyword"),
        (Term("amounts", "three hundred"), "not an integer"),
        (Range("effective_from", gte="yesterday"), "not a day"),
    ],
)
def test_a_filter_the_mapping_cannot_answer_is_refused_by_name(
    small: EmbeddedIndex, clause: Filter, message: str
) -> None:
    with pytest.raises(QueryError, match=message):
        _run(small, _plan("umbrella", clause))


def test_filters_count_chunks_and_never_score(small: EmbeddedIndex) -> None:
    amount = Term("amounts", 30_000_000)
    hits, candidates = _run(small, _plan("umbrella", amount))
    assert candidates == small.count("small", Term("amounts", 30_000_000)) == len(hits) > 0
    unfiltered = {h["_id"]: h["_score"] for h in _run(small, _plan("umbrella"))[0]}
    for hit in hits:
        assert hit["_score"] == pytest.approx(unfiltered[hit["_id"]])
    collapsed = replace(
        search_plan(_plan("umbrella", amount)),
        collapse=True,
        size=100,
        depth=100,
        source=Source(includes=("doc_id",)),
    )
    (per_document,) = small.search("small", [collapsed])
    holders = [h.source["doc_id"] for h in per_document.hits]
    assert sorted(holders) == sorted({h["_source"]["doc_id"] for h in hits})
    assert "text" not in hits[0]["_source"]  # _source excludes the searched copy


def test_a_stored_day_range_and_a_missing_field_are_oracles(small: EmbeddedIndex) -> None:
    # documents without effective_from pass the as_of filter (they say nothing)
    everyone = small.count("small")
    as_of = AsOfGuard(dt.date(1900, 1, 1)).filter()
    dated = small.count("small", Exists("effective_from"))
    assert small.count("small", as_of) == everyone - dated
    undated = [c for c, _ in small.chunk_ids("small", NotExists("effective_from"))]
    assert [c for c, _ in small.chunk_ids("small", as_of)] == undated


@pytest.mark.parametrize("root", [None, "None", ""])
def test_a_missing_folder_is_refused_rather_than_written_under_the_working_directory(
    root: object,
) -> None:
    with pytest.raises(ConfigError, match="needs a folder"):
        EmbeddedIndex(root)  # type: ignore[arg-type]


def _race_to_create(folder: Path, count: int) -> list[BaseException]:
    """``count`` threads, each with its own index object, write to one new store at once."""
    barrier = threading.Barrier(count)
    failures: list[BaseException] = []

    def put(n: int) -> None:
        store = EmbeddedIndex(folder).records("racing")
        barrier.wait()
        try:
            store.put("probe", f"key-{n}", {"n": n})
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=put, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_many_writers_creating_one_new_record_store_at_once_all_succeed(tmp_path: Path) -> None:
    # the first writers of a new alias race to create its folder (renamed into place) and
    # for the store's switch to write-ahead logging, which SQLite refuses ("database is
    # locked") without waiting: none may fail for either
    for round_ in range(20):
        folder = tmp_path / f"round-{round_}"
        assert _race_to_create(folder, 16) == []
        store = EmbeddedIndex(folder).records("racing")
        assert sorted(key for key, _ in store.scan("probe")) == sorted(
            f"key-{n}" for n in range(16)
        )
