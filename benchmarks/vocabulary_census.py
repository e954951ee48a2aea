"""What osrag knows of words, counted: the word lists and patterns of every module.

    .venv/bin/python benchmarks/vocabulary_census.py [--label LABEL] [--root osrag]

Reads the source of ``osrag/`` with :mod:`ast` (nothing of osrag is imported, so a
checkout of any commit can be counted) and reports, per module and in total:

* **word lists** — a module-level name bound to a literal ``frozenset``/``set``/``tuple``/
  ``list``/``dict`` (also wrapped in ``frozenset(…)``, ``set(…)``, ``tuple(…)``), a
  ``word_set("…")`` call, or set algebra of those and of other lists (``A | {…}``,
  ``A - word_set(…)``). Its **own words** are the words written in that expression: the
  string elements (recursively through nested literals: ``SYNONYMS``' groups, a dict's
  tuples), a dict's string keys and string values, the words of a ``word_set`` string.
  A string is a **word** when it has a letter, no underscore, and only letters, digits,
  spaces and ``. ' ’ & -`` (``u.s.``, ``q4``, ``r&d``, ``cost of revenue``; not
  ``doc_id``, ``%``, ``$``, a regex, a module path ``osrag.search`` or a CamelCase name:
  an export table maps code names, not words). A definition **counts as a list** when it writes at
  least three words and at least three quarters of its strings are words — so a tuple
  of field names (``"doc_id", "span"``) or of signs is none, and ``__all__`` /
  ``__slots__`` never are. A list made only from other lists (``PART_COLUMNS = SPLITS -
  {"basic", "diluted"}``) is **derived**: not counted as a list, but its name is still a
  definition (below).
* **patterns** — every ``re.compile(…)`` / ``regex.compile(…)`` call anywhere in a module.
  A pattern's **words** are the words its alternations spell out (``jan(?:uary)?|feb``
  → jan, january, feb; ``more\\s+than`` → more, than): its literal text expanded where it
  is finite, a module-level string it interpolates (``rf"…{_MONTH}…"``) resolved first.
  A module-level string that a compiled pattern interpolates is a **fragment**
  (``_MONTH``): a definition of its own.

Then, across modules:

* **names defined in more than one module** — a list (counted or derived), a pattern
  bound to a module-level name, or a fragment, under one name in two modules or more;
* **overlapping pairs** — two vocabularies (a counted list's own words, or a pattern's or
  fragment's words, at least three) of different modules whose words overlap: Jaccard ≥
  0.5, or at least four shared words that are ≥ 80 % of the smaller one. Words are
  compared casefolded, as written (a plural is another word).

Both are also counted for the word knowledge alone (a list, or a pattern or fragment that
spells words: marks and digits like ``\\s+`` are none), and the pairs are split by where
they lie: both in the vocabulary package (``osrag.lexicon``), one of them, or neither.

Prints a table and writes ``benchmarks/results/vocabulary_census[-LABEL].json``. The
functions (:func:`census`, :func:`definitions`, :func:`defined_twice`,
:func:`overlaps_with`) are what ``tests/test_vocabulary_shape.py`` uses to keep each list
written once.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:  # the regex parser of the standard library (3.11 moved it)
    import re._parser as _sre  # type: ignore[import-not-found]
    from re import _constants as _c  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python before 3.11
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

FOCUS = (
    "osrag.lexicon",
    "osrag.schema.label_keys",
    "osrag.extract.facts",
    "osrag.extract.tables",
    "osrag.extract.scale",
    "osrag.search.labels",
    "osrag.search.binding",
    "osrag.search.asked_keys",
    "osrag.search.constraint_parser",
)
"""The modules that hold osrag's amount vocabulary (before the move, and the package
after it): their sum is reported beside the whole package's."""

MIN_WORDS = 3
"""The fewest words a list (or a pattern's vocabulary) holds to count."""
WORD_SHARE = 0.75
"""The share of a literal's strings that must be words for it to be a word list."""
JACCARD = 0.5
CONTAINED = 0.8
CONTAINED_MIN = 4

