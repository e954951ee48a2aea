"""``osrag plan``: what applying a proposed configuration to a corpus would do to an
alias, and cost — read from the alias, priced by :mod:`osrag.ingestion.cost` (pure).

:func:`plan_change` is the I/O around the pricing: it reads the alias's manifest and
current generation, chooses the generation the ingest would write (exactly as
:func:`osrag.ingestion.ingest.ingest` does), loads and cuts the corpus with the proposed
settings, asks the local vector cache which texts it holds, the engine how many bytes
the current generation takes, and the stored embedding rate how long the rest takes
(:mod:`osrag.embedding.rates`). It writes nothing to the index; ``osrag ingest
--dry-run`` prints the same plan.

**Access** is the search's: the caller's tenant and groups decide which documents the
plan counts and lists — those of the current generation by the engine answering the
same tenant and ACL filters a search carries, those of the corpus by the same rule on
their metadata. An alias that holds tenants refuses a caller without one. The operator
who runs the ingest writes every document, and plans as ``Caller(unrestricted=True)``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osrag.engines.base import ChunkIndex
from osrag.errors import QueryError
from osrag.ingestion.cost import Priced, Pricing, price_changes
from osrag.ingestion.ingest import (
    IngestOptions,
    cache_key,
    changes_of,
    known_of,
    resolve_embedder,
    target_generation,
    vector_source_generations,
    with_window,
)
from osrag.ingestion.manifest import Manifest
from osrag.ingestion.plan import Change
from osrag.lexicon.profiles import Profile
from osrag.models import Document, GenerationRecord
from osrag.schema.change_plan import ChangePlan, EmbeddingCost, SettingChange, SizeEstimate
from osrag.schema.filters import AclGuard, AllOf, TenantGuard

__all__ = ["Caller", "plan_change", "setting_changes"]

BYTES_PER_DIMENSION = 12
"""Index bytes one vector dimension adds per chunk, for a plan that adds, drops or
resizes vectors: 4 for the float32 value in the vector index and about 8 for its text in
the stored ``_source`` once compressed (an estimate: docs/scale.md)."""


@dataclass(frozen=True)
class Caller:
    """Who asks for the plan: the scope a search of theirs would have."""

    tenant: str | None = None
    groups: tuple[str, ...] = ()
    unrestricted: bool = False
    """The operator's view (the ingest writes every document)."""

    def guards(self) -> tuple[TenantGuard, AclGuard]:
        """The search's tenant and ACL guards for this caller (a blank value refused)."""
        tenant = self.tenant
        if tenant is not None:
            if not tenant.strip():
                raise QueryError(f"tenant {tenant!r} is blank: pass the caller's tenant")
            tenant = tenant.strip()
        groups = []
        for group in self.groups:
            if not group.strip():
                raise QueryError(f"ACL group {group!r} is blank: pass the caller's groups")
            groups.append(group.strip())
        return TenantGuard(tenant), AclGuard(tuple(sorted(set(groups))))

    def sees(self, doc: Document) -> bool:
        """The guards' rule on a document's own metadata (a document not indexed yet)."""
        tenant, acl = self.guards()
        if doc.tenant != tenant.tenant:
            return False
        return not doc.acl or bool(set(doc.acl) & set(acl.groups))

    def describe(self) -> str:
        if self.unrestricted:
            return "every document (unrestricted)"
        tenant = f"tenant {self.tenant!r}" if self.tenant is not None else "no tenant"
        groups = ", ".join(self.groups) if self.groups else "none"
        return f"the documents a search by {tenant} with groups [{groups}] sees"


def _flatten(prefix: str, value: Any, into: dict[str, str]) -> None:
    if prefix == "extraction.profiles" and isinstance(value, list):
        # a configuration's family profiles, each by its name and digest (not every record)
        for item in value:
            profile = Profile.model_validate(item)
            into[f"{prefix}.{profile.name}"] = f"digest {profile.digest}"
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, into)
    else:
        into[prefix] = str(value)


IGNORED_SETTINGS = frozenset({"analyzer_requested", "embedder.spec", "embedder.fingerprint"})


def setting_changes(
    before: GenerationRecord | None, config: dict[str, Any], versions: dict[str, str]
) -> list[SettingChange]:
    """Each configuration value and version that differs from the current generation's."""
    old: dict[str, str] = {}
    new: dict[str, str] = {}
    if before is not None:
        _flatten("", before.config, old)
        _flatten("versions", before.versions, old)
    _flatten("", config, new)
    _flatten("versions", versions, new)
    return [
        SettingChange(setting=key, before=old.get(key), after=new.get(key))
        for key in sorted(set(old) | set(new))
        if key not in IGNORED_SETTINGS and old.get(key) != new.get(key)
    ]


