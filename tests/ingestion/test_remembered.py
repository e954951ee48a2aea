"""What a re-ingest keeps from the alias's generation (pure: a recorded configuration in,
the chunking and embedder of the next ingest out)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from osrag.errors import ConfigError
from osrag.ingestion.remembered import reingest_settings
from osrag.models import GenerationRecord


def record(config: dict[str, Any]) -> GenerationRecord:
    return GenerationRecord(
        name="a-00000000-1",
        alias="a",
        digest="00000000",
        number=1,
        config=config,
        versions={},
        created_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )


FIXED = {"strategy": "fixed", "size": 200, "overlap": 40, "tokenizer": "whitespace"}
DEFAULT = {"id": "all-MiniLM-L6-v2@x", "dimension": 384, "spec": "default"}


def test_no_flag_keeps_the_alias_embedder_and_chunking() -> None:
    kept = reingest_settings(
        record({"chunking": FIXED, "embedder": DEFAULT}), alias="a", chunking_flags={}
    )
    assert kept.embedder == "default" and kept.embedder_from == "alias"
    assert (kept.chunking.strategy, kept.chunking.size, kept.chunking.overlap) == (
        "fixed",
        200,
        40,
    )


def test_a_chunking_flag_replaces_its_one_value() -> None:
    kept = reingest_settings(
        record({"chunking": FIXED}), alias="a", chunking_flags={"size": 300, "overlap": None}
    )
    assert (kept.chunking.strategy, kept.chunking.size, kept.chunking.overlap) == (
        "fixed",
        300,
        40,
    )
    assert kept.embedder is None


def test_the_window_and_the_tokenizer_it_set_are_not_carried_over() -> None:
    window = {"tokenizer": "minilm-wordpiece", "tokens": 256, "special_tokens": 2, "fit": True}
    chunking = {"strategy": "structural", "tokenizer": "minilm-wordpiece", "window": window}
    kept = reingest_settings(
        record({"chunking": chunking, "embedder": DEFAULT}), alias="a", chunking_flags={}
    )
    assert kept.chunking.window is None and kept.chunking.tokenizer == "whitespace"


def test_the_embedder_flag_the_setting_and_no_embedder() -> None:
    built = record({"chunking": FIXED, "embedder": DEFAULT})
    assert reingest_settings(built, alias="a", chunking_flags={}, embedder_flag="x").embedder == "x"
    dropped = reingest_settings(built, alias="a", chunking_flags={}, no_embedder=True)
    assert dropped.embedder is None and dropped.embedder_from == "none"
    # the alias's embedder comes before the setting; the setting serves an alias without one
    assert (
        reingest_settings(built, alias="a", chunking_flags={}, embedder_setting="y").embedder
        == "default"
    )
    plain = record({"chunking": FIXED})
    assert (
        reingest_settings(plain, alias="a", chunking_flags={}, embedder_setting="y").embedder == "y"
    )
    with pytest.raises(ConfigError, match="choose one"):
        reingest_settings(built, alias="a", chunking_flags={}, embedder_flag="x", no_embedder=True)


def test_an_embedder_given_as_an_object_is_refused_with_the_reason() -> None:
    built = record({"chunking": FIXED, "embedder": {**DEFAULT, "spec": None}})
    with pytest.raises(ConfigError, match=r"given as an object.*--no-embedder"):
        reingest_settings(built, alias="a", chunking_flags={})


def test_a_new_alias_takes_the_flags_over_the_defaults() -> None:
    fresh = reingest_settings(None, alias="a", chunking_flags={"max_tokens": 90})
    assert fresh.chunking.max_tokens == 90 and fresh.chunking_from == "flags"
    assert reingest_settings(None, alias="a", chunking_flags={}).chunking_from == "defaults"
