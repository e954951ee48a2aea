"""A full disk during an in-place ingest: every document stays whole, the manifest agrees.

The embedded index meets a real write failure: ``osrag ingest`` runs in a child process
whose files may not grow past a size (``RLIMIT_FSIZE``, ``SIGXFSZ`` ignored, so a write
past it fails with ``EFBIG`` as it would with ``ENOSPC``), at several sizes so the
failure lands in different files (tantivy's segments, the record store, the vectors).
OpenSearch and Elasticsearch meet what a full disk does to them: the flood-stage block
(``index.blocks.read_only_allow_delete``) set on the generation mid-ingest, between two
bulk requests. After the failure: the error is one line naming the cause and what is
left; every document is entirely its old or entirely its new version (never half, never
gone); the chunk ids in the index are the ones the manifest lists; ``osrag index
status`` finds nothing wrong; a rerun with room converges.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, Delegating, filtered, open_case

from osrag.errors import ClusterError
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest

WORDS = ["policy", "coverage", "premium", "claim", "deductible", "insured", "limit", "umbrella"]


def _write_corpus(corpus: Path, documents: int = 120) -> None:
    rng = random.Random(1)
    corpus.mkdir(exist_ok=True)
    for n in range(documents):
        sections = []
        for s in range(6):
            body = " ".join(rng.choice(WORDS) for _ in range(120))
            sections.append(f"## Section {s}\n\n{body} ${rng.randint(1, 999)},000.\n")
        (corpus / f"d{n:03}.md").write_text(f"# Doc {n}\n\n" + "\n".join(sections))


def _edit_corpus(corpus: Path, *, big: int = 0) -> None:
    """Every chunk of every document changes; every third document gains a section; with
    ``big``, document 90 gains that many bytes of new sections (its batch's segment is the
    largest file the ingest writes)."""
    rng = random.Random(2)
    for n, path in enumerate(sorted(corpus.glob("*.md"))):
        text = path.read_text().replace("policy", "NEWVERSION policy")
        if n % 3 == 0:
            text += "\n## Section added\n\nNEWVERSION A section the edit added, $5,000.\n"
        if n == 90:  # words of random letters: they compress, and index, like few do
            while len(text) < big:
                words = " ".join(
                    "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))
                    for _ in range(300)
                )
                text += f"\n## Section added {len(text)}\n\nNEWVERSION {words}\n"
        path.write_text(text)


def _whole_and_agreeing(case: BackendCase) -> tuple[int, int]:
    """Check the invariants; (documents at their new version, at their old)."""
    generation = current_generation(case.backend, case.alias)
    chunks = filtered(case.backend, generation.name)
    versions: dict[str, set[str]] = {}
    for chunk in chunks:
        versions.setdefault(chunk["doc_id"], set()).add(
            "new" if "NEWVERSION" in chunk["body"] or "Section added" in chunk["breadcrumb"]
            else "old"
        )  # fmt: skip
    mixed = sorted(doc for doc, seen in versions.items() if len(seen) > 1)
    assert not mixed, f"documents half-applied: {mixed[:5]}"
    assert len(versions) == 120, f"documents gone: {120 - len(versions)}"
    records = list(case.manifest().documents(generation.name))
    listed = {c for d in records for c in d.chunk_ids}
    in_index = {c["chunk_id"] for c in chunks}
    assert listed == in_index, (len(listed - in_index), len(in_index - listed))
    assert len(records) == 120
    new = sum(seen == {"new"} for seen in versions.values())
    return new, len(versions) - new


def _status_is_clean(case: BackendCase) -> None:
    """``osrag index status``: consistent; at most the lock of the stopped ingest is left
    (a full disk can refuse its release too; the next ingest breaks it)."""
    from osrag.ingestion.generations import status

    found = status(case.backend, case.alias)
    assert found.consistent, found.problems
    assert all("lock" in problem for problem in found.problems), found.problems


# ---------------------------------------------------------------- the embedded index


def _capped(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize(
    ("limit_kb", "big"),
    [(160, 0), (200, 0), (320, 600_000), (400, 600_000)],
    ids=["records-160KB", "records-200KB", "indexing-320KB", "commit-400KB"],
)
def test_a_full_disk_on_the_embedded_index_leaves_whole_documents_and_an_agreeing_manifest(
    tmp_path: Path, limit_kb: int, big: int
) -> None:
    corpus = tmp_path / "corpus"
    _write_corpus(corpus)
    case = open_case(None, "embedded", tmp_path)
    try:
        assert not ingest(corpus, case.backend, IngestOptions(alias=case.alias)).errors
    finally:
        case.backend.close()  # type: ignore[attr-defined]
    _edit_corpus(corpus, big=big)
    flags, env = case.cli()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    result = subprocess.run(
        [sys.executable, "-m", "osrag.cli", "ingest", str(corpus), *flags, "--alias",
         case.alias, "-q", "--batch-chunks", "60", "--workers", "1"],
        env=clean | env | {"COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: _capped(limit_kb * 1024),
    )  # fmt: skip
    assert result.returncode not in (0, 1), result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert "File too large" in error or "io::Error" in error or "disk I/O" in error, error
    assert "not a readable" not in error and "restore it from a backup" not in error
    assert "went in" in error and "previous version" in error, error  # what is left
    reopened = case.build()
    case = BackendCase("embedded", reopened, case.alias, home=case.home)
    try:
        new, old = _whole_and_agreeing(case)
        print(f"\nlimit {limit_kb} KB: {new} documents new, {old} old; {error[:160]}")
        _status_is_clean(case)
        report = ingest(corpus, case.backend, IngestOptions(alias=case.alias))
        assert not report.errors
        assert _whole_and_agreeing(case) == (120, 0)
    finally:
        reopened.close()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- the clusters


class FillsUp(Delegating):
    """Writes through to the real engine; before its ``after``-th write, the engine's own
    flood-stage block is set on the generation (what a node does when its disk fills)."""

    def __init__(self, inner: Any, client: Any, after: int) -> None:
        super().__init__(inner)
        self.client, self.after, self.writes = client, after, 0

    def write(self, generation: str, actions: Any) -> Any:
        self.writes += 1
        if self.writes == self.after:
            self.client.indices.put_settings(
                index=generation, body={"index.blocks.read_only_allow_delete": True}
            )
        return self.inner.write(generation, actions)


@pytest.fixture(
    params=[
        pytest.param("opensearch", marks=pytest.mark.opensearch),
        pytest.param("elasticsearch", marks=pytest.mark.elasticsearch),
    ]
)
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    case = open_case(request, request.param, tmp_path)
    yield case
    for name in case.backend.generations(case.alias):
        case.backend.client.indices.put_settings(  # type: ignore[attr-defined]
            index=name, body={"index.blocks.read_only_allow_delete": None}
        )
    case.purge()


def test_a_flood_stage_block_mid_ingest_leaves_whole_documents_and_an_agreeing_manifest(
    cluster: BackendCase, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    _write_corpus(corpus)
    options = IngestOptions(alias=cluster.alias, batch_chunks=60, writers=1)
    assert not ingest(corpus, cluster.backend, options).errors
    _edit_corpus(corpus)
    client = cluster.backend.client  # type: ignore[attr-defined]
    filling = FillsUp(cluster.backend, client, after=4)
    with pytest.raises(ClusterError) as caught:
        ingest(corpus, filling, options)
    message = str(caught.value)
    assert "read-only" in message and "\n" not in message
    assert "went in" in message and "previous version" in message, message
    new, old = _whole_and_agreeing(cluster)
    print(f"\nflood stage after 3 batches: {new} documents new, {old} old; {message[:200]}")
    assert 0 < new < 120
    _status_is_clean(cluster)
    generation = current_generation(cluster.backend, cluster.alias).name
    client.indices.put_settings(
        index=generation, body={"index.blocks.read_only_allow_delete": None}
    )
    assert not ingest(corpus, cluster.backend, options).errors
    assert _whole_and_agreeing(cluster) == (120, 0)


# ---------------------------------------------------------------- sorting out (pure)


def _change(doc_id: str, old: list[str], new: list[str], kind: str = "replace") -> Any:
    from osrag.ingestion.plan import Change, Known

    chunk = type("C", (), {})
    chunks = []
    for chunk_id in new:
        item = chunk()
        item.chunk_id = chunk_id
        chunks.append(item)
    previous = Known("v", f"{doc_id}.md", tuple(old)) if old else None
    return Change(kind, doc_id, None, chunks, [], [], previous)  # type: ignore[arg-type]


def test_unsettled_documents_are_sorted_by_what_the_index_holds() -> None:
    from osrag.ingestion.interrupted import sort_out

    changes = [
        _change("written", ["w#0#a"], ["w#0#b"]),
        _change("not-written", ["n#0#a"], ["n#0#b"]),
        _change("half", ["h#0#a", "h#1#a"], ["h#0#b", "h#1#b"]),
        _change("new-and-stale", ["s#0#a"], ["s#0#b"]),
        _change("metadata-only", ["m#0#a"], ["m#0#a"]),
        _change("added", [], ["a#0#b"], kind="add"),
        _change("lost", ["l#0#a"], ["l#0#b"]),
    ]
    held = {
        "written": {"w#0#b"},
        "not-written": {"n#0#a"},
        "half": {"h#0#a", "h#1#a", "h#0#b"},
        "new-and-stale": {"s#0#b", "x#9#z"},
        "metadata-only": {"m#0#a"},
        "added": set(),
        "lost": {"q#0#q"},
    }
    found = sort_out(changes, held)
    assert [c.doc_id for c in found.done] == ["written", "new-and-stale"]
    assert [c.doc_id for c in found.undone] == ["not-written", "half", "added"]
    assert sorted(found.stray) == ["h#0#b", "x#9#z"]
    assert found.unsure == 1  # "lost": neither version; its announced record says rewrite
