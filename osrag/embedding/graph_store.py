"""ONNX graphs built once and kept on disk: the default embedder starts in a fraction of a second.

Writing the default embedder's ONNX graph from its safetensors weights
(:func:`~osrag.embedding.bert_onnx.build_bert_graph`) takes 1.5–2 s and imports
``onnx``; loading a stored graph into ONNX Runtime takes about 0.05 s of CPU. So the
first process that needs a graph builds it and stores it in :func:`model_cache_dir`
(``models/`` beside the vector cache, or ``$OSRAG_MODEL_CACHE_DIR``), and every later
one loads the files.

**Two files.** ``KEY.onnx`` holds the graph (about 20 kB) and ``KEY.onnx.data`` its
weights, as ONNX *external data*: ONNX Runtime maps the weights file instead of
parsing 90 MB of protobuf, which makes a session about 3× cheaper to create (0.05 s
against 0.17 s of CPU for MiniLM, measured side by side) and gives the same vectors
to the bit (``tests/embedding/test_graph_store.py``).

**Key.** The caller names the graph: the local embedders use their ``name-version``
(the version digests the weights, the tokenizer, the pooling, the window and
:data:`~osrag.embedding.bert_onnx.GRAPH_VERSION`, the graph builder's version) and the
installed onnxruntime's version, so new weights, a changed builder or another runtime
each get a graph of their own. Nothing is ever found under a stale key; old files stay
until the folder is removed (``rm -r ~/.cache/osrag/models`` is always safe).

**Writing** is atomic: both files are written into a private temporary folder beside
them (``mkdtemp``) and moved into place (weights first) by
:func:`osrag.writes.replace_with`, which refuses a link planted at either name; then
``KEY.onnx.json`` records the key and, for each file, its size, SHA-256 and identity
(size, mtime and ctime in ns, inode, device, taken after the move), written by
:func:`osrag.writes.write_file`. A process that stops half-way leaves a ``.part``
folder nobody reads.

**Loading** verifies: the record beside the graph must exist and name the same key
and sizes, and each file's bytes must have the recorded SHA-256. Hashing the 90 MB of
weights costs about 0.05 s (SHA-256; ``docs/reliability.md`` has the measured choice) —
a tenth of a hybrid search's whole process — so it is done when a file is not the one
the record last vouched for: a file written, copied, replaced, renamed or edited since
has another identity and is hashed in full (then the record remembers the new
identity); the files exactly as they were verified are not read twice. A change in
place that keeps the size and the modification time still moves the file's change
time (``ctime``), which no ordinary call sets back, so weights corrupted in place are
hashed, found wrong and built again from the source weights — never served. Then the
caller has ONNX Runtime load the graph and checks its output; a graph the runtime
refuses is :meth:`GraphStore.discard`-ed like a corrupt one. Whatever fails — a missing
or unreadable record, another size, another digest, a link where a file should be —
the graph is built again and stored over it, with a warning; a cache folder that cannot
be written is not an error (the graph is used from memory, built again next time).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import Any

from osrag.errors import UnsafeFileError
from osrag.writes import read_own, replace_with, write_file

log = logging.getLogger("osrag.embedding.graph_store")

RECORD_SUFFIX = ".json"
DATA_SUFFIX = ".data"
RECORD_FORMAT = 2
EXTERNAL_THRESHOLD = 1024
"""Tensors of at least this many bytes go to the weights file; smaller ones (shapes,
constants) stay in the graph."""
MODEL_CACHE_VARIABLE = "OSRAG_MODEL_CACHE_DIR"


def model_cache_dir() -> Path:
    """``$OSRAG_MODEL_CACHE_DIR``, else ``models/`` beside the vector cache
    (``$OSRAG_CACHE_DIR``, else the XDG cache: ``~/.cache/osrag/models``)."""
    chosen = os.environ.get(MODEL_CACHE_VARIABLE)
    if chosen:
        return Path(chosen)
    from osrag.embedding.cache import default_cache_path

    return default_cache_path().parent / "models"


def runtime_version() -> str:
    """The installed onnxruntime's version (part of every stored graph's key)."""
    import onnxruntime

    return str(onnxruntime.__version__)


@dataclass(frozen=True)
class Graph:
    """A graph ready for :func:`~osrag.embedding.runtime.make_session`."""

    model: str | bytes
    """The stored graph's path, or the whole model's bytes when it could not be stored."""
    path: Path | None
    """Where it is stored (None: in memory only)."""
    built_seconds: float | None
    """How long building it took in this process; None: read from the store."""


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _identity(stat: os.stat_result) -> list[int]:
    """What changes when a file is written, copied, renamed or replaced: size, mtime and
    ctime (ns), inode, device (see the module docstring)."""
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev]


class GraphStore:
    """Graphs under ``directory``: ``KEY.onnx``, its weights ``KEY.onnx.data`` and its
    record ``KEY.onnx.json`` each."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else model_cache_dir()

    def path(self, key: str) -> Path:
        if not key or "/" in key or os.sep in key or key.startswith("."):
            raise ValueError(f"not a graph key: {key!r}")
        return self.directory / f"{key}.onnx"

    def data_path(self, key: str) -> Path:
        path = self.path(key)
        return path.with_name(path.name + DATA_SUFFIX)

    def record_path(self, key: str) -> Path:
        path = self.path(key)
        return path.with_name(path.name + RECORD_SUFFIX)

    def _files(self, key: str) -> dict[str, Path]:
        return {"graph": self.path(key), "data": self.data_path(key)}

    def verified(self, key: str) -> Path | None:
        """The stored graph of ``key`` if its record vouches for every byte of both files
        (hashed unless it is the very file last hashed), else None (nothing stored, or a
        stale or corrupt graph: removed, with a warning)."""
        path = self.path(key)
        if not path.is_file() and not path.is_symlink():
            return None
        problem, refreshed = None, False
        try:
            record = json.loads(read_own(self.record_path(key)).decode("utf-8"))
            if not isinstance(record, dict) or record.get("key") != key:
                raise _Unusable("its record names another graph")
            files = record.get("files")
            if not isinstance(files, dict) or set(files) != {"graph", "data"}:
                raise _Unusable("its record lists other files")
            for role, file in self._files(key).items():
                refreshed |= _check(file, files[role])
            if refreshed:
                self._write_record(key, record)
        except _Unusable as exc:
            problem = str(exc)
        except FileNotFoundError as exc:
            problem = f"{Path(exc.filename or '?').name} is missing"
        except (OSError, ValueError, TypeError, KeyError, UnsafeFileError) as exc:
            problem = f"it cannot be read ({exc})"
        if problem is None:
            return path
        log.warning("the stored ONNX graph %s is not usable (%s): building it again", path, problem)
        self.discard(key)
        return None

    def save(self, key: str, model: Any) -> Path | None:
        """Store the ``onnx.ModelProto`` ``model`` under ``key`` (its large tensors moved
        to the weights file: ``model`` is changed); None when the folder cannot be
        written (then ``model`` is as it was given)."""
        import onnx
        from onnx.external_data_helper import convert_model_to_external_data

        path, files = self.path(key), self._files(key)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(dir=self.directory, prefix=f".{key}.", suffix=".part"))
        except OSError as exc:
            log.info("cannot store the ONNX graph %s (%s): using it from memory", path, exc)
            return None
        try:
            convert_model_to_external_data(
                model,
                all_tensors_to_one_file=True,
                location=files["data"].name,
                size_threshold=EXTERNAL_THRESHOLD,
            )
            onnx.save_model(model, staging / path.name)
            staged = {role: staging / file.name for role, file in files.items()}
            described: dict[str, dict[str, Any]] = {
                role: {"size": file.stat().st_size, "sha256": _sha256(file)}
                for role, file in staged.items()
            }
            replace_with(staged["data"], files["data"])
            replace_with(staged["graph"], path)
            for role, file in files.items():  # a move changes the ctime: taken after it
                described[role]["verified_as"] = _identity(os.lstat(file))
            record = {"format": RECORD_FORMAT, "key": key, "files": described}
            write_file(self.record_path(key), json.dumps(record, indent=1))
        except UnsafeFileError as exc:
            log.warning("cannot store the ONNX graph %s (%s): using it from memory", path, exc)
            self.discard(key)
            return None
        except OSError as exc:
            log.warning("cannot store the ONNX graph %s (%s)", path, exc)
            self.discard(key)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return path

    def _write_record(self, key: str, record: dict[str, Any]) -> None:
        """Replace the record of ``key`` (best effort: a record not rewritten only means
        the graph is hashed again next time)."""
        with contextlib.suppress(OSError, UnsafeFileError):
            write_file(self.record_path(key), json.dumps(record, indent=1))

    def discard(self, key: str) -> None:
        """Remove the stored graph of ``key``, its weights and its record."""
        for path in (self.record_path(key), self.path(key), self.data_path(key)):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def get(self, key: str, build: Callable[[], Any]) -> Graph:
        """The stored graph of ``key``, verified; else ``build()``-ed now (an
        ``onnx.ModelProto``) and stored."""
        found = self.verified(key)
        if found is not None:
            return Graph(str(found), found, None)
        return self.rebuild(key, build)

    def rebuild(self, key: str, build: Callable[[], Any]) -> Graph:
        """``build()`` the graph of ``key`` and store it over whatever was there; kept in
        memory when it cannot be stored."""
        started = time.perf_counter()
        model = build()
        seconds = time.perf_counter() - started
        try:
            stored = self.save(key, model)
        except OSError:  # failed part-way (a full disk): the model lost its weights to it
            model, stored = build(), None
        if stored is not None:
            return Graph(str(stored), stored, seconds)
        return Graph(bytes(model.SerializeToString()), None, seconds)


class _Unusable(Exception):
    """A stored graph its record does not vouch for (the message says why)."""


def _check(path: Path, recorded: dict[str, Any]) -> bool:
    """Raise :class:`_Unusable` unless ``path`` is what ``recorded`` describes; True when
    it had to be hashed and ``recorded`` now holds its new identity."""
    stat = os.lstat(path)
    if not S_ISREG(stat.st_mode):
        raise _Unusable(f"{path.name} is not a regular file (a link is never followed)")
    if recorded["size"] != stat.st_size:
        raise _Unusable(
            f"{path.name} has {stat.st_size} bytes where {recorded['size']} were written"
        )
    if recorded.get("verified_as") == _identity(stat):
        return False  # the very file whose bytes were checked (see the module docstring)
    if recorded["sha256"] != _sha256(path):
        raise _Unusable(f"the SHA-256 of {path.name} is not the one written")
    recorded["verified_as"] = _identity(stat)
    return True
