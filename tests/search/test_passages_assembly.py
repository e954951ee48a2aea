"""Passages from chunk records: the budget holds, text is never repeated, a passage lies in
one document version, every hit is covered when the budget allows, and a chunk the caller
may not see never lends its text.

Documents are generated, cut by osrag's own chunkers (structural, fixed windows with
overlap, sentences), optionally with CRLF line breaks, and read back into records exactly
as the index stores them (``chunk_source``)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from osrag.chunking import chunk_document
from osrag.chunking.normalize import normalize
from osrag.chunking.records import chunk_source
from osrag.chunking.tokenizers import get_tokenizer
from osrag.models import ChunkingConfig, Document
from osrag.schema.filters import AllOf, AnyOf, Range, Term
from osrag.schema.passages import ContextRequest
from osrag.search.passages import ChunkRecord, assemble_passages, build_runs
from osrag.search.passages.request import region_filter, regions, starts_in_table, usable_chunks
from osrag.search.passages.tables import table_parts

WHITESPACE = get_tokenizer("whitespace")

_WORDS = st.lists(
    st.sampled_from(["alpha", "beta", "gamma", "delta", "$300", "limit", "(in", "millions)"]),
    min_size=1,
    max_size=12,
)


@st.composite
def _documents(draw: st.DrawFn, first_heading: int = 0) -> str:
    """Markdown: unique headings (numbered from ``first_heading``), each followed by text;
    paragraphs and pipe tables. (Two sections in a row under the same heading path are one
    section to a reader of the chunks: the heading between them is not restored.)"""
    blocks: list[str] = []
    headings = first_heading
    for kind in draw(
        st.lists(st.sampled_from(["h1", "h2", "h3", "p", "p", "table"]), min_size=1, max_size=14)
    ):
        if kind.startswith("h"):
            headings += 1
            blocks.append("#" * int(kind[1]) + f" Heading{headings} " + " ".join(draw(_WORDS)[:3]))
            blocks.append(" ".join(draw(_WORDS)) + ".")  # no empty section
        elif kind == "p":
            sentences = draw(st.lists(_WORDS, min_size=1, max_size=4))
            blocks.append(" ".join(" ".join(s) + "." for s in sentences))
        else:
            rows = draw(st.integers(1, 6))
            lines = ["| Item | 2019 | 2018 |", "|---|---|---|"]
            lines += [f"| row{r} {draw(_WORDS)[0]} | {r}00 | {r}1 |" for r in range(rows)]
            blocks.append("\n".join(lines))
    separator = draw(st.sampled_from(["\n\n", "\n\n\n", "\n \n"]))
    return separator.join(blocks) + "\n"


_CONFIGS = st.one_of(
    st.builds(lambda m: ChunkingConfig(strategy="structural", max_tokens=m), st.integers(3, 40)),
    st.builds(
        lambda w, o: ChunkingConfig(strategy="fixed", size=w, overlap=o),
        st.integers(2, 30),
        st.integers(0, 20),
    ),
    st.builds(
        lambda m, o: ChunkingConfig(strategy="sentences", max_tokens=m, overlap_sentences=o),
        st.integers(3, 30),
        st.integers(0, 2),
    ),
)
_REQUESTS = st.builds(
    ContextRequest,
    kind=st.sampled_from(["neighbours", "section", "table"]),
    budget=st.integers(1, 400),
    neighbours=st.integers(0, 3),
    reach=st.integers(1, 8),
)


def _records(
    text: str, config: ChunkingConfig, doc_id: str = "d", version: str = "v1"
) -> list[ChunkRecord]:
    doc = Document(
        doc_id=doc_id, source_path=f"{doc_id}.md", source_version=version, title="T", text=text
    )
    found = [ChunkRecord.from_source(chunk_source(c)) for c in chunk_document(doc, config)]
    return [r for r in found if r is not None]


def _only_headings(gap: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in gap.splitlines())


def _squeezed(text: str) -> str:
    """Text without whitespace and heading marks: what a passage and its source share."""
    return re.sub(r"[\s#]", "", text)


@st.composite
def _cases(
    draw: st.DrawFn,
) -> tuple[dict[str, str], list[ChunkRecord], list[ChunkRecord], list[ChunkRecord], ContextRequest]:
    """Texts by version (one document, sometimes in two versions both still indexed), the
    chunks the caller may see, those it may not, the ranked hits, and a request."""
    texts = {"v1": draw(_documents())}
    if draw(st.booleans()):
        texts["v2"] = texts["v1"] + "\n\n" + draw(_documents(100))  # an edited version
    config = draw(_CONFIGS)
    records: list[ChunkRecord] = []
    for version in texts:
        if draw(st.booleans()):
            texts[version] = texts[version].replace("\n", "\r\n")
        records += _records(texts[version], config, version=version)
    # one record per chunk id, as in the index: a chunk an edit left as it was keeps the
    # version that wrote it (an in-place sync does not rewrite it)
    records = list({r.chunk_id: r for r in reversed(records)}.values())[::-1]
    assume(records)
    hidden = set(draw(st.lists(st.sampled_from(range(len(records))), max_size=3)))
    visible = [r for i, r in enumerate(records) if i not in hidden]
    assume(visible)
    order = draw(st.permutations(range(len(visible))))
    hits = [visible[i] for i in order[: draw(st.integers(1, min(8, len(visible))))]]
    hidden_records = [r for i, r in enumerate(records) if i in hidden]
    return texts, visible, hidden_records, hits, draw(_REQUESTS)


def _union(intervals: list[tuple[int, int]], text: str | None = None) -> list[tuple[int, int]]:
    """Intervals merged where they overlap (with ``text``: also where only whitespace and
    heading lines lie between them)."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted(intervals):
        if merged and (
            a <= merged[-1][1] or (text is not None and _only_headings(text[merged[-1][1] : a]))
        ):
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_passages_hold_the_budget_never_repeat_text_and_stay_in_one_version(case: tuple) -> None:
    texts, visible, hidden, hits, request = case
    passages, report = assemble_passages(hits, visible, request, WHITESPACE)
    # the budget holds, counted on the real text
    assert all(p.tokens == WHITESPACE.count(p.text) for p in passages)
    assert report.tokens == sum(p.tokens for p in passages) <= request.budget
    # never repeated: segments of every passage are disjoint, in order
    for version in texts:
        segments = [
            (s.start, s.end) for p in passages if p.source_version == version for s in p.segments
        ]
        for (a, b), (c, d) in zip(sorted(segments), sorted(segments)[1:], strict=False):
            assert b <= c, f"segments {(a, b)} and {(c, d)} overlap"
    by_id = {r.chunk_id: r for r in visible}
    for p in passages:
        assert [(s.start, s.end) for s in p.segments] == sorted(
            (s.start, s.end) for s in p.segments
        )
        # one document version; its chunks are chunks the caller may see
        assert all(by_id[c].version == (p.doc_id, p.source_version) for c in p.chunks)
        assert p.span.start == p.segments[0].start and p.span.end == p.segments[-1].end
        # the document's own text over the segments (headings restored without their marks)
        text = texts[p.source_version]
        source = "".join(text[s.start : s.end] for s in p.segments)
        assert _squeezed(p.text) == _squeezed(source)
        # inside the chunks it names
        spans = _union([(by_id[c].start, by_id[c].end) for c in p.chunks], text)
        assert all(any(a <= s.start and s.end <= b for a, b in spans) for s in p.segments)
    # a hidden chunk lends no text: what only it covered is in no segment
    for chunk in hidden:
        visible_spans = _union([(r.start, r.end) for r in visible if r.version == chunk.version])
        segments = [
            (s.start, s.end)
            for p in passages
            if p.source_version == chunk.source_version
            for s in p.segments
        ]
        for a, b in segments:
            lo, hi = max(a, chunk.start), min(b, chunk.end)
            if lo < hi:
                assert any(x <= lo and hi <= y for x, y in visible_spans)
    # every hit once: in one passage, or reported
    placed = [h for p in passages for h in p.hits]
    assert len(placed) == len(set(placed))
    assert set(placed) | set(report.left_out) == {h.chunk_id for h in hits}
    assert not set(placed) & set(report.left_out)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_every_hit_is_covered_when_the_budget_allows(case: tuple) -> None:
    texts, visible, _, hits, request = case
    headings = sum(
        WHITESPACE.count(line)
        for text in texts.values()
        for line in text.splitlines()
        if line.startswith("#")
    )
    need = sum(WHITESPACE.count(h.body) for h in hits) + headings
    request = request.model_copy(update={"budget": max(need, 1)})
    passages, report = assemble_passages(hits, visible, request, WHITESPACE)
    assert not report.left_out and not report.truncated
    assert {h for p in passages for h in p.hits} == {h.chunk_id for h in hits}
    for p in passages:
        for hit_id in p.hits:
            hit = next(h for h in hits if h.chunk_id == hit_id)
            assert any(s.start <= hit.start and hit.end <= s.end for s in p.segments)
    assert [p.rank for p in passages] == sorted(p.rank for p in passages)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_the_budget_holds_in_the_embedders_wordpiece_tokens(case: tuple) -> None:
    wordpiece = _wordpiece()
    _, visible, _, hits, request = case
    passages, _ = assemble_passages(hits, visible, request, wordpiece)
    assert all(p.tokens == wordpiece.count(p.text) for p in passages)
    assert sum(p.tokens for p in passages) <= request.budget


