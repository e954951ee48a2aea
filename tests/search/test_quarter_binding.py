"""A question that names a quarter asks for that quarter's figure, never the year's.

"revenue in Q4 2019 over $80 million" binds to revenue, 2019 and the fourth quarter: a
fact of a table's fourth-quarter column meets it, the year's revenue does not; and a
quarter's revenue never answers a question about the year ("revenue under $90 million
in 2019"). Bound on every engine; what each query returns is written next to it, read
from the two reports by hand.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case

from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.lexicon.scopes import read_scope
from osrag.schema.filters import AllOf, Nested, Term, Terms
from osrag.search.fact_filters import LABEL_KEYS, PERIOD_PART, fact_filter
from osrag.search.query import plan_query
from osrag.search.searcher import Searcher


@pytest.mark.parametrize(
    ("question", "label", "year", "quarter"),
    [
        ("revenue in Q4 2019 over $80 million", "revenue", 2019, 4),
        ("fourth quarter revenue above $50 million", "revenue", None, 4),
        ("revenue in the fourth quarter of 2019 over $50 million", "revenue", 2019, 4),
        ("net sales for the 2nd quarter of 2018 under $2 billion", "net sales", 2018, 2),
        ("3Q net income above $1 million", "net income", None, 3),
        ("revenue over $50 million in 2019", "revenue", 2019, None),
        ("deductible under $1,000", "deductible", None, None),
    ],
)
def test_a_stated_quarter_binds_beside_the_label_and_leaves_it(
    question: str, label: str, year: int | None, quarter: int | None
) -> None:
    (c,) = plan_query(question).constraints
    assert (c.label, c.year, c.quarter) == (label, year, quarter)


def test_two_quarters_name_no_one_quarter() -> None:
    (c,) = plan_query("revenue in Q1 and Q2 over $5 million").constraints
    assert c.quarter is None


@pytest.mark.parametrize(
    ("words", "part"),
    [
        (["fourth", "quarter"], "q4"),
        (["Q3"], "q3"),
        (["3Q19"], "q3"),
        (["First"], None),  # an ordinal alone: first lien, first half …
        (["Quarter"], "part"),
        (["Three", "months"], "part"),
    ],
)
def test_the_part_of_the_year_words_name(words: list[str], part: str | None) -> None:
    assert read_scope(words).period_part == part


def test_a_quarter_is_asked_as_the_facts_period_part_beside_the_plain_keys() -> None:
    (c,) = plan_query("revenue in Q4 2019 over $80 million").constraints
    nested = fact_filter(c)
    assert isinstance(nested, Nested) and isinstance(nested.item, AllOf)
    terms = [f for f in nested.item.items if isinstance(f, Term | Terms)]
    assert Term(PERIOD_PART, "q4") in terms
    keys = {k for f in terms if f.field == LABEL_KEYS for k in _values(f)}
    assert "revenue" in keys and not any(k.endswith(" q4") for k in keys)


def _values(f: Term | Terms) -> tuple[object, ...]:
    return (f.value,) if isinstance(f, Term) else tuple(f.values)


REPORTS = {
    # revenue by quarter of fiscal 2019, in thousands: Q4 is $84.4 million, the year $363.8M
    "acme-quarters": """# Acme Corp quarterly results

(in thousands)

|  | First Quarter | Second Quarter | Third Quarter | Fourth Quarter | Total |
|---|---|---|---|---|---|
| Fiscal 2019 |  |  |  |  |  |
| Revenues | $ 94,888 | $ 96,037 | $ 88,495 | $ 84,380 | $ 363,800 |
""",
    # the year's revenue only: $85.0 million in 2019
    "beta-annual": """# Beta Inc annual results

(in thousands)

|  | 2019 | 2018 |
|---|---|---|
| Revenues | $ 85,000 | $ 79,000 |
""",
}


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def reports(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    folder = tmp_path_factory.mktemp("quarters")
    for name, text in REPORTS.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    case = open_case(request, request.param, tmp_path_factory.mktemp("quarters-index"))
    ingest(folder, case.backend, IngestOptions(alias=case.alias))
    yield case
    case.purge()


@pytest.mark.parametrize(
    ("question", "documents"),
    [
        ("revenue in Q4 2019 over $80 million", ["acme-quarters"]),  # beta: the year's $85M
        ("fourth quarter revenue of at least $84 million", ["acme-quarters"]),
        ("revenue under $90 million in 2019", ["beta-annual"]),  # acme: quarters, not the year
        ("revenue over $300 million in 2019", ["acme-quarters"]),  # acme's Total column
    ],
)
def test_a_quarter_answers_its_question_and_never_the_years(
    reports: BackendCase, question: str, documents: list[str]
) -> None:
    result = Searcher(reports.backend, alias=reports.alias).search(question, k=5, mode="bm25")
    assert result.amount_step == "bound", question
    assert sorted({hit.doc_id for hit in result.hits}) == documents, question
