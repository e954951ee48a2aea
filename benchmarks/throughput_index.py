"""The load-test index for ``throughput.py``: 100k chunks by osrag's ingest, grown to 1M.

    python benchmarks/throughput_index.py --chunks 100000            # a fresh alias
    python benchmarks/throughput_index.py --grow-to 1000000          # copies bulked in

``--chunks``: the synthetic policy corpus (``synthetic_corpus.py``) with an access
policy in every document's front matter (``tenant: tenant-{n % 4}``, ``acl:
[group-{n % 3}]``) is written under ``--corpus`` and ingested by :func:`osrag.ingest`
into a fresh alias (``--alias``, default ``bench-throughput``) with the synthetic
embedder (``_synthetic_vectors.py``: 384-dimensional unit vectors from a hash of the
text, a lucene HNSW ``knn_vector`` field) — a real generation, manifest and access
policy. ``--grow-to``: the same chunks, re-chunked once in two worker processes, are
bulked straight into the alias's generation index as copies 1, 2, … until it holds
that many: each copy has its own chunk and document ids (``<id>.<copy>``), the tenant
rotated by the copy number and its own vector (of ``<copy>:<text>``); ``refresh_interval``
is 30 s while it loads. Prints and writes ``benchmarks/results/throughput_index.json``.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import orjson
from _cluster import cluster_url, console, write_results
from _synthetic_vectors import HashVectors
from opensearchpy import OpenSearch
from synthetic_corpus import FILES_PER_FOLDER, policies, relative_path

from osrag.chunking.records import chunk_source
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import corpus_files, load_files
from osrag.models import ChunkingConfig, Document, ExtractionConfig

TENANTS = 4
GROUPS = 3
EMBEDDER = "python:_synthetic_vectors:embedder"


def with_access(text: str, number: int) -> str:
    """A policy's Markdown with a tenant and an ACL group in its front matter."""
    access = f"---\ntenant: tenant-{number % TENANTS}\nacl: [group-{number % GROUPS}]\n"
    return access + text.removeprefix("---\n")


def write_corpus(out: Path, chunks: int) -> int:
    """The synthetic corpus with access front matter under ``out``; its document count."""
    documents = 0
    for doc in policies(7, chunks):
        path = out / relative_path(doc.number)
        if doc.number % FILES_PER_FOLDER == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        data = with_access(doc.text, doc.number).encode()
        if not (path.is_file() and path.read_bytes() == data):
            path.write_bytes(data)
        documents += 1
    return documents


def copy_source(source: dict[str, Any], copy: int, vectors: HashVectors | None) -> dict[str, Any]:
    """Copy ``copy`` of a chunk: its own ids, the next tenant over, its own vector (none
    without ``vectors``)."""
    out = dict(source)
    out["chunk_id"] = f"{source['chunk_id']}.{copy}"
    out["doc_id"] = f"{source['doc_id']}.{copy}"
    number = int(str(source["doc_id"]).rsplit("-", 1)[-1])
    out["tenant"] = f"tenant-{(number + copy) % TENANTS}"
    if vectors is not None:
        vector = vectors.embed([f"{copy}:{source['text']}"])[0]
        out["vector"] = np.round(vector, 4).tolist()
    return out


def copies_body(
    base: Path, generation: str, copies: list[int], vectors: bool, rels: list[str]
) -> bytes:
    """The ``_bulk`` NDJSON of the given copies of every chunk of ``rels`` (a worker task)."""
    embedder, lines = HashVectors() if vectors else None, []
    sources = [
        chunk_source(chunk, generation)
        for item in load_files(base, rels)
        if isinstance(item, Document)
        for chunk in prepare_chunks(item, ChunkingConfig(), ExtractionConfig())
    ]
    for copy in copies:
        for source in sources:
            doc = copy_source(source, copy, embedder)
            lines.append(orjson.dumps({"index": {"_id": doc["chunk_id"]}}))
            lines.append(orjson.dumps(doc))
    return b"\n".join(lines) + b"\n"


def fresh(url: str, corpus: Path, alias: str, chunks: int) -> dict[str, Any]:
    documents = write_corpus(corpus, chunks)
    engine = OpenSearchIndex(OpenSearch(url, timeout=300, http_compress=False))
    purge(engine, alias)
    started = time.perf_counter()
    report = ingest(corpus, engine, IngestOptions(alias=alias, embedder=EMBEDDER))
    seconds = time.perf_counter() - started
    console.print(
        f"ingested {report.chunks_written:,} chunks of {documents:,} documents in {seconds:.1f} s"
    )
    return {
        "step": "ingest",
        "chunks": report.chunks_written,
        "documents": documents,
        "seconds": round(seconds, 1),
    }


def grow(
    url: str, corpus: Path, alias: str, target_total: int, base_chunks: int, vectors: bool
) -> dict[str, Any]:
    client = OpenSearch(url, timeout=600, http_compress=False)
    index = next(iter(client.indices.get_alias(name=alias)))
    generation = str(index)
    have = int(client.count(index=index)["count"])
    copies = list(range(1, -(-target_total // base_chunks)))
    console.print(f"{index}: {have:,} chunks; adding copies {copies[0]}–{copies[-1]}")
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": "30s"}})
    files = corpus_files(corpus)
    groups = [files[i : i + 20] for i in range(0, len(files), 20)]
    task = functools.partial(copies_body, corpus, generation, copies, vectors)
    started, sent = time.perf_counter(), 0
    with ProcessPoolExecutor(2) as pool:
        for n, body in enumerate(pool.map(task, groups)):
            answer = client.bulk(
                body=body, index=index, params={"filter_path": "errors,items.*.error"}
            )
            if answer.get("errors"):
                raise SystemExit(f"bulk item errors: {str(answer)[:500]}")
            sent += body.count(b"\n") // 2
            if n % 20 == 0:
                rate = sent / (time.perf_counter() - started)
                console.print(f"[dim]{sent:,} sent, {rate:,.0f} chunks/s[/dim]")
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": None}})
    client.indices.refresh(index=index)
    seconds = time.perf_counter() - started
    total = int(client.count(index=index)["count"])
    console.print(f"{total:,} chunks in {index} ({sent:,} bulked in {seconds:.1f} s)")
    return {
        "step": "grow",
        "chunks": total,
        "bulked": sent,
        "copies_have_vectors": vectors,
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alias", default="bench-throughput")
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/osrag-throughput-corpus"))
    parser.add_argument("--chunks", type=int, default=100_000, help="chunks osrag ingests")
    parser.add_argument("--grow-to", type=int, help="bulk copies in until this many chunks")
    parser.add_argument(
        "--copy-vectors",
        action="store_true",
        help="give the copies vectors too (HNSW indexing: ~250 chunks/s on 2 shared cores)",
    )
    args = parser.parse_args()
    url = cluster_url()
    if args.grow_to:
        step = grow(url, args.corpus, args.alias, args.grow_to, args.chunks, args.copy_vectors)
    else:
        step = fresh(url, args.corpus, args.alias, args.chunks)
    stats = OpenSearch(url).indices.stats(index=args.alias, metric="store,segments")["_all"]
    step["store_bytes"] = stats["primaries"]["store"]["size_in_bytes"]
    step["segments"] = stats["primaries"]["segments"]["count"]
    print(f"wrote {write_results('throughput_index_' + str(step['step']), step)}")


if __name__ == "__main__":
    main()
