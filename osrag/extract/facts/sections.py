"""Section labels: the heading a figure stands under, when it names the quantity.

A Markdown section headed ``## Limits`` or ``### Annual premium`` says what the figures
in it are, and so does a plain text's heading line — an upper-case line standing alone or
a numbered one (``SERVICES FEE SCHEDULE``, ``7. LATE CHARGES``), as the plain-text outline
reads it (:func:`~osrag.chunking.plaintext.scan_plaintext`; its number is no word of the
name; a Markdown text's upper-case lines are no headings). Prose inside it often does
not repeat it ("Umbrella coverage pays no more than USD 300,000 for any one
occurrence"). An amount outside a table for which its own line
and sentence give no label takes the label of the nearest heading above it — only when
that heading is a name of a quantity:

* a short noun phrase (at most five words), no figure in it, no verb of a sentence, no
  conjunction (``Deductibles and limits`` would be a guess between two quantities);
* whose head noun — its last word, or the word before a specifying complement (``of``,
  ``per``, ``for``, ``under``, ``over``, ``by``: ``Limits of liability``, ``Deductibles
  by state``) — is one of :data:`~osrag.lexicon.quantities.CONTRACT_TERMS`
  (in either number): a short, closed list of
  the nouns that name the amounts of a contract or a price list (limits, deductibles,
  retentions, premiums, prices, fees …). ``## Coverage``, ``## Exclusions``,
  ``## Overview`` name no quantity, and topic headings of long texts (``Income``,
  ``Compensation``) name no single one: figures under them stay unlabelled. A heading
  that names a list of a quantity names its figures by the quantity: ``Services Fee
  Schedule`` → ``Services Fee``, ``Schedule of Charges`` → ``Charges``, ``Price List``
  (:data:`~osrag.lexicon.label_roles.LIST_NOUNS`);
* and the amount is the **only** figure of its section (from the heading to the next
  one; a table's cells count): a section that states several figures says what they are
  about, not which one each is ("## Premiums: $185 a year, $45 per additional car").
  It stands within :data:`REACH` characters below the heading.

A numbered clause's **run-in caption** says the same of its own paragraph: "3. Rent.
Subtenant will pay $1,275 per month", "2. **Security deposit.** The Lodger pays $875 on
signing" — a caption (after a clause number, or set in bold) that ends in a full stop or a
colon and starts the paragraph. It labels an amount of the paragraph the text leaves
unlabelled when it is a short name as above whose head names a quantity
(:func:`~osrag.lexicon.quantities.is_quantity_noun`: a caption is the amount's own clause,
so any quantity noun, not only a heading noun), the amount is the paragraph's only one
and it stands in the clause's first sentence (a later one is about something else: "a.
Prior Contract Commitments. Schedule 10.a lists … Nexstar shall not honor trade
liabilities … exceeding $25,000").
It comes before the section heading above: it is nearer.

A heading also names **what a price list prices**: a paragraph or a sentence that opens
with its amount and names nothing before it ("$350 per person.", "£45 per month, payable by
direct debit.", "$1,200 for the season, due in two instalments.") right under a heading
that names an offer ("## Individual tickets", a short title line "Monthly membership",
"<h2>Season pass</h2>" as the HTML loader writes it) is that offer's price, whatever the
offer's noun — a ticket, a membership, a pass are no quantity nouns
(:meth:`SectionHeadings.priced_at`). Only when:

* the amount opens its sentence — its line's first word (after a list's bullet), its line
  not continuing a sentence from the line above, or right after an earlier sentence's
  stop — and what follows it is a price's qualifiers only: a unit ("per person", "a
  month", "/night"), what the price is for ("for the season"), a parenthesis, then the
  sentence's end, a comma, or the next alternative ("or $600 per couple");
* the heading is the nearest one above it (the heading read back by
  :func:`~osrag.extract.facts.context.heading_above`: a Markdown heading, a bold or short
  title line), within :data:`PRICED_REACH` characters;
* and the heading names a thing (:func:`names_a_priced_thing`): a short noun phrase as
  above, not opening with a determiner or a pronoun, whose head is no title of a part of a
  document (:data:`~osrag.lexicon.label_roles.SECTION_TITLES`: "Summary", "Terms",
  "Notes") nor a kind of document, and which has a word besides the quantity nouns, those
  titles and function words — "Fees", "Payment", "Pricing", "Payment terms", "Price
  list" name the figures, not a thing priced (a section of one amount under a quantity's
  heading is labelled by the rule above).

A label the text gives (a table cell's row, a key, a noun phrase in the sentence) always
wins over a caption's and a heading's.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Sequence

from osrag.extract.facts.context import heading_above
from osrag.extract.facts.labels import clean_label
from osrag.extract.marks import FIGURE_OR_SIGN, LIST_BULLET, line_matches
from osrag.lexicon.bounds import LABEL_CHARS
from osrag.lexicon.function_words import (
    ALL_PREPOSITIONS,
    DETERMINERS,
    NOT_IN_A_NAME,
    NOT_PARTICIPLES,
    PREDICATIVES,
    PRONOUNS,
)
from osrag.lexicon.label_roles import (
    EMPTY_HEADS,
    FIGURE_WORDS,
    LIST_NOUNS,
    SECTION_TITLES,
    SPECIFYING,
)
from osrag.lexicon.periods import RATE_INTRO
from osrag.lexicon.quantities import is_contract_term, is_document_noun, is_quantity_noun
from osrag.lexicon.words import singular

__all__ = [
    "HEADING_LINE",
    "PRICED_REACH",
    "REACH",
    "SectionHeadings",
    "names_a_priced_thing",
    "names_a_quantity",
]

REACH = 1500
"""How far below its heading (characters) an amount still takes the heading's label: the
figures of the section's first paragraphs, not of a long section's later topics."""

PRICED_REACH = 600
"""How far below its heading (characters) an amount that opens its sentence is still the
price of what the heading names: the section's first paragraphs."""

