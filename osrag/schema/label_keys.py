"""What a fact's label measures, as exact keys a question can ask for. Pure.

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
allowance".

:func:`label_keys` (the ingest side, stored with every fact) reads a label so:

1. **Parts.** A table label may be ``Row — Column`` (the column header that qualifies
   it) and ``Group: Row`` (the group row above a dependent row). The row reading is the
   row's core followed by the group's (``Income taxes: Federal`` → "federal income
   tax"); each column's core is read alone and after the row reading (``Property damage,
   each accident — Limit`` → "property damage limit", "limit"); a column holding a
   modifier or a change (:data:`CHANGES`) leaves the row no keys of its own (``Auto
   bodily injury — Minimum limit`` is no bodily injury limit, ``Revenue — Variance in
   Dollars`` no revenue). A dependent row that splits its group (:data:`SPLITS`:
   ``Net sales: United States``) has none of the group's own keys; a row that is the
   tax effect of its item under a deferred tax balance (:func:`component_of`) has only
   its whole name.
2. **Core of a part.** Parenthesised words go (``Net income (loss)`` → "net income");
   the part is cut at its first comma (``Revenue, net``, ``Property damage, each
   accident``) — unless the comma starts a list closed by *and* / *or*, which is one
   name (``Property, plant and equipment``; ``Interest expense, interest income and
   other income, net`` is a line of three quantities, not interest expense); words are
   casefolded, punctuation and ``&`` read as words (``R&D`` → "r and d"), each put in
   the singular (:func:`singular`, the rule the query side uses for every name).
3. **Complements.** A word of :data:`COMPLEMENTS` after the first starts a complement.
   One of :data:`SPECIFYING` (of, for, per, under, …) leaves the quantity the same: the
   core is cut before it (``Limit of liability`` → "limit"; ``Cost of revenues`` →
   "cost"). Any other makes another line (``Total deferred tax assets before valuation
   allowance``, ``Total assets as reported``, ``Net income attributable to …``): the
   core is not a key. The whole phrase is always a key of its own ("cost of revenue",
   "total asset as reported"), never a tail of it ("revenue" is not a key of "Cost of
   revenues", "valuation allowance" not one of "… before valuation allowance").
4. **Keys.** The core and every tail of it ending at its head, except a tail that
   starts with a word of :data:`NON_HEAD_STARTS` ("each", "and", …) and a tail that
   leaves out a word of :data:`MODIFIERS` (``Deferred revenue`` → only "deferred
   revenue"); of a coordination only "A and B" gives its two words (``Medical and
   repatriation`` → "medical", "repatriation"), a longer one or a list none
   (``Selling, general and administrative`` is not "administrative"). A leading
   word of :data:`OPTIONAL_LEADS` (total, net, consolidated) may be left out: ``Total
   revenue`` → "total revenue", "revenue". A last word of :data:`GENERIC_HEADS` may be
   left out when a word remains (``Personal property coverage`` → "personal property").

:func:`asked_key` reads a question's name the same way, without cutting (the whole
name is asked: "total assets" asks for "total asset", which "Total assets" has and
"Intangible assets" has not); :func:`asked_key_forms` also without a generic last word.

The lists are short and closed, written for the language of financial statements and
insurance schedules, not for any corpus; every entry is justified beside it.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "ALLOCATED",
    "ASKED_GENERIC_HEADS",
    "BALANCES",
    "CHANGES",
    "COMPLEMENTS",
    "DEPENDENT_WORDS",
    "FIGURE_WORDS",
    "GENERIC_HEADS",
    "MODIFIERS",
    "NON_HEAD_STARTS",
    "OPTIONAL_LEADS",
    "OTHER_MEASURES",
    "SPECIFYING",
    "SPLITS",
    "asked_key",
    "asked_key_forms",
    "component_of",
    "label_keys",
    "phrase_words",
    "singular",
    "word_set",
]


def word_set(words: str) -> frozenset[str]:
    """A set of words written as one string (white space between them)."""
    return frozenset(words.split())


SPLITS = word_set(
    """current non-current noncurrent deferred federal state states local foreign domestic
    international u.s. us usa united kingdom uk non-u.s. americas america north south latin
    emea apac asia pacific europe rest world basic diluted"""
)
"""Words of a dependent row that split its group: by jurisdiction, geography, timing or
per-share basis. Such a row is a part of the group's quantity, not the whole (a total, a
net or a balance row is the whole)."""

PART_COLUMNS = SPLITS - {"basic", "diluted"}
"""Words of a column header (or a section's scope) that name a part of the row's
quantity — a geography, a jurisdiction, a timing: "Operating income — Americas", "Income
before taxes — Foreign" are a part, the "Total" column the whole (as a split row is)."""

DEPENDENT_WORDS = SPLITS | word_set(
    """total totals subtotal sub-total sub other others net gross granted exercised
    forfeited vested unvested nonvested cancelled canceled expired exercisable issued
    repurchased outstanding balance balances beginning end opening closing of at as the
    and in for year years period amount amounts january february march april may june
    july august september october november december jan feb mar apr jun jul aug sep sept
    oct nov dec"""
)
"""The words a label may be made of (with numbers) and still need the group row above it:
totals, the per-share bases, the current/deferred and jurisdiction splits, geographies,
the steps of a roll-forward ("Granted", "Balance at beginning of year", "Outstanding at
December 31, 2019")."""

COLUMN_JOIN = " — "
"""How a table label joins its row and a column qualifier (the extraction's join)."""
GROUP_JOIN = ": "
"""How a table label joins a group row and the dependent row under it."""

BALANCES = frozenset({
    "deferred",  # deferred revenue / tax assets: a balance-sheet item, not revenue or assets
    "accumulated",  # accumulated depreciation: the running balance, not the period's charge
    "unearned",  # unearned revenue / premium: a liability for what is not yet earned
    "unrealized", "unrealised",  # unrealized gains/losses: not part of the result line
    "accrued",  # accrued interest / expenses: a liability, not the expense
    "prepaid",  # prepaid expenses: an asset, not the expense
    "unrecognized", "unrecognised",  # unrecognized tax benefits / compensation cost
    "restricted",  # restricted cash is not cash and cash equivalents
    "cumulative",  # cumulative effect / losses: a running total, not the period's figure
})  # fmt: skip
"""A balance or timing that is not the quantity itself. A group row naming a deferred
tax balance (``Deferred tax assets:``) makes the rows under it its parts: ``Deferred tax
assets: Stock-based compensation`` is a deferred tax asset, never stock-based
compensation (:func:`component_of`)."""

_OWN_NAME = frozenset({"total", "subtotal", "allowance"})

ALLOCATED = frozenset({"compensation", "depreciation", "amortization", "amortisation"})
"""Charges spread over the expense lines they are booked in: a group naming one
(``Stock-based compensation:``) makes the rows under it its shares (``Cost of
revenues``), never those lines (:func:`component_of`)."""


INCLUDES = frozenset({"include", "included", "including"})
"""A group's first word that says its rows are amounts included in the lines above
(``Includes stock-based compensation of:``, ``Included in cost of revenue:``): every
row under it, its ``Total`` too, is that part, never the whole quantity it names."""


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
        and not _OWN_NAME & set(row)
        and not (set(row) & set(group)) - balance - COMPLEMENTS - _COORDINATORS
        and not all(w in DEPENDENT_WORDS for w in row)
    )


