"""The public API is small and pinned: ``osrag.__all__``, the lazy table behind it and the
names type checkers see are one list, exactly the one below; each name resolves to what
its module defines; names that moved still answer, with a warning, for one release; and
``build_query``, documented as pure, loads no engine, command-line or analyzer library."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import osrag

INIT = Path(osrag.__file__)

PUBLIC = [
    "AmountConstraint", "AsyncSearcher", "AuthError", "Chunk", "ChunkIndex", "ChunkingConfig",
    "ClusterError", "ConfigError", "ContextRequest", "CorpusError", "DimensionMismatchError",
    "Document", "EmbeddingError", "ExtractionConfig", "ExtractionError", "IndexStateError",
    "IngestOptions", "IngestReport", "InputError", "LockedError", "Money", "MoneyMention",
    "NodeError", "OsragError", "Passage", "QueryAnalysis", "QueryError", "QuerySpec",
    "SearchHit", "SearchResult", "Searcher", "Settings", "Span", "TLSError", "TokenSpan",
    "analyze_query", "build_query", "chunk_document", "enrich_chunks", "extract_money",
    "ingest", "load_corpus", "load_settings", "open_index", "parse_money", "prepare_chunks",
    "rollback", "run_evaluation",
]  # fmt: skip
"""Every name ``from osrag import …`` offers (beside ``__version__``)."""


def _typing_block() -> dict[str, str]:
    """``{name: module}`` of the imports under ``if TYPE_CHECKING`` in ``osrag/__init__.py``."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n)]
    return {
        alias.asname or alias.name: node.module or ""
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_public_list_is_pinned() -> None:
    assert sorted(osrag._API) == sorted(PUBLIC)
    assert sorted(osrag.__all__) == sorted(["__version__", *PUBLIC])
    assert len(set(osrag.__all__)) == len(osrag.__all__)
    assert sorted(dir(osrag)) == sorted(osrag.__all__)


def test_type_checkers_see_the_same_names_from_the_same_modules() -> None:
    assert _typing_block() == osrag._API


@pytest.mark.parametrize("name", PUBLIC)
def test_every_name_is_what_its_module_defines(name: str) -> None:
    assert getattr(osrag, name) is getattr(import_module(osrag._API[name]), name)


@pytest.mark.parametrize("name", sorted(osrag._MOVED))
def test_a_moved_name_still_answers_with_a_warning_naming_its_place(name: str) -> None:
    where = osrag._MOVED[name]
    with pytest.warns(DeprecationWarning, match=rf"use {where}\.{name}"):
        found = getattr(osrag, name)
    assert found is getattr(import_module(where), name)
    assert name not in osrag.__all__


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        osrag.nope  # noqa: B018


def test_the_dsl_helpers_live_in_osrag_opensearch() -> None:
    from osrag import opensearch

    assert sorted(opensearch.__all__) == [
        "add_osrag_clauses",
        "cluster_errors",
        "connect",
        "to_search",
    ]


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(out.stdout.split())


def test_build_query_loads_no_engine_cli_or_analyzer_library() -> None:
    loaded = _loaded_after("from osrag import build_query")
    tops = {name.split(".")[0] for name in loaded}
    assert not tops & {"tantivy", "typer", "rich", "Stemmer", "onnxruntime"}, sorted(tops)
    assert "osrag.search.query" in loaded  # the import did happen


def test_import_osrag_loads_nothing_of_osrag_but_the_package() -> None:
    loaded = _loaded_after("import osrag")
    assert sorted(m for m in loaded if m.startswith("osrag")) == ["osrag"]
