"""A LangChain retriever on osrag (``pip install 'osrag[langchain]'``).

    retriever = OsragRetriever(searcher=Searcher(client, "osrag-chunks"), k=5,
                               tenant="acme", acl=["agents"])
    docs = retriever.invoke("What does the $300K umbrella cover?")
    docs = retriever.invoke("…", k=3, tenant="globex")   # per-call overrides

Each :class:`~langchain_core.documents.Document` holds the chunk's body as its
``page_content`` and :func:`~osrag.integrations.common.hit_metadata` as its metadata;
its ``id`` is the chunk id. With ``context`` (``"neighbours"``, ``"section"``, ``"table"``
or a :class:`~osrag.schema.passages.ContextRequest` with its budget) each Document is a
passage instead: its text, :func:`~osrag.integrations.common.passage_metadata`, and the id
``doc_id@start-end``. ``ainvoke`` awaits ``async_searcher`` (an
:class:`~osrag.AsyncSearcher`) when one is given, else runs the Searcher in a thread.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from osrag.integrations.common import retrieved, search_async, search_keywords
from osrag.models import SearchResult

OVERRIDES = ("k", "tenant", "acl", "mode", "context")


class OsragRetriever(BaseRetriever):
    """Chunks from an osrag alias, under the Searcher's plan and fail-closed guards."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    searcher: Any
    """An :class:`osrag.Searcher`."""
    async_searcher: Any = None
    """An :class:`osrag.AsyncSearcher` for ``ainvoke`` (None: the Searcher in a thread)."""
    k: int = 5
    tenant: str | None = None
    acl: list[str] | None = None
    mode: str = "auto"
    context: Any = None
    """Passages instead of chunks: a kind or a ContextRequest (None: the hits)."""
    search_options: dict[str, Any] = Field(default_factory=dict)
    """Other :class:`~osrag.models.QuerySpec` fields (``as_of``, ``collapse``, …)."""

    def _keywords(self, overrides: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(overrides) - set(OVERRIDES) - {"search_options"})
        if unknown:
            raise TypeError(f"OsragRetriever takes no per-call {', '.join(unknown)}")
        chosen = {name: overrides.get(name, getattr(self, name)) for name in OVERRIDES}
        options = self.search_options | overrides.get("search_options", {})
        return search_keywords(options=options, **chosen)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **overrides: Any
    ) -> list[Document]:
        return documents(self.searcher.search(query, **self._keywords(overrides)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **overrides: Any
    ) -> list[Document]:
        keywords = self._keywords(overrides)
        return documents(await search_async(self.searcher, self.async_searcher, query, keywords))


def documents(result: SearchResult) -> list[Document]:
    return [
        Document(id=key, page_content=text, metadata=metadata)
        for key, text, _, metadata in retrieved(result)
    ]
