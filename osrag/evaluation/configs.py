"""What ``--compare`` and ``--baselines`` compare: named configurations of the index and
of the query.

``parse_compare(["strategy=fixed,structural", "amount_filter=on,off"])`` is the
cartesian product of the axes, in the order given; the first configuration is the
baseline every other one is tested against. Keys that change the index (chunking,
tokenizer, analyzer, canonical tokens, fitting chunks to the embedder's window) are
built as temporary generations; the others change only the query.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from osrag.errors import ConfigError

INDEX_KEYS = {
    "strategy",
    "size",
    "overlap",
    "max_tokens",
    "min_tokens",
    "tokenizer",
    "overlap_sentences",
    "oversize",
    "analyzer",
    "canonical_tokens",
    "fit_window",
}
QUERY_KEYS = {
    "amount_filter",
    "keep_amount_text",
    "ambiguous_amount_boost",
    "operator",
    "minimum_should_match",
    "breadcrumb_boost",
    "title_boost",
    "mode",
    "fusion",
    "rank_constant",
}
BOOLEAN_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}


@dataclass
class EvalConfig:
    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def index_params(self) -> dict[str, Any]:
        return {k: v for k, v in self.params.items() if k in INDEX_KEYS}

    @property
    def query_params(self) -> dict[str, Any]:
        return {k: v for k, v in self.params.items() if k in QUERY_KEYS}


def _value(key: str, raw: str) -> Any:
    if key not in INDEX_KEYS | QUERY_KEYS:
        known = ", ".join(sorted(INDEX_KEYS | QUERY_KEYS))
        raise ConfigError(f"unknown comparison key {key!r} (known: {known})")
    if key in {"amount_filter", "keep_amount_text", "canonical_tokens", "fit_window"}:
        if raw.lower() not in BOOLEAN_WORDS:
            raise ConfigError(f"{key}={raw}: expected on or off")
        return BOOLEAN_WORDS[raw.lower()]
    if key == "mode" and raw not in ("auto", "bm25", "vector", "hybrid"):
        raise ConfigError(f"mode={raw}: expected auto, bm25, vector or hybrid")
    if key == "fusion" and raw not in ("rrf", "normalization"):
        raise ConfigError(f"fusion={raw}: expected rrf or normalization")
    if key in {"size", "overlap", "max_tokens", "min_tokens", "overlap_sentences", "rank_constant"}:
        try:
            return int(raw)
        except ValueError as exc:
            raise ConfigError(f"{key}={raw}: expected an integer") from exc
    if key in {"breadcrumb_boost", "title_boost", "ambiguous_amount_boost"}:
        try:
            return float(raw)
        except ValueError as exc:
            raise ConfigError(f"{key}={raw}: expected a number") from exc
    return raw


def label(params: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        return ("on" if v else "off") if isinstance(v, bool) else str(v)

    return " ".join(f"{k}={show(v)}" for k, v in params.items()) or "current"


def parse_compare(specs: Sequence[str]) -> list[EvalConfig]:
    """``["strategy=fixed,structural", "amount_filter=on,off"]`` → their cartesian product."""
    axes: list[tuple[str, list[Any]]] = []
    for spec in specs:
        key, sep, values = spec.partition("=")
        if not sep or not values:
            raise ConfigError(f"--compare {spec!r}: expected KEY=V1,V2")
        axes.append((key.strip(), [_value(key.strip(), v.strip()) for v in values.split(",")]))
    if not axes:
        return [EvalConfig("current")]
    configs = []
    for combo in itertools.product(*(values for _key, values in axes)):
        params = dict(zip((key for key, _v in axes), combo, strict=True))
        configs.append(EvalConfig(label(params), params))
    return configs


def baseline_configs() -> list[EvalConfig]:
    """The lesson in three columns: plain BM25, string canonicalisation, the amount filter."""
    return [
        EvalConfig("bm25", {"amount_filter": False, "mode": "bm25"}),
        EvalConfig(
            "canonical-tokens", {"canonical_tokens": True, "amount_filter": False, "mode": "bm25"}
        ),
        EvalConfig("amount-filter", {"amount_filter": True, "mode": "bm25"}),
    ]


BASELINE_LEGEND = {
    "bm25": "plain BM25 on the text; amounts are just words",
    "canonical-tokens": "the reference's fix: money:<cents> tokens in the searched text "
    "(an evaluation baseline only)",
    "amount-filter": "osrag: every stated amount is a constraint: a term, range or terms filter "
    "on the integer amounts field",
}
