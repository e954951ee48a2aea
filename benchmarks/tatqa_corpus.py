"""TAT-QA (dev) → a corpus of Markdown reports, a gold set of amounts, and labelled queries.

    .venv/bin/python benchmarks/tatqa_corpus.py [--out benchmarks/results/tatqa]

Writes ``corpus/<doc>.md`` (one document per context), ``gold.jsonl`` (one line per
annotated number: where it is, what it must be read as), ``queries.jsonl`` (labelled
amount queries in the format ``osrag eval`` reads: one exact amount and a ±1 % band around
it per document — they test that an amount is read, not that a question is answered) and,
from ``benchmarks/tatqa_analyst.py``, ``analyst_queries.jsonl`` (analyst questions with
round thresholds, each with the documents that hold its answer; after them the scope
questions of ``benchmarks/tatqa_scopes.py``: a quarter's, a segment's, a region's or an
adjusted figure) and ``analyst_tables.jsonl``. Everything comes from the dataset file and
its annotations.

Rendering: the paragraphs in their ``order``, one block each, and the table as a Markdown
pipe table (its first row the header row) right after the first paragraph that introduces
it (the first that ends with ``:``, else the first that says "following table", "as
follows", "table below": the lead-in filings put right before a table), else after the
last paragraph. A caption the data puts in a later paragraph then stands after the
table, where no reader would take it to govern the table (the gold says so: see
``scale_stated``). Cells and paragraphs are written as the data has them: no caption is
ever added from the annotations (``scale`` is the annotators' knowledge, often stated in
the original report outside the extracted context).

The gold (the rule): every answer of type ``span`` / ``multi-span`` whose text is one
number (``1,496.5``, ``$ 831.7``, ``(3.1)``, ``-5``) is located in the rendered document
— the table cells whose number equals it, else its ``rel_paragraphs`` — and given a kind:

* ``percent`` — ``scale`` is ``percent`` or the answer has ``%``; must not be money;
* ``year`` — a four-digit 19xx/20xx integer; must not be money;
* ``per-unit`` — the question or the cell's row says per share / EPS / a price ("average
  selling price"); must not be scaled (its expected value is the face value when the
  cell carries a currency sign);
* ``count`` — the question or row asks for shares, employees, a number of …; must not be
  money;
* ``money`` — any other: the expected value is the number × the annotated ``scale``
  (thousand, million, billion, or none), negative when written in parentheses or with a
  minus. Two facts from the document decide whether an extractor *can* know it, and are
  recorded: ``scale_stated`` (the document writes that scale as a caption — "in
  thousands", "$'000", "€m" — before the number: in the table or the text above it)
  and ``currency_stated`` (a currency sign in the cell, its row or its column, or a
  caption naming a currency); ``conflict`` marks annotations that contradict themselves
  or the document (no scale on an answer from a captioned document, or a paragraph
  answer whose own text names another scale). Recall is measured on money items where
  both hold; the others are reported apart.

The conversion also writes the questions whose answer is written in the document, with
where it is written (``evidence_queries.jsonl``, ``evidence_spans.jsonl``: see
``benchmarks/tatqa_evidence.py``), for evidence recall at a token budget.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass
from decimal import Decimal
from html import escape
from pathlib import Path
from typing import Any

import tatqa_analyst as analyst
from tatqa_evidence import write_evidence
from tatqa_render import DATASET, Rendered, render

__all__ = ["DATASET", "GoldItem", "Rendered", "convert", "core", "html", "render"]

SCALES = {"": 0, "thousand": 3, "million": 6, "billion": 9}
_NUMBER = re.compile(
    r"\s*(?P<sign>[$€£])?\s*(?P<open>\()?\s*(?P<sign2>[$€£])?\s*(?P<minus>-)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<close>\))?\s*(?P<pct>%)?\s*"
)
_PER_UNIT = re.compile(
    r"(?i)per[\s-]+(?:\w+\s+){0,2}share|\beps\b|\bprice per\b|"
    r"(?:selling|average|exercise|share|stock|unit)\s+price"
)
_COUNT = re.compile(
    r"(?i)\bshares\b|\bemployees\b|\bnumber of\b|\bhow many\b|\bheadcount\b|\bunits\b|"
    r"\bdays\b|\bratio\b|\bpercentage\b|\brate\b|\bin years\b"
)
_SCALE_WORD = {3: "thousands?", 6: "millions?", 9: "billions?"}
_UNIT_FORM = {3: r"[$€£]\s?['’]?000|\b000['’]?s\b", 6: r"[$€£]m\b|€\s?million", 9: r"[$€£]bn\b"}


def _stated(exponent: int) -> re.Pattern[str]:
    """The document writes the scale as filings caption it: "in thousands", "$'000", "€m"."""
    word = _SCALE_WORD[exponent]
    return re.compile(rf"(?i)\bin\s+(?:[$€£]\s?)?{word}\b|{_UNIT_FORM[exponent]}|\bin \$?000")


_STATED = {e: _stated(e) for e in _SCALE_WORD}
_CURRENCY_CAPTION = re.compile(
    r"(?i)(?:[$€£]|dollars?|euros?)\s*in\s+(?:thousands|millions|billions)"
    r"|in\s+(?:thousands|millions|billions)\s+of\s+(?:[\w.]+\s+)?(?:dollars|euros|[$€£])"
    r"|[$€£]\s?['’]?000|[$€£]m\b|€\s?million|in\s+(?:US\s?)?\$\s?000"
)
"""A caption that names a currency: "$ in millions", "(in thousands of U.S. dollars)"."""


@dataclass
class GoldItem:
    doc_id: str
    question: str
    answer: str
    kind: str
    spans: list[tuple[int, int]]
    expected: int | None
    """Minor units (cents) the number must be read as; None when it must not be money."""
    negative: bool = False
    scale: str = ""
    scale_stated: bool = True
    currency_stated: bool = True
    conflict: bool = False
    """The annotations disagree with themselves: an answer without a scale from a table whose
    other answers have one, or a paragraph answer whose text names another scale."""
    source: str = "table"
    label: str = ""
    around: str = ""
    """A paragraph answer's text with up to 25 characters either side (to find it again in
    a corpus the loader rewrote)."""


def _number(text: str) -> re.Match[str] | None:
    match = _NUMBER.fullmatch(text)
    if match is None or bool(match.group("open")) != bool(match.group("close")):
        return None
    return match


def _value(match: re.Match[str], exponent: int) -> int | None:
    value = Decimal(match.group("num").replace(",", "")).scaleb(exponent + 2)
    return int(value) if value == value.to_integral_value() else None


def _locate(rendered: Rendered, rows: list[list[str]], answer: re.Match[str]) -> list[int]:
    """Indexes into ``rendered.cells`` whose number equals the answer's."""
    found = []
    for i, (r, c, _, _) in enumerate(rendered.cells):
        cell = _number(rows[r][c]) if c < len(rows[r]) else None
        if cell is not None and cell.group("num") == answer.group("num"):
            found.append(i)
    return found


