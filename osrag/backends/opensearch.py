"""The reference backend: an OpenSearch cluster through opensearch-py.

Generations are indices ``<alias>-<digest>-<n>`` created from
``mappings/chunks.json``; the alias moves in one ``_aliases`` call. The
manifest lives in the cluster itself, in the index ``<alias>.manifest``
(``mappings/manifest.json``): one record per generation, per document, per
change, and the ingest lock (a document created with ``op_type=create``).
Deletes are by id in ``_bulk`` — never ``_delete_by_query``, which the dev node
(no reindex module) and managed serverless offerings lack.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson
from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConflictError, NotFoundError, TransportError
from opensearchpy.helpers import scan, streaming_bulk

from osrag.backends import bulk
from osrag.backends.base import (
    Backend,
    IndexOp,
    ItemFailure,
    LockInfo,
    RawHit,
    RawSearch,
    WriteOp,
    WriteOutcome,
)
from osrag.backends.bulk import BulkStats
from osrag.backends.refusals import describe, search_error
from osrag.errors import IndexStateError
from osrag.mapping import chunk_index_body, manifest_index_body
from osrag.models import ChangeRecord, Chunk, DocumentRecord, GenerationRecord
from osrag.query import QueryPlan, candidate_query, request_body

BULK_ACTIONS = 500
BULK_BYTES = 8 * 1024 * 1024
BULK_RETRIES = 6  # 429s are retried with exponential back-off (1 s … 30 s)
BULK_RESPONSE = "errors,items.*._id,items.*._index,items.*.status,items.*.error"
"""What a ``_bulk`` answer needs to carry back: per item its id, status and error."""


def manifest_index(alias: str) -> str:
    return f"{alias}.manifest"


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def doc_id_of(chunk_id: str) -> str:
    """``{doc_id}#{index}#{digest}`` → ``doc_id`` (doc ids may themselves contain ``#``)."""
    return chunk_id.rsplit("#", 2)[0]


def _source(chunk: Chunk, generation: str) -> str:
    """The chunk as its JSON document body, serialised once on the hot path.

    Chunks come from ``make_chunk`` (already valid), so no pydantic dump: the
    fields are taken as they are and orjson writes dates as ISO days. The bulk
    helper sends a string body unchanged.
    """
    source = dict(chunk.__dict__)
    source["span"] = {"start": chunk.span.start, "end": chunk.span.end}
    source["token_span"] = {"start": chunk.token_span.start, "end": chunk.token_span.end}
    source["generation"] = generation
    return orjson.dumps(source, option=orjson.OPT_NON_STR_KEYS).decode()


def search_requests(plan: QueryPlan, *, drop_amount: bool = False) -> list[dict[str, Any]]:
    """The ``_msearch`` body the backend sends: the ranked search and the count of its
    candidate set (the filters alone), folded into one round trip. Measured in
    ``benchmarks/query.py`` against a ``global`` aggregation in the search itself and
    against a second ``_count`` request; the result is the same, this was fastest."""
    count = {"size": 0, "query": candidate_query(plan, drop_amount=drop_amount)}
    count["track_total_hits"] = True
    search = request_body(plan, drop_amount=drop_amount)
    search["track_total_hits"] = True
    return [{}, search, {}, count]


def _manifest_entry(
    kind: str, alias: str, generation: str, at: dt.datetime, record: Any, doc_id: str | None = None
) -> dict[str, Any]:
    """One manifest document: the fields the manifest mapping indexes, and the record."""
    entry = {
        "kind": kind,
        "alias": alias,
        "generation": generation,
        "at": at.isoformat(),
        "record": record.model_dump(mode="json"),
    }
    if doc_id is not None:
        entry["doc_id"] = doc_id
    return entry


def _throttled_request(exc: BaseException) -> bool:
    """A whole ``_bulk`` request answered 429 (the write queue is full): send it again."""
    return isinstance(exc, TransportError) and exc.status_code == 429


def _total(response: dict[str, Any]) -> int:
    total = response["hits"]["total"]
    return int(total["value"] if isinstance(total, dict) else total)


