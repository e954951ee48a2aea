"""Each amount constraint of a question bound to the quantity, year and sign it names. Pure.

The rule: a constraint constrains the quantity the question names — "deductible under
$1,000" constrains a deductible, not any amount of a chunk. Its ``label`` is

1. the **noun phrase before it** that governs it: the words right before the constraint's
   phrase (a comparison word is part of the phrase: "revenue exceeded $500 million"),
   after a linking word or two ("of", "is", "was", "at", "in the range", "that was": "a
   deductible of $2,000 or more", "interest income in the range $1 million to $5
   million"), a stated year ("revenue in 2019 exceeded …") and a time phrase ("for the
   year"), back to the first word that cannot be part of it — a pronoun, a clause word,
   a verb of being, having, showing or reporting, "with", the end of an earlier
   constraint, a mark other than those a name holds (a comma, "/", "&", a dash), a
   figure or a word with a digit (an identifier, "UMB-300000"), or the start of the text
   ("companies whose **revenue** exceeded", "which reports show **total assets**
   between", "umbrella policies with **limits** over", "**property, plant and
   equipment, net** of more than"). The phrase is read as a label is: through a
   complement ("**value of the stock**", "**cost per operator**", "**amount reported
   as capital gain**" — a determiner only after the complement's preposition, a
   participle only between a noun and its complement), parenthesised words left out
   ("**net income** (loss)"), a link verb that is a noun after another noun kept
   ("**rebuild cost** over"), a verb's -ing form after a noun read as its head ("**public
   offering**"); a complement naming what holds the amount is the kind of document, not
   part of the name ("**face amount** of the policy", like "policies with limits"), and
   the head, not the last word, says whether the phrase names a quantity at all. So a
   name a fact carries is always askable (``tests/lexicon/test_askable.py``).
   An amount right after the phrase with no comparison word of its own ("deductible
   $1,000", "umbrella $1M–$2M") binds only when the phrase ends in a quantity noun
   (:data:`~osrag.lexicon.quantities.QUANTITY_NOUNS`): "umbrella coverage $300K" names the
   coverage of an umbrella policy, not a quantity the index labels. A verb that puts a
   price on the words before it ("movers **charging** over", "bids **asking for** a
   deposit under", "quotes **priced** above": :data:`~osrag.lexicon.links.
   ASKED_PRICE_VERBS`) makes those words the kind of document and its object the name
   ("deposit"), else the thing priced when the question writes it after the figure with
   "for" ("funeral homes charging under $1,000 **for embalming**": the embalming's price;
   "shops charging $150 an hour **for labor**": labor's, per hour) or with "per" and more
   than a unit alone ("engineers charging over $400 **per site visit**": a site visit's,
   per visit), else the figure the verb names ("charge", "price"; "per hour", "per page"
   only count it); not after a figure's own name
   ("amount **charged**", "fees **billed**"). A verb that prices its subject ("dental
   crowns **costing** more than", "treatment **priced** at": :data:`~osrag.lexicon.links.
   SUBJECT_PRICE_VERBS`) makes a subject that is no document noun the name — the thing
   priced —, and a participle of paying with an adverb of its period ("RV storage **paid
   annually** for less than") names the thing paid for, at that unit;
2. else the **noun phrase after it**: introduced by "of" ("$20 billion of **revenue**"),
   starting with a quantity noun ("$500 **deductible**"), or, when an indefinite article
   leads the amount, ending in one ("a $25 **filing charge**": the amount is said of the
   noun as an adjective is), or saying the figure is what is left to pay ("less than
   $400 **left to pay**", "£250 **to pay**", "€500 **still due**": the balance due,
   :data:`~osrag.lexicon.links.ASKED_OWED`). "the $300,000 umbrella policy" and "a $2,000
   laptop" name no quantity: the constraint stays role-free. A "balance" named alone is
   what is left to pay too (:data:`~osrag.lexicon.links.OWED_ALONE`), and asked as
   written;
3. a phrase that is a kind of document alone whose own figure is its total (its head a
   profile's ``totalled_nouns``: "contractor **bids** over $20,000", "**quotes** under
   $1,000", "purchase **orders** above $10,000"): the document's total — the label
   "total", ``total_of`` the noun, so a fact whose label names one of the profiles'
   ``total_names`` ("Total", "Grand total", "Total due", "Bid total", "Total bid", "Bid
   amount") or any name of a whole (:func:`~osrag.search.fact_filters.whole_totals`:
   "Total quotation", "Total price", "Total including VAT") meets it, never a deposit, a
   subtotal or a line; the words before the noun are the kind's qualifier (``context``:
   they rank, exclude nothing); so too with the total word after the amount
   ("cleaning **quotes** above $900 **total**");
4. no phrase, or one that ends in any other noun naming what holds the amount rather than
   what it measures (:func:`~osrag.lexicon.quantities.is_document_noun`: "flood policy
   over $500,000" — a policy's limit, premium and deductible are all its figures, none
   its own): role-free.

Its ``year`` is the year the question states ("in 2019", "for fiscal 2019", "FY2019",
"FY99" — 1999: the period reader's two-digit rule, as a document's "FY99" —, "F19",
"December 31, 2019": :func:`~osrag.lexicon.periods.stated_years`, the reader the
document side's prose uses) when a bound constraint is in the question: the one year
when there is one, else the year nearest to the constraint (after it first). A stated
year or a time phrase ("for the year", "in the prior year") at the end of the name is
not part of it. Its ``quarter`` is the
one quarter the question states ("in Q4 2019", "fourth quarter revenue", "4Q19"; two
different quarters: none), and the quarter's words are not part of the label: the
constraint asks for that quarter's figure (a fact of a quarter's column), never the
year's. Its ``signed`` is set
when the label names a result that can be a loss
(:func:`~osrag.lexicon.signs.is_signed`). A role-free constraint gets neither.

Every step looks at a bounded window around each constraint (linear in the query).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from osrag.currencies import CODES, NOUNS, SIGNS
from osrag.extract.marks import DIGIT
from osrag.lexicon.function_words import (
    ASKED_NAME_STOPS,
    CARDINALS,
    CONTEXT_ARTICLES,
    CONTEXT_LINKS,
    DETERMINERS,
    NAME_EDGES,
    NAME_MARKS,
    NAMES_OF_GIVING,
    NOUNS_OF_GIVING,
    PAST_PARTICIPLES,
    RELATIVE_PRONOUNS,
    UNIT_NUMBERS,
)
from osrag.lexicon.label_roles import (
    ASKED_GENERIC_HEADS,
    FIGURE_WORDS,
    INSIDE_A_NAME,
    SPECIFYING,
    WHOLE_JOBS,
)
from osrag.lexicon.links import (
    AGENT_ENDINGS,
    ASKED_BOUND,
    ASKED_COVER_CLAUSE_VERBS,
    ASKED_COVER_VERBS,
    ASKED_LINK,
    ASKED_OWED,
    ASKED_PAID_EVERY,
    ASKED_PAYOUT_VERBS,
    ASKED_PRICE_CLAUSE_VERBS,
    ASKED_PRICE_VERBS,
    ASKED_PRICED_FOR,
    ASKED_PRICED_PER,
    ASKED_PRICED_TO,
    ASKED_WHOLE,
    BILLED_PARTIES,
    LIGHT_VERBS,
    LINKS_THAT_ARE_NOUNS,
    OWED_NAME,
    PASSIVE_PRICE_VERBS,
    SUBJECT_PRICE_VERBS,
    owed_alone,
)
from osrag.lexicon.periods import (
    PERIOD_UNITS,
    TERM_YEAR_NUMBERS,
    TERM_YEARS,
    TIME_TAIL,
    UNIT_ADVERBS,
    PeriodPart,
    stated_halves,
    stated_quarters,
    stated_years,
    unit_phrase_end,
)
from osrag.lexicon.phrases import phrase_at_end
from osrag.lexicon.profiles import vocabulary
from osrag.lexicon.quantities import is_document_noun, is_quantity_noun, synonyms_of
from osrag.lexicon.scopes import read_scope
from osrag.lexicon.signs import is_signed
from osrag.lexicon.words import key_stem, normalised, singular, without_parentheses
from osrag.schema.constraints import AmountConstraint
from osrag.search.reading import read_name, unit_after, unit_in_phrase

WINDOW = 120
"""Characters before and after a constraint searched for its noun phrase."""
MAX_LABEL_WORDS = 8
"""The longest noun phrase taken as a label ("net cash provided by operating activities")."""

_QUESTION_TOKENS = re.compile(r"(?:[A-Za-z]\.){2,}|[A-Za-z][\w'’&-]*|\d\w*|,|[^\w\s]")
"""A question's tokens: an abbreviation ("U.S."), a word, a figure, a comma, a mark."""
_LEADING_WORD = re.compile(r"[^\W\d_]+")


