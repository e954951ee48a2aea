"""A hybrid ingest at scale, killed mid-embedding and run again.

    python benchmarks/hybrid_scale.py [--chunks 100000] [--embedder hash|default]
                                      [--kill-at 0.4] [--work DIR] [--keep]

On the synthetic policy corpus (``synthetic_corpus.py``, seed 7), into the embedded
index, with a vector cache of its own (``OSRAG_CACHE_DIR`` in a temporary folder):

1. **full ingest** in a child process: chunks/s, CPU seconds per chunk (the child and
   its own children), peak RSS; then the alias is dropped, the cache kept aside;
2. **killed ingest** into a fresh alias and a fresh cache: the parent polls the
   cache and sends SIGKILL once ``--kill-at`` of the distinct chunk texts have their
   vectors (mid-embedding: the ingest embeds batch by batch, each batch stored as
   soon as it is computed);
3. **rerun**: the same ingest again, which resumes the killed run's generation: the
   chunks that run had written stay (neither embedded nor looked up again); its
   ``chunks_embedded`` (cache misses) must be the distinct texts the killed run had
   not stored, and ``vectors_reused`` (hits) those it had stored but not written;
4. **check**: the chunk ids of the index (its document count and its vector store),
   of the manifest and of the expected chunking (``plan`` on an empty index) are the
   same set, and every stored vector is the embedder's vector for the chunk's text
   (``hash``: recomputed for all; ``default``: 200 sampled chunks, cosine ≥ 0.999).

``--embedder hash`` is a cheap deterministic embedder (SHAKE-256 of the text, 384
dimensions, unit length): it measures the pipeline, the cache and the kill/resume
without a model. ``default`` is MiniLM (real embedding throughput). Writes
``benchmarks/results/hybrid_scale_<embedder>_<chunks>.json``.

``--child`` runs one ingest and prints its report as JSON (used by the steps above and
by ``tests/ingestion/test_embed_resume.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
HASH_DIMENSION = 384
DELAY_VARIABLE = "OSRAG_HASH_EMBED_DELAY"
"""Seconds the hash embedder sleeps per text (tests slow it so a kill lands mid-run)."""


def hash_vectors(texts: list[str]) -> Any:
    """Unit vectors from SHAKE-256 of each text: deterministic, no model."""
    delay = float(os.environ.get(DELAY_VARIABLE, "0"))
    if delay:
        time.sleep(delay * len(texts))
    raw = b"".join(hashlib.shake_256(t.encode("utf-8")).digest(HASH_DIMENSION) for t in texts)
    matrix = np.frombuffer(raw, dtype=np.uint8).reshape(len(texts), HASH_DIMENSION)
    centred = matrix.astype(np.float32) - 127.5
    return centred / np.linalg.norm(centred, axis=1, keepdims=True)


def make_embedder(spec: str) -> Any:
    """``hash`` (the deterministic embedder above) or any :func:`get_embedder` spec."""
    if spec == "hash":
        from osrag.embedding.service import CallableEmbedder

        return CallableEmbedder(
            hash_vectors, name="bench-hash", version="1", dimension=HASH_DIMENSION, batch_size=64
        )
    from osrag.embedding import get_embedder

    return get_embedder(spec)


def child(corpus: Path, root: Path, alias: str, spec: str) -> None:
    """One ingest in this process; prints its report and resource use as one JSON line."""
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.ingestion.ingest import IngestOptions, ingest

    options = IngestOptions(alias=alias, embedder=make_embedder(spec), embed_workers=1)
    started = time.perf_counter()
    report = ingest(corpus, EmbeddedIndex(root), options)
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {
        "seconds": round(wall, 2),
        "cpu_seconds": round(own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime, 2),
        "peak_rss_mib": round(max(own.ru_maxrss, kids.ru_maxrss) / 1024, 1),
        "generation": report.generation,
        "chunks_written": report.chunks_written,
        "chunks_embedded": report.chunks_embedded,
        "vectors_reused": report.vectors_reused,
        "errors": len(report.errors),
    }
    print(json.dumps(out), flush=True)


def child_command(corpus: Path, root: Path, alias: str, spec: str) -> list[str]:
    """The command line of one ``--child`` ingest."""
    script = str(Path(__file__).resolve())
    return [sys.executable, script, "--child", str(corpus), str(root), alias, spec]


def run_child(corpus: Path, root: Path, alias: str, spec: str, env: dict[str, str]) -> Any:
    """One ingest in a child process; its JSON report."""
    done = subprocess.run(
        child_command(corpus, root, alias, spec),
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"ingest child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cached_count(cache_dir: Path) -> int:
    """Vectors in the cache file under ``cache_dir`` (0 before it exists)."""
    path = cache_dir / "vectors.sqlite3"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM vectors").fetchone()[0])
    except sqlite3.Error:
        return 0  # created but no table yet


def run_killed(
    corpus: Path, root: Path, alias: str, spec: str, env: dict[str, str], kill_after: int
) -> dict[str, Any]:
    """Start an ingest; SIGKILL it once ``kill_after`` vectors are cached."""
    proc = subprocess.Popen(
        child_command(corpus, root, alias, spec),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    cache_dir = Path(env["OSRAG_CACHE_DIR"])
    started = time.perf_counter()
    try:
        while proc.poll() is None and cached_count(cache_dir) < kill_after:
            time.sleep(0.02)
        finished = proc.poll() is not None
        if not finished:
            proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    if finished:
        raise RuntimeError("the ingest finished before the kill: raise --chunks or slow it")
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "returncode": proc.returncode,
        "cached_at_kill": cached_count(cache_dir),
    }


def expected_chunks(corpus: Path, spec: str) -> dict[str, str]:
    """chunk id → embedded text of the chunks a fresh ingest writes (``plan``, no writes)."""
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.ingestion.ingest import IngestOptions, plan

    with tempfile.TemporaryDirectory(prefix="osrag-plan-") as tmp:
        options = IngestOptions(alias="plan", embedder=make_embedder(spec), embed_workers=1)
        _, changes = plan(corpus, EmbeddedIndex(Path(tmp)), options)
        return {c.chunk_id: c.text for change in changes for c in change.chunks}


def stored_state(root: Path, alias: str) -> dict[str, Any]:
    """What the index and the manifest hold for the alias's current generation."""
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.ingestion.manifest import Manifest

    index = EmbeddedIndex(root)
    try:
        generation = index.alias_target(alias)
        assert generation is not None, f"alias {alias} points nowhere"
        manifest = Manifest(index.records(alias), alias)
        manifest_ids = [i for r in manifest.documents(generation) for i in r.chunk_ids]
        count = index.count(alias)
    finally:
        index.close()
    path = root / alias / "generations" / generation / "vectors.sqlite"
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT chunk_id, vector FROM vectors").fetchall()
    vectors = {cid: np.frombuffer(blob, dtype="<f4") for cid, blob in rows}
    return {"generation": generation, "count": count, "manifest": manifest_ids, "vectors": vectors}


