"""Signs: the value of an amount as a result (the one policy; docs/amounts.md).

1. Parentheses or a minus make a value negative (``(3.1)``, ``-5``, ``$(3.1) million``,
   ``−€5``): the money readers set ``negative``.
2. A loss is a negative result however it is written: a figure whose label names a loss
   and not its counterpart is stored negative — ``Net loss``, ``Operating loss``,
   ``Loss before income taxes``, ``Impairment losses``, ``Loss on extinguishment of
   debt``, prose "a net loss of $3.1 million". A figure written negative under such a
   label stays negative: never flipped twice.
3. A label that names both ("Net income (loss)", "Profit/(loss)", "Gain (loss) on
   sale", "Income or loss", "Gains and losses") keeps the sign as written. So does a
   label whose loss is not the quantity it measures: the loss word qualifies the noun
   after it ("Loss ratio", "Loss payee", "Loss assessment", "Loss adjustment
   expenses", "Net operating loss carryforwards" — a tax asset), is complemented by
   *of* ("Loss of use", "Loss of income": what is lost — an insurance coverage), ends
   a compound name ("Stop loss", "stop-loss limit"), or is the object of
   *for*/*against*/*from*/*on* after another noun ("Allowance for credit losses").
   The loss stays the quantity before a preposition or a participle ("Loss before
   income taxes", "Loss from operations", "Net loss per share", "Net loss
   attributable to …"), a conjunction, or at the end.
4. Everything else keeps the sign as written.

:func:`names_loss` decides 2–3; :func:`signed_value` applies the policy. Both sides read
a label with it: the ingest stores a fact's value so, and a question's "net loss under
$20 million" asks for the negative side.

**Results that can be a loss** (:func:`result_families`: the synonym groups a profile in
use marks ``signed`` — net income, operating income, income before taxes, gross profit,
and the names of their losses, in the financial statements' profile) are compared by
their *signed* value (:func:`is_signed`); every other quantity by its magnitude.
"""

from __future__ import annotations

import functools
import re

from osrag.lexicon.profiles import vocabulary
from osrag.lexicon.words import name_key, word_set

__all__ = [
    "GAIN_WORDS",
    "LOSS_WORDS",
    "is_signed",
    "names_loss",
    "result_families",
    "result_family",
    "signed_value",
]

_LOSS = re.compile(r"(?i)\blosse?s?\b|\bdeficits?\b")
_COUNTERPART = re.compile(r"(?i)\b(?:income|profits?|earnings|gains?|surplus)\b")
_PAIRED = re.compile(
    r"(?i)\(\s*(?:net\s+)?(?:loss|losses|deficit)\s*\)"  # "Net income (loss)"
    r"|\((?:income|profit|earnings|gain)s?\)\s*(?:loss|losses)"  # "(Profit) loss"
    r"|(?:income|profits?|earnings|gains?|surplus)\s*(?:/|\bor\b|\band\b|&)\s*\(?\s*(?:net\s+)?(?:loss|losses|deficit)"
    r"|(?:loss|losses|deficit)\s*\)?\s*(?:/|\bor\b|\band\b|&)\s*\(?(?:income|profits?|earnings|gains?|surplus)"
)
_AFTER_LOSS = re.compile(r"(?i)\b(?:loss(?:es)?|deficits?)\b(?P<hyphen>-)?[ \t]*(?P<next>[a-z]+)?")
_LOSS_COMPLEMENTS = word_set(
    """before after from on per for in at to with within under over during since through
    attributable applicable available allocated allocable related relating due arising
    resulting recognized recognised recorded incurred realized realised reported excluding
    including net as and or versus vs plus less adjusted"""
)
"""Words after a loss word that leave the loss the quantity ("Loss before income taxes",
"Loss from operations", "Net loss per share", "Net loss attributable to …")."""
_COMPOUND_BEFORE = re.compile(r"(?i)\bstop[\s-]+loss(?:es)?\b|\w-loss(?:es)?\b")
"""A loss word that ends a compound name ("Stop loss", "stop-loss", "non-loss")."""
_OBJECT = re.compile(
    r"(?i)\b(?:allowances?|provisions?|reserves?|protection|insurance|coverage|"
    r"estimates?|accruals?|liabilit(?:y|ies))\b[^.;]{0,40}?\b(?:for|against|from|of|on)\b"
    r"[^.;]{0,30}?\b(?:loss|losses)\b"
)


@functools.lru_cache(maxsize=1 << 12)
def names_loss(label: str | None) -> bool:
    """The label names a loss and not its counterpart (module docstring, 2–3)."""
    if not label or _LOSS.search(label) is None:
        return False
    if _PAIRED.search(label) is not None:
        return False
    if _OBJECT.search(label) is not None or _COMPOUND_BEFORE.search(label) is not None:
        return False
    if any(_qualifies(m) for m in _AFTER_LOSS.finditer(label)):
        return False
    before = _LOSS.search(label)
    assert before is not None
    # "Income before loss on disposal": a counterpart named first is the quantity
    return _COUNTERPART.search(label, 0, before.start()) is None


def _qualifies(match: re.Match[str]) -> bool:
    """The loss word of ``match`` qualifies the word after it ("Loss ratio", "Loss payee",
    "Loss adjustment expenses", "Net operating loss carryforwards", "loss-sensitive") or
    is complemented by *of* ("Loss of use", "Loss of income": what is lost)."""
    following = match.group("next")
    if following is None:
        return False
    return match.group("hyphen") is not None or following.lower() not in _LOSS_COMPLEMENTS


def signed_value(magnitude: int, negative: bool, label: str | None, scope: str = "own") -> int:
    """The stored value: negative when written so or when the label names a loss — unless
    the figure is the tax effect of its item (``scope`` ``tax_effect``: "Deferred tax
    assets: Net operating losses" is a tax asset, not a loss)."""
    if negative:
        return -magnitude
    return -magnitude if scope != "tax_effect" and names_loss(label) else magnitude


def result_families() -> tuple[tuple[str, ...], ...]:
    """Results that can be a gain or a loss, compared by their signed value: the synonym
    groups a profile in use marks ``signed``."""
    return vocabulary().signed_groups


LOSS_WORDS = frozenset({"loss", "losses", "deficit"})
"""Words that name the negative side of a result."""
GAIN_WORDS = frozenset(
    {"income", "incomes", "profit", "profits", "earnings", "earning", "gain", "gains"}
)
"""Words that name a result's positive side (a label with both, "net income (loss)",
names the result, not a loss)."""


def result_family(label: str) -> tuple[str, ...] | None:
    """The result family a label names (its words are a member's, "net income (loss)" read
    as "net income"), or None."""
    key = name_key(label)
    keys = {key, tuple(w for w in key if w not in LOSS_WORDS)} if set(key) & GAIN_WORDS else {key}
    for family in result_families():
        if any(name_key(member) in keys for member in family):
            return family
    return None


def is_signed(label: str) -> bool:
    """Whether a quantity with this label is compared by its signed value (a result)."""
    return result_family(label) is not None
