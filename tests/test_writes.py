"""Every file osrag writes, with a link planted where it writes: never written through.

One test per write path (the audit in docs/reliability.md, "Files osrag writes"): the
digest memo, the stored ONNX graph (graph, weights, record), the vector cache, the
embedded index's record store, its generations' vector stores, its alias pointer, its
pointer lock, its marker, evaluation runs, span judgments and the HTML report, and the
development nodes' lock, log, pid file and JVM options. Each plants a symbolic link to a
file outside, runs the real code, and checks that the outside file is unchanged and that
the destination is a regular file (written beside the link's planted temporary names)
or was refused with one line naming it (a link at the destination itself).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

import pytest
from clirun import osrag
from tiny_onnx import tiny_model

from osrag.embedding.cache import SqliteVectorCache
from osrag.embedding.digests import MEMO_FILE, files_digest, hash_files
from osrag.embedding.graph_store import GraphStore
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.embedded.store import MARKER, POINTER, POINTER_LOCK, exclusive
from osrag.errors import EmbeddingError, IndexStateError, StorageError, UnsafeFileError
from osrag.evaluation.runs import write_trec_run
from osrag.evaluation.spans import SpanJudgment, write_span_qrels
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.writes import open_in_place, read_own, write_file, writing

OUTSIDE = b"a file outside osrag's folders\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "target.txt"
    target.parent.mkdir()
    target.write_bytes(OUTSIDE)
    return target


def unchanged(target: Path) -> bool:
    return target.read_bytes() == OUTSIDE and not target.is_symlink()


def regular(path: Path) -> bool:
    return stat.S_ISREG(os.lstat(path).st_mode)


# --- the discipline itself -----------------------------------------------------------------


def test_a_write_goes_under_a_fresh_name_never_through_planted_ones(
    tmp_path: Path, outside: Path
) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    for name in ("out.json.part", f"out.json.{os.getpid()}.part", ".out.json.part"):
        (folder / name).symlink_to(outside)
    write_file(folder / "out.json", "{}")
    assert regular(folder / "out.json") and (folder / "out.json").read_text() == "{}"
    assert unchanged(outside)
    assert sorted(p.name for p in folder.iterdir() if not p.is_symlink()) == ["out.json"]


def test_a_link_at_the_destination_is_refused_naming_it(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "out.json").symlink_to(outside)
    with pytest.raises(UnsafeFileError, match=re.escape("out.json: a symbolic link")) as caught:
        write_file(tmp_path / "out.json", "{}")
    assert "\n" not in str(caught.value)
    assert unchanged(outside) and (tmp_path / "out.json").is_symlink()
    assert [p.name for p in tmp_path.iterdir() if p.name != "outside"] == ["out.json"]


def test_a_folder_anyone_may_write_is_refused_unless_sticky(tmp_path: Path) -> None:
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    with pytest.raises(UnsafeFileError, match="anyone may write in it"):
        write_file(open_folder / "x", "x")
    open_folder.chmod(0o1777)
    write_file(open_folder / "x", "x")
    (tmp_path / "a-file").write_text("")
    with pytest.raises((UnsafeFileError, OSError)):
        write_file(tmp_path / "a-file" / "x", "x")


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), writing(path) as handle:
        handle.write("half")
        raise RuntimeError("stopped")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["run.txt"]


def test_what_osrag_reads_back_to_overwrite_is_never_read_through_a_link(
    tmp_path: Path, outside: Path
) -> None:
    (tmp_path / "memo").symlink_to(outside)
    with pytest.raises(UnsafeFileError):
        read_own(tmp_path / "memo")
    with pytest.raises(UnsafeFileError):
        open_in_place(tmp_path / "memo")
    assert unchanged(outside)


# --- the model cache -----------------------------------------------------------------------


def test_the_digest_memo_is_written_beside_planted_part_links(
    tmp_path: Path, outside: Path
) -> None:
    """The names the memo used to write through (``digests.json.<pid>.part``) are links to
    a file outside: the memo is written, the outside file is not."""
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"w" * 4096)
    memo = tmp_path / "models"
    memo.mkdir()
    for pid in range(os.getpid() - 50, os.getpid() + 50):
        (memo / f"{MEMO_FILE}.{pid}.part").symlink_to(outside)
    assert files_digest([weights], "", memo_dir=memo) == hash_files([weights], "")
    assert unchanged(outside) and regular(memo / MEMO_FILE)
    assert (memo / MEMO_FILE).read_text().startswith("{")


def test_a_digest_memo_that_is_a_link_is_neither_read_nor_written(
    tmp_path: Path, outside: Path
) -> None:
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"w" * 4096)
    memo = tmp_path / "models"
    memo.mkdir()
    (memo / MEMO_FILE).symlink_to(outside)
    assert files_digest([weights], "", memo_dir=memo) == hash_files([weights], "")
    assert unchanged(outside)


@pytest.mark.parametrize("planted", ["k.onnx", "k.onnx.data", "k.onnx.json"])
def test_a_stored_graph_is_never_written_through_a_link(
    tmp_path: Path, outside: Path, planted: str
) -> None:
    store = GraphStore(tmp_path / "models")
    store.directory.mkdir()
    (store.directory / planted).symlink_to(outside)
    graph = store.get("k", tiny_model)
    assert unchanged(outside)
    files = [store.path("k"), store.data_path("k"), store.record_path("k")]
    if graph.path is None:  # refused to write over the link: used from memory
        assert isinstance(graph.model, bytes) and store.verified("k") is None
    else:  # a stale link is discarded (unlinked, never followed), then the graph stored
        assert all(regular(f) for f in files) and store.verified("k") == graph.path
    assert unchanged(outside)


def test_a_graph_record_that_is_a_link_is_not_read_and_the_graph_is_rebuilt(
    tmp_path: Path, outside: Path
) -> None:
    store = GraphStore(tmp_path / "models")
    assert store.save("k", tiny_model()) is not None
    record = store.record_path("k")
    outside.write_bytes(record.read_bytes())
    record.unlink()
    record.symlink_to(outside)
    kept = outside.read_bytes()
    assert store.verified("k") is None  # the link is not a record osrag trusts
    rebuilt = store.get("k", tiny_model)
    assert rebuilt.path is not None and regular(store.record_path("k"))
    assert outside.read_bytes() == kept


# --- the vector cache ----------------------------------------------------------------------


@pytest.mark.parametrize("planted", ["vectors.sqlite3", "vectors.sqlite3-wal"])
def test_the_vector_cache_is_never_opened_through_a_link(
    tmp_path: Path, outside: Path, planted: str
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    outside.write_bytes(b"")  # an empty file: SQLite would make a database of it
    (cache / planted).symlink_to(outside)
    with pytest.raises(EmbeddingError, match="symbolic link"):
        SqliteVectorCache(cache / "vectors.sqlite3")
    assert outside.read_bytes() == b""


def test_the_measured_embedding_rate_is_never_read_or_written_through_a_link(
    tmp_path: Path, outside: Path
) -> None:
    from osrag.embedding.rates import EmbedRate, load_rate, store_rate

    outside.write_text('{"k": {"texts_per_second": 1}}')
    path = tmp_path / "embed_rates.json"
    path.symlink_to(outside)
    assert load_rate("k", path) is None  # a link is not read
    rate = EmbedRate(texts_per_second=10.0, tokens_per_second=500.0, texts=30, measured_at="t")
    with pytest.raises(UnsafeFileError, match="link"):
        store_rate("k", rate, path)
    assert outside.read_text() == '{"k": {"texts_per_second": 1}}'


# --- the embedded index --------------------------------------------------------------------


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Umbrella\n\nThe umbrella policy covers $300,000.\n")
    return corpus


def _replace_by_link(path: Path, outside: Path) -> bytes:
    """Move ``path``'s bytes outside and leave a link to them in its place."""
    outside.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(outside)
    return outside.read_bytes()


