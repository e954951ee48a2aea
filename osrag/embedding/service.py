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

Both are sent with urllib3 (already installed with opensearch-py) within the
bounds of :mod:`osrag.embedding.retrying` — ``timeout`` for the whole request,
``deadline`` for a batch's tries, ``max_answer_bytes`` for the answer, a retry
budget — and retried with back-off on connection errors and on 429/502/503/504
(not on a read timeout: a slow service gets no extra load). A failure is an
:class:`~osrag.errors.EmbeddingError` naming the embedder, the URL and the HTTP
status with the start of the body (:class:`~osrag.errors.EmbeddingInputError`
for a 4xx that refuses the texts); the API key never appears in a message.

Answers are checked strictly (:func:`answer_vectors`): one vector per text, each
OpenAI ``index`` in 0…n−1 exactly once (a duplicate would attach vectors to the
wrong texts), every number a JSON number — not a string, a boolean, ``NaN`` or
``Infinity`` —, one dimension; then L2-normalised.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from osrag.embedding.base import NamedEmbedder, Vectors, checked_vectors
from osrag.embedding.retrying import (
    DEADLINE,
    MAX_ANSWER_BYTES,
    Allowance,
    AnswerTooLarge,
    Outcome,
    RetryPolicy,
    post_with_retries,
)
from osrag.embedding.runtime import require_text
from osrag.errors import ConfigError, EmbeddingError, EmbeddingInputError

Api = Literal["openai", "tei"]

