"""Run a :class:`~osrag.models.QuerySpec` on a backend and say why it returned what it did.

* One round trip normally (a typed plan, ``ChunkIndex.search``): the ranked hits and
  the size of the filtered **candidate set** (the filters alone), logged at INFO.
* **The amount ladder** (:mod:`osrag.search.ladder`): if the amount constraints bound to
  a named quantity leave zero candidates (no fact with that label meets them) the query
  runs again with the name's first word read as the kind of document (narrowed), then on
  the labels holding most of the name's words (worded), then —
  a quantity asked at a period unit — on any fact stating that unit (per-unit), then
  with every constraint on any amount (role-free); if those leave none (an
  amount nobody wrote, a typo, two amounts no single chunk holds) again without any of
  them — each becomes a boost instead — and the result says ``fallback: true``.
  ``amount_step`` names the step that answered, ``amount_steps`` every step tried with
  its candidates; ``amount_candidates`` is the first step's, ``candidate_count`` the
  answering step's. Tenant, ACL and date filters are never dropped.
* **Text fallback**: if chunks meet the constraints but none of them matches the
  words (a term no such chunk uses, "amount of $8.5 million"), the query runs again
  with the constraints alone — the user's hard condition — ranked by them alone
  (constant score, the tie-break order), and the result says ``text_fallback: true``.
* **Fail closed**: the tenant and ACL guards come from the caller's arguments
  on every request (:func:`osrag.search.query.access_guards`), never from what the
  index is believed to hold: without a tenant only untenanted documents match,
  without groups only documents without an ACL. An alias known to be
  multi-tenant (its access policy, read fresh on every request without a
  tenant) refuses a search without a tenant.
* **Three modes, one set of filters**: ``bm25`` (words), ``vector`` (the query's
  embedding against the chunks' vectors) and ``hybrid`` (both legs fused). The
  filter list — amount, tenant, ACL, dates — is inside every leg
  (:func:`osrag.search.query.search_plan`); each step of the amount ladder relaxes the
  amount filters of every leg together. Fusion runs on the engine where it can (OpenSearch's
  ``hybrid`` query with osrag's search pipeline), else in the client
  (:mod:`osrag.search.fusion`), with the same order.
* **Overlapping chunks are one piece of evidence**: ``raw_hits`` counts hits,
  ``unique_spans`` counts the merged source intervals per document, and each
  hit lists the higher-ranked hits of its document it overlaps.
* **Passages**: with a context (``QuerySpec.context``) one more request reads the chunks
  around the hits — a typed filter under the search's own guards, sent to the generation
  that answered — and :mod:`osrag.search.passages` makes them passages within a token
  budget (``SearchResult.passages``, ``SearchResult.context``).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple

from osrag.config import DEFAULT_ALIAS
from osrag.engines.base import ChunkIndex, SearchType
from osrag.engines.rest import compiler
from osrag.errors import EmbeddingError, QueryError
from osrag.ingestion.layout import Layout
from osrag.ingestion.manifest import Manifest
from osrag.models import (
    AccessPolicy,
    AmountStep,
    ExtractionConfig,
    GenerationRecord,
    QuerySpec,
    SearchResult,
)
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import Exists, NamedFilter
from osrag.schema.plan import EngineHit, EngineResult, SearchPlan, Source, TextLeg
from osrag.search import fusion
from osrag.search.beside import with_words_beside
from osrag.search.ladder import Ladder
from osrag.search.meaning import DEFAULT_THRESHOLD, LabelMeaning
from osrag.search.passages.expand import Expansion
from osrag.search.query import SUBJECT_FIELDS, AnalyzedQuery, plan_query, search_plan
from osrag.search.results import EmbedderLoad, Ran, answering_index, shape_result, took_ms
from osrag.search.subject import subject_cut

log = logging.getLogger("osrag.search.searcher")

TENANT_PROBE = SearchPlan(
    mode="bm25",
    text=TextLeg(""),
    vector=None,
    guards=(),  # the probe asks about the whole alias: it returns no document
    filters=(NamedFilter("tenant_probe", Exists("tenant")),),
    size=0,
    depth=0,
    source=Source(includes=("chunk_id",)),
    count_candidates=False,
    stop_after=1,
)
"""Does the alias hold any tenant's documents (one is enough)?"""

