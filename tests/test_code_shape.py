"""The shape of the code: short functions, no import cycle among osrag modules (a module
holds one concept, however long: there is no line cap).

Read with :mod:`ast` from the files, so nothing is imported. A function is
measured from its ``def`` (decorators excluded) to its last line. Only module-level
imports build the import graph: an import inside a function runs late and cannot form a
cycle at import time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "osrag"
MAX_FUNCTION_LINES = 80

BEING_SPLIT: frozenset[str] = frozenset()
"""Modules exempt while a split is under way (none now): their functions are not measured."""


def _modules() -> Iterator[tuple[str, ast.Module, int]]:
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        yield path.relative_to(ROOT).as_posix(), ast.parse(text, str(path)), len(text.splitlines())


def _long_functions(tree: ast.Module) -> Iterator[tuple[str, int, int]]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                yield node.name, node.lineno, length


def _module_name(relative: str) -> str:
    parts = ["osrag", *relative.removesuffix(".py").split("/")]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The osrag modules one module imports at module level.

    ``from package import submodule`` depends on the submodule only;
    ``from package import name`` on the package's ``__init__``.
    """
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    trees = {_module_name(rel): (tree, rel.endswith("__init__.py")) for rel, tree, _ in _modules()}
    modules = set(trees)
    return {name: _imported(tree, name, pkg, modules) for name, (tree, pkg) in trees.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_function_is_longer_than_80_lines() -> None:
    long = [
        f"osrag/{rel}:{line} {name} is {length} lines"
        for rel, tree, _ in _modules()
        if rel not in BEING_SPLIT
        for name, line, length in _long_functions(tree)
    ]
    assert not long, "split these into functions with one job each:\n" + "\n".join(long)


def test_no_import_cycle_among_osrag_modules() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "module-level import cycle: " + " -> ".join(cycle or [])


def test_the_allow_list_names_modules_that_exist() -> None:
    present = {rel for rel, _, _ in _modules()}
    assert present >= BEING_SPLIT, f"no longer there: {sorted(BEING_SPLIT - present)}"


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"a"}}, ["a", "a"]),
        ({"a": set(), "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_the_cycle_finder_finds_cycles(
    graph: dict[str, set[str]], expected: list[str] | None
) -> None:
    assert _cycle(graph) == expected


def test_the_measures_read_real_code() -> None:
    source = "def f():\n" + "    x = 1\n" * 81
    assert [(n, length) for n, _, length in _long_functions(ast.parse(source))] == [("f", 82)]
    tree = ast.parse(
        "from . import b, name\nfrom .c import d\nimport osrag.e\nimport json\n"
        "def late():\n    import osrag.f\n"
    )
    modules = {"osrag.pkg", "osrag.pkg.a", "osrag.pkg.b", "osrag.pkg.c", "osrag.e", "osrag.f"}
    assert _imported(tree, "osrag.pkg.a", False, modules) == {
        "osrag.pkg",  # for `name`, defined in the package's __init__
        "osrag.pkg.b",
        "osrag.pkg.c",
        "osrag.e",
    }
