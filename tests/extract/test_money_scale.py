"""Scale captions and the table cells they govern (osrag/extract/scale.py, tables.py)."""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path

import pytest
from backend_cases import BACKEND_PARAMS, BackendCase, filtered
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.extract.scale import find_caption, parse_caption
from osrag.extract.tables import table_amounts
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.loaders.corpus import load_file
from osrag.models import Document, ExtractionConfig
from osrag.schema.filters import Term
from osrag.search.searcher import Searcher

CONFIG = ExtractionConfig()

CAPTIONS = [
    ("(in millions)", 6, None),
    ("(In thousands, except per share data)", 3, None),
    ("$ in billions", 9, "$"),
    ("($ in millions)", 6, "$"),
    ("(000s)", 3, None),
    ("(Dollars in thousands)", 3, "$"),
    ("(In millions of U.S. dollars)", 6, "USD"),
    ("(in millions of €)", 6, "EUR"),
    ("€m", 6, "EUR"),
    ("2019 €m", 6, "EUR"),
    ("$'000", 3, "$"),
    ("2018 $’000 RESTATED3", 3, "$"),
    ("£'000", 3, "GBP"),
    ("in $000's", 3, "$"),
    ("amounts in thousands", 3, None),
    ("U.S. $ in thousands", 3, "USD"),
    ("(columnar dollars in millions except per share amounts)", 6, "$"),
    ("(Tabular amounts in millions, unless otherwise disclosed)", 6, None),
    ("(in thousand NT dollars)", 3, "TWD"),
    ("£ million", 6, "GBP"),
    ("($000)", 3, "$"),
    ("(Amounts in 000's)", 3, None),
    ("(In U.S. $ millions)", 6, "USD"),
    ("(in thousands of dollars)", 3, "$"),
    ("US$’000", 3, "USD"),
    ("Expressed in US $000's except share and per share amounts", 3, "USD"),
    ("(₹ in crore)", 7, "INR"),
    ("(Rs. in lakhs)", 5, "INR"),
    ("(in ₹ crore)", 7, "INR"),
    ("(Rupees in lacs)", 5, "INR"),
    ("(Amount in ₹ lakh)", 5, "INR"),
    ("(in thousands of rupees)", 3, "INR"),
    ("(INR in millions)", 6, "INR"),
    ("₹ crore", 7, "INR"),
]

NOT_CAPTIONS = [
    "millions of customers",
    "Revenue",
    "(in part offset by lower costs)",
    "(shares in thousands)",
    "We serve customers in millions of homes across the country every day",
    "2019",
    "$",
    "",
    "(the place in lace)",
    "(hours in Rs)",
]


@pytest.mark.parametrize(("text", "exponent", "currency"), CAPTIONS)
def test_filings_captions_are_read_with_their_scale_and_currency(
    text: str, exponent: int, currency: str | None
) -> None:
    caption = parse_caption(text)
    assert caption is not None, text
    assert (caption.exponent, caption.currency) == (exponent, currency)
    assert caption.text == text


@pytest.mark.parametrize("text", NOT_CAPTIONS)
def test_words_that_are_not_a_caption_are_not_read_as_one(text: str) -> None:
    assert parse_caption(text) is None


def test_exceptions_name_the_rows_the_scale_does_not_reach() -> None:
    caption = parse_caption("(in thousands, except share and per share data)")
    assert caption is not None and caption.except_per_share and caption.except_shares
    caption = parse_caption("(in millions, except percentages)")
    assert caption is not None and not caption.except_per_share


def test_a_lead_in_sentence_states_its_caption_in_parentheses() -> None:
    line = "Other assets consist of the following (in thousands):"
    caption = find_caption(line, 100)
    assert caption is not None and caption.exponent == 3
    assert line[caption.start - 100 : caption.end - 100] == "(in thousands)"


SCALE_WORDS = {3: "thousands", 5: "lakhs", 6: "millions", 7: "crores", 9: "billions"}


@given(
    exponent=st.sampled_from([3, 5, 6, 7, 9]),
    form=st.sampled_from(["({} in {})", "({} {})", "(in {1} of {0})", "{} in {}"]),
    currency=st.sampled_from(
        [("$", "$"), ("Dollars", "$"), ("U.S. dollars", "USD"), ("₹", "INR"), ("Rupees", "INR")]
    ),
    capital=st.booleans(),
)
def test_generated_captions_give_their_scale(
    exponent: int, form: str, currency: tuple[str, str], capital: bool
) -> None:
    word = SCALE_WORDS[exponent]
    text = form.format(currency[0], word if not capital else word.capitalize())
    caption = parse_caption(text)
    if form == "({} {})":  # "($ millions)": no "in" — not a form this reader accepts
        assert caption is None or caption.exponent == exponent
        return
    assert caption is not None, text
    assert caption.exponent == exponent
    assert caption.currency == currency[1]