def _visible_before(
    index: ChunkIndex, manifest: Manifest, current: str | None, caller: Caller
) -> set[str] | None:
    """The documents of the current generation the caller may see (None: all), asked of
    the engine with the search's own filters; refuses a caller without a tenant on an
    alias that holds tenants (fail closed)."""
    if caller.unrestricted:
        return None
    tenant, acl = caller.guards()
    if manifest.policy().tenants and tenant.tenant is None:
        raise QueryError(
            f"alias {manifest.alias!r} holds documents of several tenants: pass a tenant "
            "(or plan unrestricted, as the operator who ingests)"
        )
    if current is None:
        return set()
    found = index.chunk_ids(current, AllOf((tenant.filter(), acl.filter())))
    return {doc_id for _, doc_id in found}


def plan_change(
    path: Path,
    index: ChunkIndex,
    options: IngestOptions | None = None,
    *,
    caller: Caller | None = None,
    price_per_million_tokens: float | None = None,
    calibrate: bool | None = None,
    embed_workers: int | None = None,
) -> ChangePlan:
    """What ``ingest(path, index, options)`` would do and cost (see the module docstring).

    ``calibrate``: None measures a local embedder on a sample of the texts to embed when
    no rate is stored (and stores it); True measures now whatever is stored; False never.
    ``embed_workers``: the embedding processes the ingest would use (default: the
    options')."""
    options = options or IngestOptions()
    caller = caller or Caller()
    embedder = resolve_embedder(options)
    options = with_window(options, embedder)
    manifest = Manifest(index.records(options.alias), options.alias)
    current = index.alias_target(options.alias)
    current_record = manifest.generation(current) if current else None
    visible_before = _visible_before(index, manifest, current, caller)
    target = target_generation(options, index, manifest, embedder, current_record, same_model=True)
    choice = target.choice
    known = {} if choice.create else known_of(manifest, choice.record.name)
    before = known_of(manifest, current) if current else {}
    sources = vector_source_generations(manifest, choice, known, embedder)
    pricing = Pricing(
        tokens=_token_counter(options),
        before=before,
        new_generation=choice.switching,
        sources=[k for _, k in sources],
        embedding=embedder is not None,
        in_cache=_cache_lookup(embedder),
        tokens_counted_with=_tokens_counted_with(options),
        visible=_sees_change(caller, visible_before),
        visible_before=lambda doc_id: visible_before is None or doc_id in visible_before,
    )
    priced = price_changes(changes_of(path, known, options), pricing, prune=options.prune)
    plan = ChangePlan(
        alias=options.alias,
        current_generation=current,
        generation=choice.record.name,
        new_generation=choice.create,
        alias_moves=choice.switching,
        settings=setting_changes(current_record, target.config, target.versions),
        scope=caller.describe(),
        documents=priced.documents,
        chunks=priced.chunks,
        vectors=priced.vectors,
        size=_size(index, current, current_record, priced, embedder),
        warnings=priced.warnings,
        changed_documents=priced.changed_documents,
    )
    if embedder is not None:
        workers = embed_workers or options.embed_workers
        plan.embedding = _embedding_cost(
            embedder, priced, calibrate, price_per_million_tokens, workers
        )
    if current_record is not None and current_record.config.get("embedder") and not embedder:
        plan.warnings.append(
            f"the alias holds vectors ({current_record.config['embedder'].get('id')}); this "
            "configuration has no embedder: the new generation will hold none, and hybrid "
            "and vector searches of the alias will fail"
        )
    return plan


def _sees_change(caller: Caller, visible_before: set[str] | None) -> Any:
    def visible(change: Change) -> bool:
        if visible_before is None:
            return True
        if change.doc is not None and caller.sees(change.doc):
            return True
        return change.doc_id in visible_before

    return visible


def _token_counter(options: IngestOptions) -> Any:
    """The tokens the embedder receives for a chunk: counted by the chunker in the
    embedder's own tokenizer where it states one, else ``text`` in the chunking
    tokenizer."""
    if options.chunking.window is not None:
        return lambda chunk: chunk.embedder_tokens or chunk.tokens
    from osrag.chunking import get_tokenizer

    tokenizer = get_tokenizer(options.chunking.tokenizer)
    return lambda chunk: tokenizer.count(chunk.text)


