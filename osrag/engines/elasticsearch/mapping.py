"""``mappings/chunks.json`` (written for OpenSearch) as Elasticsearch 8 takes it. Pure.

The mapping file stays the one source of truth; where the engines differ it is
translated here, field by field, and nowhere else:

* **the text analyzer** — the generation's ``osrag_text`` analyzer becomes the
  one the engine really has (:meth:`ElasticsearchIndex.text_analyzer`:
  ``english``, or ``standard`` on a node without ``analysis-common``);
* **vectors** — OpenSearch's ``knn_vector`` (``dimension``, ``method`` with
  ``engine: lucene``, ``space_type``, HNSW ``m``/``ef_construction``) becomes
  ``dense_vector`` with ``dims``, ``index: true``, the matching ``similarity``
  and ``index_options`` of type ``hnsw`` — named explicitly, because
  Elasticsearch ≥ 8.14 otherwise quantises float vectors (``int8_hnsw``),
  which OpenSearch's ``lucene`` engine does not;
* **index settings** — OpenSearch's ``index.knn`` switch (and its
  ``knn.*`` parameters) have no Elasticsearch counterpart: a ``dense_vector``
  with ``index: true`` is searchable by itself.

Every other field type, ``coerce``, date formats, ``ignore_above`` and
disabled objects mean the same on both engines and pass unchanged.
"""

from __future__ import annotations

import copy
from typing import Any

from osrag.errors import ConfigError

SIMILARITY = {
    "cosinesimil": "cosine",
    "l2": "l2_norm",
    # OpenSearch's inner product takes any vector; ES's dot_product needs unit vectors
    "innerproduct": "max_inner_product",
}
"""OpenSearch ``space_type`` → Elasticsearch ``similarity``."""

ELEMENT_TYPE = {"float": "float", "byte": "byte", "binary": "bit"}
"""OpenSearch ``data_type`` → Elasticsearch ``element_type``."""


def dense_vector(name: str, field: dict[str, Any]) -> dict[str, Any]:
    """One ``knn_vector`` field as a ``dense_vector`` searchable with top-level ``knn``."""
    method = field.get("method") or {}
    space = field.get("space_type") or method.get("space_type") or "l2"
    if space not in SIMILARITY:
        raise ConfigError(
            f"vector field {name!r}: space_type {space!r} has no Elasticsearch similarity "
            f"(known: {', '.join(sorted(SIMILARITY))})"
        )
    engine = method.get("engine", "lucene")
    if engine != "lucene" or method.get("name", "hnsw") != "hnsw":
        raise ConfigError(
            f"vector field {name!r}: only the lucene engine's hnsw method has an "
            f"Elasticsearch counterpart (found {engine}/{method.get('name')})"
        )
    translated: dict[str, Any] = {
        "type": "dense_vector",
        "dims": int(field["dimension"]),
        "index": True,
        "similarity": SIMILARITY[space],
        "index_options": {"type": "hnsw"},
    }
    parameters = method.get("parameters") or {}
    for key in ("m", "ef_construction"):
        if key in parameters:
            translated["index_options"][key] = int(parameters[key])
    data_type = field.get("data_type", "float")
    if data_type != "float":
        translated["element_type"] = ELEMENT_TYPE[data_type]
    return translated


def _fields(properties: dict[str, Any], path: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, field in properties.items():
        where = f"{path}{name}"
        if field.get("type") == "knn_vector":
            out[name] = dense_vector(where, field)
            continue
        field = dict(field)
        if isinstance(field.get("properties"), dict):
            field["properties"] = _fields(field["properties"], f"{where}.")
        if isinstance(field.get("fields"), dict):
            field["fields"] = _fields(field["fields"], f"{where}.")
        out[name] = field
    return out


def _index_settings(index: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in index.items() if k != "knn" and not k.startswith("knn.")}


def to_elasticsearch(body: dict[str, Any], *, analyzer: str | None = None) -> dict[str, Any]:
    """The ``PUT <index>`` body for Elasticsearch 8 (a new dict; ``body`` is untouched).

    ``analyzer`` replaces the ``osrag_text`` analyzer's type when given.
    """
    out = copy.deepcopy(body)
    settings = out.get("settings") or {}
    if isinstance(settings.get("index"), dict):
        settings["index"] = _index_settings(settings["index"])
    for key in [k for k in settings if k == "knn" or k.startswith("knn.")]:
        del settings[key]
    if analyzer is not None:
        analyzers = settings.setdefault("analysis", {}).setdefault("analyzer", {})
        analyzers["osrag_text"] = {"type": analyzer}
    mappings = out.get("mappings") or {}
    if isinstance(mappings.get("properties"), dict):
        mappings["properties"] = _fields(mappings["properties"])
    return out


def requested_analyzer(body: dict[str, Any]) -> str | None:
    """The type of the ``osrag_text`` analyzer a ``PUT <index>`` body asks for."""
    analyzers = body.get("settings", {}).get("analysis", {}).get("analyzer", {})
    kind = (analyzers.get("osrag_text") or {}).get("type")
    return str(kind) if kind else None
