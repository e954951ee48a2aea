"""A typed :class:`~osrag.schema.plan.SearchPlan` compiled straight to tantivy queries.

Rule: OpenSearch's matching *and* scoring for every node of a plan —

* the text leg: the query text through the generation's analyzer; one term → a term
  query; several → ``or`` (any term; ``minimum_should_match`` as OpenSearch computes
  it: ``3``, ``-1``, ``75%``, ``-25%``, ``3<90%``, ``2<-25% 9<-3``) or ``and`` (every
  term). BM25 (k1 1.2, b 0.75) from tantivy, whose scores equal OpenSearch's. No term
  left (only stop words): nothing matches, or — ``no_terms="all"`` — every candidate
  with score 1, as an empty text. Breadcrumb and title boosts, and the leg's boost
  constraints, are optional clauses that raise a chunk meeting them;
* filters (amounts, guards, the rest): the constraint trees — ``Term``, ``Terms``,
  ``Range``, ``Exists``, ``NotExists``, ``MatchNone``, ``Match``, ``Not``, ``AnyOf``,
  ``AllOf`` — as tantivy term, term-set, range, exists and boolean queries (``Match``: the
  text through the generation's analyzer, every term or any), required and scoring
  nothing; ``Nested``: its condition compiled the same way against the nested field's
  sub-index, whose matching objects' chunk keys select the chunks
  (:mod:`~osrag.engines.embedded.nested`);
* a scored constraint (a boost): ``Terms``, ``Range`` and a numeric ``Term`` score a
  constant boost; a keyword ``Term`` scores OpenSearch's BM25 for a field without norms
  (length 1 against the field's average number of terms) times the boost.

A field the mapping does not declare, or of the wrong kind, or a value that does not
fit it raises :class:`~osrag.errors.QueryError` naming it.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
from typing import Any

import tantivy
from tantivy import FieldType, Occur, Query

from osrag.engines.embedded.analyzers import Analyzer
from osrag.engines.embedded.nested import NestedSearcher, chunk_keys
from osrag.engines.embedded.schema import KEY_FIELD, ChunkSchema, Kind, NestedSchema, day_number
from osrag.errors import QueryError
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
    Scored,
    Term,
    Terms,
)
from osrag.schema.plan import SearchPlan, TextLeg

K1 = 1.2
B = 0.75
MAX_CLAUSE_COUNT = 1024
"""OpenSearch's ``indices.query.bool.max_clause_count``: a longer text is refused, not run."""
_INTEGER_SPEC = re.compile(r"-?\d+")
_PERCENT_SPEC = re.compile(r"-?\d+%")
_FILTERABLE = ("keyword", "long", "integer", "date")


def _float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def minimum_should_match(optional: int, spec: str | int) -> int:
    """How many of ``optional`` clauses must match under an OpenSearch spec.

    OpenSearch's ``Queries.calculateMinShouldMatch``, including its float arithmetic;
    the result is not capped at ``optional`` — asking for more than there are
    matches nothing, as in OpenSearch.
    """
    text = str(spec).strip()
    if "<" in text:
        result = optional
        for condition in re.sub(r"\s*<\s*", "<", text).split():
            bound, sep, rest = condition.partition("<")
            if not sep or not _INTEGER_SPEC.fullmatch(bound):
                raise QueryError(f"minimum_should_match {spec!r}: expected N<SPEC conditions")
            if optional <= int(bound):
                return result
            result = minimum_should_match(optional, rest)
        return result
    if _PERCENT_SPEC.fullmatch(text):
        calc = _float32(_float32(optional * int(text[:-1])) * _float32(1 / 100))  # Java float
        result = optional + math.trunc(calc) if calc < 0 else math.trunc(calc)
    elif _INTEGER_SPEC.fullmatch(text):
        calc_int = int(text)
        result = optional + calc_int if calc_int < 0 else calc_int
    else:
        raise QueryError(
            f"minimum_should_match {spec!r}: expected an integer, a percentage or N<SPEC"
        )
    return max(result, 0)


def all_scoring(score: float) -> Query:
    """Every document, scoring ``score`` — also inside a boolean query, where tantivy
    drops the score of a bare ``all_query`` intersected with other clauses."""
    return Query.const_score_query(Query.all_query(), score)


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


def _without(query: Query) -> Query:
    """Every document ``query`` does not match."""
    return Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, query)])


