"""Elasticsearch 8 as an engine: the same generations, alias, manifest and queries as OpenSearch.

Everything but the client library is shared with OpenSearch
(:mod:`osrag.backends.rest`): generations behind an alias moved with
``must_exist`` (Elasticsearch 8.15 refuses the move with
``aliases_not_found_exception`` when the alias left the previous generation),
``_bulk`` with the same back-off, ``_msearch`` answering in the same shape,
and the record store in ``<alias>.manifest`` with the same conditional
writes. The client is elasticsearch-py 8 (``pip install 'osrag[elasticsearch]'``;
:func:`osrag.elastic.connect_elasticsearch` builds it from the settings).

What is Elasticsearch's own:

* **The text analyzer.** A node without the ``analysis-common`` module — the
  integ-test distribution ``osrag node start --engine elasticsearch`` runs —
  has no ``english`` analyzer. :meth:`ElasticsearchIndex.text_analyzer` asks
  the node (``_analyze`` with the analyzer) and, when it is missing, falls
  back to ``standard`` (lowercased Unicode words: no stemming, no stop
  words), logs one warning, and ingest records the choice in the generation's
  config (``analyzer``: ``standard``, ``analyzer_requested``: ``english``), so
  the generation digest — and ``osrag index status`` — name the analyzer
  really used. A full distribution (Docker, Elastic Cloud, a user's cluster)
  gets ``english`` from the same mapping.
* **The mapping** is translated where the engines differ
  (:mod:`.elasticsearch_mapping`: ``knn_vector`` → ``dense_vector``).
"""

from __future__ import annotations

import logging
from typing import Any

from elasticsearch import ApiError, ConflictError, Elasticsearch, NotFoundError
from elasticsearch.helpers import scan, streaming_bulk

from osrag.backends.elasticsearch_mapping import requested_analyzer, to_elasticsearch
from osrag.backends.rest import ClientKit, RestIndex

log = logging.getLogger("osrag.backends.elasticsearch")

FALLBACK_ANALYZER = "standard"
"""Built into every Elasticsearch node (the analysis-common module adds the language ones)."""

ELASTICSEARCH_PY = ClientKit(
    streaming_bulk=streaming_bulk,
    scan=scan,
    not_found=NotFoundError,
    conflict=ConflictError,
    http_error=ApiError,
)


def _missing_analyzer(exc: ApiError) -> bool:
    """The node answered ``_analyze`` with "failed to find … analyzer [name]"."""
    return exc.meta.status == 400 and "failed to find" in str(exc.body or exc.message)


class ElasticsearchIndex(RestIndex):
    name = "elasticsearch"
    kit = ELASTICSEARCH_PY

    def __init__(self, client: Elasticsearch, *, bulk_backoff: float = 1.0) -> None:
        super().__init__(client, bulk_backoff=bulk_backoff)
        self._analyzers: dict[str, str] = {}

    def has_analyzer(self, name: str) -> bool:
        """Whether the node knows the built-in analyzer ``name`` (one ``_analyze`` call)."""
        try:
            self.client.indices.analyze(body={"analyzer": name, "text": "osrag"})
        except ApiError as exc:
            if _missing_analyzer(exc):
                return False
            raise
        return True

    def text_analyzer(self, requested: str) -> str:
        chosen = self._analyzers.get(requested)
        if chosen is None:
            chosen = requested if self.has_analyzer(requested) else FALLBACK_ANALYZER
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
        analyzer = self.text_analyzer(requested) if requested else None
        translated = to_elasticsearch(body, analyzer=analyzer)
        super().create_generation(name, translated, bulk_loading=bulk_loading)