MODIFIERS = BALANCES | frozenset({
    # a part of the quantity, not the whole of it:
    "other",  # other income / other assets: the residual line, not the total
    "current", "noncurrent", "non",  # current assets: a portion of total assets
    "long", "short",  # long-term debt / short-term investments: a portion
    "pro",  # pro forma revenue: a hypothetical figure, not the reported one
    "minimum",  # a floor the terms require ("Minimum limit" of underlying insurance)
    "adjusted", "underlying", "normalized", "normalised",  # a non-GAAP measure, not the
    # reported line ("Adjusted operating income")
    # a part of the year, not the year's figure ("Fourth quarter revenue", "Revenues —
    # First Quarter", "Net income — Three months"):
    "quarter", "quarterly", "q1", "q2", "q3", "q4", "1q", "2q", "3q", "4q", "h1", "h2",
    "half", "interim",
    # a part or another measure of the quantity, not the reported whole:
    "segment",  # "Marine Services segment revenue": one segment's, not the company's
    # another entity's figures, not the company's own ("Total revenue — Discontinued
    # operations", "Total assets — Acquired business", "Disposal group" held for sale):
    "discontinued", "acquired", "disposal", "parent",
})  # fmt: skip
"""Words that change what the head measures: no key leaves one out ("deferred revenue"
is never "revenue", "other assets" never "assets")."""

