"""Embedding services a team already runs: a Python callable, or an HTTP endpoint.

:class:`CallableEmbedder` wraps any ``fn(list[str]) -> array-like (n, d)``
(a client of an internal service, a model already loaded elsewhere). The
team states the name, version and dimension — osrag cannot know them — and
the version must change whenever the service's vectors do, because it keys
the vector cache and the index generation.

:class:`HttpEmbedder` speaks the two common wire formats:

- ``openai`` — ``POST …/v1/embeddings`` with ``{"model", "input": [...],
  "encoding_format": "float"}``, answer ``{"data": [{"index", "embedding"}]}``
  (OpenAI, Azure OpenAI, vLLM, Ollama, LiteLLM, LocalAI, Infinity…);
- ``tei`` — Hugging Face text-embeddings-inference ``POST …/embed`` with
  ``{"inputs": [...], "truncate": true}``, answer ``[[...], ...]``.

Both are sent with urllib3 (already installed with opensearch-py), with a
connect/read timeout, and retried with back-off on connection errors and on
429/502/503/504 (not on a read timeout: a slow service gets no extra load).
A failure is an :class:`~osrag.errors.EmbeddingError` naming the embedder,
the URL and the HTTP status with the start of the body; the API key never
appears in a message. Vectors are validated (count,
dimension, finite) and L2-normalised whatever the service returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

from osrag.embedding.base import NamedEmbedder, Vectors, checked_vectors
from osrag.embedding.retrying import RetryPolicy, post_with_retries
from osrag.embedding.runtime import require_text
from osrag.errors import ConfigError, EmbeddingError

Api = Literal["openai", "tei"]

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
"""Answers :class:`HttpEmbedder` tries again: the service is busy or behind a busy proxy."""


class CallableEmbedder(NamedEmbedder):
    """``fn(texts) -> (n, d)`` numbers as an :class:`~osrag.embedding.Embedder`.

    ``query_fn`` embeds queries when the service distinguishes them; without
    it queries go through ``fn``. ``batch_size`` splits large calls.
    """

    def __init__(
        self,
        fn: Callable[[list[str]], Any],
        *,
        name: str,
        version: str,
        dimension: int,
        query_fn: Callable[[list[str]], Any] | None = None,
        batch_size: int | None = None,
    ) -> None:
        if not name or not version or "@" in name:
            raise ConfigError(
                "CallableEmbedder needs a name without '@' and a version "
                f"(got {name!r}, {version!r})"
            )
        if dimension < 1:
            raise ConfigError(f"embedder {name}@{version}: dimension must be positive")
        if batch_size is not None and batch_size < 1:
            raise ConfigError(f"embedder {name}@{version}: batch_size must be at least 1")
        self._name = name
        self._version = version
        self._dimension = dimension
        self.fn = fn
        self.query_fn = query_fn
        self.batch_size = batch_size

    def __repr__(self) -> str:
        return f"CallableEmbedder({self.id}, dimension={self._dimension})"

    def _call(self, fn: Callable[[list[str]], Any], texts: Sequence[str]) -> Vectors:
        items = require_text(texts, self.id)
        size = self.batch_size or max(len(items), 1)
        parts = []
        for start in range(0, len(items), size):
            batch = items[start : start + size]
            try:
                raw = fn(batch)
            except EmbeddingError:
                raise
            except Exception as exc:
                raise EmbeddingError(
                    f"embedder {self.id}: the embedding function failed on {len(batch)} texts "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
            parts.append(
                checked_vectors(raw, count=len(batch), model=self.id, dimension=self._dimension)
            )
        if not parts:
            return checked_vectors([], count=0, model=self.id, dimension=self._dimension)
        import numpy as np

        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """``fn(texts)``, validated and L2-normalised."""
        return self._call(self.fn, texts)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """``query_fn(texts)`` if given, else the same as :meth:`embed`."""
        return self._call(self.query_fn or self.fn, texts)


def api_for_url(url: str) -> Api:
    """The wire format implied by a URL's path: ``…/embeddings`` → openai, ``…/embed`` → tei."""
    path = urlsplit(url).path.rstrip("/")
    if path.endswith("/embeddings"):
        return "openai"
    if path.endswith("/embed"):
        return "tei"
    raise ConfigError(
        f"embedding URL {url}: cannot tell the API from the path; end it with /v1/embeddings "
        "(OpenAI-compatible) or /embed (text-embeddings-inference), or say api=openai|tei"
    )


