"""The manifest and the ingest lock of a REST engine: records of one alias in the index
``<alias>.manifest`` (``mappings/manifest.json``), one document per record with the id
``<kind>::<key>``; conditional writes use ``op_type=create`` and
``if_seq_no``/``if_primary_term`` (see :mod:`osrag.engines.rest.index`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from osrag.engines.base import Record, RecordConflict, RecordStore
from osrag.engines.mapping import manifest_index, manifest_index_body, manifest_version
from osrag.engines.rest.bulk import BulkStats, ItemResult, dumps
from osrag.engines.rest.clients import ClientKit
from osrag.engines.rest.errors import translating
from osrag.engines.rest.refusals import describe
from osrag.errors import ClusterError, IndexStateError, QueryError

T = TypeVar("T")


class RecordsEngine(Protocol):
    """What the record store uses of its engine (:class:`~osrag.engines.rest.index.RestIndex`)."""

    client: Any
    settings: Any
    kit: ClientKit
    serverless: bool

    def whole(
        self, read: Callable[[], T], gap: Callable[[T], ClusterError | QueryError | None]
    ) -> T: ...

    def send(self, actions: list[dict[str, Any]], stats: BulkStats) -> Iterator[ItemResult]: ...

    def count_query(self, target: str, query: dict[str, Any] | None = None) -> int: ...

    def drop_index(self, name: str) -> None: ...


@translating
class RestRecords(RecordStore):
    """Records of one alias in the index ``<alias>.manifest`` (see the module docstring)."""

    def __init__(self, engine: RecordsEngine, alias: str) -> None:
        self.engine = engine
        self.client = engine.client
        self.settings = engine.settings
        self.kit = engine.kit
        self.index = manifest_index(alias)
        self._exists: bool | None = None

    def _id(self, kind: str, key: str) -> str:
        return f"{kind}::{key}"

    def _present(self) -> bool:
        """Whether the manifest index exists (checked once; its format too)."""
        if self._exists:
            return True
        try:
            mapping = self.client.indices.get_mapping(index=self.index)
        except self.kit.not_found:
            return False
        meta = next(iter(mapping.values()))["mappings"].get("_meta", {})
        found = int(meta.get("osrag_manifest_version", 0))
        if found != manifest_version():
            raise IndexStateError(
                f"{self.index} holds a manifest in format {found}; this osrag reads format "
                f"{manifest_version()}: ingest into a new --alias, or delete {self.index} and "
                "the alias's generations and ingest again"
            )
        self._exists = True
        return True

    def _ensure(self) -> None:
        if self._present():
            return
        body = manifest_index_body()
        if self.engine.serverless:
            body.pop("settings", None)
        try:
            self.client.indices.create(index=self.index, body=body)
        except self.kit.http_error as exc:
            if self.kit.status(exc) != 400:  # 400: another writer created it meanwhile
                raise
        self._present()

    def _entry(self, kind: str, key: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"kind": kind, "key": key, "record": data}

    def get(self, kind: str, key: str) -> Record | None:
        if not self._present():
            return None
        try:
            found = self.client.get(index=self.index, id=self._id(kind, key))
        except self.kit.not_found:
            return None
        return Record(found["_source"]["record"], (found["_seq_no"], found["_primary_term"]))

    def get_many(self, kind: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not keys or not self._present():
            return {}
        body = {"ids": [self._id(kind, k) for k in keys]}

        def unanswered(found: dict[str, Any]) -> ClusterError | None:
            errors = [doc for doc in found["docs"] if "error" in doc]
            if not errors:
                return None
            return ClusterError(
                f"{self.index} did not answer for {len(errors)} of {len(keys)} record(s) "
                f"({describe(errors[0]['error'], 500)}); nothing was read as absent"
            )

        found = self.engine.whole(lambda: self.client.mget(index=self.index, body=body), unanswered)
        return {
            doc["_source"]["key"]: doc["_source"]["record"]
            for doc in found["docs"]
            if doc.get("found")
        }

    def put(
        self,
        kind: str,
        key: str,
        data: dict[str, Any],
        *,
        create: bool = False,
        version: Any = None,
    ) -> None:
        self._ensure()
        options: dict[str, Any] = {}
        if create:
            options["op_type"] = "create"
        if version is not None:
            options["if_seq_no"], options["if_primary_term"] = version
        try:
            self.client.index(
                index=self.index,
                id=self._id(kind, key),
                body=self._entry(kind, key, data),
                **options,
            )
        except self.kit.conflict:
            raise RecordConflict(f"{kind} {key!r} exists or changed meanwhile") from None

    def _bulk(self, actions: list[dict[str, Any]]) -> None:
        if not actions:
            return
        failures = [
            f"{item.id}: {describe(item.error, item.status)}"
            for item in self.engine.send(actions, BulkStats())
            if not (200 <= item.status < 300 or (item.op_type == "delete" and item.status == 404))
        ]
        if failures:
            raise IndexStateError(
                f"the manifest {self.index} refused {len(failures)} write(s): {failures[:3]}"
            )

    def put_many(self, kind: str, items: Sequence[tuple[str, dict[str, Any]]]) -> None:
        if not items:
            return
        self._ensure()
        self._bulk(
            [
                {
                    "_op_type": "index",
                    "_index": self.index,
                    "_id": self._id(kind, key),
                    "_source": dumps(self._entry(kind, key, data)),
                }
                for key, data in items
            ]
        )

    def delete(self, kind: str, key: str, *, version: Any = None) -> bool:
        if not self._present():
            return False
        options: dict[str, Any] = {}
        if version is not None:
            options["if_seq_no"], options["if_primary_term"] = version
        try:
            self.client.delete(index=self.index, id=self._id(kind, key), **options)
        except self.kit.not_found:
            return False
        except self.kit.conflict:
            raise RecordConflict(f"{kind} {key!r} changed meanwhile") from None
        return True

    def delete_many(self, kind: str, keys: Sequence[str]) -> None:
        if keys and self._present():
            self._bulk(
                [
                    {"_op_type": "delete", "_index": self.index, "_id": self._id(kind, k)}
                    for k in keys
                ]
            )

    def scan(self, kind: str, prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
        if not self._present():
            return
        filters: list[dict[str, Any]] = [{"term": {"kind": kind}}]
        if prefix:
            filters.append({"prefix": {"key": prefix}})
        query = {"query": {"bool": {"filter": filters}}}
        # the scroll helper checks shards only on pages with hits: a shard missing from
        # an answer with none would read as "no records"; the count checks first
        self.engine.count_query(self.index, query["query"])
        try:
            for hit in self.kit.scan(self.client, index=self.index, query=query, size=1000):
                yield hit["_source"]["key"], hit["_source"]["record"]
        except self.kit.scan_error as exc:
            raise ClusterError(
                f"reading {self.index} failed part-way: {exc}; nothing was read as absent"
            ) from None

    def refresh(self) -> None:
        if not self.engine.serverless and self._present():
            self.client.indices.refresh(index=self.index)

    def drop(self) -> None:
        self.engine.drop_index(self.index)
        self._exists = None