def check(state: dict[str, Any], expected: dict[str, str], spec: str) -> dict[str, Any]:
    """index = manifest = expected, in chunk ids and vectors."""
    ids = set(expected)
    vectors: dict[str, Any] = state["vectors"]
    manifest_ids = state["manifest"]
    same_ids = (
        state["count"] == len(ids)
        and len(manifest_ids) == len(ids)
        and set(manifest_ids) == ids
        and set(vectors) == ids
    )
    rng = np.random.default_rng(7)
    order = sorted(ids)
    sample = order if spec == "hash" else list(rng.choice(order, size=min(200, len(order))))
    embedder = make_embedder(spec)
    worst = 1.0
    for start in range(0, len(sample), 512):
        part = sample[start : start + 512]
        fresh = np.asarray(embedder.embed([expected[i] for i in part]), dtype=np.float32)
        stored = np.stack([vectors[i] for i in part])
        cos = np.sum(fresh * stored, axis=1) / (
            np.linalg.norm(fresh, axis=1) * np.linalg.norm(stored, axis=1)
        )
        worst = min(worst, float(cos.min()))
    return {
        "expected_chunks": len(ids),
        "index_count": state["count"],
        "manifest_chunks": len(manifest_ids),
        "vector_chunks": len(vectors),
        "ids_equal": same_ids,
        "vectors_checked": len(sample),
        "min_cosine": round(worst, 6),
        "ok": same_ids and worst >= (0.99999 if spec == "hash" else 0.999),
    }


def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synthetic_corpus import write_corpus

    corpus = work / "corpus"
    written = write_corpus(corpus, args.chunks)
    expected = expected_chunks(corpus, args.embedder)
    distinct = len(set(expected.values()))
    base = {k: v for k, v in os.environ.items() if k != "OSRAG_CACHE_DIR"}
    full_env = {**base, "OSRAG_CACHE_DIR": str(work / "cache-full")}
    print(f"corpus: {written.documents} documents, {len(expected)} chunks ({distinct} distinct)")
    full = run_child(corpus, work / "index", "full", args.embedder, full_env)
    full["chunks_per_second"] = round(full["chunks_written"] / full["seconds"], 1)
    full["cpu_ms_per_chunk"] = round(1000 * full["cpu_seconds"] / full["chunks_written"], 3)
    print("full ingest:", json.dumps(full))
    kill_env = {**base, "OSRAG_CACHE_DIR": str(work / "cache-kill")}
    kill_after = int(args.kill_at * distinct)
    killed = run_killed(corpus, work / "index", "resume", args.embedder, kill_env, kill_after)
    print("killed:", json.dumps(killed))
    rerun = run_child(corpus, work / "index", "resume", args.embedder, kill_env)
    rerun["misses_expected"] = distinct - killed["cached_at_kill"]
    rerun["misses_equal"] = rerun["chunks_embedded"] == rerun["misses_expected"]
    # chunks the killed run had written as well are kept, neither embedded nor looked up
    rerun["kept_from_killed_run"] = len(expected) - rerun["chunks_written"]
    rerun["hits_equal"] = (
        rerun["vectors_reused"] + rerun["kept_from_killed_run"] == killed["cached_at_kill"]
    )
    print("rerun:", json.dumps(rerun))
    checked = check(stored_state(work / "index", "resume"), expected, args.embedder)
    print("check:", json.dumps(checked))
    return {
        "embedder": args.embedder,
        "chunks": len(expected),
        "distinct_texts": distinct,
        "documents": written.documents,
        "load_average": os.getloadavg(),
        "full": full,
        "killed": killed,
        "rerun": rerun,
        "check": checked,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        corpus, root, alias, spec = sys.argv[2:6]
        child(Path(corpus), Path(root), alias, spec)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--kill-at", type=float, default=0.4)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="osrag-hybrid-scale-"))
    try:
        result = measure(args, work)
    finally:
        if not args.keep and args.work is None:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    out = RESULTS / f"hybrid_scale_{args.embedder}_{args.chunks}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    rerun = result["rerun"]
    if not (result["check"]["ok"] and rerun["misses_equal"] and rerun["hits_equal"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