def _governed(phrase: str) -> bool:
    """Whether a constraint's phrase starts with a word or a sign that states a comparison
    ("over $5", "between $1 and $2", "about $5", "≥ $5"); an amount does not, however its
    currency is written ("$1M–$2M", "USD 300,000", "$300K or $3M")."""
    if phrase[:1] in "<>≤≥~≈=":
        return bool(phrase)
    word = _LEADING_WORD.match(phrase)
    if word is None:
        return False
    lead = word.group(0)
    return lead.upper() not in CODES and lead not in SIGNS and lead.lower() not in NOUNS


def _strip_links(before: str, years: Sequence[tuple[int, int, int]], offset: int) -> str:
    """``before`` without the linking words, stated years and time phrases at its end
    ("net income **for the year** under $5 million")."""
    while True:
        trimmed = before.rstrip()
        link = ASKED_LINK.search(trimmed) or TIME_TAIL.search(trimmed)
        if link is not None and link.start() < len(trimmed):
            if _a_nouns_head(trimmed, link):
                return trimmed  # "rebuild cost": the link word is the name's head
            before = trimmed[: link.start()]
            continue
        year = next((y for y in years if y[2] - offset == len(trimmed)), None)
        if year is not None and year[1] >= offset:
            before = trimmed[: year[1] - offset]
            continue
        return trimmed


def _a_nouns_head(text: str, link: re.Match[str]) -> bool:
    """A link that is a noun too (:data:`~osrag.lexicon.links.LINKS_THAT_ARE_NOUNS`)
    right after a word that is no stop and no document noun: the head of a name
    ("rebuild cost"), not a verb ("the policy costs")."""
    if link.group(0).strip().lower() not in LINKS_THAT_ARE_NOUNS:
        return False
    previous = _QUESTION_TOKENS.findall(text[: link.start()])[-1:]
    return bool(previous) and not (
        previous[0].lower() in ASKED_NAME_STOPS
        or _no_name_word(previous[0])
        or is_document_noun(normalised(previous[0]))
    )


