"""The per-unit step on every engine: a quantity named by a verb ("movers charging over
$150 an hour"), which no label of the documents names, is answered by the fact that
states the unit asked — never by a flat fee or a total over the value, which the
role-free step would admit. The documents are written for the case; the step and the
documents each question gives are written beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_cases import (
    BackendCase,
    ingested_fixture,
    ingested_texts,
    step_and_documents,
)
from typer.testing import CliRunner

from osrag.cli import app

DOCUMENTS = {
    # an hourly rate over $150, a travel fee under it
    "harbor-movers": "# Harbor Movers — Local move estimate\n\n| Service | Rate |\n"
    "|---|---:|\n| Crew and truck (3 movers) | $165.00 per hour |\n"
    "| Travel fee | $95.00 |\n",
    # a flat fee and a total over $150, an hourly rate under it
    "quickload-movers": "# QuickLoad Moving — Quote\n\n- Flat move fee: $395.00\n"
    "- Crew of 2 movers: $120.00 per hour\n- Estimated total: $875.00\n",
}


movers = ingested_fixture(DOCUMENTS, "per-unit")


ANSWERS = {
    # no label says "charge": the hourly rate over $150, not QuickLoad's flat fee or total
    "movers charging over $150 an hour": ("per-unit", {"harbor-movers"}),
    # under $150 an hour: QuickLoad's crew rate, not Harbor's $95 travel fee (no unit)
    "movers charging under $150 an hour": ("per-unit", {"quickload-movers"}),
    # no hourly amount over $500: any amount over it (QuickLoad's total)
    "movers charging over $500 an hour": ("role-free", {"quickload-movers"}),
    # no unit asked: any amount over $150, as before (both documents hold one)
    "movers charging over $150": ("role-free", {"harbor-movers", "quickload-movers"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_a_quantity_asked_at_a_unit_steps_to_the_facts_of_that_unit(
    movers: BackendCase, text: str
) -> None:
    assert step_and_documents(movers, text) == ANSWERS[text]


def test_explain_and_json_name_the_per_unit_step(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # the command's output is the same on every engine (the result model): read on one
    with ingested_texts(request, "embedded", tmp_path, DOCUMENTS) as case:
        assert case.home is not None
        env = {"OSRAG_HOME": str(case.home), "OSRAG_BACKEND": "embedded"}
        args = ["search", "movers charging over $150 an hour", "--alias", case.alias]
        shown = CliRunner().invoke(app, [*args, "--explain", "--json"], env=env)
    assert shown.exit_code == 0, shown.output
    flat = " ".join(shown.stderr.split())
    assert "per-unit 1 candidate ← answered" in flat, flat
    assert "asked: amount > USD 150.00 per hour: any label · a fact stating per hour" in flat
    assert "legs (step per-unit" in flat
    result = json.loads(shown.stdout)
    assert result["amount_step"] == "per-unit"
    assert [s["step"] for s in result["amount_steps"]] == ["bound", "per-unit"]