CHANGES = frozenset({
    "change", "variance", "increase", "decrease", "growth", "difference", "effect",
    "adjustment",
})  # fmt: skip
"""Words of a column header whose cells hold a change of the row's quantity, not the
quantity ("Net revenues — Increase/(decrease)", "Total assets — Effect of Change")."""

OTHER_MEASURES = frozenset({"fair"})
"""Words of a column header whose cells measure the row's item another way: "Long-term
debt — Fair value", "Assets: Total — Total Fair Value" are fair values, not the carrying
amounts the statements report. (Only a column: "Fair rental value" is a coverage.)"""

OPTIONAL_LEADS = frozenset({"total", "net", "consolidated"})
"""A first word that sums or nets the quantity the rest names ("Total revenue" is the
revenue, "Net revenues" is the revenue a question asks for): keys with and without it."""

FIGURE_WORDS = frozenset({"coverage", "cover", "amount", "value", "figure", "sum"})
"""A last word that only says the figure is a coverage or an amount (the singular)."""

GENERIC_HEADS = FIGURE_WORDS | frozenset({
    "limit",  # a coverage's figure is its limit: "dwelling limit" is the dwelling cover
    "expense",  # "stock-based compensation expense" is what the statement calls
    # "Stock-based compensation"; "identity recovery expenses" is identity recovery cover
})  # fmt: skip
"""A last word (in the singular) that only says what kind of figure the rest names: keys
without it too, when a name is left (not a lone "total" or "other")."""

ASKED_GENERIC_HEADS = GENERIC_HEADS - {"expense"}
"""The generic last words a question's name is asked without too ("dwelling limit" →
"dwelling"). Not "expense": "income tax expense" is not asked as "income tax", which a
rate reconciliation's "State income tax" line holds."""

COMPLEMENTS = frozenset({
    "of", "for", "per", "under", "over", "by",
    "before", "after", "from", "as", "to", "in", "on", "at", "with", "without",
    "excluding", "including", "less", "attributable", "related", "due", "during",
    "through", "between", "against", "into", "within", "than", "available",
})  # fmt: skip
"""Words that start a complement after the head: "Cost | of revenues", "Assets | before
valuation allowance", "Net income | attributable to Acme", "Bodily injury | per person".
("net" starts one too when "of" follows: "revenue | net of returns".)"""

SPECIFYING = frozenset({"of", "for", "per", "under", "over", "by"})
"""Complements that say what the head's amount is of, for, per or under — its object,
scope or unit — and leave it the same quantity: "Limit | of liability" is a limit,
"Premium | for a frame house" a premium, "Bodily injury | per person" bodily injury
cover, "Retention | under a foreign auto policy" a retention; the core before them is
a key. Every other complement makes another line of a statement — a stage ("Deferred
tax assets | before valuation allowance", "Total assets | as reported"), a source or
part ("Revenues | from data centre services", "Operating income | from continuing
operations"), a recipient ("Net income | attributable to common stockholders"), a
cause ("Net losses | on disposals of assets"), an adjustment ("Revenue | excluding
…"): only the whole phrase is a key, never the core before it."""

PER_RATIO = frozenset({"share", "unit"})
"""The last word of a "per" complement that makes a ratio: "earnings per share"."""

NON_HEAD_STARTS = frozenset({
    "each", "per", "any", "all", "the", "a", "an", "and", "or", "of", "its", "our",
})  # fmt: skip
"""A tail starting with one of these is no name ("each occurrence limit" keeps
"occurrence limit" and "limit", not a key "each …" beside the whole)."""

