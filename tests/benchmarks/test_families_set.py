"""The multi-family development set of ``benchmarks/data/families`` is well-formed.

The set's gold was read by hand (``protocol.md``); these tests check that it holds together
without osrag's extraction, constraint parser or filter: every holder exists and is read,
its evidence is a sentence or row of its document that writes an amount meeting the
question's constraint (read by the small reader below, not by osrag), every pair the author
read was read again by a blind reader and every disagreement by a third, the questions'
holders are the adjudicated readings (``benchmarks/families/adjudicate.py``), every family
has its questions, and the formats are as ``SOURCES.md`` promises. The query file is read by
``osrag eval``'s own loader.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from osrag.evaluation import load_query_set
from osrag.lexicon.profiles import builtin_profiles

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "families"))
import adjudicate  # the set's own adjudication, beside its generator

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "benchmarks" / "data" / "families"
DOCUMENTS = SET / "documents"
SOURCES = ROOT / "benchmarks" / "families" / "sources"
FORMATS = ("md", "txt", "html", "docx", "pdf")
GENERATED = ("docx", "pdf")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


QUESTIONS = _rows(SET / "queries.jsonl")
READINGS = _rows(SET / "readings-author.jsonl")
FAMILIES: dict[str, dict[str, Any]] = json.loads((SET / "families.json").read_text("utf-8"))[
    "families"
]
FILES = {p.relative_to(DOCUMENTS).as_posix(): p for p in DOCUMENTS.glob("*/*") if p.is_file()}
DOCS = {name.rsplit(".", 1)[0]: path for name, path in FILES.items()}
"""Document id (the path under documents/ without its suffix) → its file."""


# --------------------------------------------------------------------------- reading the text


class _Text(HTMLParser):
    """The visible text of a page (scripts and styles left out), pieces joined by spaces."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def source_of(doc: str) -> Path:
    """The committed source a Word or PDF document is generated from."""
    path = DOCS[doc]
    found = list((SOURCES / path.parent.name).glob(f"{path.stem}.{path.suffix[1:]}.*"))
    assert len(found) == 1, (doc, found)
    return found[0]


def text_of(doc: str) -> str:
    """A document's text: as written (Markdown, text), its visible text (HTML), or its
    source's (Word, PDF)."""
    path = DOCS[doc]
    if path.suffix == ".html":
        parser = _Text()
        parser.feed(path.read_text(encoding="utf-8"))
        return " ".join(parser.parts)
    if path.suffix[1:] in GENERATED:
        return source_of(doc).read_text(encoding="utf-8")
    return path.read_text(encoding="utf-8")


def normal(text: str) -> str:
    """Text with Markdown table pipes, emphasis and heading marks removed and white space
    collapsed: how an evidence string (a row's cells joined with ' | ') is found in it."""
    return " ".join(re.sub(r"[|*#`]", " ", text).split())


# --------------------------------------------------------------------------- reading amounts

