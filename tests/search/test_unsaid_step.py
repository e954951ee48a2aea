"""A narrowed or per-unit step whose hits say no word of the question's subject steps down
(osrag.search.ladder, UNSAID_STEPS), and a bound step on a bare word of price: the ladder
pure, then the search on OpenSearch, Elasticsearch and the embedded index. What each
question must return is written beside it, read from the documents."""

from __future__ import annotations

import pytest
from backend_cases import BackendCase, ingested_fixture

from osrag.search.ladder import UNSAID_LEAST, Ladder
from osrag.search.query import plan_query
from osrag.search.results import Ran
from osrag.search.searcher import Searcher

QUESTION = "solar installation contracts worth more than $30,000"


def left(candidates: int, subject: tuple[str, ...] = (), *, unsaid: bool = False) -> Ran:
    """A step's answer: ``candidates`` left, none of its hits saying the subject (``unsaid``)."""
    return Ran([], candidates, candidates, None, subject, unsaid)


SUBJECT = ("solar", "installation")


def test_a_step_whose_hits_say_no_subject_word_steps_down_and_the_lower_one_answers() -> None:
    ladder: Ladder[Ran] = Ladder(plan_query(QUESTION))
    assert ladder.step == "bound"
    assert ladder.after(left(0, SUBJECT)) == "narrowed"
    assert ladder.after(left(1, SUBJECT, unsaid=True)) == "role-free"
    said = left(2, SUBJECT)
    assert ladder.after(said) is None
    assert ladder.settled(said) is said and ladder.step == "role-free"
    assert [(s.step, s.candidates, s.unsaid) for s in ladder.tried] == [
        ("bound", 0, False),
        ("narrowed", 1, True),
        ("role-free", 2, False),
    ]


def test_when_no_lower_step_says_the_subject_the_first_step_left_answers() -> None:
    ladder: Ladder[Ran] = Ladder(plan_query(QUESTION))
    ladder.after(left(0, SUBJECT))
    narrowed = left(1, SUBJECT, unsaid=True)
    assert ladder.after(narrowed) == "role-free"
    lower = left(2, SUBJECT, unsaid=True)
    assert ladder.after(lower) is None  # "none" is below: never stepped to for the subject
    assert ladder.settled(lower) is narrowed and ladder.step == "narrowed"


@pytest.mark.parametrize("step_answers", [0, 1])
def test_the_bound_step_and_a_short_subject_never_step_down_for_the_subject(
    step_answers: int,
) -> None:
    ladder: Ladder[Ran] = Ladder(plan_query(QUESTION))
    if step_answers:  # the narrowed step, its subject one word
        ladder.after(left(0, SUBJECT))
        one = SUBJECT[:1]
        assert len(one) < UNSAID_LEAST
        assert ladder.after(left(1, one, unsaid=True)) is None
        assert ladder.step == "narrowed"
    else:  # the bound filter holds the quantity as named: it answers
        assert ladder.after(left(3, SUBJECT, unsaid=True)) is None
        assert ladder.step == "bound"


@pytest.mark.parametrize(
    ("question", "steps_down"),
    [
        # a lone verb of pricing names a bare charge: a figure of any document
        ("notaries charging $15 or less per signature", True),
        ("locksmiths billing more than $90 an hour", True),
        # a named charge holds the quantity as named
        ("box offices with a handling charge over $5", False),
    ],
)
def test_a_bound_step_on_a_bare_word_of_price_steps_down_as_the_narrowed_step_does(
    question: str, steps_down: bool
) -> None:
    plan = plan_query(question)
    ladder: Ladder[Ran] = Ladder(plan)
    assert ladder.step == "bound"
    subject = ("notaries", "signature")
    after = ladder.after(left(1, subject, unsaid=True))
    assert (after is not None) is steps_down, [c.label for c in plan.constraints]


# --------------------------------------------------------------------------- search

DOCUMENTS = {
    # a cleaning firm's contract value, $32,000: a contract's worth, no solar installation
    "brightway-cleaning": (
        "# Brightway Office Cleaning\n\n"
        "Cleaning services agreement for the Harbor Street offices.\n\n"
        "Contract value: $32,000.00\n"
    ),
    # a solar installer's proposal, $31,500, labelled as no contract's value
    "helios-solar": (
        "# Helios Solar\n\nProposal for a 9 kW rooftop solar installation.\n\n"
        "System price: $31,500.00\n"
    ),
    # under every bound asked here
    "lantern-bakery": (
        "# Lantern Bakery\n\nCatering order for the spring fair.\n\nOrder total: $640.00\n"
    ),
}


documents = ingested_fixture(DOCUMENTS, "unsaid", embedder="default")


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_narrowed_step_holding_another_familys_figure_steps_down_to_the_subjects(
    documents: BackendCase, mode: str
) -> None:
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    floors = {"lexical_floor": 0, "vector_floor": 0}
    found = searcher.search(QUESTION, mode=mode, k=10, **floors)
    steps = [(s.step, s.candidates, s.unsaid) for s in found.amount_steps]
    assert steps == [("bound", 0, False), ("narrowed", 1, True), ("role-free", 2, False)]
    assert found.amount_step == "role-free"
    assert [h.doc_id for h in found.hits] == ["helios-solar"]


@pytest.mark.parametrize(
    ("question", "step"),
    [
        # no lower step says "bakery" or "catering" over $30,000: the narrowed figure stands
        ("bakery catering contracts worth more than $30,000", "narrowed"),
        # one word of subject: too little to step down for
        ("solar contracts worth more than $30,000", "narrowed"),
        # the bound filter holds the contract's value and its subject is said
        ("office cleaning contracts worth more than $30,000", "bound"),
    ],
)
def test_the_narrowed_figure_stands_where_no_step_below_says_more(
    documents: BackendCase, question: str, step: str
) -> None:
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    found = searcher.search(question, mode="bm25", k=10, lexical_floor=0)
    assert found.amount_step == step
    assert [h.doc_id for h in found.hits] == ["brightway-cleaning"]
