"""Request bodies osrag sends, for a fixed set of query specs: the golden the request
builders are compared with (``tests/engines/test_request_golden.py``).

Each case is a :class:`~osrag.models.QuerySpec` (its fields as a dict) with a vector
where the mode needs one, answered four ways:

* ``build``: :func:`osrag.build_query` (the ranked lexical body; with ``drop_amount``);
* ``opensearch``: the ``_msearch`` lines the OpenSearch engine sends for the Searcher's
  typed plan (fused on the engine by osrag's search pipeline where the plan may be);
* ``opensearch_client_fusion``: the same without a pipeline (the client fuses);
* ``elasticsearch``: the lines the Elasticsearch engine sends (its ``knn`` section and
  ``rrf`` retriever);

and, for the fallback, each of them with every amount filter dropped; a case whose
constraints are bound to a named quantity also records ``build`` and ``opensearch`` at the
amount ladder's role-free step. A case the builders refuse records the error's class and
message. Written once by
``python tests/support/request_golden.py`` from the code as it was before a refactor; every
later change must reproduce it.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from osrag import build_query
from osrag.engines.elasticsearch.index import ElasticsearchIndex
from osrag.engines.elasticsearch.requests import RRF_PIPELINE
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.engines.opensearch.pipelines import pipeline_definition
from osrag.engines.rest.compiler import compile_filter, search_bodies
from osrag.errors import OsragError
from osrag.models import QuerySpec
from osrag.opensearch import add_osrag_clauses, to_search
from osrag.search.query import plan_query, search_plan
from osrag.search.searcher import TENANT_PROBE

FIXTURE = Path(__file__).resolve().parents[1] / "golden" / "request_bodies.json"
VECTOR = [0.25, -1.0, 0.5]
RESULTS = "k"
"""The QuerySpec field that holds the number of results."""

NAMED: dict[str, dict[str, Any]] = {
    "exact": {"text": "umbrella coverage $300K", "tenant": "acme"},
    "exact_no_tenant": {"text": "umbrella coverage $300K"},
    "over": {"text": "flood policy over $500,000"},
    "under": {"text": "deductible under $50"},
    "at_least": {"text": "limits of at least $1,000"},
    "at_most": {"text": "no more than $2,000 deductible"},
    "between": {"text": "limits between $1M and $2M"},
    "range_dash": {"text": "umbrella $1M-$2M"},
    "in": {"text": "$300K or $3M umbrella"},
    "approximate": {"text": "about $500K deductible"},
    "euro_exact": {"text": "umbrella €300,000"},
    "euro_in": {"text": "€300,000 or €3M"},
    "euro_over": {"text": "flood over €500,000"},
    "euro_over_role_free": {"text": "the flood policies over €500,000"},
    "bound_year_loss": {"text": "net loss under $20 million in 2019", "mode": "hybrid"},
    "bound_after": {"text": "the $500 deductible", "tenant": "acme"},
    "too_many_amounts": {"text": " ".join(f"${i}" for i in range(1, 20))},
    "yen": {"text": "premium ¥30,000"},
    "two_amounts": {"text": "deductible $1,000 and limit $300K"},
    "keep_amount_text": {"text": "umbrella $300K", "keep_amount_text": True},
    "amount_filter_off": {"text": "umbrella $300K", "amount_filter": False},
    "explicit_amount": {"text": "umbrella", "amount": 30_000_000},
    "explicit_amount_eur": {"text": "umbrella", "amount": 30_000_000, "currency": "EUR"},
    "explicit_constraints": {
        "text": "umbrella $5",
        "constraints": [
            {"op": "gte", "currency": "USD", "bounds": [100]},
            {"op": "in", "currency": "EUR", "bounds": [1, 2]},
        ],
    },
    "no_boost": {"text": "umbrella $300K", "ambiguous_amount_boost": 0.0},
    "stop_words_left": {"text": "the of $300K"},
    "empty_text": {"text": ""},
    "only_amount": {"text": "$300K"},
    "words_only": {"text": "what is the flood policy deductible"},
    "acl": {"text": "flood", "acl": ["b", "a", "b"], "tenant": "acme"},
    "acl_empty": {"text": "flood", "acl": []},
    "unrestricted": {"text": "flood $300K", "unrestricted": True},
    "as_of": {"text": "flood", "as_of": dt.date(2024, 3, 1)},
    "category": {"text": "flood", "category": ["umbrella", "home"]},
    "identifiers": {"text": "policy", "identifiers": ["umb-1", "UMB-1", "x"]},
    "identifier_in_text": {"text": "policy UMB-300000 limits"},
    "dates": {"text": "flood", "dates_from": dt.date(2020, 1, 1), "dates_to": dt.date(2021, 6, 30)},
    "dates_from": {"text": "flood", "dates_from": dt.date(2020, 1, 1)},
    "every_filter": {
        "text": "flood over $500,000",
        "tenant": "acme",
        "acl": ["agents"],
        "as_of": dt.date(2024, 3, 1),
        "category": ["home"],
        "identifiers": ["umb-1"],
        "dates_to": dt.date(2021, 6, 30),
    },
    "operator_and": {"text": "flood policy limits", "operator": "and"},
    "minimum_should_match": {"text": "flood policy limits", "minimum_should_match": "2<75%"},
    "boosts": {"text": "flood policy", "breadcrumb_boost": 2.0, "title_boost": 1.5},
    "no_highlight": {"text": "flood policy", "highlight": False},
    "collapse": {"text": "flood policy $300K", "collapse": True},
    "source_fields": {"text": "flood", "source_fields": ["body", "title"]},
    "source_fields_empty": {"text": "flood", "source_fields": []},
    "page": {"text": "flood", RESULTS: 7, "offset": 14},
    "zero_results": {"text": "flood", RESULTS: 0},
    "vector": {"text": "flood $300K", "mode": "vector"},
    "vector_collapse": {"text": "flood $300K", "mode": "vector", "collapse": True},
    "vector_page": {"text": "flood", "mode": "vector", RESULTS: 5, "offset": 5},
    "hybrid": {"text": "umbrella coverage $300K", "mode": "hybrid", "tenant": "acme"},
    "hybrid_range": {"text": "flood between $1M and $2M", "mode": "hybrid"},
    "hybrid_collapse": {"text": "flood $300K", "mode": "hybrid", "collapse": True},
    "hybrid_normalization": {
        "text": "flood $300K",
        "mode": "hybrid",
        "fusion": "normalization",
        "weights": (0.3, 0.7),
    },
    "hybrid_normalization_default": {"text": "flood", "mode": "hybrid", "fusion": "normalization"},
    "hybrid_rank_constant": {"text": "flood", "mode": "hybrid", "rank_constant": 20},
    "hybrid_every_filter": {
        "text": "flood over $500,000",
        "mode": "hybrid",
        "tenant": "acme",
        "acl": ["agents"],
        "as_of": dt.date(2024, 3, 1),
        "source_fields": ["body"],
    },
    "auto": {"text": "umbrella $300K", "mode": "auto"},
}

WORDS = ["umbrella", "coverage", "limits", "the", "of", "what", "flood", "policy", "UMB-300000",
         "$300K", "$300,000", "€300,000", "over $500,000", "between $1M and $2M", "under $50",
         "about $500K", "$300K or $3M", "?", "2024", "at least $10", "¥5,000"]  # fmt: skip
CHOICES: dict[str, list[Any]] = {
    RESULTS: [0, 1, 10, 30],
    "offset": [0, 3],
    "amount_filter": [True, True, False],
    "keep_amount_text": [False, True],
    "ambiguous_amount_boost": [0.0, 2.0],
    "tenant": [None, "acme"],
    "acl": [None, [], ["agents"], ["b", "a"]],
    "unrestricted": [False, False, True],
    "as_of": [None, dt.date(2023, 5, 17)],
    "category": [None, ["home"]],
    "identifiers": [None, ["umb-1", "x"]],
    "dates_from": [None, dt.date(2019, 1, 1)],
    "dates_to": [None, dt.date(2022, 12, 31)],
    "operator": ["or", "and"],
    "breadcrumb_boost": [None, 2.0],
    "title_boost": [None, 1.5],
    "highlight": [True, False],
    "collapse": [False, True],
    "mode": ["auto", "bm25", "vector", "hybrid"],
    "fusion": ["rrf", "normalization"],
    "source_fields": [None, [], ["body", "title"]],
}
GENERATED = 100


def _generated() -> dict[str, dict[str, Any]]:
    rng = random.Random(35)
    out: dict[str, dict[str, Any]] = {}
    for n in range(GENERATED):
        spec: dict[str, Any] = {"text": " ".join(rng.choices(WORDS, k=rng.randint(0, 5)))}
        for name, values in CHOICES.items():
            spec[name] = rng.choice(values)
        out[f"generated_{n:03d}"] = spec
    return out


CASES = {**NAMED, **_generated()}


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _error(exc: Exception) -> dict[str, str]:
    return {"error": type(exc).__name__, "message": str(exc)}


def _lines(
    engine: Any,
    spec: QuerySpec,
    drop: bool,
    *,
    pipeline: bool,
    step: Any = None,
    planner: Callable[[QuerySpec], Any] = plan_query,
) -> Any:
    try:
        plan = planner(spec)
        vector = VECTOR if spec.mode in ("vector", "hybrid") else None
        typed = search_plan(plan, drop_amount=drop, vector=vector, step=step)
        chosen = None
        if pipeline and typed.mode == "hybrid" and typed.fusion.in_engine:
            fusion = typed.fusion
            if isinstance(engine, ElasticsearchIndex):
                chosen = (
                    f"{RRF_PIPELINE}-{fusion.rank_constant}" if fusion.method == "rrf" else None
                )
            else:
                chosen = pipeline_definition(
                    fusion.method, rank_constant=fusion.rank_constant, weights=fusion.weights
                )[0]
        return engine.msearch_lines(search_bodies(typed, chosen))
    except OsragError as exc:
        return _error(exc)


def _built(spec: QuerySpec, drop: bool, step: Any = None) -> Any:
    try:
        return build_query(spec, drop_amount=drop, step=step)
    except OsragError as exc:
        return _error(exc)


def _bound(spec: QuerySpec) -> bool:
    try:
        return plan_query(spec).amount_steps[:1] == ("bound",)
    except OsragError:
        return False


def case_bodies(fields: dict[str, Any]) -> dict[str, Any]:
    """Every request of one case (see the module docstring), as JSON values."""
    try:
        spec = QuerySpec(**fields)
    except (OsragError, ValueError) as exc:
        return _json(_error(exc))
    opensearch, elasticsearch = OpenSearchIndex(None), ElasticsearchIndex(None)
    out: dict[str, Any] = {}
    for drop in (False, True):
        suffix = "_dropped" if drop else ""
        out["build" + suffix] = _built(spec, drop)
        out["opensearch" + suffix] = _lines(opensearch, spec, drop, pipeline=True)
        out["opensearch_client_fusion" + suffix] = _lines(opensearch, spec, drop, pipeline=False)
        out["elasticsearch" + suffix] = _lines(elasticsearch, spec, drop, pipeline=True)
    if _bound(spec):
        out["build_role_free"] = _built(spec, False, "role-free")
        out["opensearch_role_free"] = _lines(
            opensearch, spec, False, pipeline=True, step="role-free"
        )
    return _json(out)


def searcher_lines(fields: dict[str, Any], planner: Callable[[QuerySpec], Any]) -> dict[str, Any]:
    """The OpenSearch lines of one case (as the ranked, dropped and role-free steps send
    them) from the plan ``planner`` makes of its spec — a Searcher's, say — beside the
    golden's own entries of the same names."""
    try:
        spec = QuerySpec(**fields)
    except (OsragError, ValueError) as exc:
        return _json({"opensearch": _error(exc)})
    engine = OpenSearchIndex(None)
    out = {
        "opensearch": _lines(engine, spec, False, pipeline=True, planner=planner),
        "opensearch_dropped": _lines(engine, spec, True, pipeline=True, planner=planner),
    }
    if _bound(spec):
        out["opensearch_role_free"] = _lines(
            engine, spec, False, pipeline=True, step="role-free", planner=planner
        )
    return _json(out)


