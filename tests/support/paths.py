"""Where the tests find what they read: the repository and the corpus slices inside it."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "tests" / "data" / "corpora"
"""Slices of the real corpora, a few files each, kept in the repository
(``tests/data/corpora/README.md``: what each holds, its source and licence); tests that
read them are marked ``corpus``. The full corpora in ``../shared`` are for the benchmarks."""

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
"""Under CI an integration test fails, never skips, when what it needs is missing."""
