"""The query-analysis LRU and the Searcher's query-vector LRU: bounded, keyed by every
setting that changes the value, and never handing out the stored value itself."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from osrag.engines.embedded.index import EmbeddedIndex
from osrag.models import ExtractionConfig, GenerationRecord, QuerySpec
from osrag.search import results as results_module
from osrag.search import searcher as searcher_module
from osrag.search.analysis import AnalysisCache, analyze_query, analyze_query_cached
from osrag.search.ladder import Ladder
from osrag.search.query import plan_query
from osrag.search.searcher import Searcher

USD = ExtractionConfig()
CAD = ExtractionConfig(default_currency="CAD")


def test_cache_is_bounded_and_drops_the_least_recently_used() -> None:
    cache = AnalysisCache(size=2)
    cache.analyze("$1 a", USD, 16)
    cache.analyze("$2 b", USD, 16)
    cache.analyze("$1 a", USD, 16)  # a is now the most recent
    cache.analyze("$3 c", USD, 16)
    assert len(cache) == 2
    keys = [key[0] for key in cache._entries]
    assert keys == ["$1 a", "$3 c"]


def test_cache_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        AnalysisCache(size=0)


def test_a_caller_cannot_change_the_cached_analysis() -> None:
    cache = AnalysisCache(size=4)
    text = "umbrella over $300K and $1M–$2M on 01/15/2024 POL-12345"
    first = cache.analyze(text, USD, 16)
    expected = analyze_query(text, USD)
    first.constraints.clear()
    first.amounts.clear()
    first.dates.clear()
    first.money_mentions.clear()
    first.remaining_text = "changed"
    again = cache.analyze(text, USD, 16)
    assert again == expected
    assert again.constraints and again.amounts
    # the lists are the caller's own; their items cannot be changed at all
    with pytest.raises(ValidationError):
        again.constraints[0].currency = "EUR"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        again.money_mentions[0].minor_units = 1  # type: ignore[misc]
    assert cache.analyze(text, USD, 16) == expected


def test_different_extraction_settings_do_not_share_an_entry() -> None:
    cache = AnalysisCache(size=8)
    text = "deductible of $500"
    usd = cache.analyze(text, USD, 16)
    cad = cache.analyze(text, CAD, 16)
    assert usd == analyze_query(text, USD)
    assert cad == analyze_query(text, CAD)
    assert usd.amounts[0].currency == "USD" and cad.amounts[0].currency == "CAD"
    dmy = cache.analyze("due 03/04/2024", ExtractionConfig(date_order="DMY"), 16)
    mdy = cache.analyze("due 03/04/2024", USD, 16)
    assert dmy.dates != mdy.dates
    assert len(cache) == 4


def test_max_amounts_is_part_of_the_key() -> None:
    cache = AnalysisCache(size=8)
    text = "$1 $2 $3"
    assert len(cache.analyze(text, USD, 16).constraints) == 3
    from osrag.errors import QueryError

    with pytest.raises(QueryError):
        cache.analyze(text, USD, 2)


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("$€£0123456789.,KkMm over and or to-–/ abcUSDEUR()")),
        max_size=40,
    ),
    st.sampled_from([USD, CAD]),
)
def test_cached_analysis_equals_a_fresh_one(text: str, config: ExtractionConfig) -> None:
    try:
        expected = analyze_query(text, config)
    except Exception as error:  # the cached path refuses the same texts the same way
        with pytest.raises(type(error)):
            analyze_query_cached(text, config)
        return
    assert analyze_query_cached(text, config) == expected
    assert analyze_query_cached(text, config) == expected  # the second time from the cache


class CountingEmbedder:
    """Deterministic vectors of the text's length; counts the texts it embeds."""

    def __init__(self, name: str) -> None:
        self.id = name
        self.texts: list[str] = []

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [[float(len(t)), 1.0, 0.5] for t in texts]


class FixedEmbedderSearcher(Searcher):
    """A Searcher whose embedder is chosen by the test (no generation holds vectors)."""

    chosen: Any = None

    def embedder(self) -> Any:
        return self.chosen


