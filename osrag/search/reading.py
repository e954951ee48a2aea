"""What a question's name says besides the quantity: whose, when, how often, in what. Pure.

The binder (:mod:`osrag.search.binding`) reads the noun phrase a constraint is bound to
("weekly wage", "Americas segment revenue", "invoice subtotal"); :func:`read_name` reads
that phrase's words as a fact's fields are read, so the question asks what the document
side stores:

* **how often** — a unit word in the name ("**weekly** wage", "**monthly** rent", "rent
  **per month**", "**annual** base rent": :func:`~osrag.lexicon.periods.period_units_in`,
  and a profile's ``period_words``) is the constraint's ``period_unit`` when the quantity
  recurs; for a quantity that is a period's figure (a profile's ``recurring = false``:
  "**annual** revenue") "annual" names the whole year, which a constraint asks for by
  default, and the word goes. :func:`unit_after` reads the same after the amount ("HOA
  dues over $400 **a month**");
* **whose, and which part of the year** — :func:`~osrag.lexicon.scopes.read_scope`
  ("**Americas segment** revenue": a segment named "americas"; "**adjusted** EBITDA";
  "**first-half** revenue");
* **in what** — a first word naming the kind of document ("**invoice** subtotal": a
  subtotal, in an invoice) is the constraint's context, which ranks documents of that kind
  first and excludes none.

A name a profile in use knows whole (a synonym group's member: "annual aggregate",
"minimum annual purchase commitment", "net income") is read as it is. When words were read
out of the name as a scope, a part of the year or a unit, ``named`` keeps the name as
written: a fact whose label says those words itself ("Monthly rent", "Adjusted EBITDA")
is that figure, whatever its fields say (:func:`~osrag.search.fact_filters.fact_filter`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from osrag.lexicon.periods import SALE_UNIT_BEFORE_PERIOD, PeriodUnit, period_units_in
from osrag.lexicon.profiles import vocabulary
from osrag.lexicon.quantities import is_document_noun, is_quantity_noun
from osrag.lexicon.scopes import read_scope
from osrag.lexicon.words import hyphenated, name_words, singular

__all__ = ["NameReading", "read_name", "unit_after", "unit_in_phrase"]

UNIT_AFTER_WINDOW = 40
"""Characters after an amount searched for the unit it recurs by ("$400 a month")."""


class NameReading(NamedTuple):
    """What a question's name says (see the module docstring)."""

    label: str | None
    scope: str = "own"
    scope_name: str | None = None
    period_part: str = "full"
    period_unit: PeriodUnit | None = None
    named: str | None = None
    kind: str | None = None


@lru_cache(maxsize=64)
def _profile_units(words: tuple[tuple[str, str], ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    phrases = "|".join(
        r"\s+".join(map(re.escape, phrase.split())) for phrase, _ in sorted(words, reverse=True)
    )
    return re.compile(rf"(?i)(?<![\w])(?:per|a|an|each|every)\s+(?P<phrase>{phrases})\b")


def _units_in(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, int, int]]:
    """The unit phrases of ``text[start:end]``: the general ones and the profiles' words."""
    found = [(u, s, e) for u, s, e in period_units_in(text, start, end)]
    words = vocabulary().period_words
    pattern = _profile_units(tuple(sorted(words.items())))
    if pattern is not None:
        stop = len(text) if end is None else end
        for m in pattern.finditer(text, start, stop):
            found.append((words[" ".join(m["phrase"].lower().split())], m.start(), m.end()))
    return sorted(found, key=lambda f: f[1])


def unit_after(text: str, end: int) -> PeriodUnit | None:
    """The period unit written right after an amount that ends at ``end`` ("over $400 **a
    month**", "$60,000 **per annum**", "$1 **per hour**"), only spaces or a unit of sale
    between ("$12 per user **per month**": :data:`~osrag.lexicon.periods.
    SALE_UNIT_BEFORE_PERIOD`); else None."""
    window = text[end : end + UNIT_AFTER_WINDOW]
    for unit, start, _ in _units_in(window):
        between = window[:start]
        if not between.strip() or SALE_UNIT_BEFORE_PERIOD.fullmatch(between):
            return unit  # type: ignore[return-value]
    return None


_COMPARISON_AFTER = re.compile(r"(?i)\s*(?:or|and)\s+[a-z]+\s*\Z")
"""A comparison said after the amount and its unit ("… a day **or less**", "… **and up**")."""


def unit_in_phrase(phrase: str) -> PeriodUnit | None:
    """The period unit a constraint's own words state between its amount and a comparison
    said after it ("$50 **a day** or less", "$2,000 **per month** or more"); else None."""
    for unit, _, end in _units_in(phrase):
        if _COMPARISON_AFTER.fullmatch(phrase, end):
            return unit  # type: ignore[return-value]
    return None


def _read_unit(text: str) -> tuple[str, PeriodUnit | None]:
    """The name ``text`` without its unit words ("weekly", "per month"), and the unit."""
    found = _units_in(text)
    if found:
        unit, start, end = found[-1]
        rest = " ".join((text[:start] + " " + text[end:]).split())
        if name_words(rest):
            return rest, unit  # type: ignore[return-value]
    return text, None


def _profile_scope(text: str) -> tuple[str, str] | None:
    """``(the name without them, the scope)`` when a profile's scope words stand in the name
    ("line items" in the invoices profile), else None."""
    words = tuple(name_words(text))
    keys = tuple(singular(w) for w in words)
    for scope, phrases in vocabulary().scope_words.items():
        for phrase in sorted(phrases, key=len, reverse=True):
            n = len(phrase)
            for i in range(len(keys) - n + 1):
                if keys[i : i + n] == phrase:
                    return " ".join(words[:i] + words[i + n :]), scope
    return None


def _kind_first(label: str, words: list[str]) -> bool:
    """The name's first word names the kind of document ("**invoice** total"): a document
    noun, not joined by a hyphen to the next word ("One-time …"), before a quantity (a
    quantity noun last, or a name a profile knows)."""
    if len(words) < 2 or not is_document_noun(words[0]) or hyphenated(label)[1]:
        return False
    rest = " ".join(words[1:])
    return is_quantity_noun(words[-1]) or bool(vocabulary().synonyms_of(rest))


def read_name(label: str) -> NameReading:
    """What the question's name ``label`` says besides its quantity (module docstring)."""
    words = name_words(label)
    if not words or vocabulary().synonyms_of(label):
        return NameReading(label)
    kind = None
    text = " ".join(label.split())
    if _kind_first(label, words):
        kind, text = words[0], " ".join(text.split()[1:])
    rest, unit = _read_unit(text)
    if unit is not None and not vocabulary().recurring(rest):
        if unit != "year":
            rest, unit = text, None  # "monthly revenue": no period of its own
        else:
            unit = None  # "annual revenue": the year's figure, asked by default
    family = _profile_scope(rest)
    if family is not None:
        what, scope, name, part = family[0], family[1], None, None
    else:
        reading = read_scope(rest.split())
        what, scope, name, part = (
            " ".join(reading.what),
            reading.scope,
            reading.scope_name,
            reading.period_part,
        )
    read_out = rest != text or what != rest
    if not read_out and kind is None:
        return NameReading(label)
    named = text if read_out and (len(name_words(text)) > 1 or not name_words(what)) else None
    return NameReading(
        what if name_words(what) else None,
        scope,
        name,
        part or "full",
        unit,
        named if named is not None and named != what else None,
        kind,
    )
