"""What a re-ingest keeps: the embedder and chunking an alias was built with.

The manifest records each generation's configuration. A re-ingest that names no
embedder and no chunking settings means "the same corpus, the same way": without this,
``osrag ingest DIR --alias mine`` after ``--embedder default`` would build a generation
without vectors, move the alias to it, and the next hybrid search would fail.

Rules (:func:`reingest_settings`), flags first:

* **embedder**: ``--no-embedder`` drops vectors on purpose; ``--embedder SPEC`` is that
  one; otherwise the current generation's embedder (by the spec that named it), else the
  ``embedder`` setting. An embedder the manifest cannot rebuild (given to ``ingest()``
  as an object, not a spec) is refused with the reason, never silently dropped.
* **chunking**: the current generation's settings, each flag given replacing its one
  value (``--size 300`` on a ``fixed`` alias keeps ``fixed`` and its overlap). The
  embedder's window is not carried over: it follows the embedder of this ingest.

The Python :func:`~osrag.ingestion.ingest.ingest` takes its options as given; callers
who want the same rule call :func:`reingest_settings` first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from osrag.errors import ConfigError
from osrag.models import ChunkingConfig, GenerationRecord

__all__ = ["Reingest", "reingest_settings"]


@dataclass(frozen=True)
class Reingest:
    chunking: ChunkingConfig
    embedder: str | None
    embedder_from: str
    """Where the embedder comes from: ``flag``, ``alias``, ``setting``, ``none``."""
    chunking_from: str
    """``flags``, ``alias`` (remembered, flags applied over it) or ``defaults``."""


def _remembered_chunking(record: GenerationRecord) -> dict[str, Any]:
    chunking = dict(record.config.get("chunking") or {})
    window = chunking.pop("window", None)
    if (
        isinstance(window, dict)
        and window.get("fit")
        and chunking.get("tokenizer") == window.get("tokenizer")
    ):
        chunking.pop("tokenizer", None)  # set by the window's fit, not by the user
    return chunking


def reingest_settings(
    current: GenerationRecord | None,
    *,
    alias: str,
    chunking_flags: dict[str, Any],
    embedder_flag: str | None = None,
    no_embedder: bool = False,
    embedder_setting: str | None = None,
) -> Reingest:
    """The chunking and embedder of a re-ingest of ``alias`` (see the module docstring)."""
    if no_embedder and embedder_flag:
        raise ConfigError("--embedder and --no-embedder: choose one")
    flags = {k: v for k, v in chunking_flags.items() if v is not None}
    if current is not None:
        chunking = ChunkingConfig.model_validate({**_remembered_chunking(current), **flags})
        chunking_from = "alias"
    else:
        chunking = ChunkingConfig(**flags)
        chunking_from = "flags" if flags else "defaults"
    declared = current.config.get("embedder") if current is not None else None
    if no_embedder:
        return Reingest(chunking, None, "none", chunking_from)
    if embedder_flag:
        return Reingest(chunking, embedder_flag, "flag", chunking_from)
    if isinstance(declared, dict):
        spec = declared.get("spec")
        if not spec:
            raise ConfigError(
                f"alias {alias!r} was built with embedder {declared.get('id')} given as an "
                "object, which cannot be rebuilt from the manifest: pass --embedder SPEC to "
                "keep its vectors, or --no-embedder to drop them"
            )
        return Reingest(chunking, str(spec), "alias", chunking_from)
    if embedder_setting:
        return Reingest(chunking, embedder_setting, "setting", chunking_from)
    return Reingest(chunking, None, "none", chunking_from)


def current_record(index: Any, alias: str) -> GenerationRecord | None:
    """The manifest record of the generation ``alias`` points to (None: unset)."""
    from osrag.ingestion.manifest import Manifest

    target = index.alias_target(alias)
    if target is None:
        return None
    return Manifest(index.records(alias), alias).generation(target)