def gold_items(context: dict[str, Any], rendered: Rendered) -> list[GoldItem]:
    rows = context["table"]["table"]
    whole = rendered.text
    items = []
    for q in context["questions"]:
        if q["answer_type"] not in ("span", "multi-span"):
            continue
        answers = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
        for answer in answers:
            item = _item(context, rendered, rows, whole, q, str(answer))
            if item is not None:
                items.append(item)
    return items


def _item(
    context: dict[str, Any],
    rendered: Rendered,
    rows: list[list[str]],
    whole: str,
    q: dict[str, Any],
    answer: str,
) -> GoldItem | None:
    match = _number(answer)
    if match is None:
        return None
    doc_id = rendered.doc_id
    cells = _locate(rendered, rows, match) if "table" in q["answer_from"] else []
    spans = [(rendered.cells[i][2], rendered.cells[i][3]) for i in cells]
    label = ""
    source = "table"
    if cells:
        r = rendered.cells[cells[0]][0]
        label = rows[r][0]
    else:
        source = "text"
        for order in q["rel_paragraphs"]:
            start, end = rendered.paragraphs.get(int(order), (0, 0))
            number = rf"(?<![\d.,]){re.escape(match.group('num'))}(?![\d]|[.,]\d)"
            for hit in re.finditer(number, whole[start:end]):
                spans.append((start + hit.start(), start + hit.end()))
    if not spans:
        return None
    kind = _kind(q, answer, match, label)
    exponent = SCALES.get(q["scale"], 0)
    sign = match.group("sign") or match.group("sign2")
    negative = bool(match.group("open") or match.group("minus"))
    item = GoldItem(doc_id, q["question"], answer, kind, spans, None, negative, q["scale"])
    item.source, item.label = source, label
    if source == "text":
        start, end = spans[0]
        first = max(whole.rfind("\n", 0, start) + 1, start - 25)
        last = whole.find("\n", end)
        item.around = whole[first : min(end + 25, last if last >= 0 else len(whole))]
    if kind == "money":
        item.expected = _value(match, exponent)
        before = (
            whole[: max(e for _, e in spans)] if source == "text" else whole[: _table_end(rendered)]
        )
        item.scale_stated = exponent == 0 or bool(_STATED[exponent].search(before))
        item.currency_stated = bool(sign) or _currency_stated(rendered, rows, cells, whole, spans)
        item.conflict = _conflict(context, q, whole, spans, source)
    elif kind == "per-unit" and sign:
        item.expected = _value(match, 0)
    return item


