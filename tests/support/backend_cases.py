"""One engine under test, whichever it is: the same checks run on every ChunkIndex.

Checks go through the :class:`~osrag.engines.base.ChunkIndex` interface (a
filter-only typed plan reads chunk ids and sources), so a test says *what* it
expects once. The few facts only one engine can show — how many writes a
generation saw — have one helper with an implementation per engine.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import Elasticsearch
from opensearchpy import OpenSearch

from osrag.engines.base import ChunkIndex, EngineCapabilities
from osrag.engines.elasticsearch.index import ElasticsearchIndex
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.mapping import chunk_index_body
from osrag.engines.opensearch.index import OpenSearchIndex
from osrag.engines.rest.compiler import run_plans
from osrag.engines.rest.index import RestIndex
from osrag.ingestion.generations import purge
from osrag.ingestion.layout import SINGLE_NODE, Layout
from osrag.ingestion.manifest import Manifest
from osrag.schema.filters import Filter, NamedFilter, Term
from osrag.schema.plan import SearchPlan, TextLeg

KINDS = ("opensearch", "elasticsearch", "embedded")
CLUSTERS = ("opensearch", "elasticsearch")
"""The engines that are a real cluster (``url`` is set; the CLI reaches them with --url)."""
BACKEND_PARAMS = [
    pytest.param("opensearch", marks=pytest.mark.opensearch),
    pytest.param("elasticsearch", marks=pytest.mark.elasticsearch),
    "embedded",
]
"""Parametrize a fixture over every engine; OpenSearch and Elasticsearch need their node."""
ENGLISH_ANALYZER_PARAMS = [
    p for p in BACKEND_PARAMS if getattr(p, "values", ()) != ("elasticsearch",)
]
"""The engines whose test node has the ``english`` analyzer (the Elasticsearch integ-test
node falls back to ``standard``: tests/engines/test_elasticsearch_engine.py)."""


def layout_under_test() -> Layout | None:
    """``OSRAG_TEST_SHARDS`` / ``OSRAG_TEST_REPLICAS``: the layout every generation the
    OpenSearch tests build must have (the three-node pass of ``.ci/run``: 3 and 1)."""
    shards, replicas = os.environ.get("OSRAG_TEST_SHARDS"), os.environ.get("OSRAG_TEST_REPLICAS")
    if shards is None and replicas is None:
        return None
    return Layout(int(shards or 1), int(replicas or 0))


LAYOUT_UNDER_TEST = layout_under_test()


def generation_body(kind: str, *, vector_dimension: int | None = None) -> dict[str, Any]:
    """The ``PUT <index>`` body of a generation a test creates itself, laid out as the run
    asks (the embedded index has no layout)."""
    layout = LAYOUT_UNDER_TEST if kind == "opensearch" and LAYOUT_UNDER_TEST else SINGLE_NODE
    return chunk_index_body(
        replicas=layout.replicas, shards=layout.shards, vector_dimension=vector_dimension
    )


def filtered(index: ChunkIndex, target: str, where: Filter | None = None) -> list[dict[str, Any]]:
    """Every chunk (its whole stored source) of ``target`` passing the typed filter ``where``
    (every chunk without one), through :meth:`~osrag.engines.base.ChunkIndex.search`."""
    index.refresh(target)
    plan = SearchPlan(
        mode="bm25",
        text=TextLeg("", no_terms="all"),
        vector=None,
        guards=(),
        filters=() if where is None else (NamedFilter("where", where),),
        size=10_000,
        depth=10_000,
        count_candidates=False,
    )
    (answer,) = index.search(target, [plan])
    assert answer.total == len(answer.hits), f"{answer.total} chunks, more than one page"
    return [hit.source for hit in answer.hits]


@dataclass
class BackendCase:
    kind: str
    backend: ChunkIndex
    alias: str
    url: str | None = None
    home: Path | None = None
    """The embedded index's ``OSRAG_HOME`` (its index is in ``home/embedded``)."""

    def build(self) -> ChunkIndex:
        """A new engine object on the same data (another client; another process's view)."""
        if self.kind == "opensearch":
            assert self.url is not None
            return OpenSearchIndex(OpenSearch(self.url, timeout=60))
        if self.kind == "elasticsearch":
            assert self.url is not None
            return ElasticsearchIndex(Elasticsearch(self.url, request_timeout=60))
        assert self.home is not None
        return EmbeddedIndex(self.home / "embedded")

    def cli(self) -> tuple[list[str], dict[str, str]]:
        """Extra CLI arguments and environment that reach this engine."""
        if self.kind in CLUSTERS:
            assert self.url is not None
            return ["--backend", self.kind], {"OSRAG_URL": self.url}
        if self.home is None:
            raise ValueError("an embedded case without a home folder")
        return ["--backend", "embedded"], {"OSRAG_HOME": str(self.home)}

    def location(self) -> str:
        """Where another process reaches this engine: the cluster's URL, or the embedded
        index's folder (never a path built from a missing value)."""
        if self.kind in CLUSTERS:
            if self.url is None:
                raise ValueError(f"a {self.kind} case without a URL")
            return self.url
        if self.home is None:
            raise ValueError("an embedded case without a home folder")
        return str(self.home / "embedded")

    def manifest(self, alias: str | None = None) -> Manifest:
        alias = alias or self.alias
        return Manifest(self.backend.records(alias), alias)

    def chunk_ids(self, target: str, doc_id: str | None = None) -> set[str]:
        where = Term("doc_id", doc_id) if doc_id else None
        return {s["chunk_id"] for s in filtered(self.backend, target, where)}

    def source(self, target: str, chunk_id: str) -> dict[str, Any]:
        found = filtered(self.backend, target, Term("chunk_id", chunk_id))
        assert len(found) == 1, f"{chunk_id} found {len(found)} times in {target}"
        return found[0]

    def purge(self, alias: str | None = None) -> None:
        purge(self.backend, alias or self.alias)

    def writes_seen(self, generation: str) -> object:
        """Changes whenever the generation is written to (and only then)."""
        if self.kind in CLUSTERS:
            client = self.backend.client  # type: ignore[attr-defined]
            stats = client.indices.stats(index=generation, metric="indexing")
            indexing = stats["_all"]["primaries"]["indexing"]
            return int(indexing["index_total"]), int(indexing["delete_total"])
        assert self.home is not None
        alias = generation.rsplit("-", 2)[0]
        meta = self.home / "embedded" / alias / "generations" / generation / "meta.json"
        return hashlib.sha256(meta.read_bytes()).hexdigest()  # every tantivy commit rewrites it


