"""The nouns that name a quantity, the nouns that name what holds one, and synonyms — as the
profiles in use say.

No word of any family is written here: each family's nouns and synonym groups are records
of its profile (:mod:`osrag.lexicon.profiles`, ``osrag/lexicon/profiles/*.toml``, and a
team's own in its configuration), and these functions read the vocabulary in use
(:func:`~osrag.lexicon.profiles.vocabulary`):

* :func:`is_quantity_noun` — a noun that names a quantity an amount can be (a deductible,
  a premium, revenue, a fee …): a question's noun right beside an amount binds the amount
  to it only when it is one; :func:`is_contract_term` — one a section heading must end in
  to label the figures under it (the terms of a contract or a price list);
* :func:`is_document_noun` — a noun that names what holds an amount (a policy, a company,
  a lease, an invoice): a phrase ending in one names no quantity;
* :func:`synonyms_of` — the group of names of one quantity a name is in (net sales ~
  revenue, amount payable ~ total due): a name in a group is asked as every other one;
* :func:`is_figure_noun` — a noun that, last in a question's name, only says the figure is
  the amount of the rest ("general liability insurance").

Nothing is guessed (no model, no fuzzy matching): a word is one of these when a profile
in use says so.
"""

from __future__ import annotations

from osrag.lexicon.profiles import vocabulary
from osrag.lexicon.words import singular

__all__ = [
    "is_contract_term",
    "is_document_noun",
    "is_figure_noun",
    "is_quantity_noun",
    "synonyms_of",
]


def is_quantity_noun(word: str) -> bool:
    """``word`` (as written, either number) names a quantity in a profile in use."""
    return singular(word.casefold()) in vocabulary().quantity_nouns


def is_contract_term(word: str) -> bool:
    """``word`` (as written, either number) is a heading noun of a profile in use."""
    return singular(word.casefold()) in vocabulary().heading_nouns


def is_document_noun(word: str) -> bool:
    """``word`` (as written, either number) names what holds an amount in a profile in use."""
    return singular(word.casefold()) in vocabulary().document_nouns


def is_figure_noun(word: str) -> bool:
    """``word`` (as written, either number) is a figure noun of a profile in use."""
    return singular(word.casefold()) in vocabulary().figure_nouns


def synonyms_of(name: str) -> tuple[str, ...]:
    """The group of names of one quantity ``name`` is a member of (its words, each in the
    singular, are a member's), as the profiles in use write it, or ()."""
    return vocabulary().synonyms_of(name)
