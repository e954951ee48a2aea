"""What an amount in a sentence measures: the noun phrase the sentence states it of.

The quantity a figure in running text is the value of is a noun phrase of its sentence,
and the sentence's structure says which one. The reader looks, in this order:

1. **A defined term** right after the amount: "$350,000.00 **(the "Loan")**", "at least
   $250,000 in each contract year **(the "Minimum Annual Purchase Commitment")**" — on
   the amount's line or on the next one when the sentence wraps onto it
   (:func:`~osrag.extract.facts.defined.defined_term`).
2. **Before the amount, through its link** (:data:`osrag.lexicon.links.STATED_LINK`): a
   preposition ("a fee **of** $750", "the limit **as** $300,000"), a verb of being,
   amounting or changing ("revenue **was**", "expenses **shall not exceed**", "revenue
   **rose 4% to**"), an apposition ("the renewal fee**, which is presently** $1,000",
   "an administration fee**, currently** $750", "a total contribution **(**$14,651,000)"),
   "**equal to**", "**in an amount not less than**", or a bound alone ("payments
   **greater than** $12,000,000", "balances **over** $200"), with the hedges between the
   link and the figure. The name is the noun phrase that ends where the link starts:

   * read back word by word (:func:`_phrase_back`): a phrase is a run of words that are
     no function word and no verb (a word after *to*, a modal, *not*, a pronoun or a form
     of *be* is one: "agrees to **commit** funding"), with *and*, *or*, a list's commas
     ("Selling, general and administrative expense"), a short parenthesis ("Net
     profit/(loss)") and a trailing ", net" inside it;
   * through a preposition to the phrase before it — the phrases of a chain: "the Initial
     Fee **for** the first restaurant", "Revenue **attributed to** the United States",
     "Net cash **provided by** operating activities", "deposits **held as** collateral",
     an adjective that follows its noun as a participle does ("the balance **due upon**
     maturity", "the fee **payable on** signing");
   * for a verb or a bound, its subject: past a parenthetical set off by commas
     ("Underlying operating profit**, the measure the Board uses …,** increased to"), to a
     relative pronoun's antecedent ("the renewal fee**, which** is"), past a parenthesis
     ("Development Fee **(the "Development Fee")** equal to"), a time phrase ("Net sales
     **for fiscal 2023** were", "the Revolving Commitments **on the Closing Date** is"),
     a passive's agent ("the costs of services **to be performed by the Contractor** do
     not exceed" → ``costs of services``), a present participle's object ("property
     insurance **covering the building** in an amount of" → ``property insurance``), and a
     participle left without its complement ("the Term A Loans **made**");
   * for the preposition *of*, the phrase right before it ("the release of a **valuation
     allowance** of $18 million"), with the change it is the object of ("an **increase
     in** net sales of").

   The label is then read forward from the chain's first phrase, which is its head: it
   keeps the complements that join by a preposition of
   :data:`~osrag.lexicon.label_roles.JOINING_PREPOSITIONS` or a participle while the name
   stays at most :data:`_NAME_WORDS` words ("the Initial Fee for the first restaurant
   developed under a Development Agreement" → ``Initial Fee for the first restaurant``;
   "Your total expenditures during the term …" → ``total expenditures``); a participle's
   clause is kept whole or not at all, and a preposition made of a noun ("in **respect**
   of", "on **behalf** of") whole or not at all. A share's figure in parentheses is named
   as the share is, not as what it is a share of: "Travel costs may not exceed 15% of the
   award **($3,000)**" → ``Travel costs``. A head that is only *an amount*
   (:data:`~osrag.lexicon.label_roles.EMPTY_HEADS`) is read through its *of*: "the
   aggregate amount of the Revolving Commitments" → ``aggregate Revolving Commitments``;
   alone ("the sum of $X", "a total of $X") it names nothing here. A limit joined by *with*
   names its coverage's figure: "Employer's liability insurance **with limits** not less
   than" → ``Employer's liability insurance``. A coverage the name says it includes, set
   off right after it, stays in the label: "liability insurance **(including product
   liability coverage)**" (its keys are the included coverage's too). A possessor is
   left out when it names a party ("**the Company's** outstanding stock",
   "**Consultant's** Base Consulting Fee"), kept when it is part of a name
   ("**employer's** liability insurance"). A time qualifier that leads the name is no
   word of it: "the **then-current** renewal fee" → ``renewal fee`` (the fee in force
   when it falls due; "current" alone stays, "current liabilities" are a line of their
   own).

3. **A change**: an amount right after a verb of change is the change — "Net cash
   provided by operating activities **increased** $224 million" → ``increase in Net cash
   provided by operating activities`` (:data:`~osrag.lexicon.label_roles.CHANGE_VERBS`).
4. **After the amount**: a noun phrase right after it ("the $20,000 **Development Fee**",
   "a $572 million **decrease in Blizzard net bookings**"), or after *in* / *of* ("$5.2
   million **in revenue**", "$60 million **of proceeds** received from …"), up to a verb,
   an adverb, a participle (one in *-ing* before its complement: "$2,000,000 annual
   aggregate **providing:**") or a function word.
5. **A list's item** a colon or a parenthesis opens ("Special limits: jewelry theft
   $2,500, firearms $2,500", "(total funding $6,270,000"): the name right before the
   amount, its group the words before the colon when they are a name.
6. **A known quantity right before the amount**, with no link between: "estimated
   **freight** $275.00" → ``estimated freight`` — when the word before the amount is a
   quantity noun of a profile in use (:func:`~osrag.lexicon.quantities.is_quantity_noun`)
   and not one read as a verb that takes the amount ("Tickets **cost** $5").
7. **A defined term later in the sentence** that names a quantity, when nothing above
   names the amount: "Zynga will pay WPT three million U.S. dollars ($3,000,000) per year
   according to the following schedule (…) **(the "Annual Minimum Guarantee")**" — no
   other amount and no end of the clause between
   (:func:`~osrag.extract.facts.defined.defined_later` states when).

A sentence written in capitals (a contract's conspicuous clause: "IN NO EVENT SHALL THE
TOTAL LIABILITY OF SUPPLIER EXCEED $250,000") is read in lower case: its capitals say
nothing of names and verbs. The later alternative of "the lesser (greater) of" is named
as the figure the alternatives are of: "liability is limited to the lesser of: the fees
paid …; or $500,000" → ``liability limit``. An adverb of reference after a name
("hereunder", "thereof") is no word of it.

8. **A whole, named no other way**: the head that states a figure as the whole a party
   pays, alone right before it (:data:`~osrag.lexicon.label_roles.WHOLE_HEADS`: "Licensee
   shall pay to the Licensor **the sum of** $480,000", "**the aggregate sum of**"), is the
   total of what its sentence pays: ``total``, as a document's "Total" is — when nothing
   above names it and no unit follows ("the sum of $500 **per month**" is a payment that
   recurs, no whole). "a total of $X" stays a hedge (it sums the figures just before it).

No label where none of these holds: an amount that is the object of a verb ("XC agrees
to pay to AJR $10,000"; the recipient before a bound is no name either: "shall provide
**to the Borrower** up to $X"), an amount *for* something ("offers to acquire Qualigen for
$50,000,000"), the unit of a rate ("rated **per** $1,000 of receipts"), a predicate ("rent
**remains unpaid**, not to exceed"), a participle with its adverb ("**currently
estimated** to be valued at"), a parenthesis that opens with a verb form or a preposition
("**(exceeding** $500)", "**(except** up to $10,000"), a pronoun, an amount alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from osrag.extract.facts.defined import defined_later, defined_term
from osrag.extract.facts.labels import clean_label
from osrag.extract.marks import LIST_BULLET, SHARE
from osrag.lexicon.function_words import (
    ALL_PREPOSITIONS,
    BE,
    BOUNDARY_WORDS,
    CARDINALS,
    CLAUSE_WORDS,
    COORDINATORS,
    DEMONSTRATIVES,
    DETERMINERS,
    EXCEPTIVES,
    FORWARD_STOPS,
    HAVE,
    HEDGES,
    INDEFINITE,
    LINKING_VERBS,
    MODALS,
    MODIFYING_PREPOSITIONS,
    NEGATIONS,
    NOT_PARTICIPLES,
    PAST_PARTICIPLES,
    PERSONAL_PRONOUNS,
    PREDICATIVES,
    PREPOSITION_NOUNS,
    PRONOUNS,
    RELATIVE_PRONOUNS,
    TO_AS_PREPOSITION,
    VERBS_OF_ASKING,
    VERBS_OF_CONSISTING,
    VERBS_OF_FORECASTING,
    VERBS_OF_TERMS,
)
from osrag.lexicon.keys import GROUP_JOIN
from osrag.lexicon.label_roles import (
    CHANGE_VERBS,
    CHANGES,
    EMPTY_HEADS,
    FIGURE_WORDS,
    GENERIC_HEADS,
    JOINING_PREPOSITIONS,
    QUANTIFYING,
    WHOLE_HEADS,
    WHOLE_LEADS,
)
from osrag.lexicon.links import (
    PASSIVE_PRICE_VERBS,
    PAYMENT_PARTICIPLES,
    STATED_LINK,
    STATED_LINK_ENDS,
    alternation,
)
from osrag.lexicon.periods import (
    MONTH_NAME,
    PERIOD_UNITS,
    RATE_INTRO,
    RATE_WORDS,
    STATED_PERIOD,
    UNIT_ADVERBS,
    is_period_words,
)
from osrag.lexicon.quantities import is_quantity_noun
from osrag.lexicon.words import POSSESSIVE_END, singular

__all__ = ["prose_label"]

_NAME_WORDS = 8
"""The most words (determiners aside) a label read from prose keeps: its complements are
kept while the name stays this short."""
_REACH = 240
"""The end of the clause (characters) a phrase and its link are read from."""
_LINK_REACH = 52
"""How far before the amount (characters) its link and hedges may start ("will be reduced
by us to", "increased 12.5% to approximately")."""
_CORE_WORDS = 7
"""The most words of a phrase's run (its coordinators aside)."""
_SHORT_REACH = 48
"""The end of the text before a link (characters) read first."""
_PHRASE_REACH = 140
"""The end of the text before a link (characters) its phrase is read from."""
_READS = (_SHORT_REACH, _PHRASE_REACH, _REACH)
"""The reads of :func:`_read_back`, each when the one before cut the chain."""


class _Token(NamedTuple):
    """A word, a figure or a mark: its text, lower-cased text, ``[start, end)`` in the
    text read, and its kind (:data:`_WORD`, :data:`_FIGURE`, :data:`_MARK`). A tuple: the
    reader makes one for every token before an amount, on the ingest's hot path."""

    text: str
    low: str
    start: int
    end: int
    kind: int


_WORD, _FIGURE, _MARK = 1, 2, 3
_TOKEN = re.compile(
    r"([^\W\d_][\w'’&]*(?:[.\-/][\w'’&]+)*(?:(?<=\.[^\W\d_])\.)?)"
    r"|([$€£¥₹]?\d[\d,.]*(?:%|st|nd|rd|th)?)"
    r"|([^\w\s])"
)
"""A word (its inner marks kept: "U.S.", "non-refundable", "M&P"), a figure, or one
mark."""
_new = tuple.__new__


def _tokens(text: str, start: int = 0) -> list[_Token]:
    """The tokens of ``text[start:]``, their offsets into ``text``."""
    return [
        _new(_Token, (g, g.lower(), m.start(), m.end(), m.lastindex))
        for m in _TOKEN.finditer(text, start)
        for g in (m.group(),)
    ]


_NOT_A_NAME_WORD = (
    BOUNDARY_WORDS
    | ALL_PREPOSITIONS
    | DETERMINERS
    | PRONOUNS
    | CARDINALS
    | PREDICATIVES
    | (FORWARD_STOPS - {"net"})  # the scale words after a figure, "each", "every"
    | VERBS_OF_ASKING
    | VERBS_OF_CONSISTING
    | VERBS_OF_FORECASTING
    | VERBS_OF_TERMS
    | NEGATIONS
    | EXCEPTIVES
    | frozenset(w for w in CHANGE_VERBS if w.endswith("ed") or w in ("rose", "fell", "grew"))
)
"""Words never in a name read back from an amount: function words, counts, scale words,
the verbs a figure is stated with, the past tense of the verbs of change (their nouns —
"an increase of" — are names)."""
_VERB_BEFORE = MODALS | NEGATIONS | PERSONAL_PRONOUNS | BE | HAVE | frozenset({"to"})
"""A lower-case word right after one of these is a verb ("to **commit**", "shall
**pay**", "we **identified**", "be **granted**"), unless it ends in a plural's *s*
("payments to **others**")."""
_TEMPORAL_END = re.compile(
    rf"(?i)\b(?:(?:19|20)\d\d|years?|quarters?|periods?|months?|days?|weeks?|q[1-4]|"
    rf"fiscal|fy\s?\d\d(?:\d\d)?|f\d\d|{MONTH_NAME}|dates?)$"
)
"""A name ending in a time word names a period, not a quantity."""


def _possessor(token: _Token) -> bool:
    low = token.low
    return (
        token.kind == _WORD
        and low.endswith(("'s", "’s", "s'", "s’"))
        and low[:-2] not in PERSONAL_PRONOUNS  # "it's", "that's": no possessor
        and low[:-2] not in CLAUSE_WORDS
    )


_ENDINGS = frozenset({"'s", "’s", "s'", "s’"})
_ADVERB = ("ally", "arily", "ently", "antly", "ously", "ively", "ately", "fully", "lessly",
           "edly", "ingly", "ibly", "ably", "ely", "tly", "hly", "nly")  # fmt: skip
"""The endings of an adverb of manner or degree ("primarily", "substantially",
"previously"): never a name's word (unlike "supply", "family", "monthly")."""


def _adverb(token: _Token) -> bool:
    """An adverb of manner or degree (:data:`_ADVERB`)."""
    return token.kind == _WORD and token.low.endswith(_ADVERB) and token.low not in UNIT_ADVERBS


def _participle(token: _Token) -> bool:
    """A past participle: after a noun and before its complement it opens a clause that
    narrows the noun ("Revenue **attributed** to", "costs **incurred** by")."""
    low = token.low
    return token.kind == _WORD and (
        (low.endswith("ed") and len(low) > 4 and low not in NOT_PARTICIPLES)
        or low in PAST_PARTICIPLES
    )


def _caps(token: _Token) -> bool:
    return token.kind == _WORD and len(token.text) > 1 and token.text.isupper()


def _name_word(tokens: list[_Token], i: int) -> bool:
    """``tokens[i]`` can be a word of a noun phrase."""
    token = tokens[i]
    if token.kind != _WORD or token.low in COORDINATORS or token.low[-2:] in _ENDINGS:
        return False  # a coordinator, a possessor, a contraction ("it's", "that's")
    if (
        i > 0
        and tokens[i - 1].low in _SINGULAR_DEMONSTRATIVES
        and token.text[:1].islower()
        and token.low.endswith("s")
        and not token.low.endswith(("ss", "us", "is"))
    ):
        return False  # "this amounts to", "that reflects": a verb (no plural after "this")
    if len(token.text) == 1 or token.low in _NOT_A_NAME_WORD:
        # a capital letter inside a name: "Term A Loans", "Class B shares"; any other
        # letter alone is an enumerator ("c.") or an article
        return token.text.isupper() and 0 < i < len(tokens) - 1 and _title(tokens[i - 1])
    if token.low.endswith(_ADVERB) and token.low not in UNIT_ADVERBS:
        return False
    if i > 0 and token.text[:1].islower():
        previous = tokens[i - 1].low
        if previous in _VERB_BEFORE or (
            # "shall obtain and maintain": a verb coordinated with a verb
            previous in COORDINATORS and i > 2 and tokens[i - 3].low in _VERB_BEFORE
        ):
            if (
                previous == "to"
                and i > 1
                and (_participle(tokens[i - 2]) or tokens[i - 2].low in TO_AS_PREPOSITION)
            ):
                return True  # "compared to gross profit", "due to higher sales"
            # after "to", a plural is a noun ("payments to others")
            return previous == "to" and token.low.endswith("s") and not token.low.endswith("ss")
    return True


_SINGULAR_DEMONSTRATIVES = DEMONSTRATIVES - {"these", "those"}
"""*this*: a word in *-s* after it is a verb, not a plural noun (*that* may open a clause:
"that **decreases** in benefits may be recognized")."""


def _title(token: _Token) -> bool:
    return token.kind == _WORD and token.text[:1].isupper()


def _possessor_in_name(tokens: list[_Token], i: int) -> bool:
    """A possessor that is part of a name — a common noun ("**employer's** liability
    insurance", "workers compensation/**employer's** liability") — not a party's ("**the
    Company's** outstanding stock", "**Dynamic Hearing's** aggregate liability",
    "**Consultant's** Base Consulting Fee", "**AJR's** liability")."""
    token = tokens[i]
    if not _possessor(token) or any(ch.isupper() for ch in token.text[1:]):
        return False
    if i + 1 < len(tokens) and tokens[i + 1].text[:1].isupper():
        return False
    previous = tokens[i - 1] if i > 0 else None
    return previous is None or not (
        previous.low in DETERMINERS or (previous.kind == _WORD and previous.text[:1].isupper())
    )


_CLOSING = {")": "(", "]": "[", "”": "“", '"': '"'}


def _skip_group(tokens: list[_Token], i: int, reach: int = 24) -> int:
    """Before a parenthesis or quotation closed at ``tokens[i]``: the index before its
    opening, or ``i`` when it does not open within ``reach`` tokens (or holds an
    amount)."""
    opening = _CLOSING[tokens[i].text]
    for j in range(i - 1, max(-1, i - reach), -1):
        if tokens[j].text == opening:
            return j - 1
        if tokens[j].text[:1] in "$€£¥₹" or tokens[j].text in (";", ":"):
            return i
    return i


def _core_back(tokens: list[_Token], end: int) -> int:
    """The first token of the run of a phrase's words ending before ``end`` — ``end`` when
    the run is longer than :data:`_CORE_WORDS` words (no name runs so long without a
    function word: a heading or a list run into the sentence)."""
    i = end - 1
    coordinated = False
    words = 0
    while i >= 0:
        token = tokens[i]
        if _name_word(tokens, i):
            words += 1
            if words > _CORE_WORDS:
                return end
            if (
                i > 0
                and _caps(token)
                and _caps(tokens[i - 1])
                and not all(_caps(t) for t in tokens[i + 1 : end] if t.kind == _WORD)
            ):
                break  # "NET SALES Net sales": a heading run into the sentence
            i -= 1
            continue
        if token.low in COORDINATORS and 0 < i < end - 1 and _name_word(tokens, i - 1):
            coordinated = True  # "fees and costs", "bodily injury and property damage"
            i -= 1
            continue
        if (
            token.text == ","
            and i > 0
            and _name_word(tokens, i - 1)
            and (coordinated or (i + 2 == end and tokens[i + 1].low == "net"))
        ):
            i -= 1  # a list's comma ("Selling, general and administrative"), ", net"
            continue
        if token.text == ")" and i + 1 < end:
            skipped = _skip_group(tokens, i, reach=5)
            if skipped != i and skipped >= 0 and _name_word(tokens, skipped):
                i = skipped  # "Net profit/(loss) after tax", "Net income (loss)"
                continue
        if _possessor_in_name(tokens, i):
            return i  # a possessor starts the phrase
        break
    if coordinated and i > 0 and token.low in ALL_PREPOSITIONS and tokens[i - 1].kind == _FIGURE:
        # "$100,000 per occurrence and medical payments are": the rate's unit ends the
        # clause before; the phrase starts after the coordinator
        for j in range(end - 2, i, -1):
            if tokens[j].low in COORDINATORS:
                return j + 1
    return i + 1


@dataclass(slots=True)
class _Piece:
    """One noun phrase of a chain read back, and the joint before it that joins it to the
    piece before: a preposition, or a participle and its preposition."""

    start: int  # token index of its first word
    end: int  # token index after its last word
    joint: int = -1  # token index where the joint starts (-1: the chain's first piece)
    joint_words: int = 0  # words of the joint (its determiners not counted)
    kept: bool = True  # the joint is one a label keeps (a joining preposition, a participle)
    clause: bool = False  # the joint is a participle: its clause is kept whole or not at all


def _phrase_back(tokens: list[_Token], end: int, subject: bool) -> list[_Piece]:
    """The chain of noun phrases ending before ``tokens[end]``, first piece first (module
    docstring); empty when none ends there. ``subject``: the phrase is a verb's subject
    (a parenthetical, a relative pronoun may stand between, and every preposition joins);
    else the object of *of* (the chain joins only a change to its object, and a
    participle's clause)."""
    i = end - 1
    while i >= 0 and tokens[i].text in _CLOSING:
        skipped = _skip_group(tokens, i)
        if skipped == i:
            break
        i = skipped
    while subject and i >= 1 and _PRONOMINAL_ADVERB.fullmatch(tokens[i].low):
        i -= 1  # "the maximum liability hereunder is": the adverb is no word of the name
    if subject and i >= 1 and tokens[i].low in RELATIVE_PRONOUNS and tokens[i - 1].text == ",":
        i -= 2  # "the renewal fee, which is": the antecedent
    if subject and i >= 0 and tokens[i].text == ",":
        opened = _before_parenthetical(tokens, i)
        i = opened if opened != i else i - 1
    if i >= 1 and tokens[i].low in PERSONAL_PRONOUNS and tokens[i - 1].low in ("to", "for"):
        i -= 2  # "an aggregate cost to You of": the payer, not the name
    end = i + 1
    if subject and i >= 1 and _participle(tokens[i]) and _name_word(tokens, i - 1):
        i -= 1  # "options exercised (during …)": a participle that lost its complement
    start = _core_back(tokens, i + 1)
    if start > i:
        return []
    if start > 0 and (
        tokens[start - 1].low in LINKING_VERBS
        or (start == i and _participle(tokens[i]) and _adverb(tokens[start - 1]))
    ):
        # "rent remains unpaid, not to exceed", "currently estimated to be valued at": a
        # predicate, a participle with its adverb — a verb's words, no name
        return []
    pieces = [_Piece(start, end if start <= i else i + 1)]
    while len(pieces) < 6:
        joined = _joint_back(tokens, pieces[0].start, subject)
        qualified = _qualified_back(tokens, pieces[0].start) if joined is None and subject else 0
        if qualified:
            # "a late cancellation without 48 hours' notice is charged at": the subject's
            # name is the noun the qualifier follows
            pieces = [_Piece(_core_back(tokens, qualified), qualified)]
            continue
        if joined is None:
            break
        joint, words, outer_end, kept, clause = joined
        outer_start = _core_back(tokens, outer_end)
        if outer_start >= outer_end:
            break
        outer_head = singular(tokens[outer_end - 1].low)
        if not (subject or clause or tokens[joint].low in _NAME_STAGES) and (
            outer_head not in CHANGES and outer_head not in GENERIC_HEADS
        ):
            break  # "the release of a valuation allowance of": the allowance
        first = pieces[0]
        first.joint, first.joint_words, first.kept, first.clause = joint, words, kept, clause
        pieces.insert(0, _Piece(outer_start, outer_end))
    return pieces


def _qualified_back(tokens: list[_Token], start: int) -> int:
    """The end of the noun phrase a qualifier (*with*, *without* and its phrase) follows
    before ``tokens[start]`` — a count and a determiner may open the qualifier's phrase
    ("without **48** hours' notice") —; 0 when none does."""
    j = start - 1
    while j >= 0 and (tokens[j].low in DETERMINERS or tokens[j].kind == _FIGURE):
        j -= 1
    if j < 1 or tokens[j].low not in MODIFYING_PREPOSITIONS or not _name_word(tokens, j - 1):
        return 0
    return j if _core_back(tokens, j) < j else 0


_PRONOMINAL_ADVERB = re.compile(
    r"(?:here|there)(?:under|of|in|to|by|after|with|from|for|upon|at|unto)"
)
"""A contract's adverb of reference ("hereunder", "thereof"): it may follow a name."""

_POSTPOSITIVES = frozenset({"due", "payable", "owing", "outstanding"})
"""Adjectives that follow their noun and take a complement as a participle does ("the
balance **due on** closing", "the fee **payable upon** signing")."""

_NAME_STAGES = frozenset({"before", "after"})
"""Prepositions that make a line of a statement out of a name, for a figure *of* it too
("income **before** income tax expense of $88,848", "profit **after** tax of")."""

_PARENTHETICAL_OPENERS = (
    frozenset({"including", "excluding", "together", "being", "net", "plus", "as", "in"})
    | DETERMINERS
    | RELATIVE_PRONOUNS
)
"""The first words of a parenthetical set off by commas ("…profit, **the** measure …,",
"…coverage, **including** products liability,")."""


def _before_parenthetical(tokens: list[_Token], comma: int) -> int:
    """The index before the comma that opens the parenthetical closed at ``comma`` — the
    nearest one a parenthetical's first word follows, else the nearest — when a phrase's
    word stands before it; else ``comma`` itself."""
    nearest = None
    for j in range(comma - 1, max(-1, comma - 30), -1):
        token = tokens[j]
        if token.text[:1] in "$€£¥₹" or token.text in (";", ":"):
            break
        if token.text in (",", "(") and j > 0 and _name_word(tokens, j - 1):
            if j + 1 < comma and tokens[j + 1].low in _PARENTHETICAL_OPENERS:
                return j - 1
            nearest = j - 1 if nearest is None else nearest
    return comma if nearest is None else nearest


def _joint_back(
    tokens: list[_Token], start: int, subject: bool
) -> tuple[int, int, int, bool, bool] | None:
    """A preposition (or a participle and its preposition) joining the phrase at
    ``start`` to a phrase before it: ``(the joint's first token, its words, the end of
    the phrase before, a label keeps it, a participle)``, or None."""
    j = start - 1
    while j >= 0 and tokens[j].low in DETERMINERS:
        j -= 1
    if j < 1 or tokens[j].low not in ALL_PREPOSITIONS:
        return None
    preposition = tokens[j].low
    k = j - 1
    if (
        (_participle(tokens[k]) or tokens[k].low in _POSTPOSITIVES)
        and k > 0
        and _name_word(tokens, k - 1)
    ):
        return k, 2, k, True, True  # "Revenue attributed to", "deposits held as"
    joins = preposition in JOINING_PREPOSITIONS
    if not (joins or subject) or preposition in BOUNDARY_WORDS or preposition == "by":
        return None  # an agent ("secured by"), a clause ("as", "than", "with")
    if tokens[k].text == ")":  # "insurance (including product liability coverage) for"
        skipped = _skip_group(tokens, k)
        if skipped != k and skipped >= 0 and _name_word(tokens, skipped):
            return j, 1, skipped + 1, joins, False
    if _name_word(tokens, k):
        return j, 1, k + 1, joins, False
    return None


def _words(tokens: list[_Token], piece: _Piece) -> list[_Token]:
    return [t for t in tokens[piece.start : piece.end] if t.kind == _WORD]


def _head(tokens: list[_Token], piece: _Piece) -> str:
    return singular(tokens[piece.end - 1].low)


def _label_from(before: str, tokens: list[_Token], pieces: list[_Piece]) -> str | None:
    """The label a chain of phrases names, read forward (module docstring)."""
    while len(pieces) > 1 and _TEMPORAL_END.search(tokens[pieces[-1].end - 1].text):
        pieces = pieces[:-1]  # "purchases in a contract year": the year is no part of it
    first, rest = pieces[0], pieces[1:]
    words = _words(tokens, first)
    if not words:
        return None
    if _head(tokens, first) in EMPTY_HEADS:
        # "the aggregate amount of the Revolving Commitments": the revolving commitments
        quantifying = all(w.low in QUANTIFYING for w in words[:-1])
        if quantifying and rest and tokens[rest[0].joint].low == "of" and not rest[0].clause:
            inner = rest[0]
            modifiers = [w.text for w in words[:-1]]
            inner_text = before[tokens[inner.start].start : tokens[inner.end - 1].end]
            name = " ".join([*modifiers, inner_text])
            count = len(modifiers) + len(_words(tokens, inner))
            return _finish(name, count, rest[1:], before, tokens)
        if not (rest and rest[0].kept) and all(
            singular(w.low) in QUANTIFYING | EMPTY_HEADS for w in words
        ):
            return None  # "the sum of $X", "a total of $X": no name (a whole, at most)
    name = before[tokens[first.start].start : tokens[first.end - 1].end]
    included = _inclusion(tokens, first.end, before)
    if included is not None:
        name = f"{name} ({included})"
    if first.start and tokens[first.start - 1].low == "then" and len(words) > 1:
        name = f"then {name}"  # "the then applicable rate": read as "then-applicable"
    return _finish(name, len(words), rest, before, tokens)


def _inclusion(tokens: list[_Token], at: int, before: str) -> str | None:
    """The coverage a name says it includes, set off right after it ("insurance
    **(including product liability coverage)**", "insurance**, including product
    liability coverage,** with limits"): ``including product liability coverage``, kept
    in the label in parentheses (its keys, :func:`~osrag.lexicon.keys.label_keys`); None
    when none stands there or it is no short run of a name's words."""
    if (
        at + 2 >= len(tokens)
        or tokens[at].text not in ("(", ",")
        or tokens[at + 1].low != "including"
    ):
        return None
    closing = ")" if tokens[at].text == "(" else ","
    for j in range(at + 2, min(len(tokens), at + 2 + _INCLUDED_WORDS + 1)):
        if tokens[j].text == closing:
            if j == at + 2:
                return None
            return before[tokens[at + 1].start : tokens[j - 1].end]
        if not _name_word(tokens, j) and tokens[j].low not in COORDINATORS:
            return None
    return None


_INCLUDED_WORDS = 6
"""The most words of a coverage a name says it includes."""


def _finish(
    name: str, words: int, rest: list[_Piece], before: str, tokens: list[_Token]
) -> str | None:
    """``name`` with the complements of ``rest`` while it stays short."""
    end = None
    total = words
    for n, piece in enumerate(rest):
        if not piece.kept:
            break
        if _complex_preposition(tokens, piece, rest[n + 1 :]) and not _fits(
            total, rest[n:], tokens
        ):
            break  # "guarantees in respect of …" cut short: the name ends before it
        added = piece.joint_words + len(_words(tokens, piece))
        if piece.clause:  # a participle's clause: whole or not at all
            added += sum(p.joint_words + len(_words(tokens, p)) for p in rest[n + 1 :])
            if total + added <= _NAME_WORDS:
                end = tokens[rest[-1].end - 1].end
            break
        if total + added > _NAME_WORDS:
            break
        total += added
        end = tokens[piece.end - 1].end
    if end is not None:
        name = f"{name} {before[tokens[rest[0].joint].start : end]}"
    label = clean_label(_THEN_LEAD.sub("", name))
    if label is None or _TEMPORAL_END.search(label):
        return None
    return label


def _fits(total: int, rest: list[_Piece], tokens: list[_Token]) -> bool:
    """The first two pieces of ``rest`` keep a name of ``total`` words short enough."""
    added = sum(p.joint_words + len(_words(tokens, p)) for p in rest[:2])
    return total + added <= _NAME_WORDS


def _complex_preposition(tokens: list[_Token], piece: _Piece, after: list[_Piece]) -> bool:
    """``piece`` with the joint before it and the one after is one preposition ("**in
    respect of**", "**in connection with**", "**on behalf of**"): a bare noun of
    :data:`~osrag.lexicon.function_words.PREPOSITION_NOUNS` between two prepositions."""
    return (
        piece.joint_words == 1
        and piece.end - piece.start == 1
        and tokens[piece.start].low in PREPOSITION_NOUNS
        and bool(after)
        and after[0].joint == piece.end
    )


_THEN_LEAD = re.compile(r"(?i)^then[-\s][a-z]+\s+(?=\w)")
"""A time qualifier that leads a name ("the **then-current** renewal fee", "the **then
applicable** rate"): the fee in force when it falls due, the same quantity — no word of
its name."""


def prose_label(
    clause: str, after: str, amounts_before: int, wrapped: str | None = None
) -> tuple[str | None, bool]:
    """The label of the amount between ``clause`` (its sentence up to it) and ``after``
    (the rest of its line), or None (module docstring); and whether it was read after
    the amount (a list's later amount takes the earlier one's label instead).
    ``wrapped``: ``after`` with the next line when the sentence wraps onto it — a defined
    term may stand there; a name after the amount is read on its own line only (the next
    line may be a key of its own: "… ****4471 $1,689.75⏎Hourly rate: $24.50")."""
    if _shouted(clause):
        # "THE ANNUAL FEE IS $5,000": capitals say nothing of names and verbs here
        clause, after = clause.lower(), after.lower()
        wrapped = wrapped.lower() if wrapped is not None else None
    tail = clause[-_REACH:]
    last = _last_word(tail)
    if last in RATE_WORDS:
        return None, False  # "rated per $1,000 of receipts": the unit of a rate
    alternative = _ALTERNATIVE.search(tail)
    if alternative is not None and not _MONEY_SIGN.search(tail, alternative.end("of")):
        # "limited to the lesser of: the fees paid …; or $500,000": the figure is the
        # limit's alternative, named as the limit would be
        return prose_label(tail[: alternative.start()].rstrip() + " ", after, amounts_before)
    share = _SHARE_RESTATED.search(tail)
    if share is not None and (named := _label_before(tail[: share.start() + 1])) is not None:
        # "a deposit of 75% of the low estimate, $3,442.50": the share's figure, named as
        # the share is (as a parenthesis restating it is read, "10% of the grant ($7,500)")
        return named, False
    subject = _SHARE_SUBJECT.search(tail)
    if subject is not None and subject["name"].split()[0].lower() not in _NOT_A_SHARES_NAME:
        return clean_label(subject["name"]), False
    label = defined_term(wrapped if wrapped is not None else after)
    if label is None and (last in STATED_LINK_ENDS or last.endswith("ed")):
        label = _label_before(tail)
        bound = _limited(tail[-60:]) if label is not None and last in ("to", "at") else None
        if bound is not None and label is not None and not label.lower().endswith(bound):
            label = f"{label} {bound}"  # "Umbrella coverage is limited to $X": its limit
    if label is None and last in _CHANGE_ENDS:
        label = _change(tail)
    if label is not None:
        return label, False
    label = _label_after(after)
    if label is None and not after.strip() and wrapped is not None:
        label = _label_after_wrap(wrapped)
    if label is not None:
        return label, True
    label = _list_item(clause[-160:], amounts_before)
    if label is None and last in ("to", "at", "of"):
        label = _limited(clause[-60:])
    if label is None and last == "at":
        label = _priced_at(tail[-80:])
    if (
        label is None
        and last not in _VERB_NOUNS
        and is_quantity_noun(last)
        and tail[-1:].isspace()
        and not _VERB_NEXT.match(after)
    ):
        label = _named_before(tail)
    if label is None:
        label = defined_later(wrapped if wrapped is not None else after)
    if label is None and _WHOLE_BEFORE.search(tail) and not _RATE_AFTER.match(after):
        label = WHOLE_LABEL  # "shall pay to the Licensor the sum of $480,000"
    return label, False


WHOLE_LABEL = "total"
"""The label of a figure stated as a whole and named no other way: the total of what its
sentence pays (:data:`~osrag.lexicon.label_roles.WHOLE_HEADS`)."""

_WHOLE_BEFORE = re.compile(
    rf"(?i)\b(?:the|a|an)\s+(?:(?:{alternation(WHOLE_LEADS)})\s+)?"
    rf"(?:{alternation(WHOLE_HEADS)})\s+of\s*$"
)
"""The head that states a figure as a whole, alone, right before it: "the sum of", "the
aggregate sum of" (not "the amount of", "a maximum sum of", "a total of")."""

_RATE_AFTER = re.compile(
    rf"(?i)\s*(?:{RATE_INTRO}\s+)?(?:{alternation(frozenset(PERIOD_UNITS))})\b"
)
"""A unit right after the figure ("the sum of $500 **per month**"): a payment that recurs,
no whole."""


_VERB_NOUNS = frozenset({"cost", "costs", "charge", "charges", "pay", "pays", "total", "totals"})
"""Nouns of a quantity that are also verbs taking the amount as object ("Tickets **cost**
$5", "the invoice **totals** $900"): before an amount they name nothing."""


_VERB_NEXT = re.compile(rf"\s*(?:{alternation(BE | HAVE | MODALS)})\b|\s*[a-z]+ed\b", re.IGNORECASE)
"""A verb right after the amount: the noun before it is the subject of a clause that goes
on ("Deposit $10 **was** returned"), not the name of the amount alone."""


def _named_before(clause: str) -> str | None:
    """``freight`` in "estimated freight $275.00": a noun of a quantity right before the
    amount, with no link between, names it (module docstring, 6)."""
    before = clause.rstrip()
    tokens, pieces = _read_back(before, False)
    if not pieces or pieces[-1].end != len(tokens):
        return None
    return _label_from(before, tokens, pieces[-1:])


def _shouted(clause: str) -> bool:
    """The end of the sentence is written in capitals (a contract's conspicuous clause)."""
    letters = "".join(filter(str.isalpha, clause[-_SHOUT_LETTERS * 2 :]))
    if len(letters) < _SHOUT_LETTERS // 4:
        return False
    return sum(map(str.isupper, letters)) >= 0.9 * len(letters)


_SHOUT_LETTERS = 80
"""The capitals (about) read to tell a sentence in capitals from a heading's word."""
_ALTERNATIVE = re.compile(
    r"(?i)\bthe\s+(?:lesser|greater|higher|lower)\s+(?P<of>of)\b[^;]{0,200};?"
    r"(?:[^;]{0,200};)?\s*(?:,\s*)?(?:or|and)\s+(?:\(?[a-z\d]{1,3}\)\s*)?$"
)
"""The later alternative of "the lesser of …, or $X" (a clause or two before it)."""


def _last_word(text: str) -> str:
    """The last word of ``text``, lower-cased, or its last mark ("(", ":", ",")."""
    stripped = text.rstrip()
    if not stripped:
        return ""
    if stripped[-1] in "(:,":
        return stripped[-1]
    return stripped.rsplit(None, 1)[-1].lower().strip("*_`\"“”'’")


_CHANGE_ENDS = (
    frozenset(CHANGE_VERBS) | HEDGES | frozenset({"by", "than", "about", "some", "over", "under"})
)
"""The last word a verb of change (and its hedges) before an amount can end with."""


def _trim(before: str) -> str:
    """``before`` without what may stand between a name and its link: time phrases
    (:func:`_strip_time`) and a parenthesis ("Pinnacle Foods net sales for fiscal 2019
    (reflecting 213 days of ownership) were") — not a coverage the name includes
    ("insurance (including product liability coverage) in an amount", :func:`_inclusion`)."""
    trimmed = _strip_time(before)
    if trimmed.endswith(")"):
        opening = trimmed.rfind("(", max(0, len(trimmed) - 90))
        named = trimmed[:opening].rstrip()
        # a coverage the name includes is read with it, unless a time phrase stands between
        included = trimmed.startswith("including", opening + 1) and _strip_time(named) == named
        if opening > 0 and not included and not _MONEY_SIGN.search(trimmed, opening):
            trimmed = _strip_time(trimmed[:opening].rstrip())
    return trimmed


_MONEY_SIGN = re.compile(r"[$€£¥₹]")


def _strip_time(before: str) -> str:
    """``before`` without the time phrases that end it ("for fiscal 2023", "for the years
    ended December 31, 2019 and 2018", "for 2019", "for the third quarter of 2019", "on the
    Closing Date": period words around figures, or a period the shared reader reads whole,
    :data:`~osrag.lexicon.periods.STATED_PERIOD`)."""
    if _MAY_BE_TIME.search(before, max(0, len(before) - 70)) is None:
        return before
    while True:
        found = _TIME_START.search(before, max(0, len(before) - 70))
        if found is None:
            return before
        for m in _TIME_START.finditer(before, found.start()):
            rest = before[m.end() :]
            if (
                _DATED.fullmatch(before, m.start())
                or is_period_words(_INTEGER_FIGURES.sub(" ", rest))
                or STATED_PERIOD.fullmatch(rest.strip(" ,")) is not None
            ):
                before = before[: m.start()]
                break
        else:
            return before


_MAY_BE_TIME = re.compile(r"(?i)\d\d|year|quarter|month|period|week|date|fiscal|ended")
"""What every time phrase :func:`_strip_time` takes off holds."""
_TIME_START = re.compile(
    r"(?i)\s(?:in|for|during|as\s+of|as\s+at|at|on|by|through|from|since|over|ended|ending|of)\s"
)
_INTEGER_FIGURES = re.compile(r"\d[\d,]*")
_DATED = re.compile(
    r"(?i)\s+(?:on|as\s+of|as\s+at|at)\s+(?:the|such|that|each)\s+(?:[A-Z]\w+\s+)?dates?"
)
"""A time phrase that names a contract's date ("on the Closing Date", "as of such date")."""


def _label_before(clause: str) -> str | None:
    """The phrase before the amount's link (module docstring, 2)."""
    if clause.endswith(("U.S. ", "US ")):
        clause = _CURRENCY_LEAD.sub("", clause)
    quick = _QUICK_LINK.search(clause, max(0, len(clause) - 24))
    word = quick.group("word").lower() if quick is not None else ""
    if quick is not None and word not in _LINK_WORDS and not word.endswith("ed"):
        # "a fee of", "business up to": a plain link after a name's word, as
        # STATED_LINK would read it, without its search (the common case)
        link_start, direct, subject = quick.start("link"), True, False
    else:
        link = STATED_LINK.search(clause, max(0, len(clause) - _LINK_REACH))
        if link is None:
            return None
        kind = link.group("link").lower()
        if kind == "(" and _FIGURE_BEFORE.search(clause, max(0, link.start() - 40), link.start()):
            return None  # "$45.00 per rentable square foot ($159,750.00)": a restatement
        share = _SHARE_OF.search(clause, max(0, link.start() - 90), link.start())
        named = _label_before(clause[: share.start()]) if kind == "(" and share else None
        if named is not None:
            # "may not exceed 10% of the grant ($7,500)": the share's figure, named as the
            # share is — not what it is a share of (a share alone, "80% of the grant
            # ($960) is paid", is of the grant)
            return named
        link_start = link.start()
        direct = kind in ("of", "as", "(") or bool(link.group("bound"))
        subject = not direct or bool(link.group("amount"))
    before = _trim(clause[:link_start])
    tokens, pieces = _read_back(before, subject)
    of_link = clause[link_start:].split(None, 1)[:1] == ["of"]  # "a dividend of": a name
    if pieces and not of_link:
        past = _past_agent(tokens, pieces, subject)
        if past and past is not pieces and past[0].start <= 1 and len(before) > _SHORT_REACH:
            # the subject may start before the short read: read it again, longer
            tokens, pieces = _read_back(before, subject, longer=True)
            past = _past_agent(tokens, pieces, subject) if pieces else []
        pieces = past
    if not pieces:
        return None
    if clause[link_start:].lstrip().startswith(":") and pieces[0].start > 0:
        previous = tokens[pieces[0].start - 1].low
        if previous in DEMONSTRATIVES or previous in _VERB_BEFORE:
            return None  # "within 30 days of executing this Agreement: $1.5M": no key
    if _head(tokens, pieces[0]) in _COVERAGE_FIGURES and not _names_its_cover(tokens, pieces[0]):
        outer = _with_coverage(tokens, pieces[0].start)
        if outer and outer[0].start <= 1 and len(before) > _SHORT_REACH:
            # the coverage may start before the short read ("employer's liability
            # insurance with a limit of liability of"): read it again, longer
            tokens, pieces = _read_back(before, subject, longer=True)
            outer = _with_coverage(tokens, pieces[0].start) if pieces else None
        if outer:
            pieces = outer
    return _label_from(before, tokens, pieces)


def _past_agent(tokens: list[_Token], pieces: list[_Piece], subject: bool) -> list[_Piece]:
    """The subject's chain when ``pieces`` is a passive's agent or a participle's object:
    "the costs of services **to be performed by** the Contractor do not exceed" → the
    chain before the passive (the costs of services); "shall provide **to** the Borrower
    up to" → none (the recipient names nothing; a name after the amount may)."""
    j = pieces[0].start - 1
    while j >= 0 and (tokens[j].low in DETERMINERS or POSSESSIVE_END.search(tokens[j].low)):
        j -= 1  # "by a manufacturer's warranty": a possessive determines the noun too
    if j < 1:
        return pieces
    if (
        tokens[j].low.endswith("ing")
        and tokens[j].low not in ALL_PREPOSITIONS
        and tokens[j].text[:1].islower()
        and _name_word(tokens, j - 1)
    ):
        # "liability insurance covering the building in an amount of": the participle's
        # object; the name is the noun the participle follows
        return _phrase_back(tokens, j, subject)
    if tokens[j].low not in ("by", "to", "from"):
        return pieces
    k = j - 1
    if tokens[j].low == "by" and not subject:
        return pieces
    if tokens[j].low == "by" and _participle(tokens[k]) and k > 0 and tokens[k - 1].low in BE:
        k -= 2  # "to be performed by", "being paid by"
        while k >= 0 and tokens[k].low in BE | MODALS | NEGATIONS | {"to"}:
            k -= 1
        return _phrase_back(tokens, k + 1, subject=True) if k >= 0 else []
    if tokens[j].low == "by" and _participle(tokens[k]):
        # "Repairs not covered by a manufacturer's warranty are billed at": a participle's
        # clause after its noun (a relative clause without its "that are"); the noun is
        # the subject
        m = k - 1
        while m >= 0 and tokens[m].low in NEGATIONS:
            m -= 1
        if m >= 0 and _name_word(tokens, m):
            return _phrase_back(tokens, m + 1, subject=True)
    verb = tokens[k]
    if (
        verb.kind == _WORD
        and not _name_word(tokens, k)
        and not _participle(verb)  # "compared to gross profit of": a complement
        and verb.low not in ALL_PREPOSITIONS
        and verb.low not in PREDICATIVES
        and verb.low not in TO_AS_PREPOSITION
    ):
        return []  # "provide to the Borrower", "pay to the Agent": a verb's recipient
    return pieces


def _read_back(
    before: str, subject: bool, longer: bool = False
) -> tuple[list[_Token], list[_Piece]]:
    """The tokens of the end of ``before`` and the chain of phrases ending it: the last
    :data:`_SHORT_REACH` characters first, :data:`_PHRASE_REACH` and then :data:`_REACH`
    when the chain runs to their start (most names are short: the long read is the rare
    one; a coverage named with its parenthesis and its perils is the longest).
    ``longer``: start at the second read."""
    if subject and before.rstrip().endswith(","):
        longer = True  # a parenthetical set off by commas ends it: its opening is further
    for reach in _READS[1 if longer else 0 :]:
        start = max(0, len(before) - reach)
        if start:
            start = before.find(" ", start) + 1  # from a word's start
        tokens = _tokens(before, start)
        pieces = _phrase_back(tokens, len(tokens), subject)
        if not (start and pieces and pieces[0].start <= 1):
            break
    return tokens, pieces


_QUICK_LINK = re.compile(r"(?P<word>[^\W\d_][\w'’-]*)(?P<link>\s+(?:of|up\s+to))\s*$")
"""A name's word, then *of* or *up to* and nothing else before the amount."""
_LINK_WORDS = (
    STATED_LINK_ENDS
    | frozenset(
        {
            "in",
            "value",
            "excess",
            "greater",
            "lesser",
            "not",
            "no",
            "by",
            "exceed",
        }
    )
    | EMPTY_HEADS
    | frozenset(CHANGE_VERBS)
    | MODALS
    | BE
)
"""Words that may belong to a longer link or hedge ending in *of* or *up to* ("in an
amount of", "a maximum of", "is up to"): after one, :data:`STATED_LINK` reads the link."""
_CURRENCY_LEAD = re.compile(r"\s+(?:U\.S\.|US)\s*$")
"""A currency's country written apart from its sign ("in the amount of U.S. $3,021.87")."""
_SHARE_OF = re.compile(rf"(?i){SHARE}\s+of\s+[^()$€£¥₹%;:\d]{{1,80}}$")
"""A share of something right before a parenthesis ("10% of the grant (")."""
_SHARE_RESTATED = re.compile(rf"(?i)\s{SHARE}\s+of\s+[^()$€£¥₹%;:\d,]{{1,80}},\s*$")
"""A share of something, then a comma right before the amount that restates it ("a deposit
of 75% of the low estimate, $3,442.50")."""
_SHARE_SUBJECT = re.compile(
    rf"(?i)(?:^|[\s(]){SHARE}\s+"
    r"(?P<name>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3}?)\s+"
    rf"(?:(?:{alternation(MODALS)})\s+)?(?:{alternation(BE)})\s+"
    rf"(?:{alternation(PREDICATIVES | PASSIVE_PRICE_VERBS | PAYMENT_PARTICIPLES)})"
    r"\b[^()$€£¥₹%;:\d]{0,60}\(\s*$"
)
"""A share named as the subject of its clause, then a parenthesis opening right before
the amount that restates it ("A 30% **deposit** is due on acceptance ($2,082.00 for …)",
"a 10% **retainage** will be held from each payment (€4,200)"): the figure is the share's."""
_NOT_A_SHARES_NAME = ALL_PREPOSITIONS | DETERMINERS
"""First words of no share's name ("25% **of** the price is due")."""
_FIGURE_BEFORE = re.compile(r"[$€£¥₹]\s?\d|\d\s+" + RATE_INTRO + r"\s")
_COVERAGE_FIGURES = (FIGURE_WORDS | {"limit"}) - {"amount", "value"}
"""A coverage's figure: a limit joined to it by *with* ("insurance with limits of")."""


_LIMIT_WORDS = _COVERAGE_FIGURES | QUANTIFYING | {"single"}
"""The words of a limit that name no cover ("a combined single limit", "minimum limits",
"the aggregate limit")."""


def _names_its_cover(tokens: list[_Token], piece: _Piece) -> bool:
    """Whether a coverage's figure names the cover itself ("liability **coverage** of",
    "bodily injury **limits** of"): then it is the name, whatever *with* joins it to ("the
    vessel insured throughout the season with liability coverage of")."""
    return any(
        t.low not in DETERMINERS and singular(t.low) not in _LIMIT_WORDS and t.kind != _FIGURE
        for t in _words(tokens, piece)
    )


def _with_coverage(tokens: list[_Token], start: int) -> list[_Piece] | None:
    """The coverage a limit is joined to by *with*: "insurance **with** (a combined single)
    limit(s) of"."""
    j = start - 1
    while j >= 0 and tokens[j].low in DETERMINERS:
        j -= 1
    if j < 1 or tokens[j].low != "with":
        return None
    end = j
    if tokens[end - 1].text == ",":  # "insurance, including owned … coverage, with"
        opened = _before_parenthetical(tokens, end - 1)
        end = opened + 1 if opened != end - 1 else end - 1
    return _phrase_back(tokens, end, subject=False) or None


def _change(clause: str) -> str | None:
    """``increase in Revenue`` for "Revenue increased $5 million" (module docstring, 3)."""
    found = _CHANGED.search(clause, max(0, len(clause) - 60))
    if found is None:
        return None
    noun = CHANGE_VERBS[found.group("verb").lower()]
    before = _strip_time(clause[: found.start()])
    tokens = _tokens(before, max(0, len(before) - _PHRASE_REACH))
    pieces = _phrase_back(tokens, len(tokens), subject=True)
    subject = _label_from(before, tokens, pieces) if pieces else None
    return f"{noun} in {subject}" if subject else noun


_CHANGED = re.compile(
    rf"(?i)(?:^|\s)(?:was\s+|were\s+)?(?P<verb>{alternation(frozenset(CHANGE_VERBS))})"
    rf"(?:\s+by)?(?:\s+(?:{alternation(HEDGES)}|about|some|over|under|more\s+than|"
    r"less\s+than))*\s*$"
)
"""A verb of change right before the amount: the amount is the change."""


def _label_after_wrap(wrapped: str) -> str | None:
    """The name after an amount that ends its line, read on the next line when the
    sentence wraps there mid-phrase — the line goes on in lower case with a noun phrase,
    not a preposition, and holds no key of its own ("… is charged a $15.00⏎late fee."; not
    "… $1,689.75⏎Hourly rate: $24.50")."""
    following = wrapped.lstrip()
    first = following.split(maxsplit=1)[0] if following else ""
    if not first[:1].islower() or first in ALL_PREPOSITIONS or ":" in following:
        return None  # "up to $5,250⏎of qualified …": a complement, read as prose reads it
    return _label_after(" " + following)


def _label_after(after: str) -> str | None:
    """``Development Fee`` in "$20,000 Development Fee", ``revenue`` in "$5.2 million in
    revenue", ``decrease in Blizzard net bookings`` in "$572 million decrease in …"
    (module docstring, 4)."""
    lead = _AFTER_LEAD.match(after)
    if lead is None or lead.group("word") is None:
        return None
    first = lead.group("word").lower()
    if first in FORWARD_STOPS or first in PREDICATIVES or first in _NOT_A_NAME_WORD:
        return None  # "$500 for each occurrence": no name after it (most amounts)
    tokens = _tokens(after[lead.start("word") : lead.start("word") + 80])
    preposition = bool(lead.group("prep"))
    words: list[_Token] = []
    for i, token in enumerate(tokens):
        if token.kind != _WORD:
            if token.text == "," and words and _list_goes_on(tokens, i):
                words.append(token)  # "research, development and engineering expense"
                continue
            break
        if token.low in COORDINATORS and words and _listed_after(tokens, i):
            words.append(token)  # "accrued interest and penalties"
            continue
        if not _after_word(token) or len(words) == 6:
            break
        if _participle(token) and (words or not preposition):
            break  # "$4.4 million of expenses associated with": the name ends
        if _verb_after(tokens, i, len(words)):
            break
        if (
            words
            and token.low.endswith("ing")
            and i + 1 < len(tokens)
            and (tokens[i + 1].text == ":" or tokens[i + 1].low in _COMPLEMENT_OPENERS)
        ):
            break  # "$2,000,000 annual aggregate providing:": a participle's clause
        words.append(token)
    while words and (words[-1].low in COORDINATORS or words[-1].kind != _WORD):
        words.pop()
    if not words or _TEMPORAL_END.search(words[0].text) or _TEMPORAL_END.search(words[-1].text):
        return None
    end = words[-1].end
    n = len(words)
    if singular(words[-1].low) in CHANGES and n + 1 < len(tokens) and tokens[n].low in ("in", "of"):
        # "$572 million decrease in Blizzard net bookings": the change's object
        kept = []
        for token in tokens[n + 1 : n + 7]:
            if (
                token.kind != _WORD
                or token.low in _NOT_A_NAME_WORD
                or _participle(token)
                or _adverb(token)
            ):
                break  # "… net bookings primarily driven by": the name ends
            kept.append(token)
        if kept:
            end = kept[-1].end
    at = lead.start("word")
    return clean_label(after[at + words[0].start : at + end])


_COMPLEMENT_OPENERS = ALL_PREPOSITIONS | DETERMINERS
"""Words that open a verb's complement: a word in *-ing* before one is a participle
("royalties **relating to**", "insurance **covering the** premises"), not a noun."""
_AFTER_LEAD = re.compile(r"[ \t]+(?:(?P<prep>in|of)\s+)?(?=(?P<word>[^\W\d_][\w'’&-]*))?")


def _list_goes_on(tokens: list[_Token], i: int) -> bool:
    """A comma at ``tokens[i]`` is a list's: name words and a coordinator follow it."""
    for token in tokens[i + 1 : i + 5]:
        if token.low in COORDINATORS:
            return True
        if not _after_word(token):
            return False
    return False


def _listed_after(tokens: list[_Token], i: int) -> bool:
    """A coordinator or a list's comma at ``tokens[i]`` goes on with a name's word."""
    return i + 1 < len(tokens) and _after_word(tokens[i + 1])


def _after_word(token: _Token) -> bool:
    low = token.low
    return (
        token.kind == _WORD
        and len(low) > 1
        and low not in FORWARD_STOPS
        and low not in PREDICATIVES
        and low not in _NOT_A_NAME_WORD
        and not (low.endswith("ly") and low not in UNIT_ADVERBS)
    )


def _verb_after(tokens: list[_Token], i: int, index: int) -> bool:
    """``tokens[i]`` (the ``index``-th word after the amount) is the verb after the noun
    phrase: a definite word follows it ("$1,000 deductible **reduces** the claim"), or an
    infinitive ("$4 million **begins** to expire")."""
    if i + 1 >= len(tokens):
        return False
    following = tokens[i + 1].low
    if following in ("the", "its", "their", "our", "his", "her", "your", "my"):
        return True
    low = tokens[i].low
    plural = low.endswith("s") and not low.endswith(("ss", "us", "is"))
    if following == "to" and plural and i + 2 < len(tokens):
        return tokens[i + 2].text[:1].islower() and tokens[i + 2].low not in DETERMINERS
    return following in ("a", "an") and index > 0 and plural


def _list_item(clause: str, amounts_before: int) -> str | None:
    """``jewelry theft`` in "Special limits inside Coverage C: jewelry theft $2,500,
    firearms $2,500" (module docstring, 5)."""
    colon = clause.rfind(": ")
    opening = clause.rfind("(")
    if opening > colon and ")" not in clause[opening:]:
        colon = opening  # "(total funding $6,270,000": a name opening a parenthesis
    if colon < 0:
        return None
    item = _LIST_ITEM.search(clause, colon + 1)
    if item is None or (amounts_before == 0 and item.start() > colon + 2):
        return None  # the first amount must follow the colon's own item
    tokens = _tokens(item.group("item"))
    if not tokens or any(
        (t.low in BOUNDARY_WORDS and t.low not in COORDINATORS)
        or t.low in DETERMINERS
        or t.low in PRONOUNS
        for t in tokens
    ):
        return None
    if tokens[0].low in FORWARD_STOPS or tokens[-1].low in FORWARD_STOPS:
        return None
    first = tokens[0]
    if first.low in ALL_PREPOSITIONS or first.low in EXCEPTIVES:
        return None  # "(except up to $10,000)", "(for $500)": a complement, no item
    if clause[colon] == "(" and (_participle(first) or first.low.endswith("ing")):
        return None  # "(exceeding $500)", "(totaling $2,000,000)": a clause, no item
    name = clean_label(item.group("item"))
    if name is None or clause[colon] == "(":
        return name
    group_text = LIST_BULLET.sub("", clause[:colon])
    group = clean_label(group_text) if _is_name(group_text) else None
    return f"{group}{GROUP_JOIN}{name}" if group else name


_LIST_ITEM = re.compile(
    r"(?:(?<=[:(])|,|;)\s*(?:(?:and|or)\s+)?"
    r"(?P<item>[A-Za-z][\w'’&/-]*(?:\s+[A-Za-z][\w'’&/-]*){0,5})\s*$"
)
"""The last item of a list before an amount: after the colon, a comma or a semicolon (and
an *and*/*or*), a name of one to six words."""


def _is_name(text: str) -> bool:
    """A group before a list's colon that is a name: at most ten words, no figure, no
    word that is never in a name."""
    tokens = _tokens(text)
    return (
        0 < len(tokens) <= 10
        and text.count("(") == text.count(")")
        and not any(
            t.kind == _FIGURE
            or (t.low in _NOT_A_NAME_WORD and t.low not in COORDINATORS)
            or t.low in CLAUSE_WORDS
            for t in tokens
        )
    )


_PRICED_AT = re.compile(
    rf"(?i)(?:^|[\s,;:(])(?P<lead>[\w'’-]+\s+)?(?:{alternation(INDEFINITE)})\s+"
    r"(?P<name>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3})\s+at\s+$"
)
"""A thing named with its indefinite article and priced by *at* ("is an initial deep clean
**at** $285.00", "we offer a trial lesson **at** $30.00"), and the word before it."""


def _priced_at(clause: str) -> str | None:
    """The thing a clause prices by *at* after its indefinite article (:data:`_PRICED_AT`),
    when every word of it may be a name's — no preposition, verb, pronoun or determiner."""
    found = _PRICED_AT.search(clause)
    if found is None:
        return None
    words = found["name"].lower().split()
    stops = ALL_PREPOSITIONS | BOUNDARY_WORDS | DETERMINERS | PRONOUNS | RATE_WORDS
    lead = (found["lead"] or "").strip().lower()
    if any(w in stops for w in words) or lead in ALL_PREPOSITIONS:
        return None  # "carried out on a written order at": the preposition's object
    return clean_label(found["name"])


def _limited(clause: str) -> str | None:
    """``limited to $X`` / ``capped at $X``: a limit (a cap) — of the name before it when
    there is one ("Umbrella coverage is limited to" → ``Umbrella coverage limit``, as a
    question's "damages limited to" asks for their limit), else the limit alone."""
    found = _LIMITED.search(clause)
    return _NOUN_OF[found.group("word").lower()] if found else None


_LIMITED = re.compile(
    r"(?i)\b(?P<word>limited|capped)\s+(?:to|at)(?:\s+(?:a\s+)?(?:maximum|total)\s+of)?\s*$"
)
_NOUN_OF = {"limited": "limit", "capped": "cap"}