SERVICE_RETRIED_STATUSES = frozenset({429, 502, 503, 504})
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
                raise EmbeddingInputError(
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


class BatchedEmbedder(NamedEmbedder):
    """An embedder whose texts are answered in batches of ``batch_size`` (a request each,
    :meth:`_answer`), every text after its prefix; an embedder not told its dimension
    learns it from its first answer."""

    batch_size: int

    def _answer(self, batches: list[list[str]]) -> list[Vectors]:
        """The vectors of each batch, in order."""
        raise NotImplementedError

    def _encode(self, texts: Sequence[str], prefix: str) -> Vectors:
        items = require_text(texts, self.id)
        if prefix:
            items = [prefix + t for t in items]
        if not items:
            return checked_vectors([], count=0, model=self.id, dimension=self.dimension)
        size = self.batch_size
        parts = self._answer([items[i : i + size] for i in range(0, len(items), size)])
        import numpy as np

        out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        if self._dimension is None:
            self._dimension = int(out.shape[1])
        return out


class HttpEmbedder(BatchedEmbedder):
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
        deadline: float = DEADLINE,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
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
        if batch_size < 1 or retries < 0 or max_answer_bytes < 1:
            raise ConfigError(
                f"embedding URL {url}: batch_size, retries and max_answer_bytes must be positive"
            )
        if not (math.isfinite(timeout) and math.isfinite(deadline)) or min(timeout, deadline) <= 0:
            raise ConfigError(f"embedding URL {url}: timeout and deadline must be positive")
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
        self.deadline, self.max_answer_bytes = deadline, max_answer_bytes
        # a slow answer is not retried: that would only add load
        self._policy = RetryPolicy(
            retries,
            SERVICE_RETRIED_STATUSES,
            retry_reads=False,
            max_wait=120.0,
            timeout=timeout,
            deadline=deadline,
            max_bytes=max_answer_bytes,
        )
        self.allowance = Allowance()
        """The retry budget of this embedder, and a caller's deadline (:meth:`limit`)."""

    remote = True
    """Requests go to a service: embed in this process."""

    def _find_dimension(self) -> int:
        return int(self._request(["dimension probe"]).shape[1])

    def __repr__(self) -> str:
        return f"HttpEmbedder({self.id}, {self.url}, api={self.api})"

    @property
    def cache_key(self) -> str:
        """What the vector cache keys this embedder's vectors by: its id and the endpoint."""
        return f"{self.id}#{endpoint_fingerprint(self.url)}"

    def limit(self, ends_at: float | None) -> None:
        """Stop sending requests at ``ends_at`` (a ``time.monotonic()`` value, or None)."""
        self.allowance.ends_at = ends_at

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_pool"] = None
        return state

    def _http(self) -> Any:
        if self._pool is None:
            import urllib3

            self._pool = urllib3.PoolManager(
                timeout=urllib3.Timeout(connect=min(self.timeout, 10.0), read=self.timeout),
                retries=False,  # retried by post_with_retries, within its bounds
            )
        return self._pool

    def _request(self, texts: list[str]) -> Vectors:
        body: dict[str, Any]
        if self.api == "openai":
            body = {"model": self.model, "input": texts, "encoding_format": "float"}
        else:
            body = {"inputs": texts, "truncate": True}
        outcome = post_with_retries(
            self._http(),
            self.url,
            json.dumps(body).encode(),
            self._headers,
            self._policy,
            self.allowance,
        )
        response = outcome.response
        if response is not None and response.status == 200:
            return answer_vectors(
                response.data, self.api, len(texts), self.id, self._dimension, self.url
            )
        raise request_failure(outcome, self.id, self.url, self._policy, SERVICE_RETRIED_STATUSES)

    def _answer(self, batches: list[list[str]]) -> list[Vectors]:
        return [self._request(b) for b in batches]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors, one request per ``batch_size`` texts, unit length, in order."""
        return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors (``query_prefix`` prepended); the same as :meth:`embed` without one."""
        return self._encode(texts, self.query_prefix)


def endpoint_fingerprint(url: str) -> str:
    """12 hex of SHA-256 of an endpoint's scheme, host, port and path (no query, no
    fragment, never a credential): part of the vector cache's key."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    normal = urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))
    return hashlib.sha256(normal.encode()).hexdigest()[:12]


def request_failure(
    outcome: Outcome, model: str, where: str, policy: RetryPolicy, retried: frozenset[int]
) -> EmbeddingError:
    """The error for a request that gave no usable answer: what happened on the last try,
    how many tries ran, and which bound stopped them."""
    import urllib3

    errors = urllib3.exceptions
    exc, response = outcome.error, outcome.response
    kind: type[EmbeddingError] = EmbeddingError
    if isinstance(exc, AnswerTooLarge):
        problem = (
            f"answered with {exc}: over the max_answer_bytes limit ({policy.max_bytes:,} "
            "bytes; raise max_answer_bytes if the batches really need more)"
        )
    elif exc is not None:
        reason = exc.reason if isinstance(exc, errors.MaxRetryError) else exc
        # NewConnectionError subclasses ConnectTimeoutError in urllib3 2: test it first
        if isinstance(reason, errors.NewConnectionError):
            problem = f"cannot be reached ({reason})"
        elif isinstance(reason, errors.TimeoutError):
            problem = f"did not answer within {policy.timeout:g} s"
        else:
            problem = str(reason) if "within" in str(reason) else f"request failed ({reason})"
    elif response is not None:
        snippet = " ".join(response.data[:400].decode("utf-8", "replace").split())[:200]
        problem = f"answered HTTP {response.status}" + (f": {snippet}" if snippet else "")
        if 400 <= response.status < 500 and response.status not in retried:
            kind = EmbeddingInputError  # the texts were refused: others may go through
    else:
        problem = "was not asked"
    tries = f" after {outcome.attempts} attempts" if outcome.attempts > 1 else ""
    if outcome.stopped:
        tries += f" in {outcome.seconds:.1f} s; no more tries: {outcome.stopped}"
    return kind(f"embedder {model}: {where} {problem}{tries}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def answer_vectors(
    body: str | bytes, api: Api, count: int, model: str, dimension: int | None, where: str
) -> Vectors:
    """The checked, unit-length vectors of a service's answer ``body``, in input order
    (see the module docstring for what is checked)."""
    try:
        payload = json.loads(body, parse_constant=_no_constant)
    except ValueError as exc:
        if "is not a number" in str(exc):
            raise EmbeddingError(
                f"embedder {model}: {where} answered a vector holding {exc} (NaN or Infinity)"
            ) from None
        raise EmbeddingError(
            f"embedder {model}: {where} answered with something that is not JSON ({body[:80]!r})"
        ) from exc
    except RecursionError:
        raise EmbeddingError(f"embedder {model}: {where} answered JSON nested too deeply") from None
    rows = _vectors_from(payload, api, count, model, where)
    _numbers_only(rows, model, where)
    return checked_vectors(rows, count=count, model=model, dimension=dimension, source=where)


_NUMBER_TYPES = (int, float)


def _numbers_only(rows: list[Any], model: str, where: str) -> None:
    """Every row a list of JSON numbers: ``"0.5"`` and ``true`` would otherwise pass as 0.5
    and 1.0 through numpy."""
    for n, row in enumerate(rows):
        if not isinstance(row, list):
            raise EmbeddingError(
                f"embedder {model}: {where} answered vector {n} as a {type(row).__name__}, "
                "not a list of numbers"
            )
        for value in row:
            if type(value) not in _NUMBER_TYPES:
                raise EmbeddingError(
                    f"embedder {model}: {where} answered vector {n} holding {value!r}: not a number"
                )


def _vectors_from(payload: Any, api: Api, count: int, model: str, where: str) -> list[Any]:
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
    if len(data) != count:
        raise EmbeddingError(
            f"embedder {model}: {where} answered {len(data)} vectors, expected {count} vectors"
        )
    placed: list[Any] = [None] * count
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        if type(index) is not int or not 0 <= index < count:
            raise EmbeddingError(
                f"embedder {model}: {where} answered an item whose index is {index!r}, not one "
                f"of 0…{count - 1}"
            )
        if placed[index] is not None:
            raise EmbeddingError(
                f"embedder {model}: {where} answered index {index} twice (and so missed "
                "another): its vectors cannot be matched to the texts"
            )
        if "embedding" not in item:
            raise EmbeddingError(
                f"embedder {model}: {where} answered item {index} without an 'embedding'"
            )
        placed[index] = item["embedding"]
    return placed
