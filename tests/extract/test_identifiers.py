"""Identifiers by configurable patterns, normalised upper-case."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.errors import ConfigError
from osrag.extract.identifiers import extract_identifiers
from osrag.models import DEFAULT_IDENTIFIER_PATTERN, ExtractionConfig


def values(text: str, *patterns: str) -> list[str]:
    return [m.value for m in extract_identifiers(text, patterns or (DEFAULT_IDENTIFIER_PATTERN,))]


def test_policy_numbers_are_identifiers_with_exact_spans() -> None:
    text = "Policy UMB-300000 replaces HO-1234 and POL-30000-7; see AUTO-55501."
    found = extract_identifiers(text)
    assert [m.value for m in found] == ["UMB-300000", "HO-1234", "POL-30000-7", "AUTO-55501"]
    assert all(text[m.start : m.end] == m.raw for m in found)


@pytest.mark.parametrize(
    "text",
    [
        "mid-2024",
        "COVID-19",
        "UTF-8",
        "A-1234",
        "ABCDEF-1234",
        "UMB-30",
        "UMB300000",
        "xUMB-300000",
    ],
)
def test_things_that_are_not_policy_numbers(text: str) -> None:
    assert values(text) == []


def test_case_insensitive_patterns_are_normalised_to_upper_case() -> None:
    assert values("claim clm-00042 and CLM-00043", r"(?i:\bclm-\d{5}\b)") == [
        "CLM-00042",
        "CLM-00043",
    ]


def test_several_patterns_never_give_overlapping_mentions() -> None:
    found = values("ref ABC-12345-X", r"\b[A-Z]{3}-\d+\b", r"\b[A-Z]{3}-\d+-[A-Z]\b")
    assert found == ["ABC-12345-X"]


def test_a_bad_pattern_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"identifier_patterns\[1\]: '\[A-' "):
        ExtractionConfig(identifier_patterns=[DEFAULT_IDENTIFIER_PATTERN, "[A-"])
    with pytest.raises(ConfigError, match="empty string"):
        ExtractionConfig(identifier_patterns=[r"\d*"])


@given(st.text(alphabet=st.sampled_from(list("ABUMZabx0129-_ .")), max_size=40))
def test_the_default_pattern_is_the_plain_word_bounded_rule(text: str) -> None:
    plain = [m.group() for m in re.finditer(r"\b[A-Z]{2,5}-\d{3,}(?:-\d+)*\b", text)]
    assert values(text) == plain