def _wordpiece():  # type: ignore[no-untyped-def]
    try:
        return get_tokenizer("minilm-wordpiece")
    except Exception as exc:  # the subword extra is part of the dev install
        pytest.fail(f"minilm-wordpiece is not installed: {exc}")


# --------------------------------------------------------------------------- runs: the text


def test_overlapping_windows_of_a_crlf_source_join_into_its_exact_text() -> None:
    source = "\r\n".join(f"line {i} holds words and $ {i}00" for i in range(40)) + "\r\n"
    records = _records(source, ChunkingConfig(strategy="fixed", size=9, overlap=4))
    assert any(r.line_breaks_removed for r in records)  # spans are longer than bodies
    (run,) = build_runs(records)
    assert run.text == normalize(source)
    for (a, b), record in zip(run.places, records, strict=True):
        assert run.text[a:b] == record.body
        assert run.source_offset(a) == record.start
        assert run.source_offset(b, end=True) == record.end


def test_a_mixed_crlf_overlap_is_still_found_by_its_text() -> None:
    source = "first line\r\nsecond line\nthird line\r\nfourth line\nfifth line\r\n" * 3
    records = _records(source, ChunkingConfig(strategy="fixed", size=5, overlap=3))
    (run,) = build_runs(records)
    assert run.text == normalize(source)


