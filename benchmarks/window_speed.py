"""Structural chunking speed with and without the embedder's window, on opensearch-docs.

    python benchmarks/window_speed.py [--corpus PATH] [--rounds 2]

Three configurations cut the same loaded documents (loading is outside the timer),
interleaved, best of ``--rounds`` CPU times (process time, one core):

- **no embedder** — ``max_tokens`` 400 whitespace tokens (``whitespace`` tokenizer);
- **truncate** — the same chunks, each embedded text also counted in the default
  embedder's tokenizer (``osrag ingest --truncate``);
- **fit** — chunks counted and bounded in the embedder's tokens (the default with an
  embedder).

MB are UTF-8 megabytes of the documents' text. Writes
``benchmarks/results/window_speed.json``. Run it with ``PYTHONPATH`` pointing at
another checkout to time that one's ``no embedder`` (the other two need this one).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from _paths import CORPORA, ROOT

CORPUS = CORPORA / "opensearch-docs"
RESULTS = ROOT / "benchmarks" / "results" / "window_speed.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only-plain", action="store_true", help="time 'no embedder' only")
    args = parser.parse_args()

    from osrag.chunking import chunk_document
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ChunkingConfig, Document

    docs = [d for d in load_corpus(args.corpus) if isinstance(d, Document)]
    megabytes = sum(len(d.text.encode()) for d in docs) / 1e6
    configs: dict[str, Any] = {"no embedder": ChunkingConfig()}
    if not args.only_plain:
        from osrag.chunking import embed_window, fit_config
        from osrag.embedding import default_embedder

        embedder = default_embedder()
        for label, fit in (("truncate", False), ("fit", True)):
            configs[label] = fit_config(ChunkingConfig(), embed_window(embedder, fit=fit))
    best: dict[str, float] = {}
    chunks: dict[str, int] = {}
    for _ in range(args.rounds):
        for label, config in configs.items():
            started = time.process_time()
            chunks[label] = sum(len(chunk_document(d, config)) for d in docs)
            seconds = time.process_time() - started
            best[label] = min(best.get(label, seconds), seconds)
    rows = [
        {
            "config": label,
            "chunks": chunks[label],
            "cpu_seconds": round(best[label], 2),
            "mb_per_s": round(megabytes / best[label], 2),
        }
        for label in configs
    ]
    print(f"{args.corpus.name}: {len(docs)} documents, {megabytes:.1f} MB")
    print("| configuration | chunks | CPU s | MB/s |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['config']} | {r['chunks']:,} | {r['cpu_seconds']} | {r['mb_per_s']} |")
    if not args.only_plain:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"megabytes": megabytes, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
