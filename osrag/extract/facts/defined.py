"""Defined terms: a name in quotation marks and parentheses that refers back to an amount.

A contract names a figure once and calls it by that name afterwards: the name is defined
in parentheses, in quotation marks, after what it names — ``$350,000.00 (the "Loan")``,
``three million U.S. dollars ($3,000,000) per year according to the following schedule
(which the parties may alter upon mutual agreement) (the "Annual Minimum Guarantee")``.
Two forms name the amount:

* **right after it** (:func:`defined_term`): the parenthesis follows the amount, with at
  most a rate or a period between ("$250,000 in each contract year (the "Minimum Annual
  Purchase Commitment")"). Whatever the name, it is the amount's.
* **later in its sentence** (:func:`defined_later`): the parenthesis ends the clause that
  states the amount, with its complements between — a period, a schedule, a condition
  ("… per year according to the following schedule (…) (the "Annual Minimum
  Guarantee")"). A defined term there may name anything the clause speaks of (a party,
  the goods, the services: "(the "Products")"), so it names the amount only when:

  - it is the name of a quantity: a short name whose head is a quantity noun of a
    profile in use (:func:`~osrag.extract.facts.sections.names_a_quantity`: "Annual
    Minimum Guarantee", "Access Fee" — not "Products", "Territory", "First Tranche
    Debt Securities");
  - the amount is the only one between: no other figure stands before the parenthesis
    ("$X per year and $Y per month (the "Fees")" names the two together);
  - the amount's sentence goes on to it: no full stop, semicolon or colon between, and
    no parenthesis the amount stands in closes before it ("$1,000 per Debenture) (the
    "Notes")" names what the parenthesis was part of);
  - within :data:`LATER_REACH` characters.

  It is read only where nothing else in the sentence names the amount: the name the
  sentence links the amount to comes first ("a license fee of $5,000 payable on signing
  (the "Signing Payment")" is a license fee).

The quotation marks are straight or curly; the definition may say ``hereinafter``,
``hereinafter referred to as``, ``collectively,`` or ``each,`` before the term.
"""

from __future__ import annotations

import re

from osrag.extract.facts.labels import clean_label
from osrag.extract.facts.sections import names_a_quantity
from osrag.extract.money import scan_money

__all__ = ["LATER_REACH", "defined_later", "defined_term"]

LATER_REACH = 200
"""How far after an amount (characters) a defined term later in its sentence is looked
for: a clause's complements, not the next clause's."""

_TERM = r"[\"“](?P<term>[^\"”]{2,50})[\"”]"
_INTRODUCER = (
    r"(?:(?:hereinafter|herein)\s+(?:(?:referred\s+to|defined)\s+as\s+|called\s+)?)?"
    r"(?:(?:collectively|each|together),?\s+)?(?:the\s+|a\s+|an\s+)?"
)
_DEFINED = re.compile(
    r"\s*(?:(?:per|each|a|an|in|for)\s+[\w\s]{1,30}?)?\s*\(\s*(?:the\s+|a\s+)?" + _TERM + r"\s*\)"
)
"""A defined term in parentheses right after the amount (a rate or a period between)."""
_DEFINED_TERM = re.compile(r"\(\s*" + _INTRODUCER + _TERM + r"\s*\)", re.IGNORECASE)
"""A defined term's parenthesis, where it starts."""
_TERM_CLAUSE_END = re.compile(r"[;:]|(?<![A-Z])[.!?](?=\s+[A-Z(\"“]|\s*$)")
"""Where the amount's clause ends: a semicolon, a colon, or a full stop that ends a
sentence (not the stop of an initial: "U.S. dollars")."""
_PARENTHESIS_MARK = re.compile(r"[()]")


def defined_term(after: str) -> str | None:
    """``Loan`` in "$350,000.00 (the "Loan")": the defined term right after the amount
    (module docstring); ``after`` is the text that follows the amount."""
    if "(" not in after[:48]:
        return None
    found = _DEFINED.match(after)
    return clean_label(found.group("term")) if found else None


def defined_later(after: str) -> str | None:
    """``Annual Minimum Guarantee`` in "$3,000,000 per year according to the following
    schedule (…) (the "Annual Minimum Guarantee")": a defined term later in the amount's
    sentence that names a quantity (module docstring); ``after`` is the text that follows
    the amount."""
    window = after[:LATER_REACH]
    if "(" not in window:
        return None
    end = _TERM_CLAUSE_END.search(window)
    window = window[: end.start()] if end is not None else window
    depth = 0
    for mark in _PARENTHESIS_MARK.finditer(window):
        if mark.group() == ")":
            depth -= 1
            if depth < 0:
                return None  # the amount stood in a parenthesis that closes here
            continue
        if depth == 0:
            found = _DEFINED_TERM.match(window, mark.start())
            if found is not None:
                return _quantity_term(found.group("term"), window[: mark.start()])
        depth += 1
    return None


def _quantity_term(term: str, between: str) -> str | None:
    """``term`` as a label when it names a quantity and no other amount stands in
    ``between`` (the text from the amount to the definition)."""
    name = names_a_quantity(term, any_quantity=True)
    if name is None or scan_money(between).mentions:
        return None
    return name
