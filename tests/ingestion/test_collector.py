"""The collector spared an ingest's long-lived objects: frozen for the block, back after;
its young generation's pace slowed for the block, and put back after."""

from __future__ import annotations

import gc
import weakref

import pytest

from osrag.ingestion.collector import YOUNG_THRESHOLD, spared


def test_objects_made_before_are_frozen_for_the_block_and_back_after() -> None:
    before = gc.get_freeze_count()
    kept = [object() for _ in range(10)]
    with spared():
        assert gc.get_freeze_count() >= before + len(kept)
        made = [[i] for i in range(1000)]  # new objects are walked as ever
        assert all(gc.is_tracked(m) for m in made)
    assert gc.get_freeze_count() == 0


def test_the_young_generation_is_walked_less_often_in_the_block_and_as_before_after() -> None:
    before = gc.get_threshold()
    with spared():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.isenabled()
    assert gc.get_threshold() == before


def test_an_error_in_the_block_still_unfreezes() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), spared():
        assert gc.get_freeze_count() > 0
        raise RuntimeError("stop")
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


class _Node:
    def __init__(self) -> None:
        self.other: object = self


def test_a_cycle_made_in_the_block_is_collected_in_it() -> None:
    with spared():
        cycle = _Node()
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None


def test_a_cycle_made_in_the_block_is_freed_by_the_collector_at_its_pace() -> None:
    """No explicit collection: the young generation's walk, YOUNG_THRESHOLD objects on,
    frees it (the memory of a long ingest stays bounded)."""
    with spared():
        cycle = _Node()
        gone = weakref.ref(cycle)
        del cycle
        kept = [[i] for i in range(3 * YOUNG_THRESHOLD)]  # new containers: walks are due
        assert gone() is None
        assert len(kept) == 3 * YOUNG_THRESHOLD
