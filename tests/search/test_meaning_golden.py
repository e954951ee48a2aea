"""Where the vocabulary adds no key, matching by meaning changes nothing: the request bodies a
Searcher plans on an alias with a label vocabulary, at a threshold that admits no label, are
the golden ones (``tests/golden/request_bodies.json``, :mod:`request_golden`) — for every case
of the fixed set, at the ranked, dropped and role-free steps. At a threshold that admits
labels some bodies change (the comparison can fail)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from request_golden import CASES, FIXTURE, searcher_lines

from osrag.engines.embedded.index import EmbeddedIndex
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import QuerySpec
from osrag.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


@pytest.fixture(scope="module")
def insurance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmbeddedIndex, str]]:
    """The sample policies in an embedded index: its vocabulary embedded by the offline
    default model."""
    folder = tmp_path_factory.mktemp("meaning-golden")
    index = EmbeddedIndex(folder / "embedded")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(folder / "vector-cache"))
        report = ingest(ROOT / "examples" / "insurance", index, IngestOptions(alias="policies"))
    assert report.label_vocabulary is not None and report.label_vocabulary.labels > 50
    yield index, "policies"
    index.close()


def planner(searcher: Searcher, asked: list[Any]) -> Any:
    def plan(spec: QuerySpec) -> Any:
        planned = searcher.plan(spec)
        asked.extend(planned.label_matches)
        return planned

    return plan


def test_a_threshold_that_admits_no_label_sends_the_golden_bodies(
    insurance: tuple[EmbeddedIndex, str],
) -> None:
    index, alias = insurance
    searcher = Searcher(index, alias, label_meaning_threshold=1.0)
    asked: list[Any] = []
    for name, fields in CASES.items():
        expected = {k: v for k, v in GOLDEN[name].items() if k.startswith("opensearch")}
        expected.pop("opensearch_client_fusion", None)
        expected.pop("opensearch_client_fusion_dropped", None)
        assert searcher_lines(fields, planner(searcher, asked)) == expected, name
    compared = [m for m in asked if m.vocabulary == "meaning" and not (m.by_key or m.by_synonym)]
    assert compared, "no case's named quantity was compared by meaning"
    assert all(not m.added_keys for m in asked)


def test_a_threshold_that_admits_labels_changes_the_bodies(
    insurance: tuple[EmbeddedIndex, str],
) -> None:
    index, alias = insurance
    searcher = Searcher(index, alias, label_meaning_threshold=0.3)
    asked: list[Any] = []
    changed = [
        name
        for name, fields in CASES.items()
        if searcher_lines(fields, planner(searcher, asked))["opensearch"]
        != GOLDEN[name]["opensearch"]
    ]
    assert changed and any(m.added_keys for m in asked)
