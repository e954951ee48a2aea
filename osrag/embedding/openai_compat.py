"""An OpenAI-compatible ``/v1/embeddings`` endpoint: what TEI, Infinity, vLLM and Ollama serve.

``openai:MODEL@BASE_URL`` (see :mod:`osrag.embedding.spec`) or
:class:`OpenAIEmbedder` directly. ``BASE_URL`` is the API root
(``http://127.0.0.1:8080/v1``; a URL without a path gets ``/v1``); requests
go to ``BASE_URL/embeddings`` with ``{"model", "input": [...],
"encoding_format": "float"}``.

- **Batching and concurrency**: texts are sent ``batch_size`` per request,
  up to ``concurrency`` requests in flight (a bounded thread pool over one
  connection pool); vectors come back in input order.
- **Retries**: a 408, 409, 429 or 5xx answer, a timeout or a refused
  connection is retried up to ``retries`` times, waiting what the server's
  ``Retry-After`` says (seconds or an HTTP date, capped at ``max_wait``; ``nan``,
  a negative number or garbage is ignored) or else an exponential back-off with
  jitter (:func:`retry_delay`). Other 4xx answers are not retried: they will not
  get better. Retries are throttled: at most 10, plus one for every 10 requests
  that succeeded (:class:`~osrag.embedding.retrying.Allowance`).
- **Bounds** (:mod:`osrag.embedding.retrying`): ``timeout`` (30 s) is for the
  whole request, the answer's last byte included; ``deadline`` (120 s) for one
  batch, every try and wait included; ``max_answer_bytes`` (32 MiB) for one
  answer, read as a stream and cut off there. :meth:`OpenAIEmbedder.limit` adds a
  caller's deadline (an ingest's ``embed_deadline``).
- **Answers are checked** (:func:`~osrag.embedding.service.answer_vectors`): the
  ``index`` of every item is one of 0…n−1 and each appears once; every number is
  a JSON number (not a string, a boolean or NaN); the dimension is the one the
  embedder has (a server that changes it is refused).
- **Dimension**: given, or found by one request on first use.
- **Token window** (:attr:`OpenAIEmbedder.window`): given, or probed once from
  what the server says — TEI's ``GET /info`` (``max_input_length``), vLLM's
  ``GET /v1/models`` (``max_model_len``) — else ``None`` (unknown).
- **API key**: from ``$OSRAG_EMBEDDER_API_KEY`` when made from a spec, sent as
  ``Authorization: Bearer …``, never written into a message.

Every failure is an :class:`~osrag.errors.EmbeddingError` naming the embedder
and the endpoint (an :class:`~osrag.errors.EmbeddingInputError` when the server
refused the texts themselves with a 4xx); vectors are validated and
L2-normalised (:func:`~osrag.embedding.base.checked_vectors`). The vector cache
keys its vectors by :attr:`OpenAIEmbedder.cache_key`, which names the endpoint.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from osrag.embedding.base import Vectors
from osrag.embedding.retrying import (
    DEADLINE,
    MAX_ANSWER_BYTES,
    Allowance,
    RetryPolicy,
    post_with_retries,
)
from osrag.embedding.retrying import retry_delay as retry_delay  # the public name here
from osrag.embedding.service import (
    BatchedEmbedder,
    answer_vectors,
    endpoint_fingerprint,
    request_failure,
)
from osrag.errors import ConfigError

OPENAI_RETRIED_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


def endpoint_for(base_url: str) -> str:
    """``…/embeddings`` under the API root ``base_url`` (``/v1`` when it has no path)."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"embedding endpoint {base_url!r} is not an http(s) URL")
    path = parts.path.rstrip("/") or "/v1"
    if not path.endswith("/embeddings"):
        path += "/embeddings"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


