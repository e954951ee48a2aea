"""What a change costs, predicted and done: ``osrag plan`` against the apply, for a
chunk-size change, a strategy change, an extraction-version change and an embedder
change, on the whole OpenSearch documentation and the CUAD contracts.

    python benchmarks/change_cost.py [--backend embedded|opensearch|elasticsearch]
                                     [--url URL] [--sample 40] [--corpus NAME …]

Two parts, because the offline embedder runs at about a dozen texts a second a core:

1. **Reuse counts, whole corpora.** Each corpus is ingested with a fast deterministic
   embedder (hash vectors: same text, same vector), then for each change the plan is
   made and the change applied, the local vector cache emptied first (the vectors
   reused come from the generation being replaced, read back from the engine). The
   alias is rolled back to the base generation between changes. Predicted and actual:
   vectors read back, from the cache, embedded, and tokens embedded (counted in the
   chunking tokenizer on both sides).
2. **Time, on a sample.** The same on the first ``--sample`` documents of each corpus
   with the offline all-MiniLM-L6-v2: the plan's seconds (tokens to embed / the
   stored or calibrated rate of this machine) against the seconds the embedder spent
   in the apply, and tokens in the embedder's own tokenizer.

The extraction-version change is a new extraction version string (what the next
release that changes the extractors will carry), set for the duration of that change.
Prints tables and writes ``benchmarks/results/change_cost.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from _paths import CORPORA, ROOT
from _synthetic_vectors import HashVectors

import osrag.ingestion.pipeline as pipeline
import osrag.schema.extraction as extraction
from osrag.embedding.base import NamedEmbedder, Vectors
from osrag.ingestion.change_plan import Caller, plan_change
from osrag.ingestion.generations import rollback
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import ChunkingConfig

RESULTS = ROOT / "benchmarks" / "results" / "change_cost.json"
CHANGES = ("chunk size 400 → 300", "strategy → sentences", "extraction version", "embedder")


class Timed(NamedEmbedder):
    """Another embedder, counting the texts, tokens and seconds of its ``embed`` calls."""

    def __init__(self, inner: Any, count: Any) -> None:
        self.inner = inner
        self._name, self._version = inner.name, inner.version
        self._dimension = inner.dimension
        self.tokenizer_path = getattr(inner, "tokenizer_path", None)
        self.max_length = getattr(inner, "max_length", None)
        self.passage_prefix = getattr(inner, "passage_prefix", "")
        self.count = count
        self.texts = self.tokens = 0
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        vectors = self.inner.embed(texts)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        self.tokens += sum(self.count(t) for t in texts)
        return vectors

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_queries(texts)


@contextlib.contextmanager
def extraction_version(bumped: bool) -> Iterator[None]:
    if not bumped:
        yield
        return
    before = extraction.EXTRACTION_VERSION
    new = before + ",release@2"
    extraction.EXTRACTION_VERSION = new  # type: ignore[misc]
    pipeline.EXTRACTION_VERSION = new  # type: ignore[attr-defined]
    try:
        yield
    finally:
        extraction.EXTRACTION_VERSION = before  # type: ignore[misc]
        pipeline.EXTRACTION_VERSION = before  # type: ignore[attr-defined]


def open_engine(backend: str, url: str | None, home: Path) -> Any:
    if backend == "embedded":
        from osrag.engines.embedded.index import EmbeddedIndex

        return EmbeddedIndex(home / "embedded")
    from osrag.config import load_settings
    from osrag.engines import open_index

    return open_index(load_settings(url=url, backend=backend))


def sample(corpus: Path, count: int | None, into: Path) -> Path:
    """The corpus, or a folder with its first ``count`` files (sorted paths)."""
    if count is None:
        return corpus
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in {".md", ".txt"})[
        :count
    ]
    for path in files:
        target = into / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return into


def forget(cache: Path) -> None:
    """Empty the local vector cache (the stored embedding rates stay)."""
    for path in cache.glob("vectors.sqlite3*"):
        path.unlink()


def run_changes(
    corpus: Path, index: Any, make_embedder: Any, count: Any, cache: Path
) -> list[dict[str, Any]]:
    """Base ingest, then plan and apply each change (rolled back after each)."""
    alias = f"changecost-{uuid.uuid4().hex[:8]}"
    base_embedder = Timed(make_embedder(False), count)
    base = IngestOptions(alias=alias, embedder=base_embedder, embed_workers=1, keep=10)
    started = time.perf_counter()
    first = ingest(corpus, index, base)
    rows = [
        {
            "change": "base ingest",
            "chunks": first.chunks_written,
            "embedded": first.chunks_embedded,
            "seconds": round(time.perf_counter() - started, 1),
            "embed_seconds": round(base_embedder.seconds, 1),
        }
    ]
    for change in CHANGES:
        embedder = Timed(make_embedder(change == "embedder"), count)
        chunking = ChunkingConfig()
        if change.startswith("chunk size"):
            chunking = ChunkingConfig(max_tokens=300)
        elif change.startswith("strategy"):
            chunking = ChunkingConfig(strategy="sentences")
        options = IngestOptions(
            alias=alias, embedder=embedder, embed_workers=1, keep=10, chunking=chunking
        )
        with extraction_version(change == "extraction version"):
            forget(cache)
            started = time.perf_counter()
            plan = plan_change(corpus, index, options, caller=Caller(unrestricted=True))
            plan_seconds = time.perf_counter() - started
            embedder.texts = embedder.tokens = 0  # a calibration's texts are not the apply's
            embedder.seconds = 0.0
            started = time.perf_counter()
            report = ingest(corpus, index, options)
            apply_seconds = time.perf_counter() - started
        assert plan.vectors is not None and plan.embedding is not None
        rows.append(
            {
                "change": change,
                "chunks after": plan.chunks.after,
                "predicted": {
                    "from_generation": plan.vectors.from_generation,
                    "from_cache": plan.vectors.from_cache,
                    "to_embed": plan.vectors.to_embed,
                    "tokens": plan.vectors.tokens_to_embed,
                    "embed_seconds": plan.embedding.seconds,
                    "rate": plan.embedding.rate_source,
                },
                "actual": {
                    "from_generation": report.vectors_from_generation,
                    "from_cache": report.vectors_reused,
                    "embedded": report.chunks_embedded,
                    "tokens": embedder.tokens,
                    "embed_seconds": round(embedder.seconds, 1),
                },
                "plan_seconds": round(plan_seconds, 1),
                "apply_seconds": round(apply_seconds, 1),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
        rollback(index, alias, to=first.generation)
    for name in index.generations(alias):
        index.drop_generation(name)
    index.records(alias).drop()
    return rows


def hash_embedders(other: bool) -> Any:
    return HashVectors(dimension=384 if not other else 256)


def real_embedders(other: bool) -> Any:
    from osrag.embedding import get_embedder

    return get_embedder("default-int8" if other else "default")


def whitespace_count() -> Any:
    from osrag.chunking import get_tokenizer

    tokenizer = get_tokenizer("whitespace")
    return tokenizer.count


def embedder_count() -> Any:
    from osrag.chunking import get_tokenizer
    from osrag.chunking.window import embed_window
    from osrag.embedding import get_embedder

    window = embed_window(get_embedder("default"))
    assert window is not None
    tokenizer = get_tokenizer(window.tokenizer)
    return lambda text: tokenizer.count(window.prefix + text) + window.special_tokens


def table(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}\n")
    print(
        "| change | chunks after | read back: predicted / actual | cache: predicted / actual "
        "| embedded: predicted / actual | tokens: predicted / actual "
        "| embed s: predicted / actual |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        if "predicted" not in row:
            print(
                f"| {row['change']} | {row['chunks']} | | | {row['embedded']} | | "
                f"{row['embed_seconds']} |"
            )
            continue
        p, a = row["predicted"], row["actual"]
        seconds = "—" if p["embed_seconds"] is None else f"{p['embed_seconds']:g}"
        print(
            f"| {row['change']} | {row['chunks after']} | {p['from_generation']} / "
            f"{a['from_generation']} | {p['from_cache']} / {a['from_cache']} | "
            f"{p['to_embed']} / {a['embedded']} | {p['tokens']} / {a['tokens']} | "
            f"{seconds} / {a['embed_seconds']} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="embedded")
    parser.add_argument("--url", default=None)
    parser.add_argument("--sample", type=int, default=40, help="documents timed with MiniLM")
    parser.add_argument("--corpus", action="append")
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args()
    names = args.corpus or ["opensearch-docs", "cuad-contracts"]
    results: dict[str, Any] = {"backend": args.backend, "sample": args.sample}
    with tempfile.TemporaryDirectory(prefix="change-cost-") as scratch:
        home = Path(scratch)
        cache = home / "cache"
        os.environ["OSRAG_CACHE_DIR"] = str(cache)
        os.environ.setdefault("OSRAG_MODEL_CACHE_DIR", str(home / "models"))
        index = open_engine(args.backend, args.url, home)
        for name in names:
            corpus = Path(name) if Path(name).is_dir() else CORPORA / name
            name = corpus.name
            if (corpus / "contracts").is_dir():
                corpus = corpus / "contracts"
            rows = run_changes(corpus, index, hash_embedders, whitespace_count(), cache)
            results[f"{name} (hash vectors, whole corpus)"] = rows
            table(f"{name}: whole corpus, hash vectors ({args.backend})", rows)
            if args.skip_timing:
                continue
            part = sample(corpus, args.sample, home / f"sample-{name}")
            rows = run_changes(part, index, real_embedders, embedder_count(), cache)
            results[f"{name} (all-MiniLM-L6-v2, first {args.sample} files)"] = rows
            table(f"{name}: first {args.sample} files, all-MiniLM-L6-v2 ({args.backend})", rows)
        index.close()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
