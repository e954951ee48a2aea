"""Backends: where chunks are indexed and searched.

:func:`open_backend` picks one from the settings: ``OSRAG_URL`` / ``--url`` →
the OpenSearch cluster; ``--backend`` forces one.
"""

from __future__ import annotations

from typing import Literal

from osrag.backends.base import Backend
from osrag.config import Settings

BackendName = Literal["auto", "opensearch", "embedded"]


def open_backend(
    settings: Settings,
    *,
    backend: BackendName = "auto",
    analyzer: str = "english",
    replicas: int = 0,
) -> Backend:
    """The backend the settings name (the client comes from :func:`osrag.client.connect`)."""
    from osrag.backends.opensearch import OpenSearchBackend
    from osrag.client import connect

    return OpenSearchBackend(
        connect(settings), analyzer=analyzer, replicas=replicas, serverless=settings.is_serverless
    )


__all__ = ["Backend", "BackendName", "open_backend"]