GENERATION_CACHE_SECONDS = 30.0
"""How long the generation's extraction settings are reused (never access decisions)."""

QUERY_VECTOR_CACHE_SIZE = 256
"""Query vectors one Searcher keeps, keyed by (embedder id, text); least recently used
dropped first."""


def as_index(client_or_index: Any) -> ChunkIndex:
    """A :class:`ChunkIndex` as it is, or an OpenSearch or Elasticsearch client wrapped in one."""
    if isinstance(client_or_index, ChunkIndex):
        return client_or_index
    if type(client_or_index).__module__.split(".")[0] == "elasticsearch":
        from osrag.engines.elasticsearch.index import ElasticsearchIndex

        return ElasticsearchIndex(client_or_index)
    from osrag.engines.opensearch.index import OpenSearchIndex

    return OpenSearchIndex(client_or_index)


DEFAULT_EXTRACTION = ExtractionConfig()


class Searcher:
    """Search one alias: ``Searcher(client, "osrag-chunks").search("$300K umbrella")``.

    ``client_or_index`` is an opensearch-py or elasticsearch-py client, or any
    :class:`~osrag.engines.base.ChunkIndex` (:func:`osrag.engines.open_index`).
    """

    def __init__(
        self,
        client_or_index: Any,
        alias: str = DEFAULT_ALIAS,
        *,
        extraction: ExtractionConfig | None = None,
        enforce_access: bool = True,
        embedder: Any = None,
        search_type: SearchType | None = None,
        label_meaning_threshold: float | None = DEFAULT_THRESHOLD,
    ) -> None:
        self.index = as_index(client_or_index)
        self._embedder = embedder
        """The query embedder (an :class:`~osrag.embedding.Embedder` or a spec string);
        None: the one the generation was built with."""
        self.alias = alias
        self.search_type = search_type
        """How a sharded generation scores (None: the engine's default, see
        :meth:`~osrag.engines.base.ChunkIndex.search`)."""
        self.extraction = extraction
        self.enforce_access = enforce_access
        """False is the operator's view (evaluation): no tenant or ACL guard at all."""
        self.manifest = Manifest(self.index.records(alias), alias)
        self._generation: GenerationRecord | None = None
        self._generation_read = -1e9
        self._multi_tenant = False
        self._vectors: OrderedDict[tuple[str, str], tuple[float, ...]] = OrderedDict()
        """Query vectors by (embedder id, text), at most :data:`QUERY_VECTOR_CACHE_SIZE`."""
        self._vectors_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._embedder_loaded = False
        self._unreported_load: EmbedderLoad | None = None
        """The model load no result has reported yet (see :meth:`take_embedder_load`)."""
        self._extraction_of: tuple[GenerationRecord, ExtractionConfig] | None = None
        self.meaning = LabelMeaning(
            self.index,
            alias,
            label_meaning_threshold,
            generation_embedder=self.loaded_embedder,
            embed=self.embedded_query,
            load=self.load_label_embedder,
        )
        """Named quantities matched to the alias's labels by meaning
        (:mod:`osrag.search.meaning`; ``label_meaning_threshold`` None: by keys alone)."""

    def generation_stale(self) -> bool:
        """Whether the next :meth:`generation` reads the record again (not cached)."""
        return time.monotonic() - self._generation_read > GENERATION_CACHE_SECONDS

    def generation(self) -> GenerationRecord | None:
        """The alias's current generation record (cached for a few seconds)."""
        now = time.monotonic()
        if now - self._generation_read > GENERATION_CACHE_SECONDS:
            target = self.index.alias_target(self.alias)
            self._generation = self.manifest.generation(target) if target else None
            self._generation_read = now
        return self._generation

    def default_mode(self) -> str:
        """What ``mode="auto"`` means on this alias: hybrid where it holds vectors."""
        generation = self.generation()
        has_vectors = generation is not None and bool(generation.config.get("embedder"))
        return "hybrid" if has_vectors else "bm25"

    def policy(self) -> AccessPolicy:
        """The alias's access policy as its manifest records it (read fresh)."""
        return self.manifest.policy()

    def _tenant_required(self) -> QueryError:
        # The query's guards already keep every tenant's documents from a caller without a
        # tenant; on an alias that holds them the request is refused outright, so the
        # mistake is seen rather than answered with the untenanted documents alone.
        return QueryError(f"alias {self.alias!r} holds documents of several tenants: pass a tenant")

    def _extraction(self, generation: GenerationRecord | None) -> ExtractionConfig:
        if self.extraction is not None:
            return self.extraction
        if generation is not None and "extraction" in generation.config:
            known = self._extraction_of
            if known is None or known[0] is not generation:
                # read once per generation record (it is replaced, never changed)
                read = ExtractionConfig.model_validate(generation.config["extraction"])
                known = (generation, read)
                self._extraction_of = known
            return known[1]
        return DEFAULT_EXTRACTION

    def plan(self, text_or_spec: str | QuerySpec, **overrides: Any) -> AnalyzedQuery:
        """The analysed query, its named quantities matched to the alias's labels
        (:meth:`with_labels`)."""
        return self.with_labels(self.plan_by_keys(text_or_spec, **overrides))

    def with_labels(self, plan: AnalyzedQuery) -> AnalyzedQuery:
        """``plan`` whose named quantities are matched to the labels of the alias's
        generation — by key, synonym and meaning (:mod:`osrag.search.meaning`)."""
        if not self.meaning.needed(plan):
            return plan
        generation = self.generation()  # the alias's, read every GENERATION_CACHE_SECONDS
        if generation is None:
            return self.meaning.apply(plan, None, {})
        return self.meaning.apply(plan, generation.name, generation.config)

    def plan_by_keys(self, text_or_spec: str | QuerySpec, **overrides: Any) -> AnalyzedQuery:
        """The analysed query, its named quantities asked for by their keys alone."""
        if not isinstance(text_or_spec, QuerySpec):
            spec = QuerySpec(text=text_or_spec, **overrides)  # overrides validated as fields
        elif overrides:
            fields = text_or_spec.model_dump(exclude={"k"} if "size" in overrides else None)
            spec = QuerySpec.model_validate({**fields, **overrides})
        else:
            spec = text_or_spec
        if spec.mode == "auto":
            spec = spec.model_copy(update={"mode": self.default_mode()})
        if not self.enforce_access:
            spec = spec.model_copy(update={"unrestricted": True})
        elif spec.tenant is None and self._multi_tenant:
            raise self._tenant_required()
        return plan_query(spec, extraction=self._extraction(self.generation()))

    def embedder(self) -> Any:
        """The embedder for query vectors: the caller's, checked against the generation's
        model and dimension, or the generation's own."""
        generation = self.generation()
        declared = generation.config.get("embedder") if generation is not None else None
        if not declared:
            raise QueryError(
                f"alias {self.alias!r} holds no vectors: ingest with --embedder to search by "
                "vector or hybrid"
            )
        if self._embedder is None and not declared.get("spec"):
            raise QueryError(
                f"alias {self.alias!r} was embedded by {declared['id']}, given as an object: "
                "pass the same embedder to the Searcher (embedder=…)"
            )
        if self._embedder is None or isinstance(self._embedder, str):
            from osrag.embedding import get_embedder

            self._embedder = get_embedder(self._embedder or declared["spec"])
        from osrag.embedding import ensure_dimension

        ensure_dimension(self._embedder, int(declared["dimension"]), what=f"alias {self.alias}")
        if self._embedder.id != declared["id"]:
            raise EmbeddingError(
                f"the query embedder {self._embedder.id} is not the model alias {self.alias!r} "
                f"was built with ({declared['id']}): its vectors would not be comparable"
            )
        return self._embedder

    def loaded_embedder(self) -> Any:
        """:meth:`embedder`, its model loaded: the first call makes the embedder and loads
        it (a local model's tokenizer and ONNX session) and keeps what that took for the
        next result (:meth:`take_embedder_load`), so a search's ``took_ms`` is the search."""
        if self._embedder_loaded:
            return self.embedder()  # checked against the generation on every query
        with self._load_lock:
            if self._embedder_loaded:
                return self.embedder()
            started = time.perf_counter()
            embedder = self.embedder()
            self._unreported_load = _timed_load(embedder, started)
            self._embedder_loaded = True
            return embedder

    def load_label_embedder(self, embedder: Any) -> None:
        """Load the embedder of the alias's label vocabulary where it is not the query
        embedder (a generation without vectors: the offline default), and keep what that
        took for the next result, as :meth:`loaded_embedder` does."""
        with self._load_lock:
            load = _timed_load(embedder, time.perf_counter())
            known = self._unreported_load
            if known is not None:  # both loaded before one result reported them
                load = EmbedderLoad(known.started, known.ms + load.ms, known.note or load.note)
            self._unreported_load = load

    def take_embedder_load(self) -> EmbedderLoad | None:
        """The model load no result has reported yet, once (None: nothing new)."""
        with self._load_lock:
            found, self._unreported_load = self._unreported_load, None
        return found

    def query_vector(self, plan: AnalyzedQuery) -> list[float] | None:
        if plan.spec.mode in ("bm25", "auto"):
            return None
        text = plan.match_text or plan.spec.text
        return list(self.embedded_query(self.loaded_embedder(), text))

    def embedded_query(self, embedder: Any, text: str) -> tuple[float, ...]:
        """``text`` embedded as a query by ``embedder``, through this searcher's query
        vector cache (the query's text, and a named quantity matched by meaning)."""
        key = (str(embedder.id), text)
        with self._vectors_lock:
            found = self._vectors.get(key)
            if found is not None:
                self._vectors.move_to_end(key)
        if found is None:
            found = tuple(float(x) for x in embedder.embed_queries([text])[0])
            with self._vectors_lock:
                self._vectors[key] = found
                while len(self._vectors) > QUERY_VECTOR_CACHE_SIZE:
                    self._vectors.popitem(last=False)
        return found  # a tuple: the cached vector cannot change

    def plans(
        self,
        plan: AnalyzedQuery,
        vector: list[float] | None = None,
        *,
        drop_amount: bool = False,
        step: AmountStep | None = None,
    ) -> SearchPlan:
        """The typed plan this searcher sends for ``plan`` at ``step`` of the amount ladder
        (the fallback's with ``drop_amount``, step ``none``)."""
        if vector is None:
            vector = self.query_vector(plan)
        in_engine = not self._scored_apart()
        return search_plan(
            plan, drop_amount=drop_amount, vector=vector, in_engine=in_engine, step=step
        )

    def bodies(
        self,
        plan: AnalyzedQuery,
        vector: list[float] | None = None,
        *,
        drop_amount: bool = False,
        step: AmountStep | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The plan as OpenSearch DSL (``--explain`` prints it), and the search pipeline
        that fuses it on the engine, if any."""
        typed = self.plans(plan, vector, drop_amount=drop_amount, step=step)
        on_engine = typed.mode == "hybrid" and typed.fusion.in_engine
        pipeline = self.index.fusion_pipeline(typed.fusion) if on_engine else None
        return compiler.search_bodies(typed, pipeline), pipeline

    def _scored_apart(self) -> bool:
        """Whether the legs must be fused here to keep one set of term statistics: the
        generation has several shards and searches use ``dfs_query_then_fetch``, which
        the engine's ``hybrid`` query does not run under (see
        :meth:`~osrag.engines.rest.index.RestIndex.takes_search_type`). Fused here, each leg is
        scored as one shard would score it; the fused order is the same as the engine's."""
        generation = self.generation()
        shards = Layout.of_config(generation.config).shards if generation is not None else 1
        if shards <= 1:
            return False
        chosen = self.search_type or self.index.capabilities().search_type
        return chosen == "dfs_query_then_fetch"

    def requests(
        self,
        plan: AnalyzedQuery,
        vector: list[float] | None,
        *,
        drop_amount: bool = False,
        step: AmountStep | None = None,
    ) -> Round:
        """The typed plans of one round trip (the tenant probe last, when asked)."""
        typed = self.plans(plan, vector, drop_amount=drop_amount, step=step)
        # a caller without a tenant: does the alias hold any tenant's documents? Asked of
        # the index itself, in the same round trip, on every request (never remembered
        # as "no": only as "yes", which cannot become untrue for a refusal to matter)
        spec = plan.spec
        probe = self.enforce_access and spec.tenant is None and not spec.unrestricted
        return Round([typed, TENANT_PROBE] if probe else [typed], probe)

    def answered(self, plan: AnalyzedQuery, sent: Round, answers: list[EngineResult]) -> Ran:
        """Hits (fused where the client fuses), total hits, candidates, how it fused."""
        spec = plan.spec
        if sent.probe and answers.pop().total > 0:
            self._multi_tenant = True
            raise self._tenant_required()
        (result,) = answers
        floor, words_floor = _floor(sent.plans[0]), _words_floor(sent.plans[0])
        subject, slack = sent.plans[0].subject, sent.plans[0].subject_slack
        beside = sent.plans[0].words_beside
        if not result.legs:
            leg_floor = floor if spec.mode == "vector" else words_floor
            if not (spec.collapse and spec.mode == "vector") and leg_floor is None:
                if not subject:
                    return Ran(list(result.hits), result.total, result.candidates, result.fused)
                said, any_said = _said(result.hits, subject, slack, plan.constraints, beside)
                page = said[spec.offset : spec.offset + spec.k]
                unsaid = not any_said
                return Ran(page, result.total, result.candidates, result.fused, subject, unsaid)
            ranked, fused = fusion.above_floor(result.hits, leg_floor), None
        else:
            legs = [list(leg) for leg in result.legs]
            if words_floor is not None:  # the lexical leg comes first
                legs[0] = fusion.above_floor(legs[0], words_floor)
            if floor is not None:  # the vector leg comes last; then legs of equal depth
                legs[-1] = fusion.above_floor(legs[-1], floor)
                legs = fusion.at_equal_depth(legs)
            if spec.fusion == "rrf":
                ranked = fusion.reciprocal_rank_fusion(legs, spec.rank_constant)
            else:
                ranked = fusion.normalized_fusion(legs, spec.weights)
            fused = f"client:{spec.fusion}"
        if spec.collapse:
            ranked = fusion.best_per_document(ranked)
        ranked, any_said = _said(ranked, subject, slack, plan.constraints, beside)
        page = ranked[spec.offset : spec.offset + spec.k]
        return Ran(page, len(ranked), result.candidates, fused, subject, not any_said)

    def _run(
        self,
        plan: AnalyzedQuery,
        vector: list[float] | None,
        *,
        drop_amount: bool = False,
        step: AmountStep | None = None,
    ) -> Ran:
        sent = self.requests(plan, vector, drop_amount=drop_amount, step=step)
        answers = self.index.search(self.alias, sent.plans, search_type=self.search_type)
        return self.answered(plan, sent, answers)

    def search(self, text_or_spec: str | QuerySpec, **overrides: Any) -> SearchResult:
        """Plan, run, step down the amount ladder while the filters leave no candidate
        (:mod:`osrag.search.ladder`), shape."""
        started = time.perf_counter()
        plan = self.plan(text_or_spec, **overrides)
        vector = self.query_vector(plan)
        ladder: Ladder[Ran] = Ladder(plan)
        ran = self._run(plan, vector, step=ladder.step)
        while (step := ladder.after(ran)) is not None:
            ran = self._run(plan, vector, step=step)
        ran = ladder.settled(ran)
        text_fallback = needs_text_fallback(plan, ran, ladder.fallback)
        if text_fallback:
            ran = self._run(without_words(plan), vector, step=ladder.step)
        answered = answering_index(ran) or self.index.alias_target(self.alias) or self.alias
        load = self.take_embedder_load()
        result = shape_result(
            plan, ran, ladder, answered, started, text_fallback=text_fallback, load=load
        )
        if plan.spec.context is not None:
            expansion = self.expansion(plan, vector, ran, step=ladder.step)
            sent = [expansion.plan] if expansion.plan is not None else []
            answers = self.index.search(answered, sent) if sent else [None]
            with_passages(result, expansion, answers[0], started, load)
        return result

    def expansion(
        self,
        plan: AnalyzedQuery,
        vector: list[float] | None,
        ran: Ran,
        *,
        step: AmountStep | None = None,
    ) -> Expansion:
        """The expansion of a search's hits (``plan.spec.context``): the one extra request,
        under the guards of the search's own plan (at the amount step that answered), to
        the generation that answered."""
        assert plan.spec.context is not None
        generation = self.generation()
        config = generation.config if generation is not None else None
        return Expansion.of(
            ran.hits, self.plans(plan, vector, step=step), plan.spec.context, config
        )