@pytest.fixture
def searcher(tmp_path: Path) -> FixedEmbedderSearcher:
    found = FixedEmbedderSearcher(EmbeddedIndex(tmp_path / "embedded"), "cache-test")
    found.chosen = CountingEmbedder("model-a")
    return found


def test_query_vectors_are_cached_per_text_and_copied(searcher: FixedEmbedderSearcher) -> None:
    plan = searcher.plan("umbrella liability", mode="hybrid", tenant="t")
    first = searcher.query_vector(plan)
    assert first == [18.0, 1.0, 0.5]
    first.append(99.0)
    assert searcher.query_vector(plan) == [18.0, 1.0, 0.5]
    assert searcher.chosen.texts == ["umbrella liability"]


def test_query_vectors_are_keyed_by_embedder(searcher: FixedEmbedderSearcher) -> None:
    plan = searcher.plan("umbrella", mode="hybrid", tenant="t")
    searcher.query_vector(plan)
    other = CountingEmbedder("model-b")
    searcher.chosen = other
    searcher.query_vector(plan)
    assert other.texts == ["umbrella"]  # not answered by model-a's vector


def test_query_vector_cache_is_bounded(
    searcher: FixedEmbedderSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searcher_module, "QUERY_VECTOR_CACHE_SIZE", 3)
    for word in ("a", "bb", "ccc", "dddd", "eeeee"):
        searcher.query_vector(searcher.plan(word, mode="vector", tenant="t"))
    assert len(searcher._vectors) == 3
    searcher.query_vector(searcher.plan("a", mode="vector", tenant="t"))
    assert searcher.chosen.texts[-1] == "a"  # dropped, so embedded again


def test_overrides_are_validated_as_query_fields(searcher: FixedEmbedderSearcher) -> None:
    with pytest.raises(ValidationError, match="sizee"):
        searcher.plan("umbrella", sizee=5)
    with pytest.raises(ValidationError, match="k"):
        searcher.plan("umbrella", k=-1)
    spec = searcher.plan("umbrella", tenant="t").spec
    with pytest.raises(ValidationError, match="mode"):
        searcher.plan(spec, mode="fuzzy")
    assert searcher.plan(spec, k=3).spec.k == 3
    assert searcher.plan(spec, k=3).spec.tenant == "t"


def test_extraction_settings_are_read_once_per_generation(
    searcher: FixedEmbedderSearcher,
) -> None:
    assert searcher._extraction(None) is searcher_module.DEFAULT_EXTRACTION
    searcher.extraction = None

    record = GenerationRecord.model_validate(
        {
            "name": "g-1",
            "alias": "cache-test",
            "digest": "d",
            "number": 1,
            "config": {"extraction": {"default_currency": "CAD"}},
            "versions": {},
            "created_at": "2026-01-01T00:00:00Z",
        }
    )
    first = searcher._extraction(record)
    assert first.default_currency == "CAD"
    assert searcher._extraction(record) is first
    other = record.model_copy(update={"config": {"extraction": {"default_currency": "EUR"}}})
    assert searcher._extraction(other).default_currency == "EUR"


def test_the_search_line_is_logged_at_info_only(caplog: pytest.LogCaptureFixture) -> None:
    plan = plan_query(QuerySpec(text="umbrella over $300K", tenant="t"))
    ran = results_module.Ran([], 0, 7, None)

    def answered() -> Ladder[results_module.Ran]:
        ladder: Ladder[results_module.Ran] = Ladder(plan)
        assert ladder.after(ran) is None  # the first step answers
        return ladder

    with caplog.at_level(logging.WARNING, logger=results_module.log.name):
        results_module.shape_result(plan, ran, answered(), "g-1", 0.0)
    assert caplog.records == []
    with caplog.at_level(logging.INFO, logger=results_module.log.name):
        result = results_module.shape_result(plan, ran, answered(), "g-1", 0.0)
    (record,) = caplog.records
    message = record.getMessage()
    assert "query='umbrella over $300K'" in message
    assert "candidates=7 amount_candidates=7 amount_step=bound" in message
    assert "fallback=False" in message
    assert result.candidate_count == 7