def stored_chunk(doc_id: str, body: str, *, index: int = 0, **fields: Any) -> dict[str, Any]:
    """A chunk's stored source, built by the real record code, with ``fields`` replaced
    (for contract tests that write to an engine directly)."""
    from osrag.chunking.records import chunk_source, make_chunk
    from osrag.models import Document

    doc = Document(
        doc_id=doc_id, source_path=f"{doc_id}.md", source_version="v1", title=doc_id, text=body
    )
    chunk = make_chunk(
        doc,
        strategy="structural",
        index=index,
        start=0,
        end=len(body),
        breadcrumb=doc_id,
        heading_path=[doc_id],
        token_start=0,
        token_end=len(body.split()),
        tokenizer="whitespace@2",
        parser="test@1",
    )
    return chunk_source(chunk) | fields


def new_alias() -> str:
    return f"osrag-test-{uuid.uuid4().hex[:10]}"


def open_case(request: Any, kind: str, folder: Path, alias: str | None = None) -> BackendCase:
    """A case of ``kind``: the session's cluster, or an embedded index under ``folder``."""
    if kind == "opensearch":
        client = request.getfixturevalue("os_client")
        url = request.getfixturevalue("opensearch_url")
        return BackendCase(kind, OpenSearchIndex(client), alias or new_alias(), url=url)
    if kind == "elasticsearch":
        es = request.getfixturevalue("es_client")
        url = request.getfixturevalue("elasticsearch_url")
        return BackendCase(kind, ElasticsearchIndex(es), alias or new_alias(), url=url)
    home = folder / "osrag-home"
    return BackendCase(kind, EmbeddedIndex(home / "embedded"), alias or new_alias(), home=home)


def write_markdown(folder: Path, documents: Mapping[str, str]) -> Path:
    """``folder``, made new, holding each of ``documents`` (name → Markdown) as
    ``name.md``."""
    folder.mkdir()
    for name, text in documents.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    return folder


def markdown_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, documents: Mapping[str, str]
) -> Path:
    """``documents`` (name → Markdown) written as the folder ``orders`` of ``tmp_path``,
    the test's vector cache a fresh folder beside it (``OSRAG_CACHE_DIR``)."""
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "vector-cache"))
    return write_markdown(tmp_path / "orders", documents)


