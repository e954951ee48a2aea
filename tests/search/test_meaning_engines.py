"""A family no profile covers, end to end on OpenSearch, Elasticsearch and the embedded index:
telecom orders whose one-off charge is written "Installation charge", asked for as a "setup
fee". No key of one is a key of the other; the label vocabulary the ingest keeps matches them
by meaning (:mod:`osrag.search.meaning`), in bm25, vector and hybrid mode.

What each question must return is written beside it, read from the documents by hand:
"setup fee under $500" is the Northwind order's $450 installation charge — not the Bluebell
order, whose installation charge is $1,200 (its $45 monthly charge is another quantity),
nor the quote with a $25 late fee and a $300 deposit, which a role-free filter would pass.

Access: another tenant's order names its charge "Onboarding charge", and one of acme's
orders, readable by its finance group only, names it "Activation charge". Neither label is
ever matched, named or counted for a caller who cannot see its document — in the result,
its JSON and ``--explain``, at a threshold low enough to match either — and each is matched
for the caller who can.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, open_case

from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.models import SearchResult
from osrag.search.searcher import Searcher

DOCUMENTS = {
    "northwind-order": """---
id: northwind-order
title: Northwind Telecom — Service Order 4471
tenant: acme
---

# Northwind Telecom — Service Order 4471

| Item | Amount |
|---|---|
| Installation charge | $450.00 |
| Monthly charge | $89.00 |
""",
    "bluebell-order": """---
id: bluebell-order
title: Bluebell Networks — Order Form
tenant: acme
---

# Bluebell Networks — Order Form

| Item | Amount |
|---|---|
| Installation charge | $1,200.00 |
| Monthly charge | $45.00 |
""",
    "cedar-quote": """---
id: cedar-quote
title: Cedar Cabling — Quote
tenant: acme
---

# Cedar Cabling — Quote

- Late fee: $25
- Equipment deposit: $300
""",
    "finance-order": """---
id: finance-order
title: Dovetail Fibre — Private Order
tenant: acme
acl: [finance]
---

# Dovetail Fibre — Private Order

| Item | Amount |
|---|---|
| Activation charge | $350.00 |
""",
    "globex-order": """---
id: globex-order
title: Globex Telecom — Order
tenant: globex
---

# Globex Telecom — Order

| Item | Amount |
|---|---|
| Onboarding charge | $400.00 |
""",
}
QUESTION = "setup fee under $500"
THRESHOLD = 0.6
"""Where "Installation charge" (0.62 from "setup fee" by the offline model) matches; the
default, 0.7, was chosen on the development sets and leaves it out (said, below)."""
MODES = ("bm25", "vector", "hybrid")
ROLE_FREE = {"northwind-order", "bluebell-order", "cedar-quote"}
"""What "any amount under $500" passes among acme's documents everyone in acme may see (the
words rank among them: bm25 returns those that hold one)."""


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def orders(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackendCase]:
    """The documents above, ingested with vectors from the offline default model."""
    folder = tmp_path_factory.mktemp("meaning")
    source = folder / "orders"
    source.mkdir()
    for name, text in DOCUMENTS.items():
        (source / f"{name}.md").write_text(text, encoding="utf-8")
    case = open_case(request, request.param, folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(folder / "vector-cache"))
        report = ingest(source, case.backend, IngestOptions(alias=case.alias, embedder="default"))
    assert report.label_vocabulary is not None and report.label_vocabulary.labels == 6
    yield case
    case.purge()


def search(case: BackendCase, threshold: float | None, mode: str, **caller: object) -> SearchResult:
    searcher = Searcher(case.backend, case.alias, label_meaning_threshold=threshold)
    return searcher.search(QUESTION, mode=mode, **({"tenant": "acme"} | caller))


def docs(result: SearchResult) -> set[str]:
    return {hit.doc_id for hit in result.hits}


@pytest.mark.parametrize("mode", MODES)
def test_a_setup_fee_finds_the_installation_charge_by_meaning(
    orders: BackendCase, mode: str
) -> None:
    result = search(orders, THRESHOLD, mode)
    assert result.amount_step == "bound" and docs(result) == {"northwind-order"}
    (matches,) = result.label_matches
    assert matches.vocabulary == "meaning" and matches.added_keys == ["installation charge"]
    (meant,) = matches.matches
    assert meant.label == "Installation charge" and meant.by == "meaning"
    assert meant.cosine is not None and THRESHOLD <= meant.cosine < 0.7
    (amount,) = [f for f in result.filters_applied if f.name == "amount"]
    assert "installation charge" in json.dumps(amount.clause)


@pytest.mark.parametrize("mode", MODES)
def test_by_keys_alone_the_setup_fee_steps_down_to_any_amount(
    orders: BackendCase, mode: str
) -> None:
    result = search(orders, None, mode)
    assert result.amount_step == "role-free" and docs(result) <= ROLE_FREE
    assert result.candidate_count == len(ROLE_FREE)  # one chunk each: any amount under $500
    (matches,) = result.label_matches
    assert matches.vocabulary == "keys" and not matches.matched
    assert matches.note is not None and "holds a key of 'setup fee'" in matches.note


def test_the_default_threshold_leaves_it_out_and_says_so(orders: BackendCase) -> None:
    result = search(orders, 0.7, "bm25")
    assert result.amount_step == "role-free"
    (matches,) = result.label_matches
    assert matches.note is not None and "(cosine ≥ 0.7)" in matches.note
    assert "the nearest is 'Installation charge'" in matches.note


def test_another_tenant_s_and_another_group_s_labels_never_show(orders: BackendCase) -> None:
    for mode in MODES:
        seen = search(orders, 0.3, mode).model_dump_json()  # a threshold that admits much
        assert "Onboarding" not in seen and "onboarding" not in seen, mode
        assert "Activation" not in seen and "activation" not in seen, mode
    (matches,) = search(orders, 0.3, "bm25").label_matches
    assert matches.labels == 4  # acme's, less the finance group's
    finance = search(orders, 0.4, "bm25", acl=["finance"])
    assert "finance-order" in docs(finance)
    assert "activation charge" in finance.label_matches[0].added_keys
    globex = search(orders, 0.4, "bm25", tenant="globex")
    assert docs(globex) == {"globex-order"} and globex.amount_step == "bound"
    assert [m.label for m in globex.label_matches[0].matches] == ["Onboarding charge"]
    assert "Installation" not in globex.model_dump_json()
    assert "Monthly" not in globex.model_dump_json()


def test_the_explanation_names_only_the_caller_s_labels(orders: BackendCase) -> None:
    args, env = orders.cli()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "osrag.cli",
            "search",
            QUESTION,
            *args,
            "--alias",
            orders.alias,
            "--tenant",
            "acme",
            "--mode",
            "bm25",
            "--explain",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **env, "OSRAG_LABEL_MEANING_THRESHOLD": "0.3", "COLUMNS": "200"},
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "by meaning, cosine ≥ 0.3" in run.stderr
    assert "by meaning: 'Installation charge'" in run.stderr
    assert "Onboarding" not in run.stderr + run.stdout
    assert "Activation" not in run.stderr + run.stdout
