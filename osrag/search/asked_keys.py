"""The label keys a bound constraint asks a fact for: the question's name at the head. Pure.

A fact stores the keys of its label (:func:`osrag.schema.label_keys.label_keys`: the
core of what it measures and each tail of it that ends at its head — "Total revenue" →
"total revenue", "revenue"; "Deferred revenue" → "deferred revenue" only). A bound
constraint passes a fact when the key of its label, or of one of its alternatives
(:func:`osrag.search.labels.label_alternatives`: the other number, the synonyms, the name
without a generic or section word — and the alternatives of those), is one of the fact's
keys — an exact term, so
"revenue" no longer matches "Deferred revenue" or "Cost of revenues", and "interest
income" no longer matches "Interest expense, interest income and other income, net".

A section word inside a name (:data:`osrag.search.labels.SECTION_HEADS`, "liability")
may be left out when two words or more stand before it, as at its end: "property
damage liability limit" asks for "property damage limit" too, which "Property damage,
each accident — Limit" holds.
"""

from __future__ import annotations

from osrag.schema.label_keys import COMPLEMENTS, asked_key_forms
from osrag.search.labels import (
    DOCUMENT_NOUNS,
    SECTION_HEADS,
    label_alternatives,
    names_loss,
    normalised,
)


def _without_section_word(name: str) -> list[str]:
    """``name`` without a section word that has two words or more before it."""
    words = normalised(name).split(" ")
    return [
        " ".join(words[:i] + words[i + 1 :])
        for i in range(2, len(words) - 1)
        if words[i] in SECTION_HEADS
    ]


def _ends_in_a_link(name: str) -> bool:
    """A name cut after a linking word ("limit of" of "limit of liability", a section
    word left out, and its plural "limit ofs"): no quantity, never asked."""
    last = normalised(name).split(" ")[-1]
    return last in COMPLEMENTS or last.removesuffix("s") in COMPLEMENTS


def asked_keys(label: str, *, gains_only: bool = False) -> tuple[str, ...]:
    """The keys a fact's label must hold one of to be the quantity ``label`` names;
    ``gains_only``: not the names of a loss (a result asked on its positive side)."""
    # the alternatives of each alternative: "medical payments coverage" → "medical
    # payments" → its synonyms ("medical payments to others")
    names = tuple(
        dict.fromkeys(
            n
            for name in label_alternatives(label, every=True)
            for n in label_alternatives(name, every=True)
        )
    )
    if gains_only:
        names = tuple(n for n in names if not names_loss(n))
    keys = [
        key
        for name in names
        for n in (name, *_without_section_word(name))
        if not _ends_in_a_link(n)
        for i, key in enumerate(asked_key_forms(n))
        if i == 0 or key not in DOCUMENT_NOUNS  # "policy limit" is not asked as "policy"
    ]
    return tuple(sorted({k for k in keys if k}))
