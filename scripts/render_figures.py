#!/usr/bin/env python3
"""Render the figures the README and docs/ quote from the result files the benchmarks wrote.

    python scripts/render_figures.py NAME      # print the figure NAME as a Markdown table
    python scripts/render_figures.py --list    # the figures, their result files and commands
    python scripts/render_figures.py --check   # exit 1 when a marked table of a page differs
    python scripts/render_figures.py --write   # rewrite every marked table from its file

A page marks a table it quotes from a result file with a comment right before it:

    <!-- figure: NAME · benchmarks/results/FILE.json · python benchmarks/SCRIPT.py ARGS -->

``NAME`` is one of :data:`FIGURES`; the file is the committed result file the table is
rendered from (it must be the figure's own), and the command is the one that wrote that
file. The table is what :func:`render` makes of the file, line for line: a number on the
page is never typed by hand. ``tests/docs/test_figures.py`` renders every marked figure
and fails when the page's table differs, when the file named is not the figure's or is
not committed, and when the command's script does not exist.

Prose around a table may repeat one of its numbers for the reader; the table is what is
checked.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
"""The pages whose marked figures are rendered and checked."""

MARK = re.compile(r"^<!--\s*figure:\s*(?P<body>.*?)\s*-->\s*$")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
SEPARATOR = " · "

ENGINES = (
    ("opensearch", "OpenSearch"),
    ("elasticsearch", "Elasticsearch"),
    ("embedded", "embedded index"),
)
MODES = ("bm25", "vector", "hybrid")


@dataclass(frozen=True)
class Figure:
    """A table of a page and where its numbers come from."""

    name: str
    results: str
    """The result file, relative to the checkout."""
    command: str
    """The command that writes it."""
    render: Callable[[dict[str, Any]], str]
    """The table, from the file's JSON."""


@dataclass(frozen=True)
class Marked:
    """A marked table on a page: the mark's fields and the table's lines as written."""

    page: Path
    line: int
    """The mark's line, 1-based."""
    name: str
    results: str
    command: str
    start: int
    """The table's first line, 0-based (the line after the mark)."""
    table: list[str]


def _rows(header: list[str], rows: list[list[str]], right_from: int = 1) -> str:
    """A Markdown table: the first ``right_from`` columns left-aligned, the rest right."""
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def _share(value: float) -> str:
    """A share of the documents as a percentage with one decimal (0.011 → '1.1 %')."""
    return f"{value * 100:.1f} %"


