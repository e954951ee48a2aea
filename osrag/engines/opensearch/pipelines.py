"""osrag's search pipelines: OpenSearch's neural-search fuses a ``hybrid`` query's two legs on
the engine as the client fuses them (:mod:`osrag.search.fusion`), by a versioned name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PIPELINE_VERSION = 1
"""Bumped when the pipelines osrag creates change (the version is part of their names)."""


def pipeline_definition(
    fusion: str, *, rank_constant: int = 60, weights: Sequence[float] | None = None
) -> tuple[str, dict[str, Any]]:
    """The name and body of the OpenSearch search pipeline that fuses a ``hybrid`` query
    as :func:`osrag.search.fusion.reciprocal_rank_fusion` or
    :func:`osrag.search.fusion.normalized_fusion` does in the client."""
    if fusion == "rrf":
        name = f"osrag-rrf-{rank_constant}-v{PIPELINE_VERSION}"
        processor = {
            "score-ranker-processor": {
                "combination": {"technique": "rrf", "rank_constant": rank_constant}
            }
        }
    elif fusion == "normalization":
        weights = list(weights) if weights is not None else [0.5, 0.5]
        label = "-".join(f"{w:g}" for w in weights)
        name = f"osrag-minmax-mean-{label}-v{PIPELINE_VERSION}"
        processor = {
            "normalization-processor": {
                "normalization": {"technique": "min_max"},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {"weights": weights},
                },
            }
        }
    else:
        raise ValueError(f"unknown fusion {fusion!r}")
    body = {
        "description": f"osrag hybrid search: {fusion} fusion of the lexical and vector legs",
        "phase_results_processors": [processor],
    }
    return name, body
