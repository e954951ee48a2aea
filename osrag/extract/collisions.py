"""The reference's collision check: do canonical money tokens contain one another?

The reference canonicalised every amount to a token ``money:<minor units>``
and searched those tokens as text. ``money:30000000`` ($300,000) is a
substring of ``money:300000000`` ($3,000,000), so the $3M policy ranked
second for a $300,000 query. The reference's prevention is an assertion over
every pair of amounts in a corpus; :func:`find_collisions` is that assertion.

Because ``money:`` occurs in a token only at its start, token *a* is a
substring of token *b* exactly when the digits of *a* are a proper prefix of
the digits of *b*. Sorting the digit strings puts every extension of a prefix
right after it, so the check is ``O(n log n + collisions)``, not the
reference's ``O(n²)`` pair loop.

osrag stores integers in a ``long`` field and filters with ``term``
equality, so two distinct amounts can collide only if they share a 64-bit
representation — i.e. if one of them was wrapped. :func:`integer_collisions`
checks exactly that (and finds nothing for amounts osrag extracted, which are
refused beyond ``2**63 - 1`` rather than wrapped).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, Field

from osrag.extract.money import scan_money
from osrag.models import Document, ExtractionConfig, LoadIssue

_LONG_MASK = 2**64 - 1


def canonical_token(minor_units: int) -> str:
    """The reference baseline's token for an amount: ``money:<minor units>``."""
    return f"money:{minor_units}"


class Collision(BaseModel):
    """Two distinct amounts whose canonical tokens are substrings of one another."""

    contained: int = Field(description="the amount whose token is inside the other")
    container: int
    contained_token: str
    container_token: str
    contained_docs: list[str] = Field(default_factory=list)
    container_docs: list[str] = Field(default_factory=list)


def find_collisions(values: Iterable[int]) -> list[Collision]:
    """Every pair of distinct amounts whose ``money:<n>`` tokens contain one another.

    >>> [(c.contained, c.container) for c in find_collisions([3000000, 30000000, 300000000])]
    [(3000000, 30000000), (3000000, 300000000), (30000000, 300000000)]
    """
    digits = sorted({str(v) for v in values})
    found: list[Collision] = []
    for i, prefix in enumerate(digits):
        j = i + 1
        while j < len(digits) and digits[j].startswith(prefix):
            a, b = int(prefix), int(digits[j])
            found.append(
                Collision(
                    contained=a,
                    container=b,
                    contained_token=canonical_token(a),
                    container_token=canonical_token(b),
                )
            )
            j += 1
    found.sort(key=lambda c: (c.contained, c.container))
    return found


def integer_collisions(values: Iterable[int]) -> list[tuple[int, int]]:
    """Pairs of distinct amounts that a ``long`` field could not tell apart.

    Two integers are the same ``term`` in a ``long`` field only if their
    64-bit two's-complement representations are equal; for distinct values
    that happens only when at least one is outside the ``long`` range and was
    wrapped. Amounts extracted by osrag never are, so this returns ``[]`` for
    them; it returns the offending pairs for any list that would wrap.
    """
    by_bits: dict[int, set[int]] = defaultdict(set)
    for value in values:
        by_bits[value & _LONG_MASK].add(value)
    pairs: list[tuple[int, int]] = []
    for same in by_bits.values():
        ordered = sorted(same)
        pairs.extend((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    return sorted(pairs)


class CollisionReport(BaseModel):
    """What ``osrag check-collisions`` prints (``--json`` is this model)."""

    documents: int = 0
    mentions: int = 0
    distinct_amounts: int = 0
    string_collisions: list[Collision] = Field(default_factory=list)
    integer_collisions: list[tuple[int, int]] = Field(default_factory=list)
    issues: list[LoadIssue] = Field(default_factory=list)

    @property
    def integers_are_safe(self) -> bool:
        return not self.integer_collisions


def collision_report(
    items: Iterable[Document | LoadIssue],
    config: ExtractionConfig | None = None,
    *,
    max_docs: int = 5,
) -> CollisionReport:
    """Extract every amount of a corpus and run both checks over the distinct values.

    Amounts of every currency are pooled, as the reference's tokens carry no
    currency. Each collision lists up to ``max_docs`` ids of documents stating
    each side.
    """
    config = config or ExtractionConfig()
    report = CollisionReport()
    docs_by_value: dict[int, list[str]] = defaultdict(list)
    for item in items:
        if isinstance(item, LoadIssue):
            report.issues.append(item)
            continue
        report.documents += 1
        mentions = scan_money(item.text, config.default_currency, pos=item.content_start).mentions
        report.mentions += len(mentions)
        for value in dict.fromkeys(m.minor_units for m in mentions):
            docs_by_value[value].append(item.doc_id)
    report.distinct_amounts = len(docs_by_value)
    for collision in find_collisions(docs_by_value):
        collision.contained_docs = docs_by_value[collision.contained][:max_docs]
        collision.container_docs = docs_by_value[collision.container][:max_docs]
        report.string_collisions.append(collision)
    report.integer_collisions = integer_collisions(docs_by_value)
    return report
