"""Does the search return documents that hold the asked quantity? Every mode on every engine.

    .venv/bin/python benchmarks/quantity_precision.py [--label before] \
        [--sets tatqa,tatqa-hand,insurance,families,probe] \
        [--engines opensearch,elasticsearch,embedded] \
        [--modes bm25,vector,hybrid]

Query sets whose gold is independent of osrag (nothing here judges with osrag's
extraction, constraint parser or filter):

* ``tatqa`` — the analyst questions ``benchmarks/tatqa_analyst.py`` writes from the TAT-QA
  dev tables ("companies whose revenue exceeded $500 million in 2019", "net loss under
  $20 million"), on the corpus ``benchmarks/tatqa_corpus.py`` renders; holders read from
  the dataset's own cells and annotated scales;
* ``tatqa-scope`` — the scope questions ``benchmarks/tatqa_scopes.py`` writes beside them, on
  the same corpus: a quarter's, a segment's, a region's or an adjusted figure ("fourth-quarter
  revenue over $100 million in 2019", "Americas revenue under $500 million", "adjusted
  EBITDA above $50 million"), holders read from the part's own cells; reported as a whole
  and per scope kind (``by_scope``: quantity precision@5 and @10 over each kind's queries);
* ``tatqa-hand`` — the plain questions and corpus, their gold adjudicated by the blind hand
  readings of the pooled documents (``benchmarks/tatqa_hand.py``): each hand-read
  (document, subject) pair judged from the readings, every other pair as the dataset says;
* ``insurance`` — the role-bound queries of ``examples/insurance`` (``r01``–``r24``:
  "deductible under $1,000", "premium below $500 a year", "over €250,000"), holders read
  by hand from the policies;
* ``families`` — the multi-family development set of ``benchmarks/data/families``: 81
  documents in ten families (financial statements, insurance, invoices, leases, loans,
  compensation, purchasing, real CUAD contracts, grants — written as a family no profile
  covered, covered by the grants profile since round eight — and event sponsorship, which
  no profile covers) in Markdown, text, HTML, Word and PDF, and 126 questions
  whose holders were read by hand document by document (``protocol.md`` beside them).
  Reported per family too, and for the families no profile covers as one group.
* ``probe`` — the probe set of ``benchmarks/data/probe``: 32 documents in eight families
  the rules were not built on (utility and telecom bills, payslips, fee statements,
  explanations of benefits, vehicle agreements, freight quotes, service agreements, venue
  contracts) and 60 questions, written after the development round with their gold fixed
  before any run (its ``README.md``); loaded and reported per family as ``families`` is.
* ``probe2`` — the second probe set of ``benchmarks/data/probe2``, held out: 32 documents in
  eight more families neither earlier set holds (property tax bills, hospital bills,
  software order forms, construction bids and change orders, legal fee letters, moving
  estimates, memberships, bank fee schedules) and 70 questions, gold fixed before any run;
  loaded and reported per family as ``probe`` is. It is not in the default ``--sets``: a
  run measures it only when asked (``--sets probe2``), so the runs made while tuning do not
  show it.
* ``probe3`` — the third probe set of ``benchmarks/data/probe3``, held out as ``probe2`` is:
  32 documents in eight families none of the earlier sets holds (auto repair invoices and
  estimates, veterinary bills and estimates, childcare agreements, homeowners' association
  statements and budgets, court fees and penalty notices, royalty statements, funeral price
  lists, travel bookings) and 73 questions, gold fixed before any run; measured only when
  named (``--sets probe3``).
* ``probe4`` — the fourth probe set of ``benchmarks/data/probe4``, held out as ``probe3`` is:
  32 documents in eight families none of the earlier sets holds (dental treatment plans and
  statements, self storage agreements and invoices, catering proposals and contracts, home
  warranties and breakdown cover, pest control and grounds agreements, subscription receipts,
  photography packages and invoices, donation receipts and pledges) and 72 questions, gold
  fixed before any run; measured only when named (``--sets probe4``).
* ``probe5`` — the fifth probe set of ``benchmarks/data/probe5``, held out as ``probe4`` is:
  32 documents in eight families none of the earlier sets holds (tax preparation letters,
  invoices and price lists, cleaning agreements, quotes and invoices, translation quotes and
  interpreting agreements, music lesson and tutoring agreements and invoices, solar proposals,
  contracts and quotes, recruitment fee agreements and staffing rates, kennel and daycare
  price lists and invoices, print quotes and invoices) and 72 questions, gold fixed before any
  run; measured only when named (``--sets probe5``).
* ``probe6`` — the sixth probe set of ``benchmarks/data/probe6``, held out as ``probe5`` is:
  32 documents in eight families none of the earlier sets holds (lawn care agreements and
  landscape estimates, car and van rental agreements and receipts, managed IT services
  agreements, quotes and invoices, architects' and engineers' fee proposals and letters, home
  inspection price lists and survey quotes, home care agreements and assisted living rates,
  marina rates, slip agreements and berth contracts, laboratory testing price lists, quotes and
  invoices) and 72 questions, gold fixed before any run; measured only when named (``--sets
  probe6``).
* ``probe7`` — the seventh probe set of ``benchmarks/data/probe7``, held out as ``probe6`` is:
  32 documents in eight families none of the earlier sets holds (wedding planning agreements,
  florist proposals and destination wedding quotes, equipment and plant hire rate sheets,
  quotes, crane hire agreements and tool rental invoices, roof replacement estimates, repair
  invoices, flat roof quotes and metal roofing contracts, web hosting plans, VPS invoices,
  dedicated server orders and domain renewal notices, security guarding agreements, event
  security quotes, keyholding price lists and monitoring invoices, skip hire price lists and
  orders, commercial waste agreements and junk removal invoices, driving school prices, CDL
  training agreements and rider training invoices, physical therapy fee schedules,
  physiotherapy invoices, patient statements and therapy program agreements) and 72
  questions, gold fixed before any run; measured only when named (``--sets probe7``).
* ``probe8`` — the eighth probe set of ``benchmarks/data/probe8``, held out as ``probe7`` is:
  32 documents in eight families none of the earlier sets holds (plumbing and HVAC invoices,
  quotes and maintenance plans, eye exam fees, eyewear orders and contact lens price lists,
  pool service agreements, opening and closing prices and repair invoices, appliance repair
  invoices, service plan quotes and call-out price lists, coworking memberships, desk and
  meeting room prices, ticket orders, box office price lists and group bookings, notary,
  apostille, legalisation and courier fees, data recovery quotes, price lists and lab
  invoices) and 72 questions, gold fixed before any run; measured only when named (``--sets
  probe8``).
* ``probe9`` — the ninth probe set of ``benchmarks/data/probe9``, held out as ``probe8`` is:
  32 documents in eight families none of the earlier sets holds (locksmith price lists, lockout
  invoices and master key proposals, horse boarding rates, board statements, boarding
  agreements and livery yard prices, auction buyer's premium and consignment terms, consignor
  settlements and buyers' invoices, bicycle service menus, repair invoices and bike fit quotes,
  chimney sweep price lists, repair proposals and invoices, recording studio rate cards,
  session invoices, studio quotes and mixing agreements, window replacement and double glazing
  quotes, installation contracts and sash restoration invoices, custom framing price lists,
  estimates, invoices and conservation framing orders) and 72 questions, gold fixed before any
  run; measured only when named (``--sets probe9``).
* ``probe10`` — the tenth probe set of ``benchmarks/data/probe10``, held out as ``probe9`` is:
  32 documents in eight families none of the earlier sets holds (electricians' invoices,
  quotes, price lists and rewiring agreements, upholstery quotes, price lists and invoices,
  septic pumping invoices, maintenance contracts, price lists and quotations, piano tuning
  rates, rent-to-own agreements and restoration estimates, salon and bridal beauty price
  lists, agreements and receipts, flooring quotes, agreements and invoices, tailoring and
  alterations price lists, orders and tickets, genealogy research agreements, proposals,
  invoices and price lists) and 72 questions, gold fixed before any run; measured only when
  named (``--sets probe10``).
* ``probe11`` — the eleventh probe set of ``benchmarks/data/probe11``, held out as ``probe10``
  is: 32 documents in eight families none of the earlier sets holds (taxidermy, aquarium
  servicing, tattoo studios, event audio-visual hire, watch and clock repair, beekeeping
  services, farriery, drone surveying) and 72 questions, gold fixed before any run; measured
  only when named (``--sets probe11``).
* ``probe12`` — the twelfth probe set of ``benchmarks/data/probe12``, held out as ``probe11``
  is: 32 documents in eight families none of the earlier sets holds (arborists and tree
  surgeons, snow and ice removal, car detailing, hearing care, editing and proofreading,
  phone and laptop repair, boat and yacht charter, sign making and vehicle wraps) and 72
  questions, gold fixed before any run; measured only when named (``--sets probe12``).
* ``probe13`` — the thirteenth probe set of ``benchmarks/data/probe13``, held out as
  ``probe12`` is: 32 documents in eight families none of the earlier sets holds (house
  painting and decorating, fencing, water well drilling, private investigation, interior
  design, ski rental and lift passes, scuba diving, pottery studios) and 72 questions, gold
  fixed before any run; measured only when named (``--sets probe13``).
* ``probe14`` — the fourteenth probe set of ``benchmarks/data/probe14``, held out as
  ``probe13`` is: 32 new documents in eight families (veterinary clinics, moving and
  removals, dog grooming and boarding new; translation and interpreting, pest control, print
  shops, funeral services and piano tuning repeating an earlier set's, marked ``repeats`` in
  its ``families.json``) and 72 questions, gold fixed before any run; measured only when
  named (``--sets probe14``).
* ``probe15`` — the fifteenth probe set of ``benchmarks/data/probe15``, held out as
  ``probe14`` is: 32 new documents in eight new families (golf courses and green fees,
  climbing gyms, escape rooms, bakeries and custom cakes, campgrounds and RV parks, firewood
  delivery, metalwork and fabrication, florists) and 72 questions, gold fixed before any
  run; measured only when named (``--sets probe15``).
* ``probe16`` — the sixteenth probe set of ``benchmarks/data/probe16``, held out as
  ``probe15`` is: 32 new documents in eight new families (bowling alleys, hot air balloon
  flights, wineries and wine clubs, coffee roasters, butchers and freezer meat, knife and tool
  sharpening, fire extinguisher servicing, trophies and engraving) and 72 questions, gold
  fixed before any run; measured only when named (``--sets probe16``).
* ``probe17`` — the seventeenth probe set of ``benchmarks/data/probe17``, held out as
  ``probe16`` is: 32 new documents in eight new families (laundromats and dry cleaning,
  towing and recovery, garage doors, parking, cobblers and shoe repair, feed stores and
  farm supply, newspaper, magazine and radio advertising, stone countertops) and 72
  questions, gold fixed before any run; measured only when named (``--sets probe17``).
* ``probe18`` — the eighteenth probe set of ``benchmarks/data/probe18``, held out as
  ``probe17`` is: 32 new documents in eight new families (home insulation, asphalt paving
  and sealcoating, counselling and psychotherapy, hunting and fishing licences and permits,
  mattresses and beds, lumber yards and timber merchants, fireworks sales and displays,
  children's party entertainers) and 72 questions, gold fixed before any run; measured
  only when named (``--sets probe18``).
* ``probe19`` — the nineteenth probe set of ``benchmarks/data/probe19``, held out as
  ``probe18`` is: 32 new documents in eight new families (water damage restoration,
  stairlifts and home mobility, taxis and airport transfers, home movie and photo
  digitising, Christmas trees, bottled water and coolers, toll roads, bridges and tunnels,
  company formation and registered agents) and 72 questions, gold fixed before any run;
  measured only when named (``--sets probe19``).
* ``<set>-agreed`` — a set of families (``probe-agreed``, ``probe2-agreed``) measured on the
  gold its author's reading and a blind second reading agree on (``queries-agreed.jsonl``,
  written by ``benchmarks/families/second_reading.py --write``): a pair the two readings
  settle differently, or either leaves undecided, is unjudged.

For each engine the corpus is ingested once with the default offline embedder (MiniLM,
so vector and hybrid run too) under a temporary alias, and :func:`osrag.evaluation.
run_evaluation` runs the queries that carry holder gold in each mode. Reported per set,
engine and mode: quantity precision@5 and @10, nDCG@10 (relevant = the holders), the
constraint selectivity (median and p90 share of the index's documents the amount filter
leaves), the fallback steps, the step of the amount ladder each query was answered at
(``amount_steps``: ``bound`` — the constraints as stated, bound to the named quantity —,
``narrowed``, ``per-unit``, ``role-free``, ``none``, or ``no constraint`` when the search read
no amount constraint in the question; from one more search per query in the same mode, since the
evaluation report counts only the steps taken down), the queries the search refused, and
the unjudged documents skipped. The table is printed and the JSON written to
``benchmarks/results/quantity_precision[-LABEL].json`` — the same command gives the
numbers before and after a change to the filter.

Engines: OpenSearch at ``OSRAG_BENCH_URL`` (else a local node), Elasticsearch at
``OSRAG_BENCH_ES_URL`` (else a local node on :9400), the embedded index in a temporary
folder.

**Before and after in one run** (``--before REF``): the same sets, engines and modes are
measured with the code of the git revision ``REF`` too (a branch, a tag, a commit: its
files written to a temporary folder with ``git archive`` and this script of that revision
run there, on the same engines and shared corpora), and the two are printed side by side
— quantity precision@5 and the share of questions answered at the bound step, per set,
engine and mode, and per family — and written together (``before`` in the JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tatqa_scopes
from _cluster import ROOT, cluster_url, console, elasticsearch_url, write_results
from _paths import PROBE_SETS

from osrag.config import load_settings
from osrag.engines import open_index
from osrag.engines.base import ChunkIndex
from osrag.errors import QueryError
from osrag.evaluation import EvalConfig, load_query_set, run_evaluation
from osrag.evaluation.inputs import QuerySet
from osrag.ingestion.generations import purge
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.query import AMOUNT_STEPS
from osrag.search.searcher import Searcher

INSURANCE = ROOT / "examples" / "insurance"
FAMILIES = ROOT / "benchmarks" / "data" / "families"
FAMILY_SETS = {
    "families": FAMILIES,
    **{name: ROOT / "benchmarks" / "data" / name for name in PROBE_SETS},
}
"""The sets written as families of documents (``documents/<family>/``, ``families.json``,
``queries.jsonl``): their folders by set name."""
KS = (5, 10)
STEPS = (*AMOUNT_STEPS, "no constraint", "refused")
"""Where a query was answered on the amount ladder (``SearchResult.amount_step``; ``no
constraint``: the search read no amount constraint in the question; ``refused``: the search
refused the query)."""


def _with_gold(query_set: QuerySet) -> QuerySet:
    """Only the queries whose holder gold lists a holder."""
    kept = [q for q in query_set.queries if q.holders]
    return QuerySet(query_set.path, query_set.format, kept, query_set.qrels, [])


def tatqa_set(work: Path, *, scoped: bool = False) -> tuple[Path, QuerySet]:
    """The TAT-QA corpus and analyst questions, converted into ``work``: the plain questions,
    or (``scoped``) the scope questions alone."""
    import tatqa_corpus

    tatqa_corpus.convert(tatqa_corpus.DATASET, work)
    both = _with_gold(load_query_set(work / "analyst_queries.jsonl"))
    kept = [q for q in both.queries if tatqa_scopes.is_scope(q.id) == scoped]
    return work / "corpus", QuerySet(both.path, both.format, kept, both.qrels, [])


def tatqa_hand_set(work: Path) -> tuple[Path, QuerySet]:
    """The TAT-QA analyst questions with their gold adjudicated by the hand readings."""
    import tatqa_hand

    corpus, _ = tatqa_set(work)
    adjudicated = tatqa_hand.write_adjudicated(
        work / "analyst_queries.jsonl",
        work / "analyst_queries_hand.jsonl",
        tatqa_hand.load_readings(),
    )
    return corpus, _with_gold(load_query_set(adjudicated))


def insurance_set() -> tuple[Path, QuerySet]:
    return INSURANCE, _with_gold(load_query_set(INSURANCE / "queries.jsonl"))


def families_set(folder: Path = FAMILIES, gold: str = "queries.jsonl") -> tuple[Path, QuerySet]:
    """A set of families (the development set, the probe set): its documents folder and its
    questions, with the gold of ``gold`` (``queries-agreed.jsonl``: the gold two readings
    agree on, ``benchmarks/families/second_reading.py``)."""
    return folder / "documents", _with_gold(load_query_set(folder / gold))


AGREED = "-agreed"
"""A family set's name with this suffix (``probe-agreed``) measures it on the gold its
author's and a blind second reading agree on (``queries-agreed.jsonl``)."""


