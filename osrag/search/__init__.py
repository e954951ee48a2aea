"""Search: the query's analysis (amount constraints), the analysed query and its typed
plan, fusion, and the :class:`~osrag.search.searcher.Searcher` /
:class:`~osrag.search.async_searcher.AsyncSearcher` that run it on an engine.
"""
