"""The words that link a noun phrase to its amount, as a document and a question write them.

A figure's name stands before it, joined by a linking word: a verb of being or amounting
("revenue **was** $5.2 million", "premiums **totaled** $450", "a deductible **of**
$500"), a verb of change whose end point is the figure ("revenue **rose to** $5.2
million", "increased 12% **to**"), or, in a question, a comparison's lead-in ("revenue
**is** over $5 million", "a limit **in the range of**", "fees **that are** above",
"revenue **may** exceed"). Both sides take the link off before they read the name; the
two patterns are side by side here, built from the same classes of words
(:mod:`osrag.lexicon.function_words`):

* :data:`STATED_LINK` — a document's link, read back from an amount, with the hedges
  that may stand between it and the figure ("of **approximately**", "to **a record**");
* :data:`ASKED_LINK` — a question's link, read back from a constraint (the comparison
  word itself is the constraint's: "revenue exceeded $5 million").
"""

from __future__ import annotations

import re

from osrag.lexicon.function_words import DO, FINITE_BE, HEDGES, MODALS
from osrag.lexicon.periods import SALE_INTRO, UNIT_ADVERBS, UNIT_WORDS
from osrag.lexicon.words import normalised, singular

__all__ = [
    "AGENT_ENDINGS",
    "ASKED_BOUND",
    "ASKED_COVER_CLAUSE_VERBS",
    "ASKED_COVER_VERBS",
    "ASKED_LINK",
    "ASKED_OWED",
    "ASKED_PAID_EVERY",
    "ASKED_PAYOUT_VERBS",
    "ASKED_PRICED_FOR",
    "ASKED_PRICED_PER",
    "ASKED_PRICED_TO",
    "ASKED_PRICE_CLAUSE_VERBS",
    "ASKED_PRICE_VERBS",
    "ASKED_WHOLE",
    "BILLED_PARTIES",
    "LIGHT_VERBS",
    "LINKS_THAT_ARE_NOUNS",
    "OWED_ALONE",
    "OWED_NAME",
    "PASSIVE_PRICE_VERBS",
    "PAYMENT_PARTICIPLES",
    "RANGE_LINKS",
    "RANGE_OPENING",
    "STATED_LINK",
    "STATED_LINK_ENDS",
    "SUBJECT_PRICE_VERBS",
    "alternation",
    "owed_alone",
]