def _a_gerunds_head(last: str, before: str) -> bool:
    """A verb's *-ing* form ("public **offering**"), a verb of giving that is a noun too
    ("gross **pay**", :data:`~osrag.lexicon.function_words.NOUNS_OF_GIVING`) or its past
    tense a document heads a figure with ("the plan **paid**", :data:`~osrag.lexicon.
    function_words.NAMES_OF_GIVING`) last, after a word that names something: the name's
    last word, not a verb. Before a past tense a document noun in the singular is who gave
    ("the **plan** paid"), as the document's own heading says it; in the plural, and before
    the others, it is what holds the figure ("policies paid", "policies offering")."""
    lower = last.lower()
    giver = lower in NAMES_OF_GIVING and singular(before.casefold()) == before.casefold()
    named = giver or not is_document_noun(normalised(before))
    return (
        (lower.endswith("ing") or lower in NOUNS_OF_GIVING | NAMES_OF_GIVING)
        and lower in ASKED_NAME_STOPS
        and before.lower() not in ASKED_NAME_STOPS
        and not _no_name_word(before)
        and named
    )


def _a_known_possessor(word: str, phrase: list[str]) -> bool:
    """A possessive that a name a profile knows begins with ("**employer's** liability"),
    not an owner before the quantity ("the policy's deductible")."""
    return word.lower().endswith(("'s", "’s")) and bool(synonyms_of(f"{word} {' '.join(phrase)}"))


def _no_name_word(word: str) -> bool:
    """A mark other than a comma, an identifier ("UMB-300000"), or a possessive ("the
    policy's deductible": the owner is not the quantity)."""
    mark = not word[0].isalnum() and word not in NAME_MARKS  # "Net profit/(loss)"
    return mark or DIGIT.search(word) is not None or word.lower().endswith(("'s", "’s"))


_NAME_STOPS = ASKED_NAME_STOPS - INSIDE_A_NAME - DETERMINERS
"""The words a question's name stops at: its reader's stops, less the prepositions that
start a complement inside a name and the determiners (which open a complement's noun
phrase: "value of **the** stock")."""


def _tail_phrase(words: list[str]) -> tuple[list[str], int]:
    """The noun phrase at the end of ``words`` (back to the first word that stops it:
    :func:`~osrag.lexicon.phrases.phrase_at_end`) — through a complement as a label
    holds one ("value of the stock", "cost per operator"): a determiner only after such
    a preposition —, and the index of the word that stopped it (-1: the start). A verb's
    *-ing* form last, after a word that names something, is the name's head ("public
    **offering**"), not its verb ("policies **offering**")."""
    if len(words) > 1 and _a_gerunds_head(words[-1], words[-2]):
        phrase, at = _tail_phrase(words[:-1])
        return [*phrase, words[-1]], at
    return phrase_at_end(
        words,
        _NAME_STOPS,
        openers=DETERMINERS,
        inside=INSIDE_A_NAME | {","},  # "Bodily injury, each person": a qualifier's opener
        breaks=_no_name_word,
        edges=NAME_EDGES,
        participles=PAST_PARTICIPLES,
        limit=MAX_LABEL_WORDS,
    )


def _holder_complement(phrase: list[str]) -> tuple[list[str], list[str]]:
    """A name whose complement names what holds the amount ("face amount **of the
    policy**", "limits **on umbrella policies**"): (the name before it, the complement's
    other words — the kind of document, like a context "with" introduces); else (the
    phrase, [])."""
    last = phrase[-1] if phrase else ""
    if not is_document_noun(normalised(last)):
        return phrase, []
    for i in range(1, len(phrase) - 1):
        if phrase[i].lower() in SPECIFYING:
            kind = [
                w
                for w in phrase[i + 1 :]
                if w.lower() not in DETERMINERS and not is_document_noun(normalised(w))
            ]
            return phrase[:i], kind
    return phrase, []


def _joined(words: list[str]) -> str:
    return re.sub(r"\s+,", ",", " ".join(words))


def _prices_its_subject(verb: str, head: str) -> bool:
    """Whether the verb of pricing ``verb`` prices the noun ``head`` before it: a verb
    that always does (:data:`~osrag.lexicon.links.SUBJECT_PRICE_VERBS`: "crowns
    **costing**"), or a passive participle (:data:`~osrag.lexicon.links.PASSIVE_PRICE_VERBS`:
    "repairs **billed**") after a noun naming neither who does the work nor who pays
    ("movers billed", "customers charged": the verb's own charge)."""
    if verb in SUBJECT_PRICE_VERBS:
        return True
    word = head.casefold()
    return (
        verb in PASSIVE_PRICE_VERBS
        and not word.endswith(AGENT_ENDINGS)
        and singular(normalised(word)) not in BILLED_PARTIES
    )


def _names_the_holder(word: str) -> bool:
    """A word before "with" that names what holds the amount, no qualifier of it: a
    document noun ("**policies** with limits"), or a quantity a profile names whole — the
    thing itself, whose figures the question asks about ("**loans** with a monthly
    payment": a loan is its principal; "umbrella" qualifies, "loans" holds)."""
    word = normalised(word)
    return is_document_noun(word) or bool(synonyms_of(word))


