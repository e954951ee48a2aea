"""The words of a question that name a quantity: which labels of amount facts it means. Pure.

A constraint bound to a label ("deductible under $1,000") passes a chunk when one of its
amount facts has a matching label (:mod:`osrag.search.fact_filters`): the label — or one
of its alternatives — **names the head of what the fact measures** (an exact key of the
fact's label, :mod:`osrag.schema.label_keys` and :mod:`osrag.search.asked_keys`): "limits"
matches "Each occurrence limit", "revenue" matches "Total revenue" and not "Deferred
revenue", "total assets" does not match "Total deferred tax assets". The alternatives of
a label (:func:`label_alternatives`):

* the label itself, and the label with its last word in the other grammatical number
  ("limits" → "limit"): an index analysed without stemming (Elasticsearch's ``standard``
  analyzer) then matches both;
* the members of its group in :data:`SYNONYMS` — a small table of common financial and
  insurance names of one quantity (net sales ~ revenue, net earnings ~ net income, limit
  of liability ~ limit, …): a label that *is* a member (its words, each in the singular)
  gets every member;
* the label without a trailing word of :data:`GENERIC_HEADS` ("personal property
  coverage" → "personal property"): words that say an amount is a coverage or an amount,
  which a table row or a key usually leaves out; and without a trailing word of
  :data:`SECTION_HEADS` when two words or more are left ("property damage liability" →
  "property damage"): the section a schedule lists the line under ("Liability:
  Property damage, each accident $25,000"), never the line itself ("personal liability"
  stays whole — "personal" alone names nothing).

**Results that can be a loss** (:data:`RESULT_FAMILIES`: net income, operating income,
income before taxes, gross profit, and the names of their losses) are compared by their
*signed* value (a loss is stored negative, :mod:`osrag.schema.facts`); every other
quantity by its magnitude. A label that names a loss and not its counterpart ("net loss",
"operating loss"; not "net income (loss)") asks for the negative side
(:func:`names_loss`), and matches the whole family: "net loss under $20 million" is a net
income (or loss) fact whose value lies in (−$20M, 0).

The vocabulary is written for the forms of annual reports and insurance policies, not
for one corpus; every entry is a name people use for the quantity, and nothing else is
guessed (no model, no fuzzy matching).
"""

from __future__ import annotations

import re
from functools import cache

from osrag.extract.facts import signs
from osrag.schema.label_keys import FIGURE_WORDS, singular

SYNONYMS: tuple[tuple[str, ...], ...] = (
    # financial statements
    ("revenue", "revenues", "net revenue", "net revenues", "total revenue", "total revenues",
     "net sales", "total net sales", "turnover"),
    ("cost of revenue", "cost of revenues", "cost of sales", "cost of goods sold"),
    ("net income", "net earnings", "net profit", "profit for the year", "net loss",
     "loss for the year"),
    ("operating income", "income from operations", "operating profit", "operating loss",
     "loss from operations"),
    ("income before income taxes", "income before taxes", "earnings before income taxes",
     "profit before tax", "pretax income", "loss before income taxes"),
    ("gross profit", "gross margin", "gross loss"),
    ("income tax expense", "provision for income taxes", "income tax provision"),
    ("shareholders equity", "stockholders equity", "total equity",
     "total shareholders equity", "total stockholders equity"),
    ("cash and cash equivalents", "cash and equivalents"),
    ("net cash provided by operating activities", "cash provided by operating activities",
     "net cash from operating activities", "cash flow from operations",
     "operating cash flow"),
    ("capital expenditures", "capital expenditure", "capex",
     "purchases of property and equipment"),
    ("research and development", "research and development expense", "r&d"),
    ("selling general and administrative", "selling general and administrative expense",
     "sg&a"),
    ("property plant and equipment", "property plant and equipment net",
     "property and equipment", "property and equipment net", "pp&e"),
    ("earnings per share", "eps"),
    ("depreciation and amortization", "depreciation amortization"),
    # insurance
    ("limit", "limit of liability", "limit of insurance", "coverage limit", "policy limit"),
    ("aggregate limit", "general aggregate", "annual aggregate", "aggregate"),
    ("retention", "self insured retention", "self-insured retention", "sir"),
    ("death benefit", "face amount", "sum assured"),
    ("medical payments", "medical expense", "medical payments to others"),
)  # fmt: skip
"""Groups of names of one quantity (a name in a group gets every other one)."""