class PlanCompiler:
    """Compile plans against one generation's searcher (keyword idf needs its statistics)."""

    def __init__(
        self,
        schema: ChunkSchema | NestedSchema,
        tantivy_schema: tantivy.Schema,
        analyzer: Analyzer,
        searcher: tantivy.Searcher,
        nested: dict[str, NestedSearcher] | None = None,
    ) -> None:
        self.schema = schema
        self.tantivy_schema = tantivy_schema
        self.analyzer = analyzer
        self.searcher = searcher
        self.nested = nested or {}
        """The sub-index of each nested field, at the searcher's point in time."""
        self.text_terms: list[str] = []
        """The analysed terms of every text query compiled (for highlighting)."""
        self._keyword_stats: dict[str, tuple[int, int]] = {}
        self._chunks_of: dict[Nested, Query] = {}
        """Each nested filter's chunks (the legs of a plan share one filter list)."""

    # -------------------------------------------------------------------- the plan

    def candidates(self, plan: SearchPlan) -> Query | None:
        """The filters alone (None: no filter, every chunk is a candidate)."""
        nodes = plan.all_filters()
        if not nodes:
            return None
        queries = [self.filter(node) for node in nodes]
        if len(queries) == 1:
            return queries[0]
        return Query.boolean_query([(Occur.Must, q) for q in queries])

    def lexical(self, plan: SearchPlan) -> Query:
        """The text leg ranked inside the filters (which score nothing)."""
        leg = plan.text or TextLeg("")
        if leg.words_rank and leg.text:  # every candidate, the words raising those that match
            # each scores 1 for being a candidate, as the engines' match_all does
            clauses = [(Occur.Must, all_scoring(1.0)), (Occur.Should, self.text(leg))]
        else:
            clauses = [(Occur.Must, self.text(leg))]
        clauses += [(Occur.Should, q) for q in self.boosts(leg)]
        clauses += [
            (Occur.Must, Query.const_score_query(self.filter(node), 0.0))
            for node in plan.all_filters()
        ]
        if len(clauses) == 1:
            return clauses[0][1]
        return Query.boolean_query(clauses)

    def text(self, leg: TextLeg) -> Query:
        if not leg.text:
            return all_scoring(1.0)
        terms = self.analyzer.terms(leg.text)
        if not terms and leg.no_terms == "all":
            return all_scoring(1.0)
        return self.match("text", terms, leg.operator, leg.minimum_should_match)

    def boosts(self, leg: TextLeg) -> list[Query]:
        """The optional clauses of the text leg: field boosts and boost constraints."""
        out: list[Query] = []
        if leg.text:
            terms = self.analyzer.terms(leg.text)
            for name, boost in (("breadcrumb", leg.breadcrumb_boost), ("title", leg.title_boost)):
                if boost:
                    out.append(Query.boost_query(self.match(name, terms, "or", None), boost))
        out += [self.scored(node) for node in leg.boosts]
        return out

    # -------------------------------------------------------------------- text

    def match(self, field: str, terms: list[str], operator: str, spec: str | None) -> Query:
        """OpenSearch's ``match`` of already analysed ``terms`` on the text ``field``."""
        self._field(field, ("text",), "text query")
        self.text_terms += terms
        if not terms:
            return Query.empty_query()  # every word was a stop word: nothing matches
        if len(terms) > MAX_CLAUSE_COUNT:
            raise QueryError(
                "the query has more terms than the embedded index accepts in one query "
                f"(maxClauseCount is set to {MAX_CLAUSE_COUNT}, as on OpenSearch): shorten it"
            )
        queries = [
            Query.term_query(self.tantivy_schema, field, term, index_option="freq")
            for term in terms
        ]
        if len(queries) == 1:
            return queries[0]  # a term query: no minimum_should_match
        # minimum_should_match counts the optional clauses: the terms under "or", none
        # under "and" (so any positive spec then matches nothing, as on OpenSearch)
        optional = len(queries) if operator == "or" else 0
        needed = minimum_should_match(optional, spec) if spec is not None else 0
        if needed > optional:
            return Query.empty_query()
        if operator == "and":
            return Query.boolean_query([(Occur.Must, q) for q in queries])
        return Query.boolean_query(
            [(Occur.Should, q) for q in queries],
            minimum_number_should_match=needed if needed > 1 else None,
        )

    # -------------------------------------------------------------------- constraints

    def filter(self, node: Filter) -> Query:
        """One constraint tree as a query whose score is not used."""
        if isinstance(node, Term):
            field = self._field(node.field, (*_FILTERABLE, "text"), "term")
            return self._term(field, self._value(field, node.value, "term"))
        if isinstance(node, Terms):
            field = self._field(node.field, _FILTERABLE, "terms")
            if not node.values:
                return Query.empty_query()
            values = [self._value(field, v, "terms") for v in node.values]
            return Query.term_set_query(self.tantivy_schema, field, values)
        if isinstance(node, Range):
            return self._range(node)
        if isinstance(node, Exists):
            return Query.exists_query(self._field(node.field, _FILTERABLE, "exists"))
        if isinstance(node, NotExists):
            return _without(Query.exists_query(self._field(node.field, _FILTERABLE, "exists")))
        if isinstance(node, MatchNone):
            return Query.empty_query()
        if isinstance(node, Match):
            return self._match_filter(node)
        if isinstance(node, Nested):
            return self._nested(node)
        if isinstance(node, Not):
            return _without(self.filter(node.item))
        if isinstance(node, AnyOf):
            if not node.items:
                return Query.empty_query()
            return Query.boolean_query([(Occur.Should, self.filter(i)) for i in node.items])
        if isinstance(node, AllOf):
            if not node.items:
                return Query.all_query()
            return Query.boolean_query([(Occur.Must, self.filter(i)) for i in node.items])
        raise QueryError(f"not a plan filter: {node!r}")

    def _match_filter(self, node: Match) -> Query:
        """Every (or any) analysed term of ``node.text`` in the text field, or all of them
        in order (a phrase: the field must keep positions); none left: nothing."""
        field = self._field(node.field, ("text",), "match")
        terms = self.analyzer.terms(node.text)
        if not terms:
            return Query.empty_query()
        if node.operator == "phrase" and len(terms) > 1:
            spec = self.schema.fields.get(field)
            if spec is None or not spec.positions:
                raise QueryError(
                    f"match_phrase on {field!r}: the embedded index keeps no positions for "
                    "it (only the text fields of nested objects have them)"
                )
            return Query.phrase_query(
                self.tantivy_schema, field, list[str | tuple[int, str]](terms)
            )
        queries = [self._term(field, term) for term in dict.fromkeys(terms)]
        if len(queries) == 1:
            return queries[0]
        occur = Occur.Must if node.operator == "and" else Occur.Should
        return Query.boolean_query([(occur, q) for q in queries])

    def _nested(self, node: Nested) -> Query:
        """The chunks with one object of ``node.path`` meeting ``node.item``."""
        if isinstance(self.schema, NestedSchema):
            raise QueryError(f"nested {node.path!r}: a nested filter inside a nested filter")
        found = self._chunks_of.get(node)
        if found is None:
            sub = self.nested.get(node.path)
            if sub is None:
                raise QueryError(f"nested: no nested field {node.path!r} in osrag's mapping")
            inner = PlanCompiler(sub.schema, sub.tantivy_schema, self.analyzer, sub.searcher)
            keys = chunk_keys(sub.searcher, inner.filter(node.item))
            found = (
                Query.term_set_query(self.tantivy_schema, KEY_FIELD, keys)
                if keys
                else Query.empty_query()
            )
            self._chunks_of[node] = found
        return found

    def scored(self, node: Scored) -> Query:
        """A constraint as a constant-score clause, scored as OpenSearch scores it."""
        boost = 1.0 if node.boost is None else float(node.boost)
        query = self.filter(node)
        if isinstance(node, Term):
            kind = self.schema.kind(node.field)
            if kind == "text":
                return Query.boost_query(query, boost) if boost != 1.0 else query
            if kind == "keyword":
                value = self._value(node.field, node.value, "term")
                weight = self._keyword_score(node.field, value)
                return Query.const_score_query(query, weight * boost)
        return Query.const_score_query(query, boost)

    def _range(self, node: Range) -> Query:
        field = self._field(node.field, ("long", "integer", "date"), "range")
        if node.gt is not None and node.gte is not None:
            raise QueryError(f"range on {field}: give one lower bound, not gt and gte")
        if node.lt is not None and node.lte is not None:
            raise QueryError(f"range on {field}: give one upper bound, not lt and lte")
        low = node.gt if node.gt is not None else node.gte
        high = node.lt if node.lt is not None else node.lte
        return Query.range_query(
            self.tantivy_schema,
            field,
            FieldType.Integer,
            None if low is None else self._value(field, low, "range"),
            None if high is None else self._value(field, high, "range"),
            include_lower=node.gt is None,  # an unbounded side is inclusive to tantivy
            include_upper=node.lt is None,
        )

    # -------------------------------------------------------------------- fields and values

    def _field(self, name: str, kinds: tuple[str, ...], query: str) -> str:
        kind: Kind | None = self.schema.kind(name)
        if kind is None:
            head = name.split(".")[0]
            if isinstance(self.schema, ChunkSchema) and head in self.schema.nested:
                raise QueryError(
                    f"{query}: field {name!r} is inside the nested field {head!r}: only a "
                    "nested filter reaches it"
                )
            raise QueryError(f"{query}: no field {name!r} in osrag's mapping")
        if kind not in kinds:
            raise QueryError(f"{query}: field {name!r} is {kind}, expected {' or '.join(kinds)}")
        return name

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
        return value

    def _term(self, field: str, value: Any) -> Query:
        index_option = "freq" if self.schema.kind(field) == "text" else "basic"
        return Query.term_query(self.tantivy_schema, field, value, index_option=index_option)

    def _keyword_score(self, field: str, value: str) -> float:
        """Lucene's (legacy) BM25 of one keyword term: no norms, so the document's length
        is 1 against the field's average number of terms per document."""
        if field not in self._keyword_stats:
            found = self.searcher.search(Query.exists_query(field), limit=1, count=True)
            docs = found.count  # type: ignore[attr-defined]  # at run time; not in the stubs
            buckets = self.searcher.aggregate(
                Query.all_query(), {"t": {"terms": {"field": field, "size": 1_000_000}}}
            )["t"]["buckets"]
            self._keyword_stats[field] = (
                int(docs or 0),
                sum(int(b["doc_count"]) for b in buckets),
            )
        docs, terms = self._keyword_stats[field]
        n = self.searcher.doc_freq(field, value)
        total = max(docs, n)
        idf = math.log(1 + (total - n + 0.5) / (n + 0.5))
        average = terms / docs if docs else 1.0
        return (K1 + 1) * idf / (1 + K1 * (1 - B + B / average))
