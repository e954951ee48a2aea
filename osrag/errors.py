"""One small exception tree. Every expected failure is an :class:`OsragError`.

The CLI maps each class to a one-line message and an exit code and never shows
a traceback for these; library callers can catch the base class.
"""

from __future__ import annotations

import errno


class OsragError(Exception):
    """Base of every error osrag raises on purpose."""

    exit_code: int = 1


class ConfigError(OsragError):
    """A setting, flag or configuration file is wrong."""

    exit_code = 2


class CorpusError(OsragError):
    """A corpus cannot be read at all (a single bad file is reported, not raised)."""

    exit_code = 3


class InputError(OsragError):
    """An evaluation input (queries, topics, qrels, span qrels, passages) cannot be read,
    or cannot mean what it says (judgments that match nothing in the index)."""

    exit_code = 3


class ExtractionError(OsragError):
    """A structured value cannot be represented (e.g. an amount beyond a ``long``)."""

    exit_code = 3


class ClusterError(OsragError):
    """The cluster cannot be reached, refused the request, or answered unexpectedly."""

    exit_code = 4


class AuthError(ClusterError):
    """The cluster rejected the credentials (401/403)."""


class TLSError(ClusterError):
    """The TLS handshake failed (unknown CA, wrong host, plain HTTP to a TLS port…)."""


class IndexStateError(OsragError):
    """The index, alias or manifest is not in the state an operation needs."""

    exit_code = 5


class StorageError(IndexStateError):
    """The index or its records could not be written: a full disk, a file grown past what
    the system allows, an I/O error. What was written before stays consistent; the
    message names the cause and where."""


class UnsafeFileError(StorageError):
    """A file osrag would write (or read back to overwrite) is a symbolic link, not a
    regular file, or in a folder that is not one or that others may fill: refused, never
    written through (:mod:`osrag.writes`)."""


class LockedError(IndexStateError):
    """Another ingest holds the lock on this alias."""

    exit_code = 6


class NodeError(OsragError):
    """The local development node could not be fetched, started or stopped."""

    exit_code = 7


class QueryError(OsragError):
    """A query cannot be built as asked (e.g. a multi-tenant alias without a tenant)."""

    exit_code = 8


class EmbeddingError(OsragError):
    """An embedding model could not be loaded, failed, or returned unusable vectors."""

    exit_code = 9


class EmbeddingInputError(EmbeddingError):
    """The embedding service refused the texts themselves (a 4xx answer such as 400 or 413,
    a function that failed on them): other texts may go through. Any other embedding
    error is the service's or the model's, and stops an ingest rather than being tried
    again text by text."""


class DimensionMismatchError(EmbeddingError):
    """Vectors have a different dimension from the one the index (or caller) expects."""

    def __init__(self, message: str, *, expected: int, actual: int) -> None:
        super().__init__(message)
        self.expected = expected
        self.actual = actual


_NO_ROOM = ("disk is full", "disk i/o error", "file too large", "no space left", "quota exceeded")
"""How SQLite and the OS say that a write did not fit (SQLITE_FULL, SQLITE_IOERR on
ENOSPC or EFBIG, EDQUOT)."""


def no_room(exc: BaseException) -> bool:
    """Whether ``exc`` is a write refused for lack of room (a full disk, a file over the
    size limit, a quota) or an I/O error, rather than bad data."""
    if getattr(exc, "errno", None) in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EIO):
        return True
    text = str(exc).lower()  # a Rust library's io::Error says "(os error 28)"
    codes = (errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EIO)
    return any(marker in text for marker in _NO_ROOM) or any(
        f"os error {code})" in text for code in codes
    )
