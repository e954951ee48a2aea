"""What OpenSearch and Elasticsearch share: one :class:`ChunkIndex` over their common REST API.

The two engines speak the same index, alias, bulk, search and document APIs
(Elasticsearch 7.10 is where OpenSearch forked), and their Python clients
(opensearch-py, elasticsearch-py 8) take the same calls with ``body=``. What
differs is the client library — its bulk and scroll helpers and its exception
classes — which each engine names once in a :class:`ClientKit`; the engines
themselves (:mod:`.opensearch`, :mod:`.elasticsearch`) add only what is theirs
(Serverless settings; analyzer and mapping translation).

Generations are indices created from ``mappings/chunks.json``; the alias moves
in one ``_aliases`` call whose ``remove`` of the previous generation must
succeed (``must_exist``, OpenSearch 2.x and Elasticsearch ≥ 7.11), so two
concurrent swaps cannot both win. Records (the manifest and the ingest lock)
live in the cluster itself, in the index ``<alias>.manifest``
(``mappings/manifest.json``), one document per record with the id
``<kind>::<key>``; conditional writes use ``op_type=create`` and
``if_seq_no``/``if_primary_term``. Chunk deletes are by id in ``_bulk`` —
never ``_delete_by_query``, which the dev nodes (no reindex module) and
managed serverless offerings lack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from osrag.engines.base import (
    NESTED_OBJECTS_LIMIT,
    Action,
    ChunkIndex,
    ItemFailure,
    Put,
    RecordStore,
    SearchType,
    WriteOutcome,
)
from osrag.engines.mapping import VECTOR_FIELD
from osrag.engines.rest import bulk
from osrag.engines.rest.async_search import AsyncRestSearch
from osrag.engines.rest.bulk import BulkStats
from osrag.engines.rest.clients import ClientKit
from osrag.engines.rest.compiler import compile_filter, compile_plans, read_plans, run_plans
from osrag.engines.rest.errors import translating
from osrag.engines.rest.records import RestRecords
from osrag.engines.rest.refusals import describe, msearch_gap, shard_gap
from osrag.errors import ClusterError, IndexStateError, QueryError
from osrag.schema.filters import Filter
from osrag.schema.ingest import generation_pattern
from osrag.schema.plan import EngineResult, SearchPlan

BULK_ACTIONS = 10_000
BULK_BYTES = 64 * 2**20
"""Caps that split one :meth:`RestIndex.write` into several ``_bulk`` requests. An
ingest sizes its batches itself (:data:`osrag.ingestion.apply.BATCH_BYTES`), well below these; they
keep any caller under the engine's ``http.max_content_length`` (100 MB by default)."""
DEFAULT_SEARCH_TYPE: SearchType = "dfs_query_then_fetch"
"""Score with term statistics gathered from every shard first (see ``docs/scale.md``:
on a 3-shard generation ``query_then_fetch`` reorders small filtered candidate sets, and
the extra round trip costs little; the engine skips it for one shard)."""
BULK_RETRIES = 6  # 429s are resent with exponential back-off (1 s … 30 s)
SHARD_RETRY_PAUSES = (0.2, 0.5, 1.0, 2.0)
"""Seconds between the tries of a read some shard did not answer. When a node dies, the
engine moves its copies' work to the others within a second or two; a read that is
still short after the last pause fails (:func:`~osrag.engines.rest.refusals.shard_gap`)."""
VECTOR_PAGE = 500
"""Ids per request of :meth:`RestIndex.stored_vectors` (384 floats each: about 4 MB of
JSON an answer)."""
SCAN_PAGE = 5000
"""Ids per page of :meth:`RestIndex.chunk_ids` (two short fields each)."""
BULK_RESPONSE = "errors,items.*._id,items.*._index,items.*.status,items.*.error"
"""What a ``_bulk`` answer needs to carry back: per item its id, index, status and error."""


log = logging.getLogger("osrag.engines.rest")


T = TypeVar("T")


