"""The words beside an amount in range: whether the figure a hit holds meeting the
question's amount is the one the question asks about.

Below the bound step (:data:`~osrag.search.subject.BESIDE_STEPS`) the filter keeps any
document holding a figure in range, and the subject cut (:mod:`osrag.search.subject`)
keeps the hits saying the most of the question's subject words anywhere in their text. A
hit can say them all and still hold its figure in range for another role: "driving
schools with a $40 late cancellation fee" meets a clinic's price list whose
cancellations cost $75 and whose home visit surcharge is $40. What tells the two apart is
where the asked words stand: beside the amount in range ("charged a $40 cancellation
fee") or elsewhere.

Here an amount's **sentence** is the words around it up to a sentence's end on either
side, within its line — a table row, a list item, a key-value line — and the lines of a
wrapped paragraph it goes on from or to (a line that stops short of a sentence's end, and
one below it starting in lower case or with a currency sign). A hit's **level
beside** is the most subject words (distinct Snowball stems, as
:func:`~osrag.search.subject.said` counts them) any of its amounts in range has in its
sentence and the headings above it (the chunk's title and breadcrumb: what a price list's
lines are prices of), its amounts read as the document side reads them
(:func:`~osrag.extract.money_reading.read_money`: a table's figures under the caption that
scales them). The cut (:func:`with_words_beside`) keeps, where some hit's
level is at least one, the hits within ``slack`` words of the highest level (the spec's
``subject_slack``, one by default, as for the subject cut: "umbrella" beside a limit of
$300,000 stays beside "umbrella coverage of $300,000"), never a hit at level zero, and
every hit whose body holds no amount the reader finds in range (a table whose currency is
in its header, a figure in words): nothing there says its figure is another role's.
Nothing is cut when no hit's amount in range has an asked word beside it.

The words naming **who** the document is from — the kind of document a constraint names as
its context ("junk haulers" of "junk haulers charging $35 or less to dispose of an
appliance") and the subject of a pricing verb ("movers" of "movers charging over $150") —
are not counted beside an amount: they say whose figures these are, in a title or anywhere,
not which figure ("Crew of 2 movers" beside $120 an hour says nothing of a flat move fee
of $395). What is left is the quantity's own words and the thing priced ("dispose",
"appliance").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from osrag.currencies import SIGNS, dollar_currency
from osrag.extract.money_reading import read_money
from osrag.lexicon.links import ASKED_PRICE_VERBS
from osrag.lexicon.words import key_stem
from osrag.schema.constraints import AmountConstraint
from osrag.search.subject import at_highest_level, said_in, subject_words

T = TypeVar("T")

_SENTENCE_ENDS = ".!?"
_CLAUSE_ENDS = ".!?:;"
_OPENING = "\"'(\u201c\u2018["


def in_range(constraint: AmountConstraint, currency: str, minor_units: int) -> bool:
    """Whether an amount (its currency, its magnitude in minor units) meets ``constraint``'s
    currency and bounds — what the amount filter asks of a figure below the bound step."""
    if currency != constraint.currency:
        return False
    b = constraint.bounds
    match constraint.op:
        case "eq":
            return minor_units == b[0]
        case "in":
            return minor_units in b
        case "between":
            return b[0] <= minor_units <= b[-1]
        case "gt":
            return minor_units > b[0]
        case "gte":
            return minor_units >= b[0]
        case "lt":
            return minor_units < b[0]
        case "lte":
            return minor_units <= b[0]


def _ends_sentence(text: str, at: int) -> bool:
    """Whether ``text[at]`` ends a sentence: a full stop, question or exclamation mark
    after a word, then a space and a capital, an opening mark, or the line's end ("$40.
    Lessons"; not "$40.00", "No. 7", "approx. three" or a dot leader's "..... $40")."""
    if text[at] not in _SENTENCE_ENDS or at == 0:
        return False
    if text[at - 1] in _SENTENCE_ENDS or text[at - 1].isspace():
        return False
    after = text[at + 1 : at + 3]
    if not after or after[0] == "\n":
        return True
    return after[0].isspace() and (len(after) == 1 or after[1].isupper() or after[1] in _OPENING)