def _table_end(rendered: Rendered) -> int:
    return max((c[3] for c in rendered.cells), default=0)


def _conflict(
    context: dict[str, Any], q: dict[str, Any], whole: str, spans: Any, source: str
) -> bool:
    if source == "text":
        after = {whole[e : e + 12].strip().split(" ")[0].lower() for _, e in spans}
        named = {w for w in after if w in SCALES and w}
        return bool(named) and q["scale"] not in named
    if q["scale"]:
        return False
    if any(p.search(whole) for p in _STATED.values()):
        return True  # no scale, in a document that captions one
    others = {
        o["scale"]
        for o in context["questions"]
        if "table" in o["answer_from"] and o["answer_type"] in ("span", "multi-span")
    }
    return bool(others & {"thousand", "million", "billion"})


def _kind(q: dict[str, Any], answer: str, match: re.Match[str], label: str) -> str:
    if q["scale"] == "percent" or match.group("pct"):
        return "percent"
    if re.fullmatch(r"(?:19|20)\d\d", match.group("num")) and not match.group("sign"):
        return "year"
    if _PER_UNIT.search(q["question"]) or _PER_UNIT.search(label):
        return "per-unit"
    if match.group("sign") or match.group("sign2"):
        return "money"
    if _COUNT.search(q["question"]) or _COUNT.search(label):
        return "count"
    return "money"


def _currency_stated(
    rendered: Rendered, rows: list[list[str]], cells: list[int], whole: str, spans: Any
) -> bool:
    """A currency sign in the cell's row or column, or a caption naming a currency."""
    for i in cells:
        r, c = rendered.cells[i][0], rendered.cells[i][1]
        row = rows[r]
        column = [x[c] for x in rows if c < len(x)]
        if any("$" in x or "€" in x or "£" in x for x in [*row, *column]):
            return True
    if not cells:
        for start, end in spans:
            window = whole[max(0, start - 3) : end + 12]
            if re.search(r"[$€£]|dollar|euro", window, re.I):
                return True
    return bool(_CURRENCY_CAPTION.search(whole))


