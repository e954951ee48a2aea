"""Chunking + extraction throughput of two (or more) checkouts, side by side in one run.

    python benchmarks/extract_speed.py --tree BEFORE_CHECKOUT --tree . [--rounds 6]

The documents are loaded once (by this checkout's loaders, outside every timer) from
the real corpora — opensearch-docs, the CUAD contracts, real-docs, Cranfield and the
TAT-QA reports rendered as Markdown and as HTML (``benchmarks/tatqa_corpus.py``) — and
written to a temporary JSON file. Each round then runs every checkout once, in a fresh
process with that checkout first on ``sys.path``, alternating the order from round to
round so a burst of load on the (shared) machine hits every checkout alike. A process
rebuilds the documents, then times (CPU seconds of the process) what ingest does to
them before indexing: ``chunk_document`` (structural, the defaults) and
``enrich_chunks`` (money, table cells, dates, identifiers). Each checkout keeps its best
round; the table shows the best and the median, and each checkout's ratio to the first.
Writes ``benchmarks/results/extract_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _child_runs import arguments, rounds

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
RESULTS = ROOT / "benchmarks" / "results" / "extract_speed.json"
SOURCES = (
    "opensearch-docs",
    "cuad-contracts/contracts",
    "real-docs",
    "cranfield/derived/corpus.jsonl",
)


def _documents(corpora: Path, work: Path) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tatqa_corpus import convert

    from osrag.loaders.corpus import load_corpus
    from osrag.models import Document

    roots = [corpora / source for source in SOURCES]
    dataset = corpora / "tatqa-dev" / "tatqa_dataset_dev.json"
    for form in ("markdown", "html"):
        convert(dataset, work / form, form)
        roots.append(work / form / "corpus")
    return [
        doc.model_dump(mode="json")
        for root in roots
        for doc in load_corpus(root)
        if isinstance(doc, Document)
    ]


def _child(documents: Path) -> None:
    """One timed pass over the documents, in this process; prints the result as JSON."""
    from osrag.chunking import chunk_document
    from osrag.extract import enrich_chunks
    from osrag.models import ChunkingConfig, Document, ExtractionConfig

    docs = [Document.model_validate(d) for d in json.loads(documents.read_text("utf-8"))]
    chunking, extraction = ChunkingConfig(), ExtractionConfig()
    start = time.process_time()
    chunked = [(doc, chunk_document(doc, chunking)) for doc in docs]
    middle = time.process_time()
    amounts = sum(
        len(chunk.money)
        for doc, chunks in chunked
        for chunk in enrich_chunks(doc, chunks, extraction)
    )
    end = time.process_time()
    print(
        json.dumps(
            {
                "chunk_s": middle - start,
                "extract_s": end - middle,
                "chunks": sum(len(chunks) for _, chunks in chunked),
                "amounts": amounts,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, action="append", help="a checkout (repeat)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = arguments(parser, _child)
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    with tempfile.TemporaryDirectory() as work:
        documents = Path(work) / "documents.json"
        docs = _documents(args.corpora, Path(work))
        documents.write_text(json.dumps(docs), "utf-8")
        mb = sum(len(d["text"].encode("utf-8")) for d in docs) / 1e6
        runs = rounds(__file__, [(tree, tree) for tree in trees], documents, args.rounds)
    print(f"{len(docs)} documents, {mb:.1f} MB; {args.rounds} rounds, CPU seconds\n")
    print("| checkout | chunk best | extract best | total best | total median | MB/s | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    report = []
    for tree in trees:
        totals = [r["chunk_s"] + r["extract_s"] for r in runs[tree]]
        best = min(runs[tree], key=lambda r: r["chunk_s"] + r["extract_s"])
        row = {
            "tree": str(tree),
            "chunk_s": best["chunk_s"],
            "extract_s": best["extract_s"],
            "total_best_s": min(totals),
            "total_median_s": statistics.median(totals),
            "mb_per_s": mb / min(totals),
            "chunks": best["chunks"],
            "amounts": best["amounts"],
            "rounds": runs[tree],
        }
        row["ratio"] = row["total_best_s"] / (report[0]["total_best_s"] if report else min(totals))
        report.append(row)
        print(
            f"| {tree.name} | {row['chunk_s']:.2f} | {row['extract_s']:.2f} | "
            f"{row['total_best_s']:.2f} | {row['total_median_s']:.2f} | "
            f"{row['mb_per_s']:.2f} | {row['ratio']:.3f} |"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"documents": len(docs), "mb": mb, "trees": report}, indent=1))


if __name__ == "__main__":
    main()
