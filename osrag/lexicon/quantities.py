"""The nouns that name a quantity, the nouns that name what holds one, and synonyms.

* :data:`QUANTITY_NOUNS` — nouns that name a quantity an amount can be (a deductible, a
  premium, revenue, a fee …): a question's noun right beside an amount binds the amount
  to it only when it is one; :data:`HEADING_QUANTITY_NOUNS` — the narrower set a
  section heading must end in to label the figures under it (the terms of a contract or
  a price list);
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

from osrag.lexicon.words import name_key, word_set

__all__ = [
    "DOCUMENT_NOUNS",
    "HEADING_QUANTITY_NOUNS",
    "QUANTITY_NOUNS",
    "SYNONYMS",
    "synonyms_of",
]

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

HEADING_QUANTITY_NOUNS = word_set(
    """limit limits sublimit sublimits deductible deductibles retention retentions
    premium premiums price prices pricing cost costs fee fees charge charges rate rates
    payout payouts copay copays copayment copayments coinsurance budget budgets"""
)
"""Head nouns of a heading that names the amounts a section states: the terms of a
contract or a price list. Topics under which a long text discusses many kinds of figure
("Income", "Compensation", "Revenue", "Assets") are not among them."""

DOCUMENT_NOUNS = frozenset({
    "policy", "policies", "company", "companies", "firm", "firms", "report", "reports",
    "filing", "filings", "document", "documents", "contract", "contracts", "agreement",
    "agreements", "insurer", "insurers", "business", "businesses", "entity", "entities",
    "organisation", "organisations", "organization", "organizations", "plan", "plans",
    "statement", "statements", "one", "ones", "insurance", "insurances",
})  # fmt: skip
"""Nouns that name what holds an amount, not what it measures: a phrase ending in one
names no quantity ("flood policy over $500,000" is role-free)."""

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