def _said(
    hits: Sequence[EngineHit],
    subject: Sequence[str],
    slack: int,
    constraints: Sequence[AmountConstraint],
    beside: bool,
) -> tuple[list[EngineHit], bool]:
    """The hits saying the most of the ``subject``'s words (or ``slack`` fewer) in their
    title, breadcrumb or body, where one says any
    (:func:`~osrag.search.subject.subject_cut`); of those, with ``beside`` (below the bound
    step), the hits whose amount in range of the ``constraints`` has the most of them beside
    it (:func:`~osrag.search.beside.with_words_beside`). And whether any of ``hits`` says a
    word of the subject."""
    kept, any_said = subject_cut(hits, subject, _hit_text, slack)
    if not beside:
        return kept, any_said
    beside_kept = with_words_beside(kept, subject, constraints, _hit_body, _hit_headings, slack)
    return beside_kept, any_said


def _hit_body(hit: EngineHit) -> str:
    return str(hit.source.get("body") or "")


def _hit_headings(hit: EngineHit) -> str:
    return f"{hit.source.get('title') or ''}\n{hit.source.get('breadcrumb') or ''}"


def _hit_text(hit: EngineHit) -> str:
    source = hit.source
    return " ".join(str(source.get(name) or "") for name in SUBJECT_FIELDS)


