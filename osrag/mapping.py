"""The index mapping and settings: ``mappings/chunks.json`` is the single source of truth.

The JSON files are usable without Python (``curl -XPUT … -d @mappings/chunks.json``);
this module only loads them and applies the documented knobs: the text
analyzer (``english`` by default) and the layout (1 shard and 0 replicas by default).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from osrag.errors import ConfigError

_REPO_MAPPINGS = Path(__file__).resolve().parents[1] / "mappings"


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


def chunk_index_body(
    analyzer: str = "english", replicas: int = 0, shards: int = 1
) -> dict[str, Any]:
    """The ``PUT <index>`` body for a generation index (see :mod:`osrag.layout`)."""
    body = copy.deepcopy(_load("chunks.json"))
    body["settings"]["index"]["number_of_shards"] = shards
    body["settings"]["index"]["number_of_replicas"] = replicas
    body["settings"]["analysis"]["analyzer"]["osrag_text"] = {"type": analyzer}
    return body


def manifest_index_body() -> dict[str, Any]:
    return copy.deepcopy(_load("manifest.json"))


def manifest_version() -> int:
    return int(_load("manifest.json")["mappings"]["_meta"]["osrag_manifest_version"])


def mapping_version() -> int:
    return int(_load("chunks.json")["mappings"]["_meta"]["osrag_mapping_version"])


def chunk_fields() -> frozenset[str]:
    """Top-level fields the mapping declares (``dynamic: strict`` refuses any other)."""
    return frozenset(_load("chunks.json")["mappings"]["properties"])
