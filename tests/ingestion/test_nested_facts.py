"""A chunk with more amount facts than the engine's nested-object limit, on every engine.

Measured first on real nodes (docs/reliability.md): OpenSearch 2.19 and Elasticsearch 8.15
refuse the whole chunk (``The number of nested documents has exceeded the allowed limit
of [10000]``), so the document was left out; the embedded index took all 13,331 facts.
The rule (:mod:`osrag.ingestion.nested_facts`): the chunk goes in with its first N facts
by position, N read from the generation's settings, and the report names what was left
out — the same on the three engines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase
from clirun import osrag

from osrag.engines.base import ChunkIndex
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.models import ChunkingConfig
from osrag.schema.plan import SearchPlan, TextLeg
from osrag.search.searcher import Searcher

FACTS = 13_331
ONE_CHUNK = ChunkingConfig(strategy="fixed", size=200_000, overlap=0)


def _ledger(folder: Path, facts: int) -> Path:
    folder.mkdir()
    (folder / "ok.md").write_text("# Umbrella\n\nThe umbrella policy covers $300,000.\n")
    items = " ".join(f"Item {n} costs ${n + 1}." for n in range(facts))
    (folder / "ledger.md").write_text(f"# Ledger\n\n{items}\n")
    return folder


def stored(index: ChunkIndex, alias: str) -> dict[str, dict[str, Any]]:
    """Every stored chunk of the alias's generation, by document id."""
    target = current_generation(index, alias).name
    index.refresh(target)
    plan = SearchPlan(
        mode="bm25",
        text=TextLeg("", no_terms="all"),
        vector=None,
        guards=(),
        filters=(),
        size=100,
        depth=100,
        count_candidates=False,
    )
    (answer,) = index.search(target, [plan])
    return {hit.source["doc_id"]: hit.source for hit in answer.hits}


def test_a_chunk_over_the_nested_limit_goes_in_with_its_first_facts(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    corpus = _ledger(tmp_path / "corpus", FACTS)
    index, alias = backend_case.backend, backend_case.alias
    report = ingest(corpus, index, IngestOptions(alias=alias, chunking=ONE_CHUNK))
    assert report.errors == []
    (lost,) = report.facts_dropped
    assert (lost.doc_id, lost.kept, lost.dropped) == ("ledger", 10_000, FACTS - 10_000)
    text = (corpus / "ledger.md").read_text()
    assert text[lost.first_dropped[0] : lost.first_dropped[1]] == lost.first_dropped_raw
    assert lost.first_dropped_raw == "$10001"  # the 10,001st amount in the text
    chunks = stored(index, alias)
    assert set(chunks) == {"ok", "ledger"}
    facts = chunks["ledger"]["facts"]
    assert len(facts) == 10_000
    assert [f["span"][0] for f in facts] == sorted(f["span"][0] for f in facts)
    assert facts[-1]["raw"] == "$10000"
    assert all(f["span"][0] < lost.first_dropped[0] for f in facts)
    # a kept amount is found by the amount filter; the search names the ledger
    hits = Searcher(index, alias, enforce_access=False).search("costs $5,000", k=5).hits
    assert [h.doc_id for h in hits] == ["ledger"]
    again = ingest(corpus, index, IngestOptions(alias=alias, chunking=ONE_CHUNK))
    assert again.facts_dropped == [] and again.documents_unchanged == 2  # nothing rewritten


def test_under_the_limit_nothing_is_dropped_or_reordered(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    corpus = _ledger(tmp_path / "corpus", 300)
    index, alias = backend_case.backend, backend_case.alias
    report = ingest(corpus, index, IngestOptions(alias=alias, chunking=ONE_CHUNK))
    assert report.facts_dropped == [] and report.errors == []
    assert len(stored(index, alias)["ledger"]["facts"]) == 300


def test_osrag_ingest_names_the_document_that_lost_facts(tmp_path: Path) -> None:
    corpus = _ledger(tmp_path / "corpus", FACTS)
    env = {"OSRAG_HOME": str(tmp_path / "home"), "OSRAG_CACHE_DIR": str(tmp_path / "cache")}
    done = osrag(
        *("ingest", str(corpus), "-q", "--backend", "embedded", "--strategy", "fixed"),
        *("--size", "200000", "--overlap", "0"),
        env=env,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "left out" in line]
    assert "ledger" in line and "first 10,000 facts" in line and "3,331" in line
    assert "$10001" in line


@pytest.mark.parametrize("engine", ["opensearch", "elasticsearch"])
def test_the_limit_is_read_from_the_generations_settings(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """An index template lowers ``index.mapping.nested_objects.limit`` for the alias's
    generations to 50: osrag keeps 50 facts, where the engine would refuse 51."""
    from backend_cases import open_case

    fixture = {"opensearch": "index_prefix", "elasticsearch": "es_index_prefix"}[engine]
    alias = request.getfixturevalue(fixture)
    case = open_case(request, engine, tmp_path, alias)
    client = case.backend.client  # type: ignore[attr-defined]
    template = f"{alias}-nested-limit"
    body = {
        "index_patterns": [f"{alias}-*"],
        "priority": 500,
        "template": {"settings": {"index.mapping.nested_objects.limit": 50}},
    }
    if engine == "opensearch":
        client.indices.put_index_template(name=template, body=body)
    else:
        client.indices.put_index_template(name=template, **body)
    try:
        corpus = _ledger(tmp_path / "corpus", 120)
        report = ingest(corpus, case.backend, IngestOptions(alias=alias, chunking=ONE_CHUNK))
        assert report.errors == []
        (lost,) = report.facts_dropped
        assert (lost.kept, lost.dropped) == (50, 70)
        assert len(stored(case.backend, alias)["ledger"]["facts"]) == 50
    finally:
        client.indices.delete_index_template(name=template)
