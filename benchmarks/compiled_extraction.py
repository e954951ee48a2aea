"""The extraction compiled by mypyc beside the same code run by the interpreter, in one run.

    python benchmarks/compiled_extraction.py [--rounds 3] [--synthetic-chunks 5000]
                                             [--keep-build DIR]

**The build.** This checkout's ``osrag/`` and ``mappings/`` are copied to a temporary
folder (or ``--keep-build DIR``, kept for ``benchmarks/facts_cost.py --after DIR``), and the
pure modules of :data:`COMPILED` — the facts' readers, the table reader, the money scanner's
patterns and values, scale captions, the vocabulary (``osrag/lexicon`` but the profiles'
loader) and the currency table — are compiled there by mypyc (``python -m mypyc``, gcc);
each extension lands beside its ``.py`` in the copy, never in the source tree. The
modules left out hold pydantic models (mypyc's C for ``lexicon/profiles.py`` does not
compile: it names a module ``pydantic.main`` it never declares) or are not on the
extraction's path.

**The run.** The documents — the shared corpora as ``benchmarks/extract_speed.py`` loads
them (opensearch-docs, the CUAD contracts, real-docs, Cranfield, TAT-QA as Markdown and
HTML) and the synthetic policies of ``benchmarks/synthetic_corpus.py`` (seed 7, the corpus
of ``benchmarks/facts_cost.py``) — are loaded once. Each round runs each build in a fresh
process, the order turning every round: the documents chunked (``chunk_document``), then
enriched as an ingest does (``enrich_chunks``) and once more with the facts' extraction
(``amount_facts``) replaced by nothing; CPU seconds of the process. What the facts'
extraction costs is the difference. Each build keeps its best round; the ratios are
interpreted over compiled.

**The output.** Each process also takes the SHA-256 of every chunk's stored source
(:func:`osrag.chunking.records.chunk_source`: ids, text, amounts, money, evidence, dates,
identifiers and every fact's stored shape), outside the timers; the two builds' digests
must be equal.

Writes ``benchmarks/results/compiled_extraction.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _child_runs import arguments, rounds

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "compiled_extraction.json"
COMPILED = (
    "osrag/extract/facts",
    "osrag/extract/tables.py",
    "osrag/extract/table_model.py",
    "osrag/extract/scale.py",
    "osrag/extract/declared.py",
    "osrag/extract/marks.py",
    "osrag/extract/money/candidates.py",
    "osrag/extract/money/patterns.py",
    "osrag/extract/money/values.py",
    "osrag/currencies.py",
    *(
        f"osrag/lexicon/{p.name}"
        for p in sorted((ROOT / "osrag" / "lexicon").glob("*.py"))
        if p.name != "profiles.py"
    ),
)
"""What mypyc compiles, relative to the copy (a folder: every module in it)."""


def build(dest: Path) -> dict[str, Any]:
    """This checkout's ``osrag/`` and ``mappings/`` copied into ``dest``, :data:`COMPILED`
    compiled there."""
    shutil.copytree(ROOT / "osrag", dest / "osrag", ignore=shutil.ignore_patterns("*.so"))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", "--config-file", str(ROOT / "pyproject.toml"), *COMPILED],
        cwd=dest,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"mypyc failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    shutil.rmtree(dest / "build")
    shutil.copytree(ROOT / "mappings", dest / "mappings")  # an ingest's index bodies
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "extensions": len(list((dest / "osrag").rglob("*.so"))),
    }


def _documents(work: Path, synthetic_chunks: int) -> dict[str, list[dict[str, Any]]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import extract_speed
    import synthetic_corpus

    from osrag.loaders.corpus import load_corpus
    from osrag.models import Document

    synthetic = work / "synthetic"
    synthetic_corpus.write_corpus(synthetic, synthetic_chunks, seed=7)
    return {
        "shared corpora": extract_speed._documents(extract_speed.CORPORA, work),
        "synthetic policies": [
            doc.model_dump(mode="json")
            for doc in load_corpus(synthetic)
            if isinstance(doc, Document)
        ],
    }


def _child(documents: Path) -> None:
    """One timed pass over each set of documents, in this process; prints JSON."""
    import orjson

    import osrag.extract.enrich as enrich
    import osrag.extract.facts.build
    from osrag.chunking import chunk_document
    from osrag.chunking.records import chunk_source
    from osrag.extract import enrich_chunks
    from osrag.models import ChunkingConfig, Document, ExtractionConfig

    compiled = osrag.extract.facts.build.__file__.endswith(".so")
    chunking, extraction = ChunkingConfig(), ExtractionConfig()
    amount_facts = enrich.amount_facts
    out: dict[str, Any] = {}
    for name, raw in json.loads(documents.read_text("utf-8")).items():
        docs = [Document.model_validate(d) for d in raw]
        start = time.process_time()
        chunked = [(doc, chunk_document(doc, chunking)) for doc in docs]
        chunk_s = time.process_time() - start
        start = time.process_time()
        enriched = [enrich_chunks(doc, chunks, extraction) for doc, chunks in chunked]
        extract_s = time.process_time() - start
        enrich.amount_facts = lambda *args, **kwargs: []
        start = time.process_time()
        for doc, chunks in chunked:
            enrich_chunks(doc, chunks, extraction)
        without_s = time.process_time() - start
        enrich.amount_facts = amount_facts
        digest = hashlib.sha256()
        for chunks in enriched:
            for chunk in chunks:
                digest.update(orjson.dumps(chunk_source(chunk), option=orjson.OPT_SORT_KEYS))
        out[name] = {
            "chunk_s": chunk_s,
            "extract_s": extract_s,
            "extract_without_facts_s": without_s,
            "facts_s": extract_s - without_s,
            "chunks": sum(len(chunks) for chunks in enriched),
            "facts": sum(len(chunk.facts) for chunks in enriched for chunk in chunks),
            "digest": digest.hexdigest(),
        }
    print(json.dumps({"compiled": bool(compiled), "sets": out}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--synthetic-chunks", type=int, default=5_000)
    parser.add_argument("--keep-build", type=Path, default=None, help="build here and keep it")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = arguments(parser, _child)
    with tempfile.TemporaryDirectory(prefix="osrag-mypyc-") as tmp:
        work = Path(tmp)
        compiled = args.keep_build.resolve() if args.keep_build else work / "compiled"
        compiled.mkdir(parents=True, exist_ok=True)
        built = build(compiled)
        print(f"built {built['extensions']} extensions in {built['seconds']} s")
        documents = work / "documents.json"
        documents.write_text(json.dumps(_documents(work, args.synthetic_chunks)), "utf-8")
        trees = [("interpreted", ROOT), ("compiled", compiled)]
        runs = rounds(__file__, trees, documents, args.rounds, load=True)
    assert all(r["compiled"] for r in runs["compiled"]), "the compiled build was not imported"
    assert not any(r["compiled"] for r in runs["interpreted"])
    report: dict[str, Any] = {"build": built, "modules": COMPILED, "rounds": runs, "sets": {}}
    print("\n| documents | build | chunks | facts | extract best s | facts' extraction best s |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name in runs["interpreted"][0]["sets"]:
        best: dict[str, dict[str, float]] = {}
        for build_name, mine in runs.items():
            sets = [r["sets"][name] for r in mine]
            best[build_name] = {
                "extract_s": min(s["extract_s"] for s in sets),
                "facts_s": min(s["facts_s"] for s in sets),
                "chunk_s": min(s["chunk_s"] for s in sets),
            }
            print(
                f"| {name} | {build_name} | {sets[0]['chunks']:,} | {sets[0]['facts']:,} | "
                f"{best[build_name]['extract_s']:.2f} | {best[build_name]['facts_s']:.2f} |"
            )
        digests = {r["sets"][name]["digest"] for mine in runs.values() for r in mine}
        report["sets"][name] = {
            "best": best,
            "extract_ratio": best["interpreted"]["extract_s"] / best["compiled"]["extract_s"],
            "facts_ratio": best["interpreted"]["facts_s"] / best["compiled"]["facts_s"],
            "same_output": len(digests) == 1,
            "digests": sorted(digests),
        }
    print()
    for name, row in report["sets"].items():
        print(
            f"{name}: extraction {row['extract_ratio']:.2f}× faster compiled, the facts' "
            f"extraction {row['facts_ratio']:.2f}×; the same output: {row['same_output']}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
