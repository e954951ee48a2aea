"""The closed classes of English the phrase readers stop at.

A label read from prose or a question is a noun phrase, and a noun phrase is bounded by
function words: an article or a determiner opens it, a pronoun stands for it, a verb of
being, having or reporting or a clause word lies outside it. The readers that run over
words — back from an amount in a document (:mod:`osrag.extract.facts.text`), back from
a constraint in a question (:mod:`osrag.search.binding`), over a heading
(:mod:`osrag.extract.facts.sections`) — stop at the sets below.
"""

from __future__ import annotations

from osrag.lexicon.words import word_set

__all__ = [
    "ASKED_NAME_STOPS",
    "BOUNDARY_WORDS",
    "CONTEXT_ARTICLES",
    "CONTEXT_LINKS",
    "COORDINATORS",
    "DEFINITE",
    "DETERMINERS",
    "FORWARD_STOPS",
    "INDEFINITE",
    "NAME_EDGES",
    "NOT_IN_A_NAME",
    "NP_PREPOSITIONS",
    "PRONOUNS",
    "SENTENCE_VERBS",
]

COORDINATORS = frozenset({"and", "or"})
"""The conjunctions that join the words of one name ("Property, plant and equipment")."""

ASKED_NAME_STOPS = frozenset({
    # articles, determiners, pronouns
    "a", "an", "the", "this", "that", "these", "those", "each", "every", "any", "all",
    "some", "no", "its", "their", "his", "her", "our", "my", "your", "whose", "which", "who",
    "whom", "what", "where", "when", "why", "how", "it", "they", "we", "i", "you", "there",
    # prepositions (not "of", "by", "from", "before", "after": "cost of revenue", "provided
    # by operating activities", "income from operations", "income before income taxes")
    "with", "without", "within", "for", "in", "on", "at", "to", "into", "than",
    "as", "per", "over", "under", "above", "below", "between", "about", "across", "among",
    "during", "since", "until", "while", "if", "whether",
    # verbs of being, having, showing, reporting, asking
    "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "having",
    "do", "does", "did", "show", "shows", "showed", "shown", "showing", "report",
    "reported", "reporting", "list", "lists", "listing", "find", "give", "gives", "get",
    "gets", "got", "hold", "holds", "held", "holding", "state", "states", "stated",
    "disclose", "discloses", "disclosed", "disclosing", "carry", "carries", "carrying",
    "offer", "offers", "offering", "provide", "provides", "include", "includes",
    "including", "need", "needs", "want", "wants", "pay", "pays", "paid",
    # conjunctions and the like
    "or", "but", "nor", "so", "yet", "not", "only", "also", "just", "then",
    "please", "me", "us",
})  # fmt: skip
"""Words a noun phrase before a constraint stops at (not part of it)."""

NAME_EDGES = frozenset({",", "and", "&", "of", "by", "from", "before", "after"})
"""Words that join a phrase's parts, never its first or last word."""

CONTEXT_ARTICLES = frozenset({"a", "an", "the", "its", "their"})
"""An article that may stand between a kind of document and its link ("policies with
the limits")."""

CONTEXT_LINKS = frozenset({"with", "whose", "having", "where"})
"""Words that join the kind of document a question names to the quantity it asks about
("umbrella policies **with** limits over $500,000")."""

DETERMINERS = word_set(
    "a an the our its their his her this that these those such any each every your my no one"
)
"""Words that open a noun phrase: the phrase read backwards stops before one."""

BOUNDARY_WORDS = word_set(
    """and but or while whereas which who whom whose that because since although though if
    when where as than compared versus vs with without including include includes
    included reported recorded record records had has have having incurred incur
    generated generate posted paid pay pays received receive recognized recognised
    recognize recognise spent spend earned earn made make achieved delivered provides
    provide provided offers offer offered carries carry carried requires require
    required there it they we he she you i us them also only approximately about nearly
    almost roughly be been being is was were are will would shall should may might can
    could must do does did up down can't can’t cannot won't won’t isn't isn’t aren't
    aren’t wasn't wasn’t doesn't doesn’t don't don’t didn't didn’t"""
)
"""Words a noun phrase read backwards never crosses (verbs of reporting, clause words)."""

NP_PREPOSITIONS = word_set("of from to for on in under over into at between")
"""A determiner after one of these is inside the phrase ("proceeds from the sale")."""

PRONOUNS = word_set("it this that they them these those which what one ones")
"""Words that stand for a noun phrase: alone, they name no quantity."""

FORWARD_STOPS = word_set(
    """per a an the each every in of for to and or was is are were will would may can could
    should shall must has have had that which who compared versus vs than from by with
    at on as into million billion thousand during since over under up down after before
    plus less including included respectively applies apply applied covers cover covered
    pays paid remains remained also net"""
)
"""Words a label read after an amount stops at ("$500 deductible **per** claim")."""

SENTENCE_VERBS = word_set("was were is are paid pays has have had will would")
"""Verbs of a sentence: a key holding one is a sentence, not a name."""

DEFINITE = word_set("the its their his her your our my")
"""Words that open a noun phrase and never follow a noun inside one: the word before one
is a verb ("$1,000 deductible reduces the claim")."""

INDEFINITE = word_set("a an")
"""An indefinite article may follow a noun phrase as a rate ("$450 premium a year"): the
word before it is a verb only when it reads as one (a present-tense *-s* after a noun)."""

NOT_IN_A_NAME = word_set(
    """is are was were be been has have had will would pays paid apply applies which who
    what when where why how that this these those we you it they"""
)
"""Words of a sentence or a question, not of a name (a heading holding one is no name)."""
