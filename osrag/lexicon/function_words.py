"""The closed classes of English the phrase readers stop at.

A label read from prose or a question is a noun phrase, and a noun phrase is bounded by
function words: an article or a determiner opens it, a pronoun stands for it, a verb of
being, having or reporting or a clause word lies outside it. The readers that run over
words — back from an amount in a document (:mod:`osrag.extract.facts.text`), back from
a constraint in a question (:mod:`osrag.search.binding`), over a heading
(:mod:`osrag.extract.facts.sections`) — stop at unions of the **classes** below.

Each word is in one class (a test keeps it so); a reader's set is a union of classes,
named for what the reader does with it. The verbs are the closed few a figure is
stated, paid or asked with, split by the side that meets them: a question's verbs of
asking ("show", "list", "find"), a document's verbs of reporting ("recorded",
"earned"), and the verbs of giving both meet ("pays", "provides", "includes").
"""

from __future__ import annotations

from osrag.lexicon.words import word_set

__all__ = [
    "ALL_PREPOSITIONS",
    "ARTICLES",
    "ASKED_NAME_STOPS",
    "BE",
    "BOUNDARY_WORDS",
    "CARDINALS",
    "CLAUSE_WORDS",
    "COMPARATIVES",
    "CONJUNCTIONS",
    "CONTEXT_ARTICLES",
    "CONTEXT_LINKS",
    "COORDINATORS",
    "DEFINITE",
    "DEMONSTRATIVES",
    "DETERMINERS",
    "DO",
    "EXCEPTIVES",
    "FINITE_BE",
    "FINITE_HAVE",
    "FORWARD_STOPS",
    "HAVE",
    "HEDGES",
    "INDEFINITE",
    "LINKING_VERBS",
    "MODALS",
    "MODIFYING_PREPOSITIONS",
    "NAMES_OF_GIVING",
    "NAME_EDGES",
    "NAME_MARKS",
    "NAME_PREPOSITIONS",
    "NEGATIONS",
    "NOT_IN_A_NAME",
    "NOT_PARTICIPLES",
    "NOUNS_OF_GIVING",
    "NP_PREPOSITIONS",
    "OPERATORS",
    "PARTICLES",
    "PAST_PARTICIPLES",
    "PERSONAL_PRONOUNS",
    "POSSESSIVES",
    "PREDICATIVES",
    "PREPOSITIONS",
    "PREPOSITION_NOUNS",
    "PRONOUNS",
    "PRO_FORMS",
    "QUANTIFIERS",
    "RELATIVE_PRONOUNS",
    "SENTENCE_VERBS",
    "SUBORDINATORS",
    "TO_AS_PREPOSITION",
    "UNIT_NUMBERS",
    "VERBS_OF_ASKING",
    "VERBS_OF_CONSISTING",
    "VERBS_OF_FORECASTING",
    "VERBS_OF_GIVING",
    "VERBS_OF_REPORTING",
    "VERBS_OF_TERMS",
]

# --------------------------------------------------------------------------- the classes

ARTICLES = word_set("a an the")
"""The articles."""
POSSESSIVES = word_set("its their his her our my your")
"""Possessive determiners: "its revenue" — the owner is not the quantity."""
DEMONSTRATIVES = word_set("this these those")
"""Demonstratives ("that" is a clause word: it opens a clause more often than a phrase)."""
QUANTIFIERS = word_set("each every any all some no such")
"""Determiners that count or choose: "each occurrence", "any one claim"."""
PERSONAL_PRONOUNS = word_set("i me we us you he she it they them there")
"""Personal pronouns, and the "there" of "there was": a subject, never a name."""
PRO_FORMS = word_set("one ones")
"""Words that stand for a noun already named ("the larger one")."""
CLAUSE_WORDS = word_set("that which who whom whose what where when why how")
"""Words that open a clause (relative or interrogative)."""
RELATIVE_PRONOUNS = CLAUSE_WORDS & word_set("that which who")
"""The clause words that stand for the noun before them ("the renewal fee, **which** is
presently $1,000": the figure is the fee's)."""
PREDICATIVES = word_set("payable due available outstanding remaining worth")
"""Adjectives said of a figure ("$361,252 **payable** in cash", "payments potentially
**worth** up to $20 million"): no name."""
UNIT_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
"""The number words below twenty and their values (an amount in words, "year one")."""

