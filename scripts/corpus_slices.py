"""Cut the slices of the real corpora that the tests read, from the corpora beside the checkout.

    .venv/bin/python scripts/corpus_slices.py            # rewrite tests/data/corpora
    .venv/bin/python scripts/corpus_slices.py --check    # only compare, exit 1 on a difference

Reads ``../shared/corpora`` (or ``$OSRAG_SHARED/corpora``) and writes
``tests/data/corpora/<corpus>/``: every kept file a byte-for-byte copy, at its path in
the corpus, beside the corpus's own licence files. ``tests/data/corpora/README.md`` says
what each slice keeps and why; the lists below are that choice, so a slice is rebuilt
the same way every time:

* **opensearch-docs** — 36 Markdown files, all from the every-8th-file selection of the
  golden chunk digests (so their digests are the fixture's), picked to cover front
  matter and its absence, Liquid tags and variables, pipe tables, code fences (some
  with ``#`` lines that are not headings), H1–H5, HTML blocks, block quotes, nested
  lists, a hidden folder; 25 by a greedy cover of those features (smallest files first),
  11 drawn at random (seed 35) from the selection's files under 15 kB.
* **cuad-contracts** — the dataset's README and 8
  contracts, 7 of them from the every-3rd selection of the golden digests, plus one
  with amounts in pounds (no contract of that selection states a non-dollar amount);
  ``manifest.jsonl`` keeps the kept contracts' rows.
* **real-docs** — 10 of the 13 documents, all byte-identical: the ones the loader tests
  open (bookmarks, three columns, a table of amounts, an encrypted PDF, a page with no
  text layer, Word headings with merged-cell tables, HTML headings and tables, one
  document as both DOCX and HTML); not the IRS tax tables (2.9 MB), the W-4 form or the
  FedRAMP guide. ``MANIFEST.tsv`` keeps their rows.
* **cranfield** — ``derived/``: the first 40 queries, their judgments, and the
  abstracts they judge together with the first 120 of the collection (the tied-score
  tests duplicate those); lines are copied unchanged, in the collection's order. The
  BM25 reference is recomputed on the slice (below).
* **tatqa-dev** — the first 80 contexts of the development split, written as the
  dataset writes them (two-space indent, UTF-8).

The Cranfield slice's ``bm25_reference_output.txt`` is computed here, independently of
osrag: NLTK's Porter stemmer (the original algorithm; NLTK comes with the dev
environment), Lucene's English stop words, Lucene's BM25 (k1 1.2, b 0.75,
idf = ln(1 + (N − df + 0.5) / (df + 0.5))) over title + abstract, depth 1,000, scored
by trec_eval (pytrec_eval). On the whole collection this gives MAP 0.3065, nDCG@10
0.3680, P@10 0.2342 — the collection's own reference is 0.3066 / 0.3681 / 0.2342.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import functools
import json
import math
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from _paths import CORPORA, SLICES

OPENSEARCH_DOCS = (
    "LICENSE",
    "NOTICE",
    ".github/ISSUE_TEMPLATE/broken_links.md",
    "CONTRIBUTING.md",
    "_aggregations/bucket/auto-interval-date-histogram.md",
    "_aggregations/pipeline/bucket-selector.md",
    "_analyzers/token-filters/icu-transform.md",
    "_analyzers/tokenizers/simple-pattern.md",
    "_api-reference/alias/delete-alias.md",
    "_api-reference/script-apis/create-stored-script.md",
    "_api-reference/snapshots/create-snapshot.md",
    "_automating-configurations/api/delete-workflow.md",
    "_data-prepper/managing-data-prepper/latency.md",
    "_data-prepper/pipelines/configuration/processors/otel-apm-service-map.md",
    "_data-prepper/pipelines/configuration/processors/rename-keys.md",
    "_data-prepper/pipelines/has-tags.md",
    "_ingest-pipelines/conditional-execution.md",
    "_mappings/mapping-parameters/fields.md",
    "_mappings/mapping-parameters/similarity.md",
    "_mappings/supported-field-types/range.md",
    "_ml-commons-plugin/api/mcp-server-apis/index.md",
    "_ml-commons-plugin/api/memory-apis/delete-memory.md",
    "_ml-commons-plugin/api/tasks-apis/delete-task.md",
    "_observing-your-data/exploring-observability-data/discover-metrics.md",
    "_observing-your-data/query-insights/top-n-queries.md",
    "_query-dsl/span/span-first.md",
    "_search-plugins/search-pipelines/creating-search-pipeline.md",
    "_search-plugins/search-pipelines/retrieving-search-pipeline.md",
    "_search-plugins/ubi/ubi-aws-managed-services-tutorial.md",
    "_security-analytics/log-types-reference/other.md",
    "_security/access-control/document-level-security.md",
    "_sql-and-ppl/ppl/commands/convert.md",
    "_sql-and-ppl/ppl/commands/showdatasources.md",
    "_sql-and-ppl/sql/aggregations.md",
    "_vector-search/ai-search/multimodal-search.md",
    "release-notes/opensearch-documentation-release-notes-2.7.0.md",
    "release-notes/opensearch-documentation-release-notes-3.5.0.md",
    "style-guide/MARKDOWN_FORMATTING_GUIDE.md",
)

CUAD_CONTRACTS = (
    # from the golden digests' every-3rd selection
    "AlliedEsportsEntertainmentInc_20190815_8-K_EX-10.19_11788293_EX-10.19_Content License"
    " Agreement.txt",  # $…M suffixes
    "DYNAMEXINC_06_06_1996-EX-10.4-TRANSPORTATION SERVICES AGREEMENT.txt",  # 40 headings
    "GridironBionutrientsInc_20171206_8-K_EX-10.1_10972555_EX-10.1_Endorsement Agreement.txt",
    "KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.txt",  # scale words, US$
    "PACIRA PHARMACEUTICALS, INC. - A_R STRATEGIC LICENSING, DISTRIBUTION AND MARKETING"
    " AGREEMENT .txt",  # 29 redactions $[*****]
    "SFGFINANCIALCORP_05_12_2009-EX-10.1-SOFTWARE LICENSE AND MAINTENANCE AGREEMENT.txt",
    "XinhuaSportsEntertainmentLtd_20070221_F-1_EX-99.4_645553_EX-99.4_Content License"
    " Agreement.txt",
    # not in that selection: the pounds
    "WPPPLC_04_30_2020-EX-4.28-SERVICE AGREEMENT.txt",
)

REAL_DOCS = (
    "README.md",
    "docx/affars-pgi-5307-acquisition-planning.docx",
    "docx/disa-dars-part-01.docx",
    "html/affars-pgi-5307-acquisition-planning.html",
    "html/fehbar-part-1652-fehb-contract-clauses.html",
    "html/vaar-part-801.html",
    "pdf/copyright-office-dmca-summary-1998-encrypted.pdf",
    "pdf/federal-register-2020-17221-three-column.pdf",
    "pdf/huckleberry-finn-p22-scan-no-text-layer.pdf",
    "pdf/irs-p525-2023-taxable-and-nontaxable-income.pdf",
    "pdf/senate-expenditures-2019-table.pdf",
)

CRANFIELD_QUERIES = 40
"""The first queries of ``derived/queries.jsonl`` (ids 1–40), with all their judgments."""

CRANFIELD_LEADING = 120
"""The first abstracts of ``derived/corpus.jsonl``, kept whether judged or not."""

TATQA_CONTEXTS = 80
"""The first contexts of the development split."""


def _copy(source: Path, target: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / name, target / name)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def opensearch_docs(source: Path, target: Path) -> None:
    _copy(source, target, OPENSEARCH_DOCS)


def cuad_contracts(source: Path, target: Path) -> None:
    _copy(source, target, ("CUAD_v1_README.txt",))
    _copy(source, target, tuple(f"contracts/{name}" for name in CUAD_CONTRACTS))
    kept = {f"contracts/{name}" for name in CUAD_CONTRACTS}
    rows = [line for line in _lines(source / "manifest.jsonl") if json.loads(line)["file"] in kept]
    assert len(rows) == len(kept), "a kept contract has no manifest row"
    (target / "manifest.jsonl").write_text("".join(rows), encoding="utf-8")


def real_docs(source: Path, target: Path) -> None:
    _copy(source, target, REAL_DOCS)
    header, *rows = _lines(source / "MANIFEST.tsv")
    kept = [row for row in rows if row.split("\t", 1)[0] in REAL_DOCS]
    assert len(kept) == len(REAL_DOCS) - 1, "a kept document has no manifest row"
    (target / "MANIFEST.tsv").write_text(header + "".join(kept), encoding="utf-8")


def cranfield(source: Path, target: Path) -> None:
    _copy(source, target, ("cranqrel.readme",))
    derived, out = source / "derived", target / "derived"
    out.mkdir(parents=True, exist_ok=True)
    queries = [
        line
        for line in _lines(derived / "queries.jsonl")
        if int(json.loads(line)["_id"]) <= CRANFIELD_QUERIES
    ]
    header, *rows = _lines(derived / "qrels.tsv")
    judgments = [row for row in rows if int(row.split("\t", 1)[0]) <= CRANFIELD_QUERIES]
    judged = {row.split("\t")[1] for row in judgments}
    abstracts = [
        line
        for n, line in enumerate(_lines(derived / "corpus.jsonl"))
        if n < CRANFIELD_LEADING or json.loads(line)["_id"] in judged
    ]
    (out / "queries.jsonl").write_text("".join(queries), encoding="utf-8")
    (out / "qrels.tsv").write_text(header + "".join(judgments), encoding="utf-8")
    (out / "corpus.jsonl").write_text("".join(abstracts), encoding="utf-8")
    result = bm25_reference(out)
    (out / "bm25_reference_output.txt").write_text(
        f"cranfield slice: docs {len(abstracts)} queries {len(queries)} "
        f"qrel queries {len({row.split(chr(9))[0] for row in judgments})} qrels {len(judgments)}\n"
        f"cranfield slice BM25 stem=True (title + abstract, depth 1000) {result}\n",
        encoding="utf-8",
    )


def tatqa_dev(source: Path, target: Path) -> None:
    contexts = json.loads((source / "tatqa_dataset_dev.json").read_text(encoding="utf-8"))
    text = json.dumps(contexts[:TATQA_CONTEXTS], indent=2, ensure_ascii=False) + "\n"
    (target / "tatqa_dataset_dev.json").write_text(text, encoding="utf-8")


READMES = {
    "opensearch-docs": """\