def test_the_record_store_is_never_opened_through_a_link(tmp_path: Path, outside: Path) -> None:
    corpus, root = _corpus(tmp_path), tmp_path / "embedded"
    ingest(corpus, EmbeddedIndex(root), IngestOptions())
    records = root / "osrag-chunks" / "records.sqlite"
    for companion in ("-wal", "-shm"):
        Path(f"{records}{companion}").unlink(missing_ok=True)
    kept = _replace_by_link(records, outside)
    with pytest.raises(StorageError, match=re.escape("records.sqlite: a symbolic link")):
        ingest(corpus, EmbeddedIndex(root), IngestOptions())
    assert outside.read_bytes() == kept


def test_a_generations_vector_store_is_never_opened_through_a_link(
    tmp_path: Path, outside: Path
) -> None:
    corpus, root = _corpus(tmp_path), tmp_path / "embedded"
    index = EmbeddedIndex(root)
    ingest(corpus, index, IngestOptions())
    generation = current_generation(index, "osrag-chunks").name
    vectors = root / "osrag-chunks" / "generations" / generation / "vectors.sqlite"
    outside.write_bytes(b"")
    vectors.unlink(missing_ok=True)
    vectors.symlink_to(outside)
    from osrag.engines.embedded.vectors import VectorStore

    with pytest.raises(IndexStateError, match="symbolic link"):
        VectorStore(vectors.parent, 8)._db()
    assert outside.read_bytes() == b""


