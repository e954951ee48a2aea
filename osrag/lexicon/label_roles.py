"""The roles a word plays in a label: what it does to the quantity the label names.

In English the quantity a noun phrase names is its **head** — the last noun of its core;
the words before it narrow it, the words after it complement it (:mod:`osrag.lexicon.keys`
reads a label so). Some words do more than narrow: a *modifier* makes another quantity
("deferred revenue" is no revenue), a *split* names a part of the group above it
("Federal" under "Income taxes:"), a *complement* starts the words after the head ("Cost
| of revenues"), a *generic head* only says the figure is an amount ("Personal property
coverage"). The lists are short and closed, written for the language of financial
statements and insurance schedules, not for any corpus; every entry is justified beside
it. Words are in the singular unless a list says otherwise (the readers put a label's
words in the singular first, :func:`osrag.lexicon.words.phrase_words`).
"""

from __future__ import annotations

import re

from osrag.lexicon.function_words import (
    ARTICLES,
    CONTEXT_LINKS,
    COORDINATORS,
    NAME_PREPOSITIONS,
    POSSESSIVES,
    PREPOSITIONS,
    QUANTIFIERS,
)
from osrag.lexicon.periods import MONTHS
from osrag.lexicon.words import word_set

__all__ = [
    "AGGREGATE_AFTER",
    "ALLOCATED",
    "ALLOCATED_CHARGE",
    "AMOUNT_WORDS",
    "ASKED_GENERIC_HEADS",
    "BALANCES",
    "BLANK_QUALIFIERS",
    "CHANGES",
    "CHANGE_VERBS",
    "CHARGE_LIMITS",
    "CLIPPED_WORDS",
    "COMPLEMENTS",
    "DEPENDENT_WORDS",
    "EMPTY_HEADS",
    "FIGURE_WORDS",
    "GENERIC_HEADS",
    "INCLUDES",
    "INSIDE_A_NAME",
    "JOINING_PREPOSITIONS",
    "LEVIES",
    "LINE_ITEM_MODIFIERS",
    "LIST_NOUNS",
    "MODIFIERS",
    "MONEY_HEADS",
    "NON_HEAD_STARTS",
    "NOTE_LEADS",
    "NOT_A_LIST_PRICE",
    "OPTIONAL_LEADS",
    "OTHER_MEASURES",
    "OWN_NAME",
    "PAID_HEADS",
    "PARTIES",
    "PER_RATIO",
    "PRICE_HEADS",
    "QUANTIFYING",
    "READERS",
    "SALES_TAXES",
    "SECTION_HEADS",
    "SECTION_TITLES",
    "SECURING_VERBS",
    "SPECIFYING",
    "SPLITS",
    "STATED_TOTAL_WORDS",
    "TAX_INCLUSIONS",
    "TIME_ADVERBS",
    "TOTALLED_HEADS",
    "WHEN_DUE",
    "WHOLE_HEADS",
    "WHOLE_JOBS",
    "WHOLE_LEADS",
]

SPLITS = word_set(
    """current non-current noncurrent deferred federal state states local foreign domestic
    international u.s. us usa united kingdom uk non-u.s. americas america north south latin
    emea apac asia pacific europe rest world basic diluted"""
)
"""Words of a dependent row that split its group: by jurisdiction, geography, timing or
per-share basis. Such a row is a part of the group's quantity, not the whole (a total, a
net or a balance row is the whole)."""

