"""A deterministic synthetic corpus of insurance policies, any size, streamed to disk.

    python benchmarks/synthetic_corpus.py OUT --chunks 1000000 [--seed 7]

Each file is a Markdown policy: YAML front matter (id, title, category,
effective dates, a form number), a level-1 title with an introduction, then
level-2 and level-3 sections of prose, bullet lists and pipe tables. Every
section is small enough to be one chunk under the default structural chunker,
so the generator knows how many chunks it writes (``tests/benchmarks/test_synthetic_corpus.py``
checks that count, and every amount, against osrag's own chunker and extractor).

What the text holds, so ingest and queries meet what real policies hold:

* **amounts in every format osrag parses** — ``$300,000``, ``$300K``, ``$0.3M``,
  ``$2.5 million``, ``$1.2bn``, ``USD 300,000``, ``US$300,000``,
  ``300,000 dollars``, ``€300,000``, ``300.000 €``, ``EUR 1.500,00``,
  ``£1,500``, ``$1,000.50``, ``$300,000.00``, ``-$500``, ranges
  (``$100,000–$300,000``) and words with figures
  (``Fifty Thousand Dollars ($50,000)``), in prose and in table cells;
* **what is not money** beside them — ``300,000 miles``, form numbers like
  ``UMB-300000``, ``15%``, years, phone and section numbers;
* dates in three formats and policy identifiers (``HOM-12345``);
* words drawn from a Zipf distribution over a fixed vocabulary (a few hundred
  insurance words and a long tail of made-up ones), so BM25 sees realistic
  term statistics.

Document ``i`` depends only on ``(seed, i)``: the corpus of 100k chunks is the
first part of the corpus of 1M chunks, and any file can be regenerated alone.
Files are written one at a time, 1,000 per folder (``p0000/…``); nothing but
the current document is held in memory.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

FILES_PER_FOLDER = 1000

CATEGORIES = ("umbrella", "home", "auto", "renters", "travel", "liability", "flood", "cyber")
PRODUCT_CODES = {
    "umbrella": "UMB",
    "home": "HOM",
    "auto": "AUT",
    "renters": "RNT",
    "travel": "TRV",
    "liability": "GLI",
    "flood": "FLD",
    "cyber": "CYB",
}
INSURERS = ("Acme", "Globex", "Initech", "Umbrella Mutual", "Northwind", "Contoso", "Stark")
LIMITS = (
    5_000,
    10_000,
    25_000,
    30_000,
    50_000,
    100_000,
    250_000,
    300_000,
    500_000,
    1_000_000,
    2_000_000,
    2_500_000,
    3_000_000,
    5_000_000,
    10_000_000,
    300_000_000,
)
"""Policy limits in dollars: a small set, so an amount filter selects a few percent."""
SPELLED = {
    500: "Five Hundred",
    1_000: "One Thousand",
    5_000: "Five Thousand",
    10_000: "Ten Thousand",
    50_000: "Fifty Thousand",
    100_000: "One Hundred Thousand",
}
_WORDS = """
the of and to in for on by with or at from as is are be not no this that which when where if
than then any each may must shall will insured insurer policy coverage limit liability claim
claims damage damages property bodily
injury occurrence accident vehicle home dwelling contents premium deductible retention
exclusion exclusions endorsement declarations schedule period renewal cancellation notice
underlying umbrella excess primary loss losses payment pays pay covered cover covers
household resident relative business professional services intentional acts aircraft
watercraft boat mould pollution flood water storm wind hail fire theft vandalism burglary
travel trip medical emergency evacuation baggage delay interruption cyber breach ransom
data privacy regulatory defense costs legal suit settlement investigation adjuster report
reported reporting within days written form edition effective date renewals business new
tenant landlord rental unit building structure roof foundation plumbing electrical heating
appliance jewelry art collectibles valuables scheduled replacement actual cash value
depreciation inflation guard ordinance law debris removal additional living expenses
loss of use fair rental value personal injury libel slander eviction arrest prosecution
invasion contractor subcontractor premises operations products completed aggregate
person per one all
"""
WORDS = _WORDS.split()
_SYLLABLES = "ka ri to ne mu sa lo vi de pa ru mi te gu fo ba zi ho le na"
SYLLABLES = _SYLLABLES.split()
TAIL_WORDS = 20_000


def _vocabulary() -> tuple[list[str], list[float]]:
    """Real words first, then made-up ones; Zipf weights (s = 1.05) for ranks 1…n."""
    words = list(dict.fromkeys(WORDS))
    wanted = len(words) + TAIL_WORDS
    seen = set(words)
    for parts in (p for n in (2, 3, 4) for p in itertools.product(SYLLABLES, repeat=n)):
        if len(words) >= wanted:
            break
        word = "".join(parts)
        if word not in seen:
            words.append(word)
            seen.add(word)
    cumulative: list[float] = []
    total = 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank**1.05
        cumulative.append(total)
    return words, cumulative


VOCABULARY, CUMULATIVE = _vocabulary()


# ----------------------------------------------------------------------------- amounts


@dataclass(frozen=True)
class Amount:
    """An amount as written, and the ``money`` tokens osrag must extract from it."""

    text: str
    money: tuple[str, ...]


def _grouped(value: int, sep: str = ",") -> str:
    return f"{value:,}".replace(",", sep)


def _usd(dollars: int, cents: int = 0) -> str:
    return f"USD:{dollars * 100 + cents}"


def write_amount(rng: random.Random, dollars: int) -> Amount:
    """``dollars`` written in one of the formats osrag parses (chosen by ``rng``)."""
    kind = rng.randrange(16)
    if kind == 0:
        return Amount(f"${_grouped(dollars)}", (_usd(dollars),))
    if kind == 1 and dollars % 1000 == 0 and dollars < 1_000_000:
        return Amount(f"${dollars // 1000}K", (_usd(dollars),))
    if kind == 2 and dollars >= 100_000 and dollars % 100_000 == 0:
        millions = dollars / 1_000_000
        return Amount(f"${millions:g}M", (_usd(dollars),))
    if kind == 3 and dollars >= 1_000_000 and dollars % 500_000 == 0:
        return Amount(f"${dollars / 1_000_000:g} million", (_usd(dollars),))
    if kind == 4 and dollars >= 100_000_000 and dollars % 100_000_000 == 0:
        return Amount(f"${dollars / 1_000_000_000:g}bn", (_usd(dollars),))
    if kind == 5:
        return Amount(f"USD {_grouped(dollars)}", (_usd(dollars),))
    if kind == 6:
        return Amount(f"US${_grouped(dollars)}", (_usd(dollars),))
    if kind == 7:
        return Amount(f"{_grouped(dollars)} dollars", (_usd(dollars),))
    if kind == 8:
        return Amount(f"€{_grouped(dollars)}", (f"EUR:{dollars * 100}",))
    if kind == 9 and dollars >= 1000:
        return Amount(f"{_grouped(dollars, '.')} €", (f"EUR:{dollars * 100}",))
    if kind == 10:
        return Amount(f"£{_grouped(dollars)}", (f"GBP:{dollars * 100}",))
    if kind == 11:
        return Amount(f"${_grouped(dollars)}.00", (_usd(dollars),))
    if kind == 12 and dollars in SPELLED:
        return Amount(f"{SPELLED[dollars]} Dollars (${_grouped(dollars)})", (_usd(dollars),))
    if kind == 13 and dollars >= 1000:
        return Amount(f"EUR {_grouped(dollars, '.')},00", (f"EUR:{dollars * 100}",))
    return Amount(f"${_grouped(dollars)}", (_usd(dollars),))


def odd_amount(rng: random.Random) -> Amount:
    """A premium-like amount: cents, a negative credit, or a range."""
    kind = rng.randrange(3)
    dollars = rng.randrange(20, 5000)
    if kind == 0:
        cents = rng.randrange(1, 100)
        return Amount(f"${_grouped(dollars)}.{cents:02d}", (_usd(dollars, cents),))
    if kind == 1:
        return Amount(f"-${_grouped(dollars)}", (_usd(dollars),))
    low = rng.choice(LIMITS[:8])
    high = low * rng.choice((2, 3, 5))
    return Amount(f"${_grouped(low)}–${_grouped(high)}", (_usd(low), _usd(high)))


def distractor(rng: random.Random, code: str) -> str:
    """Numbers that are not money (osrag must not extract them)."""
    return rng.choice(
        (
            f"{_grouped(rng.choice(LIMITS))} miles",
            f"form {code}-{rng.choice(LIMITS)}",
            f"{rng.randrange(2, 40)}%",
            f"the {rng.randrange(1990, 2030)} edition",
            f"1-800-555-{rng.randrange(1000, 9999):04d}",
            f"Section {rng.randrange(1, 12)}.{rng.randrange(1, 9)}",
        )
    )


_MONTHS = "January February March April May June July August September October November December"
MONTHS = _MONTHS.split()


def write_date(rng: random.Random) -> str:
    year, month, day = rng.randrange(2015, 2030), rng.randrange(1, 13), rng.randrange(1, 29)
    return rng.choice(
        (
            f"{MONTHS[month - 1]} {day}, {year}",
            f"{year}-{month:02d}-{day:02d}",
            f"{month:02d}/{day:02d}/{year}",
        )
    )


# ----------------------------------------------------------------------------- text


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(VOCABULARY, cum_weights=CUMULATIVE, k=n))


@dataclass
class Section:
    """One heading and its body: exactly one chunk, holding ``money`` tokens."""

    level: int
    heading: str
    body: str
    money: set[str] = field(default_factory=set)


def _sentence(rng: random.Random) -> str:
    text = words(rng, rng.randrange(8, 22))
    return text[0].upper() + text[1:] + "."


def _prose(rng: random.Random, section: Section, code: str, sentences: int) -> str:
    parts: list[str] = []
    for _ in range(sentences):
        roll = rng.random()
        if roll < 0.25:
            amount = write_amount(rng, rng.choice(LIMITS))
            section.money.update(amount.money)
            parts.append(f"{_sentence(rng)[:-1]} up to {amount.text} for each occurrence.")
        elif roll < 0.32:
            amount = odd_amount(rng)
            section.money.update(amount.money)
            parts.append(f"The adjustment is {amount.text} {words(rng, 4)}.")
        elif roll < 0.42:
            parts.append(f"{_sentence(rng)[:-1]}, see {distractor(rng, code)}.")
        elif roll < 0.47:
            parts.append(f"This applies from {write_date(rng)} {words(rng, 5)}.")
        elif roll < 0.50:
            parts.append(f"Quote policy {code}-{rng.randrange(10_000, 99_999)} on every claim.")
        else:
            parts.append(_sentence(rng))
    return " ".join(parts)


def _table(rng: random.Random, section: Section) -> str:
    rows = ["| Coverage | Limit | Deductible |", "| --- | ---: | ---: |"]
    for _ in range(rng.randrange(3, 8)):
        limit = write_amount(rng, rng.choice(LIMITS))
        deductible = write_amount(rng, rng.choice((250, 500, 1000, 2500, 5000)))
        section.money.update(limit.money + deductible.money)
        rows.append(f"| {words(rng, 2).capitalize()} | {limit.text} | {deductible.text} |")
    return "\n".join(rows)


def _bullets(rng: random.Random, section: Section, code: str) -> str:
    items = []
    for _ in range(rng.randrange(4, 9)):
        if rng.random() < 0.3:
            amount = write_amount(rng, rng.choice(LIMITS))
            section.money.update(amount.money)
            items.append(f"- {words(rng, rng.randrange(4, 10))} above {amount.text};")
        elif rng.random() < 0.2:
            items.append(f"- {words(rng, 5)} ({distractor(rng, code)});")
        else:
            items.append(f"- {words(rng, rng.randrange(5, 14))};")
    return "\n".join(items)


SECTION_NAMES = (
    "Scope",
    "Coverage",
    "Limits",
    "Exclusions",
    "Deductibles",
    "Claims",
    "Premiums",
    "Definitions",
    "Conditions",
    "Endorsements",
    "Territory",
    "Cancellation",
    "Renewal",
    "Subrogation",
    "Other insurance",
    "Schedule",
)


@dataclass
class Policy:
    """One generated document: its file name, text, and what osrag must find in it."""

    number: int
    doc_id: str
    text: str
    sections: list[Section]

    @property
    def chunks(self) -> int:
        return len(self.sections)


def policy(seed: int, number: int, *, max_chunks: int | None = None) -> Policy:
    """Document ``number`` of the corpus ``seed`` (at most ``max_chunks`` sections)."""
    rng = random.Random(f"osrag-synthetic:{seed}:{number}")
    category = rng.choice(CATEGORIES)
    code = PRODUCT_CODES[category]
    insurer = rng.choice(INSURERS)
    doc_id = f"policy-{number:08d}"
    title = f"{insurer} {category.capitalize()} {words(rng, 2).title()} {number}"
    wanted = rng.randrange(4, 17)
    if max_chunks is not None:
        wanted = max(1, min(wanted, max_chunks))
    intro = Section(1, title, "")
    intro.body = _prose(rng, intro, code, rng.randrange(3, 7))
    sections = [intro]
    names = rng.sample(SECTION_NAMES, k=min(len(SECTION_NAMES), wanted))
    for name in names[: wanted - 1]:
        roll = rng.random()
        level = 3 if roll < 0.2 and sections[-1].level >= 2 else 2
        heading = name if level == 2 else f"{name} — {words(rng, 2)}"
        section = Section(level, heading, "")
        if name in ("Limits", "Premiums", "Schedule", "Deductibles"):
            section.body = _prose(rng, section, code, 2) + "\n\n" + _table(rng, section)
        elif name in ("Exclusions", "Conditions", "Definitions"):
            section.body = _prose(rng, section, code, 2) + "\n\n" + _bullets(rng, section, code)
        else:
            section.body = _prose(rng, section, code, rng.randrange(4, 12))
        sections.append(section)
    effective = f"{rng.randrange(2018, 2026)}-{rng.randrange(1, 13):02d}-01"
    front = [
        "---",
        f"id: {doc_id}",
        f"title: {json.dumps(title)}",
        f"category: {category}",
        f"effective_from: {effective}",
        f"form: {code}-{rng.choice(LIMITS)}",
        "---",
        "",
    ]
    body = [f"{'#' * s.level} {s.heading}\n\n{s.body}\n" for s in sections]
    return Policy(number, doc_id, "\n".join(front) + "\n".join(body), sections)


def policies(seed: int, chunks: int) -> Iterator[Policy]:
    """Documents ``0, 1, …`` until they hold ``chunks`` chunks in all (the last one cut short)."""
    left = chunks
    for number in itertools.count():
        if left <= 0:
            return
        doc = policy(seed, number, max_chunks=left)
        left -= doc.chunks
        yield doc


def relative_path(number: int) -> str:
    return f"p{number // FILES_PER_FOLDER:04d}/policy-{number:08d}.md"


@dataclass
class Written:
    documents: int
    chunks: int
    bytes: int
    seconds: float


def write_corpus(out: Path, chunks: int, seed: int = 7) -> Written:
    """Write the corpus under ``out`` (files already there with the same bytes are kept)."""
    started = time.perf_counter()
    documents = total = size = 0
    for doc in policies(seed, chunks):
        path = out / relative_path(doc.number)
        data = doc.text.encode()
        if doc.number % FILES_PER_FOLDER == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        if not (path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data):
            path.write_bytes(data)
        documents += 1
        total += doc.chunks
        size += len(data)
    manifest = {"seed": seed, "documents": documents, "chunks": total, "bytes": size}
    (out / "CORPUS.json").write_text(json.dumps(manifest) + "\n")
    (out / ".osragignore").write_text("CORPUS.json\n")
    return Written(documents, total, size, round(time.perf_counter() - started, 3))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="folder to write (created)")
    parser.add_argument("--chunks", type=int, required=True, help="chunks the corpus holds")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    written = write_corpus(args.out, args.chunks, args.seed)
    print(
        f"{args.out}: {written.documents} documents, {written.chunks} chunks, "
        f"{written.bytes / 2**20:.1f} MiB in {written.seconds:.1f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