def _floor(plan: SearchPlan) -> float | None:
    """The floor of a plan's vector leg (None: no vector leg, or no floor)."""
    return plan.vector.floor if plan.vector is not None else None


def _words_floor(plan: SearchPlan) -> float | None:
    """The floor of a plan's lexical leg (None: no lexical leg, or no floor)."""
    return plan.text.floor if plan.text is not None else None


def _timed_load(embedder: Any, started: float) -> EmbedderLoad:
    """Load ``embedder``'s model (where it has one to load) and say what it took."""
    load = getattr(embedder, "load", None)
    fresh = not getattr(embedder, "loaded", True)  # a caller's embedder may be loaded
    report = load() if callable(load) else None
    return EmbedderLoad(
        started,
        (time.perf_counter() - started) * 1000,
        getattr(report, "note", None) if fresh else None,
    )


class Round(NamedTuple):
    """One round trip to send: its typed plans, and whether the last is the tenant probe."""

    plans: list[SearchPlan]
    probe: bool


def with_passages(
    result: SearchResult,
    expansion: Expansion,
    answer: EngineResult | None,
    started: float,
    load: EmbedderLoad | None = None,
) -> None:
    """Put the expansion's passages and report on ``result``; ``took_ms`` covers both (and,
    as ever, not the embedder's model ``load``)."""
    result.passages, result.context = expansion.passages(answer)
    result.took_ms = round(took_ms(started, load), 3)


def needs_text_fallback(plan: AnalyzedQuery, ran: Ran, fallback: bool) -> bool:
    """Chunks meet the amount constraints, but the words matched none of them (on the
    first page): run again ranked by the constraints alone."""
    return (
        plan.has_amount_filter
        and not fallback
        and bool(plan.match_text)
        and plan.spec.offset == 0
        and ran.total == 0
        and ran.candidates > 0
    )


def without_words(plan: AnalyzedQuery) -> AnalyzedQuery:
    """``plan`` with no words to match: its filters alone select and rank (match_all)."""
    return dataclasses.replace(plan, match_text="")
