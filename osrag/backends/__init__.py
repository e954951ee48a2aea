"""Engines: where chunks are indexed and searched, each a :class:`ChunkIndex`.

:func:`choose_backend` picks one from the settings — an OpenSearch URL
(``--url`` / ``OSRAG_URL`` / a config file) → the cluster; none → the embedded
index, in ``.osrag`` in the working directory or ``$OSRAG_HOME/embedded``
(``OSRAG_HOME`` also holds the local node's files; the subfolder keeps the two
apart). ``--backend opensearch|embedded`` forces one. :func:`open_index`
opens the chosen one. The library never prints; the CLI prints the choice's
``notice``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from osrag.backends.base import ChunkIndex
from osrag.config import Settings
from osrag.errors import ConfigError

BackendName = Literal["auto", "opensearch", "embedded"]

EMBEDDED_DIR = ".osrag"
"""The embedded index's folder in the working directory (without ``OSRAG_HOME``)."""


@dataclass(frozen=True)
class BackendChoice:
    name: Literal["opensearch", "embedded"]
    root: Path | None = None
    """The embedded index's folder (embedded only)."""
    notice: str | None = None
    """One line for the user when the choice was automatic and not the cluster."""


def embedded_root(settings: Settings) -> Path:
    """``$OSRAG_HOME/embedded`` if a home is set, else ``.osrag`` in the working directory."""
    return settings.home / "embedded" if settings.home else Path(EMBEDDED_DIR)


def choose_backend(settings: Settings, backend: str = "auto") -> BackendChoice:
    """Which backend ``backend`` (auto, opensearch, embedded) means with these settings."""
    if backend not in ("auto", "opensearch", "embedded"):
        raise ConfigError(f"--backend {backend!r}: choose auto, opensearch or embedded")
    if backend == "opensearch" or (backend == "auto" and settings.url):
        return BackendChoice("opensearch")
    root = embedded_root(settings)
    notice = None
    if backend == "auto":
        notice = (
            f"no OpenSearch URL set; using the embedded index in {root} — "
            "set OSRAG_URL to use a cluster"
        )
    return BackendChoice("embedded", root=root, notice=notice)


def open_index(settings: Settings, *, backend: str = "auto") -> ChunkIndex:
    """The engine the settings name (the client comes from :func:`osrag.client.connect`)."""
    choice = choose_backend(settings, backend)
    if choice.name == "embedded":
        from osrag.backends.embedded import EmbeddedIndex

        assert choice.root is not None
        return EmbeddedIndex(choice.root)

    from osrag.backends.opensearch import OpenSearchIndex
    from osrag.client import connect

    return OpenSearchIndex(
        connect(settings), serverless=settings.is_serverless, search_type=settings.search_type
    )


__all__ = [
    "EMBEDDED_DIR",
    "BackendChoice",
    "BackendName",
    "ChunkIndex",
    "choose_backend",
    "embedded_root",
    "open_index",
]
