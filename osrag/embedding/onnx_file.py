"""A team's own exported ``.onnx`` encoder + its ``tokenizer.json``, on ONNX Runtime.

For models exported with ``optimum-cli export onnx`` (or ``torch.onnx``) from
a Hugging Face encoder. The graph's inputs are matched by name:
``input_ids`` and ``attention_mask`` are fed, ``token_type_ids`` (if the
graph has it) gets zeros; any other input is an error naming it. The output
used is ``output`` if given, else the graph's first output:

- ``(batch, seq, d)`` token vectors (``last_hidden_state``) are pooled by
  ``pooling``: ``mean`` over the attention mask (sentence-transformers'
  default; MiniLM, MPNet, E5) or ``cls``, the first token (BGE, GTE);
- ``(batch, d)`` is taken as already pooled.

Either way the vectors are L2-normalised. Truncation is at ``max_length``
tokens including special tokens: by default the ``tokenizer.json``'s own
truncation length, else 512. Query and passage prefixes (E5's ``query: ``)
are ``query_prefix`` and ``passage_prefix``.

Needs the ``onnx`` extra: ``pip install 'osrag[onnx]'`` (onnxruntime,
tokenizers, numpy).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from osrag.embedding.base import NamedEmbedder, Vectors
from osrag.embedding.runtime import (
    DEFAULT_BATCH_SIZE,
    BatchedEncoder,
    LazyEncoder,
    Pooling,
    load_tokenizer,
    make_session,
    pool,
    require_text,
)
from osrag.errors import ConfigError, EmbeddingError

_FED_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class OnnxEmbedder(NamedEmbedder, LazyEncoder):
    """An exported ONNX encoder with configurable pooling (see the module docstring).

    ``name`` defaults to the file's stem (its folder's name when the stem is
    ``model``); ``version`` to the first 12 hex of SHA-256 over the ``.onnx``
    file, the tokenizer, the pooling, the truncation length and the prefixes.
    The session is created on first use; ``dimension`` is read from the
    graph's output shape (or, if that is symbolic, from one probe text).
    """

    tokenizer_path: Path
    max_length: int

    def __init__(
        self,
        model_path: Path | str,
        tokenizer_path: Path | str | None = None,
        *,
        pooling: Pooling = "mean",
        max_length: int | None = None,
        output: str | None = None,
        name: str | None = None,
        version: str | None = None,
        query_prefix: str = "",
        passage_prefix: str = "",
        threads: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        self.model_path = Path(model_path)
        self.tokenizer_path = (
            Path(tokenizer_path) if tokenizer_path else self.model_path.parent / "tokenizer.json"
        )
        stem = self.model_path.stem
        self._name = name or (self.model_path.parent.name if stem == "model" else stem)
        if pooling not in ("mean", "cls"):
            raise ConfigError(
                f"embedder {self._name}: pooling must be mean or cls, not {pooling!r}"
            )
        for path, what in ((self.model_path, "model"), (self.tokenizer_path, "tokenizer")):
            if not path.is_file():
                raise EmbeddingError(
                    f"embedder {self._name}: the {what} file {path} does not exist"
                )
        if max_length is None:
            max_length = _tokenizer_max_length(self.tokenizer_path) or 512
        if max_length < 2:
            raise ConfigError(f"embedder {self._name}: max_length must be at least 2")
        if threads < 1 or batch_size < 1:
            raise ConfigError(f"embedder {self._name}: threads and batch_size must be at least 1")
        self.pooling: Pooling = pooling
        self.max_length = max_length
        self.output = output
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.threads = threads
        self.batch_size = batch_size
        if version is None:
            digest = hashlib.sha256()
            for path in (self.model_path, self.tokenizer_path):
                with path.open("rb") as fh:
                    while block := fh.read(1 << 20):
                        digest.update(block)
            digest.update(
                json.dumps([pooling, max_length, output, query_prefix, passage_prefix]).encode()
            )
            version = digest.hexdigest()[:12]
        self._version = version
        self._dimension: int | None = None
        self._encoder = None
        self._lock = threading.Lock()

    def _find_dimension(self) -> int:
        encoder = self._get_encoder()
        found = int(encoder.run_batch(*_probe(encoder.tokenizer)).shape[1])
        encoder.dimension = found
        return found

    def __repr__(self) -> str:
        return f"OnnxEmbedder({self.id}, {self.model_path}, pooling={self.pooling})"

    def _build(self) -> BatchedEncoder:
        tokenizer = load_tokenizer(self.tokenizer_path, self.max_length, self.id)
        session = make_session(str(self.model_path), threads=self.threads, model_name=self.id)
        inputs = {i.name: i for i in session.get_inputs()}
        unknown = sorted(set(inputs) - set(_FED_INPUTS))
        missing = [n for n in ("input_ids", "attention_mask") if n not in inputs]
        if unknown or missing:
            raise EmbeddingError(
                f"embedder {self.id}: {self.model_path} has inputs {sorted(inputs)}; osrag feeds "
                f"input_ids, attention_mask and optionally token_type_ids"
                + (f" (unknown: {', '.join(unknown)})" if unknown else "")
                + (f" (missing: {', '.join(missing)})" if missing else "")
            )
        int32 = {n for n, i in inputs.items() if i.type == "tensor(int32)"}
        outputs = {o.name: o for o in session.get_outputs()}
        output = self.output or next(iter(outputs))
        if output not in outputs:
            raise EmbeddingError(
                f"embedder {self.id}: {self.model_path} has no output {output!r} "
                f"(it has {', '.join(outputs)})"
            )
        shape = outputs[output].shape
        if len(shape) not in (2, 3):
            raise EmbeddingError(
                f"embedder {self.id}: output {output!r} has rank {len(shape)}; expected "
                "(batch, seq, d) token vectors or (batch, d) sentence vectors"
            )
        if isinstance(shape[-1], int):
            self._dimension = shape[-1]
        pooling = self.pooling

        def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
            feed: dict[str, np.ndarray] = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            for n in int32:
                feed[n] = feed[n].astype(np.int32)
            result = np.asarray(session.run([output], feed)[0], dtype=np.float32)
            if result.ndim == 3:
                return pool(result, mask, pooling)
            norms = np.linalg.norm(result, axis=1, keepdims=True)
            return result / np.maximum(norms, 1e-12)

        return BatchedEncoder(
            tokenizer,
            run,
            dimension=self._dimension or 0,
            model=self.id,
            batch_size=self.batch_size,
        )

    def _encode(self, texts: Sequence[str], prefix: str) -> Vectors:
        items = require_text(texts, self.id)
        encoder = self._get_encoder()
        if not encoder.dimension:
            encoder.dimension = self.dimension
        return encoder.encode([prefix + t for t in items] if prefix else items)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors (``passage_prefix`` prepended), unit length, in order."""
        return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors (``query_prefix`` prepended); equal to :meth:`embed` without prefixes."""
        return self._encode(texts, self.query_prefix)


def _tokenizer_max_length(path: Path) -> int | None:
    try:
        truncation = json.loads(path.read_text(encoding="utf-8")).get("truncation") or {}
    except (OSError, ValueError):
        return None
    value = truncation.get("max_length")
    return int(value) if isinstance(value, int) else None


def _probe(tokenizer: Any) -> tuple[np.ndarray, np.ndarray]:
    ids = np.asarray([tokenizer.encode("dimension probe").ids], dtype=np.int64)
    return ids, np.ones_like(ids)
