"""Elasticsearch 8 as an engine: the same generations, alias, manifest and queries as OpenSearch.

Everything but the client library is shared with OpenSearch
(:mod:`osrag.engines.rest.index`): generations behind an alias moved with
``must_exist`` (Elasticsearch 8.15 refuses the move with
``aliases_not_found_exception`` when the alias left the previous generation),
``_bulk`` with the same back-off, ``_msearch`` answering in the same shape,
and the record store in ``<alias>.manifest`` with the same conditional
writes. The client is elasticsearch-py 8 (``pip install 'osrag[elasticsearch]'``;
:func:`osrag.engines.rest.clients.connect_elasticsearch` builds it from the settings).

What is Elasticsearch's own:

* **The text analyzer.** A node without the ``analysis-common`` module — the
  integ-test distribution ``osrag node start --engine elasticsearch`` runs —
  has no ``english`` analyzer. :meth:`ElasticsearchIndex.text_analyzer` asks
  the node (it tries the analyzer in a throw-away index) and, when it is missing, falls
  back to ``standard`` (lowercased Unicode words: no stemming, no stop
  words), logs one warning, and ingest records the choice in the generation's
  config (``analyzer``: ``standard``, ``analyzer_requested``: ``english``), so
  the generation digest — and ``osrag index status`` — name the analyzer
  really used. A full distribution (Docker, Elastic Cloud, a user's cluster)
  gets ``english`` from the same mapping.
* **The mapping** is translated where the engines differ
  (:mod:`.mapping`: ``knn_vector`` → ``dense_vector``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from elasticsearch import ApiError, ConflictError, Elasticsearch, NotFoundError
from elasticsearch.helpers import ScanError, scan, streaming_bulk

from osrag.engines.base import EngineCapabilities, SearchType
from osrag.engines.elasticsearch.mapping import requested_analyzer, to_elasticsearch
from osrag.engines.elasticsearch.requests import RRF_PIPELINE, translate
from osrag.engines.rest.clients import ClientKit
from osrag.engines.rest.errors import translating
from osrag.engines.rest.index import RestIndex
from osrag.errors import ClusterError
from osrag.schema.plan import Fusion

log = logging.getLogger("osrag.engines.elasticsearch")

FALLBACK_ANALYZER = "standard"
"""Built into every Elasticsearch node (the analysis-common module adds the language ones)."""

ELASTICSEARCH_PY = ClientKit(
    streaming_bulk=streaming_bulk,
    scan=scan,
    not_found=NotFoundError,
    conflict=ConflictError,
    http_error=ApiError,
    scan_error=ScanError,
)


def _unknown_analyzer_type(exc: ApiError) -> bool:
    """Index creation refused with "Unknown analyzer type [name] for [osrag_text]"."""
    return exc.meta.status == 400 and "unknown analyzer type" in str(exc.body).lower()


def _oldest(versions: Iterable[str]) -> str:
    """The oldest node's version (what every request must be understood by)."""
    return min(versions, key=lambda v: tuple(int(p) for p in v.split("-")[0].split(".")))


def probe_index(alias: str) -> str:
    """The throw-away index an analyzer is tried in: under the alias's own name, so the
    privileges an ingest needs (``<alias>*``) are enough; never a generation's name."""
    return f"{alias}-analyzer-probe"