def _continues(line: str) -> bool:
    """Whether ``line`` goes on with the sentence of the line above it, where that one
    stops short of a sentence's end: it starts in lower case or with a currency sign (a
    paragraph wrapped at "at least $2 million each occurrence and / $4 million in the
    aggregate"); a table row, a list item or a key-value line starts otherwise."""
    first = line.lstrip()[:1]
    return first.islower() or any(line.lstrip().startswith(sign) for sign in SIGNS)


def _open(line: str) -> bool:
    """Whether ``line`` holds words and stops short of a sentence's or a clause's end."""
    return bool(line.strip()) and line.rstrip()[-1] not in _CLAUSE_ENDS


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def sentence(text: str, start: int, end: int) -> str:
    """The sentence of the amount at ``text[start:end]`` (see the module docstring)."""
    line_start, line_end = _line_start(text, start), _line_end(text, end)
    # a wrapped sentence: the lines it goes on from, and the lines it goes on to
    while line_start > 0:
        above = _line_start(text, line_start - 1)
        here = text[line_start : _line_end(text, line_start)]
        if not (_open(text[above : line_start - 1]) and _continues(here)):
            break
        line_start = above
    while line_end < len(text):
        below = _line_end(text, line_end + 1)
        last = text[_line_start(text, line_end) : line_end]
        if not (_open(last) and _continues(text[line_end + 1 : below])):
            break
        line_end = below
    left = line_start
    for at in range(start - 1, line_start - 1, -1):
        if _ends_sentence(text, at):
            left = at + 1
            break
    right = line_end
    for at in range(end, line_end):
        if _ends_sentence(text, at):
            right = at + 1
            break
    return text[left:right]


def level_beside(
    text: str,
    subject: Sequence[str],
    constraints: Sequence[AmountConstraint],
    headings: str = "",
) -> int | None:
    """The most ``subject`` words any amount of ``text`` in range of one of the
    ``constraints`` has in its sentence or the ``headings`` above it (a chunk's title and
    breadcrumb); None when the reader finds no amount in range."""
    if not constraints:
        return None
    default = dollar_currency(constraints[0].currency)
    levels = [
        said_in((headings, sentence(text, m.start, m.end)), subject)
        for m in read_money(text, default).mentions
        if any(in_range(c, m.currency, m.minor_units) for c in constraints)
    ]
    return max(levels) if levels else None


def asked_beside(
    subject: Sequence[str], constraints: Sequence[AmountConstraint]
) -> tuple[str, ...]:
    """The ``subject``'s words counted beside an amount: all but those naming who the
    document is from (see the module docstring) — a constraint's context, and the words of
    the name it was asked by (``named``: "movers charging") that are no word of its label."""
    who: set[str] = set()
    for c in constraints:
        who |= {key_stem(w) for w in subject_words(c.context or "")}
        if c.named and _priced_by_a_verb(c.named):
            label = {key_stem(w) for w in subject_words(c.label or "")}
            who |= {key_stem(w) for w in subject_words(c.named)} - label
    return tuple(w for w in subject if key_stem(w) not in who)


def _priced_by_a_verb(named: str) -> bool:
    """Whether a quantity's name as asked ends in a verb that prices ("movers charging"),
    its words before it naming who prices — not a name whose words were read as a scope or
    a period ("EMEA goodwill", "monthly rent")."""
    words = named.casefold().split()
    return bool(words) and words[-1] in ASKED_PRICE_VERBS


def with_words_beside(
    hits: Sequence[T],
    subject: Sequence[str],
    constraints: Sequence[AmountConstraint],
    text_of: Callable[[T], str],
    headings_of: Callable[[T], str],
    slack: int = 0,
) -> list[T]:
    """The hits whose amount in range has the most ``subject`` words beside it (those
    :func:`asked_beside` counts), or up to
    ``slack`` fewer (never none), and those whose amount in range the reader does not find,
    in order; every hit when no amount in range has one beside it (see the module
    docstring)."""
    subject = asked_beside(subject, constraints)
    if not subject or not constraints:
        return list(hits)
    levels = [level_beside(text_of(hit), subject, constraints, headings_of(hit)) for hit in hits]
    return at_highest_level(hits, levels, slack)
