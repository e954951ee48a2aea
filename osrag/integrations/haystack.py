"""A Haystack retriever component on osrag (``pip install 'osrag[haystack]'``).

    retriever = OsragRetriever(searcher=Searcher(client, "osrag-chunks"), k=5,
                               tenant="acme", acl=["agents"])
    pipeline = Pipeline()
    pipeline.add_component("retriever", retriever)
    pipeline.run({"retriever": {"query": "What does the $300K umbrella cover?"}})

``run(query, top_k=, tenant=, acl=)`` returns ``{"documents": [Document, …]}``: each
``Document``'s id is the chunk id, its content the chunk's body, its score the
engine's, its ``meta`` :func:`~osrag.integrations.common.hit_metadata`; with ``context``
(a kind or a :class:`~osrag.schema.passages.ContextRequest`) a passage instead — its text,
:func:`~osrag.integrations.common.passage_metadata`, id ``doc_id@start-end``, the score of
its best hit.
``run_async`` awaits ``async_searcher`` when one is given, else runs the Searcher in a
thread. ``to_dict`` records where the alias lives (the engine and its URL, or the
embedded index's folder) — never credentials: ``from_dict`` connects with the settings
of its own environment (``OSRAG_*``), as the CLI does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from pydantic import BaseModel

from osrag.integrations.common import retrieved, search_async, search_keywords
from osrag.models import SearchResult


def origin(searcher: Any) -> dict[str, Any]:
    """Where ``searcher``'s alias lives, without credentials."""
    index = searcher.index
    if index.name == "embedded":
        return {"backend": "embedded", "root": str(index.root)}
    settings = getattr(index, "settings", None)
    if settings is not None:
        return {"backend": index.name, "url": settings.effective_url}
    if index.name == "elasticsearch":  # elastic-transport's node configuration
        url = str(index.client.transport.node_pool.all()[0].base_url)
    else:
        from osrag.engines.rest.errors import where

        url = where(index.client)
    return {"backend": index.name, "url": url}


def reopen(where: dict[str, Any], alias: str) -> Any:
    """A Searcher on the alias :func:`origin` described."""
    from osrag.search.searcher import Searcher

    if where["backend"] == "embedded":
        from osrag.engines.embedded.index import EmbeddedIndex

        return Searcher(EmbeddedIndex(Path(where["root"])), alias)
    from osrag.config import load_settings
    from osrag.engines import open_index

    settings = load_settings(url=where["url"])
    return Searcher(open_index(settings, backend=where["backend"]), alias)


@component
class OsragRetriever:
    """Chunks from an osrag alias, under the Searcher's plan and fail-closed guards."""

    def __init__(
        self,
        searcher: Any,
        k: int = 5,
        tenant: str | None = None,
        acl: list[str] | None = None,
        mode: str = "auto",
        async_searcher: Any = None,
        search_options: dict[str, Any] | None = None,
        context: Any = None,
    ) -> None:
        search_keywords(k, tenant, acl, mode, search_options, context)  # refuses bad values
        self.searcher = searcher
        self.async_searcher = async_searcher
        self.k, self.tenant, self.acl, self.mode = k, tenant, acl, mode
        self.search_options = dict(search_options or {})
        self.context = context.model_dump() if isinstance(context, BaseModel) else context

    def _keywords(
        self, top_k: int | None, tenant: str | None, acl: list[str] | None
    ) -> dict[str, Any]:
        return search_keywords(
            top_k if top_k is not None else self.k,
            tenant if tenant is not None else self.tenant,
            acl if acl is not None else self.acl,
            self.mode,
            self.search_options,
            self.context,
        )

    @component.output_types(documents=list[Document])
    def run(
        self,
        query: str,
        top_k: int | None = None,
        tenant: str | None = None,
        acl: list[str] | None = None,
    ) -> dict[str, list[Document]]:
        result = self.searcher.search(query, **self._keywords(top_k, tenant, acl))
        return {"documents": documents(result)}

    @component.output_types(documents=list[Document])
    async def run_async(
        self,
        query: str,
        top_k: int | None = None,
        tenant: str | None = None,
        acl: list[str] | None = None,
    ) -> dict[str, list[Document]]:
        keywords = self._keywords(top_k, tenant, acl)
        result = await search_async(self.searcher, self.async_searcher, query, keywords)
        return {"documents": documents(result)}

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            alias=self.searcher.alias,
            where=origin(self.searcher),
            k=self.k,
            tenant=self.tenant,
            acl=self.acl,
            mode=self.mode,
            search_options=self.search_options,
            context=self.context,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OsragRetriever:
        params = dict(data.get("init_parameters", {}))
        searcher = reopen(params.pop("where"), params.pop("alias"))
        built: OsragRetriever = default_from_dict(
            cls, {**data, "init_parameters": {**params, "searcher": searcher}}
        )
        return built


def documents(result: SearchResult) -> list[Document]:
    return [
        Document(id=key, content=text, score=score, meta=metadata)
        for key, text, score, metadata in retrieved(result)
    ]
