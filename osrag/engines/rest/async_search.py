"""The search round trip of a REST engine on an asyncio client (``AsyncOpenSearch``,
``AsyncElasticsearch``): what :meth:`RestIndex.asearch
<osrag.engines.rest.index.RestIndex.asearch>` awaits once a client is attached.

Only the transport is new: the ``_msearch`` request lines, the refusal of a malformed
search and the check that every shard answered are the sync engine's own
(:meth:`~osrag.engines.rest.index.RestIndex.msearch_lines`,
:meth:`~osrag.engines.rest.index.RestIndex.rejected`,
:func:`~osrag.engines.rest.refusals.msearch_gap`),
and a read some shard did not answer is sent again after the same pauses, awaited
instead of slept. Errors are osrag's (:func:`osrag.engines.rest.errors.cluster_errors`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from osrag.config import Settings
from osrag.engines.base import SearchType
from osrag.engines.rest.clients import ClientKit
from osrag.engines.rest.errors import cluster_errors, where
from osrag.engines.rest.refusals import msearch_gap
from osrag.errors import ClusterError, ConfigError, IndexStateError, QueryError

log = logging.getLogger("osrag.engines.rest_async")

T = TypeVar("T")

POOL = 32
"""Connections an async client keeps to a node (the libraries' default is 10): requests
in flight beyond it wait for one."""


async def whole(
    read: Callable[[], Awaitable[T]],
    gap: Callable[[T], ClusterError | QueryError | None],
    pauses: Sequence[float],
) -> T:
    """:meth:`RestIndex.whole <osrag.engines.rest.index.RestIndex.whole>`, awaited."""
    waited = 0.0
    for pause in (*pauses, None):
        answer = await read()
        error = gap(answer)
        if error is None:
            if waited:
                log.info("a shard answered after %.1f s of retries", waited)
            return answer
        if isinstance(error, QueryError) or pause is None:
            if waited:
                error.args = (f"{error} (still so after {waited:.1f} s of retries)",)
            raise error
        await asyncio.sleep(pause)
        waited += pause
    raise AssertionError("unreachable: the last pause is None")


class AwaitedEngine(Protocol):
    """What the async round trip uses of its sync engine
    (:class:`~osrag.engines.rest.index.RestIndex`)."""

    client: Any
    settings: Any
    kit: ClientKit
    shard_retry_pauses: Sequence[float]

    def msearch_lines(
        self, bodies: Sequence[dict[str, Any]], search_type: SearchType | None = None
    ) -> list[dict[str, Any]]: ...

    def rejected(self, exc: BaseException, target: str) -> QueryError | None: ...

    def alias_target(self, alias: str) -> str | None: ...


class AsyncRestSearch:
    """``_msearch`` and the alias lookup of ``engine``'s cluster, through ``client``, an
    asyncio client of the same library and cluster."""

    def __init__(self, engine: AwaitedEngine, client: Any) -> None:
        self.engine = engine
        self.client = client

    def _errors(self) -> Any:
        return cluster_errors(self.engine.settings or where(self.client))

    async def msearch(
        self,
        target: str,
        bodies: Sequence[dict[str, Any]],
        *,
        search_type: SearchType | None = None,
    ) -> list[dict[str, Any]]:
        engine = self.engine
        lines = engine.msearch_lines(bodies, search_type)

        async def read() -> list[dict[str, Any]]:
            try:
                answer = await self.client.msearch(index=target, body=lines)
            except engine.kit.http_error as exc:
                refused = engine.rejected(exc, target)
                if refused is not None:
                    raise refused from None
                raise
            answers: list[dict[str, Any]] = answer["responses"]
            return answers

        with self._errors():
            return await whole(
                read, lambda answers: msearch_gap(answers, target), engine.shard_retry_pauses
            )

    async def alias_target(self, alias: str) -> str | None:
        """The generation ``alias`` points to (None: nowhere)."""
        with self._errors():
            try:
                found = await self.client.indices.get_alias(name=alias)
            except self.engine.kit.not_found:
                # no such alias: the sync engine says whether a concrete index has its name
                return await asyncio.to_thread(self.engine.alias_target, alias)
        targets = sorted(found)
        if len(targets) > 1:
            raise IndexStateError(f"alias {alias!r} points to several indices: {targets}")
        return targets[0] if targets else None

    async def close(self) -> None:
        await self.client.close()


def connect_async(settings: Settings, engine: str) -> Any:
    """An ``AsyncOpenSearch`` or ``AsyncElasticsearch`` for ``settings`` (nothing sent yet).

    Both need ``aiohttp`` (``pip install 'osrag[async]'``); AWS SigV4 signing is the sync
    client's only."""
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise ConfigError("the async searcher needs aiohttp: pip install 'osrag[async]'") from None
    if engine == "elasticsearch":
        from elasticsearch import AsyncElasticsearch

        from osrag.engines.rest.clients import client_library, elasticsearch_options

        client_library()  # a clear ConfigError when the extra is not installed
        options = elasticsearch_options(settings) | {"connections_per_node": POOL}
        return AsyncElasticsearch(**options)
    if settings.uses_sigv4:
        raise ConfigError(
            "the async searcher does not sign requests with AWS SigV4: use the Searcher "
            "(in a thread) for Amazon OpenSearch Service with IAM"
        )
    from opensearchpy import AsyncOpenSearch

    from osrag.engines.rest.clients import client_options

    return AsyncOpenSearch(**client_options(settings), maxsize=POOL)