HEADING_LINE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(?P<title>.*?)[ \t#]*$", re.MULTILINE)
"""A Markdown heading line, its title (as the loaders write every format's headings)."""
_CONJUNCTION = re.compile(r"(?i)\b(?:and|or)\b|[&,/;]")


def names_a_quantity(title: str, *, any_quantity: bool = False) -> str | None:
    """``title`` cleaned as a label when it names a quantity (module docstring), else None;
    a title longer than a label may be (``LABEL_CHARS``) names none. ``any_quantity``: its
    head may be any quantity noun, as a run-in caption's (and a defined term's) may, not
    only a heading noun."""
    return None if len(title) > LABEL_CHARS else _names_a_quantity(title, any_quantity)


@functools.lru_cache(maxsize=1 << 12)
def _names_a_quantity(title: str, caption: bool = False) -> str | None:
    if FIGURE_OR_SIGN.search(title) or _CONJUNCTION.search(title):
        return None
    label = clean_label(title)
    if label is None:
        return None
    label = _listed_quantity(label)
    words = label.lower().split()
    if len(words) > 5 or any(w in NOT_IN_A_NAME for w in words):
        return None
    cut = next((i for i, w in enumerate(words) if w in SPECIFYING), len(words))
    head_names = is_quantity_noun if caption else is_contract_term
    if cut == 0 or not head_names(words[cut - 1]):
        return None
    return label


def names_a_priced_thing(title: str) -> str | None:
    """``title`` cleaned as a label when it names a thing a price list prices (module
    docstring), else None."""
    return None if len(title) > LABEL_CHARS else _names_a_priced_thing(title)


@functools.lru_cache(maxsize=1 << 12)
def _names_a_priced_thing(title: str) -> str | None:
    if FIGURE_OR_SIGN.search(title) or _CONJUNCTION.search(title) or _DOTS.search(title):
        return None  # "Active · Price reduced": a line of statuses, no name
    label = clean_label(title.rstrip(" :"))
    if label is None:
        return None
    words = [_CONTRACTION.sub("", w) for w in label.lower().split()]
    if (
        len(words) > 5
        or any(w in NOT_IN_A_NAME for w in words)
        or words[0] in DETERMINERS
        or words[0] in PRONOUNS
    ):
        return None
    cut = next((i for i, w in enumerate(words) if w in SPECIFYING), len(words))
    if cut == 0:
        return None
    head = singular(words[cut - 1])
    if head in SECTION_TITLES or is_document_noun(head) or all(map(_titles_a_part, words)):
        return None
    if head.endswith("ed") and head not in NOT_PARTICIPLES:
        return None  # "Price reduced", "Sold": a participle says what happened, no thing
    return label


_DOTS = re.compile(r"[·•|]")
"""The marks that part the items of a status line or a breadcrumb written as one."""
_CONTRACTION = re.compile(r"['’](?:s|re|ll|ve|d)$")
"""A contraction's ending ("what's"): the word before it is read."""
_NO_THING = SECTION_TITLES | LIST_NOUNS | FIGURE_WORDS | EMPTY_HEADS
"""The words of a heading that titles a part of a document or names its figures."""


def _titles_a_part(word: str) -> bool:
    """``word`` (lower case) says nothing of what is priced: a title's or a figure's word, a
    quantity noun, a function word."""
    return (
        singular(word) in _NO_THING
        or is_quantity_noun(word)
        or word in ALL_PREPOSITIONS
        or word in DETERMINERS
        or word in PREDICATIVES
    )


def _listed_quantity(label: str) -> str:
    """The quantity a list's name lists: ``Services Fee`` of "Services Fee Schedule",
    ``Fees`` of "Schedule of Fees" (:data:`~osrag.lexicon.label_roles.LIST_NOUNS`);
    ``label`` itself when it names no list."""
    words = label.split()
    if len(words) > 1 and singular(words[-1].lower()) in LIST_NOUNS:
        return " ".join(words[:-1])
    if len(words) > 2 and singular(words[0].lower()) in LIST_NOUNS and words[1].lower() == "of":
        return " ".join(words[2:])
    return label


def _unnumbered(title: str) -> str:
    """A plain-text heading's title without its number: ``FEES`` of "4. FEES", "ARTICLE
    IV - FEES", "Section 2.3 Fees" (a figure in a title says it names no quantity)."""
    found = _NUMBER.match(title)
    return title[found.end() :] if found else title


_NUMBER = re.compile(
    r"(?:(?:ARTICLE|Article|SECTION|Section)\s+(?:[IVXLC]+|\d{1,3}(?:\.\d{1,3})*)|"
    r"\d{1,3}(?:\.\d{1,3})*)\.?\s*[-–—:.]?\s+"
)


_RUN_IN = re.compile(
    r"[ \t]*(?:(?:\d{1,2}(?:\.\d{1,2})*|[A-Za-z]|[ivxIVX]{1,4})[.)]|\([a-z\d]{1,4}\))[ \t]+"
    r"(?:\*\*|__)?(?P<numbered>[A-Z][\w'’ -]{1,48}?)(?:[.:](?:\*\*|__)?|(?:\*\*|__)[.:]?)[ \t]+\S"
    r"|[ \t]*(?:\*\*|__)(?P<bold>[A-Z][\w'’ -]{1,48}?)(?:[.:](?:\*\*|__)|(?:\*\*|__)[.:])[ \t]+\S"
)
"""A paragraph that starts with a run-in caption: "3. Rent. ", "(b) Security Deposit: ",
"2. **Rent.** ", "**Late fee.** " (a caption alone in bold needs its full stop or colon)."""
_PARAGRAPH_END = re.compile(r"\n[ \t]*(?:\n|#|\||[-*+•][ \t]|\(?[a-z\d]{1,4}[.)][ \t])")
"""A blank line or a line that opens another block or clause: the paragraph ends there."""
_CAPTION_SENTENCE_END = re.compile(r"(?<![A-Z])[.!?]\s+(?=[A-Z(])")
_CAPTION_REACH = 600
"""How far before an amount (characters) its paragraph's caption is looked for."""


class SectionHeadings:
    """The Markdown headings of one text, found once, and how many amounts each section
    holds; looked up by position (and the run-in captions of its paragraphs)."""

    def __init__(
        self,
        text: str,
        amount_starts: Sequence[int],
        headings: Sequence[tuple[int, str]] | None = None,
    ) -> None:
        found = (
            [(m.start(), m.group("title")) for m in line_matches(HEADING_LINE, text)]
            if headings is None
            else [(start, _unnumbered(title)) for start, title in headings]
        )
        self._starts = [start for start, _ in found]
        self._titles = [title for _, title in found]
        self._amounts = Counter(bisect.bisect_right(self._starts, a) for a in amount_starts)
        self._text = text
        self._amount_starts = sorted(amount_starts)

    def label_at(self, position: int) -> str | None:
        """The label of the nearest heading above ``position``, when it names a quantity
        and the amount at ``position`` is its section's only one."""
        i = bisect.bisect_right(self._starts, position)
        if not i or position - self._starts[i - 1] > REACH or self._amounts[i] != 1:
            return None
        return names_a_quantity(self._titles[i - 1])

    def priced_at(self, start: int, end: int) -> str | None:
        """The label of the heading right above the amount ``text[start:end]`` when the
        amount opens its sentence as a price and the heading names a thing priced (module
        docstring)."""
        text = self._text
        if not _opens_sentence(text, start) or _PRICED_AFTER.match(text, end) is None:
            return None
        found = heading_above(text, start)
        if found is None or start - found[0] > PRICED_REACH:
            return None
        return names_a_priced_thing(_unnumbered(found[1]))

    def caption_at(self, position: int) -> str | None:
        """The label of the run-in caption of the paragraph ``position`` stands in, when it
        names a quantity and the amount at ``position`` is the paragraph's only one."""
        text = self._text
        start = max(0, position - _CAPTION_REACH)
        ends = list(_PARAGRAPH_END.finditer(text, start, position))
        start = ends[-1].start() + 1 if ends else text.rfind("\n", 0, start) + 1
        if ends and text[start] == "\n":
            start += 1
        found = _RUN_IN.match(text, start)
        if found is None or found.end() > position:
            return None
        if _CAPTION_SENTENCE_END.search(text, found.end() - 1, position):
            return None  # a later sentence of the clause says more than its caption
        end_found = _PARAGRAPH_END.search(text, position)
        end = end_found.start() if end_found else len(text)
        first = bisect.bisect_left(self._amount_starts, start)
        if bisect.bisect_left(self._amount_starts, end) - first != 1:
            return None
        title = found.group("numbered") or found.group("bold")
        return names_a_quantity(title.strip(), any_quantity=True)


def _opens_sentence(text: str, start: int) -> bool:
    """The amount at ``text[start]`` opens its sentence: nothing but a list's bullet or
    emphasis before it on its line, and the line above ends its sentence (or is a
    heading, or none); or an earlier sentence on its line ends right before it."""
    line_start = text.rfind("\n", 0, start) + 1
    before = LIST_BULLET.sub("", text[line_start:start]).strip(" \t*_`>")
    if before:
        return _sentence_ended(before)
    if line_start == 0:
        return True
    previous = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].strip(" \t*_")
    return not previous or previous.startswith("#") or previous.endswith((".", "!", "?", ":"))