def family_folder(set_name: str) -> Path | None:
    """The folder of a set of families, by its name with or without :data:`AGREED`."""
    return FAMILY_SETS.get(set_name.removesuffix(AGREED))


def families_of_queries(folder: Path = FAMILIES) -> tuple[dict[str, str], set[str]]:
    """Question id → its family, and the families no profile covers (``families.json``), of
    a set of families."""
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    family = {row["id"]: row["family"] for row in map(json.loads, filter(None, lines))}
    meta = json.loads((folder / "families.json").read_text(encoding="utf-8"))["families"]
    return family, {name for name, f in meta.items() if f["no_profile"]}


def by_family(row: dict[str, Any], family: dict[str, str], no_profile: set[str]) -> dict[str, Any]:
    """One mode's row split by family — quantity precision@k means and the share of the
    questions answered at the bound step —, then the families a profile is meant to cover
    and those no profile covers, each as one group."""

    def summary(qids: list[str]) -> dict[str, Any]:
        per_query, steps = row["per_query"], row["amount_step_per_query"]
        # the questions the row scored: one no document holds is out of every mean
        qids = [q for q in qids if q in per_query]
        counts = {step: sum(1 for q in qids if steps.get(q) == step) for step in STEPS}
        means = {
            f"quantity_precision@{k}": round(
                sum(per_query.get(q, {}).get(f"quantity_precision@{k}", 0.0) for q in qids)
                / len(qids),
                4,
            )
            for k in KS
        }
        bound = round(counts["bound"] / len(qids), 4)
        return {"queries": len(qids), **means, "bound_share": bound, "amount_steps": counts}

    groups = {
        name: [q for q, f in family.items() if f == name] for name in sorted(set(family.values()))
    }
    groups["(families a profile covers)"] = [q for q, f in family.items() if f not in no_profile]
    groups["(families no profile covers)"] = [q for q, f in family.items() if f in no_profile]
    return {
        name: summary(qids)
        for name, qids in groups.items()
        if any(q in row["per_query"] for q in qids)
    }


