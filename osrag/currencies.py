"""The currencies osrag recognises: one table, and the largest amount it stores.

Every reader of money derives its vocabulary from :data:`CURRENCIES` — the money
patterns in prose (:mod:`osrag.extract.money`), the scale captions
(:mod:`osrag.extract.scale`) and the table cells (:mod:`osrag.extract.tables`) — so a
sign, code or noun read in one of them is read in all. This module imports nothing
from osrag: every layer, from the models to the extractors, reads it.

The table is short and curated on purpose: every code here is also a token the scanner
accepts before or after a number, and each one added is a possible false positive in
upper-case prose (which is why e.g. TRY and ALL are absent).

Ambiguous signs and nouns (several currencies write them) have one reading:

* ``$`` and an unqualified "dollar(s)" mean the configured default currency when it is
  a dollar currency (:attr:`Currency.dollar`: USD, CAD, AUD, NZD, HKD, SGD), else USD
  (:func:`dollar_currency`). A qualifier names the dollar: "Canadian dollars" is CAD,
  "NT dollars" TWD.
* ``¥`` is JPY (the yuan writes it too: ``RMB``, "yuan" and "renminbi" are CNY).
* ``Rs``/``Rs.`` and "rupee(s)" are INR (Pakistan, Sri Lanka and Nepal write them too).
* "pound(s)" alone is a weight in prose; only "pound(s) sterling" is money there. A
  scale caption, which is about money already, reads "pounds" as GBP
  (:attr:`Currency.caption_nouns`).
"""

from __future__ import annotations

from dataclasses import dataclass

LONG_MAX = 2**63 - 1
"""OpenSearch's ``long``: the largest amount in minor units osrag stores."""

DOLLAR = "$"
"""What ``$`` and an unqualified "dollar(s)" stand for before the default currency
resolves them (:func:`dollar_currency`)."""


@dataclass(frozen=True, slots=True)
class Sign:
    """A currency sign as written: ``€``, ``US$``, ``Rs.``."""

    text: str
    after: bool = False
    """Also written after the figures (``300.000 €``, ``500 ₽``); ``$`` never is."""
    ambiguous: bool = False
    """Other currencies write it too; osrag reads it as the currency it is listed under
    (``$``: as :func:`dollar_currency` says)."""


@dataclass(frozen=True, slots=True)
class Currency:
    """One currency: its ISO 4217 code and minor-unit exponent, and how text names it."""

    code: str
    exponent: int
    """ISO 4217 minor-unit exponent: USD 2, JPY 0, KWD 3."""
    signs: tuple[Sign, ...] = ()
    """Signs written before the figures (and after them, where :attr:`Sign.after`)."""
    aliases: tuple[str, ...] = ()
    """Non-ISO codes seen in real documents (``RMB``), written like a code."""
    nouns: tuple[str, ...] = ()
    """Every form of the words that name it, lower-cased (``euro``, ``euros``). A noun
    several currencies list (``dollar``) is read by its qualifier, else as ``$`` is."""
    qualifiers: tuple[str, ...] = ()
    """Words written before a noun that name this currency (``canadian`` dollars)."""
    caption_nouns: tuple[str, ...] = ()
    """Nouns that name it only in a scale caption ("in millions of pounds"): in prose
    they mean something else ("five pounds" is a weight)."""
    dollar: bool = False
    """``$`` and an unqualified "dollar(s)" mean it when it is the default currency."""


_DOLLARS = ("dollar", "dollars")

CURRENCIES: tuple[Currency, ...] = (
    Currency(
        "USD", 2,
        signs=(Sign("$", ambiguous=True), Sign("US$"), Sign("U.S.$")),
        nouns=_DOLLARS, qualifiers=("us", "u.s.", "united states", "american"), dollar=True,
    ),
    Currency("CAD", 2, signs=(Sign("C$"), Sign("CA$")), nouns=_DOLLARS,
             qualifiers=("canadian",), dollar=True),
    Currency("AUD", 2, signs=(Sign("A$"), Sign("AU$")), nouns=_DOLLARS,
             qualifiers=("australian",), dollar=True),
    Currency("NZD", 2, signs=(Sign("NZ$"),), nouns=_DOLLARS,
             qualifiers=("new zealand",), dollar=True),
    Currency("HKD", 2, signs=(Sign("HK$"),), nouns=_DOLLARS, qualifiers=("hong kong",),
             dollar=True),
    Currency("SGD", 2, signs=(Sign("S$"), Sign("SG$")), nouns=_DOLLARS,
             qualifiers=("singapore",), dollar=True),
    Currency("TWD", 2, signs=(Sign("NT$"),), nouns=_DOLLARS, qualifiers=("nt", "new taiwan")),
    Currency("BRL", 2, signs=(Sign("R$"),)),
    Currency("EUR", 2, signs=(Sign("€", after=True),), nouns=("euro", "euros")),
    Currency("GBP", 2, signs=(Sign("£", after=True),),
             nouns=("pound sterling", "pounds sterling"), caption_nouns=("pound", "pounds")),
    Currency("JPY", 0, signs=(Sign("¥", after=True, ambiguous=True),), nouns=("yen",),
             qualifiers=("japanese",)),
    Currency("CNY", 2, aliases=("RMB",), nouns=("yuan", "renminbi"), qualifiers=("chinese",)),
    Currency("CHF", 2, nouns=("franc", "francs"), qualifiers=("swiss",)),
    Currency(
        "INR", 2,
        signs=(Sign("₹", after=True), Sign("Rs.", ambiguous=True), Sign("Rs", ambiguous=True)),
        nouns=("rupee", "rupees"),
    ),
    Currency("KRW", 0, signs=(Sign("₩"),)),
    Currency("RUB", 2, signs=(Sign("₽", after=True),)),
    Currency("ILS", 2, signs=(Sign("₪", after=True),)),
    Currency("PHP", 2, signs=(Sign("₱"),)),
    Currency("VND", 0, signs=(Sign("₫", after=True),)),
    Currency("AED", 2), Currency("ARS", 2), Currency("BHD", 3), Currency("CLP", 0),
    Currency("COP", 2), Currency("CZK", 2), Currency("DKK", 2), Currency("EGP", 2),
    Currency("HUF", 2), Currency("IDR", 2), Currency("ISK", 0), Currency("JOD", 3),
    Currency("KWD", 3), Currency("MXN", 2), Currency("MYR", 2), Currency("NGN", 2),
    Currency("NOK", 2), Currency("OMR", 3), Currency("PKR", 2), Currency("PLN", 2),
    Currency("QAR", 2), Currency("SAR", 2), Currency("SEK", 2), Currency("THB", 2),
    Currency("UAH", 2), Currency("ZAR", 2),
)  # fmt: skip
"""Every currency osrag recognises; the first to list a shared sign or noun is its reading."""


