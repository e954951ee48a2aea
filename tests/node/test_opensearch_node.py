"""The first real integration test: the cluster analyses English and filters on a long."""

from __future__ import annotations

import pytest
from opensearchpy import OpenSearch

pytestmark = pytest.mark.opensearch


def test_english_analyzer_stems_policies(os_client: OpenSearch) -> None:
    tokens = os_client.indices.analyze(body={"analyzer": "english", "text": "policies"})
    assert [t["token"] for t in tokens["tokens"]] == ["polici"]


def test_term_filter_on_long_amounts_inside_bool(os_client: OpenSearch, index_prefix: str) -> None:
    index = f"{index_prefix}-amounts"
    os_client.indices.create(
        index=index,
        body={
            "settings": {"number_of_shards": 1, "number_of_replicas": 0},
            "mappings": {
                "dynamic": "strict",
                "properties": {
                    "text": {"type": "text", "analyzer": "english"},
                    "amounts": {"type": "long", "coerce": False},
                },
            },
        },
    )
    docs = {
        "300k": ("Umbrella policies cover liability up to the limit.", [30_000_000]),
        "3m": ("Umbrella policies cover liability up to the limit.", [300_000_000]),
        "30k": ("Umbrella policy with a small limit.", [3_000_000]),
        "both": ("An umbrella policy and an auto policy.", [30_000_000, 5_000_000]),
        "none": ("Umbrella policy terms without any amount.", []),
    }
    for doc_id, (text, amounts) in docs.items():
        os_client.index(index=index, id=doc_id, body={"text": text, "amounts": amounts})
    os_client.indices.refresh(index=index)

    body = {
        "query": {
            "bool": {
                "must": [{"match": {"text": "umbrella policy"}}],
                "filter": [{"term": {"amounts": 30_000_000}}],
            }
        },
        "size": 10,
    }
    hits = os_client.search(index=index, body=body)["hits"]["hits"]
    assert sorted(h["_id"] for h in hits) == ["300k", "both"]

    # "policies" and "policy" meet at the stem: the match side is analysed in English.
    stemmed = os_client.search(
        index=index, body={"query": {"match": {"text": "policies"}}, "size": 10}
    )["hits"]["hits"]
    assert {h["_id"] for h in stemmed} == set(docs)