36 of the 1,818 Markdown files of the OpenSearch documentation website
(https://github.com/opensearch-project/documentation-website, commit cf95a341,
2026-08-21), byte for byte, at their paths in that repository.

Licence: Apache License 2.0, Copyright OpenSearch contributors. LICENSE and
NOTICE beside this file are the project's own. Nothing was changed; files were
only left out.
""",
    "cuad-contracts": """\
8 of the 510 contracts of the Contract Understanding Atticus Dataset (CUAD) v1,
by The Atticus Project (https://www.atticusprojectai.org/cuad; Hendrycks et al.,
"CUAD: An Expert-Annotated NLP Dataset for Legal Contract Review", 2021),
as plain text (contracts/), byte for byte; the contracts are exhibits filed
publicly with the SEC (EDGAR). CUAD_v1_README.txt is the dataset's own README.
manifest.jsonl counts the money formats per kept file with regular
expressions (a regex count, not a gold standard).

Licence: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). Changes:
a selection of files; nothing in a file was changed.
""",
    "real-docs": """\
10 of the 13 real PDF, Word and HTML documents of the shared real-docs corpus,
byte for byte. README.md and MANIFEST.tsv are that corpus's own: README.md
describes all 13 (source repository, path, commit, licence basis, what was
checked), MANIFEST.tsv lists the 10 kept with their checksums.