def amount_steps(searcher: Searcher, queries: QuerySet, mode: str) -> dict[str, str]:
    """Query id → the step of the amount ladder its search was answered at (see STEPS)."""
    steps: dict[str, str] = {}
    for q in queries.queries:
        try:
            result = searcher.search(
                q.query,
                k=10,
                mode=mode,
                highlight=False,
                source_fields=[],
                tenant=q.tenant,
                acl=q.acl,
            )
        except QueryError:
            steps[q.id] = "refused"
            continue
        steps[q.id] = result.amount_step or "no constraint"
    return steps


def engine(name: str, home: Path) -> ChunkIndex:
    """An engine by name: the benchmark cluster, Elasticsearch, or an embedded index."""
    if name == "opensearch":
        settings = load_settings(url=cluster_url(), backend="opensearch")
    elif name == "elasticsearch":
        settings = load_settings(url=elasticsearch_url(), backend="elasticsearch")
    else:
        settings = load_settings(backend="embedded", home=home)
    return open_index(settings)


def measure(
    index: ChunkIndex, corpus: Path, queries: QuerySet, modes: list[str]
) -> dict[str, dict[str, Any]]:
    """One ingest (with vectors), every mode: the row of each mode."""
    alias = f"osrag-qp-{uuid.uuid4().hex[:8]}"
    options = IngestOptions(alias=alias, embedder="default")
    try:
        ingest(corpus, index, options)
        report = run_evaluation(
            queries,
            index,
            alias=alias,
            configs=[EvalConfig(f"mode={m}", {"mode": m}) for m in modes],
            ks=KS,
            permutations=1000,
        )
        searcher = Searcher(index, alias, extraction=options.extraction, enforce_access=False)
        steps = {m: amount_steps(searcher, queries, m) for m in modes}
    finally:
        purge(index, alias)
    rows: dict[str, dict[str, Any]] = {}
    for config in report.configs:
        mode_steps = steps[config.name.removeprefix("mode=")]
        gold = config.subsets.get("holder gold", {})
        summary = config.selectivity_summary
        rows[config.name.removeprefix("mode=")] = {
            "queries": config.quantity_queries,
            **{f"quantity_precision@{k}": gold.get(f"quantity_precision@{k}") for k in KS},
            "ndcg@10": gold.get("ndcg@10"),
            "selectivity": summary.model_dump() if summary else None,
            "fallback_steps": config.fallback_steps,
            "amount_steps": {s: sum(1 for v in mode_steps.values() if v == s) for s in STEPS},
            "amount_step_per_query": mode_steps,
            "text_fallbacks": config.text_fallbacks,
            "refused": len(config.refused),
            "empty_results": config.empty_results,
            "unjudged_skipped@10": config.unjudged_skipped,
            "per_query": {
                q: {k: v for k, v in m.items() if k.startswith("quantity_precision")}
                for q, m in config.per_query.items()
            },
            "selectivity_per_query": {
                q: s.model_dump() for q, s in config.selectivity.items()
            },
            "significance_vs_first": {
                m: c.model_dump() for m, c in config.significance.items()
                if m.startswith("quantity_precision") or m == "ndcg@10"
            },
        }  # fmt: skip
    return rows


