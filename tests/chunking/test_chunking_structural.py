"""Structural chunks: cut on headings, carry the breadcrumb, keep blocks whole."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import CORPORA

from osrag.chunking import chunk_document, get_tokenizer, normalize
from osrag.chunking.sentences import split_by_sentences, split_fixed
from osrag.chunking.structural import outline
from osrag.loaders.corpus import load_corpus
from osrag.models import BREADCRUMB_SEPARATOR, Chunk, ChunkingConfig, Document

DATA = Path(__file__).resolve().parents[1] / "data" / "chunking"


def _doc(text: str, title: str = "Doc", fmt: str = "markdown") -> Document:
    return Document(
        doc_id="d", source_path="d.md", source_version="v", title=title, text=text, format=fmt
    )


def _load(path: Path) -> Document:
    (doc,) = [d for d in load_corpus(path) if isinstance(d, Document)]
    return doc


def test_sections_carry_the_breadcrumb_and_the_title_is_not_repeated() -> None:
    doc = _load(DATA / "policy.md")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=400))
    assert [c.breadcrumb for c in chunks] == [
        "Electronics Return Policy",
        "Electronics Return Policy › Return window",
        "Electronics Return Policy › Fees",
        "Electronics Return Policy › Fees › Restocking",
    ]
    assert chunks[3].heading_path == ["Electronics Return Policy", "Fees", "Restocking"]
    assert all(c.text == c.breadcrumb + "\n" + c.body for c in chunks)
    assert all(c.parser == "osrag-markdown@1" for c in chunks)


def test_empty_sections_are_dropped_and_headings_stay_out_of_the_body() -> None:
    doc = _load(DATA / "policy.md")
    chunks = chunk_document(doc, ChunkingConfig())
    assert not any("Empty section" in c.breadcrumb for c in chunks)
    assert not any(re.search(r"^#{1,6} ", c.body, re.M) for c in chunks if "```" not in c.body)


def test_code_blocks_and_tables_are_not_cut_when_the_section_fits() -> None:
    doc = _load(DATA / "policy.md")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=400))
    window = chunks[1].body
    assert "```bash\n# this is a shell comment, not a heading\ncurl" in window
    assert "| Item | Fee |\n| --- | --- |\n| Opened box | $15 |" in chunks[2].body


def test_a_title_that_differs_from_the_h1_stays_in_the_breadcrumb() -> None:
    chunks = chunk_document(
        _doc("# Guide\n\n## Setup\n\ntext\n", title="Handbook"), ChunkingConfig()
    )
    assert [c.breadcrumb for c in chunks] == [
        BREADCRUMB_SEPARATOR.join(["Handbook", "Guide", "Setup"])
    ]


def test_an_oversize_section_is_split_inside_and_every_piece_keeps_the_breadcrumb() -> None:
    paragraphs = [" ".join(f"word{i}x{j}." for j in range(12)) for i in range(6)]
    code = "```\n" + "\n".join(f"line {i}" for i in range(8)) + "\n```"
    text = "# T\n\n## Big\n\n" + "\n\n".join([*paragraphs[:3], code, *paragraphs[3:]]) + "\n"
    chunks = chunk_document(_doc(text, "T"), ChunkingConfig(max_tokens=30))
    assert len(chunks) > 3
    assert {c.breadcrumb for c in chunks} == {"T › Big"}
    assert all(c.token_span.end - c.token_span.start <= 30 for c in chunks)
    # the fenced block fits in 30 tokens, so it is never cut, even in a split section: it is
    # packed whole with the paragraph before it (the two fit in 30 tokens together)
    assert [c.body for c in chunks if "```" in c.body] == [f"{paragraphs[2]}\n\n{code}"]


def test_an_oversize_block_falls_back_to_whole_sentences_then_fixed_windows() -> None:
    long_sentence = "Long " + " ".join(f"w{i}" for i in range(50)) + "."
    text = "# T\n\nShort one. Another short one.\n" + long_sentence + " Tail sentence here.\n"
    chunks = chunk_document(_doc(text, "T"), ChunkingConfig(max_tokens=20))
    bodies = [c.body for c in chunks]
    assert bodies[0] == "Short one. Another short one."
    assert all(len(b.split()) <= 20 for b in bodies)
    assert [len(b.split()) for b in bodies[1:-1]] == [20, 20, 11]  # fixed pieces of one sentence
    assert bodies[-1] == "Tail sentence here."
    fixed = ChunkingConfig(max_tokens=20, oversize="fixed")
    assert all(len(c.body.split()) <= 20 for c in chunk_document(_doc(text, "T"), fixed))


def test_small_sections_are_kept_unless_min_tokens_asks_to_merge() -> None:
    text = "# T\n\n## A\n\none two\n\n### A1\n\nthree four five six\n\n## B\n\nseven\n"
    default = chunk_document(_doc(text, "T"), ChunkingConfig())
    assert [c.breadcrumb for c in default] == ["T › A", "T › A › A1", "T › B"]
    merged = chunk_document(_doc(text, "T"), ChunkingConfig(min_tokens=3, max_tokens=100))
    assert [c.breadcrumb for c in merged] == ["T › A", "T › B"]
    assert merged[0].body == "one two\n\n### A1\n\nthree four five six"
    too_big = chunk_document(_doc(text, "T"), ChunkingConfig(min_tokens=3, max_tokens=5))
    assert len(too_big) == 3  # merging would exceed max_tokens: keep them apart


def test_plain_text_contract_headings_become_breadcrumbs() -> None:
    doc = _load(DATA / "contract.txt")
    chunks = chunk_document(doc, ChunkingConfig())
    assert doc.format == "text"
    assert all(c.parser == "osrag-plaintext@2" for c in chunks)
    crumbs = [c.breadcrumb for c in chunks]
    assert doc.title == ""  # a plain-text file has no title: its name is not made one
    assert "ARTICLE I › 1. DEFINITIONS" in crumbs
    assert "ARTICLE I › 2. PAYMENT TERMS." in crumbs
    payment = chunks[crumbs.index("ARTICLE I › 2. PAYMENT TERMS.")]
    assert payment.body.startswith("The Distributor shall pay $300,000")


def test_an_upper_case_row_of_figures_is_not_a_plain_text_heading() -> None:
    from osrag.chunking.plaintext import scan_plaintext

    text = (
        "SUMMARY OF CHARGES\n\nLabour                 410.00\nParts                  88.20\n\n"
        "TOTAL DUE              498.20\n\nBALANCE OWED  $(12.50)\n\nTERMS AND CONDITIONS\n\n"
        "Payment within thirty days.\n"
    )
    titles = [h.text for h in scan_plaintext(text).headings]
    assert titles == ["SUMMARY OF CHARGES", "TERMS AND CONDITIONS"]


def test_plain_text_without_headings_falls_back_to_paragraphs_and_sentences() -> None:
    text = "\n\n".join(
        " ".join(f"Clause {p} sentence {s} says something." for s in range(5)) for p in range(4)
    )
    chunks = chunk_document(_doc(text, "Plain", "text"), ChunkingConfig(max_tokens=12))
    assert all(c.breadcrumb == "Plain" for c in chunks)
    assert all(c.body.endswith(".") and c.body[0] == "C" for c in chunks)


def _content_lines(doc: Document) -> list[tuple[int, int]]:
    """``[start, end)`` of every non-blank line that is not a heading line."""
    heading_lines = set()
    for h in outline(doc)[0].headings:
        heading_lines.update(range(h.start, h.end))
    lines = []
    for m in re.finditer(r"[^\n]+", doc.text[doc.content_start :]):
        a = m.start() + doc.content_start
        b = m.end() + doc.content_start
        if m.group().strip() and a not in heading_lines:
            lines.append((a, b))
    return lines


def assert_structural_covers_the_document(doc: Document, chunks: list[Chunk]) -> None:
    spans = [(c.span.start, c.span.end) for c in chunks]
    assert all(a < b for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(spans))
    for a, b in _content_lines(doc):
        first = doc.text[a:b].strip()
        s = a + doc.text[a:b].index(first)
        assert any(x <= s < y for x, y in spans), (doc.source_path, doc.text[a:b])
    for chunk in chunks:
        assert chunk.body == normalize(doc.text[chunk.span.start : chunk.span.end])


_MD_LINES = st.sampled_from(
    [
        "# H1",
        "## H2",
        "### H3",
        "Setext",
        "---",
        "===",
        "text words here.",
        "Another sentence. And one more!",
        "```",
        "# comment in code?",
        "    indented",
        "- item",
        "1. step",
        "| a | b |",
        "| - | - |",
        "<div>",
        "> quote",
        "",
        "",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_MD_LINES, max_size=30), st.integers(1, 40))
def test_every_content_line_of_a_document_is_inside_a_chunk(lines: list[str], limit: int) -> None:
    doc = _doc("\n".join(lines) + "\n")
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=limit))
    assert_structural_covers_the_document(doc, chunks)


@pytest.mark.corpus
@pytest.mark.slow
def test_every_content_line_of_the_real_corpora_is_inside_a_chunk() -> None:
    roots = [CORPORA / "opensearch-docs", CORPORA / "cuad-contracts" / "contracts"]
    checked = 0
    for root in roots:
        for doc in load_corpus(root):
            assert isinstance(doc, Document), doc
            assert_structural_covers_the_document(doc, chunk_document(doc, ChunkingConfig()))
            checked += 1
    assert checked == 36 + 8  # every Markdown file and contract of the slices


# --------------------------------------------------------------------------- the split rule


def _blocks(
    text: str, start: int, end: int, atomic: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    cuts = [start]
    for m in re.finditer(r"\n[ \t\r\f\v]*\n", text[:end]):
        cut = m.start() + 1
        if cut <= start or any(a < cut < b for a, b in atomic):
            continue
        cuts.append(cut)
    cuts.append(end)
    blocks = []
    for a, b in itertools.pairwise(cuts):
        piece = text[a:b]
        if piece.strip():
            s = a + len(piece) - len(piece.lstrip())
            blocks.append((s, s + len(piece.strip())))
    return blocks


def reference_split(doc: Document, config: ChunkingConfig) -> list[tuple[int, int]]:
    """The rule as written: pack whole blocks; split a block that does not fit by
    whole sentences (a sentence that does not fit: fixed windows) or fixed windows."""
    tokenizer = get_tokenizer(config.tokenizer)
    positions = tokenizer.positions(doc.text, doc.content_start)
    found, _ = outline(doc)
    limit = config.max_tokens
    text = doc.text
    a, b = doc.content_start, len(text)
    a = a + len(text[a:b]) - len(text[a:b].lstrip())
    b = a + len(text[a:b].strip())
    if a >= b:
        return []
    if positions.position(b) - positions.position(a) <= limit:
        return [(a, b)]
    pieces: list[tuple[int, int]] = []
    run: tuple[int, int, int] | None = None
    for x, y in _blocks(text, a, b, found.atomic):
        tx, ty = positions.position(x), positions.position(y)
        if run is not None and ty - run[2] <= limit:
            run = (run[0], y, run[2])
            continue
        if run is not None:
            pieces.append(run[:2])
            run = None
        if ty - tx <= limit:
            run = (x, y, tx)
        elif config.oversize == "sentences":
            pieces.extend(
                p[:2] for p in split_by_sentences(text, x, y, positions, tokenizer, limit)
            )
        else:
            pieces.extend(p[:2] for p in split_fixed(text, x, y, tx, tokenizer, limit))
    if run is not None:
        pieces.append(run[:2])
    return pieces


_SECTION_PARTS = st.sampled_from(
    [
        "Short sentence.",
        "A somewhat longer sentence with several more words in it.",
        "An " + " ".join(["extremely"] * 25) + " long sentence.",
        "no capital after this. and lowercase goes on",
        "Dr. Smith paid $2.5 million. U.S. rules apply!",
        "```\ncode line one\n\ncode after a blank line\n```",
        "| a | b |\n| - | - |\n| 1 | 2 |",
        "- item one\n- item two",
        "\n",
        "\n\n",
        " ",
    ]
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_SECTION_PARTS, min_size=1, max_size=25),
    st.integers(1, 30),
    st.sampled_from(["sentences", "fixed"]),
)
def test_oversize_sections_are_split_exactly_as_the_rule_says(
    parts: list[str], limit: int, oversize: str
) -> None:
    doc = _doc(" ".join(parts) + "\n")
    config = ChunkingConfig(max_tokens=limit, oversize=oversize)  # type: ignore[arg-type]
    chunks = chunk_document(doc, config)
    assert [(c.span.start, c.span.end) for c in chunks] == reference_split(doc, config)
    for chunk in chunks:
        assert chunk.token_span.end - chunk.token_span.start <= limit
        assert chunk.token_span.end - chunk.token_span.start == len(chunk.body.split())
