"""Extraction over the CUAD contracts: no crash, counts per format, no redaction parsed.

``manifest.jsonl`` counts money formats per file with regular expressions. It
is a regex count, not a gold standard, and it differs from osrag by design:

* it counts the figures of ``Fifty Thousand Dollars ($50,000)`` twice (as
  spelled and as ``$`` with commas), osrag states it once (one mention);
* its patterns overlap: ``US$1,000,000`` is both ``usd_prefix`` and
  ``dollar_commas`` there, one mention here;
* it reads ``$14.575 Million`` as a plain ``$14.575``; osrag applies the scale;
* its ``other_currency`` does not count ``RMB`` amounts, osrag does (as CNY);
* osrag drops malformed figures (``$1,600,00.00``, OCR ``$5OO,000``) instead of
  guessing, and accepts table spacing (``$         0``).

So the test compares the *number of amounts stated with figures* (ours:
every mention except words-only ones; theirs: every figure category) and
expects agreement within 10 %, and prints both per-format tables.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from paths import CORPORA

from osrag.extract.enrich import extract_values
from osrag.extract.money import MoneyMention
from osrag.models import ExtractionConfig

CUAD = CORPORA / "cuad-contracts"

FIGURE_CATEGORIES = (
    "dollar_commas",
    "dollar_plain",
    "dollar_scaled_word",
    "dollar_suffix",
    "usd_prefix",
    "num_dollars_word",
    "other_currency",
)
CATEGORIES = (*FIGURE_CATEGORIES, "spelled_dollars")
REDACTION = re.compile(r"(?:US)?\$\s*(?:\[[^\]]*\]|\*+|_+)")
WORD_SCALE = re.compile(r"(?i)\d\s*(thousand|million|billion|trillion|mil|mm|bn)\b")
LETTER_SCALE = re.compile(r"\d[kKmMB]\b")
HAS_FIGURES = re.compile(r"\d")


def category(m: MoneyMention) -> str:
    """The manifest's format names, applied to one osrag mention."""
    if m.currency != "USD":
        return "other_currency"
    if m.form == "spelled":
        return "spelled_dollars"
    if m.form == "word":
        return "num_dollars_word"
    if m.form == "code" or m.raw.lstrip("-−").startswith(("US$", "U.S.$")):
        return "usd_prefix"
    if WORD_SCALE.search(m.raw):
        return "dollar_scaled_word"
    if LETTER_SCALE.search(m.raw):
        return "dollar_suffix"
    if re.search(r"\d,\d{3}", m.raw):
        return "dollar_commas"
    return "dollar_plain"


pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def manifest(corpora: Path) -> dict[str, dict[str, object]]:
    assert corpora / "cuad-contracts" == CUAD
    lines = (CUAD / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["file"]: row for row in map(json.loads, lines)}


def test_all_cuad_contracts_extract_without_crash_and_match_the_manifest_counts(
    manifest: dict[str, dict[str, object]],
) -> None:
    config = ExtractionConfig()
    ours: Counter[str] = Counter()
    theirs: Counter[str] = Counter()
    figures_ours = figures_theirs = 0
    totals = Counter()
    seconds = 0.0
    size = 0
    assert len(manifest) == 8
    for rel, row in manifest.items():
        text = (CUAD / rel).read_text(encoding="utf-8")
        size += len(text.encode())
        started = time.perf_counter()
        values = extract_values(text, config)
        seconds += time.perf_counter() - started
        totals.update(
            mentions=len(values.money),
            rejected=len(values.rejected_money),
            dates=len(values.dates),
            identifiers=len(values.identifiers),
        )
        for mention in values.money:
            assert text[mention.start : mention.end] == mention.raw
            assert not REDACTION.search(mention.raw), (rel, mention.raw)
            ours[category(mention)] += 1
            if mention.form != "spelled" or "(" in mention.raw:
                figures_ours += HAS_FIGURES.search(mention.raw) is not None
        for redaction in REDACTION.finditer(text):  # no mention even overlaps a redaction
            assert not any(
                m.start < redaction.end() and redaction.start() < m.end for m in values.money
            ), (rel, redaction.group())
        for name in CATEGORIES:
            theirs[name] += int(row[name])  # type: ignore[call-overload]
        figures_theirs += sum(int(row[name]) for name in FIGURE_CATEGORIES)  # type: ignore[call-overload]

    print(f"\nCUAD: {len(manifest)} files, {size / 1e6:.2f} MB, {size / 1e6 / seconds:.1f} MB/s")
    print(f"{'format':<20}{'osrag':>8}{'manifest':>10}")
    for name in CATEGORIES:
        print(f"{name:<20}{ours[name]:>8}{theirs[name]:>10}")
    print(f"{'amounts with figures':<20}{figures_ours:>8}{figures_theirs:>10}")
    print(dict(totals))

    assert totals["mentions"] > 100  # 125 in the 8 contracts of the slice
    assert abs(figures_ours - figures_theirs) <= 0.1 * figures_theirs
    assert ours["spelled_dollars"] > 0 and ours["other_currency"] > 0
