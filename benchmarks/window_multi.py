"""Several vectors per chunk, ranked by the best window, simulated against truncation and
fitting — to decide whether engine support for it is worth building.

    python benchmarks/window_multi.py [--corpus DIR] [--permutations N]

On a BEIR-style folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels.tsv``; Cranfield's
``derived/`` by default), with the default embedder (MiniLM, 256-token window):

- **truncate** — the chunks of ``osrag ingest --truncate`` (400 whitespace tokens); each
  is one vector of its first 256 WordPiece tokens (what the embedder sees);
- **fit** — the default chunks, cut so that the embedded text fits the window;
- **multi** — the *truncate* chunks, each embedded as consecutive windows of at most
  254 WordPiece tokens (+ ``[CLS]``/``[SEP]``) of its embedded text, cut at the
  tokenizer's offsets; a chunk's vector score is its best window's cosine (max).

No engine support exists for *multi*, so every vector leg is computed here, exactly
(a dot product over all chunks: the embedded engine's kNN is exact too). The bm25 leg
is the embedded engine's, through :class:`~osrag.search.Searcher` on a generation of the
same chunks, ``depth`` × 4 chunks deep as the hybrid leg asks; hybrid is the same
reciprocal rank fusion (:func:`osrag.search.fusion.reciprocal_rank_fusion`, k = 60)
followed by one hit per document. nDCG@10 and recall@10 per query on documents;
paired tests (:func:`osrag.evaluation.significance.paired_test`) of multi and fit
against truncate, and of multi against fit. Vectors go through the usual vector cache. Writes
``benchmarks/results/window_multi_<corpus>.json``.

``--tatqa PATH`` (TAT-QA's dev JSON) uses its questions instead: the corpus of
``tatqa_corpus.py``, each question relevant to its own context only.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CRANFIELD = Path("/work/shared/corpora/cranfield/derived")
RESULTS = ROOT / "benchmarks" / "results"
LEG_DEPTH = 400  # the eval's 100 documents × COLLAPSE_DEPTH 4, as a hybrid leg asks
METRICS = ("ndcg@10", "recall@10")
CONFIGS = (("truncate", False, None), ("fit", True, None), ("multi", False, 254))
"""(name, fit the window, window width in tokens for several windows per chunk)."""


def windows(text: str, tokenizer: Any, width: int) -> list[str]:
    """``text`` as consecutive pieces of at most ``width`` tokens (cut at token offsets)."""
    offsets = tokenizer.encode(text, add_special_tokens=False).offsets
    if len(offsets) <= width:
        return [text]
    pieces = []
    for start in range(0, len(offsets), width):
        part = offsets[start : start + width]
        begin = 0 if start == 0 else part[0][0]
        end = len(text) if start + width >= len(offsets) else offsets[start + width][0]
        pieces.append(text[begin:end])
    return pieces


def chunks_of(corpus: Path, fit: bool, embedder: Any) -> list[Any]:
    """The chunks a fresh ingest writes (``plan`` on an empty index)."""
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.ingestion.ingest import IngestOptions, plan

    with tempfile.TemporaryDirectory(prefix="osrag-plan-") as tmp:
        options = IngestOptions(alias="p", embedder=embedder, embed_workers=1, fit_window=fit)
        _, changes = plan(corpus, EmbeddedIndex(Path(tmp)), options)
        return [c for change in changes for c in change.chunks]


def vector_scores(
    chunks: list[Any], queries: Any, embedder: Any, cache: Any, width: int | None
) -> Any:
    """queries × chunks cosine: one vector per chunk, or the best of its windows."""
    from tokenizers import Tokenizer

    from osrag.embedding import embed_texts

    if width is None:
        texts, owner = [c.text for c in chunks], list(range(len(chunks)))
    else:
        tokenizer = Tokenizer.from_file(str(embedder.tokenizer_path))
        tokenizer.no_truncation()
        texts, owner = [], []
        for i, chunk in enumerate(chunks):
            pieces = windows(chunk.text, tokenizer, width)
            texts += pieces
            owner += [i] * len(pieces)
    vectors = embed_texts(texts, embedder, cache).vectors
    scores = queries @ np.asarray(vectors, dtype=np.float32).T
    starts = np.flatnonzero(np.r_[True, np.diff(owner) != 0])
    return np.maximum.reduceat(scores, starts, axis=1), len(texts)


def bm25_legs(corpus: Path, fit: bool, embedder: Any, texts: list[str]) -> list[list[Any]]:
    """The engine's bm25 hits (chunk id, doc id) per query, on a generation of the chunks."""
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.ingestion.ingest import IngestOptions, ingest
    from osrag.search.searcher import Searcher

    with tempfile.TemporaryDirectory(prefix="osrag-window-multi-") as tmp:
        index = EmbeddedIndex(Path(tmp))
        options = IngestOptions(alias="m", embedder=embedder, embed_workers=1, fit_window=fit)
        ingest(corpus, index, options)
        searcher = Searcher(index, "m")
        legs = []
        for text in texts:
            result = searcher.search(
                text, mode="bm25", k=LEG_DEPTH, highlight=False, source_fields=[]
            )
            legs.append([{"_id": h.chunk_id, "_source": {"doc_id": h.doc_id}} for h in result.hits])
        index.close()
    return legs