DEPENDENT_WORDS = (
    SPLITS
    | word_set(
        """total totals subtotal sub-total sub other others net gross granted exercised
    forfeited vested unvested nonvested cancelled canceled expired exercisable issued
    repurchased outstanding balance balances beginning end opening closing of at as the
    and in for year years period amount amounts"""
    )
    | frozenset(MONTHS)
)
"""The words a label may be made of (with numbers) and still need the group row above it:
totals, the per-share bases, the current/deferred and jurisdiction splits, geographies,
the steps of a roll-forward ("Granted", "Balance at beginning of year", "Outstanding at
December 31, 2019": the month's names too)."""

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
compensation (:func:`~osrag.lexicon.keys.component_of`)."""

OWN_NAME = frozenset({"total", "subtotal", "allowance"})
"""Words of a row under a balance that make it the balance's own line (its total, its
valuation allowance), never a part of it."""

ALLOCATED = frozenset({"compensation", "depreciation", "amortization", "amortisation"})
"""Charges spread over the expense lines they are booked in: a group naming one
(``Stock-based compensation:``) makes the rows under it its shares (``Cost of
revenues``), never those lines (:func:`~osrag.lexicon.keys.component_of`)."""

ALLOCATED_CHARGE = re.compile(
    r"(?i)\b(?:(?:stock|share|equity)[- ]based\s+compensation|depreciation\s+and\s+"
    r"amorti[sz]ation|depreciation|amorti[sz]ation)(?:\s+expenses?)?\b"
)
"""The name of an :data:`ALLOCATED` charge as a sentence writes it ("stock-based
compensation expense", "depreciation and amortization"): a table the sentence introduces
as its allocation holds that charge's shares."""

INCLUDES = frozenset({"include", "included", "including"})
"""A group's first word that says its rows are amounts included in the lines above
(``Includes stock-based compensation of:``, ``Included in cost of revenue:``): every
row under it, its ``Total`` too, is that part, never the whole quantity it names."""

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
    # the movements of a roll-forward between two balances: the charge or the flow, never
    # the balance ("Goodwill — Impairment", "Data Center Group — Acquisitions")
    "impairment", "addition", "acquisition", "disposal", "divestiture", "writeoff",
    "writedown", "transfer", "reclassification", "translation", "chargeoff", "recovery",
    "reversal", "accretion", "forfeiture", "expiration",
})  # fmt: skip
"""Words of a column header whose cells hold a change of the row's quantity, not the
quantity ("Net revenues — Increase/(decrease)", "Total assets — Effect of Change",
"Goodwill — Impairment": a roll-forward's movement, not the balance)."""

CHANGE_VERBS = {
    **dict.fromkeys(
        ("increased", "increase", "increases", "rose", "rise", "rises", "grew", "grow", "grows",
         "climbed", "jumped"),
        "increase",
    ),
    **dict.fromkeys(
        ("decreased", "decrease", "decreases", "fell", "fall", "falls", "declined", "decline",
         "declines", "dropped", "drop", "drops"),
        "decrease",
    ),
    "reduced": "reduction",
    "improved": "improvement",
    "changed": "change",
}  # fmt: skip
"""The verbs of change a figure can follow, and the change each names: an amount right
after one measures the change, not the quantity ("Net cash provided by operating
activities **increased** $224 million": the increase in it)."""

EMPTY_HEADS = frozenset({"amount", "sum", "total", "aggregate", "maximum", "minimum"})
"""A head that names no quantity of its own, only that a figure is one: "the sum of $X",
"a total of $X" name nothing; with an *of* it names what follows ("the aggregate amount
of the Revolving Commitments" is the revolving commitments, in the aggregate)."""

WHOLE_HEADS = frozenset({"sum"})
"""The empty head that states a figure as the whole a party pays: alone right before it, or
after words of :data:`WHOLE_LEADS` only ("Licensee shall pay to the Licensor **the sum of**
$480,000", "the aggregate sum of"), and named no other way, the figure is the total of what
its sentence pays — labelled ``total``, as a document's "Total" is
(:mod:`osrag.extract.facts.prose`). "a total of $X" is not: it sums the figures just before
it ("£7,500 plus VAT (£1,500), a total of £9,000" — fees and their tax, no document's
total), and a link before it owns it ("revenue was a total of"). "the amount of", "a
maximum sum of", "an additional sum of" name nothing (a figure, a cap, a further
payment)."""

WHOLE_LEADS = frozenset({"total", "aggregate", "entire", "whole", "full", "combined"})
"""Words before a head of :data:`WHOLE_HEADS` that say it is all of it ("the **entire**
sum")."""

AGGREGATE_AFTER = re.compile(
    r"(?i)\s*(?:in\s+the\s+|in\s+)?(?:(?:annual|general|policy)\s+)?aggregate\b"
)
"""The qualifier right after the later amount of a pair that makes it the aggregate, not
the same quantity as the amount before it: "limits of $1,000,000 per occurrence and
$2,000,000 **in the aggregate**", "… and $2,000,000 **annual aggregate**"
(:mod:`osrag.extract.facts.build`)."""

SECTION_TITLES = frozenset({
    "summary", "overview", "introduction", "background", "scope", "purpose", "general",
    "term", "condition", "note", "detail", "information", "description", "definition",
    "content", "appendix", "exhibit", "attachment", "highlight", "option", "extra",
    "question", "other", "miscellaneous", "additional", "important",
})  # fmt: skip
"""Words (in the singular) that title a part of a document, not a thing it prices: a
heading of only these, the quantity nouns and function words ("Summary", "Payment terms",
"Fees", "Notes") names nothing the amounts under it are the price of
(:mod:`osrag.extract.facts.sections`)."""

