"""What is Elasticsearch's own, against the real node: the analyzer it has, the mapping it
takes, how osrag recognises it, and its failures in one line. (The shared behaviour —
contract, ingest, search, access, evaluation — runs on it through ``backend_case``.)
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clirun import osrag
from elasticsearch import Elasticsearch

from osrag.config import Settings, load_settings
from osrag.engines import choose_backend
from osrag.engines.elasticsearch.index import ElasticsearchIndex, probe_index
from osrag.engines.elasticsearch.mapping import dense_vector, to_elasticsearch
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.engines.mapping import chunk_index_body
from osrag.engines.rest.cluster import check_connection, detect_engine
from osrag.engines.rest.errors import translate_error
from osrag.errors import ConfigError, IndexStateError
from osrag.evaluation import EvalConfig, read_queries, run_evaluation
from osrag.ingestion.generations import purge, status
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.models import Money
from osrag.search.searcher import Searcher

pytestmark = pytest.mark.elasticsearch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "insurance"

VECTOR_FIELD = {
    "type": "knn_vector",
    "dimension": 3,
    "method": {
        "name": "hnsw",
        "engine": "lucene",
        "space_type": "cosinesimil",
        "parameters": {"m": 16, "ef_construction": 100},
    },
}


@pytest.fixture
def engine(es_client: Elasticsearch) -> ElasticsearchIndex:
    return ElasticsearchIndex(es_client)


@pytest.fixture
def alias(engine: ElasticsearchIndex, es_index_prefix: str) -> Iterator[str]:
    yield es_index_prefix
    purge(engine, es_index_prefix)


def node_has_analysis_common(client: Elasticsearch) -> bool:
    """The oracle: the node's module list (independent of osrag's ``_analyze`` probe)."""
    nodes = client.nodes.info(node_id="_local", metric="plugins")
    (node,) = dict(nodes)["nodes"].values()
    return any(m["name"] == "analysis-common" for m in node.get("modules", []))


# --------------------------------------------------------------------------- the analyzer


def test_english_is_used_where_the_node_has_it_and_standard_stands_in_where_not(
    engine: ElasticsearchIndex,
    es_client: Elasticsearch,
    alias: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    full = node_has_analysis_common(es_client)
    for kind in ("english", "whitespace", "simple"):  # all three come with analysis-common
        assert engine.has_analyzer(kind, alias) is full
    assert engine.has_analyzer("standard", alias)
    assert not engine.has_analyzer("klingon", alias)
    assert engine.text_analyzer("english", alias) == ("english" if full else "standard")
    assert engine.text_analyzer("english", alias) == engine.text_analyzer("english", alias)
    assert engine.text_analyzer("standard", alias) == "standard"
    warnings = [
        r
        for r in caplog.records
        if r.name == "osrag.engines.elasticsearch" and r.levelno == logging.WARNING
    ]
    assert len(warnings) == (0 if full else 1)  # said once, however often it is asked
    assert engine.generations(alias) == set() and not es_client.indices.exists(
        index=probe_index(alias)
    )  # the probe leaves nothing behind


def test_an_ingest_records_the_analyzer_it_really_used_and_status_says_so(
    engine: ElasticsearchIndex,
    es_client: Elasticsearch,
    elasticsearch_url: str,
    es_index_prefix: str,
) -> None:
    """The CLI on the real node: one warning line, the choice in the generation's config,
    in the index the node built, and in ``osrag index status``."""
    cli = ["--backend", "elasticsearch", "--url", elasticsearch_url, "--alias", es_index_prefix]
    try:
        first = osrag("ingest", str(EXAMPLES), *cli, "--json")
        assert first.returncode == 0, first.stderr
        full = node_has_analysis_common(es_client)
        record = current_generation(engine, es_index_prefix)
        expected = "english" if full else "standard"
        assert record.config["analyzer"] == expected
        assert record.config.get("analyzer_requested") == (None if full else "english")
        settings = es_client.indices.get_settings(index=record.name)[record.name]["settings"]
        assert settings["index"]["analysis"]["analyzer"]["osrag_text"]["type"] == expected
        assert first.stderr.count("analyzer") == (0 if full else 1)

        shown = osrag("index", "status", *cli)
        assert shown.returncode == 0, shown.stderr
        if not full:
            assert "analyzer standard (in place of english" in " ".join(shown.stdout.split())
            assert "has no 'english' analyzer" in shown.stderr
            as_json = json.loads(osrag("index", "status", *cli, "--json").stdout)
            assert any("'standard'" in note for note in as_json["notes"])

            # asking for standard is asking for what the generation already holds
            again = osrag("ingest", str(EXAMPLES), *cli, "--analyzer", "standard", "--json")
            assert again.returncode == 0, again.stderr
            report = json.loads(again.stdout)
            assert report["generation"] == record.name and not report["new_generation"]
            assert report["chunks_written"] == 0
    finally:
        purge(engine, es_index_prefix)


def test_an_analyzer_the_node_has_is_used_as_asked(
    engine: ElasticsearchIndex, es_client: Elasticsearch, alias: str
) -> None:
    """The path a full distribution takes for ``english``, shown with the one analyzer type
    this node has: no substitute, no note, the node's index built with it."""
    report = ingest(EXAMPLES, engine, IngestOptions(alias=alias, analyzer="standard"))
    record = current_generation(engine, alias)
    assert record.config["analyzer"] == "standard" and "analyzer_requested" not in record.config
    found = es_client.indices.get_settings(index=report.generation)[report.generation]
    assert found["settings"]["index"]["analysis"]["analyzer"]["osrag_text"]["type"] == "standard"
    assert status(engine, alias).notes == []


