"""OpenSearch's ``english`` and ``standard`` analyzers, in Python, for the embedded backend.

Rule — the ``english`` analyzer is Lucene's ``EnglishAnalyzer``, step by step:

1. **standard tokenizer**: Unicode word segmentation (UAX #29). A word is a
   run of letters, marks, decimal digits and connector punctuation (``_``);
   ``. ' ’ :`` join two letters (``u.s.a``, ``don't``, ``site.url``), ``. , ;``
   join two digits (``300,000``, ``3.5``); each Han ideograph, Hiragana
   character and emoji is a token of its own; tokens longer than 255
   characters are cut every 255 characters; a run of Katakana, or of Thai,
   Lao, Khmer or Myanmar script, is one token (Lucene does not segment it
   further); an emoji keeps its modifiers and joiners;
2. **possessive**: a trailing ``'s`` / ``’s`` is removed;
3. **lowercase**;
4. **stop words**: Lucene's 33 English stop words (not Snowball's 170);
5. **Porter stemmer** as Lucene implements it: the Snowball ``porter``
   algorithm (PyStemmer) plus the three places where Martin Porter's reference
   code, which Lucene follows, departs from the published paper — ``-bli`` →
   ``-ble``, ``-logi`` → ``-log``, and any doubled consonant left by removing
   ``-ed``/``-ing`` is undoubled (``grokking`` → ``grok``); words of one or two
   letters are not stemmed.

``standard`` is steps 1 and 3 only. Tantivy ships a stemmer, but it is Snowball
*English* (Porter2), which conflates words differently (``uses`` → ``use``,
not ``us``; ``general`` ≠ ``generate``) and stop-words 170 words, so its terms
are not OpenSearch's (docs/benchmarks.md has how often they differ). This
module gives tantivy already-analysed terms (joined by spaces, indexed with its
whitespace tokenizer), so both engines see the same terms.

Invariant (``tests/engines/test_analyzers.py``): on samples of the project's corpora the
terms equal OpenSearch's ``_analyze`` output token for token; the fast path for
Latin text gives exactly the tokens of the full Unicode pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import regex
import Stemmer

from osrag.engines.mapping import ENGLISH_STOP_WORDS
from osrag.errors import ConfigError

MAX_TOKEN_LENGTH = 255
"""Lucene's ``StandardTokenizer`` default: longer tokens are cut at this length."""

# UAX #29 word-break classes (the parts that occur in real text).
_SINGLE = r"\p{Han}\p{Hiragana}"
_EMOJI = r"\p{Extended_Pictographic}"
_KATAKANA = r"\p{Katakana}\u30fc\u3031-\u3035\u309b\u309c"
_SOUTHEAST_ASIAN = (
    r"\p{Thai}\p{Lao}\p{Myanmar}\p{Khmer}\p{Tai_Le}\p{New_Tai_Lue}\p{Tai_Tham}\p{Tai_Viet}"
)
_OWN = f"{_SINGLE}{_EMOJI}{_KATAKANA}{_SOUTHEAST_ASIAN}"
"""Characters that never join a Latin-style word."""
_WORD_CHAR = rf"[\p{{L}}\p{{M}}\p{{Nd}}\p{{Pc}}\p{{Cf}}\u202f--[{_OWN}]]"
_LETTER = rf"[\p{{L}}\p{{M}}--[{_OWN}]]"
_MID_LETTER = r":·\u0387\u055f\u05f4\u2027\ufe13\ufe55\uff1a"
_MID_NUM_LET = r".'\u2018\u2019\u2024\ufe52\uff07\uff0e"
_MID_NUM = r",;\u037e\u0589\u060c\u060d\u066c\u07f8\u2044\ufe10\ufe14\ufe50\ufe54\uff0c\uff1b"
_EXACT = regex.compile(
    rf"[{_SINGLE}]|[{_EMOJI}](?:[\p{{M}}\p{{Emoji_Modifier}}]|\u200d[{_EMOJI}])*"
    rf"|[{_KATAKANA}]+|[{_SOUTHEAST_ASIAN}]+"
    rf"|{_WORD_CHAR}+(?:(?:(?<={_LETTER})[{_MID_LETTER}{_MID_NUM_LET}](?={_LETTER})"
    rf"|(?<=\p{{Nd}})[{_MID_NUM}{_MID_NUM_LET}](?=\p{{Nd}})){_WORD_CHAR}+)*",
    regex.V1,
)

