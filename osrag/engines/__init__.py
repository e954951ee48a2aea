"""Engines: where chunks are indexed and searched, each a :class:`ChunkIndex`.

:func:`choose_backend` picks one from the settings — a cluster (``--url`` /
``OSRAG_URL`` / a config file, or an Elastic Cloud ID) → that cluster's engine,
OpenSearch or Elasticsearch, told apart by asking it
(:func:`osrag.engines.rest.cluster.detect_engine`); none → the embedded index, in ``.osrag``
in the working directory or ``$OSRAG_HOME/embedded`` (``OSRAG_HOME`` also
holds the local node's files; the subfolder keeps the two apart).
``--backend opensearch|elasticsearch|embedded`` (or ``backend = …`` in the
settings) forces one without asking. :func:`open_index` opens the chosen one.
The library never prints; the CLI prints the choice's ``notice``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from osrag.engines.base import ChunkIndex
from osrag.errors import ConfigError

if TYPE_CHECKING:  # the settings are read when an engine is chosen, not on import
    from osrag.config import ConfigReport, Settings

EngineName = Literal["opensearch", "elasticsearch", "embedded"]

EMBEDDED_DIR = ".osrag"
"""The embedded index's folder in the working directory (without ``OSRAG_HOME``)."""


@dataclass(frozen=True)
class BackendChoice:
    name: EngineName
    root: Path | None = None
    """The embedded index's folder (embedded only)."""
    notice: str | None = None
    """One line for the user when the choice was automatic and not the cluster."""
    detected: bool = False
    """The cluster said which engine it is (``auto``)."""


def embedded_root(settings: Settings) -> Path:
    """``$OSRAG_HOME/embedded`` if a home is set, else ``.osrag`` in the working directory."""
    return settings.home / "embedded" if settings.home else Path(EMBEDDED_DIR)


def engine_in_use(settings: Settings) -> str:
    """Which engine the commands will use with ``settings``, and why — without
    connecting (``auto`` with a cluster asks it on the first command)."""
    backend = settings.backend
    if backend in ("opensearch", "elasticsearch"):
        return f"{backend} at {settings.effective_url} (the backend setting)"
    if backend == "auto" and settings.has_cluster:
        return (
            f"the cluster at {settings.effective_url}: OpenSearch or Elasticsearch, asked "
            "when a command connects (osrag config check asks now)"
        )
    why = "the backend setting" if backend == "embedded" else "no cluster URL is set"
    return f"the embedded index in {embedded_root(settings).resolve()} ({why})"


def config_report(settings: Settings) -> ConfigReport:
    """:meth:`Settings.report`, with the engine the commands will use."""
    report = settings.report()
    report.engine = engine_in_use(settings)
    return report


def _detect(settings: Settings) -> Literal["opensearch", "elasticsearch"]:
    from osrag.engines.rest.cluster import detect_engine

    return detect_engine(settings)


def choose_backend(
    settings: Settings,
    backend: str | None = None,
    *,
    detect: Callable[[Settings], Literal["opensearch", "elasticsearch"]] = _detect,
) -> BackendChoice:
    """Which engine ``backend`` (default: the ``backend`` setting) means with these settings.

    ``auto`` with a cluster asks it which engine it is (``detect``: one request).
    """
    from osrag.config import BACKENDS

    backend = backend if backend is not None else settings.backend
    if backend not in BACKENDS:
        raise ConfigError(f"--backend {backend!r}: choose {', '.join(BACKENDS[:-1])} or embedded")
    if backend in ("opensearch", "elasticsearch"):
        return BackendChoice(backend)  # type: ignore[arg-type]
    if backend == "auto" and settings.has_cluster:
        return BackendChoice(detect(settings), detected=True)
    root = embedded_root(settings)
    notice = None
    if backend == "auto":
        notice = (
            f"no cluster URL set; using the embedded index in {root} — "
            "set OSRAG_URL to use a cluster"
        )
    return BackendChoice("embedded", root=root, notice=notice)


def open_index(
    settings: Settings,
    *,
    backend: str | None = None,
    choice: BackendChoice | None = None,
    asynchronous: bool = False,
) -> ChunkIndex:
    """The engine the settings name (clients from
    :func:`osrag.engines.rest.clients.connect` and
    :func:`osrag.engines.rest.clients.connect_elasticsearch`). ``choice``: one already
    made. ``asynchronous``: a cluster's engine also gets an asyncio client
    (:func:`osrag.engines.rest.async_search.connect_async`) for
    :meth:`~osrag.engines.base.ChunkIndex.asearch`."""
    engine = _open(settings, choice or choose_backend(settings, backend))
    if asynchronous and engine.name != "embedded":
        from osrag.engines.rest.async_search import connect_async

        engine.attach_async(connect_async(settings, engine.name))
    return engine


def _open(settings: Settings, choice: BackendChoice) -> ChunkIndex:
    if choice.name == "embedded":
        from osrag.engines.embedded.index import EmbeddedIndex

        assert choice.root is not None
        return EmbeddedIndex(choice.root)
    if choice.name == "elasticsearch":
        from osrag.engines.rest.clients import client_library, connect_elasticsearch

        client_library()  # a clear ConfigError when the extra is not installed
        from osrag.engines.elasticsearch.index import ElasticsearchIndex

        engine = ElasticsearchIndex(
            connect_elasticsearch(settings), settings=settings, search_type=settings.search_type
        )
        if not choice.detected:  # the probe has seen X-elastic-product already
            engine.verify()
        return engine

    from osrag.engines.opensearch.index import OpenSearchIndex
    from osrag.engines.rest.clients import connect

    return OpenSearchIndex(
        connect(settings),
        serverless=settings.is_serverless,
        settings=settings,
        search_type=settings.search_type,
    )


__all__ = [
    "EMBEDDED_DIR",
    "BackendChoice",
    "ChunkIndex",
    "EngineName",
    "choose_backend",
    "embedded_root",
    "open_index",
]
