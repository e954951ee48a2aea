"""Search: the query's analysis (amount constraints), the plan, fusion, and the
:class:`~osrag.search.searcher.searcher.Searcher` /
:class:`~osrag.search.searcher.async_searcher.AsyncSearcher`
that run it on an engine.
"""