def table(results: dict[str, Any]) -> str:
    """The results as a Markdown table (the form docs/amounts.md records)."""
    first = next(r for e in results["sets"].values() for m in e.values() for r in m.values())
    steps = " / ".join(first["fallback_steps"])
    lines = [
        "| set | engine | mode | queries | QP@5 | QP@10 | nDCG@10 | selectivity median "
        f"| p90 | fallbacks ({steps}) | refused | empty |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for set_name, engines in results["sets"].items():
        for engine_name, modes in engines.items():
            for mode, row in modes.items():
                sel = row["selectivity"] or {}
                steps = " / ".join(str(v) for v in row["fallback_steps"].values())
                lines.append(
                    f"| {set_name} | {engine_name} | {mode} | {row['queries']} "
                    f"| {row['quantity_precision@5']:.3f} | {row['quantity_precision@10']:.3f} "
                    f"| {row['ndcg@10']:.3f} | {sel.get('documents_median', 0):.1%} "
                    f"| {sel.get('documents_p90', 0):.1%} | {steps} | {row['refused']} "
                    f"| {row['empty_results']} |"
                )
    return "\n".join(lines)


def family_table(results: dict[str, Any]) -> str:
    """The per-family rows of the sets that have them, as a Markdown table ('' if none)."""
    lines = [
        "| set | engine | mode | family | queries | QP@5 | QP@10 | answered at bound "
        f"| steps ({' / '.join(STEPS)}) |",
        "|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    for set_name, engines in results["sets"].items():
        for engine_name, modes in engines.items():
            for mode, row in modes.items():
                for name, f in row.get("per_family", {}).items():
                    counts = " / ".join(str(f["amount_steps"][s]) for s in STEPS)
                    lines.append(
                        f"| {set_name} | {engine_name} | {mode} | {name} | {f['queries']} "
                        f"| {f['quantity_precision@5']:.3f} | {f['quantity_precision@10']:.3f} "
                        f"| {f['bound_share']:.0%} | {counts} |"
                    )
    return "\n".join(lines) if len(lines) > 2 else ""


def measure_before(ref: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The results of this benchmark run on the code of git revision ``ref`` (module
    docstring): its tracked files written to ``work`` and its own script run there with
    the same sets, engines and modes, reading the same shared corpora."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    checkout = work / "before"
    checkout.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        capture_output=True, check=True,
    )  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(checkout)], input=archive.stdout, check=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "OSRAG_SHARED": os.environ.get("OSRAG_SHARED") or str(ROOT.parent / "shared"),
    }
    label = f"before-{commit[:8]}"
    script = checkout / "benchmarks" / "quantity_precision.py"
    # a set added after the revision (its script has no reader for it) is left out of its
    # run: the side-by-side shows it as new ("—" before); a script names a set as a key of
    # its readers ("probe":) or in its tuple of probe sets ("probe2",), or, since the probe
    # sets are read from their folders, the revision holds the set's folder
    text = script.read_text(encoding="utf-8")
    data = checkout / "benchmarks" / "data"
    known = [
        s
        for s in args.sets.split(",")
        if re.search(f'"{re.escape(s)}"[:,)]', text)
        or (
            re.fullmatch(r"probe\d*", s.removesuffix(AGREED))
            and (data / s.removesuffix(AGREED)).is_dir()
        )
    ]
    command = [sys.executable, str(script)]
    command += ["--label", label, "--sets", ",".join(known), "--engines", args.engines]
    command += ["--modes", args.modes]
    console.print(f"[bold]before[/bold]: {ref} ({commit[:12]}), in {checkout}")
    subprocess.run(command, cwd=checkout, env=env, check=True)
    found = checkout / "benchmarks" / "results" / f"quantity_precision-{label}.json"
    before: dict[str, Any] = json.loads(found.read_text(encoding="utf-8"))
    return {"ref": ref, "commit": commit, "sets": before["sets"]}


