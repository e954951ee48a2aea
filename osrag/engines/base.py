"""The one interface an engine implements: :class:`ChunkIndex`, and its :class:`RecordStore`.

Everything osrag does above an engine — query planning, the amount fallback,
fail-closed access, the manifest, the ingest lock, incremental sync, fusion,
evaluation — is written once, against these two small interfaces:

* :class:`ChunkIndex` speaks the engine's own vocabulary: generation indices
  created from a mapping, an alias moved atomically, bulk writes and deletes
  by id with an outcome per item, refresh, ``count`` and ``chunk_ids`` under a typed
  plan filter, and ``search`` of typed
  :class:`~osrag.schema.plan.SearchPlan` s, each compiled by the engine and
  answered with osrag's own hit records (:class:`~osrag.schema.plan.EngineResult`),
  and awaited (``asearch``) where the caller runs on asyncio.
  What the engine is and can do is one :class:`EngineCapabilities`, read once.
  No query planning, no fallback policy, no evaluation hook lives here.
* :class:`RecordStore` keeps small JSON records by ``(kind, key)`` for one
  alias — get, put (optionally only if absent, or only if unchanged), delete,
  scan by kind and key prefix. The manifest (:mod:`osrag.ingestion.manifest`) and the
  ingest lock (:mod:`osrag.ingestion.lock`) are built on it, once for every engine.

An engine that cannot do something it is asked refuses with a clear
:class:`~osrag.errors.QueryError` or :class:`~osrag.errors.IndexStateError`,
never silently answers something else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

from osrag.errors import IndexStateError
from osrag.schema.filters import Filter
from osrag.schema.plan import EngineResult, Fusion, SearchPlan

SearchType = Literal["query_then_fetch", "dfs_query_then_fetch"]
KnnFlavour = Literal["opensearch", "elasticsearch", "embedded"]


@dataclass(frozen=True, slots=True)
class EngineCapabilities:
    """What an engine is and can do, read once per connection (not per request).

    ``node_fusion``: the fusion methods the engine can run itself on a hybrid plan
    (OpenSearch with neural-search: ``rrf`` and ``normalization`` through a search
    pipeline; Elasticsearch with the ``rrf`` retriever: ``rrf``; otherwise none, and
    the caller fuses the legs). ``search_type``: how :meth:`ChunkIndex.search` scores a
    sharded generation when a request does not say (None: one index, one set of term
    statistics, or an engine that chooses itself). ``knn``: the vector leg's syntax.
    ``data_nodes``: nodes holding data, from which :mod:`osrag.ingestion.layout` picks a
    generation's shards and replicas (None: one local index, or an engine that places
    shards itself). ``legacy_bm25``: a generation is created with 2.x scoring
    (OpenSearch 3.x)."""

    engine: str
    version: str = ""
    search_type: SearchType | None = None
    node_fusion: frozenset[str] = frozenset()
    knn: KnnFlavour = "opensearch"
    data_nodes: int | None = None
    legacy_bm25: bool = False


NESTED_OBJECTS_LIMIT = 10_000
"""OpenSearch's and Elasticsearch's default ``index.mapping.nested_objects.limit``."""


@dataclass(frozen=True, slots=True)
class Put:
    """Index (create or overwrite) one document by id."""

    id: str
    source: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Delete:
    """Delete one document by id; a missing id is not an error."""

    id: str


Action = Put | Delete


@dataclass(frozen=True, slots=True)
class ItemFailure:
    """An action the engine refused, and why (one line)."""

    id: str
    reason: str


@dataclass
class WriteOutcome:
    """What one :meth:`ChunkIndex.write` achieved, item by item."""

    written: int = 0
    deleted: int = 0
    failures: list[ItemFailure] = field(default_factory=list)
    throttled: int = 0
    """Items the engine answered 429 (back-pressure) and that were sent again."""
    retries: int = 0
    """Back-off rounds those took."""


class ChunkIndex(ABC):
    """Generation indices behind an alias, on one engine (see the module docstring)."""

    name: str = "engine"
    write_concurrency: int = 1
    """Writer threads an ingest uses by default. :meth:`write` must be safe to call from
    several threads at once (an engine that writes one batch at a time serialises them)."""
    eventual_refresh: bool = False
    """True where writes become visible on the engine's own schedule (no ``_refresh``)."""

    @property
    def storage_version(self) -> str:
        """How this engine lays a generation out beyond the mapping (part of the generation
        digest, so a new layout builds a new generation)."""
        return ""

    def text_analyzer(self, requested: str, alias: str) -> str:
        """The text analyzer a generation of ``alias`` gets when ``requested`` is asked
        for: the same one, or one this engine has in its place (an Elasticsearch node
        without the ``analysis-common`` module has no ``english``). Ingest records the
        answer in the generation's config, so the generation digest names the analyzer
        really used."""
        return requested

    @abstractmethod
    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        """Create the index ``name`` from a ``PUT <index>`` body (settings and mappings, as in
        ``mappings/chunks.json``), tuned for loading if asked."""

    @abstractmethod
    def finish_generation(self, name: str) -> None:
        """Restore search-time settings after a bulk load and make every write visible."""

    @abstractmethod
    def drop_generation(self, name: str) -> None:
        """Delete the index (a missing one is not an error)."""

    @abstractmethod
    def generations(self, alias: str) -> set[str]:
        """The existing indices named as generations of ``alias`` (``<alias>-<digest>-<n>``)."""

    @abstractmethod
    def alias_target(self, alias: str) -> str | None:
        """The index the alias points to, or None."""

    @abstractmethod
    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        """Point the alias at ``to`` in one atomic step, only if it still points at
        ``previous`` (None: at nothing); otherwise raise :class:`IndexStateError` and
        leave it. Readers never see the alias point at neither."""

    @abstractmethod
    def write(self, generation: str, actions: Sequence[Action]) -> WriteOutcome:
        """Apply the actions in bulk; refused items are returned, not raised. A refusal of
        the whole index (a write block) raises :class:`~osrag.errors.ClusterError`.

        The puts go first. The deletes of a document (chunk ids ``<doc_id>#…``) one of
        whose puts was refused, or that were not sent because the write stopped, are not
        applied: a document loses its old chunks only once its new ones are in, so a
        failed write never leaves it half old and half gone."""

    @abstractmethod
    def refresh(self, target: str) -> None:
        """Make every write so far visible to searches of ``target``."""

    @abstractmethod
    def count(self, target: str, filter: Filter | None = None) -> int:
        """Chunks in ``target`` passing the typed ``filter`` (all without one)."""

    @abstractmethod
    def chunk_ids(self, target: str, filter: Filter | None = None) -> Iterator[tuple[str, str]]:
        """``(chunk_id, doc_id)`` of every chunk of ``target`` passing the typed ``filter``
        (all without one), in chunk-id order, read page by page (memory stays flat on the
        REST engines at any index size). How ingest finds a document's chunks."""

    @abstractmethod
    def stored_vectors(self, target: str, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The vectors ``target`` holds for ``chunk_ids`` (ids it does not hold, or holds
        without a vector, are absent), read back as stored. How a new generation reuses
        the vectors of the one it replaces, with no local vector cache."""

    def store_bytes(self, target: str) -> int | None:
        """Bytes ``target`` takes on disk (primary copies), or None where the engine cannot
        say. What a change plan scales to estimate a new generation's size."""
        return None

    @abstractmethod
    def search(
        self,
        target: str,
        plans: Sequence[SearchPlan],
        *,
        search_type: SearchType | None = None,
    ) -> list[EngineResult]:
        """Run several typed plans in one round trip; one :class:`EngineResult` each.

        Each engine compiles a :class:`~osrag.schema.plan.SearchPlan` to its own queries
        (the REST engines through :mod:`osrag.engines.rest.compiler`). ``search_type`` (a
        request parameter, not part of a plan): how a sharded engine scores —
        ``query_then_fetch`` (each shard's own term statistics) or
        ``dfs_query_then_fetch`` (statistics gathered from every shard first, as one
        shard would score); None is the engine's default. An engine with one shard
        scores the same either way and may ignore it.

        A plan the engine cannot run raises :class:`~osrag.errors.QueryError`; another
        failure :class:`~osrag.errors.ClusterError`.
        """

    async def asearch(
        self,
        target: str,
        plans: Sequence[SearchPlan],
        *,
        search_type: SearchType | None = None,
    ) -> list[EngineResult]:
        """:meth:`search`, awaited: on the engine's asyncio client where one is attached
        (:meth:`attach_async`), else the sync search in a worker thread (the event loop
        never blocks)."""
        import asyncio  # on first use: a caller on asyncio has it loaded already

        return await asyncio.to_thread(self.search, target, plans, search_type=search_type)

    async def aalias_target(self, alias: str) -> str | None:
        """:meth:`alias_target`, awaited (as :meth:`asearch`)."""
        import asyncio

        return await asyncio.to_thread(self.alias_target, alias)

    def attach_async(self, client: Any) -> None:
        """Await :meth:`asearch` and :meth:`aalias_target` on ``client``, an asyncio client
        of the same cluster. An engine without one refuses with a :class:`TypeError`."""
        raise TypeError(
            "an async client goes with an OpenSearch or Elasticsearch engine, not "
            f"{type(self).__name__}"
        )

    @property
    def native_async(self) -> bool:
        """Whether :meth:`asearch` awaits the engine's own asyncio client (False: the sync
        search in a worker thread)."""
        return False

    async def aclose(self) -> None:
        """:meth:`close`, and the asyncio client where one is attached."""
        import asyncio

        await asyncio.to_thread(self.close)

    def capabilities(self) -> EngineCapabilities:
        """What this engine is and can do, read once per connection (then remembered)."""
        known = getattr(self, "_capabilities", None)
        if known is None:
            known = self.read_capabilities()
            self._capabilities = known
        return known

    def read_capabilities(self) -> EngineCapabilities:
        """Ask the engine (:meth:`capabilities` remembers the answer)."""
        return EngineCapabilities(engine=self.name)

    def writing(self, alias: str) -> AbstractContextManager[None]:
        """A run of writes to the generations of ``alias`` by one writer (an ingest, which
        holds the alias's ingest lock): the engine may keep its writers open between
        batches until it ends. Writes outside one are correct too, only slower."""
        return nullcontext()

    def nested_objects_limit(self, generation: str) -> int:
        """The most nested objects (amount facts) one chunk of ``generation`` may hold: an
        engine refuses a whole chunk over it. OpenSearch and Elasticsearch read it from the
        generation's settings (``index.mapping.nested_objects.limit``, 10,000 unless
        changed); the embedded index holds itself to the same default, for parity."""
        return NESTED_OBJECTS_LIMIT

    @abstractmethod
    def records(self, alias: str) -> RecordStore:
        """The record store of ``alias`` (the manifest and the ingest lock live in it)."""

    def fusion_pipeline(self, fusion: Fusion) -> str | None:
        """The name of a search pipeline that fuses a ``hybrid`` plan on the engine as
        ``fusion`` asks (created if needed), or None: the client fuses the legs."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections, files and writers."""


@dataclass(frozen=True, slots=True)
class Record:
    """A stored record and the version a conditional write must name to replace it."""

    data: dict[str, Any]
    version: Any


class RecordConflict(IndexStateError):
    """A conditional put or delete lost a race (the record exists, or changed meanwhile)."""


class RecordStore(ABC):
    """Small JSON records of one alias, by ``(kind, key)``. Every call is durable and
    visible to :meth:`get` when it returns; :meth:`scan` sees it after :meth:`refresh`."""

    @abstractmethod
    def get(self, kind: str, key: str) -> Record | None: ...

    @abstractmethod
    def get_many(self, kind: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]: ...

    @abstractmethod
    def put(
        self,
        kind: str,
        key: str,
        data: dict[str, Any],
        *,
        create: bool = False,
        version: Any = None,
    ) -> None:
        """Store ``data``. ``create``: only if absent; ``version``: only if unchanged since
        read. Either condition failing raises :class:`RecordConflict`."""

    @abstractmethod
    def put_many(self, kind: str, items: Sequence[tuple[str, dict[str, Any]]]) -> None: ...

    @abstractmethod
    def delete(self, kind: str, key: str, *, version: Any = None) -> bool:
        """Remove the record (only if unchanged, given a ``version``); False if absent."""

    @abstractmethod
    def delete_many(self, kind: str, keys: Sequence[str]) -> None: ...

    @abstractmethod
    def scan(self, kind: str, prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
        """Every record of ``kind`` whose key starts with ``prefix`` (in no set order)."""

    @abstractmethod
    def refresh(self) -> None:
        """Make every write so far visible to :meth:`scan`."""

    @abstractmethod
    def drop(self) -> None:
        """Forget every record of the alias."""