LIST_NOUNS = frozenset({"schedule", "table", "list"})
"""Nouns that name a list of a quantity's figures: a heading "Services Fee **Schedule**",
"**Schedule** of Fees", "Price **List**" names the figures under it by the quantity
(:mod:`osrag.extract.facts.sections`)."""

NOTE_LEADS = word_set("note notes nb n.b see ref re attn memo ps cc fyi")
"""Words that open a note or a reference before a colon ("**Note:** see terms", "**Attn:**
accounts", "**Re:** invoice 42"): what follows is a remark, not an item under a kind of
charge."""

QUANTIFYING = frozenset({
    "aggregate", "total", "maximum", "minimum", "combined", "entire", "whole", "full",
    "additional", "further", "same",
})  # fmt: skip
"""Words before an empty head that only say how much of it ("the **aggregate** amount",
"a **maximum** sum"): with them alone the head still names nothing."""

JOINING_PREPOSITIONS = frozenset(
    {"of", "for", "in", "on", "to", "from", "under", "over", "per", "before", "after"}
)
"""The prepositions a phrase read back from an amount runs through to the phrase before
it and a label keeps — a complement of a name ("Initial Fee **for** the first
restaurant", "cost **of** training", "contribution **to** the registered capital",
"income **before** income tax expense"), and any preposition after a participle ("Net
cash provided **by** operating activities", "deposits held **as** collateral"). Not
*at*, *with*, *during*, *among*: they join an adjunct ("a salary **at** the annual rate
of", "total expenditures **during** the term", "insurance **with** limits of")."""

OTHER_MEASURES = frozenset({"fair"})
"""Words of a column header whose cells measure the row's item another way: "Long-term
debt — Fair value", "Assets: Total — Total Fair Value" are fair values, not the carrying
amounts the statements report. (Only a column: "Fair rental value" is a coverage.)"""

OPTIONAL_LEADS = frozenset({"total", "net", "consolidated", "reported"})
"""A first word that sums or nets the quantity the rest names, or says it is the figure
as reported ("Total revenue" is the revenue, "Net revenues" is the revenue a question
asks for, "Reported profit before tax" the profit before tax — unlike an adjusted or
underlying one, :data:`MODIFIERS`): keys with and without it."""

AMOUNT_WORDS = frozenset({"amount", "value"})
"""Words that say only that a figure is an amount: a column headed by one alone
(``Amount``, ``Values``, ``Total amount``) qualifies nothing."""

FIGURE_WORDS = AMOUNT_WORDS | frozenset({"coverage", "cover", "figure", "sum"})
"""A last word that only says the figure is a coverage or an amount: a name is also read
without it ("Personal property coverage" is the personal property cover)."""

GENERIC_HEADS = FIGURE_WORDS | frozenset({
    "limit",  # a coverage's figure is its limit: "dwelling limit" is the dwelling cover
    "expense",  # "stock-based compensation expense" is what the statement calls
    # "Stock-based compensation"; "identity recovery expenses" is identity recovery cover
    "package",  # a sponsorship, benefits or service package is the sponsorship, the
    # benefits or the service bought: "gold sponsorship package" is the gold sponsorship
    "tier",  # "gold sponsorship tier", "premium support tier": the same
    "reimbursement",  # what a plan pays back for a loss is its cover of it: "food loss
    # reimbursement" is the food loss cover, "rental reimbursement" the rental cover
})  # fmt: skip
"""A last word (in the singular) that only says what kind of figure the rest names: keys
without it too, when a name is left (not a lone "total" or "other")."""

MONEY_HEADS = frozenset({"cost", "price"})
"""Last words of a question's name that say only what the thing before them costs: "booth
cost" is asked as "booth" too, which a price list's "10x10 vendor booth" holds (its head is
the booth; its figure, the booth's price). Question side only: a label's keys keep them.
Not "fee": a fee is charged *for* the thing ("development fee"), and a label whose head is
that thing ("Development schedule") is rarely its fee — measured, it bound wrong facts."""

SALES_TAXES = frozenset({"tax", "taxes", "sales tax", "vat", "gst", "hst"})
"""The taxes a seller adds to a document's figure: a total that says it includes one
("Total including VAT", "Total incl. GST") is the document's whole figure."""

TAX_INCLUSIONS = frozenset({"including", "incl", "inc", "with"})
"""The words after a total that say it holds a tax: "Total **including** VAT", "Total
**incl.** GST", "Total **with** sales tax" (never "excluding": that total leaves it out)."""

WHOLE_JOBS = word_set("job project work works order contract event booking wedding party")
"""Nouns that name the whole of what a quote or an invoice prices, or the occasion it is
for: "quotes over $1,200 **for the job**", "catering quotes above $3,000 **for the
wedding**" ask the quote's total, where "for labor" asks a part of it
(:mod:`osrag.search.binding`)."""