def _bound_share(row: dict[str, Any]) -> float:
    steps = row.get("amount_steps") or {}
    return steps.get("bound", 0) / row["queries"] if row.get("queries") else 0.0


def side_by_side(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Quantity precision@5 and the share answered at the bound step, before → after, per
    set, engine and mode, and per family (a Markdown table)."""
    lines = [
        "| set | engine | mode | group | QP@5 before | QP@5 after | bound before | bound after |",
        "|---|---|---|---|---:|---:|---:|---:|",
    ]
    for set_name, engines in after["sets"].items():
        for engine_name, modes in engines.items():
            for mode, row in modes.items():
                old = before["sets"].get(set_name, {}).get(engine_name, {}).get(mode)
                groups = [("all", old, row)]
                for name, f in row.get("per_family", {}).items():
                    was = (old or {}).get("per_family", {}).get(name)
                    groups.append((name, was, f))
                for name, was, now in groups:
                    qp_was = f"{was['quantity_precision@5']:.3f}" if was else "—"
                    share_was = (
                        f"{(was['bound_share'] if 'bound_share' in was else _bound_share(was)):.0%}"
                        if was
                        else "—"
                    )
                    share_now = now["bound_share"] if "bound_share" in now else _bound_share(now)
                    lines.append(
                        f"| {set_name} | {engine_name} | {mode} | {name} | {qp_was} "
                        f"| {now['quantity_precision@5']:.3f} | {share_was} | {share_now:.0%} |"
                    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--label", default="before", help="names the results file")
    parser.add_argument(
        "--sets",
        default="tatqa,tatqa-scope,tatqa-hand,insurance,families,probe",
        help="comma-separated; probe2 to probe19 (held out) are measured only when named",
    )
    parser.add_argument("--engines", default="opensearch,elasticsearch,embedded")
    parser.add_argument("--modes", default="bm25,vector,hybrid")
    parser.add_argument(
        "--before",
        metavar="REF",
        help="also measure the code of this git revision, and print both side by side",
    )
    args = parser.parse_args(argv)
    sets, engines = args.sets.split(","), args.engines.split(",")
    modes = args.modes.split(",")
    results: dict[str, Any] = {
        "label": args.label,
        "definitions": "osrag/evaluation/quantity.py; docs/evaluation.md#quantity-precision",
        "sets": {},
    }
    with tempfile.TemporaryDirectory(prefix="osrag-qp-") as tmp:
        work = Path(tmp)
        if args.before:
            results["before"] = measure_before(args.before, args, work)
        readers = {
            "tatqa": lambda: tatqa_set(work / "tatqa"),
            "tatqa-scope": lambda: tatqa_set(work / "tatqa-scope", scoped=True),
            "tatqa-hand": lambda: tatqa_hand_set(work / "tatqa-hand"),
            "insurance": insurance_set,
            **{
                name: (lambda folder=folder: families_set(folder))
                for name, folder in FAMILY_SETS.items()
            },
            **{
                name + AGREED: (lambda folder=folder: families_set(folder, "queries-agreed.jsonl"))
                for name, folder in FAMILY_SETS.items()
            },
        }
        loaded = {name: readers[name]() for name in sets}
        for engine_name in engines:
            index = engine(engine_name, work / "home")
            try:
                for set_name, (corpus, queries) in loaded.items():
                    console.print(
                        f"[bold]{set_name}[/bold] on {engine_name}: {len(queries.queries)} "
                        f"queries with holder gold, modes {', '.join(modes)}"
                    )
                    measured = measure(index, corpus, queries, modes)
                    if set_name == "tatqa-scope":
                        tatqa_scopes.add_by_scope(measured, work / set_name)
                    folder = family_folder(set_name)
                    if folder is not None:
                        family, no_profile = families_of_queries(folder)
                        for row in measured.values():
                            row["per_family"] = by_family(row, family, no_profile)
                    results["sets"].setdefault(set_name, {})[engine_name] = measured
            finally:
                close = getattr(index, "close", None)
                if close is not None:
                    close()
    print(f"quantity precision ({results['label']})\n{table(results)}")
    if "tatqa-scope" in results["sets"]:
        print(f"\nper scope kind\n{tatqa_scopes.by_scope_table(results['sets']['tatqa-scope'])}")
    per_family = family_table(results)
    if per_family:
        print(f"\nper family\n{per_family}")
    if "before" in results:
        before = results["before"]
        print(f"\nbefore ({before['ref']}, {before['commit'][:12]}) and after, side by side")
        print(side_by_side(before, results))
    path = write_results(f"quantity_precision-{args.label}", results)
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
