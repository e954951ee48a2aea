"""Whose figure a name states, and for which part of the year: the scope words, and the one
reader that splits a name's words into what, whose and when.

A name as a statement writes it often says three things at once: *what* is measured (the
quantity: "revenue", "operating income"), *whose* figure it is when it is not the
document's own ("**Americas** revenue", "**Consumer Cyber Safety segment** net revenues",
"**Adjusted** EBITDA", "Total revenue — **Discontinued operations**", "Total assets —
**Parent**") and *when*, when it is a part of the year ("**Fourth quarter** revenue",
"Net income — **Three months**"). :func:`read_scope` splits them, on both sides: the
document side stores the what as the label and the rest as the fact's ``scope``,
``scope_name`` and ``period_part``; the question side asks for the same fields. One
function, so "EMEA revenue" in a question and a table of the ``EMEA`` segment's revenue
meet on the same reading.

**Scopes** (:data:`Scope`) and the words that make each, as data:

* ``region`` — a geography (:data:`REGIONS`: world regions, countries, and the relative
  ones — domestic, foreign, international); its name is the region's first name in the
  table (``APAC`` and ``Asia Pacific`` are one region, ``asia pacific``). A geography
  names a region whatever noun the text puts after it: "Americas segment" is the
  Americas region, on both sides. Not a region: a geography before a word that makes it
  part of another name (:data:`NOT_A_PART_AFTER`: "foreign currency", "U.S. GAAP",
  "U.S. federal"), nor "US" written in lower case (a pronoun);
* ``segment`` — a name before a word of :data:`SEGMENT_NOUNS` ("Marine Services segment",
  "Consumer division", "Europe business unit" is a region); "segment" with no name before
  it ("Segment revenue", "Total segment operating income") is the segments' figure, no
  name; "by segment" names no part (a table split by segments);
* ``product`` — a name before :data:`PRODUCT_NOUNS` ("Storage product line");
* ``discontinued`` (:data:`DISCONTINUED`: discontinued operations, held for sale, disposal
  group), ``pro_forma`` (pro forma), ``parent`` (the parent company or entity alone, not
  "attributable to the parent", which is the group's own figure), ``acquired`` (a
  business acquired: "assets acquired", "liabilities assumed", "acquired business" —
  never a name's first word, "Acquired intangible assets", which is a kind of asset),
  ``tax_effect`` ("tax effect of …", not "net of tax effect"), ``adjusted``
  (:data:`ADJUSTED`: adjusted, non-GAAP, underlying, normalized), ``forecast`` (a figure
  expected, not reported — :data:`FORECAST`: outlook, guidance, forecast, projected,
  budgeted; never the "projected benefit obligation", an actual balance, nor accounting
  "guidance"; a table's "Budget" column: :data:`BUDGET`);
* the words that say a figure is the reported one (:data:`REPORTED`: "(GAAP)") are left
  out of what, the scope staying the document's own.

Scopes the words of a name cannot say — an allocated charge's share, a line of an itemised
document, the tax effect of a deferred tax balance's component — are read from a table's
shape (:mod:`osrag.extract.facts.table`).

Where a name says two, the first of :data:`PRECEDENCE` is the scope and the other's words
stay in what ("Adjusted EBITDA" in a segment's table is the segment's, its what "Adjusted
EBITDA").

**Parts of the year** (:data:`~osrag.lexicon.periods.PeriodPart`): a quarter (``Q4``,
``4Q19``, ``fourth quarter``, ``fourth-quarter``, ``4th qtr``), a half (``H1``, ``first
half``), the year to date (``Year to date``, ``YTD``, ``year-to-date``: ``ytd``, a
statement's running total beside its period's own figure), another part (``three
months``, ``26 weeks``, ``interim``, ``half-year``) or the whole period said as such
(``Full Year``, ``fiscal year``, ``twelve months``, ``52 weeks``, and a statement's
``This period``, ``Current period``, a name's first word ``current`` before no word of
:data:`CURRENT_CLASSES`: "current gross pay", not "current assets"): ``full``. A year
itself (``2019``, ``Fiscal 2019``) is a period, read by :mod:`osrag.lexicon.periods`, not
here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from osrag.lexicon.function_words import (
    ARTICLES,
    COORDINATORS,
    DETERMINERS,
    INDEFINITE,
    NAME_MARKS,
    PREPOSITIONS,
    VERBS_OF_FORECASTING,
)
from osrag.lexicon.links import RANGE_LINKS
from osrag.lexicon.periods import (
    QUARTER_ORDINALS,
    TERM_YEAR_CARDINALS,
    TERM_YEAR_NUMBERS,
    TERM_YEARS,
    PeriodPart,
)
from osrag.lexicon.words import name_words, word_set

__all__ = [
    "ADJUSTED",
    "BUDGET",
    "CURRENT_CLASSES",
    "DISCONTINUED",
    "FORECAST",
    "FORECAST_VERBS",
    "HELD_FOR_SALE",
    "LINE_QUANTITIES",
    "NOT_A_PART_AFTER",
    "NOT_A_PART_BEFORE",
    "NOT_A_PART_ROW",
    "NOT_THE_PART",
    "PARTS",
    "PARTS_BY",
    "PART_KINDS",
    "PART_KIND_WORDS",
    "PRECEDENCE",
    "PRODUCT_NOUNS",
    "QUARTERLY",
    "REGIONS",
    "RELATIVE_REGIONS",
    "REPORTED",
    "RESULTS",
    "SEGMENTS_OF",
    "SEGMENT_NOUNS",
    "TAX_EFFECTS_OF",
    "Scope",
    "ScopeReading",
    "is_region",
    "names_current",
    "names_forecast",
    "read_scope",
    "region_name",
    "scope_of",
]

Scope = Literal[
    "own",
    "segment",
    "region",
    "product",
    "discontinued",
    "acquired",
    "pro_forma",
    "parent",
    "tax_effect",
    "allocated",
    "adjusted",
    "line_item",
    "forecast",
]
"""Whose figure a fact is (the fact contract, :data:`osrag.schema.facts.FactScope`)."""

PARTS: frozenset[Scope] = frozenset({"segment", "region", "product"})
"""The scopes that are a part of the company and carry its name."""

REGIONS: tuple[tuple[str, ...], ...] = (
    # world regions
    ("americas", "the americas"),
    ("north america",),
    ("south america",),
    ("latin america", "latam"),
    ("central america",),
    ("emea", "europe middle east and africa"),
    ("europe",),
    ("middle east",),
    ("africa",),
    ("asia",),
    ("asia pacific", "apac", "asia pac"),
    ("asia pacific and japan", "apj"),
    ("greater china",),
    ("southeast asia", "south east asia", "asean"),
    ("east asia",), ("south asia",), ("north asia",), ("western europe",),
    ("eastern europe",), ("central europe",), ("northern europe",), ("southern europe",),
    ("central and eastern europe", "cee"), ("nordics", "nordic"), ("scandinavia",),
    ("benelux",), ("dach",), ("caribbean",), ("oceania",), ("australasia",),
    ("middle east and africa", "mea"), ("sub saharan africa",),
    ("rest of world", "rest of the world", "row"),
    # the relative ones
    ("domestic",),
    ("foreign",),
    ("international",),
    ("overseas",),
    ("non us", "non u s", "outside the united states"),
    # countries
    ("united states", "us", "u s", "usa", "u s a", "united states of america"),
    ("canada",), ("mexico",), ("brazil",), ("argentina",), ("chile",), ("colombia",),
    ("united kingdom", "uk", "u k", "great britain"),
    ("ireland",), ("germany",), ("france",), ("italy",), ("spain",), ("portugal",),
    ("netherlands", "the netherlands"), ("belgium",), ("switzerland",), ("austria",),
    ("sweden",), ("norway",), ("denmark",), ("finland",), ("poland",), ("russia",),
    ("turkey",), ("israel",), ("saudi arabia",), ("united arab emirates", "uae"),
    ("south africa",), ("nigeria",), ("egypt",), ("india",),
    ("china", "mainland china", "prc"), ("hong kong",), ("taiwan",), ("japan",),
    ("korea", "south korea"), ("singapore",), ("malaysia",), ("indonesia",),
    ("thailand",), ("vietnam",), ("philippines", "the philippines"), ("australia",),
    ("new zealand",), ("peru",), ("venezuela",), ("costa rica",), ("el salvador",),
    ("guatemala",), ("honduras",), ("panama",), ("puerto rico",), ("dominican republic",),
    ("uruguay",), ("paraguay",), ("ecuador",), ("bolivia",), ("scotland",), ("england",),
    ("wales",), ("northern ireland",), ("luxembourg",), ("greece",), ("czech republic",),
    ("hungary",), ("romania",), ("bulgaria",), ("croatia",), ("serbia",), ("slovakia",),
    ("slovenia",), ("estonia",), ("latvia",), ("lithuania",), ("ukraine",), ("iceland",),
    ("qatar",), ("kuwait",), ("bahrain",), ("oman",), ("jordan",), ("lebanon",),
    ("morocco",), ("tunisia",), ("algeria",), ("kenya",), ("ghana",), ("ethiopia",),
    ("pakistan",), ("bangladesh",), ("sri lanka",), ("nepal",), ("kazakhstan",),
    ("macau", "macao"), ("mongolia",), ("cambodia",), ("myanmar",), ("laos",),
)  # fmt: skip
"""The geographies a part of a company is named by, each with its other names (normalised
words: :func:`~osrag.lexicon.words.name_words`); the first name is the one stored."""

RELATIVE_REGIONS = frozenset({"domestic", "foreign", "international", "overseas", "non us"})
"""Geographies named relative to the company: a part only when they end the name ("Foreign",
"revenue from international"), never before another word, which they then only qualify
("Foreign tax credits", "Domestic manufacturers deduction", "tax relating to overseas
business")."""

NOT_A_PART_AFTER = word_set(
    """currency currencies exchange gaap dollar dollars treasury treasuries government
    federal state statutory jurisdiction jurisdictions tax taxes corporation"""
)
"""A word after a geography that makes the geography part of another name: "foreign
currency translation", "U.S. GAAP", "U.S. federal", "UK corporation tax" (a jurisdiction's
tax, not a part of the company's figures) name no part."""

NOT_A_PART_BEFORE = word_set("other and or")

NOT_THE_PART = word_set("outside excluding except ex beyond")
"""A word before a geography that names everything but it ("outside of the United
States", "excluding North America")."""
"""A word before a geography that makes it no one part: "Other international", "Other
Americas" (a remainder), "Singapore and Japan costs" (two geographies)."""

SEGMENT_NOUNS = (("segment",), ("segments",), ("division",), ("business", "unit"))
"""The nouns that make the words before them one segment's name ("Marine Services
segment", "Consumer division", "Industrial business unit")."""

REGION_NOUNS = (("region",), ("regions",), ("area",), ("geographic", "area"), ("market",),
                ("markets",))  # fmt: skip
"""Nouns after a geography that only say it is a region ("Asia Pacific region")."""

PRODUCT_NOUNS = (("product", "line"), ("product", "lines"), ("product", "family"),
                 ("product", "group"), ("product", "category"))  # fmt: skip
"""The nouns that make the words before them one product line's name."""

DISCONTINUED = (
    ("discontinued", "operations"), ("discontinued", "operation"), ("discontinued",),
    ("disposal", "group"), ("disposal", "groups"),
)  # fmt: skip
"""Discontinued operations and the disposal groups held for sale with them."""

HELD_FOR_SALE = (("held", "for", "sale"),)
"""Held for sale: a disposal group's when it follows what a disposal group holds
(:data:`HELD_BY_A_GROUP`: "Assets held for sale"), never another asset's ("Loans held for
sale" are a kind of loan)."""

HELD_BY_A_GROUP = word_set(
    "asset assets liability liabilities group groups operation operations business businesses"
)

PRO_FORMA = (("pro", "forma"), ("proforma",))
"""Pro forma figures (as if a transaction had happened earlier)."""

PARENT = (("parent", "company", "only"), ("parent", "company"), ("parent", "entity"),
          ("parent", "only"), ("parent",))  # fmt: skip
"""The parent entity alone (its condensed statements beside the group's)."""

ACQUIRED_AFTER = (("acquired",), ("assumed",))
"""Participles after a name that make it an acquired business's ("Total assets acquired",
"Liabilities assumed"); before a name "acquired" is a kind ("Acquired intangibles")."""

ACQUIRED = (("acquired", "business"), ("acquired", "businesses"), ("acquired", "company"),
            ("acquired", "companies"), ("acquired", "entity"), ("acquiree",))  # fmt: skip
"""The acquired business named as such."""

TAX_EFFECT = (("income", "tax", "effect"), ("income", "tax", "effects"), ("tax", "effect"),
              ("tax", "effects"), ("tax", "effected"))  # fmt: skip
"""The tax effect of an item ("Tax effect of stock-based compensation")."""

ADJUSTED = (("non", "gaap"), ("non", "ifrs"), ("adjusted",), ("underlying",), ("normalized",),
            ("normalised",))  # fmt: skip
"""A non-GAAP measure: adjusted, non-GAAP, underlying, normalized."""

FORECAST = (("outlook",), ("outlooks",), ("guidance",), ("forecast",), ("forecasts",),
            ("forecasted",), ("projected",), ("projection",), ("projections",),
            ("budgeted",))  # fmt: skip
"""Words that make a figure an expected one, not the reported actual ("2024 Outlook",
"Revenue guidance", "Projected revenue", "Budgeted cost")."""

NOT_FORECAST_AFTER = word_set("benefit benefits unit scale scales")
"""Words after "projected" or "projection" that make it part of an actual measure's name
("projected benefit obligation", "projected unit credit method", "mortality projection
scales")."""

NOT_OUR_GUIDANCE = word_set(
    """accounting recognition standard standards authoritative new the this that such
    additional further interpretive regulatory lease leasing tax treasury irs sec fasb asc
    ifrs transition transitional related applicable existing prior previous revised final
    proposed of in under with"""
)
"""Words before "guidance" that make it a rule's (accounting, tax or regulatory guidance:
"the new revenue recognition guidance", "Treasury guidance issued"), not the company's
outlook ("2026 guidance", "our guidance", "Revenue guidance")."""

BUDGET = word_set("budget budgets")
"""A budget: a figure expected only as a table's column of its own beside a column of
actuals ("Budget" beside "Actual": :mod:`osrag.extract.table_model`); "a $500 budget", an
award's "Approved budget", "budget year 1", a grant's "Item | Budget" table are no
forecast."""

ACTUAL = word_set("actual actuals")
"""A column of the figures reported, that a "Budget" column beside it is compared with."""

RESULTS = word_set(
    """ebitda ebita ebit npat eps profit profits earnings income revenue revenues sales
    margin operating result results cash"""
)
"""The results "underlying" makes a non-GAAP measure of ("Underlying EBITDA", "Underlying
operating profit")."""

REPORTED = (("gaap",), ("as", "reported"), ("ifrs",))
"""Words that say a figure is the reported one ("Operating income (GAAP)"): left out of
what, the scope the document's own."""

PRECEDENCE: tuple[Scope, ...] = (
    "forecast", "discontinued", "acquired", "parent", "segment", "product", "region", "pro_forma",
    "tax_effect", "adjusted",
)  # fmt: skip
"""Which scope a name stating two takes: an expected figure is no reported one, whoever's
("Adjusted EBITDA outlook"); whose figure it is (another entity, a part of the company)
before what kind of figure (pro forma, a tax effect, adjusted)."""

PARTS_BY: tuple[tuple[Scope, re.Pattern[str]], ...] = (
    (
        "segment",
        re.compile(
            r"(?i)\b(?:by|for\s+each\s+of\s+(?:our|its|the)|per)\s+(?:reportable\s+|operating\s+|"
            r"business\s+)?segments?\b|\bsegment\s+(?:information|results|data)\b"
        ),
    ),
    (
        "region",
        re.compile(
            r"(?i)\bby\s+(?:geographic(?:al)?\s+(?:areas?|regions?|locations?|markets?|"
            r"segments?)|geography|regions?|countr(?:y|ies)|delivery\s+location|"
            r"location)\b|\bgeographic(?:al)?\s+(?:information|data)\b"
        ),
    ),
    (
        "product",
        re.compile(r"(?i)\bby\s+product(?:\s+lines?|\s+categor(?:y|ies)|\s+groups?|s)?\b"),
    ),
)
"""Words saying a table's rows are the company's parts ("Revenue by segment", "Sales by
geographic area", "revenue by product line", "Segment information"): each row a part."""

SEGMENTS_OF = re.compile(
    r"(?i)(?:^|\b(?:the|our|its|of|and|total)\s+)segments?\s+(?P<quantity>assets|revenues?|"
    r"net\s+sales|sales|operating\s+income|operating\s+profit|profit|income|ebitda)\b"
)
"""The segments' figures of a quantity, named by a title or a sentence ("Segment Assets",
"Segment assets … were as follows", "the segment revenue"): each row of the table a segment's
figure of it."""

PART_KIND_WORDS: dict[str, Scope] = {
    "segment": "segment", "division": "segment",
    "region": "region", "geographic": "region", "geography": "region", "country": "region",
    "product": "product",
}  # fmt: skip
"""A word of a table's top-left header or title naming the kind of part its rows are
(``Reporting Segment``, ``Geographic area``, ``Product line``; in the singular)."""

PART_KINDS: dict[str, Scope] = {
    "segment": "segment", "segments": "segment", "reportable segment": "segment",
    "operating segment": "segment", "business segment": "segment", "division": "segment",
    "region": "region", "regions": "region", "geographic area": "region",
    "geography": "region", "country": "region", "countries": "region",
    "product line": "product", "product lines": "product", "product": "product",
    "products": "product",
}  # fmt: skip
"""A table's top-left header naming the kind of part its rows are (``Segment``)."""

NOT_A_PART_ROW = word_set(
    """total totals subtotal consolidated corporate other others eliminations elimination
    intersegment inter unallocated reconciling reconciliation adjustments"""
)
"""Words of a row of a table of parts that make it no part: a total, a catch-all, a
reconciling line ("Corporate and unallocated costs", "Inter-segment eliminations")."""

TAX_EFFECTS_OF = re.compile(
    r"(?i)\btax\s+effects?\s+of\s+(?:the\s+)?(?:significant\s+)?temporary\s+differences\b|"
    r"\bcomponents\s+of\s+(?:the\s+)?(?:net\s+)?deferred\s+(?:income\s+)?tax\s+assets"
)
"""A sentence describing a table of deferred tax balances by item: each row the tax effect
of its item."""

QUARTERLY = re.compile(r"(?i)\bquarterly\b|\bfor\s+each\s+(?:fiscal\s+)?quarter\b")
"""A heading or sentence saying a table's figures are each quarter's."""

LINE_QUANTITIES = word_set("qty quantity hour hr unit pc piece")
"""A column header naming how many of a line's item an itemised document bills or orders
(its words in the singular: "Qty", "Hours", "Units"): a row with a figure in it is a line
of the document."""

_NOT_BEFORE_SCOPE = (
    ARTICLES
    | PREPOSITIONS
    | word_set("of from by attributable attributed located generated earned derived")
)
"""Function words (and the participles that join a place) left hanging before a scope's
words once they are taken out ("Income **from** discontinued operations", "Revenue **in
the** Americas", "Long-lived assets **located in the** Americas")."""

_FULL_YEAR = (("full", "year"), ("full", "years"), ("twelve", "months"),
              ("12", "months"), ("52", "weeks"), ("53", "weeks"), ("fifty", "two", "weeks"),
              ("full", "fiscal", "year"))  # fmt: skip
_TO_DATE = (("year", "to", "date"), ("ytd",), ("fiscal", "year", "to", "date"), ("fytd",))
"""The words that name the part of the year from its start to the statement's date ("Year
to date", "YTD", "year-to-date"): a pay statement's, a bank statement's, a budget
report's running total beside the period's own figure."""
_THIS_PERIOD = (("this", "period"), ("this", "pay", "period"), ("current", "period"),
                ("current", "pay", "period"), ("this", "statement", "period"))  # fmt: skip
"""The words that name the statement's own period beside its year to date ("This period",
"Current period"): the default, the whole period."""
CURRENT_CLASSES = word_set(
    "asset assets liability liabilities portion portions maturity maturities ratio tax taxes "
    "income provision provisions deferred federal state foreign local operating lease leases "
    "debt borrowing borrowings receivable receivables payable payables investment investments "
    "expense expenses benefit benefits service account accounts and or"
)
"""The words after "current" that make it a class of balance or of tax ("Current assets",
"Current portion of long-term debt", "Current income tax", "current service cost"), not
the statement's own period ("current gross pay")."""


def names_current(text: str) -> bool:
    """``text`` (a column's header) is "Current" alone: beside a column of the year to date,
    the statement's own period (beside "Deferred", a class of tax: the table decides)."""
    return name_words(text) == ["current"]


_NOT_CURRENT = CURRENT_CLASSES | {"period", "pay", "year", "years"}
"""After "current", the words of a phrase of its own ("Current period", "Current pay
period") or of a tax's year ("Current year" under a tax expense: the year's tax)."""
_OTHER_PART = (("interim",), ("half", "year"),
               ("three", "months"), ("six", "months"), ("nine", "months"), ("3", "months"),
               ("6", "months"), ("9", "months"), ("13", "weeks"), ("26", "weeks"),
               ("39", "weeks"), ("thirteen", "weeks"), ("twenty", "six", "weeks"),
               ("thirty", "nine", "weeks"), ("quarter",), ("quarters",), ("half",),
               ("semi", "annual"))  # fmt: skip
_HALVES = {"first": "h1", "1st": "h1", "second": "h2", "2nd": "h2"}
_QUARTER_TOKEN = re.compile(r"q([1-4])|([1-4])q(?:\d\d)?|q([1-4])(?:fy)?\d\d")
_HALF_TOKEN = re.compile(r"h([12])|([12])h(?:\d\d)?")


class ScopeReading(NamedTuple):
    """What :func:`read_scope` reads of a name's words."""

    what: list[str]
    """The words (as given) that say what is measured, in order."""
    scope: Scope
    """Whose figure (``own`` when the words say no other)."""
    scope_name: str | None
    """The part's name for ``segment``, ``region`` and ``product``, normalised."""
    period_part: PeriodPart | None
    """The part of the year the words name (``full`` when they say the whole year), None
    when they name none."""


@functools.cache
def _regions() -> dict[tuple[str, ...], str]:
    return {tuple(name.split()): names[0] for names in REGIONS for name in names}


@functools.cache
def _region_lengths() -> dict[str, tuple[int, ...]]:
    """For each first word of a region's name, the lengths of the names it starts, the
    longest first (where :func:`_region` looks for a name at a word)."""
    lengths: dict[str, set[int]] = {}
    for name in _regions():
        lengths.setdefault(name[0], set()).add(len(name))
    return {first: tuple(sorted(found, reverse=True)) for first, found in lengths.items()}


def region_name(words: Sequence[str]) -> str | None:
    """The region ``words`` (normalised) name exactly, by its stored name, or None."""
    return _regions().get(tuple(words))


def is_region(text: str) -> bool:
    """``text`` names one geography and nothing else ("Americas", "U.S.", "Asia Pacific")."""
    return region_name(name_words(text)) is not None


class _Words:
    """A name's words as given (tokens) and their normalised words, each with its token."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = list(tokens)
        self.words: list[str] = []
        self.owner: list[int] = []
        self.first: list[bool] = []
        for t, token in enumerate(self.tokens):
            for k, word in enumerate(_token_words(token)):
                self.words.append(word)
                self.owner.append(t)
                self.first.append(k == 0)
        self.taken = [False] * len(self.words)
        self.distinct = frozenset(self.words)

    def aligned(self, start: int, end: int) -> bool:
        """``words[start:end]`` are whole tokens."""
        return self.first[start] and (end == len(self.words) or self.first[end])

    def find(self, phrases: tuple[tuple[str, ...], ...], start: int = 0) -> tuple[int, int] | None:
        """The first place at or after ``start`` where one of ``phrases`` stands on untaken
        whole tokens (the longest there)."""
        by_first = _by_first_word(phrases)
        words = self.words
        if self.distinct.isdisjoint(by_first):
            return None  # no phrase's first word among the words (most names)
        for i in range(start, len(words)):
            for phrase in by_first.get(words[i], ()):
                end = i + len(phrase)
                if (
                    tuple(words[i:end]) == phrase
                    and self.aligned(i, end)
                    and not any(self.taken[i:end])
                ):
                    return i, end
        return None

    def take(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.taken[i] = True

    def what(self) -> list[str]:
        """The tokens none of whose words were taken; function words and marks left
        hanging beside a taken run go with it ("Income **from** discontinued operations",
        "Revenue **in the** Americas", "Total revenue **—** Discontinued operations")."""
        taken = [
            any(self.taken[i] for i, o in enumerate(self.owner) if o == t)
            for t in range(len(self.tokens))
        ]
        drop = list(taken)
        for t in range(len(self.tokens)):  # back from each taken run
            if taken[t] and (t == 0 or not taken[t - 1]):
                k = t - 1
                while k >= 0 and not taken[k] and _hangs(self.tokens[k]):
                    drop[k] = True
                    k -= 1
        for t in range(len(self.tokens)):  # marks after a taken run ("— Q4 —")
            if drop[t - 1] if t else False:
                k = t
                while k < len(self.tokens) and not taken[k] and _mark(self.tokens[k]):
                    drop[k] = True
                    k += 1
                if k < len(self.tokens) and self.tokens[k].startswith("(") and not taken[k]:
                    while k < len(self.tokens) and not taken[k]:  # "China (excluding Hong Kong)"
                        drop[k] = True
                        if self.tokens[k].rstrip(",;:").endswith(")"):
                            break
                        k += 1
        return [token for token, dropped in zip(self.tokens, drop, strict=True) if not dropped]


@functools.lru_cache(maxsize=256)
def _by_first_word(
    phrases: tuple[tuple[str, ...], ...],
) -> dict[str, tuple[tuple[str, ...], ...]]:
    """``phrases`` by their first word, the longest first (what :meth:`_Words.find` tries at
    a word: only the phrases that start with it)."""
    assert all(phrases), "a phrase has a word"
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for phrase in sorted(phrases, key=len, reverse=True):
        by_first.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(found) for first, found in by_first.items()}


def _mark(token: str) -> bool:
    return not _token_words(token) and token.strip() in NAME_MARKS | {"(", ")", ":"}


@functools.lru_cache(maxsize=1 << 15)
def _token_words(token: str) -> tuple[str, ...]:
    """A token's normalised words, a parenthesised one's too ("(non-GAAP)", "(GAAP)")."""
    return tuple(name_words(token.translate(_BRACKETS)))


_BRACKETS = str.maketrans("()[]", "    ")


def _hangs(token: str) -> bool:
    words = _token_words(token)
    stripped = token.strip()
    return (not words and stripped in NAME_MARKS | {"(", ")", ":"}) or (
        len(words) == 1 and words[0] in _NOT_BEFORE_SCOPE | COORDINATORS
    )


def _part_of_year(w: _Words) -> PeriodPart | None:
    """The part of the year the words name, its words taken; two quarters or halves that
    differ ("Q1 - Q2 2012") name another part."""
    first = _one_part(w)
    if first is None or first in ("full", "part"):
        return first
    taken = list(w.taken)
    second = _one_part(w)
    if second is not None and second not in ("full", "part") and second != first:
        return "part"
    w.taken = taken
    return first


def _one_part(w: _Words) -> PeriodPart | None:
    """The first part of the year the words name (or the year of a term:
    :func:`_term_year`); its words taken."""
    for i, word in enumerate(w.words):
        if w.taken[i] or not w.first[i]:
            continue
        if (year := _term_year(w, i)) is not None:
            return year
        if m := _QUARTER_TOKEN.fullmatch(word):
            w.take(i, i + 1)
            return f"q{m.group(1) or m.group(2) or m.group(3)}"  # type: ignore[return-value]
        if m := _HALF_TOKEN.fullmatch(word):
            w.take(i, i + 1)
            return f"h{m.group(1) or m.group(2)}"  # type: ignore[return-value]
        following = w.words[i + 1 : i + 3]
        if word == "current" and i == 0 and following and following[0] not in _NOT_CURRENT:
            w.take(i, i + 1)  # "current gross pay": the period's own figure, the default
            return "full"
        if word in QUARTER_ORDINALS and following[:1] in (["quarter"], ["qtr"]):
            w.take(i, i + 2)
            return f"q{QUARTER_ORDINALS[word]}"  # type: ignore[return-value]
        if word in QUARTER_ORDINALS and following[:2] == ["fiscal", "quarter"]:
            w.take(i, i + 3)
            return f"q{QUARTER_ORDINALS[word]}"  # type: ignore[return-value]
        if word in _HALVES and following[:1] == ["half"] and following[1:2] != ["year"]:
            w.take(i, i + 2)
            return _HALVES[word]  # type: ignore[return-value]
    for phrases, part, own_column in (
        (_TO_DATE, "ytd", False),
        (_THIS_PERIOD, "full", True),
        (_FULL_YEAR, "full", False),
        (_OTHER_PART, "part", False),
    ):
        found = _find_part(w, phrases)
        if found is None or (own_column and _in_a_clause(w, found[0])):
            continue
        while found is not None:  # the part is taken whole, each time it is written
            start, end = found
            while w.words[end : end + 1] in (["ended"], ["ending"]):
                end += 1  # "Three months ended"
            first, last = w.words[start], w.words[found[1] - 1]
            while start > 0 and not w.taken[start - 1] and w.words[start - 1] == first:
                start -= 1  # a word written twice ("Full Full Year")
            while end < len(w.words) and not w.taken[end] and w.words[end] == last:
                end += 1
            w.take(start, end)
            found = _find_part(w, phrases)
        return part  # type: ignore[return-value]
    return None


def _find_part(w: _Words, phrases: tuple[tuple[str, ...], ...]) -> tuple[int, int] | None:
    """The first place one of ``phrases`` stands (:meth:`_Words.find`), a fraction's
    "half" passed over: the lone word after an article ("time **and a half**", "an hour and
    a half", "a half day"), no half of the year ("a half year ended 30 June" is one)."""
    found = w.find(phrases)
    while (
        found is not None
        and found[1] - found[0] == 1
        and w.words[found[0]] == "half"
        and found[0] > 0
        and w.words[found[0] - 1] in INDEFINITE
    ):
        found = w.find(phrases, found[1])
    return found


def _in_a_clause(w: _Words, start: int) -> bool:
    """Whether the words at ``start`` follow a function word: a clause's object ("tax
    positions taken **during the current period**": which additions), not a statement's
    column of its own period ("Gross pay this period")."""
    return start > 0 and w.words[start - 1] in _NOT_BEFORE_SCOPE


TERM_LEADS = word_set("budget lease contract award grant project program agreement term")
"""Nouns before "year N" that say whose term it divides ("budget year 1", "lease year 2"):
taken with it."""

TERM_NOUNS = word_set("term lease award grant contract agreement project program appointment")
"""Nouns after "year of the" that close a term year's words ("second year of the term")."""

_RANGE_AFTER = RANGE_LINKS | word_set("and or")
_AFTER_NO_TERM_YEAR = _RANGE_AFTER | frozenset(TERM_YEAR_CARDINALS)
"""A word after "year" and its number that makes them no one year of a term: a range's
(:data:`_RANGE_AFTER`) or another number."""


def _term_year(w: _Words, i: int) -> PeriodPart | None:
    """The year of a term the words at ``i`` name ("first-year", "1st year", "Year 1",
    "year one", "budget year 2", "second year of the term"), its words taken; a range
    ("years 1–5", "Year 1 to 3") or a calendar year ("Year 2019") names none."""
    words = w.words
    word = words[i]
    if word in TERM_YEAR_NUMBERS and words[i + 1 : i + 2] == ["year"]:
        start, end, n = i, i + 2, TERM_YEAR_NUMBERS[word]
    elif (
        word == "year"
        and i + 1 < len(words)
        and words[i + 1] in TERM_YEAR_CARDINALS
        and w.aligned(i + 1, i + 2)
        and not (words[i + 2 : i + 3] and words[i + 2] in _AFTER_NO_TERM_YEAR)
    ):
        start, end, n = i, i + 2, TERM_YEAR_CARDINALS[words[i + 1]]
        if i and not w.taken[i - 1] and words[i - 1] in TERM_LEADS:
            start = i - 1
    else:
        return None
    if words[end : end + 2] in (["of", "the"], ["of", "this"]) and (
        words[end + 2 : end + 3] and words[end + 2] in TERM_NOUNS
    ):
        end += 3
    w.take(start, end)
    return TERM_YEARS[n - 1]


def _named_before(w: _Words, start: int) -> tuple[int, str | None]:
    """The name standing before ``words[start]`` (a segment's or a product line's): the
    run of untaken words back to a function word, a mark, a bracketed token ("(non-GAAP)"
    is a note on the figure, never a part's name) or an optional lead — a coordinator
    inside it when capitalised words stand either side ("Aerospace and Defense segment")."""
    i = start
    while i > 0 and not w.taken[i - 1]:
        word = w.words[i - 1]
        inside = word in COORDINATORS and i > 1 and _capital(w, i - 2) and _capital(w, i)
        if (
            word in _NOT_BEFORE_SCOPE | _LEADS | DETERMINERS
            or (word in COORDINATORS and not inside)
            or w.tokens[w.owner[i - 1]].startswith("(")
        ):
            break
        i -= 1
    while i < start and not w.first[i]:
        i += 1
    return i, (" ".join(w.words[i:start]) or None)


def _capital(w: _Words, i: int) -> bool:
    return i < len(w.words) and w.tokens[w.owner[i]][:1].isupper()


_LEADS = word_set("total net consolidated reportable operating business")
"""Words before a segment noun that are not the segment's name ("Total segment …",
"reportable segment", "operating segment")."""


def _region(w: _Words) -> tuple[str, int, int] | None:
    """The first geography among the words that names a part (:data:`NOT_A_PART_AFTER`,
    :data:`RELATIVE_REGIONS`); a geography that names none hides the words inside it
    ("non-US revenue" is not the United States')."""
    names = _regions()
    lengths = _region_lengths()
    i = 0
    while i < len(w.words):
        if w.taken[i] or not w.first[i]:
            i += 1
            continue
        n = next(
            (
                n
                for n in lengths.get(w.words[i], ())
                if n <= len(w.words) - i
                and tuple(w.words[i : i + n]) in names
                and w.aligned(i, i + n)
            ),
            0,
        )
        if n and _names_a_part(w, i, n, names[tuple(w.words[i : i + n])]):
            return names[tuple(w.words[i : i + n])], i, i + n
        i += max(n, 1)
    return None


def _names_a_part(w: _Words, i: int, n: int, region: str) -> bool:
    if w.words[i : i + n] in (["us"], ["row"]) and not _written_upper(w, i):
        return False  # "us" is a pronoun, "row" a row, unless written "US", "RoW"
    following = w.words[i + n : i + n + 1]
    if following and following[0] in NOT_A_PART_AFTER | COORDINATORS:
        return False
    if _describes_in_brackets(w, i, n):
        return False
    if i and w.words[i - 1] in NOT_A_PART_BEFORE:
        return False
    before = [word for word in w.words[max(0, i - 3) : i] if word not in ARTICLES | {"of"}]
    if before[-1:] and before[-1] in NOT_THE_PART:
        return False  # "outside of the United States": everywhere else
    return not (region in RELATIVE_REGIONS and following)


def _describes_in_brackets(w: _Words, i: int, n: int) -> bool:
    """Whether the geography at ``words[i:i+n]`` opens a bracket whose words go on past it
    to another noun: it describes that noun, not the figure ("Keyboard replacement **(US
    layout**, parts and labor)", "Adapter (UK plug)"), where "Revenue (United States)" and
    "Sales (Europe segment)" name the part."""
    if not w.tokens[w.owner[i]].startswith("("):
        return False
    last = w.owner[i + n - 1]
    if ")" in w.tokens[last] or i + n >= len(w.words):
        return False
    return w.words[i + n] not in {phrase[0] for phrase in _PART_NOUNS}


def _written_upper(w: _Words, i: int) -> bool:
    token = w.tokens[w.owner[i]]
    return any(ch.isupper() for ch in token)


_PART_NOUNS = (*SEGMENT_NOUNS, *PRODUCT_NOUNS, *REGION_NOUNS)


def _scopes(w: _Words) -> dict[Scope, tuple[int, int, str | None]]:
    """Every scope the words name: where its words stand and the part's name."""
    found: dict[Scope, tuple[int, int, str | None]] = {}
    region = _region(w)
    if region is not None:
        region_is, first, last = region
        noun = w.find(_PART_NOUNS, last)
        last = noun[1] if noun is not None and noun[0] == last else last  # "Americas segment"
        found["region"] = (first, last, region_is)
    for scope, nouns in (("segment", SEGMENT_NOUNS), ("product", PRODUCT_NOUNS)):
        at = w.find(nouns)
        if at is None or (region is not None and region[2] == at[0]):
            continue
        if at[0] and w.words[at[0] - 1] == "by":
            continue  # "Revenue by segment": no one part
        start, name = _named_before(w, at[0])
        if name is None and at[1] == len(w.words):
            continue  # "Total segments": the segments' total, named as a line
        found[scope] = (start, at[1], name)  # type: ignore[index]
    for scope, phrases in (("discontinued", DISCONTINUED), ("pro_forma", PRO_FORMA)):
        at = w.find(phrases)
        if at is not None:
            found[scope] = (*at, None)  # type: ignore[index]
    held = w.find(HELD_FOR_SALE)
    if (
        "discontinued" not in found
        and held
        and w.words[held[0] - 1 : held[0]]
        and (w.words[held[0] - 1] in HELD_BY_A_GROUP)
    ):
        found["discontinued"] = (*held, None)
    if (at := _adjusted(w)) is not None:
        found["adjusted"] = (*at, None)
    if (at := _forecast(w)) is not None:
        found["forecast"] = (*at, None)
    if (at := w.find(PARENT)) is not None and _heads(w, at[0]):
        found["parent"] = (*at, None)
    if (at := _acquired(w)) is not None:
        found["acquired"] = (*at, None)
    if (at := w.find(TAX_EFFECT)) is not None and w.words[max(0, at[0] - 2) : at[0]] != [
        "net",
        "of",
    ]:
        end = at[1] + 1 if w.words[at[1] : at[1] + 1] in (["of"], ["on"]) else at[1]
        found["tax_effect"] = (at[0], end, None)
    return found


def _adjusted(w: _Words) -> tuple[int, int] | None:
    """An adjusted measure's words; "underlying" only before a result (:data:`RESULTS`):
    "Underlying rights" are rights."""
    at = w.find(ADJUSTED)
    if at is None or w.words[at[0]] != "underlying":
        return at
    following = w.words[at[1] : at[1] + 2]
    return at if set(following) & RESULTS else None


def _forecast(w: _Words) -> tuple[int, int] | None:
    """An expected figure's words (:data:`FORECAST`; not "projected benefit obligation")."""
    start = 0
    while (at := w.find(FORECAST, start)) is not None:
        if _forecast_word(w.words, at[0]):
            return at
        start = at[1]
    return None


def _forecast_word(words: Sequence[str], i: int) -> bool:
    """Whether ``words[i]``, a word of :data:`FORECAST` or :data:`FORECAST_VERBS`, says an
    expected figure where it stands (:data:`NOT_FORECAST_AFTER`, :data:`NOT_OUR_GUIDANCE`)."""
    word = words[i]
    if word in ("projected", "projection", "projections"):
        return words[i + 1 : i + 2] == [] or words[i + 1] not in NOT_FORECAST_AFTER
    if word == "guidance":
        return i == 0 or words[i - 1] not in NOT_OUR_GUIDANCE
    return True


FORECAST_VERBS = VERBS_OF_FORECASTING | word_set(
    """expecting anticipating anticipated forecasted forecasting projects projecting
    projected projection projections guide guides guided guiding guidance outlook budgeted"""
)
"""Words of a clause that make the amounts after them expected ones ("we expect revenue
of", "guidance for 2024 revenue of", "Capital expenditures are expected to be", "projected
revenue of"); "expected" only as a verb (:data:`EXPECTED`)."""

EXPECTED = word_set("expected")
""""Expected" names an expected figure only as a verb — before "to" ("are expected to be
approximately") or after a form of "be" or a subject ("we expected") — never as an
adjective of an actual measure ("expected return on plan assets", "expected credit
losses")."""

_BE_OR_SUBJECT = word_set("is are was were be been being we it they company management")

NOT_FORECAST_AFTER_VERB = word_set(
    """recognized recognised amortized amortised realized realised reclassified incurred
    vested"""
)
"""Words after "expected to be" that make it an actual balance's future accounting
("unrecognized cost … expected to be recognized over 2.1 years")."""

CLAUSE_ACTUAL = word_set("compared versus vs against from reported actual was were")
"""Words after a forecast verb and before the amount that turn to another, stated figure
("we expect revenue of $4.1 billion, compared with $3.9 billion in 2023")."""


def names_forecast(words: Sequence[str]) -> bool:
    """Whether the words of a clause before an amount make it an expected figure
    (:data:`FORECAST_VERBS`; the last such word with no turn to a stated figure after it,
    :data:`CLAUSE_ACTUAL`)."""
    if _FORECAST_STEMS.search(_folded(words)) is None:
        return False  # most clauses: no word that could say so, none of them read
    said = [w for token in words for w in _token_words(token)]
    for i in range(len(said) - 1, -1, -1):
        word = said[i]
        if word in CLAUSE_ACTUAL:
            return False
        if word in FORECAST_VERBS:
            if not _forecast_word(said, i):
                continue
            return True
        if word in EXPECTED:
            following = said[i + 1 : i + 4]
            verb = following[:1] == ["to"] or (i and said[i - 1] in _BE_OR_SUBJECT)
            if following[:2] == ["to", "be"] and set(following[2:]) & NOT_FORECAST_AFTER_VERB:
                return False
            if verb:
                return True
    return False


def _folded(words: Sequence[str]) -> str:
    """``words`` as :func:`~osrag.lexicon.words.name_words` reads them before it splits
    them (casefolded, apostrophes dropped): every word it reads of a token is a part of
    this text."""
    return " ".join(words).casefold().replace("’", "").replace("'", "")


def _stems(words: frozenset[str]) -> re.Pattern[str]:
    """One pattern that finds any of ``words`` inside a text, each written once: a word
    that holds another ("expected" holds "expect") is found with it."""
    kept = sorted(w for w in words if not any(o != w and o in w for o in words))
    return re.compile("|".join(map(re.escape, kept)))


_FORECAST_STEMS = _stems(FORECAST_VERBS | EXPECTED)
"""Where none of these stands in a clause's :func:`_folded` text, no word of it is one of
:data:`FORECAST_VERBS` or :data:`EXPECTED` (:func:`names_forecast` reads no further)."""


def _heads(w: _Words, i: int) -> bool:
    """Whether the words from ``i`` start the name (what stands before is articles and
    prepositions other than "to"): "Parent company", "of the parent company" — not
    "attributable to the parent", not "Teekay Parent"."""
    before = [w.words[k] for k in range(i) if not w.taken[k] and w.words[k] not in ARTICLES]
    return not before or (
        before[-1] in PREPOSITIONS - {"to"} | {"of", "for"}
        and before[-2:-1]
        not in (["owners"], ["holders"], ["shareholders"], ["stockholders"], ["members"])
    )


def _acquired(w: _Words) -> tuple[int, int] | None:
    """The acquired business named, or a participle after a name that ends it ("Total
    assets acquired", "assets acquired and liabilities assumed") — not one before a noun
    ("Amortization of acquired intangibles")."""
    named = w.find(ACQUIRED)
    if named is not None:
        return named
    after = w.find(ACQUIRED_AFTER)
    if after is None or after[0] == 0 or w.words[after[0] - 1] in _NOT_BEFORE_SCOPE:
        return None
    following = w.words[after[1] : after[1] + 1]
    return after if not following or following[0] in COORDINATORS | PREPOSITIONS else None


def _said_again(w: _Words, part: PeriodPart) -> bool:
    """Whether the words name ``part`` once more (its words then taken), else leave them."""
    taken = list(w.taken)
    if _part_of_year(w) == part:
        return True
    w.taken = taken
    return False


def read_scope(words: Sequence[str]) -> ScopeReading:
    """Split a name's words — as written, one token each (``"Adjusted"``, ``"(non-GAAP)"``,
    ``"fourth-quarter"``) — into what, whose and when (module docstring). The what is the
    tokens not taken, in order; function words left hanging at a taken run go with it
    ("Income from discontinued operations" → ``["Income"]``). A scope or part said twice
    is taken whole: where the what, read again, still says the same scope or part (and
    nothing else), its words go too."""
    reading = _read_scope_once(words)
    while reading.scope != "own" or reading.period_part is not None:
        again = _read_scope_once(reading.what)
        if again.what == reading.what:
            break
        no_scope = again.scope == "own" and again.scope_name is None
        same_scope = again.scope == reading.scope and again.scope_name == reading.scope_name
        if not (no_scope or same_scope):
            break  # another scope in what is left: the first reading stands
        if again.period_part not in (None, reading.period_part):
            break
        if no_scope and again.period_part is None:
            break  # nothing of the same said again
        reading = ScopeReading(again.what, reading.scope, reading.scope_name, reading.period_part)
    return reading


def _read_scope_once(words: Sequence[str]) -> ScopeReading:
    """:func:`read_scope`'s one pass over the words."""
    if not any(map(_may_name_scope, words)):
        return ScopeReading(list(words), "own", None, None)  # most names: nothing to take
    w = _Words(words)
    part = _period_part(w)
    for phrase in REPORTED:
        if (at := w.find((phrase,))) is not None:
            w.take(*at)
    found = _scopes(w)
    scope: Scope = "own"
    name: str | None = None
    for candidate in PRECEDENCE:
        if candidate in found:
            start, end, name = found[candidate]
            w.take(start, end)
            scope = candidate
            while (again := _scopes(w).get(candidate)) is not None and again[2] == name:
                w.take(again[0], again[1])  # "Adjusted operating income (non-GAAP)"
            break
    return ScopeReading(w.what(), scope, name if scope in PARTS else None, part)


@functools.cache
def _scope_first_words() -> frozenset[str]:
    """The first words of every phrase and region name a scope is read from."""
    phrases = (*REPORTED, *_PART_NOUNS, *DISCONTINUED, *PRO_FORMA, *HELD_FOR_SALE, *ADJUSTED,
               *PARENT, *ACQUIRED, *ACQUIRED_AFTER, *TAX_EFFECT, *FORECAST,
               *_regions())  # fmt: skip
    return frozenset(phrase[0] for phrase in phrases)


@functools.lru_cache(maxsize=1 << 15)
def _may_name_scope(token: str) -> bool:
    """Whether a word of ``token`` can start a scope's words or a part of the year's
    (:func:`read_scope` reads names none of whose tokens can as their own, whole)."""
    return _may_name_part(token) or not _scope_first_words().isdisjoint(_token_words(token))


def _period_part(w: _Words) -> PeriodPart | None:
    """The part of the year the words name, its words taken (said twice, once)."""
    part = _part_of_year(w)
    while part is not None and _said_again(w, part):
        pass  # "Q4 … Q4": one part, said twice
    return part


def period_part_of(words: Sequence[str]) -> PeriodPart | None:
    """:func:`read_scope`'s ``period_part`` alone (the part of the year is read before,
    and apart from, whose figure it is): for a clause that names no measure. Words none
    of which can name a part (most clauses) are not read further."""
    if not any(map(_may_name_part, words)):
        return None
    part = _period_part(_Words(words))
    return None if part in TERM_YEARS else part  # a term's year: the fact's own words


_PART_WORDS = frozenset(
    {phrase[0] for phrase in (*_TO_DATE, *_THIS_PERIOD, *_FULL_YEAR, *_OTHER_PART)}
    | {"quarter", "qtr", "half", "year", "current"}
)
"""The words one of which every part of the year is named with (:func:`_one_part`: an
ordinal names a quarter or a half only before "quarter", "qtr" or "half")."""


@functools.lru_cache(maxsize=1 << 15)
def _may_name_part(token: str) -> bool:
    """Whether a word of ``token`` can name a part of the year (:data:`_PART_WORDS`, a
    quarter's or a half's token such as "Q4", "2H21")."""
    return any(
        word in _PART_WORDS
        or _QUARTER_TOKEN.fullmatch(word) is not None
        or _HALF_TOKEN.fullmatch(word) is not None
        for word in _token_words(token)
    )


@functools.lru_cache(maxsize=1 << 14)
def scope_of(text: str) -> tuple[str, Scope, str | None, PeriodPart | None]:
    """:func:`read_scope` of a text split at white space: ``(what as text, scope, scope
    name, period part)`` ("Adjusted EBITDA" → ``("EBITDA", "adjusted", None, None)``)."""
    reading = read_scope(text.split())
    return " ".join(reading.what), reading.scope, reading.scope_name, reading.period_part
