"""Where an ONNX encoder runs (CUDA when there is one) and its int8 form.

Execution providers: :func:`choose_providers` is pure — given what
``onnxruntime.get_available_providers()`` reports and the device asked for,
it returns the provider list for the session. With ``device="auto"`` (the
default, or ``OSRAG_EMBEDDER_DEVICE`` unset) CUDA is used exactly when the
installed onnxruntime has the CUDA execution provider (the ``onnxruntime-gpu``
wheel) and the CPU provider follows it as the fallback ONNX Runtime uses for
any operator CUDA lacks. ``cpu`` never touches a GPU; ``cuda`` insists and is
an error naming what is installed when the provider is missing. The vectors
agree across providers to floating-point rounding (cosine ≥ 0.999), so the
embedder's id does not depend on the device.

Quantization: :func:`quantize_int8` turns an fp32 graph into ONNX Runtime's
dynamic int8 form (weights stored as int8 per output channel, activations
quantized per batch at run time). It is about 4× smaller and about 1.7× as
fast per CPU-second here (on 2,000 contract chunks), and its vectors differ
from fp32 ones (cosine ≈ 0.994 on average), so a quantized embedder has its
own id. Quantizing
takes about 10 s; the local embedder keeps the result with its other graphs
(:mod:`osrag.embedding.graph_store`), keyed by the int8 embedder's version, so it
is done once.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from osrag.errors import ConfigError, EmbeddingError

Device = Literal["auto", "cpu", "cuda"]
DEVICE_VARIABLE = "OSRAG_EMBEDDER_DEVICE"
CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"


def requested_device(value: str | None = None) -> Device:
    """``value``, else ``$OSRAG_EMBEDDER_DEVICE``, else ``auto``; checked."""
    raw = (value if value is not None else os.environ.get(DEVICE_VARIABLE, "")).strip().lower()
    if raw in ("", "auto"):
        return "auto"
    if raw == "cpu":
        return "cpu"
    if raw in ("cuda", "gpu"):
        return "cuda"
    raise ConfigError(f"{DEVICE_VARIABLE}={raw!r}: the embedder's device is auto, cpu or cuda")


def choose_providers(available: Sequence[str], device: Device = "auto") -> list[str]:
    """The execution providers for a session, best first (see the module docstring)."""
    has_cuda = CUDA in available
    if device == "cuda" and not has_cuda:
        raise ConfigError(
            f"the embedder was asked to run on CUDA but onnxruntime offers only "
            f"{', '.join(available) or 'no providers'} (install onnxruntime-gpu)"
        )
    if device != "cpu" and has_cuda:
        return [CUDA, CPU]
    return [CPU]


def session_providers(device: str | None = None) -> list[str]:
    """:func:`choose_providers` for the onnxruntime installed here."""
    import onnxruntime as ort

    return choose_providers(ort.get_available_providers(), requested_device(device))


def quantize_int8(model: bytes, model_name: str) -> bytes:
    """The dynamic int8 form of an fp32 ONNX graph (per-channel int8 weights)."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ConfigError(
            f"embedder {model_name}: int8 quantization needs onnx and onnxruntime: "
            "pip install 'osrag[embed]'"
        ) from exc
    with tempfile.TemporaryDirectory(prefix="osrag-int8-") as tmp:
        target = Path(tmp) / "model.int8.onnx"
        # the quantizer logs advice about pre-processing on the root logger; it is not news
        logging.disable(logging.WARNING)
        try:
            quantize_dynamic(
                onnx.load_from_string(model),
                target,
                weight_type=QuantType.QInt8,
                per_channel=True,  # per-tensor scales cost 0.05 cosine on MiniLM, this 0.006
            )
        except Exception as exc:  # the quantizer raises whatever its passes raise
            raise EmbeddingError(
                f"embedder {model_name}: int8 quantization failed ({exc})"
            ) from exc
        finally:
            logging.disable(logging.NOTSET)
        return target.read_bytes()