class OpenAIEmbedder(BatchedEmbedder):
    """An OpenAI-compatible embeddings endpoint (see the module docstring).

    ``name`` defaults to ``model``; ``version`` to ``unversioned`` — set it,
    and change it when the served model changes: it keys the vector cache and
    the index generation.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        name: str | None = None,
        version: str = "unversioned",
        dimension: int | None = None,
        window: int | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 4,
        backoff: float = 0.5,
        max_wait: float = 30.0,
        deadline: float = DEADLINE,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        concurrency: int = 4,
        batch_size: int = 32,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        self.url = endpoint_for(base_url)
        if not model:
            raise ConfigError(f"embedding endpoint {self.url}: a model name is needed")
        numbers = (timeout, backoff, max_wait, deadline)
        if not all(math.isfinite(n) for n in numbers) or min(timeout, deadline) <= 0:
            raise ConfigError(
                f"embedding endpoint {self.url}: timeout and deadline must be positive numbers "
                "of seconds, backoff and max_wait finite"
            )
        if batch_size < 1 or concurrency < 1 or retries < 0 or backoff < 0 or max_wait < 0:
            raise ConfigError(
                f"embedding endpoint {self.url}: batch_size and concurrency must be "
                "positive, retries, backoff and max_wait not negative"
            )
        if max_answer_bytes < 1:
            raise ConfigError(f"embedding endpoint {self.url}: max_answer_bytes must be positive")
        if window is not None and window < 1:
            raise ConfigError(f"embedding endpoint {self.url}: window must be positive")
        self.model = model
        self._name = name or model
        self._version = version
        self._dimension = dimension
        self._window = window
        self._window_probed = window is not None
        self.timeout, self.retries = timeout, retries
        self.backoff, self.max_wait = backoff, max_wait
        self.deadline, self.max_answer_bytes = deadline, max_answer_bytes
        self.concurrency, self.batch_size = concurrency, batch_size
        self.allowance = Allowance()
        """The retry budget of this embedder, and a caller's deadline (:meth:`limit`)."""
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._pool: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.id}, {self.url})"

    @property
    def cache_key(self) -> str:
        """What the vector cache keys this embedder's vectors by: its id and the endpoint
        (another server of the same name and version gets vectors of its own)."""
        return f"{self.id}#{endpoint_fingerprint(self.url)}"

    remote = True
    """Requests go to a service: embed in this process (worker processes would only
    multiply the connections and split the retry budget)."""

    def limit(self, ends_at: float | None) -> None:
        """Stop sending requests at ``ends_at`` (a ``time.monotonic()`` value; None: no
        limit beyond the batch ``deadline``): an ingest's ``embed_deadline``."""
        self.allowance.ends_at = ends_at

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_pool"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _http(self) -> Any:
        with self._lock:
            if self._pool is None:
                import urllib3

                self._pool = urllib3.PoolManager(
                    maxsize=self.concurrency,
                    block=True,
                    timeout=urllib3.Timeout(connect=min(self.timeout, 10.0), read=self.timeout),
                    retries=False,  # retried by post_with_retries, within its bounds
                )
            return self._pool

    def _find_dimension(self) -> int:
        return int(self._post(["dimension probe"]).shape[1])

    @property
    def window(self) -> int | None:
        """The longest input in the server's tokens: declared, or probed once, or None."""
        if not self._window_probed:
            self._window = self._probe_window()
            self._window_probed = True
        return self._window

    def _probe_window(self) -> int | None:
        parts = urlsplit(self.url)
        root = parts.path.removesuffix("/embeddings")
        server_root = root.removesuffix("/v1")
        for path, pick in ((f"{server_root}/info", _tei_window), (f"{root}/models", _vllm_window)):
            url = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
            try:
                response = self._http().request(
                    "GET", url, headers=self._headers, timeout=5.0, preload_content=False
                )
                data = response.read(64 * 1024 + 1) if response.status == 200 else b""
                response.release_conn()
            except Exception:  # a server without the route, or gone: the window stays unknown
                continue
            if 0 < len(data) <= 64 * 1024:
                try:
                    found = pick(json.loads(data), self.model)
                except (ValueError, RecursionError):
                    found = None
                if found:
                    return found
        return None

    def _post(self, texts: list[str]) -> Vectors:
        body = json.dumps({"model": self.model, "input": texts, "encoding_format": "float"})
        policy = RetryPolicy(
            self.retries,
            OPENAI_RETRIED_STATUSES,
            retry_reads=True,
            backoff=self.backoff,
            max_wait=self.max_wait,
            jitter=0.25,
            timeout=self.timeout,
            deadline=self.deadline,
            max_bytes=self.max_answer_bytes,
        )
        outcome = post_with_retries(
            self._http(), self.url, body.encode(), self._headers, policy, self.allowance
        )
        response = outcome.response
        if response is not None and response.status == 200:
            return answer_vectors(
                response.data, "openai", len(texts), self.id, self._dimension, self.url
            )
        raise request_failure(outcome, self.id, self.url, policy, OPENAI_RETRIED_STATUSES)

    def _answer(self, batches: list[list[str]]) -> list[Vectors]:
        if len(batches) == 1 or self.concurrency == 1:
            return [self._post(b) for b in batches]
        with ThreadPoolExecutor(min(self.concurrency, len(batches))) as pool:
            return list(pool.map(self._post, batches))

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors (``passage_prefix`` prepended), unit length, in order."""
        return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors (``query_prefix`` prepended); the same as :meth:`embed` without one."""
        return self._encode(texts, self.query_prefix)


def _tei_window(payload: Any, model: str) -> int | None:
    value = payload.get("max_input_length") if isinstance(payload, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def _vllm_window(payload: Any, model: str) -> int | None:
    data = payload.get("data") if isinstance(payload, dict) else None
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict) and item.get("id") == model:
            value = item.get("max_model_len")
            return value if isinstance(value, int) and value > 0 else None
    return None