_WORD = re.compile(r"(?=.*[^\W\d_])[\w .'’&-]+")
_CODE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+|.*[a-z][A-Z].*")
"""A dotted module path (``osrag.search``) or a CamelCase name: code, not a word."""
_SKIPPED_NAMES = frozenset({"__all__", "__slots__", "__match_args__"})
_CONTAINERS = (ast.Set, ast.Tuple, ast.List, ast.Dict)
_WRAPPERS = frozenset({"frozenset", "set", "tuple", "list", "sorted"})
_SET_OPS = (ast.BitOr, ast.Sub, ast.BitAnd, ast.Add)
_MAX_EXPANSION = 4000


def is_word(text: str) -> bool:
    """A string that is a word or a phrase of words (module docstring)."""
    return (
        "_" not in text
        and _WORD.fullmatch(text) is not None
        and _CODE_NAME.fullmatch(text) is None
        and text.strip() == text
    )


@dataclass
class Definition:
    """One word list, pattern or fragment defined at a module's top level."""

    module: str
    name: str
    kind: str
    """``list``, ``derived`` (a list made of other lists), ``pattern`` or ``fragment``."""
    line: int
    words: list[str] = field(default_factory=list)
    """Own words (a list) or the words a pattern spells out, casefolded, sorted."""

    @property
    def counted(self) -> bool:
        """A vocabulary of its own: a list, or a pattern or fragment holding words."""
        return self.kind != "derived" and len(self.words) >= MIN_WORDS


@dataclass
class ModuleCensus:
    module: str
    lists: int = 0
    list_words: int = 0
    patterns: int = 0
    definitions: list[Definition] = field(default_factory=list)


# --------------------------------------------------------------------------- word lists


def _strings(node: ast.AST) -> Iterator[str] | None:
    """The strings a literal expression writes, or None when it is not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return iter([node.value])
    if isinstance(node, ast.Dict):
        parts: list[str] = []
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                found = _strings(key)
                parts += list(found) if found is not None else []
            found = _strings(value)
            parts += list(found) if found is not None else []
        return iter(parts)
    if isinstance(node, _CONTAINERS):
        parts = []
        for element in node.elts:  # type: ignore[attr-defined]
            found = _strings(element.value if isinstance(element, ast.Starred) else element)
            parts += list(found) if found is not None else []
        return iter(parts)
    return None


def _word_set_call(node: ast.AST) -> list[str] | None:
    if (
        isinstance(node, ast.Call)
        and _called(node) == "word_set"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value.split()
    return None


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _list_words(node: ast.AST) -> tuple[list[str], bool, bool] | None:
    """(own words, all strings are words enough, refers to other lists) of a list
    expression, or None when ``node`` is no list expression."""
    spelled = _word_set_call(node)
    if spelled is not None:
        return spelled, True, False
    if isinstance(node, ast.Call) and _called(node) in _WRAPPERS and len(node.args) == 1:
        return _list_words(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, _SET_OPS):
        left, right = _list_words(node.left), _list_words(node.right)
        if left is None or right is None:
            return None
        return left[0] + right[0], left[1] and right[1], True
    if isinstance(node, (ast.Name, ast.Attribute)):
        return [], True, True
    if isinstance(node, _CONTAINERS):
        found = _strings(node)
        strings = list(found) if found is not None else []
        words = [s for s in strings if is_word(s)]
        nested_names = any(
            isinstance(e, ast.Starred | ast.Name)
            for e in getattr(node, "elts", [])  # "[*SIGNS, *CODES, "percent"]"
        )
        share = len(words) >= WORD_SHARE * len(strings) if strings else False
        return words, share, nested_names
    return None


# --------------------------------------------------------------------------- patterns


def _string_value(node: ast.AST, env: dict[str, str], own: bool = False) -> str | None:
    """The text of a string expression, module-level names resolved from ``env`` — or,
    ``own``, each left out (an empty group: only the text written here); an
    interpolation that cannot be read statically becomes an empty group."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return "(?:)" if own and node.id in env else env.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                inner = _string_value(value.value, env, own)
                parts.append(inner if inner is not None else "(?:)")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string_value(node.left, env, own), _string_value(node.right, env, own)
        return None if left is None or right is None else left + right
    return None


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_compile(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compile"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("re", "regex")
    )


def _flags(node: ast.Call) -> int:
    text = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
    text += " ".join(ast.unparse(k.value) for k in node.keywords if k.arg == "flags")
    return re.VERBOSE if re.search(r"\bre\.(?:X|VERBOSE)\b", text) else 0