def _context(words: list[str], stopped: int) -> str | None:
    """ "umbrella policies with limits": the words naming the kind of document before
    "with" (or "whose", "having", "where"; an article between allowed), what holds the
    amount left out — None when nothing is left."""
    at = stopped
    if at >= 0 and words[at].lower() in CONTEXT_ARTICLES:
        at -= 1
    if at < 0 or words[at].lower() not in CONTEXT_LINKS:
        return None
    phrase, _ = _tail_phrase(words[:at])
    kept = [w for w in phrase if w != ","]
    # the head names the holder ("umbrella **policies**", "bridge **loans**"); a word
    # before another qualifies it ("**home** insurance", "**umbrella** policies"); a
    # lone plural is the holder, known or not ("**leases** with monthly rent",
    # "**receipts** with a total"): the things the question asks for, where a lone
    # singular may stand for its kind ("**umbrella** with a retention")
    if len(kept) == 1 and singular(kept[0].casefold()) != kept[0].casefold():
        kept.pop()
    while kept and _names_the_holder(kept[-1]):
        kept.pop()
    return _joined(kept) if kept else None


def _unsaid(context: str | None, phrase: list[str]) -> str | None:
    """The words of ``context`` the name does not say already: "**franchise** agreements
    with an initial **franchise** fee" asks the fee by its name alone, a qualifier the
    name repeats is no further condition. None when nothing is left."""
    said = {normalised(w) for w in phrase}
    kept = [w for w in (context or "").split(" ") if w and normalised(w) not in said]
    return " ".join(kept) if kept else None


_OBJECT_OPENERS = DETERMINERS | {"for", "at", "out"}
"""Words between a verb of pricing and its object or the constraint ("asking **for a**
deposit", "assessed **at** more than", "statements paying **out** over")."""


def _priced(words: list[str], *, linked: bool = False) -> tuple[str, str | None, str] | None:
    """ "movers **charging** over", "bids **asking** for a deposit under", "quotes
    **priced** above": (the quantity, the kind of document, the words as written — a label
    may say them: "Parking spaces costing") when a verb of
    :data:`~osrag.lexicon.links.ASKED_PRICE_VERBS` stands between the words naming what
    holds the figure and the constraint — its object, else the figure the verb names;
    None when no such verb does, or the words before it name a quantity themselves
    ("in-kind contribution **valued** over": the contribution's own figure). ``linked``:
    the verb is a link too ("worth", "valued at"), which names the figure of the words
    before it ("scholarships **worth**" a scholarship's amount) unless they end in a
    noun naming what holds a figure ("homes **assessed** at": a home's assessed value). A
    verb that prices its subject (:data:`~osrag.lexicon.links.SUBJECT_PRICE_VERBS`) after
    words that name no document names the thing priced by them: "dental crowns **costing**
    over" asks the crowns' figure, as "orthodontic treatment **priced at**" does."""
    reach = max(-1, len(words) - 1 - MAX_LABEL_WORDS)
    for v in range(len(words) - 1, reach, -1):
        verb = words[v].lower()
        clause = (
            verb in ASKED_COVER_CLAUSE_VERBS and v and words[v - 1].lower() in ("that", "which")
        )
        covered = _covered(words, v) if verb in ASKED_VERBS_OF_COVER or clause else None
        if covered is not None:
            return covered
        noun_of = _price_verb(words, v)
        if noun_of is None:
            continue
        end = v - 1 if v and words[v - 1].lower() in RELATIVE_PRONOUNS else v
        subject, _ = _tail_phrase(words[:end])
        head = singular(normalised(subject[-1])) if subject else ""
        if not head or head in ASKED_GENERIC_HEADS or is_quantity_noun(head):
            return None  # "Amount charged", "fees billed": the name is before the verb
        if synonyms_of(_joined(subject)):
            return None
        if linked and not is_document_noun(normalised(subject[-1])):
            return None
        rest = words[v + 1 :]
        while rest and rest[0].lower() in _OBJECT_OPENERS:
            rest = rest[1:]
        written = _joined([*subject, *words[end:]])
        if rest and all(singular(normalised(w)) in BILLED_PARTIES for w in rest):
            # "lawyers who charge clients": who is billed, not what is priced
            rest, written = [], _joined([*subject, *words[end : v + 1]])
        if not rest and _prices_its_subject(verb, subject[-1]) and not is_document_noun(head):
            # "dental crowns costing", "repairs billed at": the crowns' price, the repairs'
            # rate (a label may say the words whole)
            return _joined(subject), None, written
        if rest:
            phrase, stopped = _tail_phrase(rest)
            if not phrase or stopped >= 0:
                return None  # no plain noun phrase after the verb
            name = _joined(phrase)
        elif noun_of[verb] is None:
            return None  # "asking" names no figure of its own
        else:
            name = noun_of[verb] or ""
        kept = [w for w in subject if w != ","]
        if len(kept) == 1 and singular(kept[0].casefold()) != kept[0].casefold():
            kept.pop()  # "movers charging": a lone plural is the holder, known or not
        while kept and _names_the_holder(kept[-1]):
            kept.pop()
        context = _unsaid(_joined(kept), name.split(" ")) if kept else None
        return name, context, written
    return None


def _price_verb(words: list[str], v: int) -> Mapping[str, str | None] | None:
    """The table that reads ``words[v]`` as a verb of pricing: :data:`~osrag.lexicon.links.
    ASKED_PRICE_VERBS`, or after a relative word :data:`~osrag.lexicon.links.
    ASKED_PRICE_CLAUSE_VERBS` ("that **bill**", "who **charge**"); None when it is none."""
    verb = words[v].lower()
    if verb in ASKED_PRICE_VERBS:
        return ASKED_PRICE_VERBS
    if verb in ASKED_PRICE_CLAUSE_VERBS and v and words[v - 1].lower() in RELATIVE_PRONOUNS:
        return ASKED_PRICE_CLAUSE_VERBS
    return None


