"""What one over-long name costs an ingest and a search: a constant, and bytes linear in the
file (:mod:`osrag.lexicon.bounds`, docs/reliability.md#a-name-has-a-length-bound).

A table row label, a column header, a table cell and a heading of 1 kB to 200 kB go through
a real ingest into the embedded index and a search: every fact's label and keys stay
within their bounds (keys per fact at most ``KEYS_PER_LABEL``, whatever the length), what
is cut is counted in the report, and the bytes stored — the chunks as the index returns
them, and the generation's files — grow at most linearly with the file (stated ceilings:
:data:`STORED_PER_BYTE` and :data:`INDEX_PER_BYTE`, past a fixed part). Counts and bytes,
not time: the seconds and the peak memory are in ``benchmarks/reliability_probes.py``.
On OpenSearch and Elasticsearch the same names go in without a refused term.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, filtered
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osrag.engines.embedded.index import EmbeddedIndex
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.lexicon.bounds import (
    ELLIPSIS,
    HEADING_CHARS,
    KEY_CHARS,
    KEYS_PER_LABEL,
    LABEL_CHARS,
)
from osrag.search.searcher import Searcher

STORED_PER_BYTE = 3
"""Stored chunk bytes per input byte at most (``text`` and ``body`` each hold the input
once; the breadcrumb, the facts and the record's fields are the rest)."""
STORED_FIXED = 64 * 1024
"""Plus at most this (two facts of at most 64 keys, the chunk records' fields)."""
INDEX_PER_BYTE = 3
"""The generation's files per input byte at most."""
INDEX_FIXED = 512 * 1024
"""Plus at most this (an empty generation's files: about 140 KiB)."""

PLACES = ("row label", "column header", "cell", "heading")

_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
_vocabulary = st.lists(
    st.one_of(_word, st.sampled_from(["total", "net", "revenue", "of", "and", "…", "(1)"])),
    min_size=1,
    max_size=25,
)


def _name(vocabulary: list[str], length: int) -> str:
    """Words of ``vocabulary`` repeated to ``length`` characters; it starts with "alpha"."""
    line = " ".join(vocabulary)
    return ("alpha " + " ".join([line] * (length // (len(line) + 1) + 1)))[:length].strip()


def _document(place: str, name: str) -> str:
    head = "# Table\n\n| Item | {} |\n| --- | --- |\n"
    if place == "row label":
        return head.format("2019") + f"| {name} | $1,000 |\n| Cost | $2,000 |\n"
    if place == "column header":
        return head.format(name) + "| Revenue | $1,000 |\n| Cost | $2,000 |\n"
    if place == "cell":
        return head.format("2019") + f"| Revenue | {name} $1,000 |\n| Cost | $2,000 |\n"
    return f"# {name}\n\nThe premium is $1,000. The deductible is $2,000.\n"


def _files_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _check_facts(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    facts = [fact for source in sources for fact in source["facts"]]
    for fact in facts:
        assert fact["label"] is None or len(fact["label"]) <= LABEL_CHARS
        assert len(fact["label_keys"]) <= KEYS_PER_LABEL
        assert all(0 < len(key) <= KEY_CHARS for key in fact["label_keys"])
    for source in sources:
        assert all(len(h) <= HEADING_CHARS for h in source["heading_path"])
    return facts


@pytest.mark.parametrize("place", PLACES)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(vocabulary=_vocabulary, length=st.integers(min_value=1_100, max_value=200_000))
def test_an_over_long_name_costs_a_constant_and_bytes_linear_in_the_file(
    place: str, vocabulary: list[str], length: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("length")
    name = _name(vocabulary, length)
    text = _document(place, name)
    (root / "corpus").mkdir()
    (root / "corpus" / "named.md").write_text(text, encoding="utf-8")
    index = EmbeddedIndex(root / "index")
    report = ingest(root / "corpus", index, IngestOptions())
    assert report.errors == [] and report.documents_added == 1

    target = current_generation(index, "osrag-chunks").name
    sources = filtered(index, target)
    facts = _check_facts(sources)
    assert len(facts) == 2
    cut = sum(ELLIPSIS in (f["label"] or "") for f in facts)
    assert report.labels_cut == cut  # every cut label is counted, and only those
    if place in ("row label", "column header"):
        assert cut >= 1
    if place == "heading":
        assert (
            report.headings_cut == len(sources) == sum(ELLIPSIS in s["breadcrumb"] for s in sources)
        )

    size = len(text.encode("utf-8"))
    stored = sum(len(json.dumps(s, ensure_ascii=False).encode("utf-8")) for s in sources)
    assert stored <= STORED_PER_BYTE * size + STORED_FIXED
    assert _files_bytes(root / "index") <= INDEX_PER_BYTE * size + INDEX_FIXED

    found = Searcher(index, "osrag-chunks").search("alpha", size=50)
    assert {h.doc_id for h in found.hits} == {"named"}
    assert len(found.model_dump_json().encode()) <= STORED_PER_BYTE * size + STORED_FIXED


def test_over_long_names_go_into_every_engine(backend_case: BackendCase, tmp_path: Path) -> None:
    """A 100 kB heading, row label and column header in one corpus: no engine refuses a
    term (Lucene's limit is 32,766 bytes; before the bounds OpenSearch and Elasticsearch
    refused the heading's ``heading_path`` and the label's keys)."""
    name = _name(["revenue", "deferred", "of", "net", "zq"], 100_000)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for place in ("row label", "column header", "heading"):
        (corpus / f"{place.replace(' ', '-')}.md").write_text(_document(place, name))
    index, alias = backend_case.backend, backend_case.alias
    report = ingest(corpus, index, IngestOptions(alias=alias))
    assert report.errors == [] and report.documents_added == 3
    assert report.labels_cut >= 3 and report.headings_cut >= 1
    sources = filtered(index, current_generation(index, alias).name)
    assert {s["doc_id"] for s in sources} == {"row-label", "column-header", "heading"}
    _check_facts(sources)


def test_osrag_ingest_says_what_the_bounds_cut(tmp_path: Path) -> None:
    from clirun import osrag

    name = _name(["alpha", "beta"], 100_000)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "row.md").write_text(_document("row label", name))
    (corpus / "heading.md").write_text(_document("heading", name))
    env = {"OSRAG_HOME": str(tmp_path / "home"), "OSRAG_CACHE_DIR": str(tmp_path / "cache")}
    done = osrag("ingest", str(corpus), "-q", "--backend", "embedded", env=env)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "length bounds" in line]
    assert "1 fact label(s)" in line and "1 chunk(s) with a heading cut" in line
