"""Run labelled queries under each configuration and measure them side by side.

Retrieval goes through :class:`~osrag.search.searcher.Searcher` — the same planning, filters
and fallback a user's search gets — in the operator's view (no tenant required); each
configuration's queries are run and judged by :mod:`osrag.evaluation.measure`.

* **Depth is in documents.** Each query asks for ``depth`` documents, one hit per
  document (``collapse`` on ``doc_id``: a document's best chunk gives its rank and
  score), so MAP is computed over ``depth`` documents whatever the chunking. When the
  chunks themselves are needed — a chunk-level run, or span judgments for the query —
  ranked chunks are fetched instead, widening the request (up to the engines' 10,000
  hits) until ``depth`` documents are covered; the document ranking is then the first
  hit of each document, the same as the collapsed one.
* **Judgments are checked against the index.** Relevant documents that are not in the
  generation are counted in a warning; when none of them is there the evaluation stops
  with an error (a run of zeros would measure the id mapping, not the search).
* **Significance**: every configuration after the first is tested against the first,
  per metric, on the per-query values (:mod:`osrag.evaluation.significance`).
* **Holding the asked quantity** is judged by the queries' holder gold
  (:mod:`osrag.evaluation.quantity`: quantity precision@k), never by the filter. Beside
  it, ``filter_agreement@k`` — the share of the top k that pass the query's constraints
  as the filter reads them (a filtered search scores 1 by construction) — is a diagnostic
  that the filter was applied; the constraint selectivity and the fallback steps say how
  much the filter narrowed the search.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from osrag.errors import ConfigError, InputError
from osrag.evaluation.configs import EvalConfig, label
from osrag.evaluation.filtering import MAX_HITS, index_size
from osrag.evaluation.inputs import LabelledQuery, QuerySet
from osrag.evaluation.measure import config_report
from osrag.evaluation.report import ConfigReport, EvalReport, SignificanceMethod
from osrag.evaluation.significance import PERMUTATIONS, SEED, paired_test
from osrag.evaluation.spans import SpanJudgment

Progress = Callable[[str], None]


def _check_judged_documents(
    backend: Any, target: str, queries: Sequence[LabelledQuery], warnings: list[str]
) -> None:
    """Relevant documents absent from the generation: a warning with counts, or an error
    when none is there."""
    from osrag.ingestion.manifest import Manifest

    generation = backend.alias_target(target)
    if generation is None:
        raise InputError(f"alias {target!r} points to no generation: nothing to evaluate")
    manifest = Manifest(backend.records(target), target)
    relevant = sorted({d for q in queries for d, g in q.relevant.items() if g > 0})
    present: set[str] = set()
    for start in range(0, len(relevant), 1000):
        batch = relevant[start : start + 1000]
        present |= set(manifest.documents_for(generation, batch))
    missing = [d for d in relevant if d not in present]
    if not missing:
        return
    sample = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
    if len(missing) == len(relevant):
        raise InputError(
            f"none of the {len(relevant)} relevant documents of the judgments is in "
            f"{generation} (e.g. {sample}): the qrels name documents by other ids than the "
            "corpus, or the index holds another corpus"
        )
    reachable = sum(
        1 for q in queries if any(g > 0 and d in present for d, g in q.relevant.items())
    )
    warnings.append(
        f"{len(missing)} of {len(relevant)} relevant judged documents are not in {generation} "
        f"(e.g. {sample}); {len(queries) - reachable} queries have none that can be found"
    )


def _significance(reports: list[ConfigReport], permutations: int, seed: int) -> None:
    """Test every configuration after the first against the first, metric by metric."""
    from osrag.evaluation.report import Comparison

    if len(reports) < 2:
        return
    first = reports[0]
    for report in reports[1:]:
        for metric in report.metrics:
            qids = [
                q
                for q in first.per_query
                if metric in first.per_query[q] and metric in report.per_query.get(q, {})
            ]
            if not qids:
                continue
            test = paired_test(
                [first.per_query[q][metric] for q in qids],
                [report.per_query[q][metric] for q in qids],
                permutations=permutations,
                seed=seed,
            )
            report.significance[metric] = Comparison(
                baseline=first.name,
                mean_difference=round(test.mean_difference, 6),
                p_randomization=test.p_randomization,
                p_t_test=test.p_t_test,
                queries=test.queries,
            )


def run_evaluation(
    queries: Sequence[LabelledQuery] | QuerySet,
    backend: Any,
    *,
    alias: str,
    configs: Sequence[EvalConfig],
    ks: Sequence[int] = (5, 10),
    corpus: Path | None = None,
    base: Any = None,
    depth: int = 100,
    queries_file: str = "",
    span_qrels: dict[str, list[SpanJudgment]] | None = None,
    chunk_run: bool = False,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
    progress: Progress | None = None,
) -> EvalReport:
    """Run every query under every configuration; metrics, runs and significance.

    Configurations that change the index (strategy, sizes, tokenizer, analyzer,
    canonical tokens) are built as temporary generations under a temporary alias from
    ``corpus`` and dropped afterwards; the others run on ``alias``. ``depth`` is in
    documents; ``chunk_run`` keeps every ranked chunk in the runs (for a chunk-level
    run file).
    """
    from osrag.ingestion.ingest import IngestOptions

    if not 1 <= depth <= MAX_HITS:
        raise ConfigError(f"depth {depth}: expected 1 to {MAX_HITS} documents")
    if not ks or any(k < 1 for k in ks):
        raise ConfigError(f"cut-offs {list(ks)}: expected positive integers")
    query_set = queries if isinstance(queries, QuerySet) else None
    labelled = list(queries.queries if isinstance(queries, QuerySet) else queries)
    warnings = list(query_set.warnings) if query_set else []
    span_qrels = span_qrels or {}
    warnings += _span_warnings(span_qrels, labelled)
    base = base or IngestOptions(alias=alias)
    configs = list(configs) or [EvalConfig("current")]
    if any(c.index_params for c in configs) and corpus is None:
        raise ConfigError("these comparisons change the index: pass --corpus PATH to build them")
    reports: list[ConfigReport] = []
    short: list[str] = []
    for number, (index_params, members) in enumerate(_by_index(configs)):
        reports += _run_group(
            members,
            index_params,
            labelled,
            backend,
            alias=alias,
            corpus=corpus,
            base=base,
            warnings=warnings if number == 0 else None,
            progress=progress,
            ks=ks,
            depth=depth,
            span_qrels=span_qrels,
            chunk_run=chunk_run,
            short=short,
        )
    if short:
        warnings.append(
            f"{len(set(short))} queries matched more chunks than 10,000 hits could rank "
            f"without covering {depth} documents: their runs are shorter"
        )
    order = {c.name: i for i, c in enumerate(configs)}
    reports.sort(key=lambda r: order.get(r.name, 0))
    _significance(reports, permutations, seed)
    return EvalReport(
        queries_file=queries_file or (query_set.path if query_set else ""),
        qrels_file=query_set.qrels.path if query_set and query_set.qrels else None,
        ks=list(ks),
        depth=depth,
        warnings=warnings,
        significance=SignificanceMethod(
            permutations=permutations, seed=seed, baseline=reports[0].name if reports else None
        ),
        configs=reports,
    )


def _by_index(configs: list[EvalConfig]) -> list[tuple[dict[str, Any], list[EvalConfig]]]:
    """The configurations grouped by the index they need, in the order first named."""
    groups: dict[str, list[EvalConfig]] = {}
    for config in configs:
        groups.setdefault(json.dumps(config.index_params, sort_keys=True), []).append(config)
    return [(json.loads(key), members) for key, members in groups.items()]


def _span_warnings(
    span_qrels: dict[str, list[SpanJudgment]], labelled: list[LabelledQuery]
) -> list[str]:
    """Span judgments of queries the set does not hold: an error when none is held."""
    if not span_qrels:
        return []
    unknown = sorted(set(span_qrels) - {q.id for q in labelled})
    if len(unknown) == len(span_qrels):
        raise InputError("none of the queries of the span judgments is in the query set")
    return [f"span judgments for {len(unknown)} queries not in the query set"] if unknown else []


def _generation_options(base: Any, index_params: dict[str, Any], target: str) -> Any:
    """The ingest options of a temporary generation: ``base`` changed by ``index_params``."""
    from osrag.ingestion.ingest import IngestOptions

    chunking = base.chunking.model_copy(
        update={k: v for k, v in index_params.items() if k in type(base.chunking).model_fields}
    )
    return IngestOptions(
        alias=target,
        chunking=chunking,
        extraction=base.extraction,
        analyzer=index_params.get("analyzer", base.analyzer),
        canonical_tokens=bool(index_params.get("canonical_tokens", False)),
        keep=1,
        embedder=base.embedder,
        embed_workers=base.embed_workers,
        fit_window=bool(index_params.get("fit_window", base.fit_window)),
    )


def _run_group(
    members: list[EvalConfig],
    index_params: dict[str, Any],
    labelled: list[LabelledQuery],
    backend: Any,
    *,
    alias: str,
    corpus: Path | None,
    base: Any,
    warnings: list[str] | None,
    progress: Progress | None,
    **run: Any,
) -> list[ConfigReport]:
    """The configurations that share one index: built from ``corpus`` under a temporary
    alias (dropped afterwards), else ``alias`` itself. With ``warnings``, the judged
    documents are checked against the index first."""
    from osrag.ingestion.generations import purge
    from osrag.ingestion.ingest import ingest
    from osrag.search.searcher import Searcher

    temporary = corpus is not None
    target = f"{alias}-eval-{uuid.uuid4().hex[:8]}" if temporary else alias
    reports: list[ConfigReport] = []
    try:
        if corpus is not None:
            if progress:
                progress(f"building {target} for {label(index_params)}")
            ingest(corpus, backend, _generation_options(base, index_params, target))
        if warnings is not None:
            _check_judged_documents(backend, target, labelled, warnings)
        searcher = Searcher(backend, target, extraction=base.extraction, enforce_access=False)
        amount_cache: dict[str, set[str]] = {}
        generation = backend.alias_target(target)
        size = index_size(backend, target)
        for config in members:
            if progress:
                progress(f"running {len(labelled)} queries for {config.name}")
            report = config_report(
                config,
                labelled,
                searcher,
                extraction=base.extraction,
                amount_cache=amount_cache,
                index_size=size,
                **run,
            )
            report.generation = generation
            reports.append(report)
    finally:
        if temporary:
            purge(backend, target)
    return reports