def test_an_overlap_whose_text_does_not_match_starts_a_run_of_its_own() -> None:
    records = _records(
        " ".join(f"w{i}" for i in range(30)), ChunkingConfig(strategy="fixed", size=6, overlap=2)
    )
    broken = replace(records[2], body="something else entirely here ok")
    runs = build_runs([records[0], records[1], broken, records[3]])
    assert [[c.chunk_index for c in r.chunks] for r in runs] == [[0, 1], [2], [3]]
    assert [r.text for r in runs[1:]] == [broken.body, records[3].body]


def test_a_gap_in_the_chunk_indexes_ends_the_run() -> None:
    records = _records(
        "one two three four five six seven eight nine ten", ChunkingConfig(strategy="fixed", size=2)
    )
    runs = build_runs([records[0], records[1], records[3]])
    assert [[c.chunk_index for c in r.chunks] for r in runs] == [[0, 1], [3]]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("alpha beta gamma delta", "alpha beta gamma delta"),  # one space
        ("alpha beta\ngamma delta", "alpha beta gamma delta"),  # a line break inside prose
        ("alpha beta\n\ngamma delta", "alpha beta\n\ngamma delta"),  # a paragraph
        ("| a |\n| c |", "| a |\n| c |"),  # two table rows
        ("| a | b\n| c |", "| a | b | c |"),  # a row cut inside
        ("- a b\n- c d", "- a b\n- c d"),  # list items
    ],
)
def test_the_whitespace_between_two_chunks_is_rendered_from_its_length(
    source: str, expected: str
) -> None:
    records = _records(source, ChunkingConfig(strategy="fixed", size=2))
    (run,) = build_runs(records)
    assert run.text == expected


