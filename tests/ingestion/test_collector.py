"""The collector spared an ingest's long-lived objects: frozen for the block, back after."""

from __future__ import annotations

import gc
import weakref

import pytest

from osrag.ingestion.collector import spared


def test_objects_made_before_are_frozen_for_the_block_and_back_after() -> None:
    before = gc.get_freeze_count()
    kept = [object() for _ in range(10)]
    with spared():
        assert gc.get_freeze_count() >= before + len(kept)
        made = [[i] for i in range(1000)]  # new objects are walked as ever
        assert all(gc.is_tracked(m) for m in made)
    assert gc.get_freeze_count() == 0


def test_an_error_in_the_block_still_unfreezes() -> None:
    with pytest.raises(RuntimeError), spared():
        assert gc.get_freeze_count() > 0
        raise RuntimeError("stop")
    assert gc.get_freeze_count() == 0


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