# --------------------------------------------------------------------------- the mapping


def test_the_chunk_mapping_passes_unchanged_but_for_the_analyzer() -> None:
    body = chunk_index_body()
    translated = to_elasticsearch(body, analyzer="standard")
    assert translated["mappings"] == body["mappings"]
    assert translated["settings"]["analysis"]["analyzer"]["osrag_text"] == {"type": "standard"}
    assert body["settings"]["analysis"]["analyzer"]["osrag_text"] == {
        "type": "english"
    }  # untouched
    assert to_elasticsearch(body) == body


def test_knn_vector_becomes_an_indexed_dense_vector_with_its_similarity() -> None:
    body = chunk_index_body()
    body["settings"]["index"]["knn"] = True
    body["mappings"]["properties"]["vector"] = VECTOR_FIELD
    translated = to_elasticsearch(body)
    assert "knn" not in translated["settings"]["index"]
    assert translated["mappings"]["properties"]["vector"] == {
        "type": "dense_vector",
        "dims": 3,
        "index": True,
        "similarity": "cosine",
        "index_options": {"type": "hnsw", "m": 16, "ef_construction": 100},
    }
    for space, similarity in (("l2", "l2_norm"), ("innerproduct", "max_inner_product")):
        field = {**VECTOR_FIELD, "method": {**VECTOR_FIELD["method"], "space_type": space}}
        assert dense_vector("v", field)["similarity"] == similarity


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"space_type": "hamming"}, "no Elasticsearch similarity"),
        ({"engine": "faiss"}, "only the lucene engine"),
    ],
)
def test_a_vector_field_without_an_elasticsearch_counterpart_is_refused(
    change: dict[str, str], message: str
) -> None:
    field = {**VECTOR_FIELD, "method": {**VECTOR_FIELD["method"], **change}}
    with pytest.raises(ConfigError, match=message):
        dense_vector("embedding", field)


