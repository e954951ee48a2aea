"""The index mapping and settings: ``mappings/chunks.json`` is the single source of truth.

The JSON files are usable without Python (``curl -XPUT … -d @mappings/chunks.json``);
this module only loads them and applies the documented knobs: the text
analyzer (``english`` by default), the layout (1 shard and 0 replicas by default;
see :mod:`osrag.ingestion.layout`) and, for a generation with vectors, ``mappings/vectors.json``
merged in with the embedder's dimension.

Vectors: the ``knn_vector`` field always names its engine (``lucene``) and
method explicitly. OpenSearch 2.x defaults to faiss, whose native library the
plugin builds osrag's local node uses do not carry — a field that relied on the
default would take the node down at the first write.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from osrag.errors import ConfigError

ENGLISH_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
"""Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``: the stop words of the mapping's
``english`` analyzer (OpenSearch's ``_english_``), which the embedded engine's analyzer
and the query planner's no-terms check use too."""

_REPO_MAPPINGS = Path(__file__).resolve().parents[2] / "mappings"


@cache
def _load(name: str) -> dict[str, Any]:
    packaged = resources.files("osrag").joinpath("_mappings", name)
    if packaged.is_file():
        data: dict[str, Any] = json.loads(packaged.read_text(encoding="utf-8"))
        return data
    path = _REPO_MAPPINGS / name
    if not path.is_file():
        raise ConfigError(f"mapping file {name} not found (looked in the package and {path})")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


VECTOR_FIELD = "vector"


def chunk_index_body(
    analyzer: str = "english",
    replicas: int = 0,
    shards: int = 1,
    *,
    vector_dimension: int | None = None,
) -> dict[str, Any]:
    """The ``PUT <index>`` body for a generation index (see :mod:`osrag.ingestion.layout`), with a
    vector field of ``vector_dimension`` when the generation is embedded."""
    body = copy.deepcopy(_load("chunks.json"))
    body["settings"]["index"]["number_of_shards"] = shards
    body["settings"]["index"]["number_of_replicas"] = replicas
    body["settings"]["analysis"]["analyzer"]["osrag_text"] = {"type": analyzer}
    if vector_dimension is not None:
        if vector_dimension < 1:
            raise ConfigError(f"a vector field needs a dimension ≥ 1, not {vector_dimension}")
        vectors = copy.deepcopy(_load("vectors.json"))
        body["settings"]["index"].update(vectors["settings"]["index"])
        field = vectors["mappings"]["properties"][VECTOR_FIELD]
        field["dimension"] = vector_dimension
        body["mappings"]["properties"][VECTOR_FIELD] = field
    return body


def vector_dimension(body: dict[str, Any]) -> int | None:
    """The dimension of a generation body's vector field, None when it has none."""
    field = body.get("mappings", {}).get("properties", {}).get(VECTOR_FIELD)
    return int(field["dimension"]) if field else None


def manifest_index_body() -> dict[str, Any]:
    return copy.deepcopy(_load("manifest.json"))


def manifest_version() -> int:
    return int(_load("manifest.json")["mappings"]["_meta"]["osrag_manifest_version"])


def mapping_version() -> int:
    return int(_load("chunks.json")["mappings"]["_meta"]["osrag_mapping_version"])


def chunk_fields() -> frozenset[str]:
    """Top-level fields the mapping declares (``dynamic: strict`` refuses any other)."""
    return frozenset(_load("chunks.json")["mappings"]["properties"])


def manifest_index(alias: str) -> str:
    """The index holding the records (manifest, lock) of ``alias`` on a REST engine."""
    return f"{alias}.manifest"
