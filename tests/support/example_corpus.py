"""Folders holding the example corpus, for tests that run ``osrag`` on it as a user would.

Three starting states: the corpus alone (``examples/insurance`` copied into the folder,
as the pages name it), ingested into the folder's embedded index (``.osrag``), or
ingested with the offline embedder's vectors. Each is built once, then copied for every
test that asks; the embedder's model is built once into a model cache they share
(``OSRAG_MODEL_CACHE_DIR``), and each folder has a vector cache of its own, empty.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "insurance"
CORPUS_ARG = "examples/insurance"
"""Where a folder holds the corpus (the path the pages use)."""
WIDTH = "100"
"""The terminal width commands run at (the width the pages are written at)."""
TIMEOUT = 600
STATES = ("corpus", "index", "vectors")


class Workspaces:
    """Folders in a starting state (see the module docstring) under ``base``."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.models = base / "models"
        self._templates: dict[str, Path] = {}
        self._count = 0

    def environment(self, cache: Path) -> dict[str, str]:
        """What a command runs with: no ``OSRAG_*`` variable of the caller's, the width
        the pages are written at, no colour, this folder's caches."""
        clean = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
        for name in ("FORCE_COLOR", "COLUMNS", "LINES"):
            clean.pop(name, None)
        return clean | {
            "COLUMNS": WIDTH,
            "NO_COLOR": "1",
            "OSRAG_CACHE_DIR": str(cache),
            "OSRAG_MODEL_CACHE_DIR": str(self.models),
            "PYTHONIOENCODING": "utf-8",
        }

    def _cache(self, folder: Path) -> Path:
        """An empty vector cache for ``folder``, the shared model built first."""
        if not self.models.exists():
            warm = self.base / "warm-cache"
            done = osrag(["embedder", "warm"], self.base, self.environment(warm))
            assert done.returncode == 0, done.stdout
        cache = folder.parent / f"{folder.name}-cache"
        cache.mkdir()
        return cache

    def _template(self, state: str) -> Path:
        if state not in self._templates:
            folder = self.base / f"template-{state}"
            shutil.copytree(CORPUS, folder / CORPUS_ARG)
            if state != "corpus":
                cache = self._cache(folder)
                args = ["ingest", CORPUS_ARG, "--quiet"]
                args += ["--embedder", "default"] if state == "vectors" else []
                done = osrag(args, folder, self.environment(cache))
                assert done.returncode == 0, done.stdout
            self._templates[state] = folder
        return self._templates[state]

    def folder(self, state: str) -> tuple[Path, Path]:
        """A fresh folder in ``state`` — ``corpus`` (the corpus alone), ``index`` (its
        embedded index built) or ``vectors`` (built with the offline embedder) — and a
        cache of its own."""
        self._count += 1
        folder = self.base / f"run-{self._count}"
        shutil.copytree(self._template(state), folder, symlinks=True)
        return folder, self._cache(folder)


def osrag(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``osrag ARGS`` in ``cwd``; stdout and stderr in one stream, in the order written."""
    return subprocess.run(
        [sys.executable, "-m", "osrag.cli", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
    )
