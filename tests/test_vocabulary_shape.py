"""What osrag knows of words is written once: no word list or pattern of words is defined
under one name in two modules, and no module outside ``osrag/lexicon/`` writes a closed
list of words that overlaps one of the vocabulary's.

Read with the census (``benchmarks/vocabulary_census.py``: :mod:`ast`, nothing of osrag
imported), whose docstring says what counts: a **word list** is a module-level literal
set, tuple, list or dict (or ``word_set`` call) writing at least three words, or a set
made of other lists (derived); a **pattern of words** is a compiled pattern — or a
module-level string a pattern interpolates — whose alternations spell at least three
words. Patterns that spell no words (``\\s+``, ``\\d{1,2}``) are no vocabulary: two
modules may each compile one. Two lists **overlap** when their words' Jaccard index is
at least 0.5, or at least four shared words are 80 % of the smaller.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
census = importlib.import_module("vocabulary_census")

VOCABULARY = "osrag.lexicon"


def twice(modules: list[census.ModuleCensus]) -> dict[str, list[str]]:
    return census.defined_twice(modules, vocabulary=True)


def outside_overlaps(modules: list[census.ModuleCensus], inside: str) -> list[str]:
    return [f"{o.first} ~ {o.second}: {o.shared}" for o in census.overlaps_with(modules, inside)]


MODULES = census.census(REPO / "osrag")


def test_no_word_list_or_pattern_is_defined_under_one_name_in_two_modules() -> None:
    found = twice(MODULES)
    assert not found, f"defined in more than one module (move it to {VOCABULARY}): {found}"


def test_no_list_outside_the_vocabulary_overlaps_one_of_it() -> None:
    found = outside_overlaps(MODULES, VOCABULARY)
    assert not found, f"import these from {VOCABULARY} instead:\n" + "\n".join(found)


def test_the_vocabulary_holds_its_lists() -> None:
    lexicon = [m for m in MODULES if m.module.startswith(VOCABULARY)]
    assert sum(m.lists for m in lexicon) >= 40
    assert {m.module.rsplit(".", 1)[-1] for m in lexicon} >= {
        "words", "function_words", "label_roles", "quantities", "keys", "periods", "signs",
    }  # fmt: skip


# ------------------------------------------------------------------ the census reads


def _package(tmp_path: Path, files: dict[str, str]) -> list[census.ModuleCensus]:
    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return census.census(root)


def test_the_census_finds_a_list_written_twice_and_an_overlap(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "a.py": 'STOPS = frozenset({"a", "an", "the", "of", "in"})\n',
            "b.py": 'STOPS = word_set("a an the of for")\n',
            "c.py": '__all__ = ["a", "an", "the"]\nFIELDS = ("doc_id", "span_start", "text")\n',
        },
    )
    assert twice(modules) == {"STOPS": ["pkg.a", "pkg.b"]}
    assert outside_overlaps(modules, "pkg.a") == [
        "pkg.b.STOPS ~ pkg.a.STOPS: ['a', 'an', 'of', 'the']"
    ]
    assert [m.lists for m in modules] == [1, 1, 0]  # __all__ and field names are no words


def test_the_census_reads_the_words_a_pattern_spells(tmp_path: Path) -> None:
    assert census.pattern_words(r"(?i)\b(?:jan(?:uary)?|feb)\.?\s+\d") == [
        "feb",
        "jan",
        "january",
    ]
    assert census.pattern_words(r"more\s+than|less\s+than") == ["less", "more", "than"]
    modules = _package(
        tmp_path,
        {
            "a.py": 'import re\n_MONTH = r"jan|feb|mar"\nP = re.compile(rf"{_MONTH}\\s+\\d")\n',
            "b.py": 'import re\n_MONTH = r"(?:jan|feb|mar)"\nQ = re.compile(_MONTH)\n',
            "c.py": 'import re\nSPACE = re.compile(r"\\s+")\nOTHER = re.compile(r"\\s+")\n',
        },
    )
    assert twice(modules) == {"_MONTH": ["pkg.a", "pkg.b"]}  # SPACE spells no words
    assert [m.patterns for m in modules] == [1, 1, 2]


def test_a_derived_list_is_a_definition_but_not_a_list(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "a.py": 'SPLITS = word_set("federal state foreign")\nPARTS = SPLITS - {"state"}\n',
            "b.py": "PARTS = SPLITS | OTHER\n",
        },
    )
    kinds = {(d.module, d.name): d.kind for d in census.definitions(modules)}
    assert kinds == {
        ("pkg.a", "SPLITS"): "list",
        ("pkg.a", "PARTS"): "derived",
        ("pkg.b", "PARTS"): "derived",
    }
    assert twice(modules) == {"PARTS": ["pkg.a", "pkg.b"]}
