"""Tokenise, batch, run an ONNX Runtime session, pool: what the local-model embedders share.

Batching: texts are tokenised in one call (HF ``tokenizers`` runs it in
Rust), ordered by token count and cut into batches of ``batch_size``, each
padded to its own longest text — the sorting keeps padding (wasted compute)
small, as sentence-transformers does. Padding never changes a vector: the
attention mask removes padded positions from attention and from the pooled
mean, so a text gives the same vector alone or in any batch (to about 1e-6).

Truncation: each text is cut to ``max_length`` tokens *including* ``[CLS]``
and ``[SEP]`` (what sentence-transformers' ``max_seq_length`` means); the rest
of a longer text does not influence its vector. Chunks longer than that
should be avoided at chunking time, not discovered here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from osrag.embedding.base import Vectors, l2_normalise
from osrag.errors import ConfigError, EmbeddingError

Pooling = Literal["mean", "cls"]

DEFAULT_BATCH_SIZE = 8  # best texts per CPU-second on ~128-token texts (benchmarks/embedding.py)


def require_text(texts: Sequence[str], model: str) -> list[str]:
    """``texts`` as a list, each checked to be a ``str`` (the index of the first bad one named)."""
    if isinstance(texts, str):
        raise EmbeddingError(f"embedder {model}: expected a sequence of texts, got one string")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise EmbeddingError(
                f"embedder {model}: text {i} is a {type(text).__name__}, not a string"
            )
    return out


def load_tokenizer(path: Path, max_length: int, model: str) -> Any:
    """A HF ``tokenizers`` tokenizer: no padding, truncation at ``max_length`` tokens.

    The file's own padding and truncation settings are replaced: the MiniLM
    file, for one, pads and truncates to 128 while the model is used at 256.
    """
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ConfigError(
            f"embedder {model} needs HF tokenizers: pip install 'osrag[embed]'"
        ) from exc
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for unreadable files
        raise EmbeddingError(f"embedder {model}: cannot read the tokenizer {path} ({exc})") from exc
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices into ``lengths`` grouped into batches of similar length (shortest first).

    Pure; every index appears exactly once. Ties keep input order.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def pad(rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Right-padded ``(ids, mask)`` int64 arrays of shape ``(len(rows), longest)``."""
    width = max((len(r) for r in rows), default=0)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
    return ids, mask


def pool(hidden: np.ndarray, mask: np.ndarray, pooling: Pooling) -> Vectors:
    """Unit-length sentence vectors from token vectors ``(batch, seq, d)``: masked mean or CLS."""
    if pooling == "cls":
        return l2_normalise(hidden[:, 0, :])
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    return l2_normalise(summed / np.maximum(weights.sum(axis=1), 1e-9))


def make_session(model: bytes | str, *, threads: int, model_name: str) -> Any:
    """An ONNX Runtime session with ``threads`` intra-op threads and no spinning.

    It runs on CUDA where onnxruntime-gpu offers it, else on the CPU
    (:func:`osrag.embedding.accel.session_providers`; ``OSRAG_EMBEDDER_DEVICE``
    forces ``cpu`` or ``cuda``).

    Idle worker threads sleep instead of spinning (``allow_spinning=0``): on a
    shared machine spinning burns the CPU that other processes — or the other
    embedding workers — need, for no measurable gain in throughput at these
    batch sizes.
    """
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ConfigError(
            f"embedder {model_name} needs onnxruntime: pip install 'osrag[embed]'"
        ) from exc
    from osrag.embedding.accel import session_providers

    providers = session_providers()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: unused-initializer notes are not news
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(model, options, providers=providers)
    except Exception as exc:  # onnxruntime's errors are not exported under stable names
        raise EmbeddingError(
            f"embedder {model_name}: onnxruntime cannot load the model ({exc})"
        ) from exc


class BatchedEncoder:
    """Tokenise → sort by length → pad → run → put rows back in input order.

    ``run_batch(ids, mask)`` returns unit-length vectors for one padded batch;
    the subclass-free design keeps the ONNX-file and default embedders to a
    few lines each.
    """

    def __init__(
        self,
        tokenizer: Any,
        run_batch: Any,
        *,
        dimension: int,
        model: str,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"embedder {model}: batch_size must be at least 1, not {batch_size}")
        self.tokenizer = tokenizer
        self.run_batch = run_batch
        self.dimension = dimension
        self.model = model
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> Vectors:
        items = require_text(texts, self.model)
        out = np.zeros((len(items), self.dimension), dtype=np.float32)
        if not items:
            return out
        rows = [e.ids for e in self.tokenizer.encode_batch(items)]
        for batch in length_sorted_batches([len(r) for r in rows], self.batch_size):
            ids, mask = pad([rows[i] for i in batch])
            try:
                vectors = self.run_batch(ids, mask)
            except EmbeddingError:
                raise
            except Exception as exc:  # a runtime failure inside the model
                raise EmbeddingError(
                    f"embedder {self.model}: the model failed on a batch of {len(batch)} "
                    f"texts ({exc})"
                ) from exc
            out[batch] = vectors
        return out


@dataclass(frozen=True)
class LoadReport:
    """What loading a local model took."""

    seconds: float
    note: str | None = None
    """One line for the user when the load did something done once, not every time
    (the default embedder built its ONNX graph and stored it)."""


class LazyEncoder:
    """One :class:`BatchedEncoder`, built by :meth:`_build` on first use (under
    ``_lock``, which the subclass creates) and left out when pickled: a worker process
    builds its own. :meth:`_build` may set ``_load_note``."""

    _encoder: BatchedEncoder | None = None
    _lock: threading.Lock
    _load_report: LoadReport | None = None
    _load_note: str | None = None

    def _build(self) -> BatchedEncoder:
        raise NotImplementedError

    def _get_encoder(self) -> BatchedEncoder:
        with self._lock:
            if self._encoder is None:
                started = time.perf_counter()
                self._load_note = None
                self._encoder = self._build()
                self._load_report = LoadReport(time.perf_counter() - started, self._load_note)
            return self._encoder

    @property
    def loaded(self) -> bool:
        """Whether the tokenizer and the ONNX session are built."""
        return self._encoder is not None

    def load(self) -> LoadReport:
        """Build the tokenizer and the ONNX session now rather than on first use; what
        that took (the first load's report again when it was already done)."""
        self._get_encoder()
        assert self._load_report is not None
        return self._load_report

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_encoder"] = None
        state.pop("_load_report", None)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
