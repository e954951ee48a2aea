"""A chunk's amount facts held to the engine's nested-object limit (pure).

OpenSearch and Elasticsearch refuse a whole document holding more nested objects than
``index.mapping.nested_objects.limit`` (10,000 unless a generation's settings say
otherwise): before this rule, one chunk of a ledger with 13,331 amounts was refused and
its document kept its previous version (or none). Rule: the chunk goes in with the first
``limit`` facts **by position** in the document (their span's start, then end); the
rest are left out of its nested ``facts``, and the ingest report names the document,
the chunk, the counts and the span of the first fact left out
(:class:`~osrag.schema.ingest.FactsDropped`). The chunk's text and its flat amount
fields are untouched, so a match or an unbound amount filter still finds it; a filter
bound to a quantity can only meet the facts it holds. The limit comes from
:meth:`~osrag.engines.base.ChunkIndex.nested_objects_limit`; the embedded index, which
has no such limit of its own, is held to the same default for parity.
"""

from __future__ import annotations

from typing import Any

from osrag.schema.ingest import FactsDropped


def hold_facts(source: dict[str, Any], limit: int) -> FactsDropped | None:
    """Keep the first ``limit`` facts of the stored chunk ``source`` by position (it is
    changed in place); what was left out, or None when every fact fits."""
    facts = source.get("facts") or []
    if len(facts) <= limit:
        return None
    ordered = sorted(facts, key=lambda fact: (fact["span"][0], fact["span"][1]))
    source["facts"] = ordered[:limit]
    first = ordered[limit]
    return FactsDropped(
        doc_id=source["doc_id"],
        chunk_id=source["chunk_id"],
        kept=limit,
        dropped=len(facts) - limit,
        first_dropped=(first["span"][0], first["span"][1]),
        first_dropped_raw=first["raw"],
    )
