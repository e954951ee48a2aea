"""The OpenSearch engine (:mod:`.index`) and its search pipelines (:mod:`.pipelines`),
on the shared REST engine (:mod:`osrag.engines.rest`)."""