@translating
class ElasticsearchIndex(RestIndex):
    name = "elasticsearch"
    kit = ELASTICSEARCH_PY

    def __init__(
        self,
        client: Elasticsearch,
        *,
        bulk_backoff: float = 1.0,
        settings: Any = None,
        search_type: SearchType | None = None,
    ) -> None:
        super().__init__(
            client, bulk_backoff=bulk_backoff, settings=settings, search_type=search_type
        )
        self._analyzers: dict[str, str] = {}
        self._rrf: bool | None = None

    def request_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body with its vector parts in Elasticsearch's form
        (:mod:`osrag.engines.elasticsearch.requests`)."""
        return translate(body)

    def takes_search_type(self, body: dict[str, Any]) -> bool:
        """Not a body with a top-level ``knn`` or a retriever: Elasticsearch runs a kNN
        search in a DFS phase of its own and refuses a search type beside it ("the search
        type is determined automatically")."""
        return "knn" not in body and "retriever" not in body

    def fusion_pipeline(self, fusion: Fusion) -> str | None:
        """RRF on the engine where the cluster has the ``rrf`` retriever (asked once: the
        free distribution answers "unknown retriever [rrf]"); else the client fuses."""
        if fusion.method != "rrf":
            return None
        if self._rrf is None:
            probe = {
                "size": 0,
                "retriever": {
                    "rrf": {
                        "retrievers": [
                            {"standard": {"query": {"match_none": {}}}},
                            {"standard": {"query": {"match_none": {}}}},
                        ]
                    }
                },
            }
            try:
                self.client.search(index="_all", body=probe, allow_no_indices=True)
                self._rrf = True
            except ApiError:
                self._rrf = False
        return f"{RRF_PIPELINE}-{fusion.rank_constant}" if self._rrf else None

    def read_capabilities(self) -> EngineCapabilities:
        rrf = self.fusion_pipeline(Fusion()) is not None
        nodes = self.client.cat.nodes(h="version", format="json")
        return EngineCapabilities(
            engine=self.name,
            version=_oldest(str(n["version"]) for n in nodes),
            search_type=self.search_type,
            node_fusion=frozenset({"rrf"}) if rrf else frozenset(),
            knn="elasticsearch",
            data_nodes=self.data_nodes(),
        )

    def verify(self) -> None:
        """Raise :class:`ClusterError` unless the server is Elasticsearch.

        elasticsearch-py checks ``X-elastic-product`` on its first *successful* answer
        only: against OpenSearch, an alias that is not there (404) would read as "no
        alias yet". One ``_cluster/health`` settles it; any 4xx (a key without the
        monitor privilege) still carries the header.
        """
        quiet = self.client.options(ignore_status=list(range(400, 500)))
        answer = quiet.cluster.health()
        if answer.meta.headers.get("x-elastic-product") != "Elasticsearch":
            (node,) = self.client.transport.node_pool.all()[:1]
            raise ClusterError(
                f"{node.base_url} is not Elasticsearch (its answer has no X-elastic-product "
                "header; OpenSearch?): use --backend opensearch, or auto to let osrag tell"
            )

    def has_analyzer(self, kind: str, alias: str) -> bool:
        """Whether a generation of ``alias`` can define an analyzer of type ``kind`` here.

        Asked by creating an index with exactly that analyzer (the node refuses an
        unknown type before it creates anything; a known one costs a create and a
        delete). ``_analyze`` is not enough: a node without ``analysis-common`` runs
        the built-in ``whitespace`` analyzer but refuses it as an analyzer type.
        """
        name = probe_index(alias)
        body = {
            "settings": {
                "index": {"number_of_shards": 1, "number_of_replicas": 0},
                "analysis": {"analyzer": {"osrag_text": {"type": kind}}},
            }
        }
        for attempt in (1, 2):
            try:
                self.client.indices.create(index=name, body=body, wait_for_active_shards="0")
            except ApiError as exc:
                if _unknown_analyzer_type(exc):
                    return False
                if "resource_already_exists" in str(exc.body) and attempt == 1:
                    self.drop_index(name)  # left by an interrupted probe
                    continue
                raise
            break
        self.drop_index(name)
        return True

    def text_analyzer(self, requested: str, alias: str) -> str:
        chosen = self._analyzers.get(requested)
        if chosen is None:
            chosen = requested if self.has_analyzer(requested, alias) else FALLBACK_ANALYZER
            if chosen != requested:
                log.warning(
                    "this Elasticsearch node has no %r analyzer (no analysis-common module, "
                    "as in the integ-test distribution): generations use %r instead (no "
                    "stemming, no stop words), recorded in the generation's config",
                    requested,
                    chosen,
                )
            self._analyzers[requested] = chosen
        return chosen

    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        requested = requested_analyzer(body)
        alias = name.rsplit("-", 2)[0]
        analyzer = self.text_analyzer(requested, alias) if requested else None
        translated = to_elasticsearch(body, analyzer=analyzer)
        super().create_generation(name, translated, bulk_loading=bulk_loading)