_PAREN = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_WORD = re.compile(r"[a-z0-9]+")
_COORDINATORS = frozenset({"and", "or"})


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


def phrase_words(text: str) -> list[str]:
    """Casefolded words of ``text`` in the singular, parenthesised words left out, ``&``
    read as "and" (``Shareholders' equity (deficit)`` → ``["shareholder", "equity"]``)."""
    text = _PAREN.sub(" ", text.casefold().replace("’", "'").replace("'", ""))
    text = text.replace("&", " and ")
    return [singular(w) for w in _WORD.findall(text)]


def _first_clause(text: str) -> tuple[str, bool]:
    """``text`` up to its first comma — unless the comma starts a list closed by *and* /
    *or*, kept whole: "Property, plant and equipment, net" → "Property plant and
    equipment"; "Interest expense, interest income and other income, net" is a line of
    three quantities, not interest expense. A piece that starts with a complement, a
    "net" or an "each" ("Revenue, net", "Property damage, each accident", "Receivables,
    net of allowances and returns") is no list item. Also whether it is such a list."""
    pieces = [p.split() for p in _PAREN.sub(" ", text).split(",")]
    taken = [pieces[0]]
    for words in pieces[1:]:
        if not words or len(words) > 6:
            break
        lead = words[0].casefold()
        if lead in COMPLEMENTS | OPTIONAL_LEADS | NON_HEAD_STARTS - _COORDINATORS:
            break
        taken.append(words)
        if any(w.casefold() in _COORDINATORS for w in words):
            return " ".join(w for piece in taken for w in piece), True
    return " ".join(pieces[0]), False


def _cut(words: list[str]) -> int:
    """Where the complement starts (``len(words)`` when there is none)."""
    for i, word in enumerate(words[1:], start=1):
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
    if _COORDINATORS & set(words):
        if not listed and len(words) == 3 and words[1] in _COORDINATORS:
            keys += [words[0], words[2]]
        return keys
    for i in range(1, len(words)):
        if words[i - 1] in MODIFIERS:
            break
        if words[i] not in NON_HEAD_STARTS:
            keys.append(" ".join(words[i:]))
    return keys


def _generic_tail(words: list[str], heads: frozenset[str] = GENERIC_HEADS) -> bool:
    """Whether the last word is a generic head a name is left without."""
    return (
        len(words) > 1
        and words[-1] in heads
        and words[-2] not in heads | OPTIONAL_LEADS | MODIFIERS | NON_HEAD_STARTS | _COORDINATORS
    )


def _core_keys(words: list[str], listed: bool = False) -> list[str]:
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
    """A ratio to a share or a unit ("per diluted share"): another quantity than the head's
    ("Basic net income per share" is no net income), unlike "per person", "per occurrence"."""
    return complement[0] == "per" and complement[-1] in PER_RATIO


def _part(text: str) -> tuple[list[str], list[str], bool]:
    """(the core the keys are read from, the whole first clause, whether it is a list of
    three or more) of one part: the core is cut before a specifying complement, and is
    the whole clause before any other (:data:`SPECIFYING`)."""
    clause, listed = _first_clause(text)
    whole = phrase_words(clause)
    cut = _cut(whole)
    if cut < len(whole) and (whole[cut] not in SPECIFYING or _per_share(whole[cut:])):
        return [], whole, listed
    return whole[:cut], whole, listed


def _keys_of(core: list[str], whole: list[str], listed: bool = False) -> list[str]:
    keys = _core_keys(core, listed)
    if whole != core and whole:  # the whole phrase, never a tail of its complement
        keys.append(" ".join(whole))
        if len(whole) > 1 and whole[0] in OPTIONAL_LEADS:
            keys.append(" ".join(whole[1:]))
    return keys


_PART_COUNTS = {
    "month": word_set("one two three four five six seven eight nine ten eleven")
    | {str(n) for n in range(1, 12)},
    "week": frozenset({"13", "26", "39", "thirteen", "six", "nine"}),  # twenty-six, thirty-nine
}
"""The counts of months or weeks that make a part of a year ("Three months", "26 weeks");
twelve months and 52 weeks are a year."""


