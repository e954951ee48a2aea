"""Ingest: files → chunks → a generation index behind an alias.

:mod:`osrag.ingestion.ingest` holds :func:`~osrag.ingestion.ingest.ingest`; the pure
plan (:mod:`~osrag.ingestion.plan`) decides what a run writes, :mod:`~osrag.ingestion.apply`
writes it, :mod:`~osrag.ingestion.generations` keeps the generations (status, rollback,
repair), :mod:`~osrag.ingestion.manifest` records what is indexed, :mod:`~osrag.ingestion.lock`
serialises writers, :mod:`~osrag.ingestion.workers` spreads the work over processes.
The package is named ``ingestion`` so that ``osrag.ingest`` stays the function.
"""
