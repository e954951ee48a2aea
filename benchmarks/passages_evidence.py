"""Evidence recall at a token budget on TAT-QA dev: plain hits against each expansion.

    python benchmarks/passages_evidence.py [--budgets 512,1024] [--k 3] [--url URL]

Converts TAT-QA dev (``tatqa_corpus.py``: the corpus, and the span answers with where the
document writes them) into ``benchmarks/results/tatqa`` unless it is there, then for each
chunking — osrag's default (structural, 400 tokens), structural at 100 tokens, and fixed
windows of 100 tokens overlapping by 25 — ingests the corpus into a temporary alias (the
embedded index, or the cluster at ``--url``) and measures evidence recall
(:mod:`osrag.evaluation.evidence_runner`): the share of questions whose every answer part
the reader was shown within the budget, ``plain`` (as many hits as fit, of 50), ``plain-k``
(the first ``k`` hits) and each context from the same ``k`` hits. All questions, and the
answers written in the text and in the table apart. Prints tables, writes
``benchmarks/results/passages_evidence.json``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import RESULTS, print_table, write_results

from osrag.evaluation.evidence_runner import EvidenceReport, run_evidence
from osrag.evaluation.inputs import load_query_set
from osrag.evaluation.spans import read_span_qrels
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import ChunkingConfig
from osrag.search.searcher import Searcher

CHUNKINGS = {
    "structural 400 (default)": ChunkingConfig(),
    "structural 100": ChunkingConfig(strategy="structural", max_tokens=100),
    "fixed 100/25": ChunkingConfig(strategy="fixed", size=100, overlap=25),
}
KINDS = ("neighbours", "section", "table")


def _converted(folder: Path) -> Path:
    if not (folder / "evidence_spans.jsonl").is_file():
        import tatqa_corpus

        tatqa_corpus.convert(tatqa_corpus.DATASET, folder)
    return folder


def _engine(url: str | None, home: Path) -> Any:
    if url is None:
        from osrag.engines.embedded.index import EmbeddedIndex

        return EmbeddedIndex(home / "embedded")
    from osrag.config import load_settings
    from osrag.engines import open_index

    return open_index(load_settings(url=url))


def _measure(
    folder: Path, engine: Any, chunking: ChunkingConfig, budgets: list[int], k: int
) -> tuple[EvidenceReport, int, float]:
    alias = f"osrag-bench-evidence-{uuid.uuid4().hex[:8]}"
    try:
        ingest(folder / "corpus", engine, IngestOptions(alias=alias, chunking=chunking))
        chunks = engine.count(alias)
        queries = load_query_set(folder / "evidence_queries.jsonl")
        spans = read_span_qrels(folder / "evidence_spans.jsonl")
        started = time.perf_counter()
        searcher = Searcher(engine, alias, enforce_access=False)
        found = run_evidence(queries.queries, searcher, spans, kinds=KINDS, budgets=budgets, k=k)
        return found, chunks, time.perf_counter() - started
    finally:
        purge(engine, alias)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tatqa", type=Path, default=RESULTS / "tatqa")
    parser.add_argument("--budgets", default="512,1024")
    parser.add_argument("--k", type=int, default=3, help="hits the expansions start from")
    parser.add_argument("--url", help="a cluster instead of the embedded index")
    args = parser.parse_args(argv)
    budgets = sorted({int(b) for b in args.budgets.split(",")})
    folder = _converted(args.tatqa)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as home:
        engine = _engine(args.url, Path(home))
        for name, chunking in CHUNKINGS.items():
            report, chunks, seconds = _measure(folder, engine, chunking, budgets, args.k)
            results[name] = {
                "chunking": chunking.model_dump(mode="json"),
                "chunks": chunks,
                "seconds": round(seconds, 1),
                **report.model_dump(mode="json", exclude={"per_query"}),
            }
            _print(name, report, chunks, budgets)
    path = write_results(
        "passages_evidence",
        {"engine": args.url or "embedded", "k": args.k, "budgets": budgets, "results": results},
    )
    print(f"→ {path}")
    return 0


def _print(name: str, report: EvidenceReport, chunks: int, budgets: list[int]) -> None:
    groups = [("all", report.recall), *report.subsets.items()]
    columns = ["shown", *(f"{g} @{b}" for g, _ in groups for b in budgets)]
    rows = [
        [kind, *(recall.get(kind, {}).get(b, 0.0) for _, recall in groups for b in budgets)]
        for kind in report.kinds
    ]
    title = (
        f"evidence recall — {name}: {chunks:,} chunks, {report.queries} questions "
        f"(plain of {report.plain_k} hits, the rest from {report.k}; {report.tokenizer})"
    )
    print_table(title, columns, rows)
    tokens = [
        [kind, *(report.tokens.get(kind, {}).get(b, 0.0) for b in budgets)] for kind in report.kinds
    ]
    print_table(f"mean tokens shown — {name}", ["shown", *(f"@{b}" for b in budgets)], tokens)


if __name__ == "__main__":
    sys.exit(main())
