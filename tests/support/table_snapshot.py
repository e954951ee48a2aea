"""What the table readers make of every table of the real test documents: the record the
table model is compared with (``tests/extract/test_table_model.py``).

For each document — the TAT-QA contexts of the slice rendered as the benchmarks render them
(a Markdown pipe table) and as HTML read through the HTML loader (the loaders' lines), the
real documents of ``tests/data/corpora/real-docs``, the families set's documents
(``benchmarks/data/families/documents``) and ``examples/insurance``, each read through the
loaders — and each table in it (:func:`osrag.extract.tables.find_tables`), the record holds:

* ``values``: the value cells, ``[row, cell]`` — a cell whose text holds a value
  (:func:`osrag.extract.tables.is_value_cell`) in a row at or below the first row that
  holds one (the facts' reader's rule before the table model; with the model, its
  ``value_cells``);
* ``amounts``: every amount read from a cell (:func:`osrag.extract.tables.table_cells`),
  ``[row, cell, start, end, currency, minor units, negative, scale]``.

Only the public functions are read, so the script runs at any commit:

    .venv/bin/python tests/support/table_snapshot.py            # rewrite the record
    .venv/bin/python tests/support/table_snapshot.py --compare  # print what differs

The record in ``tests/golden/table_reader.json`` was taken at commit 13a8d15, the two
table-header readers before the table model, and rewritten once when the HTML loader
began to write a table's ``caption`` before it (a unit caption now scales the families'
segment tables; the real pages' tables start after their caption line) and plain-text
tables aligned with spaces became tables (the families' statement, pay stub, bill,
invoice, disclosure and quote), and again when the PDF loader took a header line naming a
year's column ("Reconciliation (in millions) | Fiscal 2023") for a table's (the families'
MD&A reconciliation, its rows until then lines of prose), and again when the PDF loader
put grids drawn cell by cell back into rows (the families' certificate of insurance and
purchase order, the Federal Register rule's cost table), and again when a pipe cell written
wholly in bold or italics became read as its words (the families' invoice and RFQ response:
their bold totals, ``**£10,278.00**`` and ``**€14,704.00**``, are value cells), and again
when a row whose label states the rate it is charged at ("401(k) 2%") under a column of
money stopped being read as a row of percentages (the families' pay stub: its 401(k)
deduction, 43.61 and 523.32, is two amounts), and again when a space-aligned table whose
rows open with a count or a line number before the label ("320  2x4x8 SPF stud  @ $5.48
$1,753.60") gave those figures a column of their own (the families' lumber quote: its
counts are value cells of that column, no amounts); rewrite it
only for a change
meant to change which cells
are values or amounts, and say here why.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from paths import CORPORA, ROOT

from osrag.extract.money import ascii_digits
from osrag.extract.tables import find_tables, is_value_cell, table_cells
from osrag.loaders.corpus import load_corpus
from osrag.models import Document

RECORD = ROOT / "tests" / "golden" / "table_reader.json"
FOLDERS = (
    CORPORA / "real-docs",
    ROOT / "benchmarks" / "data" / "families" / "documents",
    ROOT / "examples" / "insurance",
)


def documents() -> Iterator[tuple[str, str]]:
    """``(name, text)`` of every document the record covers, in a fixed order."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import tatqa_corpus

    contexts = json.loads((CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json").read_text("utf-8"))
    for context in contexts:
        rendered = tatqa_corpus.render(context)
        yield f"tatqa/{rendered.doc_id}.md", rendered.text
        yield f"tatqa/{rendered.doc_id}.html", _loaded_html(tatqa_corpus.html(context))
    for folder in FOLDERS:
        for item in load_corpus(folder):
            if isinstance(item, Document):
                yield f"{folder.name}/{item.doc_id}", item.text


def _loaded_html(html: str) -> str:
    from osrag.loaders import extract

    return extract("html", html.encode("utf-8")).text


def tables_of(text: str) -> list[dict[str, Any]]:
    """The record of each table of ``text`` (module docstring)."""
    amounts: dict[int, list[list[Any]]] = {}
    for found in table_cells(text):
        m = found.mention
        amounts.setdefault(found.table.start, []).append(
            [found.row, found.cell, m.start, m.end, m.currency, m.minor_units, m.negative, m.scale]
        )
    out: list[dict[str, Any]] = []
    for table, _ in find_tables(ascii_digits(text)):
        values = _value_cells(table)
        out.append(
            {"start": table.start, "values": values, "amounts": amounts.get(table.start, [])}
        )
    return out


def _value_cells(table: Any) -> list[list[int]]:
    """The value cells: the table model's where there is one; before it, the cells that
    hold a value at or below the first row holding one (the facts' reader's rule)."""
    try:
        from osrag.extract.table_model import model_of
    except ImportError:  # the commit the record was taken at: the readers before the model
        values: list[list[int]] = []
        started = False
        for r, (_, cells) in enumerate(table.rows):
            found = [i for i, c in enumerate(cells) if is_value_cell(c.text)]
            started = started or bool(found)
            values.extend([r, i] for i in found if started)
        return values
    return [[r, i] for r, i in model_of(table).value_cells()]


def record() -> dict[str, list[dict[str, Any]]]:
    return {name: tables for name, text in documents() if (tables := tables_of(text))}


def main() -> None:
    now = record()
    if "--compare" not in sys.argv:
        RECORD.write_text(json.dumps(now, separators=(",", ":"), sort_keys=True) + "\n", "utf-8")
        print(f"wrote {RECORD}: {len(now)} documents, {sum(len(t) for t in now.values())} tables")
        return
    old = json.loads(RECORD.read_text("utf-8"))
    for name in sorted(set(old) | set(now)):
        if old.get(name) != now.get(name):
            print(name)


if __name__ == "__main__":
    main()
