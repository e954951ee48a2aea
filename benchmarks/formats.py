"""PDF, Word and HTML next to Markdown: retrieval quality, loader speed, memory.

    python benchmarks/formats.py [--backend embedded|opensearch] [--libraries] [--pages 500]

In one run:

1. **Quality per format** — ``examples/insurance`` is written as PDF, DOCX and
   HTML (``tests/support/formats_corpus.py``: reportlab, python-docx, markdown-it) and
   each version is ingested and evaluated with osrag's own evaluation
   (``run_evaluation``, the default query with the amount filter) on the same
   labelled queries: nDCG@10, quantity precision@5 (over the role-bound queries,
   whose holders were read by hand), recall@5 per format, and the difference to
   Markdown (goal: within 0.02).
2. **Loader throughput** — every file of ``shared/corpora/real-docs`` and of the
   generated corpora through its loader: files, pages (PDF), MB and seconds,
   pages/s and MB/s per format.
3. **PDF libraries** (``--libraries``) — plain text extraction of the real PDFs
   with pypdf, pdfplumber and pypdfium2, pages/s side by side (the reason for
   the choice in ``osrag/loaders/pdf.py``).
4. **Peak memory** — a fresh process loads one PDF; its peak RSS minus the peak
   RSS of the same process that only imported the loader, on the largest real
   PDF and on a generated PDF of ``--pages`` pages (pages are streamed).

Prints tables and writes ``benchmarks/results/formats-<backend>.json``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

import formats_corpus as fc
from _cluster import CORPORA, ROOT, client, cluster_url, console, print_table, write_results

from osrag.engines.base import ChunkIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.evaluation import EvalConfig, read_queries, run_evaluation
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.loaders import extract, sniff

REAL_DOCS = CORPORA / "real-docs"
QUERIES = ROOT / "examples" / "insurance" / "queries.jsonl"


def evaluate_formats(backend: ChunkIndex, folders: dict[str, Path]) -> dict[str, Any]:
    queries = read_queries(QUERIES)
    out: dict[str, Any] = {}
    for fmt, folder in folders.items():
        alias = f"osrag-formats-{uuid.uuid4().hex[:8]}"
        try:
            report = ingest(folder, backend, IngestOptions(alias=alias))
            evaluation = run_evaluation(
                queries, backend, alias=alias, configs=[EvalConfig("osrag", {})], ks=[5, 10]
            )
        finally:
            purge(backend, alias)
        metrics = evaluation.configs[0].metrics
        out[fmt] = {
            "documents": report.documents,
            "chunks": report.chunks_written,
            "errors": [str(e) for e in report.errors],
            "ndcg@10": metrics["ndcg@10"],
            "quantity_precision@5": metrics.get("quantity_precision@5"),
            "recall@5": metrics["recall@5"],
            "mrr": metrics["mrr"],
        }
    return out


def _pages(result: Any) -> int:
    return result.locations.units_total if result.locations.unit == "page" else 0


def throughput(files: list[Path]) -> dict[str, Any]:
    per: dict[str, dict[str, float]] = {}
    for path in files:
        data = path.read_bytes()
        kind = sniff(data) or "html"
        fmt = {"zip": "docx"}.get(kind, kind)
        started = time.perf_counter()
        try:
            result = extract(kind, data)
            pages = _pages(result)
        except Exception:  # the scan: no text layer; counted as a file, no pages
            pages = 0
        seconds = time.perf_counter() - started
        row = per.setdefault(fmt, {"files": 0, "pages": 0, "bytes": 0, "seconds": 0.0})
        row["files"] += 1
        row["pages"] += pages
        row["bytes"] += len(data)
        row["seconds"] += seconds
    for row in per.values():
        row["mb_per_s"] = round(row["bytes"] / 1e6 / row["seconds"], 2)
        row["pages_per_s"] = round(row["pages"] / row["seconds"], 1) if row["pages"] else 0
        row["files_per_s"] = round(row["files"] / row["seconds"], 1)
        row["seconds"] = round(row["seconds"], 3)
    return per


def pdf_libraries(files: list[Path]) -> dict[str, Any]:
    def with_pypdf(path: Path) -> int:
        import pypdf

        reader = pypdf.PdfReader(path)
        if reader.is_encrypted:
            reader.decrypt("")
        return sum(len(p.extract_text() or "") for p in reader.pages)

    def with_pdfplumber(path: Path) -> int:
        import pdfplumber

        total = 0
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                total += len(page.extract_text() or "")
                page.close()
        return total

    def with_pdfium(path: Path) -> int:
        import pypdfium2

        pdf = pypdfium2.PdfDocument(path)
        total = 0
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            total += len(textpage.get_text_range())
            textpage.close()
            page.close()
        pdf.close()
        return total

    def with_osrag(path: Path) -> int:
        try:
            return len(extract("pdf", path.read_bytes()).text)
        except Exception:
            return 0

    out: dict[str, Any] = {}
    pages = 0
    for path in files:
        import pypdfium2

        pages += len(pypdfium2.PdfDocument(path))
    for name, fn in (
        ("pypdf", with_pypdf),
        ("pdfplumber", with_pdfplumber),
        ("pypdfium2 (text only)", with_pdfium),
        ("osrag loader (pypdfium2 + structure)", with_osrag),
    ):
        started = time.perf_counter()
        try:
            chars = sum(fn(p) for p in files)
        except ImportError:
            continue
        seconds = time.perf_counter() - started
        out[name] = {
            "seconds": round(seconds, 2),
            "pages_per_s": round(pages / seconds, 1),
            "chars": chars,
        }
    return out


# VmHWM, not getrusage: ru_maxrss survives exec on Linux, so a child started from this
# (large) process would report this process's peak
_PEAK = """
import sys, time
from osrag.loaders import pdf
if sys.argv[1] != "-":
    data = open(sys.argv[1], "rb").read()
    started = time.perf_counter()
    result = pdf.load_pdf(data)
    seconds = time.perf_counter() - started
    pages = result.locations.units_total
