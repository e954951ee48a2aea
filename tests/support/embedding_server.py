"""A misbehaving embedding endpoint on loopback: the server an ingest must survive.

:func:`serving` starts a threaded HTTP server on 127.0.0.1 that plays an
OpenAI-compatible ``/v1/embeddings`` endpoint (and TEI's ``/embed``). By default it
answers correctly (deterministic vectors from a hash of each input, in a shuffled
order with their ``index``); :attr:`Server.mode` makes it misbehave the way real
servers and proxies do:

=====================  =====================================================================
mode                   the answer
=====================  =====================================================================
``ok``                 right
``duplicate-index``    the right count, but ``index`` 0 twice (the last input's is missing)
``wrong-count``        one vector fewer than inputs
``strings``            numbers as JSON strings (``"0.5"``)
``booleans``           ``true``/``false`` among the numbers
``nan``                a ``NaN`` among the numbers (Python's JSON writes it)
``huge``               a 100 MB body (streamed), as a broken proxy or a hostile server may
``429``                429 Too Many Requests, forever (``Retry-After: 1``)
``retry-after-nan``    429 with ``Retry-After: nan``
``hang``               reads the request, never answers
``trickle``            a correct answer, one byte a second
``dimension-change``   correct vectors, of ``dimension + 1`` numbers
``flaky``              every other request answered 503 (the others right)
=====================  =====================================================================

It counts the requests it got. Not a mock of OpenSearch: it is the embedding service,
and the code under test speaks HTTP to it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMENSION = 8
HUGE_BYTES = 100 * 1024 * 1024


def toy_vector(text: str, dimension: int = DIMENSION) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest() * 8
    return [b / 255.0 + 0.01 for b in digest[:dimension]]


@dataclass
class Server:
    """The running server: its URL, what it does next, what it saw."""

    url: str = ""
    mode: str = "ok"
    dimension: int = DIMENSION
    requests: int = 0
    inputs: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base(self) -> str:
        """The API root an :class:`~osrag.embedding.openai_compat.OpenAIEmbedder` takes."""
        return f"{self.url}/v1"

    def spec(self, version: str = "1", **options: Any) -> str:
        """An ``openai:`` embedder spec for this server (options go in the fragment)."""
        fragment = "&".join(f"{k}={v}" for k, v in {"version": version, **options}.items())
        return f"openai:toy@{self.base}#{fragment}"


class _Handler(BaseHTTPRequestHandler):
    server_state: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # no window routes: the window stays unknown
        self._send(404, b'{"error": "not found"}')

    def do_POST(self) -> None:
        state = self.server_state
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        texts = request.get("input") or request.get("inputs") or []
        with state.lock:
            state.requests += 1
            state.inputs += len(texts)
            mode = state.mode
            if mode == "flaky" and state.requests % 2 == 0:
                mode = "503"
        if mode == "503":
            self._send(503, b'{"error": "unavailable"}')
            return
        if mode == "hang":
            state.stop.wait(600)
            return
        if mode in ("429", "retry-after-nan"):
            after = "nan" if mode == "retry-after-nan" else "1"
            self._send(429, b'{"error": "slow down"}', {"Retry-After": after})
            return
        if mode == "huge":
            self._huge()
            return
        body = json.dumps(self._answer(mode, texts, state)).encode()
        if mode == "trickle":
            self._trickle(body)
            return
        self._send(200, body)

    def _answer(self, mode: str, texts: list[str], state: Server) -> Any:
        dimension = state.dimension + (mode == "dimension-change")
        vectors: list[list[Any]] = [toy_vector(t, dimension) for t in texts]
        if mode == "strings":
            vectors = [[str(x) for x in v] for v in vectors]
        elif mode == "booleans" and vectors:
            vectors[0][1] = True
            vectors[-1][0] = False
        elif mode == "nan" and vectors:
            vectors[-1][2] = float("nan")
        if self.path.endswith("/embed"):
            return vectors
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        if mode == "duplicate-index" and len(data) > 1:
            data[-1]["index"] = 0
        elif mode == "wrong-count" and data:
            data.pop()
        random.Random(len(texts)).shuffle(data)
        return {"object": "list", "model": "toy", "data": data}

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)

    def _huge(self) -> None:
        """A 100 MB answer — valid JSON, one vector of ≈ 8 million numbers — sent as it is
        made (no Content-Length: the client cannot know its size up front)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.end_headers()
        numbers = ", ".join(["0.123456789"] * 1000).encode() + b", "
        sent = 0
        with contextlib.suppress(OSError):
            self.wfile.write(b'{"data": [{"index": 0, "embedding": [')
            while sent < HUGE_BYTES and not self.server_state.stop.is_set():
                self.wfile.write(numbers * 64)
                sent += len(numbers) * 64
            self.wfile.write(b"0.1]}]}")
        self.close_connection = True

    def _trickle(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):
            for byte in body:
                if self.server_state.stop.wait(1.0):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()


@contextlib.contextmanager
def serving(mode: str = "ok") -> Iterator[Server]:
    """A :class:`Server` in ``mode`` on a free loopback port, for the ``with`` block."""
    state = Server(mode=mode)
    handler = type("Handler", (_Handler,), {"server_state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield state
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()
        time.sleep(0)  # let handler threads see the stop