def test_the_translated_vector_mapping_runs_knn_inside_the_filter_on_the_node(
    engine: ElasticsearchIndex, es_client: Elasticsearch, es_index_prefix: str
) -> None:
    """The shape the vector leg will use: top-level ``knn`` with the lexical leg's filter."""
    body = chunk_index_body()
    body["settings"]["index"]["knn"] = True
    body["mappings"]["properties"]["vector"] = VECTOR_FIELD
    name = f"{es_index_prefix}-0123abcd-1"
    engine.create_generation(name, body, bulk_loading=False)
    mapping = es_client.indices.get_mapping(index=name)[name]["mappings"]["properties"]["vector"]
    assert mapping["type"] == "dense_vector" and mapping["index_options"]["type"] == "hnsw"
    lines: list[dict[str, Any]] = []
    for i in range(12):
        amount = 30_000_000 if i % 4 == 3 else 300_000_000
        lines += [
            {"index": {"_index": name, "_id": f"d{i}"}},
            {"doc_id": f"d{i}", "amounts": [amount], "vector": [1.0, i / 10, 0.0]},
        ]
    es_client.bulk(operations=lines, refresh=True)
    amount_filter = [{"term": {"amounts": 30_000_000}}]
    (answer,) = engine.msearch(
        name,
        [
            {
                "knn": {
                    "field": "vector",
                    "query_vector": [1.0, 0.0, 0.0],
                    "k": 3,
                    "num_candidates": 12,
                    "filter": amount_filter,
                },
                "_source": ["doc_id", "amounts"],
            }
        ],
    )
    hits = answer["hits"]["hits"]
    assert len(hits) == 3 and {h["_source"]["doc_id"] for h in hits} == {"d3", "d7", "d11"}


# --------------------------------------------------------------------------- recognising it


def test_auto_recognises_each_engine_from_its_answer(
    elasticsearch_url: str, opensearch_url: str
) -> None:
    assert detect_engine(Settings(url=elasticsearch_url)) == "elasticsearch"
    assert detect_engine(Settings(url=opensearch_url)) == "opensearch"
    assert choose_backend(Settings(url=elasticsearch_url)).name == "elasticsearch"
    assert choose_backend(Settings(url=opensearch_url)).name == "opensearch"
    info = check_connection(load_settings(url=elasticsearch_url))
    assert info.distribution == "elasticsearch" and info.version and info.cluster_name


def test_the_cli_finds_elasticsearch_by_itself_and_config_check_names_it(
    elasticsearch_url: str, engine: ElasticsearchIndex, es_index_prefix: str
) -> None:
    env = {"OSRAG_URL": elasticsearch_url, "OSRAG_ALIAS": es_index_prefix}
    try:
        ingested = osrag("ingest", str(EXAMPLES), "--json", env=env)
        assert ingested.returncode == 0, ingested.stderr
        assert engine.generations(es_index_prefix) == {json.loads(ingested.stdout)["generation"]}
        checked = osrag("config", "check", env=env)
        assert checked.returncode == 0 and "elasticsearch" in checked.stderr
    finally:
        purge(engine, es_index_prefix)


def test_searcher_takes_an_elasticsearch_client_as_it_is(
    es_client: Elasticsearch, engine: ElasticsearchIndex, alias: str
) -> None:
    ingest(EXAMPLES, engine, IngestOptions(alias=alias))
    result = Searcher(es_client, alias).search("umbrella $300K", tenant="acme", acl=["agents"])
    assert result.hits and all(30_000_000 in h.amounts for h in result.hits)


# --------------------------------------------------------------------------- its failures


def test_the_elasticsearch_client_at_an_opensearch_url_is_one_clear_line(
    opensearch_url: str,
) -> None:
    result = osrag("index", "status", "--backend", "elasticsearch", "--url", opensearch_url)
    assert result.returncode == 4, result.stderr
    assert "is not Elasticsearch" in result.stderr and "Traceback" not in result.stderr


def test_a_client_of_another_major_is_told_to_match_the_server(
    es_client: Elasticsearch, elasticsearch_url: str
) -> None:
    """elasticsearch-py 9 sends ``compatible-with=9``, which an 8.x node refuses; this is the
    node's real answer to the major after its own (Elasticsearch 9 accepts 9 and 8)."""
    nodes = es_client.nodes.info(node_id="_local", filter_path="nodes.*.version")
    (version,) = (n["version"] for n in dict(nodes)["nodes"].values())
    newer = f"application/vnd.elasticsearch+json; compatible-with={int(version.split('.')[0]) + 1}"
    with pytest.raises(Exception) as raised:
        es_client.perform_request("GET", "/_cluster/health", headers={"accept": newer})
    error = translate_error(raised.value, elasticsearch_url)
    assert error is not None and "version must match" in str(error)
    assert "pip install 'osrag[elasticsearch]'" in str(error) and "\n" not in str(error)