def test_a_heading_between_two_sections_is_restored_as_its_own_paragraph() -> None:
    source = "# Policy\n\nIntro text.\n\n## Coverage\n\nThe limit applies.\n"
    records = _records(source, ChunkingConfig(strategy="structural"))
    (run,) = build_runs(records)
    assert run.text == "Intro text.\n\nCoverage\n\nThe limit applies."
    passages, _ = assemble_passages([records[1]], records, ContextRequest(budget=100), WHITESPACE)
    (passage,) = passages
    assert passage.text == run.text and passage.breadcrumb == "T › Policy"
    assert (passage.span.start, passage.span.end) == (records[0].start, records[1].end)


# --------------------------------------------------------------------------- budget and order


def _long_doc(paragraphs: int = 8) -> str:
    return "\n\n".join(" ".join(f"p{i}w{j}" for j in range(10)) + "." for i in range(paragraphs))


def test_expansion_around_the_better_hit_is_filled_first() -> None:
    records = _records(_long_doc(), ChunkingConfig(strategy="structural", max_tokens=10))
    assert len(records) == 8
    best, other = records[2], records[6]
    request = ContextRequest(kind="neighbours", budget=40, neighbours=2)  # room for 4 chunks
    passages, report = assemble_passages([best, other], records, request, WHITESPACE)
    first, second = passages
    assert first.hits == [best.chunk_id] and second.hits == [other.chunk_id]
    assert first.chunks == [r.chunk_id for r in records[1:4]]  # the next one, the previous one
    assert second.chunks == [other.chunk_id]
    assert report.expansion_cut == [best.chunk_id, other.chunk_id]
    assert report.tokens == 40


def test_the_first_hit_that_does_not_fit_is_cut_and_the_rest_left_out() -> None:
    records = _records(_long_doc(), ChunkingConfig(strategy="structural", max_tokens=10))
    hits = [records[5], records[1], records[3]]
    passages, report = assemble_passages(hits, records, ContextRequest(budget=14), WHITESPACE)
    first, second = passages
    assert first.text == records[5].body and not first.truncated
    assert second.text == "p1w0 p1w1 p1w2 p1w3" and second.truncated
    assert report.truncated == [records[1].chunk_id] and report.left_out == [records[3].chunk_id]
    assert report.tokens == 14


def test_a_hit_longer_than_the_budget_is_cut_at_its_last_token() -> None:
    records = _records(_long_doc(2), ChunkingConfig(strategy="fixed", size=10))
    passages, report = assemble_passages(records, records, ContextRequest(budget=4), WHITESPACE)
    (passage,) = passages
    assert passage.text == "p0w0 p0w1 p0w2 p0w3" and passage.truncated and passage.tokens == 4
    assert report.truncated == [records[0].chunk_id] and report.left_out == [records[1].chunk_id]
    assert passage.span.end == records[0].start + len("p0w0 p0w1 p0w2 p0w3")


def test_with_no_room_to_expand_a_passage_is_the_hit_itself() -> None:
    records = _records(_long_doc(), ChunkingConfig(strategy="structural", max_tokens=10))
    request = ContextRequest(kind="neighbours", budget=10, neighbours=3)
    passages, report = assemble_passages([records[4]], records, request, WHITESPACE)
    (passage,) = passages
    assert passage.text == records[4].body and passage.chunks == [records[4].chunk_id]
    assert report.expansion_cut == [records[4].chunk_id]


def test_adjacent_hits_share_one_passage_ordered_by_the_best() -> None:
    records = _records(_long_doc(), ChunkingConfig(strategy="structural", max_tokens=10))
    passages, _ = assemble_passages(
        [records[5], records[1], records[4]], records, ContextRequest(neighbours=0), WHITESPACE
    )
    assert [p.hits for p in passages] == [
        [records[5].chunk_id, records[4].chunk_id],
        [records[1].chunk_id],
    ]
    assert passages[0].rank == 1 and passages[1].rank == 2