def _counts_part_of_a_year(words: list[str]) -> bool:
    """A column like ``Three months`` or ``26 weeks``: a part of the year, not the year."""
    return any(i > 0 and words[i - 1] in _PART_COUNTS.get(word, ()) for i, word in enumerate(words))


QUARTER_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
}  # fmt: skip
"""The ordinal words that name a quarter ("fourth quarter", "4th quarter"), both sides."""
_QUARTER_TOKEN = re.compile(r"q([1-4])|([1-4])q(?:\d\d)?")


def quarter_of(words: list[str]) -> int | None:
    """The one quarter of the year ``words`` name (``Q4``, ``4Q19``, ``Fourth … Quarter``),
    else None."""
    found = {int(m.group(1) or m.group(2)) for w in words if (m := _QUARTER_TOKEN.fullmatch(w))}
    if "quarter" in words:
        found |= {QUARTER_ORDINALS[w] for w in words if w in QUARTER_ORDINALS}
    return found.pop() if len(found) == 1 else None


def quarter_keys(row: list[str], columns: list[str]) -> list[str]:
    """The keys of a quarter's figure: each key of the row followed by the quarter its
    columns name ("Revenues — Fourth — Quarter" → "revenue q4"), which a question naming
    that quarter asks for ("revenue in Q4 2019")."""
    quarter = quarter_of(columns)
    return [] if quarter is None else [f"{key} q{quarter}" for key in row]


@lru_cache(maxsize=1 << 14)
def label_keys(label: str | None) -> tuple[str, ...]:
    """The keys of a fact's label (module docstring), distinct, in order; () for none."""
    if not label:
        return ()
    row_text, *columns = label.split(COLUMN_JOIN)
    group_text, _, row_only = row_text.rpartition(GROUP_JOIN)
    row: list[str] = []
    row_core, row_whole, listed = _part(row_only)
    if group_text:  # the dependent row reads before its group: "federal income tax"
        group_core, group_whole, group_listed = _part(group_text)
        if component_of(row_whole, group_whole):  # a part of a balance: its whole name only
            row_core = row_whole = row_whole + group_whole
            row.append(" ".join(row_whole))  # no tail: "deferred tax asset" is the group's
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
    keys: list[str] = []
    qualified = False
    column_words: list[str] = []
    for column in columns:
        column_core, column_whole, column_listed = _part(column)
        column_words += phrase_words(column)
        keys += _keys_of(column_core, column_whole, column_listed)
        if row_core and column_core:
            keys += _core_keys(row_core + column_core, listed or column_listed)
        qualified = (
            qualified
            or bool((MODIFIERS | CHANGES | OTHER_MEASURES | PART_COLUMNS) & set(column_whole))
            or _counts_part_of_a_year(column_whole)
        )
    # a column that changes the quantity ("Auto bodily injury — Minimum limit", "… —
    # Deferred"), names a part of it ("Operating income — Americas") or holds a change
    # of it ("Revenue — Variance in Dollars", "… — Increase/(decrease)") leaves the row
    # no keys of its own: only read with the column
    quarter = quarter_keys(row, column_words)
    qualified = qualified or bool(quarter)  # "Revenue — 3Q19": the quarter's, not the year's
    keys += quarter
    return tuple(dict.fromkeys(k for k in ([] if qualified else row) + keys if k))


def asked_key(name: str) -> str:
    """The key a question's name asks for: its words, in the singular, uncut ("Net
    revenues" → "net revenue"; "cost of revenues" → "cost of revenue")."""
    return " ".join(phrase_words(name))


def asked_key_forms(name: str) -> tuple[str, ...]:
    """:func:`asked_key`, and without a last word of :data:`ASKED_GENERIC_HEADS`
    ("dwelling limit" → "dwelling limit", "dwelling")."""
    words = phrase_words(name)
    if not words:
        return ()
    if _generic_tail(words, ASKED_GENERIC_HEADS):
        return (" ".join(words), " ".join(words[:-1]))
    return (" ".join(words),)
