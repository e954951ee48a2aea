"""The snapshot and the key counts of a label vocabulary (:mod:`osrag.ingestion.
label_snapshot`), on OpenSearch, Elasticsearch and the embedded index: a vocabulary no
larger than the snapshot's bound is read whole from it (the same labels, keys, scopes and
vectors as every record); past the bound, the labels outside it answer key questions
exactly from the key counts, for the scopes the caller may see only; an ingest that
changes labels keeps the counts those of its records; a snapshot of another revision is
not read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from backend_cases import BackendCase, markdown_corpus

from osrag.engines.base import RecordStore
from osrag.ingestion import label_vocabulary
from osrag.ingestion.generations import current_generation
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.label_snapshot import (
    EVERY_LABEL,
    KEY_COUNTS,
    SNAPSHOT,
    bucket_of,
    part_of,
    snapshot_order,
)
from osrag.ingestion.label_vocabulary import (
    STATE,
    VOCABULARY,
    Vocabulary,
    read_vocabulary,
)
from osrag.search.meaning import match_name
from osrag.search.searcher import Searcher

BOUND = 4
"""The snapshot's bound in these tests: the four most widely held labels of the corpus."""


def table(*rows: str, tenant: str = "acme", acl: str = "") -> str:
    """An order of ``tenant`` (and of the ACL groups ``acl``) pricing ``rows``."""
    head = f"---\ntenant: {tenant}\n" + (f"acl: [{acl}]\n" if acl else "") + "---\n"
    lines = "".join(f"| {row} | $100.00 |\n" for row in rows)
    return f"{head}# Order\n\n| Item | Amount |\n|---|---|\n{lines}"


WIDE = ("Installation charge", "Monthly charge", "Service fee")
ORDERS = {
    # held by three orders each, and one label by two: the snapshot
    "wide-1": table(*WIDE, "Equipment deposit"),
    "wide-2": table(*WIDE, "Equipment deposit"),
    "wide-3": table(*WIDE),
    # held by one order each: outside the snapshot
    "rare": table("Porting fee", "Cabling surcharge"),
    "other": table("Relocation charge", tenant="globex"),
    "restricted": table("Audit fee", acl="finance"),
}
SNAPSHOT_LABELS = {"Equipment deposit", *WIDE}
CALLERS = [
    {"tenant": "acme", "acl": None},
    {"tenant": "globex", "acl": None},
    {"tenant": "acme", "acl": ["finance"]},
    {"tenant": None, "acl": None},
]


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return markdown_corpus(tmp_path, monkeypatch, ORDERS)


