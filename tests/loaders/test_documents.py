"""Loading a corpus: order, identity, metadata, and per-file errors that never stop the corpus."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.chunking import chunk_document, is_empty
from osrag.errors import CorpusError
from osrag.loaders.corpus import corpus_files, load_corpus
from osrag.models import ChunkingConfig, Document, LoadIssue

DATA = Path(__file__).resolve().parents[1] / "data" / "chunking"


def _load(root: Path) -> tuple[list[Document], list[LoadIssue]]:
    docs: list[Document] = []
    issues: list[LoadIssue] = []
    for item in load_corpus(root):
        (docs if isinstance(item, Document) else issues).append(item)  # type: ignore[arg-type]
    return docs, issues


def _write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(content)
    return path


def test_files_are_walked_in_sorted_relative_posix_order(tmp_path: Path) -> None:
    rels = [
        "b.md",
        "a/z.txt",
        "a/b.markdown",
        "A.md",
        "c.jsonl",
        "notes.pdf",
        "x.xlsx",
        ".git/x.md",
    ]
    for rel in rels:
        _write(tmp_path, rel, '{"id": "1", "text": "x"}\n' if rel.endswith(".jsonl") else "x\n")
    expected = ["A.md", "a/b.markdown", "a/z.txt", "b.md", "c.jsonl"]
    assert corpus_files(tmp_path) == [*expected, "notes.pdf"]
    docs, issues = _load(tmp_path)
    assert [d.source_path for d in docs] == expected
    # a .pdf is part of the corpus now; this one is not a PDF, and says so
    assert [(i.path, i.reason) for i in issues] == [
        ("notes.pdf", "not a PDF, Word or HTML file: it starts with b'x\\n'")
    ]


def test_document_id_is_the_relative_path_without_extension(tmp_path: Path) -> None:
    _write(tmp_path, "guides/setup/install.md", "# Install\n\ntext\n")
    (doc,), _ = _load(tmp_path)
    assert doc.doc_id == "guides/setup/install"
    assert doc.source_path == "guides/setup/install.md"


def test_front_matter_becomes_metadata_and_other_keys_go_to_meta() -> None:
    (doc,), issues = _load(DATA / "policy.md")
    assert issues == []
    assert doc.doc_id == "electronics-returns"
    assert doc.title == "Electronics Return Policy"
    assert doc.category == "returns"
    assert doc.tenant == "acme"
    assert doc.acl == ["staff", "support"]
    assert doc.effective_from == dt.date(2024, 1, 1)
    assert doc.meta == {"layout": "default"}
    assert doc.text[doc.content_start :].startswith("# Electronics Return Policy")
    assert doc.format == "markdown"


def test_source_version_is_the_sha256_of_the_file_bytes() -> None:
    path = DATA / "policy.md"
    (doc,), _ = _load(path)
    assert doc.source_version == hashlib.sha256(path.read_bytes()).hexdigest()


def test_title_falls_back_to_the_first_h1_then_to_none(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "```\n# not the title\n```\n\nSome text\n\n# Real Title\n")
    _write(tmp_path, "b.md", "## Only a section\n\ntext\n")
    _write(tmp_path, "c.txt", "# Plain text has no headings\n")
    docs, _ = _load(tmp_path)
    assert [d.title for d in docs] == ["Real Title", "", ""]  # never the file name


@pytest.mark.parametrize(
    ("first", "title"),
    [
        ("AQUA PRO POOL & SPA REPAIR", "AQUA PRO POOL & SPA REPAIR"),  # a letterhead
        ("Consulting Agreement", "Consulting Agreement"),
        ("FENWICK & HALE LLP                    PAYSLIP", "FENWICK & HALE LLP"),  # a column after
        ("NORTHGATE DRAINAGE SERVICE, INC.", "NORTHGATE DRAINAGE SERVICE, INC."),  # its form's dot
        ("Hale & Sons Ltd.", "Hale & Sons Ltd."),
        ("Payment is due on receipt.", ""),  # a sentence's full stop
        ("Dear Ms Patel,", ""),  # a salutation
        ("Invoice no. ........ 4471", ""),  # a key
        ("Total due: $1,200.00", ""),  # an amount
        ("ARTICLE I", ""),  # a contract's first part: a heading the chunker reads
        ("1. DEFINITIONS", ""),
        ("- a list item", ""),
        ("The parties agree that the fee is payable monthly as set out below.", ""),
    ],
)
def test_a_plain_text_documents_first_line_is_its_title_when_it_reads_as_one(
    tmp_path: Path, first: str, title: str
) -> None:
    _write(tmp_path, "a.txt", f"\n{first}\n12 Harbour Road\n\nCharges follow.\n")
    (doc,), _ = _load(tmp_path)
    assert doc.title == title


def test_a_chunk_cut_far_from_the_letterhead_still_says_whose_it_is(tmp_path: Path) -> None:
    lines = [f"Line item {i} ............ ${i}.00" for i in range(1, 400)]
    _write(tmp_path, "inv.txt", "AQUA PRO POOL & SPA REPAIR\n\n" + "\n".join(lines) + "\n")
    (doc,), _ = _load(tmp_path)
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=120))
    assert len(chunks) > 3
    assert all(c.breadcrumb.startswith("AQUA PRO POOL & SPA REPAIR") for c in chunks)


def test_text_is_decoded_without_newline_translation_and_without_bom(tmp_path: Path) -> None:
    _write(tmp_path, "crlf.md", b"\xef\xbb\xbf# Title\r\n\r\nline one\r\nline two\r\n")
    (doc,), _ = _load(tmp_path)
    assert doc.text == "# Title\r\n\r\nline one\r\nline two\r\n"
    assert doc.title == "Title"


@pytest.mark.parametrize(
    "front",
    [
        "---\ntitle: no\n\nbody\n",
        "---\ntenant: acme\nacl: [hr]\n\n# Heading\nsecret salary table\n",
    ],
    ids=["plain-keys", "access-keys"],
)
def test_unclosed_front_matter_is_an_error_never_content(tmp_path: Path, front: str) -> None:
    _write(tmp_path, "a.md", front)
    _write(tmp_path, "b.md", "# B\n\nfine\n")
    docs, issues = _load(tmp_path)
    assert [d.source_path for d in docs] == ["b.md"]
    (issue,) = issues
    assert issue.path == "a.md" and issue.line == 1
    assert "never closed" in issue.reason


def test_a_first_thematic_break_without_metadata_is_content(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "---\n\nbody after a rule\n")
    (doc,), issues = _load(tmp_path)
    assert issues == []
    assert doc.content_start == 0
    assert doc.title == ""


def test_bad_files_are_reported_with_path_reason_and_line_and_the_rest_continue(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "1-bad-utf8.md", b"# ok\n\nline two \xff\xfe\n")
    _write(tmp_path, "2-binary.txt", b"abc\x00def")
    _write(tmp_path, "3-front-matter.md", "---\ntitle: ok\nacl: [a, b\n---\nbody\n")
    _write(tmp_path, "4-not-mapping.md", "---\n- a\n- b\n---\nbody\n")
    _write(tmp_path, "5-bad-date.md", "---\ntitle: t\neffective_from: someday\n---\nbody\n")
    (tmp_path / "6-unreadable.md").symlink_to(tmp_path / "does-not-exist.md")
    _write(tmp_path, "7-good.md", "# Good\n\nfine\n")
    docs, issues = _load(tmp_path)
    assert [d.source_path for d in docs] == ["7-good.md"]
    by_path = {i.path: i for i in issues}
    assert set(by_path) == {
        "1-bad-utf8.md",
        "2-binary.txt",
        "3-front-matter.md",
        "4-not-mapping.md",
        "5-bad-date.md",
        "6-unreadable.md",
    }
    assert "invalid UTF-8" in by_path["1-bad-utf8.md"].reason
    assert by_path["1-bad-utf8.md"].line == 3
    assert "binary" in by_path["2-binary.txt"].reason
    assert "malformed front matter" in by_path["3-front-matter.md"].reason
    assert by_path["3-front-matter.md"].line is not None
    assert by_path["3-front-matter.md"].line >= 3
    assert "not a mapping" in by_path["4-not-mapping.md"].reason
    assert "effective_from" in by_path["5-bad-date.md"].reason
    assert by_path["5-bad-date.md"].line == 3
    assert "unreadable" in by_path["6-unreadable.md"].reason
    assert str(by_path["5-bad-date.md"]).startswith("5-bad-date.md:3: ")
    # a file that failed to load is still a corpus file (ingest must not delete it)
    assert "1-bad-utf8.md" in corpus_files(tmp_path)


def test_jsonl_gives_one_document_per_line_with_its_own_version(tmp_path: Path) -> None:
    lines = [
        {"_id": "1", "title": "first", "text": "alpha", "tenant": "t1", "year": 1999},
        {"id": 2, "text": "beta"},
    ]
    raw = "\n".join(json.dumps(x) for x in lines) + "\n"
    _write(tmp_path, "c.jsonl", raw)
    docs, issues = _load(tmp_path)
    assert issues == []
    assert [(d.doc_id, d.source_line, d.title, d.text) for d in docs] == [
        ("1", 1, "first", "alpha"),
        ("2", 2, "", "beta"),  # no title: not the id
    ]
    assert docs[0].tenant == "t1"
    assert docs[0].meta == {"year": 1999}
    assert docs[0].source_version == hashlib.sha256(json.dumps(lines[0]).encode()).hexdigest()

    lines[1]["text"] = "beta, edited"
    _write(tmp_path, "c.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    edited, _ = _load(tmp_path)
    assert edited[0].source_version == docs[0].source_version
    assert edited[1].source_version != docs[1].source_version


def test_bad_jsonl_lines_are_reported_by_line_and_the_others_load(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "c.jsonl",
        '{"_id": "1", "text": "ok"}\n[1, 2]\n{not json\n\n{"_id": "4"}\n{"text": "no id"}\n'
        '{"_id": "7", "text": "ok too"}\n',
    )
    docs, issues = _load(tmp_path)
    assert [d.doc_id for d in docs] == ["1", "7"]
    assert [(i.line, i.reason.split(" ")[0]) for i in issues] == [
        (2, "a"),
        (3, "not"),
        (5, "missing"),
        (6, "missing"),
    ]
    assert "not a JSON object" in issues[0].reason


def test_duplicate_ids_are_reported_not_silently_overwritten(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "x\n")
    _write(tmp_path, "a.txt", "y\n")
    docs, issues = _load(tmp_path)
    assert [d.source_path for d in docs] == ["a.md"]
    assert len(issues) == 1
    assert "duplicate document id 'a'" in issues[0].reason


def test_empty_documents_are_yielded_and_give_zero_chunks(tmp_path: Path) -> None:
    _write(tmp_path, "empty.md", "---\ntitle: Nothing here\n---\n\n   \n")
    _write(tmp_path, "blank.txt", "")
    docs, issues = _load(tmp_path)
    assert issues == []
    assert len(docs) == 2
    assert all(is_empty(d) for d in docs)
    for strategy in ("fixed", "structural", "sentences"):
        assert all(chunk_document(d, ChunkingConfig(strategy=strategy)) == [] for d in docs)


def test_liquid_tags_are_just_text(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "# T\n\n{% include copy-curl.html %}\n\n{{ site.url }}\n")
    (doc,), issues = _load(tmp_path)
    assert issues == []
    (chunk,) = chunk_document(doc, ChunkingConfig())
    assert chunk.body == "{% include copy-curl.html %}\n\n{{ site.url }}"


def test_a_single_file_is_a_corpus_of_one(tmp_path: Path) -> None:
    path = _write(tmp_path, "deep/one.md", "# One\n")
    assert corpus_files(path) == ["one.md"]
    (doc,), _ = _load(path)
    assert doc.doc_id == "one"


def test_a_missing_corpus_is_a_corpus_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no such file"):
        list(load_corpus(tmp_path / "missing"))


def test_a_title_that_is_not_text_falls_back_and_is_kept_in_meta(tmp_path: Path) -> None:
    _write(tmp_path, "t.md", "---\ntitle: {PAGE TITLE}\n---\n\n# {PAGE TITLE}\n")
    (doc,), issues = _load(tmp_path)
    assert issues == []
    assert doc.title == "{PAGE TITLE}"  # the first H1
    assert doc.meta == {"title": {"PAGE TITLE": None}}


def test_osragignore_keeps_notes_and_queries_out_of_the_corpus(tmp_path: Path) -> None:
    (tmp_path / "docs" / "drafts").mkdir(parents=True)
    (tmp_path / "policy.md").write_text("# Policy\n\nBody.\n")
    (tmp_path / "README.md").write_text("# About this corpus\n")
    (tmp_path / "queries.jsonl").write_text('{"id": "q1", "query": "x"}\n')
    (tmp_path / "docs" / "a.md").write_text("# A\n\nBody.\n")
    (tmp_path / "docs" / "README.md").write_text("# Nested readme\n")
    (tmp_path / "docs" / "drafts" / "b.md").write_text("# B\n\nDraft.\n")
    (tmp_path / ".osragignore").write_text(
        "# notes and labels are not documents\n/README.md\nqueries.jsonl\n\ndrafts/\n"
    )
    assert corpus_files(tmp_path) == ["docs/README.md", "docs/a.md", "policy.md"]
    loaded = [d.doc_id for d in load_corpus(tmp_path) if isinstance(d, Document)]
    assert loaded == ["docs/README", "docs/a", "policy"]


def test_a_document_without_a_title_searches_its_body_alone(tmp_path: Path) -> None:
    from osrag.ingestion.pipeline import prepare_chunks
    from osrag.models import ChunkingConfig

    lines = [
        {"_id": "4242", "text": "wing flutter at 4243 cycles"},
        {"_id": "7", "title": "", "text": "x y"},
    ]
    _write(tmp_path, "c.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    docs, _ = _load(tmp_path)
    for doc in docs:
        for strategy in ("structural", "fixed", "sentences"):
            (chunk,) = prepare_chunks(doc, ChunkingConfig(strategy=strategy))  # type: ignore[arg-type]
            assert chunk.text == chunk.body == doc.text and chunk.breadcrumb == ""
            assert doc.doc_id not in chunk.text.split()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "a-b", "a b", "a.b", "b", "B", "a0", "é", "_"]), max_size=3),
        min_size=1,
        max_size=12,
    )
)
def test_the_streamed_walk_lists_files_in_the_order_of_sorted_paths(
    folders: list[list[str]],
) -> None:
    import tempfile

    from osrag.loaders.corpus import iter_corpus_files

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        made: set[str] = set()
        for n, parts in enumerate(folders):
            folder = root.joinpath(*parts)
            if any(root.joinpath(*parts[: i + 1]).is_file() for i in range(len(parts))):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            for name in (f"{n}.md", "a.md", "a-b.md"):
                if not (folder / name).is_dir():
                    (folder / name).write_text("# x\n")
                    made.add((folder / name).relative_to(root).as_posix())
        assert list(iter_corpus_files(root)) == sorted(made)
