"""How a generation index is spread over a cluster: primary shards and replicas. Pure.

A generation's layout is part of its configuration (and so of its digest): a
generation is built once with its shards and replicas, and a different layout is
a different generation, built beside the current one and swapped in by the alias.

Which layout an ingest uses (:func:`choose_layout`):

1. the one asked for (``--shards``, ``--replicas``; either alone keeps the other
   from the rules below);
2. else the current generation's, so a cluster that gains a node does not
   rebuild every alias on its next ingest;
3. else the cluster's default from its data nodes (:func:`cluster_default`):
   one node → 1 shard, 0 replicas (a replica could never be placed); ``n ≥ 2``
   nodes → one primary per node up to :data:`MAX_DEFAULT_SHARDS` (writes and
   searches spread over every node) and 1 replica (one node can be lost without
   losing a chunk or a search).

The single-node layout (1 shard, 0 replicas) is the one generations had before
layouts were recorded, so its configuration does not name it
(:meth:`Layout.config`) and those generations keep their digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from osrag.errors import ConfigError

MAX_DEFAULT_SHARDS = 6
"""At most this many primaries by default: past a few shards per generation the fixed
cost of each (a query phase per shard, its heap and file handles) outweighs spreading a
corpus that fits in a few shards of 10–50 GB (see ``docs/scale.md``)."""


@dataclass(frozen=True, slots=True)
class Layout:
    shards: int = 1
    replicas: int = 0

    def __post_init__(self) -> None:
        if self.shards < 1:
            raise ConfigError(f"shards must be at least 1 (got {self.shards})")
        if self.replicas < 0:
            raise ConfigError(f"replicas must be 0 or more (got {self.replicas})")

    @property
    def copies(self) -> int:
        """Shard copies in all (primaries and replicas)."""
        return self.shards * (1 + self.replicas)

    def settings(self) -> dict[str, int]:
        """The index settings that make it (``settings.index`` of a ``PUT <index>`` body)."""
        return {"number_of_shards": self.shards, "number_of_replicas": self.replicas}

    def config(self) -> dict[str, int] | None:
        """The entry of a generation's configuration (None for the single-node layout)."""
        return None if self == SINGLE_NODE else {"shards": self.shards, "replicas": self.replicas}

    @classmethod
    def of_config(cls, config: dict[str, Any]) -> Layout:
        """The layout a generation's configuration records."""
        found = config.get("layout")
        if not found:
            return SINGLE_NODE
        return cls(int(found["shards"]), int(found["replicas"]))

    def describe(self) -> str:
        return f"{self.shards} shard{'s' * (self.shards != 1)}, {self.replicas} replica" + (
            "s" * (self.replicas != 1)
        )


SINGLE_NODE = Layout(1, 0)


def cluster_default(data_nodes: int) -> Layout:
    """The layout for a new generation on a cluster of ``data_nodes`` data nodes."""
    if data_nodes <= 1:
        return SINGLE_NODE
    return Layout(min(data_nodes, MAX_DEFAULT_SHARDS), 1)


def choose_layout(
    shards: int | None,
    replicas: int | None,
    *,
    current: Layout | None,
    data_nodes: int | None,
) -> Layout:
    """The layout of the generation an ingest writes (see the module docstring).

    ``data_nodes`` is None for an engine without shards (the embedded index): only the
    single-node layout is possible there. Replicas that no node could hold are refused:
    the index would stay yellow, and the copies it was asked for would not exist.
    """
    if data_nodes is None:
        if (shards or 1) != 1 or (replicas or 0) != 0:
            raise ConfigError(
                "this engine keeps a generation in one local index: it has no shards or "
                "replicas to set (--shards/--replicas need an OpenSearch cluster)"
            )
        return SINGLE_NODE
    base = current if current is not None else cluster_default(data_nodes)
    layout = Layout(
        shards if shards is not None else base.shards,
        replicas if replicas is not None else base.replicas,
    )
    inherited = current is not None and replicas is None
    if not inherited and layout.replicas > data_nodes - 1:
        # an inherited layout is kept even while a node is down: the alias's generation
        # exists already, and refusing to sync it would turn an outage into a stop
        raise ConfigError(
            f"{layout.replicas} replica(s) need at least {layout.replicas + 1} data nodes; the "
            f"cluster has {data_nodes} (a replica is never placed on its primary's node)"
        )
    return layout
