"""What a label measures, as exact keys: a fact's keys and the keys a question asks for.

A question names a quantity ("revenue", "valuation allowance", "each occurrence limit");
a fact's label names what its amount measures ("Total revenue", "Deferred revenue",
"Cost of revenues", "Total deferred tax assets before valuation allowance"). In English
the quantity a noun phrase names is its **head** — the last noun of its core, the words
before it narrowing it ("occurrence limit" is a limit; "deferred revenue" is a balance,
not revenue: a listed modifier), the words after it complementing it ("cost of
revenues" is a cost). So a question's name matches a label when it is **the label's
core, or a tail of it that ends at the head**: "revenue" is "Total revenue" and "Net
revenues", never "Deferred revenue" or "Cost of revenues"; "limit" is "Each occurrence
limit"; "valuation allowance" is not "Total deferred tax assets before valuation
allowance". The word lists are the roles of :mod:`osrag.lexicon.label_roles`.

**The document side.** :func:`label_keys` (stored with every fact) reads a label so:

1. **Parts.** A table label may be ``Row — Column`` (the column header that qualifies
   it) and ``Group: Row`` (the group row above a dependent row). The row reading is the
   row's core followed by the group's (``Income taxes: Federal`` → "federal income
   tax"); each column's core is read alone and after the row reading (``Property damage,
   each accident — Limit`` → "property damage limit", "limit"); a column holding a
   modifier or a change (:data:`~osrag.lexicon.label_roles.CHANGES`) leaves the row no
   keys of its own (``Auto bodily injury — Minimum limit`` is no bodily injury limit,
   ``Revenue — Variance in Dollars`` no revenue). A row named for a line of cover (its
   last word a section word, :data:`~osrag.lexicon.label_roles.SECTION_HEADS`:
   ``Umbrella liability — Limits``) is also read without it ("umbrella limit"); under a
   second column — an item of a limits box, ``… — Limits — Aggregate`` — it keeps no key
   of the row alone (the item is the quantity, the row whose it is). A dependent row
   that splits its group (:data:`~osrag.lexicon.label_roles.SPLITS`: ``Net sales:
   United States``) has none of the group's own keys; a row that is the tax effect of
   its item under a deferred tax balance (:func:`component_of`) has only its whole name.
   A quarter a column names is the fact's part of the year (``period_part``), no word of
   its label's keys.
2. **Core of a part.** Parenthesised words go (``Net income (loss)`` → "net income");
   the part is cut at its first comma (``Revenue, net``, ``Property damage, each
   accident``) — unless the comma starts a list closed by *and* / *or*, which is one
   name (``Property, plant and equipment``; ``Interest expense, interest income and
   other income, net`` is a line of three quantities, not interest expense); words are
   casefolded, punctuation and ``&`` read as words (``R&D`` → "r and d"), each put in
   the singular (:func:`~osrag.lexicon.words.singular`, the rule the question side uses
   for every name). A last part set off by a spaced dash that only names a period goes
   (``Monthly tuition - September`` → "monthly tuition": :func:`without_dated_tail`), and
   so do a date or the statement's own period that ends it (``Deposit paid 2 October
   2026`` → "deposit", ``Royalties earned this period`` → "royalty earned") and adverbs of
   time that end the name (``Demurrage thereafter`` → "demurrage").
3. **Complements.** A word of :data:`~osrag.lexicon.label_roles.COMPLEMENTS` after the
   first starts a complement. One of :data:`~osrag.lexicon.label_roles.SPECIFYING` (of,
   for, per, under, …) leaves the quantity the same: the core is cut before it (``Limit
   of liability`` → "limit"; ``Cost of revenues`` → "cost"). Any other makes another line
   (``Total deferred tax assets before valuation allowance``, ``Total assets as
   reported``, ``Net income attributable to …``): the core is not a key. The whole
   phrase is always a key of its own ("cost of revenue", "total asset as reported"),
   never a tail of it ("revenue" is not a key of "Cost of revenues", "valuation
   allowance" not one of "… before valuation allowance").
4. **Keys.** The core and every tail of it ending at its head, except a tail that
   starts with a word of :data:`~osrag.lexicon.label_roles.NON_HEAD_STARTS` ("each",
   "and", …) and a tail that leaves out a word of
   :data:`~osrag.lexicon.label_roles.MODIFIERS` (``Deferred revenue`` → only "deferred
   revenue"); of a coordination only "A and B" gives its two words (``Medical and
   repatriation`` → "medical", "repatriation"), a longer one or a list none (``Selling,
   general and administrative`` is not "administrative"). A leading word of
   :data:`~osrag.lexicon.label_roles.OPTIONAL_LEADS` (total, net, consolidated) may be
   left out: ``Total revenue`` → "total revenue", "revenue". A last word of
   :data:`~osrag.lexicon.label_roles.GENERIC_HEADS` may be left out when a word remains
   (``Personal property coverage`` → "personal property"). A total named with what its
   figures are (``Total quoted charges``, ``Total estimated cost``) is also "total", the
   document's total; a total row's cell under a column naming a quantity (``Totals —
   Deductible``) is that column's total, never the bare "total".

**The question side.** :func:`asked_key` reads a question's name the same way, without
cutting (the whole name is asked: "total assets" asks for "total asset", which "Total
assets" has and "Intangible assets" has not); :func:`asked_key_forms` also without a
generic last word. :func:`asked_keys` is what a bound constraint asks a fact for: the
key of the name, or of one of its alternatives (:func:`label_alternatives`: the other
number, the name with a clipped word written out ("admin fee" → "administration fee",
"administrative fee": :data:`~osrag.lexicon.label_roles.CLIPPED_WORDS`), the synonyms,
the name without a generic or section word — and the alternatives of those, a synonym
left one word or one empty head alone never), among the fact's
keys — an exact term, so "revenue" no longer matches "Deferred revenue" or "Cost of
revenues", and "interest income" no longer matches
"Interest expense, interest income and other income, net". A section word inside a name
(:data:`~osrag.lexicon.label_roles.SECTION_HEADS`, "liability") may be left out when two
words or more stand before it, as at its end: "property damage liability limit" asks
for "property damage limit" too, which "Property damage, each accident — Limit" holds.
"""