CARDINALS = word_set(
    """two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty sixty hundred"""
)
"""Number words that count what follows them ("six restricted investments"): a count,
never part of the name."""

COORDINATORS = word_set("and or")
"""The conjunctions that join the words of one name ("Property, plant and equipment")."""
CONJUNCTIONS = word_set("but nor so yet")
"""The other coordinating conjunctions: they join clauses, never the words of a name."""
SUBORDINATORS = word_set("while whereas because although though if whether unless")
"""Conjunctions that open a subordinate clause."""

NAME_PREPOSITIONS = word_set("of by from before after through against")
"""Prepositions a name of a quantity holds: "cost of revenue", "provided by operating
activities", "income from operations", "income before income taxes", "reserves against
losses" — a question's name runs through them."""
PREPOSITIONS = word_set(
    """for per under over as to in on upon at with without within into than above below between
    about across among during since until"""
)
"""The other prepositions: a question's name stops at them ("limits **for** umbrella
policies")."""
ALL_PREPOSITIONS = NAME_PREPOSITIONS | PREPOSITIONS
"""Every preposition: a name never starts or ends with one."""
LINKING_VERBS = word_set("remain remains remained become becomes became stay stays stayed")
"""Verbs other than *be* that link a subject to its predicate ("rent **remains** unpaid"):
the word after one is no subject."""
PREPOSITION_NOUNS = word_set(
    """respect regard relation connection addition lieu behalf accordance terms view place
    spite exchange consideration reference excess favor favour"""
)
"""Nouns that stand bare between two prepositions to make one ("**in respect of**", "in
**connection** with", "on **behalf** of", "in **lieu** of"): no word of a name."""
EXCEPTIVES = word_set("except excepting save barring")
"""Words that take an exception out of what goes before ("mould **except** up to $10,000"):
they open a complement, never a name."""
COMPARATIVES = word_set("versus vs")
"""Words that set one figure against another ("$5.2 million versus $4.8 million")."""
OPERATORS = word_set("plus less")
"""Words that add to or take from a figure ("revenue less returns": one name)."""

FINITE_BE = word_set("is are was were")
"""The finite forms of *be*: a sentence's verb."""
BE = FINITE_BE | word_set("be been being")
"""Every form of *be*."""
FINITE_HAVE = word_set("has have had")
"""The finite forms of *have*."""
HAVE = FINITE_HAVE | word_set("having")
"""Every form of *have*."""
DO = word_set("do does did")
"""The forms of *do* (a question's auxiliary)."""
MODALS = word_set("will would shall should may might can could must")
"""The modal verbs: "revenue **may** exceed $5 million" — never part of the name."""
TO_AS_PREPOSITION = word_set("due prior up equal similar subject according pursuant close next")
"""Words after which *to* is a preposition, not an infinitive's ("due **to** higher sales",
"prior **to** closing"): the word after it is no verb (with a participle before *to*:
"compared **to** gross profit", "related **to** operations")."""
NEGATIONS = word_set(
    """not cannot can't can’t won't won’t isn't isn’t aren't aren’t wasn't wasn’t doesn't
    doesn’t don't don’t didn't didn’t"""
)
"""Negations and negated auxiliaries."""
HEDGES = word_set("approximately nearly almost roughly around circa")
"""Adverbs that make a figure approximate ("approximately $5 million", "around $5")."""
USUALLY = word_set("typically usually generally normally")
"""Adverbs that make a figure the usual one, not the only one ("typically $350–$800")."""
PARTICLES = word_set("only also just then respectively up down please")
"""Adverbs and particles that stand between a name and its figure, never in the name."""

