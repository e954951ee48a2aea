"""Whole-corpus checks: what the tests check on their slices, over every file of ``../shared``.

    python benchmarks/corpus_checks.py [--only golden,headings,...]
    python benchmarks/corpus_checks.py --write before.json        # keep the golden digests
    python benchmarks/corpus_checks.py --baseline before.json     # compare with kept ones

The tests read slices of the real corpora (``tests/data/corpora``: a few files each, so a
clone runs every test); these checks run the same oracles over the whole corpora in
``../shared/corpora`` (``OSRAG_SHARED`` names another folder) and count the failures:

* **golden** — the chunk digests of every case of ``tests/support/golden_chunks.py`` over the
  whole selection they were made from (every 8th opensearch-docs file, every 3rd
  cuad-contracts text, every real document, the TAT-QA contexts, the synthetic policies).
  The files the slices kept must have the digests of ``tests/golden/chunks.json``; with
  ``--baseline FILE`` (the same format) every file must have the baseline's. Before the
  slices the fixture held the whole selection: ``git show 5a80b03:tests/golden/chunks.json``
  is a baseline of every digest as it was then (a later commit that changes chunks on
  purpose changes some); ``--write FILE`` takes one from any checkout, to compare a
  change against.
* **headings** — the heading scanner against markdown-it (the oracle of
  ``tests/chunking/test_chunking_markdown.py``) on every opensearch-docs file.
* **spans** — the span invariant of ``tests/chunking/test_chunking_records.py`` on every chunk of
  opensearch-docs, cuad-contracts and Cranfield, with each chunking strategy.
* **coverage** — every content line inside a chunk (``tests/chunking/test_chunking_structural.py``)
  for every opensearch-docs file and contract.
* **scans** — the fast month-first date scan and the money pre-check against the full
  scans (``tests/extract/test_dates.py``) on every text of the three corpora.
* **cuad** — the CUAD manifest's regex counts against osrag's amounts with figures
  (within 10 %, ``tests/extract/test_extract_cuad.py``) over all 45 contracts, and no amount
  inside a redaction.
* **analyst** — the TAT-QA analyst questions of all 278 contexts re-derived from the raw
  cells (``tests/support/analyst_oracle.py``, as ``tests/evaluation/test_tatqa_analyst.py``
  does on the slice):
  every holder's cells meet its question, every raw row that meets one is a holder or has
  a recorded reason.

Elsewhere: TAT-QA money extraction over all 278 contexts is
``benchmarks/tatqa_extraction.py``; the embedded engine against OpenSearch on all of
Cranfield (1,400 abstracts, 225 queries) is ``benchmarks/parity.py``.

Prints a table, writes ``benchmarks/results/corpus_checks.json``; exits 1 when a check
fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _paths import CORPORA, ROOT

sys.path.insert(0, str(ROOT / "tests" / "support"))

RESULTS = ROOT / "benchmarks" / "results" / "corpus_checks.json"
Check = Callable[[argparse.Namespace], tuple[int, list[str]]]
"""A check: (items checked, one line per failure)."""


def _documents(path: Path) -> list[Any]:
    from osrag.loaders.corpus import load_corpus

    return list(load_corpus(path))


def golden(args: argparse.Namespace) -> tuple[int, list[str]]:
    from golden_chunks import CASES, FIXTURE, case_digests

    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline else None
    whole = {case: case_digests(CORPORA, case) for case in CASES}
    failures = []
    for case, digests in whole.items():
        for name, expected in fixture.get(case, {}).items():
            if digests.get(name) != expected:
                failures.append(f"{case} {name}: not the digest of tests/golden/chunks.json")
        if baseline is None:
            continue
        kept = baseline.get(case, {})
        if sorted(kept) != sorted(digests):
            failures.append(f"{case}: the files differ from the baseline's")
        failures += [
            f"{case} {name}: not the baseline's digest"
            for name in sorted(set(kept) & set(digests))
            if kept[name] != digests[name]
        ]
    if args.write:
        args.write.write_text(json.dumps(whole, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return sum(len(d) for d in whole.values()), failures


def headings(args: argparse.Namespace) -> tuple[int, list[str]]:
    from test_chunking_markdown import reference_headings, scanned_headings

    from osrag.models import Document

    root = CORPORA / "opensearch-docs"
    docs = [d for d in _documents(root) if isinstance(d, Document) and d.format == "markdown"]
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    failures = [f"{f}: not loaded" for f in sorted(set(files) - {d.source_path for d in docs})]
    for doc in docs:
        content = doc.text[doc.content_start :]
        if scanned_headings(doc.text, doc.content_start) != reference_headings(content):
            failures.append(f"{doc.source_path}: headings differ from markdown-it")
    return len(files), failures


def _span_failures(doc: Any, chunks: list[Any], limit: int) -> list[str]:
    """The span invariant (``tests/chunking/test_chunking_records.py``), a line per broken rule."""
    from osrag.chunking import is_empty, normalize
    from osrag.models import BREADCRUMB_SEPARATOR

    where = doc.source_path
    failures = [] if bool(chunks) != is_empty(doc) else [f"{where}: chunks ≠ not empty"]
    previous = -1
    for index, chunk in enumerate(chunks):
        at = f"{where} chunk {index}"
        start, end = chunk.span.start, chunk.span.end
        checks = {
            "index": chunk.chunk_index == index,
            "span inside the content": doc.content_start <= start < end <= len(doc.text),
            "body is the normalised span": chunk.body == normalize(doc.text[start:end]),
            "text is breadcrumb + body": chunk.text
            == (chunk.breadcrumb + "\n" + chunk.body if chunk.breadcrumb else chunk.body),
            "breadcrumb starts with the title": not doc.title
            or chunk.breadcrumb.split(BREADCRUMB_SEPARATOR)[0] == doc.title,
            "runs forward": start > previous,
            "token count": 0 < chunk.token_span.end - chunk.token_span.start <= limit,
        }
        failures += [f"{at}: {rule}" for rule, held in checks.items() if not held]
        previous = start
    return failures


def spans(args: argparse.Namespace) -> tuple[int, list[str]]:
    from osrag.chunking import chunk_document
    from osrag.models import ChunkingConfig

    roots = {
        "opensearch-docs": CORPORA / "opensearch-docs",
        "cuad-contracts": CORPORA / "cuad-contracts" / "contracts",
        "cranfield": CORPORA / "cranfield" / "derived" / "corpus.jsonl",
    }
    checked, failures = 0, []
    for name, root in roots.items():
        docs = _documents(root)
        for strategy in ("structural", "fixed", "sentences"):
            config = ChunkingConfig(strategy=strategy, size=64, overlap=16, max_tokens=64)
            for doc in docs:
                chunks = chunk_document(doc, config)
                checked += len(chunks)
                failures += [f"{strategy} {name}/{f}" for f in _span_failures(doc, chunks, 64)]
    return checked, failures


def coverage(args: argparse.Namespace) -> tuple[int, list[str]]:
    from test_chunking_structural import assert_structural_covers_the_document

    from osrag.chunking import chunk_document
    from osrag.models import ChunkingConfig

    checked, failures = 0, []
    for root in (CORPORA / "opensearch-docs", CORPORA / "cuad-contracts" / "contracts"):
        for doc in _documents(root):
            checked += 1
            try:
                assert_structural_covers_the_document(doc, chunk_document(doc, ChunkingConfig()))
            except AssertionError as error:
                failures.append(f"{doc.source_path}: {str(error)[:120]}")
    return checked, failures


def scans(args: argparse.Namespace) -> tuple[int, list[str]]:
    import osrag.extract.money as money
    from osrag.extract.dates import _MONTH_FIRST, _month_first
    from osrag.models import Document

    sources = ("opensearch-docs", "cuad-contracts/contracts", "cranfield/derived/corpus.jsonl")
    docs = [d for s in sources for d in _documents(CORPORA / s) if isinstance(d, Document)]
    failures, skipped = [], 0
    for doc in docs:
        fast = [m.span() for m in _month_first(doc.text, 0)]
        if fast != [m.span() for m in _MONTH_FIRST.finditer(doc.text)]:
            failures.append(f"{doc.source_path}: the month-first scan differs")
        if not money.may_state_money(doc.text):
            skipped += 1
            full = money.full_scan(doc.text)
            if full.mentions or full.rejected:
                failures.append(f"{doc.source_path}: skipped by the pre-check, states money")
    if skipped <= len(docs) / 2:
        failures.append(f"the money pre-check skips only {skipped} of {len(docs)} texts")
    return len(docs), failures


def cuad(args: argparse.Namespace) -> tuple[int, list[str]]:
    from test_extract_cuad import FIGURE_CATEGORIES, HAS_FIGURES, REDACTION

    from osrag.extract.enrich import extract_values
    from osrag.models import ExtractionConfig

    root = CORPORA / "cuad-contracts"
    rows = [json.loads(line) for line in (root / "manifest.jsonl").read_text().splitlines()]
    ours = theirs = 0
    failures = []
    for row in rows:
        text = (root / row["file"]).read_text(encoding="utf-8")
        money = extract_values(text, ExtractionConfig()).money
        ours += sum(
            1
            for m in money
            if (m.form != "spelled" or "(" in m.raw) and HAS_FIGURES.search(m.raw) is not None
        )
        theirs += sum(int(row[name]) for name in FIGURE_CATEGORIES)
        for redaction in REDACTION.finditer(text):
            if any(m.start < redaction.end() and redaction.start() < m.end for m in money):
                failures.append(f"{row['file']}: an amount inside {redaction.group()!r}")
    if abs(ours - theirs) > 0.1 * theirs:
        failures.append(f"amounts with figures: osrag {ours}, manifest {theirs} (over 10 % apart)")
    return len(rows), failures


def analyst(args: argparse.Namespace) -> tuple[int, list[str]]:
    import tempfile

    import analyst_oracle
    import tatqa_analyst

    dataset = CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json"
    with tempfile.TemporaryDirectory() as tmp:
        tatqa_analyst.generate(dataset, Path(tmp))
        held, unsound = analyst_oracle.unsound_holders(dataset, Path(tmp))
        pairs, unexplained = analyst_oracle.unexplained_rows(dataset, Path(tmp))
    return held + pairs, unsound + unexplained


CHECKS: dict[str, Check] = {
    "golden": golden,
    "headings": headings,
    "spans": spans,
    "coverage": coverage,
    "scans": scans,
    "cuad": cuad,
    "analyst": analyst,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(CHECKS), help="checks, comma-separated")
    parser.add_argument("--baseline", type=Path, help="golden digests to compare with")
    parser.add_argument("--write", type=Path, help="write the golden digests here")
    args = parser.parse_args(argv)
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA} (set OSRAG_SHARED to the folder holding corpora/)")
        return 2
    results: dict[str, dict[str, Any]] = {}
    print(f"{'check':<10}{'items':>9}{'failures':>10}{'seconds':>9}")
    for name in args.only.split(","):
        started = time.perf_counter()
        items, failures = CHECKS[name](args)
        seconds = time.perf_counter() - started
        results[name] = {"items": items, "failures": failures, "seconds": round(seconds, 1)}
        print(f"{name:<10}{items:>9}{len(failures):>10}{seconds:>9.1f}")
        for failure in failures[:10]:
            print(f"    {failure}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"corpora": str(CORPORA), **results}, indent=1) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 1 if any(r["failures"] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
