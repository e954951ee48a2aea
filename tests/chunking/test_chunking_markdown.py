"""The heading scanner agrees with a real CommonMark parser (markdown-it-py).

Reference: ``MarkdownIt("commonmark").enable("table")`` — the documentation
corpus is written for a GFM-style renderer, so pipe tables are tables (on
opensearch-docs enabling them changes no heading, but a table row followed by
``---`` would otherwise become a setext heading). Only top-level
``heading_open`` tokens count: a heading inside a list item or block quote is
content of that container, not a place to cut. Front matter is stripped the
same way on both sides (by the loader: the reference parses
``text[content_start:]``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from paths import CORPORA

from osrag.chunking.markdown import scan_markdown
from osrag.loaders.corpus import load_corpus
from osrag.models import Document

_REFERENCE = MarkdownIt("commonmark").enable("table")


def reference_headings(markdown: str) -> list[tuple[int, int, str]]:
    """``(line, level, text)`` of markdown-it's top-level headings."""
    tokens = _REFERENCE.parse(markdown)
    return [
        (tok.map[0], int(tok.tag[1]), tokens[i + 1].content)
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.level == 0 and tok.map is not None
    ]


def scanned_headings(text: str, start: int = 0) -> list[tuple[int, int, str]]:
    return [
        (text.count("\n", start, h.start), h.level, h.text)
        for h in scan_markdown(text, start).headings
    ]


def test_a_hash_line_inside_a_fenced_code_block_is_not_a_heading() -> None:
    text = "# Title\n\n```bash\n# comment\n```\n\n~~~~\n## still code\n~~~\n~~~~\n## Real\n"
    assert scanned_headings(text) == [(0, 1, "Title"), (10, 2, "Real")]


def test_setext_headings_and_their_multi_line_text() -> None:
    text = "Title\nwraps here\n===\n\nSection\n---\n\n- item\n---\n"
    assert scanned_headings(text) == [(0, 1, "Title\nwraps here"), (4, 2, "Section")]


def test_atx_closing_sequences_and_hash_without_space() -> None:
    text = "## Heading ##\n#hashtag\n### A # B ###   \n####### seven\n#\n"
    assert scanned_headings(text) == [(0, 2, "Heading"), (2, 3, "A # B"), (4, 1, "")]


def test_html_blocks_indented_code_and_tables_hide_heading_lines() -> None:
    text = (
        "<details>\n# inside html\n\n    # indented code\n\n"
        "| a |\n| - |\n---\n\n<!--\n# in a comment\n-->\n# After\n"
    )
    assert scanned_headings(text) == [(12, 1, "After")]
    assert scanned_headings(text) == reference_headings(text)


def test_headings_inside_lists_and_quotes_are_not_cuts() -> None:
    text = "- item\n\n  ## nested in the item\n\n> # quoted\n\n1. step\n   # also nested\n# top\n"
    assert [h[2] for h in scanned_headings(text)] == ["top"]
    assert scanned_headings(text) == reference_headings(text)


def test_the_scanner_reports_fences_html_blocks_and_tables_as_uncuttable() -> None:
    text = "```\na\n\nb\n```\n\n| a |\n| - |\n| 1 |\n\ntext\n"
    atomic = scan_markdown(text).atomic
    assert [text[a:b] for a, b in atomic] == ["```\na\n\nb\n```\n", "| a |\n| - |\n| 1 |\n"]


# --------------------------------------------------------------------------- generated snippets

_LINES = st.sampled_from(
    [
        # headings, with and without closing sequences, indentation and tabs
        "# Heading",
        "## Heading ##",
        "###   spaced   ###  ",
        "#### A # B",
        "#hashtag",
        "####### seven",
        "#",
        "   # three spaces",
        "    # four spaces",
        "\t# tab",
        "#\ttab after",
        # setext underlines and thematic breaks
        "===",
        "  ---  ",
        "---",
        "- - -",
        "***",
        "___",
        "=",
        # fences
        "```",
        "````",
        "```python",
        "```a`b",
        "~~~",
        "~~~ info `tick`",
        "   ```",
        "    ```",
        # indented code and paragraph text
        "    code line",
        "text",
        "more text here",
        "*emphasis*",
        "2. not first",
        "{% include copy-curl.html %}",
        # HTML blocks
        "<div>",
        "</div>",
        "<!-- comment",
        "-->",
        "<script>",
        "</script>",
        "<span>",
        '<custom-tag a="1">',
        "<?php ?>",
        "<!DOCTYPE html>",
        # tables
        "| a | b |",
        "| - | - |",
        "a | b",
        "--- | ---",
        "|:-:|",
        # lists, quotes, references
        "- item",
        "* star item",
        "1. first",
        "2) paren",
        "-",
        "  - nested",
        "  continuation",
        "   # indented in item",
        "> quote",
        ">",
        "> # quoted heading",
        "[ref]: /url",
        '[ref]: /url "title"',
        "",
        "   ",
    ]
)


@st.composite
def markdown_snippets(draw: st.DrawFn) -> str:
    lines = draw(st.lists(_LINES, max_size=14))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from(["", newline]))


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown_snippets())
def test_generated_snippets_match_markdown_it(snippet: str) -> None:
    assert scanned_headings(snippet) == reference_headings(snippet)


# --------------------------------------------------------------------------- the real corpus


@pytest.mark.corpus
@pytest.mark.slow
def test_headings_match_markdown_it_on_every_opensearch_docs_file() -> None:
    root = CORPORA / "opensearch-docs"
    docs = [d for d in load_corpus(root) if isinstance(d, Document) and d.format == "markdown"]
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    assert [d.source_path for d in docs] == files  # every file loaded, none skipped
    assert len(files) == 36
    mismatched = []
    total = 0
    for doc in docs:
        mine = scanned_headings(doc.text, doc.content_start)
        total += len(mine)
        if mine != reference_headings(doc.text[doc.content_start :]):
            mismatched.append(doc.source_path)
    assert mismatched == []
    assert total > 250  # the slice has 267 headings (the whole corpus about 16k)