from __future__ import annotations

import re
from functools import lru_cache

from osrag.lexicon.bounds import KEY_CHARS, KEY_WORDS, KEYS_PER_LABEL, LABEL_CHARS, shorten
from osrag.lexicon.function_words import (
    ALL_PREPOSITIONS,
    COORDINATORS,
    DETERMINERS,
    PAST_PARTICIPLES,
)
from osrag.lexicon.label_roles import (
    ACCESS_HEADS,
    ALLOCATED,
    ASKED_GENERIC_HEADS,
    BALANCES,
    BLANK_QUALIFIERS,
    CHANGES,
    CHARGE_LIMITS,
    CLIPPED_WORDS,
    COMPLEMENTS,
    DEPENDENT_WORDS,
    EMPTY_HEADS,
    FIGURE_WORDS,
    GENERIC_HEADS,
    INCLUDES,
    LEVIES,
    LINE_ITEM_MODIFIERS,
    MODIFIERS,
    NON_HEAD_STARTS,
    OPTIONAL_LEADS,
    OTHER_MEASURES,
    OWN_NAME,
    PARTIES,
    PER_RATIO,
    PRICE_HEADS,
    READERS,
    SECTION_HEADS,
    SECURING_VERBS,
    SPECIFYING,
    SPLITS,
    STATED_TOTAL_WORDS,
    TIME_ADVERBS,
    TOTALLED_HEADS,
    WHEN_DUE,
)
from osrag.lexicon.links import PASSIVE_PRICE_VERBS
from osrag.lexicon.periods import DATE_TAIL, is_period_words
from osrag.lexicon.profiles import vocabulary
from osrag.lexicon.quantities import is_document_noun, synonyms_of
from osrag.lexicon.signs import names_loss
from osrag.lexicon.words import (
    hyphenated,
    normalised,
    other_number,
    phrase_words,
    singular,
    without_parentheses,
)

__all__ = [
    "COLUMN_JOIN",
    "GROUP_JOIN",
    "as_read",
    "asked_key",
    "asked_key_forms",
    "asked_keys",
    "component_of",
    "label_alternatives",
    "label_keys",
    "last_words",
    "name_clause",
    "narrowed",
    "qualifies_nothing",
]

COLUMN_JOIN = " — "
"""How a table label joins its row and a column qualifier: ``Operating income — Americas``."""
GROUP_JOIN = ": "
"""How a table label joins a group row and the dependent row under it:
``Weighted-average shares: Basic``."""


# --------------------------------------------------------------------------- the document side


def component_of(row: list[str], group: list[str]) -> bool:
    """A row (its words, :func:`phrase_words`) is the tax effect of its item, not the item:
    the group names a deferred tax balance (a word of :data:`BALANCES` and "tax":
    ``Deferred tax assets:``, ``Deferred income tax liabilities``), and the row is not a
    split of the group (``Federal``), not a total or an allowance, and names none of the
    group's other words (``Stock-based compensation``, ``Deferred revenue``, ``Property
    and equipment`` are parts; ``Net deferred tax assets``, ``Total deferred tax
    liabilities``, ``Valuation allowance`` are not). The rows of another balance are
    what they say (``Accrued interest`` under ``Accrued liabilities`` is accrued
    interest). A group naming a charge of :data:`ALLOCATED` (``Stock-based
    compensation expense: Cost of revenues``) makes its rows the charge's shares the
    same way, and so does a group of :data:`INCLUDES` (``Includes stock-based
    compensation of: Total`` is the compensation in the lines above, not the company's)."""
    if group and group[0] in INCLUDES:
        return bool(row)
    balance = BALANCES & set(group)
    if ALLOCATED & set(group):  # "Stock-based compensation: Cost of revenues"
        balance = ALLOCATED & set(group)
    elif not (balance and "tax" in group):
        return False
    return (
        bool(row)
        and not OWN_NAME & set(row)
        and not (set(row) & set(group)) - balance - COMPLEMENTS - COORDINATORS
        and not all(w in DEPENDENT_WORDS for w in row)
    )


RATE = re.compile(r"(?:@\s*|\bat\s+)?(?<![\w.,])\d+(?:[.,]\d+)?\s*%", re.IGNORECASE)
"""A rate written beside a name ("VAT **21%**", "Contractor discount **10%**", "Sales tax
**@ 8.25%**"): the rate the amount was worked out at, no word of what it measures — left
out of the keys as a parenthesised rate is ("VAT (21%)")."""


def without_rates(text: str) -> str:
    """``text`` with the rates written in it left out (:data:`RATE`)."""
    return RATE.sub(" ", text)