# --------------------------------------------------------------------------- section and table


_SECTIONS = """# Guide

Preamble words.

## Coverage

Coverage words one. Coverage words two. Coverage words three. Coverage words four.

### Limits

Limit words here.

## Claims

Claim words here.
"""


def test_a_section_is_the_hits_own_section_first_then_its_parent() -> None:
    records = _records(_SECTIONS, ChunkingConfig(strategy="structural", max_tokens=6))
    coverage = [r for r in records if r.heading_path[:2] == ("Guide", "Coverage")]
    assert [r.heading_path[-1] for r in coverage] == ["Coverage", "Coverage", "Limits"]
    hit = coverage[1]  # the second piece of Coverage; Limits is inside Coverage
    own = sum(WHITESPACE.count(r.body) for r in coverage) + WHITESPACE.count("Limits")
    request = ContextRequest(kind="section", budget=own)
    passages, report = assemble_passages([hit], records, request, WHITESPACE)
    assert passages[0].chunks == [r.chunk_id for r in coverage]
    assert report.expansion_cut == [hit.chunk_id]  # the parent (Guide) did not fit
    request = ContextRequest(kind="section", budget=500)
    passages, report = assemble_passages([hit], records, request, WHITESPACE)
    (whole,) = passages
    assert whole.chunks == [r.chunk_id for r in records] and not report.expansion_cut
    assert "Claims" in whole.text and whole.breadcrumb == "T › Guide"


def test_a_hit_that_is_a_whole_section_gets_its_parent() -> None:
    records = _records(_SECTIONS, ChunkingConfig(strategy="structural", max_tokens=100))
    limits = next(r for r in records if r.heading_path[-1:] == ("Limits",))
    passages, _ = assemble_passages(
        [limits], records, ContextRequest(kind="section", budget=500), WHITESPACE
    )
    (passage,) = passages
    coverage = [r.chunk_id for r in records if r.heading_path[:2] == ("Guide", "Coverage")]
    assert passage.chunks == coverage and passage.breadcrumb == "T › Guide › Coverage"


_TABLE = """Revenue by segment is as follows (in thousands):

| Segment | 2019 | 2018 |
|---|---|---|
| North | 100 | 90 |
| South | 200 | 180 |
| East | 300 | 270 |
| West | 400 | 360 |

After the table.
"""


def test_a_hit_inside_a_table_gets_the_header_row_and_the_caption() -> None:
    records = _records(_TABLE, ChunkingConfig(strategy="fixed", size=8))
    hit = next(r for r in records if "West" in r.body and "Segment" not in r.body)
    passages, _ = assemble_passages(
        [hit], records, ContextRequest(kind="table", budget=200), WHITESPACE
    )
    (passage,) = passages
    lines = passage.text.split("\n")
    assert lines[0] == "Revenue by segment is as follows (in thousands):"
    assert "| Segment | 2019 | 2018 |\n|---|---|---|" in passage.text
    assert passage.text.endswith(hit.body) and "South" not in passage.text.replace(hit.body, "")
    assert len(passage.segments) == 2 and starts_in_table(hit.body)


def test_a_loader_table_hit_gets_its_header_line() -> None:
    source = (
        "Net sales by region (in millions):\n\n"
        "Region | 2019 | 2018\n"
        "Americas — 2019: 10.1; 2018: 9.0\n"
        "Europe — 2019: 8.2; 2018: 7.7\n"
        "Asia — 2019: 5.5; 2018: 5.0\n"
    )
    records = _records(source, ChunkingConfig(strategy="fixed", size=7))
    hit = records[3]  # "2018: 7.7\nAsia — …": inside the table
    (run,) = build_runs(records)
    assert run.text == normalize(source)
    parts = table_parts(run, run.position(hit.chunk_id) or 0)
    assert [run.text[a:b] for a, b in parts] == [
        "Region | 2019 | 2018",
        "Net sales by region (in millions):",
    ]


