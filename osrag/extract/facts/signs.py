"""Signs: the value of an amount as a result (the one policy; docs/amounts.md).

1. Parentheses or a minus make a value negative (``(3.1)``, ``-5``, ``$(3.1) million``,
   ``−€5``): the money readers set ``negative``.
2. A loss is a negative result however it is written: a figure whose label names a loss
   and not its counterpart is stored negative — ``Net loss``, ``Operating loss``,
   ``Loss before income taxes``, ``Impairment losses``, ``Loss on extinguishment of
   debt``, prose "a net loss of $3.1 million". A figure written negative under such a
   label stays negative: never flipped twice.
3. A label that names both ("Net income (loss)", "Profit/(loss)", "Gain (loss) on
   sale", "Income or loss", "Gains and losses") keeps the sign as written; so does a
   label in which the loss word only qualifies another noun ("Net operating loss
   carryforwards" — a tax asset; "Loss reserves", "Loss ratio") or is the object of
   *for*/*against*/*from*/*on* after another noun ("Allowance for credit losses",
   "Provision for loan losses", "Protection against losses").
4. Everything else keeps the sign as written.

:func:`names_loss` decides 2–3; :func:`signed_value` applies the policy.
"""

from __future__ import annotations

import functools
import re

__all__ = ["names_loss", "signed_value"]

_LOSS = re.compile(r"(?i)\blosse?s?\b|\bdeficits?\b")
_COUNTERPART = re.compile(r"(?i)\b(?:income|profits?|earnings|gains?|surplus)\b")
_PAIRED = re.compile(
    r"(?i)\(\s*(?:net\s+)?(?:loss|losses|deficit)\s*\)"  # "Net income (loss)"
    r"|\((?:income|profit|earnings|gain)s?\)\s*(?:loss|losses)"  # "(Profit) loss"
    r"|(?:income|profits?|earnings|gains?|surplus)\s*(?:/|\bor\b|\band\b|&)\s*\(?\s*(?:net\s+)?(?:loss|losses|deficit)"
    r"|(?:loss|losses|deficit)\s*\)?\s*(?:/|\bor\b|\band\b|&)\s*\(?(?:income|profits?|earnings|gains?|surplus)"
)
_QUALIFIER = re.compile(
    r"(?i)\b(?:loss|losses)\s+(?:carry[\s-]?forwards?|carry[\s-]?overs?|carry[\s-]?backs?|"
    r"reserves?|ratios?|contingenc(?:y|ies)|allowances?|provisions?|adjustment\s+expenses?|"
    r"experience|history|exposures?|given\s+default|limits?|payments?\s+pattern)\b"
)
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
    if _QUALIFIER.search(label) is not None or _OBJECT.search(label) is not None:
        return False
    before = _LOSS.search(label)
    assert before is not None
    # "Income before loss on disposal": a counterpart named first is the quantity
    return _COUNTERPART.search(label, 0, before.start()) is None


def signed_value(magnitude: int, negative: bool, label: str | None) -> int:
    """The stored value: negative when written so or when the label names a loss."""
    return -magnitude if negative or names_loss(label) else magnitude