class HttpEmbedder(NamedEmbedder):
    """An OpenAI-compatible or text-embeddings-inference endpoint (see the module docstring).

    ``dimension`` may be given; otherwise one probe request on first use
    finds it. ``name`` defaults to ``model`` (or the URL's host), ``version``
    to ``unversioned`` — set it, and change it when the service's model
    changes. ``query_prefix``/``passage_prefix`` are prepended for models
    that expect them.
    """

    def __init__(
        self,
        url: str,
        *,
        api: Api | None = None,
        model: str | None = None,
        name: str | None = None,
        version: str = "unversioned",
        dimension: int | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        retries: int = 2,
        batch_size: int = 64,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"embedding URL {url!r} is not an http(s) URL")
        self.url = url
        self.api: Api = api or api_for_url(url)
        if self.api not in ("openai", "tei"):
            raise ConfigError(f"embedding URL {url}: api must be openai or tei, not {self.api!r}")
        if self.api == "openai" and not model:
            raise ConfigError(f"embedding URL {url}: an OpenAI-compatible API needs a model name")
        if batch_size < 1 or timeout <= 0 or retries < 0:
            raise ConfigError(
                f"embedding URL {url}: batch_size, timeout and retries must be positive"
            )
        self.model = model
        self._name = name or model or parts.netloc
        self._version = version
        self._dimension = dimension
        self.batch_size = batch_size
        self.timeout = timeout
        self.retries = retries
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._headers.update(headers or {})
        self._pool: Any = None
        # a slow answer is not retried: that would only add load
        self._policy = RetryPolicy(retries, RETRIED_STATUSES, retry_reads=False, max_wait=120.0)

    def _find_dimension(self) -> int:
        return int(self._request(["dimension probe"]).shape[1])

    def __repr__(self) -> str:
        return f"HttpEmbedder({self.id}, {self.url}, api={self.api})"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_pool"] = None
        return state

    def _http(self) -> Any:
        if self._pool is None:
            import urllib3

            self._pool = urllib3.PoolManager(
                timeout=urllib3.Timeout(connect=min(self.timeout, 10.0), read=self.timeout),
                retries=False,  # retried by post_with_retries
            )
        return self._pool

    def _request(self, texts: list[str]) -> Vectors:
        body: dict[str, Any]
        if self.api == "openai":
            body = {"model": self.model, "input": texts, "encoding_format": "float"}
        else:
            body = {"inputs": texts, "truncate": True}
        where = f"{self.url}"
        outcome = post_with_retries(
            self._http(), self.url, json.dumps(body).encode(), self._headers, self._policy
        )
        if outcome.error is not None:
            raise self._failure(outcome.error, where) from outcome.error
        response = outcome.response
        text = response.data.decode("utf-8", "replace")
        if response.status != 200:
            snippet = " ".join(text.split())[:200]
            raise EmbeddingError(
                f"embedder {self.id}: {where} answered HTTP {response.status}"
                + (f": {snippet}" if snippet else "")
            )
        return answer_vectors(text, self.api, len(texts), self.id, self._dimension, where)

    def _failure(self, exc: Exception, where: str) -> EmbeddingError:
        import urllib3

        errors = urllib3.exceptions
        reason = exc.reason if isinstance(exc, errors.MaxRetryError) else exc
        # NewConnectionError subclasses ConnectTimeoutError in urllib3 2: test it first
        if isinstance(reason, errors.NewConnectionError):
            return EmbeddingError(f"embedder {self.id}: cannot reach {where} ({reason})")
        if isinstance(reason, errors.TimeoutError):
            return EmbeddingError(
                f"embedder {self.id}: {where} did not answer within {self.timeout:g} s"
            )
        return EmbeddingError(f"embedder {self.id}: request to {where} failed ({reason})")

    def _encode(self, texts: Sequence[str], prefix: str) -> Vectors:
        items = require_text(texts, self.id)
        if prefix:
            items = [prefix + t for t in items]
        if not items:
            return checked_vectors([], count=0, model=self.id, dimension=self.dimension)
        parts = [
            self._request(items[i : i + self.batch_size])
            for i in range(0, len(items), self.batch_size)
        ]
        import numpy as np

        out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        if self._dimension is None:
            self._dimension = int(out.shape[1])
        return out

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors, one request per ``batch_size`` texts, unit length, in order."""
        return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors (``query_prefix`` prepended); the same as :meth:`embed` without one."""
        return self._encode(texts, self.query_prefix)


def answer_vectors(
    body: str | bytes, api: Api, count: int, model: str, dimension: int | None, where: str
) -> Vectors:
    """The checked, unit-length vectors of a service's answer ``body``, in input order."""
    try:
        payload = json.loads(body)
    except ValueError as exc:
        raise EmbeddingError(
            f"embedder {model}: {where} answered with something that is not JSON ({body[:80]!r})"
        ) from exc
    return checked_vectors(
        _vectors_from(payload, api, count, model, where),
        count=count,
        model=model,
        dimension=dimension,
        source=where,
    )


def _vectors_from(payload: Any, api: Api, count: int, model: str, where: str) -> Any:
    """The list of vectors in an answer, in input order, or an error saying what was wrong."""
    if api == "tei":
        if isinstance(payload, list):
            return payload
        raise EmbeddingError(
            f"embedder {model}: {where} answered {type(payload).__name__}, "
            "expected a list of vectors"
        )
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise EmbeddingError(f"embedder {model}: {where} answered without a 'data' list")
    try:
        ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
        return [item["embedding"] for item in ordered]
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"embedder {model}: {where} answered 'data' items without an 'embedding' ({exc})"
        ) from exc
