"""A LlamaIndex retriever on osrag (``pip install 'osrag[llama-index]'``).

    retriever = OsragRetriever(searcher=Searcher(client, "osrag-chunks"), k=5,
                               tenant="acme", acl=["agents"])
    nodes = retriever.retrieve("What does the $300K umbrella cover?")
    engine = RetrieverQueryEngine.from_args(retriever, response_mode="no_text", llm=…)

Each :class:`~llama_index.core.schema.NodeWithScore` holds a ``TextNode`` whose id is
the chunk id, whose text is the chunk's body and whose metadata is
:func:`~osrag.integrations.common.hit_metadata`, with the engine's score; with ``context``
(a kind or a :class:`~osrag.schema.passages.ContextRequest`) a passage instead — its text,
:func:`~osrag.integrations.common.passage_metadata`, id ``doc_id@start-end``, the score of
its best hit. ``aretrieve``
awaits ``async_searcher`` when one is given, else runs the Searcher in a thread.
LlamaIndex's ``retrieve`` takes no per-call keywords: build another retriever (they
are cheap) for another scope. The scope is checked on every call, as the other
retrievers do: ``unrestricted`` is refused even when set after construction.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from osrag.integrations.common import retrieved, search_async, search_keywords
from osrag.models import SearchResult


class OsragRetriever(BaseRetriever):
    """Chunks from an osrag alias, under the Searcher's plan and fail-closed guards."""

    def __init__(
        self,
        searcher: Any,
        *,
        k: int = 5,
        tenant: str | None = None,
        acl: list[str] | None = None,
        mode: str = "auto",
        async_searcher: Any = None,
        search_options: dict[str, Any] | None = None,
        context: Any = None,
        **base: Any,
    ) -> None:
        self.searcher = searcher
        self.async_searcher = async_searcher
        self.k, self.tenant, self.acl, self.mode = k, tenant, acl, mode
        self.search_options = dict(search_options or {})
        self.context = context
        search_keywords(k, tenant, acl, mode, self.search_options, context)  # refused now
        super().__init__(**base)

    @property
    def keywords(self) -> dict[str, Any]:
        """The Searcher keywords of one call, checked again each time (a copy: changing
        it changes nothing)."""
        return search_keywords(
            self.k, self.tenant, self.acl, self.mode, self.search_options, self.context
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return nodes(self.searcher.search(query_bundle.query_str, **self.keywords))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        result = await search_async(
            self.searcher, self.async_searcher, query_bundle.query_str, self.keywords
        )
        return nodes(result)


def nodes(result: SearchResult) -> list[NodeWithScore]:
    return [
        NodeWithScore(node=TextNode(id_=key, text=text, metadata=metadata), score=score)
        for key, text, score, metadata in retrieved(result)
    ]
