"""osrag's subset of the OpenSearch query DSL, compiled to tantivy queries.

Rule: exactly the clause shapes :mod:`osrag.search.query` builds, with OpenSearch's
matching *and* scoring —

* ``match`` on a text field: the query text through the field's analyzer; one
  term → a term query; several → ``or`` (any term; ``minimum_should_match``
  as OpenSearch computes it: ``3``, ``-1``, ``75%``, ``-25%``, ``3<90%``,
  ``2<-25% 9<-3``) or ``and`` (every term); no term left → matches nothing.
  BM25 (k1 1.2, b 0.75) from tantivy, whose scores equal OpenSearch's.
* ``term`` / ``terms`` on keyword, numeric and date fields (``terms`` and a
  numeric ``term`` score a constant 1 × boost; a keyword ``term`` scores
  OpenSearch's BM25 for a field without norms — length 1 against the field's
  average number of terms — times the boost);
* ``range`` (``gt``/``gte``/``lt``/``lte``) on numeric and date fields;
  ``exists``; ``match_all`` (score 1); ``match_none``;
* ``bool`` with ``must``, ``should``, ``filter`` (no score), ``must_not`` and
  ``minimum_should_match`` — without ``must``/``filter``, at least one
  ``should`` must match (OpenSearch's default); a bool of only ``must_not``
  matches everything else.

Anything else — another clause, an unknown parameter, a field the mapping
does not declare or of the wrong kind — raises :class:`~osrag.errors.QueryError`
naming it, never a silently different result.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from typing import Any

import tantivy
from tantivy import FieldType, Occur, Query

from osrag.engines.analyzers import Analyzer
from osrag.engines.embedded_plan import all_scoring, minimum_should_match
from osrag.engines.embedded_schema import ChunkSchema, day_number
from osrag.errors import QueryError

K1 = 1.2
B = 0.75


MAX_CLAUSE_COUNT = 1024
"""OpenSearch's ``indices.query.bool.max_clause_count``: a longer match is refused, not run."""


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _day(value: Any, where: str) -> int:
    """A day bound → its day number (dates are stored as days since 1970-01-01)."""
    if isinstance(value, dt.datetime):
        return day_number(value.date())
    if isinstance(value, dt.date):
        return day_number(value)
    if isinstance(value, str) and len(value) == 10:
        try:
            return day_number(dt.date.fromisoformat(value))
        except ValueError:
            pass
    raise QueryError(f"{where}: {value!r} is not a day (YYYY-MM-DD)")