def queries(gold: list[GoldItem]) -> list[dict[str, Any]]:
    """Exact and comparative amount queries, each with every document that satisfies it."""
    known = [g for g in gold if core(g) and g.expected]
    by_doc: dict[str, set[int]] = {}
    for g in known:
        by_doc.setdefault(g.doc_id, set()).add(g.expected or 0)

    def holding(test: Any) -> list[str]:
        return sorted(d for d, values in by_doc.items() if any(test(v) for v in values))

    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for g in known:  # one exact and one range query per document: its first annotated amount
        if g.doc_id in seen:
            continue
        seen.add(g.doc_id)
        value = g.expected or 0
        low, high = _round(value * 99 // 100, down=True), _round(value * 101 // 100, down=False)
        label = re.sub(r"[^\w\s&,-]", "", g.label or "amount").strip() or "amount"
        out.append(_query(f"x-{g.doc_id}", f"{label} of {_words(value)}", holding(value.__eq__)))
        text = f"{label} between {_words(low)} and {_words(high)}"
        out.append(_query(f"b-{g.doc_id}", text, holding(lambda v, a=low, b=high: a <= v <= b)))
    values = sorted({g.expected or 0 for g in known})
    for v in values[-10:]:  # the largest: "over" a bound just below
        bound = _round(v * 99 // 100, down=True)
        out.append(_query(f"gt-{v}", f"amounts over {_words(bound)}", holding(bound.__lt__)))
    for v in values[:10]:
        bound = _round(v * 101 // 100 + 1, down=False)
        out.append(_query(f"lt-{v}", f"amounts under {_words(bound)}", holding(bound.__gt__)))
    return out


def _round(cents: int, *, down: bool) -> int:
    """``cents`` rounded outward to three significant digits ($1,481,535 → $1,480,000)."""
    step = 10 ** max(len(str(cents)) - 3, 0)
    return cents // step * step if down else -(-cents // step) * step


def _query(qid: str, text: str, relevant: list[str]) -> dict[str, Any]:
    return {"id": qid, "query": text, "relevant": relevant}


def _words(cents: int) -> str:
    """``$1,496.5 million`` for 149_650_000_000 cents: how reports and questions state it."""
    dollars = Decimal(cents) / 100
    for exponent, word in ((9, "billion"), (6, "million"), (3, "thousand")):
        scaled = dollars.scaleb(-exponent)
        if dollars >= 10**exponent and scaled == scaled.quantize(Decimal("0.001")):
            return f"${scaled.normalize():,f} {word}"
    return f"${dollars.normalize():,f}"


def core(g: GoldItem) -> bool:
    return (
        g.kind == "money"
        and g.scale_stated
        and g.currency_stated
        and not g.conflict
        and bool(g.expected)
    )


def html(context: dict[str, Any]) -> str:
    """The same document as HTML (paragraphs, then the table where :func:`render` puts it),
    for the HTML loader to write its table the way it writes every table."""
    rendered = render(context)
    pieces = ["<html><body>"]
    table = ["<table>"]
    for row in context["table"]["table"]:
        table.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
    table.append("</table>")
    table_start = min((c[2] for c in rendered.cells), default=len(rendered.text))
    placed = False
    for start, _ in sorted(rendered.paragraphs.values()):
        if not placed and start > table_start:
            pieces.extend(table)
            placed = True
        pieces.append(f"<p>{escape(rendered.text[start : rendered.text.find(chr(10), start)])}</p>")
    if not placed:
        pieces.extend(table)
    pieces.append("</body></html>")
    return "\n".join(pieces)


def convert(
    dataset: Path, out: Path, form: str = "markdown"
) -> tuple[list[Rendered], list[GoldItem]]:
    """Write the corpus (``form``: ``markdown`` or ``html``), the gold and the queries."""
    contexts = json.loads(dataset.read_text(encoding="utf-8"))
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    docs, gold = [], []
    for context in contexts:
        rendered = render(context)
        if form == "html":
            (corpus / f"{rendered.doc_id}.html").write_text(html(context), encoding="utf-8")
        else:
            (corpus / f"{rendered.doc_id}.md").write_text(rendered.text, encoding="utf-8")
        docs.append(rendered)
        gold.extend(gold_items(context, rendered))
    with (out / "gold.jsonl").open("w", encoding="utf-8") as f:
        for item in gold:
            f.write(json.dumps(asdict(item)) + "\n")
    write_evidence(contexts, out)
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for query in queries(gold):
            f.write(json.dumps(query) + "\n")
    summary = analyst.write_questions(contexts, out)
    (out / "analyst_summary.json").write_text(
        json.dumps(summary, indent=2) + "\n", encoding="utf-8"
    )
    return docs, gold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/tatqa"))
    parser.add_argument(
        "--form",
        choices=["markdown", "html"],
        default="markdown",
        help="write Markdown pipe tables, or HTML for the HTML loader to render",
    )
    args = parser.parse_args(argv)
    docs, gold = convert(args.dataset, args.out, args.form)
    kinds: dict[str, int] = {}
    for g in gold:
        kinds[g.kind] = kinds.get(g.kind, 0) + 1
    print(f"{len(docs)} documents, {len(gold)} annotated numbers {kinds} → {args.out}")
    summary = json.loads((args.out / "analyst_summary.json").read_text(encoding="utf-8"))
    print(
        f"{summary['questions']} analyst questions (holders {summary['holders_min']}–"
        f"{summary['holders_max']}, median {summary['holders_median']}) and "
        f"{summary['scope_questions']} scope questions {summary['scope_questions_by_kind']} → "
        f"{args.out / 'analyst_queries.jsonl'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