def _paid_every(raw: str) -> tuple[str, str | None, str | None] | None:
    """(the thing paid for with how often, its kind of document, None) when a participle of
    paying and an adverb of its period end ``raw`` ("RV storage **paid annually for**":
    "RV storage annually", read as RV storage per year: :data:`~osrag.lexicon.links.
    ASKED_PAID_EVERY`); None otherwise, or when no noun phrase names the thing."""
    found = ASKED_PAID_EVERY.search(raw)
    if found is None:
        return None
    words = _QUESTION_TOKENS.findall(without_parentheses(raw[: found.start()]))
    phrase, stopped = _tail_phrase(words)
    if not phrase:
        return None
    context = _unsaid(_context(words, stopped), phrase)
    return f"{_joined(phrase)} {found['adverb'].lower()}", context, None


ASKED_VERBS_OF_COVER = ASKED_COVER_VERBS | ASKED_PAYOUT_VERBS
_UP_TO = ("up", "to")
"""The words that say a limit's figure is at most paid ("covering heating **up to** …")."""


def _covered(words: list[str], v: int) -> tuple[str, str | None, str] | None:
    """ "tenant protection that **covers** at least", "warranties **covering** heating and
    cooling up to", "breakdown cover **paying** at least": (the limit — of the object of a
    verb of cover when one follows —, the words naming what holds it, the words as
    written), when a verb of :data:`~osrag.lexicon.links.ASKED_COVER_VERBS` or, after a
    cover (:data:`~osrag.lexicon.label_roles.FIGURE_WORDS`), of
    :data:`~osrag.lexicon.links.ASKED_PAYOUT_VERBS` stands
    between them and the constraint; else None (a verb of paying out with an object:
    "plans paying food loss of" asks the food loss)."""
    verb = words[v].lower()
    end = v - 1 if v and words[v - 1].lower() in ("that", "which") else v
    subject, _ = _tail_phrase(words[:end])
    if not subject:
        return None
    rest = words[v + 1 :]
    while rest and rest[0].lower() in _OBJECT_OPENERS:
        rest = rest[1:]
    if tuple(w.lower() for w in rest[-2:]) == _UP_TO:
        rest = rest[:-2]
    head = singular(normalised(subject[-1]))
    if verb in ASKED_PAYOUT_VERBS and (rest or head not in FIGURE_WORDS):
        return None  # "policies that pay over", "plans paying food loss of": no cover's limit
    name = "limit"
    if rest:
        phrase, stopped = _tail_phrase(rest)
        if not phrase or stopped >= 0:
            return None
        name = f"{_joined(phrase)} limit"
    kept = [w for w in subject if w != ","]
    context = _unsaid(_joined(kept), name.split(" ")) if kept else None
    return name, context, _joined([*subject, *words[end:]])


def _label_before(
    text: str, c: AmountConstraint, floor: int, years: Sequence[tuple[int, int, int]]
) -> tuple[str, str | None, str | None] | None:
    """(the name, the kind of document, the name as written when another was read from it)
    of the noun phrase before ``c`` (the module docstring), or None."""
    start = max(floor, c.start - WINDOW)
    raw = text[start : c.start]
    every = _paid_every(raw)
    if every is not None:
        return every
    bound = ASKED_BOUND.search(raw)  # "liability capped at": the liability's cap
    if bound is not None:
        raw = raw[: bound.start()]
    before = _strip_links(raw, years, start)
    priced = _priced(_QUESTION_TOKENS.findall(without_parentheses(before)))
    if priced is None:  # a verb of pricing that is a link too ("worth", "priced at")
        priced = _priced(_QUESTION_TOKENS.findall(without_parentheses(raw)), linked=True)
    if priced is not None:
        return priced
    linked = len(before) < len(raw.rstrip())
    # parenthesised words are no part of a name's keys ("Net income (loss)")
    words = _QUESTION_TOKENS.findall(without_parentheses(before))
    phrase, stopped = _tail_phrase(words)
    if not phrase and linked:  # "cost over $4,000": the noun a link verb may be is the name
        words = _QUESTION_TOKENS.findall(without_parentheses(raw))
        phrase, stopped = _tail_phrase(words)
        linked = False
    if not phrase:
        return None
    governed = c.op in ("gt", "gte", "lt", "lte") or _governed(c.text)
    if not governed and not linked and not is_quantity_noun(phrase[-1]):
        return None  # "umbrella coverage $300K": an amount beside a name, not its value
    phrase, kind = _holder_complement(phrase)
    context = _unsaid(_context(words, stopped), phrase)
    if kind:
        context = " ".join(filter(None, (context, _joined(kind))))
    if stopped >= 0 and _a_known_possessor(words[stopped], phrase):
        phrase = [words[stopped], *phrase]  # "employer's liability": one name
    if bound is not None:
        phrase = [*phrase, "cap" if bound["verb"].lower() == "capped" else "limit"]
    return _joined(phrase), context, None


_ARTICLE_BEFORE = re.compile(r"(?i)(?<![\w'’-])an?\s+\Z")
"""An indefinite article right before an amount: the amount is said of the noun after it
("a $25 filing charge"), as an adjective is."""