class OpenSearchBackend(Backend):
    name = "opensearch"

    def __init__(
        self,
        client: OpenSearch,
        *,
        analyzer: str = "english",
        replicas: int = 0,
        serverless: bool = False,
        bulk_backoff: float = 1.0,
    ) -> None:
        self.client = client
        self.bulk_backoff = bulk_backoff
        """Seconds before the first resend of a throttled bulk (doubling up to 30 s)."""
        self.analyzer = analyzer
        self.replicas = replicas
        self.serverless = serverless
        self.eventual_refresh = serverless
        self.write_concurrency = 2  # one bulk request indexed while the next is sent
        self._manifests_ready: set[str] = set()

    # -- generations and the alias -------------------------------------------------

    def create_generation(
        self, name: str, *, bulk_loading: bool, analyzer: str | None = None
    ) -> None:
        body = chunk_index_body(analyzer or self.analyzer, self.replicas)
        if self.serverless:
            body["settings"]["index"] = {}
        elif bulk_loading:
            body["settings"]["index"]["refresh_interval"] = "-1"
        self.client.indices.create(index=name, body=body)

    def finish_generation(self, name: str) -> None:
        if not self.serverless:
            interval = chunk_index_body()["settings"]["index"].get("refresh_interval", "1s")
            self.client.indices.put_settings(
                index=name, body={"index": {"refresh_interval": interval}}
            )
        self.refresh(name)

    def drop_generation(self, name: str) -> None:
        self.client.indices.delete(index=name, ignore=[404])

    def generation_exists(self, name: str) -> bool:
        return bool(self.client.indices.exists(index=name))

    def alias_target(self, alias: str) -> str | None:
        try:
            found = self.client.indices.get_alias(name=alias)
        except NotFoundError:
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
        actions: list[dict[str, Any]] = []
        try:
            current = sorted(self.client.indices.get_alias(name=alias))
        except NotFoundError:
            current = []
        actions += [
            {"remove": {"index": index, "alias": alias}} for index in current if index != to
        ]
        actions.append({"add": {"index": to, "alias": alias}})
        self.client.indices.update_aliases(body={"actions": actions})

    # -- chunks ---------------------------------------------------------------------

    @staticmethod
    def _action(op: WriteOp) -> dict[str, Any]:
        if isinstance(op, IndexOp):
            return {
                "_op_type": "index",
                "_index": op.generation,
                "_id": op.chunk.chunk_id,
                "_source": _source(op.chunk, op.generation),
            }
        return {"_op_type": "delete", "_index": op.generation, "_id": op.chunk_id}

    def write(self, ops: Iterable[WriteOp]) -> WriteOutcome:
        outcome = WriteOutcome()
        stats = BulkStats()
        results = bulk.send(
            streaming_bulk,
            self.client,
            [self._action(op) for op in ops],
            stats,
            is_throttled_request=_throttled_request,
            retries=BULK_RETRIES,
            initial_backoff=self.bulk_backoff,
            chunk_size=BULK_ACTIONS,
            max_chunk_bytes=BULK_BYTES,
            filter_path=BULK_RESPONSE,
        )
        for item in results:
            ok = 200 <= item.status < 300
            if item.op_type == "delete":
                if ok or item.status == 404:
                    outcome.deleted += 1 if ok else 0
                    continue
            elif ok:
                outcome.written += 1
                continue
            outcome.failures.append(
                ItemFailure(
                    chunk_id=item.id,
                    doc_id=doc_id_of(item.id),
                    reason=describe(item.error, item.status),
                )
            )
        outcome.throttled, outcome.retries = stats.throttled, stats.retries
        return outcome

    def refresh(self, name: str) -> None:
        if not self.serverless:
            self.client.indices.refresh(index=name)

    def count(self, target: str, filters: Sequence[dict[str, Any]] = ()) -> int:
        query: dict[str, Any] = (
            {"bool": {"filter": list(filters)}} if filters else {"match_all": {}}
        )
        return int(self.client.count(index=target, body={"query": query})["count"])

    def search(self, target: str, plan: QueryPlan, *, drop_amount: bool = False) -> RawSearch:
        """One round trip (``_msearch``): the ranked hits and the candidate count."""
        started = time.perf_counter()
        answers = self.client.msearch(
            index=target, body=search_requests(plan, drop_amount=drop_amount)
        )["responses"]
        elapsed = (time.perf_counter() - started) * 1000
        for answer in answers:
            if "error" in answer:
                raise search_error(int(answer.get("status", 500)), answer["error"], target)
        response, counted = answers
        hits = [
            RawHit(
                source=h.get("_source", {}),
                score=h.get("_score"),
                index=h.get("_index", target),
                highlight=list(h.get("highlight", {}).get("body", [])),
            )
            for h in response["hits"]["hits"]
        ]
        return RawSearch(
            hits=hits,
            total=_total(response),
            candidate_count=_total(counted),
            took_ms=float(response.get("took", elapsed)),
            index=hits[0].index if hits else None,
        )

    def doc_ids(self, target: str, filters: Sequence[dict[str, Any]]) -> set[str]:
        body = {
            "size": 0,
            "query": {"bool": {"filter": list(filters)}},
            "aggs": {"docs": {"terms": {"field": "doc_id", "size": 65_535}}},
        }
        response = self.client.search(index=target, body=body)
        return {b["key"] for b in response["aggregations"]["docs"]["buckets"]}

    def purge_alias(self, alias: str) -> None:
        for record in self.list_generations(alias):
            self.drop_generation(record.name)
        target = None
        try:
            target = self.alias_target(alias)
        except IndexStateError:
            target = None
        if target is not None:
            self.drop_generation(target)
        self.client.indices.delete(index=manifest_index(alias), ignore=[404])
        self._manifests_ready.discard(manifest_index(alias))

    # -- manifest -------------------------------------------------------------------

    def _manifest(self, alias: str) -> str:
        index = manifest_index(alias)
        if index not in self._manifests_ready:
            if not self.client.indices.exists(index=index):
                body = manifest_index_body()
                if self.serverless:
                    body.pop("settings", None)
                self.client.indices.create(index=index, body=body, ignore=[400])
            self._manifests_ready.add(index)
        return index

    def _manifest_exists(self, alias: str) -> bool:
        index = manifest_index(alias)
        return index in self._manifests_ready or bool(self.client.indices.exists(index=index))

    def refresh_manifest(self, alias: str) -> None:
        self.refresh(self._manifest(alias))

    def get_generation(self, alias: str, name: str) -> GenerationRecord | None:
        if not self._manifest_exists(alias):
            return None
        try:
            found = self.client.get(index=manifest_index(alias), id=f"generation::{name}")
        except NotFoundError:
            return None
        return GenerationRecord.model_validate(found["_source"]["record"])

    def list_generations(self, alias: str) -> list[GenerationRecord]:
        if not self._manifest_exists(alias):
            return []
        self.refresh(manifest_index(alias))
        response = self.client.search(
            index=manifest_index(alias),
            body={
                "query": {
                    "bool": {
                        "filter": [{"term": {"kind": "generation"}}, {"term": {"alias": alias}}]
                    }
                },
                "sort": [{"at": "asc"}],
                "size": 1000,
            },
        )
        return [
            GenerationRecord.model_validate(h["_source"]["record"])
            for h in response["hits"]["hits"]
        ]

    def put_generation(self, record: GenerationRecord) -> None:
        self.client.index(
            index=self._manifest(record.alias),
            id=f"generation::{record.name}",
            body=_manifest_entry(
                "generation", record.alias, record.name, record.created_at, record
            ),
        )

    def _ids_of(self, alias: str, query: dict[str, Any]) -> Iterator[str]:
        for hit in scan(
            self.client, index=manifest_index(alias), query={"query": query, "_source": False}
        ):
            yield hit["_id"]

    def delete_generation_record(self, alias: str, name: str) -> None:
        if not self._manifest_exists(alias):
            return
        self.refresh(manifest_index(alias))
        ids = self._ids_of(alias, {"term": {"generation": name}})
        actions = ({"_op_type": "delete", "_index": manifest_index(alias), "_id": i} for i in ids)
        for _ok, _item in streaming_bulk(
            self.client, actions, raise_on_error=False, chunk_size=BULK_ACTIONS
        ):
            pass

    def iter_documents(self, alias: str, generation: str) -> Iterator[DocumentRecord]:
        if not self._manifest_exists(alias):
            return
        self.refresh(manifest_index(alias))
        query = {
            "query": {
                "bool": {
                    "filter": [{"term": {"kind": "document"}}, {"term": {"generation": generation}}]
                }
            }
        }
        for hit in scan(self.client, index=manifest_index(alias), query=query, size=1000):
            yield DocumentRecord.model_validate(hit["_source"]["record"])

    def get_documents(
        self, alias: str, generation: str, doc_ids: Sequence[str]
    ) -> dict[str, DocumentRecord]:
        if not doc_ids or not self._manifest_exists(alias):
            return {}
        response = self.client.mget(
            index=manifest_index(alias),
            body={"ids": [f"document::{generation}::{d}" for d in doc_ids]},
        )
        found = {}
        for doc in response["docs"]:
            if doc.get("found"):
                record = DocumentRecord.model_validate(doc["_source"]["record"])
                found[record.doc_id] = record
        return found

    def _bulk_manifest(self, alias: str, actions: Iterable[dict[str, Any]]) -> None:
        failures = [
            f"{item.id}: {describe(item.error, item.status)}"
            for item in bulk.send(
                streaming_bulk,
                self.client,
                list(actions),
                BulkStats(),
                is_throttled_request=_throttled_request,
                retries=BULK_RETRIES,
                chunk_size=BULK_ACTIONS,
                max_chunk_bytes=BULK_BYTES,
                filter_path=BULK_RESPONSE,
            )
            if not (200 <= item.status < 300 or (item.op_type == "delete" and item.status == 404))
        ]
        if failures:
            raise IndexStateError(
                f"the manifest {manifest_index(alias)} refused {len(failures)} write(s): "
                f"{failures[:3]}"
            )

    def put_documents(self, alias: str, records: Sequence[DocumentRecord]) -> None:
        index = self._manifest(alias)
        self._bulk_manifest(
            alias,
            (
                {
                    "_op_type": "index",
                    "_index": index,
                    "_id": f"document::{r.generation}::{r.doc_id}",
                    "_source": _manifest_entry(
                        "document", alias, r.generation, r.ingested_at, r, r.doc_id
                    ),
                }
                for r in records
            ),
        )

    def delete_documents(self, alias: str, generation: str, doc_ids: Sequence[str]) -> None:
        index = self._manifest(alias)
        self._bulk_manifest(
            alias,
            (
                {"_op_type": "delete", "_index": index, "_id": f"document::{generation}::{d}"}
                for d in doc_ids
            ),
        )

    def append_changes(self, alias: str, changes: Sequence[ChangeRecord]) -> None:
        index = self._manifest(alias)
        self._bulk_manifest(
            alias,
            (
                {
                    "_op_type": "index",
                    "_index": index,
                    "_id": f"change::{c.generation}::{c.doc_id}::{c.at.isoformat()}::{n}",
                    "_source": _manifest_entry("change", alias, c.generation, c.at, c, c.doc_id),
                }
                for n, c in enumerate(changes)
            ),
        )

    def list_changes(
        self, alias: str, generation: str, doc_id: str | None = None
    ) -> list[ChangeRecord]:
        if not self._manifest_exists(alias):
            return []
        self.refresh(manifest_index(alias))
        filters: list[dict[str, Any]] = [
            {"term": {"kind": "change"}},
            {"term": {"generation": generation}},
        ]
        if doc_id is not None:
            filters.append({"term": {"doc_id": doc_id}})
        hits = scan(
            self.client,
            index=manifest_index(alias),
            query={"query": {"bool": {"filter": filters}}, "sort": [{"at": "asc"}]},
            preserve_order=True,
        )
        return [ChangeRecord.model_validate(h["_source"]["record"]) for h in hits]

    # -- the ingest lock ------------------------------------------------------------

    def _lock_body(self, alias: str, owner: str, ttl: dt.timedelta) -> dict[str, Any]:
        now = _utcnow()
        return {
            "kind": "lock",
            "alias": alias,
            "at": now.isoformat(),
            "record": {
                "owner": owner,
                "acquired_at": now.isoformat(),
                "expires_at": (now + ttl).isoformat(),
            },
        }

    def try_lock(self, alias: str, owner: str, ttl: dt.timedelta) -> LockInfo | None:
        index = self._manifest(alias)
        lock_id = f"lock::{alias}"
        for _attempt in range(3):
            try:
                self.client.index(
                    index=index,
                    id=lock_id,
                    body=self._lock_body(alias, owner, ttl),
                    op_type="create",
                )
                return None
            except ConflictError:
                pass
            try:
                held = self.client.get(index=index, id=lock_id)
            except NotFoundError:
                continue  # released between our create and get: try again
            record = held["_source"]["record"]
            info = LockInfo(
                owner=record["owner"],
                acquired_at=dt.datetime.fromisoformat(record["acquired_at"]),
                expires_at=dt.datetime.fromisoformat(record["expires_at"]),
            )
            if info.expires_at > _utcnow():
                return info
            # a stale lock: take it over only if nobody else did meanwhile
            with contextlib.suppress(ConflictError, NotFoundError):
                self.client.delete(
                    index=index,
                    id=lock_id,
                    if_seq_no=held["_seq_no"],
                    if_primary_term=held["_primary_term"],
                )
        return LockInfo(owner="(contended)", acquired_at=_utcnow(), expires_at=_utcnow())

    def renew_lock(self, alias: str, owner: str, ttl: dt.timedelta) -> None:
        index = self._manifest(alias)
        lock_id = f"lock::{alias}"
        held = self.client.get(index=index, id=lock_id)
        if held["_source"]["record"]["owner"] != owner:
            raise IndexStateError(
                f"lost the ingest lock on {alias!r} to {held['_source']['record']['owner']}"
            )
        self.client.index(
            index=index,
            id=lock_id,
            body=self._lock_body(alias, owner, ttl),
            if_seq_no=held["_seq_no"],
            if_primary_term=held["_primary_term"],
        )

    def release_lock(self, alias: str, owner: str) -> None:
        index = self._manifest(alias)
        lock_id = f"lock::{alias}"
        try:
            held = self.client.get(index=index, id=lock_id)
        except NotFoundError:
            return
        if held["_source"]["record"]["owner"] != owner:
            return
        with contextlib.suppress(ConflictError, NotFoundError):
            self.client.delete(
                index=index,
                id=lock_id,
                if_seq_no=held["_seq_no"],
                if_primary_term=held["_primary_term"],
            )

    def close(self) -> None:
        self.client.close()