@given(st.text(alphabet=st.characters(blacklist_characters="0mMbB"), max_size=60))
def test_text_without_a_scale_word_or_unit_is_never_a_caption(text: str) -> None:
    lowered = text.lower()
    if not any(w in lowered for w in ("thousand", "million", "billion", "lakh", "crore", "lac")):
        assert parse_caption(text) is None


# --------------------------------------------------------------------------- cells


def _table(caption: str, rows: list[str], lead: str = "") -> str:
    header = f"| {caption} | 2019 | 2018 |\n|---|---|---|\n"
    body = "".join(f"| {row} |\n" for row in rows)
    return (lead + "\n\n" if lead else "") + header + body


def _read(text: str) -> dict[str, tuple[int, bool, int]]:
    """Each amount's raw text → (minor units, negative, scale)."""
    return {m.raw: (m.minor_units, m.negative, m.scale) for m in table_amounts(text)}


def test_a_captioned_table_scales_its_money_cells_and_only_those() -> None:
    text = _table(
        "(in millions, except per share amounts)",
        [
            "Revenue | $ 831.7 | $ 790.2",
            "Other | 44.1 | 56.7",
            "Net loss | (3.1) | $(2.0)",
            "Earnings per share | $ 1.25 | 0.98",
            "Weighted-average shares | 120.4 | 118.9",
            "Gross margin | 41.5% | 40.0%",
        ],
    )
    read = _read(text)
    assert read["$ 831.7"] == (83_170_000_000, False, 6)
    assert read["44.1"] == (4_410_000_000, False, 6)
    assert read["(3.1)"] == (310_000_000, True, 6)
    assert read["$(2.0)"] == (200_000_000, True, 6)
    for not_scaled in ("$ 1.25", "0.98", "120.4", "118.9", "41.5%", "2019", "2018"):
        assert not_scaled not in read


def test_lakh_and_crore_captions_scale_rupee_tables() -> None:
    rows = ["Revenue from operations | 1,234.56 | 1,100", "Net loss | (12.5) | 45"]
    text = _table("(₹ in crore)", rows)
    read = _read(text)
    assert read["1,234.56"] == (1_234_560_000_000, False, 7)
    assert read["(12.5)"] == (12_500_000_000, True, 7)
    lakhs = "Figures as follows (Rs. in lakhs):\n\nParticulars | 2023 | 2022\n"
    lakhs += "Revenue — 2023: 5,432; 2022: 4,321\nEmployees — 2023: 120; 2022: 110\n"
    amounts = {m.raw: (m.currency, m.minor_units) for m in table_amounts(lakhs)}
    assert amounts == {"5,432": ("INR", 54_320_000_000), "4,321": ("INR", 43_210_000_000)}


def test_a_bare_cell_is_money_only_when_the_caption_or_its_column_says_so() -> None:
    rows = ["Deferred revenue | 1,234 | 1,100", "Total | 5,000 | 4,000"]
    assert _read(_table("(in thousands)", rows)) == {}  # no currency anywhere: a count?
    signed = ["Deferred revenue | 1,234 | 1,100", "Total | $ 5,000 | $ 4,000"]
    assert _read(_table("(in thousands)", signed))["1,234"] == (123_400_000, False, 3)
    assert _read(_table("(Dollars in thousands)", rows))["1,234"] == (123_400_000, False, 3)
    assert _read(_table("(€ in thousands)", rows)) != {}


def test_no_caption_means_no_scaling_and_bare_numbers_only_in_a_dollar_column() -> None:
    read = _read(_table("", ["Sales | $ 1,452.4 | $ 1,146.2", "Other | 44.1 | 56.7"]))
    assert read["$ 1,452.4"] == (145_240, False, 0)
    assert read["44.1"] == (4_410, False, 0)  # the column writes "$" on its first row
    assert _read(_table("", ["Units | 44 | 56"])) == {}


def test_the_lead_in_governs_the_next_table_only_and_prose_is_never_scaled() -> None:
    text = (
        "Other assets consist of the following (in thousands):\n\n"
        + _table("", ["Deposits | $ 1,000 | $ 900"])
        + "\nRevenue grew by $5 to $12.\n\n"
        + _table("", ["Leases | $ 70 | $ 60"])
    )
    mentions = {m.raw: m for m in extract_values(text, CONFIG).money}
    assert mentions["$ 1,000"].minor_units == 100_000_000
    assert mentions["$5"].minor_units == 500 and mentions["$12"].scale == 0
    assert mentions["$ 70"].minor_units == 7_000


