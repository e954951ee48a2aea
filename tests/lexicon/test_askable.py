"""The question side asks what the document side stores: every label a fact carries can be
asked for.

For every distinct label the extraction gives a fact in the real slices and the test data
(``tests/data/corpora/**`` — the TAT-QA contexts rendered as the benchmarks render them —,
``tests/data/**``, ``examples/insurance/**``), the questions "LABEL over $4,000" and
"LABEL under $4,000", read by the real question path (:func:`osrag.search.analysis.
analyze_query` → the bound constraint → :func:`osrag.search.fact_filters.fact_filter`),
ask for a key that fact's ``label_keys`` hold.

A table label is asked as its words read, in the order its keys read them (the row, its
group, its columns: ``Income taxes: Federal — 2019 Change`` is asked "Federal Income
taxes 2019 Change"); osrag's joins (`` — ``, ``: ``) are no words of a question.

Labels that cannot sensibly be asked that way are left out by a stated rule (each counted
and printed; the test fails when fewer than three quarters of the labels are checked, so a
rule that starts taking many labels shows):

* **no keys** — the label has none (nothing is stored to match);
* **figure** — it holds a figure (a word with a digit: ``PL6``, ``Watercraft over 26
  feet``, ``Baggage — Silver — £5 million``): a question reads a figure as an amount, a
  year or an identifier;
* **period** — it names a period or a part of a year (a month, a quarter or half, a year,
  ``… during the year``, ``… of prior years``): a question reads those words as the
  constraint's period, not its name;
* **fragment** — its last word is a function word, a linking verb or a verb of the
  question reader's (``if``, ``your``, ``decrease equals``, ``Interest received and
  paid``), or it holds a negation (``Less estimated amounts not currently due``): a piece
  of a sentence;
* **holder** — it ends in a noun that names what holds an amount, no complement before
  it (``Agreement``, ``renters policy``, ``property liability insurance``; not ``Face
  amount of the policy``): such a phrase names no quantity on the question side by
  design;
* **listed modifiers** — *and* joins words before the head into a list longer than "A and
  B" (``U.S. state and non-U.S. income tax loss carryforwards``): the label's keys are
  then the whole name only, by design (no tail inside a coordination), while the question
  reads the name after the last *and*;
* **alternatives** — it joins names with "or" (``Home, condo or renters liability``): a
  question reads "or" as two quantities;
* **with** — it holds a word that joins a kind of document to a quantity in a question
  (with, whose, having, where): the question reads the words before it as the kind of
  document;
* **long** — it is more than eight words and marks: the longest name a question reads.

Plus a hypothesis property over generated labels.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from paths import CORPORA

from osrag.extract import extract_values
from osrag.lexicon.keys import label_keys
from osrag.loaders.corpus import load_corpus
from osrag.models import Document, ExtractionConfig
from osrag.schema.filters import AllOf, AnyOf, Filter, Nested, Term, Terms
from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import fact_filter

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("tests/data", "examples/insurance")
"""Every document under these (the corpora slices are under tests/data/corpora)."""

_FUNCTION_END = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "its", "their", "his", "her", "our",
    "my", "your", "it", "they", "we", "you", "i", "he", "she", "them", "us", "me", "there",
    "which", "who", "whom", "whose", "what", "where", "when", "why", "how", "if", "but",
    "or", "and", "nor", "so", "yet", "of", "for", "per", "to", "in", "on", "at", "by",
    "from", "with", "without", "as", "than", "into", "is", "are", "was", "were", "be",
    "been", "being", "has", "have", "had", "do", "does", "did", "will", "would", "shall",
    "should", "may", "might", "can", "could", "must", "not", "isn't", "equals", "equal",
    "totals", "paid", "received", "reported",
})  # fmt: skip
"""Words that end a sentence fragment (this test's own list: what the reader under test
uses is not what judges it)."""
_HOLDERS = frozenset({
    "agreement", "agreements", "policy", "policies", "company", "companies", "business",
    "insurance",
    "businesses", "plan", "plans", "contract", "contracts", "insurer", "insurers", "report",
    "reports", "statement", "statements",
})  # fmt: skip
_PERIOD = re.compile(
    r"(?i)\b(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|quarters?|half|year|years|months?|weeks?|periods?|fiscal|fy)\b"
)
_WITH = re.compile(r"(?i)\b(?:with|whose|having|where)\b")
_OR = re.compile(r"(?i)\bor\b")
_TOKEN = re.compile(r"[A-Za-z][\w'’&.-]*|,|[/&—–-]")


def _documents() -> Iterator[str]:
    for folder in FOLDERS:
        for item in load_corpus(REPO / folder):
            if isinstance(item, Document):
                yield item.text
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    import tatqa_corpus

    contexts = json.loads((CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json").read_text("utf-8"))
    for context in contexts:
        yield tatqa_corpus.render(context).text


@cache
def _labels() -> tuple[str, ...]:
    config = ExtractionConfig()
    found: dict[str, None] = {}
    for text in _documents():
        for fact in extract_values(text, config).facts:
            if fact.label:
                found.setdefault(fact.label, None)
    return tuple(found)


def asked_text(label: str) -> str:
    """The label's words in the order its keys read them: row, group, columns."""
    group, _, rest = label.rpartition(": ")
    row, *columns = rest.split(" — ")
    return " ".join([row, *([group] if group else []), *columns])