def _expand(items: Any) -> set[str] | None:
    """The strings a parsed regex sequence matches, when finite and literal enough."""
    out = {""}
    for op, arg in items:
        options = _expand_item(op, arg)
        if options is None:
            return None
        out = {a + b for a in out for b in options}
        if len(out) > _MAX_EXPANSION:
            return None
    return out


def _expand_item(op: Any, arg: Any) -> set[str] | None:
    if op is _c.LITERAL:
        return {chr(arg)}
    if op is _c.AT or op in (_c.ASSERT, _c.ASSERT_NOT):
        return {""}
    if op is _c.IN:
        if all(o is _c.LITERAL for o, _ in arg):
            return {chr(a) for _, a in arg}
        if arg == [(_c.CATEGORY, _c.CATEGORY_SPACE)]:
            return {" "}
        return None
    if op is _c.BRANCH:
        union: set[str] = set()
        for alternative in arg[1]:
            found = _expand(alternative)
            if found is None:
                return None
            union |= found
        return union
    if op is _c.SUBPATTERN:
        return _expand(arg[-1])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        low, high, inner = arg
        found = _expand(inner)
        if found is None:
            return None
        if (low, high) == (0, 1):
            return found | {""}
        if found == {" "}:
            return {" "}
        return None
    return None


def _spelled(items: Any, words: set[str]) -> None:
    """Add the words of every finite run of ``items`` holding an alternation."""
    run: list[Any] = []

    def flush() -> None:
        if run and any(op in (_c.BRANCH, _c.IN) or op is _c.MAX_REPEAT for op, _ in run):
            found = _expand(run)
            if found is not None:
                for text in found:
                    words.update(w for w in text.casefold().split() if is_word(w))
        run.clear()

    for op, arg in items:
        if _expand_item(op, arg) is not None:
            run.append((op, arg))
            continue
        flush()
        if op is _c.BRANCH:
            for alternative in arg[1]:
                _spelled(alternative, words)
        elif op in (_c.SUBPATTERN, _c.MAX_REPEAT, _c.MIN_REPEAT, _c.ASSERT, _c.ASSERT_NOT):
            _spelled(arg[-1], words)  # the pattern is the last of each one's arguments
    flush()


def pattern_words(source: str, flags: int = 0) -> list[str]:
    """The words the alternations of a regex spell out (module docstring), sorted."""
    try:
        parsed = _sre.parse(source, flags)
    except (re.error, RecursionError, OverflowError):
        return []
    words: set[str] = set()
    _spelled(list(parsed), words)
    stripped = {w.strip(".'’-&") for w in words}
    return sorted(w for w in stripped if len(w) > 1)


# --------------------------------------------------------------------------- modules


def _module_name(path: Path, root: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.stmt) -> tuple[list[str], ast.AST | None]:
    if isinstance(node, ast.Assign):
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        return names, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return [node.target.id], node.value
    return [], None