def test_a_section_title_caption_governs_every_table_until_the_next_heading() -> None:
    text = (
        "## Notes to financial statements (in millions, except per share data)\n\n"
        + _table("", ["Goodwill | $ 10.5 | $ 9.0"])
        + "\n"
        + _table("", ["Leases | $ 2 | $ 1"])
        + "\n## Other\n\n"
        + _table("", ["Fees | $ 3 | $ 4"])
    )
    read = _read(text)
    assert read["$ 10.5"][0] == 1_050_000_000 and read["$ 2"][0] == 200_000_000
    assert read["$ 3"] == (300, False, 0)


def test_column_units_scale_their_own_column() -> None:
    text = "|  | 2019 €m | Change % |\n|---|---|---|\n| Revenue | 17,663 | (3) |\n"
    read = _read(text)
    assert read == {"17,663": (1_766_300_000_000, False, 6)}
    assert table_amounts(text)[0].currency == "EUR"


@given(
    value=st.decimals(min_value=Decimal("0.1"), max_value=Decimal("99999.9"), places=1),
    exponent=st.sampled_from([3, 6, 9]),
    negative=st.booleans(),
    signed=st.booleans(),
)
def test_any_cell_under_a_caption_is_its_value_times_the_scale(
    value: Decimal, exponent: int, negative: bool, signed: bool
) -> None:
    figures = f"{value:,.1f}"
    cell = f"({figures})" if negative else figures
    cell = f"$ {cell}" if signed else cell
    caption = f"($ in {SCALE_WORDS[exponent]})"
    text = _table(caption, [f"Revenue | {cell} | $ 1.0", "Earnings per share | $ 2.50 | $ 1.5"])
    read = _read(text)
    assert read[cell] == (int(value.scaleb(exponent + 2)), negative, exponent)
    assert "$ 2.50" not in read


@given(year=st.integers(min_value=1990, max_value=2030))
def test_a_year_header_is_never_money(year: int) -> None:
    text = f"| ($ in millions) | {year} | {year - 1} |\n|---|---|---|\n| Fiscal {year} | 5 | 6 |\n"
    assert {m.raw for m in table_amounts(text)} == {"5", "6"}


