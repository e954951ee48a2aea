"""The embedded backend's analyzers: the same terms as OpenSearch's ``english`` analyzer."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opensearchpy import OpenSearch
from paths import CORPORA

from osrag.engines.embedded.analyzers import _EXACT, _FAST, _SAFE, get_analyzer, porter_stem
from osrag.engines.embedded.highlight import highlight
from osrag.errors import ConfigError

ENGLISH = get_analyzer("english")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "insurance"


def test_the_fast_path_tokenizes_every_safe_character_as_the_unicode_pattern() -> None:
    checked = 0
    for code in range(0x10000):
        char = chr(code)
        if not _SAFE.fullmatch(char):
            continue
        checked += 1
        for text in (f"a{char}b", f"1{char}2", char, f"x {char}{char} y", f"é{char}1"):
            assert _FAST.findall(text) == _EXACT.findall(text), (hex(code), text)
    assert checked > 700


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("uses", "us"),  # Porter, not Porter2 ("use")
        ("general", "gener"),
        ("possibly", "possibl"),  # the reference code's -bli → -ble
        ("analogy", "analog"),  # ... and -logi → -log
        ("grokking", "grok"),  # any doubled consonant is undoubled
        ("us", "us"),  # words of two letters are not stemmed
        ("umbrellas", "umbrella"),
    ],
)
def test_porter_is_lucenes_variant(word: str, stem: str) -> None:
    assert porter_stem(word) == stem


def test_english_keeps_numbers_and_dotted_words_whole_and_drops_possessives() -> None:
    text = "The umbrella's $300,000 limit isn't site.url 3.5 ÉTÉ İstanbul 日本"
    assert ENGLISH.terms(text) == [
        "umbrella",
        "300,000",
        "limit",
        "isn't",
        "site.url",
        "3.5",
        "été",
        "istanbul",
        "日",
        "本",
    ]


@given(st.text(max_size=60), st.text(max_size=60))
def test_a_line_break_always_separates_tokens(left: str, right: str) -> None:
    # the embedded schema analyses ``text`` as breadcrumb terms + body terms
    assert ENGLISH.terms(f"{left}\n{right}") == ENGLISH.terms(left) + ENGLISH.terms(right)


@given(st.text(max_size=80))
def test_terms_never_contain_spaces_and_offsets_point_at_the_source(text: str) -> None:
    terms = ENGLISH.terms(text)
    assert all(term and " " not in term for term in terms)
    assert [t.term for t in ENGLISH.tokens(text)] == terms
    for token in ENGLISH.tokens(text):
        assert 0 <= token.start < token.end <= len(text)


def test_an_unknown_analyzer_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="english, standard"):
        get_analyzer("french")


def test_highlight_marks_matching_words_inside_the_best_sentences() -> None:
    body = "Nothing here. The umbrella limit is $300,000 per occurrence. Umbrellas cover more."
    best = highlight(body, ENGLISH, ["umbrella"], number_of_fragments=1, pre_tag="«", post_tag="»")
    assert best == ["The «umbrella» limit is $300,000 per occurrence."]
    both = highlight(body, ENGLISH, ["umbrella"], pre_tag="«", post_tag="»")
    assert both == [best[0], "«Umbrellas» cover more."]
    assert all(f.replace("«", "").replace("»", "") in body for f in both)
    assert highlight(body, ENGLISH, ["tower"]) == []


def _samples(seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.md"))]
    docs = CORPORA / "opensearch-docs"
    texts += [p.read_text(encoding="utf-8")[:8000] for p in sorted(docs.rglob("*.md"))]
    with (CORPORA / "cranfield" / "derived" / "corpus.jsonl").open(encoding="utf-8") as handle:
        cranfield = [json.loads(line) for line in handle]
    texts += [f"{d['title']}\n{d['text']}" for d in rng.sample(cranfield, 150)]
    contracts = sorted((CORPORA / "cuad-contracts" / "contracts").glob("*.txt"))
    texts += [p.read_text(encoding="utf-8", errors="replace")[:8000] for p in contracts[:15]]
    return texts


@pytest.mark.opensearch
@pytest.mark.corpus
def test_terms_equal_opensearch_english_analyzer_on_the_corpora(
    os_client: OpenSearch, corpora: Path
) -> None:
    mismatched, tokens = [], 0
    for text in _samples(seed=8):
        theirs = [
            t["token"]
            for t in os_client.indices.analyze(body={"analyzer": "english", "text": text})["tokens"]
        ]
        tokens += len(theirs)
        if ENGLISH.terms(text) != theirs:
            mismatched.append(text[:60])
    assert tokens > 45_000  # 49,636 in these samples of the slices
    assert mismatched == []


@pytest.mark.opensearch
def test_standard_equals_opensearch_standard_analyzer(os_client: OpenSearch) -> None:
    text = "The Umbrella's $300,000 limit — U.S. site.url 3.5 isn't ÉTÉ"
    theirs = os_client.indices.analyze(body={"analyzer": "standard", "text": text})["tokens"]
    assert get_analyzer("standard").terms(text) == [t["token"] for t in theirs]
