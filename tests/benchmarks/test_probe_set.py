"""The probe set of ``benchmarks/data/probe`` is well-formed.

Families osrag's rules were not built on (bills, payslips, fee statements, explanations of
benefits, vehicle agreements, freight quotes, service agreements, venue contracts); its gold
was read by hand by the protocol of the development set and fixed before any run. These
tests check it without osrag's extraction, constraint parser or filter, with the small
amount reader of the development set's tests: every holder exists, its evidence is a
sentence or row of its document writing an amount that meets the question's constraint,
the families list the documents folder, and the Word and PDF files are their sources' build.
The query file is read by ``osrag eval``'s own loader, and the benchmark loads the set and
its families as it loads the development set.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_families_set import _Text, assert_evidence_holds

from osrag.evaluation import load_query_set

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "families"))
import build  # the Word and PDF documents' generator
import quantity_precision

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "benchmarks" / "data" / "probe"
DOCUMENTS = SET / "documents"
SOURCES = SET / "sources"
QUESTIONS = [json.loads(line) for line in (SET / "queries.jsonl").read_text("utf-8").splitlines()]
FAMILIES: dict[str, dict[str, Any]] = json.loads((SET / "families.json").read_text("utf-8"))[
    "families"
]
FILES = {p.relative_to(DOCUMENTS).as_posix(): p for p in DOCUMENTS.glob("*/*") if p.is_file()}
DOCS = {name.rsplit(".", 1)[0]: path for name, path in FILES.items()}
DEVELOPMENT = json.loads(
    (ROOT / "benchmarks" / "data" / "families" / "families.json").read_text("utf-8")
)["families"]


def text_of(doc: str) -> str:
    """A document's text: as written, its visible text (HTML), or its source's (Word, PDF)."""
    path = DOCS[doc]
    if path.suffix == ".html":
        parser = _Text()
        parser.feed(path.read_text(encoding="utf-8"))
        return " ".join(parser.parts)
    if path.suffix in (".docx", ".pdf"):
        return (SOURCES / path.parent.name / f"{path.name}.md").read_text(encoding="utf-8")
    return path.read_text(encoding="utf-8")


def test_the_families_are_new_and_list_exactly_the_documents_folder() -> None:
    assert not set(FAMILIES) & set(DEVELOPMENT)
    listed = {name for f in FAMILIES.values() for name in f["documents"]}
    assert listed == set(FILES)
    for family, f in FAMILIES.items():
        assert all(name.split("/")[0] == family for name in f["documents"])
        assert 3 <= len(f["documents"]) <= 5, family


def test_there_are_enough_documents_questions_and_forms() -> None:
    assert len(FAMILIES) >= 6 and len(DOCS) >= 30 and len(QUESTIONS) >= 45
    per_family = Counter(q["family"] for q in QUESTIONS)
    assert set(per_family) == set(FAMILIES) and min(per_family.values()) >= 5, per_family
    assert {c["op"] for c in (q["constraint"] for q in QUESTIONS)} == {
        "gt", "gte", "lt", "lte", "eq", "between",
    }  # fmt: skip
    assert {q["constraint"]["currency"] for q in QUESTIONS} == {"USD", "GBP"}
    assert set(Counter(name.rsplit(".", 1)[1] for name in FILES)) == {
        "md", "txt", "html", "docx", "pdf",
    }  # fmt: skip


def test_the_word_and_pdf_documents_are_their_sources_build() -> None:
    assert build.stale("probe") == []


def test_every_holder_exists_and_every_question_has_one() -> None:
    assert len({q["id"] for q in QUESTIONS}) == len(QUESTIONS)
    for q in QUESTIONS:
        holders, unjudged = set(q["holders"]), set(q["unjudged"])
        assert holders and holders <= set(DOCS) and unjudged <= set(DOCS), q["id"]
        assert not holders & unjudged and q["relevant"] == q["holders"], q["id"]
        assert set(q["evidence"]) == holders == set(q["values"]), q["id"]
        assert q["family"] in FAMILIES and q["note"], q["id"]


@pytest.mark.parametrize("question", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_each_holders_evidence_is_in_its_document_and_writes_an_amount_meeting_the_constraint(
    question: dict[str, Any],
) -> None:
    assert_evidence_holds(question, text_of)


def test_osrag_eval_and_the_benchmark_read_the_set() -> None:
    query_set = load_query_set(SET / "queries.jsonl")
    assert query_set.warnings == []
    assert {q.id: q.holders for q in query_set.queries} == {
        q["id"]: q["holders"] for q in QUESTIONS
    }
    corpus, loaded = quantity_precision.families_set(SET)
    assert corpus == DOCUMENTS and len(loaded.queries) == len(QUESTIONS)
    family, no_profile = quantity_precision.families_of_queries(SET)
    assert family == {q["id"]: q["family"] for q in QUESTIONS}
    assert no_profile == {name for name, f in FAMILIES.items() if f["no_profile"]}