def test_a_hit_outside_any_table_is_its_own_table_passage() -> None:
    records = _records(_TABLE, ChunkingConfig(strategy="fixed", size=8))
    hit = next(r for r in records if "After" in r.body)
    passages, _ = assemble_passages(
        [hit], records, ContextRequest(kind="table", budget=200), WHITESPACE
    )
    assert passages[0].chunks[-1] == hit.chunk_id and passages[0].text.endswith("After the table.")


# --------------------------------------------------------------------------- the request


def test_the_request_reads_merged_index_ranges_of_each_version() -> None:
    records = _records(_long_doc(), ChunkingConfig(strategy="structural", max_tokens=10))
    found = regions([records[2], records[3], records[7]], ContextRequest(neighbours=1))
    assert [(r.lo, r.hi) for r in found] == [(1, 4), (6, 8)]
    assert region_filter(found[1:]) == AnyOf(
        (
            AllOf(
                (
                    Term("doc_id", "d"),
                    Term("source_version", "v1"),
                    Range("chunk_index", gte=6, lte=8),
                )
            ),
        )
    )
    assert regions([records[2]], ContextRequest(neighbours=0)) == []


def test_a_section_request_names_the_parent_headings() -> None:
    records = _records(_SECTIONS, ChunkingConfig(strategy="structural", max_tokens=100))
    limits = next(r for r in records if r.heading_path[-1:] == ("Limits",))
    (region,) = regions([limits], ContextRequest(kind="section", reach=3))
    assert region.headings == ("Guide", "Coverage") and (region.lo, region.hi) == (
        max(limits.chunk_index - 3, 0),
        limits.chunk_index + 3,
    )


def test_a_table_request_reads_only_for_hits_that_start_inside_a_table() -> None:
    records = _records(_TABLE, ChunkingConfig(strategy="fixed", size=8))
    inside = next(r for r in records if r.body.startswith("|") and r.chunk_index > 0)
    outside = records[0]
    found = regions([outside, inside], ContextRequest(kind="table", reach=4))
    assert [(r.lo, r.hi) for r in found] == [(max(inside.chunk_index - 4, 0), inside.chunk_index)]


def test_a_second_header_row_of_dates_comes_with_the_header() -> None:
    source = (
        "Results were as follows (in millions):\n\n"
        "|  | Year ended |  |\n|---|---|---|\n|  | December 31, 2019 | December 31, 2018 |\n"
        "| Revenue | 10.5 | 9.1 |\n| Cost | 5.2 | 4.4 |\n| Profit | 5.3 | 4.7 |\n"
    )
    records = _records(source, ChunkingConfig(strategy="fixed", size=6))
    hit = next(r for r in records if "Profit" in r.body)
    (run,) = build_runs(records)
    header, caption = table_parts(run, run.position(hit.chunk_id) or 0)
    assert run.text[header[0] : header[1]] == (
        "|  | Year ended |  |\n|---|---|---|\n|  | December 31, 2019 | December 31, 2018 |"
    )
    assert run.text[caption[0] : caption[1]] == "Results were as follows (in millions):"


def test_the_request_reads_only_what_the_budget_can_use() -> None:
    assert usable_chunks([100, 100, 100], 300) == 0  # the hits fill it: nothing to read
    assert usable_chunks([100, 100, 100], 1024) == 15  # twice 724 / 100, rounded up
    assert usable_chunks([100, 90, 120], 320) == 1  # at least one
    assert usable_chunks([], 100) == 1
    records = _records(_long_doc(), ChunkingConfig(strategy="structural", max_tokens=10))
    hits = [records[3], records[5]]
    assert regions(hits, ContextRequest(kind="neighbours", neighbours=3), usable=0) == []
    narrow = regions(hits, ContextRequest(kind="section", reach=8), usable=1)
    assert [(r.lo, r.hi) for r in narrow] == [(2, 6)]
    wide = regions(hits, ContextRequest(kind="neighbours", neighbours=1), usable=5)
    assert [(r.lo, r.hi) for r in wide] == [(2, 6)]