def _sentence_ended(before: str) -> bool:
    """``before`` (the line before an amount) ends a sentence: a full stop, ``!`` or ``?``,
    then only closing quotes or brackets — not an initial's full stop (``J.``). Read from
    the end, so a long line costs nothing more than a short one."""
    ended = before.rstrip(_CLOSERS)
    return ended[-1:] in (".", "!", "?") and not "A" <= ended[-2:-1] <= "Z"


_CLOSERS = '"”’)'
_PRICED_AFTER = re.compile(
    r"(?i)(?:\s*(?:" + RATE_INTRO + r"\s+[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*){0,2}|"
    r"/\s*[^\W\d_][\w-]*|for\s+(?:the\s+|a\s+|an\s+|each\s+|one\s+)?[^\W\d_][\w-]*"
    r"(?:\s+[^\W\d_][\w-]*){0,2}|(?:plus|incl\.?|including|excl\.?|excluding)\s+[^\W\d_]+|"
    r"\([^()\n]{0,60}\)))*"
    r"\s*(?:[.,;!]|[-–—]\s|\n|$|(?:or|and|to)\s+(?=[$€£¥₹\d]))"
)
"""What may follow a price that opens its sentence: its unit, what it is for, a tax's
qualifier or a parenthesis, then the sentence's end, a comma, a line's end or the next
alternative."""
