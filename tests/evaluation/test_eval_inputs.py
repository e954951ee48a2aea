"""Query sets and qrels are read as trec_eval, BEIR and NIST's topic files mean them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.errors import ConfigError, InputError
from osrag.evaluation import load_qrels, load_query_set, parse_topics, read_qrels, read_topics

EVAL = Path(__file__).resolve().parents[1] / "data" / "eval"
TOPICS = EVAL / "cranfield-topics-1-20.trec"
TREC_QRELS = EVAL / "cranfield-1-20.qrels"


def test_trec_qrels_ignore_the_iteration_column(tmp_path: Path) -> None:
    # trec_eval reads `qid iter docno rel` and ignores iter; a file whose iteration
    # column is 1 once had the document id read as the grade
    qrels = tmp_path / "qrels"
    qrels.write_text("1 1 184 3\n1 1 29 2\n2 7 12 0\n")
    assert read_qrels(qrels) == {"1": {"184": 3, "29": 2}, "2": {"12": 0}}


def test_the_real_format_trec_qrels_sample() -> None:
    loaded = load_qrels(TREC_QRELS)
    assert loaded.format == "trec"
    assert loaded.repeated_lines == 1  # one line is there twice
    assert loaded.judgments["1"]["184"] == 3
    assert loaded.judgments["7"]["99999"] == 2  # an unknown document is still a judgment
    negative = [d for g in loaded.judgments.values() for d, grade in g.items() if grade < 0]
    assert len(negative) == 20  # Cranfield's "of no interest" code kept as grade -1


def test_trec_qrels_agree_with_the_beir_copy_of_the_same_judgments(corpora: Path) -> None:
    beir = load_qrels(corpora / "cranfield" / "derived" / "qrels.tsv")
    trec = load_qrels(TREC_QRELS)
    assert beir.format == "beir"  # header query-id corpus-id score cleverdon_code
    for qid in map(str, range(1, 21)):
        relevant = {d: g for d, g in trec.judgments[qid].items() if g > 0 and d != "99999"}
        assert relevant == {d: g for d, g in beir.judgments[qid].items() if g > 0}


def test_conflicting_judgments_name_both_lines(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 184 3\n1 0 29 2\n1 0 184 1\n")
    with pytest.raises(InputError, match=r"qrels:3: .*'184' 1, but line 1 judged it 3"):
        load_qrels(qrels)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("1 0 184\n1 0 29 2\n", r"qrels:2: expected 3 columns .* mixes column counts"),
        ("1 0 184 high\n", r"qrels:1: the grade 'high' is not an integer"),
        ("query-id\tdocid\n1\t2\n", r"qrels:1: the header .* names no grade column"),
        ("\n\n", r"no judgments"),
    ],
)
def test_bad_qrels_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text(content)
    with pytest.raises(InputError, match=message):
        load_qrels(qrels)


def test_beir_qrels_without_a_header_and_a_forced_format(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("1\t184\t3\n1\t29\t-1\n")
    assert read_qrels(qrels) == {"1": {"184": 3, "29": -1}}
    trec = tmp_path / "trec"
    trec.write_text("q-1 0 qrels 1\n")  # a query id that looks like a header word
    assert read_qrels(trec, "trec") == {"q-1": {"qrels": 1}}


def test_the_real_format_topics_sample_title_and_description() -> None:
    titles = read_topics(TOPICS)
    assert [q.id for q in titles] == [str(i) for i in range(1, 21)]
    assert titles[0].query == (
        "what similarity laws must be obeyed when constructing aeroelastic models of "
        "heated high speed aircraft"
    )
    described = read_topics(TOPICS, "description")
    assert described[0].query.startswith("what similarity laws") and "Description" not in (
        described[0].query
    )
    both = read_topics(TOPICS, "title+description")
    assert both[3].query == f"{titles[3].query} {described[3].query}"  # the closed-tag topic
    assert "</title>" not in titles[3].query


def test_topics_with_judgments_from_trec_qrels_give_the_beir_query_set(corpora: Path) -> None:
    derived = corpora / "cranfield" / "derived"
    topics = load_query_set(TOPICS, TREC_QRELS)
    assert topics.format == "trec-topics" and len(topics.judged) == 20
    beir = load_query_set(derived / "queries.jsonl", derived / "qrels.tsv")
    texts = {q.id: q.query for q in beir.queries}
    for q in topics.queries:
        assert q.query == texts[q.id].rstrip(" .")
    assert any("1 repeated lines" in w for w in topics.warnings)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text("abcxyz019-", min_size=1, max_size=6),
            st.text("abc def\nghi:", min_size=1, max_size=30).filter(lambda t: t.split()),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda t: t[0],
    ),
    st.booleans(),
)
def test_topic_parser_reads_back_what_was_written(
    topics: list[tuple[str, str]], closed: bool
) -> None:
    blocks = []
    for num, title in topics:
        if closed:
            blocks.append(f"<top><num>{num}</num><title>{title}</title></top>")
        else:
            blocks.append(
                f"<top>\n<num> Number: {num}\n<title> {title}\n<desc> Description:\nx\n</top>"
            )
    parsed = parse_topics("\n".join(blocks))
    assert [(f["num"], f["title"]) for _line, f in parsed] == [
        (num, " ".join(title.split())) for num, title in topics
    ]


def test_beir_queries_without_qrels_are_refused(corpora: Path) -> None:
    derived = corpora / "cranfield" / "derived"
    with pytest.raises(ConfigError, match=r"without judgments .* pass --qrels"):
        load_query_set(derived / "queries.jsonl")
    with pytest.raises(ConfigError, match="TREC topics, which carry no judgments"):
        load_query_set(TOPICS)


def test_unjudged_queries_and_unknown_qrels_queries_are_warnings_with_counts(
    tmp_path: Path,
) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "".join(json.dumps({"_id": str(i), "text": f"query {i}"}) + "\n" for i in range(1, 5))
    )
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n2 0 b 0\n9 0 c 1\n")
    loaded = load_query_set(queries, qrels)
    assert [q.id for q in loaded.judged] == ["1"]
    assert any(w.startswith("3 of 4 queries have no relevant document") for w in loaded.warnings)
    assert any("judges 1 queries that are not in" in w for w in loaded.warnings)
    nothing = tmp_path / "nothing"
    nothing.write_text("7 0 a 1\n")
    with pytest.raises(InputError, match=r"none of the 4 queries .* has a relevant document"):
        load_query_set(queries, nothing)


def test_jsonl_duplicate_query_ids_are_refused(tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "1", "query": "a", "relevant": ["d"]}\n' * 2)
    with pytest.raises(InputError, match=r"q\.jsonl:2: query id '1' again"):
        load_query_set(queries)