def extras() -> dict[str, Any]:
    """The requests beside a spec: osrag's clauses in a caller's ``bool``, the tenant
    probe, the filter of a count, the fusion pipelines."""
    theirs = {"bool": {"must": [{"match": {"title": "x"}}], "filter": {"term": {"lang": "en"}}}}
    pipelines = [
        pipeline_definition("rrf"),
        pipeline_definition("rrf", rank_constant=20),
        pipeline_definition("normalization"),
        pipeline_definition("normalization", weights=(0.3, 0.7)),
    ]
    return _json(
        {
            "add_osrag_clauses": add_osrag_clauses(theirs, "umbrella $300K", tenant="acme"),
            "add_osrag_clauses_plain": add_osrag_clauses({}, "flood over $500,000"),
            "to_search": to_search("umbrella $300K", index="osrag-chunks", tenant="acme").to_dict(),
            "tenant_probe": OpenSearchIndex(None).msearch_lines(search_bodies(TENANT_PROBE)),
            "count_filters": [compile_filter(f) for f in TENANT_PROBE.all_filters()],
            "pipelines": pipelines,
        }
    )


def everything() -> dict[str, Any]:
    return {"cases": {name: case_bodies(fields) for name, fields in CASES.items()}, **extras()}


def dumps(golden: dict[str, Any]) -> str:
    """The golden as JSON, one case a line (a change shows as the lines of its cases)."""
    rows = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in golden["cases"].items()]
    extra = {k: v for k, v in golden.items() if k != "cases"}
    head = json.dumps(extra, sort_keys=True)[1:-1]
    return "{" + head + ',\n"cases": {\n' + ",\n".join(rows) + "\n}}\n"


def main() -> None:
    golden = everything()
    FIXTURE.write_text(dumps(golden), encoding="utf-8")
    print(f"{FIXTURE}: {len(golden['cases'])} cases")


if __name__ == "__main__":
    main()