def exclusion(label: str) -> str | None:
    """The stated rule (module docstring) that leaves ``label`` out, or None."""
    text = asked_text(label)
    words = re.findall(r"[A-Za-z][\w'’-]*", text.casefold())
    if not label_keys(label):
        return "no keys"
    if re.search(r"\d", label):
        return "figure"
    if _PERIOD.search(text):
        return "period"
    if not words or words[-1] in _FUNCTION_END:
        return "fragment"
    if {"not", "no", "never"} & set(words):
        return "fragment"
    if words[-1] in _HOLDERS and not {"of", "for", "per", "under", "over", "by"} & set(words):
        return "holder"  # "renters policy"; not "face amount of the policy", a face amount
    if _OR.search(text):
        return "alternatives"
    if "and" in words[:-2] and words.index("and") > 1:
        return "listed modifiers"  # "U.S. state and non-U.S. income tax loss carryforwards"
    if _WITH.search(text):
        return "with"
    if len(_TOKEN.findall(text)) > 8:
        return "long"
    return None


def _asked_keys(f: Filter) -> set[str]:
    if isinstance(f, Term) and f.field == "facts.label_keys":
        return {str(f.value)}
    if isinstance(f, Terms) and f.field == "facts.label_keys":
        return {str(v) for v in f.values}
    if isinstance(f, (AllOf, AnyOf)):
        return set().union(*(_asked_keys(i) for i in f.items))
    if isinstance(f, Nested):
        return _asked_keys(f.item)
    return set()


def asks_for(question: str) -> set[str]:
    """The label keys the real question path asks for (the last constraint's)."""
    constraints = analyze_query(question).constraints
    if not constraints or not constraints[-1].is_bound:
        return set()
    return _asked_keys(fact_filter(constraints[-1]))


def test_every_label_a_fact_carries_can_be_asked_for() -> None:
    labels = _labels()
    excluded: Counter[str] = Counter()
    unasked: list[tuple[str, str, list[str]]] = []
    checked = 0
    for label in labels:
        rule = exclusion(label)
        if rule is not None:
            excluded[rule] += 1
            continue
        checked += 1
        keys = set(label_keys(label))
        for comparison in ("over", "under"):
            asked = asks_for(f"{asked_text(label)} {comparison} $4,000")
            if not asked & keys:
                unasked.append((label, comparison, sorted(asked)))
    print(f"\n{len(labels)} labels: {checked} checked, excluded {dict(excluded)}")
    assert not unasked, f"{len(unasked)} questions ask for none of the label's keys: {unasked[:20]}"
    assert checked >= 600 and checked >= 0.75 * len(labels), excluded


# ------------------------------------------------------------------ generated labels

NOUN = st.sampled_from(
    ["revenue", "premium", "deductible", "liability", "expense", "asset", "income", "cost",
     "dwelling", "collision", "interest", "equipment", "benefit", "retention", "fee",
     "compensation", "goodwill", "inventory", "payment", "settlement"]
)  # fmt: skip
LEAD = st.sampled_from(["", "Total ", "Net ", "Annualized ", "Gross ", "Other "])
COMPLEMENT = st.sampled_from(
    ["", " of the policy", " per occurrence", " for each claim", " due", " before taxes",
     " attributable to owners", " under the contract", " as adjusted", " including fees"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(LEAD, st.lists(NOUN, min_size=1, max_size=3), COMPLEMENT, st.sampled_from(["over", "under"]))
def test_a_generated_label_can_be_asked_for(
    lead: str, nouns: list[str], complement: str, comparison: str
) -> None:
    label = f"{lead}{' '.join(nouns)}{complement}".strip()
    assume(exclusion(label) is None)  # "… of the policy" names a holder
    assert asks_for(f"{label} {comparison} $4,000") & set(label_keys(label)), label


@pytest.mark.parametrize(
    ("label", "question"),
    [
        ("Total due", "invoices with a total due over $4,000"),
        ("Amount due", "bills with an amount due under $4,000"),
        ("Face amount of the policy", "face amount of the policy over $4,000"),
        ("Net income (loss)", "net income (loss) over $4,000"),
        ("Rebuild cost", "rebuild cost over $4,000"),
        ("Adrian's basis in each share", "basis in each share over $4,000"),
        ("Medical payments to others — Limit", "medical payments to others limit over $4,000"),
        ("Earnings per share—diluted", "earnings per share—diluted under $4"),
        (
            "Dividends paid to non-controlling shareholders",
            "dividends paid to non-controlling shareholders over $4,000",
        ),
    ],
)  # fmt: skip
def test_a_name_a_fact_carries_is_asked_as_written(label: str, question: str) -> None:
    assert asks_for(question) & set(label_keys(label))