RESULT_FAMILIES: tuple[tuple[str, ...], ...] = (
    SYNONYMS[2],  # net income
    SYNONYMS[3],  # operating income
    SYNONYMS[4],  # income before income taxes
    SYNONYMS[5],  # gross profit
)
"""Results that can be a gain or a loss: compared by their signed value."""

LOSS_WORDS = frozenset({"loss", "losses", "deficit"})
"""Words that name the negative side of a result."""
GAIN_WORDS = frozenset(
    {"income", "incomes", "profit", "profits", "earnings", "earning", "gain", "gains"}
)
"""Words that name a result's positive side (a label with both, "net income (loss)",
names the result, not a loss)."""

GENERIC_HEADS = FIGURE_WORDS | {"amounts"}
"""A label's last word that only says the figure is a coverage or an amount
(:data:`~osrag.schema.label_keys.FIGURE_WORDS`, as written): a fact's label may leave it
out ("personal property coverage" matches "Personal property")."""

SECTION_HEADS = frozenset({"liability"})
"""A label's last word that names the section of a schedule the line is in: a fact's label
may leave it out when the rest still names a quantity of two words or more."""

LINE_ITEM_MODIFIERS = frozenset({
    "total", "net", "gross", "operating", "consolidated", "deferred", "current",
    "noncurrent", "non", "accumulated", "other", "adjusted", "diluted", "basic", "annual",
    "quarterly", "unearned", "accrued", "prepaid", "long", "short", "capital", "cash",
})  # fmt: skip
"""A label's first word that is part of the line item, never the kind of document it is
in: a label starting with one is not narrowed ("total assets" stays whole)."""

QUANTITY_NOUNS = frozenset({
    "deductible", "deductibles", "premium", "premiums", "limit", "limits", "retention",
    "retentions", "copay", "copays", "copayment", "coinsurance", "excess", "benefit",
    "benefits", "revenue", "revenues", "sales", "income", "earnings", "profit", "profits",
    "loss", "losses", "assets", "liabilities", "equity", "debt", "cash", "dividend",
    "dividends", "expense", "expenses", "cost", "costs", "fee", "fees", "salary",
    "salaries", "rent", "price", "budget", "payout", "payment", "payments", "settlement",
    "fine", "penalty", "bonus", "compensation", "capex", "ebitda", "margin", "turnover",
    "reserve", "reserves", "allowance", "spend", "spending",
})  # fmt: skip
"""Nouns that name a quantity an amount can be. A noun right after an amount binds the
constraint only when it is one of these ("$500 deductible" constrains a deductible; "the
$300,000 umbrella policy" names no quantity, its constraint stays role-free)."""

DOCUMENT_NOUNS = frozenset({
    "policy", "policies", "company", "companies", "firm", "firms", "report", "reports",
    "filing", "filings", "document", "documents", "contract", "contracts", "agreement",
    "agreements", "insurer", "insurers", "business", "businesses", "entity", "entities",
    "organisation", "organisations", "organization", "organizations", "plan", "plans",
    "statement", "statements", "one", "ones", "insurance", "insurances",
})  # fmt: skip
"""Nouns that name what holds an amount, not what it measures: a phrase ending in one
names no quantity ("flood policy over $500,000" is role-free)."""

_WORD = re.compile(r"[a-z0-9&]+")
_SPACE = re.compile(r"\s+")


def normalised(label: str) -> str:
    """Lowercase, ``&`` as "and" between words, punctuation out, white space collapsed."""
    text = label.lower().replace("’", "'")
    text = re.sub(r"\s&\s", " and ", text)
    text = re.sub(r"[^\w&\s]", " ", text)
    return _SPACE.sub(" ", text).strip()