else:
    seconds, pages = 0.0, 0
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
print(status, seconds, pages)
"""


def peak_rss(path: Path | None) -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, pages) of a fresh process loading ``path``."""
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, str(path) if path else "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return int(out[0]) / 1024, float(out[1]), int(out[2])


def memory(work: Path, pages: int) -> dict[str, Any]:
    baseline, _, _ = peak_rss(None)
    largest = max(REAL_DOCS.glob("pdf/*.pdf"), key=lambda p: p.stat().st_size)
    long_pdf = work / "long.pdf"
    policy = fc.read_policy(ROOT / "examples" / "insurance" / "umbrella-commercial-300m.md")
    fc.write_pdf(policy, long_pdf, repeat=10)  # copies flow on: measure pages per copy
    _, _, ten = peak_rss(long_pdf)
    fc.write_pdf(policy, long_pdf, repeat=max(1, -(-pages * 10 // max(ten, 1))))
    out: dict[str, Any] = {"baseline_mb": round(baseline, 1)}
    for name, path in (("largest real PDF", largest), ("generated long PDF", long_pdf)):
        peak, seconds, n = peak_rss(path)
        out[name] = {
            "file": path.name,
            "mb": round(path.stat().st_size / 1e6, 2),
            "pages": n,
            "seconds": round(seconds, 2),
            "peak_rss_mb": round(peak, 1),
            "above_baseline_mb": round(peak - baseline, 1),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["embedded", "opensearch"], default="embedded")
    parser.add_argument("--libraries", action="store_true", help="compare PDF libraries")
    parser.add_argument("--pages", type=int, default=500, help="pages of the long PDF")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        console.print("writing examples/insurance as PDF, DOCX and HTML …")
        folders = {"markdown": ROOT / "examples" / "insurance"}
        for fmt in fc.FORMATS:
            folders[fmt] = fc.write_corpus(work, fmt)
        backend: ChunkIndex
        if args.backend == "opensearch":
            from osrag.engines.opensearch.index import OpenSearchIndex

            backend = OpenSearchIndex(client(cluster_url()))
        else:
            backend = EmbeddedIndex(work / "embedded")
        quality = evaluate_formats(backend, folders)
        base = quality["markdown"]
        rows = []
        for fmt, m in quality.items():
            rows.append(
                [
                    fmt,
                    m["documents"],
                    m["chunks"],
                    m["ndcg@10"],
                    m["ndcg@10"] - base["ndcg@10"],
                    m["quantity_precision@5"],
                    m["quantity_precision@5"] - base["quantity_precision@5"],
                    m["recall@5"],
                ]
            )
        print_table(
            f"insurance per format ({args.backend}, {len(read_queries(QUERIES))} queries)",
            ["format", "docs", "chunks", "nDCG@10", "Δ md", "quantity P@5", "Δ md", "recall@5"],
            rows,
        )

        files = sorted(p for p in REAL_DOCS.rglob("*") if p.suffix in (".pdf", ".docx", ".html"))
        real = throughput(files)
        generated = throughput(
            sorted(p for fmt in fc.FORMATS for p in folders[fmt].glob(f"*.{fmt}"))
        )
        rows = [
            [
                f"{fmt} ({where})",
                r["files"],
                r["pages"],
                r["bytes"] / 1e6,
                r["seconds"],
                r["files_per_s"],
                r["pages_per_s"],
                r["mb_per_s"],
            ]
            for where, per in (("real-docs", real), ("generated", generated))
            for fmt, r in sorted(per.items())
        ]
        print_table(
            "loader throughput",
            ["format", "files", "pages", "MB", "seconds", "files/s", "pages/s", "MB/s"],
            rows,
        )
        libraries: dict[str, Any] = {}
        if args.libraries:
            libraries = pdf_libraries(sorted(REAL_DOCS.glob("pdf/*.pdf")))
            print_table(
                "PDF libraries on the 7 real PDFs (text extraction)",
                ["library", "seconds", "pages/s", "characters"],
                [[k, v["seconds"], v["pages_per_s"], v["chars"]] for k, v in libraries.items()],
            )
        mem = memory(work, args.pages)
        print_table(
            "peak RSS loading one PDF (fresh process)",
            ["file", "MB", "pages", "seconds", "peak RSS MB", "above import-only MB"],
            [
                [
                    v["file"],
                    v["mb"],
                    v["pages"],
                    v["seconds"],
                    v["peak_rss_mb"],
                    v["above_baseline_mb"],
                ]
                for k, v in mem.items()
                if k != "baseline_mb"
            ],
        )
    path = write_results(
        f"formats-{args.backend}",
        {
            "backend": args.backend,
            "quality": quality,
            "throughput": {"real-docs": real, "generated": generated},
            "pdf_libraries": libraries,
            "memory": mem,
        },
    )
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()