def _tokens_counted_with(options: IngestOptions) -> str:
    window = options.chunking.window
    if window is not None:
        return f"{window.tokenizer} (the embedder's tokenizer)"
    return (
        f"{options.chunking.tokenizer} (the chunking tokenizer: an estimate, the embedder "
        "states no tokenizer)"
    )


def _cache_lookup(embedder: Any) -> Any:
    """Which digests the local vector cache holds for ``embedder`` (None: no cache file)."""
    if embedder is None:
        return None
    from osrag.embedding import SqliteVectorCache, default_cache_path

    path = default_cache_path()
    if not path.exists():
        return None
    key = cache_key(embedder)

    def in_cache(digests: Sequence[str]) -> Collection[str]:
        with SqliteVectorCache(path) as cache:
            return set(cache.get_many(key, list(digests)))

    return in_cache


def _embedding_cost(
    embedder: Any,
    priced: Priced,
    calibrate: bool | None,
    price: float | None,
    workers: int,
) -> EmbeddingCost:
    from osrag.embedding.rates import load_rate, measure_rate, store_rate

    key = cache_key(embedder)
    remote = bool(getattr(embedder, "remote", False))
    cost = EmbeddingCost(
        embedder=embedder.id,
        fingerprint=key,
        remote=remote,
        price_per_million_tokens=price,
    )
    rate = None if calibrate else load_rate(key)
    source = rate.describe() if rate is not None else ""
    measure = calibrate or (calibrate is None and rate is None and not remote)
    if measure and priced.sample:
        sample = priced.sample
        tokens = _embedder_tokens(embedder, sample)
        rate = measure_rate(embedder, sample, tokens)
        store_rate(key, rate)
        source = f"calibrated now on {rate.texts} of the texts to embed (stored for next time)"
    vectors = priced.vectors
    assert vectors is not None
    if not vectors.to_embed:
        cost.seconds = 0.0
        cost.rate_source = source or "nothing to embed"
        if rate is None:
            return _priced(cost, vectors.tokens_to_embed, price)
    if rate is not None:
        cost.texts_per_second = round(rate.texts_per_second * workers, 3)
        cost.tokens_per_second = round(rate.tokens_per_second * workers, 1)
        cost.rate_source = source + (f", × {workers} embedding processes" if workers > 1 else "")
        if cost.tokens_per_second and vectors.to_embed:
            cost.seconds = round(vectors.tokens_to_embed / cost.tokens_per_second, 1)
    else:
        cost.rate_source = (
            "none stored: a service is not timed without asking (osrag plan --calibrate)"
            if remote
            else "none: nothing to embed to measure on"
        )
    return _priced(cost, vectors.tokens_to_embed, price)


def _priced(cost: EmbeddingCost, tokens: int, price: float | None) -> EmbeddingCost:
    if price is not None:
        cost.cost = round(tokens / 1e6 * price, 6)
    return cost


def _embedder_tokens(embedder: Any, texts: list[str]) -> list[int]:
    """Each text's tokens in the embedder's tokenizer, else whitespace words."""
    from osrag.chunking.window import embed_window

    window = embed_window(embedder)
    if window is None:
        return [len(t.split()) for t in texts]
    from osrag.chunking import get_tokenizer

    tokenizer = get_tokenizer(window.tokenizer)
    return [tokenizer.count(window.prefix + t) + window.special_tokens for t in texts]


def _size(
    index: ChunkIndex,
    current: str | None,
    record: GenerationRecord | None,
    priced: Priced,
    embedder: Any,
) -> SizeEstimate:
    if current is None or record is None or not record.chunks:
        return SizeEstimate(note="no current generation to scale from")
    total = index.store_bytes(current)
    if total is None:
        return SizeEstimate(note="the engine reports no store size")
    per_chunk = total / record.chunks
    before_dim = (record.config.get("embedder") or {}).get("dimension") or 0
    after_dim = embedder.dimension if embedder is not None else 0
    after_per_chunk = max(0.0, per_chunk + (after_dim - before_dim) * BYTES_PER_DIMENSION)
    note = "the current generation's bytes per chunk × chunks"
    if after_dim != before_dim:
        note += f", {BYTES_PER_DIMENSION} bytes per vector dimension added or dropped"
    return SizeEstimate(
        bytes_before=round(per_chunk * priced.chunks.before),
        bytes_after=round(after_per_chunk * priced.chunks.after),
        bytes_per_chunk=round(per_chunk, 1),
        note=note,
    )
