"""Fusing ranked legs in the client, for engines without server-side hybrid search.

Pure functions over engine hits (:class:`~osrag.schema.plan.EngineHit` lists, best first):

* **Reciprocal rank fusion** (the default, as OpenSearch's ``score-ranker-processor``
  with ``technique: rrf``): a document's score is ``Σ 1 / (rank_constant + rank)``
  over the legs that returned it, ``rank`` counted from 1 in each leg.
* **Normalization**: each leg's scores min-max normalised to ``[0, 1]`` (a leg whose
  scores are all equal gives 1.0), then a weighted arithmetic mean over the legs,
  a leg that did not return the document contributing 0 (OpenSearch's
  ``normalization-processor`` with ``min_max`` and ``arithmetic_mean``).

A vector leg with a floor (:attr:`~osrag.schema.plan.VectorLeg.floor`) is cut to the hits
scoring at least that share of its best before it is fused or paged (:func:`above_floor`).

**Legs of equal depth.** Rank fusion compares legs asked to the same depth (each leg is
asked for ``from + size``). A floored vector leg stops where its scores fall under the
floor, and at the same steps the lexical leg stops where the question's words stop
matching: the two end at different depths, and the union would give the longer leg's tail
a place the shorter leg never had the depth to dispute. So where the vector leg has a
floor, every leg is first cut to the depth of the shortest leg that returned anything,
counted in documents (:func:`at_equal_depth`): a prefix of each leg, every hit at its rank,
as if the leg had been asked to that depth. Each leg's first documents stay, whichever leg
holds them.

Ties are broken by chunk id, so a fused ranking is reproducible. The hit kept for
a document is the first leg's (it carries the lexical highlight).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from osrag.schema.plan import EngineHit

Hit = EngineHit


def _key(hit: Hit) -> str:
    return hit.chunk_id


def _ordered(scores: dict[str, float], hits: dict[str, Hit]) -> list[Hit]:
    ranked = sorted(scores, key=lambda key: (-scores[key], key))
    return [replace(hits[key], score=scores[key]) for key in ranked]


def _first_seen(legs: Sequence[Sequence[Hit]]) -> dict[str, Hit]:
    hits: dict[str, Hit] = {}
    for leg in legs:
        for hit in leg:
            hits.setdefault(_key(hit), hit)
    return hits


def reciprocal_rank_fusion(legs: Sequence[Sequence[Hit]], rank_constant: int = 60) -> list[Hit]:
    """Every document of every leg, by ``Σ 1 / (rank_constant + rank)``."""
    scores: dict[str, float] = {}
    for leg in legs:
        for rank, hit in enumerate(leg, 1):
            key = _key(hit)
            scores[key] = scores.get(key, 0.0) + 1.0 / (rank_constant + rank)
    return _ordered(scores, _first_seen(legs))


def normalized_fusion(
    legs: Sequence[Sequence[Hit]], weights: Sequence[float] | None = None
) -> list[Hit]:
    """Every document of every leg, by the weighted mean of min-max normalised scores."""
    weights = list(weights) if weights is not None else [1.0] * len(legs)
    if len(weights) != len(legs) or sum(weights) <= 0:
        raise ValueError(f"{len(legs)} legs need as many positive weights, not {weights}")
    total = sum(weights)
    scores: dict[str, float] = {}
    for leg, weight in zip(legs, weights, strict=True):
        raw = [float(hit.score or 0.0) for hit in leg]
        low, high = (min(raw), max(raw)) if raw else (0.0, 0.0)
        for hit, score in zip(leg, raw, strict=True):
            normal = 1.0 if high == low else (score - low) / (high - low)
            key = _key(hit)
            scores[key] = scores.get(key, 0.0) + weight * normal / total
    return _ordered(scores, _first_seen(legs))


def above_floor(hits: Sequence[Hit], floor: float | None) -> list[Hit]:
    """The hits scoring at least ``floor`` times the first (best) hit's score, in order
    (every hit when there is no floor, or the best hit has no positive score)."""
    best = float(hits[0].score or 0.0) if hits else 0.0
    if floor is None or best <= 0:
        return list(hits)
    return [hit for hit in hits if float(hit.score or 0.0) >= floor * best]


def _documents(leg: Sequence[Hit]) -> list[str]:
    """The distinct documents of a leg, in order."""
    return list(dict.fromkeys(hit.doc_id for hit in leg))


def at_equal_depth(legs: Sequence[Sequence[Hit]]) -> list[list[Hit]]:
    """Each leg cut before its first hit of a document beyond the ``n``-th, ``n`` the number
    of documents of the shortest leg that returned any (a leg that returned nothing sets no
    depth; every leg whole when none returned anything). Each cut leg is a prefix of its
    leg, so every hit keeps its rank: the leg as if it had been asked to that depth."""
    depths = [len(_documents(leg)) for leg in legs if leg]
    if not depths:
        return [list(leg) for leg in legs]
    depth = min(depths)
    return [_first_documents(leg, depth) for leg in legs]


def _first_documents(leg: Sequence[Hit], depth: int) -> list[Hit]:
    """The prefix of ``leg`` that ends before its first hit of a ``depth + 1``-th document."""
    seen: set[str] = set()
    for at, hit in enumerate(leg):
        if hit.doc_id not in seen and len(seen) == depth:
            return list(leg[:at])
        seen.add(hit.doc_id)
    return list(leg)


def best_per_document(hits: Sequence[Hit]) -> list[Hit]:
    """Each document's first (best) hit, in order: ``collapse`` on ``doc_id``."""
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.doc_id not in seen:
            seen.add(hit.doc_id)
            kept.append(hit)
    return kept
