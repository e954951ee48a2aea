"""Quality floors of the amount facts on the TAT-QA slice, in the test command.

``benchmarks/facts_agreement.py`` judges every fact against gold osrag did not produce —
the dataset's own table cells, their rows, columns and annotated scales — and reports how
often the stored label, year, sign, value, scope and part of the year agree. Here it runs
on the slice in ``tests/data`` (80 contexts, 1,213 gold cells) in both forms: the Markdown
pipe tables, and the same reports as HTML read by the HTML loader. The floors sit just
under what the facts measure today, so a rule written for one family that hurts the
annual reports fails here, locally, before any benchmark runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

FLOORS = {
    "coverage": 0.97,  # a fact for the gold cell (0.993 Markdown, 0.982 HTML)
    "label": 0.99,  # the row label or its documented join (1.000)
    "year": 0.99,  # the column's year (1.000)
    "no_year": 0.99,  # no year where the table names none (1.000)
    "sign": 0.99,
    "value": 0.99,
    "period_part_full": 0.99,  # the whole year where the column names no part
    "scope_own": 0.99,  # the company's own where the table names no part
    "scope_region": 0.90,  # a region where the row, column or group is one (0.957)
}


@pytest.mark.corpus
@pytest.mark.parametrize("form", ["markdown", "html"])
def test_facts_agree_with_the_tatqa_tables(corpora: Path, tmp_path: Path, form: str) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    from facts_agreement import run

    result: dict[str, Any] = run(corpora / "tatqa-dev" / "tatqa_dataset_dev.json", tmp_path, form)
    tables = result["tables"]
    assert tables["gold_cells"] > 1000, tables  # the gold is the dataset's cells, not a few
    low = {
        name: tables[name]
        for name, floor in FLOORS.items()
        if tables[name] is not None and tables[name] < floor
    }
    assert not low, f"{form}: below the floors {FLOORS}: {low}"
