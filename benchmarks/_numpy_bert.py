"""The route osrag did not take: all-MiniLM-L6-v2 as a plain numpy forward pass.

Kept for ``benchmarks/embedding.py`` so the choice in
:mod:`osrag.embedding.local_bert` can be re-measured: the same computation as
the ONNX graph (BERT encoder, exact-GELU with erf by Abramowitz–Stegun 7.1.26,
|error| < 1.5e-7, masked mean, L2 norm), with in-place elementwise operations
and BLAS matrix products. Needs numpy, safetensors and tokenizers only.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

_P = np.float32(0.3275911)
_A = [np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)]


def _gelu(x: np.ndarray) -> np.ndarray:
    z = x * np.float32(1 / math.sqrt(2))
    a = np.abs(z)
    t = a * _P
    t += 1
    np.reciprocal(t, out=t)
    p = t * _A[4]
    for coef in (_A[3], _A[2], _A[1], _A[0]):
        p += coef
        p *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    p *= a  # 1 - |erf(z)|
    np.copysign(p, z, out=p)
    np.sign(z, out=z)
    z += 1
    z -= p  # 1 + erf(z)
    z *= 0.5
    x *= z
    return x


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    x -= x.mean(-1, keepdims=True)
    v = np.square(x).mean(-1, keepdims=True)
    v += np.float32(1e-12)
    np.sqrt(v, out=v)
    x /= v
    x *= g
    x += b
    return x


class NumpyMiniLM:
    def __init__(self, model_dir: Path, max_length: int = 256) -> None:
        from tokenizers import Tokenizer

        self.w = load_file(str(model_dir / "model.safetensors"))
        config = json.loads((model_dir / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length)
        w = self.w
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            qkv = [w[f"{p}attention.self.{n}.weight"] for n in ("query", "key", "value")]
            qkv_b = [w[f"{p}attention.self.{n}.bias"] for n in ("query", "key", "value")]
            self.layers.append(
                (
                    np.concatenate(qkv).T.copy(),
                    np.concatenate(qkv_b),
                    w[p + "attention.output.dense.weight"].T.copy(),
                    w[p + "attention.output.dense.bias"],
                    w[p + "attention.output.LayerNorm.weight"],
                    w[p + "attention.output.LayerNorm.bias"],
                    w[p + "intermediate.dense.weight"].T.copy(),
                    w[p + "intermediate.dense.bias"],
                    w[p + "output.dense.weight"].T.copy(),
                    w[p + "output.dense.bias"],
                    w[p + "output.LayerNorm.weight"],
                    w[p + "output.LayerNorm.bias"],
                )
            )

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        batch, seq = ids.shape
        hidden = w["embeddings.word_embeddings.weight"].shape[1]
        heads, head_dim = self.heads, hidden // self.heads
        x = w["embeddings.word_embeddings.weight"][ids]
        x += w["embeddings.position_embeddings.weight"][:seq]
        x += w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = np.where(mask[:, None, None, :] > 0, 0, np.finfo(np.float32).min).astype(np.float32)
        x2 = x.reshape(batch * seq, hidden)
        for qw, qb, ow, ob, g1, b1, iw, ib, o2w, o2b, g2, b2 in self.layers:
            qkv = x2 @ qw
            qkv += qb
            qkv = qkv.reshape(batch, seq, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
            s = qkv[0] @ qkv[1].transpose(0, 1, 3, 2)
            s *= np.float32(1 / math.sqrt(head_dim))
            s += bias
            s -= s.max(-1, keepdims=True)
            np.exp(s, out=s)
            s /= s.sum(-1, keepdims=True)
            c = (s @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch * seq, hidden)
            a = c @ ow
            a += ob
            a += x2
            x2 = _layer_norm(a, g1, b1)
            h = x2 @ iw
            h += ib
            _gelu(h)
            o = h @ o2w
            o += o2b
            o += x2
            x2 = _layer_norm(o, g2, b2)
        m = mask[..., None].astype(np.float32)
        e = (x2.reshape(batch, seq, hidden) * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return e / np.linalg.norm(e, axis=1, keepdims=True)

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        from osrag.embedding.runtime import length_sorted_batches, pad

        rows = [e.ids for e in self.tokenizer.encode_batch(texts)]
        out = np.zeros((len(texts), self.w["embeddings.LayerNorm.weight"].shape[0]), np.float32)
        for batch in length_sorted_batches([len(r) for r in rows], batch_size):
            out[batch] = self.forward(*pad([rows[i] for i in batch]))
        return out
