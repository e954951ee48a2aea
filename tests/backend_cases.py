"""One backend under test, whichever it is: the same checks run on OpenSearch and embedded.

Checks go through the :class:`~osrag.backends.base.Backend` interface (a filtered
search reads chunk ids and sources), so a test says *what* it expects once. The
few facts only one engine can show — how many writes a generation saw — have one
helper with an implementation per engine.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch

from osrag.backends.base import Backend
from osrag.backends.embedded import EmbeddedBackend
from osrag.backends.opensearch import OpenSearchBackend
from osrag.models import AppliedFilter, QuerySpec
from osrag.query import QueryPlan

KINDS = ("opensearch", "embedded")
BACKEND_PARAMS = [pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"]
"""Parametrize a fixture over both backends; the OpenSearch one needs the cluster."""


def filter_plan(clauses: list[dict[str, Any]], size: int = 10_000) -> QueryPlan:
    """A plan that only filters (every chunk scores 1): read what the index holds."""
    spec = QuerySpec(text="", size=size, amount_filter=False, highlight=False)
    return QueryPlan(
        spec=spec,
        match_text="",
        amount=None,
        amount_status="off",
        filters=[AppliedFilter(name=f"check{i}", clause=c) for i, c in enumerate(clauses)],
    )


@dataclass
class BackendCase:
    kind: str
    backend: Backend
    alias: str
    url: str | None = None
    home: Path | None = None
    """The embedded backend's ``OSRAG_HOME`` (its index is in ``home/embedded``)."""

    def build(self, cls: type[Backend] | None = None) -> Backend:
        """A new backend on the same engine and data (another client; another process's view)."""
        if self.kind == "opensearch":
            assert self.url is not None
            return (cls or OpenSearchBackend)(OpenSearch(self.url, timeout=60))  # type: ignore[call-arg]
        assert self.home is not None
        return (cls or EmbeddedBackend)(self.home / "embedded")  # type: ignore[call-arg]

    def cli(self) -> tuple[list[str], dict[str, str]]:
        """Extra CLI arguments and environment that reach this backend."""
        if self.kind == "opensearch":
            assert self.url is not None
            return ["--backend", "opensearch"], {"OSRAG_URL": self.url}
        return ["--backend", "embedded"], {"OSRAG_HOME": str(self.home)}

    def chunk_ids(self, target: str, doc_id: str | None = None) -> set[str]:
        self.backend.refresh(target)
        clauses = [{"term": {"doc_id": doc_id}}] if doc_id else []
        raw = self.backend.search(target, filter_plan(clauses))
        return {h.source["chunk_id"] for h in raw.hits}

    def source(self, target: str, chunk_id: str) -> dict[str, Any]:
        raw = self.backend.search(target, filter_plan([{"term": {"chunk_id": chunk_id}}]))
        assert len(raw.hits) == 1, f"{chunk_id} found {len(raw.hits)} times in {target}"
        return raw.hits[0].source

    def writes_seen(self, generation: str) -> object:
        """Changes whenever the generation is written to (and only then)."""
        if self.kind == "opensearch":
            client = self.backend.client  # type: ignore[attr-defined]
            stats = client.indices.stats(index=generation, metric="indexing")
            indexing = stats["_all"]["primaries"]["indexing"]
            return int(indexing["index_total"]), int(indexing["delete_total"])
        assert self.home is not None
        alias = generation.rsplit("-", 2)[0]
        meta = self.home / "embedded" / alias / "generations" / generation / "meta.json"
        return hashlib.sha256(meta.read_bytes()).hexdigest()  # every tantivy commit rewrites it


def new_alias() -> str:
    return f"osrag-test-{uuid.uuid4().hex[:10]}"


def open_case(request: Any, kind: str, folder: Path, alias: str | None = None) -> BackendCase:
    """A case of ``kind``: the session cluster, or an embedded index under ``folder``."""
    if kind == "opensearch":
        client = request.getfixturevalue("os_client")
        url = request.getfixturevalue("opensearch_url")
        return BackendCase(kind, OpenSearchBackend(client), alias or new_alias(), url=url)
    home = folder / "osrag-home"
    return BackendCase(kind, EmbeddedBackend(home / "embedded"), alias or new_alias(), home=home)
