"""An in-place ingest changes one document at a time; ``--new-generation`` swaps the corpus.

In place, a search made between two batches sees some documents new and others old
(each document whole). With ``new_generation`` the edits go into a new generation while
the alias still points to the old one: every search during the build sees the old
corpus only, the first after it the new one only, and the old generation stays for
rollback. On the embedded engine and on OpenSearch.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, Delegating, open_case
from clirun import osrag

from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.searcher import Searcher


@pytest.fixture(params=[pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    alias = request.getfixturevalue("index_prefix") if request.param == "opensearch" else None
    case = open_case(request, request.param, tmp_path, alias)
    yield case
    if case.kind == "embedded":
        case.backend.close()  # type: ignore[attr-defined]


class Watched(Delegating):
    """Before every bulk write of the ingest, what a search of the alias sees."""

    def __init__(self, inner: Any, alias: str) -> None:
        super().__init__(inner)
        self.alias = alias
        self.seen: list[set[str]] = []

    def write(self, generation: str, actions: Any) -> Any:
        self.inner.refresh(self.inner.alias_target(self.alias) or generation)
        hits = Searcher(self.inner, self.alias, enforce_access=False).search("policy", k=100)
        self.seen.append({"new" if "edited" in h.body else "old" for h in hits.hits})
        return self.inner.write(generation, actions)


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(12):
        (corpus / f"d{n:02}.md").write_text(
            f"# Policy {n}\n\nThe policy {n} covers ${n + 1},000.\n"
        )
    return corpus


def _edit(corpus: Path) -> None:
    for path in corpus.glob("*.md"):
        path.write_text(path.read_text().replace("covers", "now covers (edited)"))


def test_in_place_a_search_between_batches_sees_a_mix_of_whole_documents(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    ingest(corpus, engine.backend, IngestOptions(alias=engine.alias))
    _edit(corpus)
    watched = Watched(engine.backend, engine.alias)
    ingest(corpus, watched, IngestOptions(alias=engine.alias, batch_chunks=3, writers=1))
    assert {"old", "new"} in watched.seen  # per document, not per corpus


def test_a_new_generation_swaps_the_whole_corpus_at_once(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    first = ingest(corpus, engine.backend, IngestOptions(alias=engine.alias))
    _edit(corpus)
    watched = Watched(engine.backend, engine.alias)
    options = IngestOptions(alias=engine.alias, batch_chunks=3, writers=1, new_generation=True)
    report = ingest(corpus, watched, options)
    assert report.new_generation and report.alias_moved
    assert report.previous_generation == first.generation != report.generation
    assert len(watched.seen) >= 4 and all(seen == {"old"} for seen in watched.seen)
    after = Searcher(engine.backend, engine.alias, enforce_access=False).search("policy")
    assert {"new" if "edited" in h.body else "old" for h in after.hits} == {"new"}
    assert first.generation in engine.backend.generations(engine.alias)  # kept for rollback


def test_the_cli_flag_builds_a_new_generation(engine: BackendCase, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    flags, env = engine.cli()
    alias = ["--alias", engine.alias, "-q"]
    assert osrag("ingest", str(corpus), *flags, *alias, env=env).returncode == 0
    before = engine.backend.alias_target(engine.alias)
    same = osrag("ingest", str(corpus), *flags, *alias, "--new-generation", env=env)
    assert same.returncode == 0, same.stderr
    assert f"(was {before})" in same.stdout
    assert engine.backend.alias_target(engine.alias) != before
