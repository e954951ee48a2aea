"""The contract of a bound amount constraint, end to end: policies written as text, ingested
(the extraction gives each amount its label), searched on OpenSearch, Elasticsearch and the
embedded index in bm25, vector and hybrid mode.

A policy with a $450 premium, a $500 deductible and a $1,000,000 limit:

* "deductible under $1,000" returns it through its deductible;
* "deductible under $480" does not: its deductible is $500. A role-free filter (any
  amount under $480) would pass it through the $450 premium — the bound filter refuses it,
  and returns the policy whose deductible is $300;
* "limit over $500,000" returns it, "deductible over $500,000" does not.

Ranges in euros and pounds bind to their quantity too. The tenant, ACL and as-of-date guards
hold at every step of the amount ladder: policies of another tenant, of another group, or
no longer in force hold deductibles that would pass every amount step, and never come back.
What each query must return is written next to it, read from the policies by hand.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case

from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import SearchResult
from osrag.search.searcher import Searcher

POLICIES = {
    # the contract's policy: a $450 premium, a $500 deductible, a $1,000,000 limit
    "acme-umbrella": """---
id: acme-umbrella
title: Acme Umbrella Plus
tenant: acme
acl: [agents]
effective_from: 2024-01-01
---

# Acme Umbrella Plus

Personal umbrella liability policy above the home and auto policies.

- Annual premium: $450
- Deductible: $500
- Limit: $1,000,000
""",
    # a $300 deductible under a $2,000 premium and a $250,000 limit
    "acme-home": """---
id: acme-home
title: Acme Home Basic
tenant: acme
acl: [agents]
effective_from: 2024-01-01
---

# Acme Home Basic

Homeowners policy for a single-family house.

- Annual premium: $2,000
- Deductible: $300
- Limit: $250,000
""",
    # amounts in euros and in pounds
    "acme-travel": """---
id: acme-travel
title: Acme Travel Europe
tenant: acme
acl: [agents]
effective_from: 2024-01-01
---

# Acme Travel Europe

Travel policy for trips in the Schengen area and the United Kingdom.

- Medical cover: €250,000
- Excess: €150
- Baggage cover: £2,500
""",
    # guarded: each holds a deductible under $150, and nothing else an acme agent may see does
    "globex-umbrella": """---
id: globex-umbrella
title: Globex Umbrella
tenant: globex
acl: [agents]
effective_from: 2024-01-01
---

# Globex Umbrella

Personal umbrella liability policy of another insurer.

- Deductible: $100
""",
    "acme-underwriting": """---
id: acme-underwriting
title: Acme Umbrella Underwriting Sheet
tenant: acme
acl: [underwriters]
effective_from: 2024-01-01
---

# Acme Umbrella Underwriting Sheet

Personal umbrella liability terms for underwriters only.

- Deductible: $120
""",
    "acme-umbrella-2019": """---
id: acme-umbrella-2019
title: Acme Umbrella 2019
tenant: acme
acl: [agents]
effective_from: 2019-01-01
superseded_on: 2021-01-01
---

# Acme Umbrella 2019

Personal umbrella liability policy, withdrawn.

