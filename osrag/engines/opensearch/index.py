"""The reference engine: an OpenSearch cluster through opensearch-py.

Everything but the client library is shared with Elasticsearch
(:mod:`osrag.engines.rest.index`: generations, the alias compare-and-swap, bulk
writes with back-off, ``_msearch``, the record store in ``<alias>.manifest``).
What is OpenSearch's own: Amazon OpenSearch Serverless (``serverless=True``)
takes no shard, replica or refresh settings and has no ``_refresh``; and
OpenSearch 3.x scores BM25 with Lucene's current formula, without the
``k1 + 1`` factor 2.x and Elasticsearch keep (its scores are 1/2.2 of theirs,
ranks unchanged), and its ``keyword`` fields answer a ``term`` query with a
constant 1 unless ``use_similarity`` is set (2.x does not know the parameter):
osrag creates a 3.x generation with the ``LegacyBM25`` similarity and
``use_similarity`` on every keyword field (:func:`scored_as_2x`), so one
query scores the same on every engine osrag supports.
"""

from __future__ import annotations

from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConflictError, NotFoundError, TransportError
from opensearchpy.helpers import ScanError, scan, streaming_bulk

from osrag.engines.base import EngineCapabilities, SearchType
from osrag.engines.opensearch.pipelines import pipeline_definition
from osrag.engines.rest.clients import ClientKit
from osrag.engines.rest.errors import translating
from osrag.engines.rest.index import RestIndex
from osrag.engines.rest.records import RestRecords
from osrag.schema.plan import Fusion

__all__ = ["OpenSearchIndex", "OpenSearchRecords"]

OPENSEARCH_PY = ClientKit(
    streaming_bulk=streaming_bulk,
    scan=scan,
    not_found=NotFoundError,
    conflict=ConflictError,
    http_error=TransportError,
    scan_error=ScanError,
)

LEGACY_BM25 = {"default": {"type": "LegacyBM25"}}
"""The similarity of 2.x (and Elasticsearch 8), by its 3.x name (2.x does not know it)."""


def scored_as_2x(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (an index body) for OpenSearch 3.x, scoring as 2.x: the ``LegacyBM25``
    similarity by default, and ``use_similarity`` on each keyword field that does not set it.
    A copy: ``body`` is left as it is."""
    settings = body.get("settings", {})
    index = dict(settings.get("index", {}))
    index.setdefault("similarity", LEGACY_BM25)
    out = {**body, "settings": {**settings, "index": index}}
    mappings = body.get("mappings")
    if isinstance(mappings, dict):
        out["mappings"] = _keyword_scored(mappings)
    return out


def _keyword_scored(mapping: dict[str, Any]) -> dict[str, Any]:
    """A copy of a mapping (or field) with ``use_similarity: true`` on its keyword fields."""
    out = dict(mapping)
    if out.get("type") == "keyword":
        out.setdefault("use_similarity", True)
    for key in ("properties", "fields"):
        if isinstance(out.get(key), dict):
            out[key] = {name: _keyword_scored(field) for name, field in out[key].items()}
    if isinstance(out.get("dynamic_templates"), list):
        out["dynamic_templates"] = [
            {name: {**rule, "mapping": _keyword_scored(rule.get("mapping", {}))}}
            for template in out["dynamic_templates"]
            for name, rule in template.items()
        ]
    return out


OpenSearchRecords = RestRecords
"""The record store of an OpenSearch alias (the shared implementation)."""


@translating
class OpenSearchIndex(RestIndex):
    name = "opensearch"
    kit = OPENSEARCH_PY

    def __init__(
        self,
        client: OpenSearch,
        *,
        serverless: bool = False,
        bulk_backoff: float = 1.0,
        settings: Any = None,
        search_type: SearchType | None = None,
    ) -> None:
        super().__init__(
            client,
            serverless=serverless,
            bulk_backoff=bulk_backoff,
            settings=settings,
            search_type=search_type,
        )
        self._pipelines: set[str] = set()
        self._has_neural_search: bool | None = None
        self._major: int | None = None

    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        if not self.serverless and self._engine_major() >= 3:
            body = scored_as_2x(body)
        super().create_generation(name, body, bulk_loading=bulk_loading)

    def read_capabilities(self) -> EngineCapabilities:
        if self.serverless:
            return EngineCapabilities(engine=self.name, version="serverless")
        version = str(self.client.info()["version"]["number"])
        return EngineCapabilities(
            engine=self.name,
            version=version,
            search_type=self.search_type,
            node_fusion=frozenset({"rrf", "normalization"})
            if self._neural_search()
            else frozenset(),
            knn="opensearch",
            data_nodes=self.data_nodes(),
            legacy_bm25=int(version.split(".")[0]) >= 3,
        )

    def _engine_major(self) -> int:
        if self._major is None:
            number = str(self.client.info()["version"]["number"])
            self._major = int(number.split(".")[0])
        return self._major

    def fusion_pipeline(self, fusion: Fusion) -> str | None:
        """osrag's search pipeline for ``fusion``, when the cluster runs neural-search
        (created once, by a versioned name); None on Serverless or without the plugin."""
        if self.serverless or not self._neural_search():
            return None
        name, body = pipeline_definition(
            fusion.method, rank_constant=fusion.rank_constant, weights=fusion.weights
        )
        if name not in self._pipelines:
            self.client.transport.perform_request("PUT", f"/_search/pipeline/{name}", body=body)
            self._pipelines.add(name)
        return name

    def _neural_search(self) -> bool:
        if self._has_neural_search is None:
            try:
                plugins = self.client.cat.plugins(format="json")
                self._has_neural_search = any(
                    p.get("component") == "opensearch-neural-search" for p in plugins
                )
            except TransportError:
                self._has_neural_search = False
        return self._has_neural_search