Licence: works of the US federal government, public domain in the US
(17 U.S.C. § 105); the scanned page is from a book of 1884 whose copyright has
expired.
""",
    "cranfield": """\
A slice of the Cranfield-1400 test collection (the classic collection as
distributed by the Glasgow IR group), in the BEIR-style files of the shared
corpus's derived/: queries 1-40 (numbered by position, as the judgments
number them), every judgment of those queries, and the abstracts they judge
together with the collection's first 120; every line is copied unchanged, in
the collection's order. Relevance: Cleverdon's codes 1-4 are scores 4-1; code
-1 (a query's own source document) is score 0. cranqrel.readme is the
judgments' own note.

derived/bm25_reference_output.txt is plain BM25 (k1 1.2, b 0.75, Porter
stemming, Lucene's English stop words, title + abstract, depth 1,000) on this
slice, computed by scripts/corpus_slices.py without osrag; on the whole
collection the same code gives MAP 0.3065, nDCG@10 0.3680, P@10 0.2342, where
the collection's reference is 0.3066, 0.3681, 0.2342.

Licence: none is stated by the source.
""",
    "tatqa-dev": """\
The first 80 of the 278 contexts of the TAT-QA development split
(https://github.com/NExTplusplus/TAT-QA, dataset_raw/tatqa_dataset_dev.json),
written as the dataset writes them (JSON, two-space indent, UTF-8): each
context a table from a company's annual report, its paragraphs, and the
questions asked of it with their answers, derivations, scales and the
paragraphs or cells they come from.

Licence: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/), by Fengbin
Zhu et al., "TAT-QA: A Question Answering Benchmark on a Hybrid of Tabular and
Textual Content in Finance", ACL 2021. Changes: a selection of contexts;
nothing in a context was changed.
""",
}
"""Each slice's ``README``: where it comes from, its licence, what was left out."""

SLICERS = {
    "opensearch-docs": opensearch_docs,
    "cuad-contracts": cuad_contracts,
    "real-docs": real_docs,
    "cranfield": cranfield,
    "tatqa-dev": tatqa_dev,
}

# --------------------------------------------------------------------------- the BM25 reference

LUCENE_ENGLISH_STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    }
)
"""Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (OpenSearch's ``_english_`` stop words),
written out here rather than imported from ``osrag.engines.mapping``: this BM25 reference
judges osrag's retrieval, so it shares none of osrag's code."""