def alternation(words: frozenset[str] | set[str]) -> str:
    """``words`` as one regex alternation, longest first."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


RANGE_LINKS = frozenset({"to", "through", "thru"})
"""Words between the two ends of a range of amounts ("$149 **to** $289"), besides a dash and
"between … and", on both sides (:mod:`osrag.extract.facts.ranges`,
:mod:`osrag.search.constraint_parser`)."""
RANGE_OPENING = re.compile(r"(?i:(?<![\w])between)\s+\Z")
""""between" right before a range's first end ("**between** $350 and $800"), searched in the
text before it."""

_AMOUNTING = r"totall?ed|totall?ing|amount(?:ed|ing|s)?\s+to|came\s+to|comes?\s+to|stood\s+at"
"""Verbs of amounting to a figure, on both sides ("totaled", "amounted to", "stood at")."""

_BOUNDS = (
    r"up\s+to|over|under|above|below|beyond|(?:(?:not|no)\s+)?(?:more|less|greater)\s+than|"
    r"at\s+least|(?:not\s+)?in\s+excess\s+of|exceeding|not\s+to\s+exceed"
)
"""The bounds a figure may be stated with and no other link ("payments **greater than**
$12,000,000", "balances **over** $200", "custom parts **beyond** $1,500")."""

_STATED_HEDGES = (
    rf"about|some|{_BOUNDS}|just\s+over|just\s+under|at\s+most|"
    r"a\s+(?:maximum|minimum|total|total\s+sum)\s+of|"
    r"an\s+aggregate\s+of|an\s+estimated|a\s+record|the\s+same|the\s+(?:greater|lesser)\s+of|"
    r"currently|presently|initially|from|a|an|of"
)
"""What may stand between a document's link and its figure beside the hedges: a bound
("not less than", "at least", "up to", "in excess of", "a maximum of"), a total ("a total
of"), when the figure holds ("currently", "presently"), an article."""

_BE = (
    rf"(?:(?:{alternation(MODALS)}|to|does|do|did)\s+)?(?:not\s+)?"
    rf"(?:{alternation(FINITE_BE)}|be|been)"
)
"""A verb of being, with its modal or auxiliary and a negation ("shall not be")."""
_STATED_AS = (
    r"(?:\s+(?:not\s+)?(?:(?:[a-z]+ly\s+)?[a-z]+ed|available|payable|due)(?:\s+by\s+[\w'’]+)?"
    r"(?:\s+(?:to(?:\s+be)?|at|from))?)?"
)
"""A participle between a verb of being and the figure: "are **stated to be** less than",
"will be **reduced by us to**", "is **estimated at**", "are **available from**", "is
**expressly limited to**" (an adverb before it)."""

STATED_LINK = re.compile(
    r"(?i)(?:(?:\s|^)|(?=[:,(]))(?P<link>of|as|\(|"
    r"(?P<amount>(?:in|to|for|at)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,2}?(?:amount|sum|value)"
    r"(?:\s+(?:of|equal\s+to))?)|"
    rf"{_BE}{_STATED_AS}|"
    rf"remains?|remained|{_AMOUNTING}|totals?|reached|reaches|stands\s+at|equals?|"
    r"equall?ed\s+to|equal\s+to|"
    r"(?:not\s+to\s+|(?:(?:shall|will|may|must|does|do|did|would)\s+)?(?:not\s+)?)"
    r"exceed(?:s|ed|ing)?|"
    r"(?:limited|capped|valued|priced|set|fixed)\s+(?:to|at)|"
    r"(?:billed|charged|invoiced|quoted)\s+at|"
    r"(?:range[sd]?|ranging|runs?|ran)\s+(?:from|to|between)|"
    r"(?:rose|rises|increased|increases|decreased|decreases|fell|falls|declined|declines|"
    r"grew|grows|climbed|dropped|drops|improved|jumped|reduced|decreasing|increasing|rising|"
    r"falling|growing|declining|was\s+reduced|was\s+increased)"
    r"(?:(?:\s+(?:by\s+)?[^\s,;]+){0,3}?(?<!\bdue)(?<!\bowing)\s+to|\s+from)|:|"
    r",(?:\s*(?:which|that)\s+(?:is|are|was|were|(?:shall|will|would)\s+be))?"
    r"(?=\s*(?:which|that|currently|presently|initially|up\s+to|not\s+to\s+exceed)\b)|"
    rf"(?:(?:valued|priced|worth)\s+)?(?P<bound>{_BOUNDS}))"
    rf"(?P<hedge>(?:\s+(?:{alternation(HEDGES)}|{_STATED_HEDGES}))*)\s*$"
)
"""A document's linking word and its hedges at the end of the text before an amount:
a preposition ("a fee **of**", "the limit **as**"), an opening parenthesis ("total
contribution **(**$14,651,000)"), "**in an amount (equal to)**", "**to the value of**"
(group ``amount``: the generic noun belongs to the link), a verb of being — with a modal,
a negation, a participle — ("revenues **were**", "shall **be**", "are **stated to be**",
"will be **reduced by us to**"), of amounting or exceeding ("**totaled**", "**shall not
exceed**", "**not to exceed**", "**limited to**", "**ranging from**"), a participle of pricing
with no verb of being ("labour **billed at**", "two visits**, charged at**"), of changing
("revenue **increased 12% to**"), a colon, an apposition ("the renewal fee**, which is**
presently", "an administration fee**,** currently"), or nothing but a bound ("payments
**greater than**", "procurements **valued over**": a verb of valuing before it is the
link's, as a question's link reads it), with the hedges and bounds that may stand between
it and the figure ("of **approximately**", "**not less than**")."""

STATED_LINK_ENDS = frozenset(
    {"of", "as", "(", ":", ",", "to", "at", "from", "between", "be", "been"}
    | FINITE_BE
    | HEDGES
    | {"remain", "remains", "remained", "total", "totals", "totaled", "totalled", "totaling"}
    | {"totalling", "reached", "reaches", "equal", "equals", "exceed", "exceeds", "exceeding"}
    | {"amount", "sum", "value", "than", "least", "most", "over", "under", "above", "below"}
    | {"beyond", "about", "some", "record", "same", "currently", "presently", "initially"}
    | {"a", "an", "due", "payable", "available"}
)
"""The last word a document's link and its hedges can end with (with a participle in
*-ed*: "are **covered** up to", "is **estimated**"): text before an amount that ends
otherwise has no link, and :data:`STATED_LINK` is not searched."""

LINKS_THAT_ARE_NOUNS = frozenset({"cost", "costs"})
"""A question's links that are nouns too: after a subject ("policies that **cost** over",
"the plan **costs** over") a link, after another noun the name's head ("rebuild
**cost** over", "finance **costs** over")."""

ASKED_PRICE_VERBS: dict[str, str | None] = {
    "costing": "cost", "priced": "price", "pricing": "price", "worth": "value",
    "valued": "value", "totalling": "total", "totaling": "total", "totalled": "total",
    "totaled": "total", "charging": "charge", "charged": "charge", "billing": "charge",
    "billed": "charge", "invoiced": "charge", "invoicing": "charge", "assessed": "assessed value",
    "quoting": "price", "quoted": "price",
    "asking": None, "requiring": None, "requesting": None, "demanding": None,
    "earning": None, "paying": None, "estimated": "estimate",
}  # fmt: skip
"""A question's verbs that put a price on the thing before them ("movers **charging** over
$150 an hour", "accounts **worth** more than", "bids **asking** for a deposit under"):
what follows the verb is the quantity ("charging **an overdraft fee** above"), and when
nothing does, the figure the verb itself names (its noun: charging → charge, worth →
value; None: a verb that names none, "asking", "earning" and "paying" need
their object: "authors **earning** royalties over"). The words before the
verb name what holds the figure, the kind of document, never the quantity."""

BILLED_PARTIES = frozenset(
    {"client", "customer", "patient", "member", "student", "guest", "tenant", "user",
     "buyer", "consumer", "subscriber", "resident", "homeowner", "family", "parent",
     "household", "shopper", "traveler", "traveller", "borrower", "renter", "passenger"}
)  # fmt: skip
"""The people a verb of pricing bills, in the singular ("lawyers who charge **clients**
over $300 an hour", "clinics billing **patients** more than"): its object, never the thing
priced — the verb's own figure is asked."""

ASKED_PRICE_CLAUSE_VERBS: dict[str, str] = {
    "bill": "charge", "bills": "charge", "charge": "charge", "charges": "charge",
}  # fmt: skip
"""The finite forms of the verbs of billing, read as one of :data:`ASKED_PRICE_VERBS` only
after "that", "which" or "who" ("landscapers **that bill** overtime labor above $70 an
hour" asks the labor's rate, "firms **who charge** over $300 an hour" a charge):
elsewhere the word is the noun ("garage bills with under $300 left to pay", "a late
charge of $25")."""
ASKED_PRICED_FOR = re.compile(
    rf"(?i)(?:\s+(?:{SALE_INTRO}|an?)\s+{UNIT_WORDS})?"
    r"\s+for\s+(?:(?:a|an|the|each|every|one)\s+)?"
)
"""What a question writes after the figure of a verb of pricing to name the thing priced,
introduced by "for", after the unit of the price or none ("funeral homes charging under
$1,000 **for** embalming", "auto shops charging $150 **an hour for** labor", "labs charging
$22 **a sample for** routine analysis"): the noun phrase after it is the thing priced."""
ASKED_PRICED_TO = re.compile(
    rf"(?i)(?:\s+(?:{SALE_INTRO}|an?)\s+{UNIT_WORDS})?"
    r"\s+to\s+(?P<verb>[a-z]{2,})\s+(?:of\s+)?(?:(?:a|an|the|each|every|one|your|my|our)\s+)?"
)
"""What a question writes after the figure of a verb of pricing to name the work priced,
as a verb and its object ("tailors charging more than $80 **to bustle** a wedding dress",
"installers charging under $5 a square foot **to lay** the floor", "haulers charging $35
or less **to dispose of** an appliance"): the verb names the work (a price list's "Bustle",
"Disposal"), its object what the work is done to. Group ``verb``."""
LIGHT_VERBS = frozenset({"be", "have", "get", "do", "make", "pay", "go", "take", "keep"})
"""Verbs that name no work of their own after "to" ("charging $80 **to do** a hem",
"**to get** a car valeted"): their object alone is the thing priced."""
ASKED_PRICED_PER = re.compile(rf"(?i)\s+{SALE_INTRO}\s+")
"""What a question writes after the figure of a verb of pricing to name the thing priced
one by one ("engineers charging over $400 **per** site visit", "preparers charging $60
**per** additional state return"): the noun phrase after it is the thing priced, when it is
more than a unit alone ("per hour", "per page" say only how the price is counted)."""

ASKED_WHOLE = re.compile(r"(?i)\s*,?\s*(?:in\s+total|in\s+all|all\s+told|altogether)\b")
"""What a question writes right after a constraint to say the figure is a whole: "endorsement
agreements paying more than $400,000 **in total**", "sponsorship agreements worth over
$50,000 **all told**" — the total of what the kind before the verb pays, costs or is worth."""

ASKED_OWED = re.compile(
    r"(?i)\s+(?:(?:is|are|remains?)\s+)?"
    r"(?:(?:left|still)\s+(?:to\s+pay|due|owed|owing|outstanding|unpaid)|"
    r"to\s+pay|outstanding|unpaid|remaining|(?:still\s+)?owing|owed|due(?=\s*(?:[,;.?!)]|\Z)))(?![\w-])"
)
"""What a question writes right after a constraint to say the figure is what is left to
pay ("invoices with less than $400 **left to pay**", "bills with under £250 **to pay**",
"€500 **still due**", "$1,200 **outstanding**", "$100 **is still owed**", "$300
**remaining**", and "due" alone where the phrase ends:
"statements with more than $900 **due**"): the balance due of a bill, whatever its label
calls it. "Due" before an occasion or a time ("$5,000 due on signing", "due at booking",
"due by 1 May") is when an instalment falls due, not what is left."""
OWED_NAME = "balance due"
"""The name :data:`ASKED_OWED` and :data:`OWED_ALONE` ask (the invoices profile's total due,
by any of its names; asked by its own words where no profile in use names it)."""
OWED_ALONE = frozenset({"balance"})
"""A question's name that, alone, is what is left to pay ("invoices with a **balance** under
$2,000", "a balance of $600 to $700"): bound as :data:`OWED_NAME`, asked by the names of
what is left to pay that say the word ("Balance due", "Balance owing", "New balance") and
as written. One way only — a question naming the total due never asks a bare "Balance" (a
bank's or a ledger's)."""


def owed_alone(name: str | None) -> str | None:
    """The word of :data:`OWED_ALONE` a question's ``name`` is, alone ("Balance",
    "balances" → "balance"); None for any other name."""
    word = singular(normalised(name)) if name is not None else None
    return word if word in OWED_ALONE else None


SUBJECT_PRICE_VERBS = frozenset({"costing", "priced", "valued", "worth", "estimated"})
"""The verbs of :data:`ASKED_PRICE_VERBS` that put a price on their subject, not on an
object: "dental crowns **costing** more than", "treatment **priced** at" price the crowns
and the treatment, where "movers **charging**" names who charges. A subject that is no
document noun is the thing priced, and the question's name."""

PASSIVE_PRICE_VERBS = frozenset({"billed", "charged", "quoted", "invoiced"})
"""The verbs of :data:`ASKED_PRICE_VERBS` that, as a passive participle, price their subject
("**repairs billed** at $85 an hour", "**design work quoted** at under $90", "**extra
gallons charged** at") — unless the subject names who does the work ("movers billed at":
:data:`AGENT_ENDINGS`) or who pays (:data:`BILLED_PARTIES`): then the verb's own figure, a
charge, is asked."""
PAYMENT_PARTICIPLES = frozenset({"paid", "required", "held", "collected"})
"""Participles that say a share of a price is owed or kept ("a 30% deposit is **required**",
"a 10% retainage is **held**"): with *due*, *payable* and the verbs of
:data:`PASSIVE_PRICE_VERBS`, the figure a parenthesis then gives is the share's."""
AGENT_ENDINGS = ("ers", "ors", "ists", "ians")
"""The endings of the plural nouns that name who does a trade's work ("movers", "tailors",
"florists", "electricians"): the holder of a price, never the thing priced."""

ASKED_PAID_EVERY = re.compile(
    r"(?i)\s+(?P<verb>paid|billed|charged|payable|renewed)\s+"
    rf"(?P<adverb>{'|'.join(sorted(w for w in UNIT_ADVERBS if w.endswith('ly')))})"
    r"(?:\s+(?:for|at))?\s*\Z"
)
"""A participle of paying with an adverb of its period before a constraint ("RV storage
**paid annually for** less than", "a gym **billed monthly at** under"): the words before it
are the thing paid for, the adverb how often (group ``adverb``)."""

ASKED_COVER_VERBS = frozenset({"covering", "insuring"})
"""A question's verbs that say what a plan pays out ("warranties **covering** heating and
cooling up to $2,500", "plans **insuring** baggage over"): the figure is a limit — of the
verb's object when one follows ("heating and cooling" → its limit), else the plan's own.
The words before the verb name what holds the figure."""
ASKED_COVER_CLAUSE_VERBS = frozenset({"cover", "covers", "insure", "insures"})
"""The finite forms of the verbs of cover, read as one only after "that" or "which"
("tenant protection **that covers** at least $5,000"): elsewhere "cover" is the noun
("travel medical **cover** of at least")."""
ASKED_PAYOUT_VERBS = frozenset({"pay", "pays", "paying"})
"""A question's verbs of paying out: after the name of a cover ("breakdown cover **paying**
at least £750 per repair"), with no object, the figure is that cover's limit; after
anything else ("policies that pay over", "jobs paying over") they name none."""

ASKED_BOUND = re.compile(r"(?i)(?:\s+|^)(?P<verb>capped|limited|restricted)(?:\s+(?:at|to))?\s*\Z")
"""A question's link that makes the figure a bound of the name before it: "liability
**capped at** $500,000" asks for the liability's cap, "damages **limited to**" their limit
(group ``verb``: capped → a cap, limited or restricted → a limit)."""

ASKED_LINK = re.compile(
    r"(?:\s+|^)(?:of|"
    rf"{alternation(FINITE_BE)}|be|been|at|equal(?:s|led|ed)?(?:\s+to)?|"
    rf"{_AMOUNTING}|reach(?:ed|ing)?|worth|valued(?:\s+at)?|priced(?:\s+at)?|"
    r"in\s+the\s+range(?:\s+of|\s+from)?|"
    rf"ranging(?:\s+from)?|(?:that|which)(?:\s+(?:{alternation(FINITE_BE)}))?|"
    rf"{alternation(LINKS_THAT_ARE_NOUNS)}|"
    rf"{alternation(MODALS | DO)})\s*\Z|\s*[:=]\s*\Z",
    re.IGNORECASE,
)
"""A question's linking word (or two) at the end of the text before a constraint — a
modal or an auxiliary too ("revenue **may** exceed", "fees **will** be over")."""
