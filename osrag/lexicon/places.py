"""Where a document places itself: the postal addresses of a country, read for the one
currency a bill that writes no currency sign at all is in.

A plain-text invoice, receipt or statement often prints its columns of figures bare —
"BALANCE DUE   426.37" under a letterhead "4402 Ridge Trail, Bend, OR 97701" — and says
its currency nowhere: the reader takes it from where the business is. A document whose
addresses are all of one country (a US city, state and ZIP code, "Bend, OR 97701"; a
United Kingdom postcode, "Leeds LS1 4DY") is in that country's currency; addresses of two
countries, or none, say nothing. Only countries whose postal form is unmistakable and
that have one currency of their own are listed: a euro-area address names the euro only
with the country, and a bare five-digit code is a German, French, Italian or Spanish one
alike, so those are left unread.
"""

from __future__ import annotations

import re

__all__ = ["PLACE_CURRENCIES", "place_currency"]

_US_STATES = (
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN",
    "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH",
    "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT",
    "VT", "VA", "WA", "WV", "WI", "WY",
)  # fmt: skip
"""The postal abbreviations of the United States' states and the District of Columbia."""

PLACE_CURRENCIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # a city, a state's postal abbreviation and a ZIP code: "Bend, OR 97701", "Austin TX
    # 78701-1234"
    (
        "USD",
        re.compile(
            r"\b[A-Z][A-Za-z.'-]*(?: [A-Z][A-Za-z.'-]*){0,3},? "
            rf"(?:{'|'.join(_US_STATES)}) \d{{5}}(?:-\d{{4}})?\b"
        ),
    ),
    # a United Kingdom postcode after a town or a street: "Leeds LS1 4DY", "London SW1A 1AA"
    (
        "GBP",
        re.compile(r"\b[A-Z][a-z]+,? (?:[A-Z]{1,2}\d[A-Z\d]?) \d[ABD-HJLNP-UW-Z]{2}\b"),
    ),
)
"""Each currency and the postal form of an address of its country."""


def place_currency(text: str) -> str | None:
    """The currency of the one country the addresses of ``text`` are in, or None (no
    address, or addresses of two countries)."""
    found = {code for code, address in PLACE_CURRENCIES if address.search(text)}
    return next(iter(found)) if len(found) == 1 else None
