"""The ingest plan is pure: what each document needs, decided without an engine.

Properties (hypothesis) over generated corpora and manifests: one change per
document, in corpus order, then the removals; writes and deletes are exactly the
id differences; nothing is removed that failed to load; applying the plan to the
manifest gives exactly the new corpus's chunk ids.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.chunking.records import make_chunk, metadata_digest
from osrag.ingestion.plan import Known, choose_generation, plan_ingest
from osrag.models import Chunk, Document, GenerationRecord, LoadIssue
from osrag.schema.ingest import generation_name


def _doc(doc_id: str, paragraphs: list[str], acl: list[str] | None = None) -> Document:
    text = "\n\n".join(paragraphs)
    return Document(
        doc_id=doc_id,
        source_path=f"{doc_id}.md",
        source_version=hashlib.sha256((text + str(acl)).encode()).hexdigest(),
        title=doc_id,
        text=text,
        acl=acl or [],
    )


def _prepare(docs: Iterable[Document]) -> Iterator[tuple[Document, list[Chunk]]]:
    """One chunk per paragraph: ids change exactly where a paragraph's text changes."""
    for doc in docs:
        chunks, start = [], 0
        for n, paragraph in enumerate(doc.text.split("\n\n")):
            end = start + len(paragraph)
            if paragraph:
                chunks.append(
                    make_chunk(
                        doc,
                        strategy="test",
                        index=n,
                        start=start,
                        end=end,
                        breadcrumb=doc.title,
                        heading_path=[doc.title],
                        token_start=0,
                        token_end=1,
                        tokenizer="t@1",
                        parser="p@1",
                    )
                )
            start = end + 2
        yield doc, chunks


def _known(docs: list[Document]) -> dict[str, Known]:
    return {
        doc.doc_id: Known(
            doc.source_version,
            doc.source_path,
            tuple(c.chunk_id for c in chunks),
            metadata_digest(doc),
        )
        for doc, chunks in _prepare(docs)
    }


paragraphs = st.lists(st.sampled_from(["alpha", "beta", "gamma", "$300,000 limit", ""]), max_size=4)
corpora = st.dictionaries(st.sampled_from([f"d{n}" for n in range(6)]), paragraphs, max_size=6)


@settings(max_examples=200)
@given(before=corpora, after=corpora, failing=st.sets(st.sampled_from(["d0", "d1"])))
def test_applying_the_plan_to_the_manifest_gives_the_new_corpus(
    before: dict[str, list[str]], after: dict[str, list[str]], failing: set[str]
) -> None:
    old_docs = [_doc(d, p) for d, p in sorted(before.items())]
    known = _known(old_docs)
    items: list[Document | LoadIssue] = [
        LoadIssue(path=f"{d}.md", reason="unreadable") if d in failing else _doc(d, p)
        for d, p in sorted(after.items())
    ]
    changes = list(plan_ingest(items, known, _prepare))
    kinds = {c.doc_id: c.kind for c in changes if c.kind != "failed"}
    manifest = {doc_id: set(k.chunk_ids) for doc_id, k in known.items()}
    for change in changes:
        if change.kind in ("add", "replace"):
            before_ids = manifest.get(change.doc_id, set())
            now = {c.chunk_id for c in change.chunks}
            assert set(change.delete) == before_ids - now
            # every chunk is written: a kept id still moves to the new version and span
            assert {c.chunk_id for c in change.write} == now
            manifest[change.doc_id] = now
        elif change.kind == "remove":
            assert set(change.delete) == manifest.pop(change.doc_id)
    expected = {
        doc.doc_id: {c.chunk_id for c in chunks}
        for doc, chunks in _prepare(_doc(d, p) for d, p in after.items() if d not in failing)
    }
    for doc_id in failing & before.keys() & after.keys():
        assert doc_id not in kinds  # a file that failed to load keeps its chunks
        expected[doc_id] = set(known[doc_id].chunk_ids)
    assert manifest == expected
    order = [c.doc_id for c in changes if c.kind in ("add", "replace", "unchanged")]
    assert order == [d for d in sorted(after) if d not in failing]
    assert [c.kind for c in changes if c.kind == "remove"] == ["remove"] * len(
        before.keys() - after.keys()
    )


def test_an_unchanged_source_version_plans_nothing_and_a_rerun_is_a_no_op() -> None:
    docs = [_doc("a", ["alpha", "beta"]), _doc("b", ["gamma"])]
    changes = list(plan_ingest(docs, _known(docs), _prepare))
    assert [c.kind for c in changes] == ["unchanged", "unchanged"]
    assert all(not c.write and not c.delete for c in changes)


def test_an_edit_rewrites_the_chunks_it_did_not_change_with_their_new_version_and_span() -> None:
    before = _doc("a", ["alpha", "beta"])
    after = _doc("a", ["alpha alpha alpha", "beta"])
    (change,) = plan_ingest([after], _known([before]), _prepare)
    kept = [c for c in change.write if c.chunk_id in _known([before])["a"].chunk_ids]
    assert kept, "the unchanged paragraph keeps its id"
    (_, old), (_, new) = next(iter(_prepare([before]))), next(iter(_prepare([after])))
    old_spans = {c.chunk_id: c.span for c in old}
    for chunk in kept:
        assert chunk.source_version == after.source_version != before.source_version
        assert chunk.span != old_spans[chunk.chunk_id]  # moved by the longer first paragraph
    assert {c.chunk_id for c in change.write} == {c.chunk_id for c in new}


def test_a_metadata_change_rewrites_every_chunk_with_the_same_ids() -> None:
    before = _doc("a", ["alpha", "beta"], acl=["agents"])
    after = _doc("a", ["alpha", "beta"], acl=["hr"])
    (change,) = plan_ingest([after], _known([before]), _prepare)
    assert change.kind == "replace" and change.delete == []
    assert [c.chunk_id for c in change.write] == list(_known([before])["a"].chunk_ids)


def test_prune_off_keeps_vanished_documents() -> None:
    docs = [_doc("a", ["alpha"]), _doc("b", ["beta"])]
    changes = list(plan_ingest(docs[:1], _known(docs), _prepare, prune=False))
    assert [c.kind for c in changes] == ["unchanged"]


def _record(name: str, digest: str, number: int, minute: int) -> GenerationRecord:
    return GenerationRecord(
        name=name,
        alias="a",
        digest=digest,
        number=number,
        config={},
        versions={},
        created_at=dt.datetime(2026, 1, 1, 0, minute, tzinfo=dt.UTC),
    )


def test_choose_generation_syncs_resumes_or_numbers_a_new_one() -> None:
    now = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)

    def choose(digest: str, recorded: list[GenerationRecord], existing: set[str]) -> Any:
        return choose_generation(
            "a", digest, current, recorded, existing, config={}, versions={}, now=now
        )

    current = _record("a-aaaaaaaa-1", "aaaaaaaa", 1, 0)
    same = choose("aaaaaaaa", [current], {current.name})
    assert not same.create and not same.switching
    half = _record("a-bbbbbbbb-1", "bbbbbbbb", 1, 1)
    resumed = choose("bbbbbbbb", [current, half], {current.name, half.name})
    assert resumed.record == half and not resumed.create and resumed.switching
    # its index is gone: a new number, never a name an index already has
    fresh = choose("bbbbbbbb", [current, half], {current.name, generation_name("a", "bbbbbbbb", 2)})
    assert fresh.create and fresh.record.name == "a-bbbbbbbb-3"