def read_module(path: Path, root: Path) -> ModuleCensus:
    """The word lists, patterns and fragments of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = ModuleCensus(_module_name(path, root))
    env: dict[str, str] = {}  # module-level strings, resolved
    fragments: dict[str, tuple[int, ast.AST]] = {}
    for node in tree.body:
        names, value = _targets(node)
        if value is None or not names or set(names) & _SKIPPED_NAMES:
            continue
        if _is_compile(value):
            assert isinstance(value, ast.Call)
            words = _own_pattern_words(value.args[0], env, _flags(value)) if value.args else []
            found.definitions += [
                Definition(found.module, name, "pattern", node.lineno, words) for name in names
            ]
            continue
        text = _string_value(value, env)
        if text is not None:
            for name in names:
                env[name] = text
                fragments[name] = (node.lineno, value)
            continue
        definition = _list_definition(value)
        if definition is None:
            continue
        kind, words = definition
        found.definitions += [
            Definition(found.module, name, kind, node.lineno, words) for name in names
        ]
        if kind == "list":
            found.lists += len(names)
            found.list_words += len(words) * len(names)
    interpolated: set[str] = set()
    for node in ast.walk(tree):
        if _is_compile(node):
            assert isinstance(node, ast.Call)
            found.patterns += 1
            interpolated |= _names_in(node.args[0]) if node.args else set()
    for name in sorted(_fragments_of(interpolated, fragments)):
        line, value = fragments[name]
        words = _own_pattern_words(value, env, 0)
        found.definitions.append(Definition(found.module, name, "fragment", line, words))
    return found


def _own_pattern_words(node: ast.AST, env: dict[str, str], flags: int) -> list[str]:
    """The words a pattern's own text spells out (its interpolated fragments left out:
    they are definitions of their own)."""
    whole = _string_value(node, env) or ""
    if re.match(r"\s*\(\?[a-z]*x", whole, re.IGNORECASE):
        flags |= re.VERBOSE
    source = _string_value(node, env, own=True)
    return pattern_words(source, flags) if source else []


def _fragments_of(names: set[str], fragments: dict[str, tuple[int, ast.AST]]) -> set[str]:
    """The module-level strings a compiled pattern interpolates, directly or through
    another such string."""
    used: set[str] = set()
    todo = [n for n in names if n in fragments]
    while todo:
        name = todo.pop()
        if name in used:
            continue
        used.add(name)
        todo += [n for n in _names_in(fragments[name][1]) if n in fragments]
    return used


def _list_definition(value: ast.AST) -> tuple[str, list[str]] | None:
    """(``list`` or ``derived``, its own words) of a list expression, or None."""
    read = _list_words(value)
    if read is None:
        return None
    own, wordy, refers = read
    words = sorted({w.casefold() for w in own})
    if len(words) >= MIN_WORDS and wordy:
        return "list", words
    if refers and len(words) < MIN_WORDS:
        return "derived", words
    return None


def census(root: Path) -> list[ModuleCensus]:
    """Every module of the package at ``root``, read (module docstring)."""
    return [read_module(path, root) for path in sorted(root.rglob("*.py"))]


def definitions(modules: list[ModuleCensus]) -> list[Definition]:
    return [d for m in modules for d in m.definitions]


def defined_twice(modules: list[ModuleCensus], *, vocabulary: bool = False) -> dict[str, list[str]]:
    """Names bound to a list, a pattern or a fragment in more than one module;
    ``vocabulary``: only the definitions that are word knowledge — lists (written or
    derived), patterns and fragments that spell words (a pattern of marks and digits,
    ``\\s+``, is none)."""
    where: dict[str, set[str]] = defaultdict(set)
    for d in definitions(modules):
        if not vocabulary or d.kind == "derived" or d.counted:
            where[d.name].add(d.module)
    return {name: sorted(ms) for name, ms in sorted(where.items()) if len(ms) > 1}


def overlaps_with(modules: list[ModuleCensus], inside: str) -> list[Overlap]:
    """The lists of modules outside the package ``inside`` that overlap one of its lists."""
    lists = [d for d in definitions(modules) if d.kind == "list"]
    ours = [d for d in lists if d.module.startswith(inside)]
    return [
        pair
        for a in lists
        if not a.module.startswith(inside)
        for b in ours
        if (pair := overlap(a, b)) is not None
    ]


@dataclass
class Overlap:
    first: str
    second: str
    shared: list[str]
    jaccard: float
    of_smaller: float


def overlap(a: Definition, b: Definition) -> Overlap | None:
    """How two vocabularies of different modules overlap, when they do enough."""
    first, second = set(a.words), set(b.words)
    shared = first & second
    if not shared:
        return None
    jaccard = len(shared) / len(first | second)
    of_smaller = len(shared) / min(len(first), len(second))
    if jaccard >= JACCARD or (len(shared) >= CONTAINED_MIN and of_smaller >= CONTAINED):
        return Overlap(
            f"{a.module}.{a.name}",
            f"{b.module}.{b.name}",
            sorted(shared),
            round(jaccard, 3),
            round(of_smaller, 3),
        )
    return None


def overlaps(modules: list[ModuleCensus]) -> list[Overlap]:
    """Every pair of vocabularies of different modules that overlap (module docstring)."""
    counted = [d for d in definitions(modules) if d.counted]
    found = []
    for a, b in itertools.combinations(counted, 2):
        if a.module != b.module and (pair := overlap(a, b)) is not None:
            found.append(pair)
    return found


# --------------------------------------------------------------------------- report


def _commit(root: Path) -> str | None:
    """The commit of the checkout ``root`` is in (None outside a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        )
    except OSError:
        return None
    return out.stdout.strip() or None


VOCABULARY = "osrag.lexicon"
"""The vocabulary package: what osrag knows of words, written once."""