_DASHED_TAIL = re.compile(r"\s+[-–]\s+(?P<tail>[^-–]+)$")
"""A last part set off by a spaced hyphen or en dash ("Monthly tuition **- September**")."""


def without_dated_tail(text: str) -> str:
    """``text`` without a last part set off by a dash that only names a period ("Monthly
    tuition - September", "Rent – March 2024", "Service fee - Jan 1-31"): which month or
    date the figure is for, no word of what it measures. Any other dashed part stays
    ("Housing – double room"). Else without a date or the statement's own period that
    ends it (:data:`~osrag.lexicon.periods.DATE_TAIL`: "Deposit paid 2 October 2026",
    "Balance due by 23 April 2027", "Royalties earned this period") — its participle kept
    after a name that only says it is a figure ("Amount paid 5 November 2026" is the
    amount paid), and a "due" always: the figure falls due then, and "Balance due by 23
    April 2027" is read as "Balance due" is."""
    found = _DASHED_TAIL.search(text)
    if found is None or not is_period_words(found.group("tail").strip(" .,:;")):
        dated = DATE_TAIL.search(text)  # "Deposit paid 2 October 2026": when, not what
        if dated is None or not dated.start():
            return text
        if dated["participle"] and (
            _only_figure_words(text[: dated.start()]) or dated["participle"].casefold() == "due"
        ):  # "Amount due by …": the amount due; "Balance due by 1 May 2027": the balance due
            return text[: dated.end("participle")]
        return text[: dated.start()]
    return text[: found.start()]


def _only_figure_words(text: str) -> bool:
    """Whether ``text`` only says that a figure is one ("Amount", "Total", "Sum"): the
    participle after it names the figure ("Amount **due** by 5 November")."""
    words = [w.casefold() for w in re.findall(r"[^\W\d_]+", text)]
    return bool(words) and all(w in FIGURE_WORDS or w in _TOTAL_ROW for w in words)


def _first_clause(text: str) -> tuple[str, bool]:
    """``text`` up to its first comma — unless the comma starts a list closed by *and* /
    *or*, kept whole: "Property, plant and equipment, net" → "Property plant and
    equipment"; "Interest expense, interest income and other income, net" is a line of
    three quantities, not interest expense. A piece that starts with a complement, a
    "net" or an "each" ("Revenue, net", "Property damage, each accident", "Receivables,
    net of allowances and returns") is no list item. Also whether it is such a list. A
    dashed last part naming only a period is no part of it (:func:`without_dated_tail`)."""
    pieces = without_rates(without_dated_tail(without_parentheses(text).strip())).split(",")
    taken = _clause_pieces([p.split() for p in pieces])
    words = [w for piece in pieces[:taken] for w in piece.split()]
    return " ".join(words), taken > 1


_NO_LIST_ITEM_LEADS = COMPLEMENTS | OPTIONAL_LEADS | NON_HEAD_STARTS - COORDINATORS
"""The first words of a piece after a comma that is no list item ("net", "each" …)."""


def _clause_pieces(pieces: list[list[str]]) -> int:
    """How many of a name's comma-separated pieces (their words) make its first clause."""
    for taken, words in enumerate(pieces[1:], start=1):
        if not words or len(words) > 6:
            break
        lead = words[0].casefold()
        if lead in _NO_LIST_ITEM_LEADS:
            break
        if any(w.casefold() in COORDINATORS for w in words):
            return taken + 1
    return 1


def name_clause(text: str) -> str:
    """A name up to its first comma — unless the comma starts a list closed by *and* /
    *or*, which is one name (:func:`_first_clause`: "Revenue, net" → "Revenue";
    "Property, plant and equipment, net" → "Property, plant and equipment"): the name a
    label's keys are read from, and the one a question asks."""
    pieces = without_parentheses(text).split(",")
    return ",".join(pieces[: _clause_pieces([p.split() for p in pieces])]).strip()


def _cut(words: list[str], joined: list[bool] | None = None) -> int:
    """Where the complement starts (``len(words)`` when there is none); a word a hyphen
    joins to the one before it starts none ("Acquisition-related charges")."""
    for i, word in enumerate(words[1:], start=1):
        if joined is not None and i < len(joined) and joined[i]:
            continue
        if word in COMPLEMENTS or (word == "net" and words[i + 1 : i + 2] == ["of"]):
            return i
    return len(words)


def _tails(words: list[str], listed: bool = False) -> list[str]:
    """The core and its tails ending at the head that leave out no modifier; of a
    coordination, the two words of "A and B" ("medical and repatriation" → "medical",
    "repatriation": each is covered), never a tail inside a longer one ("net operating
    loss and credit carryforwards" is neither an operating loss nor a credit), nothing of
    a list of three or more (``listed``: "property, plant and equipment")."""
    if not words:
        return []
    keys = [" ".join(words)]
    if COORDINATORS & set(words):
        if not listed and len(words) == 3 and words[1] in COORDINATORS:
            keys += [words[0], words[2]]
        for member in _parallel_members(words, listed):
            keys += _tails(member)
        keys += _tails(_shared_head(words, listed))
        return keys
    for i in range(1, len(words)):
        if words[i - 1] in MODIFIERS:
            break
        if words[i] not in NON_HEAD_STARTS:
            keys.append(" ".join(words[i:]))
    return keys


