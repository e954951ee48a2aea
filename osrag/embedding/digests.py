"""Digests of model files, remembered so a 90 MB weights file is hashed once, not per process.

A local embedder's id digests its weights and tokenizer (SHA-256 over the bytes), and
the stored ONNX graph is keyed by that id — so without a memo every process that
loads the model reads and hashes ~90 MB first (about 0.1 s). :func:`files_digest`
remembers each result under the files' identity: for each file its resolved path,
size, modification time in nanoseconds, inode and device, plus the caller's
``extra`` text. A file replaced or rewritten in any ordinary way (a reinstall, an
edit, a copy over it) has a new size, mtime or inode and is hashed again; only a
rewrite that forges the size *and* the nanosecond mtime on the same inode would go
unseen, which is what ``make`` and ``pip``'s own caches also accept.

The memo is ``digests.json`` in the model cache folder
(:func:`~osrag.embedding.graph_store.model_cache_dir`), at most
:data:`MEMO_ENTRIES` entries, replaced atomically (temporary file + rename) when an
entry is added. A memo that cannot be read or written costs only the hashing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from osrag.errors import EmbeddingError

log = logging.getLogger("osrag.embedding.digests")

MEMO_FILE = "digests.json"
MEMO_ENTRIES = 64
"""Kept entries, newest last; older ones are dropped (a model directory is one entry)."""


def hash_files(paths: Sequence[Path], extra: str) -> str:
    """SHA-256 (hex) over the files' bytes in order, then ``extra`` (UTF-8): no memo."""
    digest = hashlib.sha256()
    for path in paths:
        try:
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
        except OSError as exc:
            raise EmbeddingError(f"{path}: cannot read ({exc})") from exc
    digest.update(extra.encode())
    return digest.hexdigest()


def identity(paths: Sequence[Path], extra: str) -> str:
    """The memo key: each file's resolved path, size, mtime (ns), inode and device, and
    ``extra`` — everything that changes when a file is rewritten, nothing of its bytes."""
    parts: list[object] = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError as exc:
            raise EmbeddingError(f"{path}: cannot read ({exc})") from exc
        parts.append(
            [str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev]
        )
    parts.append(extra)
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def files_digest(paths: Sequence[Path], extra: str, *, memo_dir: Path | None) -> str:
    """:func:`hash_files` of ``paths`` and ``extra``, from the memo in ``memo_dir`` when the
    files are the ones hashed before (see the module docstring); ``None``: no memo."""
    if memo_dir is None:
        return hash_files(paths, extra)
    key = identity(paths, extra)
    memo = _read(memo_dir / MEMO_FILE)
    found = memo.get(key)
    if isinstance(found, str) and len(found) == 64:
        return found
    digest = hash_files(paths, extra)
    memo.pop(key, None)
    memo[key] = digest
    _write(memo_dir / MEMO_FILE, dict(list(memo.items())[-MEMO_ENTRIES:]))
    return digest


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.info("ignoring the digest memo %s (%s)", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, memo: dict[str, object]) -> None:
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(memo), encoding="utf-8")
        partial.replace(path)  # atomic: a concurrent reader sees the old memo or the new one
    except OSError as exc:
        log.info("cannot write the digest memo %s (%s)", path, exc)
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
