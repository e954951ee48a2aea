"""What OpenSearch and Elasticsearch share over their common REST API.

:mod:`.index` (:class:`~osrag.engines.rest.index.RestIndex`: generations, the alias
compare-and-swap, bulk writes, ``_msearch``), :mod:`.compiler` (a typed plan → query DSL,
and the answers back), :mod:`.records` (the manifest store), :mod:`.bulk`,
:mod:`.refusals`, :mod:`.async_search` (the search round trip on an asyncio client);
the two client libraries built from the settings (:mod:`.clients`, :mod:`.tls`), their
failures as osrag's errors (:mod:`.errors`, :mod:`.failures`) and which engine a cluster
is (:mod:`.cluster`). Nothing here imports the engine packages built on it
(:mod:`osrag.engines.opensearch`, :mod:`osrag.engines.elasticsearch`).
"""
