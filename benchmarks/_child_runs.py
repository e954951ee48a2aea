"""Trees of osrag (checkouts, or builds of one) timed side by side, each pass in a fresh
process of its own (for extract_speed.py and compiled_extraction.py).

A script reads its arguments with :func:`arguments`: started with the hidden ``--child
DOCUMENTS``, the process is one timed pass over the documents (the script's own function,
printing its result as JSON) and exits there. The parent writes the documents once, then
runs :func:`rounds`: each round starts the script again once per tree, with the tree first
on ``sys.path`` and as its working folder, the order turning from round to round so that a
burst of load on the shared machine meets every tree alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

Tree = TypeVar("Tree", bound=Hashable)


def arguments(parser: argparse.ArgumentParser, child: Callable[[Path], None]) -> argparse.Namespace:
    """The arguments of ``parser``, which takes ``--child DOCUMENTS`` besides (not shown in
    its help); given that, ``child`` runs on the documents and the process exits."""
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        raise SystemExit(0)
    return args


def run(script: str, tree: Path, documents: Path) -> dict[str, Any]:
    """One pass of ``script --child documents`` with ``tree`` first on ``sys.path``: the
    JSON on the last line it prints."""
    done = subprocess.run(
        [sys.executable, script, "--child", str(documents)],
        env=dict(os.environ, PYTHONPATH=str(tree)),
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def rounds(
    script: str,
    trees: Sequence[tuple[Tree, Path]],
    documents: Path,
    count: int,
    *,
    load: bool = False,
) -> dict[Tree, list[dict[str, Any]]]:
    """The passes over ``documents`` of each tree (name, folder), one a round, in the order
    of ``trees`` in even rounds and the reverse in odd ones; with ``load``, each pass's
    result also holds the machine's load averages as it ended (``load``)."""
    runs: dict[Tree, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    for round_ in range(count):
        for name, tree in trees if round_ % 2 == 0 else trees[::-1]:
            result = run(script, tree, documents)
            if load:
                result["load"] = [round(v, 2) for v in os.getloadavg()]
            runs[name].append(result)
    return runs