@contextmanager
def ingested_texts(
    request: Any,
    kind: str,
    folder: Path,
    documents: Mapping[str, str],
    *,
    embedder: str | None = None,
) -> Iterator[BackendCase]:
    """A case of ``kind`` with ``documents`` (name → Markdown) ingested as osrag ingests a
    folder (with vectors from ``embedder`` when given, cached in a folder of the case's
    own); its generations purged afterwards."""
    import pytest

    from osrag.ingestion.ingest import IngestOptions, ingest

    source = write_markdown(folder / "documents", documents)
    case = open_case(request, kind, folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OSRAG_CACHE_DIR", str(folder / "vector-cache"))
        ingest(source, case.backend, IngestOptions(alias=case.alias, embedder=embedder))
    try:
        yield case
    finally:
        case.purge()


def ingested_fixture(
    documents: Mapping[str, str], folder: str, *, embedder: str | None = None
) -> Any:
    """A module-scoped fixture, one case per engine of :data:`BACKEND_PARAMS`, with
    ``documents`` (name → Markdown) ingested into a temporary ``folder`` of that name
    (:func:`ingested_texts`); assigned to a module's name, it is the fixture of that name."""

    @pytest.fixture(scope="module", params=BACKEND_PARAMS)
    def ingested(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[BackendCase]:
        where = tmp_path_factory.mktemp(folder)
        with ingested_texts(request, request.param, where, documents, embedder=embedder) as case:
            yield case

    return ingested


def step_and_documents(case: BackendCase, text: str) -> tuple[str | None, set[str]]:
    """The amount step a BM25 search of ``text`` was answered at, and the documents hit."""
    from osrag.search.searcher import Searcher

    result = Searcher(case.backend, case.alias, enforce_access=False).search(
        text, mode="bm25", k=20
    )
    return result.amount_step, {h.doc_id for h in result.hits}


class Delegating(ChunkIndex):
    """An engine that forwards every call to a real one: tests override one method to
    inject a fault (a refused chunk, a crash, a count that lies) into a real run."""

    def __init__(self, inner: ChunkIndex) -> None:
        self.inner = inner
        self.name = inner.name
        self.write_concurrency = inner.write_concurrency
        self.eventual_refresh = inner.eventual_refresh

    @property
    def storage_version(self) -> str:
        return self.inner.storage_version

    def text_analyzer(self, requested: str, alias: str) -> str:
        return self.inner.text_analyzer(requested, alias)

    def create_generation(self, name: str, body: dict[str, Any], *, bulk_loading: bool) -> None:
        self.inner.create_generation(name, body, bulk_loading=bulk_loading)

    def finish_generation(self, name: str) -> None:
        self.inner.finish_generation(name)

    def drop_generation(self, name: str) -> None:
        self.inner.drop_generation(name)

    def generations(self, alias: str) -> set[str]:
        return self.inner.generations(alias)

    def alias_target(self, alias: str) -> str | None:
        return self.inner.alias_target(alias)

    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        self.inner.move_alias(alias, to, previous)

    def write(self, generation: str, actions: Any) -> Any:
        return self.inner.write(generation, actions)

    def nested_objects_limit(self, generation: str) -> int:
        return self.inner.nested_objects_limit(generation)

    def refresh(self, target: str) -> None:
        self.inner.refresh(target)

    def count(self, target: str, filter: Filter | None = None) -> int:
        return self.inner.count(target, filter)

    def chunk_ids(self, target: str, filter: Filter | None = None) -> Iterator[tuple[str, str]]:
        return self.inner.chunk_ids(target, filter)

    def stored_vectors(self, target: str, chunk_ids: Any) -> dict[str, list[float]]:
        return self.inner.stored_vectors(target, chunk_ids)

    def store_bytes(self, target: str) -> int | None:
        return self.inner.store_bytes(target)

    def read_capabilities(self) -> EngineCapabilities:
        # the legs of a hybrid plan come back to be fused here (see fusion_pipeline)
        return replace(self.inner.capabilities(), node_fusion=frozenset())

    def search(self, target: str, plans: Any, *, search_type: Any = None) -> Any:
        if isinstance(self.inner, RestIndex):  # compiled here: the legs are fused in the client
            return run_plans(self, target, plans, search_type=search_type)
        return self.inner.search(target, plans, search_type=search_type)

    def msearch(self, target: str, bodies: Any, *, search_type: Any = None) -> list[dict[str, Any]]:
        """The REST engine's raw ``_msearch`` (what :func:`run_plans` sends through)."""
        assert isinstance(self.inner, RestIndex)
        return self.inner.msearch(target, bodies, search_type=search_type)

    def fusion_pipeline(self, fusion: Any) -> str | None:
        """No search pipeline: a hybrid plan's legs come back to be fused in the client."""
        return None

    def records(self, alias: str) -> Any:
        return self.inner.records(alias)

    def close(self) -> None:
        self.inner.close()
