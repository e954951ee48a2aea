"""Build an ONNX graph of a BERT sentence encoder from its safetensors weights — no torch.

sentence-transformers runs all-MiniLM-L6-v2 as: WordPiece ids → BERT encoder
(embeddings + LayerNorm, N post-LN transformer layers with exact-erf GELU) →
mean of the last hidden states over the attention mask → L2 normalisation.
This module writes that computation as a plain ONNX graph (standard opset-17
operators only, so any ONNX runtime can execute it) with the weights as
initializers, read from ``model.safetensors`` by the ``safetensors`` package's
numpy loader. The graph is built in memory at load time (about a second) and
never written to disk.

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
        from onnx import TensorProto, helper, numpy_helper
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
    weights = {k.removeprefix("bert."): v for k, v in raw.items()}

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    if hidden % heads:
        raise EmbeddingError(f"{model_dir}: hidden_size {hidden} is not divisible by {heads} heads")
    head_dim = hidden // heads

    def weight(key: str) -> np.ndarray:
        try:
            return np.ascontiguousarray(weights[key], dtype=np.float32)
        except KeyError:
            raise EmbeddingError(f"{weights_path}: tensor {key!r} is missing") from None

    initializers: list[Any] = []
    nodes: list[Any] = []
    counter = 0

    def const(name: str, array: Any) -> str:
        initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op: str, inputs: list[str], **attrs: Any) -> str:
        nonlocal counter
        counter += 1
        out = f"{op.lower()}_{counter}"
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def linear(x: str, prefix: str) -> str:
        # torch Linear stores (out, in); MatMul wants (in, out)
        w = const(f"{prefix}.w", weight(f"{prefix}.weight").T.copy())
        b = const(f"{prefix}.b", weight(f"{prefix}.bias"))
        return node("Add", [node("MatMul", [x, w]), b])

    def layer_norm(x: str, prefix: str) -> str:
        g = const(f"{prefix}.g", weight(f"{prefix}.weight"))
        b = const(f"{prefix}.b", weight(f"{prefix}.bias"))
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    i64 = np.int64
    zero, one, two = (const(f"i{v}", np.array(v, i64)) for v in (0, 1, 2))
    f_one = const("f1", np.array(1.0, np.float32))
    f_half = const("f0.5", np.array(0.5, np.float32))
    f_min = const("fmin", np.array(np.finfo(np.float32).min, np.float32))
    inv_sqrt2 = const("inv_sqrt2", np.array(1 / math.sqrt(2), np.float32))
    scale = const("scale", np.array(1 / math.sqrt(head_dim), np.float32))
    qkv_shape = const("qkv_shape", np.array([0, 0, 3, heads, head_dim], i64))
    merge_shape = const("merge_shape", np.array([0, 0, hidden], i64))

    # embeddings: word + position + token type 0 (osrag never sends sentence pairs)
    x = node("Gather", [const("word", weight("embeddings.word_embeddings.weight")), "input_ids"])
    seq_len = node("Gather", [node("Shape", ["input_ids"]), one])
    positions = node("Range", [zero, seq_len, one])
    pos = node("Gather", [const("pos", weight("embeddings.position_embeddings.weight")), positions])
    token_type = const("type0", weight("embeddings.token_type_embeddings.weight")[0])
    x = layer_norm(node("Add", [node("Add", [x, pos]), token_type]), "embeddings.LayerNorm")

    # additive attention bias: 0 for real tokens, the float32 minimum for padding (as HF does)
    mask_f = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    axes_12 = const("axes_12", np.array([1, 2], i64))
    bias = node("Unsqueeze", [node("Mul", [node("Sub", [f_one, mask_f]), f_min]), axes_12])

    for i in range(layers):
        p = f"encoder.layer.{i}"
        qkv_w = np.concatenate(
            [weight(f"{p}.attention.self.{n}.weight") for n in ("query", "key", "value")]
        ).T.copy()
        qkv_b = np.concatenate(
            [weight(f"{p}.attention.self.{n}.bias") for n in ("query", "key", "value")]
        )
        qkv = node(
            "Add", [node("MatMul", [x, const(f"{p}.qkv.w", qkv_w)]), const(f"{p}.qkv.b", qkv_b)]
        )
        # (batch, seq, 3, heads, head_dim) -> (3, batch, heads, seq, head_dim)
        qkv = node("Transpose", [node("Reshape", [qkv, qkv_shape])], perm=[2, 0, 3, 1, 4])
        q, k, v = (node("Gather", [qkv, idx]) for idx in (zero, one, two))
        scores = node("MatMul", [q, node("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = node("Add", [node("Mul", [scores, scale]), bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), merge_shape])
        attended = node("Add", [linear(context, f"{p}.attention.output.dense"), x])
        x = layer_norm(attended, f"{p}.attention.output.LayerNorm")
        inner = linear(x, f"{p}.intermediate.dense")
        # exact GELU: x * 0.5 * (1 + erf(x / sqrt 2))
        gelu = node(
            "Mul",
            [
                node("Mul", [inner, f_half]),
                node("Add", [node("Erf", [node("Mul", [inner, inv_sqrt2])]), f_one]),
            ],
        )
        x = layer_norm(node("Add", [linear(gelu, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm")

    nodes.append(helper.make_node("Identity", [x], ["token_embeddings"]))
    # masked mean over the sequence, then L2 normalisation
    mask_3d = node("Unsqueeze", [mask_f, const("axes_last", np.array([-1], i64))])
    axis_1 = const("axis_1", np.array([1], i64))
    summed = node("ReduceSum", [node("Mul", ["token_embeddings", mask_3d]), axis_1], keepdims=0)
    counts = node("ReduceSum", [mask_3d, axis_1], keepdims=0)
    counts = node("Max", [counts, const("tiny", np.array(1e-9, np.float32))])
    nodes.append(
        helper.make_node(
            "LpNormalization", [node("Div", [summed, counts])], ["sentence_embedding"], axis=1, p=2
        )
    )

    graph = helper.make_graph(
        nodes,
        "bert_sentence_encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [
            helper.make_tensor_value_info(
                "token_embeddings", TensorProto.FLOAT, ["batch", "seq", hidden]
            ),
            helper.make_tensor_value_info(
                "sentence_embedding", TensorProto.FLOAT, ["batch", hidden]
            ),
        ],
        initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="osrag"
    )
    model.ir_version = 8  # readable by every onnxruntime since 1.11
    if check:
        onnx.checker.check_model(model)
    return model