def _parallel_members(words: list[str], listed: bool) -> list[list[str]]:
    """The members of a coordination whose two sides are built alike and share its head:
    "general liability and umbrella liability insurance" is general liability insurance
    and umbrella liability insurance — the first member ends in the word that stands
    before the head in the second. One coordinator, two words or more each side; no
    list. [] for any other ("net operating loss and credit carryforwards")."""
    coordinators = [i for i, w in enumerate(words) if w in COORDINATORS]
    if listed or len(coordinators) != 1:
        return []
    first, second = words[: coordinators[0]], words[coordinators[0] + 1 :]
    if len(first) < 2 or len(second) < 3 or first[-1] != second[-2]:
        return []
    return [[*first, second[-1]], second]


def _shared_head(words: list[str], listed: bool) -> list[str]:
    """The head two one-word modifiers share ("NC and Mecklenburg sales tax", "state and
    local income tax": a sales tax, an income tax), two words at least after the second
    modifier that a profile in use names; [] for any other coordination ("research and
    development expenses", "cash and cash equivalents": their words belong together)."""
    if listed or len(words) < 5 or words[1] not in COORDINATORS:
        return []
    if any(w in COORDINATORS for w in words[2:]):
        return []
    return words[3:] if synonyms_of(" ".join(words[3:])) else []


def _generic_tail(words: list[str], heads: frozenset[str] = GENERIC_HEADS) -> bool:
    """Whether the last word is a generic head a name is left without."""
    return (
        len(words) > 1
        and words[-1] in heads
        and words[-2] not in heads
        and words[-2] not in _NO_GENERIC_MODIFIER
    )


_NO_GENERIC_MODIFIER = OPTIONAL_LEADS | MODIFIERS | NON_HEAD_STARTS | COORDINATORS
"""Words before a generic head that leave no name without it (:func:`_generic_tail`)."""


def last_words(words: list[str]) -> list[str]:
    """The words a key is read from (both sides; :mod:`osrag.lexicon.bounds`): the last
    ones, at most ``KEY_WORDS`` and ``KEY_CHARS`` characters joined (one word at least)."""
    words = words[-KEY_WORDS:]
    if sum(map(len, words)) + len(words) - 1 <= KEY_CHARS:
        return words  # all of them fit (most keys: a few short words)
    size, i = -1, len(words)
    while i > 0 and size + len(words[i - 1]) + 1 <= KEY_CHARS:
        size += len(words[i - 1]) + 1
        i -= 1
    return words[min(i, len(words) - 1) :]


def _core_keys(words: list[str], listed: bool = False) -> list[str]:
    words = last_words(words)
    keys: list[str] = []
    forms = [words]
    if len(words) > 1 and words[0] in OPTIONAL_LEADS:
        forms.append(words[1:])
    for form in list(forms):
        if _generic_tail(form):
            forms.append(form[:-1])
    for form in forms:
        keys += _tails(form, listed)
    return keys


def _per_share(complement: list[str]) -> bool:
    """A ratio to a share, a unit or an area ("per diluted share", "per share of common
    stock", "per rentable square foot"): another quantity than the head's ("Basic net
    income per share" is no net income), unlike "per person", "per occurrence"."""
    return _ratio_at(complement) is not None


def _ratio_at(words: list[str]) -> int | None:
    """Where the "per" of a ratio (:func:`_per_share`) stands in ``words``, or None: a "per"
    whose complement — up to the next complement word — ends in a word of
    :data:`PER_RATIO`."""
    for i, word in enumerate(words):
        if word == "per":
            end = i + _cut(words[i:])
            if words[end - 1] in PER_RATIO:
                return i
    return None


def _part(text: str) -> tuple[list[str], list[str], bool]:
    """(the core the keys are read from, the whole first clause, whether it is a list of
    three or more) of one part: the core is cut before a specifying complement, and is
    the whole clause before any other (:data:`SPECIFYING`)."""
    core, whole, listed = _read_part(text)
    return list(core), list(whole), listed