def test_a_loader_written_html_table_is_read_with_its_caption(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(
        "<html><body><h1>Results</h1><p>Net sales were as follows (in millions):</p>"
        "<table><tr><th></th><th>2019</th><th>2018</th></tr>"
        "<tr><td>Net sales</td><td>$ 831.7</td><td>$ 790.2</td></tr>"
        "<tr><td>Other</td><td>(3.1)</td><td>12.0</td></tr>"
        "<tr><td>Diluted earnings per share</td><td>$ 1.25</td><td>$ 1.10</td></tr>"
        "</table><p>Sales rose $41.5 million.</p></body></html>",
        encoding="utf-8",
    )
    (doc,) = [d for d in load_file(page, "report.html") if isinstance(d, Document)]
    money = {m.raw: m for m in extract_values(doc.text, CONFIG, start=doc.content_start).money}
    assert money["$ 831.7"].minor_units == 83_170_000_000
    assert money["(3.1)"].minor_units == 310_000_000 and money["(3.1)"].negative
    assert money["$ 1.25"].minor_units == 125 and money["$ 1.25"].scale == 0
    assert money["$41.5 million"].minor_units == 4_150_000_000


def test_signs_parentheses_and_percents_in_cells_of_their_own_are_read(tmp_path: Path) -> None:
    """EDGAR filings' HTML writes ``$``, the closing ``)`` and ``%`` in cells of their own."""
    page = tmp_path / "10k.html"
    page.write_text(
        "<html><body><p>(In thousands)</p><table>"
        "<tr><td></td><td colspan=2>2019</td><td colspan=2>2018</td><td>Change</td></tr>"
        "<tr><td>Revenue</td><td>$</td><td>1,234</td><td>$</td><td>(567</td><td>)</td></tr>"
        "<tr><td>Cost of revenue</td><td></td><td>800</td><td></td><td>300</td><td></td></tr>"
        "<tr><td>Gross margin</td><td></td><td>35.2</td><td>%</td><td>12.0</td><td>%</td></tr>"
        "</table></body></html>",
        encoding="utf-8",
    )
    (doc,) = [d for d in load_file(page, "10k.html") if isinstance(d, Document)]
    read = {(m.raw, m.minor_units, m.negative) for m in table_amounts(doc.text)}
    assert ("1,234", 123_400_000, False) in read
    assert ("(567", 56_700_000, True) in read
    assert ("800", 80_000_000, False) in read  # its column carries "$" on the first row
    assert not {r for r in read if r[0] in ("35.2", "12.0")}


@pytest.mark.parametrize("backend_case", BACKEND_PARAMS, indirect=True)
def test_a_hit_carries_the_evidence_of_its_scaled_amounts(
    backend_case: BackendCase, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "report.md").write_text(
        "# Annual report\n\n## Results\n\n"
        + _table("(columnar dollars in millions except per share amounts)", [
            "Net sales | $ 831.7 | $ 790.2", "Restructuring | (3.1) | —"
        ]),
        encoding="utf-8",
    )  # fmt: skip
    ingest(corpus, backend_case.backend, IngestOptions(alias=backend_case.alias))
    hits = filtered(backend_case.backend, backend_case.alias, Term("amounts", 310_000_000))
    assert len(hits) == 1
    assert 83_170_000_000 in hits[0]["amounts"] and 79_020_000_000 in hits[0]["amounts"]
    evidence = {e["text"]: e for e in hits[0]["amount_evidence"]}
    assert evidence["(3.1)"] == {
        "minor_units": 310_000_000,
        "currency": "USD",
        "text": "(3.1)",
        "span": evidence["(3.1)"]["span"],
        "scale": 6,
        "caption": "(columnar dollars in millions except per share amounts)",
        "negative": True,
    }
    start, end = evidence["(3.1)"]["span"]
    assert (corpus / "report.md").read_text(encoding="utf-8")[start:end] == "(3.1)"
    searcher = Searcher(backend_case.backend, backend_case.alias, enforce_access=False)
    (hit,) = searcher.search("restructuring net sales $3.1 million").hits
    shown = {e.text: e for e in hit.amount_evidence}
    assert (shown["(3.1)"].minor_units, shown["(3.1)"].negative) == (310_000_000, True)
    assert shown["$ 831.7"].caption == evidence["(3.1)"]["caption"]
    backend_case.purge()


# --------------------------------------------------------------------------- TAT-QA


@pytest.mark.corpus
@pytest.mark.parametrize("form", ["markdown", "html"])
def test_tatqa_money_extraction_meets_the_precision_and_recall_bars(
    corpora: Path, tmp_path: Path, form: str
) -> None:
    """Markdown pipe tables, and the same reports as HTML written by the HTML loader."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from tatqa_extraction import run

    result = run(corpora / "tatqa-dev" / "tatqa_dataset_dev.json", tmp_path, form)
    assert result["tp"] > 90  # the gold is the annotations, not a handful (98 in the slice)
    assert result["precision"] >= 0.99, result["examples"]
    assert result["recall"] >= 0.95, result["examples"]
    assert result["false_positives"] == 0


CELL_VALUES = st.one_of(
    st.decimals(min_value=Decimal("0.1"), max_value=Decimal("9999.9"), places=1).map(
        lambda d: f"{d:,.1f}"
    ),
    st.integers(min_value=1, max_value=999_999).map(lambda n: f"({n:,})"),
    st.integers(min_value=1, max_value=999_999).map(lambda n: f"$ {n:,}"),
    st.sampled_from(["—", "12.5%", "n/a"]),
)
LABELS = st.sampled_from(
    ["Revenue", "Cost of sales", "Other, net", "Diluted earnings per share", "Employees"]
)


@given(
    rows=st.lists(st.tuples(LABELS, CELL_VALUES, CELL_VALUES), min_size=1, max_size=6),
    caption=st.sampled_from(["(Dollars in millions)", "($ in thousands)", "(in millions)"]),
)
def test_a_table_reads_the_same_as_a_pipe_table_and_as_the_loaders_write_it(
    rows: list[tuple[str, str, str]], caption: str
) -> None:
    """The same table, written both ways, states the same amounts."""
    from osrag.loaders.text import table_lines

    grid = [[caption, "2019", "2018"], *[list(row) for row in rows]]
    pipe = "".join(
        f"| {' | '.join(r)} |\n" + ("|---|---|---|\n" if i == 0 else "") for i, r in enumerate(grid)
    )
    loader = "\n".join(table_lines(grid)) + "\n"

    def amounts(text: str) -> list[tuple[int, bool]]:
        return sorted((m.minor_units, m.negative) for m in table_amounts(text))

    assert amounts(pipe) == amounts(loader)


def test_a_scaled_cell_beyond_a_long_is_skipped_not_an_error() -> None:
    text = (
        "($ in millions)\n\n| Item | 2019 |\n|---|---|\n"
        "| Revenue | 92,233,720,369 |\n| Cost | 5 |\n"
    )
    assert [(m.raw, m.minor_units) for m in table_amounts(text)] == [("5", 500_000_000)]