def test_the_alias_pointer_is_never_read_or_moved_through_a_link(
    tmp_path: Path, outside: Path
) -> None:
    corpus, root = _corpus(tmp_path), tmp_path / "embedded"
    ingest(corpus, EmbeddedIndex(root), IngestOptions())
    kept = _replace_by_link(root / "osrag-chunks" / POINTER, outside)
    with pytest.raises(IndexStateError, match="symbolic link"):
        ingest(corpus, EmbeddedIndex(root), IngestOptions(new_generation=True))
    assert outside.read_bytes() == kept


def test_the_pointer_lock_is_never_opened_through_a_link(tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "alias"
    folder.mkdir()
    (folder / POINTER_LOCK).symlink_to(outside)
    with pytest.raises(UnsafeFileError), exclusive(folder / POINTER_LOCK):
        pass
    assert unchanged(outside)


def test_a_marker_that_is_a_link_is_not_trusted(tmp_path: Path, outside: Path) -> None:
    corpus, root = _corpus(tmp_path), tmp_path / "embedded"
    ingest(corpus, EmbeddedIndex(root), IngestOptions())
    kept = _replace_by_link(root / "osrag-chunks" / MARKER, outside)
    with pytest.raises(IndexStateError, match="corrupt"):
        ingest(corpus, EmbeddedIndex(root), IngestOptions())
    assert outside.read_bytes() == kept


# --- evaluation outputs --------------------------------------------------------------------


def test_a_run_file_is_never_written_through_a_link(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "run.txt").symlink_to(outside)
    with pytest.raises(UnsafeFileError, match=re.escape("run.txt")):
        write_trec_run(tmp_path / "run.txt", {}, tag="x")
    assert unchanged(outside)
    write_trec_run(tmp_path / "fresh.txt", {}, tag="x")
    assert regular(tmp_path / "fresh.txt")


def test_span_judgments_are_never_written_through_a_link(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "spans.jsonl").symlink_to(outside)
    span = SpanJudgment("q1", "d1", 0, 5, 1)
    with pytest.raises(UnsafeFileError, match=re.escape("spans.jsonl")):
        write_span_qrels(tmp_path / "spans.jsonl", [span])
    assert unchanged(outside)
    assert write_span_qrels(tmp_path / "new.jsonl", [span]) == 1
    assert regular(tmp_path / "new.jsonl")


def test_osrag_eval_refuses_a_report_or_run_that_is_a_link_in_one_line(
    tmp_path: Path, outside: Path
) -> None:
    corpus = _corpus(tmp_path)
    env = {"OSRAG_HOME": str(tmp_path / "home"), "OSRAG_CACHE_DIR": str(tmp_path / "cache")}
    assert osrag("ingest", str(corpus), "-q", "--backend", "embedded", env=env).returncode == 0
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "q1", "query": "umbrella policy", "relevant": ["a"]}\n')
    for option, name in (("--report", "report.html"), ("--run-out", "run.txt")):
        (tmp_path / name).symlink_to(outside)
        done = osrag(
            "eval", str(queries), option, str(tmp_path / name), "--backend", "embedded", env=env
        )
        assert done.returncode == 5, done.stderr
        assert "Traceback" not in done.stderr and f"{name}: a symbolic link" in done.stderr
        assert unchanged(outside)


