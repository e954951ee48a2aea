"""Chunking and extraction give byte-identical chunk records on a fixed slice of the real
corpora (opensearch-docs, cuad-contracts, real-docs, tatqa-dev, the synthetic policies):
the digests in ``tests/golden/chunks.json`` were taken before the ingester's hot paths
were optimised, and every later change must reproduce them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_chunks import CASES, FIXTURE, case_digests

GOLDEN = json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_fixture_covers_every_case_with_chunks() -> None:
    assert sorted(GOLDEN) == sorted(CASES)
    for case, files in GOLDEN.items():
        assert len(files) >= 5, case
        assert sum(d["chunks"] for d in files.values()) >= 50, case


@pytest.mark.corpus
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_chunk_record_is_byte_identical_to_the_golden_digest(
    corpora: Path, case: str
) -> None:
    got = case_digests(corpora, case)
    expected = GOLDEN[case]
    assert sorted(got) == sorted(expected), f"{case}: the files of the slice changed"
    changed = [f for f in expected if got[f] != expected[f]]
    assert not changed, f"{case}: chunk records changed in {len(changed)} files: {changed[:5]}"
