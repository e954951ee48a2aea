"""The OpenAI-compatible embedder against a real loopback HTTP server.

The server (written here, in-process, on 127.0.0.1) answers ``/v1/embeddings``
with deterministic vectors (from a hash of each input), counts the requests
and how many were in flight at once, and can be told to answer 429 (with a
``Retry-After``), 500 or a slow answer first. It also serves TEI's ``/info``
and vLLM's ``/v1/models`` for the window probe. Then an end-to-end ingest and
hybrid search on the embedded index with the embedder named by a spec string.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from collections.abc import Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.embedding import get_embedder
from osrag.embedding.openai_compat import OpenAIEmbedder, endpoint_for, retry_delay
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.errors import ConfigError, EmbeddingError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]
DIM = 8


def toy_vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 + 0.01 for b in digest[:DIM]]


class Script:
    """What the server does next, and what it saw (shared with the handler threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.failures: list[tuple[int, dict[str, str]]] = []
        self.delay = 0.0
        self.requests = 0
        self.inputs: list[list[str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.times: list[float] = []
        self.auth: list[str | None] = []
        self.window_routes = {"info": 512}


class _Handler(BaseHTTPRequestHandler):
    script: Script

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        routes = self.script.window_routes
        if self.path == "/info" and "info" in routes:
            self._send(200, {"model_id": "toy", "max_input_length": routes["info"]})
        elif self.path == "/v1/models" and "models" in routes:
            self._send(200, {"data": [{"id": "toy", "max_model_len": routes["models"]}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        s = self.script
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with s.lock:
            s.requests += 1
            s.times.append(time.monotonic())
            s.auth.append(self.headers.get("Authorization"))
            failure = s.failures.pop(0) if s.failures else None
            s.in_flight += 1
            s.max_in_flight = max(s.max_in_flight, s.in_flight)
        # A request is in flight from its arrival until its answer is about to be written:
        # the client may send its next request as soon as it has read this answer, before
        # this handler thread has returned, so counting down after the write would count
        # one request too many.
        try:
            status, payload, headers = self._answer(failure, body)
        finally:
            with s.lock:
                s.in_flight -= 1
        self._send(status, payload, headers)

    def _answer(
        self, failure: tuple[int, dict[str, str]] | None, body: dict[str, Any]
    ) -> tuple[int, Any, dict[str, str] | None]:
        s = self.script
        if failure is not None:
            return failure[0], {"error": "scripted failure"}, failure[1]
        if self.path != "/v1/embeddings":
            return 404, {"error": "no such route"}, None
        time.sleep(s.delay)
        with s.lock:
            s.inputs.append(list(body["input"]))
        data = [
            {"object": "embedding", "index": i, "embedding": toy_vector(t)}
            for i, t in enumerate(body["input"])
        ]
        return 200, {"object": "list", "model": body["model"], "data": data[::-1]}, None


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()
    handler = type("Handler", (_Handler,), {"script": script})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def expected(texts: list[str]) -> np.ndarray:
    rows = np.array([toy_vector(t) for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


# --------------------------------------------------------------------------- pure


@given(st.integers(0, 20), st.floats(0.0, 1.0))
def test_back_off_grows_and_is_capped(attempt: int, jitter: float) -> None:
    delay = retry_delay(attempt, None, base=0.5, max_wait=30.0, jitter=jitter)
    assert 0.0 <= delay <= 30.0
    if attempt < 5:
        assert delay == pytest.approx(0.5 * 2**attempt * (1 + jitter))


def test_retry_after_in_seconds_or_as_a_date_wins_and_is_capped() -> None:
    assert retry_delay(0, "2", max_wait=30.0) == 2.0
    assert retry_delay(3, "120", max_wait=30.0) == 30.0
    assert retry_delay(0, "-5") == 0.0
    now = 1_800_000_000.0
    assert retry_delay(0, formatdate(now + 7, usegmt=True), now=now) == pytest.approx(7.0)
    assert retry_delay(0, formatdate(now - 7, usegmt=True), now=now) == 0.0
    assert retry_delay(1, "soon", base=0.5) == 1.0  # unreadable: the back-off


def test_the_endpoint_is_under_the_api_root() -> None:
    assert endpoint_for("http://h:8080") == "http://h:8080/v1/embeddings"
    assert endpoint_for("http://h:8080/v1/") == "http://h:8080/v1/embeddings"
    assert endpoint_for("https://h/openai/v1") == "https://h/openai/v1/embeddings"
    assert endpoint_for("http://h/v1/embeddings") == "http://h/v1/embeddings"
    with pytest.raises(ConfigError, match="not an http"):
        endpoint_for("ftp://h/v1")


def test_the_spec_names_model_url_and_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSRAG_EMBEDDER_API_KEY", "sk-test")
    e = get_embedder(
        "openai:BAAI/bge-small-en-v1.5@http://127.0.0.1:9/v1"
        "#version=2&window=512&concurrency=3&batch_size=5&dimension=384"
    )
    assert isinstance(e, OpenAIEmbedder)
    assert (e.model, e.url, e.id) == (
        "BAAI/bge-small-en-v1.5",
        "http://127.0.0.1:9/v1/embeddings",
        "BAAI/bge-small-en-v1.5@2",
    )
    assert (e.window, e.concurrency, e.batch_size, e.dimension) == (512, 3, 5, 384)
    assert "sk-test" not in repr(e)
    for bad, message in (
        ("openai:toy", "expected openai:MODEL@"),
        ("openai:@http://h/v1", "expected openai:MODEL@"),
        ("openai:toy@http://h/v1#colour=red", "unknown option colour"),
        ("openai:toy@http://h/v1#window=many", "window must be an integer"),
    ):
        with pytest.raises(ConfigError, match=message):
            get_embedder(bad)


# --------------------------------------------------------------------------- loopback server


def test_vectors_come_back_in_order_batched_and_concurrent(server: tuple[str, Script]) -> None:
    url, script = server
    script.delay = 0.05
    embedder = OpenAIEmbedder(f"{url}/v1", "toy", version="1", batch_size=3, concurrency=4)
    texts = [f"text number {i}" for i in range(25)]
    vectors = embedder.embed(texts)
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert embedder.dimension == DIM
    assert script.requests == 9 and sorted(len(b) for b in script.inputs) == [1] + [3] * 8
    assert 2 <= script.max_in_flight <= 4


def test_the_dimension_is_probed_by_one_request(server: tuple[str, Script]) -> None:
    url, script = server
    embedder = OpenAIEmbedder(url, "toy")
    assert embedder.dimension == DIM and script.requests == 1


def test_429_and_500_are_retried_honouring_retry_after(server: tuple[str, Script]) -> None:
    url, script = server
    script.failures = [(429, {"Retry-After": "1"}), (500, {}), (503, {"Retry-After": "0"})]
    embedder = OpenAIEmbedder(url, "toy", dimension=DIM, retries=3, backoff=0.05)
    vectors = embedder.embed(["retried"])
    np.testing.assert_allclose(vectors, expected(["retried"]), atol=1e-6)
    assert script.requests == 4
    assert script.times[1] - script.times[0] >= 0.95  # the server said one second


def test_giving_up_names_the_endpoint_the_status_and_the_attempts(
    server: tuple[str, Script],
) -> None:
    url, script = server
    script.failures = [(503, {"Retry-After": "0"})] * 3
    embedder = OpenAIEmbedder(url, "toy", dimension=DIM, retries=2, backoff=0.0)
    with pytest.raises(EmbeddingError, match=r"/v1/embeddings answered HTTP 503.*3 attempts"):
        embedder.embed(["x"])
    script.failures = [(400, {})]
    with pytest.raises(EmbeddingError, match="answered HTTP 400") as info:
        embedder.embed(["x"])
    assert "attempts" not in str(info.value) and script.requests == 4  # a 400 is not retried


def test_a_timeout_is_retried_then_reported(server: tuple[str, Script]) -> None:
    url, script = server
    script.delay = 0.6
    embedder = OpenAIEmbedder(url, "toy", dimension=DIM, timeout=0.2, retries=1, backoff=0.0)
    with pytest.raises(EmbeddingError, match=r"did not answer within 0.2 s after 2 attempts"):
        embedder.embed(["slow"])
    assert script.requests == 2


def test_an_unreachable_endpoint_is_named(server: tuple[str, Script]) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    embedder = OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "toy", dimension=DIM, retries=0)
    with pytest.raises(EmbeddingError, match=rf"127.0.0.1:{port}/v1/embeddings cannot be reached"):
        embedder.embed(["x"])


def test_the_api_key_is_sent_but_never_shown(server: tuple[str, Script]) -> None:
    url, script = server
    script.failures = [(401, {})]
    embedder = OpenAIEmbedder(url, "toy", dimension=DIM, api_key="sk-secret", retries=0)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["x"])
    assert script.auth == ["Bearer sk-secret"] and "sk-secret" not in str(info.value)


def test_the_window_is_probed_from_tei_then_vllm_or_unknown(server: tuple[str, Script]) -> None:
    url, script = server
    assert OpenAIEmbedder(f"{url}/v1", "toy").window == 512
    script.window_routes = {"models": 8192}
    assert OpenAIEmbedder(f"{url}/v1", "toy").window == 8192
    script.window_routes = {}
    assert OpenAIEmbedder(f"{url}/v1", "toy").window is None
    assert OpenAIEmbedder(f"{url}/v1", "toy", window=256).window == 256
    assert script.requests == 0  # the probe only reads


def test_ingest_and_hybrid_search_on_the_embedded_index(
    server: tuple[str, Script], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, script = server
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "cache"))
    policies = tmp_path / "policies"
    shutil.copytree(ROOT / "examples" / "insurance", policies)
    backend = EmbeddedIndex(tmp_path / "home" / "embedded")
    spec = f"openai:toy@{url}/v1#version=1&batch_size=16&concurrency=3"
    report = ingest(policies, backend, IngestOptions(alias="svc", embedder=spec, embed_workers=1))
    assert report.chunks_embedded == report.chunks_written > 0
    sent = len(script.inputs)
    texts = [t for batch in script.inputs for t in batch if t != "dimension probe"]
    # the label vocabulary's labels go through the same embedder, one text each
    labels = report.label_vocabulary.vectors_embedded if report.label_vocabulary else 0
    assert len(texts) == report.chunks_embedded + labels
    searcher = Searcher(backend, "svc")  # the query embedder comes from the recorded spec
    result = searcher.search("umbrella $300K", mode="hybrid", tenant="acme", acl=["agents"], k=5)
    assert result.mode == "hybrid" and result.hits
    assert all(30_000_000 in hit.amounts for hit in result.hits)
    queries = [b for b in script.inputs[sent:] if b != ["dimension probe"]]
    assert len(queries) == 1 and "umbrella" in queries[0][0]  # one query vector
    again = ingest(policies, backend, IngestOptions(alias="svc", embedder=spec, embed_workers=1))
    assert again.chunks_embedded == 0


def test_the_embedder_pickles_for_worker_processes(server: tuple[str, Script]) -> None:
    import pickle

    url, _ = server
    embedder = OpenAIEmbedder(url, "toy", version="1", api_key="sk-x")
    first = embedder.embed(["before"])
    copy = pickle.loads(pickle.dumps(embedder))
    assert copy.id == embedder.id and copy.dimension == DIM
    np.testing.assert_allclose(copy.embed(["before"]), first, atol=1e-7)
