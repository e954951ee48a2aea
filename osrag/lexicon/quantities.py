"""The nouns that name a quantity, the nouns that name what holds one, and synonyms.

* :data:`QUANTITY_NOUNS` — nouns that name a quantity an amount can be (a deductible, a
  premium, revenue, a fee …): a question's noun right beside an amount binds the amount
  to it only when it is one; :data:`CONTRACT_TERMS` — the part of them a section
  heading must end in to label the figures under it (the terms of a contract or a price
  list);
* :data:`DOCUMENT_NOUNS` — nouns that name what holds an amount (a policy, a company, a
  report): a phrase ending in one names no quantity;
* :data:`SYNONYMS` — groups of names of one quantity (net sales ~ revenue, limit of
  liability ~ limit): a name in a group is asked as every other one.

The vocabulary is written for the forms of annual reports and insurance policies, not
for one corpus; every entry is a name people use for the quantity, and nothing else is
guessed (no model, no fuzzy matching).
"""

from __future__ import annotations

from functools import cache

from osrag.lexicon.words import name_key, singular, word_set

__all__ = [
    "CONTRACT_TERMS",
    "DOCUMENT_NOUNS",
    "QUANTITY_NOUNS",
    "SYNONYMS",
    "is_contract_term",
    "is_document_noun",
    "is_quantity_noun",
    "synonyms_of",
]

CONTRACT_TERMS = word_set(
    """limit sublimit deductible retention premium price pricing cost fee charge rate
    payout copay copayment coinsurance budget"""
)
"""The nouns that name the amounts of a contract or a price list (in the singular). A
section heading names the quantity of the figures under it only when its head is one of
these (:mod:`osrag.extract.facts.sections`): topics under which a long text discusses
many kinds of figure ("Income", "Compensation", "Revenue", "Assets") are not."""

QUANTITY_NOUNS = CONTRACT_TERMS | word_set(
    """excess benefit revenue sale income earning profit loss asset liability equity debt
    cash dividend expense salary rent payment settlement fine penalty bonus compensation
    capex ebitda margin turnover reserve allowance spend spending"""
)
"""Nouns that name a quantity an amount can be (in the singular): the terms of a contract
and the lines of a statement. A noun right after an amount binds the constraint only when
it is one of these (:func:`is_quantity_noun`: "$500 deductible" constrains a deductible;
"the $300,000 umbrella policy" names no quantity, its constraint stays role-free)."""

DOCUMENT_NOUNS = word_set(
    """policy company firm report filing document contract agreement insurer business
    entity organisation organization plan statement one insurance"""
)
"""Nouns that name what holds an amount, not what it measures (in the singular): a phrase
ending in one names no quantity (:func:`is_document_noun`: "flood policy over $500,000"
is role-free)."""


def is_quantity_noun(word: str) -> bool:
    """``word`` (as written, either number) is one of :data:`QUANTITY_NOUNS`."""
    return singular(word.casefold()) in QUANTITY_NOUNS


def is_contract_term(word: str) -> bool:
    """``word`` (as written, either number) is one of :data:`CONTRACT_TERMS`."""
    return singular(word.casefold()) in CONTRACT_TERMS


def is_document_noun(word: str) -> bool:
    """``word`` (as written, either number) is one of :data:`DOCUMENT_NOUNS`."""
    return singular(word.casefold()) in DOCUMENT_NOUNS


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


@cache
def _groups() -> dict[tuple[str, ...], tuple[str, ...]]:
    by_key: dict[tuple[str, ...], tuple[str, ...]] = {}
    for group in SYNONYMS:
        for name in group:
            by_key.setdefault(name_key(name), group)
    return by_key


def synonyms_of(name: str) -> tuple[str, ...]:
    """The group of :data:`SYNONYMS` ``name`` is a member of (its words, each in the
    singular, are a member's), or ()."""
    return _groups().get(name_key(name), ())
