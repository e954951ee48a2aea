"""sentence-transformers as an embedder, for teams that already have torch.

Optional extra: ``pip install 'osrag[sentence-transformers]'`` (brings torch;
several GB with CUDA wheels). The import happens when the embedder is
created, never when osrag is imported.

Offline by default: a model name is looked up in the local Hugging Face cache
only (``local_files_only=True``); fetch it beforehand (``hf download NAME``)
or pass ``allow_download=True``. ``version`` defaults to the first 12 hex of
SHA-256 over the model's parameters and its module description (pooling,
``max_seq_length``), so it changes whenever the vectors could.

Queries go through ``encode_query`` where the installed sentence-transformers
has it (v5+: it applies the model's configured query prompt, if any), else
through ``encode``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from osrag.embedding.base import NamedEmbedder, Vectors, checked_vectors
from osrag.embedding.runtime import require_text
from osrag.errors import ConfigError, EmbeddingError


class SentenceTransformerEmbedder(NamedEmbedder):
    """A ``SentenceTransformer`` model, by hub name or local path (see the module docstring)."""

    def __init__(
        self,
        model: str,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        name: str | None = None,
        version: str | None = None,
        allow_download: bool = False,
    ) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                f"embedder sentence-transformers:{model} needs the sentence-transformers extra: "
                "pip install 'osrag[sentence-transformers]'"
            ) from exc
        self._name = name or model.rstrip("/").rsplit("/", 1)[-1]
        try:
            self.model = SentenceTransformer(
                model, device=device, local_files_only=not allow_download
            )
        except Exception as exc:  # OSError, HF hub errors, torch errors…
            raise EmbeddingError(
                f"embedder sentence-transformers:{model}: cannot load the model ({exc}); "
                "a hub model must be in the local cache unless allow_download=True"
            ) from exc
        self.batch_size = batch_size
        get_dim = getattr(self.model, "get_embedding_dimension", None)
        if get_dim is None:  # sentence-transformers before v5
            get_dim = self.model.get_sentence_embedding_dimension
        dimension = get_dim()
        if not dimension:
            raise EmbeddingError(f"embedder sentence-transformers:{model}: unknown dimension")
        self._dimension = int(dimension)
        self._version = version or _parameters_digest(self.model)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.id}, dimension={self._dimension})"

    def _encode(self, method: Any, texts: Sequence[str]) -> Vectors:
        items = require_text(texts, self.id)
        if not items:
            return checked_vectors([], count=0, model=self.id, dimension=self._dimension)
        try:
            raw = method(
                items,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        except Exception as exc:
            raise EmbeddingError(
                f"embedder {self.id}: sentence-transformers failed ({exc})"
            ) from exc
        return checked_vectors(raw, count=len(items), model=self.id, dimension=self._dimension)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors (``encode_document`` where available), unit length, in order."""
        return self._encode(getattr(self.model, "encode_document", self.model.encode), texts)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors (``encode_query`` where available)."""
        return self._encode(getattr(self.model, "encode_query", self.model.encode), texts)


def _parameters_digest(model: Any) -> str:
    digest = hashlib.sha256(repr(model).encode())
    for key, tensor in sorted(model.state_dict().items()):
        digest.update(key.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:12]
