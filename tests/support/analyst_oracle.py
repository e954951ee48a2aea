"""The TAT-QA analyst questions checked against the raw dataset cells, by a reading of its own.

Used by ``tests/evaluation/test_tatqa_analyst.py`` on the corpus slice and by
``benchmarks/corpus_checks.py`` on the whole dev split. Each function reads the dataset
file and the generator's output folder (``analyst_queries.jsonl``,
``analyst_tables.jsonl``) and returns (items checked, one line per failure):

* :func:`unsound_holders` — every holder's evidence cell, re-read from the raw table:
  the same text, a label of the subject, the asked year in its column's header rows, the
  scale the raw annotations give, no other currency named, a value meeting the question
  under the sign policy;
* :func:`unexplained_rows` — every raw row of a subject, in a judged dollar table, whose
  value in the asked period meets a question, belongs to a holder — or its row is listed
  as dropped with a reason.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import tatqa_analyst as analyst

SCALES = {"thousand": 3, "million": 6, "billion": 9}
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"


def _contexts(dataset: Path) -> dict[str, dict[str, Any]]:
    contexts = json.loads(dataset.read_text(encoding="utf-8"))
    return {"tatqa-" + c["table"]["uid"][:8]: c for c in contexts}


def _questions(out: Path) -> list[dict[str, Any]]:
    """The plain analyst questions (the scope questions beside them follow rules of their
    own, checked by ``tests/benchmarks/test_tatqa_scopes.py``)."""
    lines = (out / "analyst_queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [q for q in map(json.loads, lines) if "scope" not in q]


def raw_scale(context: dict[str, Any]) -> str | None:
    """The one thousand/million/billion the table's answers carry (table, else table-text)."""
    for source in ("table", "table-text"):
        given = {
            q["scale"] for q in context["questions"]
            if q["answer_from"] == source and q["scale"] in SCALES
        }  # fmt: skip
        if given:
            return given.pop() if len(given) == 1 else None
    return None


def raw_number(cell: str) -> Decimal:
    match = re.fullmatch(rf"[\s$]*(\()?[\s$]*([-−–])?[\s$]*({_NUMBER})\s*\)?\s*", cell)
    assert match, cell
    number = Decimal(match.group(3).replace(",", ""))
    return -number if match.group(1) or match.group(2) else number


def header_rows(rows: list[list[str]]) -> int:
    """Rows above the first with a number (not a bare year) after the first column."""
    number = re.compile(rf"[\s$]*\(?[\s$]*[-−–]?[\s$]*{_NUMBER}\s*\)?\s*")
    for i, row in enumerate(rows):
        if [c for c in row[1:] if number.fullmatch(c) and not re.fullmatch(r"(19|20)\d\d", c)]:
            return i
    return len(rows)


def meets(q: dict[str, Any], dollars: Decimal) -> bool:
    c = q["constraint"]
    low, high = Decimal(c["low"]), Decimal(c["high"] or 0)
    return {"gt": dollars > low, "gte": dollars >= low, "lt": dollars < low,
            "between": low <= dollars <= high}[c["op"]]  # fmt: skip


def reading(q: dict[str, Any], label: str, dollars: Decimal) -> Decimal | None:
    """The value the question reads from a cell of a row so labelled (None: not one)."""
    subject = analyst.subject_named(q["constraint"]["subject"])
    words = re.sub(r"\((?:\d+|[a-z])\)", " ", label.lower().replace("&", " and "))
    words = " ".join(re.sub(r"[^a-z0-9]+", " ", words).split())
    loss = words in subject.loss_labels
    if q["constraint"]["sign"] == "loss":
        if loss:
            return abs(dollars)
        return -dollars if dollars < 0 else None
    if loss:
        return -abs(dollars)
    return dollars if subject.kind == "signed" else abs(dollars)


def _holder_failures(q: dict[str, Any], doc: str, cells: Any, context: Any) -> list[str]:
    rows = context["table"]["table"]
    scale = raw_scale(context)
    where = f"{q['id']} {doc}"
    if scale is None or any(c["scale"] != scale for c in cells):
        return [f"{where}: the raw annotations give no scale, or another ({scale})"]
    text = " ".join(" ".join(r) for r in rows) + " ".join(p["text"] for p in context["paragraphs"])
    if re.search(r"£|€|¥|RMB", text):
        return [f"{where}: the context names another currency"]
    failures, met = [], False
    top = header_rows(rows)
    for cell in cells:
        raw = rows[cell["row"]][cell["column"]]
        if raw != cell["cell"]:
            failures.append(f"{where}: cell {cell} is {raw!r} in the dataset")
            continue
        period = q["constraint"]["period"]
        header = " ".join(r[cell["column"]] for r in rows[:top])
        if period is not None and str(period) not in header:
            failures.append(f"{where}: {period} not in the column header {header!r}")
            continue
        value = reading(q, rows[cell["row"]][0], raw_number(raw).scaleb(SCALES[scale]))
        met |= value is not None and meets(q, value)
    return failures if failures or met else [f"{where}: no evidence cell meets the question"]


def unsound_holders(dataset: Path, out: Path) -> tuple[int, list[str]]:
    """(holders checked, failures): each holder re-read from the raw cells."""
    contexts = _contexts(dataset)
    checked, failures = 0, []
    for q in _questions(out):
        if not q["holders"] or set(q["evidence"]) != set(q["holders"]):
            failures.append(f"{q['id']}: no holder, or holders without evidence")
        for doc, cells in q["evidence"].items():
            checked += 1
            failures += _holder_failures(q, doc, cells, contexts[doc])
    return checked, failures


def unexplained_rows(dataset: Path, out: Path) -> tuple[int, list[str]]:
    """(question × document pairs checked, failures): a raw row meeting a question whose
    document is no holder, unjudged, and whose row is not recorded as dropped."""
    contexts = _contexts(dataset)
    lines = (out / "analyst_tables.jsonl").read_text(encoding="utf-8").splitlines()
    tables = {t["doc_id"]: t for t in map(json.loads, lines)}
    checked, failures = 0, []
    for q in _questions(out):
        subject = analyst.subject_named(q["constraint"]["subject"])
        names = {*subject.labels, *subject.loss_labels}
        for doc, context in contexts.items():
            table = tables[doc]
            if doc in q["holders"] or doc in q["unjudged"]:
                continue
            if table["unjudged"] or table["currency"] != "USD":
                continue  # recorded: the table is not judged, or not in dollars
            checked += 1
            failures += [
                f"{q['id']} {doc}: row {r} {cell!r} meets it"
                for r, cell in _meeting(q, names, context, table)
            ]
    return checked, failures


def _meeting(q: dict[str, Any], names: set[str], context: Any, table: Any) -> list[Any]:
    """(row, cell) of the raw rows of the subject that meet ``q``, dropped rows apart."""
    rows = context["table"]["table"]
    dropped = {d["row"] for d in table["dropped"]}
    scale, top, period = raw_scale(context), header_rows(rows), q["constraint"]["period"]
    found = []
    for r, row in enumerate(rows[top:], top):
        if analyst.normalise(row[0]) not in names or r in dropped:
            continue
        for c, cell in enumerate(row[1:], 1):
            years = set(re.findall(r"(?:19|20)\d\d", " ".join(x[c] for x in rows[:top])))
            if period is not None and years != {str(period)}:
                continue
            if c not in table["value_columns"] or analyst.cell_value(cell) is None:
                continue
            assert scale is not None
            value = reading(q, row[0], raw_number(cell).scaleb(SCALES[scale]))
            if value is not None and meets(q, value):
                found.append((r, cell))
    return found