NOT_A_LIST_PRICE = word_set("total subtotal tax vat gst hst deposit balance due")
"""Words of a label that make its amount no price of a price list: a sum, a tax, a deposit,
a balance ("Total", "VAT", "Deposit", "Balance due" under "All prices are per week"
state no weekly price; :mod:`osrag.extract.facts.units`)."""

CHARGE_LIMITS = frozenset({"minimum", "maximum"})
"""The floor or ceiling of a charge, named alone: "Minimum charge" and "Minimum fee" are what
"a $100 shop minimum" asks ("minimum" keys them too), never any charge (:data:`MODIFIERS`)."""

PRICE_HEADS = MONEY_HEADS | frozenset({"fee", "charge"})
"""Last words of a label that name what is paid for the thing before them: "Front-of-shirt
sponsorship fee" is what the shirt sponsorship costs, a "booth charge" the booth's price.
Not a "deposit", "discount" or "refund" on it: those are other figures of the thing."""

ASKED_GENERIC_HEADS = (GENERIC_HEADS - {"expense"}) | MONEY_HEADS
"""The generic last words a question's name is asked without too ("dwelling limit" →
"dwelling", "booth cost" → "booth"). Not "expense": "income tax expense" is not asked as
"income tax", which a rate reconciliation's "State income tax" line holds."""

ACCESS_HEADS = frozenset({"membership", "subscription"})
"""Last words of a question's name that say only that the thing before them is bought as
access: "hot desk memberships" is what a coworking price list sells as its "Hot Desk", a
"gym membership" the gym's monthly price. Question side only: asked without them too
(:func:`~osrag.lexicon.keys.asked_key_forms`), where a label's "Gold membership" keeps its
head."""

BLANK_QUALIFIERS = AMOUNT_WORDS | {"balance"}
"""A column header made of one of these alone (a "total" before it allowed: ``Amount``,
``Balances``, ``Total amount``) says only that its figures are amounts or balances: it
qualifies nothing (:func:`~osrag.lexicon.keys.qualifies_nothing`)."""

READERS = frozenset({
    "patient", "member", "customer", "subscriber", "policyholder", "tenant", "employee",
    "student", "borrower",
})  # fmt: skip
"""The person a bill, statement or notice is written to: a question names a figure by that
person ("patient share", "employee contribution"), the document by "your" ("Your share",
"Your contribution"), as it speaks to its reader. Never a party that is not the reader
("employer contribution", "insured value": what is insured)."""
SECTION_HEADS = frozenset({"liability"})
"""A name's last word that names the section of a schedule the line is in: a fact's label
may leave it out when the rest still names a quantity of two words or more."""

LINE_ITEM_MODIFIERS = frozenset({
    "total", "net", "gross", "operating", "consolidated", "deferred", "current",
    "noncurrent", "non", "accumulated", "other", "adjusted", "diluted", "basic", "annual",
    "quarterly", "unearned", "accrued", "prepaid", "long", "short", "capital", "cash",
})  # fmt: skip
"""A name's first word that is part of the line item, never the kind of document it is
in: a name starting with one is not narrowed ("total assets" stays whole)."""

COMPLEMENTS = (
    (NAME_PREPOSITIONS | PREPOSITIONS)
    - word_set("above below about across among since until")  # never after a figure's name
    | word_set("less excluding including attributable related due available")
)
"""Words that start a complement after the head — the prepositions, and the words that
take a figure's name as their object or subject: "Cost | of revenues", "Assets | before
valuation allowance", "Net income | attributable to Acme", "Bodily injury | per person".
("net" starts one too when "of" follows: "revenue | net of returns".)"""

INSIDE_A_NAME = COMPLEMENTS - CONTEXT_LINKS - {"than"}
"""The words that start a complement inside a name ("value **of** the stock", "cost
**per** operator", "amount reported **as** capital gain", "vessel values **including**
newbuildings"): a question's name is read through them, as a label's keys are (not
"with", which joins a kind of document to its quantity, nor "than")."""

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

LEVIES = frozenset({
    "tax", "vat", "gst", "hst", "duty", "duties", "levy", "surcharge", "discount", "commission",
})  # fmt: skip
"""Charges taken at a rate on a base, whose "on" names the base and leaves the quantity the
same: "VAT | on parts and labour" is VAT, "Sales tax | on materials" a sales tax,
"Discount | on the second pet" a discount, "Commission | on sales" a commission (any other
"on" says a cause: "Net losses | on disposals" is another line)."""

