"""ONNX graphs built once and kept on disk: the default embedder starts in a fraction of a second.

Writing the default embedder's ONNX graph from its safetensors weights
(:func:`~osrag.embedding.bert_onnx.build_bert_graph`) takes 1.5–2 s and imports
``onnx``; loading a stored graph into ONNX Runtime takes about 0.1 s. So the first
process that needs a graph builds it and stores it in :func:`model_cache_dir`
(``models/`` beside the vector cache, or ``$OSRAG_MODEL_CACHE_DIR``), and every
later one loads the file.

**Key.** The caller names the graph: the local embedders use their ``name-version``
(the version digests the weights, the tokenizer, the pooling, the window and
:data:`~osrag.embedding.bert_onnx.GRAPH_VERSION`, the graph builder's version) and the
installed onnxruntime's version, so new weights, a changed builder or another runtime
each get a graph of their own. Nothing is ever found under a stale key; old files stay
until the folder is removed (``rm -r ~/.cache/osrag/models`` is always safe).

**Writing** is atomic: the graph goes to a temporary file in the same folder and is
renamed over ``KEY.onnx``; then ``KEY.onnx.json`` records the key, the size, the
SHA-256 of the graph and the file's identity (size, mtime in ns, inode, device), the
same way. A process that stops half-way leaves a ``.part`` file nobody reads.

**Loading** verifies: the record beside the graph must exist and name the same key
and size, and the file's bytes must have the recorded SHA-256. Hashing the 90 MB
graph costs about 0.08 s — a tenth of a hybrid search's whole process — so it is
done when the file is not the one the record last vouched for: a file written,
copied, replaced or edited since has another identity and is hashed in full (then
the record remembers the new identity); the file exactly as it was verified is not
read twice. Only an in-place change that keeps the size and the nanosecond mtime on
the same inode (a failing disk, a deliberate forgery) would pass that step — the
same trust :mod:`osrag.embedding.digests` places in the weights. Then the caller has
ONNX Runtime load the graph and checks its output; a graph the runtime refuses is
:meth:`GraphStore.discard`-ed like a corrupt one. Whatever fails — a missing or
unreadable record, another size, another digest — the graph is built again and
stored over it, with a warning; a cache folder that cannot be written is not an
error (the graph is used from memory, built again next time).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("osrag.embedding.graph_store")

RECORD_SUFFIX = ".json"
RECORD_FORMAT = 1


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
    """The stored file's path, or the bytes when it could not be stored."""
    path: Path | None
    """Where it is stored (None: in memory only)."""
    built_seconds: float | None
    """How long building it took in this process; None: read from the store."""


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


class GraphStore:
    """Graphs under ``directory``, one ``KEY.onnx`` with its ``KEY.onnx.json`` record each."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else model_cache_dir()

    def path(self, key: str) -> Path:
        if not key or "/" in key or os.sep in key or key.startswith("."):
            raise ValueError(f"not a graph key: {key!r}")
        return self.directory / f"{key}.onnx"

    def record_path(self, key: str) -> Path:
        path = self.path(key)
        return path.with_name(path.name + RECORD_SUFFIX)

    def verified(self, key: str) -> Path | None:
        """The stored graph of ``key`` if its record vouches for every byte of it (hashed
        unless it is the very file last hashed), else None (nothing stored, or a stale or
        corrupt file: removed, with a warning)."""
        path, record_path = self.path(key), self.record_path(key)
        if not path.is_file():
            return None
        problem = None
        try:
            record = json.loads(record_path.read_text(encoding="utf-8"))
            stat = path.stat()
            if not isinstance(record, dict) or record.get("key") != key:
                problem = "its record names another graph"
            elif record.get("size") != stat.st_size:
                problem = f"{stat.st_size} bytes where {record.get('size')} were written"
            elif record.get("verified_as") == _identity(stat):
                pass  # the very file whose bytes were checked (see the module docstring)
            elif record.get("sha256") != _sha256(path):
                problem = "its SHA-256 is not the one written"
            else:
                self._write_record(key, {**record, "verified_as": _identity(stat)})
        except FileNotFoundError:
            problem = "it has no record"
        except (OSError, ValueError) as exc:
            problem = f"it cannot be read ({exc})"
        if problem is None:
            return path
        log.warning("the stored ONNX graph %s is not usable (%s): building it again", path, problem)
        self.discard(key)
        return None

    def save(self, key: str, data: bytes) -> Path | None:
        """Store ``data`` under ``key`` atomically; None when the folder cannot be written."""
        path = self.path(key)
        record = {
            "format": RECORD_FORMAT,
            "key": key,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            written = _replace(path, data)
            record["verified_as"] = _identity(written)
            _replace(self.record_path(key), json.dumps(record, indent=1).encode())
        except OSError as exc:
            log.info("cannot store the ONNX graph %s (%s): using it from memory", path, exc)
            return None
        return path

    def _write_record(self, key: str, record: dict[str, object]) -> None:
        """Replace the record of ``key`` (best effort: a record not rewritten only means
        the graph is hashed again next time)."""
        with contextlib.suppress(OSError):
            _replace(self.record_path(key), json.dumps(record, indent=1).encode())

    def discard(self, key: str) -> None:
        """Remove the stored graph of ``key`` and its record (a corrupt or refused one)."""
        for path in (self.record_path(key), self.path(key)):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def get(self, key: str, build: Callable[[], bytes]) -> Graph:
        """The stored graph of ``key``, verified; else ``build()``-ed now and stored."""
        found = self.verified(key)
        if found is not None:
            return Graph(str(found), found, None)
        return self.rebuild(key, build)

    def rebuild(self, key: str, build: Callable[[], bytes]) -> Graph:
        """``build()`` the graph of ``key`` and store it over whatever was there."""
        started = time.perf_counter()
        data = build()
        seconds = time.perf_counter() - started
        stored = self.save(key, data)
        return Graph(str(stored) if stored else data, stored, seconds)


def _identity(stat: os.stat_result) -> list[int]:
    """What changes when a file is written, copied or replaced: size, mtime (ns), inode,
    device."""
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev]


def _replace(path: Path, data: bytes) -> os.stat_result:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename;
    the written file's status (taken before the rename, which keeps it: a concurrent
    writer's file renamed over it later has another inode)."""
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
            fh.flush()
            written = os.fstat(fh.fileno())
        os.replace(partial, path)
        return written
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
