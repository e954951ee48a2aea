"""Build an ONNX graph of a BERT sentence encoder from its safetensors weights — no torch.

sentence-transformers runs all-MiniLM-L6-v2 as: WordPiece ids → BERT encoder
(embeddings + LayerNorm, N post-LN transformer layers with exact-erf GELU) →
mean of the last hidden states over the attention mask → L2 normalisation.
This module writes that computation as a plain ONNX graph (standard opset-17
operators only, so any ONNX runtime can execute it) with the weights as
initializers, read from ``model.safetensors`` by the ``safetensors`` package's
numpy loader. Building takes 1.5–2 s (and imports ``onnx``), so the local
embedder stores the result (:mod:`osrag.embedding.graph_store`) and builds it
once per weights, builder version and onnxruntime.

Graph inputs: ``input_ids`` and ``attention_mask``, int64 ``(batch, seq)``,
right-padded. Outputs: ``token_embeddings`` ``(batch, seq, hidden)`` and
``sentence_embedding`` ``(batch, hidden)``, the masked mean, L2-normalised.

Why hand-built rather than exported: exporting needs torch (the whole point is
to avoid it), and no PyPI package ships this model as an fp32 ONNX file. The
graph is checked against sentence-transformers itself (cosine ≥ 0.9999 on a
stored fixture in the tests, and on real corpora in ``benchmarks/embedding.py``).

Supported: ``model_type`` ``bert`` with ``hidden_act`` ``gelu`` and absolute
positions (the MiniLM, BGE-small/base and most BERT-based sentence models).
Anything else is a :class:`~osrag.errors.EmbeddingError`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from osrag.errors import EmbeddingError

GRAPH_VERSION = 1
"""Bumped whenever the graph below changes in a way that could change vectors."""

OPSET = 17  # LayerNormalization became a standard operator in opset 17


def load_bert_config(model_dir: Path) -> dict[str, Any]:
    """``config.json`` of a BERT model, checked for what the graph supports."""
    path = model_dir / "config.json"
    try:
        config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbeddingError(f"{path}: cannot read the model configuration ({exc})") from exc
    problems = []
    if config.get("model_type") != "bert":
        problems.append(f"model_type {config.get('model_type')!r} (only 'bert')")
    if config.get("hidden_act", "gelu") != "gelu":
        problems.append(f"hidden_act {config.get('hidden_act')!r} (only 'gelu')")
    if config.get("position_embedding_type", "absolute") != "absolute":
        problems.append(f"position_embedding_type {config.get('position_embedding_type')!r}")
    if problems:
        raise EmbeddingError(f"{path}: unsupported model: {'; '.join(problems)}")
    return config


def build_bert_graph(model_dir: Path, *, check: bool = False) -> Any:
    """The ONNX ``ModelProto`` of the encoder + mean pooling + normalisation.

    ``check`` runs ``onnx.checker`` on the result (about 0.3 s; the tests do).
    """
    try:
        import onnx
        from onnx import helper
        from safetensors.numpy import load_file
    except ImportError as exc:
        raise EmbeddingError(
            f"building the ONNX graph needs the 'embed' extra (onnx, safetensors): {exc}"
        ) from exc

    config = load_bert_config(model_dir)
    weights_path = model_dir / "model.safetensors"
    try:
        raw = load_file(str(weights_path))
    except Exception as exc:  # safetensors raises its own error types, and OSError
        raise EmbeddingError(f"{weights_path}: cannot read the weights ({exc})") from exc
    if int(config["hidden_size"]) % int(config["num_attention_heads"]):
        raise EmbeddingError(
            f"{model_dir}: hidden_size {config['hidden_size']} is not divisible by "
            f"{config['num_attention_heads']} heads"
        )
    graph = _Graph({k.removeprefix("bert."): v for k, v in raw.items()}, weights_path, config)
    x = graph.embeddings()
    for i in range(int(config["num_hidden_layers"])):
        x = graph.layer(x, f"encoder.layer.{i}")
    model = helper.make_model(
        graph.finish(x), opset_imports=[helper.make_opsetid("", OPSET)], producer_name="osrag"
    )
    model.ir_version = 8  # readable by every onnxruntime since 1.11
    if check:
        onnx.checker.check_model(model)
    return model


class _Graph:
    """The nodes and initializers of the graph, added in order; a node's output is named
    after its operator and its position."""

    def __init__(self, weights: dict[str, Any], weights_path: Path, config: dict[str, Any]):
        from onnx import TensorProto

        self.weights, self.weights_path = weights, weights_path
        self.hidden = int(config["hidden_size"])
        heads = int(config["num_attention_heads"])
        head_dim = self.hidden // heads
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.initializers: list[Any] = []
        self.nodes: list[Any] = []
        self.counter = 0
        i64 = np.int64
        self.zero, self.one, self.two = (self.const(f"i{v}", np.array(v, i64)) for v in (0, 1, 2))
        self.f_one = self.const("f1", np.array(1.0, np.float32))
        self.f_half = self.const("f0.5", np.array(0.5, np.float32))
        self.f_min = self.const("fmin", np.array(np.finfo(np.float32).min, np.float32))
        self.inv_sqrt2 = self.const("inv_sqrt2", np.array(1 / math.sqrt(2), np.float32))
        self.scale = self.const("scale", np.array(1 / math.sqrt(head_dim), np.float32))
        self.qkv_shape = self.const("qkv_shape", np.array([0, 0, 3, heads, head_dim], i64))
        self.merge_shape = self.const("merge_shape", np.array([0, 0, self.hidden], i64))
        self.float_type = TensorProto.FLOAT
        self.mask_f = ""
        self.bias = ""

    def weight(self, key: str) -> np.ndarray:
        try:
            return np.ascontiguousarray(self.weights[key], dtype=np.float32)
        except KeyError:
            raise EmbeddingError(f"{self.weights_path}: tensor {key!r} is missing") from None

    def const(self, name: str, array: Any) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op: str, inputs: list[str], **attrs: Any) -> str:
        from onnx import helper

        self.counter += 1
        out = f"{op.lower()}_{self.counter}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def linear(self, x: str, prefix: str) -> str:
        # torch Linear stores (out, in); MatMul wants (in, out)
        w = self.const(f"{prefix}.w", self.weight(f"{prefix}.weight").T.copy())
        b = self.const(f"{prefix}.b", self.weight(f"{prefix}.bias"))
        return self.node("Add", [self.node("MatMul", [x, w]), b])

    def layer_norm(self, x: str, prefix: str) -> str:
        g = self.const(f"{prefix}.g", self.weight(f"{prefix}.weight"))
        b = self.const(f"{prefix}.b", self.weight(f"{prefix}.bias"))
        return self.node("LayerNormalization", [x, g, b], axis=-1, epsilon=self.eps)

    def embeddings(self) -> str:
        """Word + position + token type 0 (osrag never sends sentence pairs), normalised;
        and the attention bias: 0 for real tokens, the float32 minimum for padding."""
        node, const, weight = self.node, self.const, self.weight
        x = node(
            "Gather", [const("word", weight("embeddings.word_embeddings.weight")), "input_ids"]
        )
        seq_len = node("Gather", [node("Shape", ["input_ids"]), self.one])
        positions = node("Range", [self.zero, seq_len, self.one])
        pos = node(
            "Gather", [const("pos", weight("embeddings.position_embeddings.weight")), positions]
        )
        token_type = const("type0", weight("embeddings.token_type_embeddings.weight")[0])
        x = self.layer_norm(
            node("Add", [node("Add", [x, pos]), token_type]), "embeddings.LayerNorm"
        )
        self.mask_f = node("Cast", ["attention_mask"], to=self.float_type)
        axes_12 = const("axes_12", np.array([1, 2], np.int64))
        self.bias = node(
            "Unsqueeze",
            [node("Mul", [node("Sub", [self.f_one, self.mask_f]), self.f_min]), axes_12],
        )
        return x

    def layer(self, x: str, p: str) -> str:
        """One post-LN transformer layer: self-attention, then the exact-GELU feed-forward."""
        node, const, weight = self.node, self.const, self.weight
        names = ("query", "key", "value")
        qkv_w = np.concatenate([weight(f"{p}.attention.self.{n}.weight") for n in names]).T.copy()
        qkv_b = np.concatenate([weight(f"{p}.attention.self.{n}.bias") for n in names])
        qkv = node(
            "Add", [node("MatMul", [x, const(f"{p}.qkv.w", qkv_w)]), const(f"{p}.qkv.b", qkv_b)]
        )
        # (batch, seq, 3, heads, head_dim) -> (3, batch, heads, seq, head_dim)
        qkv = node("Transpose", [node("Reshape", [qkv, self.qkv_shape])], perm=[2, 0, 3, 1, 4])
        q, k, v = (node("Gather", [qkv, idx]) for idx in (self.zero, self.one, self.two))
        scores = node("MatMul", [q, node("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = node("Add", [node("Mul", [scores, self.scale]), self.bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node(
            "Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), self.merge_shape]
        )
        attended = node("Add", [self.linear(context, f"{p}.attention.output.dense"), x])
        x = self.layer_norm(attended, f"{p}.attention.output.LayerNorm")
        inner = self.linear(x, f"{p}.intermediate.dense")
        # exact GELU: x * 0.5 * (1 + erf(x / sqrt 2))
        gelu = node(
            "Mul",
            [
                node("Mul", [inner, self.f_half]),
                node("Add", [node("Erf", [node("Mul", [inner, self.inv_sqrt2])]), self.f_one]),
            ],
        )
        out = node("Add", [self.linear(gelu, f"{p}.output.dense"), x])
        return self.layer_norm(out, f"{p}.output.LayerNorm")

    def finish(self, x: str) -> Any:
        """The graph: ``token_embeddings`` and their masked mean, L2-normalised."""
        from onnx import TensorProto, helper

        node, const = self.node, self.const
        self.nodes.append(helper.make_node("Identity", [x], ["token_embeddings"]))
        mask_3d = node("Unsqueeze", [self.mask_f, const("axes_last", np.array([-1], np.int64))])
        axis_1 = const("axis_1", np.array([1], np.int64))
        summed = node("ReduceSum", [node("Mul", ["token_embeddings", mask_3d]), axis_1], keepdims=0)
        counts = node("ReduceSum", [mask_3d, axis_1], keepdims=0)
        counts = node("Max", [counts, const("tiny", np.array(1e-9, np.float32))])
        self.nodes.append(
            helper.make_node(
                "LpNormalization",
                [node("Div", [summed, counts])],
                ["sentence_embedding"],
                axis=1,
                p=2,
            )
        )
        batch_seq = ["batch", "seq"]
        return helper.make_graph(
            self.nodes,
            "bert_sentence_encoder",
            [
                helper.make_tensor_value_info("input_ids", TensorProto.INT64, batch_seq),
                helper.make_tensor_value_info("attention_mask", TensorProto.INT64, batch_seq),
            ],
            [
                helper.make_tensor_value_info(
                    "token_embeddings", TensorProto.FLOAT, [*batch_seq, self.hidden]
                ),
                helper.make_tensor_value_info(
                    "sentence_embedding", TensorProto.FLOAT, ["batch", self.hidden]
                ),
            ],
            self.initializers,
        )
