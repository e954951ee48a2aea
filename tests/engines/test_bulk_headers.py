"""The bulk header lines osrag writes with orjson are the bytes each client would write."""

from __future__ import annotations

import random
from typing import Any

import pytest
from elastic_transport import JsonSerializer
from elasticsearch.helpers import expand_action as es_expand
from elasticsearch.helpers import streaming_bulk as es_streaming_bulk
from opensearchpy.helpers import expand_action as os_expand
from opensearchpy.helpers import streaming_bulk as os_streaming_bulk
from opensearchpy.serializer import JSONSerializer

from osrag.engines.rest.bulk import _expand_of, header_written

CLIENTS = [
    pytest.param(os_expand, JSONSerializer(), id="opensearch-py"),
    pytest.param(es_expand, JsonSerializer(), id="elasticsearch-py"),
]
# what a path-made id can hold: marks a JSON writer escapes, any script, a lone surrogate
# (a file name that was not UTF-8), the line separators JavaScript refuses
ALPHABET = [chr(c) for c in range(0x80)] + list("é漢😀\u2028\u2029\ufeff\ud800\udcff")


def _line(serializer: Any, header: Any) -> bytes:
    written = serializer.dumps(header)
    return written if isinstance(written, bytes) else written.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize(("expand", "serializer"), CLIENTS)
def test_every_header_is_the_clients_own_bytes(expand: Any, serializer: Any) -> None:
    rng = random.Random(5)
    fast = header_written(expand)
    ids = ["policy.md#0#0123abcd", "", 'a"b\\c\n\t\x00\x1f\x7f'] + [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12))) for _ in range(3000)
    ]
    for doc_id in ids:
        for action in (
            {"_op_type": "index", "_index": "osrag-gen-1", "_id": doc_id, "_source": "{}"},
            {"_op_type": "delete", "_index": "osrag-gen-1", "_id": doc_id},
        ):
            header, source = expand(action)
            written, same_source = fast(action)
            assert same_source == source
            assert _line(serializer, written) == _line(serializer, header), repr(doc_id)


def test_a_header_orjson_cannot_write_is_left_to_the_client() -> None:
    action = {"_op_type": "index", "_index": "g", "_id": "bad\ud800", "_source": "{}"}
    header, _ = header_written(os_expand)(action)
    assert header == {"index": {"_id": "bad\ud800", "_index": "g"}}


def test_each_helper_gets_its_own_expand() -> None:
    action = {"_op_type": "index", "_index": "g", "_id": "x", "_source": "{}"}
    assert _expand_of(os_streaming_bulk)(action)[0] == '{"index":{"_id":"x","_index":"g"}}'
    assert _expand_of(es_streaming_bulk)(action)[0] == '{"index":{"_id":"x","_index":"g"}}'