# Fast path: for text made only of these characters, Python's ``\w`` is exactly the
# UAX #29 word class above (ASCII, Latin-1 letters, Latin Extended A/B, Greek, and the
# common punctuation; not © ® ² ½ soft hyphen ‼ ⁉ ‿ …), and ``re`` is ~3x faster than
# ``regex`` with Unicode set operations. ``tests/engines/test_analyzers.py`` checks every one.
_SAFE = re.compile(
    r"[\x00-\xa8\xaa-\xac\xaf-\xb1\xb4-\xb8\xba\xbb\xbf-\u024f\u0386\u0388-\u038a\u038c"
    r"\u038e-\u03a1\u03a3-\u03ce\u2010-\u2027\u2030-\u203b\u203d-\u203e\u2041-\u2043"
    r"\u2045-\u2048\u204a-\u2053\u2055-\u205e\u20a0-\u20c0]*"
)
_FAST = re.compile(
    r"\w+(?:(?:(?<=[^\W\d_])[:.'\u2018\u2019\u2024\u2027\xb7](?=[^\W\d_])"
    r"|(?<=\d)[.,;'\u2018\u2019\u2024](?=\d))\w+)*"
)
_POSSESSIVE = ("'s", "’s", "\uff07s")
_LUCENE_LOWER = str.maketrans({"İ": "i", "Σ": "σ"})
"""Where Python's ``str.lower`` differs from Java's per-character lowercase."""


def lowercase(text: str) -> str:
    """Lowercase as Lucene's ``LowerCaseFilter`` does (no final sigma, ``İ`` → ``i``)."""
    return text.translate(_LUCENE_LOWER).lower() if "İ" in text or "Σ" in text else text.lower()


def _measure(stem: str) -> int:
    """Porter's *m*: the number of vowel-consonant sequences in ``stem``."""
    m, previous_vowel = 0, False
    for i, ch in enumerate(stem):
        vowel = ch in "aeiou" or (ch == "y" and i > 0 and stem[i - 1] not in "aeiou")
        if previous_vowel and not vowel:
            m += 1
        previous_vowel = vowel
    return m


_snowball_porter = Stemmer.Stemmer("porter")


def porter_stem(word: str) -> str:
    """Lucene's ``PorterStemmer`` on one lowercase word (see the module docstring)."""
    if len(word) <= 2:
        return word
    stem: str = _snowball_porter.stemWord(word)
    if stem.endswith("bli") and _measure(stem[:-3]) > 0:
        stem = _snowball_porter.stemWord(stem[:-3] + "ble")
    elif (stem.endswith("logi") and _measure(stem[:-4]) > 0) or (
        len(stem) > 2
        and stem[-1] == stem[-2]
        and stem[-1] in "chjkqvwx"  # Snowball undoubles only b d f g m n p r t
        and word.endswith(("ed", "ing"))
    ):
        stem = stem[:-1]
    return stem


class _Terms(dict[str, str]):
    """Lowercase token → its indexed term(s), space-joined ("" for a stop word). Memoised."""

    def __init__(self, stem: bool, stop_words: frozenset[str]) -> None:
        super().__init__()
        self.stem, self.stop_words = stem, stop_words

    def __missing__(self, token: str) -> str:
        if len(self) > 1_000_000:  # ids and hashes never repeat: bound the memory
            self.clear()
        pieces = [token[i : i + MAX_TOKEN_LENGTH] for i in range(0, len(token), MAX_TOKEN_LENGTH)]
        terms = [t for t in map(self._one, pieces) if t]
        value = self[token] = " ".join(terms)
        return value

    def _one(self, token: str) -> str:
        if not token.strip("_"):
            return ""  # connector punctuation alone is not a word
        if self.stem and token.endswith(_POSSESSIVE):
            token = token[:-2]
        if token in self.stop_words:
            return ""
        return porter_stem(token) if self.stem else token


@dataclass(frozen=True)
class Token:
    term: str
    start: int
    end: int


class Analyzer:
    """One analyzer: text → the terms OpenSearch would index (see the module docstring)."""

    def __init__(self, name: str, *, stem: bool, stop_words: frozenset[str]) -> None:
        self.name = name
        self._terms = _Terms(stem, stop_words)

    @staticmethod
    def _raw_tokens(lowered: str) -> list[str]:
        pattern = _FAST if _SAFE.fullmatch(lowered) else _EXACT
        tokens: list[str] = pattern.findall(lowered)
        return tokens

    def indexed(self, text: str) -> str:
        """The terms of ``text`` joined by single spaces (what tantivy indexes)."""
        return " ".join(
            filter(None, map(self._terms.__getitem__, self._raw_tokens(lowercase(text))))
        )

    def terms(self, text: str) -> list[str]:
        """The terms of ``text``, in order, repeats kept."""
        joined = self.indexed(text)
        return joined.split(" ") if joined else []

    def tokens(self, text: str) -> Iterator[Token]:
        """Terms with their ``[start, end)`` offsets in ``text`` (for highlighting)."""
        for match in _EXACT.finditer(text):
            joined = self._terms[lowercase(match.group())]
            for term in joined.split(" ") if joined else ():
                yield Token(term, match.start(), match.end())


ANALYZERS = ("english", "standard")


@cache
def get_analyzer(name: str) -> Analyzer:
    """``english`` (the default of osrag's mapping) or ``standard``."""
    if name == "english":
        return Analyzer("english", stem=True, stop_words=ENGLISH_STOP_WORDS)
    if name == "standard":
        return Analyzer("standard", stem=False, stop_words=frozenset())
    raise ConfigError(
        f"the embedded index implements the analyzers {', '.join(ANALYZERS)}, not {name!r} "
        "(use a cluster for other OpenSearch analyzers)"
    )