# --- the development nodes' files ----------------------------------------------------------


def test_the_distribution_lock_is_never_opened_through_a_link(
    tmp_path: Path, outside: Path
) -> None:
    from osrag.node.dist import dist_lock

    (tmp_path / ".dist.lock").symlink_to(outside)
    with pytest.raises(UnsafeFileError), dist_lock(tmp_path):
        pass
    assert unchanged(outside)


@pytest.mark.parametrize("planted", ["console.log", "node.pid"])
def test_a_nodes_log_and_pid_file_are_never_written_through_a_link(
    tmp_path: Path, outside: Path, planted: str
) -> None:
    from osrag.node.process import NodeLayout, ServiceUser, launch

    layout = NodeLayout(home=tmp_path, port=9299)
    layout.node_dir.mkdir()
    (layout.node_dir / planted).symlink_to(outside)
    with pytest.raises(UnsafeFileError, match=planted):
        proc = launch([sys.executable, "-c", "print('started')"], {}, layout, ServiceUser())
        proc.wait(timeout=30)
    assert unchanged(outside)


def test_jvm_options_are_never_rewritten_through_a_link(tmp_path: Path, outside: Path) -> None:
    from osrag.node.process import localise_jvm_options

    outside.write_text("-XX:HeapDumpPath=data\n")
    kept = outside.read_bytes()
    (tmp_path / "jvm.options").symlink_to(outside)
    with pytest.raises(UnsafeFileError):
        localise_jvm_options(tmp_path / "jvm.options", tmp_path)
    assert outside.read_bytes() == kept


def test_a_download_is_never_written_through_a_link(tmp_path: Path, outside: Path) -> None:
    """The artifact download used the predictable ``<file>.part``: a link planted there
    would have received the download. Served on loopback by a plain HTTP server."""
    import hashlib
    import http.server
    import threading
    from functools import partial

    from osrag.errors import NodeError
    from osrag.node.fetch import Artifact, _fetch_https

    artifact = Artifact("org.example", "thing", "1.0")
    repo = tmp_path / "repo"
    served = repo / "org" / "example" / "thing" / "1.0" / artifact.filename
    served.parent.mkdir(parents=True)
    served.write_bytes(b"jar bytes" * 100)
    Path(f"{served}.sha1").write_text(hashlib.sha1(served.read_bytes()).hexdigest())
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(repo))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    try:
        (downloads / f"{artifact.filename}.part").symlink_to(outside)
        _fetch_https(artifact, downloads / artifact.filename, url)
        assert regular(downloads / artifact.filename) and unchanged(outside)
        assert (downloads / artifact.filename).read_bytes() == served.read_bytes()
        (downloads / artifact.filename).unlink()
        (downloads / artifact.filename).symlink_to(outside)
        with pytest.raises(NodeError, match="symbolic link"):
            _fetch_https(artifact, downloads / artifact.filename, url)
        assert unchanged(outside)
    finally:
        server.shutdown()
        server.server_close()