def _label_after(text: str, c: AmountConstraint, ceiling: int) -> str | None:
    after = text[c.end : min(ceiling, c.end + WINDOW)]
    if ASKED_OWED.match(after):  # "with less than $400 left to pay": what is still due
        return OWED_NAME
    introduced = re.match(r"\s+of\s+", after, re.IGNORECASE)
    rest = after[introduced.end() :] if introduced else after
    phrase = _phrase_at(rest)
    if not phrase:
        return None
    if not introduced and _ARTICLE_BEFORE.search(text[: c.start]) and is_quantity_noun(phrase[-1]):
        return _joined(phrase)  # "with a $15 late payment fee": the figure of the noun it leads
    if not introduced and not is_quantity_noun(phrase[0]):
        return None
    if not introduced:
        # "$500 deductible applies": the quantity nouns that start the phrase
        kept = [w for w in phrase[:1]]
        for word in phrase[1:]:
            if not is_quantity_noun(word):
                break
            kept.append(word)
        phrase = kept
    return _joined(phrase)


def _priced_object_after(text: str, c: AmountConstraint, ceiling: int) -> str | None:
    """The thing a verb of pricing prices when the question writes it after the figure:
    introduced by "for", after the price's unit or none ("funeral homes charging under
    $1,000 **for embalming**", "shops charging $150 an hour **for labor**":
    :data:`~osrag.lexicon.links.ASKED_PRICED_FOR`), or by "per" when more than a unit
    alone follows and no period after it ("engineers charging over $400 **per site
    visit**", "preparers charging $60 **per additional state return**":
    :data:`~osrag.lexicon.links.ASKED_PRICED_PER`; "per hour", "per page" and "per user
    per month" only count the price). Its noun phrase, or None when none follows."""
    after = text[c.end : min(ceiling, c.end + WINDOW)]
    thing = _thing_for(after)
    if thing is not None:
        return _joined(thing) if thing else None
    introduced = ASKED_PRICED_TO.match(after)
    if introduced is not None:
        verb = introduced.group("verb")
        work = _phrase_at(after[introduced.end() :])
        if verb.lower() not in LIGHT_VERBS:
            work = [*work, verb]  # "to bustle a wedding dress": a wedding dress's bustle
        return _joined(work) if work else None
    introduced = ASKED_PRICED_PER.match(after)
    if introduced is None:
        return None
    rest = after[introduced.end() :]
    phrase = _phrase_at(rest)
    if phrase and phrase[-1].lower() in UNIT_ADVERBS:
        phrase = phrase[:-1]  # "per seat monthly": the period, said as an adverb
    if len(phrase) < 2 or phrase[0].lower() in PERIOD_UNITS:
        return None  # "per hour", "per page", "per hour worked": the unit it is counted by
    tokens = list(_QUESTION_TOKENS.finditer(rest))
    if unit_phrase_end(rest, tokens[len(phrase) - 1].end()) is not None:
        return None  # "per square foot a year": a unit of sale before the period
    return _joined(phrase)


def _priced_for(text: str, c: AmountConstraint, ceiling: int, qualifier: str | None) -> str | None:
    """The thing a kind of document's figure is for, written after it with "for" ("sofa
    reupholstery quotes over $1,200 **for labor**", "invoices under $300 **for parts**"):
    its noun phrase, when one follows that says no duration or count ("for a week", "for
    two children") nor the whole of what the kind prices ("for the job", "for the move" of
    moving estimates: ``qualifier``, the kind's own words); else None."""
    phrase = _thing_for(text[c.end : min(ceiling, c.end + WINDOW)])
    if not phrase:
        return None
    head = singular(normalised(phrase[-1]))
    if head in WHOLE_JOBS or (qualifier and key_stem(head) in key_stem(qualifier).split(" ")):
        return None  # "for the job", "moving estimates … for the move": the whole
    return _joined(phrase)


def _thing_for(after: str) -> list[str] | None:
    """The noun phrase ``after`` (the text after a figure) writes after "for" and the price's
    unit (:data:`~osrag.lexicon.links.ASKED_PRICED_FOR`): None when no "for" follows, empty
    when no phrase does or it says how long or how many ("for a week", "for the first hour",
    "for two children": :func:`_a_duration_or_count`)."""
    introduced = ASKED_PRICED_FOR.match(after)
    if introduced is None:
        return None
    phrase = _phrase_at(after[introduced.end() :])
    return [] if not phrase or _a_duration_or_count(phrase) else phrase


def _a_duration_or_count(phrase: list[str]) -> bool:
    """``phrase`` after "for" says how long or how many a price is for, not what it buys:
    it opens with a number or an ordinal ("for **two** children", "for the **first**
    hour") or its head is a period unit ("for a **week**", "for a **year** of lessons")."""
    first = phrase[0].lower()
    if first in UNIT_NUMBERS or first in CARDINALS or first in TERM_YEAR_NUMBERS:
        return True
    words = [w.lower() for w in phrase]
    cut = next((i for i, w in enumerate(words) if i and w in INSIDE_A_NAME), len(words))
    return words[cut - 1] in PERIOD_UNITS