PER_RATIO = frozenset({"share", "unit", "foot", "feet", "ft", "metre", "meter"})
"""The last word of a "per" complement that makes a ratio: "earnings per share", "rent per
rentable square foot"."""

TIME_ADVERBS = frozenset({
    "thereafter", "afterwards", "afterward", "hereafter", "henceforth", "onward", "onwards",
    "subsequently",
})  # fmt: skip
"""Adverbs of time that may end a name as written ("Demurrage **thereafter**", "Rent
**thereafter**"): when the figure falls due, no word of what it measures."""

SECURING_VERBS = frozenset({"hold", "secure", "reserve", "book", "confirm", "guarantee"})
"""Verbs of holding a booking after "to" in a payment's name ("Deposit | **to hold** the
slip", "Booking fee | **to secure** the date", "Retainer | **to reserve** the week"): what
the payment is for, no word of what it measures — the name before them is a key."""

PARTIES = word_set(
    "bank banks institution institutions customer customers client clients supplier"
    " suppliers vendor vendors creditor creditors debtor debtors lender lenders broker"
    " brokers insurer insurers party parties affiliate affiliates subsidiary subsidiaries"
    " government governments shareholder shareholders"
)
"""The parties and counterparties a balance is held with or a payment made with
("Deposits **with banks**", "Balances with related **parties**"): a "with" before them
says where the amount stands, not what an item comes with — the name stays whole."""

WHEN_DUE = frozenset({"now", "still", "past", "not", "already", "then", "currently", "overdue"})
"""Words that say when or whether a figure falls due, before the "due" that ends a name
("Total **now** due", "Amount **past** due", "Amounts **not currently** due"): a "due"
after them keeps the whole name (no quantity before it is the figure's)."""

CLIPPED_WORDS: dict[str, tuple[str, ...]] = {
    "admin": ("administration", "administrative"),
    "mgmt": ("management",),
    "maint": ("maintenance",),
    "svc": ("service",),
    "govt": ("government",),
}  # fmt: skip
"""Words a question may clip and a document writes out ("**admin** fee" is the
"Administration fee", the "administrative fee"): a name asked with one is asked with each
full form too."""

STATED_TOTAL_WORDS = frozenset({"quoted", "estimated", "proposed", "projected"})
"""Participles that say only what a total's figures are — quoted, estimated — between
"Total" and the charges it sums ("Total **quoted** charges", "Total **estimated** cost"):
the document's total, as "Quoted total" and "Estimated total" are."""

TOTALLED_HEADS = frozenset({"charge", "fee", "cost", "price", "amount"})
"""The heads of what such a total sums (:data:`STATED_TOTAL_WORDS`): what is paid."""

UNIT_PRICED = frozenset({"price", "rate"})
"""Heads whose amount is one per unit already: "a purchase price of $0.15 per share" is the
purchase price, where "$0.71 per diluted share" after net income is no net income."""

PAID_HEADS = PRICE_HEADS | UNIT_PRICED
"""Last words that say only that the thing before them is paid for (a fee, charge, cost,
price or rate): "outgoing wire fee" is what an outgoing wire costs, which a price list
writes "Outgoing wire transfer ...... $35.00"; a "treatment fee" is what a treatment is
priced at."""

SALE_UNITS: dict[str, str] = {
    "ea": "each", "each": "each", "cs": "case", "case": "case", "bx": "box", "box": "box",
    "pk": "pack", "pack": "pack", "ct": "carton", "ctn": "carton", "carton": "carton",
    "dz": "dozen", "doz": "dozen", "dozen": "dozen", "bg": "bag", "bag": "bag", "rl": "roll",
    "roll": "roll", "pr": "pair", "pair": "pair", "bt": "bottle", "btl": "bottle",
    "bottle": "bottle", "pl": "pail", "pail": "pail", "dr": "drum", "drum": "drum",
}  # fmt: skip
"""The units an item is sold in, as an order's unit column writes them (the common codes of
the trade — UN/ECE Recommendation 20, ANSI X12 — and the words): a unit price in a row sold
by the case is a price per case."""

UNIT_COLUMNS = frozenset({"unit", "uom", "um", "u m", "unit of measure", "unit of sale"})
"""A column header naming the unit a line's item is sold in (its words, singular)."""

NON_HEAD_STARTS = ARTICLES | POSSESSIVES | QUANTIFIERS | COORDINATORS | (SPECIFYING & {"per", "of"})
"""A tail starting with one of these is no name ("each occurrence limit" keeps
"occurrence limit" and "limit", not a key "each …" beside the whole)."""
