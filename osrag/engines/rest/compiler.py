"""A :class:`~osrag.schema.plan.SearchPlan` → OpenSearch query DSL, and the answers back.

One compiler for both REST engines. It writes OpenSearch's DSL; Elasticsearch's
differences (a top-level ``knn`` section with ``num_candidates``, an ``rrf``
retriever instead of a ``hybrid`` query with a search pipeline) are applied to
each body by :meth:`~osrag.engines.rest.index.RestIndex.request_body`
(:mod:`osrag.engines.elasticsearch.requests`). :func:`osrag.build_query` is
:func:`request_body` of a plan.

One plan becomes one to three ``_msearch`` bodies, the candidate count last:

* ``bm25``: the ranked search (sorted by score, then chunk id; ``_source`` selected;
  highlighted; collapsed on ``doc_id`` where asked), the count;
* ``vector``: the ``knn`` leg with every filter inside it, the count;
* ``hybrid`` fused on the engine (a search ``pipeline``): one ``hybrid`` query holding
  both legs, the count; fused by the caller: each leg ``depth`` deep, the count.

Pure: no client, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from osrag.engines.mapping import VECTOR_FIELD
from osrag.schema.filters import (
    AllOf,
    AnyOf,
    Exists,
    Filter,
    Match,
    MatchNone,
    Nested,
    Not,
    NotExists,
    Range,
    Term,
    Terms,
)
from osrag.schema.plan import EngineHit, EngineResult, Fusion, SearchPlan, TextLeg

TIE_BREAK_SORT: list[dict[str, str]] = [{"_score": "desc"}, {"chunk_id": "desc"}]
"""Every request's order: score, then the chunk id. Tied scores are common (short texts,
duplicated passages) and without a second key engines return ties in internal document
order, which differs between two ingests of the same corpus. Descending, because that is
how trec_eval breaks ties (docno descending, ``strcmp``): a run file written with the
engine's own scores is then scored by trec_eval, pytrec_eval and ir_measures exactly as
osrag scores the ranking (a chunk id starts with its document id and ``#``)."""


def compile_filter(node: Filter) -> dict[str, Any]:
    """One constraint tree as a DSL clause."""
    if isinstance(node, Term):
        if node.boost is None:
            return {"term": {node.field: node.value}}
        return {"term": {node.field: {"value": node.value, "boost": node.boost}}}
    if isinstance(node, Terms):
        terms: dict[str, Any] = {node.field: list(node.values)}
        if node.boost is not None:
            terms["boost"] = node.boost
        return {"terms": terms}
    if isinstance(node, Range):
        bounds: dict[str, Any] = node.bounds()
        if node.boost is not None:
            bounds["boost"] = node.boost
        return {"range": {node.field: bounds}}
    if isinstance(node, Exists):
        return {"exists": {"field": node.field}}
    if isinstance(node, NotExists):
        return {"bool": {"must_not": [{"exists": {"field": node.field}}]}}
    if isinstance(node, MatchNone):
        return {"match_none": {}}
    if isinstance(node, Match):
        if node.operator == "phrase":
            return {"match_phrase": {node.field: {"query": node.text}}}
        return {"match": {node.field: {"query": node.text, "operator": node.operator}}}
    if isinstance(node, Nested):
        # in filter context: no score (a nested query's score mode would not matter)
        return {"nested": {"path": node.path, "query": compile_filter(node.item)}}
    if isinstance(node, Not):
        return {"bool": {"must_not": [compile_filter(node.item)]}}
    if isinstance(node, AnyOf):
        return {
            "bool": {
                "should": [compile_filter(i) for i in node.items],
                "minimum_should_match": 1,
            }
        }
    if isinstance(node, AllOf):
        return {"bool": {"filter": [compile_filter(i) for i in node.items]}}
    raise TypeError(f"not a plan filter: {node!r}")


def filter_clauses(plan: SearchPlan) -> list[dict[str, Any]]:
    return [compile_filter(f) for f in plan.all_filters()]


def scoring_clauses(leg: TextLeg) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``must`` (the match on ``text``) and ``should`` (boosts) of the text leg."""
    if not leg.text:
        return [{"match_all": {}}], []
    match: dict[str, Any] = {"query": leg.text, "operator": leg.operator}
    if leg.minimum_should_match:
        match["minimum_should_match"] = leg.minimum_should_match
    if leg.no_terms == "all":
        match["zero_terms_query"] = "all"
    should: list[dict[str, Any]] = []
    if leg.breadcrumb_boost:
        should.append({"match": {"breadcrumb": {"query": leg.text, "boost": leg.breadcrumb_boost}}})
    if leg.title_boost:
        should.append({"match": {"title": {"query": leg.text, "boost": leg.title_boost}}})
    should += [compile_filter(b) for b in leg.boosts]
    if leg.words_rank:  # every candidate, the words raising those that match them
        return [{"match_all": {}}], [{"match": {"text": match}}, *should]
    return [{"match": {"text": match}}], should


def bool_query(plan: SearchPlan) -> dict[str, Any]:
    """The lexical leg: ``bool`` with ``must`` match, ``should`` boosts, ``filter``."""
    must, should = scoring_clauses(plan.text or TextLeg(""))
    body: dict[str, Any] = {"must": must}
    if should:
        body["should"] = should
    filters = filter_clauses(plan)
    if filters:
        body["filter"] = filters
    return {"bool": body}


def candidate_query(plan: SearchPlan) -> dict[str, Any]:
    """Only the filters: the candidate set the legs rank inside."""
    filters = filter_clauses(plan)
    return {"bool": {"filter": filters}} if filters else {"match_all": {}}


def count_body(plan: SearchPlan) -> dict[str, Any]:
    return {"size": 0, "query": candidate_query(plan), "track_total_hits": True}


def knn_clause(plan: SearchPlan) -> dict[str, Any]:
    """The vector leg, every filter inside ``knn.filter`` (never a post-filter)."""
    leg = plan.vector
    if leg is None:
        raise ValueError("a plan without a vector leg has no knn clause")
    inner: dict[str, Any] = {"vector": list(leg.vector), "k": leg.k}
    filters = filter_clauses(plan)
    if filters:
        inner["filter"] = {"bool": {"filter": filters}}
    return {"knn": {VECTOR_FIELD: inner}}


def source_clause(plan: SearchPlan) -> dict[str, Any]:
    source = plan.source
    if source.includes is not None:
        return {"includes": list(source.includes)}
    return {"excludes": list(source.excludes)}


def request_body(plan: SearchPlan) -> dict[str, Any]:
    """The ranked ``_search`` body of a lexical plan (what :func:`osrag.build_query` gives)."""
    body: dict[str, Any] = {
        "query": bool_query(plan),
        "size": plan.size,
        "from": plan.offset,
        "sort": [dict(key) for key in TIE_BREAK_SORT],
        "_source": source_clause(plan),
    }
    marks = plan.highlight
    if marks is not None:
        body["highlight"] = {
            "fields": {
                marks.field: {
                    "number_of_fragments": marks.fragments,
                    "fragment_size": marks.fragment_size,
                }
            },
            "require_field_match": False,  # the match is on `text`; fragments from `body`
            "pre_tags": [marks.pre],
            "post_tags": [marks.post],
        }
    if plan.collapse:
        body["collapse"] = {"field": "doc_id"}
    if plan.stop_after is not None:
        body["terminate_after"] = plan.stop_after
    return body


def _shaped(plan: SearchPlan, query: dict[str, Any], size: int, offset: int) -> dict[str, Any]:
    return {
        "query": query,
        "size": size,
        "from": offset,
        "_source": source_clause(plan),
        "track_total_hits": True,
    }


def search_bodies(plan: SearchPlan, pipeline: str | None = None) -> list[dict[str, Any]]:
    """The ``_msearch`` bodies of one plan (the candidate count last, where asked); a
    ``pipeline`` fuses a hybrid plan on the engine (see the module docstring)."""
    bodies = _ranked_bodies(plan, pipeline)
    if plan.count_candidates:
        bodies.append(count_body(plan))
    return bodies


def _ranked_bodies(plan: SearchPlan, pipeline: str | None) -> list[dict[str, Any]]:
    if plan.mode == "bm25":
        search = request_body(plan)
        search["track_total_hits"] = True
        return [search]
    knn = knn_clause(plan)
    if plan.mode == "vector":
        if plan.collapse:
            return [_shaped(plan, knn, plan.depth, 0)]
        return [_shaped(plan, knn, plan.size, plan.offset)]
    lexical = bool_query(plan)
    if pipeline is not None:
        hybrid = _shaped(plan, {"hybrid": {"queries": [lexical, knn]}}, plan.size, plan.offset)
        hybrid["search_pipeline"] = pipeline
        return [hybrid]
    return [_shaped(plan, lexical, plan.depth, 0), _shaped(plan, knn, plan.depth, 0)]


def _total(response: dict[str, Any]) -> int:
    total = response["hits"]["total"]
    return int(total["value"] if isinstance(total, dict) else total)


def engine_hits(response: dict[str, Any]) -> tuple[EngineHit, ...]:
    """A response's hits as osrag's records."""
    out = []
    for raw in response["hits"]["hits"]:
        source = raw.get("_source") or {}
        chunk_id = str(source.get("chunk_id") or raw.get("_id", ""))
        doc_id = str(source.get("doc_id") or chunk_id.rsplit("#", 2)[0])
        marked = (raw.get("highlight") or {}).get("body") or ()
        score = raw.get("_score")
        out.append(
            EngineHit(
                chunk_id=chunk_id,
                doc_id=doc_id,
                score=None if score is None else float(score),
                source=source,
                highlight=tuple(marked),
                index=raw.get("_index"),
            )
        )
    return tuple(out)


def read_result(
    plan: SearchPlan, answers: Sequence[dict[str, Any]], pipeline: str | None
) -> EngineResult:
    """The answers to :func:`search_bodies` of ``plan`` as one :class:`EngineResult`."""
    candidates = _total(answers[-1]) if plan.count_candidates else -1
    ranked = list(answers[:-1] if plan.count_candidates else answers)
    fused = f"server:{pipeline}" if pipeline is not None else None
    if len(ranked) == 2:
        legs = (engine_hits(ranked[0]), engine_hits(ranked[1]))
        return EngineResult((), max(_total(ranked[0]), _total(ranked[1])), candidates, legs)
    return EngineResult(engine_hits(ranked[0]), _total(ranked[0]), candidates, (), fused)


class FusingEngine(Protocol):
    """What :func:`compile_plans` needs of an engine: the search pipeline of a fusion."""

    def fusion_pipeline(self, fusion: Fusion) -> str | None: ...


class MsearchEngine(FusingEngine, Protocol):
    """What :func:`run_plans` needs of an engine: a fusion pipeline and ``_msearch``."""

    def msearch(
        self, target: str, bodies: Sequence[dict[str, Any]], *, search_type: Any = None
    ) -> list[dict[str, Any]]: ...


Sent = list[tuple[SearchPlan, str | None, int]]
"""Each plan sent, the pipeline fusing it on the engine (if any), and its body count."""


def compile_plans(
    engine: FusingEngine, plans: Sequence[SearchPlan]
) -> tuple[list[dict[str, Any]], Sent]:
    """Every plan's ``_msearch`` bodies (a hybrid plan fused on the engine where it may)."""
    sent: Sent = []
    bodies: list[dict[str, Any]] = []
    for plan in plans:
        on_engine = plan.mode == "hybrid" and plan.fusion.in_engine and not plan.collapse
        pipeline = engine.fusion_pipeline(plan.fusion) if on_engine else None
        compiled = search_bodies(plan, pipeline)
        sent.append((plan, pipeline, len(compiled)))
        bodies += compiled
    return bodies, sent


def read_plans(sent: Sent, answers: Sequence[dict[str, Any]]) -> list[EngineResult]:
    """The ``_msearch`` answers to :func:`compile_plans`, one result per plan."""
    results, at = [], 0
    for plan, pipeline, n in sent:
        results.append(read_result(plan, answers[at : at + n], pipeline))
        at += n
    return results


def run_plans(
    engine: MsearchEngine,
    target: str,
    plans: Sequence[SearchPlan],
    *,
    search_type: Any = None,
) -> list[EngineResult]:
    """Every plan compiled, sent in one ``_msearch``, answered as :class:`EngineResult` s."""
    bodies, sent = compile_plans(engine, plans)
    answers = engine.msearch(target, bodies, search_type=search_type) if bodies else []
    return read_plans(sent, answers)
