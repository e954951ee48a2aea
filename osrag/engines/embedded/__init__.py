"""The embedded engine: tantivy indexes in a local folder, behaving like OpenSearch.

:class:`~osrag.engines.embedded.index.EmbeddedIndex` (:mod:`.index`) composes the store
(:mod:`.store`: folder layout, marker, atomic alias pointer), the writer (:mod:`.writer`),
the searcher (:mod:`.searcher`, with the plan compiler :mod:`.compiler`, the plan runner
:mod:`.runner` and the ranking primitives :mod:`.ranking`), the generation on disk
(:mod:`.generation`, :mod:`.schema`, :mod:`.vectors`), OpenSearch's analyzers and
highlighter in Python (:mod:`.analyzers`, :mod:`.highlight`) and the SQLite record store
(:mod:`.records`).
"""
