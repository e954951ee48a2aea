"""The vector leg's floor at the amount steps where the words choose.

When the amount no longer names the asked quantity (the per-unit and role-free steps),
any amount in range passes and the lexical leg keeps only the candidates matching the
question's words; the vector leg keeps the hits scoring at least ``vector_floor`` of its
best rather than every filtered chunk up to ``k``; hybrid then fuses legs of equal depth,
each cut to the documents of the shorter one. Pure checks of the cuts and the plans (the
filters unchanged and in both legs), then the search on the embedded index.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.errors import QueryError
from osrag.models import QuerySpec
from osrag.schema.plan import EngineHit, VectorLeg
from osrag.search import fusion
from osrag.search.query import plan_query, search_plan, vector_floor


def _hit(n: int, score: float | None) -> EngineHit:
    return EngineHit(chunk_id=f"d{n}#0#{n:016x}", doc_id=f"d{n}", score=score, source={})


def test_the_cut_keeps_the_hits_at_or_above_the_share_of_the_best_in_order() -> None:
    hits = [_hit(1, 0.9), _hit(2, 0.8), _hit(3, 0.73), _hit(4, 0.71), _hit(5, 0.3)]
    assert [h.doc_id for h in fusion.above_floor(hits, 0.8)] == ["d1", "d2", "d3"]
    assert fusion.above_floor(hits, None) == hits
    assert fusion.above_floor([], 0.8) == []
    unscored = [_hit(1, None), _hit(2, None)]
    assert fusion.above_floor(unscored, 0.8) == unscored


@given(
    st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30),
    st.floats(min_value=0.01, max_value=1.0),
)
def test_the_cut_is_a_prefix_of_a_ranked_leg_holding_its_best(
    scores: list[float], floor: float
) -> None:
    ranked = [_hit(n, s) for n, s in enumerate(sorted(scores, reverse=True))]
    kept = fusion.above_floor(ranked, floor)
    assert kept == ranked[: len(kept)]
    if ranked[0].score:
        assert kept and kept[0] == ranked[0]
        assert all((h.score or 0) >= floor * (ranked[0].score or 0) for h in kept)
        assert all((h.score or 0) < floor * ranked[0].score for h in ranked[len(kept) :])


def _chunk(doc: str, n: int) -> EngineHit:
    return EngineHit(chunk_id=f"{doc}#{n}#{n:016x}", doc_id=doc, score=1.0, source={})


def test_legs_of_equal_depth_are_cut_to_the_documents_of_the_shorter_leg() -> None:
    # a price list the words choose, a tail of documents only the words reach; the
    # floored leg holds two documents, one chunk of the first counted once
    words = [_chunk("kennel", 0), _chunk("groomer", 0), _chunk("florist", 0), _chunk("bakery", 0)]
    meaning = [_chunk("groomer", 1), _chunk("groomer", 0), _chunk("kennel", 2)]
    cut = fusion.at_equal_depth([words, meaning])
    assert [h.doc_id for h in cut[0]] == ["kennel", "groomer"]
    assert cut[1] == meaning
    fused = fusion.reciprocal_rank_fusion(cut)
    assert {h.doc_id for h in fused} == {"kennel", "groomer"}


def test_each_leg_keeps_its_own_first_documents_whoever_holds_them() -> None:
    # the words reach one document, the meaning another first: both stay, no tail
    words = [_chunk("invoice", 0)]
    meaning = [_chunk("statement", 0), _chunk("invoice", 0), _chunk("receipt", 0)]
    cut = fusion.at_equal_depth([words, meaning])
    assert [[h.doc_id for h in leg] for leg in cut] == [["invoice"], ["statement"]]


def test_a_leg_that_returned_nothing_sets_no_depth() -> None:
    meaning = [_chunk("statement", 0), _chunk("receipt", 0)]
    assert fusion.at_equal_depth([[], meaning]) == [[], meaning]
    assert fusion.at_equal_depth([[], []]) == [[], []]


@given(
    st.lists(st.lists(st.integers(0, 9), max_size=12), min_size=1, max_size=3),
)
def test_legs_of_equal_depth_are_prefixes_holding_as_many_documents(
    docs: list[list[int]],
) -> None:
    legs = [[_chunk(f"d{d}", n) for n, d in enumerate(leg)] for leg in docs]
    cut = fusion.at_equal_depth(legs)
    counts = [len({h.doc_id for h in leg}) for leg in legs if leg]
    depth = min(counts) if counts else 0
    for whole, kept in zip(legs, cut, strict=True):
        documents = list(dict.fromkeys(h.doc_id for h in whole))
        assert kept == whole[: len(kept)]  # a prefix: every hit at its rank
        assert list(dict.fromkeys(h.doc_id for h in kept)) == (
            documents[:depth] if counts else documents
        )
        if len(kept) < len(whole):  # cut at the first hit of one document more
            assert whole[len(kept)].doc_id not in {h.doc_id for h in kept}


def test_a_cut_leg_keeps_every_hit_at_its_rank() -> None:
    # the words' leg reaches a third document before the second chunk of the first: the
    # cut ends there, and the fused scores are those of legs asked to two documents
    words = [_chunk("kennel", 0), _chunk("groomer", 0), _chunk("florist", 0), _chunk("kennel", 1)]
    meaning = [_chunk("kennel", 1), _chunk("groomer", 0)]
    cut = fusion.at_equal_depth([words, meaning])
    assert cut[0] == words[:2]
    fused = [h.chunk_id for h in fusion.reciprocal_rank_fusion(cut)]
    # both legs rank the groomer's chunk second; the kennel's second chunk is the meaning's
    # first and no longer in the words' leg, where it stood past the cut
    assert fused == [c.chunk_id for c in (words[1], words[0], meaning[0])]


def test_a_floor_is_a_share_of_the_best() -> None:
    with pytest.raises(QueryError):
        VectorLeg((0.1, 0.2), 10, floor=1.5)
    with pytest.raises(QueryError):
        VectorLeg((0.1, 0.2), 10, floor=0.0)


VECTOR = [0.1, 0.2, 0.3, 0.4]


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_the_floor_is_set_only_where_the_words_choose_and_the_filters_stay_in_every_leg(
    mode: str,
) -> None:
    # "over $500,000" names no quantity: the question starts at the role-free step
    plan = plan_query(QuerySpec(text="policies over $500,000", mode=mode, k=7, tenant="acme"))
    assert plan.amount_steps[0] == "role-free"
    at_role_free = search_plan(plan, vector=VECTOR, step="role-free")
    at_bound = search_plan(plan, vector=VECTOR, step="bound")
    fallback = search_plan(plan, vector=VECTOR, step="none")
    assert at_role_free.vector is not None and at_role_free.vector.floor == 0.8
    assert at_bound.vector is not None and at_bound.vector.floor is None
    assert fallback.vector is not None and fallback.vector.floor is None
    assert at_role_free.amounts == at_bound.amounts and at_role_free.guards == at_bound.guards
    assert vector_floor(plan, "per-unit") == 0.95 and vector_floor(plan, "narrowed") is None
    if mode == "hybrid":  # the legs come back apart: the client cuts the vector leg, fuses
        assert not at_role_free.fusion.in_engine and at_bound.fusion.in_engine
    off = plan_query(QuerySpec(text="policies over $500,000", mode=mode, vector_floor=0))
    assert search_plan(off, vector=VECTOR, step="role-free").vector.floor is None  # type: ignore[union-attr]


def test_a_floored_vector_page_is_fetched_from_the_first_hit() -> None:
    plan = plan_query(QuerySpec(text="policies over $500,000", mode="vector", k=5, offset=10))
    floored = search_plan(plan, vector=VECTOR, step="role-free")
    assert (floored.size, floored.offset) == (15, 0)
    unfloored = search_plan(plan, vector=VECTOR, step="bound")
    assert (unfloored.size, unfloored.offset) == (5, 10)
    lexical = search_plan(
        plan_query(QuerySpec(text="policies over $500,000", mode="bm25")), step="role-free"
    )
    assert lexical.vector is None


# --------------------------------------------------------------------------- search


INVOICES = {
    "tutoring.md": "# Tutoring agreement\n\nWeekly tutoring sessions cost $60 each, "
    "payable monthly.\n",
    "lessons.md": "# Piano lessons\n\nEach private piano lesson is $55.\n",
    "garage.md": "# Garage invoice\n\nReplaced brake pads and rotors: $75.\n",
    "bakery.md": "# Bakery order\n\nTwo dozen croissants for the office party: $58.\n",
    "storage.md": "# Storage unit\n\nClimate-controlled unit, first month $65.\n",
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from osrag.config import load_settings
    from osrag.engines import open_index
    from osrag.ingestion.ingest import IngestOptions, ingest
    from osrag.search.searcher import Searcher

    root = tmp_path_factory.mktemp("floor")
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in INVOICES.items():
        (corpus / name).write_text(text, encoding="utf-8")
    index = open_index(load_settings(backend="embedded", home=Path(root / "home")))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(root / "vector-cache"))
        ingest(corpus, index, IngestOptions(alias="floor", embedder="default", embed_workers=1))
    return Searcher(index, "floor", enforce_access=False)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_the_search_keeps_the_best_and_drops_only_hits_under_the_floor(searcher, mode: str) -> None:  # type: ignore[no-untyped-def]
    question = "music lessons between $50 and $80"
    every = searcher.search(question, mode=mode, k=10, vector_floor=0, collapse=True)
    floored = searcher.search(question, mode=mode, k=10, collapse=True)
    assert every.amount_step == floored.amount_step == "role-free"
    assert every.candidate_count == floored.candidate_count == len(INVOICES)
    assert len(every.hits) == len(INVOICES)
    kept = [h.doc_id for h in floored.hits]
    assert set(kept) <= {h.doc_id for h in every.hits} and len(kept) < len(every.hits)
    if mode == "vector":  # the kept hits are the head of the unfloored ranking
        assert kept == [h.doc_id for h in every.hits][: len(kept)]
        best = every.hits[0].score or 0
        assert all((h.score or 0) >= 0.8 * best for h in floored.hits)
    else:  # legs of equal depth: the shorter leg's documents stay, the longer's tail goes
        words = [h.doc_id for h in searcher.search(question, mode="bm25", k=10, collapse=True).hits]
        meaning = [
            h.doc_id for h in searcher.search(question, mode="vector", k=10, collapse=True).hits
        ]
        depth = min(len(words), len(meaning))
        shorter = words if len(words) <= len(meaning) else meaning
        assert set(shorter) <= set(kept) <= set(words[:depth]) | set(meaning[:depth])
