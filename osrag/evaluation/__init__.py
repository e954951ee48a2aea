"""Evaluation a search team can trust: standard inputs read right, reproducible runs,
TREC run files, significance, span judgments.

* :mod:`~osrag.evaluation.inputs` — query sets (JSON Lines, BEIR, TREC topics), qrels;
* :mod:`~osrag.evaluation.metrics` — recall@k, precision@k, MRR, nDCG@k, MAP (trec_eval's rules);
* :mod:`~osrag.evaluation.quantity` — quantity precision@k against holder gold, constraint
  selectivity, the fallback steps;
* :mod:`~osrag.evaluation.spans` — span judgments, span recall/precision, passages → spans;
* :mod:`~osrag.evaluation.runs` — runs and TREC run files;
* :mod:`~osrag.evaluation.significance` — paired randomisation test and paired t-test;
* :mod:`~osrag.evaluation.configs` — what ``--compare`` and ``--baselines`` compare;
* :mod:`~osrag.evaluation.filtering` — what the amount filter did, counted by the filter
  (filter agreement, a diagnostic; selectivity);
* :mod:`~osrag.evaluation.measure` — one configuration's queries, run and judged;
* :mod:`~osrag.evaluation.runner` — the queries through the Searcher, per configuration;
* :mod:`~osrag.evaluation.report` — the report model (``--json``) and the HTML page.
"""

from osrag.evaluation.configs import (
    BASELINE_LEGEND,
    EvalConfig,
    baseline_configs,
    parse_compare,
)
from osrag.evaluation.inputs import (
    LabelledQuery,
    Qrels,
    QuerySet,
    load_qrels,
    load_query_set,
    parse_topics,
    read_qrels,
    read_queries,
    read_topics,
)
from osrag.evaluation.metrics import (
    average_precision,
    dedupe_docs,
    mean_metrics,
    ndcg_at,
    precision_at,
    query_metrics,
    recall_at,
    reciprocal_rank,
)
from osrag.evaluation.quantity import (
    FALLBACK_STEPS,
    FallbackStep,
    HolderGold,
    quantity_metrics,
    quantity_precision_at,
)
from osrag.evaluation.report import Comparison, ConfigReport, EvalReport, render_html
from osrag.evaluation.runner import run_evaluation
from osrag.evaluation.runs import Run, RunHit, read_trec_run, write_trec_run
from osrag.evaluation.significance import paired_t_test, paired_test, randomization_test
from osrag.evaluation.spans import (
    SpanJudgment,
    passages_to_spans,
    read_span_qrels,
    span_metrics,
    write_span_qrels,
)

__all__ = [
    "BASELINE_LEGEND",
    "FALLBACK_STEPS",
    "Comparison",
    "ConfigReport",
    "EvalConfig",
    "EvalReport",
    "FallbackStep",
    "HolderGold",
    "LabelledQuery",
    "Qrels",
    "QuerySet",
    "Run",
    "RunHit",
    "SpanJudgment",
    "average_precision",
    "baseline_configs",
    "dedupe_docs",
    "load_qrels",
    "load_query_set",
    "mean_metrics",
    "ndcg_at",
    "paired_t_test",
    "paired_test",
    "parse_compare",
    "parse_topics",
    "passages_to_spans",
    "precision_at",
    "quantity_metrics",
    "quantity_precision_at",
    "query_metrics",
    "randomization_test",
    "read_qrels",
    "read_queries",
    "read_span_qrels",
    "read_topics",
    "read_trec_run",
    "recall_at",
    "reciprocal_rank",
    "render_html",
    "run_evaluation",
    "span_metrics",
    "write_span_qrels",
    "write_trec_run",
]
