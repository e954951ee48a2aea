"""The shape of the code: imports point down the layer table, no package and no module
imports another in a circle, functions stay short.

Read with :mod:`ast` from the files, so nothing is imported. Every import counts: at
module level, inside a function, under ``if TYPE_CHECKING``, and a literal
``import_module("osrag.…")``. ``from package import name`` depends on the package's
``__init__``; ``from package import submodule`` on the submodule.

The layer table is the one in ``docs/concepts.md`` (section "Layers"), read from there:
the code and the page cannot disagree. A package imports only from its own layer or a
lower one, never from a layer above; ``beside`` packages (the development nodes) import
only layer 1 and are imported only by the CLI; the root package (``osrag/__init__.py``)
imports nothing at run time — it names the public API, imported on first use. There is no
allow-list: a new package or top-level module must be given a layer in the table.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "osrag"
TABLE = REPO / "docs" / "concepts.md"
MAX_FUNCTION_LINES = 100
BESIDE = "beside"
TOP = "top"


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        yield path.relative_to(ROOT).as_posix(), ast.parse(text, str(path))


def _module_name(relative: str) -> str:
    parts = ["osrag", *relative.removesuffix(".py").split("/")]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_table(text: str) -> dict[str, int | str]:
    """``{package: layer}`` from the markdown table under the "Layers" heading: a package
    is ``osrag/<name>/`` or ``osrag/<name>.py``; a layer a number, ``beside`` or ``top``."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, int | str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not re.fullmatch(r"\d+|beside|top", cells[0]):
            continue
        layer: int | str = int(cells[0]) if cells[0].isdigit() else cells[0]
        for path in re.findall(r"`osrag/([^`]+)`", cells[1]):
            name = path.rstrip("/").removesuffix(".py")
            table[name] = layer
    return table


LAYERS = layer_table(TABLE.read_text(encoding="utf-8"))


def _package(module: str) -> str:
    """The package a module belongs to: ``osrag.engines.rest.index`` → ``engines``;
    the root package → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """Every osrag module ``name`` imports, wherever the import stands (see the module
    docstring)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
        elif isinstance(node, ast.Call) and _literal_import_module(node):
            found.add(node.args[0].value)  # type: ignore[attr-defined]
    return {m for m in found if m in modules and m != name}


