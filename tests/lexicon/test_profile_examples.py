"""Every profile's examples are test cases: the example's question binds to the example's
amount, and to none of its decoys.

For every example of every profile in use — the built-in ones (``osrag/lexicon/profiles/``)
and those the configuration file names (``profiles`` in ``osrag.toml``, found as every
command finds it) — the example's text is cut and extracted as an ingest does
(:func:`osrag.ingestion.pipeline.prepare_chunks`, a Markdown document), the question read
as a search reads it (:func:`osrag.search.query.plan_query`: the constraint parser, the
binding, the fact filter of the bound constraint), and the filter evaluated **in Python**
on each stored fact (:mod:`fact_eval`, the engines' reading of the same tree) — with the
amount ladder's narrowed step when the bound step passes no fact (a qualifier of the kind
of document that no chunk of the example names). The facts that pass must include the
example's amount (a fact whose span lies in the amount's text) and none of its decoys.
"""

from __future__ import annotations

import pytest
from fact_eval import passes

from osrag.config import load_settings
from osrag.ingestion.pipeline import prepare_chunks
from osrag.lexicon.profiles import Profile, ProfileExample, builtin_profiles
from osrag.models import ChunkingConfig, Document, ExtractionConfig
from osrag.schema.filters import AmountFilter
from osrag.search.fact_filters import narrowed_filter
from osrag.search.query import plan_query


def _configured() -> tuple[Profile, ...]:
    return load_settings().family_profiles()


def _examples() -> list[tuple[Profile, int, ProfileExample]]:
    return [
        (profile, i, example)
        for profile in (*builtin_profiles(), *_configured())
        for i, example in enumerate(profile.examples)
    ]


EXAMPLES = _examples()


def _spans(text: str, written: str) -> list[tuple[int, int]]:
    spans, at = [], text.find(written)
    while at >= 0:
        spans.append((at, at + len(written)))
        at = text.find(written, at + 1)
    return spans


def bound_facts(example: ProfileExample, extraction: ExtractionConfig) -> list[dict[str, object]]:
    """The stored facts of the example's text that its question's bound filter passes."""
    doc = Document(
        doc_id="example", source_path="example.md", source_version="1", title="", text=example.text
    )
    chunks = prepare_chunks(doc, ChunkingConfig(), extraction)
    facts = [(f.source_dict(), c.breadcrumb) for c in chunks for f in c.facts]
    plan = plan_query(example.question, extraction=extraction)
    amounts = [f for f in plan.filters if isinstance(f, AmountFilter)]
    assert len(amounts) == 1, f"{example.question!r} states {len(amounts)} amount constraints"
    (amount,) = amounts
    assert amount.constraint.is_bound, f"{example.question!r} binds to no quantity: {amount}"
    passed = [fact for fact, crumb in facts if passes(amount.filter, fact, crumb)]
    narrowed = narrowed_filter(amount.constraint)
    if passed or narrowed is None:
        return passed
    return [fact for fact, crumb in facts if passes(narrowed[1], fact, crumb)]


def _overlaps(fact: dict[str, object], spans: list[tuple[int, int]]) -> bool:
    start, end = fact["span"]  # type: ignore[misc]
    return any(s < end and start < e for s, e in spans)


def test_every_built_in_family_has_a_profile_with_examples() -> None:
    names = {p.name for p in builtin_profiles()}
    families = {
        "financial", "insurance", "invoices", "leases", "loans", "compensation", "purchasing",
        "contracts",
    }  # fmt: skip
    assert families <= names
    assert all(p.examples for p in builtin_profiles()), [
        p.name for p in builtin_profiles() if not p.examples
    ]


@pytest.mark.parametrize(
    ("profile", "index", "example"),
    EXAMPLES,
    ids=[f"{p.name}[{i}]" for p, i, _ in EXAMPLES],
)
def test_the_question_of_an_example_binds_to_its_amount(
    profile: Profile, index: int, example: ProfileExample
) -> None:
    extraction = ExtractionConfig(profiles=_configured())
    passed = bound_facts(example, extraction)
    where = f"{profile.label} examples[{index}]: {example.question!r}"
    assert any(_overlaps(f, _spans(example.text, example.amount)) for f in passed), (
        f"{where} binds to none of {example.amount!r}: it passes {[f['raw'] for f in passed]}"
    )
    for decoy in example.decoys:
        wrong = [f for f in passed if _overlaps(f, _spans(example.text, decoy))]
        assert not wrong, f"{where} binds to the decoy {decoy!r}: {wrong}"


@pytest.mark.parametrize(
    "limits",
    [
        # a table as the PDF loader writes a certificate's grid, and as a Markdown table
        "Type of insurance | Policy number | Limits\n"
        "Commercial general liability — Policy number: CG 71-004; Limits: Each occurrence "
        "$1,000,000; General aggregate $2,000,000\n"
        "Excess liability, follow form — Policy number: XS 71-005; Limits: Each occurrence "
        "$6,000,000; Aggregate $6,000,000\n",
        "| Type of insurance | Policy number | Limits |\n|---|---|---|\n"
        "| Commercial general liability | CG 71-004 | Each occurrence $1,000,000; General "
        "aggregate $2,000,000 |\n"
        "| Excess liability, follow form | XS 71-005 | Each occurrence $6,000,000; "
        "Aggregate $6,000,000 |\n",
    ],
    ids=["loader", "pipe"],
)
def test_a_certificates_limits_box_binds_a_line_of_covers_limit(limits: str) -> None:
    # "excess limit": a limit of the excess liability line, never the general liability's
    example = ProfileExample(
        text=f"# Certificate of insurance\n\n## Coverages\n\n{limits}",
        question="policies with an excess limit of $5 million or more",
        amount="$6,000,000",
    )
    passed = bound_facts(example, ExtractionConfig(profiles=_configured()))
    assert passed and {f["raw"] for f in passed} == {"$6,000,000"}
    assert all(str(f["label"]).startswith("Excess liability") for f in passed)
