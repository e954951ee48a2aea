"""Retrievers for RAG frameworks, each an optional extra: :mod:`.langchain`
(``osrag[langchain]``), :mod:`.llama_index` (``osrag[llama-index]``), :mod:`.haystack`
(``osrag[haystack]``). Each runs a :class:`~osrag.search.searcher.Searcher` (the same plan and
fail-closed guards) and carries :func:`~osrag.integrations.common.hit_metadata` on
every document."""
