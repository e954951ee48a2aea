"""Document families as profiles: what osrag knows of a family's words, as data.

A **profile** is one family of documents — financial statements, insurance, invoices and
billing, leases, loans, compensation, purchasing, contracts — written as records in a
TOML file, never in code. Its records are:

* ``quantities`` — the quantities the family's documents state, each with the other
  names people use for it (``name = "total due"``, ``synonyms = ["balance due", "amount
  payable", …]``), whether it is a result that can be a loss (``signed``: compared by its
  signed value), whether it recurs (``recurring``, below), and the broader quantity it is
  in a document that names it (``broader = {quantity = "total due", where = "patient"}``:
  where no label names a patient balance, a patient's bill's total due is it);
* ``quantity_nouns`` — the nouns that name a quantity of the family (a rent, a deposit, a
  premium): a question's noun right beside an amount binds it only when it is one;
  ``heading_nouns``, those of them a section heading may name to label the figures under
  it (the terms of a contract or a price list);
* ``document_nouns`` — the nouns that name the kind of document (a lease, an invoice, a
  policy): a question's name ending in one names no quantity, and a document kind a
  question names ranks its documents first, never excludes others;
* ``figure_nouns`` — nouns that, last in a question's name, only say the figure is the
  amount of the rest ("general liability **insurance**" is the general liability limit);
* ``totalled_nouns`` and ``total_names`` — the document nouns whose own figure is the
  document's total (a bid, an estimate, a quote, an invoice), and the names a label of
  that total carries (``"{noun}"`` standing for the noun: "total", "{noun} total", "{noun}
  amount"): a question that names such a kind alone ("contractor bids over $20,000") asks
  for its total, a fact whose label names one of the ``total_names`` of every profile that
  lists the noun (the common names of a total; the invoices' "total due" for a bill, an
  invoice, a statement — never for a bid or a quote, which nothing is due on yet); a
  document noun no profile lists ("flood policy over $500,000": a policy's limit, premium
  and deductible are all its figures, none the policy's own) names no quantity. Each is a
  document noun too;
* ``scope_words`` — the words of the family that name whose figure it is (``adjusted =
  ["adjusted", "underlying"]``, ``segment = ["segment", "division"]``), beside the general
  ones of :mod:`osrag.lexicon.scopes`;
* ``recurring`` and ``period_words`` — how the family's quantities meet periods: a
  recurring quantity (a rent, a wage, a fee) recurs, and "monthly rent" or "$400 a month"
  says how often (the period unit); a reported quantity (``recurring = false``: revenue,
  net income) is a period's figure, and "annual revenue" is the year's figure, not a
  yearly recurrence. ``period_words`` adds the family's own words for a unit ("academic
  year" = year) to the general ones of :mod:`osrag.lexicon.periods`;
* ``examples`` — test cases: a short document text, a question, and the amount of the text
  the question must bind to (and ``decoys``, amounts it must not). Every example of every
  profile in use runs as a test (``tests/lexicon/test_profile_examples.py``).

**The engine.** :func:`builtin_profiles` reads the files packaged in
``osrag/lexicon/profiles/``; a team adds its own in its configuration file
(:mod:`osrag.config`: ``profiles = ["path/to/mine.toml"]`` or ``[[profiles]]`` tables),
read by :func:`load_profile` / :func:`read_profile` — an error names the file and the
field. A configured profile with a built-in's name extends it: every record of every
profile in use counts. :class:`Vocabulary` is the profiles in use read together — the
nouns, the synonym groups (two groups that share a name are one), the signed results, the
recurring quantities, the scope and period words — and :func:`vocabulary` the one in use
now: the built-in profiles, or those and a configuration's within
:func:`profiles_in_use` (the ingest's extraction and a query's analysis enter it, from the
:class:`~osrag.schema.extraction.ExtractionConfig` they run with).

**The digest.** :func:`profiles_digest` covers every profile in use (each profile's
records as data, its file name and place aside); it is part of the extraction version
(:attr:`~osrag.schema.extraction.ExtractionConfig.version`), so a changed profile builds
a new generation and ``osrag plan`` says so.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from osrag.errors import ConfigError
from osrag.lexicon.periods import PeriodUnit
from osrag.lexicon.scopes import Scope
from osrag.lexicon.words import name_key, normalised, singular

__all__ = [
    "Profile",
    "ProfileExample",
    "ProfileQuantity",
    "Vocabulary",
    "builtin_profiles",
    "builtin_vocabulary",
    "load_profile",
    "profiles_digest",
    "profiles_in_use",
    "read_profile",
    "vocabulary",
    "vocabulary_with",
]

_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


NOUN = "{noun}"
"""What stands for a totalled noun in a profile's ``total_names`` ("{noun} total")."""


