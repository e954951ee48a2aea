"""The raw ``_bulk`` ceiling of a node: osrag's own chunks, serialised beforehand, sent as
fast as the node takes them. Shared by ``bulk_size.py`` and ``scale.py``.

The NDJSON file holds exactly what an ingest would send for the corpus (one
``index`` line and one ``_source`` line per chunk, the source from
:func:`osrag.chunking.records.chunk_source`); it is written once per corpus
(in worker processes, outside any timer) and reused.
"""

from __future__ import annotations

import functools
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson
from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError

from osrag.chunking.records import chunk_source
from osrag.engines.mapping import chunk_index_body
from osrag.ingestion.pipeline import prepare_chunks
from osrag.loaders.corpus import corpus_base, corpus_files, load_files
from osrag.models import ChunkingConfig, Document, ExtractionConfig

GENERATION = "osrag-bench-raw-00000000-1"
"""The ``generation`` field of every source (same length as a real generation name)."""


def _serialise(base: Path, rels: list[str]) -> tuple[bytes, int]:
    lines: list[bytes] = []
    count = 0
    for item in load_files(base, rels):
        if not isinstance(item, Document):
            continue
        for chunk in prepare_chunks(item, ChunkingConfig(), ExtractionConfig()):
            lines.append(orjson.dumps({"index": {"_id": chunk.chunk_id}}))
            lines.append(orjson.dumps(chunk_source(chunk, GENERATION)))
            count += 1
    return b"\n".join(lines) + b"\n" if lines else b"", count


def ndjson(corpus: Path, out: Path, *, workers: int = 2) -> int:
    """Write (or reuse) the NDJSON of every chunk of ``corpus``; returns the chunk count."""
    done = out.with_suffix(".count")
    if out.is_file() and done.is_file():
        return int(done.read_text())
    files = corpus_files(corpus)
    groups = [files[i : i + 50] for i in range(0, len(files), 50)]
    total = 0
    with out.open("wb") as sink, ProcessPoolExecutor(workers) as pool:
        for data, count in pool.map(functools.partial(_serialise, corpus_base(corpus)), groups):
            sink.write(data)
            total += count
    done.write_text(str(total))
    return total


def requests(path: Path, max_chunks: int, max_bytes: int) -> Iterator[tuple[bytes, int]]:
    """The file cut into ``_bulk`` bodies of at most ``max_chunks`` chunks / ``max_bytes``."""
    lines: list[bytes] = []
    size = count = 0
    with path.open("rb") as source:
        for action in source:
            document = next(source)
            lines += [action, document]
            size += len(action) + len(document)
            count += 1
            if count >= max_chunks or size >= max_bytes:
                yield b"".join(lines), count
                lines, size, count = [], 0, 0
    if lines:
        yield b"".join(lines), count


def fresh_index(client: OpenSearch, *, shards: int = 1, replicas: int = 0) -> str:
    """An empty index with a generation's mapping and bulk-loading settings."""
    name = f"osrag-bench-raw-{uuid.uuid4().hex[:8]}"
    body = chunk_index_body(replicas=replicas, shards=shards)
    body["settings"]["index"]["refresh_interval"] = "-1"
    client.indices.create(index=name, body=body)
    return name


def send(
    client: OpenSearch,
    path: Path,
    index: str,
    *,
    max_chunks: int,
    max_bytes: int,
    concurrency: int = 2,
) -> dict[str, Any]:
    """Send the file to ``index`` with ``concurrency`` threads, then refresh; chunks/s."""
    work: queue.Queue[tuple[bytes, int] | None] = queue.Queue(maxsize=concurrency * 2)
    failures: list[str] = []
    sent = [0, 0, 0, 0]  # chunks, bytes, requests, requests answered 429 and resent
    lock = threading.Lock()

    def loop() -> None:
        while (item := work.get()) is not None:
            body, count = item
            if failures:
                continue
            for attempt in range(8):
                try:
                    answer = client.bulk(body=body, index=index, params={"filter_path": "errors"})
                    break
                except TransportError as exc:
                    if exc.status_code != 429 or attempt == 7:
                        failures.append(repr(exc))
                        break
                    with lock:
                        sent[3] += 1
                    time.sleep(0.5 * 2**attempt)  # the node's indexing pressure limit
                except Exception as exc:
                    failures.append(repr(exc))
                    break
            if failures:
                continue
            if answer.get("errors"):
                failures.append("item errors")
            with lock:
                sent[0] += count
                sent[1] += len(body)
                sent[2] += 1

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for item in requests(path, max_chunks, max_bytes):
        work.put(item)
    for _ in threads:
        work.put(None)
    for thread in threads:
        thread.join()
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": "1s"}})
    client.indices.refresh(index=index)
    seconds = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"raw bulk into {index} failed: {failures[0]}")
    count = int(client.count(index=index)["count"])
    if count != sent[0]:
        raise RuntimeError(f"raw bulk: {sent[0]} chunks sent, {count} in {index}")
    return {
        "chunks": sent[0],
        "seconds": round(seconds, 3),
        "chunks_per_s": round(sent[0] / seconds, 1),
        "mb_per_s": round(sent[1] / seconds / 2**20, 2),
        "requests": sent[2],
        "mean_request_kb": round(sent[1] / max(1, sent[2]) / 1024, 1),
        "rejected_429": sent[3],
        "concurrency": concurrency,
    }


def ceiling(
    client: OpenSearch,
    path: Path,
    *,
    max_chunks: int,
    max_bytes: int,
    concurrency: int = 2,
    shards: int = 1,
    replicas: int = 0,
) -> dict[str, Any]:
    """:func:`send` into a fresh index, dropped afterwards."""
    index = fresh_index(client, shards=shards, replicas=replicas)
    try:
        return send(
            client,
            path,
            index,
            max_chunks=max_chunks,
            max_bytes=max_bytes,
            concurrency=concurrency,
        )
    finally:
        client.indices.delete(index=index, ignore=[404])