def _within(pair: Overlap, package: str) -> int:
    """How many of a pair's two sides lie in ``package``."""
    return sum(side.startswith(package) for side in (pair.first, pair.second))


def report(
    modules: list[ModuleCensus], label: str | None, commit: str | None = None
) -> dict[str, Any]:
    twice = defined_twice(modules)
    words_twice = defined_twice(modules, vocabulary=True)
    pairs = overlaps(modules)
    rows = [m for m in modules if m.lists or m.patterns]
    focus = [m for m in modules if m.module.startswith(FOCUS)]
    return {
        "label": label,
        "commit": commit,
        "totals": {
            "modules": len(rows),
            "lists": sum(m.lists for m in modules),
            "list_words": sum(m.list_words for m in modules),
            "patterns": sum(m.patterns for m in modules),
            "names_defined_twice": len(twice),
            "vocabulary_names_defined_twice": len(words_twice),
            "overlapping_pairs": len(pairs),
            "overlapping_pairs_by_side": {
                "both in the vocabulary": sum(_within(p, VOCABULARY) == 2 for p in pairs),
                "one in the vocabulary": sum(_within(p, VOCABULARY) == 1 for p in pairs),
                "neither": sum(_within(p, VOCABULARY) == 0 for p in pairs),
            },
            "overlapping_pairs_in_focus": sum(
                p.first.startswith(FOCUS) and p.second.startswith(FOCUS) for p in pairs
            ),
            "lists_outside_overlapping_the_vocabulary": len(overlaps_with(modules, VOCABULARY)),
        },
        "focus": {
            "modules": list(FOCUS),
            "lists": sum(m.lists for m in focus),
            "list_words": sum(m.list_words for m in focus),
            "patterns": sum(m.patterns for m in focus),
        },
        "modules": {
            m.module: {
                "lists": m.lists,
                "list_words": m.list_words,
                "patterns": m.patterns,
                "definitions": [
                    {k: v for k, v in asdict(d).items() if k != "module"} for d in m.definitions
                ],
            }
            for m in rows
        },
        "defined_twice": twice,
        "vocabulary_defined_twice": words_twice,
        "overlaps": [asdict(p) for p in pairs],
    }


def _print(result: dict[str, Any]) -> None:
    print(f"{'module':<44} {'lists':>5} {'words':>6} {'patterns':>8}")
    for name, row in result["modules"].items():
        print(f"{name:<44} {row['lists']:>5} {row['list_words']:>6} {row['patterns']:>8}")
    t = result["totals"]
    f = result["focus"]
    print(
        f"{'amount vocabulary (FOCUS)':<44} {f['lists']:>5} {f['list_words']:>6} {f['patterns']:>8}"
    )
    print(f"{'total':<44} {t['lists']:>5} {t['list_words']:>6} {t['patterns']:>8}")
    print(f"\nnames defined in more than one module: {t['names_defined_twice']}")
    for name, modules in result["defined_twice"].items():
        mark = "*" if name in result["vocabulary_defined_twice"] else " "
        print(f" {mark}{name:<24} {', '.join(modules)}")
    print(f"  (* word lists and patterns of words: {t['vocabulary_names_defined_twice']})")
    sides = ", ".join(f"{k} {v}" for k, v in t["overlapping_pairs_by_side"].items())
    print(f"\noverlapping pairs: {t['overlapping_pairs']} ({sides})")
    print(
        f"  of them between two modules of the amount vocabulary: {t['overlapping_pairs_in_focus']}"
    )
    outside = t["lists_outside_overlapping_the_vocabulary"]
    print(f"lists outside the vocabulary overlapping it: {outside}")
    for p in result["overlaps"]:
        print(
            f"  {p['first']} ~ {p['second']}: {len(p['shared'])} shared, "
            f"jaccard {p['jaccard']:.2f}, {p['of_smaller']:.0%} of the smaller"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label", help="suffix of the JSON file (before, after)")
    parser.add_argument("--root", type=Path, default=ROOT / "osrag")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--commit", help="the commit the root is (default: git's answer)")
    args = parser.parse_args()
    root = args.root.resolve()
    result = report(census(root), args.label, args.commit or _commit(root))
    _print(result)
    suffix = f"-{args.label}" if args.label else ""
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"vocabulary_census{suffix}.json"
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