def test_without_the_client_library_the_error_says_how_to_install_it(
    elasticsearch_url: str,
) -> None:
    code = (
        "import sys; sys.modules['elasticsearch'] = None\n"
        "from osrag.cli import main\n"
        "sys.argv = ['osrag', 'index', 'status', '--url', sys.argv[1]]\n"
        "main()\n"
    )
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code, elasticsearch_url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'osrag[elasticsearch]'" in done.stderr and "Traceback" not in done.stderr


def test_a_concurrent_move_of_the_alias_is_refused_by_must_exist(
    engine: ElasticsearchIndex, alias: str
) -> None:
    """Elasticsearch 8.15 honours ``must_exist`` on ``remove``: the swap fails as a whole."""
    names = [f"{alias}-0123abcd-{n}" for n in (1, 2, 3)]
    for name in names:
        engine.create_generation(name, chunk_index_body(), bulk_loading=False)
    engine.move_alias(alias, names[0], None)
    engine.move_alias(alias, names[1], names[0])
    with pytest.raises(IndexStateError, match="no longer points to"):
        engine.move_alias(alias, names[2], names[0])
    assert engine.alias_target(alias) == names[1]


# --------------------------------------------------------------------------- the docs


def test_the_documented_commands_return_only_documents_that_hold_300k(
    elasticsearch_url: str, engine: ElasticsearchIndex, es_index_prefix: str
) -> None:
    """``osrag ingest examples/insurance --backend elasticsearch --url …`` then
    ``osrag search 'umbrella $300K' --backend elasticsearch --url … --tenant acme --acl agents
    --json`` — the commands of docs/connecting.md, on this node (alias from the
    environment)."""
    env = {"OSRAG_ALIAS": es_index_prefix}
    try:
        ingested = osrag(
            "ingest", "examples/insurance", "--backend", "elasticsearch", "--url",
            elasticsearch_url, env=env, cwd=ROOT,
        )  # fmt: skip
        assert ingested.returncode == 0, ingested.stderr
        found = osrag(
            "search", "umbrella $300K", "--backend", "elasticsearch", "--url", elasticsearch_url,
            "--tenant", "acme", "--acl", "agents", "--json", env=env, cwd=ROOT,
        )  # fmt: skip
        assert found.returncode == 0, found.stderr
        result = json.loads(found.stdout)
        assert result["hits"] and result["fallback"] is False
        assert [f["name"] for f in result["filters_applied"]][:1] == ["amount"]
        three_hundred_k = Money(currency="USD", minor_units=30_000_000).token
        for hit in result["hits"]:
            assert three_hundred_k in hit["money"], hit["doc_id"]
            assert 300_000_000 not in hit["amounts"]  # never the $3,000,000 policy
        assert {h["doc_id"] for h in result["hits"]} >= {"umbrella-300k-standard"}
    finally:
        purge(engine, es_index_prefix)


# --------------------------------------------------------------------------- evaluation


@pytest.mark.corpus
@pytest.mark.slow
def test_cranfield_on_standard_equals_the_embedded_standard_analyzer(
    engine: ElasticsearchIndex, alias: str, corpora: Path, tmp_path: Path
) -> None:
    """Differential: the node's ``standard`` fallback scores Cranfield exactly as the embedded
    index's ``standard`` (Lucene's analyzer in Python; BM25 k1 1.2, b 0.75)."""
    derived = corpora / "cranfield" / "derived"
    queries = read_queries(derived / "queries.jsonl", derived / "qrels.tsv")
    metrics = {}
    embedded = EmbeddedIndex(tmp_path / "embedded")
    for name, backend in (("elasticsearch", engine), ("embedded", embedded)):
        report = run_evaluation(
            queries,
            backend,
            alias=f"{alias}-{uuid.uuid4().hex[:6]}",
            configs=[EvalConfig("standard", {"analyzer": "standard"})],
            ks=[10],
            corpus=derived / "corpus.jsonl",
            depth=100,
        )
        metrics[name] = report.configs[0].metrics
    embedded.close()
    for metric in ("ndcg@10", "map", "precision@10"):
        assert metrics["elasticsearch"][metric] == pytest.approx(
            metrics["embedded"][metric], abs=0.005
        ), metric
