"""Document-level metrics of one ranking against graded judgments: the trec_eval rules.

Chunk hits are mapped to their ``doc_id`` and the first occurrence keeps the rank.
Checked against trec_eval (pytrec_eval) on random rankings and grades in the tests:

* ``recall@k`` = relevant documents in the top k / relevant documents;
* ``precision@k`` = relevant documents in the top k / k (k, not hits returned);
* ``mrr`` = 1 / rank of the first relevant document (0 if none is returned);
* ``ndcg@k`` = DCG@k / ideal DCG@k with linear gains (the grade; negative grades
  gain 0) and ``log2(rank + 1)`` discounts;
* ``map`` = average precision over the whole returned list (the depth).

A document is relevant when its grade is > 0. Queries without a relevant document
are left out of the means (and counted) — trec_eval would score such a query 0 when it
appears in the qrels.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

from osrag.evaluation.inputs import Grades


def dedupe_docs(doc_ids: Iterable[str]) -> list[str]:
    """Chunk hits → document ranking: the first occurrence keeps the rank."""
    seen: dict[str, None] = {}
    for doc in doc_ids:
        seen.setdefault(doc, None)
    return list(seen)


def recall_at(ranking: Sequence[str], grades: Grades, k: int) -> float:
    relevant = {d for d, g in grades.items() if g > 0}
    return len(relevant.intersection(ranking[:k])) / len(relevant) if relevant else 0.0


def precision_at(ranking: Sequence[str], grades: Grades, k: int) -> float:
    return sum(1 for d in ranking[:k] if grades.get(d, 0) > 0) / k


def reciprocal_rank(ranking: Sequence[str], grades: Grades) -> float:
    for rank, doc in enumerate(ranking, 1):
        if grades.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranking: Sequence[str], grades: Grades, k: int) -> float:
    dcg = sum(max(grades.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def average_precision(ranking: Sequence[str], grades: Grades) -> float:
    relevant = sum(1 for g in grades.values() if g > 0)
    if not relevant:
        return 0.0
    found, total = 0, 0.0
    for rank, doc in enumerate(ranking, 1):
        if grades.get(doc, 0) > 0:
            found += 1
            total += found / rank
    return total / relevant


def query_metrics(ranking: Sequence[str], grades: Grades, ks: Sequence[int]) -> dict[str, float]:
    metrics: dict[str, float] = {}
    for k in ks:
        metrics[f"recall@{k}"] = recall_at(ranking, grades, k)
        metrics[f"precision@{k}"] = precision_at(ranking, grades, k)
        metrics[f"ndcg@{k}"] = ndcg_at(ranking, grades, k)
    metrics["mrr"] = reciprocal_rank(ranking, grades)
    metrics["map"] = average_precision(ranking, grades)
    return metrics


def mean_metrics(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    """The mean of each metric over the queries that have it, rounded to 4 places."""
    names: list[str] = []
    for metrics in per_query:
        names += [name for name in metrics if name not in names]
    means: dict[str, float] = {}
    for name in names:
        values = [m[name] for m in per_query if name in m]
        means[name] = round(statistics.fmean(values), 4)
    return means
