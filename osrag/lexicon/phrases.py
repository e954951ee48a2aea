"""The noun phrase at the end of a run of words: the one reader both sides read names with.

A figure's name is the noun phrase right before it (a document: "total revenues were
$5.2 million"; a question: "companies whose **revenue** exceeded $500 million"). Read
back from the end, the phrase runs until a word that cannot be part of it:

* a word of ``stops`` — the function words the reader stops at
  (:mod:`osrag.lexicon.function_words`: a question stops at every article and
  determiner, a document's prose at verbs and clause words);
* a word of ``openers`` (a determiner) — unless the phrase has begun and a preposition
  of ``inside`` stands before it (or before the run of openers it ends: "any one"): the
  determiner is then inside the phrase ("proceeds from **the** sale");
* a word ``breaks`` says is none (a question's reader: a mark, a word with a digit — an
  identifier, "UMB-300000" —, a possessive: "the policy's deductible", the owner is not
  the quantity);
* but a stop that is one of ``participles`` stays in the phrase when a word that is no
  stop stands before it and a preposition of ``inside`` after it — a participle after a
  noun, before its complement, is part of the name ("Amount **reported** as capital
  gain");
* the ``limit``-th word.

A name never starts or ends with a word of ``edges`` (a preposition, a coordinator, a
comma): they are taken off its ends. :func:`phrase_at_end` returns the phrase and where
it stopped, so a reader can look at the word that stopped it (a question's "policies
**with** limits").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["phrase_at_end"]


def phrase_at_end(
    words: Sequence[str],
    stops: frozenset[str],
    *,
    openers: frozenset[str] = frozenset(),
    inside: frozenset[str] = frozenset(),
    breaks: Callable[[str], bool] | None = None,
    edges: frozenset[str] = frozenset(),
    participles: frozenset[str] = frozenset(),
    limit: int = 8,
) -> tuple[list[str], int]:
    """``(the phrase, the index of the word that stopped it)`` — -1 when it runs to the
    start (module docstring). Words are compared lower-cased."""

    def stopped(i: int) -> bool:
        word = words[i]
        return word.lower() in stops or (breaks is not None and breaks(word))

    phrase: list[str] = []
    at = len(words) - 1
    while at >= 0 and len(phrase) < limit:
        word = words[at]
        lower = word.lower()
        if stopped(at):
            inner = lower in participles and bool(phrase) and phrase[0].lower() in inside
            if not (inner and at > 0 and not stopped(at - 1)):
                break
        if lower in openers:
            first = at  # a run of openers ("any one") is inside when a preposition precedes it
            while first > 0 and words[first - 1].lower() in openers:
                first -= 1
            if not (phrase and first and words[first - 1].lower() in inside):
                break
            if len(phrase) + at + 1 - first > limit:
                break  # the run would take the phrase past its limit
            phrase[:0] = words[first : at + 1]
            at = first - 1
            continue
        phrase.insert(0, word)
        at -= 1
    start, end = 0, len(phrase)
    while start < end and phrase[start].lower() in edges:
        start += 1
    while end > start and phrase[end - 1].lower() in edges:
        end -= 1
    return phrase[start:end], at