def _phrase_at(rest: str) -> list[str]:
    """The words of the noun phrase ``rest`` starts with, up to a word that cannot be part
    of a name (a stop word other than "of", a mark, a figure), its edge words off."""
    phrase: list[str] = []
    for word in _QUESTION_TOKENS.findall(rest):
        lower = word.lower()
        if (
            (lower in ASKED_NAME_STOPS and lower != "of")
            or (not word[0].isalpha() and word != ",")
            or DIGIT.search(word)
        ):
            break
        phrase.append(word)
        if len(phrase) >= MAX_LABEL_WORDS:
            break
    while phrase and phrase[-1].lower() in NAME_EDGES:
        phrase.pop()
    return phrase


def _verb_alone(label: str | None, written: str | None) -> bool:
    """The name is the figure a verb of pricing names itself, no object of it before the
    constraint ("funeral homes **charging** under": a charge)."""
    said = (written or "").split(" ")
    verb = said[-1].lower()
    if len(said) > 1 and said[-2].lower() in RELATIVE_PRONOUNS:
        noun = ASKED_PRICE_VERBS.get(verb) or ASKED_PRICE_CLAUSE_VERBS.get(verb)
    else:
        noun = ASKED_PRICE_VERBS.get(verb)
    return label is not None and noun is not None and noun == label


def _names_a_quantity(label: str | None) -> str | None:
    """``label`` when its head — the last word before a complement, as a label's keys
    read it — is no document noun ("flood policy" names none, "face amount of the
    policy" a face amount)."""
    if label is None:
        return None
    words = normalised(label).split(" ")
    cut = next((i for i, w in enumerate(words) if i and w in INSIDE_A_NAME), len(words))
    if not words[0] or is_document_noun(words[cut - 1]):
        return None
    return label.strip(" ,")


TOTAL = "total"
"""The name a constraint on a document's own total is bound to (with ``total_of``)."""


def _total_asked(label: str | None) -> tuple[str, str | None] | None:
    """(the noun, the kind's qualifier) when ``label`` is a kind of document alone whose own
    figure is its total — its head a totalled noun of a profile in use ("contractor
    **bids**", "binding moving **estimates**": :meth:`~osrag.lexicon.profiles.Vocabulary.
    totals_of`), before a complement that only specifies it or none ("**bids** for
    roofing"): the words around the noun but determiners are the qualifier; None for any
    other name ("flood policy": a policy has no one figure of its own)."""
    if label is None:
        return None
    written = [w for w in label.strip(" ,").split(" ") if w and w != ","]
    words = [normalised(w) for w in written]
    if not written or not words[0]:
        return None
    cut = next((i for i, w in enumerate(words) if i and w in INSIDE_A_NAME), len(words))
    if cut < len(words) and words[cut] not in SPECIFYING:
        return None
    if not vocabulary().totals_of(words[cut - 1]):
        return None
    kept = [w for w in [*written[: cut - 1], *written[cut + 1 :]] if w.lower() not in DETERMINERS]
    return singular(words[cut - 1]), (_joined(kept) if kept else None)


def _totalled_kind(written: str | None) -> str | None:
    """The totalled noun a verb of amounting follows ("order **forms** totalling", "invoices
    that totalled"): the kind whose own total the verb names; None for any other."""
    words = (written or "").split(" ")
    while words and words[-1].lower() in {*ASKED_PRICE_VERBS, "that", "which"}:
        words.pop()
    total = _total_asked(" ".join(words)) if words else None
    return None if total is None else total[0]


def _whole_of(
    text: str, c: AmountConstraint, floor: int, ceiling: int, years: Sequence[tuple[int, int, int]]
) -> tuple[str, str | None] | None:
    """(the noun, the kind's qualifier) when the question says the figure is a whole right
    after ``c`` (:data:`~osrag.lexicon.links.ASKED_WHOLE`: "**in total**", "**all told**")
    and names before it, through a verb of pricing or none, a kind of document
    ("**endorsement agreements** paying more than $400,000 in total", "sponsorship
    **agreements** worth over $50,000 all told" — a document noun, totalled by a profile
    or not): the kind's own total. None otherwise."""
    if ASKED_WHOLE.match(text[c.end : ceiling]) is None:
        return None
    start = max(floor, c.start - WINDOW)
    words = _QUESTION_TOKENS.findall(
        without_parentheses(_strip_links(text[start : c.start], years, start))
    )
    while words and words[-1].lower() in {*ASKED_PRICE_VERBS, "that", "which"}:
        words.pop()
    phrase, _ = _tail_phrase(words)
    if not phrase or not is_document_noun(normalised(phrase[-1])):
        return None
    kept = [w for w in phrase[:-1] if w.lower() not in DETERMINERS and w != ","]
    return singular(normalised(phrase[-1])), (_joined(kept) if kept else None)


def _nearest_year(c: AmountConstraint, years: Sequence[tuple[int, int, int]]) -> int | None:
    distinct = {y for y, _, _ in years}
    if len(distinct) == 1:
        return next(iter(distinct))
    after = [y for y in years if y[1] >= c.end]
    if after:
        return min(after, key=lambda y: y[1] - c.end)[0]
    before = [y for y in years if y[2] <= c.start]
    return max(before, key=lambda y: y[2])[0] if before else None


