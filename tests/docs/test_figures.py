"""The figures the pages quote from benchmarks are what their committed result files render.

A table marked ``<!-- figure: NAME · RESULT FILE · COMMAND -->`` (``scripts/render_figures.py``
says how) is rendered here from its file and compared with the page line for line; the
file must be the figure's own and committed, and the command must name a script that
exists. The check itself is tested on a page written here: a table whose number was
typed by hand fails, with the table the file renders.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from paths import ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "render_figures", ROOT / "scripts" / "render_figures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses read the module's namespace
    spec.loader.exec_module(module)
    return module


figures = _load()
MARKS = list(figures.every_mark())


def test_the_readme_marks_its_headline_figures() -> None:
    marked = {m.name for m in MARKS if m.page.name == "README.md"}
    assert marked >= {"insurance-quantity-precision", "tatqa-quantity-precision"}
    assert {m.name for m in MARKS} <= set(figures.FIGURES)


@pytest.mark.parametrize("mark", MARKS, ids=[f"{m.page.name}:{m.line}:{m.name}" for m in MARKS])
def test_every_marked_figure_is_what_its_result_file_renders(mark: object) -> None:
    assert not figures.problems(mark), "\n".join(figures.problems(mark))


@pytest.mark.parametrize("name", sorted(figures.FIGURES))
def test_every_figure_comes_from_a_committed_file_written_by_a_script_that_exists(
    name: str,
) -> None:
    figure = figures.FIGURES[name]
    tracked = subprocess.run(
        ["git", "ls-files", "--error-unmatch", figure.results],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert tracked.returncode == 0, f"{figure.results} is not committed"
    words = shlex.split(figure.command)
    assert words[0] == "python" and (ROOT / words[1]).is_file(), figure.command
    label = words[words.index("--label") + 1] if "--label" in words else None
    if label is not None:  # the command names the file it writes
        assert Path(figure.results).stem.endswith(f"-{label}")
    written = json.loads((ROOT / figure.results).read_text(encoding="utf-8"))
    assert written.get("label") in (None, label)


PAGE = """\
# A page

<!-- figure: insurance-quantity-precision · {results} · {command} -->
{table}
"""


def test_a_table_typed_by_hand_fails_with_what_the_file_renders(tmp_path: Path) -> None:
    figure = figures.FIGURES["insurance-quantity-precision"]
    rendered = figures.render(figure.name)
    page = tmp_path / "page.md"
    page.write_text(
        PAGE.format(results=figure.results, command=figure.command, table=rendered),
        encoding="utf-8",
    )
    [mark] = figures.marked(page)
    assert mark.line == 3 and mark.table == rendered.split("\n")
    assert figures.problems(mark) == []
    # one number changed by hand
    lines = rendered.split("\n")
    cells = lines[2].split("|")
    cells[2] = " 0.123 "
    lines[2] = "|".join(cells)
    typed = "\n".join(lines)
    assert typed != rendered
    page.write_text(
        PAGE.format(results=figure.results, command=figure.command, table=typed),
        encoding="utf-8",
    )
    [found] = figures.problems(figures.marked(page)[0])
    assert "the table differs" in found and rendered in found
    # a figure said to come from another file, or a mark without a table
    page.write_text(
        PAGE.format(results="benchmarks/results/x.json", command=figure.command, table=rendered),
        encoding="utf-8",
    )
    [found] = figures.problems(figures.marked(page)[0])
    assert f"is rendered from {figure.results}" in found
    shown = f"```text\n<!-- figure: {figure.name} · a · b -->\n| a |\n```\n"
    page.write_text(shown, encoding="utf-8")
    assert figures.marked(page) == []  # a mark shown in a code block is no mark
    page.write_text(f"<!-- figure: {figure.name} · a · b -->\n\ntext\n", encoding="utf-8")
    with pytest.raises(ValueError, match="followed by no table"):
        figures.marked(page)
