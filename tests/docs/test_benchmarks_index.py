"""benchmarks/README.md lists every benchmark script, once, and nothing that is not one.

Each entry of the index is a list item that starts with the script's path in bold code
(``- **`quantity_precision.py`** — …``), relative to ``benchmarks/``; the scripts are the
Python files of ``benchmarks/`` and ``benchmarks/families/``. Every entry names the
command that runs it, or says it is a module not run alone, and every page the index
links to exists.
"""

from __future__ import annotations

import re
from collections import Counter

from paths import ROOT

BENCHMARKS = ROOT / "benchmarks"
INDEX = BENCHMARKS / "README.md"
ENTRY = re.compile(r"^- \*\*`(?P<script>[^`]+\.py)`\*\*", re.MULTILINE)
LINK = re.compile(r"\]\((?P<target>[^)#]+)(?:#[^)]*)?\)")


def listed(text: str) -> list[str]:
    return [m.group("script") for m in ENTRY.finditer(text)]


def scripts() -> set[str]:
    found = [*BENCHMARKS.glob("*.py"), *BENCHMARKS.glob("families/*.py")]
    return {p.relative_to(BENCHMARKS).as_posix() for p in found}


def differences(text: str, present: set[str]) -> list[str]:
    """What is wrong with an index ``text`` of the scripts ``present`` (empty: nothing)."""
    entries = listed(text)
    found = [f"listed twice: {n}" for n, count in Counter(entries).items() if count > 1]
    found += [f"missing: {name}" for name in sorted(present - set(entries))]
    found += [f"listed, does not exist: {name}" for name in sorted(set(entries) - present)]
    return found


def test_every_benchmark_script_is_listed_once_and_every_listed_one_exists() -> None:
    wrong = differences(INDEX.read_text(encoding="utf-8"), scripts())
    assert not wrong, "benchmarks/README.md: " + "; ".join(wrong)


def test_every_script_entry_says_how_to_run_it_and_its_links_exist() -> None:
    text = INDEX.read_text(encoding="utf-8")
    items = re.split(r"\n(?=- \*\*`)|\n(?=## )", text)
    for item in items:
        found = ENTRY.match(item)
        if found is None or found.group("script").startswith("_"):
            continue
        script, words = found.group("script"), " ".join(item.split())
        assert f"benchmarks/{script}" in words or "not run alone" in words, (
            f"{script}: the entry names no command (or says it is a module not run alone)"
        )
    for link in LINK.finditer(text):
        target = link.group("target")
        if "://" in target:
            continue
        assert (INDEX.parent / target).resolve().is_file(), f"a link to {target} leads nowhere"


def test_the_check_sees_a_script_added_removed_or_listed_twice() -> None:
    text = INDEX.read_text(encoding="utf-8")
    present = scripts()
    assert differences(text, present | {"new_benchmark.py"}) == ["missing: new_benchmark.py"]
    assert differences(text, present - {"parity.py"}) == ["listed, does not exist: parity.py"]
    twice = text + "\n- **`parity.py`** — again.\n"
    assert differences(twice, present) == ["listed twice: parity.py"]
