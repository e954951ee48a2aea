"""The digest of every chunk record with its facts, over the sets a change to the extraction
must leave as they are, and where the extraction's time goes.

    python benchmarks/facts_identity.py [--tree TREE] [--out FILE] [--compare FILE]
                                        [--profile N]

The documents: every TAT-QA dev context (rendered as Markdown and as HTML by
``benchmarks/tatqa_corpus.py``), every document of the families' development set and of the
read probe sets (``probe`` to ``probe6``). Each is chunked (structural, the defaults) and
enriched as an ingest does (``enrich_chunks``), by the osrag of ``--tree`` (a checkout; this
one by default) in a process of its own. Each chunk's record — its stored source
(:func:`osrag.chunking.records.chunk_source`: ids, text, amounts, evidence, dates,
identifiers, every fact's stored shape) and every fact's fields as read, as JSON with
sorted keys — is digested
(SHA-256) apart and all together; ``--out`` writes the digests by chunk id, ``--compare``
reads another run's and names every chunk whose record differs.

``--wide`` adds the shared corpora of ``benchmarks/extract_speed.py`` (opensearch-docs, the
CUAD contracts, real-docs, Cranfield) and the synthetic policies of
``benchmarks/facts_cost.py`` (seed 7, 5,000 chunks).

``--profile N``: the enrichment also run under cProfile (outside the digest); the N
functions of the most own time and of the most cumulative time are printed, with the
chunks counted, so a row reads as milliseconds per chunk.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
TATQA = ROOT.parent / "shared" / "corpora" / "tatqa-dev" / "tatqa_dataset_dev.json"
FAMILY_SETS = ("families", "probe", "probe2", "probe3", "probe4", "probe5", "probe6")
"""The read sets of families; a held-out set is never named here."""
SYNTHETIC_CHUNKS = 5_000
"""The synthetic policies of ``--wide`` (seed 7: ``benchmarks/facts_cost.py``'s corpus)."""


def _roots(work: Path, wide: bool) -> list[tuple[str, Path]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from extract_speed import CORPORA, SOURCES
    from synthetic_corpus import write_corpus
    from tatqa_corpus import convert

    roots = []
    for form in ("markdown", "html"):
        convert(TATQA, work / form, form)
        roots.append((f"tatqa-{form}", work / form / "corpus"))
    roots.extend((name, DATA / name / "documents") for name in FAMILY_SETS)
    if wide:
        roots.extend((source, CORPORA / source) for source in SOURCES)
        write_corpus(work / "synthetic", SYNTHETIC_CHUNKS, seed=7)
        roots.append(("synthetic", work / "synthetic"))
    return roots


def _child(roots_file: Path, profile: int, facts_only: bool) -> None:
    """Chunk and enrich every document, in this process; print the digests as JSON."""
    import cProfile
    import pstats

    import orjson

    import osrag.extract.enrich as enrich
    from osrag.chunking import chunk_document
    from osrag.chunking.records import chunk_source
    from osrag.extract import enrich_chunks
    from osrag.loaders.corpus import load_corpus
    from osrag.models import ChunkingConfig, Document, ExtractionConfig

    chunking, extraction = ChunkingConfig(), ExtractionConfig()
    chunked = []
    for name, root in json.loads(roots_file.read_text("utf-8")):
        docs = [d for d in load_corpus(Path(root)) if isinstance(d, Document)]
        chunked.extend((name, doc, chunk_document(doc, chunking)) for doc in docs)
    by_chunk: dict[str, str] = {}
    total = hashlib.sha256()
    facts = 0
    for name, doc, chunks in chunked:
        for chunk in enrich_chunks(doc, chunks, extraction):
            stored = chunk_source(chunk)
            stored["facts_as_read"] = [dataclasses.asdict(fact) for fact in chunk.facts]
            record = orjson.dumps(stored, option=orjson.OPT_SORT_KEYS)
            digest = hashlib.sha256(record).hexdigest()
            by_chunk[f"{name}/{chunk.chunk_id}"] = digest
            total.update(record)
            facts += len(chunk.facts)
    result: dict[str, Any] = {"digest": total.hexdigest(), "facts": facts, "chunks": by_chunk}
    if profile:
        profiler = cProfile.Profile()
        if facts_only:
            read_facts = enrich.amount_facts

            def profiled(*args: Any, **kwargs: Any) -> Any:
                profiler.enable()
                try:
                    return read_facts(*args, **kwargs)
                finally:
                    profiler.disable()

            enrich.amount_facts = profiled
        else:
            profiler.enable()
        for _, doc, chunks in chunked:
            enrich_chunks(doc, chunks, extraction)
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stderr)
        if os.environ.get("OSRAG_PROFILE_OUT"):
            stats.dump_stats(os.environ["OSRAG_PROFILE_OUT"])
        print(f"{len(by_chunk)} chunks, {facts} facts", file=sys.stderr)
        stats.sort_stats("tottime").print_stats(profile)
        stats.sort_stats("cumulative").print_stats(profile)
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="an osrag checkout")
    parser.add_argument("--out", type=Path, help="write the digests by chunk here")
    parser.add_argument("--compare", type=Path, help="another run's --out, to compare with")
    parser.add_argument(
        "--wide",
        action="store_true",
        help="also the shared corpora of extract_speed.py and the synthetic policies",
    )
    parser.add_argument("--profile", type=int, default=0, help="print the N hottest functions")
    parser.add_argument(
        "--profile-facts", action="store_true", help="profile the facts' extraction alone"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.profile, args.profile_facts)
        return
    with tempfile.TemporaryDirectory(prefix="osrag-identity-") as tmp:
        work = Path(tmp)
        roots_file = work / "roots.json"
        roots_file.write_text(
            json.dumps([(n, str(r)) for n, r in _roots(work, args.wide)]), "utf-8"
        )
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(roots_file), "--profile", str(args.profile)]
            + ["--profile-facts"] * args.profile_facts,
            env=dict(os.environ, PYTHONPATH=str(args.tree.resolve())),
            cwd=args.tree,
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.tree}: {len(result['chunks'])} chunks, {result['facts']} facts")
    print(f"digest {result['digest']}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=0) + "\n", "utf-8")
    if args.compare:
        other = json.loads(args.compare.read_text("utf-8"))
        differ = sorted(
            key
            for key in other["chunks"].keys() | result["chunks"].keys()
            if other["chunks"].get(key) != result["chunks"].get(key)
        )
        print(
            f"the same as {args.compare.name}: {not differ and other['digest'] == result['digest']}"
        )
        for key in differ[:20]:
            print(f"  differs: {key}")
        if differ:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