VERBS_OF_GIVING = word_set(
    """pay pays paid paying provide provides offer offers carry carries include includes
    including reported"""
)
"""Verbs a figure is paid, provided or included with, in questions and documents alike
("policies that **pay** over", "the plan **provides** $5,000")."""
NOUNS_OF_GIVING = VERBS_OF_GIVING & word_set("pay")
"""The verbs of giving that are nouns of a quantity too: after a word that names something,
the name's head ("gross **pay**", "hourly **pay**", "take-home **pay**"), not its verb
("policies that **pay**", "the company **pays**")."""
NAMES_OF_GIVING = VERBS_OF_GIVING & word_set("paid")
"""The past tense of a verb of giving that a document heads a figure with ("Plan **paid**",
"Amount **paid**"): after a word that names who gave, the name's last word ("EOBs where the
plan **paid** more than $1,000" asks what the plan paid), not a verb that ends it."""
VERBS_OF_ASKING = word_set(
    """show shows showed shown showing report reporting list lists listing find give gives
    get gets got hold holds held holding stated disclose discloses disclosed
    disclosing carrying offering need needs want wants"""
)
"""Verbs a question asks or describes with ("companies whose reports **show** revenue
over", "**find** policies with")."""
VERBS_OF_REPORTING = word_set(
    """record records recorded incur incurred generate generated posted receive receives received
    recognize recognise recognized recognised spend spent earn earned make made achieved
    delivered provided offered carried require requires required included compared"""
)
"""Verbs a document states a figure with ("the Company **recorded** revenue of", "we
**earned** $5 million")."""
VERBS_OF_TERMS = word_set(
    "apply applies applied cover covers covered covering remain remains remained"
)
"""Verbs of a contract's terms ("the $500 deductible **applies** per claim")."""
VERBS_OF_CONSISTING = word_set(
    """consist consists consisted consisting comprise comprises comprised comprising
    contain contains contained represent represents reflect reflects reflecting exclude
    excludes"""
)
"""Verbs that say what a figure is made of ("the Minimum Payment **consists** of the
Access Fee of", "Adjusted EBITDA **excludes** restructuring charges of")."""
VERBS_OF_FORECASTING = word_set("expect expects anticipate anticipates forecast forecasts")
"""Verbs an outlook states a figure with ("the company **expects** revenue of")."""

PAST_PARTICIPLES = frozenset(
    w
    for w in VERBS_OF_GIVING | VERBS_OF_ASKING | VERBS_OF_REPORTING | VERBS_OF_TERMS
    if w.endswith("ed") or w in {"paid", "held", "shown", "spent", "made", "got"}
) | word_set("sought given sold built set kept owed taken borne brought put lost won")
"""The past participles of the verb classes, and the irregular ones of common verbs:
right after a noun and before a complement they are part of the name, not its verb
("Amount **reported** as capital gain", "Dividends **paid** to non-controlling
shareholders", "aggregate damages **sought** by the claimant"). A word ending in *-ed* is
read as one too, unless it is one of :data:`NOT_PARTICIPLES`."""
NOT_PARTICIPLES = word_set("hundred indeed proceed exceed succeed need speed")
"""Words ending in *-ed* that are no past participle."""

# --------------------------------------------------------------------------- the readers' sets

ASKED_NAME_STOPS = (
    ARTICLES
    | POSSESSIVES
    | DEMONSTRATIVES
    | QUANTIFIERS
    | PERSONAL_PRONOUNS
    | CLAUSE_WORDS
    | (COORDINATORS - {"and"})  # "and" joins a name's words: "property, plant and equipment"
    | CONJUNCTIONS
    | SUBORDINATORS
    | PREPOSITIONS
    | BE
    | HAVE
    | DO
    | MODALS
    | NEGATIONS
    | PARTICLES
    | VERBS_OF_GIVING
    | VERBS_OF_ASKING
)
"""Words a noun phrase before a constraint stops at (not part of it): every class but
the prepositions a name holds (of, by, from, before, after …), the operators and the
document's verbs ("cash **provided** by operating activities" is one name)."""

NAME_MARKS = frozenset({",", "&", "/", "-", "–", "—"})
"""The marks a name may hold between its words ("Property, plant and equipment", "R & D",
"Net profit/(loss)", "Earnings per share—diluted")."""

