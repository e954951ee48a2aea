"""Where the benchmarks find what they read: the checkout, and the shared corpora beside it.

The full corpora are not in the repository (the tests read small slices of them under
``tests/data/corpora``); the benchmarks read the whole of each from ``../shared/corpora``,
next to the checkout. ``OSRAG_SHARED`` names another folder holding ``corpora/``.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The checkout."""

SHARED = Path(os.environ.get("OSRAG_SHARED") or ROOT.parent / "shared")
"""``../shared`` beside the checkout, or ``OSRAG_SHARED``."""

CORPORA = SHARED / "corpora"
"""The full corpora (``opensearch-docs``, ``cranfield``, ``cuad-contracts``, ``real-docs``,
``tatqa-dev``): their README says what each holds."""

SLICES = ROOT / "tests" / "data" / "corpora"
"""The slices of those corpora that the tests read."""

PROBE_SETS = tuple(
    sorted(
        (p.name for p in (ROOT / "benchmarks" / "data").glob("probe*") if p.is_dir()),
        key=lambda name: int(name.removeprefix("probe") or 1),
    )
)
"""The probe sets (``benchmarks/data/probe``, ``probe2`` …), in the order they were
written: each held out until the next was."""