class Compiler:
    """Compile clauses against one generation's searcher (keyword idf needs its statistics)."""

    def __init__(
        self,
        schema: ChunkSchema,
        tantivy_schema: tantivy.Schema,
        analyzer: Analyzer,
        searcher: tantivy.Searcher,
    ) -> None:
        self.schema = schema
        self.tantivy_schema = tantivy_schema
        self.analyzer = analyzer
        self.searcher = searcher
        self.match_terms: dict[str, list[str]] = defaultdict(list)
        """Field → the analysed terms of every ``match`` on it (for highlighting)."""
        self._keyword_stats_cache: dict[str, tuple[int, int]] = {}

    # -------------------------------------------------------------------- entry point

    def compile(self, clause: Any, *, scoring: bool = True) -> Query:
        """One clause. ``scoring=False`` is filter context (the result's score is unused)."""
        if not isinstance(clause, dict) or len(clause) != 1:
            raise QueryError(f"a query clause is an object with one key, not {clause!r}")
        ((kind, body),) = clause.items()
        handler = getattr(self, f"_{kind}", None)
        if handler is None:
            raise QueryError(
                f"the embedded index does not implement the {kind!r} query (it implements "
                "match, term, terms, range, exists, bool, match_all, match_none)"
            )
        query: Query = handler(body, scoring)
        return query

    def filter(self, clause: Any) -> Query:
        """A clause in filter context: matches the same documents, scores zero."""
        return Query.const_score_query(self.compile(clause, scoring=False), 0.0)

    # -------------------------------------------------------------------- helpers

    def _field(self, name: Any, kinds: tuple[str, ...], query: str) -> str:
        kind = self.schema.kind(name) if isinstance(name, str) else None
        if kind is None:
            raise QueryError(f"{query}: no field {name!r} in osrag's mapping")
        if kind not in kinds:
            raise QueryError(f"{query}: field {name!r} is {kind}, expected {' or '.join(kinds)}")
        return str(name)

    @staticmethod
    def _params(body: Any, query: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise QueryError(f"{query}: expected an object, not {body!r}")
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise QueryError(
                f"{query}: the embedded index does not implement {', '.join(unknown)} "
                f"(it implements {', '.join(sorted(allowed))})"
            )
        return body

    @staticmethod
    def _single(body: Any, query: str) -> tuple[str, Any]:
        if not isinstance(body, dict) or len(body) != 1:
            raise QueryError(f"{query}: expected {{field: ...}} with one field, not {body!r}")
        ((field, value),) = body.items()
        return field, value

    @staticmethod
    def _boosted(query: Query, boost: Any) -> Query:
        if boost is None or float(boost) == 1.0:
            return query
        return Query.boost_query(query, float(boost))

    def _value(self, field: str, value: Any, query: str) -> Any:
        kind = self.schema.kind(field)
        if kind in ("long", "integer"):
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise QueryError(f"{query}: {field} is numeric, {value!r} is not an integer")
            try:
                return int(value)
            except ValueError:
                raise QueryError(
                    f"{query}: {field} is numeric, {value!r} is not an integer"
                ) from None
        if kind == "date":
            return _day(value, f"{query} on {field}")
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        if not isinstance(value, str):
            raise QueryError(f"{query}: {value!r} is not a value for {field}")
        return value

    def _term_query(self, field: str, value: Any) -> Query:
        index_option = "freq" if self.schema.kind(field) == "text" else "basic"
        return Query.term_query(self.tantivy_schema, field, value, index_option=index_option)

    def _keyword_stats(self, field: str) -> tuple[int, int]:
        """(documents with the field, Σ over its terms of their document frequency)."""
        if field not in self._keyword_stats_cache:
            found = self.searcher.search(Query.exists_query(field), limit=1, count=True)
            docs = found.count  # type: ignore[attr-defined]  # at run time; not in the stubs
            buckets = self.searcher.aggregate(
                Query.all_query(), {"t": {"terms": {"field": field, "size": 1_000_000}}}
            )["t"]["buckets"]
            self._keyword_stats_cache[field] = (
                int(docs or 0),
                sum(int(b["doc_count"]) for b in buckets),
            )
        return self._keyword_stats_cache[field]

    def _keyword_score(self, field: str, value: str) -> float:
        """Lucene's (legacy) BM25 of one keyword term: no norms, so the document's length is
        1 against the field's average number of terms per document."""
        docs, terms = self._keyword_stats(field)
        n = self.searcher.doc_freq(field, value)
        total = max(docs, n)
        idf = math.log(1 + (total - n + 0.5) / (n + 0.5))
        average = terms / docs if docs else 1.0
        return (K1 + 1) * idf / (1 + K1 * (1 - B + B / average))

    # -------------------------------------------------------------------- clauses

    def _match_all(self, body: Any, scoring: bool) -> Query:
        params = self._params(body or {}, "match_all", {"boost"})
        return all_scoring(float(params.get("boost", 1.0)))

    def _match_none(self, body: Any, scoring: bool) -> Query:
        self._params(body or {}, "match_none", set())
        return Query.empty_query()

    def _match(self, body: Any, scoring: bool) -> Query:
        field, raw = self._single(body, "match")
        field = self._field(field, ("text",), "match")
        params = raw if isinstance(raw, dict) else {"query": raw}
        params = self._params(
            params,
            "match",
            {"query", "operator", "minimum_should_match", "boost", "zero_terms_query"},
        )
        if "query" not in params:
            raise QueryError(f"match on {field}: no query text")
        operator = str(params.get("operator", "or")).lower()
        if operator not in ("or", "and"):
            raise QueryError(f"match on {field}: operator must be or/and, not {operator!r}")
        terms = self.analyzer.terms(str(params["query"]))
        self.match_terms[field] += terms
        zero_terms = str(params.get("zero_terms_query", "none")).lower()
        if zero_terms not in ("none", "all"):
            raise QueryError(
                f"match on {field}: zero_terms_query must be none/all, not {zero_terms!r}"
            )
        if not terms:
            # every word was a stop word: OpenSearch matches nothing, or (zero_terms_query
            # "all") every document, each scoring the boost, as Lucene's match-all does
            if zero_terms == "all":
                return all_scoring(float(params.get("boost", 1.0)))
            return Query.empty_query()
        if len(terms) > MAX_CLAUSE_COUNT:
            raise QueryError(
                "the query has more terms than the embedded index accepts in one query "
                f"(maxClauseCount is set to {MAX_CLAUSE_COUNT}, as on OpenSearch): shorten it"
            )
        queries = [self._term_query(field, term) for term in terms]
        if len(queries) == 1:
            return self._boosted(queries[0], params.get("boost"))  # a term query: no msm
        # OpenSearch applies minimum_should_match to the optional clauses: the terms under
        # "or", none under "and" (so any positive spec then matches nothing, as there)
        optional = len(queries) if operator == "or" else 0
        spec = params.get("minimum_should_match")
        needed = minimum_should_match(optional, spec) if spec is not None else 0
        if needed > optional:
            return Query.empty_query()
        if operator == "and":
            query = Query.boolean_query([(Occur.Must, q) for q in queries])
        else:
            query = Query.boolean_query(
                [(Occur.Should, q) for q in queries],
                minimum_number_should_match=needed if needed > 1 else None,
            )
        return self._boosted(query, params.get("boost"))

    def _term(self, body: Any, scoring: bool) -> Query:
        field, raw = self._single(body, "term")
        field = self._field(field, ("keyword", "long", "integer", "date", "text"), "term")
        params = raw if isinstance(raw, dict) else {"value": raw}
        params = self._params(params, f"term on {field}", {"value", "boost"})
        if "value" not in params:
            raise QueryError(f"term on {field}: no value")
        value = self._value(field, params["value"], "term")
        query = self._term_query(field, value)
        boost = float(params.get("boost", 1.0))
        kind = self.schema.kind(field)
        if kind == "text":
            return self._boosted(query, boost)
        if not scoring:
            return query
        weight = self._keyword_score(field, value) if kind == "keyword" else 1.0
        return Query.const_score_query(query, weight * boost)

    def _terms(self, body: Any, scoring: bool) -> Query:
        if not isinstance(body, dict):
            raise QueryError(f"terms: expected an object, not {body!r}")
        boost = body.get("boost", 1.0)
        fields = {k: v for k, v in body.items() if k != "boost"}
        field, values = self._single(fields, "terms")
        field = self._field(field, ("keyword", "long", "integer", "date"), "terms")
        if not isinstance(values, list):
            raise QueryError(f"terms on {field}: expected a list of values, not {values!r}")
        if not values:
            return Query.empty_query()
        parsed = [self._value(field, v, "terms") for v in values]
        query = Query.term_set_query(self.tantivy_schema, field, parsed)
        return Query.const_score_query(query, float(boost)) if scoring else query

    def _range(self, body: Any, scoring: bool) -> Query:
        field, raw = self._single(body, "range")
        field = self._field(field, ("long", "integer", "date"), "range")
        params = self._params(raw, f"range on {field}", {"gt", "gte", "lt", "lte", "boost"})
        if ("gt" in params and "gte" in params) or ("lt" in params and "lte" in params):
            raise QueryError(f"range on {field}: give one lower and one upper bound")
        lower_key = "gt" if "gt" in params else "gte"
        upper_key = "lt" if "lt" in params else "lte"
        lower = self._value(field, params[lower_key], "range") if lower_key in params else None
        upper = self._value(field, params[upper_key], "range") if upper_key in params else None
        if lower is None and upper is None:
            query = Query.exists_query(field)
        else:
            query = Query.range_query(
                self.tantivy_schema,
                field,
                FieldType.Integer,
                lower,
                upper,
                include_lower=lower_key == "gte",
                include_upper=upper_key == "lte",
            )
        return Query.const_score_query(query, float(params.get("boost", 1.0))) if scoring else query

    def _exists(self, body: Any, scoring: bool) -> Query:
        params = self._params(body, "exists", {"field", "boost"})
        field = self._field(params.get("field"), ("keyword", "long", "integer", "date"), "exists")
        query = Query.exists_query(field)
        return Query.const_score_query(query, float(params.get("boost", 1.0))) if scoring else query

    def _bool(self, body: Any, scoring: bool) -> Query:
        params = self._params(
            body, "bool", {"must", "should", "filter", "must_not", "minimum_should_match", "boost"}
        )
        must = [self.compile(c, scoring=scoring) for c in _as_list(params.get("must", []))]
        filters = [self.filter(c) for c in _as_list(params.get("filter", []))]
        must_not = [self.compile(c, scoring=False) for c in _as_list(params.get("must_not", []))]
        should = [self.compile(c, scoring=scoring) for c in _as_list(params.get("should", []))]
        spec = params.get("minimum_should_match")
        if spec is not None:
            needed = minimum_should_match(len(should), spec)
        else:
            needed = 1 if should and not must and not filters else 0
        required = must + filters
        if not required and not should:
            if not must_not:
                return all_scoring(float(params.get("boost", 1.0)))
            required = [all_scoring(1.0)]  # Lucene adds match_all to a purely negative bool
        clauses: list[tuple[Occur, Query]] = [(Occur.Must, q) for q in required]
        clauses += [(Occur.MustNot, q) for q in must_not]
        if should and needed > len(should):
            return Query.empty_query()
        if should and needed >= 1 and required:
            # tantivy treats should clauses beside must ones as optional: require them apart
            clauses.append(
                (
                    Occur.Must,
                    Query.boolean_query(
                        [(Occur.Should, q) for q in should],
                        minimum_number_should_match=needed if needed > 1 else None,
                    ),
                )
            )
            query = Query.boolean_query(clauses)
        else:
            clauses += [(Occur.Should, q) for q in should]
            query = Query.boolean_query(
                clauses, minimum_number_should_match=needed if needed > 1 else None
            )
        return self._boosted(query, params.get("boost"))