def rankings(scores: Any, chunks: list[Any], bm25: list[list[Any]]) -> dict[str, list[list[str]]]:
    """Document rankings per query for the vector leg alone and for hybrid."""
    from osrag.search.fusion import best_per_document, reciprocal_rank_fusion

    out: dict[str, list[list[str]]] = {"bm25": [], "vector": [], "hybrid": []}
    for row, lexical in zip(scores, bm25, strict=True):
        top = np.argsort(-row, kind="stable")[:LEG_DEPTH]
        leg = [{"_id": chunks[i].chunk_id, "_source": {"doc_id": chunks[i].doc_id}} for i in top]
        for mode, hits in (
            ("bm25", lexical),
            ("vector", leg),
            ("hybrid", reciprocal_rank_fusion([lexical, leg])),
        ):
            out[mode].append([h["_source"]["doc_id"] for h in best_per_document(hits)][:10])
    return out


def tatqa_questions(dataset: Path, out: Path) -> tuple[Path, Path]:
    """TAT-QA (dev) as a retrieval set: the corpus of ``tatqa_corpus.py`` (one Markdown
    document per context), every question a query whose one relevant document is its
    own context. Returns (corpus folder, queries file)."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tatqa_corpus import convert, render

    convert(dataset, out)
    lines = []
    for context in json.loads(dataset.read_text(encoding="utf-8")):
        doc_id = render(context).doc_id
        for q in context["questions"]:
            lines.append({"id": q["uid"], "query": q["question"], "relevant": {doc_id: 1}})
    queries = out / "questions.jsonl"
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return out / "corpus", queries


def evaluate(
    corpus: Path, queries_path: Path, qrels: Path | None, permutations: int
) -> dict[str, Any]:
    from osrag.embedding import SqliteVectorCache, default_cache_path, default_embedder
    from osrag.evaluation import load_query_set
    from osrag.evaluation.metrics import query_metrics
    from osrag.evaluation.significance import paired_test

    embedder = default_embedder()
    judged = load_query_set(queries_path, qrels).judged
    texts = [q.query for q in judged]
    query_vectors = np.asarray(embedder.embed_queries(texts), dtype=np.float32)
    per: dict[str, dict[str, list[dict[str, float]]]] = {}
    counts: dict[str, Any] = {}
    lexical: dict[bool, list[list[Any]]] = {}
    with SqliteVectorCache(default_cache_path()) as cache:
        for name, fit, width in (
            ("truncate", False, None),
            ("fit", True, None),
            ("multi", False, 254),
        ):
            chunks = chunks_of(corpus, fit, embedder)
            scores, vectors = vector_scores(chunks, query_vectors, embedder, cache, width)
            if fit not in lexical:
                lexical[fit] = bm25_legs(corpus, fit, embedder, texts)
            ranked = rankings(scores, chunks, lexical[fit])
            per[name] = {
                mode: [
                    query_metrics(r, q.relevant, (10,)) for r, q in zip(runs, judged, strict=True)
                ]
                for mode, runs in ranked.items()
            }
            counts[name] = {"chunks": len(chunks), "vectors": vectors}
            print(name, counts[name], flush=True)
    rows = []
    for mode in ("bm25", "vector", "hybrid"):
        for metric in METRICS:
            base = [m[metric] for m in per["truncate"][mode]]
            row: dict[str, Any] = {"mode": mode, "metric": metric, "truncate": float(np.mean(base))}
            for name in ("fit", "multi"):
                other = [m[metric] for m in per[name][mode]]
                test = paired_test(base, other, permutations=permutations)
                row[name] = float(np.mean(other))
                row[f"p_{name}"] = round(test.p_randomization, 4)
                row[f"p_t_{name}"] = round(test.p_t_test, 4)
            versus = paired_test(
                [m[metric] for m in per["fit"][mode]],
                [m[metric] for m in per["multi"][mode]],
                permutations=permutations,
            )
            row["p_multi_vs_fit"] = round(versus.p_randomization, 4)
            rows.append(row)
    return {"corpus": str(corpus), "queries": len(judged), "configs": counts, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CRANFIELD)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument(
        "--tatqa", type=Path, help="TAT-QA's dev JSON: its questions instead of --corpus"
    )
    args = parser.parse_args()
    if args.tatqa:
        with tempfile.TemporaryDirectory(prefix="osrag-tatqa-") as tmp:
            corpus, queries = tatqa_questions(args.tatqa, Path(tmp))
            result = evaluate(corpus, queries, None, args.permutations)
        name = "tatqa"
    else:
        folder = args.corpus
        result = evaluate(
            folder / "corpus.jsonl",
            folder / "queries.jsonl",
            folder / "qrels.tsv",
            args.permutations,
        )
        name = folder.parent.name if folder.name == "derived" else folder.name
    print("| mode | metric | truncate | fit | p (fit) | multi | p (multi) | p (multi vs fit) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in result["rows"]:
        print(
            f"| {r['mode']} | {r['metric']} | {r['truncate']:.4f} | {r['fit']:.4f} | "
            f"{r['p_fit']:.4f} | {r['multi']:.4f} | {r['p_multi']:.4f} | "
            f"{r['p_multi_vs_fit']:.4f} |"
        )
    out = RESULTS / f"window_multi_{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
