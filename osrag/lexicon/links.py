"""The words that link a noun phrase to its amount, as a document and a question write them.

A figure's name stands before it, joined by a linking word: a verb of being or amounting
("revenue **was** $5.2 million", "premiums **totaled** $450", "a deductible **of**
$500"), a verb of change whose end point is the figure ("revenue **rose to** $5.2
million", "increased 12% **to**"), or, in a question, a comparison's lead-in ("revenue
**is** over $5 million", "a limit **in the range of**", "fees **that are** above",
"revenue **may** exceed"). Both sides take the link off before they read the name; the
two patterns are side by side here, built from the same classes of words
(:mod:`osrag.lexicon.function_words`):

* :data:`STATED_LINK` — a document's link, read back from an amount, with the hedges
  that may stand between it and the figure ("of **approximately**", "to **a record**");
* :data:`ASKED_LINK` — a question's link, read back from a constraint (the comparison
  word itself is the constraint's: "revenue exceeded $5 million").
"""

from __future__ import annotations

import re

from osrag.lexicon.function_words import DO, FINITE_BE, HEDGES, MODALS

__all__ = ["ASKED_BOUND", "ASKED_LINK", "LINKS_THAT_ARE_NOUNS", "STATED_LINK", "alternation"]


def alternation(words: frozenset[str] | set[str]) -> str:
    """``words`` as one regex alternation, longest first."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


_AMOUNTING = r"totall?ed|totall?ing|amount(?:ed|ing|s)?\s+to|came\s+to|comes?\s+to|stood\s+at"
"""Verbs of amounting to a figure, on both sides ("totaled", "amounted to", "stood at")."""

STATED_LINK = re.compile(
    r"(?i)(?:(?:\s|^)|(?=:))(?P<link>of|"
    rf"{alternation(FINITE_BE)}|be|been|will\s+be|would\s+be|remains?|remained|"
    rf"{_AMOUNTING}|totals?|reached|reaches|stands\s+at|equals?|equall?ed\s+to|equal\s+to|"
    r"(?:rose|rises|increased|increases|decreased|decreases|fell|falls|declined|declines|"
    r"grew|grows|climbed|dropped|drops|improved|jumped|reduced|decreasing|increasing|rising|"
    r"falling|growing|declining|was\s+reduced|was\s+increased)"
    r"(?:(?:\s+(?:by\s+)?[^\s,;]+){0,3}?(?<!\bdue)(?<!\bowing)\s+to|\s+from)|:)"
    rf"(?P<hedge>(?:\s+(?:{alternation(HEDGES)}|about|some|over|"
    r"more\s+than|less\s+than|under|up\s+to|just\s+over|just\s+under|a\s+total\s+of|"
    r"an\s+aggregate\s+of|an\s+estimated|a\s+record|a|an|of))*)\s*$"
)
"""A document's linking word and its hedges at the end of the text before an amount
("total revenues **were** $5.2 million", "revenue **increased 12% to approximately**")."""

LINKS_THAT_ARE_NOUNS = frozenset({"cost", "costs"})
"""A question's links that are nouns too: after a subject ("policies that **cost** over",
"the plan **costs** over") a link, after another noun the name's head ("rebuild
**cost** over", "finance **costs** over")."""

ASKED_BOUND = re.compile(r"(?i)(?:\s+|^)(?P<verb>capped|limited|restricted)(?:\s+(?:at|to))?\s*\Z")
"""A question's link that makes the figure a bound of the name before it: "liability
**capped at** $500,000" asks for the liability's cap, "damages **limited to**" their limit
(group ``verb``: capped → a cap, limited or restricted → a limit)."""

ASKED_LINK = re.compile(
    r"(?:\s+|^)(?:of|"
    rf"{alternation(FINITE_BE)}|be|been|at|equal(?:s|led|ed)?(?:\s+to)?|"
    rf"{_AMOUNTING}|reach(?:ed|ing)?|worth|valued(?:\s+at)?|priced(?:\s+at)?|"
    r"in\s+the\s+range(?:\s+of|\s+from)?|"
    rf"ranging(?:\s+from)?|(?:that|which)(?:\s+(?:{alternation(FINITE_BE)}))?|"
    rf"{alternation(LINKS_THAT_ARE_NOUNS)}|"
    rf"{alternation(MODALS | DO)})\s*\Z|\s*[:=]\s*\Z",
    re.IGNORECASE,
)
"""A question's linking word (or two) at the end of the text before a constraint — a
modal or an auxiliary too ("revenue **may** exceed", "fees **will** be over")."""
