"""Where the ONNX encoder runs (provider choice, pure) and its int8 form (the real model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from osrag.embedding import get_embedder
from osrag.embedding.accel import (
    CPU,
    CUDA,
    choose_providers,
    requested_device,
    session_providers,
)
from osrag.embedding.graph_store import model_cache_dir
from osrag.errors import ConfigError

TEXTS = [
    "The umbrella liability limit is $300,000 per occurrence.",
    "Umbrella coverage pays up to three hundred thousand dollars for each claim.",
    "Flood damage to the basement is excluded unless the flood rider is bought.",
    "The term life policy pays the death benefit to the named beneficiary.",
    "",
]


def test_cuda_is_chosen_exactly_when_onnxruntime_offers_it() -> None:
    assert choose_providers([CPU]) == [CPU]
    assert choose_providers(["TensorrtExecutionProvider", CUDA, CPU]) == [CUDA, CPU]
    assert choose_providers([CUDA, CPU], "cpu") == [CPU]
    assert choose_providers([CUDA, CPU], "cuda") == [CUDA, CPU]
    with pytest.raises(ConfigError, match=r"offers only CPUExecutionProvider.*onnxruntime-gpu"):
        choose_providers([CPU], "cuda")


def test_the_device_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OSRAG_EMBEDDER_DEVICE", raising=False)
    assert requested_device() == "auto"
    monkeypatch.setenv("OSRAG_EMBEDDER_DEVICE", "GPU")
    assert requested_device() == "cuda"
    assert requested_device("cpu") == "cpu"
    monkeypatch.setenv("OSRAG_EMBEDDER_DEVICE", "tpu")
    with pytest.raises(ConfigError, match="auto, cpu or cuda"):
        requested_device()


def test_the_providers_here_match_what_onnxruntime_has(monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime as ort

    monkeypatch.delenv("OSRAG_EMBEDDER_DEVICE", raising=False)
    has_cuda = CUDA in ort.get_available_providers()
    assert session_providers() == ([CUDA, CPU] if has_cuda else [CPU])
    assert session_providers("cpu") == [CPU]


def test_int8_is_its_own_model_close_to_fp32_and_quantized_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("OSRAG_MODEL_CACHE_DIR", str(tmp_path / "models"))
    fp32 = get_embedder("default")
    int8 = get_embedder("default-int8")
    assert int8.id.startswith("all-MiniLM-L6-v2-int8@") and int8.id != fp32.id
    assert int8.dimension == fp32.dimension == 384
    a, b = fp32.embed(TEXTS), int8.embed(TEXTS)
    assert b.dtype == np.float32 and np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    cosine = (a * b).sum(axis=1)
    assert cosine.min() > 0.95 and not np.allclose(a, b, atol=1e-4)
    # the paraphrase pair is still closer than the unrelated texts
    assert float(b[0] @ b[1]) > max(float(b[0] @ b[2]), float(b[0] @ b[3]))
    stored = list(model_cache_dir().glob("*-int8-*.onnx"))
    assert len(stored) == 1 and stored[0].stat().st_size < 30 * 2**20
    again = get_embedder("minilm-int8")
    stamp = stored[0].stat().st_mtime_ns
    np.testing.assert_allclose(again.embed(TEXTS), b, atol=1e-6)
    assert stored[0].stat().st_mtime_ns == stamp  # read back, not quantized again
