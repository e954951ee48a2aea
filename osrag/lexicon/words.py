"""Words as written: how a list is written, how a name is normalised, a noun's number.

* :func:`word_set` — a closed list written as one string, white space between its words;
* :func:`singular` — English noun number, the one rule both sides use for every name
  (``liabilities`` → ``liability``, ``revenues`` → ``revenue``, ``taxes`` → ``tax``), and
  :func:`other_number` — the same word in the other number (``limits`` ↔ ``limit``);
* :func:`name_words` — the one normaliser: a name's words, casefolded, apostrophes
  dropped, parenthesised words left out, ``&`` read as "and", any other mark a break;
  :func:`normalised` is them as one string (the question side's names and their
  alternatives), :func:`phrase_words` them in the singular (the words of a label's
  keys), :func:`name_key` the same as a tuple (a name looked up among the synonyms);
* :func:`key_stem` — a key's words reduced to their Snowball (English) stems: "bridging
  loan" and "bridge loan" are one form (question side only: a key as stored keeps its
  words).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = [
    "COMPANY_FORMS",
    "OWN_PLURALS",
    "POSSESSIVE_END",
    "hyphenated",
    "key_stem",
    "name_key",
    "name_words",
    "normalised",
    "other_number",
    "person_of",
    "phrase_words",
    "singular",
    "without_parentheses",
    "word_runs",
    "word_set",
    "word_stems",
]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    """The English Snowball stemmer, loaded on first use: reading a question to build a
    query loads no analyzer library until a name is matched by form."""
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65_536)
def key_stem(key: str) -> str:
    """``key`` (a stored or asked key: casefolded words, one space between them) with each
    word reduced to its Snowball English stem (PyStemmer, the stemmer the embedded
    index's analyzers use already): derived forms of a word meet ("bridging", "bridge" →
    "bridg"; "installation", "installing" → "instal")."""
    return " ".join(_stemmer().stemWords(key.split(" ")))


def word_stems(words: list[str]) -> list[str]:
    """Each of ``words`` reduced to its Snowball (English) stem, as :func:`key_stem` reduces
    a key's words."""
    return list(_stemmer().stemWords(words))


def word_set(words: str) -> frozenset[str]:
    """A set of words written as one string (white space between them)."""
    return frozenset(words.split())


COMPANY_FORMS = word_set(
    "inc corp co ltd llc llp plc lp pc pllc bros gmbh ag sa sarl sas bv nv srl spa ab as oy pty"
)
"""The abbreviations a business's name ends with ("CLEARFLOW SEPTIC SERVICE, INC.", "Hale &
Sons Ltd."), casefolded, their dots out: a letterhead that ends with one ends a name, not a
sentence."""


POSSESSIVE_END = re.compile(r"\w(?:['’]s|s['’])$")
"""The end of a noun in the possessive ("manufacturer's", "owners'")."""


OWN_PLURALS = frozenset({"dues", "arrears"})
"""Nouns of money used in the plural whose singular form is another word — "dues" (a
member's charge) is not "due" (owed: "amount due"), "arrears" not "arrear": kept as they
are, so a label's head ("Membership dues") stays a quantity of its own."""


def singular(word: str) -> str:
    """``liabilities`` → ``liability``, ``revenues`` → ``revenue``, ``taxes`` → ``tax``,
    ``analyses`` → ``analysis`` (English noun number; the one rule both sides use); ``dues``
    stays ``dues``."""
    if word in OWN_PLURALS:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("yses") and len(word) > 6:  # analyses, dialyses: the Greek -ysis
        return word[:-2] + "is"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def person_of(word: str) -> str | None:
    """The person a noun of standing in ``-ship`` is held by ("sponsorships" → "sponsor",
    "membership" → "member", "fellowship" → "fellow"), or None: a price list names the
    standing by its person ("Lanyard sponsor — $8,000" is the lanyard sponsorship's
    price). A base of four letters at least ("worship", "airship" have none)."""
    word = singular(word)
    if word.endswith("ship") and len(word) >= 8 and word[:-4].isalpha():
        return word[:-4]
    return None


def other_number(word: str) -> str:
    """``limits`` ↔ ``limit``, ``liabilities`` ↔ ``liability``: the singular of a plural
    (:func:`singular`), else the plural of a singular (English noun number)."""
    if word in OWN_PLURALS:  # "dues": its own other number
        return word
    one = singular(word)
    if one != word:
        return one
    if word.endswith("ysis") and len(word) > 6:
        return word[:-2] + "es"
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_NAME_WORD = re.compile(r"[^\W_]+")


def word_runs(text: str) -> list[str]:
    """The runs of letters and digits of ``text``, as written: what :func:`name_words`
    reads a name's words from, without its normalising."""
    return _NAME_WORD.findall(text)


def name_words(text: str) -> list[str]:
    """The words of a name as both sides compare them — the one normaliser: casefolded,
    apostrophes dropped (``Shareholders'`` → ``shareholders``), parenthesised and
    bracketed words left out (``Net income (loss)``), ``&`` read as "and" (``R&D`` → ``r
    and d``), every other mark a break between words (``non-current`` → ``non``,
    ``current``)."""
    text = _BRACKETED.sub(" ", text.casefold().replace("’", "'").replace("'", ""))
    return word_runs(text.replace("&", " and "))


def hyphenated(text: str) -> list[bool]:
    """For each of :func:`name_words` of ``text``, whether a hyphen joins it to the word
    before it ("acquisition-**related**", "held-**for**-sale"): a compound's part."""
    text = _BRACKETED.sub(" ", text.casefold().replace("’", "'").replace("'", ""))
    text = text.replace("&", " and ")
    return [m.start() > 0 and text[m.start() - 1] in "-‐" for m in _NAME_WORD.finditer(text)]


def phrase_words(text: str) -> list[str]:
    """:func:`name_words` in the singular (``Shareholders' equity (deficit)`` →
    ``["shareholder", "equity"]``): the words a label's keys are made of."""
    return list(_phrase_words(text))


@lru_cache(maxsize=1 << 14)
def _phrase_words(text: str) -> tuple[str, ...]:
    """:func:`phrase_words`, kept: the same labels and phrases are read again and again
    (seven reads in ten repeat one on the synthetic policies)."""
    return tuple(singular(w) for w in name_words(text))


def without_parentheses(text: str) -> str:
    """``text`` with its parenthesised (and bracketed) words left out."""
    return _BRACKETED.sub(" ", text)


def normalised(label: str) -> str:
    """:func:`name_words` as one string, a space between words (``Limits of liability``
    → ``limits of liability``)."""
    return " ".join(name_words(label))


def name_key(label: str) -> tuple[str, ...]:
    """What two names of a label share when they say the same words, in the singular
    (:func:`phrase_words`): how a name is looked up among the synonyms."""
    return tuple(phrase_words(label))