@translating
class RestIndex(ChunkIndex):
    """Generations, alias, bulk writes and searches over the shared REST API."""

    kit: ClientKit

    def __init__(
        self,
        client: Any,
        *,
        serverless: bool = False,
        bulk_backoff: float = 1.0,
        settings: Any = None,
        search_type: SearchType | None = None,
    ):
        self.client = client
        self.search_type: SearchType = search_type or DEFAULT_SEARCH_TYPE
        """How searches score across shards when a request does not say."""
        self.settings = settings
        """The settings the client was made from (clearer error messages), if known."""
        self.serverless = serverless
        self.eventual_refresh = serverless
        self.write_concurrency = 2  # one bulk request indexed while the next is sent
        self.bulk_backoff = bulk_backoff
        """Seconds before the first resend of a throttled bulk (doubling up to 30 s)."""
        self.shard_retry_pauses: Sequence[float] = SHARD_RETRY_PAUSES
        self._records: dict[str, RestRecords] = {}
        self._async: AsyncRestSearch | None = None

    # -------------------------------------------------------------------- generations

    def data_nodes(self) -> int | None:
        """Nodes that hold data, asked of the cluster (what :meth:`capabilities` reports)."""
        if self.serverless:
            return None  # Serverless places shards and replicas itself
        return int(self.client.cluster.health()["number_of_data_nodes"])

    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        body = {**body, "settings": {**body.get("settings", {})}}
        index_settings = dict(body["settings"].get("index", {}))
        if self.serverless:
            index_settings = {}  # Serverless manages shards, replicas and refresh itself
        elif bulk_loading:
            index_settings["refresh_interval"] = "-1"
        body["settings"]["index"] = index_settings
        self.client.indices.create(index=name, body=body)

    def nested_objects_limit(self, generation: str) -> int:
        """``index.mapping.nested_objects.limit`` of ``generation``, as the engine applies
        it (its own setting, a template's, or the default), read once per generation."""
        known: dict[str, int] = self.__dict__.setdefault("_nested_limits", {})
        if generation not in known:
            setting = "index.mapping.nested_objects.limit"
            if self.serverless:  # no index settings API: the service's default applies
                known[generation] = NESTED_OBJECTS_LIMIT
                return NESTED_OBJECTS_LIMIT
            answer = self.client.indices.get_settings(
                index=generation, name=setting, include_defaults=True, flat_settings=True
            )
            found: dict[str, Any] = next(iter(dict(answer).values()), {})
            value = found.get("settings", {}).get(setting) or found.get("defaults", {}).get(
                setting, NESTED_OBJECTS_LIMIT
            )
            known[generation] = int(value)
        return known[generation]

    def finish_generation(self, name: str) -> None:
        if not self.serverless:
            self.client.indices.put_settings(
                index=name,
                body={"index": {"refresh_interval": None}},  # back to the mapping's
            )
        self.refresh(name)

    def drop_index(self, name: str) -> None:
        """Delete an index; a missing one is not an error."""
        with contextlib.suppress(self.kit.not_found):
            self.client.indices.delete(index=name)

    def drop_generation(self, name: str) -> None:
        self.drop_index(name)

    def generations(self, alias: str) -> set[str]:
        pattern = generation_pattern(alias)
        found = self.client.indices.get(
            index=f"{alias}-*",
            expand_wildcards="all",
            ignore_unavailable=True,
            allow_no_indices=True,
        )
        return {name for name in found if pattern.fullmatch(name)}

    def alias_target(self, alias: str) -> str | None:
        try:
            found = self.client.indices.get_alias(name=alias)
        except self.kit.not_found:
            if self.client.indices.exists(index=alias):
                raise IndexStateError(
                    f"{alias!r} is a concrete index, not an alias: choose another --alias "
                    "(osrag builds generations behind an alias so it can swap them)"
                ) from None
            return None
        targets = sorted(found)
        if len(targets) > 1:
            raise IndexStateError(f"alias {alias!r} points to several indices: {targets}")
        return targets[0] if targets else None

    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        if previous is None:
            now = self.alias_target(alias)
            if now is not None:
                raise IndexStateError(
                    f"alias {alias!r} was expected to point nowhere but points to {now!r}"
                )
            actions: list[dict[str, Any]] = []
        else:
            actions = [{"remove": {"index": previous, "alias": alias, "must_exist": True}}]
        actions.append({"add": {"index": to, "alias": alias}})
        try:
            self.client.indices.update_aliases(body={"actions": actions})
        except self.kit.not_found as exc:
            raise IndexStateError(
                f"alias {alias!r} no longer points to {previous!r} (another ingest or rollback "
                f"moved it): it was left as it is ({getattr(exc, 'error', exc)})"
            ) from None

    # -------------------------------------------------------------------- chunks

    @staticmethod
    def _bulk_action(index: str, action: Action) -> dict[str, Any]:
        if isinstance(action, Put):
            return {
                "_op_type": "index",
                "_index": index,
                "_id": action.id,
                "_source": bulk.dumps(action.source),
            }
        return {"_op_type": "delete", "_index": index, "_id": action.id}

    def _throttled_request(self, exc: BaseException) -> bool:
        """A whole ``_bulk`` request answered 429 (the write queue is full): send it again."""
        return self.kit.status(exc) == 429

    def send(self, actions: list[dict[str, Any]], stats: BulkStats) -> Iterator[bulk.ItemResult]:
        """``_bulk`` with osrag's back-off (:mod:`osrag.engines.rest.bulk`)."""
        return bulk.send(
            self.kit.streaming_bulk,
            self.client,
            actions,
            stats,
            is_throttled_request=self._throttled_request,
            retries=BULK_RETRIES,
            initial_backoff=self.bulk_backoff,
            chunk_size=BULK_ACTIONS,
            max_chunk_bytes=BULK_BYTES,
            filter_path=BULK_RESPONSE,
        )

    def write(self, generation: str, actions: Sequence[Action]) -> WriteOutcome:
        outcome = WriteOutcome()
        if not actions:
            return outcome
        stats = BulkStats()
        # the puts first, then the deletes of the documents whose puts all went in (see
        # ChunkIndex.write): a write block refuses puts but lets deletes through, and the
        # two in one request would take a document's old chunks away without its new
        puts = [a for a in actions if isinstance(a, Put)]
        refused: set[str] = set()
        sent = self.send([self._bulk_action(generation, a) for a in puts], stats) if puts else []
        for item in sent:
            if 200 <= item.status < 300:
                outcome.written += 1
                continue
            refused.add(item.id.rsplit("#", 2)[0])
            outcome.failures.append(ItemFailure(item.id, describe(item.error, item.status)))
        deletes = [
            a for a in actions if not isinstance(a, Put) and a.id.rsplit("#", 2)[0] not in refused
        ]
        sent = (
            self.send([self._bulk_action(generation, a) for a in deletes], stats) if deletes else []
        )
        for item in sent:
            ok = 200 <= item.status < 300
            if ok or item.status == 404:
                outcome.deleted += 1 if ok else 0
                continue
            outcome.failures.append(ItemFailure(item.id, describe(item.error, item.status)))
        outcome.throttled, outcome.retries = stats.throttled, stats.retries
        return outcome

    def refresh(self, target: str) -> None:
        if not self.serverless:
            self.client.indices.refresh(index=target)

    def whole(
        self, read: Callable[[], T], gap: Callable[[T], ClusterError | QueryError | None]
    ) -> T:
        """``read()`` again, after :attr:`shard_retry_pauses`, while ``gap`` finds part of
        its answer missing; the gap's error once the pauses are spent (a query fault at once)."""
        waited = 0.0
        for pause in (*self.shard_retry_pauses, None):
            answer = read()
            error = gap(answer)
            if error is None:
                if waited:
                    log.info("a shard answered after %.1f s of retries", waited)
                return answer
            if isinstance(error, QueryError) or pause is None:
                if waited:
                    error.args = (f"{error} (still so after {waited:.1f} s of retries)",)
                raise error
            time.sleep(pause)
            waited += pause
        raise AssertionError("unreachable: the last pause is None")

    def count(self, target: str, filter: Filter | None = None) -> int:
        return self.count_query(target, None if filter is None else compile_filter(filter))

    def count_query(self, target: str, query: dict[str, Any] | None = None) -> int:
        """Documents in ``target`` matching the raw DSL ``query`` (all without one)."""
        body = {"query": query or {"match_all": {}}}
        answer = self.whole(
            lambda: self.client.count(index=target, body=body),
            lambda found: shard_gap(found, target),
        )
        return int(answer["count"])

    def takes_search_type(self, body: dict[str, Any]) -> bool:
        """Whether ``body`` may be sent with a search type (in its ``_msearch`` header).
        Not OpenSearch's ``hybrid`` query: under ``dfs_query_then_fetch`` neural-search
        2.19 answers it with its raw per-query scores (large negative numbers) and
        duplicate hits instead of the fused ranking; it runs as ``query_then_fetch``."""
        query = body.get("query")
        return not (isinstance(query, dict) and "hybrid" in query)

    def request_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` in this engine's own form (OpenSearch's DSL as it is)."""
        return body

    def msearch_lines(
        self, bodies: Sequence[dict[str, Any]], search_type: SearchType | None = None
    ) -> list[dict[str, Any]]:
        """The ``_msearch`` request: a header (the search type, where the body takes one)
        and the body in this engine's form, per search."""
        chosen = search_type or (None if self.serverless else self.search_type)
        lines: list[dict[str, Any]] = []
        for body in map(self.request_body, bodies):
            scored = chosen is not None and self.takes_search_type(body)
            lines += [{"search_type": chosen} if scored else {}, body]
        return lines

    def rejected(self, exc: BaseException, target: str) -> QueryError | None:
        """The :class:`QueryError` of an ``_msearch`` the engine refused as malformed (400)."""
        if self.kit.status(exc) == 400:
            return QueryError(f"{target} rejected the search: {getattr(exc, 'error', exc)}")
        return None

    def msearch(
        self,
        target: str,
        bodies: Sequence[dict[str, Any]],
        *,
        search_type: SearchType | None = None,
    ) -> list[dict[str, Any]]:
        lines = self.msearch_lines(bodies, search_type)

        def read() -> list[dict[str, Any]]:
            try:
                answers: list[dict[str, Any]] = self.client.msearch(index=target, body=lines)[
                    "responses"
                ]
            except self.kit.http_error as exc:
                refused = self.rejected(exc, target)
                if refused is not None:
                    raise refused from None
                raise
            return answers

        return self.whole(read, lambda answers: msearch_gap(answers, target))

    def chunk_ids(self, target: str, filter: Filter | None = None) -> Iterator[tuple[str, str]]:
        """Pages of ``SCAN_PAGE`` ids sorted on ``chunk_id``, each after the last
        (``search_after``), the filter compiled to this engine's DSL."""
        query = {"match_all": {}} if filter is None else compile_filter(filter)
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": SCAN_PAGE,
                "query": query,
                "_source": ["chunk_id", "doc_id"],
                "sort": [{"chunk_id": "asc"}],
                "track_total_hits": False,
            }
            if after is not None:
                body["search_after"] = after
            (answer,) = self.msearch(target, [body])
            hits = answer["hits"]["hits"]
            for hit in hits:
                source = hit.get("_source") or {}
                yield str(source.get("chunk_id", hit.get("_id"))), str(source.get("doc_id", ""))
            if len(hits) < SCAN_PAGE:
                return
            after = hits[-1]["sort"]

    def stored_vectors(self, target: str, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """``ids`` queries of ``VECTOR_PAGE`` ids, the vector alone read from ``_source``."""
        found: dict[str, list[float]] = {}
        ids = list(chunk_ids)
        for start in range(0, len(ids), VECTOR_PAGE):
            part = ids[start : start + VECTOR_PAGE]
            body = {
                "size": len(part),
                "query": {"ids": {"values": part}},
                "_source": [VECTOR_FIELD],
                "track_total_hits": False,
            }
            (answer,) = self.msearch(target, [body])
            for hit in answer["hits"]["hits"]:
                vector = (hit.get("_source") or {}).get(VECTOR_FIELD)
                if isinstance(vector, list) and vector:
                    found[str(hit["_id"])] = [float(x) for x in vector]
        return found

    def store_bytes(self, target: str) -> int | None:
        if self.serverless:
            return None  # Serverless reports no store statistics
        stats = self.client.indices.stats(index=target, metric="store")
        return int(stats["_all"]["primaries"]["store"]["size_in_bytes"])

    def search(
        self,
        target: str,
        plans: Sequence[SearchPlan],
        *,
        search_type: SearchType | None = None,
    ) -> list[EngineResult]:
        """The plans compiled to this engine's DSL, sent in one ``_msearch``."""
        return run_plans(self, target, plans, search_type=search_type)

    def attach_async(self, client: Any) -> None:
        """Await searches on ``client`` (``AsyncOpenSearch``, ``AsyncElasticsearch``: the
        same library and cluster as this engine's client)."""
        self._async = AsyncRestSearch(self, client)

    @property
    def native_async(self) -> bool:
        return self._async is not None

    async def asearch(
        self,
        target: str,
        plans: Sequence[SearchPlan],
        *,
        search_type: SearchType | None = None,
    ) -> list[EngineResult]:
        """The plans compiled as :meth:`search` compiles them, the ``_msearch`` awaited on
        the asyncio client (a hybrid plan is compiled in a worker thread: its fusion
        pipeline may be looked up, once)."""
        transport = self._async
        if transport is None:
            return await super().asearch(target, plans, search_type=search_type)
        if any(p.mode == "hybrid" for p in plans):
            bodies, sent = await asyncio.to_thread(compile_plans, self, plans)
        else:
            bodies, sent = compile_plans(self, plans)
        answers = await transport.msearch(target, bodies, search_type=search_type)
        return read_plans(sent, answers)

    async def aalias_target(self, alias: str) -> str | None:
        transport = self._async
        if transport is None:
            return await super().aalias_target(alias)
        return await transport.alias_target(alias)

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.close()
        await super().aclose()

    def records(self, alias: str) -> RecordStore:
        store = self._records.get(alias)
        if store is None:
            store = self._records[alias] = RestRecords(self, alias)
        return store

    def close(self) -> None:
        self.client.close()