- Deductible: $130
""",
}
GUARDED = {"globex-umbrella", "acme-underwriting", "acme-umbrella-2019"}
AS_OF = dt.date(2025, 6, 1)
MODES = ("bm25", "vector", "hybrid")


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def policies(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    """The policies above, ingested with vectors from the offline default model."""
    folder = tmp_path_factory.mktemp("bound-contract")
    source = folder / "policies"
    source.mkdir()
    for name, text in POLICIES.items():
        (source / f"{name}.md").write_text(text, encoding="utf-8")
    case = open_case(request, request.param, folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(folder / "vector-cache"))
        ingest(source, case.backend, IngestOptions(alias=case.alias, embedder="default"))
    yield case
    case.purge()


def _search(case: BackendCase, text: str, mode: str, **overrides: object) -> SearchResult:
    searcher = Searcher(case.backend, case.alias)
    return searcher.search(
        text, tenant="acme", acl=["agents"], as_of=AS_OF, mode=mode, k=20, **overrides
    )


def _docs(result: SearchResult) -> set[str]:
    return {h.doc_id for h in result.hits}


def _role_free(case: BackendCase, text: str, mode: str) -> SearchResult:
    """The same question with its constraints on any amount (the label taken off)."""
    searcher = Searcher(case.backend, case.alias)
    plan = searcher.plan(text, tenant="acme", acl=["agents"], as_of=AS_OF, mode=mode)
    free = [c.model_copy(update={"label": None, "context": None}) for c in plan.constraints]
    return _search(case, text, mode, constraints=free)


BOUND: dict[str, tuple[str, set[str]]] = {
    # query → (the label it binds to, the documents it returns)
    "deductible under $1,000": ("deductible", {"acme-umbrella", "acme-home"}),
    "deductible under $480": ("deductible", {"acme-home"}),
    "limit over $500,000": ("limit", {"acme-umbrella"}),
    "premium below $500 a year": ("premium", {"acme-umbrella"}),
    # ranges in euros and in pounds
    "excess between €100 and €200": ("excess", {"acme-travel"}),
    "medical cover between €200,000 and €300,000": ("medical cover", {"acme-travel"}),
    "baggage cover between £2,000 and £3,000": ("baggage cover", {"acme-travel"}),
}


@pytest.mark.parametrize("mode", MODES)
def test_a_bound_constraint_returns_the_policies_whose_named_quantity_meets_it(
    policies: BackendCase, mode: str
) -> None:
    for text, (label, expected) in BOUND.items():
        result = _search(policies, text, mode)
        (constraint,) = result.constraints
        assert constraint.label == label, text
        assert result.amount_step == "bound" and not result.fallback, (text, mode)
        assert [(s.step, s.candidates) for s in result.amount_steps] == [
            ("bound", len(expected))
        ], (text, mode)
        assert _docs(result) == expected, (text, mode)


@pytest.mark.parametrize("mode", MODES)
def test_the_bound_filter_refuses_what_a_role_free_filter_passes(
    policies: BackendCase, mode: str
) -> None:
    # any amount under $480: the umbrella policy's $450 premium passes it
    assert _docs(_role_free(policies, "deductible under $480", mode)) == {
        "acme-umbrella",
        "acme-home",
    }
    # the question names the deductible: the umbrella policy's is $500
    bound = _search(policies, "deductible under $480", mode)
    assert "acme-umbrella" not in _docs(bound)
    # a $1,000,000 amount that is a limit, not a deductible
    assert _docs(_role_free(policies, "deductible over $500,000", mode)) == {"acme-umbrella"}
    refused = _search(policies, "deductible over $500,000", mode)
    assert refused.amount_steps[0].step == "bound" and refused.amount_steps[0].candidates == 0


@pytest.mark.parametrize("mode", MODES)
def test_the_guards_hold_at_every_step_of_the_ladder(policies: BackendCase, mode: str) -> None:
    # bound: no deductible under $150 that an acme agent may see today
    #   (the guarded policies each hold one) → role-free: the €150 excess is no USD amount,
    #   and no USD amount under $150 is visible → no amount filter
    result = _search(policies, "deductible under $150", mode)
    assert [(s.step, s.candidates) for s in result.amount_steps] == [
        ("bound", 0),
        ("role-free", 0),
        ("none", result.candidate_count),
    ], mode
    assert result.fallback and result.hits
    assert not _docs(result) & GUARDED, mode
    assert [f.name for f in result.filters_applied] == ["tenant", "acl", "as_of"]
    # bound → role-free: no deductible over $400,000, a limit over it
    relaxed = _search(policies, "deductible over $400,000", mode)
    assert [s.step for s in relaxed.amount_steps] == ["bound", "role-free"], mode
    assert _docs(relaxed) == {"acme-umbrella"}
    assert {"tenant", "acl", "as_of"} <= {f.name for f in relaxed.filters_applied}
    # without the guards the guarded deductibles are there: the guards, not the data, hold
    open_search = Searcher(policies.backend, policies.alias, enforce_access=False)
    unguarded = open_search.search("deductible under $150", mode=mode, k=20)
    assert unguarded.amount_step == "bound" and _docs(unguarded) == GUARDED, mode


def test_every_engine_and_mode_answer_alike(policies: BackendCase) -> None:
    for text in BOUND:
        answers = {mode: _docs(_search(policies, text, mode)) for mode in MODES}
        assert len({frozenset(a) for a in answers.values()}) == 1, (text, answers)


KINDS = {
    # the kind in the singular in its title, the plural in the question
    "manifest-sm12": """# Shipping Manifest SM-12

