"""A fact says whose figure it is and for which part of the year — stored on every engine,
and filtered there: a question asking for the document's own full-year figure never gets a
region's, a quarter's, an adjusted figure or an invoice line, and a question naming one gets
it.

The documents are ingested (their facts are what the extraction reads); the constraints
are a question's as the parser reads it, with the scope and the part of the year a question
naming them asks for (the filter of :mod:`osrag.search.fact_filters`, compiled by each
engine). What each returns is written next to it, read from the documents by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case

from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.schema.filters import NamedFilter
from osrag.schema.plan import SearchPlan, TextLeg
from osrag.search.fact_filters import fact_filter
from osrag.search.query import plan_query

DOCUMENTS = {
    # a year's revenue by region: $2,140M Americas, $1,610M EMEA, $3,750M in all
    "acme-regions": """# Acme Corp

## Revenue by geographic area

| (in millions) | Fiscal 2023 |
|---|---|
| Americas | $ 2,140 |
| EMEA | 1,610 |
| Total revenue | $ 3,750 |
""",
    # the quarters of a year and the full year: Q4 $268M, the year $944M
    "lumen-quarters": """# Lumen quarterly results

(in millions of dollars)

| 2023 | First Quarter | Fourth Quarter | Full Year |
|---|---|---|---|
| Revenue | 212 | 268 | 944 |
""",
    # a GAAP line and its adjusted figure: operating income $612M, adjusted $655M
    "orrin-nongaap": """# Orrin results

| ($ in millions) | 2023 |
|---|---|
| Operating income | $ 612 |
| Adjusted operating income | $ 655 |
""",
    # an invoice: a $4,500 line, its $7,110 total
    "po-7734": """# Purchase order 7734

| Item | Qty | Unit price | Total |
|---|---|---|---|
| IV start kit | 120 | $37.50 | $4,500.00 |
| Order total | | | $7,110.00 |
""",
}


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def corpus(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    folder = tmp_path_factory.mktemp("scopes")
    for name, text in DOCUMENTS.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    case = open_case(request, request.param, tmp_path_factory.mktemp("scopes-index"))
    ingest(folder, case.backend, IngestOptions(alias=case.alias))
    yield case
    case.purge()


def _found(case: BackendCase, question: str, **asked: object) -> set[str]:
    """The documents holding one fact that meets the question's constraint, with the
    scope and part of the year ``asked`` (the document's own full year by default)."""
    (constraint,) = plan_query(question).constraints
    constraint = constraint.model_copy(update=asked)
    plan = SearchPlan(
        mode="bm25",
        text=TextLeg(""),
        vector=None,
        guards=(),
        filters=(NamedFilter("amount", fact_filter(constraint)),),
        size=20,
    )
    (result,) = case.backend.search(case.alias, [plan])
    return {h.doc_id for h in result.hits}


CASES: list[tuple[str, dict[str, object], set[str]]] = [
    # the company's own revenue: the total, never a region's
    ("revenue over $1 billion", {}, {"acme-regions"}),
    ("revenue under $3 billion", {}, {"lumen-quarters"}),  # the year's $944M, not Americas
    ("revenue over $2 billion", {"scope": "region", "scope_name": "americas"}, {"acme-regions"}),
    ("revenue over $2 billion", {"scope": "region", "scope_name": "emea"}, set()),
    # a quarter's figure, or the year's
    ("revenue over $250 million", {"period_part": "q4"}, {"lumen-quarters"}),
    ("revenue under $300 million", {}, set()),  # the year's $944M: no quarter answers
    ("revenue under $300 million", {"period_part": "q1"}, {"lumen-quarters"}),
    # the GAAP line, or the adjusted figure
    ("operating income over $620 million", {}, set()),
    ("operating income over $620 million", {"scope": "adjusted"}, {"orrin-nongaap"}),
    # a document's total, or one of its lines
    ("total over $5,000", {}, {"po-7734"}),
    ("total under $5,000", {}, set()),  # the $4,500 is a line, not the order's total
]


@pytest.mark.parametrize(("question", "asked", "expected"), CASES)
def test_a_fact_meets_a_question_only_on_its_scope_and_part(
    corpus: BackendCase, question: str, asked: dict[str, object], expected: set[str]
) -> None:
    assert _found(corpus, question, **asked) == expected, (question, asked)
