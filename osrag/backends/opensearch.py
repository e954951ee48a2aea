"""The reference engine: an OpenSearch cluster through opensearch-py.

Everything but the client library is shared with Elasticsearch
(:mod:`osrag.backends.rest`: generations, the alias compare-and-swap, bulk
writes with back-off, ``_msearch``, the record store in ``<alias>.manifest``).
What is OpenSearch's own: Amazon OpenSearch Serverless (``serverless=True``)
takes no shard, replica or refresh settings and has no ``_refresh``.
"""

from __future__ import annotations

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConflictError, NotFoundError, TransportError
from opensearchpy.helpers import scan, streaming_bulk

from osrag.backends.rest import (
    BULK_ACTIONS,
    BULK_BYTES,
    BULK_RESPONSE,
    BULK_RETRIES,
    ClientKit,
    RestIndex,
    RestRecords,
    manifest_index,
)

__all__ = [
    "BULK_ACTIONS",
    "BULK_BYTES",
    "BULK_RESPONSE",
    "BULK_RETRIES",
    "OpenSearchIndex",
    "OpenSearchRecords",
    "manifest_index",
]

OPENSEARCH_PY = ClientKit(
    streaming_bulk=streaming_bulk,
    scan=scan,
    not_found=NotFoundError,
    conflict=ConflictError,
    http_error=TransportError,
)

OpenSearchRecords = RestRecords
"""The record store of an OpenSearch alias (the shared implementation)."""


class OpenSearchIndex(RestIndex):
    name = "opensearch"
    kit = OPENSEARCH_PY

    def __init__(
        self,
        client: OpenSearch,
        *,
        serverless: bool = False,
        bulk_backoff: float = 1.0,
    ) -> None:
        super().__init__(client, serverless=serverless, bulk_backoff=bulk_backoff)
