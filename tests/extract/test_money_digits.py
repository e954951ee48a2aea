"""Digits in any script: an amount written in Arabic-Indic, Eastern Arabic-Indic,
Devanagari, full-width or any other Unicode decimal digits (with the Arabic separators
٬ ٫ ٪) reads exactly as the same amount written in ASCII — in prose, in table cells and
as a query constraint — and a separator osrag cannot read never yields another value."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.extract.money import ascii_digits, parse_money, scan_money
from osrag.models import ExtractionConfig
from osrag.search.analysis import analyze_query

ZEROS = [c for c in range(sys.maxunicode + 1) if unicodedata.decimal(chr(c), None) == 0]
"""The zero of every decimal digit script Unicode knows (ASCII's among them)."""
ARABIC = {0x0660, 0x06F0}
"""Arabic-Indic and Eastern Arabic-Indic (Persian, Urdu): the Arabic separators go with them."""
SEPARATORS = {",": "\u066c", ".": "\u066b", "%": "\u066a"}


def written_in(text: str, zero: int, separators: list[bool]) -> str:
    """``text`` with its ASCII digits in the script of ``zero``; with Arabic digits each
    ``,`` ``.`` ``%`` turned Arabic where ``separators`` says so."""
    out, i = [], 0
    for ch in text:
        if ch.isdigit() and ch.isascii():
            out.append(chr(zero + int(ch)))
        elif ch in SEPARATORS and zero in ARABIC:
            out.append(SEPARATORS[ch] if separators[i % len(separators)] else ch)
            i += 1
        else:
            out.append(ch)
    return "".join(out)


def readings(text: str) -> list[tuple[object, ...]]:
    scan = scan_money(text)
    for m in scan.mentions:
        assert text[m.start : m.end] == m.raw
    return [
        (m.start, m.end, m.currency, m.minor_units, m.negative, m.form) for m in scan.mentions
    ] + [(r.start, r.end, "rejected") for r in scan.rejected]


def cells(text: str) -> list[tuple[object, ...]]:
    found = extract_values(text, ExtractionConfig())
    return [(m.start, m.end, m.currency, m.minor_units, m.negative, m.scale) for m in found.money]


figures = st.one_of(
    st.integers(0, 10**12).map(lambda n: f"{n:,}"),
    st.integers(0, 10**9).map(str),
    st.tuples(st.integers(0, 10**9), st.integers(0, 99)).map(lambda t: f"{t[0]:,}.{t[1]:02d}"),
    st.tuples(st.integers(0, 10**9), st.integers(0, 99)).map(
        lambda t: f"{t[0]:,}".replace(",", ".") + f",{t[1]:02d}"
    ),
    st.integers(0, 10**7).map(lambda n: f"{n / 10:g}"),
)
currencies = st.sampled_from(
    ["$", "US$", "€", "£", "¥", "₹", "Rs. ", "USD ", "EUR ", "₩", "NT$", "C$", "KWD "]
)
after = st.sampled_from([" USD", " €", " dollars", " euros", " rupees", "€", " ₽", " KWD", ""])
scales = st.sampled_from(["", "K", "M", " million", " thousand", "bn", " lakh", " crore", "%"])
words = st.sampled_from(["", "fee ", "between ", "over ", "and ", "to ", "- ", "(", ") ", "2019 "])
amounts = st.tuples(words, st.one_of(currencies, st.just("")), figures, scales, after, words).map(
    "".join
)
texts = st.lists(amounts, min_size=1, max_size=4).map(" ".join)
free_text = st.text(alphabet="0123456789,.%$€£ -–()KMUSDEabn ", max_size=40)
scripts = st.sampled_from(ZEROS)
choices = st.lists(st.booleans(), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, free_text), scripts, choices)
@example("$300,000", 0x0660, [True])
@example("$300,000.50 and 5,000 €", 0x06F0, [True, False])
@example("$15% and ₹12,34,567.50", 0x0966, [True])
@example("USD 1.500,00 or 300.000 €", 0xFF10, [True])
def test_an_amount_in_any_script_reads_as_in_ascii(ascii: str, zero: int, seps: list[bool]) -> None:
    text = written_in(ascii, zero, seps)
    assert ascii_digits(text) == ascii
    assert readings(text) == readings(ascii)


def test_the_arabic_thousands_separator_is_not_the_end_of_an_amount() -> None:
    assert parse_money("$٣٠٠٬٠٠٠") == parse_money("$300,000")
    assert parse_money("$٣٠٠٬٠٠٠") is not None
    assert parse_money("$۳۰۰٬۰۰۰٫۵۰") == parse_money("$300,000.50")  # Persian digits
    assert parse_money("٣٠٠٬٠٠٠ €") == parse_money("300,000 €")
    assert parse_money("₹१२,३४,५६७") == parse_money("₹12,34,567")  # Devanagari
    assert parse_money("$１２３，４５６") is None  # a full-width comma osrag does not read
    assert scan_money("$١٥٪").mentions == []  # a percentage, as "$15%" is


@pytest.mark.parametrize("glue", ["،", "，", "．"])
@settings(max_examples=150, deadline=None)
@given(texts, scripts)
@example("$300,000", 0x0660)
@example("5,000 €", 0x30)
def test_a_separator_osrag_cannot_read_never_yields_another_value(
    glue: str, ascii: str, zero: int
) -> None:
    """``$٣٠٠،٠٠٠`` is not $300: each separator between digits becomes one osrag does not
    read, and no amount is then read from those figures: none holds or touches one."""
    text = written_in(ascii, zero, [False])
    glued = "".join(
        glue
        if ch in ",." and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        else ch
        for i, ch in enumerate(text)
    )
    glues = [i for i, ch in enumerate(glued) if ch == glue]
    for m in scan_money(glued).mentions:
        assert not any(m.start - 1 <= g <= m.end for g in glues), (m.raw, glued)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["Revenue", "Net loss", "Fees"]), figures), min_size=1, max_size=4
    ),
    st.sampled_from(["(in thousands)", "($ in millions)", "€m", "(Rs. in lakhs)"]),
    scripts,
)
def test_table_cells_in_any_script_read_as_in_ascii(
    rows: list[tuple[str, str]], caption: str, zero: int
) -> None:
    body = "\n".join(f"| {label} | $ {value} | ({value}) |" for label, value in rows)
    ascii = f"{caption}\n\n| Item | 2019 | 2018 |\n|---|---|---|\n{body}\n"
    text = written_in(ascii, zero, [True])
    assert cells(text) == cells(ascii)


@pytest.mark.parametrize(
    ("query", "ascii"),
    [
        ("policies between $٣٠٠٬٠٠٠ and $٥٠٠٬٠٠٠", "policies between $300,000 and $500,000"),
        ("between ٣٠٠٬٠٠٠ and $٥٠٠٬٠٠٠", "between 300,000 and $500,000"),
        ("between $١٬٥٠٠ and $٢ million", "between $1,500 and $2 million"),
        ("over €٢٥٠٬٠٠٠", "over €250,000"),
        ("deductible under $१,०००", "deductible under $1,000"),
    ],
)
def test_a_query_in_any_script_states_the_same_constraints(query: str, ascii: str) -> None:
    got, expected = analyze_query(query), analyze_query(ascii)
    shape = [(c.op, c.currency, c.bounds, c.start, c.end) for c in got.constraints]
    assert shape == [(c.op, c.currency, c.bounds, c.start, c.end) for c in expected.constraints]
    assert shape
    assert [c.text for c in got.constraints] == [query[c.start : c.end] for c in got.constraints]