# --------------------------------------------------------------------------- derived lookups

MINOR_UNIT_EXPONENTS: dict[str, int] = {c.code: c.exponent for c in CURRENCIES}
"""ISO code → minor-unit exponent."""

CODES: dict[str, str] = {c.code: c.code for c in CURRENCIES} | {
    alias: c.code for c in CURRENCIES for alias in c.aliases
}
"""Every code written for a currency (ISO codes and aliases) → its ISO code."""

DOLLAR_CURRENCIES = frozenset(c.code for c in CURRENCIES if c.dollar)


def _first_listed(pairs: list[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, code in pairs:
        out.setdefault(key, code)
    return out


SIGNS: dict[str, str] = _first_listed(
    [(s.text, DOLLAR if c.dollar and s.ambiguous else c.code) for c in CURRENCIES for s in c.signs]
)
"""Sign → ISO code; ``$`` → :data:`DOLLAR`."""

SIGNS_AFTER: dict[str, str] = {
    s.text: SIGNS[s.text] for c in CURRENCIES for s in c.signs if s.after
}
"""The signs also written after the figures (``300.000 €``)."""

NOUNS: dict[str, str] = _first_listed(
    [(n, DOLLAR if c.dollar else c.code) for c in CURRENCIES for n in c.nouns]
)
"""Noun (lower-cased, single-spaced) → ISO code; "dollar(s)" → :data:`DOLLAR`."""

CAPTION_NOUNS: dict[str, str] = NOUNS | {n: c.code for c in CURRENCIES for n in c.caption_nouns}
"""The nouns a scale caption reads: every prose noun, and "pound(s)"."""

QUALIFIERS: dict[str, str] = {q: c.code for c in CURRENCIES for q in c.qualifiers}
"""Qualifier (lower-cased, single-spaced) → the currency it names with a noun it lists."""

SIGN_CHARACTERS = "".join(
    sorted({ch for sign in SIGNS for ch in sign if not ch.isalnum() and ch != "."})
)
"""The characters that make a sign a sign (``$``, ``€``, ``₹``, …): every sign but the
lettered ``Rs``/``Rs.`` holds one."""

LETTER_SIGNS = tuple(s for s in SIGNS if not any(ch in SIGN_CHARACTERS for ch in s))
"""Signs written in letters alone (``Rs``, ``Rs.``): read only as a word of their own."""

_FIRST_WORDS = {noun.split()[0] for noun in CAPTION_NOUNS}
NOUN_STEMS = tuple(
    sorted(w for w in _FIRST_WORDS if not any(o != w and o in w for o in _FIRST_WORDS))
)
"""A word every currency noun contains (``dollar``, ``euro``, ``pound``, …): a text
holding none of them names no currency in words."""


def dollar_currency(default_currency: str = "USD") -> str:
    """What ``$`` and an unqualified "dollars" mean: the default if it is a dollar
    currency, else USD."""
    return default_currency if default_currency in DOLLAR_CURRENCIES else "USD"


def noun_currency(noun: str, qualifier: str | None = None, *, caption: bool = False) -> str | None:
    """The currency a noun names (``"euros"`` → EUR; ``"dollars"``, ``"canadian"`` → CAD);
    :data:`DOLLAR` for an unqualified dollar; ``None`` for a word that is no currency noun
    (``caption``: in a scale caption, where "pounds" is GBP).

    A qualifier counts only with a noun its currency lists ("Swiss dollars" is a dollar,
    not CHF); noun and qualifier are matched lower-cased with spaces collapsed.
    """
    noun = " ".join(noun.lower().split())
    code = (CAPTION_NOUNS if caption else NOUNS).get(noun)
    if code is None or qualifier is None:
        return code
    named = QUALIFIERS.get(" ".join(qualifier.lower().split()))
    if named is None:
        return code
    listed = next(c for c in CURRENCIES if c.code == named)
    return named if noun in listed.nouns or noun in listed.caption_nouns else code
