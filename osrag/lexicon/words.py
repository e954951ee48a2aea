"""Words as written: how a list is written, how a name is normalised, a noun's number.

* :func:`word_set` — a closed list written as one string, white space between its words;
* :func:`singular` — English noun number, the one rule both sides use for every name
  (``liabilities`` → ``liability``, ``revenues`` → ``revenue``, ``taxes`` → ``tax``), and
  :func:`other_number` — the same word in the other number (``limits`` ↔ ``limit``);
* :func:`phrase_words` — a name's words: casefolded, in the singular, parenthesised
  words left out, ``&`` read as "and";
* :func:`normalised` — a name as one string: lower-cased, ``&`` between words read as
  "and", punctuation out, white space collapsed (the question side's reading of a name
  before its alternatives are looked up); :func:`name_key` — what two names of one
  quantity share when they say the same words (looked up among the synonyms).
"""

from __future__ import annotations

import re

__all__ = [
    "name_key",
    "normalised",
    "other_number",
    "phrase_words",
    "singular",
    "without_parentheses",
    "word_set",
]


def word_set(words: str) -> frozenset[str]:
    """A set of words written as one string (white space between them)."""
    return frozenset(words.split())


def singular(word: str) -> str:
    """``liabilities`` → ``liability``, ``revenues`` → ``revenue``, ``taxes`` → ``tax``
    (English noun number; the one rule both sides use)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def other_number(word: str) -> str:
    """``limits`` ↔ ``limit``, ``liabilities`` ↔ ``liability``: the singular of a plural
    (:func:`singular`), else the plural of a singular (English noun number)."""
    one = singular(word)
    if one != word:
        return one
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


_PAREN = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_WORD = re.compile(r"[a-z0-9]+")


def phrase_words(text: str) -> list[str]:
    """Casefolded words of ``text`` in the singular, parenthesised words left out, ``&``
    read as "and" (``Shareholders' equity (deficit)`` → ``["shareholder", "equity"]``)."""
    text = _PAREN.sub(" ", text.casefold().replace("’", "'").replace("'", ""))
    text = text.replace("&", " and ")
    return [singular(w) for w in _WORD.findall(text)]


def without_parentheses(text: str) -> str:
    """``text`` with its parenthesised (and bracketed) words left out."""
    return _PAREN.sub(" ", text)


_SPACE = re.compile(r"\s+")


def normalised(label: str) -> str:
    """Lowercase, ``&`` as "and" between words, punctuation out, white space collapsed."""
    text = label.lower().replace("’", "'")
    text = re.sub(r"\s&\s", " and ", text)
    text = re.sub(r"[^\w&\s]", " ", text)
    return _SPACE.sub(" ", text).strip()


_KEY_WORD = re.compile(r"[a-z0-9&]+")


def name_key(label: str) -> tuple[str, ...]:
    """What two names of a label share when they say the same words (in the singular)."""
    return tuple(singular(w) for w in _KEY_WORD.findall(normalised(label)))