Container load from the north terminal.

- Freight charge: $2,400
- Insurance surcharge: $150
""",
    # the kind in the plural in its title, the singular in the question; the same charge
    "repair-estimates": """# Repair Estimates

## Garage bay 3

Parts shipped from the coast depot.

- Freight charge: $3,100
- Labour: $800
""",
    # "Add-ons" heads the fees a question calls "add-on fees"; the booth fee is none
    "harbor-festival": """# Harbor Festival Vendor Guide

## Booths

- Corner booth fee: $1,200

## Add-ons

- Generator hookup fee: $900
- Awning rental: $300
""",
    # a vehicle purchase whose heading never says "purchase"; a private sale that does,
    # at a lower price
    "ridgeway-buyers-order": """# Ridgeway Motors — Buyer's Order

- Vehicle price: $27,450
- Trade-in allowance: $6,000
""",
    "private-sale": """# Bill of Sale — Motor Vehicle Purchase

- Vehicle price: $8,750
""",
    # what the plan paid, in a letter and in a statement's column
    "lakeshore-eob": """# Lakeshore Health — Claim Letter

- Amount billed: $2,890
- Amount plan paid: $1,019.20
- What you owe the provider: $1,686.80
""",
    "summit-eob": """# Summit Health Plan — Explanation of Benefits

- Amount billed: $1,450
- Plan paid: $782.40
- Your share: $537.20
""",
}
NAMED_KINDS: dict[str, list[tuple[str, int]]] = {
    # question → the amount steps it takes, with their candidates (read from KINDS by hand)
    "shipping manifests with a freight charge over $1,000": [("bound", 1)],
    "a repair estimate with a freight charge over $1,000": [("bound", 1)],
    "add-on fees over $500": [("bound", 0), ("narrowed", 1)],
    # the kind ranks, never excludes: no heading says "purchases", the price decides
    "vehicle purchases with a vehicle price over $25,000": [("bound", 0), ("narrowed", 1)],
    # what the plan paid, named by its verb
    "EOBs where the plan paid more than $1,000": [("bound", 1)],
    # the patient's share, as the statement says it to the patient
    "EOBs with a patient share over $500": [("bound", 1)],
}
KIND_DOCS = {
    "shipping manifests with a freight charge over $1,000": {"manifest-sm12"},
    "a repair estimate with a freight charge over $1,000": {"repair-estimates"},
    "add-on fees over $500": {"harbor-festival"},
    "vehicle purchases with a vehicle price over $25,000": {"ridgeway-buyers-order"},
    "EOBs where the plan paid more than $1,000": {"lakeshore-eob"},
    "EOBs with a patient share over $500": {"summit-eob"},
}


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def kinds(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    """The documents of :data:`KINDS`, ingested without vectors."""
    folder = tmp_path_factory.mktemp("named-kinds")
    source = folder / "documents"
    source.mkdir()
    for name, text in KINDS.items():
        (source / f"{name}.md").write_text(f"---\nid: {name}\n---\n\n{text}", encoding="utf-8")
    case = open_case(request, request.param, folder)
    ingest(source, case.backend, IngestOptions(alias=case.alias))
    yield case
    case.purge()


def test_a_kind_the_question_names_binds_the_same_documents_on_every_engine(
    kinds: BackendCase,
) -> None:
    # the kind's words are asked in the breadcrumb in either number: the Elasticsearch test
    # node analyses text without stemming ("manifests" is no "manifest" there, "ons" no
    # "on"), OpenSearch and the embedded index with it, and all three bind alike
    searcher = Searcher(kinds.backend, kinds.alias, enforce_access=False)
    for text, steps in NAMED_KINDS.items():
        result = searcher.search(text, mode="bm25", k=10, highlight=False)
        assert [(s.step, s.candidates) for s in result.amount_steps] == steps, text
        assert _docs(result) == KIND_DOCS[text], text
        assert all(h.money for h in result.hits) and not result.fallback, text
