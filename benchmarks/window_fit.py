"""How many chunks are longer than the default embedder's window, before and after fitting.

    python benchmarks/window_fit.py [CORPUS ...]

For each corpus (default: examples/insurance, cuad-contracts, opensearch-docs), the
structural chunks of the default configuration are cut twice:

- **before** — the size bound is ``max_tokens`` whitespace tokens (what an ingest
  with an embedder did until chunks were fitted; ``osrag ingest --truncate``);
- **after** — the bound is the embedder's window in its own tokens, breadcrumb line
  and ``[CLS]``/``[SEP]`` included (the default with an embedder).

Each chunk's embedded text (what :func:`osrag.chunking.embed_text` gives, the text the
ingest sends to the embedder) is counted by the model's own ``tokenizer.json``,
loaded here straight through HF ``tokenizers`` with special tokens added and no
truncation — not by the chunker's counting. Prints a table (chunks, longer than the
window, median, p90, largest, chunking seconds) and writes
``benchmarks/results/window_fit.json``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPORA_DIR = Path("/work/shared/corpora")
CORPORA = (
    ROOT / "examples" / "insurance",
    CORPORA_DIR / "cuad-contracts",
    CORPORA_DIR / "opensearch-docs",
)
RESULTS = ROOT / "benchmarks" / "results" / "window_fit.json"


def _stats(lengths: list[int], window: int) -> dict[str, Any]:
    ordered = sorted(lengths)
    over = sum(1 for n in ordered if n > window)
    return {
        "chunks": len(ordered),
        "longer": over,
        "longer_pct": round(100 * over / max(1, len(ordered)), 1),
        "median": int(statistics.median(ordered)) if ordered else 0,
        "p90": ordered[int(0.9 * (len(ordered) - 1))] if ordered else 0,
        "largest": ordered[-1] if ordered else 0,
        "tokens_lost": sum(n - window for n in ordered if n > window),
    }


def measure(corpus: Path) -> dict[str, Any]:
    from tokenizers import Tokenizer

    from osrag.chunking import chunk_document, embed_text, embed_window, fit_config
    from osrag.embedding import default_embedder
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ChunkingConfig, Document

    embedder = default_embedder()
    own = Tokenizer.from_file(str(embedder.tokenizer_path))
    own.no_truncation()
    own.no_padding()
    docs = [d for d in load_corpus(corpus) if isinstance(d, Document)]
    row: dict[str, Any] = {"corpus": corpus.name, "documents": len(docs)}
    for label, fit in (("before", False), ("after", True)):
        window = embed_window(embedder, fit=fit)
        assert window is not None
        config = fit_config(ChunkingConfig(), window)
        started = time.process_time()
        chunks = [c for d in docs for c in chunk_document(d, config)]
        seconds = time.process_time() - started
        texts = [embed_text(c, window) for c in chunks]
        lengths = [len(e.ids) for e in own.encode_batch(texts, add_special_tokens=True)]
        mismatched = sum(1 for c, n in zip(chunks, lengths, strict=True) if c.embedder_tokens != n)
        row[label] = {
            **_stats(lengths, window.tokens),
            "tokenizer": config.tokenizer,
            "window": window.tokens,
            "cpu_seconds": round(seconds, 2),
            "counted_differently": mismatched,
        }
    return row


def main(argv: list[str]) -> None:
    corpora = [Path(a) for a in argv] or list(CORPORA)
    rows = [measure(c) for c in corpora]
    print("| corpus | bound | chunks | longer than the window | median | p90 | largest | CPU s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        for label, bound in (("before", "400 whitespace"), ("after", "window, WordPiece")):
            r = row[label]
            print(
                f"| {row['corpus']} | {bound} | {r['chunks']:,} | {r['longer']:,} "
                f"({r['longer_pct']} %) | {r['median']} | {r['p90']} | {r['largest']:,} "
                f"| {r['cpu_seconds']} |"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"\nwrote {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
