"""Shards and replicas of a generation: chosen, recorded in its configuration (so in its
digest), kept by later ingests, refused where they cannot exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from backend_cases import BackendCase
from hypothesis import given
from hypothesis import strategies as st

from osrag.errors import ConfigError
from osrag.ingestion.ingest import IngestOptions, current_generation, generation_config, ingest
from osrag.ingestion.layout import SINGLE_NODE, Layout, choose_layout, cluster_default

DATA = Path(__file__).resolve().parents[1] / "data" / "insurance"


def test_one_node_gets_one_shard_and_no_replica_a_cluster_one_primary_per_node() -> None:
    assert cluster_default(1) == SINGLE_NODE
    assert cluster_default(2) == Layout(2, 1)
    assert cluster_default(3) == Layout(3, 1)
    assert cluster_default(40).shards == 6 and cluster_default(40).replicas == 1


@given(
    st.one_of(st.none(), st.integers(1, 12)),
    st.one_of(st.none(), st.integers(0, 3)),
    st.one_of(st.none(), st.builds(Layout, st.integers(1, 12), st.integers(0, 3))),
    st.integers(1, 8),
)
def test_asked_beats_current_beats_the_cluster_default(
    shards: int | None, replicas: int | None, current: Layout | None, nodes: int
) -> None:
    base = current or cluster_default(nodes)
    wanted_replicas = replicas if replicas is not None else base.replicas
    placeable = wanted_replicas <= nodes - 1 or (current is not None and replicas is None)
    if not placeable:
        with pytest.raises(ConfigError, match="data nodes"):
            choose_layout(shards, replicas, current=current, data_nodes=nodes)
        return
    layout = choose_layout(shards, replicas, current=current, data_nodes=nodes)
    assert layout.shards == (shards if shards is not None else base.shards)
    assert layout.replicas == wanted_replicas


def test_an_engine_without_shards_refuses_a_layout_and_takes_none() -> None:
    assert choose_layout(None, None, current=None, data_nodes=None) == SINGLE_NODE
    assert choose_layout(1, 0, current=None, data_nodes=None) == SINGLE_NODE
    with pytest.raises(ConfigError, match="no shards or replicas"):
        choose_layout(3, None, current=None, data_nodes=None)


def test_the_single_node_layout_leaves_the_configuration_as_it_was() -> None:
    options = IngestOptions()
    assert "layout" not in generation_config(options)
    assert "layout" not in generation_config(options, layout=SINGLE_NODE)
    assert generation_config(options, layout=Layout(3, 1))["layout"] == {"shards": 3, "replicas": 1}
    assert Layout.of_config(generation_config(options, layout=Layout(3, 1))) == Layout(3, 1)
    assert Layout.of_config(generation_config(options)) == SINGLE_NODE


@pytest.mark.opensearch
@pytest.mark.own_layout
def test_shards_make_a_new_generation_that_later_ingests_keep(
    opensearch_case: BackendCase, tmp_path: Path
) -> None:
    backend, alias = opensearch_case.backend, opensearch_case.alias
    nodes = backend.capabilities().data_nodes
    assert nodes is not None
    default = cluster_default(nodes)
    single = ingest(DATA, backend, IngestOptions(alias=alias))
    assert Layout.of_config(current_generation(backend, alias).config) == default
    two = ingest(DATA, backend, IngestOptions(alias=alias, shards=2))
    assert two.new_generation and two.generation != single.generation
    settings = backend.client.indices.get_settings(index=two.generation)  # type: ignore[attr-defined]
    assert settings[two.generation]["settings"]["index"]["number_of_shards"] == "2"
    recorded = current_generation(backend, alias).config["layout"]
    assert recorded == {"shards": 2, "replicas": default.replicas}  # replicas kept
    again = ingest(DATA, backend, IngestOptions(alias=alias))  # no --shards: keep the current
    assert again.generation == two.generation and again.chunks_written == 0
    assert backend.count(alias) == two.chunks_written
    with pytest.raises(ConfigError, match=f"{nodes} replica"):
        ingest(DATA, backend, IngestOptions(alias=alias, replicas=nodes))


def test_the_embedded_index_refuses_shards(tmp_path: Path) -> None:
    from osrag.engines.embedded.index import EmbeddedIndex

    index = EmbeddedIndex(tmp_path / "embedded")
    with pytest.raises(ConfigError, match="no shards or replicas"):
        ingest(DATA, index, IngestOptions(alias="osrag-chunks", shards=2))
    assert ingest(DATA, index, IngestOptions(alias="osrag-chunks")).chunks_written > 0


@pytest.fixture
def opensearch_case(request: pytest.FixtureRequest, tmp_path: Path) -> BackendCase:
    from backend_cases import open_case

    return open_case(request, "opensearch", tmp_path, request.getfixturevalue("index_prefix"))


def test_the_cli_says_in_one_line_why_a_layout_or_search_type_is_refused(tmp_path: Path) -> None:
    from clirun import osrag

    env = {"OSRAG_HOME": str(tmp_path)}
    refused = osrag("ingest", str(DATA), "--backend", "embedded", "--shards", "2", env=env)
    assert refused.returncode == 2 and "no shards or replicas" in refused.stderr
    assert "Traceback" not in refused.stderr
    done = osrag("ingest", str(DATA), "--backend", "embedded", "--writers", "3", env=env)
    assert done.returncode == 0, done.stderr
    bad = osrag("search", "umbrella", "--backend", "embedded", "--search-type", "fast", env=env)
    assert bad.returncode == 2 and "--search-type 'fast'" in bad.stderr
    for kind in ("query_then_fetch", "dfs_query_then_fetch"):
        found = osrag(
            "search", "umbrella $300,000", "--backend", "embedded", "--tenant", "acme",
            "--search-type", kind, "--json", env=env,
        )  # fmt: skip
        assert found.returncode == 0, found.stderr
        assert '"candidate_count"' in found.stdout