_NUMERAL = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?(thousand|million|billion|bn|M|K|m)\b)?"
)
_CONTINENTAL = re.compile(r"(?<![\w.,])(\d{1,3}(?:[ \u00a0.]\d{3})*),(\d{2})(?![\d,])")
"""A figure written the continental way: groups of three apart by a space or a point, two
decimals after a comma ("4 005,60 €", "1.250,00 €")."""
_SCALE = {"thousand": 3, "K": 3, "million": 6, "m": 6, "M": 6, "billion": 9, "bn": 9}
_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORDS = {w: i for i, w in enumerate(_ONES)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_BIG = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


def spelled(text: str) -> list[Decimal]:
    """The amounts a text spells out in words ("Five Hundred Thousand", "Eighty-Five
    Thousand", "three million")."""
    found: list[Decimal] = []
    total = current = 0
    started = False
    for word in [*re.findall(r"[a-z]+", text.lower().replace("-", " ")), "."]:
        if word in _WORDS:
            current += _WORDS[word]
        elif word == "hundred" and started:
            current *= 100
        elif word in _BIG and started:
            total += current * _BIG[word]
            current = 0
        elif word == "and" and started:
            continue
        else:
            if started:
                found.append(Decimal(total + current))
            total = current = 0
            started = False
            continue
        started = True
    return found


def written_values(evidence: str) -> set[Decimal]:
    """Every value the evidence may write: each numeral as written, scaled by its own word
    ("$2.31 billion", "$5m") or else by any caption a table may carry (thousands, millions,
    billions), a figure written the continental way, and every amount spelled out in
    words."""
    values: set[Decimal] = set()
    for whole, fraction, word in _NUMERAL.findall(evidence):
        number = Decimal(whole.replace(",", "") + fraction)
        scales = [_SCALE[word]] if word else [0, 3, 6, 9]
        values |= {number.scaleb(s) for s in scales}
    for whole, cents in _CONTINENTAL.findall(evidence):
        values.add(Decimal(re.sub(r"[ \u00a0.]", "", whole) + "." + cents))
    return values | set(spelled(evidence))


def meets(value: Decimal, constraint: dict[str, Any]) -> bool:
    # bounds read through their decimal text: a bound of $0.35 is not the float's binary value
    if constraint["op"] == "between":
        return Decimal(str(constraint["low"])) <= value <= Decimal(str(constraint["high"]))
    bound = Decimal(str(constraint["amount"]))
    return {
        "gt": value > bound,
        "gte": value >= bound,
        "lt": value < bound,
        "lte": value <= bound,
        "eq": value == bound,
    }[constraint["op"]]


def assert_evidence_holds(question: dict[str, Any], text_of: Callable[[str], str]) -> None:
    """Each holder's evidence is in its document (``text_of``) and writes an amount that
    meets the question's constraint."""
    for doc, evidence in question["evidence"].items():
        assert normal(evidence) in normal(text_of(doc)), (doc, evidence)
        value = Decimal(str(question["values"][doc]))
        assert meets(value, question["constraint"]), (doc, value)
        assert value in written_values(evidence), (doc, value, evidence)


def test_the_amount_reader_reads_the_forms_the_evidence_uses() -> None:
    assert Decimal(2_310_000_000) in written_values("Net sales were $2.31 billion")
    assert Decimal(4_812_000_000) in written_values("Net revenue | 4,812 | 4,530")  # in millions
    assert Decimal(300_000) in written_values("a fixed technology access fee of US$300,000")
    assert Decimal("4025.30") in written_values("Total due | $4,025.30")
    assert spelled("FIVE HUNDRED THOUSAND DOLLARS ($5OO,000)") == [Decimal(500_000)]
    assert spelled("Eighty-Five Thousand Dollars") == [Decimal(85_000)]
    assert spelled("One Thousand Six Hundred Ninety-Three and 15/100") == [Decimal(1693)]
    assert Decimal(500_000) not in written_values("the lesser of $5OO,000")


# --------------------------------------------------------------------------- the set's shape


def test_ten_families_a_profile_covers_all_but_sponsorship() -> None:
    # grants was written as a second family no profile covers; the grants profile covers it
    no_profile = [name for name, f in FAMILIES.items() if f["no_profile"]]
    assert len(FAMILIES) >= 10 and no_profile == ["sponsorship"]
    assert "grants" in {p.name for p in builtin_profiles()}
    for name in ("financial", "insurance", "invoices", "leases", "loans", "compensation"):
        assert name in FAMILIES and not FAMILIES[name]["no_profile"]
    assert "purchasing" in FAMILIES and "contracts" in FAMILIES


def test_families_json_lists_exactly_the_documents_folder_by_family() -> None:
    listed = {name for f in FAMILIES.values() for name in f["documents"]}
    assert listed == set(FILES)
    for family, f in FAMILIES.items():
        assert all(name.split("/")[0] == family for name in f["documents"])


def test_there_are_enough_documents_and_questions_in_every_family() -> None:
    assert len(DOCS) >= 60 and len(QUESTIONS) >= 100
    per_family = Counter(q["family"] for q in QUESTIONS)
    assert set(per_family) == set(FAMILIES)
    assert min(per_family.values()) >= 10, per_family


def test_every_family_comes_in_two_formats_and_every_format_eight_times() -> None:
    formats = Counter(name.rsplit(".", 1)[1] for name in FILES)
    assert set(formats) == set(FORMATS) and min(formats.values()) >= 8, formats
    for family, f in FAMILIES.items():
        assert len({name.rsplit(".", 1)[1] for name in f["documents"]}) >= 2, family


def test_every_word_and_pdf_document_has_its_committed_source_and_every_source_a_document() -> None:
    generated = {doc for doc, path in DOCS.items() if path.suffix[1:] in GENERATED}
    for doc in generated:
        assert source_of(doc).stat().st_size > 0
        head = DOCS[doc].read_bytes()[:4]
        assert head == (b"%PDF" if DOCS[doc].suffix == ".pdf" else b"PK\x03\x04"), doc
    sources = {f"{p.parent.name}/{p.name.split('.')[0]}" for p in SOURCES.glob("*/*.*.*")}
    assert sources == generated


def test_the_real_contracts_are_the_cuad_texts_unedited() -> None:
    assert FAMILIES["contracts"]["text"].startswith("real")
    for doc in (d for d in DOCS if d.startswith("contracts/")):
        assert doc.split("/")[1].startswith("cuad-")
        text = text_of(doc)
        assert "Agreement" in text or "AGREEMENT" in text


def test_the_word_files_hold_their_sources_text() -> None:
    import docx

    for doc, path in DOCS.items():
        if path.suffix != ".docx":
            continue
        document = docx.Document(str(path))
        cells = [" | ".join(c.text for c in row.cells) for t in document.tables for row in t.rows]
        written = normal(" ".join([p.text for p in document.paragraphs] + cells))
        for question in QUESTIONS:
            if doc in question["holders"]:
                assert normal(question["evidence"][doc]) in written, (question["id"], doc)


# --------------------------------------------------------------------------- the gold


def _emptied_by_adjudication() -> set[str]:
    """The questions the author wrote with holders that the adjudicated readings hold in no
    document (a holder the blind readers found to be another quantity or currency)."""
    author, _, _ = adjudicate.readings()
    written = {query for (query, _), r in author.items() if r["holds"] is True}
    return {q["id"] for q in QUESTIONS if not q["holders"] and q["id"] in written}


def test_every_holder_exists_and_the_gold_is_never_empty() -> None:
    ids = [q["id"] for q in QUESTIONS]
    assert len(ids) == len(set(ids))
    emptied = _emptied_by_adjudication()
    assert len(emptied) <= 2, sorted(emptied)
    for q in QUESTIONS:
        holders, unjudged = set(q["holders"]), set(q["unjudged"])
        assert holders or q["id"] in emptied, f"{q['id']}: a question lists at least one holder"
        assert holders <= set(DOCS) and unjudged <= set(DOCS), q["id"]
        assert not holders & unjudged
        assert q["relevant"] == q["holders"]
        assert set(q["evidence"]) == holders == set(q["values"]), q["id"]
        assert q["family"] in FAMILIES and q["note"], q["id"]


def test_the_questions_state_every_kind_of_constraint_in_three_currencies() -> None:
    constraints = [q["constraint"] for q in QUESTIONS]
    assert {c["op"] for c in constraints} == {"gt", "gte", "lt", "lte", "eq", "between"}
    assert {c["currency"] for c in constraints} == {"USD", "EUR", "GBP"}


def test_every_document_is_read_and_nearly_every_one_holds_for_some_question() -> None:
    read = {r["doc"] for r in READINGS}
    held = {doc for q in QUESTIONS for doc in q["holders"]}
    assert set(DOCS) <= read
    assert held <= set(DOCS)
    assert len(set(DOCS) - held) <= 2, sorted(set(DOCS) - held)  # a decoy at most here and there


def test_the_author_read_every_document_of_each_questions_family() -> None:
    by_question: dict[str, dict[str, dict[str, Any]]] = {}
    for r in READINGS:
        assert r["reader"] == "author" and r["evidence"], r
        assert r["holds"] in (True, False, None) and r["doc"] in DOCS, r
        pairs = by_question.setdefault(r["query"], {})
        assert r["doc"] not in pairs, f"{r['query']} reads {r['doc']} twice"
        pairs[r["doc"]] = r
    assert set(by_question) == {q["id"] for q in QUESTIONS}
    for q in QUESTIONS:
        family = {name.rsplit(".", 1)[0] for name in FAMILIES[q["family"]]["documents"]}
        assert family <= set(by_question[q["id"]]), q["id"]


def test_blind_readers_read_every_pair_the_author_read_and_an_adjudicator_every_disagreement() -> (
    None
):
    author, blind, third = adjudicate.readings()
    assert set(blind) == set(author)
    assert all(r["reader"].startswith("blind-") and r["evidence"] for r in blind.values())
    disagree = {pair for pair in author if author[pair]["holds"] != blind[pair]["holds"]}
    assert set(third) == disagree
    agreement = 1 - len(disagree) / len(author)
    assert agreement >= 0.95, f"the readers agree on {agreement:.3f} of the pairs"


def test_the_gold_is_the_adjudicated_reading_of_every_pair() -> None:
    assert adjudicate.adjudicated_questions() == QUESTIONS


@pytest.mark.parametrize("question", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_each_holders_evidence_is_in_its_document_and_writes_an_amount_meeting_the_constraint(
    question: dict[str, Any],
) -> None:
    assert_evidence_holds(question, text_of)


def test_osrag_eval_reads_the_holders_of_the_question_file() -> None:
    query_set = load_query_set(SET / "queries.jsonl")
    emptied = sorted(_emptied_by_adjudication())
    assert query_set.warnings == (
        [
            f"{len(emptied)} of {len(QUESTIONS)} queries have no relevant document judged and "
            f"are left out of the means (ids {', '.join(emptied)})"
        ]
        if emptied
        else []
    )
    by_id = {q.id: q for q in query_set.queries}
    for row in QUESTIONS:
        assert by_id[row["id"]].holders == row["holders"]
        assert by_id[row["id"]].unjudged == row["unjudged"]