@lru_cache(maxsize=1 << 12)
def _read_part(text: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """:func:`_part`, kept: a table's column header is a part of every label of its
    column, a row's of every label of its row."""
    clause, listed = _first_clause(text)
    whole = _without_time_adverbs(phrase_words(clause))
    cut = _cut(whole, hyphenated(clause))
    if cut < len(whole) and not _specifies(whole, cut):
        return (), tuple(last_words(whole)), listed
    return tuple(last_words(whole[:cut])), tuple(last_words(whole)), listed


def _specifies(whole: list[str], cut: int) -> bool:
    """Whether the complement at ``whole[cut]`` leaves the quantity before it the same:
    one of :data:`SPECIFYING` that makes no ratio, the "on" naming the base of a levy
    (:data:`~osrag.lexicon.label_roles.LEVIES`: "VAT on posters" is VAT), or a "due" that
    ends the name after a word of what it measures (the figure falls due: "Balance due" is
    the balance, "Rent due" rent; "Amount due" and "Total due" stay whole), a "with" naming
    what an item comes with ("Timing belt kit with water pump" is the kit; not after a
    participle: "Charges associated with …" stay whole), a "to" before
    a verb of holding a booking (:data:`~osrag.lexicon.label_roles.SECURING_VERBS`:
    "Deposit to hold the slip" is the deposit)."""
    if whole[cut] == "on":
        return whole[cut - 1] in LEVIES
    if whole[cut] == "with":  # "Shrink wrap with vent and door": the item and what it has
        # not a participle's ("costs associated with", "Interest paid with cash"), nor a
        # party's ("Deposits with banks"), nor a "with" that ends the name
        item = whole[cut - 1]
        return (
            not (item.endswith("ed") or item in PAST_PARTICIPLES)
            and cut < len(whole) - 1
            and not PARTIES & set(whole[cut + 1 :])
        )
    if whole[cut] == "to":  # "Deposit to hold the slip": the payment and what it holds
        # a verb and its object ("to book the hall"), not a noun ("to book publishers")
        return (
            whole[cut + 1 : cut + 2] != []
            and whole[cut + 1] in SECURING_VERBS
            and whole[cut + 2 : cut + 3] != []
            and whole[cut + 2] in DETERMINERS
        )
    if whole[cut] == "due":  # "Amount due", "Total due": only the figure's word before it
        before = whole[:cut]
        return (
            cut == len(whole) - 1
            and not WHEN_DUE & set(before)  # "Total now due": when, no quantity
            and not all(w in FIGURE_WORDS or w in _TOTAL_ROW for w in before)
        )
    return whole[cut] in SPECIFYING and not _per_share(whole[cut:])


def _without_time_adverbs(words: list[str]) -> list[str]:
    """``words`` without the adverbs of time that end them ("demurrage thereafter" →
    "demurrage": :data:`~osrag.lexicon.label_roles.TIME_ADVERBS`), one word kept at least."""
    end = len(words)
    while end > 1 and words[end - 1] in TIME_ADVERBS:
        end -= 1
    return words[:end]


def _stated_total(words: list[str], whole: list[str] | None = None) -> bool:
    """A total named with what its figures are ("total quoted charge", "total estimated
    cost": "total", words of :data:`~osrag.lexicon.label_roles.STATED_TOTAL_WORDS`, and a
    head of :data:`~osrag.lexicon.label_roles.TOTALLED_HEADS`), or with the verb of its charging
    ("Total charged", "Total billed": a passive verb of pricing,
    :data:`~osrag.lexicon.links.PASSIVE_PRICE_VERBS`, with nothing after it — "Total billed
    by provider" is what another party billed; never "Total paid" or "Total due", a
    statement's payments or a balance after a deposit): the document's total."""
    if len(words) == 2 and words[0] == "total" and words[1] in PASSIVE_PRICE_VERBS:
        return whole is None or last_words(whole) == words
    return (
        len(words) > 2
        and words[0] == "total"
        and words[-1] in TOTALLED_HEADS
        and all(w in STATED_TOTAL_WORDS for w in words[1:-1])
    )


def _keys_of(core: list[str], whole: list[str], listed: bool = False) -> list[str]:
    keys = _core_keys(core, listed)
    if _stated_total(core, whole):
        keys.append("total")
    if len(core) == 2 and core[0] in CHARGE_LIMITS and core[1] in PRICE_HEADS:
        keys.append(core[0])  # "Minimum charge": the minimum
    whole = last_words(whole)
    if whole != core and whole:  # the whole phrase, never a tail of its complement
        keys += _specified(whole)
        keys.append(" ".join(whole))
        if core and whole[: len(core)] == core:  # a tail of the core with its complement
            complement = " ".join(whole[len(core) :])
            keys += [f"{tail} {complement}" for tail in _tails(core)[1:]]
        if len(whole) > 1 and whole[0] in OPTIONAL_LEADS:
            keys.append(" ".join(whole[1:]))
    return keys


def _specified(whole: list[str]) -> list[str]:
    """The phrase before each later complement of ``whole`` that specifies (:data:`SPECIFYING`):
    it leaves the quantity the same, so "price per case of mixed greens" is a price per
    case, "limit of liability for each occurrence" a limit of liability — never the phrase
    before a complement that makes another line ("cost of revenues excluding …")."""
    ratio = _ratio_at(whole)  # a ratio's name holds its "per": "net income per share"
    keys: list[str] = []
    at = _cut(whole)
    while at < len(whole):
        following = at + _cut(whole[at:])
        if following >= len(whole) or whole[following] not in SPECIFYING:
            break
        if ratio is None or following > ratio:
            keys.append(" ".join(whole[:following]))
        at = following
    return keys


def qualifies_nothing(header: str) -> bool:
    """A column header that only says its figures are amounts or balances (one word of
    :data:`~osrag.lexicon.label_roles.BLANK_QUALIFIERS`, a "total" before it allowed:
    ``Amount``, ``Values``, ``Total amount``, ``Balances``): the row's label stays
    alone."""
    words = phrase_words(header)
    if words[:1] == ["total"]:
        words = words[1:]
    return len(words) == 1 and words[0] in BLANK_QUALIFIERS


def label_keys(label: str | None) -> tuple[str, ...]:
    """The keys of a fact's label (module docstring), distinct, in order; () for none.
    Bounded (:mod:`osrag.lexicon.bounds`): the label read to ``LABEL_CHARS``, a key read
    from a phrase's last words (:func:`last_words`: ``KEY_WORDS``, ``KEY_CHARS``), a key
    over ``KEY_CHARS`` (one long word) not stored, at most ``KEYS_PER_LABEL`` keys. A key
    that names a quantity a profile in use marks ``separate`` ("pet rent") brings none of
    its own tails ("rent")."""
    if not label:
        return ()
    return _label_keys(label, vocabulary().digest)


@lru_cache(maxsize=1 << 14)
def _label_keys(label: str, profiles: str) -> tuple[str, ...]:
    """:func:`label_keys` of the vocabulary whose digest is ``profiles``."""
    label = shorten(label, LABEL_CHARS)
    row_text, *columns = label.split(COLUMN_JOIN)
    group_text, _, row_only = row_text.rpartition(GROUP_JOIN)
    row: list[str] = []
    row_core, row_whole, listed = _part(row_only)
    reading = list(row_whole)  # the whole label read in order: row, group, columns
    if group_text:  # the dependent row reads before its group: "federal income tax"
        group_core, group_whole, group_listed = _part(group_text)
        reading += group_whole
        if component_of(row_whole, group_whole):  # a part of a balance: its whole name only
            row_core = row_whole = row_whole + group_whole
            # no tail: "deferred tax asset" is the group's
            row.append(" ".join(last_words(row_whole)))
        else:
            row += _keys_of(row_core, row_whole, listed)
            split = bool(SPLITS & set(row_whole))
            row_core = row_whole = row_core + group_core
            listed = listed or group_listed
            # a split of the group ("Net sales: United States", "Income taxes: Current")
            # is not the group's whole: none of the group's own keys
            whole_keys = set(_keys_of(group_core, group_whole, group_listed)) if split else set()
            row += [k for k in _keys_of(row_core, row_whole, listed) if k not in whole_keys]
    else:
        row += _keys_of(row_core, row_whole, listed)
    row += _included_keys(row_only, row_whole)
    keys: list[str] = []
    qualified = False
    column_cores: list[str] = []
    for column in columns:
        column_core, column_whole, column_listed = _part(column)
        column_cores = column_cores + column_core if column_core else []
        reading += column_whole
        keys += _keys_of(column_core, column_whole, column_listed)
        if row_core and column_core:
            keys += _core_keys(row_core + column_core, listed or column_listed)
            keys += _tails(last_words(_line_of_cover(row_core, column_core)))
        qualified = (
            qualified
            or not _QUALIFYING.isdisjoint(column_whole)
            or _holder_row(row_whole, column_core)
            or bool(len(columns) > 1 and _line_of_cover(row_core, _part(columns[0])[0]))
        )
    # a column that changes the quantity ("Auto bodily injury — Minimum limit", "… —
    # Deferred") or holds a change of it ("Revenue — Variance in Dollars", "… —
    # Increase/(decrease)") leaves the row no keys of its own: only read with the column
    if len(columns) > 1 and column_cores:  # a header over two rows: "Amortized — Cost"
        keys += _core_keys(column_cores)
    if columns or group_text:  # the whole label read in order: "… to others — Limit"
        keys.append(" ".join(last_words(reading)))
    owner = _POSSESSOR.match(label)
    if owner is not None:  # "Adrian's basis in each share": the owner is not the quantity
        keys += label_keys(label[owner.end() :])
    if len(columns) > 1 and _line_of_cover(row_core, _part(columns[0])[0]):
        # an item of a line of cover's limits ("Umbrella liability — Limits — Aggregate"):
        # the item names the quantity, the row only whose it is
        keys = [k for k in keys if k not in row]
    found = dict.fromkeys(k for k in ([] if qualified else row) + keys if 0 < len(k) <= KEY_CHARS)
    if _column_total(row_only, columns):
        found.pop("total", None)  # "Totals — Deductible": the total deductible, no total
    return tuple(_without_separate_tails(list(found)))[:KEYS_PER_LABEL]


_TOTAL_ROW = frozenset({"total", "grand"})
"""The words of a row that only says it totals the figures above it ("Total", "Totals",
"Grand total")."""


def _column_total(row: str, columns: list[str]) -> bool:
    """A total row's cell under a column naming a quantity ("Totals — Deductible", "Total —
    Plan paid"): the total of that column's quantity, not the document's total — the bare
    key "total" is not the fact's (its row and column keys stay: "total deductible",
    "deductible"). A column that only says its figures are amounts or totals ("Total —
    Amount", "Total — Total") is none: that row is the total."""
    words = phrase_words(row)
    return (
        bool(words)
        and all(w in _TOTAL_ROW for w in words)
        and any(_names_a_column_quantity(c) for c in columns)
    )


def _names_a_column_quantity(column: str) -> bool:
    """A column header naming a quantity: a core that is not only total words, and more
    than a blank qualifier (:func:`qualifies_nothing`)."""
    core = _part(column)[0]
    return bool(set(core) - _TOTAL_ROW) and not qualifies_nothing(column)


def _line_of_cover(row: list[str], column_core: list[str]) -> list[str]:
    """A row named for a line of cover ("Umbrella liability": its last word a section word,
    :data:`SECTION_HEADS`) under a column of its figure ("Limits": a generic head, not
    a blank "Amount") read
    without the section word ("umbrella limit"), as the question side asks a name with
    one; [] for any other row."""
    if (
        len(row) < 2
        or row[-1] not in SECTION_HEADS
        or row[0] in LINE_ITEM_MODIFIERS  # "Total liabilities" is a balance, no cover
        or not column_core
        or column_core[-1] not in GENERIC_HEADS - BLANK_QUALIFIERS
    ):
        return []
    return [*row[:-1], *column_core]


def _holder_row(row: list[str], column_core: list[str]) -> bool:
    """Whether a row named for a figure ("Accident **coverage**", "Contract **value**":
    :data:`FIGURE_WORDS`) stands over a column naming another quantity a profile knows
    ("Deductible", "Premium"): the column is what the figure measures, the row only whose
    it is, so the row's own keys are not the fact's. A column the row's figure is a name
    of ("Limit": coverage is a limit's other name) is the row's own figure."""
    if not row or row[-1] not in FIGURE_WORDS or not column_core:
        return False
    group = vocabulary().synonyms_of(" ".join(column_core))
    return bool(group) and all(member.split() != [row[-1]] for member in group)


def _without_separate_tails(keys: list[str]) -> list[str]:
    """``keys`` without the tails of a key that names a separate quantity (a profile's
    ``separate``: "pet rent" is its own charge, not the rent it ends in)."""
    separate = vocabulary().separate
    own = [k for k in keys if tuple(k.split(" ")) in separate]
    if not own:
        return keys
    return [k for k in keys if k in own or not any(o.endswith(f" {k}") for o in own)]


_INCLUDED = re.compile(r"\(\s*including\s+(?P<name>[^()]+?)\s*\)", re.IGNORECASE)
"""A coverage a name says it includes, in parentheses: "insurance **(including product
liability coverage)**"."""


def _included_keys(text: str, whole: list[str]) -> list[str]:
    """The keys of a coverage the name ``text`` (its words: ``whole``) says it includes —
    "Commercial general liability insurance (including product liability coverage)" is
    product liability coverage too — when the included name is a figure of the same
    kind: its head a figure word (:data:`FIGURE_WORDS`: "coverage") or the name's own
    head. Any other parenthesis says what the amount takes in ("Total debt (including
    current portion)" is no current portion): no key."""
    keys: list[str] = []
    for found in _INCLUDED.finditer(text):
        words = phrase_words(found.group("name"))
        if len(words) > 1 and (words[-1] in FIGURE_WORDS or whole[-1:] == words[-1:]):
            keys += _core_keys(words)
    return keys


_QUALIFYING = MODIFIERS | CHANGES | OTHER_MEASURES
"""A column header's words that change the row's quantity or measure it another way."""


_POSSESSOR = re.compile(r"\s*[^\W\d_][\w.-]*['’]s\s+(?=\S)")
"""A label's first word when it is a possessor ("Adrian's", "year's"): the quantity is what
follows it, as the question side reads it."""


# --------------------------------------------------------------------------- the question side


def asked_key(name: str) -> str:
    """The key a question's name asks for: its words, in the singular, uncut ("Net
    revenues" → "net revenue"; "cost of revenues" → "cost of revenue"); from its last
    words (:func:`last_words`), as a label's keys are read."""
    return " ".join(last_words(phrase_words(name)))


def asked_key_forms(name: str) -> tuple[str, ...]:
    """:func:`asked_key`, and without a last word of :data:`ASKED_GENERIC_HEADS`,
    :data:`ACCESS_HEADS` or a figure noun of a profile in use ("dwelling limit" → "dwelling
    limit", "dwelling"; "general liability insurance" → "general liability"; "hot desk
    membership" → "hot desk")."""
    words = last_words(phrase_words(name))
    if not words:
        return ()
    if _generic_tail(words, ASKED_GENERIC_HEADS | ACCESS_HEADS | vocabulary().figure_nouns):
        return (" ".join(words), " ".join(words[:-1]))
    return (" ".join(words),)


def _numbers(name: str) -> list[str]:
    """``name``, and ``name`` with its last word in the other number."""
    words = name.split(" ")
    if not words[-1].isalpha():
        return [name]
    return [name, " ".join([*words[:-1], other_number(words[-1])])]


def _written_out(words: list[str]) -> list[str]:
    """The name ``words`` make with each clipped word written out ("admin fee" →
    "administration fee", "administrative fee": :data:`~osrag.lexicon.label_roles.
    CLIPPED_WORDS`); none when no word is clipped."""
    forms: list[list[str]] = [[]]
    for word in words:
        forms = [[*form, full] for form in forms for full in CLIPPED_WORDS.get(word, (word,))]
    return [" ".join(form) for form in forms if form != words]


def _contains(whole: list[str], part: list[str]) -> bool:
    """Whether ``part`` is a run of consecutive words of ``whole``."""
    n = len(part)
    return any(whole[i : i + n] == part for i in range(len(whole) - n + 1))


def label_alternatives(
    label: str, *, every: bool = False, synonyms: bool = True
) -> tuple[str, ...]:
    """The names a fact's label may match ``label`` by (see the module docstring), the
    label's own first; a name that holds another as a run of its words is left out (as a
    phrase it would match nothing more) — unless ``every``: each name is then asked as a
    whole key (:func:`asked_keys`), where the longer one is not redundant. ``synonyms``:
    with the other names of its synonym group (the profiles in use)."""
    name = normalised(label)
    if not name:
        return ()
    words = name.split(" ")
    own = _numbers(name)
    own += [n for full in _written_out(words) for n in _numbers(full)]
    if _generic_tail(
        [*words[:-1], singular(words[-1])], FIGURE_WORDS | vocabulary().figure_nouns
    ):  # never a lone "total" or "net": "total amount" is no "total"
        own += _numbers(" ".join(words[:-1]))
    if len(words) > 2 and words[-1] in SECTION_HEADS:
        own += _numbers(" ".join(words[:-1]))
    group = synonyms_of(name) if synonyms else ()
    names = list(dict.fromkeys([*own, *(normalised(member) for member in group)]))
    if every:
        return tuple(names)
    split = [n.split(" ") for n in names]
    kept = [
        n for n, words_of in zip(names, split, strict=True)
        if not any(other != words_of and _contains(words_of, other) for other in split)
    ]  # fmt: skip
    return tuple(kept)


def narrowed(label: str) -> tuple[str, str] | None:
    """``(the rest, its first word)`` of a name of two words or more — "umbrella premium"
    → ("premium", "umbrella"), "travel medical cover" → ("medical cover", "travel") — read
    as the quantity and the kind of document it is in; a first word a hyphen joins to the
    next is read with it, as one ("add-on sponsorships" → ("sponsorships", "add on"), never
    "on sponsorships" of an "add"); None for one word or one compound, and for a name in
    :data:`~osrag.lexicon.quantities.SYNONYMS` (a line item whose words belong together:
    "net income", "gross profit") — unless a profile says the broader quantity it is where
    a document names it: "patient balance" → ("total due", "patient")."""
    name = normalised(label)
    words = name.split(" ")
    joined = hyphenated(label)
    first = 1
    if len(joined) == len(words):
        while first < len(words) and joined[first]:
            first += 1
    if synonyms_of(name):
        broader = vocabulary().broader(name)
        return None if broader is None else (broader.quantity, broader.where)
    if len(words) <= first or words[first] in ("of", "and"):
        return None
    if words[0] in LINE_ITEM_MODIFIERS:
        return None
    return " ".join(words[first:]), " ".join(words[:first])


def _without_section_word(name: str) -> list[str]:
    """``name`` without a section word that has two words or more before it."""
    words = normalised(name).split(" ")
    return [
        " ".join(words[:i] + words[i + 1 :])
        for i in range(2, len(words) - 1)
        if words[i] in SECTION_HEADS
    ]


def _ends_in_a_link(name: str) -> bool:
    """A name cut after a preposition ("limit of" of "limit of liability", a section
    word left out, and its plural "limit ofs"): no quantity, never asked. (A name may end
    in a complement's other words: "total due", "amount available".)"""
    last = normalised(name).split(" ")[-1]
    return last in ALL_PREPOSITIONS or last.removesuffix("s") in ALL_PREPOSITIONS


def asked_keys(label: str, *, gains_only: bool = False, synonyms: bool = True) -> tuple[str, ...]:
    """The keys a fact's label must hold one of to be the quantity ``label`` names, read
    from its first clause as a label's keys are (:func:`name_clause`: "Medical expense,
    any one person" asks for a medical expense); ``gains_only``: not the names of a loss
    (a result asked on its positive side); ``synonyms``: the other names of its synonym
    group too (without: the name's own forms alone). A name is read to ``LABEL_CHARS``, as
    a stored label is (:mod:`osrag.lexicon.bounds`).

    The name's own forms (:func:`label_alternatives` without synonyms: "medical payments
    coverage" → "medical payments") are asked with and without a generic last word
    (:func:`asked_key_forms`: "dwelling limit" → "dwelling"), and so are the synonyms of
    each; but a synonym left without its generic word is asked only where two words or
    more remain, and a synonym that is one word of :data:`EMPTY_HEADS` ("total") is not
    asked: one word alone of another name is the thing its figure is of or an empty head,
    broader than the quantity the question names ("order total" asks for no "total",
    "order" of "order value", "unit" of "unit price")."""
    label = label[:LABEL_CHARS]
    label = name_clause(label) or label
    own = label_alternatives(label, every=True, synonyms=False)
    own = (*own, *(n for n in map(as_read, own) if n is not None and n not in own))
    others = tuple(
        dict.fromkeys(
            n
            for name in own
            for member in (label_alternatives(name, every=True) if synonyms else ())
            for n in label_alternatives(member, every=True, synonyms=False)
            if n not in own
        )
    )
    if gains_only:
        own = tuple(n for n in own if not names_loss(n))
        others = tuple(n for n in others if not names_loss(n))
    keys = [
        key
        for name in (*own, *others)
        for n in (name, *_without_section_word(name))
        if not _ends_in_a_link(n)
        for i, key in enumerate(asked_key_forms(n))
        if i == 0 or not is_document_noun(key)  # "policy limit" is not asked as "policy"
        if name in own or _another_names_key(key)
    ]
    return tuple(sorted({k for k in keys if k}))


def as_read(name: str) -> str | None:
    """A name that begins with the person its document is written to, as the document says
    it to its reader (:data:`~osrag.lexicon.label_roles.READERS`): "patient share" →
    "your share", "employee contributions" → "your contributions"; None for any other."""
    words = name.split(" ")
    if len(words) < 2 or singular(words[0]) not in READERS:
        return None
    return " ".join(["your", *words[1:]])


def _another_names_key(key: str) -> bool:
    """Whether ``key``, read from a synonym of the asked name or a form of one, may be asked
    for it: two words or more, or one that is no empty head (:data:`EMPTY_HEADS`) — a
    synonym's form left one word ("order" of "order value") is only asked where the
    synonym was written so (a one-word member of the group: "turnover" of "revenue")."""
    return " " in key or (key not in EMPTY_HEADS and key in _written_words())


def _written_words() -> frozenset[str]:
    """The one-word names the synonym groups of the profiles in use write, as keys."""
    return _one_word_members(vocabulary().digest)


@lru_cache(maxsize=8)
def _one_word_members(digest: str) -> frozenset[str]:
    """:func:`_written_words` of the vocabulary whose digest is ``digest``."""
    del digest  # the cache's key: the vocabulary in use
    return frozenset(
        key
        for group in vocabulary().groups
        for member in group
        for key in [asked_key(member)]
        if key and " " not in key
    )
