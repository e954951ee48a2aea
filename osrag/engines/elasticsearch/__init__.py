"""The Elasticsearch engine (:mod:`.index`): the mapping (:mod:`.mapping`) and the search
bodies (:mod:`.requests`) as Elasticsearch 8 takes them, on the shared REST engine
(:mod:`osrag.engines.rest`)."""