@pytest.fixture
def bounded(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(label_vocabulary, "SNAPSHOT_LABELS", BOUND)
    return BOUND


def reads(case: BackendCase) -> tuple[Vocabulary, Vocabulary]:
    """The vocabulary as a search reads it first, and every record of it."""
    store = case.backend.records(case.alias)
    generation = current_generation(case.backend, case.alias).name
    first = read_vocabulary(store, generation)
    whole = read_vocabulary(store, generation, every_record=True)
    assert first is not None and whole is not None
    return first, whole


def key_counts_of(store: RecordStore, generation: str) -> dict[str, dict[str, int]]:
    store.refresh()
    found: dict[str, dict[str, int]] = {}
    for key, record in store.scan(KEY_COUNTS, f"{generation}::"):
        for asked, counts in record["keys"].items():
            assert bucket_of(asked) == key.split("::", 1)[1]
            found[asked] = counts
    return found


def counted(store: RecordStore, generation: str) -> dict[str, dict[str, int]]:
    """The key counts as every vocabulary record says they are."""
    store.refresh()
    found: dict[str, dict[str, int]] = {}
    for _, entry in store.scan(VOCABULARY, f"{generation}::"):
        scopes = [scope for scope, n in entry["scopes"].items() if n > 0]
        for key in (EVERY_LABEL, *entry["keys"]):
            for scope in scopes:
                found.setdefault(key, {})[scope] = found.get(key, {}).get(scope, 0) + 1
    return found


def same_by_keys(first: Vocabulary, whole: Vocabulary, name: str, caller: dict) -> None:
    """A name matched by key and synonym against the snapshot with its key counts, and
    against every record: the same counts and the same labels seen."""
    reports = []
    for vocabulary in (first, whole):
        visible = vocabulary.visible(caller["tenant"], caller["acl"])

        def beyond(keys: list[str], read: Vocabulary = vocabulary) -> dict[str, int]:
            return read.beyond(keys, caller["tenant"], caller["acl"])

        matched = match_name(vocabulary, name, visible=visible, use="keys", beyond=beyond)
        report = matched.report
        reports.append((report.labels, report.by_key, report.by_synonym, matched.added))
    assert reports[0] == reports[1], (name, caller)


# --------------------------------------------------------------------------- within the bound


def test_a_vocabulary_within_the_bound_is_read_whole_from_its_snapshot(
    backend_case: BackendCase, corpus: Path
) -> None:
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    first, whole = reads(backend_case)
    assert first.counts is None and whole.counts is None  # every label is in the snapshot
    assert first.labels == whole.labels and len(first) == 8
    assert first.keys == whole.keys and first.scopes == whole.scopes
    assert first.vectors is not None and whole.vectors is not None
    assert np.array_equal(first.meaning_rows, whole.meaning_rows)
    assert np.array_equal(first.vectors, whole.vectors)
    store = backend_case.backend.records(backend_case.alias)
    generation = first.generation
    assert key_counts_of(store, generation) == counted(store, generation)


# --------------------------------------------------------------------------- past the bound


def test_past_the_bound_the_snapshot_holds_the_most_widely_held_labels(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    report = ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    assert report.label_vocabulary is not None and report.label_vocabulary.labels == 8
    first, whole = reads(backend_case)
    assert set(first.labels) == SNAPSHOT_LABELS and first.counts is not None
    assert len(whole) == 8 and whole.counts is None
    store = backend_case.backend.records(backend_case.alias)
    state = store.get(STATE, first.generation)
    assert state is not None
    assert state.data["snapshot"] == {
        "revision": state.data["revision"],
        "labels": bounded,
        "bound": bounded,
    }
    parts = dict(store.scan(SNAPSHOT, f"{first.generation}::"))
    for key, part in parts.items():
        assert all(part_of(digest) == key.split("::", 1)[1] for digest in part["entries"])


def test_past_the_bound_key_questions_are_answered_exactly_for_each_caller(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    """Labels outside the snapshot (another tenant's, an ACL group's, everyone's) are
    counted from the key counts: the same counts as every record gives, for each
    caller."""
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    first, whole = reads(backend_case)
    names = ["porting fee", "relocation charge", "audit fee", "installation charge", "fee"]
    names += ["cabling surcharge", "setup fee", "monthly charges"]
    for caller in CALLERS:
        for name in names:
            same_by_keys(first, whole, name, caller)


def test_a_label_only_another_tenants_documents_hold_never_counts(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    searcher = Searcher(backend_case.backend, backend_case.alias)
    mine = searcher.search("orders with a relocation charge over $10", tenant="acme")
    (matches,) = mine.label_matches
    assert matches.by_key == matches.by_synonym == 0
    assert "no label the search may see" in (matches.note or "")
    theirs = searcher.search("orders with a relocation charge over $10", tenant="globex")
    (matches,) = theirs.label_matches
    assert matches.by_key == 1 and theirs.amount_step == "bound"
    assert {hit.doc_id for hit in theirs.hits} == {"other"}
    unlisted = searcher.search("orders with an audit fee over $10", tenant="acme")
    assert unlisted.label_matches[0].by_key == 0
    listed = searcher.search("orders with an audit fee over $10", tenant="acme", acl=["finance"])
    assert listed.label_matches[0].by_key == 1
    assert {hit.doc_id for hit in listed.hits} == {"restricted"}
    everyone = searcher.search("orders with a porting fee over $10", tenant="acme")
    assert everyone.label_matches[0].by_key == 1 and everyone.amount_step == "bound"
    assert {hit.doc_id for hit in everyone.hits} == {"rare"}


def test_a_key_a_visible_label_outside_the_snapshot_holds_is_not_added_by_meaning(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    """ "setup fee" matches "Installation charge" by meaning, which adds its key
    "installation charge" only while no other label the caller may see holds that key: a
    label outside the snapshot holding it withholds the key from the callers who may see
    it (here: of the ACL group its order names) only."""
    (corpus / "waived.md").write_text(table("Waived installation charge", acl="finance"))
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    first, _ = reads(backend_case)
    assert "Waived installation charge" not in first.labels
    searcher = Searcher(backend_case.backend, backend_case.alias, label_meaning_threshold=0.6)
    unlisted = searcher.search("setup fee under $500", tenant="acme")
    (matches,) = unlisted.label_matches
    assert "Installation charge" in [m.label for m in matches.matches if m.by == "meaning"]
    assert "installation charge" in matches.added_keys
    listed = searcher.search("setup fee under $500", tenant="acme", acl=["finance"])
    (matches,) = listed.label_matches
    assert "Installation charge" in [m.label for m in matches.matches if m.by == "meaning"]
    assert "installation charge" not in matches.added_keys


def test_a_snapshot_of_another_revision_is_not_read(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    """As a writer that keeps no snapshot leaves it: the vocabulary's revision moved on,
    the snapshot's not. Every record is read, and the next ingest writes it whole again."""
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    store = backend_case.backend.records(backend_case.alias)
    generation = current_generation(backend_case.backend, backend_case.alias).name
    state = store.get(STATE, generation)
    assert state is not None
    store.put(STATE, generation, {**state.data, "revision": state.data["revision"] + 1})
    first, whole = reads(backend_case)
    assert first.counts is None and first.labels == whole.labels and len(first) == 8
    (corpus / "rare.md").write_text(table("Porting fee", "Cabling surcharge", "Late fee"))
    ingest(corpus, backend_case.backend, options)
    first, whole = reads(backend_case)
    assert len(first) == bounded and first.counts is not None and len(whole) == 9
    assert key_counts_of(store, generation) == counted(store, generation)


def test_a_sync_and_a_removal_keep_the_counts_those_of_the_records(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    store = backend_case.backend.records(backend_case.alias)
    generation = current_generation(backend_case.backend, backend_case.alias).name
    searcher = Searcher(backend_case.backend, backend_case.alias)
    porting = searcher.search("orders with a porting fee over $10", tenant="acme")
    assert porting.label_matches[0].by_key == 1
    # the only order holding "Porting fee" removed; another tenant's order given to acme;
    # a label new to the vocabulary (the snapshot is full: it stays outside)
    (corpus / "rare.md").unlink()
    (corpus / "other.md").write_text(table("Relocation charge"))  # now acme's
    (corpus / "wide-3.md").write_text(table(*WIDE, "Late fee"))
    report = ingest(corpus, backend_case.backend, options)
    assert report.label_vocabulary is not None
    assert (report.label_vocabulary.added, report.label_vocabulary.removed) == (1, 2)
    assert key_counts_of(store, generation) == counted(store, generation)
    first, whole = reads(backend_case)
    assert set(first.labels) == SNAPSHOT_LABELS and first.counts is not None
    after = Searcher(backend_case.backend, backend_case.alias)
    gone = after.search("orders with a porting fee over $10", tenant="acme")
    assert gone.label_matches[0].by_key == 0
    moved = after.search("orders with a relocation charge over $10", tenant="acme")
    assert moved.label_matches[0].by_key == 1
    late = after.search("orders with a late fee over $10", tenant="acme")
    assert late.label_matches[0].by_key == 1 and {h.doc_id for h in late.hits} == {"wide-3"}
    for caller in CALLERS:
        for name in ("porting fee", "relocation charge", "late fee", "fee", "audit fee"):
            same_by_keys(first, whole, name, caller)


def test_a_sync_within_the_bound_keeps_the_snapshot_every_record(
    backend_case: BackendCase, corpus: Path
) -> None:
    """Changed, removed and new labels: the snapshot, rewritten part by part, still reads
    as every record does."""
    options = IngestOptions(alias=backend_case.alias)
    ingest(corpus, backend_case.backend, options)
    (corpus / "wide-1.md").unlink()
    (corpus / "rare.md").write_text(table("Porting fee", "Reconnection charge"))
    (corpus / "other.md").write_text(table("Relocation charge"))
    ingest(corpus, backend_case.backend, options)
    first, whole = reads(backend_case)
    assert first.counts is None and "Reconnection charge" in first.labels
    assert "Cabling surcharge" not in first.labels
    assert first.labels == whole.labels and first.keys == whole.keys
    assert first.scopes == whole.scopes
    assert first.vectors is not None and whole.vectors is not None
    assert np.array_equal(first.vectors, whole.vectors)
    store = backend_case.backend.records(backend_case.alias)
    assert key_counts_of(store, first.generation) == counted(store, first.generation)


def test_a_retired_generation_takes_its_snapshot_and_key_counts_with_it(
    backend_case: BackendCase, corpus: Path, bounded: int
) -> None:
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    old = current_generation(backend_case.backend, backend_case.alias).name
    store = backend_case.backend.records(backend_case.alias)
    store.refresh()
    assert list(store.scan(SNAPSHOT, f"{old}::")) and list(store.scan(KEY_COUNTS, f"{old}::"))
    options = IngestOptions(alias=backend_case.alias, new_generation=True, keep=1)
    ingest(corpus, backend_case.backend, options)
    store.refresh()
    for kind in (SNAPSHOT, KEY_COUNTS):
        assert list(store.scan(kind, f"{old}::")) == []
    first, whole = reads(backend_case)
    assert first.generation != old and len(first) == bounded and len(whole) == 8


def test_the_snapshot_takes_labels_with_vectors_then_the_most_widely_held() -> None:
    entries = [
        {"label": "b", "scopes": {"s": 5}, "vector": None},
        {"label": "a", "scopes": {"s": 1}, "vector": "v"},
        {"label": "c", "scopes": {"s": 3, "t": 3}, "vector": "v"},
        {"label": "d", "scopes": {"s": 6}, "vector": "v"},
    ]
    assert [e["label"] for e in sorted(entries, key=snapshot_order)] == ["c", "d", "a", "b"]
