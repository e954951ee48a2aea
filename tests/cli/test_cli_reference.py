"""docs/cli.md is the real ``--help`` of every command: regenerated here, it must not differ."""

from __future__ import annotations

import os
import subprocess
import sys

from paths import ROOT

SCRIPT = ROOT / "scripts" / "cli_reference.py"
PAGE = ROOT / "docs" / "cli.md"


def _fresh_page(**env: str) -> str:
    # the script fixes the width and turns colour off itself; the caller's terminal must
    # not matter, so a wide, colourful one is passed in on purpose
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--stdout"],
        env={**os.environ, "COLUMNS": "237", "FORCE_COLOR": "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


def test_the_committed_cli_page_equals_a_fresh_generation() -> None:
    assert PAGE.read_text(encoding="utf-8") == _fresh_page(), (
        "docs/cli.md is out of date: run python scripts/cli_reference.py"
    )


def test_the_page_documents_every_subcommand_with_its_options() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for heading in ("## osrag ingest", "## osrag index rollback", "## osrag node start"):
        assert f"\n{heading}\n" in page
    assert "--dry-run" in page and "--no-amount-filter" in page and "\x1b[" not in page