def _analyzer() -> Callable[[str], list[str]]:
    from nltk.stem.porter import PorterStemmer  # the dev environment has NLTK (llama-index)

    stem = functools.lru_cache(maxsize=None)(
        PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM).stem
    )

    def terms(text: str) -> list[str]:
        words = re.findall(r"[a-z0-9]+", text.lower())
        return [stem(w) for w in words if w not in LUCENE_ENGLISH_STOP_WORDS]

    return terms


def bm25_reference(folder: Path, k1: float = 1.2, b: float = 0.75) -> dict[str, float]:
    """MAP, nDCG@10 and P@10 of plain BM25 over a BEIR folder, scored by trec_eval."""
    import pytrec_eval

    terms = _analyzer()
    docs = [json.loads(line) for line in _lines(folder / "corpus.jsonl")]
    queries = [json.loads(line) for line in _lines(folder / "queries.jsonl")]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with (folder / "qrels.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels[row["query-id"]][row["corpus-id"]] = max(0, int(row["score"]))
    lengths: dict[str, int] = {}
    postings: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for doc in docs:
        counts = Counter(terms(f"{doc['title']} {doc['text']}"))
        lengths[doc["_id"]] = sum(counts.values())
        for term, count in counts.items():
            postings[term].append((doc["_id"], count))
    n, mean = len(docs), sum(lengths.values()) / len(docs)
    runs: dict[str, dict[str, float]] = {}
    for query in queries:
        if query["_id"] not in qrels:
            continue
        scores: defaultdict[str, float] = defaultdict(float)
        for term in terms(query["text"]):
            df = len(postings.get(term, ()))
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for doc_id, tf in postings.get(term, ()):
                norm = k1 * (1 - b + b * lengths[doc_id] / mean)
                scores[doc_id] += idf * tf * (k1 + 1) / (tf + norm)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:1000]
        runs[query["_id"]] = dict(ranked)
    judged = {q: qrels[q] for q in runs}
    per_query = pytrec_eval.RelevanceEvaluator(judged, {"map", "ndcg_cut_10", "P_10"}).evaluate(
        runs
    )

    def mean_of(measure: str) -> float:
        return round(sum(m[measure] for m in per_query.values()) / len(per_query), 4)

    return {
        "queries": len(per_query),
        "MAP": mean_of("map"),
        "nDCG10": mean_of("ndcg_cut_10"),
        "P10": mean_of("P_10"),
    }


# --------------------------------------------------------------------------- main


def _differences(left: Path, right: Path) -> list[str]:
    files = {
        p.relative_to(root).as_posix()
        for root in (left, right)
        for p in root.rglob("*")
        if p.is_file()
    }
    return sorted(
        f
        for f in files
        if not (left / f).is_file()
        or not (right / f).is_file()
        or not filecmp.cmp(left / f, right / f, shallow=False)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the slices, write nothing"
    )
    args = parser.parse_args(argv)
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA} (set OSRAG_SHARED to the folder holding corpora/)")
        return 2
    changed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, slicer in SLICERS.items():
            built = Path(tmp) / name
            built.mkdir()
            slicer(CORPORA / name, built)
            (built / "README").write_text(READMES[name], encoding="utf-8")
            differ = _differences(built, SLICES / name)
            size = sum(p.stat().st_size for p in built.rglob("*") if p.is_file())
            files = sum(1 for p in built.rglob("*") if p.is_file())
            state = f"{len(differ)} files differ" if differ else "as committed"
            print(f"{name:<16} {files:>3} files {size / 1e6:5.2f} MB  {state}")
            changed += bool(differ)
            if differ and not args.check:
                shutil.rmtree(SLICES / name, ignore_errors=True)
                shutil.copytree(built, SLICES / name, dirs_exist_ok=True)
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
