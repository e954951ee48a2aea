"""Where the tests find what they read: the repository and the shared corpora beside it."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
"""The real corpora (``../shared/corpora``); tests that read them are marked ``corpus``."""

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
"""Under CI an integration test fails, never skips, when what it needs is missing."""