def _literal_import_module(node: ast.Call) -> bool:
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return (
        called == "import_module"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


def _runtime_imports(tree: ast.Module) -> list[str]:
    """The osrag imports of a module outside ``if TYPE_CHECKING`` blocks."""
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("osrag"):
                names.append(inner.module or "")
            elif isinstance(inner, ast.Import):
                names += [a.name for a in inner.names if a.name.startswith("osrag")]
    return names


def _graph() -> dict[str, set[str]]:
    trees = {_module_name(rel): (tree, rel.endswith("__init__.py")) for rel, tree in _modules()}
    modules = set(trees)
    return {name: imported(tree, name, pkg, modules) for name, (tree, pkg) in trees.items()}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
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


def upward(source: str, target: str, layers: dict[str, int | str]) -> bool:
    """Whether a module of package ``source`` may not import one of package ``target``."""
    if source == target or target == "__init__":
        return False  # within a package; the root's names (its version) are for everyone
    mine, theirs = layers[source], layers[target]
    if mine == TOP:
        return False
    if theirs in (TOP, BESIDE):
        return not (theirs == BESIDE and source == "cli")
    if mine == BESIDE:
        return theirs != 1
    assert isinstance(mine, int) and isinstance(theirs, int)
    return theirs > mine


def _long_functions(tree: ast.Module) -> Iterator[tuple[str, int, int]]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                yield node.name, node.lineno, length


# --------------------------------------------------------------------------- the rules


def test_every_package_has_a_layer() -> None:
    packages = {_package(_module_name(rel)) for rel, _ in _modules()} - {"__init__"}
    missing = sorted(packages - set(LAYERS))
    assert not missing, f"give these a layer in {TABLE.name} (section Layers): {missing}"
    gone = sorted(set(LAYERS) - packages - {"__init__"})
    assert not gone, f"the layer table names packages that are not there: {gone}"


def test_imports_point_down_the_layer_table() -> None:
    wrong = [
        f"{module} ({LAYERS[_package(module)]}) imports {target} ({LAYERS[_package(target)]})"
        for module, targets in sorted(_graph().items())
        if _package(module) != "__init__"
        for target in sorted(targets)
        if upward(_package(module), _package(target), LAYERS)
    ]
    assert not wrong, "imports against the layer table:\n" + "\n".join(wrong)


def test_no_package_imports_another_in_a_circle() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        mine = _package(module)
        if mine == "__init__":
            continue  # the root names every layer's public names, imported on first use
        out = packages.setdefault(mine, set())
        out.update(_package(t) for t in targets if _package(t) not in (mine, "__init__"))
    found = cycle(packages)
    assert found is None, "package cycle: " + " -> ".join(found or [])


def test_no_module_imports_another_in_a_circle() -> None:
    graph = {m: {t for t in ts if t != "osrag"} for m, ts in _graph().items() if m != "osrag"}
    found = cycle(graph)
    assert found is None, "module cycle: " + " -> ".join(found or [])


def test_the_root_package_imports_nothing_at_run_time() -> None:
    tree = ast.parse((ROOT / "__init__.py").read_text(encoding="utf-8"))
    assert _runtime_imports(tree) == []


def test_no_function_is_longer_than_100_lines() -> None:
    long = [
        f"osrag/{rel}:{line} {name} is {length} lines"
        for rel, tree in _modules()
        for name, line, length in _long_functions(tree)
    ]
    assert not long, "split these into functions with one job each:\n" + "\n".join(long)


# --------------------------------------------------------------------------- the measures


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
    assert cycle(graph) == expected


def test_the_import_reader_sees_every_kind_of_import() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from . import b, name\nfrom .c import d\nimport osrag.e\nimport json\n"
        "if TYPE_CHECKING:\n    from osrag.g import H\n"
        "def late():\n    import osrag.f\n    return importlib.import_module('osrag.h')\n"
    )
    modules = {"osrag.pkg", "osrag.pkg.a", "osrag.pkg.b", "osrag.pkg.c"}
    modules |= {"osrag.e", "osrag.f", "osrag.g", "osrag.h"}
    assert imported(tree, "osrag.pkg.a", False, modules) == {
        "osrag.pkg",  # for `name`, defined in the package's __init__
        "osrag.pkg.b",
        "osrag.pkg.c",
        "osrag.e",
        "osrag.f",
        "osrag.g",
        "osrag.h",
    }
    assert _runtime_imports(tree) == ["osrag.e", "osrag.f"]


def test_the_layer_rule() -> None:
    layers: dict[str, int | str] = {
        "errors": 1,
        "schema": 2,
        "search": 6,
        "ingestion": 6,
        "cli": 8,
        "node": BESIDE,
    }
    assert not upward("search", "schema", layers)
    assert upward("schema", "search", layers)
    assert not upward("search", "ingestion", layers)  # the same layer: only no cycle
    assert not upward("cli", "node", layers)
    assert upward("search", "node", layers)
    assert not upward("node", "errors", layers)
    assert upward("node", "schema", layers)
    assert not upward("schema", "__init__", layers)


def test_the_layer_table_is_read_from_the_docs() -> None:
    text = (
        "# Title\n\n## Layers\n\n| layer | packages | job |\n| --- | --- | --- |\n"
        "| 2 | `osrag/schema/` | values |\n| 1 | `osrag/errors.py`, `osrag/pids.py` | base |\n"
        "| beside | `osrag/node/` | nodes |\n\n## Next\n| 9 | `osrag/x/` | no |\n"
    )
    assert layer_table(text) == {"schema": 2, "errors": 1, "pids": 1, "node": BESIDE}
    assert LAYERS["schema"] == 2 and LAYERS["cli"] == 8 and LAYERS["engines"] == 5
