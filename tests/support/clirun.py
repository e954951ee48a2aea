"""Run the real ``osrag`` command in a child process: exit codes and stderr as a user sees them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def osrag(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``osrag ARGS`` with the machine's ``OSRAG_*`` variables removed and ``env`` added."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    return subprocess.run(
        [sys.executable, "-m", "osrag.cli", *args],
        cwd=cwd,
        env=clean | {"COLUMNS": "200"} | (env or {}),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