def _measured(results: dict[str, Any], set_name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(engine as written, its measures by mode) for each engine of ``set_name``, in the
    order of :data:`ENGINES`."""
    engines = results["sets"][set_name]
    for key, shown in ENGINES:
        if key in engines:
            yield shown, engines[key]


def insurance_quantity_precision(results: dict[str, Any]) -> str:
    """Quantity precision@5 of the insurance role-bound queries, engine by mode."""
    count = {m["bm25"]["queries"] for _, m in _measured(results, "insurance")}
    header = [f"the {'/'.join(map(str, sorted(count)))} role-bound queries, quantity precision@5"]
    rows = [
        [engine, *(f"{modes[mode]['quantity_precision@5']:.2f}" for mode in MODES)]
        for engine, modes in _measured(results, "insurance")
    ]
    return _rows([*header, *MODES], rows)


def tatqa_quantity_precision(results: dict[str, Any]) -> str:
    """Quantity precision@5 of the TAT-QA analyst questions against the dataset's gold and
    the hand-adjudicated gold, engine by mode; and the share of the reports the amount
    filter leaves (median / p90 over the questions)."""
    header = ["engine", "gold", "questions", *MODES, "filter leaves (median / p90)"]
    rows = []
    for set_name, gold in (("tatqa", "dataset"), ("tatqa-hand", "adjudicated")):
        if set_name not in results["sets"]:
            continue
        for engine, modes in _measured(results, set_name):
            leaves = {
                (
                    modes[m]["selectivity"]["documents_median"],
                    modes[m]["selectivity"]["documents_p90"],
                )
                for m in MODES
            }
            median, p90 = sorted(leaves)[0]
            shown = f"{_share(median)} / {_share(p90)}" + ("" if len(leaves) == 1 else " (bm25)")
            rows.append(
                [
                    engine,
                    gold,
                    str(modes["bm25"]["queries"]),
                    *(f"{modes[m]['quantity_precision@5']:.3f}" for m in MODES),
                    shown,
                ]
            )
    return _rows(header, rows, right_from=2)


def _at_bound(modes: dict[str, Any], family: str | None = None) -> str:
    """Questions answered at the bound step in bm25, of all (of ``family``'s)."""
    row = modes["bm25"] if family is None else modes["bm25"]["per_family"][family]
    bound = int(row["amount_steps"].get("bound", 0))
    total = int(row["queries"])
    return f"{bound} of {total} ({bound / total:.0%})".replace("%", " %")


def families_quantity_precision(results: dict[str, Any]) -> str:
    """Quantity precision@5 of the document families set, family by family: OpenSearch in
    each mode, Elasticsearch and the embedded index in bm25, and the questions OpenSearch
    answered at the bound step (bm25)."""
    engines = results["sets"]["families"]
    opensearch = engines["opensearch"]
    header = [
        "family",
        *(f"OpenSearch {m}" for m in MODES),
        "Elasticsearch bm25",
        "embedded bm25",
        "at the bound step",
    ]
    families = sorted(f for f in opensearch["bm25"]["per_family"] if not f.startswith("("))

    def qp(modes: dict[str, Any], mode: str, family: str | None) -> str:
        row = modes[mode] if family is None else modes[mode]["per_family"][family]
        return f"{row['quantity_precision@5']:.3f}"

    rows = [
        [
            "all" if family is None else family,
            *(qp(opensearch, m, family) for m in MODES),
            qp(engines["elasticsearch"], "bm25", family),
            qp(engines["embedded"], "bm25", family),
            _at_bound(opensearch, family),
        ]
        for family in [None, *families]
    ]
    return _rows(header, rows)


def _probe_sets(results: dict[str, Any]) -> list[str]:
    """The probe sets a run measured (``probe``, ``probe2`` …), in the order they were written."""
    names = [name for name in results["sets"] if re.fullmatch(r"probe\d*", name)]
    return sorted(names, key=lambda name: int(name.removeprefix("probe") or 1))


def held_out_quantity_precision(results: dict[str, Any]) -> str:
    """Quantity precision@5 of the probe sets (families the rules were not built on), set by
    set: OpenSearch in each mode, Elasticsearch and the embedded index in bm25, and the
    questions OpenSearch answered at the bound step (bm25)."""
    header = [
        "set",
        "questions",
        *(f"OpenSearch {m}" for m in MODES),
        "Elasticsearch bm25",
        "embedded bm25",
        "at the bound step",
    ]
    rows = []
    for name in _probe_sets(results):
        engines = results["sets"][name]
        opensearch = engines["opensearch"]
        rows.append(
            [
                name,
                str(opensearch["bm25"]["queries"]),
                *(f"{opensearch[m]['quantity_precision@5']:.3f}" for m in MODES),
                f"{engines['elasticsearch']['bm25']['quantity_precision@5']:.3f}",
                f"{engines['embedded']['bm25']['quantity_precision@5']:.3f}",
                _at_bound(opensearch),
            ]
        )
    return _rows(header, rows, right_from=1)


QUANTITY_PRECISION = "benchmarks/results/quantity_precision-round21.json"
QUANTITY_PRECISION_COMMAND = (
    "python benchmarks/quantity_precision.py --sets "
    "tatqa,tatqa-hand,tatqa-scope,insurance,families,probe,probe2,probe3,probe4,probe5,probe6,probe7,"
    "probe8,probe9,probe10,probe11,probe12,probe13,probe14,probe15,probe16,probe17,probe18 "
    "--label round21"
)

FIGURES = {
    f.name: f
    for f in (
        Figure(
            "insurance-quantity-precision",
            QUANTITY_PRECISION,
            QUANTITY_PRECISION_COMMAND,
            insurance_quantity_precision,
        ),
        Figure(
            "tatqa-quantity-precision",
            QUANTITY_PRECISION,
            QUANTITY_PRECISION_COMMAND,
            tatqa_quantity_precision,
        ),
        Figure(
            "families-quantity-precision",
            QUANTITY_PRECISION,
            QUANTITY_PRECISION_COMMAND,
            families_quantity_precision,
        ),
        Figure(
            "held-out-quantity-precision",
            QUANTITY_PRECISION,
            QUANTITY_PRECISION_COMMAND,
            held_out_quantity_precision,
        ),
    )
}
"""Every figure a page may mark, by name."""


def render(name: str) -> str:
    """The table of figure ``name``, from its result file."""
    figure = FIGURES[name]
    results = json.loads((ROOT / figure.results).read_text(encoding="utf-8"))
    return figure.render(results)


def marked(page: Path) -> list[Marked]:
    """Every marked table of ``page``, in order (a mark inside a fenced code block is
    shown, not made). A mark must have three fields and a table right after it (one
    blank line allowed)."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found: list[Marked] = []
    fence: str | None = None  # the fence of the code block the line is in (a mark shown)
    for at, line in enumerate(lines):
        opening = FENCE.match(line)
        if opening is not None and (fence is None or opening.group(1).startswith(fence)):
            fence = opening.group(1) if fence is None else None
            continue
        mark = MARK.match(line) if fence is None else None
        if mark is None:
            continue
        fields = [f.strip() for f in mark.group("body").split(SEPARATOR.strip())]
        if len(fields) != 3:
            raise ValueError(
                f"{page}:{at + 1}: a figure mark is 'figure: NAME · RESULT FILE · COMMAND'"
            )
        start = at + 1
        if start < len(lines) and not lines[start].strip():
            start += 1
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        if end == start:
            raise ValueError(f"{page}:{at + 1}: the figure mark is followed by no table")
        name, results, command = fields
        found.append(Marked(page, at + 1, name, results, command, start, lines[start:end]))
    return found


def every_mark(pages: tuple[Path, ...] = PAGES) -> Iterator[Marked]:
    for page in pages:
        yield from marked(page)


def _shown(page: Path) -> str:
    return page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)


def problems(mark: Marked) -> list[str]:
    """What is wrong with a marked table (empty: it is what its file renders)."""
    where = f"{_shown(mark.page)}:{mark.line}"
    figure = FIGURES.get(mark.name)
    if figure is None:
        return [f"{where}: no figure named {mark.name!r} (known: {', '.join(sorted(FIGURES))})"]
    found = []
    if mark.results != figure.results:
        found.append(f"{where}: {mark.name} is rendered from {figure.results}, not {mark.results}")
    if mark.command != figure.command:
        found.append(f"{where}: {figure.results} is written by `{figure.command}`")
    if found:
        return found
    want = render(mark.name).split("\n")
    if mark.table != want:
        shown = "\n".join(want)
        found.append(f"{where}: the table differs from {figure.results}; it renders as\n{shown}")
    return found


def write(pages: tuple[Path, ...] = PAGES) -> list[str]:
    """Rewrite every marked table from its file; the marks rewritten, by place."""
    changed = []
    for page in pages:
        marks = marked(page)
        if not marks:
            continue
        lines = page.read_text(encoding="utf-8").split("\n")
        for mark in reversed(marks):
            want = render(mark.name).split("\n")
            if mark.table != want:
                lines[mark.start : mark.start + len(mark.table)] = want
                changed.append(f"{_shown(page)}:{mark.line}")
        page.write_text("\n".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name", nargs="?", help="print this figure")
    parser.add_argument("--list", action="store_true", help="the figures and their files")
    parser.add_argument("--check", action="store_true", help="exit 1 when a page differs")
    parser.add_argument("--write", action="store_true", help="rewrite the marked tables")
    args = parser.parse_args(argv)
    if args.list:
        for figure in FIGURES.values():
            print(f"{figure.name}\n  {figure.results}\n  {figure.command}")
        return 0
    if args.check:
        found = [p for mark in every_mark() for p in problems(mark)]
        print("\n".join(found) if found else "every marked figure is what its file renders")
        return 1 if found else 0
    if args.write:
        for place in write():
            print(f"rewrote {place}")
        return 0
    if args.name is None:
        parser.error("name a figure, or pass --list, --check or --write")
    if args.name not in FIGURES:
        parser.error(f"no figure {args.name!r}; known: {', '.join(sorted(FIGURES))}")
    print(render(args.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