def _phrases(values: Sequence[str], what: str) -> tuple[str, ...]:
    """``values`` stripped, each non-empty and naming words (a name's words as the one
    normaliser reads them)."""
    out: list[str] = []
    for value in values:
        stripped = " ".join(value.split())
        if not normalised(stripped):
            raise ValueError(f"{what} {value!r} has no words")
        out.append(stripped)
    return tuple(out)


def _nouns(values: Sequence[str], what: str) -> tuple[str, ...]:
    """One word each, kept in the singular and lower case (read in either number)."""
    out: list[str] = []
    for value in values:
        words = normalised(value).split()
        if len(words) != 1:
            raise ValueError(f"{what} {value!r} is not one word")
        out.append(singular(words[0]))
    return tuple(dict.fromkeys(out))


class ProfileBroader(BaseModel):
    """The broader quantity a narrower one is, in a document that names it: a patient
    balance is the total due of a bill that says "patient"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    quantity: str = Field(description="the broader quantity's name ('total due')")
    where: str = Field(
        description="the words a document holding it says where it says what holds the "
        "figure — its title, headings or the figure's label ('patient')"
    )

    @field_validator("quantity", "where")
    @classmethod
    def _a_phrase(cls, value: str) -> str:
        return _phrases([value], "broader")[0]


class ProfileQuantity(BaseModel):
    """One quantity of a family and the other names people use for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="the quantity's usual name ('total due')")
    synonyms: tuple[str, ...] = Field(
        default=(), description="other names of the same quantity ('balance due', 'amount payable')"
    )
    signed: bool = Field(
        default=False,
        description="a result that can be a loss (net income): compared by its signed value",
    )
    recurring: bool | None = Field(
        default=None,
        description="whether it recurs, so that a unit word says how often ('monthly rent'); "
        "None: as its profile says",
    )
    separate: bool = Field(
        default=False,
        description="a charge of its own that its last word names too ('pet rent' is no "
        "rent): a label naming it holds its own names, not its head's",
    )
    broader: ProfileBroader | None = Field(
        default=None,
        description="the broader quantity it is where a document names it: asked on the "
        "amount ladder's narrowed step when no label names it",
    )

    @field_validator("name")
    @classmethod
    def _a_name(cls, value: str) -> str:
        return _phrases([value], "name")[0]

    @field_validator("synonyms")
    @classmethod
    def _names(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        return _phrases(values, "synonym")

    @property
    def names(self) -> tuple[str, ...]:
        """The name and its synonyms."""
        return (self.name, *self.synonyms)


class ProfileExample(BaseModel):
    """A test case of a profile: the question binds to ``amount`` of ``text`` (as written
    there) and to none of the ``decoys``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(description="a short document text, as the family writes it")
    question: str = Field(description="a question that states an amount constraint")
    amount: str = Field(description="the amount of the text the question binds to, as written")
    decoys: tuple[str, ...] = Field(
        default=(), description="amounts of the text the question must not bind to, as written"
    )
    note: str = ""

    @model_validator(mode="after")
    def _amounts_in_text(self) -> ProfileExample:
        for field, value in (("amount", self.amount), *(("decoys", d) for d in self.decoys)):
            if value not in self.text:
                raise ValueError(f"{field} {value!r} is not written in the example's text")
        return self


class Profile(BaseModel):
    """One document family's words, as data (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="the family's short name: lower case, digits, _ or -")
    title: str = ""
    description: str = ""
    document_nouns: tuple[str, ...] = ()
    quantity_nouns: tuple[str, ...] = ()
    heading_nouns: tuple[str, ...] = ()
    figure_nouns: tuple[str, ...] = ()
    totalled_nouns: tuple[str, ...] = ()
    total_names: tuple[str, ...] = ()
    recurring: bool = True
    period_words: dict[str, PeriodUnit] = Field(default_factory=dict)
    scope_words: dict[Scope, tuple[str, ...]] = Field(default_factory=dict)
    quantities: tuple[ProfileQuantity, ...] = ()
    examples: tuple[ProfileExample, ...] = ()
    source: str = Field(
        default="", exclude=True, description="where it was read from (not part of its digest)"
    )

    @field_validator("name")
    @classmethod
    def _short_name(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(
                f"{value!r} is not a profile name (lower case letters, digits, _ or -; a "
                "letter first; at most 40)"
            )
        return value

    @field_validator(
        "document_nouns", "quantity_nouns", "heading_nouns", "figure_nouns", "totalled_nouns"
    )
    @classmethod
    def _one_word_nouns(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        return _nouns(values, "noun")

    @field_validator("total_names")
    @classmethod
    def _total_names(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        for value in values:
            if not normalised(value.replace(NOUN, "")) and value.strip() != NOUN:
                raise ValueError(f"total name {value!r} has no words")
            if "{" in value.replace(NOUN, "") or "}" in value.replace(NOUN, ""):
                raise ValueError(f"total name {value!r}: only {NOUN} may stand in braces")
        return tuple(" ".join(v.split()) for v in values)

    @field_validator("period_words")
    @classmethod
    def _period_phrases(cls, values: dict[str, PeriodUnit]) -> dict[str, PeriodUnit]:
        _phrases(list(values), "period word")
        return {normalised(phrase): unit for phrase, unit in values.items()}

    @field_validator("scope_words")
    @classmethod
    def _scope_phrases(cls, values: dict[Scope, tuple[str, ...]]) -> dict[Scope, tuple[str, ...]]:
        return {scope: _phrases(words, "scope word") for scope, words in values.items()}

    def __hash__(self) -> int:
        return hash(self.digest)

    @cached_property
    def digest(self) -> str:
        """First 16 hex of SHA-256 of the profile's records (its ``source`` aside)."""
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]

    @property
    def label(self) -> str:
        """``invoices`` (built in) or ``invoices (osrag.toml profiles[0])``."""
        return f"{self.name} ({self.source})" if self.source else self.name


# --------------------------------------------------------------------------- reading


def _field_path(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def read_profile(data: Mapping[str, Any], where: str) -> Profile:
    """A profile from its table (a TOML file's, or one of a configuration's ``[[profiles]]``);
    ``where`` names it in errors (:class:`~osrag.errors.ConfigError`: "mine.toml:
    quantities[2].synonyms: …", one line per problem)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: a profile is a table of records, not {type(data).__name__}")
    try:
        profile = Profile.model_validate(dict(data))
    except ValidationError as exc:
        problems = "; ".join(
            f"{_field_path(e['loc']) or 'profile'}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        )
        raise ConfigError(f"{where}: invalid profile: {problems}") from None
    return profile.model_copy(update={"source": where})


def toml_document(path: Path, named: str) -> dict[str, Any]:
    """The TOML document in the file ``path``; a file missing, unreadable, not UTF-8 or not
    TOML is a :class:`~osrag.errors.ConfigError` calling it ``named`` ("profile file
    mine.toml"). Profiles and configuration files are read by it."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{named} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {named}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{named} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{named} is not valid TOML: {exc}") from None


def load_profile(path: Path, *, where: str | None = None) -> Profile:
    """The profile in the TOML file ``path``; errors name the file (and the field)."""
    shown = where or str(path)
    return read_profile(toml_document(path, f"profile file {shown}"), shown)


@cache
def builtin_profiles() -> tuple[Profile, ...]:
    """The profiles packaged with osrag (``osrag/lexicon/profiles/*.toml``), by name."""
    folder = resources.files("osrag.lexicon").joinpath("profiles")
    found: list[Profile] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            text = entry.read_text(encoding="utf-8")
            where = f"osrag/lexicon/profiles/{entry.name}"
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"profile file {where} is not valid TOML: {exc}") from None
            profile = read_profile(data, where)
            found.append(profile.model_copy(update={"source": ""}))
    return tuple(found)


def profiles_digest(profiles: Sequence[Profile]) -> str:
    """First 8 hex of SHA-256 over every profile's name and digest, in order: the
    ``profiles@…`` part of the extraction version."""
    payload = json.dumps([[p.name, p.digest] for p in profiles])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:8]


# --------------------------------------------------------------------------- the vocabulary


class Vocabulary:
    """The profiles in use read together (see the module docstring). Built once per set of
    profiles (:func:`vocabulary_with`); every lookup is a dictionary's."""

    def __init__(self, profiles: Sequence[Profile]) -> None:
        self.profiles = tuple(profiles)
        self.digest = profiles_digest(self.profiles)
        self.heading_nouns = frozenset(n for p in self.profiles for n in p.heading_nouns)
        self.quantity_nouns = self.heading_nouns | frozenset(
            n for p in self.profiles for n in p.quantity_nouns
        )
        self.document_nouns = frozenset(n for p in self.profiles for n in p.document_nouns)
        self.figure_nouns = frozenset(n for p in self.profiles for n in p.figure_nouns)
        self.totalled_nouns = frozenset(n for p in self.profiles for n in p.totalled_nouns)
        self.document_nouns |= self.totalled_nouns
        totals: dict[str, dict[str, None]] = {}
        for p in self.profiles:
            for noun in p.totalled_nouns:
                totals.setdefault(noun, {}).update(dict.fromkeys(p.total_names))
        self._totals = {noun: tuple(names) for noun, names in totals.items()}
        shared = [set(names) for names in totals.values()]
        self._shared_totals = tuple(
            n for n in next(iter(totals.values()), {}) if all(n in names for names in shared)
        )
        """The names a total of every totalled noun carries: the names of any kind's total."""
        self.period_words = {k: v for p in self.profiles for k, v in p.period_words.items()}
        scope_words: dict[str, set[tuple[str, ...]]] = {}
        for p in self.profiles:
            for scope, words in p.scope_words.items():
                scope_words.setdefault(scope, set()).update(name_key(w) for w in words)
        self.scope_words = {s: frozenset(w) for s, w in scope_words.items()}
        self.groups, self._group_of = _merged_groups(self.profiles)
        self._owners: dict[tuple[str, ...], list[str]] = {}
        self._recurring: dict[tuple[str, ...], bool] = {}
        signed: list[tuple[str, ...]] = []
        for p in self.profiles:
            for q in p.quantities:
                recurring = p.recurring if q.recurring is None else q.recurring
                for name in q.names:
                    key = name_key(name)
                    self._owners.setdefault(key, [])
                    if p.name not in self._owners[key]:
                        self._owners[key].append(p.name)
                    self._recurring.setdefault(key, recurring)
                if q.signed:
                    signed.append(self._group_of[name_key(q.name)])
        self.signed_groups = tuple(dict.fromkeys(signed))
        self.separate = frozenset(
            name_key(member)
            for p in self.profiles
            for q in p.quantities
            if q.separate
            for member in self._group_of[name_key(q.name)]
        )
        """The names (their keys) of the quantities a profile marks ``separate``."""
        self._broader: dict[tuple[str, ...], ProfileBroader] = {}
        for p in self.profiles:
            for q in p.quantities:
                if q.broader is not None:
                    for member in self._group_of[name_key(q.name)]:
                        self._broader.setdefault(name_key(member), q.broader)
        heads: dict[str, set[bool]] = {}
        for p in self.profiles:
            for noun in (*p.quantity_nouns, *p.heading_nouns):
                heads.setdefault(noun, set()).add(p.recurring)
        self._recurring_heads = {noun: True in flags for noun, flags in heads.items()}

    def synonyms_of(self, name: str) -> tuple[str, ...]:
        """The group ``name`` is a member of (its words, each in the singular, are a
        member's), or ()."""
        return self._group_of.get(name_key(name), ())

    def totals_of(self, noun: str, *, stated: bool = False) -> tuple[str, ...]:
        """The names a label of the total of a document ``noun`` names carries: the
        ``total_names`` of every profile in use that lists ``noun`` among its
        ``totalled_nouns`` (the common names of a total, and a family's own: a bill's
        "total due"), ``{noun}`` read as it; () for a noun no profile in use totals —
        unless the question states the total itself (``stated``: "agreements paying more
        than $400,000 **in total**"), when it is the names every totalled noun's total
        carries ("total", "grand total", "{noun} total" …)."""
        noun = singular(normalised(noun))
        names = self._totals.get(noun, ()) or (self._shared_totals if stated else ())
        return tuple(dict.fromkeys(n.replace(NOUN, noun) for n in names))

    def broader(self, name: str) -> ProfileBroader | None:
        """The broader quantity the quantity ``name`` is where a document names it (its
        group's, the first a profile in use declares), or None."""
        return self._broader.get(name_key(name))

    def profiles_of(self, name: str) -> tuple[str, ...]:
        """The profiles that name the quantity ``name`` (a group member's words), in order."""
        key = name_key(name)
        group = self._group_of.get(key, ())
        owners = [o for member in group for o in self._owners.get(name_key(member), [])]
        return tuple(dict.fromkeys(owners))

    def recurring(self, name: str) -> bool:
        """Whether the quantity ``name`` recurs — a unit word says how often ("monthly
        rent") — or is a period's figure ("annual revenue": the year's). Read from the
        profile that names it, else from the profiles whose nouns hold its last word
        (recurring when any of them says so), else recurring."""
        key = name_key(name)
        for member in self._group_of.get(key, (name,)):
            found = self._recurring.get(name_key(member))
            if found is not None:
                return found
        if not key:
            return True
        return self._recurring_heads.get(key[-1], True)


def _merged_groups(
    profiles: Sequence[Profile],
) -> tuple[tuple[tuple[str, ...], ...], dict[tuple[str, ...], tuple[str, ...]]]:
    """The synonym groups of every profile, two groups that share a name (its words in the
    singular) made one, each group's names in the order first written; and each name's
    key → its group."""
    parent: dict[tuple[str, ...], tuple[str, ...]] = {}

    def root(key: tuple[str, ...]) -> tuple[str, ...]:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    written: dict[tuple[str, ...], str] = {}
    for p in profiles:
        for q in p.quantities:
            keys = [name_key(n) for n in q.names]
            for key, name in zip(keys, q.names, strict=True):
                parent.setdefault(key, key)
                written.setdefault(key, name)
            for key in keys[1:]:
                a, b = root(keys[0]), root(key)
                if a != b:
                    parent[b] = a
    members: dict[tuple[str, ...], list[str]] = {}
    for key, name in written.items():
        members.setdefault(root(key), []).append(name)
    groups = tuple(tuple(names) for names in members.values())
    by_key = {key: tuple(members[root(key)]) for key in written}
    return groups, by_key


@cache
def builtin_vocabulary() -> Vocabulary:
    """The vocabulary of the built-in profiles alone."""
    return Vocabulary(builtin_profiles())


@lru_cache(maxsize=32)
def vocabulary_with(extra: tuple[Profile, ...]) -> Vocabulary:
    """The vocabulary of the built-in profiles and ``extra`` (a configuration's)."""
    if not extra:
        return builtin_vocabulary()
    return Vocabulary((*builtin_profiles(), *extra))


_IN_USE: ContextVar[Vocabulary | None] = ContextVar("osrag_vocabulary", default=None)


def vocabulary() -> Vocabulary:
    """The vocabulary in use: the built-in profiles', or the one
    :func:`profiles_in_use` entered."""
    found = _IN_USE.get()
    return found if found is not None else builtin_vocabulary()


@contextmanager
def profiles_in_use(extra: Sequence[Profile] = ()) -> Iterator[Vocabulary]:
    """Within it, :func:`vocabulary` is the built-in profiles' and ``extra``'s (a
    configuration's profiles); it nests, and is the calling thread's (or task's) alone."""
    token = _IN_USE.set(vocabulary_with(tuple(extra)))
    try:
        yield vocabulary()
    finally:
        _IN_USE.reset(token)