def bind_constraints(text: str, constraints: Sequence[AmountConstraint]) -> list[AmountConstraint]:
    """``constraints`` (as :func:`~osrag.search.constraint_parser.parse_constraints` read
    them from ``text``, in order) with the label, year and sign ``text`` binds each to
    (see the module docstring); a constraint that names none is returned as it is."""
    if not constraints:
        return []
    spans = [(c.start, c.end) for c in constraints]
    years = stated_years(text, spans)
    quarters = stated_quarters(text, spans)
    stated = {q for q, _, _ in quarters}
    quarter = stated.pop() if len(stated) == 1 else None
    halves = stated_halves(text, spans)
    stated_half = {h for h, _, _ in halves}
    half = f"h{stated_half.pop()}" if len(stated_half) == 1 and quarter is None else None
    # the quarters' and halves' words blanked out (offsets kept): never part of a label
    parts = [*quarters, *halves]
    plain = "".join(
        " " if any(s <= i < e for _, s, e in parts) else ch for i, ch in enumerate(text)
    )
    term_year = _term_year(plain, spans)
    order = sorted(range(len(constraints)), key=lambda i: constraints[i].start)
    bound: list[AmountConstraint] = list(constraints)
    for position, i in enumerate(order):
        c = constraints[i]
        floor = constraints[order[position - 1]].end if position else 0
        ceiling = constraints[order[position + 1]].start if position + 1 < len(order) else len(text)
        before = _label_before(plain, c, floor, years)
        label, context, written = (None, None, None) if before is None else before
        at_unit = False
        if _verb_alone(label, written):  # "charging under $1,000 for embalming"
            thing = _priced_object_after(plain, c, ceiling)
            label, at_unit = (label, False) if thing is None else (thing, True)
        total, label_as_written = _total_asked(label), label
        if total is None and (_names_a_quantity(label) is None or _verb_alone(label, written)):
            # "endorsement agreements paying more than $400,000 in total": the kind's total
            total = _whole_of(plain, c, floor, ceiling, years)
            if total is not None:
                label = label_as_written = None
        label = _names_a_quantity(label)
        if label is None and total is not None:
            # "sofa reupholstery quotes over $1,200 for labor": the labor's figure in them
            thing = _priced_for(plain, c, ceiling, total[1])
            if thing is not None:
                label, context, total, at_unit = thing, total[1], None, True
        if label is None:
            label, context = _names_a_quantity(_label_after(plain, c, ceiling)), None
            if total is not None and label == TOTAL:  # "cleaning quotes above $900 total"
                label = None  # the total word after the amount: the kind's own total
        if label is None and total is not None:
            noun, qualifier = total
            context = " ".join(filter(None, (context, qualifier))) or None
            # a fact whose label says the name as written is the figure too ("Large
            # orders for offshore wind-farms"): every stored label stays askable
            written = label_as_written.strip(" ,") if label_as_written else None
            bound[i] = _read(c, TOTAL, context, plain, years, quarter, half).model_copy(
                update={"total_of": noun, "named": written}
            )
            continue
        if label is None:
            continue
        if owed_alone(label) is not None:  # "a balance under $2,000": still due
            label, written = OWED_NAME, written or label.strip(" ,")
        bound[i] = _read(c, label, context, plain, years, quarter, half, at_unit=at_unit)
        if written is not None and bound[i].named is None:
            bound[i] = bound[i].model_copy(update={"named": written})  # "… costing" a label says
        kind = _totalled_kind(written) if label == TOTAL else None
        if kind is not None:  # "invoices totalling over": the invoice's own total
            bound[i] = bound[i].model_copy(update={"total_of": kind})
        if term_year is not None and bound[i].period_part == "full" and quarter is None:
            bound[i] = bound[i].model_copy(update={"period_part": term_year})
    return bound


def _term_year(text: str, spans: Sequence[tuple[int, int]]) -> PeriodPart | None:
    """The year of a term the question names anywhere outside its amounts ("Year 1 rent",
    "budget year 2 costs", "in the second year"), by the one reader of names
    (:func:`~osrag.lexicon.scopes.read_scope`); None when it names none."""
    pieces, at = [], 0
    for start, end in sorted(spans):
        pieces.append(text[at:start])
        at = max(at, end)
    pieces.append(text[at:])
    part = read_scope(" ".join(pieces).split()).period_part
    return part if part in TERM_YEARS else None


def _read(
    c: AmountConstraint,
    label: str,
    context: str | None,
    text: str,
    years: Sequence[tuple[int, int, int]],
    quarter: int | None,
    half: str | None = None,
    *,
    at_unit: bool = False,
) -> AmountConstraint:
    """``c`` bound to the name ``label``: the quantity, scope, part of the year and period
    unit its words say (:func:`~osrag.search.reading.read_name`), the unit written after
    the amount — for a quantity that recurs, or with ``at_unit`` for the thing a verb of
    pricing prices ("charging $150 an hour for labor": labor, per hour) —, the year and
    quarter the question states, and the sign."""
    reading = read_name(label)
    unit = reading.period_unit
    if unit is None and reading.label is not None:
        # "HOA dues over $400 a month", "storage at $50 a day or less"
        after = unit_after(text, c.end) or unit_in_phrase(c.text)
        if after is not None and (at_unit or vocabulary().recurring(reading.label)):
            unit = after
    if reading.kind is not None:
        context = " ".join(filter(None, (context, reading.kind)))
    part = f"q{quarter}" if quarter is not None else (half or reading.period_part)
    named = reading.label or reading.named
    return c.model_copy(
        update={
            "label": reading.label,
            "named": reading.named,
            "context": context,
            "year": _nearest_year(c, years),
            "signed": (named is not None and is_signed(named)) or c.written_signed,
            "quarter": quarter,
            "scope": reading.scope,
            "scope_name": reading.scope_name,
            "period_part": part,
            "period_unit": unit,
        }
    )