NAME_EDGES = NAME_MARKS | COORDINATORS | ALL_PREPOSITIONS - {"per"}
"""Words that join a phrase's parts, never its first or last word: a name never starts or
ends with a preposition, a coordinator or a comma ("the cost per operator **to**") — but
a ratio's name may start with "per" ("Per share amounts")."""

CONTEXT_ARTICLES = ARTICLES | POSSESSIVES
"""An article that may stand between a kind of document and its link ("policies with
the limits")."""

CONTEXT_LINKS = word_set("with whose having where")
"""Words that join the kind of document a question names to the quantity it asks about
("umbrella policies **with** limits over $500,000"): a preposition, a clause word and a
form of *have* in that role."""

DETERMINERS = ARTICLES | POSSESSIVES | DEMONSTRATIVES | QUANTIFIERS | PRO_FORMS
"""Words that open a noun phrase: the phrase read backwards stops before one (unless a
preposition stands before it: "proceeds from **the** sale")."""

BOUNDARY_WORDS = (
    COORDINATORS
    | CONJUNCTIONS
    | SUBORDINATORS
    | CLAUSE_WORDS
    | PERSONAL_PRONOUNS
    | COMPARATIVES
    | word_set("as than with without about since")  # prepositions that open a clause
    | BE
    | HAVE
    | DO
    | MODALS
    | NEGATIONS
    | HEDGES
    | PARTICLES
    | VERBS_OF_GIVING
    | VERBS_OF_REPORTING
)
"""Words a noun phrase read backwards never crosses (verbs of reporting, clause words)."""

NP_PREPOSITIONS = ALL_PREPOSITIONS - BOUNDARY_WORDS - {"by"}
"""The prepositions inside a noun phrase — not one that opens a clause, nor the "by" of
an agent ("is secured **by** a debt of"): a determiner after one is inside the phrase
("proceeds from **the** sale"), and a name never ends in one."""

MODIFYING_PREPOSITIONS = word_set("with without")
"""Prepositions whose phrase qualifies the noun before it when both are a verb's subject
("a late cancellation **without** 48 hours' notice is charged at", "a room **with** a
view costs"): the name is the noun's, not the qualifier's."""

PRONOUNS = PERSONAL_PRONOUNS | DEMONSTRATIVES | CLAUSE_WORDS | PRO_FORMS
"""Words that stand for a noun phrase: alone, they name no quantity."""

FORWARD_STOPS = (
    ARTICLES
    | (QUANTIFIERS & {"each", "every"})  # "$500 deductible each claim"
    | NAME_PREPOSITIONS
    | PREPOSITIONS
    | COMPARATIVES
    | OPERATORS
    | COORDINATORS
    | CLAUSE_WORDS
    | BE
    | HAVE
    | MODALS
    | VERBS_OF_TERMS
    | (VERBS_OF_GIVING & {"pays", "paid", "including"})
    | (VERBS_OF_REPORTING & {"included", "compared"})
    | (PARTICLES & {"respectively", "also", "up", "down"})
    | word_set("million billion thousand net")  # a scale word or "net" after the figures
)
"""Words a label read after an amount stops at ("$500 deductible **per** claim")."""

SENTENCE_VERBS = FINITE_BE | FINITE_HAVE | MODALS | (VERBS_OF_GIVING & {"pays", "paid"})
"""Finite verbs: a key holding one is a sentence, not a name ("Base pay" is a name)."""

DEFINITE = (ARTICLES - {"a", "an"}) | POSSESSIVES
"""Words that open a noun phrase and never follow a noun inside one: the word before one
is a verb ("$1,000 deductible reduces the claim")."""

INDEFINITE = ARTICLES - {"the"}
"""An indefinite article may follow a noun phrase as a rate ("$450 premium a year"): the
word before it is a verb only when it reads as one (a present-tense *-s* after a noun)."""

NOT_IN_A_NAME = (
    BE
    | HAVE
    | MODALS
    | CLAUSE_WORDS
    | DEMONSTRATIVES
    | PERSONAL_PRONOUNS
    | VERBS_OF_TERMS
    | (VERBS_OF_GIVING & {"pays", "paid"})
)
"""Words of a sentence or a question, not of a name (a heading holding one is no name)."""