def _key(label: str) -> tuple[str, ...]:
    """What two names of a label share when they say the same words (in the singular)."""
    return tuple(singular(w) for w in _WORD.findall(normalised(label)))


@cache
def _groups() -> dict[tuple[str, ...], tuple[str, ...]]:
    by_key: dict[tuple[str, ...], tuple[str, ...]] = {}
    for group in SYNONYMS:
        for name in group:
            by_key.setdefault(_key(name), group)
    return by_key


def _other_number(word: str) -> str:
    """``limits`` ↔ ``limit``, ``liabilities`` ↔ ``liability`` (English noun number)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def _numbers(name: str) -> list[str]:
    """``name``, and ``name`` with its last word in the other number."""
    words = name.split(" ")
    if not words[-1].isalpha():
        return [name]
    return [name, " ".join([*words[:-1], _other_number(words[-1])])]


def _contains(whole: list[str], part: list[str]) -> bool:
    """Whether ``part`` is a run of consecutive words of ``whole``."""
    n = len(part)
    return any(whole[i : i + n] == part for i in range(len(whole) - n + 1))


def label_alternatives(label: str, *, every: bool = False) -> tuple[str, ...]:
    """The names a fact's label may match ``label`` by (see the module docstring), the
    label's own first; a name that holds another as a run of its words is left out (as a
    phrase it would match nothing more) — unless ``every``: each name is then asked as a
    whole key (:mod:`osrag.search.asked_keys`), where the longer one is not redundant."""
    name = normalised(label)
    if not name:
        return ()
    words = name.split(" ")
    own = _numbers(name)
    if len(words) > 1 and words[-1] in GENERIC_HEADS:
        own += _numbers(" ".join(words[:-1]))
    if len(words) > 2 and words[-1] in SECTION_HEADS:
        own += _numbers(" ".join(words[:-1]))
    group = _groups().get(_key(name), ())
    names = list(dict.fromkeys([*own, *(normalised(member) for member in group)]))
    if every:
        return tuple(names)
    split = [n.split(" ") for n in names]
    kept = [
        n for n, words_of in zip(names, split, strict=True)
        if not any(other != words_of and _contains(words_of, other) for other in split)
    ]  # fmt: skip
    return tuple(kept)


def narrowed(label: str) -> tuple[str, str] | None:
    """``(the rest, its first word)`` of a label of two words or more — "umbrella premium"
    → ("premium", "umbrella"), "travel medical cover" → ("medical cover", "travel") — read
    as the quantity and the kind of document it is in; None for one word, and for a name
    in :data:`SYNONYMS` (a line item whose words belong together: "net income", "gross
    profit")."""
    name = normalised(label)
    words = name.split(" ")
    if len(words) < 2 or _key(name) in _groups() or words[1] in ("of", "and", "&"):
        return None
    if words[0] in LINE_ITEM_MODIFIERS:
        return None
    return " ".join(words[1:]), words[0]


def result_family(label: str) -> tuple[str, ...] | None:
    """The result family a label names (its words are a member's, "net income (loss)" read
    as "net income"), or None."""
    key = _key(label)
    keys = {key, tuple(w for w in key if w not in LOSS_WORDS)} if set(key) & GAIN_WORDS else {key}
    for family in RESULT_FAMILIES:
        if any(_key(member) in keys for member in family):
            return family
    return None


def names_loss(label: str) -> bool:
    """Whether ``label`` names a loss and not its counterpart — "net loss", "operating
    loss", "loss before income taxes"; not "net income (loss)", which names the result
    either way: the ingest's sign policy (:func:`osrag.extract.facts.signs.names_loss`),
    so a question and a fact read one label the same way."""
    return signs.names_loss(label)


def is_signed(label: str) -> bool:
    """Whether a quantity with this label is compared by its signed value (a result)."""
    return result_family(label) is not None
